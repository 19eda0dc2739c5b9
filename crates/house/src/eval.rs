//! The static evaluation: board geometry (square weights, corners and their X and C squares,
//! neighbour shifts) derived once per search from the variant, and the score of a position.

use arbiter_othello::Variant;

use crate::WIN_SCORE;

/// A square no line passes through: it can never be flipped.
const CORNER: i32 = 60;
/// A square with exactly one line through it: an edge.
const EDGE: i32 = 6;
/// A square with two or three lines through it (the octagon's cut corners).
const SEMI_EDGE: i32 = 2;
/// An inner square next to an edge or corner: playing it tends to open the edge.
const SECOND_RING: i32 = -3;
/// Extra weight of a square diagonally inside an empty corner (an X square), or of any
/// neighbour of an empty corner with several lines through it.
const X_DANGER: i32 = -40;
/// Extra weight of an edge-like square next to an empty corner (a C square).
const C_DANGER: i32 = -15;
/// Worth of one legal move more than the opponent.
const MOBILITY: i32 = 12;
/// Cost of one frontier disc (next to an empty square) more than the opponent.
const FRONTIER: i32 = 5;
/// From this many empties on down, the disc difference counts, more with every empty filled.
const ENDGAME_EMPTIES: i32 = 16;

/// One corner: an unflippable square and its dangerous neighbours.
#[derive(Clone, Copy, Debug)]
struct Corner {
    /// The corner square's bit.
    square: u128,
    /// Neighbours with two or more lines through them (X squares).
    x: u128,
    /// Neighbours with at most one line through them (C squares).
    c: u128,
}

/// Everything the evaluation and move ordering need to know about a variant's board.
#[derive(Clone, Debug)]
pub(crate) struct Geometry {
    /// The board's side length.
    size: u32,
    /// The playable squares.
    board: u128,
    /// Playable squares not in the first column (they may shift one column down).
    not_first_col: u128,
    /// Playable squares not in the last column (they may shift one column up).
    not_last_col: u128,
    /// Squares grouped by their base weight, so that the table costs one popcount per class.
    classes: Vec<(i32, u128)>,
    /// The corners with their X and C squares.
    corners: Vec<Corner>,
    /// The base weight of each square, for move ordering.
    weight: [i32; 128],
    /// Anti-Othello: discs and squares count against their owner.
    fewer_wins: bool,
}

/// Whether `(row, col)` is a playable square of a board of side `size`.
fn playable(board: u128, size: i32, row: i32, col: i32) -> bool {
    (0..size).contains(&row) && (0..size).contains(&col) && board >> (row * size + col) & 1 != 0
}

