//! DFEN: FEN with a seventh field for the unused dice, as Dice Chess positions are written.
//!
//! The en-passant field may list several squares, concatenated and sorted by square (rank,
//! then file): `a3c3e3`. Between the micro-moves of a turn it lists both the targets the side
//! to move may still capture onto (on the sixth rank for White) and those its own double
//! pushes of this turn created (on its third rank), which the ranks tell apart. The halfmove
//! clock counts micro-moves; the fullmove number grows after each of Black's turns. Castling
//! rights are `KQkq` letters (the rooks of the a- and h-files; the king on the e-file).

use std::fmt;

use cozy_chess::{BitBoard, Color, File, Piece, Rank, Square};

use super::board::DiceBoard;
use super::roll::DiceSet;

/// Why a DFEN (or FEN) could not be read as a Dice Chess position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid DFEN: {0}")]
pub struct DfenError(pub String);

fn invalid<T>(what: impl Into<String>) -> Result<T, DfenError> {
    Err(DfenError(what.into()))
}

impl DiceBoard {
    /// Reads a FEN or DFEN: six fields, and optionally the dice (`-` before a roll).
    ///
    /// Each side may have one king at most, no pawn may stand on the first or last rank, a castling
    /// right needs its king and rook on their start squares, and an en-passant square needs
    /// the pawn that passed over it.
    pub fn from_dfen(text: &str) -> Result<(DiceBoard, Option<DiceSet>), DfenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if !(6..=7).contains(&fields.len()) {
            return invalid(format!(
                "expected 6 or 7 fields, found {} in {text:?}",
                fields.len()
            ));
        }
        let mut board = DiceBoard::empty();
        read_placement(&mut board, fields[0])?;
        board.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return invalid(format!("side to move {other:?} is not w or b")),
        };
        read_castling(&mut board, fields[2])?;
        read_en_passant(&mut board, fields[3])?;
        board.halfmove = fields[4]
            .parse()
            .or_else(|_| invalid(format!("halfmove clock {:?}", fields[4])))?;
        board.fullmove = fields[5]
            .parse()
            .ok()
            .filter(|&n: &u16| n > 0)
            .map_or_else(|| invalid(format!("fullmove number {:?}", fields[5])), Ok)?;
        let dice = match fields.get(6) {
            None => None,
            Some(&"-") => Some(DiceSet::EMPTY),
            Some(letters) => {
                let dice = DiceSet::parse_letters(letters)
                    .ok_or_else(|| DfenError(format!("dice {letters:?}")))?;
                if dice.letters(board.side) != *letters || dice.total() > 3 {
                    return invalid(format!(
                        "dice {letters:?}: at most three, sorted PNBRQK, in the case of the \
                         side to move"
                    ));
                }
                Some(dice)
            }
        };
        Ok((board, dice))
    }

    /// The position as FEN (six fields).
    pub fn fen(&self) -> String {
        self.to_string()
    }

    /// The position as DFEN, with `dice` as the seventh field (`-` for none).
    pub fn dfen(&self, dice: Option<DiceSet>) -> String {
        let letters = dice.map_or_else(|| "-".to_owned(), |d| d.letters(self.side));
        format!("{self} {letters}")
    }
}

fn read_placement(board: &mut DiceBoard, placement: &str) -> Result<(), DfenError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return invalid(format!("{placement:?} does not have 8 ranks"));
    }
    for (row, text) in ranks.iter().enumerate() {
        let rank = Rank::ALL[7 - row];
        let mut file = 0usize;
        for c in text.chars() {
            if let Some(skip) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += skip as usize;
                continue;
            }
            let piece = Piece::try_from(c.to_ascii_lowercase())
                .or_else(|_| invalid(format!("{c:?} is not a piece")))?;
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let Some(&f) = File::ALL.get(file) else {
                return invalid(format!("rank {text:?} is longer than 8 squares"));
            };
            if piece == Piece::Pawn && (rank == Rank::First || rank == Rank::Eighth) {
                return invalid("a pawn stands on the first or last rank");
            }
            board.put(Square::new(f, rank), piece, color);
            file += 1;
        }
        if file != 8 {
            return invalid(format!("rank {text:?} does not have 8 squares"));
        }
    }
    for color in Color::ALL {
        // A king may be missing only from a finished game's last position (it was captured).
        if board.colored_pieces(color, Piece::King).len() > 1 {
            return invalid(format!("{color:?} has more than one king"));
        }
    }
    Ok(())
}

