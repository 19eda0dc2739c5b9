//! Iterative-deepening alpha-beta for standard chess and Chess960, on cozy-chess's legal
//! move generator.
//!
//! A principal-variation negamax with a quiescence search on captures, a transposition
//! table keyed by `Board::hash`, mate scores counted in plies from the root, check
//! extensions, null-move pruning, late-move reductions, and move ordering by the table's
//! move, captures by most valuable victim and least valuable attacker, two killer moves per
//! ply and a history of quiet moves that refuted. A position repeated in the game or the
//! search line, or reached after fifty moves by each side without a capture or a pawn move,
//! scores as a draw.
//!
//! Every node is counted by a [`Budget`]: given the same position, history and node budget,
//! with a deadline that does not strike first, the result is the same on any machine.

use cozy_chess::{Board, Move, Piece};

use super::eval::{evaluate, has_pieces, value};
use crate::standard::insufficient_material;
use arbiter_plugin::Budget;

/// The score of a mate now; a mate `n` plies from the root scores `MATE - n`.
pub(crate) const MATE: i32 = 32_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - 1_000;
/// Beyond every score.
const INFINITE: i32 = MATE + 1;
/// The longest line followed, extensions and quiescence included.
const MAX_PLY: usize = 100;

/// Move-ordering classes: the table's move, then captures and promotions, then killers,
/// then quiet moves by their history.
const HASH_MOVE: i32 = 4_000_000;
const CAPTURE: i32 = 2_000_000;
const KILLER: i32 = 1_000_000;
const HISTORY_CAP: i32 = 900_000;

/// What a table entry says about its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Bound {
    /// The exact score.
    #[default]
    Exact,
    /// At least the score (it failed high).
    Lower,
    /// At most the score (it failed low).
    Upper,
}

/// One transposition-table slot.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: i32,
    depth: i16,
    bound: Bound,
}

/// How deep and with how large a table a level searches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// The deepest iteration, in plies.
    pub(crate) max_depth: i32,
    /// The table has 2^`table_bits` slots.
    pub(crate) table_bits: u32,
}

/// The result of a search: the move, its score for the side to move, the depth of the
/// deepest iteration that chose it and the nodes the whole search used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) best: Move,
    pub(crate) score: i32,
    pub(crate) depth: i32,
    pub(crate) nodes: u64,
}

/// A search in progress.
pub(crate) struct Searcher {
    budget: Budget,
    table: Vec<Entry>,
    mask: usize,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
    /// The keys of the positions since the last irreversible move: the game's, then the
    /// search line's, the current position last.
    keys: Vec<u64>,
}

