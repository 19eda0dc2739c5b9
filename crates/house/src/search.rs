//! Iterative-deepening negamax alpha-beta with a transposition table and limits.

use std::time::Instant;

use arbiter_othello::{Color, Move, Position};

use crate::eval::Geometry;
use crate::{Choice, Limits, squares};

/// Above every score a search can return, exact or heuristic.
const INFINITY: i32 = 10_000_000;
/// How often (in nodes, a power of two) the clock is read.
const CLOCK_INTERVAL: u64 = 1024;
/// The largest transposition table, in entries (16 bytes each: 4 MiB).
const MAX_TABLE: u64 = 1 << 18;
/// The smallest transposition table.
const MIN_TABLE: u64 = 1 << 10;
/// From this remaining depth on, moves are ordered by the opponent's mobility after them,
/// which costs a move generation per child but pays off in larger subtrees.
const MOBILITY_ORDERING_DEPTH: u32 = 3;
/// Marks an entry without a best move.
const NO_MOVE: u8 = u8::MAX;
/// The most legal moves a position can have (a 10x10 board has 100 squares).
const MAX_MOVES: usize = 100;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    /// The value is exactly the score.
    Exact,
    /// The value is at least the score (a beta cut-off).
    Lower,
    /// The value is at most the score (every move failed low).
    Upper,
}

/// One transposition-table slot.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The full hash, to tell the position apart from others sharing the slot.
    key: u64,
    /// The score, from the mover's point of view.
    score: i32,
    /// The remaining depth the score was searched to.
    depth: u8,
    /// What the score bounds.
    bound: Bound,
    /// The best or refuting move's square, or [`NO_MOVE`].
    best: u8,
}

// The table's memory budget above assumes this size.
const _: () = assert!(size_of::<Entry>() == 16);

/// An empty slot: depth 0 never answers a probe and [`NO_MOVE`] suggests nothing.
const EMPTY: Entry = Entry {
    key: 0,
    score: 0,
    depth: 0,
    bound: Bound::Upper,
    best: NO_MOVE,
};

/// The finaliser of SplitMix64: a cheap, well-mixing bijection on 64 bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The transposition key of a position: both colours' discs, the side to move and, in
/// classic Reversi, the discs each colour has placed (they decide who may still move).
fn hash(position: &Position) -> u64 {
    let black = position.discs_of(Color::Black);
    let white = position.discs_of(Color::White);
    let mut h = mix(black as u64 ^ 0x9e37_79b9_7f4a_7c15);
    h = mix(h ^ (black >> 64) as u64);
    h = mix(h ^ white as u64);
    h = mix(h ^ (white >> 64) as u64);
    let mut extra = u64::from(position.to_move() == Color::White);
    if position.variant().is_reversi() {
        let [b, w] = position.placed();
        extra |= u64::from(b) << 1 | u64::from(w) << 17;
    }
    mix(h ^ extra)
}

/// One search's state.
struct Searcher<'a> {
    geometry: Geometry,
    table: Vec<Entry>,
    limits: &'a Limits,
    nodes: u64,
    /// Whether the limits apply (not during depth 1, which always completes).
    enforce: bool,
    /// Set once a limit is hit; every caller then unwinds and the iteration is discarded.
    aborted: bool,
}

