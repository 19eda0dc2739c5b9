//! Othello as a start position and a line of moves, for dialects whose clients rebuild a
//! game that way: the variant's usual start, then the opening's moves and the game's, each
//! a square's name (`d3`) or `pass`.

use arbiter_othello::coord::Move;
use arbiter_plugin::{MoveLine, VariantKey};
use arbiter_rules::Seat;
use serde_json::{Value, json};

/// Othello's move line.
pub(crate) struct Line;

impl Line {
    /// The board's side in a view.
    fn size(view: &Value) -> u8 {
        view["board_size"]
            .as_u64()
            .and_then(|s| u8::try_from(s).ok())
            .unwrap_or(8)
    }
}

/// The name of a move stored as its square index (`-1` for a pass) on a board of `size`.
fn name(index: &Value, size: u8) -> Option<String> {
    let mv: Move = serde_json::from_value(index.clone()).ok()?;
    Some(mv.name(size))
}

impl MoveLine for Line {
    fn white_seat(&self) -> Seat {
        // Black moves first, from the first seat.
        Seat(1)
    }

    fn variant_key(&self, variant: &str) -> Option<VariantKey> {
        let (key, name, short) = match variant {
            "std" => ("othello", "Othello", "Oth"),
            "anti" => ("antiOthello", "Anti-Othello", "Anti"),
            "grand" => ("grandOthello", "Grand Othello", "Grand"),
            "octagon" => ("octagonOthello", "Octagon Othello", "Oct"),
            "reversi" => ("reversi", "Reversi", "Rev"),
            _ => return None,
        };
        Some(VariantKey { key, name, short })
    }

    fn initial_position(&self, _view: &Value) -> String {
        "startpos".to_owned()
    }

    /// The rows from the top, `X` Black, `O` White, `-` empty and `#` blocked, then the
    /// colour to move (`X`, `O`, or `-` once the game is over).
    fn position(&self, view: &Value) -> String {
        let size = usize::from(Self::size(view)).max(1);
        let blocked: Vec<u64> = view["blocked_squares"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .collect();
        let cells: Vec<char> = view["board"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, cell)| match cell.as_u64() {
                Some(1) => 'X',
                Some(2) => 'O',
                _ if blocked.contains(&(i as u64)) => '#',
                _ => '-',
            })
            .collect();
        let rows: Vec<String> = cells.chunks(size).map(|row| row.iter().collect()).collect();
        let to_move = match view["to_move"].as_u64() {
            Some(1) => 'X',
            Some(2) => 'O',
            _ => '-',
        };
        format!("{} {to_move}", rows.join("/"))
    }

    fn moves(&self, view: &Value) -> Vec<String> {
        let size = Self::size(view);
        let opening = view["opening"].as_array().into_iter().flatten();
        let played = view["history"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|played| &played["move"]);
        opening
            .chain(played)
            .filter_map(|index| name(index, size))
            .collect()
    }

    fn action(&self, token: &str) -> Option<Value> {
        let plausible =
            (2..=4).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric());
        plausible.then(|| json!(token))
    }

    fn to_move(&self, view: &Value) -> Option<Seat> {
        match view["to_move"].as_u64()? {
            1 => Some(Seat(0)),
            2 => Some(Seat(1)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_the_opening_then_the_game_from_the_start() {
        let mut board = vec![0; 64];
        board[27] = 1;
        board[28] = 2;
        let view = json!({
            "board_size": 8, "board": board, "blocked_squares": [0], "to_move": 2,
            "opening": [19, 18], "history": [{"color": 1, "move": 37}, {"color": 2, "move": -1}],
        });
        assert_eq!(Line.moves(&view), ["d3", "c3", "f5", "pass"]);
        let rows = "#-------/--------/--------/---XO---/--------/--------/--------/--------";
        assert_eq!(Line.position(&view), format!("{rows} O"));
        assert_eq!(Line.to_move(&view), Some(Seat(1)));
        assert_eq!(Line.action("d3"), Some(json!("d3")));
        assert_eq!(Line.action("d3/../x"), None);
        assert_eq!(Line.variant_key("std").map(|k| k.key), Some("othello"));
    }
}
