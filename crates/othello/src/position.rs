//! A position of any variant: discs, side to move and discs placed, with validated moves.
//!
//! Boards of both sizes live in a `u128` (bit = square index); 8x8 positions use the low 64
//! bits. This is the convenient, checked API for the game state; perft and search use the
//! kernels directly.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::variant::{CENTRE_8X8, REVERSI_DISCS_PER_COLOUR};
use crate::{Move, Variant, kernel8, kernel10};

/// A disc colour; Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Color {
    /// Black, written 1.
    Black,
    /// White, written 2.
    White,
}

impl Color {
    /// The other colour.
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// FlipSight's number: 1 for Black, 2 for White.
    pub fn number(self) -> u8 {
        match self {
            Color::Black => 1,
            Color::White => 2,
        }
    }

    /// 0 for Black, 1 for White: the index into per-colour arrays.
    pub fn index(self) -> usize {
        usize::from(self.number() - 1)
    }

    /// The colour's name.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl From<Color> for u8 {
    fn from(color: Color) -> u8 {
        color.number()
    }
}

impl TryFrom<u8> for Color {
    type Error = String;

    fn try_from(n: u8) -> Result<Self, Self::Error> {
        match n {
            1 => Ok(Color::Black),
            2 => Ok(Color::White),
            _ => Err(format!("colour {n} is neither 1 (black) nor 2 (white)")),
        }
    }
}

/// Why a move is not legal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The index is not on the board.
    #[error("square {0} is outside the board")]
    OutsideBoard(u8),
    /// The square is one of the octagon's blocked squares.
    #[error("{0} is a blocked square")]
    Blocked(String),
    /// The square already holds a disc.
    #[error("{0} is already occupied")]
    Occupied(String),
    /// Classic Reversi: a centre square is still empty.
    #[error("{0} is not allowed: the four centre squares must be filled first")]
    CentreFirst(String),
    /// Classic Reversi: the colour has placed its 32 discs.
    #[error("{0} has placed all {REVERSI_DISCS_PER_COLOUR} discs and must pass")]
    NoDiscsLeft(&'static str),
    /// The disc would flip nothing.
    #[error("{0} flips no disc")]
    NoFlips(String),
    /// A pass while a placement is legal.
    #[error("pass is only legal when no move is")]
    PassWithMoves,
}

/// A position: the discs, the side to move and how many discs each colour has placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    variant: Variant,
    discs: [u128; 2],
    to_move: Color,
    placed: [u16; 2],
}

impl Position {
    /// The variant's start position: the four centre discs (White on d4/e5, Black on e4/d5 on
    /// 8x8; White e5/f6, Black f5/e6 on 10x10), or the empty board for classic Reversi.
    pub fn start(variant: Variant) -> Position {
        let size = u32::from(variant.size());
        let h = size / 2;
        let at = |row: u32, col: u32| 1u128 << (row * size + col);
        let (black, white) = if variant.is_reversi() {
            (0, 0)
        } else {
            (at(h, h - 1) | at(h - 1, h), at(h, h) | at(h - 1, h - 1))
        };
        Position {
            variant,
            discs: [black, white],
            to_move: Color::Black,
            placed: [0, 0],
        }
    }

