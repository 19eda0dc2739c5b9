//! The arena's built-in ("house") Othello bots: one function, [`choose`], picks a move for
//! the side to move in any of the five variants (std, anti, grand, octagon, classic reversi).
//!
//! # Levels
//!
//! - [`Level::Random`] plays a uniformly random legal move, drawn with
//!   [`arbiter_rules::random::below`] so that a seeded generator replays it exactly.
//! - [`Level::Greedy`] plays the move that flips the most discs (the fewest in anti-Othello,
//!   where fewer discs wins), breaking ties with the generator.
//! - [`Level::Search`] runs an iterative-deepening alpha-beta search and ignores the generator,
//!   so its choice depends only on the position and the limits.
//!
//! # Evaluation
//!
//! Positions where the search stops are scored from the mover's point of view as a sum of:
//!
//! - mobility: the difference in legal move counts, which matters in every variant;
//! - frontier: discs next to empty squares give the opponent moves, so fewer is better;
//! - a square-weight table built from the board's geometry rather than typed in, so that it
//!   fits 8x8, 10x10 and the octagon alike: a square that no line passes *through* (both
//!   neighbours on the line playable) can never be flipped and counts as a corner (the octagon
//!   has eight, next to its blocked squares); squares next to an *empty* corner (X and C
//!   squares) are penalised because they hand that corner to the opponent; edges are worth a
//!   little, the ring inside the edges a little less than nothing;
//! - the disc difference, weighted more and more in the last empties.
//!
//! In anti-Othello the table, the corner dangers and the disc difference change sign (a
//! stable corner is a disc one can never give away), while mobility and frontier keep theirs.
//! Finished games (neither side can move) score exactly: `±(WIN_SCORE + disc margin)`, or 0
//! for a draw, so any proven win beats any heuristic score and bigger wins beat smaller ones.
//!
//! # Search
//!
//! Negamax alpha-beta with a principal-variation (null-window) scheme, iterative deepening
//! from depth 1, and explicit passes: a side without moves passes without spending depth, and
//! a position where neither side can move is scored exactly. Moves are ordered by the
//! transposition-table move, then (far from the leaves) by the opponent's mobility after the
//! move, else by the square's weight; at the root the previous iteration's best move goes
//! first. The transposition table is a fixed-size vector indexed by a mixing hash of both
//! colours' discs, the side to move and, in classic Reversi, the discs placed. Once the depth
//! reaches the number of empty squares the search is exact and deepening stops.
//!
//! # Endgame solver
//!
//! On an 8x8 board (standard Othello, anti-Othello, and classic Reversi once its centre
//! placements are over) with at most [`ENDGAME_EMPTIES`] empty squares
//! ([`ANTI_ENDGAME_EMPTIES`] in anti-Othello, whose endgames are harder), a search level deep
//! enough to reach the end ([`Level::Search`] with `max_depth` at least the empties) first
//! tries the exact solver of [`endgame`] with half of what is left of the limits; if it
//! finishes, its move is played with the exact score (`depth` is the number of empties),
//! otherwise the search above runs with the rest. Levels that search less deeply keep
//! their heuristic play. The solver works on `u64` bitboards through
//! [`arbiter_othello::Kernels`] and finds the exact final margin by a null-window
//! (principal-variation) alpha-beta search: fastest-first move ordering (fewest opponent
//! replies, corners counted twice, then the square's worth, the discs anchored to corners
//! and the region parity) with a transposition table of score bounds and best moves and
//! enhanced transposition cut-offs far from the end; parity ordering without move
//! generation near it; the last two empties written out and the last one scored by counting
//! its flips; stability cut-offs (the discs that can never change colour bound the score).
//! It stops within the limits like the search and then reports no score rather than a wrong
//! one. [`solve`] and [`solve_window`] call it directly.
//!
//! # Time control
//!
//! [`Limits`] bounds a search by a deadline, a node count, or both. Depth 1 always completes
//! (it costs about one evaluation per legal move), so there is always a searched move even when the
//! deadline has already passed. Deeper iterations check the node limit at every node and the
//! clock every 1024 nodes; an iteration that runs out is abandoned and the best move of the
//! last completed iteration is played (with trained weights, unless the abandoned iteration
//! had already proved another move better); no iteration starts once half the time to the
//! deadline is spent, since it would rarely finish.
//! [`move_time_ms`] shares a game's clock among its moves by phase: the midgame's get the
//! most, the opening's a little less, the solver's first ones half as much (a reserve: the
//! midgame's deep searches have usually solved them already) and those after it the least. Tests use node limits only, which are
//! deterministic.
//!
//! Besides the endgame solver's bitboards, the crate uses only `Position`'s checked API; it
//! does no I/O, starts no threads and draws no randomness but the generator it is handed.
//!
//! ```
//! use arbiter_house::{Level, Limits, choose};
//! use arbiter_othello::{Position, Variant};
//! use rand::SeedableRng;
//!
//! let position = Position::start(Variant::Std);
//! let limits = Limits { max_nodes: Some(10_000), ..Limits::default() };
//! let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(1);
//! let choice = choose(&position, Level::medium(), &limits, &mut rng);
//! assert!(position.check(choice.mv).is_ok());
//! ```

