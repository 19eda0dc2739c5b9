//! The turn tree of Dice Chess: how many dice a turn must use (L*), which micro-moves may be
//! played at each step, and how many complete turns a roll allows.
//!
//! A turn is a sequence of micro-moves. It is complete when it has used L* dice, the most any
//! sequence from the turn's start can use (castling uses two), or when it captures the king,
//! which ends it at once whatever it used. L* counts every complete sequence, those that end
//! by capturing the king included. A micro-move is legal when it captures the king, or when
//! some continuation from it completes the turn: uses exactly the dice still required, or
//! captures the king on the way. Legality is always judged on the whole tree from the
//! current position, never by asking which first moves were legal.

use std::ops::ControlFlow;

use cozy_chess::{BitBoard, Piece};

use super::board::DiceBoard;
use super::movegen::{
    DiceRules, MicroMove, MoveKind, count_moves, count_moves_after, for_each_move, influence, reach,
};
use super::roll::DiceSet;

/// How a micro-move left the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More micro-moves are required.
    Continues,
    /// The turn has used the dice it had to.
    Complete,
    /// The enemy king was captured: the game is over.
    KingCaptured,
}

/// The number of complete turns a roll allows from a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnCount {
    /// L*: the most dice a turn can use (0 when no die is usable).
    pub target: u8,
    /// The distinct micro-move sequences that complete a turn: every sequence using L*
    /// dice, and every shorter one that ends by capturing the king. A forced pass (L* = 0)
    /// counts as one turn, the empty one.
    pub turns: u64,
}

/// Terminal sequences found in a walk of the tree, by the number of dice they used.
#[derive(Default)]
struct Tally {
    /// Sequences that stopped because no remaining die could be used.
    stuck: [u64; 4],
    /// Sequences that ended by capturing the king.
    king: [u64; 4],
}

impl Tally {
    fn add(slot: &mut [u64; 4], used: u8, n: u64) {
        if let Some(count) = slot.get_mut(usize::from(used)) {
            *count += n;
        }
    }
}

/// Counts every complete turn of the side to move with `dice`; see [`TurnCount`].
///
/// The walk makes the micro-moves of every die but the last, and counts the last die's
/// moves without making them; it allocates nothing.
pub fn count_turns(board: &DiceBoard, dice: DiceSet, rules: &DiceRules) -> TurnCount {
    let mut tally = Tally::default();
    walk(board, dice, 0, rules, &mut tally);
    let target = (0..4u8)
        .rev()
        .find(|&n| tally.stuck[usize::from(n)] + tally.king[usize::from(n)] > 0)
        .unwrap_or(0);
    let t = usize::from(target);
    let turns = tally.stuck[t] + tally.king[..=t].iter().sum::<u64>();
    TurnCount { target, turns }
}

/// Walks the tree below a position where `used` dice have been used and `dice` remain,
/// adding every terminal sequence to `tally`.
fn walk(board: &DiceBoard, dice: DiceSet, used: u8, rules: &DiceRules, tally: &mut Tally) {
    if dice.total() == 1 {
        // The last die: each of its moves ends a sequence (a king capture too, and with the
        // same length), so they are counted, not made.
        let piece = dice.kinds().next().unwrap_or(Piece::Pawn);
        let n = count_moves(board, piece);
        if n == 0 {
            Tally::add(&mut tally.stuck, used, 1);
        } else {
            Tally::add(&mut tally.stuck, used + 1, n);
        }
        return;
    }
    if dice.total() == 2 {
        walk_two(board, dice, used, rules, tally);
        return;
    }
    let mut any = false;
    for piece in dice.kinds() {
        let _ = for_each_move(board, piece, dice, rules, |mv| {
            any = true;
            let after_used = used + mv.cost();
            if mv.captures_king(board) {
                Tally::add(&mut tally.king, after_used, 1);
                return ControlFlow::<()>::Continue(());
            }
            let rest = mv.spend(dice);
            if rest.is_empty() {
                Tally::add(&mut tally.stuck, after_used, 1);
            } else {
                let mut next = *board;
                next.play(mv);
                walk(&next, rest, after_used, rules, tally);
            }
            ControlFlow::Continue(())
        });
    }
    if !any {
        Tally::add(&mut tally.stuck, used, 1);
    }
}