    /// A position from its parts; `None` if discs overlap, sit off the board or on blocked
    /// squares, or a count is impossible.
    pub fn from_parts(
        variant: Variant,
        black: u128,
        white: u128,
        to_move: Color,
        placed: [u16; 2],
    ) -> Option<Position> {
        let playable = variant.playable_mask();
        let fits = black & white == 0 && (black | white) & !playable == 0;
        let counts_fit = placed
            .iter()
            .all(|&n| u32::from(n) <= variant.playable_squares());
        (fits && counts_fit).then_some(Position {
            variant,
            discs: [black, white],
            to_move,
            placed,
        })
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The colour to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// The discs of one colour as a bit mask.
    pub fn discs_of(&self, color: Color) -> u128 {
        self.discs[color.index()]
    }

    /// The discs of the side to move and of its opponent.
    pub fn sides(&self) -> (u128, u128) {
        (
            self.discs[self.to_move.index()],
            self.discs[self.to_move.other().index()],
        )
    }

    /// Discs placed by the side to move and by its opponent.
    pub fn placed_by_sides(&self) -> [u16; 2] {
        [
            self.placed[self.to_move.index()],
            self.placed[self.to_move.other().index()],
        ]
    }

    /// Disc counts, Black then White.
    pub fn disc_counts(&self) -> [u32; 2] {
        [self.discs[0].count_ones(), self.discs[1].count_ones()]
    }

    /// Discs placed so far, Black then White (Reversi's 32-disc rule counts these).
    pub fn placed(&self) -> [u16; 2] {
        self.placed
    }

    /// The board as FlipSight writes it: one cell per square, 0 empty (or blocked), 1 black,
    /// 2 white.
    pub fn cells(&self) -> Vec<u8> {
        (0..self.variant.squares())
            .map(|sq| {
                let bit = 1u128 << sq;
                if self.discs[0] & bit != 0 {
                    1
                } else if self.discs[1] & bit != 0 {
                    2
                } else {
                    0
                }
            })
            .collect()
    }

    fn centre_left(&self) -> u128 {
        if !self.variant.is_reversi() {
            return 0;
        }
        let centre = CENTRE_8X8.iter().fold(0u128, |m, &sq| m | 1 << sq);
        centre & !(self.discs[0] | self.discs[1])
    }

    /// The squares `color` could play if it were to move (empty when it must pass).
    pub fn moves_for(&self, color: Color) -> u128 {
        let centre = self.centre_left();
        if centre != 0 {
            return centre;
        }
        if self.variant.is_reversi() && self.placed[color.index()] >= REVERSI_DISCS_PER_COLOUR {
            return 0;
        }
        let (p, o) = (self.discs[color.index()], self.discs[color.other().index()]);
        if self.variant.size() == 8 {
            u128::from(kernel8::moves(p as u64, o as u64))
        } else {
            kernel10::moves(p, o, self.variant.playable_mask() & !(p | o))
        }
    }

    /// The legal placements of the side to move as a bit mask (empty: it must pass).
    pub fn legal_moves(&self) -> u128 {
        self.moves_for(self.to_move)
    }

    /// The legal moves of the side to move as a list: the placements in square order, or
    /// only a pass when there is none.
    pub fn legal_move_list(&self) -> Vec<Move> {
        let moves = self.legal_moves();
        if moves == 0 {
            return vec![Move::Pass];
        }
        (0..self.variant.squares())
            .filter(|&sq| moves >> sq & 1 != 0)
            .map(Move::Place)
            .collect()
    }

    /// Whether neither colour can place a disc: the game is over.
    pub fn is_over(&self) -> bool {
        self.moves_for(Color::Black) == 0 && self.moves_for(Color::White) == 0
    }

    fn name(&self, sq: u8) -> String {
        Move::Place(sq).name(self.variant.size())
    }

    /// Checks a move for the side to move and returns the discs it would flip.
    pub fn check(&self, mv: Move) -> Result<u128, IllegalMove> {
        let legal = self.legal_moves();
        let sq = match mv {
            Move::Pass if legal == 0 => return Ok(0),
            Move::Pass => return Err(IllegalMove::PassWithMoves),
            Move::Place(sq) => sq,
        };
        if sq >= self.variant.squares() {
            return Err(IllegalMove::OutsideBoard(sq));
        }
        let bit = 1u128 << sq;
        if self.variant.blocked_mask() & bit != 0 {
            return Err(IllegalMove::Blocked(self.name(sq)));
        }
        if (self.discs[0] | self.discs[1]) & bit != 0 {
            return Err(IllegalMove::Occupied(self.name(sq)));
        }
        if self.centre_left() != 0 {
            return if legal & bit != 0 {
                Ok(0)
            } else {
                Err(IllegalMove::CentreFirst(self.name(sq)))
            };
        }
        if legal == 0 && self.variant.is_reversi() {
            return Err(IllegalMove::NoDiscsLeft(self.to_move.name()));
        }
        if legal & bit == 0 {
            return Err(IllegalMove::NoFlips(self.name(sq)));
        }
        let (p, o) = (
            self.discs[self.to_move.index()],
            self.discs[self.to_move.other().index()],
        );
        Ok(if self.variant.size() == 8 {
            u128::from(kernel8::flips(p as u64, o as u64, u32::from(sq)))
        } else {
            kernel10::flips(p, o, u32::from(sq))
        })
    }

    /// Plays a move for the side to move, or refuses it and changes nothing. Returns the
    /// flipped discs.
    pub fn play(&mut self, mv: Move) -> Result<u128, IllegalMove> {
        let flipped = self.check(mv)?;
        if let Move::Place(sq) = mv {
            let (me, them) = (self.to_move.index(), self.to_move.other().index());
            self.discs[me] |= flipped | 1 << sq;
            self.discs[them] &= !flipped;
            self.placed[me] += 1;
        }
        self.to_move = self.to_move.other();
        Ok(flipped)
    }
}

impl fmt::Display for Position {
    /// A grid with `X` for Black, `O` for White, `.` empty, `#` blocked, and the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.variant.size();
        let blocked = self.variant.blocked_mask();
        for row in 0..size {
            for col in 0..size {
                let bit = 1u128 << (row * size + col);
                let c = if self.discs[0] & bit != 0 {
                    'X'
                } else if self.discs[1] & bit != 0 {
                    'O'
                } else if blocked & bit != 0 {
                    '#'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.to_move.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(mask: u128) -> Vec<u8> {
        (0..100).filter(|&sq| mask >> sq & 1 != 0).collect()
    }

    #[test]
    fn start_positions() {
        let std = Position::start(Variant::Std);
        assert_eq!(std.cells()[27..=28], [2, 1]);
        assert_eq!(std.cells()[35..=36], [1, 2]);
        assert_eq!(squares(std.legal_moves()), vec![19, 26, 37, 44]);
        let grand = Position::start(Variant::Grand);
        assert_eq!(squares(grand.discs_of(Color::Black)), vec![45, 54]);
        assert_eq!(squares(grand.discs_of(Color::White)), vec![44, 55]);
        assert_eq!(
            squares(Position::start(Variant::Reversi).legal_moves()),
            vec![27, 28, 35, 36]
        );
    }

    #[test]
    fn illegal_moves_are_named_and_change_nothing() {
        let mut reversi = Position::start(Variant::Reversi);
        reversi.play(Move::Place(27)).expect("centre placement");
        let std = Position::start(Variant::Std);
        let octagon = Position::start(Variant::Octagon);
        let cases: [(&Position, Move, IllegalMove); 7] = [
            (&std, Move::Place(27), IllegalMove::Occupied("d4".into())),
            (&std, Move::Place(0), IllegalMove::NoFlips("a1".into())),
            (&std, Move::Pass, IllegalMove::PassWithMoves),
            (&std, Move::Place(64), IllegalMove::OutsideBoard(64)),
            (&octagon, Move::Place(9), IllegalMove::Blocked("j1".into())),
            (
                &reversi,
                Move::Place(19),
                IllegalMove::CentreFirst("d3".into()),
            ),
            (
                &reversi,
                Move::Place(27),
                IllegalMove::Occupied("d4".into()),
            ),
        ];
        for (position, mv, expected) in cases {
            let mut copy = *position;
            assert_eq!(copy.play(mv), Err(expected));
            assert_eq!(copy, *position);
        }
    }

    #[test]
    fn reversi_placement_then_normal_play_and_the_disc_limit() {
        let mut position = Position::start(Variant::Reversi);
        for sq in [27, 36, 28, 35] {
            assert_eq!(
                position.play(Move::Place(sq)),
                Ok(0),
                "placements flip nothing"
            );
        }
        assert_eq!(position.placed(), [2, 2]);
        assert_eq!(position.disc_counts(), [2, 2]);
        assert_ne!(position.legal_moves(), 0, "normal play follows");

        let full = Position::from_parts(
            Variant::Reversi,
            1 << 28 | 1 << 35,
            1 << 27 | 1 << 36,
            Color::Black,
            [32, 10],
        )
        .expect("valid parts");
        assert_eq!(full.legal_moves(), 0);
        assert_eq!(
            full.check(Move::Place(19)),
            Err(IllegalMove::NoDiscsLeft("black"))
        );
        assert_eq!(full.legal_move_list(), vec![Move::Pass]);
        assert!(!full.is_over(), "white can still move");
    }

    #[test]
    fn from_parts_rejects_impossible_boards() {
        assert!(Position::from_parts(Variant::Std, 1, 1, Color::Black, [0, 0]).is_none());
        assert!(Position::from_parts(Variant::Std, 1 << 70, 0, Color::Black, [0, 0]).is_none());
        assert!(Position::from_parts(Variant::Octagon, 1, 0, Color::Black, [0, 0]).is_none());
        assert!(Position::from_parts(Variant::Grand, 1, 2, Color::White, [1, 1]).is_some());
    }

    #[test]
    fn display_draws_the_board() {
        let text = Position::start(Variant::Octagon).to_string();
        assert!(text.starts_with("##......##\n#........#\n"));
        assert!(text.ends_with("black to move"));
    }
}
