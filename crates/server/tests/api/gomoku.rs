//! Gomoku through the native API, as the family's registration alone brings it: a Renju
//! match whose forbidden point is refused with the rule that forbids it, then won by five.

use serde_json::{Value, json};

use crate::helpers::*;

/// Registers a bot that plays Gomoku; returns its token.
async fn gomoku_bot(app: &TestApp, name: &str) -> String {
    let body = json!({"name": name, "supported_variants": ["gomoku"]});
    let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
    created["token"].as_str().expect("token").to_owned()
}

/// Places a stone for `token`, whose turn it is; returns the reply.
async fn place(app: &TestApp, id: i64, token: &str, x: u8, y: u8) -> Reply {
    let turn = app.turns(id, token).await.remove(0);
    let body = json!({"leg": 0, "revision": turn["revision"], "move": {"x": x, "y": y}});
    app.post(&format!("/matches/{id}/moves"), Some(token), body)
        .await
}

/// Registers Alpha and Beta and has Alpha challenge Beta to Gomoku on `terms`, the challenge
/// body's other fields; returns the match and both tokens.
async fn challenge(app: &TestApp, terms: Value) -> (i64, String, String) {
    let alpha = gomoku_bot(app, "Alpha").await;
    let beta = gomoku_bot(app, "Beta").await;
    let mut body = json!({"opponent": "Beta", "game": "gomoku"});
    if let (Some(body), Some(terms)) = (body.as_object_mut(), terms.as_object()) {
        body.extend(terms.clone());
    }
    let id = app
        .post("/challenges", Some(&alpha), body)
        .await
        .expect(201)["id"]
        .as_i64()
        .expect("id");
    (id, alpha, beta)
}

/// A challenge on `terms`, accepted: a running match and both tokens, Alpha's first.
async fn started(app: &TestApp, terms: Value) -> (i64, String, String) {
    let (id, alpha, beta) = challenge(app, terms).await;
    app.post(&format!("/challenges/{id}/accept"), Some(&beta), json!({}))
        .await
        .expect(200);
    (id, alpha, beta)
}

