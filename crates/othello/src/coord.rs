//! Squares, moves and their spellings: indices (`row × size + column`, `a1` = 0), coordinates
//! (`d3`, `D3`; on 10x10 the tenth row is `10` or `0`) and the pass spellings.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::Variant;

/// One decision of the side to move: a disc on a square, or a pass.
///
/// Serialized as FlipSight does: the square index, or `-1` for a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "i16", try_from = "i16")]
pub enum Move {
    /// Pass (legal only when no placement is).
    Pass,
    /// Place a disc on the square with this index.
    Place(u8),
}

impl Move {
    /// The FlipSight number of the move: the square index, or -1 for a pass.
    pub fn index(self) -> i16 {
        match self {
            Move::Pass => -1,
            Move::Place(sq) => i16::from(sq),
        }
    }

    /// The move's coordinate on a board of `size` (`d3`, `j10`), or `pass`.
    pub fn name(self, size: u8) -> String {
        match self {
            Move::Pass => "pass".to_owned(),
            Move::Place(sq) => square_name(sq, size),
        }
    }
}

impl From<Move> for i16 {
    fn from(mv: Move) -> i16 {
        mv.index()
    }
}

impl TryFrom<i16> for Move {
    type Error = String;

    fn try_from(n: i16) -> Result<Self, Self::Error> {
        match n {
            -1 => Ok(Move::Pass),
            0..=99 => Ok(Move::Place(n as u8)),
            _ => Err(format!(
                "move {n} is neither a square index 0-99 nor -1 (pass)"
            )),
        }
    }
}

/// Why a move's spelling was not understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoordError {
    /// Not a square index, a coordinate or a pass spelling.
    #[error("invalid move coordinate {0:?}")]
    Invalid(String),
    /// A well-formed square that does not exist on this board.
    #[error("move {0:?} is outside the board")]
    OutsideBoard(String),
}

/// The coordinate of square `sq` on a board of `size`: column letter, then row number from 1.
pub fn square_name(sq: u8, size: u8) -> String {
    let (row, col) = (sq / size, sq % size);
    format!("{}{}", char::from(b'a' + col), row + 1)
}

/// The square with this index, if it exists on the variant's board (blocked squares exist:
/// playing one is illegal, not outside the board).
pub fn move_from_index(n: i64, variant: Variant) -> Result<Move, CoordError> {
    match n {
        -1 => Ok(Move::Pass),
        0.. if n < i64::from(variant.squares()) => Ok(Move::Place(n as u8)),
        _ => Err(CoordError::OutsideBoard(n.to_string())),
    }
}

/// Parses any accepted spelling of a move on the variant's board: a square index (`19`),
/// a coordinate in either case (`d3`, `D3`; `j10` = `J0` on 10x10) or a pass (`-1`, `pass`,
/// `PA`, `PS`, `--`, in any case).
pub fn parse_move(text: &str, variant: Variant) -> Result<Move, CoordError> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    if matches!(lower.as_str(), "-1" | "pass" | "pa" | "ps" | "--") {
        return Ok(Move::Pass);
    }
    let invalid = || CoordError::Invalid(text.to_owned());
    let outside = || CoordError::OutsideBoard(text.to_owned());
    if !lower.is_empty() && lower.bytes().all(|b| b.is_ascii_digit()) {
        return match lower.parse::<i64>() {
            Ok(n) => move_from_index(n, variant),
            Err(_) => Err(outside()),
        };
    }
    let mut chars = lower.chars();
    let column = chars
        .next()
        .filter(char::is_ascii_lowercase)
        .ok_or_else(invalid)?;
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let size = variant.size();
    let col = column as u32 - 'a' as u32;
    let row_number: u32 = digits.parse().map_err(|_| outside())?;
    // On 10x10 the tenth row may be written 0.
    let row_number = if size == 10 && row_number == 0 && digits.len() == 1 {
        10
    } else {
        row_number
    };
    if col >= u32::from(size) || row_number == 0 || row_number > u32::from(size) {
        return Err(outside());
    }
    Ok(Move::Place(
        ((row_number - 1) * u32::from(size) + col) as u8,
    ))
}

