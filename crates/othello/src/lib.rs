//! The Othello family: standard Othello, anti-Othello, 10x10 (`grand`), `octagon` and classic
//! `reversi`.

pub mod coord;
mod kernel10;
mod kernel8;
pub mod perft;
pub mod position;
pub mod simd;
pub mod variant;

pub use coord::{CoordError, Move, parse_move};
pub use perft::perft;
pub use position::{Color, IllegalMove, Position};
pub use simd::{Kernels, SimdLevel};
pub use variant::Variant;
