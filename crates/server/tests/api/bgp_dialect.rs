//! The Board Game Protocol's table side as this server implements it: a whole match between
//! two guests, registered agents' matches seen through the native API, Othello through the
//! protocol, the per-turn clock on the injected clock, a restart, private analysis, and the
//! wire shapes field by field.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::*;

/// Request headers, by name.
type Headers<'a> = Vec<(&'a str, &'a str)>;

/// POSTs `body` to the protocol's `path` with `headers`.
async fn post(app: &TestApp, path: &str, headers: &[(&str, &str)], body: Value) -> Reply {
    app.call_root(Method::POST, path, headers, Some(body)).await
}

/// GETs the protocol's `path` with `headers`.
async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Reply {
    app.call_root(Method::GET, path, headers, None).await
}

/// Creates a match with `body` and `headers`; returns its id and the whole answer.
async fn create(app: &TestApp, headers: &[(&str, &str)], body: Value) -> (String, Value) {
    let created = post(app, "/api/matches", headers, body).await.expect(201);
    let id = created["match_id"].as_str().expect("match_id").to_owned();
    (id, created)
}

/// Match `id` as a spectator reads it through the protocol.
async fn snapshot(app: &TestApp, id: &str) -> Value {
    get(app, &format!("/api/matches/{id}"), &[])
        .await
        .expect(200)
}

/// A running match between guests `alice` (seat 0) and `bob` (seat 1): id and tokens.
async fn guests(app: &TestApp, game: &str, config: Value) -> (String, String, String) {
    let (id, created) = create(app, &[], json!({"game": game, "config": config, "player": {"name": "alice", "display_name": "Alice"}})).await;
    let joined = post(
        app,
        &format!("/api/matches/{id}/join"),
        &[],
        json!({"player": {"name": "bob", "display_name": "Bob"}}),
    )
    .await
    .expect(200);
    (
        id,
        created["play_token"].as_str().expect("token").to_owned(),
        joined["play_token"].as_str().expect("token").to_owned(),
    )
}

async fn place(app: &TestApp, id: &str, token: &str, x: u32, y: u32) -> Reply {
    post(
        app,
        &format!("/api/matches/{id}/action"),
        &[("X-Play-Token", token)],
        json!({"type": "place_stone", "x": x, "y": y}),
    )
    .await
}

/// Every event of a match, as `headers` may read them, checking that `seq` has no gap.
async fn all_events(app: &TestApp, id: &str, headers: &[(&str, &str)]) -> Vec<Value> {
    let mut events: Vec<Value> = Vec::new();
    let mut since = 0;
    loop {
        let page = get(
            app,
            &format!("/api/matches/{id}/events?since={since}"),
            headers,
        )
        .await
        .expect(200);
        let batch = page["events"].as_array().cloned().unwrap_or_default();
        if batch.is_empty() {
            assert_eq!(page["next_since"], since, "{page}");
            return events;
        }
        for event in batch {
            assert_eq!(event["seq"], events.len() + 1, "seq has no gap: {event}");
            events.push(event);
        }
        since = page["next_since"].as_i64().expect("next_since");
    }
}

fn types(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or_default())
        .collect()
}

/// Black plays (0..5, 0) and White (0..4, 1): Black's fifth stone makes five in a row.
async fn play_five(app: &TestApp, id: &str, black: &str, white: &str) -> Value {
    for x in 0..4 {
        place(app, id, black, x, 0).await.expect(200);
        place(app, id, white, x, 1).await.expect(200);
    }
    place(app, id, black, 4, 0).await.expect(200)
}

