//! The board and its line patterns: fives, overlines, fours, straight fours and Renju's
//! real threes, and the forbidden points of Black under Renju rules.
//!
//! Every question is asked about one point and the four lines through it, so nothing here
//! scans the whole board. The definitions are RIF's, read as computer Renju reads them:
//! a four is a way to complete an exact five (for Black) through the new stone, two ways on
//! one line count as two fours unless they are the two ends of one straight four, and a
//! three is real only if it can become a straight four through a point that is not itself
//! forbidden, which makes the check recursive.

use serde::{Deserialize, Serialize};

/// The largest board side the family plays.
pub const MAX_SIZE: usize = 20;

/// A stone's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    /// Moves first, and alone has forbidden points under Renju rules.
    Black,
    /// Moves second.
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

    fn cell(self) -> Cell {
        match self {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }
}

/// One intersection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// No stone.
    #[default]
    Empty,
    /// A black stone.
    Black,
    /// A white stone.
    White,
}

/// Which lines win, and whether Black has forbidden points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSet {
    /// Five or more in a row wins, for both colours.
    #[default]
    Freestyle,
    /// Exactly five wins, for both colours; an overline does not win and play goes on.
    Standard,
    /// White wins with five or more; Black only with exactly five, and Black may not make an
    /// overline, a double four or a double three.
    Renju,
}

/// Why a point is forbidden to Black under Renju rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Foul {
    /// Six or more in a row.
    Overline,
    /// Two or more fours through the stone, on one line or several.
    DoubleFour,
    /// Two or more real threes through the stone.
    DoubleThree,
}

impl Foul {
    /// The foul in words, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Foul::Overline => "an overline (six or more in a row) is forbidden to Black",
            Foul::DoubleFour => "a double four is forbidden to Black",
            Foul::DoubleThree => "a double three is forbidden to Black",
        }
    }
}

/// The four line directions: along a row, down a column, and the two diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A square board of `size` × `size` intersections, 5 to [`MAX_SIZE`] a side.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Board {
    size: usize,
    /// Row by row: `cells[y * size + x]`.
    cells: Vec<Cell>,
    stones: usize,
}

impl Board {
    /// An empty board. Sides outside 5..=[`MAX_SIZE`] are clamped into it.
    pub fn new(size: usize) -> Board {
        let size = size.clamp(5, MAX_SIZE);
        Board {
            size,
            cells: vec![Cell::Empty; size * size],
            stones: 0,
        }
    }