/// The walk below a position with two dice left, where every sequence ends within two
/// micro-moves: the second die's moves are counted, not made.
///
/// For each kind of the first die, the other die is the last. Its count before any move,
/// and the squares where a move could change it ([`influence`]), let every move of a piece
/// that stays clear of those squares be counted at once, by the bitboard of its targets;
/// only the moves that touch them are counted one by one.
fn walk_two(board: &DiceBoard, dice: DiceSet, used: u8, rules: &DiceRules, tally: &mut Tally) {
    let us = board.side_to_move();
    let own = board.colors(us);
    let occupied = board.occupied();
    let enemy_king = board.colored_pieces(!us, Piece::King);
    let mut any = false;
    for piece in dice.kinds() {
        let last = dice.without(piece).kinds().next().unwrap_or(piece);
        // Moving a piece of the last die's kind changes its count wherever it goes.
        let (base, region) = if last == piece {
            (0, BitBoard::FULL)
        } else {
            (count_moves(board, last), influence(board, last))
        };
        let leaves = |n: u64, tally: &mut Tally| match n {
            0 => Tally::add(&mut tally.stuck, used + 1, 1),
            n => Tally::add(&mut tally.stuck, used + 2, n),
        };
        let per_move = piece == Piece::Pawn || (piece == Piece::King && dice.has(Piece::Rook));
        if !per_move {
            for from in board.colored_pieces(us, piece) {
                let targets = reach(piece, from, occupied) - own;
                if targets.is_empty() {
                    continue;
                }
                any = true;
                let captures = targets & enemy_king;
                if !captures.is_empty() {
                    Tally::add(&mut tally.king, used + 1, 1);
                }
                let targets = targets - captures;
                let slow = if region.has(from) {
                    targets
                } else {
                    targets & region
                };
                let fast = u64::from((targets - slow).len());
                if fast > 0 {
                    match base {
                        0 => Tally::add(&mut tally.stuck, used + 1, fast),
                        n => Tally::add(&mut tally.stuck, used + 2, fast * n),
                    }
                }
                for to in slow {
                    let mv = MicroMove {
                        piece,
                        from,
                        to,
                        promotion: None,
                        kind: MoveKind::Normal,
                    };
                    leaves(count_moves_after(board, mv, last), tally);
                }
            }
            continue;
        }
        let _ = for_each_move(board, piece, dice, rules, |mv| {
            any = true;
            if mv.captures_king(board) {
                Tally::add(&mut tally.king, used + mv.cost(), 1);
            } else if mv.kind == MoveKind::Castle {
                // Castling uses both dice.
                Tally::add(&mut tally.stuck, used + 2, 1);
            } else {
                let untouched = mv.kind != MoveKind::EnPassant
                    && mv.promotion.is_none()
                    && (region & (mv.from.bitboard() | mv.to.bitboard())).is_empty();
                let n = if untouched {
                    base
                } else {
                    count_moves_after(board, mv, last)
                };
                leaves(n, tally);
            }
            ControlFlow::<()>::Continue(())
        });
    }
    if !any {
        Tally::add(&mut tally.stuck, used, 1);
    }
}