#[tokio::test]
async fn two_guests_play_a_whole_match() {
    let app = spawn_app().await;
    let (id, created) = create(&app, &[], json!({"game": "gomoku", "config": {"board_size": 15, "turn_timeout": 120}, "player": {"name": "alice", "display_name": "Alice", "meta": {"model": "m"}}})).await;
    let token = created["play_token"].as_str().expect("play_token");
    assert!(
        token.starts_with("pk_live_") && token.len() == 8 + 43,
        "{token}"
    );
    let root = app.root();
    assert_eq!(
        created,
        json!({
            "match_id": id,
            "seat": 0,
            "play_token": token,
            "invite_url": format!("{root}/matches/{id}"),
            "claim_url": format!("{root}/matches/{id}/claim"),
            "status": "waiting",
            "config": {"board_size": 15, "turn_timeout": 120, "variant": "freestyle"},
            "game": "gomoku",
        })
    );
    let joined = post(
        &app,
        &format!("/api/matches/{id}/join"),
        &[],
        json!({"player": {"name": "bob"}}),
    )
    .await
    .expect(200);
    let white = joined["play_token"].as_str().expect("token").to_owned();
    assert_eq!(joined["status"], "in_progress");
    assert_eq!(joined["current_seat"], 0);
    assert_eq!(joined["deadline_ts"], (T0 + 120_000) / 1000);

    let first = place(&app, &id, token, 7, 7).await.expect(200);
    assert_eq!(first["accepted"], true);
    assert_eq!(first["seq"], 1, "the first move");
    assert_eq!(
        first["events_since"], 4,
        "the page after 4 starts with the stone"
    );
    assert_eq!(first["status"], "in_progress");
    assert_eq!(first["current_seat"], 1);
    assert_eq!(
        first["board_snapshot"],
        json!({"board_size": 15, "stones": [{"x": 7, "y": 7, "color": "black", "seq": 1}], "last_move": {"x": 7, "y": 7}, "move_count": 1})
    );
    let seen = get(&app, &format!("/api/matches/{id}?seat=1"), &[])
        .await
        .expect(200);
    assert_eq!(seen["your_turn"], true);
    assert_eq!(
        seen["players"],
        json!([
            {"seat": 0, "name": "alice", "display_name": "Alice", "is_guest": true, "agent_id": null},
            {"seat": 1, "name": "bob", "display_name": "bob", "is_guest": true, "agent_id": null},
        ])
    );
    assert!(
        !seen.to_string().contains("\"model\""),
        "meta is never shown: {seen}"
    );
    let mine = get(
        &app,
        &format!("/api/matches/{id}"),
        &[("X-Play-Token", token)],
    )
    .await
    .expect(200);
    assert_eq!(mine["your_turn"], false);

    // Black's stones go on row 0 from x = 1 on and White's on row 1, four each; White's
    // fifth goes elsewhere, and Black's at (0, 0) makes five.
    for x in 1..5 {
        place(&app, &id, &white, x, 1).await.expect(200);
        place(&app, &id, token, x, 0).await.expect(200);
    }
    place(&app, &id, &white, 9, 9).await.expect(200);
    let last = place(&app, &id, token, 0, 0).await.expect(200);
    assert_eq!(last["status"], "finished");
    assert_eq!(last["seq"], 11, "the eleventh move wins");
    assert_eq!(
        last["result"],
        json!({"winner_seat": 0, "reason": "five_in_row", "summary": "black wins on move 11 (five_in_row)", "claim_url": format!("{root}/matches/{id}/claim")})
    );
    let events = all_events(&app, &id, &[]).await;
    let mut expected = vec![
        "match_created",
        "player_joined",
        "match_started",
        "turn_started",
    ];
    for _ in 0..10 {
        expected.extend(["stone_placed", "turn_started"]);
    }
    expected.extend(["stone_placed", "match_finished"]);
    assert_eq!(types(&events), expected);
    let stone = &events[4];
    assert_eq!(stone["seat"], 0);
    assert_eq!(
        (stone["x"].clone(), stone["y"].clone()),
        (json!(7), json!(7))
    );
    assert_eq!(stone["color"], "black");
    assert_eq!(
        events[1],
        json!({"seq": 2, "type": "player_joined", "seat": 1, "name": "bob", "ts": "2026-11-28T21:06:40Z"})
    );
    let snapshot = snapshot(&app, &id).await;
    assert_eq!(snapshot["events_total"], events.len());
    assert_eq!(snapshot["render"]["move_count"], 11);

    let claim = get(&app, &format!("/matches/{id}/claim"), &[]).await;
    assert_eq!(claim.status, 200);
    assert!(
        claim.headers["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/html")
    );
    for part in [
        "<svg",
        "Alice",
        "black wins on move 11",
        "Play again",
        "/claim",
    ] {
        assert!(claim.text.contains(part), "the claim page shows {part:?}");
    }
    // The rematch command the page shows is one a guest can run as it is, names aside.
    let command = claim
        .text
        .split("-d '")
        .nth(1)
        .and_then(|rest| rest.split("'</pre>").next())
        .expect("a rematch command");
    let body: Value = serde_json::from_str(
        &command
            .replace("&quot;", "\"")
            .replace("YOUR-NAME", "carol"),
    )
    .expect("the command's body is JSON");
    let (_, rematch) = create(&app, &[], body).await;
    assert_eq!(rematch["config"], snapshot["config"]);
}

