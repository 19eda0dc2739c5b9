//! Tournament formats, as pure functions of the entrants and the results so far: who plays
//! whom next, how games score, and how the entrants rank.
//!
//! - [`round_robin`]: every entrant meets every other once (or twice, colours reversed), by
//!   the Berger tables, with a bye each round for an odd number.
//! - [`swiss`]: a fixed number of rounds, each pairing entrants with equal or near scores who
//!   have not met, balancing who plays first, with a bye for the lowest ranked who has not had
//!   one.
//! - [`arena`]: a time window in which free entrants are paired as soon as they are free, win 2,
//!   draw 1, loss 0, doubled on a streak.
//! - [`tables`]: rounds of games for more than two, the entrants seated at tables by points,
//!   each seat scored by its place.
//! - [`standings`]: points, tie-breaks (Buchholz, Sonneborn–Berger) and the crosstable.
//! - [`event`]: a round robin or Swiss as it goes, round by round, with withdrawals, as the
//!   arena stores it.
//!
//! A game here is whatever one pairing plays: in the arena, a match (a paired match in a game
//! with colours, so that both play both colours from one opening). `first` is the entrant in
//! the first seat of its first game. This crate does no I/O and reads no clock: the arena
//! stores results, runs the matches and hands in the time.

pub mod arena;
pub mod event;
pub mod round_robin;
pub mod standings;
pub mod swiss;
pub mod tables;

use serde::{Deserialize, Serialize};

/// An entrant, by its place in the tournament's list of entrants (0 for the first).
pub type Entrant = usize;

/// How a game between two entrants ended, from the first's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The first entrant won.
    FirstWon,
    /// Neither won.
    Draw,
    /// The second entrant won.
    SecondWon,
}

impl Outcome {
    /// The points the game gives `first` and `second` in halves (a win 2, a draw 1).
    pub fn halves(self) -> (u32, u32) {
        match self {
            Outcome::FirstWon => (2, 0),
            Outcome::Draw => (1, 1),
            Outcome::SecondWon => (0, 2),
        }
    }
}

/// One pairing of a round: two entrants who play, or one who sits out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Pairing {
    /// `first` plays in the first seat.
    Game {
        /// The first seat's entrant.
        first: Entrant,
        /// The second's.
        second: Entrant,
    },
    /// The entrant has no opponent this round and scores a bye's points.
    Bye {
        /// The entrant.
        entrant: Entrant,
    },
}

/// A round's pairing once played: who played it, in which seats, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// The round (from 0; in an arena, the order in which games were paired).
    pub round: u32,
    /// The pairing.
    pub pairing: Pairing,
    /// How it ended; `None` for a bye, which scores [`standings::BYE_HALVES`].
    pub outcome: Option<Outcome>,
}

/// Why a round cannot be paired.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    /// Fewer than two entrants take part.
    #[error("a tournament needs at least two entrants")]
    TooFewEntrants,
    /// Every round the format has is paired.
    #[error("every round of the tournament has been paired")]
    NoMoreRounds,
    /// No pairing of the round avoids every repeat: more Swiss rounds than the entrants allow.
    #[error("no pairing of round {0} lets everyone meet someone new")]
    NoNewOpponents(u32),
}