/// Runs the search from `position`, which has at least two legal moves.
pub(crate) fn search(position: &Position, max_depth: u32, limits: &Limits) -> Choice {
    // A node-limited search needs no more entries than nodes, and one whose deadline has
    // passed runs only depth 1: a small table saves filling megabytes it would never use.
    let expired = limits
        .deadline
        .is_some_and(|deadline| Instant::now() >= deadline);
    let table_size = match limits.max_nodes {
        _ if expired => MIN_TABLE,
        Some(n) => n.clamp(MIN_TABLE, MAX_TABLE).next_power_of_two(),
        None => MAX_TABLE,
    };
    let geometry = Geometry::new(position.variant());
    let (me, opp) = position.sides();
    let empties = (geometry.board() & !(me | opp)).count_ones();
    let mut searcher = Searcher {
        geometry,
        table: vec![EMPTY; table_size as usize],
        limits,
        nodes: 0,
        enforce: false,
        aborted: false,
    };

    // The root is ordered once with the costlier heuristic; later iterations only move their
    // best move to the front.
    let mut root_moves = searcher.ordered_moves(
        position,
        position.legal_moves(),
        None,
        MOBILITY_ORDERING_DEPTH,
    );
    let mut choice = Choice {
        mv: root_moves.first().map_or(Move::Pass, |&sq| Move::Place(sq)),
        depth: 0,
        nodes: 0,
        score: None,
    };
    for depth in 1..=max_depth {
        searcher.enforce = depth > 1;
        if searcher.enforce && searcher.past_deadline() {
            break;
        }
        let Some((best, score)) = searcher.root(position, &mut root_moves, depth) else {
            break;
        };
        choice.mv = Move::Place(best);
        choice.depth = depth;
        choice.score = Some(score);
        // With as many plies as empty squares every line reaches the end of the game (passes
        // cost no depth), so the score is exact and deeper iterations would repeat it.
        if depth >= empties {
            break;
        }
    }
    choice.nodes = searcher.nodes;
    choice
}