pub mod endgame;
mod eval;
mod midgame;
mod probcut;
mod search;
mod shipped;
#[cfg(test)]
mod tests;
mod tree;

use std::time::Instant;

use arbiter_othello::{Kernels, Move, Position};
use arbiter_othello_eval::Weights;
use arbiter_rules::Random;
use arbiter_rules::random::below;

pub use shipped::{move_time_ms, shipped_weights};

pub use endgame::{
    ANTI_ENDGAME_EMPTIES, ENDGAME_EMPTIES, MAX_MARGIN, Solved, solvable, solve, solve_window,
};

/// The score of a proven win before the disc margin is added: a finished game scores
/// `WIN_SCORE + margin` for the winner, `-(WIN_SCORE + margin)` for the loser and 0 for a
/// draw. Heuristic scores stay far below it.
pub const WIN_SCORE: i32 = 1_000_000;

/// How strongly a house bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// A uniformly random legal move.
    Random,
    /// The move that gains the most discs at once (loses the most in anti-Othello); ties are
    /// broken at random.
    Greedy,
    /// Iterative-deepening alpha-beta search up to `max_depth` plies (at least 1), within the
    /// [`Limits`]; an exact endgame solve first where `max_depth` reaches the end of an 8x8
    /// game with at most [`ENDGAME_EMPTIES`] empties ([`ANTI_ENDGAME_EMPTIES`] in
    /// anti-Othello).
    Search {
        /// The deepest iteration to run; passes do not count as plies.
        max_depth: u32,
    },
}

impl Level {
    /// The easy house bot: greedy.
    pub const fn easy() -> Level {
        Level::Greedy
    }

    /// The medium house bot: a 4-ply search.
    pub const fn medium() -> Level {
        Level::Search { max_depth: 4 }
    }

    /// The hard house bot: a search as deep as the limits allow (up to 60 plies, which solves
    /// endgames exactly; with at most [`ENDGAME_EMPTIES`] empties, the endgame solver does so
    /// far faster). Give it a deadline or a node limit.
    pub const fn hard() -> Level {
        Level::Search { max_depth: 60 }
    }
}

/// Bounds on one search, and whether it may prune selectively; `Limits::default()` sets no
/// bound and searches every line to its depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop deepening when this instant has passed (checked every 1024 nodes).
    pub deadline: Option<Instant>,
    /// Stop deepening once this many nodes have been searched (depth 1 always completes).
    pub max_nodes: Option<u64>,
    /// Prune by Multi-ProbCut in the trained evaluation's search (see [`choose_with_weights`]):
    /// cut a node when a shallow search predicts, with high probability, that the deep one
    /// would fall outside the window. A depth then reaches further in the same time but is
    /// no longer exact. Off, a search depends on its depth alone, as training needs to make
    /// the shipped weights again.
    pub selective: bool,
}

