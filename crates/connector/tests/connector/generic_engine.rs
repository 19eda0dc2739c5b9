//! The example engine for the generic protocol (`examples/goofspiel_engine.py`), run as the
//! connector runs it: one process, one request line in and one answer line out at a time.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::harness::*;

/// A Goofspiel decision for `seat` with `prize` on the table, the given hands and revealed
/// rounds, as the server sends it (with a field the engine does not know).
fn goofspiel(seat: usize, prize: u8, hands: Value, history: Value) -> Value {
    let round = history.as_array().map_or(0, Vec::len) + 1;
    let hand: Vec<u64> = hands[seat]
        .as_array()
        .expect("hands")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let legal: Vec<Value> = hand
        .iter()
        .map(|card| json!({"round": round, "card": card}))
        .collect();
    let seats = hands.as_array().map_or(0, Vec::len);
    json!({"protocol":1,"game":"goofspiel","variant":"standard","match_id":42,"leg":0,
        "seats":seats,"seat":seat,"participant":seat,"phase":round,"revision":round * 3,
        "view":{"round":round,"prize":prize,"prizes_left":hand.len() - 1,"scores":vec![0; seats],
            "hands":hands,"committed":vec![false; seats],"own_bid":null,"deadline_ms":1_764_612_375_678_u64,
            "history":history},
        "legal_actions":legal,"action_grammar":null,"clocks_ms":vec![30_000; seats],
        "remaining_ms":29_000,"budget_ms":10_000,"deadline_ms":1_764_612_345_678_u64,
        "a_field_added_later":{"ignored":true}})
}

#[tokio::test]
async fn the_example_generic_engine_answers_each_request_with_a_legal_action() {
    let Some(python) = python() else { return };
    let full: Vec<u8> = (1..=13).collect();
    let rest: Vec<u8> = (1..=13).filter(|&c| c != 5 && c != 13).collect();
    let history = json!([
        {"round":1,"prize":4,"bids":[5,13],"winner":1,"defaulted":0},
        {"round":2,"prize":10,"bids":[13,5],"winner":0,"defaulted":0}
    ]);
    // (request, the action expected)
    let table: [(Value, Value); 6] = [
        // The highest prize gets the highest card, the lowest the lowest.
        (
            goofspiel(0, 13, json!([full, full]), json!([])),
            json!({"round":1,"card":13}),
        ),
        (
            goofspiel(1, 1, json!([full, full]), json!([])),
            json!({"round":1,"card":1}),
        ),
        // Prizes 4 and 10 are gone: 11 is the ninth of the prizes left (1, 2, 3, 5, 6, 7, 8,
        // 9, 11, 12, 13), and the ninth card of this hand (1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12)
        // is 10.
        (
            goofspiel(1, 11, json!([rest, rest]), history),
            json!({"round":3,"card":10}),
        ),
        // Three seats, the last one deciding.
        (
            goofspiel(2, 13, json!([full, full, full]), json!([])),
            json!({"round":1,"card":13}),
        ),
        // Any other game: the first legal action.
        (
            json!({"protocol":1,"game":"tictactoe","variant":"standard","seat":0,"view":{},
                "legal_actions":["b2","a1"],"remaining_ms":1000,"budget_ms":500}),
            json!("b2"),
        ),
        // A Goofspiel view it cannot read: the first legal action, not a crash.
        (
            json!({"protocol":1,"game":"goofspiel","seat":0,"view":{"prize":"?"},
                "legal_actions":[{"round":1,"card":2}],"remaining_ms":1000}),
            json!({"round":1,"card":2}),
        ),
    ];
    let mut engine = tokio::process::Command::new(python)
        .arg(engine_file("../../examples/goofspiel_engine.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example engine starts");
    let mut stdin = engine.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(engine.stdout.take().expect("stdout")).lines();
    for (request, expected) in table {
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write");
        stdin.flush().await.expect("flush");
        // The next request is only written after the answer, as the connector does: an
        // engine that does not flush would never answer here.
        let line = tokio::time::timeout(Duration::from_secs(30), stdout.next_line())
            .await
            .expect("an answer within 30 s")
            .expect("read")
            .expect("a line");
        let answer: Value = serde_json::from_str(&line).expect("the answer is JSON");
        let action = &answer["action"];
        assert!(
            request["legal_actions"]
                .as_array()
                .is_some_and(|legal| legal.contains(action)),
            "{line} answers {request}"
        );
        assert_eq!(action, &expected, "{request}");
    }
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(30), engine.wait())
        .await
        .expect("the engine ends with its input")
        .expect("status");
    assert!(status.success(), "{status}");
}
