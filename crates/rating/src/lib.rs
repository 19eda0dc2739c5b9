//! Ratings: Glicko-2 for two-sided and ranked results of any number of sides, one rating per
//! bot and game mode, with the record a bot's profile shows (games, wins, losses, draws,
//! highest rating, streaks) and the provisional period before a rating counts as official.
//!
//! The arithmetic is the `skillratings` crate's Glicko-2; this crate fixes the constants, turns
//! a match result into a rating change, and keeps the record. A paired match is one result, and
//! each result is rated at once (a rating period of one game), as live servers do. A result of
//! more than two sides is rated as the pairwise results it implies, in one rating period (see
//! [`rate_ranked`]). It does no I/O: the arena decides which matches count and stores what this
//! returns.

use serde::{Deserialize, Serialize};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2, glicko2_rating_period};

/// The constants of the rating system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingConfig {
    /// Glicko-2's τ, which bounds how fast volatility changes (Glickman suggests 0.3–1.2).
    pub tau: f64,
    /// A new bot's rating.
    pub initial_rating: f64,
    /// A new bot's rating deviation.
    pub initial_deviation: f64,
    /// A new bot's volatility.
    pub initial_volatility: f64,
    /// Rated games before a rating is official rather than provisional.
    pub provisional_games: u32,
}

impl Default for RatingConfig {
    fn default() -> RatingConfig {
        RatingConfig {
            tau: 0.5,
            // FlipSight's starting point, which its bot authors know.
            initial_rating: 1200.0,
            initial_deviation: 300.0,
            initial_volatility: 0.06,
            provisional_games: 50,
        }
    }
}

/// How a result went, for the first of the two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The first side won.
    Win,
    /// The first side lost.
    Loss,
    /// Neither won.
    Draw,
}

impl Outcome {
    /// The same result seen from the other side.
    pub fn reversed(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }
}

/// One bot's rating in one game mode, and its record there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating.
    pub rating: f64,
    /// How uncertain it is (Glicko's RD).
    pub deviation: f64,
    /// How erratic the bot's results are (Glicko-2's σ).
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
    /// The highest rating reached after a game (the initial rating before any).
    pub high: f64,
    /// The current streak: wins in a row when positive, losses in a row when negative, 0 after
    /// a draw.
    pub streak: i32,
    /// The longest run of wins.
    pub best_streak: u32,
}

impl Rating {
    /// A new bot's rating.
    pub fn new(config: &RatingConfig) -> Rating {
        Rating {
            rating: config.initial_rating,
            deviation: config.initial_deviation,
            volatility: config.initial_volatility,
            games: 0,
            wins: 0,
            losses: 0,
            draws: 0,
            high: config.initial_rating,
            streak: 0,
            best_streak: 0,
        }
    }

    /// Whether the rating is still provisional.
    pub fn provisional(&self, config: &RatingConfig) -> bool {
        self.games < config.provisional_games
    }

    /// Rated games played towards an official rating, capped at the number needed.
    pub fn official_progress(&self, config: &RatingConfig) -> u32 {
        self.games.min(config.provisional_games)
    }

