//! Dice Chess micro-moves: the pseudo-legal moves of one piece type, as a die allows them.
//!
//! There is no check in Dice Chess, so every ordinary chess move of a piece is a micro-move,
//! kings included, and a move onto the enemy king captures it. Castling is one micro-move
//! that needs a king die and a rook die.

use std::fmt;
use std::ops::ControlFlow;

use cozy_chess::{
    BitBoard, Color, File, Piece, Rank, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_pawn_attacks, get_pawn_quiets, get_rook_moves,
};

use super::board::DiceBoard;
use super::roll::DiceSet;

/// The options of Dice Chess that change which micro-moves exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiceRules {
    /// Whether castling may start from, pass through and land on attacked squares (the
    /// dicechess.com rule, and the default); when false, classical conditions apply.
    pub castle_through_attack: bool,
}

impl Default for DiceRules {
    fn default() -> Self {
        DiceRules {
            castle_through_attack: true,
        }
    }
}

/// What kind of micro-move it is, beyond its squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A move or capture that needs nothing more.
    Normal,
    /// A pawn's two-square advance, which gives the opponent an en-passant target.
    DoublePush,
    /// A pawn capture en passant.
    EnPassant,
    /// Castling: the king's two-square move, with the rook jumping over it; it uses a king
    /// die and a rook die.
    Castle,
}

/// One micro-move: a piece of the side to move goes from one square to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MicroMove {
    /// The piece type moved (and the die it uses; castling uses a rook die as well).
    pub piece: Piece,
    /// Where it starts.
    pub from: Square,
    /// Where it ends (for castling, the king's square).
    pub to: Square,
    /// The piece a pawn promotes to on the last rank.
    pub promotion: Option<Piece>,
    /// Castling, en passant, a double push, or none of these.
    pub kind: MoveKind,
}

impl MicroMove {
    /// How many dice it uses: two for castling, one otherwise.
    #[inline(always)]
    pub fn cost(&self) -> u8 {
        if self.kind == MoveKind::Castle { 2 } else { 1 }
    }

    /// The dice left after it.
    #[inline(always)]
    pub fn spend(&self, dice: DiceSet) -> DiceSet {
        let dice = dice.without(self.piece);
        if self.kind == MoveKind::Castle {
            dice.without(Piece::Rook)
        } else {
            dice
        }
    }

    /// Whether it captures the enemy king on `board` (which ends the game).
    #[inline(always)]
    pub fn captures_king(&self, board: &DiceBoard) -> bool {
        board
            .colored_pieces(!board.side_to_move(), Piece::King)
            .has(self.to)
    }
}

/// UCI long algebraic notation: `e2e4`, `e7e8q`, castling as the king's move (`e1g1`).
impl fmt::Display for MicroMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(promotion) = self.promotion {
            write!(f, "{}", char::from(promotion))?;
        }
        Ok(())
    }
}

/// The pieces a pawn may promote to, in the order moves list them.
pub const PROMOTIONS: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

/// The squares a piece of type `piece` on `from` attacks or moves to, ignoring its own
/// side's pieces (not for pawns).
#[inline(always)]
pub(crate) fn reach(piece: Piece, from: Square, occupied: BitBoard) -> BitBoard {
    match piece {
        Piece::Knight => get_knight_moves(from),
        Piece::Bishop => get_bishop_moves(from, occupied),
        Piece::Rook => get_rook_moves(from, occupied),
        Piece::Queen => get_bishop_moves(from, occupied) | get_rook_moves(from, occupied),
        Piece::King => get_king_moves(from),
        Piece::Pawn => BitBoard::EMPTY,
    }
}

/// The squares a pawn of `us` on `from` may move to, double pushes and en-passant captures
/// included.
#[inline(always)]
fn pawn_targets(board: &DiceBoard, from: Square, us: Color) -> BitBoard {
    let occupied = board.occupied();
    let captures =
        get_pawn_attacks(from, us) & (board.colors(!us) | (board.ep_targets & !occupied));
    get_pawn_quiets(from, us, occupied) | captures
}

