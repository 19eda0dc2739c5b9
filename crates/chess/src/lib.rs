//! Chess for the Arbiter arena: standard chess, Chess960 and Dice Chess, as one game,
//! `chess`, and its family.
//!
//! - `standard.rs`: standard chess and Chess960 on cozy-chess's `Board` ([`Orthodox`], UCI in
//!   both castling spellings, [`perft`], the automatic draws).
//! - `dice/`: Dice Chess on its own board ([`DiceBoard`]), with its micro-moves, the turn
//!   tree ([`Turn`], [`count_turns`]) and DFEN.
//! - `san.rs`: standard algebraic notation for both.
//! - `game.rs`: the [`Chess`] game (seat 0 White, seat 1 Black), its actions, events and view.
//! - `family.rs`: the [`FAMILY`] the arena runs.
//! - `house.rs` and `house/`: the house players, from a random move to alpha-beta for chess
//!   and expectimax over the dice for Dice Chess.
//! - `board_svg.rs`: the board the web pages draw, with Dice Chess's dice.
//!
//! cozy-chess is re-exported so that code built on this crate (the binary's perft, tests)
//! uses the same board types.

mod board_svg;
pub mod dice;
mod ending;
mod family;
mod game;
pub mod house;
mod line;
mod pgn;
pub mod san;
pub mod standard;
mod stored;

pub use cozy_chess;
pub use dice::{DiceBoard, DiceRules, DiceSet, MicroMove, Turn, TurnCount, count_turns};
pub use ending::{EndReason, GameResult, Side};
pub use family::{FAMILY, RULES};
pub use game::{
    Chess, ChessAction, ChessConfig, ChessEvent, ChessState, ChessView, DiceView, MAX_PASSES,
    Variant,
};
pub use standard::{Orthodox, perft};

#[cfg(test)]
mod tests;