impl Searcher<'_> {
    /// Whether the deadline, if any, has passed.
    fn past_deadline(&self) -> bool {
        self.limits
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// Counts a node and reports whether the search must stop.
    fn out_of_budget(&mut self) -> bool {
        self.nodes += 1;
        if !self.enforce {
            return false;
        }
        if self.aborted
            || self.limits.max_nodes.is_some_and(|max| self.nodes > max)
            || (self.nodes.is_multiple_of(CLOCK_INTERVAL) && self.past_deadline())
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// The root's moves in search order: `first` (if legal), then by the ordering heuristic.
    fn ordered_moves(
        &self,
        position: &Position,
        moves: u128,
        first: Option<u8>,
        depth: u32,
    ) -> Vec<u8> {
        let mut keys = [(0i32, 0u8); MAX_MOVES];
        let count = self.order(position, moves, first, depth, &mut keys);
        keys[..count].iter().map(|&(_, sq)| sq).collect()
    }

    /// Writes the squares of `moves` into `out` best first and returns how many there are.
    /// The hinted move (from the transposition table) leads; far from the leaves the others
    /// follow by how few moves they leave the opponent, near them by square weight.
    fn order(
        &self,
        position: &Position,
        moves: u128,
        hint: Option<u8>,
        depth: u32,
        out: &mut [(i32, u8); MAX_MOVES],
    ) -> usize {
        let (me, opp) = position.sides();
        let weight = self
            .geometry
            .square_weights(self.geometry.board() & !(me | opp));
        let mut count = 0;
        for sq in squares(moves) {
            let Some(slot) = out.get_mut(count) else {
                break;
            };
            let key = if Some(sq) == hint {
                i32::MAX
            } else if depth >= MOBILITY_ORDERING_DEPTH {
                let mut child = *position;
                match child.play(Move::Place(sq)) {
                    Ok(_) => weight(sq) - 16 * child.legal_moves().count_ones() as i32,
                    Err(_) => i32::MIN,
                }
            } else {
                weight(sq)
            };
            *slot = (key, sq);
            count += 1;
        }
        // Few moves: an insertion sort is fastest, and it is stable, so equal keys keep square
        // order and the search stays deterministic.
        let list = &mut out[..count];
        for i in 1..list.len() {
            let mut j = i;
            while j > 0 && list[j - 1].0 < list[j].0 {
                list.swap(j - 1, j);
                j -= 1;
            }
        }
        count
    }

    /// Searches the root to `depth`: the best move and its score, or `None` if a limit
    /// stopped the iteration. The best move is moved to the front of `moves` for the next one.
    fn root(&mut self, position: &Position, moves: &mut Vec<u8>, depth: u32) -> Option<(u8, i32)> {
        self.out_of_budget();
        let mut alpha = -INFINITY;
        let mut best: Option<(usize, i32)> = None;
        for (i, &sq) in moves.iter().enumerate() {
            let mut child = *position;
            if child.play(Move::Place(sq)).is_err() {
                continue;
            }
            let score = if best.is_none() {
                -self.negamax(&child, depth - 1, -INFINITY, -alpha)
            } else {
                let probe = -self.negamax(&child, depth - 1, -alpha - 1, -alpha);
                if probe > alpha && !self.aborted {
                    -self.negamax(&child, depth - 1, -INFINITY, -alpha)
                } else {
                    probe
                }
            };
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((i, score));
                alpha = alpha.max(score);
            }
        }
        let (index, score) = best?;
        let sq = moves.remove(index);
        moves.insert(0, sq);
        Some((sq, score))
    }

    /// The negamax value of `position` searched `depth` plies within `(alpha, beta)`;
    /// meaningless once `self.aborted` is set.
    fn negamax(&mut self, position: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if self.out_of_budget() {
            return 0;
        }
        let (me, opp) = position.sides();
        let moves = position.legal_moves();
        if moves == 0 {
            let opp_moves = position.moves_for(position.to_move().other());
            if opp_moves == 0 {
                return self.geometry.final_score(me, opp);
            }
            if depth == 0 {
                return self.geometry.evaluate(me, opp, 0, opp_moves);
            }
            // A pass is a move of its own but costs no depth: the opponent can move, so
            // passes never follow each other and the recursion ends.
            let mut passed = *position;
            if passed.play(Move::Pass).is_err() {
                return self.geometry.evaluate(me, opp, 0, opp_moves);
            }
            return -self.negamax(&passed, depth, -beta, -alpha);
        }
        if depth == 0 {
            let opp_moves = position.moves_for(position.to_move().other());
            return self.geometry.evaluate(me, opp, moves, opp_moves);
        }

        let key = hash(position);
        let slot = (key as usize) & (self.table.len() - 1);
        let entry = self.table.get(slot).copied().unwrap_or(EMPTY);
        let mut hint = None;
        if entry.key == key {
            if entry.best != NO_MOVE && moves >> entry.best & 1 != 0 {
                hint = Some(entry.best);
            }
            if u32::from(entry.depth) >= depth {
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => entry.score >= beta,
                    Bound::Upper => entry.score <= alpha,
                };
                if cut {
                    return entry.score;
                }
            }
        }

        let mut list = [(0i32, 0u8); MAX_MOVES];
        let count = self.order(position, moves, hint, depth, &mut list);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = NO_MOVE;
        for &(_, sq) in &list[..count] {
            let mut child = *position;
            if child.play(Move::Place(sq)).is_err() {
                continue;
            }
            let score = if best_move == NO_MOVE {
                -self.negamax(&child, depth - 1, -beta, -alpha)
            } else {
                let probe = -self.negamax(&child, depth - 1, -alpha - 1, -alpha);
                if probe > alpha && probe < beta && !self.aborted {
                    -self.negamax(&child, depth - 1, -beta, -alpha)
                } else {
                    probe
                }
            };
            if self.aborted {
                return 0;
            }
            if score > best_score || best_move == NO_MOVE {
                best_score = score;
                best_move = sq;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }

        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        if let Some(slot) = self.table.get_mut(slot) {
            // Depth-preferred: another position's entry gives way only to a search at least as
            // deep, so the expensive results near the root survive the flood of shallow ones.
            if slot.key == key || u32::from(slot.depth) <= depth {
                *slot = Entry {
                    key,
                    score: best_score,
                    depth: depth.min(u32::from(u8::MAX)) as u8,
                    bound,
                    best: best_move,
                };
            }
        }
        best_score
    }
}
