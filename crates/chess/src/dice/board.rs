//! A Dice Chess position on cozy-chess's bitboards.
//!
//! Dice Chess positions are not orthodox positions: a king may stand in attack on the side
//! not to move, a king can be captured, and several en-passant targets can stand at once, so
//! cozy-chess's `Board`, which rejects such positions, cannot hold them. This board keeps the
//! pieces as bitboards, and the en-passant targets in two sets: those the side to move may
//! capture onto this turn, and those its own double pushes of this turn create for the
//! opponent's next turn.

use cozy_chess::{BitBoard, Color, File, Piece, Rank, Square};

use super::movegen::{MicroMove, MoveKind};

/// Castling rights of one side: the king may still castle with the rook of that wing.
const SHORT: u8 = 1;
const LONG: u8 = 2;

/// A Dice Chess position: the pieces, the side whose turn it is (also between its
/// micro-moves), castling rights, en-passant targets and the clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiceBoard {
    pub(crate) pieces: [BitBoard; Piece::NUM],
    pub(crate) colors: [BitBoard; Color::NUM],
    pub(crate) side: Color,
    pub(crate) castling: [u8; Color::NUM],
    pub(crate) ep_targets: BitBoard,
    pub(crate) pushed: BitBoard,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u16,
}

impl Default for DiceBoard {
    fn default() -> Self {
        DiceBoard::startpos()
    }
}

impl DiceBoard {
    /// The usual start position, White to move.
    pub fn startpos() -> DiceBoard {
        let mut board = DiceBoard::empty();
        let back = [
            Piece::Rook,
            Piece::Knight,
            Piece::Bishop,
            Piece::Queen,
            Piece::King,
            Piece::Bishop,
            Piece::Knight,
            Piece::Rook,
        ];
        for (file, piece) in File::ALL.into_iter().zip(back) {
            board.put(Square::new(file, Rank::First), piece, Color::White);
            board.put(Square::new(file, Rank::Second), Piece::Pawn, Color::White);
            board.put(Square::new(file, Rank::Seventh), Piece::Pawn, Color::Black);
            board.put(Square::new(file, Rank::Eighth), piece, Color::Black);
        }
        board.castling = [SHORT | LONG; Color::NUM];
        board
    }

    /// An empty board, White to move, no rights, clocks at 0 and 1.
    pub fn empty() -> DiceBoard {
        DiceBoard {
            pieces: [BitBoard::EMPTY; Piece::NUM],
            colors: [BitBoard::EMPTY; Color::NUM],
            side: Color::White,
            castling: [0; Color::NUM],
            ep_targets: BitBoard::EMPTY,
            pushed: BitBoard::EMPTY,
            halfmove: 0,
            fullmove: 1,
        }
    }

    /// Every piece of type `piece`, of either colour.
    #[inline(always)]
    pub fn pieces(&self, piece: Piece) -> BitBoard {
        self.pieces[piece as usize]
    }

    /// Every piece of `color`.
    #[inline(always)]
    pub fn colors(&self, color: Color) -> BitBoard {
        self.colors[color as usize]
    }

