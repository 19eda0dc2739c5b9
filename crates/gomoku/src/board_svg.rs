//! Gomoku's board drawn as SVG for the web pages: a go-style grid of 15, 19 or 20 lines a side
//! with its star points and the coordinates the notation uses, the stones (numbered in order
//! where no hints are drawn, as on a replay), a ring on the last stone, Renju's forbidden
//! points for Black as small red crosses, and, for a person to play, every point they may
//! take as a button (the swap2 choices are the pages' buttons under the board).
//!
//! Seats are not colours in Gomoku: swap2 lets the second seat take Black. The seats are
//! named by the colours they play in the leg drawn (the first seat Black until a swap), and
//! while swap2 has not settled them the drawing says so under the grid.

use std::fmt::Write;

use arbiter_plugin::{BoardOptions, BoardRenderer};
use serde_json::Value;

use crate::board::{Cell, MAX_SIZE};
use crate::rules::{GomokuAction, Phase, Swap2Choice};

/// Gomoku's board for the web pages.
pub(crate) struct Board;

impl BoardRenderer for Board {
    fn svg(&self, view: &Value, options: BoardOptions) -> String {
        Drawing::of_view(view, options).svg()
    }

    fn tallies(&self, view: &Value) -> Vec<u64> {
        let drawing = Drawing::of_view(view, BoardOptions::default());
        let count = |cell| {
            let stones = drawing.cells.iter().filter(|&&c| c == cell).count();
            u64::try_from(stones).unwrap_or(u64::MAX)
        };
        let (black, white) = (count(Cell::Black), count(Cell::White));
        // Until swap2 settles the colours, the first seat is the one placing Black's stones.
        if drawing.black_seat == Some(1) {
            vec![white, black]
        } else {
            vec![black, white]
        }
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["Black", "White"]
    }

    fn seat_names_in(&self, view: &Value) -> Vec<&'static str> {
        if Drawing::of_view(view, BoardOptions::default()).black_seat == Some(1) {
            vec!["White", "Black"]
        } else {
            self.seat_names().to_vec()
        }
    }

    fn history(&self, view: &Value) -> Vec<String> {
        Drawing::of_view(view, BoardOptions::default())
            .history
            .iter()
            .map(|&(x, y)| format!("{x},{y}"))
            .collect()
    }

    fn notation(&self, _view: &Value, action: &Value) -> String {
        match serde_json::from_value::<GomokuAction>(action.clone()) {
            Ok(GomokuAction::Place { x, y }) => format!("{x},{y}"),
            Ok(GomokuAction::Swap2 { swap2 }) => match swap2 {
                Swap2Choice::Black => "Take Black".to_owned(),
                Swap2Choice::White => "Take White".to_owned(),
                Swap2Choice::More => "Place two more stones".to_owned(),
            },
            // Nothing from an unknown action is echoed: the label would be shown as it is.
            Err(_) => "?".to_owned(),
        }
    }

    fn played_on_board(&self, action: &Value) -> bool {
        // Stones are played on their points; the swap2 choices keep their buttons.
        matches!(
            serde_json::from_value::<GomokuAction>(action.clone()),
            Ok(GomokuAction::Place { .. })
        )
    }
}

/// Units between two lines of the grid.
const SPACING: usize = 10;
/// Room for the coordinates above and left of the grid.
const MARGIN: usize = 8;
/// Room under the grid for the line that says who plays which colour.
const LEGEND: usize = 8;
/// A stone's radius.
const STONE: f64 = 4.6;

/// A position to draw, read from a leg's view. It holds only numbers and enums, so nothing
/// the view spells can reach the drawing.
struct Drawing {
    size: usize,
    /// Row by row from the top left.
    cells: Vec<Cell>,
    /// The stones played, in order (a fixed opening's stones are on the board but not here).
    history: Vec<(usize, usize)>,
    /// Black's forbidden points, marked when hints are drawn.
    forbidden: Vec<(usize, usize)>,
    phase: Option<Phase>,
    black_seat: Option<u8>,
    options: BoardOptions,
}