#[tokio::test]
async fn refusals_answer_in_the_protocol_s_shape_and_change_nothing() {
    let app = spawn_app().await;
    let (id, black, white) = guests(&app, "gomoku", json!({})).await;
    place(&app, &id, &black, 7, 7).await.expect(200);
    let action = format!("/api/matches/{id}/action");
    let stone = |x: i64, y: i64| json!({"type": "place_stone", "x": x, "y": y});
    let cases: Vec<(&str, Headers<'_>, Value, u16, &str)> = vec![
        (
            "the other seat's turn",
            vec![("X-Play-Token", black.as_str())],
            stone(1, 1),
            409,
            "not_your_turn",
        ),
        (
            "an occupied point",
            vec![("X-Play-Token", white.as_str())],
            stone(7, 7),
            422,
            "invalid_move",
        ),
        (
            "off the board",
            vec![("X-Play-Token", white.as_str())],
            stone(15, 0),
            422,
            "invalid_move",
        ),
        (
            "a token of nobody",
            vec![("X-Play-Token", "pk_live_nope")],
            stone(1, 1),
            401,
            "invalid_token",
        ),
        ("no credential", vec![], stone(1, 1), 401, "invalid_token"),
        (
            "a negative coordinate",
            vec![("X-Play-Token", white.as_str())],
            stone(-1, 0),
            400,
            "bad_request",
        ),
        (
            "an unknown action",
            vec![("X-Play-Token", white.as_str())],
            json!({"type": "castle"}),
            400,
            "bad_request",
        ),
        (
            "a pass in a game without one",
            vec![("X-Play-Token", white.as_str())],
            json!({"type": "pass"}),
            422,
            "invalid_move",
        ),
        (
            "a seat the token is not",
            vec![("X-Play-Token", white.as_str())],
            json!({"type": "place_stone", "x": 1, "y": 1, "seat": 0}),
            403,
            "wrong_seat",
        ),
        (
            "a long comment",
            vec![("X-Play-Token", white.as_str())],
            json!({"type": "place_stone", "x": 1, "y": 1, "comment": "x".repeat(501)}),
            400,
            "bad_request",
        ),
        (
            "a large analysis",
            vec![("X-Play-Token", white.as_str())],
            json!({"type": "place_stone", "x": 1, "y": 1, "analysis": {"pad": "x".repeat(4100)}}),
            400,
            "bad_request",
        ),
    ];
    for (what, headers, body, status, code) in cases {
        let reply = post(&app, &action, &headers, body).await;
        assert_eq!(reply.status.as_u16(), status, "{what}: {}", reply.text);
        assert_eq!(reply.body["error"], code, "{what}: {}", reply.text);
        assert!(
            reply.body["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{what}"
        );
        assert!(reply.body["detail"].is_object(), "{what}: {}", reply.text);
    }
    let occupied = place(&app, &id, &white, 7, 7).await;
    assert_eq!(occupied.body["detail"]["reason"], "occupied");
    let outside = place(&app, &id, &white, 15, 3).await;
    assert_eq!(outside.body["detail"]["reason"], "out_of_board");
    let in_query = post(
        &app,
        &format!("{action}?play_token={white}"),
        &[],
        stone(1, 1),
    )
    .await;
    assert_eq!(in_query.status, 400);
    assert!(
        in_query.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("header")
    );
    let full = post(
        &app,
        &format!("/api/matches/{id}/join"),
        &[],
        json!({"player": {"name": "carol"}}),
    )
    .await;
    assert_eq!(
        (full.status.as_u16(), full.body["error"].clone()),
        (409, json!("match_full"))
    );
    let missing = get(&app, "/api/matches/999999", &[]).await;
    assert_eq!(
        (missing.status.as_u16(), missing.body["error"].clone()),
        (404, json!("match_not_found"))
    );
    let unserved = post(
        &app,
        "/api/matches",
        &[],
        json!({"game": "goofspiel", "player": {"name": "dan"}}),
    )
    .await;
    assert_eq!(unserved.status, 400);
    assert!(
        unserved.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("gomoku"),
        "{}",
        unserved.text
    );
    // Nothing refused changed the match: one stone, White to move.
    let snapshot = snapshot(&app, &id).await;
    assert_eq!(snapshot["render"]["move_count"], 1);
    assert_eq!(snapshot["current_seat"], 1);
    place(&app, &id, &white, 1, 1).await.expect(200);
}

#[tokio::test]
async fn a_duplicate_guest_name_is_refused() {
    let app = spawn_app().await;
    let (id, _) = create(&app, &[], json!({"player": {"name": "alice"}})).await;
    let again = post(
        &app,
        &format!("/api/matches/{id}/join"),
        &[],
        json!({"player": {"name": "alice"}}),
    )
    .await;
    assert_eq!(
        (again.status.as_u16(), again.body["error"].clone()),
        (409, json!("duplicate_player"))
    );
}

#[tokio::test]
async fn registered_agents_play_a_rated_match_the_native_api_shows() {
    let app = spawn_app().await;
    let mut keys = Vec::new();
    for name in ["Stonecutter", "Riverbend"] {
        let body = app
            .post(
                "/admin/bots",
                Some(ADMIN),
                json!({"name": name, "supported_variants": ["freestyle"]}),
            )
            .await
            .expect(201);
        keys.push(body["token"].as_str().expect("token").to_owned());
    }
    let bearer = |key: &str| format!("Bearer {key}");
    let (a, b) = (bearer(&keys[0]), bearer(&keys[1]));
    let (id, created) = create(
        &app,
        &[("Authorization", a.as_str())],
        json!({"game": "gomoku"}),
    )
    .await;
    post(
        &app,
        &format!("/api/matches/{id}/join"),
        &[("Authorization", b.as_str())],
        json!({}),
    )
    .await
    .expect(200);
    // An agent acts with its bearer key as well as with its play token.
    for x in 0..4 {
        post(
            &app,
            &format!("/api/matches/{id}/action"),
            &[("Authorization", a.as_str())],
            json!({"type": "place_stone", "x": x, "y": 0}),
        )
        .await
        .expect(200);
        post(
            &app,
            &format!("/api/matches/{id}/action"),
            &[("Authorization", b.as_str())],
            json!({"type": "place_stone", "x": x, "y": 1}),
        )
        .await
        .expect(200);
    }
    let token = created["play_token"].as_str().expect("token");
    place(&app, &id, token, 4, 0).await.expect(200);
    let seen = snapshot(&app, &id).await;
    assert_eq!(seen["players"][0]["name"], "Stonecutter");
    assert_eq!(seen["players"][0]["is_guest"], false);
    assert!(seen["players"][0]["agent_id"].is_string());
    let native = app.get(&format!("/matches/{id}"), None).await.expect(200);
    assert_eq!(native["status"], "finished");
    assert_eq!(native["game"], "gomoku");
    assert_eq!(native["rated"], true, "two registered agents' match counts");
    let names: Vec<&str> = native["participants"]
        .as_array()
        .expect("participants")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["Stonecutter", "Riverbend"]);
    // A guest's match is never rated.
    let (guest_match, black, white) = guests(&app, "gomoku", json!({})).await;
    play_five(&app, &guest_match, &black, &white).await;
    // An agent without a seat there reads it as any spectator does.
    let read = all_events(&app, &guest_match, &[("Authorization", a.as_str())]).await;
    assert_eq!(read, all_events(&app, &guest_match, &[]).await);
    let native = app
        .get(&format!("/matches/{guest_match}"), None)
        .await
        .expect(200);
    assert_eq!(native["rated"], false);
}

