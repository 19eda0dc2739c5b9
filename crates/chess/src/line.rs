//! Chess as a start position and a line of UCI moves, for dialects whose clients rebuild a
//! game that way: the moves are the view's `moves`, and Dice Chess adds its dice and DFEN.

use arbiter_plugin::{LineEnd, MoveLine, VariantKey};
use arbiter_rules::Seat;
use serde_json::{Map, Value};

/// The usual start position.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Chess's move line.
pub(crate) struct Line;

impl MoveLine for Line {
    fn white_seat(&self) -> Seat {
        Seat(0)
    }

    fn variant_key(&self, variant: &str) -> Option<VariantKey> {
        let (key, name, short) = match variant {
            "standard" => ("standard", "Standard", "Std"),
            "chess960" => ("chess960", "Chess960", "960"),
            "dice" => ("diceChess", "Dice Chess", "Dice"),
            _ => return None,
        };
        Some(VariantKey { key, name, short })
    }

    fn initial_position(&self, view: &Value) -> String {
        match view["initial_fen"].as_str() {
            Some(fen) if fen != START_FEN => fen.to_owned(),
            _ => "startpos".to_owned(),
        }
    }

    fn position(&self, view: &Value) -> String {
        // Dice Chess's position includes the dice of the turn.
        view["dfen"]
            .as_str()
            .or_else(|| view["fen"].as_str())
            .unwrap_or(START_FEN)
            .to_owned()
    }

    fn moves(&self, view: &Value) -> Vec<String> {
        view["moves"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    }

    fn action(&self, token: &str) -> Option<Value> {
        let token = token.trim().to_ascii_lowercase();
        let plausible =
            (4..=5).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric());
        plausible.then_some(Value::String(token))
    }

    fn to_move(&self, view: &Value) -> Option<Seat> {
        side(&view["to_move"])
    }

    fn extra(&self, view: &Value) -> Map<String, Value> {
        let mut fields = Map::new();
        if !view["dice"].is_null() {
            fields.insert("dice".to_owned(), view["dice"].clone());
            fields.insert("dfen".to_owned(), view["dfen"].clone());
        }
        fields
    }

    fn draw_action(&self, offer: bool) -> Option<Value> {
        Some(serde_json::json!({ "draw": offer }))
    }

    fn draw_offer(&self, view: &Value) -> Option<Seat> {
        side(&view["draw_offer"])
    }

    fn end(&self, rules_reason: &str, won: bool) -> LineEnd {
        match rules_reason {
            "checkmate" => LineEnd::Mate,
            "stalemate" => LineEnd::Stalemate,
            _ if won => LineEnd::VariantEnd,
            _ => LineEnd::Draw,
        }
    }
}

/// The seat of a side named in a view (`white`, `black`).
fn side(value: &Value) -> Option<Seat> {
    match value.as_str()? {
        "white" => Some(Seat(0)),
        "black" => Some(Seat(1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_line_reads_the_views_moves_positions_and_dice() {
        let view = json!({
            "variant": "dice", "initial_fen": START_FEN,
            "fen": "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR w KQkq - 0 1",
            "dfen": "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR w KQkq - 0 1 NR",
            "to_move": "white", "moves": ["a2a3"], "draw_offer": "black",
            "dice": {"nonce": 0, "rolled": [1, 4, 2], "unused": [2, 4], "target": 3, "played": ["a2a3"]},
        });
        assert_eq!(Line.initial_position(&view), "startpos");
        assert!(Line.position(&view).ends_with(" NR"));
        assert_eq!(Line.moves(&view), ["a2a3"]);
        assert_eq!(Line.to_move(&view), Some(Seat(0)));
        assert_eq!(Line.draw_offer(&view), Some(Seat(1)));
        assert_eq!(Line.extra(&view)["dice"]["unused"], json!([2, 4]));
        let chess960 = json!({"initial_fen": "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", "fen": "x", "dfen": null, "dice": null});
        assert_eq!(Line.initial_position(&chess960), chess960["initial_fen"]);
        assert_eq!(Line.position(&chess960), "x");
        assert!(Line.extra(&chess960).is_empty());
    }

    #[test]
    fn tokens_are_uci_moves_and_variants_have_keys() {
        assert_eq!(Line.action("E7E8Q"), Some(json!("e7e8q")));
        for bad in ["e2", "e2e4e5x", "e2-e4", ""] {
            assert_eq!(Line.action(bad), None, "{bad}");
        }
        assert_eq!(Line.variant_key("dice").map(|k| k.key), Some("diceChess"));
        assert_eq!(Line.variant_key("shogi"), None);
        assert_eq!(Line.end("checkmate", true), LineEnd::Mate);
        assert_eq!(Line.end("king_captured", true), LineEnd::VariantEnd);
        assert_eq!(Line.end("fifty_moves", false), LineEnd::Draw);
    }
}
