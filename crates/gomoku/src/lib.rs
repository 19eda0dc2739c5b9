//! Gomoku and Renju: five in a row on a 15×15, 19×19 or 20×20 board.
//!
//! `board.rs` holds the board and its line patterns, Renju's forbidden points among them;
//! `rules.rs` the rules of play, openings included; `family.rs` the family the arena runs.
//! The rule sets are freestyle (five or more wins), standard (exactly five wins) and Renju
//! (White wins with five or more; Black only with exactly five, and Black may not make an
//! overline, a double four or a double three).

pub mod board;
mod board_svg;
mod family;
mod house;
mod line;
mod openings;
mod points;
pub mod rules;

pub use board::{Board, Cell, Color, Foul, MAX_SIZE, RuleSet};
pub use family::{FAMILY, RULES};
pub use rules::{
    FoulPolicy, Gomoku, GomokuAction, GomokuConfig, GomokuEvent, GomokuState, GomokuView,
    OpeningRule, Phase, Played, Swap2Choice,
};
