//! A trained pattern evaluation for 8×8 Othello, in the manner of Logistello and Edax: the
//! score of a position is a sum of weights looked up by the contents of a few dozen groups of
//! squares (patterns), with one set of weights per game stage, fitted by least squares to
//! positions whose final margin is known or estimated.
//!
//! Boards are bitboards as in [`arbiter_othello`]: bit `i` is square `i`, `a1` = bit 0,
//! row-major (`a1`…`h1` are bits 0…7). `p` holds the discs of the side to move, `o` the
//! opponent's. Nothing here does I/O: weights go in and out as bytes.
//!
//! ```
//! use arbiter_othello_eval::{FitOptions, Sample, Weights, fit};
//!
//! // The start position, black to move: d5 and e4 are black's, d4 and e5 white's.
//! let (p, o) = (0x0000_0008_1000_0000_u64, 0x0000_0010_0800_0000_u64);
//! assert_eq!(Weights::zero().evaluate(p, o), 0);
//!
//! let samples = [Sample { p, o, margin: 2.0 }];
//! let options = FitOptions { stages: 1, validation_every: 0, l2: 0.0, ..FitOptions::default() };
//! let (weights, report) = fit(&samples, &options)?;
//! // Two discs, within what rounding each of the 49 weights to 1/128 of a disc costs.
//! assert!((weights.evaluate(p, o) - 2 * 128).abs() <= 16);
//! assert!(report.training.rmse < 0.125);
//! let bytes = weights.to_bytes();
//! assert_eq!(Weights::from_bytes(&bytes)?, weights);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Patterns
//!
//! [`PATTERNS`] lists the tables; a position reads 46 pattern instances and three scalar
//! features, 49 weights in all. Each cell of a pattern is a base-3 digit (0 empty, 1 the
//! mover's disc, 2 the opponent's), the first square listed being the least significant digit.
//!
//! | table | canonical squares | instances | entries | weights |
//! |---|---|---|---|---|
//! | corner 3×3 | a1 b1 c1 a2 b2 c2 a3 b3 c3 | 4 | 19 683 | 10 206 |
//! | corner 2×5 | a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 | 8 | 59 049 | 59 049 |
//! | edge + 2X | b2 a1 b1 c1 d1 e1 f1 g1 h1 g2 | 4 | 59 049 | 29 646 |
//! | line 2 | a2 … h2 | 4 | 6 561 | 3 321 |
//! | line 3 | a3 … h3 | 4 | 6 561 | 3 321 |
//! | line 4 | a4 … h4 | 4 | 6 561 | 3 321 |
//! | diagonal 8 | a1 b2 … h8 | 2 | 6 561 | 3 321 |
//! | diagonal 7 | b1 c2 … h7 | 4 | 2 187 | 1 134 |
//! | diagonal 6 | c1 d2 … h6 | 4 | 729 | 378 |
//! | diagonal 5 | d1 e2 … h5 | 4 | 243 | 135 |
//! | diagonal 4 | e1 f2 g3 h4 | 4 | 81 | 45 |
//! | mobility (mover) | legal moves of the mover, 0 to 31 (more count as 31) | 1 | 32 | 32 |
//! | mobility (opponent) | legal moves of the opponent, 0 to 31 | 1 | 32 | 32 |
//! | parity | discs on the board, even (0) or odd (1) | 1 | 2 | 2 |
//!
//! That is 113 943 weights per stage. The instances of a pattern are its images under the
//! board's eight symmetries, each read in the image of the canonical order, and all share one
//! table; where a pattern maps onto itself (a line or diagonal reversed, the edge mirrored,
//! the 3×3 corner transposed), the two readings are folded onto one weight. So the evaluation
//! of the eight symmetric images of a position is the same by construction. The corner and
//! edge patterns carry the stability knowledge that decides Othello games, the lines and
//! diagonals the shape of the centre and who can reach the corners; mobility and parity are
//! cheap to know and tell what patterns see only indirectly.
//!
//! # Stages
//!
//! A position's stage comes from the number of discs on the board, `d` (taken as 4 when
//! smaller): `stage = (d − 4) × stages / 61`, with 1 to 61 stages. The default, 15, gives
//! stage 0 for 4–8 discs, then one stage per four disc counts (9–12, 13–16, …, 57–60), and
//! stage 14 for 61–64. In fitting, a stage may also learn from positions a few discs outside
//! its own ([`FitOptions::blend`]), which smooths the step from one stage to the next.
//!
//! # Scores
//!
//! [`Weights::evaluate`] sums the 49 weights of the position's stage: a score in 1/128ths of a
//! disc ([`SCALE`]) from the mover's side, an estimate of the final disc margin, clamped to
//! ±64 discs ([`MAX_SCORE`]).
//!
//! # Weights format
//!
//! All integers little-endian:
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 4 | magic `AOEW` ([`MAGIC`]) |
//! | 4 | 2 | format version, `u16`, 1 ([`FORMAT_VERSION`]) |
//! | 6 | 2 | pattern set, `u16`, 1 ([`PATTERN_SET`]) |
//! | 8 | 2 | stage count `S`, `u16`, 1 to 61 |
//! | 10 | 2 × 113 943 × S | weights, `i16` in 1/128ths of a disc |
//!
//! The weights run stage by stage; within a stage, table by table in the order above; within
//! a table, folded entries in the order of their smallest index (for the unfolded corner 2×5
//! and the scalar tables, simply by index). The length must be exactly `10 + 227 886 × S`
//! bytes (3 418 300 for 15 stages).
//!
//! # Fitting
//!
//! [`fit`] takes [`Sample`]s (a position and its final margin from the mover's side) and
//! fits each stage by ridge least squares: it minimises the squared error on the stage's
//! samples plus [`FitOptions::l2`] times the sum of the squared weights, by conjugate
//! gradients preconditioned with each weight's occurrence count, and reports the training and
//! held-out validation errors ([`FitReport`]). It is deterministic: one thread, sums in
//! sample order, no randomness.

mod fit;
mod patterns;
mod weights;

#[cfg(test)]
mod test_support;

pub use fit::{
    ErrorStats, FitError, FitOptions, FitProgress, FitReport, Sample, StageReport, fit,
    fit_with_progress,
};
pub use patterns::{PATTERNS, Pattern};
pub use weights::{
    DEFAULT_STAGES, FORMAT_VERSION, HEADER_LEN, MAGIC, MAX_SCORE, MAX_STAGES, PATTERN_SET, SCALE,
    WEIGHTS_PER_STAGE, Weights, WeightsError,
};
