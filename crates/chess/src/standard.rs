//! Standard chess and Chess960 on cozy-chess's `Board`: UCI notation in both spellings of
//! castling, perft, the automatic draws and the game's end.
//!
//! cozy-chess writes castling as the king taking its own rook (`e1h1`), which is Chess960's
//! UCI notation; standard chess writes it as the king's two-square move (`e1g1`), so moves are
//! converted at the edge.

use cozy_chess::{BitBoard, Board, Color, Move, Piece, Square};

use crate::ending::{EndReason, GameResult};

/// Every legal move, in cozy-chess's notation (castling as king takes rook).
pub fn legal_moves(board: &Board) -> Vec<Move> {
    let mut moves = Vec::with_capacity(64);
    board.generate_moves(|piece_moves| {
        moves.extend(piece_moves);
        false
    });
    moves
}

/// A legal move in UCI notation: castling as the king's two-square move, or in Chess960 as
/// the king taking its own rook.
pub fn uci(board: &Board, mv: Move, chess960: bool) -> String {
    if chess960 {
        mv.to_string()
    } else {
        cozy_chess::util::display_uci_move(board, mv).to_string()
    }
}

/// The legal move written `text` (exactly as [`uci`] writes it, lower case), if there is one.
pub fn parse_uci(board: &Board, text: &str, chess960: bool) -> Option<Move> {
    let mv = if chess960 {
        text.parse::<Move>().ok()?
    } else {
        cozy_chess::util::parse_uci_move(board, text).ok()?
    };
    // The round trip refuses other spellings: king-takes-rook castling in standard chess,
    // or a promotion letter where there is no promotion.
    (board.is_legal(mv) && uci(board, mv, chess960) == text).then_some(mv)
}

/// The number of leaf positions `depth` legal moves from `board`, counting the last level's
/// moves without making them.
pub fn perft(board: &Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal(board),
        _ => perft_inner(board, depth),
    }
}

/// The legal moves of `board`, counted by bitboard.
#[inline(always)]
fn count_legal(board: &Board) -> u64 {
    let mut nodes = 0;
    board.generate_moves(|moves| {
        nodes += moves.len() as u64;
        false
    });
    nodes
}

/// Perft at depth 2 or more: the moves are made, and the level below the last is counted.
fn perft_inner(board: &Board, depth: u32) -> u64 {
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut next = board.clone();
            next.play_unchecked(mv);
            nodes += if depth == 2 {
                count_legal(&next)
            } else {
                perft_inner(&next, depth - 1)
            };
        }
        false
    });
    nodes
}

/// Whether neither side can mate by any sequence of legal moves, in the cases the rules name:
/// king against king, king and one minor piece against king, and kings with bishops all on
/// squares of one colour.
pub fn insufficient_material(board: &Board) -> bool {
    let heavy = board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let knights = board.pieces(Piece::Knight);
    let bishops = board.pieces(Piece::Bishop);
    if (knights | bishops).len() <= 1 {
        return true;
    }
    const LIGHT: BitBoard = BitBoard(0x55AA_55AA_55AA_55AA);
    knights.is_empty() && (bishops.is_subset(LIGHT) || bishops.is_disjoint(LIGHT))
}

/// Whether `color` has nothing but its king.
pub fn only_king(board: &Board, color: Color) -> bool {
    board.colors(color).len() == 1
}

/// The key repetitions are counted by: the pieces, the side to move and the castling rights,
/// and the en-passant file only when a capture en passant is actually legal (FIDE's
/// definition of the same position).
pub fn repetition_key(board: &Board) -> u64 {
    let Some(file) = board.en_passant() else {
        return board.hash_without_ep();
    };
    let us = board.side_to_move();
    let target = Square::new(file, cozy_chess::Rank::Sixth.relative_to(us));
    let mut capturable = false;
    board.generate_moves_for(board.colored_pieces(us, Piece::Pawn), |moves| {
        capturable |= moves.to.has(target);
        capturable
    });
    if capturable {
        board.hash()
    } else {
        board.hash_without_ep()
    }
}

/// The Chess960 start position with Scharnagl number `number` (518 is the usual one).
pub fn chess960_start(number: u32) -> Option<Board> {
    (number < 960).then(|| Board::chess960_startpos(number))
}

/// A game of standard chess or Chess960 in progress: the position and the keys of the
/// positions since the last capture or pawn move, for threefold repetition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orthodox {
    board: Board,
    chess960: bool,
    keys: Vec<u64>,
}

impl Orthodox {
    /// A game from `board`; `chess960` chooses the castling notation.
    pub fn new(board: Board, chess960: bool) -> Orthodox {
        let keys = vec![repetition_key(&board)];
        Orthodox {
            board,
            chess960,
            keys,
        }
    }

    /// The position now.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Whether castling is written the Chess960 way.
    pub fn chess960(&self) -> bool {
        self.chess960
    }

    /// The legal moves now, in UCI notation.
    pub fn legal_uci(&self) -> Vec<String> {
        legal_moves(&self.board)
            .into_iter()
            .map(|mv| uci(&self.board, mv, self.chess960))
            .collect()
    }

    /// Plays a legal move (from [`parse_uci`] or [`legal_moves`]).
    pub fn play(&mut self, mv: Move) {
        self.board.play_unchecked(mv);
        if self.board.halfmove_clock() == 0 {
            // A capture or a pawn move: no earlier position can occur again.
            self.keys.clear();
        }
        self.keys.push(repetition_key(&self.board));
    }

    /// How many times the current position has occurred since the last irreversible move.
    pub fn repetitions(&self) -> usize {
        let now = self.keys.last().copied();
        self.keys.iter().filter(|&&k| Some(k) == now).count()
    }

    /// The result if the game is over now: mate and stalemate first (a mate on the fiftieth
    /// move stands), then insufficient material, threefold repetition and the fifty-move rule.
    pub fn status(&self) -> Option<GameResult> {
        let board = &self.board;
        let has_move = board.generate_moves(|_| true);
        let (winner, reason) = if !has_move {
            if board.checkers().is_empty() {
                (None, EndReason::Stalemate)
            } else {
                (Some((!board.side_to_move()).into()), EndReason::Checkmate)
            }
        } else if insufficient_material(board) {
            (None, EndReason::InsufficientMaterial)
        } else if self.repetitions() >= 3 {
            (None, EndReason::ThreefoldRepetition)
        } else if board.halfmove_clock() >= 100 {
            (None, EndReason::FiftyMoves)
        } else {
            return None;
        };
        Some(GameResult { winner, reason })
    }
}

#[cfg(test)]
mod tests;
