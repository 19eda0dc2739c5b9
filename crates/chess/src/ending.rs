//! Sides and how a game ends, as views, events and outcomes name them.

use cozy_chess::Color;
use serde::{Deserialize, Serialize};

/// A side: White is seat 0, Black seat 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// White, seat 0, moves first.
    White,
    /// Black, seat 1.
    Black,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// The seat index that plays this side.
    pub fn seat(self) -> u8 {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }

    /// The side seat `seat` plays, if it is one of the two.
    pub fn of_seat(seat: u8) -> Option<Side> {
        match seat {
            0 => Some(Side::White),
            1 => Some(Side::Black),
            _ => None,
        }
    }
}

impl From<Color> for Side {
    fn from(color: Color) -> Side {
        match color {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(side: Side) -> Color {
        match side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// Why a game ended, as the rules decide it (the arena adds `timeout` and `resignation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move: a draw.
    Stalemate,
    /// The same position occurred for the third time: a draw.
    ThreefoldRepetition,
    /// Fifty moves by each side without a capture or a pawn move: a draw.
    FiftyMoves,
    /// Neither side can mate by any sequence of legal moves: a draw.
    InsufficientMaterial,
    /// A draw offer was accepted.
    Agreement,
    /// Dice Chess: a king was captured.
    KingCaptured,
    /// Dice Chess: the configured number of micro-moves without a capture or a pawn move.
    HalfmoveLimit,
    /// Dice Chess: fifty forced passes in a row.
    Passes,
}

impl EndReason {
    /// The reason as views, events and outcomes write it (`checkmate`).
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::ThreefoldRepetition => "threefold_repetition",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::InsufficientMaterial => "insufficient_material",
            EndReason::Agreement => "agreement",
            EndReason::KingCaptured => "king_captured",
            EndReason::HalfmoveLimit => "halfmove_limit",
            EndReason::Passes => "passes",
        }
    }
}

/// How a finished game ended: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    /// The side that won, `None` for a draw.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: EndReason,
}