impl Geometry {
    /// Derives the geometry of a variant's board.
    pub(crate) fn new(variant: Variant) -> Geometry {
        let size = i32::from(variant.size());
        let board = variant.playable_mask();
        let bit = |row: i32, col: i32| 1u128 << (row * size + col);
        // The number of lines (of the four directions) that pass through a square, that is
        // with both neighbours on the line playable: only such lines can flip it.
        let lines_through = |row: i32, col: i32| {
            [(0, 1), (1, 0), (1, 1), (1, -1)]
                .into_iter()
                .filter(|&(dr, dc)| {
                    playable(board, size, row + dr, col + dc)
                        && playable(board, size, row - dr, col - dc)
                })
                .count()
        };
        let neighbours = |row: i32, col: i32| {
            (-1..=1)
                .flat_map(move |dr| (-1..=1).map(move |dc| (row + dr, col + dc)))
                .filter(move |&(r, c)| (r, c) != (row, col))
                .filter(move |&(r, c)| playable(board, size, r, c))
        };
        let squares = || {
            (0..size)
                .flat_map(move |row| (0..size).map(move |col| (row, col)))
                .filter(move |&(row, col)| playable(board, size, row, col))
        };

        let mut corners = Vec::new();
        let mut lines = [0usize; 128];
        for (row, col) in squares() {
            lines[(row * size + col) as usize] = lines_through(row, col);
        }
        let lines_at = |row: i32, col: i32| lines[(row * size + col) as usize];
        for (row, col) in squares().filter(|&(r, c)| lines_at(r, c) == 0) {
            let mut corner = Corner {
                square: bit(row, col),
                x: 0,
                c: 0,
            };
            for (r, c) in neighbours(row, col).filter(|&(r, c)| lines_at(r, c) > 0) {
                if lines_at(r, c) >= 2 {
                    corner.x |= bit(r, c);
                } else {
                    corner.c |= bit(r, c);
                }
            }
            corners.push(corner);
        }

        let mut weight = [0i32; 128];
        for (row, col) in squares() {
            let near_border = neighbours(row, col).any(|(r, c)| lines_at(r, c) <= 1);
            weight[(row * size + col) as usize] = match lines_at(row, col) {
                0 => CORNER,
                1 => EDGE,
                2 | 3 => SEMI_EDGE,
                _ if near_border => SECOND_RING,
                _ => 0,
            };
        }
        let mut classes: Vec<(i32, u128)> = Vec::new();
        for (row, col) in squares() {
            let w = weight[(row * size + col) as usize];
            if w == 0 {
                continue;
            }
            match classes.iter_mut().find(|(cw, _)| *cw == w) {
                Some((_, mask)) => *mask |= bit(row, col),
                None => classes.push((w, bit(row, col))),
            }
        }

        let column = |col: i32| (0..size).fold(0u128, |m, row| m | bit(row, col));
        Geometry {
            size: size as u32,
            board,
            not_first_col: board & !column(0),
            not_last_col: board & !column(size - 1),
            classes,
            corners,
            weight,
            fewer_wins: variant.fewer_wins(),
        }
    }

    /// The playable squares.
    pub(crate) fn board(&self) -> u128 {
        self.board
    }

    /// The X and C squares of the corners that are still empty.
    fn dangers(&self, empty: u128) -> (u128, u128) {
        self.corners
            .iter()
            .filter(|corner| corner.square & empty != 0)
            .fold((0, 0), |(x, c), corner| (x | corner.x, c | corner.c))
    }