impl fmt::Display for CoordErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CoordErrorKind::Invalid => "invalid move coordinate",
            CoordErrorKind::OutsideBoard => "move outside board",
        })
    }
}

/// The kind of a [`CoordError`], named as FlipSight's error strings name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoordErrorKind {
    /// `invalid move coordinate`.
    Invalid,
    /// `move outside board`.
    OutsideBoard,
}

impl CoordError {
    /// The kind of error, without the offending text.
    pub fn kind(&self) -> CoordErrorKind {
        match self {
            CoordError::Invalid(_) => CoordErrorKind::Invalid,
            CoordError::OutsideBoard(_) => CoordErrorKind::OutsideBoard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Variant::{Grand, Octagon, Std};

    #[test]
    fn accepted_spellings() {
        let cases: &[(&str, Variant, Move)] = &[
            ("d3", Std, Move::Place(19)),
            ("D3", Std, Move::Place(19)),
            (" f5 ", Std, Move::Place(37)),
            ("a1", Std, Move::Place(0)),
            ("h8", Std, Move::Place(63)),
            ("19", Std, Move::Place(19)),
            ("d3", Grand, Move::Place(23)),
            ("j10", Grand, Move::Place(99)),
            ("J0", Grand, Move::Place(99)),
            ("a10", Octagon, Move::Place(90)),
            ("-1", Std, Move::Pass),
            ("pass", Std, Move::Pass),
            ("PASS", Std, Move::Pass),
            ("PA", Std, Move::Pass),
            ("ps", Std, Move::Pass),
            ("--", Grand, Move::Pass),
        ];
        for &(text, variant, expected) in cases {
            assert_eq!(
                parse_move(text, variant),
                Ok(expected),
                "{text:?} on {variant}"
            );
        }
    }

    #[test]
    fn refused_spellings() {
        use CoordErrorKind::{Invalid, OutsideBoard};
        let cases: &[(&str, Variant, CoordErrorKind)] = &[
            ("", Std, Invalid),
            ("d", Std, Invalid),
            ("3d", Std, Invalid),
            ("d3x", Std, Invalid),
            ("dd", Std, Invalid),
            ("é3", Std, Invalid),
            ("-2", Std, Invalid),
            ("i1", Std, OutsideBoard),
            ("a9", Std, OutsideBoard),
            ("a0", Std, OutsideBoard),
            ("k1", Grand, OutsideBoard),
            ("a11", Grand, OutsideBoard),
            ("a00", Grand, OutsideBoard),
            ("64", Std, OutsideBoard),
            ("100", Grand, OutsideBoard),
            ("a99999999999999999999", Std, OutsideBoard),
        ];
        for &(text, variant, kind) in cases {
            assert_eq!(
                parse_move(text, variant).map_err(|e| e.kind()),
                Err(kind),
                "{text:?} on {variant}"
            );
        }
    }

    #[test]
    fn names_and_indices() {
        assert_eq!(square_name(19, 8), "d3");
        assert_eq!(square_name(99, 10), "j10");
        assert_eq!(Move::Pass.name(8), "pass");
        for sq in 0..100 {
            assert_eq!(parse_move(&square_name(sq, 10), Grand), Ok(Move::Place(sq)));
        }
        assert_eq!(move_from_index(-1, Std), Ok(Move::Pass));
        assert!(move_from_index(-5, Std).is_err());
        assert_eq!(serde_json::to_string(&Move::Pass).unwrap(), "-1");
        assert_eq!(serde_json::from_str::<Move>("37").unwrap(), Move::Place(37));
        assert!(serde_json::from_str::<Move>("100").is_err());
    }
}