fn read_castling(board: &mut DiceBoard, rights: &str) -> Result<(), DfenError> {
    if rights == "-" {
        return Ok(());
    }
    let mut granted = [[false; 2]; 2];
    for c in rights.chars() {
        let (color, short) = match c {
            'K' => (Color::White, true),
            'Q' => (Color::White, false),
            'k' => (Color::Black, true),
            'q' => (Color::Black, false),
            _ => return invalid(format!("castling right {c:?} (only KQkq)")),
        };
        let back = Rank::First.relative_to(color);
        let rook = Square::new(if short { File::H } else { File::A }, back);
        let king = Square::new(File::E, back);
        if !board.colored_pieces(color, Piece::King).has(king)
            || !board.colored_pieces(color, Piece::Rook).has(rook)
        {
            return invalid(format!("castling right {c:?} without its king and rook"));
        }
        granted[color as usize][usize::from(!short)] = true;
    }
    for color in Color::ALL {
        let [short, long] = granted[color as usize];
        board.set_castling(color, short, long);
    }
    Ok(())
}

fn read_en_passant(board: &mut DiceBoard, field: &str) -> Result<(), DfenError> {
    if field == "-" {
        return Ok(());
    }
    if !field.len().is_multiple_of(2) || !field.is_ascii() {
        return invalid(format!("en-passant squares {field:?}"));
    }
    let us = board.side;
    for i in (0..field.len()).step_by(2) {
        let text = &field[i..i + 2];
        let square: Square = text
            .parse()
            .or_else(|_| invalid(format!("en-passant square {text:?}")))?;
        // A target behind a pawn of `owner`, which pushed it two squares.
        let owner = if square.rank() == Rank::Third.relative_to(!us) {
            !us
        } else if square.rank() == Rank::Third.relative_to(us) {
            us
        } else {
            return invalid(format!("en-passant square {text:?} is on no third rank"));
        };
        let pawn = Square::new(square.file(), Rank::Fourth.relative_to(owner));
        if !board.colored_pieces(owner, Piece::Pawn).has(pawn) {
            return invalid(format!("en-passant square {text:?} has no pawn in front"));
        }
        if owner == us {
            board.pushed |= square.bitboard();
        } else {
            board.ep_targets |= square.bitboard();
        }
    }
    Ok(())
}

/// The position as FEN: six fields, several en-passant squares concatenated.
impl fmt::Display for DiceBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (row, &rank) in Rank::ALL.iter().rev().enumerate() {
            if row > 0 {
                write!(f, "/")?;
            }
            let mut empty = 0;
            for file in File::ALL {
                let square = Square::new(file, rank);
                match (self.piece_on(square), self.color_on(square)) {
                    (Some(piece), Some(color)) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        let c = char::from(piece);
                        let c = if color == Color::White {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        };
                        write!(f, "{c}")?;
                    }
                    _ => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
        }
        let side = if self.side == Color::White { 'w' } else { 'b' };
        write!(f, " {side} ")?;
        let mut rights = String::new();
        for (color, short, long) in
            [('K', 'Q', Color::White), ('k', 'q', Color::Black)].map(|(s, l, c)| (c, s, l))
        {
            if self.can_castle_short(color) {
                rights.push(short);
            }
            if self.can_castle_long(color) {
                rights.push(long);
            }
        }
        if rights.is_empty() {
            rights.push('-');
        }
        write!(f, "{rights} ")?;
        let squares: BitBoard = self.ep_targets | self.pushed;
        if squares.is_empty() {
            write!(f, "-")?;
        } else {
            // BitBoard iterates from a1 upwards: by rank, then file.
            for square in squares {
                write!(f, "{square}")?;
            }
        }
        write!(f, " {} {}", self.halfmove, self.fullmove)
    }
}
