//! The complete turns of Dice Chess, as the players weigh them: every sequence of micro-moves
//! that finishes a turn from a position and its dice, with what it gains.
//!
//! A sequence is complete when it has used the dice the turn still requires, or when it
//! captures the king (which ends the game at once): exactly the sequences the rules' turn
//! tree accepts. Since the number of dice required is the most any sequence can use, a
//! depth-first walk that follows every micro-move the dice allow and keeps the sequences
//! that reach it needs no check of its own.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::ControlFlow;

use cozy_chess::{File, Piece, Rank, Square};

use crate::dice::{DiceBoard, DiceRules, DiceSet, MicroMove, MoveKind, Turn, for_each_move};
use crate::house::eval::{square_bonus, value};
use arbiter_plugin::Budget;

/// What micro-moves gain for the side that plays them: material first, then the square
/// bonuses, so that comparing two gains compares material and breaks ties by squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Gain {
    /// Material taken, and gained by promotion, in centipawns.
    pub(crate) material: i32,
    /// The change of the square bonuses of both sides' pieces.
    pub(crate) squares: i32,
}

impl Gain {
    /// Material and squares as one number.
    pub(crate) fn total(self) -> i32 {
        self.material + self.squares
    }

    fn plus(self, other: Gain) -> Gain {
        Gain {
            material: self.material + other.material,
            squares: self.squares + other.squares,
        }
    }
}

/// What `mv` gains for the side to move on `board`, the king's squares valued at `phase`.
pub(crate) fn gain_of(board: &DiceBoard, mv: MicroMove, phase: i32) -> Gain {
    let us = board.side_to_move();
    let them = !us;
    let mut gain = Gain::default();
    // What is taken away from the other side counts for us: its value and its square.
    let victim = if mv.kind == MoveKind::EnPassant {
        Some((Piece::Pawn, Square::new(mv.to.file(), mv.from.rank())))
    } else if board.colors(them).has(mv.to) {
        board.piece_on(mv.to).map(|piece| (piece, mv.to))
    } else {
        None
    };
    if let Some((piece, square)) = victim {
        gain.material += value(piece);
        gain.squares += square_bonus(piece, them, square, phase);
    }
    if mv.kind == MoveKind::Castle {
        let back = Rank::First.relative_to(us);
        let (rook_from, rook_to) = if mv.to.file() > mv.from.file() {
            (File::H, File::F)
        } else {
            (File::A, File::D)
        };
        gain.squares += square_bonus(Piece::King, us, mv.to, phase)
            - square_bonus(Piece::King, us, mv.from, phase)
            + square_bonus(Piece::Rook, us, Square::new(rook_to, back), phase)
            - square_bonus(Piece::Rook, us, Square::new(rook_from, back), phase);
        return gain;
    }
    let after = mv.promotion.unwrap_or(mv.piece);
    gain.material += value(after) - value(mv.piece);
    gain.squares +=
        square_bonus(after, us, mv.to, phase) - square_bonus(mv.piece, us, mv.from, phase);
    gain
}

/// One complete turn as the walk finds it.
pub(crate) struct Finished<'a> {
    /// Its micro-moves, in order.
    pub(crate) line: &'a [MicroMove],
    /// The position after them (the turn not yet ended: the side to move is still the
    /// mover's).
    pub(crate) board: &'a DiceBoard,
    /// What the micro-moves gained for the mover.
    pub(crate) gain: Gain,
    /// Whether the last micro-move captured the enemy king.
    pub(crate) king: bool,
}

/// A hasher that passes on the one `u64` it is given: the keys it hashes are mixed already.
#[derive(Default)]
struct PassOn(u64);