/// The move chosen and how it was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The move: always legal for the side to move, [`Move::Pass`] when it has no placement.
    pub mv: Move,
    /// The depth of the last completed search iteration (0 when nothing was searched: a
    /// random move, a pass or the only legal move; 1 for greedy), or the number of empty
    /// squares when the endgame solver solved the position.
    pub depth: u32,
    /// Positions visited (by the endgame solver and the search together).
    pub nodes: u64,
    /// The search's score for the mover (see [`WIN_SCORE`]); `None` when no search ran.
    pub score: Option<i32>,
}

/// Chooses a move for the side to move of `position` at `level`, within `limits`.
///
/// Always returns a legal move and never panics; the generator is used by
/// [`Level::Random`] and [`Level::Greedy`] only.
pub fn choose<R: Random + ?Sized>(
    position: &Position,
    level: Level,
    limits: &Limits,
    rng: &mut R,
) -> Choice {
    let moves = position.legal_moves();
    if moves == 0 {
        return unsearched(Move::Pass);
    }
    match level {
        Level::Random => random_move(moves, rng),
        Level::Greedy => greedy_move(position, moves, rng),
        Level::Search { max_depth } => {
            if moves.count_ones() == 1 {
                return unsearched(Move::Place(moves.trailing_zeros() as u8));
            }
            let max_depth = max_depth.max(1);
            let empties = endgame::empties(position);
            // The solver only replaces a search that would have gone to the end anyway, so
            // that a shallow level does not turn perfect in the endgame.
            let threshold = endgame::solve_threshold(position.variant());
            if empties <= threshold && max_depth >= empties && solvable(position) {
                return solve_then_search(position, moves, limits, |limits| {
                    search::search(position, max_depth, limits)
                });
            }
            search::search(position, max_depth, limits)
        }
    }
}

/// Chooses a move for the side to move of `position` by a search of up to `max_depth` plies
/// whose leaves `weights` score (see [`arbiter_othello_eval`]), within `limits`, trying an
/// exact solve first where the search would reach the end anyway, as [`Level::Search`] does.
/// The weights must be trained for the variant's goal (more discs, or fewer in
/// anti-Othello). Boards the weights do not fit (10x10, the octagon, Reversi's placements)
/// are searched with the built-in evaluation. A searched score is in the weights' unit, 1/128
/// of a disc; a solved one is `±(WIN_SCORE + margin)` as elsewhere. With
/// [`Limits::selective`] the weights' search prunes by Multi-ProbCut (the built-in one never
/// does). Deterministic under node limits.
pub fn choose_with_weights(
    position: &Position,
    weights: &Weights,
    max_depth: u32,
    limits: &Limits,
) -> Choice {
    let moves = position.legal_moves();
    if moves == 0 {
        return unsearched(Move::Pass);
    }
    if moves.count_ones() == 1 {
        return unsearched(Move::Place(moves.trailing_zeros() as u8));
    }
    let max_depth = max_depth.max(1);
    if !solvable(position) {
        return search::search(position, max_depth, limits);
    }
    let (p, o) = position.sides();
    let fewer_wins = position.variant().fewer_wins();
    let searched = |limits: &Limits| {
        let found = midgame::search(
            Kernels::best(),
            weights,
            fewer_wins,
            (p as u64, o as u64),
            max_depth,
            limits,
        );
        match found {
            Some(found) => Choice {
                mv: Move::Place(found.square),
                depth: found.depth,
                nodes: found.nodes,
                score: Some(found.score),
            },
            None => unsearched(Move::Pass),
        }
    };
    let empties = endgame::empties(position);
    if empties <= endgame::solve_threshold(position.variant()) && max_depth >= empties {
        return solve_then_search(position, moves, limits, searched);
    }
    searched(limits)
}