impl Drawing {
    fn of_view(view: &Value, options: BoardOptions) -> Drawing {
        let size = view["size"]
            .as_u64()
            .and_then(|s| usize::try_from(s).ok())
            .filter(|s| (5..=MAX_SIZE).contains(s))
            .unwrap_or(15);
        let mut cells = vec![Cell::Empty; size * size];
        for (y, row) in view["board"].as_array().into_iter().flatten().enumerate() {
            for (x, c) in row.as_str().unwrap_or_default().chars().enumerate() {
                if x < size && y < size {
                    cells[y * size + x] = match c {
                        'X' => Cell::Black,
                        'O' => Cell::White,
                        _ => Cell::Empty,
                    };
                }
            }
        }
        let point = |x: &Value, y: &Value| {
            let x = usize::try_from(x.as_u64()?).ok()?;
            let y = usize::try_from(y.as_u64()?).ok()?;
            (x < size && y < size).then_some((x, y))
        };
        let history = view["history"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|played| point(&played["x"], &played["y"]))
            .collect();
        let forbidden = view["forbidden"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| point(&p[0], &p[1]))
            .collect();
        Drawing {
            size,
            cells,
            history,
            forbidden,
            phase: serde_json::from_value(view["phase"].clone()).ok(),
            black_seat: view["black_seat"]
                .as_u64()
                .and_then(|s| u8::try_from(s).ok())
                .filter(|&s| s < 2),
            options,
        }
    }

    /// Where point (`x`, `y`) is drawn.
    fn at(x: usize, y: usize) -> (usize, usize) {
        (
            MARGIN + SPACING / 2 + x * SPACING,
            MARGIN + SPACING / 2 + y * SPACING,
        )
    }

    /// The star points: three lines in from each corner, and the centre and the middle of
    /// each side on boards with a middle line.
    fn stars(&self) -> Vec<(usize, usize)> {
        let (near, far) = (3, self.size - 4);
        let mut stars = vec![(near, near), (near, far), (far, near), (far, far)];
        if self.size % 2 == 1 {
            let mid = self.size / 2;
            stars.push((mid, mid));
            if self.size >= 19 {
                stars.extend([(mid, near), (mid, far), (near, mid), (far, mid)]);
            }
        }
        stars
    }

    /// Whether a stone may be placed now (not while a swap2 choice is pending).
    fn placing(&self) -> bool {
        matches!(
            self.phase,
            Some(Phase::Play | Phase::Swap2Place | Phase::Swap2More)
        )
    }