    /// The pieces of type `piece` and colour `color`.
    #[inline(always)]
    pub fn colored_pieces(&self, color: Color, piece: Piece) -> BitBoard {
        self.pieces[piece as usize] & self.colors[color as usize]
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> BitBoard {
        self.colors[0] | self.colors[1]
    }

    /// The side whose turn it is.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `square`, if any.
    pub fn piece_on(&self, square: Square) -> Option<Piece> {
        Piece::ALL
            .into_iter()
            .find(|&p| self.pieces[p as usize].has(square))
    }

    /// The colour of the piece on `square`, if any.
    pub fn color_on(&self, square: Square) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&c| self.colors[c as usize].has(square))
    }

    /// The square of `color`'s king, `None` once it has been captured.
    pub fn king(&self, color: Color) -> Option<Square> {
        self.colored_pieces(color, Piece::King).next_square()
    }

    /// Whether `color` may still castle on the king's wing (with the h-file rook).
    pub fn can_castle_short(&self, color: Color) -> bool {
        self.castling[color as usize] & SHORT != 0
    }

    /// Whether `color` may still castle on the queen's wing (with the a-file rook).
    pub fn can_castle_long(&self, color: Color) -> bool {
        self.castling[color as usize] & LONG != 0
    }

    /// The squares the side to move may capture onto en passant this turn: one behind each
    /// pawn the opponent pushed two squares in its last turn that still stands where the
    /// push left it.
    pub fn ep_targets(&self) -> BitBoard {
        self.ep_targets
    }

    /// The squares the side to move's own double pushes of this turn passed over, which
    /// become the opponent's en-passant targets when the turn ends.
    pub fn pushed(&self) -> BitBoard {
        self.pushed
    }

    /// Micro-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    /// The move number, which grows after each of Black's turns.
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// Puts a piece on an empty square (for building positions).
    pub(crate) fn put(&mut self, square: Square, piece: Piece, color: Color) {
        self.pieces[piece as usize] |= square.bitboard();
        self.colors[color as usize] |= square.bitboard();
    }

    /// Removes whatever stands on `square`.
    fn clear(&mut self, square: Square) {
        let mask = !square.bitboard();
        for bb in &mut self.pieces {
            *bb &= mask;
        }
        for bb in &mut self.colors {
            *bb &= mask;
        }
    }

    /// Grants or removes a castling right (for building positions).
    pub(crate) fn set_castling(&mut self, color: Color, short: bool, long: bool) {
        self.castling[color as usize] = if short { SHORT } else { 0 } | if long { LONG } else { 0 };
    }

    /// Whether `square` is attacked by a piece of `by`, by the ordinary moves of chess
    /// (whatever the dice say): what castling checks when castling may not pass through
    /// attack.
    pub fn attacked(&self, square: Square, by: Color) -> bool {
        let them = self.colors(by);
        let occupied = self.occupied();
        let diagonal = self.pieces(Piece::Bishop) | self.pieces(Piece::Queen);
        let straight = self.pieces(Piece::Rook) | self.pieces(Piece::Queen);
        !(them
            & ((cozy_chess::get_knight_moves(square) & self.pieces(Piece::Knight))
                | (cozy_chess::get_king_moves(square) & self.pieces(Piece::King))
                | (cozy_chess::get_pawn_attacks(square, !by) & self.pieces(Piece::Pawn))
                | (cozy_chess::get_bishop_moves(square, occupied) & diagonal)
                | (cozy_chess::get_rook_moves(square, occupied) & straight)))
            .is_empty()
    }

    /// Plays a micro-move the move generator produced for this position; the side to move
    /// stays the same until [`end_turn`](DiceBoard::end_turn). Returns the captured piece.
    pub fn play(&mut self, mv: MicroMove) -> Option<Piece> {
        let us = self.side;
        let them = !us;
        let back = Rank::First.relative_to(us);
        if mv.kind == MoveKind::Castle {
            let short = mv.to.file() > mv.from.file();
            let (rook_from, rook_to) = if short {
                (File::H, File::F)
            } else {
                (File::A, File::D)
            };
            self.clear(mv.from);
            self.clear(Square::new(rook_from, back));
            self.put(mv.to, Piece::King, us);
            self.put(Square::new(rook_to, back), Piece::Rook, us);
            self.castling[us as usize] = 0;
            self.halfmove = self.halfmove.saturating_add(1);
            return None;
        }
        let from = mv.from.bitboard();
        let to = mv.to.bitboard();
        let captured = if mv.kind == MoveKind::EnPassant {
            let victim = Square::new(mv.to.file(), mv.from.rank()).bitboard();
            self.pieces[Piece::Pawn as usize] ^= victim;
            self.colors[them as usize] ^= victim;
            self.ep_targets &= !to;
            Some(Piece::Pawn)
        } else if self.colors[them as usize].has(mv.to) {
            let victim = Piece::ALL
                .into_iter()
                .find(|&p| self.pieces[p as usize].has(mv.to));
            if let Some(victim) = victim {
                self.pieces[victim as usize] ^= to;
                self.colors[them as usize] ^= to;
                self.forget_captured(victim, mv.to, them);
            }
            victim
        } else {
            None
        };
        // The pieces of one kind are moved by toggling bits: the start square is the mover's
        // and the target square is empty by now.
        self.pieces[mv.piece as usize] ^= from;
        self.pieces[mv.promotion.unwrap_or(mv.piece) as usize] ^= to;
        self.colors[us as usize] ^= from | to;
        match mv.piece {
            Piece::Pawn => {
                // A pawn that moves on from where its double push of this turn left it no
                // longer gives the opponent an en-passant target.
                if mv.from.rank() == Rank::Fourth.relative_to(us) {
                    self.pushed &=
                        !Square::new(mv.from.file(), Rank::Third.relative_to(us)).bitboard();
                }
                if mv.kind == MoveKind::DoublePush {
                    self.pushed |=
                        Square::new(mv.from.file(), Rank::Third.relative_to(us)).bitboard();
                }
            }
            Piece::King => self.castling[us as usize] = 0,
            Piece::Rook if mv.from == Square::new(File::H, back) => {
                self.castling[us as usize] &= !SHORT;
            }
            Piece::Rook if mv.from == Square::new(File::A, back) => {
                self.castling[us as usize] &= !LONG;
            }
            _ => {}
        }
        if mv.piece == Piece::Pawn || captured.is_some() {
            self.halfmove = 0;
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
        }
        captured
    }

    /// What a capture of `victim` (of colour `them`) on `square` takes away besides the
    /// piece: a rook's castling right, a king's (the capture ends the game, and the final
    /// position keeps no right without its king), a pawn's en-passant target.
    fn forget_captured(&mut self, victim: Piece, square: Square, them: Color) {
        let their_back = Rank::First.relative_to(them);
        match victim {
            Piece::King => self.castling[them as usize] = 0,
            Piece::Rook if square == Square::new(File::H, their_back) => {
                self.castling[them as usize] &= !SHORT;
            }
            Piece::Rook if square == Square::new(File::A, their_back) => {
                self.castling[them as usize] &= !LONG;
            }
            Piece::Pawn if square.rank() == Rank::Fourth.relative_to(them) => {
                self.ep_targets &=
                    !Square::new(square.file(), Rank::Third.relative_to(them)).bitboard();
            }
            _ => {}
        }
    }

    /// Ends the turn: the other side moves, the en-passant targets not taken expire, and the
    /// double pushes of this turn become the opponent's targets; the move number grows after
    /// Black's turn. A forced pass ends a turn too.
    pub fn end_turn(&mut self) {
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = !self.side;
        self.ep_targets = self.pushed;
        self.pushed = BitBoard::EMPTY;
    }
}