#[tokio::test]
async fn othello_is_played_through_the_protocol() {
    let app = spawn_app().await;
    let (id, black, white) = guests(&app, "othello", json!({})).await;
    let snapshot = snapshot(&app, &id).await;
    assert_eq!(snapshot["render"]["board_size"], 8);
    assert_eq!(
        snapshot["render"]["stones"].as_array().map(Vec::len),
        Some(4)
    );
    // Black has moves, so the rules refuse its pass.
    let pass = post(
        &app,
        &format!("/api/matches/{id}/action"),
        &[("X-Play-Token", black.as_str())],
        json!({"type": "pass"}),
    )
    .await;
    assert_eq!(
        (pass.status.as_u16(), pass.body["error"].clone()),
        (422, json!("invalid_move"))
    );
    assert_eq!(pass.body["detail"]["reason"], "illegal");
    // d3 (column 3, row 2) flips d4.
    let played = place(&app, &id, &black, 3, 2).await.expect(200);
    assert_eq!(
        played["board_snapshot"]["stones"].as_array().map(Vec::len),
        Some(5)
    );
    let flipped = place(&app, &id, &white, 0, 0).await;
    assert_eq!(
        (
            flipped.status.as_u16(),
            flipped.body["detail"]["reason"].clone()
        ),
        (422, json!("illegal"))
    );
    place(&app, &id, &white, 2, 2).await.expect(200);
    let events = all_events(&app, &id, &[]).await;
    let stones: Vec<(Value, Value, Value)> = events
        .iter()
        .filter(|e| e["type"] == "stone_placed")
        .map(|e| (e["x"].clone(), e["y"].clone(), e["color"].clone()))
        .collect();
    assert_eq!(
        stones,
        [
            (json!(3), json!(2), json!("black")),
            (json!(2), json!(2), json!("white"))
        ]
    );
}