/// L*: the most dice the side to move can use with `dice`, counting a sequence that
/// captures the king up to the capture.
pub fn max_dice(board: &DiceBoard, dice: DiceSet, rules: &DiceRules) -> u8 {
    let limit = dice.total();
    let mut best = 0;
    for piece in dice.kinds() {
        let _ = for_each_move(board, piece, dice, rules, |mv| {
            let mut length = mv.cost();
            if !mv.captures_king(board) {
                let rest = mv.spend(dice);
                if !rest.is_empty() {
                    let mut next = *board;
                    next.play(mv);
                    length += max_dice(&next, rest, rules);
                }
            }
            best = best.max(length);
            // No sequence can use more dice than there are.
            if best == limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if best == limit {
            break;
        }
    }
    best
}

/// Whether some sequence from here completes a turn that still requires `required` dice:
/// uses exactly that many, or captures the king on the way.
fn completes(board: &DiceBoard, dice: DiceSet, required: u8, rules: &DiceRules) -> bool {
    if required == 0 {
        return true;
    }
    for piece in dice.kinds() {
        let found = for_each_move(board, piece, dice, rules, |mv| {
            if continues_legally(board, dice, required, mv, rules) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if found.is_break() {
            return true;
        }
    }
    false
}

/// Whether `mv`, one of the generated micro-moves, is legal in a turn that still requires
/// `required` dice.
fn continues_legally(
    board: &DiceBoard,
    dice: DiceSet,
    required: u8,
    mv: MicroMove,
    rules: &DiceRules,
) -> bool {
    if mv.captures_king(board) {
        return true;
    }
    let Some(rest_required) = required.checked_sub(mv.cost()) else {
        return false;
    };
    let mut next = *board;
    next.play(mv);
    completes(&next, mv.spend(dice), rest_required, rules)
}

/// Why a micro-move cannot be played now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MicroError {
    /// The side to move has no piece on the square the move starts from.
    NoPiece,
    /// No unused die names the piece (for castling: a king die and a rook die).
    NoDie {
        /// The piece type moved.
        piece: Piece,
    },
    /// The piece cannot move so, whatever the dice.
    NotAMove {
        /// The piece type on the start square.
        piece: Piece,
    },
    /// The move exists but does not complete the turn: a sequence through it uses at most
    /// `usable` of the dice still to use, where `required` are required and some sequence
    /// uses them all.
    TooShort {
        /// Dice the best sequence through this move would use from now on, this move's
        /// included.
        usable: u8,
        /// Dice the turn still requires.
        required: u8,
    },
}

/// A turn in progress: the position, the unused dice and how many more dice the turn must
/// use. The side to move is the board's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The position now.
    pub board: DiceBoard,
    /// The dice not used yet.
    pub dice: DiceSet,
    /// How many more dice the turn must use (L* less those used), unless it captures the
    /// king first.
    pub required: u8,
}

impl Turn {
    /// The turn that starts with `dice` rolled on `board`: it must use L* dice.
    pub fn start(board: DiceBoard, dice: DiceSet, rules: &DiceRules) -> Turn {
        let required = max_dice(&board, dice, rules);
        Turn {
            board,
            dice,
            required,
        }
    }

    /// Whether the turn is over (it has used the dice it had to; a forced pass at once).
    pub fn is_complete(&self) -> bool {
        self.required == 0
    }

    /// Calls `f` with every legal micro-move now, in the move generator's order.
    pub fn for_each_legal(&self, rules: &DiceRules, mut f: impl FnMut(MicroMove)) {
        if self.required == 0 {
            return;
        }
        for piece in self.dice.kinds() {
            let _ = for_each_move(&self.board, piece, self.dice, rules, |mv| {
                if continues_legally(&self.board, self.dice, self.required, mv, rules) {
                    f(mv);
                }
                ControlFlow::<()>::Continue(())
            });
        }
    }

    /// Every legal micro-move now.
    pub fn legal_moves(&self, rules: &DiceRules) -> Vec<MicroMove> {
        let mut moves = Vec::new();
        self.for_each_legal(rules, |mv| moves.push(mv));
        moves
    }

    /// The micro-move written `from`, `to`, `promotion`, if it is one the dice allow, or
    /// why not (before asking whether it completes the turn).
    pub fn find(
        &self,
        from: cozy_chess::Square,
        to: cozy_chess::Square,
        promotion: Option<Piece>,
        rules: &DiceRules,
    ) -> Result<MicroMove, MicroError> {
        let us = self.board.side_to_move();
        if !self.board.colors(us).has(from) {
            return Err(MicroError::NoPiece);
        }
        let piece = self.board.piece_on(from).unwrap_or(Piece::Pawn);
        // Ask as if every die were there, to tell a move the dice forbid from no move.
        let all = DiceSet::from_pieces(&[piece, Piece::Rook]);
        let mut found = None;
        let _ = for_each_move(&self.board, piece, all, rules, |mv| {
            if mv.from == from && mv.to == to && mv.promotion == promotion {
                found = Some(mv);
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        let mv = found.ok_or(MicroError::NotAMove { piece })?;
        let needs_rook = mv.kind == super::movegen::MoveKind::Castle;
        if !self.dice.has(piece) || (needs_rook && !self.dice.has(Piece::Rook)) {
            return Err(MicroError::NoDie { piece });
        }
        Ok(mv)
    }

    /// Checks a micro-move found by [`find`](Turn::find) against the turn tree.
    pub fn check(&self, mv: MicroMove, rules: &DiceRules) -> Result<(), MicroError> {
        if continues_legally(&self.board, self.dice, self.required, mv, rules) {
            return Ok(());
        }
        let mut next = self.board;
        next.play(mv);
        let rest = mv.spend(self.dice);
        Err(MicroError::TooShort {
            usable: mv.cost() + max_dice(&next, rest, rules),
            required: self.required,
        })
    }

    /// Plays a legal micro-move (see [`check`](Turn::check)); the side to move stays the
    /// same, and ending the turn is the caller's business once this says it is complete.
    pub fn play(&mut self, mv: MicroMove) -> Step {
        let king = mv.captures_king(&self.board);
        self.board.play(mv);
        self.dice = mv.spend(self.dice);
        self.required = self.required.saturating_sub(mv.cost());
        if king {
            self.required = 0;
            Step::KingCaptured
        } else if self.required == 0 {
            Step::Complete
        } else {
            Step::Continues
        }
    }
}