    /// The ordering weight of each square given the empty squares: its base weight, plus the
    /// danger of the empty corners next to it. Not sign-adjusted for anti-Othello.
    pub(crate) fn square_weights(&self, empty: u128) -> impl Fn(u8) -> i32 + '_ {
        let (x, c) = self.dangers(empty);
        move |sq| {
            let bit = 1u128 << sq;
            let danger = if x & bit != 0 {
                X_DANGER
            } else if c & bit != 0 {
                C_DANGER
            } else {
                0
            };
            let base = self.weight.get(usize::from(sq)).copied().unwrap_or(0);
            let total = base + danger;
            if self.fewer_wins { -total } else { total }
        }
    }

    /// The playable squares next to any square of `set`.
    fn around(&self, set: u128) -> u128 {
        let n = self.size;
        let up = set & self.not_last_col;
        let down = set & self.not_first_col;
        let spread = up << 1
            | down >> 1
            | set << n
            | set >> n
            | up << (n + 1)
            | up >> (n - 1)
            | down << (n - 1)
            | down >> (n + 1);
        spread & self.board
    }

    /// The exact score of a finished game for the mover, whose discs are `me`.
    pub(crate) fn final_score(&self, me: u128, opp: u128) -> i32 {
        let mut margin = me.count_ones() as i32 - opp.count_ones() as i32;
        if self.fewer_wins {
            margin = -margin;
        }
        match margin {
            0 => 0,
            m if m > 0 => WIN_SCORE + m,
            m => -WIN_SCORE + m,
        }
    }

    /// The heuristic score of a position for the mover, whose discs are `me` and moves
    /// `my_moves`.
    pub(crate) fn evaluate(&self, me: u128, opp: u128, my_moves: u128, opp_moves: u128) -> i32 {
        let diff = |mask: u128| (me & mask).count_ones() as i32 - (opp & mask).count_ones() as i32;
        let empty = self.board & !(me | opp);
        let (x, c) = self.dangers(empty);
        let mut material = X_DANGER * diff(x) + C_DANGER * diff(c);
        for &(weight, mask) in &self.classes {
            material += weight * diff(mask);
        }
        let empties = empty.count_ones() as i32;
        if empties <= ENDGAME_EMPTIES {
            material += diff(self.board) * (ENDGAME_EMPTIES + 1 - empties);
        }
        if self.fewer_wins {
            material = -material;
        }
        let mobility = my_moves.count_ones() as i32 - opp_moves.count_ones() as i32;
        let frontier = diff(self.around(empty));
        material + MOBILITY * mobility - FRONTIER * frontier
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(squares: &[i32], size: i32) -> u128 {
        squares.iter().fold(0, |m, &sq| {
            assert!(sq < size * size);
            m | 1 << sq
        })
    }

    #[test]
    fn eight_by_eight_corners_and_dangers() {
        let g = Geometry::new(Variant::Std);
        let corners: Vec<u128> = g.corners.iter().map(|c| c.square).collect();
        assert_eq!(corners, vec![1, 1 << 7, 1 << 56, 1 << 63]);
        // a1: X square b2, C squares b1 and a2.
        assert_eq!(g.corners[0].x, mask(&[9], 8));
        assert_eq!(g.corners[0].c, mask(&[1, 8], 8));
        let w = |sq: usize| g.weight[sq];
        assert_eq!(
            [w(0), w(1), w(2), w(9), w(18), w(27)],
            [CORNER, EDGE, EDGE, SECOND_RING, 0, 0]
        );
    }

    #[test]
    fn octagon_corners_sit_next_to_the_blocked_squares() {
        let g = Geometry::new(Variant::Octagon);
        // c1 (2) and a3 (20) near a1, and likewise at the other three corners.
        let corners = g.corners.iter().fold(0, |m, c| m | c.square);
        assert_eq!(corners, mask(&[2, 7, 20, 29, 70, 79, 92, 97], 10));
        let c1 = g.corners.iter().find(|c| c.square == 1 << 2).expect("c1");
        // b2 (11) and d1 (3) are edge-like; c2 (12) and d2 (13) are X squares.
        assert_eq!(c1.c, mask(&[3, 11], 10));
        assert_eq!(c1.x, mask(&[12, 13], 10));
    }

    #[test]
    fn grand_has_four_corners_and_symmetric_weights() {
        let g = Geometry::new(Variant::Grand);
        assert_eq!(g.corners.len(), 4);
        for sq in 0..100usize {
            let (r, c) = (sq / 10, sq % 10);
            assert_eq!(g.weight[sq], g.weight[(9 - r) * 10 + c]);
            assert_eq!(g.weight[sq], g.weight[c * 10 + r]);
        }
    }

    #[test]
    fn around_does_not_wrap_rows() {
        let g = Geometry::new(Variant::Std);
        // h1 (7): g1, g2, h2 only; a2 (8) must not appear.
        assert_eq!(g.around(1 << 7), mask(&[6, 14, 15], 8));
        let g10 = Geometry::new(Variant::Grand);
        assert_eq!(g10.around(1 << 10), mask(&[0, 1, 11, 20, 21], 10));
    }

    #[test]
    fn anti_inverts_material_but_not_mobility() {
        let std = Geometry::new(Variant::Std);
        let anti = Geometry::new(Variant::Anti);
        let (me, opp) = (1u128, 1u128 << 27 | 1 << 28);
        assert!(std.evaluate(me, opp, 0, 0) > 0);
        assert!(anti.evaluate(me, opp, 0, 0) < 0);
        assert!(anti.evaluate(0, 0, 0b111, 0) > 0);
        assert_eq!(anti.final_score(me, opp), WIN_SCORE + 1);
        assert_eq!(std.final_score(me, opp), -WIN_SCORE - 1);
    }
}
