//! Gomoku as a start position and a line of moves, for dialects whose clients rebuild a game
//! that way: the empty board, then the opening's stones and the game's, each a point's name
//! (`h8`: the column's letter from `a`, the row's number from 1 at the top). Only variants
//! whose colours are fixed have a line: a swap2 opening decides who plays which colour.

use arbiter_plugin::{MoveLine, VariantKey};
use arbiter_rules::Seat;
use serde_json::{Value, json};

/// Gomoku's move line.
pub(crate) struct Line;

/// The name of the point at column `x` and row `y`.
fn name(x: u64, y: u64) -> Option<String> {
    let column = char::from(b'a' + u8::try_from(x).ok().filter(|x| *x < 26)?);
    Some(format!("{column}{}", y + 1))
}

impl MoveLine for Line {
    fn white_seat(&self) -> Seat {
        // Black opens, from the first seat, in every variant that has a line.
        Seat(1)
    }

    fn variant_key(&self, variant: &str) -> Option<VariantKey> {
        let (key, name, short) = match variant {
            "freestyle" => ("gomoku", "Gomoku", "Gmk"),
            "standard" => ("gomokuStandard", "Gomoku (exactly five)", "Gmk5"),
            "renju" => ("renju", "Renju", "Rnj"),
            "renju-foul" => ("renjuFoul", "Renju (fouls lose)", "RnjF"),
            "freestyle-19" => ("gomoku19", "Gomoku 19x19", "G19"),
            "freestyle-20" => ("gomoku20", "Gomoku 20x20", "G20"),
            _ => return None,
        };
        Some(VariantKey { key, name, short })
    }

    fn initial_position(&self, _view: &Value) -> String {
        "startpos".to_owned()
    }

    /// The rows from the top (`X` Black, `O` White, `.` empty), then the colour to move.
    fn position(&self, view: &Value) -> String {
        let rows: Vec<&str> = view["board"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let next = match (view["to_move"].is_null(), view["next"].as_str()) {
            (false, Some("white")) => "O",
            (false, _) => "X",
            (true, _) => "-",
        };
        format!("{} {next}", rows.join("/"))
    }

    fn moves(&self, view: &Value) -> Vec<String> {
        let opening = view["opening"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|stone| name(stone[0].as_u64()?, stone[1].as_u64()?));
        let played = view["history"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|stone| name(stone["x"].as_u64()?, stone["y"].as_u64()?));
        opening.chain(played).collect()
    }

    fn action(&self, token: &str) -> Option<Value> {
        let token = token.trim().to_ascii_lowercase();
        let mut chars = token.chars();
        let column = chars.next().filter(char::is_ascii_lowercase)?;
        let row: u32 = chars.as_str().parse().ok().filter(|row| *row >= 1)?;
        Some(json!({"x": u32::from(column) - u32::from('a'), "y": row - 1}))
    }

    fn to_move(&self, view: &Value) -> Option<Seat> {
        view["to_move"]
            .as_u64()
            .and_then(|seat| u8::try_from(seat).ok())
            .map(Seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_points_by_column_letter_and_row_number() {
        let view = json!({
            "board": ["X..", ".O.", "..."], "to_move": 0, "next": "black",
            "opening": [[0, 0]], "history": [{"seat": 1, "color": "white", "x": 1, "y": 1}],
        });
        assert_eq!(Line.moves(&view), ["a1", "b2"]);
        assert_eq!(Line.position(&view), "X../.O./... X");
        assert_eq!(Line.action("H8"), Some(json!({"x": 7, "y": 7})));
        for bad in ["h", "8h", "h0", "h-1"] {
            assert_eq!(Line.action(bad), None, "{bad}");
        }
        assert_eq!(Line.variant_key("swap2"), None);
        assert_eq!(Line.to_move(&view), Some(Seat(0)));
    }
}
