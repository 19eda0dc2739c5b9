//! Line patterns for the house player: what a stone at one point makes on one line, read
//! from a table indexed by the five points on each side of it.
//!
//! The table is exact for the window it sees: a five, a four (one way to complete a five
//! through the stone), an open four (two ways or more, which one move cannot stop), and the
//! threes and twos that one or two more stones turn into fours. It is built once per win
//! condition (exactly five, or five or more), from the lines with the most stones down, so
//! that each shape is read from the shapes of the lines one stone fuller.

use std::sync::LazyLock;

/// Nothing that can become a five on this line.
pub(crate) const NONE: u8 = 0;
/// One more stone makes a three.
pub(crate) const TWO: u8 = 1;
/// One more stone makes an open three.
pub(crate) const OPEN_TWO: u8 = 2;
/// One more stone makes a four.
pub(crate) const THREE: u8 = 3;
/// One more stone makes an open four.
pub(crate) const OPEN_THREE: u8 = 4;
/// One way to complete a five.
pub(crate) const FOUR: u8 = 5;
/// Two or more ways to complete a five: one move cannot stop it.
pub(crate) const OPEN_FOUR: u8 = 6;
/// A winning row.
pub(crate) const FIVE: u8 = 7;

/// Points read on each side of the stone.
pub(crate) const REACH: usize = 5;

/// What a neighbour on the line holds, seen from the stone's colour.
pub(crate) const EMPTY: usize = 0;
/// A stone of the same colour.
pub(crate) const OWN: usize = 1;
/// A stone of the other colour, or the edge of the board.
pub(crate) const BLOCKED: usize = 2;

/// Entries of a table: three states for each of the ten neighbours.
const ENTRIES: usize = 59_049;

/// The weight of neighbour `k` (0 to 9: offsets -5 to -1, then 1 to 5) in a table index.
pub(crate) const WEIGHTS: [usize; 2 * REACH] = {
    let mut weights = [1; 2 * REACH];
    let mut k = 1;
    while k < 2 * REACH {
        weights[k] = weights[k - 1] * 3;
        k += 1;
    }
    weights
};

/// The shape of every line through a stone, for one win condition.
pub(crate) struct LineTable {
    shapes: Vec<u8>,
}

impl LineTable {
    /// The shape of the line whose neighbours give `index` (the sum of each neighbour's
    /// state times its weight).
    #[inline]
    pub(crate) fn shape(&self, index: usize) -> u8 {
        self.shapes[index]
    }

    /// The table for lines that win with exactly five (`exact`) or with five or more.
    fn build(exact: bool) -> LineTable {
        let mut shapes = vec![NONE; ENTRIES];
        // Fuller lines first: a line's threes and twos are read from the lines one stone
        // fuller, which are then already known.
        let mut order: Vec<usize> = (0..ENTRIES).collect();
        order.sort_by_key(|&index| std::cmp::Reverse(own_count(index)));
        for index in order {
            shapes[index] = classify(index, exact, &shapes);
        }
        LineTable { shapes }
    }
}

/// The two tables: a win by exactly five, and by five or more. They are constants, computed
/// once because they are too large to write out; nothing about a game changes them.
pub(crate) struct Tables {
    /// Wins by exactly five.
    pub(crate) exact: LineTable,
    /// Wins by five or more.
    pub(crate) free: LineTable,
}

/// The tables, built on first use.
pub(crate) static TABLES: LazyLock<Tables> = LazyLock::new(|| Tables {
    exact: LineTable::build(true),
    free: LineTable::build(false),
});

fn own_count(index: usize) -> usize {
    decode(index).iter().filter(|&&c| c == OWN).count()
}

/// The eleven points of the line, the stone in the middle.
fn decode(mut index: usize) -> [usize; 2 * REACH + 1] {
    let mut line = [OWN; 2 * REACH + 1];
    for k in 0..2 * REACH {
        let point = if k < REACH { k } else { k + 1 };
        line[point] = index % 3;
        index /= 3;
    }
    line
}