/// Tries an exact solve with part of the limits, and searches with the rest if it runs out.
///
/// The solve gets half the time left and half the nodes (leaving the search at least the
/// nodes of its first iteration, which always completes), so that a solve that cannot finish
/// still leaves the search enough to play a sound move.
fn solve_then_search(
    position: &Position,
    moves: u128,
    limits: &Limits,
    search: impl FnOnce(&Limits) -> Choice,
) -> Choice {
    let now = Instant::now();
    // An expired deadline leaves time for the search's first iteration only.
    if limits.deadline.is_some_and(|deadline| deadline <= now) {
        return search(limits);
    }
    // The search's first iteration visits the root and each move at most twice.
    let first_iteration = 2 * u64::from(moves.count_ones()) + 1;
    let solver_limits = Limits {
        deadline: limits
            .deadline
            .map(|deadline| now + deadline.saturating_duration_since(now) / 2),
        max_nodes: limits
            .max_nodes
            .map(|max| (max / 2).min(max.saturating_sub(first_iteration))),
        ..*limits
    };
    if solver_limits.max_nodes == Some(0) {
        return search(limits);
    }
    let solver_nodes =
        match endgame::attempt(position, &solver_limits, -MAX_MARGIN - 1, MAX_MARGIN + 1) {
            Ok(solved) => {
                return Choice {
                    mv: solved.mv,
                    depth: endgame::empties(position),
                    nodes: solved.nodes,
                    score: Some(solved.score.signum() * WIN_SCORE + solved.score),
                };
            }
            Err(nodes) => nodes,
        };
    let rest = Limits {
        deadline: limits.deadline,
        max_nodes: limits.max_nodes.map(|max| max.saturating_sub(solver_nodes)),
        ..*limits
    };
    let mut choice = search(&rest);
    choice.nodes += solver_nodes;
    choice
}

/// A choice made without searching.
fn unsearched(mv: Move) -> Choice {
    Choice {
        mv,
        depth: 0,
        nodes: 0,
        score: None,
    }
}

/// The squares of a bit mask, in increasing order.
pub(crate) fn squares(mut mask: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let sq = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            sq
        })
    })
}

/// Draws one of `candidates` (a non-empty mask) uniformly: the `below(count)`-th square in
/// increasing order.
fn pick<R: Random + ?Sized>(candidates: u128, rng: &mut R) -> Move {
    let count = candidates.count_ones();
    let index = if count > 1 { below(rng, count) } else { 0 };
    squares(candidates)
        .nth(index as usize)
        .map_or(Move::Pass, Move::Place)
}

/// A uniformly random legal move; `moves` is non-empty.
fn random_move<R: Random + ?Sized>(moves: u128, rng: &mut R) -> Choice {
    unsearched(pick(moves, rng))
}

/// The move flipping the most discs (the fewest in anti-Othello), ties broken by `rng`.
fn greedy_move<R: Random + ?Sized>(position: &Position, moves: u128, rng: &mut R) -> Choice {
    let fewer_wins = position.variant().fewer_wins();
    let mut best_flips = 0;
    let mut best = 0u128;
    for sq in squares(moves) {
        let Ok(flipped) = position.check(Move::Place(sq)) else {
            continue;
        };
        let flips = flipped.count_ones();
        let better = best == 0
            || if fewer_wins {
                flips < best_flips
            } else {
                flips > best_flips
            };
        if better {
            best_flips = flips;
            best = 1 << sq;
        } else if flips == best_flips {
            best |= 1 << sq;
        }
    }
    // `check` accepts every square of `legal_moves`, so `best` is not empty; should it be,
    // any legal move is still a correct answer.
    let candidates = if best == 0 { moves } else { best };
    Choice {
        depth: 1,
        nodes: u64::from(moves.count_ones()),
        ..unsearched(pick(candidates, rng))
    }
}
