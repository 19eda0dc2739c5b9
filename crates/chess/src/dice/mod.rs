//! Dice Chess (dicechess.com's rules, variant A of the reference): three dice a turn name the
//! piece types that may move, a turn makes as many micro-moves as the dice allow, there is no
//! check, and capturing the king wins.
//!
//! `board.rs` holds the position, `movegen.rs` the micro-moves of one piece type,
//! `turn.rs` the turn tree (L*, the legal micro-moves at each step, and the counting of
//! complete turns), `dfen.rs` the DFEN notation and `roll.rs` the dice.

mod board;
mod dfen;
mod movegen;
mod roll;
mod turn;

#[cfg(test)]
mod tests;

pub use board::DiceBoard;
pub use dfen::DfenError;
pub use movegen::{
    DiceRules, MicroMove, MoveKind, PROMOTIONS, count_moves, count_moves_after, for_each_move,
};
pub use roll::{DiceSet, face_of, piece_of_face};
pub use turn::{MicroError, Step, Turn, TurnCount, count_turns, max_dice};