#[tokio::test]
async fn the_turn_clock_warns_at_half_and_forfeits_at_the_deadline() {
    let app = spawn_app().await;
    let (id, black, _white) = guests(&app, "gomoku", json!({"turn_timeout": 20})).await;
    place(&app, &id, &black, 7, 7).await.expect(200);
    let since = all_events(&app, &id, &[]).await.len();
    app.advance(10_000).await;
    let page = get(
        &app,
        &format!("/api/matches/{id}/events?since={since}&wait=5"),
        &[],
    )
    .await
    .expect(200);
    assert_eq!(page["events"][0]["type"], "turn_warning");
    assert_eq!(page["events"][0]["seat"], 1);
    assert_eq!(page["events"][0]["seconds_left"], 10);
    app.advance(10_000).await;
    let events = all_events(&app, &id, &[]).await;
    let tail: Vec<&str> = types(&events).into_iter().rev().take(3).collect();
    assert_eq!(tail, ["match_finished", "turn_forfeit", "turn_warning"]);
    let finished = events.last().expect("an event");
    assert_eq!(finished["winner_seat"], 0);
    assert_eq!(finished["reason"], "timeout");
    assert_eq!(events[events.len() - 2]["winner_seat"], 0);
    let late = place(&app, &id, &black, 1, 1).await;
    assert_eq!(
        late.body["error"], "timeout_already_forfeited",
        "{}",
        late.text
    );
}

#[tokio::test]
async fn a_match_nobody_joins_is_cancelled_after_a_day() {
    let app = spawn_app().await;
    let (id, _) = create(&app, &[], json!({"player": {"name": "alice"}})).await;
    app.advance(23 * 3_600_000).await;
    let waiting = snapshot(&app, &id).await;
    assert_eq!(waiting["status"], "waiting");
    app.advance(3_600_000).await;
    let cancelled = snapshot(&app, &id).await;
    assert_eq!(cancelled["status"], "cancelled");
    let events = all_events(&app, &id, &[]).await;
    assert_eq!(types(&events), ["match_created", "match_cancelled"]);
}

#[tokio::test]
async fn a_restart_keeps_play_tokens_and_events() {
    let app = spawn_app().await;
    let (id, black, white) = guests(&app, "gomoku", json!({})).await;
    post(
        &app,
        &format!("/api/matches/{id}/action"),
        &[("X-Play-Token", black.as_str())],
        json!({"type": "place_stone", "x": 7, "y": 7, "comment": "the centre"}),
    )
    .await
    .expect(200);
    let before = all_events(&app, &id, &[]).await;
    let (dir, clock) = app.stop().await;
    let app = start_on(dir, clock, arbiter_arena::ArenaConfig::default()).await;
    assert_eq!(
        all_events(&app, &id, &[]).await,
        before,
        "the same events, the same seqs"
    );
    place(&app, &id, &white, 8, 8).await.expect(200);
    let mixed = place(&app, &id, &white, 9, 9).await;
    assert_eq!(
        mixed.body["error"], "not_your_turn",
        "the tokens still name their seats"
    );
    place(&app, &id, &black, 9, 9).await.expect(200);
}