    fn glicko(&self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    /// This rating after one more game with `outcome` whose new Glicko-2 values are `after`.
    fn after(&self, after: Glicko2Rating, outcome: Outcome) -> Rating {
        let mut next = self.clone();
        next.rating = after.rating;
        next.deviation = after.deviation;
        next.volatility = after.volatility;
        next.games += 1;
        match outcome {
            Outcome::Win => {
                next.wins += 1;
                next.streak = next.streak.max(0) + 1;
                next.best_streak = next.best_streak.max(next.streak.unsigned_abs());
            }
            Outcome::Loss => {
                next.losses += 1;
                next.streak = next.streak.min(0) - 1;
            }
            Outcome::Draw => {
                next.draws += 1;
                next.streak = 0;
            }
        }
        next.high = next.high.max(next.rating);
        next
    }
}

/// Both sides' ratings after one result between them (`outcome` is the first side's).
pub fn rate(
    first: &Rating,
    second: &Rating,
    outcome: Outcome,
    config: &RatingConfig,
) -> (Rating, Rating) {
    let glicko_config = Glicko2Config {
        tau: config.tau,
        ..Glicko2Config::new()
    };
    let (a, b) = glicko2(
        &first.glicko(),
        &second.glicko(),
        &outcomes(outcome),
        &glicko_config,
    );
    (first.after(a, outcome), second.after(b, outcome.reversed()))
}

/// A rating after several results in one rating period, as Glickman's paper defines the
/// system: every result is measured against the ratings as they stood when the period began.
/// Rounds of a tournament can be rated this way; single matches go through [`rate`].
pub fn rate_period(
    player: &Rating,
    results: &[(Rating, Outcome)],
    config: &RatingConfig,
) -> Rating {
    let glicko_config = Glicko2Config {
        tau: config.tau,
        ..Glicko2Config::new()
    };
    let opponents: Vec<(Glicko2Rating, Outcomes)> = results
        .iter()
        .map(|(opponent, outcome)| (opponent.glicko(), outcomes(*outcome)))
        .collect();
    let after = glicko2_rating_period(&player.glicko(), &opponents, &glicko_config);
    let mut next = player.clone();
    for (_, outcome) in results {
        next = next.after(after, *outcome);
    }
    next
}

/// Every side's rating after one match of any number of sides, from the sides' ranks (1 is
/// first; equal ranks tie) and, in a team game, their teams.
///
/// Each side is rated, in one rating period, against every side not on its team, as a win
/// over those ranked below it, a draw with those ranked alike and a loss to those ranked above,
/// all measured against the ratings as they stood before the match; teammates are never rated
/// against each other. The record counts the match once: a win for a side ranked first alone
/// (or only with teammates), a draw for one sharing first place with an opponent, and a loss
/// otherwise. Two sides without teams are rated exactly as [`rate`] rates them. Ranks or teams
/// of another length than `sides` count as missing: every side ranked alike, no teams.
pub fn rate_ranked(
    sides: &[Rating],
    ranks: &[u8],
    teams: Option<&[Option<u8>]>,
    config: &RatingConfig,
) -> Vec<Rating> {
    let rank = |i: usize| {
        if ranks.len() == sides.len() {
            ranks[i]
        } else {
            1
        }
    };
    let team = |i: usize| {
        teams
            .filter(|teams| teams.len() == sides.len())
            .and_then(|teams| teams[i])
    };
    let opponents = |i: usize| {
        (0..sides.len()).filter(move |&j| j != i && (team(i).is_none() || team(i) != team(j)))
    };
    let versus = |i: usize, j: usize| match rank(i).cmp(&rank(j)) {
        std::cmp::Ordering::Less => Outcome::Win,
        std::cmp::Ordering::Equal => Outcome::Draw,
        std::cmp::Ordering::Greater => Outcome::Loss,
    };
    if let ([first, second], None) = (sides, teams) {
        let (a, b) = rate(first, second, versus(0, 1), config);
        return vec![a, b];
    }
    let glicko_config = Glicko2Config {
        tau: config.tau,
        ..Glicko2Config::new()
    };
    (0..sides.len())
        .map(|i| {
            let results: Vec<(Glicko2Rating, Outcomes)> = opponents(i)
                .map(|j| (sides[j].glicko(), outcomes(versus(i, j))))
                .collect();
            if results.is_empty() {
                return sides[i].clone();
            }
            let after = glicko2_rating_period(&sides[i].glicko(), &results, &glicko_config);
            let record = if rank(i) != 1 {
                Outcome::Loss
            } else if opponents(i).any(|j| rank(j) == 1) {
                Outcome::Draw
            } else {
                Outcome::Win
            };
            sides[i].after(after, record)
        })
        .collect()
}

fn outcomes(outcome: Outcome) -> Outcomes {
    match outcome {
        Outcome::Win => Outcomes::WIN,
        Outcome::Loss => Outcomes::LOSS,
        Outcome::Draw => Outcomes::DRAW,
    }
}

#[cfg(test)]
mod tests;
