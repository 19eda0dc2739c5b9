//! Othello boards drawn as SVG for the web pages: the discs, octagon's blocked corners, a mark
//! on the last move, dots on the legal moves (buttons when the visitor is to play), and the
//! coordinates along two edges.

use std::fmt::Write;

use arbiter_plugin::{BoardOptions, BoardRenderer};
use serde_json::Value;

/// Othello's board for the web pages.
pub(crate) struct Board;

impl BoardRenderer for Board {
    fn svg(&self, view: &Value, options: BoardOptions) -> String {
        let drawing = Drawing::of_view(view, options.hints);
        if options.playable {
            drawing.playable().svg()
        } else {
            drawing.svg()
        }
    }

    fn tallies(&self, view: &Value) -> Vec<u64> {
        let (black, white) = Drawing::of_view(view, false).discs();
        [black, white]
            .into_iter()
            .map(|d| u64::try_from(d).unwrap_or(u64::MAX))
            .collect()
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["Black", "White"]
    }

    fn history(&self, view: &Value) -> Vec<String> {
        let size = board_size(view);
        view["history"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|played| move_name(&played["move"], size))
            .collect()
    }

    fn notation(&self, view: &Value, action: &Value) -> String {
        move_name(action, board_size(view))
    }
}

/// The board's side, 8 when the view does not say.
fn board_size(view: &Value) -> usize {
    usize::try_from(view["board_size"].as_u64().unwrap_or(8)).unwrap_or(8)
}

/// A board to draw, read from a leg's view.
struct Drawing {
    size: usize,
    /// 0 empty, 1 Black, 2 White, row by row from a1.
    cells: Vec<u8>,
    blocked: Vec<usize>,
    last: Option<usize>,
    hints: Vec<usize>,
    /// Whether the visitor may play one of the hinted squares by clicking it.
    playable: bool,
}

/// Units per square in the drawing.
const SQUARE: usize = 10;
/// Room for the coordinates.
const MARGIN: usize = 6;

impl Drawing {
    /// The board of a leg's `view` (as the arena's snapshot shows it); with `hints`, the legal
    /// moves are marked.
    fn of_view(view: &Value, hints: bool) -> Drawing {
        let indices = |v: &Value| -> Vec<usize> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_u64().and_then(|s| usize::try_from(s).ok()))
                .collect()
        };
        let cells: Vec<u8> = view["board"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| u8::try_from(c.as_u64().unwrap_or(0)).unwrap_or(0))
            .collect();
        let size = view["board_size"]
            .as_u64()
            .and_then(|s| usize::try_from(s).ok())
            .unwrap_or(8);
        let last = view["history"]
            .as_array()
            .and_then(|h| h.last())
            .and_then(|played| played["move"].as_u64())
            .and_then(|s| usize::try_from(s).ok());
        Drawing {
            size,
            cells,
            blocked: indices(&view["blocked_squares"]),
            last,
            hints: if hints {
                indices(&view["legal_moves"])
            } else {
                Vec::new()
            },
            playable: false,
        }
    }

    /// Makes the hinted squares buttons for the visitor to play.
    fn playable(mut self) -> Drawing {
        self.playable = true;
        self
    }

    /// Black's and White's discs.
    fn discs(&self) -> (usize, usize) {
        let count = |colour| self.cells.iter().filter(|&&c| c == colour).count();
        (count(1), count(2))
    }

    /// The drawing. Every value in it is a number or fixed text, so it needs no escaping.
    fn svg(&self) -> String {
        let side = self.size * SQUARE + MARGIN;
        let (black, white) = self.discs();
        let mut svg = String::with_capacity(8 * 1024);
        let _ = write!(
            svg,
            r##"<svg class="board" viewBox="0 0 {side} {side}" role="img" aria-label="Board: {black} black, {white} white"><rect x="{MARGIN}" y="0" width="{w}" height="{w}" fill="#2e7d32"/>"##,
            w = self.size * SQUARE
        );
        for i in 0..self.size {
            let at = MARGIN + i * SQUARE + SQUARE / 2;
            let _ = write!(
                svg,
                r##"<text x="{at}" y="{y}" font-size="3.4" fill="#666" text-anchor="middle" class="coord">{c}</text><text x="{x}" y="{row_y}" font-size="3.4" fill="#666" text-anchor="middle" class="coord">{r}</text>"##,
                y = side - 1,
                c = char::from(b'a' + u8::try_from(i).unwrap_or(0)),
                x = MARGIN / 2,
                row_y = i * SQUARE + SQUARE / 2 + 2,
                r = i + 1
            );
        }
        for square in 0..self.size * self.size {
            let (row, column) = (square / self.size, square % self.size);
            let (x, y) = (MARGIN + column * SQUARE, row * SQUARE);
            let (cx, cy) = (x + SQUARE / 2, y + SQUARE / 2);
            if self.blocked.contains(&square) {
                let _ = write!(
                    svg,
                    r##"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="#37474f"/>"##
                );
                continue;
            }
            let _ = write!(
                svg,
                r##"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="none" stroke="#1b5e20" stroke-width="0.4" data-square="{square}"/>"##
            );
            match self.cells.get(square) {
                Some(1) => {
                    let _ = write!(
                        svg,
                        r##"<circle cx="{cx}" cy="{cy}" r="4.2" fill="#111"/>"##
                    );
                }
                Some(2) => {
                    let _ = write!(
                        svg,
                        r##"<circle cx="{cx}" cy="{cy}" r="4.2" fill="#f5f5f5" stroke="#111" stroke-width="0.3"/>"##
                    );
                }
                _ if self.hints.contains(&square) => {
                    let _ = write!(
                        svg,
                        r##"<circle cx="{cx}" cy="{cy}" r="1.2" fill="#000" fill-opacity="0.35" class="hint"/>"##
                    );
                    if self.playable {
                        let name = move_name(&Value::from(square), self.size);
                        let _ = write!(
                            svg,
                            r##"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="transparent" class="play" data-action="{square}" tabindex="0" role="button" aria-label="Play {name}"/>"##
                        );
                    }
                }
                _ => {}
            }
            if self.last == Some(square) {
                let _ = write!(
                    svg,
                    r##"<circle cx="{cx}" cy="{cy}" r="1" fill="#e53935" class="last"/>"##
                );
            }
        }
        svg.push_str("</svg>");
        svg
    }
}