    /// The drawing. Every value in it is a number or fixed text, so it needs no escaping.
    fn svg(&self) -> String {
        let n = self.size;
        let grid = n * SPACING;
        let (width, height) = (MARGIN + grid + 2, MARGIN + grid + LEGEND);
        let black = self.cells.iter().filter(|&&c| c == Cell::Black).count();
        let white = self.cells.iter().filter(|&&c| c == Cell::White).count();
        let mut svg = String::with_capacity(16 * 1024);
        let _ = write!(
            svg,
            r##"<svg class="board" viewBox="0 0 {width} {height}" role="img" aria-label="Board {n}x{n}: {black} black, {white} white"><rect x="{MARGIN}" y="{MARGIN}" width="{grid}" height="{grid}" fill="#dcb35c"/>"##
        );
        let (first, last) = (
            MARGIN + SPACING / 2,
            MARGIN + SPACING / 2 + (n - 1) * SPACING,
        );
        for i in 0..n {
            let (at, _) = Drawing::at(i, 0);
            let _ = write!(
                svg,
                r##"<path d="M{at} {first}V{last}M{first} {at}H{last}" stroke="#5d4037" stroke-width="0.5"/><text x="{at}" y="{top}" font-size="3.4" fill="#666" text-anchor="middle" class="coord">{i}</text><text x="{left}" y="{row}" font-size="3.4" fill="#666" text-anchor="middle" class="coord">{i}</text>"##,
                top = MARGIN - 2,
                left = MARGIN / 2,
                row = at + 1,
            );
        }
        for (x, y) in self.stars() {
            let (cx, cy) = Drawing::at(x, y);
            let _ = write!(
                svg,
                r##"<circle cx="{cx}" cy="{cy}" r="1.1" fill="#5d4037"/>"##
            );
        }
        let hints = self.options.hints;
        let buttons = hints && self.options.playable && self.placing();
        let numbered = !hints;
        let opening_stones = (black + white).saturating_sub(self.history.len());
        for y in 0..n {
            for x in 0..n {
                let (cx, cy) = Drawing::at(x, y);
                match self.cells[y * n + x] {
                    Cell::Black => {
                        let _ = write!(
                            svg,
                            r##"<circle cx="{cx}" cy="{cy}" r="{STONE}" fill="#111" class="stone black"/>"##
                        );
                    }
                    Cell::White => {
                        let _ = write!(
                            svg,
                            r##"<circle cx="{cx}" cy="{cy}" r="{STONE}" fill="#f5f5f5" stroke="#111" stroke-width="0.4" class="stone white"/>"##
                        );
                    }
                    Cell::Empty => {
                        let forbidden = self.forbidden.contains(&(x, y));
                        if hints && forbidden {
                            let (a, b) = (cx - 2, cx + 2);
                            let (c, d) = (cy - 2, cy + 2);
                            let _ = write!(
                                svg,
                                r##"<path d="M{a} {c}L{b} {d}M{a} {d}L{b} {c}" stroke="#d32f2f" stroke-width="0.9" class="forbidden"><title>Forbidden for Black</title></path>"##
                            );
                        } else if buttons {
                            // The action is the rules' own value; its quotes are escaped
                            // for the attribute, and the script reads it back as JSON text.
                            let _ = write!(
                                svg,
                                r##"<rect x="{x0}" y="{y0}" width="{SPACING}" height="{SPACING}" fill="transparent" class="play" data-action="{{&quot;x&quot;:{x},&quot;y&quot;:{y}}}" tabindex="0" role="button" aria-label="Play {x},{y}"/>"##,
                                x0 = cx - SPACING / 2,
                                y0 = cy - SPACING / 2,
                            );
                        }
                    }
                }
            }
        }
        if numbered {
            for (i, &(x, y)) in self.history.iter().enumerate() {
                let (cx, cy) = Drawing::at(x, y);
                let number = opening_stones + i + 1;
                let ink = if self.cells[y * n + x] == Cell::Black {
                    "#fff"
                } else {
                    "#111"
                };
                let font = if number < 100 { "4" } else { "3.2" };
                let _ = write!(
                    svg,
                    r##"<text x="{cx}" y="{ty}" font-size="{font}" fill="{ink}" text-anchor="middle" class="number">{number}</text>"##,
                    ty = cy + 1,
                );
            }
        }
        if let Some(&(x, y)) = self.history.last() {
            let (cx, cy) = Drawing::at(x, y);
            let _ = write!(
                svg,
                r##"<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="#e53935" stroke-width="0.9" class="last"/>"##,
                r = STONE + 0.4,
            );
        }
        let legend = match self.black_seat {
            Some(0) => "",
            Some(_) => "Colours swapped by swap2: the second seat plays Black",
            None => "Swap2: the colours are chosen after the opening stones",
        };
        let _ = write!(
            svg,
            r##"<text x="{x}" y="{y}" font-size="3.4" fill="#666" text-anchor="middle" class="coord legend">{legend}</text></svg>"##,
            x = MARGIN + grid / 2,
            y = height - 2,
        );
        svg
    }
}

#[cfg(test)]
mod tests;
