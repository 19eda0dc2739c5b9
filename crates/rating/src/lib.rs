//! Ratings: one rating per bot and game mode, with the record a bot's profile shows (games,
//! wins, losses, draws, highest rating, streaks) and the provisional period before a rating
//! counts as official.
//!
//! Two systems rate results ([`RatingSystem`]): Glicko-2 for the modes of two seats, and
//! Weng-Lin (the Bradley-Terry model behind OpenSkill) for modes that seat more than two and
//! for team results, where pairwise Glicko-2 would count one game as many. Both show a rating
//! on the same scale, starting at 1200. The arithmetic is the `skillratings` crate's; this
//! crate fixes the constants, turns a match result into a rating change, and keeps the record.
//! A paired match is one result, and each result is rated at once (a rating period of one
//! game), as live servers do (see [`rate_match`]). It does no I/O: the arena decides which
//! matches count and stores what this returns.

use serde::{Deserialize, Serialize};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2, glicko2_rating_period};

mod weng_lin;

/// How the results of a game mode are rated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RatingSystem {
    /// Glicko-2: rating, deviation and volatility, from pairwise results.
    #[default]
    Glicko2,
    /// Weng-Lin's Bradley-Terry model (OpenSkill): a skill and its uncertainty, from the
    /// places of any number of players or teams in one game.
    WengLin,
}

impl RatingSystem {
    /// The system of a mode played by at most `max_seats` seats: Glicko-2 for two, Weng-Lin
    /// for more, whatever the number of a particular match (a mode keeps one system, so that
    /// its leaderboard compares like with like).
    pub fn for_seats(max_seats: usize) -> RatingSystem {
        if max_seats > 2 {
            RatingSystem::WengLin
        } else {
            RatingSystem::Glicko2
        }
    }

    /// Its name as the API and the pages show it: `glicko2` or `weng-lin`.
    pub fn name(self) -> &'static str {
        match self {
            RatingSystem::Glicko2 => "glicko2",
            RatingSystem::WengLin => "weng-lin",
        }
    }
}

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
    /// Rating points per unit of Weng-Lin skill, whose new player stands at 25 ± 25/3 and
    /// whose β (25/6) is the difference that wins about two games in three. A Weng-Lin skill
    /// `μ` shows as `initial_rating + (μ − 25) × skill_points`.
    pub skill_points: f64,
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
            // β is then 120 points, the Elo difference that wins about two games in three,
            // so that differences read alike in both systems.
            skill_points: 28.8,
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
    /// The system that computed it (Glicko-2 where a stored rating does not say).
    #[serde(default, skip_serializing_if = "RatingSystem::is_glicko2")]
    pub system: RatingSystem,
}

impl RatingSystem {
    fn is_glicko2(&self) -> bool {
        *self == RatingSystem::Glicko2
    }
}