/// A move in words: its coordinate (`d3`, `j10`) or `pass`.
fn move_name(mv: &Value, size: usize) -> String {
    match mv.as_i64() {
        Some(square) if square >= 0 => {
            let square = usize::try_from(square).unwrap_or(0);
            let column = char::from(b'a' + u8::try_from(square % size.max(1)).unwrap_or(0));
            format!("{column}{}", square / size.max(1) + 1)
        }
        Some(_) => "pass".to_owned(),
        None => mv.as_str().unwrap_or("?").to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_board_draws_discs_hints_and_the_last_move() {
        let mut board = vec![0; 64];
        board[27] = 2;
        board[28] = 1;
        board[35] = 1;
        board[36] = 1;
        board[37] = 1;
        let view = json!({
            "board": board, "board_size": 8, "blocked_squares": [],
            "legal_moves": [29, 43, 45], "history": [{"color": 1, "move": 37}],
        });
        let svg = Drawing::of_view(&view, true).svg();
        assert_eq!(
            svg.matches(r##"fill="#111""##).count(),
            4,
            "four black discs"
        );
        assert_eq!(
            svg.matches(r##"fill="#f5f5f5""##).count(),
            1,
            "one white disc"
        );
        assert_eq!(svg.matches("class=\"hint\"").count(), 3);
        assert_eq!(svg.matches("class=\"last\"").count(), 1);
        assert!(svg.contains("aria-label=\"Board: 4 black, 1 white\""));
        assert_eq!(
            Drawing::of_view(&view, false)
                .svg()
                .matches("class=\"hint\"")
                .count(),
            0
        );
    }

    #[test]
    fn octagon_corners_are_drawn_blocked() {
        let view = json!({"board": vec![0; 100], "board_size": 10, "blocked_squares": [0, 1, 10]});
        let svg = Drawing::of_view(&view, false).svg();
        assert_eq!(svg.matches(r##"fill="#37474f""##).count(), 3);
        assert!(svg.contains(">j</text>") && svg.contains(">10</text>"));
    }

    #[test]
    fn moves_are_named_by_their_coordinates() {
        let cases = [
            (json!(19), 8, "d3"),
            (json!(99), 10, "j10"),
            (json!(-1), 8, "pass"),
            (json!(0), 8, "a1"),
        ];
        for (mv, size, name) in cases {
            assert_eq!(move_name(&mv, size), name);
        }
    }

    #[test]
    fn the_renderer_draws_buttons_only_for_the_player_and_names_the_moves() {
        let mut board = vec![0; 64];
        board[27] = 2;
        board[28] = 1;
        board[35] = 1;
        let view = json!({
            "board": board, "board_size": 8, "blocked_squares": [],
            "legal_moves": [29, 43], "history": [{"color": 1, "move": 35}, {"color": 2, "move": -1}],
        });
        let cases = [
            (
                BoardOptions {
                    hints: false,
                    playable: false,
                    ..BoardOptions::default()
                },
                0,
                0,
            ),
            (
                BoardOptions {
                    hints: true,
                    playable: false,
                    ..BoardOptions::default()
                },
                2,
                0,
            ),
            (
                BoardOptions {
                    hints: true,
                    playable: true,
                    ..BoardOptions::default()
                },
                2,
                2,
            ),
            (
                BoardOptions {
                    hints: false,
                    playable: true,
                    ..BoardOptions::default()
                },
                0,
                0,
            ),
        ];
        for (options, hints, buttons) in cases {
            let svg = Board.svg(&view, options);
            assert_eq!(svg.matches("class=\"hint\"").count(), hints, "{options:?}");
            assert_eq!(
                svg.matches("class=\"play\"").count(),
                buttons,
                "{options:?}"
            );
        }
        assert!(
            Board
                .svg(
                    &view,
                    BoardOptions {
                        hints: true,
                        playable: true,
                        ..BoardOptions::default()
                    }
                )
                .contains("aria-label=\"Play f4\"")
        );
        // The page's script posts a button's `data-action` as the action's JSON text.
        assert!(
            Board
                .svg(
                    &view,
                    BoardOptions {
                        hints: true,
                        playable: true,
                        ..BoardOptions::default()
                    }
                )
                .contains("class=\"play\" data-action=\"29\"")
        );
        assert_eq!(Board.tallies(&view), [2, 1]);
        assert_eq!(Board.history(&view), ["d5", "pass"]);
        assert_eq!(Board.notation(&view, &json!(19)), "d3");
        assert_eq!(Board.seat_names(), ["Black", "White"]);
    }
}