    /// A board drawn as text, one row per line from the top: `X` black, `O` white, `.` or `_`
    /// empty; spaces are ignored.
    #[cfg(test)]
    fn from_rows(rows: &[&str]) -> Board {
        let mut board = Board::new(rows.len());
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().filter(|c| !c.is_whitespace()).enumerate() {
                let cell = match c {
                    'X' | 'x' => Cell::Black,
                    'O' | 'o' => Cell::White,
                    _ => Cell::Empty,
                };
                if x < board.size && cell != Cell::Empty {
                    board.set(x, y, cell);
                }
            }
        }
        board
    }

    /// The side's length.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many stones are on the board.
    pub fn stones(&self) -> usize {
        self.stones
    }

    /// Whether every intersection holds a stone.
    pub fn is_full(&self) -> bool {
        self.stones == self.cells.len()
    }

    /// The intersection at (`x`, `y`), `None` off the board.
    pub fn get(&self, x: usize, y: usize) -> Option<Cell> {
        (x < self.size && y < self.size).then(|| self.cells[y * self.size + x])
    }

    /// Every row from the top, as cells.
    pub fn rows(&self) -> impl Iterator<Item = &[Cell]> {
        self.cells.chunks(self.size)
    }

    /// Puts `cell` at (`x`, `y`), which must be on the board.
    pub fn set(&mut self, x: usize, y: usize, cell: Cell) {
        let index = y * self.size + x;
        let before = self.cells[index];
        self.cells[index] = cell;
        match (before == Cell::Empty, cell == Cell::Empty) {
            (true, false) => self.stones += 1,
            (false, true) => self.stones -= 1,
            _ => {}
        }
    }

    /// Places a stone of `color` at an empty (`x`, `y`).
    pub fn place(&mut self, x: usize, y: usize, color: Color) {
        self.set(x, y, color.cell());
    }

    fn at(&self, x: i32, y: i32) -> Option<Cell> {
        let (x, y) = (usize::try_from(x).ok()?, usize::try_from(y).ok()?);
        self.get(x, y)
    }

    /// The length of the unbroken row of `cell` through (`x`, `y`) along `(dx, dy)`, the
    /// point itself counted as `cell` whatever it holds.
    fn run(&self, x: i32, y: i32, (dx, dy): (i32, i32), cell: Cell) -> usize {
        let mut length = 1;
        for sign in [1, -1] {
            let mut step = 1;
            while self.at(x + sign * step * dx, y + sign * step * dy) == Some(cell) {
                length += 1;
                step += 1;
            }
        }
        length
    }

    /// Whether a row of `length` stones of `color` wins under `rules`.
    fn wins(length: usize, color: Color, rules: RuleSet) -> bool {
        match (rules, color) {
            (RuleSet::Freestyle, _) | (RuleSet::Renju, Color::White) => length >= 5,
            (RuleSet::Standard, _) | (RuleSet::Renju, Color::Black) => length == 5,
        }
    }

    /// Whether the stone of `color` at (`x`, `y`) — on the board or only supposed there —
    /// completes a winning row under `rules`.
    pub fn makes_five(&self, x: usize, y: usize, color: Color, rules: RuleSet) -> bool {
        let (x, y) = (x as i32, y as i32);
        DIRECTIONS
            .iter()
            .any(|&d| Board::wins(self.run(x, y, d, color.cell()), color, rules))
    }

    /// Whether the stone of `color` at (`x`, `y`) makes a row of six or more.
    fn makes_overline(&self, x: i32, y: i32, color: Color) -> bool {
        DIRECTIONS
            .iter()
            .any(|&d| self.run(x, y, d, color.cell()) >= 6)
    }

    /// The empty points on the line through (`x`, `y`) along `d` that would complete an
    /// exact five of Black with the stone at (`x`, `y`) in it: at most two, nearest first
    /// on the negative side.
    fn completions(&self, x: i32, y: i32, d: (i32, i32)) -> Vec<(i32, i32)> {
        let mut points = Vec::with_capacity(2);
        for step in -4..=4 {
            if step == 0 {
                continue;
            }
            let (qx, qy) = (x + step * d.0, y + step * d.1);
            if self.at(qx, qy) != Some(Cell::Empty) {
                continue;
            }
            // The completion must join the new stone's row: every point between is black.
            let between = (1..step.abs()).all(|k| {
                let k = k * step.signum();
                self.at(x + k * d.0, y + k * d.1) == Some(Cell::Black)
            });
            if between && self.run(qx, qy, d, Cell::Black) == 5 {
                points.push((qx, qy));
            }
        }
        points
    }

    /// The number of Black's fours through (`x`, `y`) along `d`: ways to complete an exact
    /// five through the stone, the two ends of one straight four counting once.
    fn fours_on_line(&self, x: i32, y: i32, d: (i32, i32)) -> usize {
        match self.completions(x, y, d).as_slice() {
            [] => 0,
            [_] => 1,
            [a, b, ..] => {
                // Two completion points five apart hold one straight four between them;
                // closer ones are two fours on one line (`X.XXX.X`).
                let apart = (b.0 - a.0).abs().max((b.1 - a.1).abs());
                if apart == 5 { 1 } else { 2 }
            }
        }
    }

    /// Whether Black's stone at (`x`, `y`) is part of a straight four along `d`: four in a
    /// row with both ends completing an exact five.
    fn straight_four(&self, x: i32, y: i32, d: (i32, i32)) -> bool {
        if self.run(x, y, d, Cell::Black) != 4 {
            return false;
        }
        match self.completions(x, y, d).as_slice() {
            [a, b] => (b.0 - a.0).abs().max((b.1 - a.1).abs()) == 5,
            _ => false,
        }
    }

    /// How many black stones lie within four points of (`x`, `y`) along `d`, on either side,
    /// before a white stone or the edge: the only ones a pattern through the point can use.
    fn black_near(&self, x: i32, y: i32, (dx, dy): (i32, i32)) -> usize {
        let mut count = 0;
        for sign in [1, -1] {
            for step in 1..=4 {
                match self.at(x + sign * step * dx, y + sign * step * dy) {
                    Some(Cell::Black) => count += 1,
                    Some(Cell::Empty) => {}
                    _ => break,
                }
            }
        }
        count
    }

    /// Whether Black's stone at (`x`, `y`) makes a real three along `d`: some empty point on
    /// the line turns it into a straight four through the stone, without making a five, and
    /// that point is not itself forbidden.
    fn real_three(&mut self, x: i32, y: i32, d: (i32, i32), depth: u8) -> bool {
        for step in -4..=4 {
            let (qx, qy) = (x + step * d.0, y + step * d.1);
            if step == 0 || self.at(qx, qy) != Some(Cell::Empty) {
                continue;
            }
            let (ux, uy) = (qx as usize, qy as usize);
            self.set(ux, uy, Cell::Black);
            // The straight four must hold the new stone, and the point may not make a five.
            let straight = self.run(qx, qy, d, Cell::Black) == 4
                && self.run(x, y, d, Cell::Black) == 4
                && self.straight_four(x, y, d)
                && !self.makes_five(ux, uy, Color::Black, RuleSet::Renju);
            self.set(ux, uy, Cell::Empty);
            if straight && self.foul_at(qx, qy, depth + 1).is_none() {
                return true;
            }
        }
        false
    }

    /// Why Black may not play at the empty (`x`, `y`) under Renju rules, or `None` where it
    /// may. A stone that makes an exact five is never forbidden.
    pub fn forbidden(&mut self, x: usize, y: usize) -> Option<Foul> {
        if self.get(x, y) != Some(Cell::Empty) {
            return None;
        }
        self.foul_at(x as i32, y as i32, 0)
    }

    /// [`Board::forbidden`] at any depth of the real-three recursion. Each level adds a
    /// stone, so the recursion ends; deep chains are cut off as not forbidden, which only
    /// positions no game reaches could tell apart.
    fn foul_at(&mut self, x: i32, y: i32, depth: u8) -> Option<Foul> {
        if depth > 6 {
            return None;
        }
        // Every foul needs black stones near the point on its lines: four at least (a
        // double three of two twos, or `X.X?X.X`). Most points have fewer, and this is what
        // makes checking every point of a board cheap.
        let near = DIRECTIONS.map(|d| self.black_near(x, y, d));
        if near.iter().sum::<usize>() < 4 {
            return None;
        }
        let (ux, uy) = (x as usize, y as usize);
        self.set(ux, uy, Cell::Black);
        let foul = if self.makes_five(ux, uy, Color::Black, RuleSet::Renju) {
            None
        } else if self.makes_overline(x, y, Color::Black) {
            Some(Foul::Overline)
        } else {
            // A four needs three other stones on its line, a three two.
            let fours = [0, 1, 2, 3].map(|i| {
                if near[i] >= 3 {
                    self.fours_on_line(x, y, DIRECTIONS[i])
                } else {
                    0
                }
            });
            if fours.iter().sum::<usize>() >= 2 {
                Some(Foul::DoubleFour)
            } else {
                self.double_three(x, y, &fours, &near, depth)
            }
        };
        self.set(ux, uy, Cell::Empty);
        foul
    }

    /// Whether Black's stone at (`x`, `y`) makes two real threes, on lines that hold no
    /// four through it (`fours`, per direction): a line with a four is not a three.
    fn double_three(
        &mut self,
        x: i32,
        y: i32,
        fours: &[usize; 4],
        near: &[usize; 4],
        depth: u8,
    ) -> Option<Foul> {
        let mut threes = 0;
        for i in 0..4 {
            if fours[i] == 0 && near[i] >= 2 && self.real_three(x, y, DIRECTIONS[i], depth) {
                threes += 1;
                if threes == 2 {
                    return Some(Foul::DoubleThree);
                }
            }
        }
        None
    }

    /// Every point forbidden to Black now, with why.
    pub fn forbidden_points(&mut self) -> Vec<((usize, usize), Foul)> {
        let mut points = Vec::new();
        for y in 0..self.size {
            for x in 0..self.size {
                if let Some(foul) = self.forbidden(x, y) {
                    points.push(((x, y), foul));
                }
            }
        }
        points
    }
}

#[cfg(test)]
mod tests;
