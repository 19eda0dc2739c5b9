//! Arenas: a window of time in which every free entrant is paired again as soon as it is free,
//! nearest in points first, and games score 2 for a win, 1 for a draw and 0 for a loss, doubled
//! once an entrant has won its last two (a streak, which any game not won ends).

use serde::{Deserialize, Serialize};

use crate::standings::halves_for;
use crate::swiss::seats;
use crate::{Entrant, Pairing, Played};

/// Points of a win outside a streak.
pub const WIN: u32 = 2;
/// Points of a draw outside a streak.
pub const DRAW: u32 = 1;
/// Wins in a row after which games score double.
pub const STREAK: u32 = 2;

/// An entrant's arena score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ArenaScore {
    /// Its points.
    pub points: u32,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Its wins in a row up to now.
    pub streak: u32,
}

impl ArenaScore {
    /// Whether its next game scores double.
    pub fn on_fire(&self) -> bool {
        self.streak >= STREAK
    }

    /// This score after one more game, worth `halves` (2 a win, 1 a draw, 0 a loss).
    pub fn after(self, halves: u32) -> ArenaScore {
        let factor = if self.on_fire() { 2 } else { 1 };
        let (points, streak, wins) = match halves {
            2 => (WIN * factor, self.streak + 1, self.wins + 1),
            1 => (DRAW * factor, 0, self.wins),
            _ => (0, 0, self.wins),
        };
        ArenaScore {
            points: self.points + points,
            games: self.games + 1,
            wins,
            streak,
        }
    }
}

/// Every entrant's score from `played`, in the order the games were paired.
pub fn scores(entrants: usize, played: &[Played]) -> Vec<ArenaScore> {
    let mut scores = vec![ArenaScore::default(); entrants];
    for game in played {
        let Some(outcome) = game.outcome else {
            continue;
        };
        if let Pairing::Game { first, second } = game.pairing {
            for entrant in [first, second] {
                if let (Some(score), Some(halves)) = (
                    scores.get_mut(entrant),
                    halves_for(game.pairing, outcome, entrant),
                ) {
                    *score = score.after(halves);
                }
            }
        }
    }
    scores
}

/// The entrants ranked: more points first, then more wins, then fewer games, then the order
/// of entry.
pub fn ranking(scores: &[ArenaScore]) -> Vec<Entrant> {
    let mut ranked: Vec<Entrant> = (0..scores.len()).collect();
    ranked.sort_by(|&a, &b| {
        let (sa, sb) = (&scores[a], &scores[b]);
        sb.points
            .cmp(&sa.points)
            .then(sb.wins.cmp(&sa.wins))
            .then(sa.games.cmp(&sb.games))
            .then(a.cmp(&b))
    });
    ranked
}

/// An arena's window, on the arena's clock (milliseconds since the Unix epoch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// When pairing begins.
    pub starts_ms: i64,
    /// When pairing ends: games under way then are played out and count.
    pub ends_ms: i64,
}

impl Window {
    /// Whether entrants are paired at `now_ms`.
    pub fn is_open(&self, now_ms: i64) -> bool {
        (self.starts_ms..self.ends_ms).contains(&now_ms)
    }

    /// The games to start at `now_ms` among the `free` ones of `entrants` (in no particular
    /// order), after `played`: none outside the window; otherwise the free entrants ranked by
    /// points, each paired with the next, unless that is the opponent of its last game and
    /// another free entrant is left to meet; an odd one out waits for the next pairing.
    pub fn pair(
        &self,
        now_ms: i64,
        entrants: usize,
        free: &[Entrant],
        played: &[Played],
    ) -> Vec<Pairing> {
        if !self.is_open(now_ms) {
            return Vec::new();
        }
        let scores = scores(entrants, played);
        let mut waiting: Vec<Entrant> = ranking(&scores)
            .into_iter()
            .filter(|e| free.contains(e))
            .collect();
        let mut pairings = Vec::new();
        while waiting.len() >= 2 {
            let top = waiting.remove(0);
            let last = last_opponent(top, played);
            let pick = waiting
                .iter()
                .position(|&other| Some(other) != last)
                .unwrap_or(0);
            let opponent = waiting.remove(pick);
            pairings.push(seats(top, opponent, played));
        }
        pairings
    }
}

/// Whom `entrant` met in its last game.
fn last_opponent(entrant: Entrant, played: &[Played]) -> Option<Entrant> {
    played.iter().rev().find_map(|game| match game.pairing {
        Pairing::Game { first, second } if first == entrant => Some(second),
        Pairing::Game { first, second } if second == entrant => Some(first),
        _ => None,
    })
}

#[cfg(test)]
mod tests;
