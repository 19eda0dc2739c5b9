//! The Othello family: standard Othello, anti-Othello, 10x10 (`grand`), `octagon` and classic
//! `reversi`.
//!
//! - [`Position`] is the checked API: legal moves, [`Position::play`] with a precise
//!   [`IllegalMove`], disc counts. Boards are bitboards (`u64` kernels for 8x8, `u128` for
//!   10x10); octagon's blocked squares stop every line.
//! - [`Othello`] implements the rules core's [`arbiter_rules::Game`]: explicit passes, the game
//!   ends when neither side can move, random 12-disc openings ([`opening`]), forfeit scores
//!   ([`scoring::result_discs`]) and paired-leg totals ([`scoring::paired_result`]).
//! - [`perft()`] counts game trees with kernels compiled per CPU level ([`Kernels`]).
//!
//! ```
//! use arbiter_othello::{Kernels, Position, Variant, parse_move, perft};
//!
//! let start = Position::start(Variant::Std);
//! assert_eq!(perft(&start, 6, 1, Kernels::best()), 8_200);
//!
//! let mut position = start;
//! let flipped = position.play(parse_move("d3", Variant::Std)?)?;
//! assert_eq!(flipped, 1 << 27); // d4
//! assert_eq!(position.disc_counts(), [4, 1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod coord;
pub mod game;
mod kernel10;
mod kernel8;
#[cfg(test)]
mod naive;
pub mod opening;
pub mod perft;
pub mod position;
pub mod scoring;
pub mod simd;
pub mod variant;
pub mod xot;

pub use coord::{CoordError, Move, parse_move};
pub use game::{Opening, Othello, OthelloConfig, OthelloEvent, OthelloState, OthelloView, Played};
pub use perft::perft;
pub use position::{Color, IllegalMove, Position};
pub use simd::{Kernels, SimdLevel};
pub use variant::Variant;
