//! Iterative-deepening negamax alpha-beta with a transposition table and limits.

use std::time::Instant;

use arbiter_othello::{Color, Move, Position};

use crate::eval::Geometry;
use crate::tree::{Bound, Meter, NO_MOVE, Stoppable, Table, mix, pvs_child, sort_best_first};
use crate::{Choice, Limits, squares};

/// Above every score a search can return, exact or heuristic.
const INFINITY: i32 = 10_000_000;
/// The largest transposition table, in entries (16 bytes each: 4 MiB).
const MAX_TABLE: u64 = 1 << 18;
/// The smallest transposition table.
const MIN_TABLE: u64 = 1 << 10;
/// From this remaining depth on, moves are ordered by the opponent's mobility after them,
/// which costs a move generation per child but pays off in larger subtrees.
const MOBILITY_ORDERING_DEPTH: u32 = 3;
/// The most legal moves a position can have (a 10x10 board has 100 squares).
const MAX_MOVES: usize = 100;

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
    table: Table,
    meter: Meter<'a>,
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
    let mut table = Table::with_entries(table_size as usize);
    table.new_search();
    let mut searcher = Searcher {
        geometry,
        table,
        meter: Meter::new(limits),
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
    let started = Instant::now();
    for depth in 1..=max_depth {
        searcher.meter.enforce = depth > 1;
        if searcher.meter.enforce && searcher.meter.too_late_to_deepen(started) {
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
    choice.nodes = searcher.meter.nodes;
    choice
}

impl Stoppable for Searcher<'_> {
    fn aborted(&self) -> bool {
        self.meter.aborted
    }
}

impl Searcher<'_> {
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
        sort_best_first(&mut out[..count]);
        count
    }

    /// Searches the root to `depth`: the best move and its score, or `None` if a limit
    /// stopped the iteration. The best move is moved to the front of `moves` for the next one.
    fn root(&mut self, position: &Position, moves: &mut Vec<u8>, depth: u32) -> Option<(u8, i32)> {
        self.meter.tick();
        let mut alpha = -INFINITY;
        let mut best: Option<(usize, i32)> = None;
        for (i, &sq) in moves.iter().enumerate() {
            let mut child = *position;
            if child.play(Move::Place(sq)).is_err() {
                continue;
            }
            let score = pvs_child(self, best.is_none(), alpha, INFINITY, |s, a, b| {
                -s.negamax(&child, depth - 1, -b, -a)
            });
            if self.meter.aborted {
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
    /// meaningless once `self.meter.aborted` is set.
    fn negamax(&mut self, position: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if self.meter.tick() {
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
        let probe = self.table.probe(key, moves, depth, alpha, beta);
        if let Some(score) = probe.cut {
            return score;
        }
        let hint = probe.hint;

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
            let score = pvs_child(self, best_move == NO_MOVE, alpha, beta, |s, a, b| {
                -s.negamax(&child, depth - 1, -b, -a)
            });
            if self.meter.aborted {
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

        let bound = Bound::of(best_score, original_alpha, beta);
        self.table.store(key, depth, best_score, bound, best_move);
        best_score
    }
}
