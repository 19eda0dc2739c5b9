//! The plain-text forms of a few responses, so that a bot can play with `curl` and a shell
//! loop: one value or one decision per line, fields separated by spaces.

use serde_json::Value;

/// One line per pending decision: `turn <leg> <revision> <moves>`, where `<moves>` is the
/// legal moves joined by commas, or `-1` when the only move is a pass.
pub(crate) fn turn_lines(turns: &Value) -> String {
    let mut text = String::new();
    for turn in turns["turns"].as_array().into_iter().flatten() {
        let moves: Vec<String> = turn["request"]["legal_moves"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string)
            .collect();
        let moves = if moves.is_empty() {
            "-1".to_owned()
        } else {
            moves.join(",")
        };
        text.push_str(&format!(
            "turn {} {} {moves}\n",
            turn["leg"], turn["revision"]
        ));
    }
    text
}

/// The line for a match that has ended: `end <status> <reason> <total 0> <total 1> <winner>`,
/// with the winner's participant number, or `-1` when there is none.
pub(crate) fn end_line(snapshot: &Value) -> String {
    let result = &snapshot["result"];
    let field = |value: &Value| match value {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_owned(),
        other => other.to_string(),
    };
    format!(
        "end {} {} {} {} {}\n",
        field(&snapshot["status"]),
        field(&result["reason"]),
        field(&result["totals"][0]),
        field(&result["totals"][1]),
        result["winner"].as_i64().unwrap_or(-1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn turns_become_one_line_each_and_a_pass_is_minus_one() {
        let turns = json!({"turns": [
            {"leg": 0, "revision": 4, "request": {"legal_moves": [19, 26, 37]}},
            {"leg": 1, "revision": 7, "request": {"legal_moves": []}},
        ]});
        assert_eq!(turn_lines(&turns), "turn 0 4 19,26,37\nturn 1 7 -1\n");
        assert_eq!(turn_lines(&json!({"turns": []})), "");
    }

    #[test]
    fn the_end_line_carries_status_reason_totals_and_winner() {
        let finished = json!({"status": "finished", "result": {"reason": "discs", "totals": [70, 58], "winner": 0}});
        assert_eq!(end_line(&finished), "end finished discs 70 58 0\n");
        let aborted = json!({"status": "aborted", "result": {"reason": "no_first_move", "totals": [0, 0], "winner": null}});
        assert_eq!(end_line(&aborted), "end aborted no_first_move 0 0 -1\n");
        assert_eq!(
            end_line(&json!({"status": "expired", "result": null})),
            "end expired - - - -1\n"
        );
    }
}
