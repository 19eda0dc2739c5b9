//! The evaluation of a Dice Chess position, for the side about to roll, on a scale from a
//! lost game (`-WIN`) to a won one (`WIN`).
//!
//! Expectimax averages values over rolls, which is sound only for values proportional to
//! the chances of winning; so the material balance (with square bonuses, mobility and the
//! pressure around the kings, in centipawns) is squashed onto the scale, `e / (|e| + HALF)`,
//! and the danger to the kings is mixed in as chances. There is no check, and a king capture
//! ends the game, so a king that a piece attacks is lost whenever the attacker's side rolls a
//! die of that piece's type: with `n` distinct attacking types, 216 - (6 - n)³ of the 216
//! rolls hold one. The side about to roll wins on such a roll; a side whose king is attacked
//! has its own roll first to save it, which it often fails to do.

use cozy_chess::{
    BitBoard, Color, Piece, Square, get_bishop_moves, get_king_moves, get_knight_moves,
    get_pawn_attacks, get_rook_moves,
};

use crate::dice::DiceBoard;
use crate::house::eval::{material_and_squares, phase_of};

/// A won game: the top of the scale.
pub(crate) const WIN: i32 = 10_000;

/// The balance, in centipawns, worth half a win: some 70% of the games.
const HALF: i64 = 600;
/// Of 100 positions in which the side about to roll has its king attacked, how many it
/// fails to save: it needs a die that moves the king, takes or blocks the attacker.
const FAILS: i64 = 50;
/// What each square next to a king that an enemy piece attacks costs: a piece that can
/// reach the king's neighbourhood is one or two dice from taking it.
const ZONE: i32 = 12;
/// What each square a knight, bishop, rook or queen reaches is worth.
const MOBILITY: i32 = 3;

/// The value for the side about to roll of a position where its balance is `balance`
/// centipawns, `shot` distinct types of its pieces attack the enemy king and `danger` types
/// of the enemy's attack its own.
pub(crate) fn utility(balance: i32, shot: u32, danger: u32) -> i32 {
    let win = i64::from(WIN);
    let balance = i64::from(balance);
    let rest = win * balance / (balance.abs() + HALF);
    let shot = i64::from(rolls_with_any(shot));
    let lost = i64::from(rolls_with_any(danger)) * FAILS;
    // On a roll with a die of an attacker the king is taken; else the position stands, and
    // the opponent takes our king if we failed to save it and it rolls the die.
    let standing = ((21_600 - lost) * rest - lost * win) / 21_600;
    i32::try_from((shot * win + (216 - shot) * standing) / 216).unwrap_or(0)
}

/// How many of the 216 ordered rolls hold at least one of `types` distinct piece types.
#[inline(always)]
pub(crate) fn rolls_with_any(types: u32) -> i32 {
    let missing = 6 - types.min(6) as i32;
    216 - missing * missing * missing
}

/// The piece types (bits 0 to 5, pawn to king) of `by`'s pieces that attack `square`.
#[inline(always)]
pub(crate) fn attacker_types(board: &DiceBoard, square: Square, by: Color) -> u8 {
    let theirs = board.colors(by);
    let occupied = board.occupied();
    let diagonal = get_bishop_moves(square, occupied);
    let straight = get_rook_moves(square, occupied);
    let reaches = [
        get_pawn_attacks(square, !by),
        get_knight_moves(square),
        diagonal,
        straight,
        diagonal | straight,
        get_king_moves(square),
    ];
    let mut types = 0u8;
    for piece in Piece::ALL {
        if !(reaches[piece as usize] & board.pieces(piece) & theirs).is_empty() {
            types |= 1 << piece as u8;
        }
    }
    types
}

/// The distinct piece types of `by`'s pieces that attack `color`'s king (0 without the
/// king).
fn attacking_types(board: &DiceBoard, color: Color, by: Color) -> u32 {
    board
        .king(color)
        .map_or(0, |king| attacker_types(board, king, by).count_ones())
}

/// The value, for `mover`, of the position its turn left (`board`, before the turn ends),
/// from its balance of material and squares alone, and the threats against both kings as
/// the other side is about to roll: a quick look that orders turns.
pub(crate) fn after_turn(board: &DiceBoard, mover: Color, balance: i32) -> i32 {
    let roller = !mover;
    -utility(
        -balance,
        attacking_types(board, mover, roller),
        attacking_types(board, roller, mover),
    )
}