#[tokio::test]
async fn private_analysis_reaches_its_owner_alone() {
    let app = spawn_app().await;
    let (id, black, white) = guests(&app, "gomoku", json!({})).await;
    let secret = json!({"eval": 0.15, "pv": [[7, 7], [8, 8]], "private": true});
    post(
        &app,
        &format!("/api/matches/{id}/action"),
        &[("X-Play-Token", black.as_str())],
        json!({"type": "place_stone", "x": 7, "y": 7, "comment": "centre", "analysis": secret}),
    )
    .await
    .expect(200);
    let open = json!({"eval": -0.1, "threats": []});
    post(
        &app,
        &format!("/api/matches/{id}/action"),
        &[("X-Play-Token", white.as_str())],
        json!({"type": "place_stone", "x": 8, "y": 8, "analysis": open}),
    )
    .await
    .expect(200);
    let stones = |events: Vec<Value>| -> Vec<Value> {
        events
            .into_iter()
            .filter(|e| e["type"] == "stone_placed")
            .map(|e| e["analysis"].clone())
            .collect()
    };
    let readers: [(Headers<'_>, Vec<Value>); 3] = [
        (vec![], vec![Value::Null, open.clone()]),
        (
            vec![("X-Play-Token", white.as_str())],
            vec![Value::Null, open.clone()],
        ),
        (
            vec![("X-Play-Token", black.as_str())],
            vec![secret.clone(), open.clone()],
        ),
    ];
    for (headers, expected) in readers {
        let events = all_events(&app, &id, &headers).await;
        let comments: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "comment_posted")
            .collect();
        assert_eq!(comments.len(), 1);
        assert_eq!(
            (
                comments[0]["seat"].clone(),
                comments[0]["name"].clone(),
                comments[0]["text"].clone()
            ),
            (json!(0), json!("alice"), json!("centre"))
        );
        assert_eq!(stones(events), expected, "{headers:?}");
    }
}

#[tokio::test]
async fn whether_an_analysis_is_private_never_shows_in_the_native_log() {
    // Two matches alike but for the first stone's analysis: private in one, absent in the
    // other. A spectator of the native API reads the same events, sequence numbers included.
    let app = spawn_app().await;
    let mut logs = Vec::new();
    for analysis in [json!({"eval": 0.3, "private": true}), Value::Null] {
        let (id, black, _) = guests(&app, "gomoku", json!({})).await;
        post(
            &app,
            &format!("/api/matches/{id}/action"),
            &[("X-Play-Token", black.as_str())],
            json!({"type": "place_stone", "x": 7, "y": 7, "comment": "centre", "analysis": analysis}),
        )
        .await
        .expect(200);
        let page = app
            .get(&format!("/matches/{id}/events?since=0"), None)
            .await
            .expect(200);
        let shape: Vec<(Value, Value)> = page["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| (e["seq"].clone(), e["type"].clone()))
            .collect();
        assert!(!shape.is_empty());
        logs.push((shape, page["next_since"].clone()));
    }
    assert_eq!(logs[0], logs[1]);
}

#[tokio::test]
async fn a_waiting_long_poll_wakes_when_a_stone_is_placed() {
    let app = spawn_app().await;
    let (id, black, _white) = guests(&app, "gomoku", json!({})).await;
    let since = all_events(&app, &id, &[]).await.len();
    let url = format!(
        "{}/api/matches/{id}/events?since={since}&wait=30",
        app.root()
    );
    let client = app.client.clone();
    let waiting = tokio::spawn(async move {
        client
            .get(url)
            .send()
            .await
            .expect("sent")
            .json::<Value>()
            .await
            .expect("json")
    });
    settle().await;
    place(&app, &id, &black, 7, 7).await.expect(200);
    let page = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
        .await
        .expect("woken, not timed out")
        .expect("joined");
    assert_eq!(page["events"][0]["type"], "stone_placed");
    assert_eq!(
        page["next_since"],
        page["events"]
            .as_array()
            .and_then(|e| e.last())
            .map(|e| e["seq"].clone())
            .unwrap_or_default()
    );
    // A poll that nothing answers returns empty when its wait runs out on the clock.
    let quiet = get(
        &app,
        &format!("/api/matches/{id}/events?since=99&wait=0"),
        &[],
    )
    .await
    .expect(200);
    assert_eq!(quiet["events"], json!([]));
    assert_eq!(quiet["next_since"], 99);
}

#[tokio::test]
async fn an_agent_with_no_move_in_othello_passes() {
    let app = spawn_app().await;
    let mut keys = Vec::new();
    for name in ["Blackbird", "Whitecap"] {
        let (_, key) = app.register(name).await;
        keys.push(format!("Bearer {key}"));
    }
    let (id, _) = create(
        &app,
        &[("Authorization", keys[0].as_str())],
        json!({"game": "othello"}),
    )
    .await;
    post(
        &app,
        &format!("/api/matches/{id}/join"),
        &[("Authorization", keys[1].as_str())],
        json!({}),
    )
    .await
    .expect(200);
    // Eight moves after which Black has no move and White has some.
    let moves = [
        (3, 2),
        (2, 2),
        (1, 2),
        (1, 1),
        (4, 5),
        (0, 2),
        (0, 0),
        (2, 0),
    ];
    for (i, (x, y)) in moves.into_iter().enumerate() {
        post(
            &app,
            &format!("/api/matches/{id}/action"),
            &[("Authorization", keys[i % 2].as_str())],
            json!({"type": "place_stone", "x": x, "y": y}),
        )
        .await
        .expect(200);
    }
    let passed = post(
        &app,
        &format!("/api/matches/{id}/action"),
        &[("Authorization", keys[0].as_str())],
        json!({"type": "pass"}),
    )
    .await
    .expect(200);
    assert_eq!(passed["seq"], 9);
    assert_eq!(passed["current_seat"], 1, "{passed}");
    assert_eq!(
        passed["board_snapshot"]["last_move"],
        json!({"pass": true, "seat": 0})
    );
    let events = all_events(&app, &id, &[]).await;
    let pass = events
        .iter()
        .find(|e| e["type"] == "passed")
        .expect("a passed event");
    assert_eq!(
        (pass["seat"].clone(), pass["color"].clone()),
        (json!(0), json!("black"))
    );
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some(json!("turn_started"))
    );
    assert_eq!(events.last().map(|e| e["seat"].clone()), Some(json!(1)));
}