/// The table index of neighbour `point` (0 to 10 along the line, 5 being the stone).
fn weight_of(point: usize) -> usize {
    WEIGHTS[if point < REACH { point } else { point - 1 }]
}

/// Whether the line makes a winning row through the middle.
fn five(line: &[usize; 2 * REACH + 1], exact: bool) -> bool {
    let mut length = 1;
    let mut left = REACH;
    while left > 0 && line[left - 1] == OWN {
        left -= 1;
        length += 1;
    }
    let mut right = REACH;
    while right < 2 * REACH && line[right + 1] == OWN {
        right += 1;
        length += 1;
    }
    // A run through the middle of five or fewer stones ends inside the window, so its
    // length is exact; a longer one is at least six, whatever lies beyond the window.
    if exact { length == 5 } else { length >= 5 }
}

fn classify(index: usize, exact: bool, shapes: &[u8]) -> u8 {
    let mut line = decode(index);
    if five(&line, exact) {
        return FIVE;
    }
    // Fours: the empty points within four of the stone that complete a five through it.
    let mut completions = 0;
    for point in REACH - 4..=REACH + 4 {
        if line[point] != EMPTY {
            continue;
        }
        line[point] = OWN;
        completions += usize::from(five(&line, exact));
        line[point] = EMPTY;
    }
    match completions {
        0 => {}
        1 => return FOUR,
        _ => return OPEN_FOUR,
    }
    // Otherwise the best shape one more stone makes decides.
    let mut best = NONE;
    for point in REACH - 4..=REACH + 4 {
        if line[point] != EMPTY {
            continue;
        }
        let next = match shapes[index + weight_of(point)] {
            OPEN_FOUR => OPEN_THREE,
            FOUR => THREE,
            OPEN_THREE => OPEN_TWO,
            THREE => TWO,
            _ => NONE,
        };
        best = best.max(next);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line` is the eleven points, the middle one `*` (the stone asked about): `X` own,
    /// `O` blocked, `.` empty.
    fn shape_of(table: &LineTable, line: &str) -> u8 {
        let cells: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(cells.len(), 2 * REACH + 1, "{line}");
        assert_eq!(cells[REACH], '*', "{line}");
        let mut index = 0;
        for (point, c) in cells.into_iter().enumerate() {
            let state = match c {
                'X' => OWN,
                'O' => BLOCKED,
                _ => EMPTY,
            };
            if point != REACH {
                index += state * weight_of(point);
            }
        }
        table.shape(index)
    }

    #[test]
    fn shapes_of_lines() {
        let cases: &[(&str, u8, u8)] = &[
            // line, with five or more, with exactly five
            ("O . . X X * X X . . O", FIVE, FIVE),
            (". . X X X * X X . . .", FIVE, NONE),
            (". . . X X * X . . . .", OPEN_FOUR, OPEN_FOUR),
            (". . O X X * X . . . .", FOUR, FOUR),
            (". . . X . * X X . . .", FOUR, FOUR),
            (". . X . X * X . X . .", OPEN_FOUR, OPEN_FOUR),
            (". . . . X * X . . . .", OPEN_THREE, OPEN_THREE),
            (". . . O X * X . . . .", THREE, THREE),
            (". . . . X * . X . . .", OPEN_THREE, OPEN_THREE),
            (". . . O X * X O . . .", NONE, NONE),
            (". . . . . * X . . . .", OPEN_TWO, OPEN_TWO),
            (". . . . O * X . . . .", TWO, TWO),
            (". . . . . * . . . . .", NONE, NONE),
            // An exact five needs the point past a four of five to stay empty.
            ("X . X X X * . . . . .", OPEN_FOUR, FOUR),
            (". X X X X * . . . . .", FIVE, FIVE),
            ("X X X X X * . . . . .", FIVE, NONE),
        ];
        for &(line, free, exact) in cases {
            assert_eq!(shape_of(&TABLES.free, line), free, "five or more: {line}");
            assert_eq!(shape_of(&TABLES.exact, line), exact, "exactly five: {line}");
        }
    }
}
