//! The search of 8x8 positions with a trained pattern evaluation ([`Weights`]): standard
//! Othello, anti-Othello and classic Reversi once its centre placements are over.
//!
//! It works on `u64` bitboards through [`Kernels`], as the endgame solver does, and scores in
//! the evaluation's unit, 1/128 of a disc, from the mover's side: a leaf is the weights'
//! estimate of the final margin (for anti-Othello, weights trained on the negated margin, so
//! that the search maximises its goal uniformly), and a finished game its exact margin. So a
//! proven result and an estimate compare on one scale, as in the strongest engines.
//!
//! Negamax alpha-beta with a principal-variation scheme, iterative deepening and aspiration
//! windows around the previous iteration's score (widened to the full window when the score
//! falls outside). An iteration that a limit stops is not wasted when it has already proved
//! another root move better than the last iteration's best: that move is played. Moves go by the transposition table's move, then, far from the leaves, by
//! the evaluation of the position after them (the opponent's view, negated), and near the
//! leaves by how few replies they leave and by the square's worth. Passes cost no depth. Far
//! from the leaves a node first looks in the table for a move that already refutes the window
//! (an enhanced transposition cut-off).
//!
//! A selective search ([`Limits::selective`]) also prunes by Multi-ProbCut: before searching
//! a node's moves it runs a null-window search a quarter as deep (or so) just beyond each
//! side of the window, and when that lies further out than the deep score usually strays
//! from it (the statistics in `probcut.rs`), it returns the bound without the deep search.
//! Searches that reach the end of the game stay exact.
//!
//! The transposition table of a timed search outlives it: such searches take one from a small
//! pool (one pool per goal and pruning, since the weights and the meaning of a score differ)
//! and give it back, so the next move of a game usually finds the entries of the last (each
//! entry is checked against the whole position's hash, so a table used for other games is
//! merely less useful). Entries of an older search give way to the current one's. A
//! node-limited search gets a fresh table, so that it depends on its arguments alone, as
//! training needs.
//!
//! Classic Reversi's rule that a colour with all 32 discs placed must pass is not modelled
//! inside the tree: it cannot bind before the last few empties, which the endgame solver
//! plays, and the root's moves always come from the checked position.

use std::sync::Mutex;
use std::time::Instant;

use arbiter_othello::Kernels;
use arbiter_othello_eval::{SCALE, Weights};

use crate::Limits;
use crate::probcut;
use crate::tree::{Bound, Meter, NO_MOVE, Stoppable, Table, mix, pvs_child, sort_best_first};

/// Above any score.
const INFINITY: i32 = 1 << 20;
/// From this depth on, moves are ordered by evaluating the position after each.
const EVAL_ORDERING_DEPTH: u32 = 3;
/// From this depth on, a node first looks in the table for a move that already refutes the
/// window ([`Searcher::transposition_cut`]).
const ETC_DEPTH: u32 = 4;
/// The aspiration window's half-width around the last iteration's score: two discs.
const ASPIRATION: i32 = 2 * SCALE;
/// The transposition table's entries (a power of two): 4 MiB at 16 bytes each.
const TABLE_ENTRIES: usize = 1 << 18;
/// The most tables kept for later searches.
const POOL_SIZE: usize = 8;
/// The most legal moves a position has.
const MAX_MOVES: usize = 32;

const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The X squares (diagonally next to a corner).
const X_SQUARES: u64 = 0x0042_0000_0000_4200;

/// What a search found: the best square, its score (1/128 of a disc, from the mover's side),
/// the depth of the last completed iteration and the nodes visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) square: u8,
    pub(crate) score: i32,
    pub(crate) depth: u32,
    pub(crate) nodes: u64,
}

/// Tables between searches, one pool per goal (more discs, fewer) and pruning (exact,
/// selective): an entry scores a position for one goal and its weights, and a selective
/// search's scores are guesses an exact search must not take for its own.
static POOLS: [Mutex<Vec<Table>>; 4] = [const { Mutex::new(Vec::new()) }; 4];

/// The pool of searches for `fewer_wins` within `limits`.
fn pool(fewer_wins: bool, limits: &Limits) -> &'static Mutex<Vec<Table>> {
    &POOLS[usize::from(fewer_wins) + 2 * usize::from(limits.selective)]
}