#[tokio::test]
async fn a_long_poll_of_a_closed_match_answers_at_once() {
    let app = spawn_app().await;
    let (id, black, white) = guests(&app, "gomoku", json!({})).await;
    play_five(&app, &id, &black, &white).await;
    let total = all_events(&app, &id, &[]).await.len();
    // The injected clock never reaches the wait's end: only the match's end can answer.
    let page = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        get(
            &app,
            &format!("/api/matches/{id}/events?since={total}&wait=30"),
            &[],
        ),
    )
    .await
    .expect("answered at once")
    .expect(200);
    assert_eq!(page["events"], json!([]));
    assert_eq!(page["status"], "finished");
}

#[tokio::test]
async fn players_who_poll_are_judged_by_the_turn_clock_alone() {
    let app = spawn_app().await;
    let (id, black, white) = guests(&app, "gomoku", json!({"turn_timeout": 120})).await;
    let agents = [
        app.register("Slowpoke").await.1,
        app.register("Dawdler").await.1,
    ];
    let bearer: Vec<String> = agents.iter().map(|key| format!("Bearer {key}")).collect();
    let (agents_match, _) = create(
        &app,
        &[("Authorization", bearer[0].as_str())],
        json!({"game": "othello", "config": {"turn_timeout": 120}}),
    )
    .await;
    post(
        &app,
        &format!("/api/matches/{agents_match}/join"),
        &[("Authorization", bearer[1].as_str())],
        json!({}),
    )
    .await
    .expect(200);
    // Longer than the arena's first-move and disconnection rules allow a bot that streams,
    // shorter than the turn: nobody has asked anything for 100 seconds.
    app.advance(100_000).await;
    for match_id in [&id, &agents_match] {
        let seen = get(&app, &format!("/api/matches/{match_id}"), &[])
            .await
            .expect(200);
        assert_eq!(seen["status"], "in_progress", "{seen}");
    }
    place(&app, &id, &black, 7, 7).await.expect(200);
    place(&app, &id, &white, 8, 8).await.expect(200);
    post(
        &app,
        &format!("/api/matches/{agents_match}/action"),
        &[("Authorization", bearer[0].as_str())],
        json!({"type": "place_stone", "x": 3, "y": 2}),
    )
    .await
    .expect(200);
}