/// How many squares next to `color`'s king the other side attacks, each by a piece that is
/// one move from the king.
fn zone_pressure(board: &DiceBoard, color: Color) -> i32 {
    let Some(king) = board.king(color) else {
        return 0;
    };
    get_king_moves(king)
        .into_iter()
        .filter(|&square| attacker_types(board, square, !color) != 0)
        .count() as i32
}

/// The squares `color`'s knights, bishops, rooks and queens reach, own pieces excluded.
fn mobility(board: &DiceBoard, color: Color) -> i32 {
    let own = board.colors(color);
    let occupied = board.occupied();
    let mut reached = 0;
    let mut count = |pieces: BitBoard, reach: &dyn Fn(Square) -> BitBoard| {
        for square in pieces {
            reached += (reach(square) & !own).len() as i32;
        }
    };
    count(
        board.colored_pieces(color, Piece::Knight),
        &get_knight_moves,
    );
    count(board.colored_pieces(color, Piece::Bishop), &|s| {
        get_bishop_moves(s, occupied)
    });
    count(board.colored_pieces(color, Piece::Rook), &|s| {
        get_rook_moves(s, occupied)
    });
    count(board.colored_pieces(color, Piece::Queen), &|s| {
        get_bishop_moves(s, occupied) | get_rook_moves(s, occupied)
    });
    reached
}

/// The balance of material and squares for the side to move, in centipawns.
pub(crate) fn balance(board: &DiceBoard) -> i32 {
    let us = board.side_to_move();
    let phase = phase_of(board);
    material_and_squares(board, us, phase) - material_and_squares(board, !us, phase)
}

/// Material and squares only, for the side to move: what Easy weighs.
pub(crate) fn material(board: &DiceBoard) -> i32 {
    let us = board.side_to_move();
    if board.king(us).is_none() {
        return -WIN;
    }
    if board.king(!us).is_none() {
        return WIN;
    }
    utility(balance(board), 0, 0)
}

/// The full evaluation for the side to move, which is about to roll.
pub(crate) fn evaluate(board: &DiceBoard) -> i32 {
    let us = board.side_to_move();
    if board.king(us).is_none() {
        return -WIN;
    }
    if board.king(!us).is_none() {
        return WIN;
    }
    let mut score = balance(board);
    score += MOBILITY * (mobility(board, us) - mobility(board, !us));
    score += ZONE * (zone_pressure(board, !us) - zone_pressure(board, us));
    utility(
        score,
        attacking_types(board, !us, us),
        attacking_types(board, us, !us),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> DiceBoard {
        DiceBoard::from_dfen(fen).expect("a position").0
    }

    #[test]
    fn rolls_with_a_die_of_some_type_are_counted() {
        assert_eq!(rolls_with_any(0), 0);
        assert_eq!(rolls_with_any(1), 91);
        assert_eq!(rolls_with_any(2), 152);
        assert_eq!(rolls_with_any(6), 216);
    }

    #[test]
    fn an_attacked_king_is_in_danger() {
        // Black's queen attacks White's king along the e-file.
        let attacked = board("4k3/4q3/8/8/8/8/8/3QK3 w - - 0 1");
        let safe = board("4k3/3q4/8/8/8/8/8/3QK3 w - - 0 1");
        assert_eq!(attacker_types(&attacked, Square::E1, Color::Black), 1 << 4);
        assert!(evaluate(&attacked) < evaluate(&safe) - 1_000);
        assert!(utility(900, 0, 0) > utility(300, 0, 0));
        assert!(utility(0, 1, 0) > 4_000);
        assert_eq!(utility(0, 6, 0), WIN);
        // With Black to roll, the same attack is worth more to Black than the danger costs
        // White when White rolls first.
        let black_rolls = board("4k3/4q3/8/8/8/8/8/3QK3 b - - 0 1");
        assert!(evaluate(&black_rolls) > -evaluate(&attacked));
        assert_eq!(material(&attacked), material(&safe));
    }
}
