//! Piece values, piece-square tables and the static evaluation of an orthodox position.
//!
//! The tables are the "simplified evaluation function" widely used by small engines: a
//! centipawn bonus for each piece on each square, written from White's side with the eighth
//! rank first, as a board is drawn. The king has a middlegame table (tucked away) and an
//! endgame table (central), mixed by the game phase; the other pieces have one table each.
//! Dice Chess reads the same tables through [`PieceSets`], so both games value squares alike.

use cozy_chess::{BitBoard, Board, Color, File, Piece, Square};

use crate::dice::DiceBoard;

/// Centipawn values of pawn, knight, bishop, rook, queen and king. The king has no material
/// value: in chess it cannot be taken, and in Dice Chess taking it ends the game, which the
/// searches score on their own.
pub(crate) const VALUES: [i32; Piece::NUM] = [100, 320, 330, 500, 900, 0];

/// The value of a piece type.
#[inline(always)]
pub(crate) fn value(piece: Piece) -> i32 {
    VALUES[piece as usize]
}

/// The phase of a game with all its pieces: each knight and bishop counts 1, each rook 2 and
/// each queen 4.
pub(crate) const FULL_PHASE: i32 = 24;

#[rustfmt::skip]
const PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];

#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];

#[rustfmt::skip]
const BISHOP: [i32; 64] = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];

#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];

#[rustfmt::skip]
const QUEEN: [i32; 64] = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5,  5,  5,  5,  0,-10,
     -5,  0,  5,  5,  5,  5,  0, -5,
      0,  0,  5,  5,  5,  5,  0, -5,
    -10,  5,  5,  5,  5,  5,  0,-10,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];

#[rustfmt::skip]
const KING_MIDDLE: [i32; 64] = [
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -10,-20,-20,-20,-20,-20,-20,-10,
     20, 20,  0,  0,  0,  0, 20, 20,
     20, 30, 10,  0,  0, 10, 30, 20,
];

#[rustfmt::skip]
const KING_END: [i32; 64] = [
    -50,-40,-30,-20,-20,-30,-40,-50,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -50,-30,-30,-30,-30,-30,-30,-50,
];

/// The tables of pawn to queen, by piece index.
const TABLES: [&[i32; 64]; 5] = [&PAWN, &KNIGHT, &BISHOP, &ROOK, &QUEEN];

/// The bonus of a piece of `color` on `square`, the king's tables mixed by `phase` (from
/// [`FULL_PHASE`], the opening, down to 0, bare kings and pawns).
#[inline(always)]
pub(crate) fn square_bonus(piece: Piece, color: Color, square: Square, phase: i32) -> i32 {
    // The tables list the eighth rank first: White's a1 is entry 56, and Black reads them
    // mirrored, so its a8 is entry 56 too.
    let index = match color {
        Color::White => square as usize ^ 56,
        Color::Black => square as usize,
    };
    match TABLES.get(piece as usize) {
        Some(table) => table[index],
        None => (KING_MIDDLE[index] * phase + KING_END[index] * (FULL_PHASE - phase)) / FULL_PHASE,
    }
}

/// A piece's value and square bonus together.
#[inline(always)]
pub(crate) fn worth(piece: Piece, color: Color, square: Square, phase: i32) -> i32 {
    value(piece) + square_bonus(piece, color, square, phase)
}

/// The pieces of a position by colour and type: what the evaluation reads from an orthodox
/// board and a Dice Chess board alike.
pub(crate) trait PieceSets {
    /// The pieces of type `piece` and colour `color`.
    fn set(&self, color: Color, piece: Piece) -> BitBoard;
}

impl PieceSets for Board {
    #[inline(always)]
    fn set(&self, color: Color, piece: Piece) -> BitBoard {
        self.colored_pieces(color, piece)
    }
}

impl PieceSets for DiceBoard {
    #[inline(always)]
    fn set(&self, color: Color, piece: Piece) -> BitBoard {
        self.colored_pieces(color, piece)
    }
}

/// The game phase: [`FULL_PHASE`] with every piece on the board, 0 with none but kings and
/// pawns (capped, so that promotions do not push it past the opening).
pub(crate) fn phase_of(board: &impl PieceSets) -> i32 {
    let count = |piece| {
        Color::ALL
            .into_iter()
            .map(|c| board.set(c, piece).len() as i32)
            .sum::<i32>()
    };
    let phase = count(Piece::Knight)
        + count(Piece::Bishop)
        + 2 * count(Piece::Rook)
        + 4 * count(Piece::Queen);
    phase.min(FULL_PHASE)
}

/// The material and square bonuses of `color`'s pieces.
pub(crate) fn material_and_squares(board: &impl PieceSets, color: Color, phase: i32) -> i32 {
    let mut total = 0;
    for piece in Piece::ALL {
        for square in board.set(color, piece) {
            total += worth(piece, color, square, phase);
        }
    }
    total
}

/// The bonus of a passed pawn by how far it has come (relative rank 1 to 8), in the
/// middlegame and the endgame, where it matters more.
const PASSED_MIDDLE: [i32; 8] = [0, 5, 5, 10, 20, 35, 60, 0];
const PASSED_END: [i32; 8] = [0, 10, 15, 25, 45, 75, 120, 0];