/// Calls `f` with every micro-move of a piece of type `piece` for the side to move, castling
/// (under the king) only when `dice` also hold a rook die; stops early when `f` breaks.
#[inline(always)]
pub fn for_each_move<B>(
    board: &DiceBoard,
    piece: Piece,
    dice: DiceSet,
    rules: &DiceRules,
    mut f: impl FnMut(MicroMove) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let us = board.side_to_move();
    let own = board.colors(us);
    let occupied = board.occupied();
    if piece == Piece::Pawn {
        let last = Rank::Eighth.relative_to(us);
        let start = Rank::Second.relative_to(us);
        for from in board.colored_pieces(us, Piece::Pawn) {
            for to in pawn_targets(board, from, us) {
                if to.rank() == last {
                    for promotion in PROMOTIONS {
                        f(MicroMove {
                            piece,
                            from,
                            to,
                            promotion: Some(promotion),
                            kind: MoveKind::Normal,
                        })?;
                    }
                    continue;
                }
                let kind = if from.file() != to.file() && !occupied.has(to) {
                    MoveKind::EnPassant
                } else if from.rank() == start && to.rank() == Rank::Fourth.relative_to(us) {
                    MoveKind::DoublePush
                } else {
                    MoveKind::Normal
                };
                f(MicroMove {
                    piece,
                    from,
                    to,
                    promotion: None,
                    kind,
                })?;
            }
        }
        return ControlFlow::Continue(());
    }
    for from in board.colored_pieces(us, piece) {
        for to in reach(piece, from, occupied) & !own {
            f(MicroMove {
                piece,
                from,
                to,
                promotion: None,
                kind: MoveKind::Normal,
            })?;
        }
    }
    if piece == Piece::King && dice.has(Piece::Rook) {
        for mv in castles(board, rules).into_iter().flatten() {
            f(mv)?;
        }
    }
    ControlFlow::Continue(())
}

/// The castling micro-moves open to the side to move, short then long.
fn castles(board: &DiceBoard, rules: &DiceRules) -> [Option<MicroMove>; 2] {
    let us = board.side_to_move();
    let back = Rank::First.relative_to(us);
    let king = Square::new(File::E, back);
    if !board.colored_pieces(us, Piece::King).has(king) {
        return [None, None];
    }
    let occupied = board.occupied();
    let castle = |allowed: bool, rook: File, empty: &[File], king_path: [File; 3], to: File| {
        let rook_square = Square::new(rook, back);
        let clear = empty
            .iter()
            .all(|&file| !occupied.has(Square::new(file, back)));
        let safe = rules.castle_through_attack
            || king_path
                .iter()
                .all(|&file| !board.attacked(Square::new(file, back), !us));
        (allowed && board.colored_pieces(us, Piece::Rook).has(rook_square) && clear && safe).then(
            || MicroMove {
                piece: Piece::King,
                from: king,
                to: Square::new(to, back),
                promotion: None,
                kind: MoveKind::Castle,
            },
        )
    };
    [
        castle(
            board.can_castle_short(us),
            File::H,
            &[File::F, File::G],
            [File::E, File::F, File::G],
            File::G,
        ),
        castle(
            board.can_castle_long(us),
            File::A,
            &[File::B, File::C, File::D],
            [File::E, File::D, File::C],
            File::C,
        ),
    ]
}

/// How many micro-moves a single die naming `piece` allows, counted without making them
/// (castling, which needs two dice, is not among them): the last level of a turn count.
#[inline(always)]
pub fn count_moves(board: &DiceBoard, piece: Piece) -> u64 {
    let us = board.side_to_move();
    count_from(
        piece,
        us,
        board.colored_pieces(us, piece),
        board.colors(us),
        board.colors(!us),
        board.ep_targets,
    )
}