impl Rating {
    /// A new bot's Glicko-2 rating.
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
            system: RatingSystem::Glicko2,
        }
    }

    /// A new bot's rating in `system`.
    pub fn new_in(system: RatingSystem, config: &RatingConfig) -> Rating {
        match system {
            RatingSystem::Glicko2 => Rating::new(config),
            RatingSystem::WengLin => Rating {
                deviation: weng_lin::INITIAL_UNCERTAINTY * config.skill_points,
                system,
                ..Rating::new(config)
            },
        }
    }

    /// This rating carried into `system`, for a mode whose system changed: the rating and the
    /// record stay, and the deviation stays as the uncertainty, never above a new rating's.
    pub fn in_system(&self, system: RatingSystem, config: &RatingConfig) -> Rating {
        if self.system == system {
            return self.clone();
        }
        let fresh = Rating::new_in(system, config);
        Rating {
            deviation: self.deviation.min(fresh.deviation),
            volatility: fresh.volatility,
            system,
            ..self.clone()
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
        let mut next = self.recorded(after.rating, after.deviation, outcome);
        next.volatility = after.volatility;
        next
    }

    /// This rating after one more game with `outcome`, now `rating` with `deviation`.
    fn recorded(&self, rating: f64, deviation: f64, outcome: Outcome) -> Rating {
        let mut next = self.clone();
        next.rating = rating;
        next.deviation = deviation;
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

/// Every side's rating after one match of any number of sides in a mode rated by `system`,
/// from the sides' ranks (1 is first; equal ranks tie) and, in a team game, their teams. A
/// rating kept by another system is first carried into this one ([`Rating::in_system`]).
/// Ranks or teams of another length than `sides` count as missing: every side ranked alike, no
/// teams.
///
/// The record counts the match once: a win for a side ranked first alone (or only with
/// teammates), a draw for one sharing first place with an opponent, and a loss otherwise.
pub fn rate_match(
    system: RatingSystem,
    sides: &[Rating],
    ranks: &[u8],
    teams: Option<&[Option<u8>]>,
    config: &RatingConfig,
) -> Vec<Rating> {
    let sides: Vec<Rating> = sides
        .iter()
        .map(|side| side.in_system(system, config))
        .collect();
    let places = Places::new(sides.len(), ranks, teams);
    match system {
        RatingSystem::Glicko2 => rate_ranked_glicko(&sides, &places, config),
        RatingSystem::WengLin => weng_lin::rate(&sides, &places, config),
    }
}

/// Every side's Glicko-2 rating after one match of any number of sides (see [`rate_match`]).
///
/// Each side is rated, in one rating period, against every side not on its team, as a win
/// over those ranked below it, a draw with those ranked alike and a loss to those ranked above,
/// all measured against the ratings as they stood before the match; teammates are never rated
/// against each other. Two sides without teams are rated exactly as [`rate`] rates them.
pub fn rate_ranked(
    sides: &[Rating],
    ranks: &[u8],
    teams: Option<&[Option<u8>]>,
    config: &RatingConfig,
) -> Vec<Rating> {
    rate_match(RatingSystem::Glicko2, sides, ranks, teams, config)
}

fn rate_ranked_glicko(sides: &[Rating], places: &Places<'_>, config: &RatingConfig) -> Vec<Rating> {
    if let ([first, second], None) = (sides, places.teams) {
        let (a, b) = rate(first, second, places.versus(0, 1), config);
        return vec![a, b];
    }
    let glicko_config = Glicko2Config {
        tau: config.tau,
        ..Glicko2Config::new()
    };
    (0..sides.len())
        .map(|i| {
            let results: Vec<(Glicko2Rating, Outcomes)> = places
                .opponents(i)
                .map(|j| (sides[j].glicko(), outcomes(places.versus(i, j))))
                .collect();
            if results.is_empty() {
                return sides[i].clone();
            }
            let after = glicko2_rating_period(&sides[i].glicko(), &results, &glicko_config);
            sides[i].after(after, places.record(i))
        })
        .collect()
}

/// Where each side of one match finished: its rank and its team.
struct Places<'a> {
    count: usize,
    ranks: Option<&'a [u8]>,
    teams: Option<&'a [Option<u8>]>,
}

impl<'a> Places<'a> {
    fn new(count: usize, ranks: &'a [u8], teams: Option<&'a [Option<u8>]>) -> Places<'a> {
        Places {
            count,
            ranks: Some(ranks).filter(|ranks| ranks.len() == count),
            teams: teams.filter(|teams| teams.len() == count),
        }
    }

    fn rank(&self, i: usize) -> u8 {
        self.ranks.map_or(1, |ranks| ranks[i])
    }

    fn team(&self, i: usize) -> Option<u8> {
        self.teams.and_then(|teams| teams[i])
    }

    /// Whether sides `i` and `j` play on one team.
    fn teammates(&self, i: usize, j: usize) -> bool {
        i == j || self.team(i).is_some_and(|team| self.team(j) == Some(team))
    }

    /// The sides `i` played against: every side not on its team.
    fn opponents(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.count).filter(move |&j| !self.teammates(i, j))
    }

    /// How side `i` did against side `j`.
    fn versus(&self, i: usize, j: usize) -> Outcome {
        match self.rank(i).cmp(&self.rank(j)) {
            std::cmp::Ordering::Less => Outcome::Win,
            std::cmp::Ordering::Equal => Outcome::Draw,
            std::cmp::Ordering::Greater => Outcome::Loss,
        }
    }

    /// How the match counts in side `i`'s record.
    fn record(&self, i: usize) -> Outcome {
        if self.rank(i) != 1 {
            Outcome::Loss
        } else if self.opponents(i).any(|j| self.rank(j) == 1) {
            Outcome::Draw
        } else {
            Outcome::Win
        }
    }
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