impl Hasher for PassOn {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = mix(self.0, u64::from(byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// One step of a multiplicative hash (FxHash's).
#[inline(always)]
fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// A 64-bit key of a position and the dice still to use.
fn key_of(board: &DiceBoard, dice: DiceSet, required: u8) -> u64 {
    let mut hash = 0;
    for bitboard in board.pieces.iter().chain(board.colors.iter()) {
        hash = mix(hash, bitboard.0);
    }
    hash = mix(hash, board.ep_targets.0);
    hash = mix(hash, board.pushed.0);
    let counts = Piece::ALL
        .into_iter()
        .fold(0u64, |acc, p| acc << 4 | u64::from(dice.count(p)));
    let small = u64::from(board.castling[0])
        | u64::from(board.castling[1]) << 8
        | u64::from(required) << 16
        | (board.side as u64) << 24
        | counts << 32;
    mix(hash, small)
}

/// The state of one walk: the rules, the phase the squares are valued at, the budget, the
/// line so far, buffers for each level's micro-moves (reused, so a walk allocates little)
/// and, when the walk merges transpositions, the keys of the positions met after two
/// micro-moves or more.
struct Walk<'w, 'f> {
    rules: &'w DiceRules,
    phase: i32,
    budget: &'w mut Budget,
    line: Vec<MicroMove>,
    buffers: Vec<Vec<MicroMove>>,
    seen: Option<HashSet<u64, BuildHasherDefault<PassOn>>>,
    visit: &'w mut (dyn FnMut(Finished<'_>) -> ControlFlow<()> + 'f),
}

/// Calls `visit` with every complete turn from `turn` (a king capture ends its sequence),
/// each micro-move counted as a node of `budget`. Returns `Break` if `visit` broke or the
/// budget ran out, which the caller tells apart by the budget. A turn that requires no dice
/// has no sequence to visit.
///
/// With `merge`, a position reached again with the same dice left (two micro-moves played
/// in the other order) is not walked again, so each of its turns is visited once, by the
/// first order found: what a search needs, but not a caller that must see every order.
pub(crate) fn for_each_turn(
    turn: &Turn,
    rules: &DiceRules,
    phase: i32,
    budget: &mut Budget,
    merge: bool,
    visit: &mut dyn FnMut(Finished<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if turn.required == 0 {
        return ControlFlow::Continue(());
    }
    let mut walk = Walk {
        rules,
        phase,
        budget,
        line: Vec::with_capacity(3),
        buffers: Vec::new(),
        seen: merge.then(HashSet::default),
        visit,
    };
    walk.node(&turn.board, turn.dice, turn.required, Gain::default())
}

impl Walk<'_, '_> {
    fn node(
        &mut self,
        board: &DiceBoard,
        dice: DiceSet,
        required: u8,
        gain: Gain,
    ) -> ControlFlow<()> {
        let depth = self.line.len();
        if depth >= 2
            && let Some(seen) = &mut self.seen
            && !seen.insert(key_of(board, dice, required))
        {
            return ControlFlow::Continue(());
        }
        if self.buffers.len() <= depth {
            self.buffers.push(Vec::with_capacity(64));
        }
        let mut moves = std::mem::take(&mut self.buffers[depth]);
        moves.clear();
        for piece in dice.kinds() {
            let _ = for_each_move(board, piece, dice, self.rules, |mv| {
                // Castling uses two dice, which a turn that needs one more cannot spend.
                if mv.cost() <= required {
                    moves.push(mv);
                }
                ControlFlow::<()>::Continue(())
            });
        }
        let mut flow = ControlFlow::Continue(());
        for &mv in &moves {
            if self.budget.tick() {
                flow = ControlFlow::Break(());
                break;
            }
            let king = mv.captures_king(board);
            let after = gain.plus(gain_of(board, mv, self.phase));
            let mut next = *board;
            next.play(mv);
            self.line.push(mv);
            let left = required - mv.cost();
            flow = if king || left == 0 {
                (self.visit)(Finished {
                    line: &self.line,
                    board: &next,
                    gain: after,
                    king,
                })
            } else {
                self.node(&next, mv.spend(dice), left, after)
            };
            self.line.pop();
            if flow.is_break() {
                break;
            }
        }
        self.buffers[depth] = moves;
        flow
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::dice::count_turns;

    fn unlimited() -> Budget {
        Budget::new(Instant::now() + Duration::from_secs(3600), u64::MAX)
    }

    /// The walk visits exactly the turns the rules count, from the start and from a
    /// middlegame, with every roll.
    #[test]
    fn the_walk_visits_every_complete_turn() {
        let rules = DiceRules::default();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
        ] {
            let (board, _) = DiceBoard::from_dfen(fen).expect("a position");
            for (dice, _) in DiceSet::all_rolls() {
                let turn = Turn::start(board, dice, &rules);
                let mut seen = 0u64;
                let mut budget = unlimited();
                let _ = for_each_turn(&turn, &rules, 24, &mut budget, false, &mut |_| {
                    seen += 1;
                    ControlFlow::Continue(())
                });
                let count = count_turns(&board, dice, &rules);
                let expected = if count.target == 0 { 0 } else { count.turns };
                assert_eq!(
                    seen,
                    expected,
                    "{fen} {}",
                    dice.letters(board.side_to_move())
                );
            }
        }
    }

    /// Merging transpositions visits each position a turn can reach and no other (the
    /// halfmove clock aside, which depends on the order).
    #[test]
    fn merged_walks_reach_the_same_positions() {
        let rules = DiceRules::default();
        let (board, _) = DiceBoard::from_dfen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .expect("a position");
        for (dice, _) in DiceSet::all_rolls() {
            let turn = Turn::start(board, dice, &rules);
            let reached = |merge: bool| {
                let mut boards = HashSet::new();
                let mut visits = 0;
                let _ = for_each_turn(&turn, &rules, 24, &mut unlimited(), merge, &mut |f| {
                    let mut board = *f.board;
                    board.halfmove = 0;
                    boards.insert((board, f.king));
                    visits += 1;
                    ControlFlow::Continue(())
                });
                (boards, visits)
            };
            let (all, every) = reached(false);
            let (merged, fewer) = reached(true);
            assert_eq!(all, merged);
            assert!(fewer <= every);
        }
    }

    #[test]
    fn gains_count_captures_promotions_and_squares() {
        let (board, _) =
            DiceBoard::from_dfen("3qk3/1P6/8/8/8/8/8/3QK3 w - - 0 1").expect("a position");
        let rules = DiceRules::default();
        let turn = Turn::start(
            board,
            DiceSet::from_faces(&[1, 5, 5]).expect("dice"),
            &rules,
        );
        let mut best = Gain::default();
        let _ = for_each_turn(&turn, &rules, 24, &mut unlimited(), true, &mut |f| {
            best = best.max(f.gain);
            ControlFlow::Continue(())
        });
        // Queen takes queen (900) and the pawn promotes to a queen (800) at best.
        assert_eq!(best.material, 1_700);
    }
}