/// How many micro-moves a single die naming `piece` would allow after `mv`, counted from the
/// few bitboards `mv` changes without making it on a copy of the board.
#[inline(always)]
pub fn count_moves_after(board: &DiceBoard, mv: MicroMove, piece: Piece) -> u64 {
    let us = board.side_to_move();
    let them = !us;
    let from = mv.from.bitboard();
    let to = mv.to.bitboard();
    let own = (board.colors(us) ^ from) | to;
    let mut enemy = board.colors(them) - to;
    let mut ep = board.ep_targets;
    if mv.kind == MoveKind::EnPassant {
        enemy -= Square::new(mv.to.file(), mv.from.rank()).bitboard();
        ep -= to;
    } else if (enemy ^ board.colors(them)).has(mv.to)
        && board.pieces(Piece::Pawn).has(mv.to)
        && mv.to.rank() == Rank::Fourth.relative_to(them)
    {
        // The captured pawn's en-passant target goes with it.
        ep -= Square::new(mv.to.file(), Rank::Third.relative_to(them)).bitboard();
    }
    let mut mine = board.colored_pieces(us, piece);
    if mv.piece == piece {
        mine ^= from;
    }
    if mv.promotion.unwrap_or(mv.piece) == piece {
        mine |= to;
    }
    count_from(piece, us, mine, own, enemy, ep)
}

/// The squares where a plain move of a piece of another kind (no capture en passant, no
/// castling, no promotion) could change how many micro-moves pieces of type `piece` have:
/// the squares those pieces reach or attack, and for pawns also the squares ahead, the
/// en-passant targets and the pawns that passed over them. A move whose start and target
/// squares both lie outside leaves the count as it was.
pub(crate) fn influence(board: &DiceBoard, piece: Piece) -> BitBoard {
    let us = board.side_to_move();
    let mine = board.colored_pieces(us, piece);
    let occupied = board.occupied();
    let mut region = BitBoard::EMPTY;
    if piece == Piece::Pawn {
        for from in mine {
            // The square ahead, and from the start rank the one beyond it too.
            region |= get_pawn_attacks(from, us) | get_pawn_quiets(from, us, BitBoard::EMPTY);
        }
        for target in board.ep_targets {
            region |= target.bitboard();
            region |= Square::new(target.file(), Rank::Fourth.relative_to(!us)).bitboard();
        }
    } else {
        for from in mine {
            region |= reach(piece, from, occupied);
        }
    }
    region
}

/// The micro-moves of `pieces` (all of type `piece`, of side `us`) among `own` and `enemy`
/// pieces, with en-passant targets `ep`.
#[inline(always)]
fn count_from(
    piece: Piece,
    us: Color,
    pieces: BitBoard,
    own: BitBoard,
    enemy: BitBoard,
    ep: BitBoard,
) -> u64 {
    if pieces.is_empty() {
        return 0;
    }
    let occupied = own | enemy;
    match piece {
        Piece::Pawn => {
            let pawns = pieces;
            let empty = !occupied;
            let last = Rank::Eighth.relative_to(us).bitboard();
            let (single, double, left, right) = match us {
                Color::White => {
                    let single = (pawns.0 << 8) & empty.0;
                    let double = ((single & Rank::Third.bitboard().0) << 8) & empty.0;
                    let left = ((pawns.0 & !File::A.bitboard().0) << 7) & enemy.0;
                    let right = ((pawns.0 & !File::H.bitboard().0) << 9) & enemy.0;
                    (single, double, left, right)
                }
                Color::Black => {
                    let single = (pawns.0 >> 8) & empty.0;
                    let double = ((single & Rank::Sixth.bitboard().0) >> 8) & empty.0;
                    let left = ((pawns.0 & !File::A.bitboard().0) >> 9) & enemy.0;
                    let right = ((pawns.0 & !File::H.bitboard().0) >> 7) & enemy.0;
                    (single, double, left, right)
                }
            };
            let promoting = |bb: u64| u64::from((bb & last.0).count_ones());
            let plain = |bb: u64| u64::from((bb & !last.0).count_ones());
            let mut total = u64::from(double.count_ones());
            for bb in [single, left, right] {
                total += plain(bb) + 4 * promoting(bb);
            }
            for target in ep & empty {
                total += u64::from((get_pawn_attacks(target, !us) & pawns).len());
            }
            total
        }
        _ => pieces
            .into_iter()
            .map(|from| u64::from((reach(piece, from, occupied) & !own).len()))
            .sum(),
    }
}