fn take_table(pool: &Mutex<Vec<Table>>) -> Table {
    pool.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .pop()
        .unwrap_or_else(|| Table::with_entries(TABLE_ENTRIES))
}

fn give_back(table: Table, pool: &Mutex<Vec<Table>>) {
    let mut pool = pool
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if pool.len() < POOL_SIZE {
        pool.push(table);
    }
}

fn hash(p: u64, o: u64) -> u64 {
    mix(p ^ mix(o ^ 0x9E37_79B9_7F4A_7C15))
}

/// The bits of `set`, lowest first.
fn squares(mut set: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let sq = set.trailing_zeros() as u8;
            set &= set - 1;
            sq
        })
    })
}

/// How a search of the root ended.
enum Root {
    /// The iteration finished: the best move and its score.
    Done(u8, i32),
    /// A limit stopped it; with the move and score (a lower bound) of a move that proved
    /// better than the first, if one did.
    Stopped(Option<(u8, i32)>),
}

struct Searcher<'a> {
    kernels: Kernels,
    weights: &'a Weights,
    /// -1 in anti-Othello, where the mover's goal is the negated margin; else 1.
    goal: i32,
    table: &'a mut Table,
    meter: Meter<'a>,
    /// Whether nodes may be cut by Multi-ProbCut ([`Limits::selective`]).
    selective: bool,
}

/// Searches the 8x8 position (`p` the mover's discs, `o` the opponent's), which has at least
/// one legal move, to at most `max_depth` plies within `limits`, scoring leaves with
/// `weights`; `fewer_wins` for anti-Othello. `None` only if it has no legal move.
pub(crate) fn search(
    kernels: Kernels,
    weights: &Weights,
    fewer_wins: bool,
    (p, o): (u64, u64),
    max_depth: u32,
    limits: &Limits,
) -> Option<Found> {
    // A node-limited search must depend on its arguments alone (training replays games from
    // their seeds), so it gets a fresh table of its own, no larger than its nodes need.
    if let Some(nodes) = limits.max_nodes {
        let entries = usize::try_from(nodes)
            .unwrap_or(TABLE_ENTRIES)
            .clamp(1 << 10, TABLE_ENTRIES)
            .next_power_of_two();
        let mut table = Table::with_entries(entries);
        return search_in(
            &mut table,
            kernels,
            weights,
            fewer_wins,
            (p, o),
            max_depth,
            limits,
        );
    }
    let pool = pool(fewer_wins, limits);
    let mut table = take_table(pool);
    let found = search_in(
        &mut table,
        kernels,
        weights,
        fewer_wins,
        (p, o),
        max_depth,
        limits,
    );
    give_back(table, pool);
    found
}

/// The same with `table`.
fn search_in(
    table: &mut Table,
    kernels: Kernels,
    weights: &Weights,
    fewer_wins: bool,
    (p, o): (u64, u64),
    max_depth: u32,
    limits: &Limits,
) -> Option<Found> {
    table.new_search();
    let mut searcher = Searcher {
        kernels,
        weights,
        goal: if fewer_wins { -1 } else { 1 },
        table,
        meter: Meter::new(limits),
        selective: limits.selective,
    };
    let empties = (!(p | o)).count_ones();
    let mut moves = searcher.ordered(p, o, kernels.moves8(p, o), NO_MOVE, EVAL_ORDERING_DEPTH);
    let mut found: Option<Found> = None;
    let started = Instant::now();
    for depth in 1..=max_depth.max(1) {
        searcher.meter.enforce = depth > 1;
        if searcher.meter.enforce && searcher.meter.too_late_to_deepen(started) {
            break;
        }
        let outcome = match found {
            Some(last) if depth > 2 => {
                let (alpha, beta) = (last.score - ASPIRATION, last.score + ASPIRATION);
                match searcher.root(p, o, &mut moves, depth, alpha, beta) {
                    Root::Done(_, score) if score <= alpha || score >= beta => {
                        match searcher.root(p, o, &mut moves, depth, -INFINITY, INFINITY) {
                            // A move that failed high stays the best one known.
                            Root::Stopped(None) if score >= beta => {
                                Root::Stopped(moves.first().map(|&sq| (sq, score)))
                            }
                            other => other,
                        }
                    }
                    other => other,
                }
            }
            _ => searcher.root(p, o, &mut moves, depth, -INFINITY, INFINITY),
        };
        let (square, score) = match outcome {
            Root::Done(square, score) => (square, score),
            Root::Stopped(better) => {
                // The stopped iteration proved another move better than the last one's best
                // (at a greater depth): play it, with the last completed depth.
                if let (Some((square, score)), Some(last)) = (better, found.as_mut()) {
                    *last = Found {
                        square,
                        score,
                        ..*last
                    };
                }
                break;
            }
        };
        found = Some(Found {
            square,
            score,
            depth,
            nodes: 0,
        });
        // With as many plies as empties every line reaches the end, so the score is exact.
        if depth >= empties {
            break;
        }
    }
    let nodes = searcher.meter.nodes;
    found.map(|found| Found { nodes, ..found })
}