#[tokio::test]
async fn a_renju_match_refuses_a_double_three_and_ends_with_five() {
    let app = spawn_app().await;
    let (id, black, white) = started(&app, json!({"variant": "renju", "format": "single"})).await;
    let turn = app.turns(id, &black).await.remove(0);
    assert_eq!(turn["request"]["game"], "gomoku");
    assert_eq!(
        turn["request"]["legal_actions"].as_array().map(Vec::len),
        Some(225)
    );

    // Black builds two open threes that meet at (7, 7); White plays far away.
    for (b, w) in [
        ((5, 7), (0, 0)),
        ((6, 7), (0, 2)),
        ((7, 8), (0, 4)),
        ((7, 9), (0, 6)),
    ] {
        place(&app, id, &black, b.0, b.1).await.expect(200);
        place(&app, id, &white, w.0, w.1).await.expect(200);
    }
    let refused = place(&app, id, &black, 7, 7)
        .await
        .expect_error(409, "illegal_move");
    let message = refused["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("double three"), "{refused}");
    let view = &app.snapshot(id).await["legs"][0]["view"];
    assert!(
        view["forbidden"]
            .as_array()
            .is_some_and(|f| f.contains(&json!([7, 7]))),
        "{view}"
    );

    // Five down column 12 instead, White answering far away.
    for (y, w) in [(2, (0, 8)), (3, (0, 10)), (4, (0, 12)), (5, (2, 14))] {
        place(&app, id, &black, 12, y).await.expect(200);
        place(&app, id, &white, w.0, w.1).await.expect(200);
    }
    let end: Value = place(&app, id, &black, 12, 6).await.expect(200);
    assert_eq!(end["status"], "finished", "{end}");
    let result = &app.snapshot(id).await["result"];
    assert_eq!(
        (&result["reason"], &result["winner"]),
        (&json!("five"), &json!(0)),
        "{result}"
    );
}

#[tokio::test]
async fn a_balanced_renju_match_starts_both_legs_from_one_standard_opening() {
    let app = spawn_app().await;
    let (id, alpha, beta) = started(&app, json!({"variant": "renju", "opening": "balanced"})).await;
    let snapshot = app.snapshot(id).await;
    let legs = snapshot["legs"].as_array().expect("legs");
    assert_eq!(legs.len(), 2, "{snapshot}");
    let boards: Vec<&Value> = legs.iter().map(|leg| &leg["view"]["board"]).collect();
    assert_eq!(boards[0], boards[1], "both legs start alike: {snapshot}");
    let stones = |board: &Value, stone: char| -> Vec<(usize, usize)> {
        let rows = board.as_array().expect("rows");
        rows.iter()
            .enumerate()
            .flat_map(|(y, row)| {
                let row = row.as_str().expect("a row").to_owned();
                row.char_indices()
                    .filter(move |&(_, c)| c == stone)
                    .map(move |(x, _)| (x, y))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let (black, white) = (stones(boards[0], 'X'), stones(boards[0], 'O'));
    assert_eq!((black.len(), white.len()), (2, 1), "{snapshot}");
    assert!(
        black.contains(&(7, 7)),
        "Black's first stone is on the centre"
    );
    let (wx, wy) = white[0];
    assert!(
        wx.abs_diff(7) <= 1 && wy.abs_diff(7) <= 1,
        "White's is beside it"
    );
    assert!(
        black
            .iter()
            .all(|&(x, y)| x.abs_diff(7) <= 2 && y.abs_diff(7) <= 2),
        "within the central 5x5: {black:?}"
    );
    for leg in legs {
        let view = &leg["view"];
        assert_eq!(view["next"], "white", "{view}");
        assert_eq!(view["to_move"], 1, "the second seat plays White: {view}");
        assert_eq!(view["history"], json!([]), "{view}");
    }
    // Each bot is White, and to move, in one of the legs.
    let mut legs_to_play = Vec::new();
    for token in [&alpha, &beta] {
        let turns = app.turns(id, token).await;
        assert_eq!(turns.len(), 1, "{turns:?}");
        legs_to_play.push(turns[0]["leg"].as_i64().expect("a leg"));
    }
    legs_to_play.sort_unstable();
    assert_eq!(legs_to_play, [0, 1]);
}

#[tokio::test]
async fn a_swap2_match_refuses_a_balanced_opening() {
    let app = spawn_app().await;
    let alpha = gomoku_bot(&app, "Alpha").await;
    gomoku_bot(&app, "Beta").await;
    // Refused when asked for, not when Beta accepts: the family is asked at once.
    let body = json!({"opponent": "Beta", "game": "gomoku", "variant": "swap2",
        "opening": "balanced", "format": "single"});
    let answer = app
        .post("/challenges", Some(&alpha), body)
        .await
        .expect_error(409, "unsupported_variant");
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|m| m.contains("swap2")),
        "the refusal says why: {answer}"
    );
    let pending = app.get("/challenges", Some(&alpha)).await.expect(200);
    assert_eq!(pending, json!([]), "no challenge was made");
}

#[tokio::test]
async fn under_renju_foul_a_forbidden_stone_loses_the_game() {
    let app = spawn_app().await;
    let (id, black, white) =
        started(&app, json!({"variant": "renju-foul", "format": "single"})).await;
    for (b, w) in [
        ((5, 7), (0, 0)),
        ((6, 7), (0, 2)),
        ((7, 8), (0, 4)),
        ((7, 9), (0, 6)),
    ] {
        place(&app, id, &black, b.0, b.1).await.expect(200);
        place(&app, id, &white, w.0, w.1).await.expect(200);
    }
    let turn = app.turns(id, &black).await.remove(0);
    assert!(
        turn["request"]["legal_actions"]
            .as_array()
            .is_some_and(|legal| legal.contains(&json!({"x": 7, "y": 7}))),
        "a foul may be played: {turn}"
    );
    let end: Value = place(&app, id, &black, 7, 7).await.expect(200);
    assert_eq!(end["status"], "finished", "{end}");
    let result = &app.snapshot(id).await["result"];
    assert_eq!(
        (&result["reason"], &result["winner"]),
        (&json!("foul"), &json!(1)),
        "{result}"
    );
}
