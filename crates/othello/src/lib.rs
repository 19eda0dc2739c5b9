//! The Othello family: standard Othello, anti-Othello, 10x10 (`grand`), `octagon` and classic
//! `reversi`.

pub mod coord;
pub mod game;
mod kernel10;
mod kernel8;
pub mod opening;
pub mod perft;
pub mod position;
pub mod scoring;
pub mod simd;
pub mod variant;

pub use coord::{CoordError, Move, parse_move};
pub use game::{Opening, Othello, OthelloConfig, OthelloEvent, OthelloState, OthelloView, Played};
pub use perft::perft;
pub use position::{Color, IllegalMove, Position};
pub use simd::{Kernels, SimdLevel};
pub use variant::Variant;