/// Whether `color`'s pawn on `square` has no enemy pawn ahead of it on its file or the
/// files beside it.
fn is_passed(square: Square, color: Color, their_pawns: BitBoard) -> bool {
    let file = square.file();
    let mut files = file.bitboard();
    if let Some(left) = File::try_index((file as usize).wrapping_sub(1)) {
        files |= left.bitboard();
    }
    if let Some(right) = File::try_index(file as usize + 1) {
        files |= right.bitboard();
    }
    let rank = square.rank() as u32;
    let ahead = match color {
        Color::White => u64::MAX.checked_shl((rank + 1) * 8).unwrap_or(0),
        Color::Black => (1u64 << (rank * 8)) - 1,
    };
    (files & BitBoard(ahead) & their_pawns).is_empty()
}

/// The passed pawns' bonuses for `color`, middlegame and endgame.
fn passed_pawns(board: &impl PieceSets, color: Color) -> (i32, i32) {
    let theirs = board.set(!color, Piece::Pawn);
    let (mut middle, mut end) = (0, 0);
    for square in board.set(color, Piece::Pawn) {
        if is_passed(square, color, theirs) {
            let rank = square.rank().relative_to(color) as usize;
            middle += PASSED_MIDDLE[rank];
            end += PASSED_END[rank];
        }
    }
    (middle, end)
}

/// How far a square is from the centre, 0 to 6: a lone king driven towards an edge or a
/// corner is easier to mate.
fn centre_distance(square: Square) -> i32 {
    let file = square.file() as i32;
    let rank = square.rank() as i32;
    let d = |x: i32| if x < 4 { 3 - x } else { x - 4 };
    d(file) + d(rank)
}

/// The distance between two squares in king moves.
fn king_distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// The evaluation of an orthodox position for White, in centipawns.
fn white_score(board: &Board) -> i32 {
    let phase = phase_of(board);
    let mut middle = 0;
    let mut end = 0;
    for (color, sign) in [(Color::White, 1), (Color::Black, -1)] {
        let base = material_and_squares(board, color, phase);
        let (pm, pe) = passed_pawns(board, color);
        let pair = if board.set(color, Piece::Bishop).len() >= 2 {
            30
        } else {
            0
        };
        middle += sign * (base + pm + pair);
        end += sign * (base + pe + pair);
    }
    let mut score = (middle * phase + end * (FULL_PHASE - phase)) / FULL_PHASE;
    score += mop_up(board);
    score
}

/// Against a side with nothing but its king (and no pawn), the stronger side is rewarded
/// for driving that king to the edge and bringing its own king near: without this, a
/// search too shallow to see the mate wanders until the fifty-move rule draws.
fn mop_up(board: &Board) -> i32 {
    for (strong, sign) in [(Color::White, 1), (Color::Black, -1)] {
        let weak = !strong;
        if board.colors(weak).len() == 1 && board.colors(strong).len() > 1 {
            let material: i32 = Piece::ALL
                .into_iter()
                .map(|p| value(p) * board.set(strong, p).len() as i32)
                .sum();
            if material < value(Piece::Rook) && board.pieces(Piece::Pawn).is_empty() {
                return 0;
            }
            let lone = board.king(weak);
            let own = board.king(strong);
            return sign * (centre_distance(lone) * 20 + (14 - 2 * king_distance(lone, own)) * 5);
        }
    }
    0
}

/// The evaluation of an orthodox position for the side to move, in centipawns, with a
/// small bonus for having the move.
pub(crate) fn evaluate(board: &Board) -> i32 {
    let score = white_score(board);
    let relative = match board.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    };
    relative + 10
}

/// Whether `color` has a piece other than pawns and its king: without one, passing is
/// rarely the best a side can do, so a null move tells little (zugzwang).
pub(crate) fn has_pieces(board: &Board, color: Color) -> bool {
    !(board.colors(color) & !(board.pieces(Piece::Pawn) | board.pieces(Piece::King))).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_is_even_and_mirrored_positions_agree() {
        let start = Board::startpos();
        assert_eq!(white_score(&start), 0);
        // A white knight on f3 against a black one on f6 is the same position mirrored.
        let white: Board = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
            .parse()
            .expect("a position");
        let black: Board = "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1 1"
            .parse()
            .expect("a position");
        assert_eq!(white_score(&white), -white_score(&black));
        assert!(white_score(&white) > 0);
        assert_eq!(evaluate(&white), evaluate(&black));
    }

    #[test]
    fn passed_pawns_and_lone_kings_are_seen() {
        let passed: Board = "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"
            .parse()
            .expect("a position");
        let blocked: Board = "4k3/2p5/8/3P4/8/8/8/4K3 w - - 0 1"
            .parse()
            .expect("a position");
        assert!(white_score(&passed) > white_score(&blocked) + 100);
        let cornered: Board = "k7/8/8/8/8/8/8/4K2R w - - 0 1".parse().expect("a position");
        let central: Board = "8/8/8/3k4/8/8/8/4K2R w - - 0 1"
            .parse()
            .expect("a position");
        assert!(white_score(&cornered) > white_score(&central));
    }
}