/// A score as the table keeps it: mates counted from the node, not the root.
fn to_table(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// A table score seen from `ply` plies below the root.
fn from_table(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score > MATE_BOUND {
        score - ply
    } else if score < -MATE_BOUND {
        score + ply
    } else {
        score
    }
}

/// The piece a move takes, if any (en passant included).
#[inline]
pub(crate) fn victim(board: &Board, mv: Move) -> Option<Piece> {
    let us = board.side_to_move();
    if board.colors(!us).has(mv.to) {
        return board.piece_on(mv.to);
    }
    let is_pawn = board.pieces(Piece::Pawn).has(mv.from);
    (is_pawn && mv.from.file() != mv.to.file()).then_some(Piece::Pawn)
}

/// The value a capture or promotion gains, by which such moves are ordered: most
/// valuable victim first, least valuable attacker first among equals.
#[inline]
fn tactical_order(board: &Board, mv: Move) -> Option<i32> {
    let taken = victim(board, mv).map_or(0, value);
    let promoted = mv.promotion.map_or(0, |p| value(p) - value(Piece::Pawn));
    if taken == 0 && promoted == 0 {
        return None;
    }
    let attacker = board.piece_on(mv.from).map_or(0, |p| p as i32);
    Some((taken + promoted) * 8 - attacker)
}

impl Searcher {
    /// A search under `budget`, with the keys of the game's positions since the last
    /// irreversible move (the current position's last).
    pub(crate) fn new(budget: Budget, settings: Settings, history: Vec<u64>) -> Searcher {
        let size = 1usize << settings.table_bits;
        Searcher {
            budget,
            table: vec![Entry::default(); size],
            mask: size - 1,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 64 * 64],
            keys: history,
        }
    }

    /// Searches `board` to `max_depth` plies at most, trying the root moves in `moves`'
    /// order where nothing better orders them (the caller shuffles them, so that equal
    /// moves vary between games). `None` if not even the first iteration finished.
    pub(crate) fn search(
        &mut self,
        board: &Board,
        moves: &[Move],
        max_depth: i32,
    ) -> Option<Found> {
        let mut root: Vec<Move> = moves.to_vec();
        // Captures and promotions first; the sort is stable, so the caller's order stays
        // among equals.
        root.sort_by_key(|&mv| std::cmp::Reverse(tactical_order(board, mv).unwrap_or(i32::MIN)));
        if self.keys.last() != Some(&board.hash()) {
            self.keys.push(board.hash());
        }
        let mut found: Option<Found> = None;
        for depth in 1..=max_depth.max(1) {
            let mut alpha = -INFINITE;
            let mut best: Option<(usize, Move, i32)> = None;
            for (i, &mv) in root.iter().enumerate() {
                let mut child = board.clone();
                child.play_unchecked(mv);
                self.keys.push(child.hash());
                let score = if i == 0 {
                    -self.negamax(&child, depth - 1, -INFINITE, -alpha, 1)
                } else {
                    let probe = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1);
                    if probe > alpha && !self.budget.stopped() {
                        -self.negamax(&child, depth - 1, -INFINITE, -alpha, 1)
                    } else {
                        probe
                    }
                };
                self.keys.pop();
                if self.budget.stopped() {
                    break;
                }
                if score > alpha {
                    alpha = score;
                    best = Some((i, mv, score));
                }
            }
            // An unfinished iteration still counts when a move searched in full beat the
            // previous best, which it searched first.
            if let Some((i, mv, score)) = best {
                found = Some(Found {
                    best: mv,
                    score,
                    depth,
                    nodes: 0,
                });
                let chosen = root.remove(i);
                root.insert(0, chosen);
            }
            if self.budget.stopped() {
                break;
            }
            // A mate found within this depth will not change.
            if alpha.abs() > MATE_BOUND && MATE - alpha.abs() <= depth {
                break;
            }
        }
        let nodes = self.budget.nodes();
        found.map(|f| Found { nodes, ..f })
    }

    /// Whether the position on top of the line repeats one since the last irreversible
    /// move (the same side to move, so every second key).
    fn repeated(&self, board: &Board) -> bool {
        let len = self.keys.len();
        let reach = usize::from(board.halfmove_clock()).min(len.saturating_sub(1));
        let Some(&key) = self.keys.last() else {
            return false;
        };
        (4..=reach)
            .step_by(2)
            .any(|back| self.keys[len - 1 - back] == key)
    }

    fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.table[key as usize & self.mask];
        (entry.key == key).then_some(entry)
    }

    fn store(
        &mut self,
        key: u64,
        best: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        let slot = &mut self.table[key as usize & self.mask];
        // A bound from a shallower search does not replace a deeper result for the same
        // position; anything else does, as newer results are likelier to be asked for.
        if slot.key == key && i32::from(slot.depth) > depth && bound != Bound::Exact {
            return;
        }
        *slot = Entry {
            key,
            best: best.or(if slot.key == key { slot.best } else { None }),
            score: to_table(score, ply),
            depth: depth.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            bound,
        };
    }

    /// The moves of `board` with their ordering scores, best first.
    fn ordered(
        &self,
        board: &Board,
        hash_move: Option<Move>,
        ply: usize,
        tactical_only: bool,
    ) -> Vec<(Move, i32)> {
        let mut moves = Vec::with_capacity(48);
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        board.generate_moves(|piece_moves| {
            for mv in piece_moves {
                let score = if Some(mv) == hash_move {
                    HASH_MOVE
                } else if let Some(order) = tactical_order(board, mv) {
                    CAPTURE + order
                } else if tactical_only {
                    continue;
                } else if Some(mv) == killers[0] {
                    KILLER + 1
                } else if Some(mv) == killers[1] {
                    KILLER
                } else {
                    self.history[mv.from as usize * 64 + mv.to as usize]
                };
                moves.push((mv, score));
            }
            false
        });
        moves.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
        moves
    }

    fn negamax(&mut self, board: &Board, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.budget.tick() {
            return 0;
        }
        let in_check = !board.checkers().is_empty();
        if (board.halfmove_clock() >= 100 && !in_check)
            || self.repeated(board)
            || insufficient_material(board)
        {
            return 0;
        }
        if ply >= MAX_PLY {
            return evaluate(board);
        }
        // No line from here can do better than a mate next move, nor worse than being
        // mated now.
        let mut alpha = alpha.max(-MATE + ply as i32);
        let beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let depth = if in_check { depth + 1 } else { depth };
        if depth <= 0 {
            return self.quiesce(board, alpha, beta, ply);
        }
        let key = board.hash();
        let mut hash_move = None;
        if let Some(entry) = self.probe(key) {
            hash_move = entry.best;
            if i32::from(entry.depth) >= depth {
                let score = from_table(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }
        let us = board.side_to_move();
        let null_window = beta - alpha == 1;
        if null_window
            && !in_check
            && depth >= 3
            && beta.abs() < MATE_BOUND
            && has_pieces(board, us)
            && evaluate(board) >= beta
            && let Some(passed) = board.null_move()
        {
            // If passing still holds beta, a real move will too (barring zugzwang, which
            // needs pieces to be rare, hence the check above).
            self.keys.push(passed.hash());
            let score = -self.negamax(&passed, depth - 3, -beta, -beta + 1, ply + 1);
            self.keys.pop();
            if self.budget.stopped() {
                return 0;
            }
            if score >= beta {
                return beta;
            }
        }
        let moves = self.ordered(board, hash_move, ply, false);
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if board.halfmove_clock() >= 100 {
            // In check with a move to make: the fifty-move rule draws.
            return 0;
        }
        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move = None;
        for (i, &(mv, order)) in moves.iter().enumerate() {
            let quiet = order < CAPTURE;
            let mut child = board.clone();
            child.play_unchecked(mv);
            self.keys.push(child.hash());
            let gives_check = !child.checkers().is_empty();
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                // Late quiet moves are searched less deep first, and again in full only if
                // they look better than the best so far.
                let reduction =
                    if depth >= 3 && i >= 4 && quiet && order < KILLER && !in_check && !gives_check
                    {
                        if i >= 12 && depth >= 5 { 2 } else { 1 }
                    } else {
                        0
                    };
                let mut score =
                    -self.negamax(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if score > alpha && reduction > 0 {
                    score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                }
                score
            };
            self.keys.pop();
            if self.budget.stopped() {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(mv);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if quiet {
                    self.remember_quiet(mv, depth, ply);
                }
                break;
            }
        }
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.store(key, best_move, best_score, depth, bound, ply);
        best_score
    }

    /// A quiet move that refuted a line: a killer at its ply, and a history bonus growing
    /// with the depth it refuted at.
    fn remember_quiet(&mut self, mv: Move, depth: i32, ply: usize) {
        if let Some(killers) = self.killers.get_mut(ply)
            && killers[0] != Some(mv)
        {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let slot = &mut self.history[mv.from as usize * 64 + mv.to as usize];
        *slot = (*slot + depth * depth).min(HISTORY_CAP);
    }

    /// Captures and promotions only, until the position is quiet; in check, every move.
    fn quiesce(&mut self, board: &Board, alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.budget.tick() {
            return 0;
        }
        if ply >= MAX_PLY {
            return evaluate(board);
        }
        let in_check = !board.checkers().is_empty();
        let mut alpha = alpha;
        let mut best = -INFINITE;
        let stand = if in_check { -INFINITE } else { evaluate(board) };
        if !in_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        let moves = self.ordered(board, None, ply, !in_check);
        if moves.is_empty() && in_check {
            return -MATE + ply as i32;
        }
        for &(mv, _) in &moves {
            // A capture that cannot lift the score near alpha even if nothing is lost for
            // it is not worth a look.
            if !in_check && mv.promotion.is_none() {
                let gain = victim(board, mv).map_or(0, value);
                if stand + gain + 200 < alpha {
                    continue;
                }
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1);
            if self.budget.stopped() {
                return 0;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::standard::legal_moves;

    fn search(fen: &str, nodes: u64, max_depth: i32) -> Found {
        let board: Board = fen.parse().expect("a position");
        let budget = Budget::new(Instant::now() + Duration::from_secs(600), nodes);
        let settings = Settings {
            max_depth,
            table_bits: 16,
        };
        let mut searcher = Searcher::new(budget, settings, vec![board.hash()]);
        searcher
            .search(&board, &legal_moves(&board), max_depth)
            .expect("a finished iteration")
    }

    /// Mates are scored by their distance in plies, for the side that mates and the side
    /// mated.
    #[test]
    fn mates_are_scored_by_distance() {
        let mate_in_two = search("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 200_000, 8);
        assert_eq!(mate_in_two.score, MATE - 3);
        assert_eq!(mate_in_two.best.to_string(), "a1a6");
        // Black to move after 1. Ra6: whatever it plays, it is mated next move.
        let mated = search("kbK5/pp6/RP6/8/8/8/8/8 b - - 1 1", 200_000, 8);
        assert_eq!(mated.score, -(MATE - 2));
        assert!(mated.nodes > 0 && mated.depth >= 2);
    }

    /// A position repeated from the game's history scores as a draw: the side that is lost
    /// heads for it.
    #[test]
    fn repetitions_score_as_draws() {
        let board: Board = "7k/8/8/8/8/8/R7/6K1 b - - 10 30"
            .parse()
            .expect("a position");
        let mut repeated = board.clone();
        repeated.play("h8g8".parse().expect("a move"));
        let settings = Settings {
            max_depth: 4,
            table_bits: 16,
        };
        let run = |history: Vec<u64>| {
            let budget = Budget::new(Instant::now() + Duration::from_secs(600), 100_000);
            let mut searcher = Searcher::new(budget, settings, history);
            searcher
                .search(&board, &legal_moves(&board), 4)
                .expect("a result")
        };
        let lost = run(vec![board.hash()]);
        assert!(lost.score < -300, "{lost:?}");
        // Two other positions between, then this one: Kg8 repeats the first.
        let saved = run(vec![repeated.hash(), 1, 2, board.hash()]);
        assert_eq!(
            (saved.best.to_string(), saved.score),
            ("h8g8".to_owned(), 0)
        );
    }
}
