//! A finished game as the record its players' community keeps (PGN for chess, GGF for
//! Othello), for tools that save games to be read by other programs.

use arbiter_rules::SeatResult;
use serde_json::Value;

/// What a record is written from: a finished game, its views as everyone may see them once it
/// is over, and the words around it.
#[derive(Clone, Copy, Debug)]
pub struct RecordedGame<'a> {
    /// The event (`arbiter match`, a tournament's name).
    pub event: &'a str,
    /// Where it was played.
    pub site: &'a str,
    /// When, as `YYYY-MM-DD`.
    pub date: &'a str,
    /// The round or game number.
    pub round: &'a str,
    /// The players' names, by seat.
    pub players: &'a [String],
    /// Each seat's result, by seat.
    pub results: &'a [SeatResult],
    /// Why it ended: the rules' reason (`checkmate`, `discs`), `time`, or what a failing
    /// player did.
    pub reason: &'a str,
    /// Whether a player lost by failing (crashing, an answer the rules refused) rather than by
    /// the rules or the clock.
    pub failed: bool,
    /// The view of the game as it started, with nothing hidden (`Viewer::Omniscient`).
    pub start: &'a Value,
    /// The view of the game as it ended, with nothing hidden.
    pub end: &'a Value,
    /// Each seat's clock at the start and its increment, in milliseconds.
    pub time_control: (u64, u64),
}

/// A family's record format.
pub trait RecordFormat: Send + Sync {
    /// The format's name and file extension (`pgn`, `ggf`).
    fn extension(&self) -> &'static str;

    /// Whether the format can hold games of `variant`.
    fn supports(&self, variant: &str) -> bool;

    /// The game as one record, ending with a newline, so that records can follow each other
    /// in one file; `None` for a variant the format cannot hold, or views it cannot read.
    fn write(&self, game: &RecordedGame<'_>) -> Option<String>;
}