impl Stoppable for Searcher<'_> {
    fn aborted(&self) -> bool {
        self.meter.aborted
    }
}

impl Searcher<'_> {
    /// The heuristic score of a position for its mover.
    fn evaluate(&self, p: u64, o: u64) -> i32 {
        self.weights.evaluate(p, o)
    }

    /// The exact score of a finished game for its mover.
    fn final_score(&self, p: u64, o: u64) -> i32 {
        self.goal * (p.count_ones() as i32 - o.count_ones() as i32) * SCALE
    }

    /// The position after the mover plays `sq`, as (mover, opponent) of the next turn.
    fn play(&self, p: u64, o: u64, sq: u8) -> (u64, u64) {
        let flips = self.kernels.flips8(p, o, u32::from(sq));
        (o & !flips, p | flips | 1 << sq)
    }

    /// The squares of `moves` best first: `hint` (the table's move) leads; from
    /// [`EVAL_ORDERING_DEPTH`] on the others follow by the evaluation after them, nearer the
    /// leaves by how few replies they leave, corners first and X squares last.
    fn ordered(&self, p: u64, o: u64, moves: u64, hint: u8, depth: u32) -> Vec<u8> {
        let mut list = [(0i32, 0u8); MAX_MOVES];
        let count = self.order(p, o, moves, hint, depth, &mut list);
        list[..count].iter().map(|&(_, sq)| sq).collect()
    }

    fn order(
        &self,
        p: u64,
        o: u64,
        moves: u64,
        hint: u8,
        depth: u32,
        out: &mut [(i32, u8); MAX_MOVES],
    ) -> usize {
        let mut count = 0;
        for sq in squares(moves) {
            let Some(slot) = out.get_mut(count) else {
                break;
            };
            let key = if sq == hint {
                i32::MAX
            } else {
                let (np, no) = self.play(p, o, sq);
                if depth >= EVAL_ORDERING_DEPTH {
                    -self.evaluate(np, no)
                } else {
                    let bit = 1u64 << sq;
                    let square = if bit & CORNERS != 0 {
                        64
                    } else if bit & X_SQUARES != 0 {
                        -32
                    } else {
                        0
                    };
                    square - 16 * self.kernels.moves8(np, no).count_ones() as i32
                }
            };
            *slot = (key, sq);
            count += 1;
        }
        sort_best_first(&mut out[..count]);
        count
    }

    /// Searches the root to `depth` within `(alpha, beta)`; the best move goes to the front of
    /// `moves`. Stopped by a limit, it still reports a move that proved better than the first
    /// (the last iteration's best).
    fn root(
        &mut self,
        p: u64,
        o: u64,
        moves: &mut Vec<u8>,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Root {
        self.meter.tick();
        let original_alpha = alpha;
        let mut best: Option<(usize, i32)> = None;
        // A later move whose null-window search proved it better than the best, while its
        // search with the whole window runs: the best known should a limit stop that one.
        let mut proven: Option<(usize, i32)> = None;
        let mut stopped = false;
        for (i, &sq) in moves.iter().enumerate() {
            let (np, no) = self.play(p, o, sq);
            let child = |s: &mut Self, a: i32, b: i32| -s.negamax(np, no, depth - 1, -b, -a);
            let score = if best.is_none() {
                child(self, alpha, beta)
            } else {
                let probe = child(self, alpha, alpha + 1);
                if probe > alpha && probe < beta && !self.meter.aborted {
                    proven = Some((i, probe));
                    child(self, alpha, beta)
                } else {
                    probe
                }
            };
            if self.meter.aborted {
                stopped = true;
                break;
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((i, score));
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        if stopped {
            // The last move that proved better than those before it, if any did. A score at or
            // below the window proves nothing: it bounds the move from above.
            let better = best
                .into_iter()
                .chain(proven)
                .filter(|&(index, score)| index > 0 && score > original_alpha)
                .max_by_key(|&(index, _)| index);
            return Root::Stopped(better.map(|(index, score)| (moves[index], score)));
        }
        let Some((index, score)) = best else {
            return Root::Stopped(None);
        };
        let sq = moves.remove(index);
        moves.insert(0, sq);
        Root::Done(sq, score)
    }

    /// The negamax value of the position searched `depth` plies within `(alpha, beta)`;
    /// meaningless once `self.meter.aborted` is set.
    fn negamax(&mut self, p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if self.meter.tick() {
            return 0;
        }
        let moves = self.kernels.moves8(p, o);
        if moves == 0 {
            if self.kernels.moves8(o, p) == 0 {
                return self.final_score(p, o);
            }
            // A pass costs no depth; the opponent can move, so passes never follow each other.
            return -self.negamax(o, p, depth, -beta, -alpha);
        }
        if depth == 0 {
            return self.evaluate(p, o);
        }

        let key = hash(p, o);
        let probe = self.table.probe(key, u128::from(moves), depth, alpha, beta);
        if let Some(score) = probe.cut {
            return score;
        }
        let hint = probe.hint.unwrap_or(NO_MOVE);
        if depth >= ETC_DEPTH
            && let Some(score) = self.transposition_cut(p, o, moves, depth, beta)
        {
            return score;
        }
        if self.selective
            && let Some(score) = self.probcut(p, o, depth, alpha, beta)
        {
            return score;
        }

        let mut list = [(0i32, 0u8); MAX_MOVES];
        let count = self.order(p, o, moves, hint, depth, &mut list);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = NO_MOVE;
        for &(_, sq) in &list[..count] {
            let (np, no) = self.play(p, o, sq);
            let score = pvs_child(self, best_move == NO_MOVE, alpha, beta, |s, a, b| {
                -s.negamax(np, no, depth - 1, -b, -a)
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

    /// An enhanced transposition cut-off: a score of at least `beta` if the table already
    /// proves that one of the `moves` reaches it (the entry of the position after it, searched
    /// as deep as that node would be, holds the opponent to `-beta` or less), before any move
    /// is searched. It costs a probe a move, and far from the leaves saves whole subtrees
    /// that another order of moves reached first.
    fn transposition_cut(&self, p: u64, o: u64, moves: u64, depth: u32, beta: i32) -> Option<i32> {
        squares(moves).find_map(|sq| {
            let (np, no) = self.play(p, o, sq);
            let child = self
                .table
                .probe(hash(np, no), 0, depth - 1, -beta, 1 - beta);
            child.cut.map(|score| -score).filter(|&score| score >= beta)
        })
    }

    /// Multi-ProbCut: `beta` if a shallow search says the `depth`-ply score is at least
    /// `beta` with high probability, `alpha` if it says at most `alpha`, else `None`. The
    /// deep score is predicted as the shallow one plus the stage's mean difference, within a
    /// margin of its standard deviations (`probcut.rs` has the fit); each test is a
    /// null-window search at the shallow depth, which costs a small fraction of the deep one.
    fn probcut(&mut self, p: u64, o: u64, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        let empties = (!(p | o)).count_ones();
        // A search that reaches the end of the game is left exact.
        if depth >= empties {
            return None;
        }
        let cut = probcut::Cut::at(depth, empties)?;
        let margin = cut.margin();
        let high = beta + margin - cut.mean;
        if high < probcut::BOUND {
            let score = self.negamax(p, o, cut.shallow, high - 1, high);
            if self.meter.aborted {
                return Some(0);
            }
            if score >= high {
                return Some(beta);
            }
        }
        let low = alpha - margin - cut.mean;
        if low > -probcut::BOUND {
            let score = self.negamax(p, o, cut.shallow, low, low + 1);
            if self.meter.aborted {
                return Some(0);
            }
            if score <= low {
                return Some(alpha);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
