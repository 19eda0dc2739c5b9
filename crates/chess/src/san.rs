//! Standard algebraic notation: `Nf3`, `exd5`, `O-O`, `e8=Q+`.
//!
//! Orthodox moves are written by cozy-chess, with `+` for check and `#` for mate. Dice Chess
//! micro-moves are written here: Dice Chess has no check, so they carry no check marks, and a
//! piece is told from the others of its kind by what those could do by their ordinary moves.

use std::ops::ControlFlow;

use cozy_chess::{Board, File, Move, Piece};

use crate::dice::{DiceBoard, DiceRules, DiceSet, MicroMove, MoveKind, for_each_move};

/// The SAN of `mv`, a legal move on `board` (cozy-chess's king-takes-rook castling).
pub fn orthodox_san(board: &Board, mv: Move) -> String {
    cozy_chess::util::display_san_move(board, mv).to_string()
}

/// The SAN of `mv`, a micro-move the move generator produced on `board`, without check
/// marks.
pub fn dice_san(board: &DiceBoard, mv: MicroMove) -> String {
    if mv.kind == MoveKind::Castle {
        return if mv.to.file() == File::G {
            "O-O".to_owned()
        } else {
            "O-O-O".to_owned()
        };
    }
    let capture = mv.kind == MoveKind::EnPassant || board.colors(!board.side_to_move()).has(mv.to);
    let mut san = String::new();
    if mv.piece == Piece::Pawn {
        if capture {
            san.push(char::from(mv.from.file()));
        }
    } else {
        san.push(char::from(mv.piece).to_ascii_uppercase());
        // Other pieces of the same kind that could also move to the target.
        let (mut others, mut same_file, mut same_rank) = (false, false, false);
        let _ = for_each_move(
            board,
            mv.piece,
            DiceSet::from_pieces(&[mv.piece]),
            &DiceRules::default(),
            |other| {
                if other.to == mv.to && other.from != mv.from && other.kind != MoveKind::Castle {
                    others = true;
                    same_file |= other.from.file() == mv.from.file();
                    same_rank |= other.from.rank() == mv.from.rank();
                }
                ControlFlow::<()>::Continue(())
            },
        );
        if others {
            if !same_file {
                san.push(char::from(mv.from.file()));
            } else if !same_rank {
                san.push(char::from(mv.from.rank()));
            } else {
                san.push_str(&mv.from.to_string());
            }
        }
    }
    if capture {
        san.push('x');
    }
    san.push_str(&mv.to.to_string());
    if let Some(promotion) = mv.promotion {
        san.push('=');
        san.push(char::from(promotion).to_ascii_uppercase());
    }
    san
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Turn;

    /// The SAN of the micro-move `uci` in the DFEN `dfen`.
    fn dice(dfen: &str, uci: &str) -> String {
        let (board, dice) = DiceBoard::from_dfen(dfen).expect("dfen");
        let turn = Turn {
            board,
            dice: dice.unwrap_or(DiceSet::EMPTY),
            required: 3,
        };
        let mv = turn
            .find(
                uci[0..2].parse().expect("from"),
                uci[2..4].parse().expect("to"),
                uci.get(4..5).map(|p| p.parse().expect("promotion")),
                &DiceRules::default(),
            )
            .expect("a micro-move");
        dice_san(&board, mv)
    }

    #[test]
    fn dice_moves_are_written_without_check_marks() {
        let cases = [
            ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 RRK", "e1g1", "O-O"),
            ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 RRK", "e1c1", "O-O-O"),
            // The rook gives check, which Dice Chess does not mark.
            ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 RRK", "a1a8", "Ra8"),
            ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 RRK", "a1d1", "Rd1"),
            ("4k3/8/8/8/8/8/4K3/R6R w - - 0 1 R", "a1d1", "Rad1"),
            ("4k3/8/8/R7/8/8/8/R3K3 w Q - 0 1 R", "a1a3", "R1a3"),
            ("4k3/3p4/8/8/8/8/8/4K3 w - - 0 1 K", "e1e2", "Ke2"),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 P", "e5d6", "exd6"),
            ("3r1k2/4P3/8/8/8/8/8/4K3 w - - 0 1 P", "e7d8n", "exd8=N"),
            ("3r1k2/4P3/8/8/8/8/8/4K3 w - - 0 1 P", "e7e8q", "e8=Q"),
            // Capturing the king is written as any capture.
            ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1 R", "e1e8", "Rxe8"),
            ("4k3/8/8/8/8/2N3N1/8/2N1K3 w - - 0 1 N", "c3e4", "Nce4"),
        ];
        for (dfen, uci, san) in cases {
            assert_eq!(dice(dfen, uci), san, "{uci} in {dfen}");
        }
    }

    #[test]
    fn orthodox_moves_carry_check_and_mate() {
        let cases = [
            (
                "3k2n1/7P/Q3p3/4BPp1/Q1Q4q/8/5B2/R3K2R w KQ - 0 1",
                "h7g8r",
                "hxg8=R+",
            ),
            (
                "3k2n1/7P/Q3p3/4BPp1/Q1Q4q/8/5B2/R3K2R w KQ - 0 1",
                "e1a1",
                "O-O-O+",
            ),
            (
                "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
                "d8h4",
                "Qh4#",
            ),
        ];
        for (fen, uci, san) in cases {
            let board: Board = fen.parse().expect("fen");
            assert_eq!(orthodox_san(&board, uci.parse().expect("move")), san);
        }
    }
}
