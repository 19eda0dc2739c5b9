use serde_json::{Value, json};

use std::sync::Arc;
use std::sync::atomic::Ordering;

use arbiter_arena::{ArenaConfig, ManualClock};

use crate::helpers::*;

/// The SHA-256 of a revealed seed, as a verifier computes it.
fn sha256_hex(text: &str) -> String {
    arbiter_fair::ServerSeed::from_revealed(text)
        .commitment()
        .as_hex()
        .to_owned()
}

/// The snapshot without the fields that change with time alone.
fn stable(mut snapshot: Value) -> Value {
    snapshot["server_now_ms"] = Value::Null;
    if let Some(legs) = snapshot["legs"].as_array_mut() {
        for leg in legs {
            leg["remaining_ms"] = Value::Null;
        }
    }
    snapshot
}

#[tokio::test]
async fn refused_moves_get_their_code_and_change_nothing() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    let turn = app.turns(id, &a).await.remove(0);
    assert_eq!(turn["leg"], 0, "Alpha is Black in leg 0");
    let request = &turn["request"];
    for field in [
        "board",
        "color",
        "legal_moves",
        "game_mode",
        "board_size",
        "blocked_squares",
        "placed",
        "remaining_ms",
        "match_id",
        "leg",
        "revision",
        "history",
        "round_no",
        "room_created_at",
        "budget_ms",
    ] {
        assert!(
            request.get(field).is_some(),
            "the engine request has {field}"
        );
    }
    let legal: Vec<i64> = request["legal_moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    let occupied = (0..64)
        .find(|&sq| request["board"][sq as usize] != 0)
        .expect("an occupied square");
    let path = format!("/matches/{id}/moves");
    let before = stable(app.snapshot(id).await);
    let cases = [
        (
            &b,
            json!({"leg": 0, "revision": 0, "move": legal[0]}),
            409,
            "not_your_turn",
        ),
        (
            &a,
            json!({"leg": 0, "revision": 5, "move": legal[0]}),
            409,
            "stale_revision",
        ),
        (
            &a,
            json!({"leg": 0, "revision": 0, "move": occupied}),
            409,
            "illegal_move",
        ),
        (
            &a,
            json!({"leg": 0, "revision": 0, "move": "pass"}),
            409,
            "illegal_move",
        ),
        (
            &a,
            json!({"leg": 0, "revision": 0, "move": "z9"}),
            409,
            "move_outside_board",
        ),
        (
            &a,
            json!({"leg": 0, "revision": 0, "move": "d-3"}),
            409,
            "invalid_move_coordinate",
        ),
        (
            &a,
            json!({"leg": 3, "revision": 0, "move": legal[0]}),
            400,
            "invalid_leg",
        ),
        (&a, json!({"leg": 0, "move": legal[0]}), 400, "invalid_json"),
    ];
    for (token, body, status, code) in cases {
        app.post(&path, Some(token), body)
            .await
            .expect_error(status, code);
    }
    let (_, stranger) = app.register("Gamma").await;
    app.post(
        &path,
        Some(&stranger),
        json!({"leg": 0, "revision": 0, "move": legal[0]}),
    )
    .await
    .expect_error(403, "not_a_participant");
    assert_eq!(
        stable(app.snapshot(id).await),
        before,
        "refusals change nothing"
    );

    // Coordinates work in any spelling.
    let square = legal[0];
    let name = format!("{}{}", (b'A' + (square % 8) as u8) as char, square / 8 + 1);
    let reply = app
        .post(
            &path,
            Some(&a),
            json!({"leg": 0, "revision": 0, "move": name}),
        )
        .await
        .expect(200);
    assert_eq!(reply["revision"], 1);
}

#[tokio::test]
async fn re_sending_the_same_move_returns_the_original_result() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    let turn = app.turns(id, &a).await.remove(0);
    let mv = turn["request"]["legal_moves"][0].clone();
    let body = json!({"leg": 0, "revision": 0, "move": mv});
    let first = app
        .post(&format!("/matches/{id}/moves"), Some(&a), body.clone())
        .await
        .expect(200);
    app.advance(1_000).await;
    let again = app
        .post(&format!("/matches/{id}/moves"), Some(&a), body)
        .await
        .expect(200);
    assert_eq!(first, again);
    let events = app
        .get(&format!("/matches/{id}/events?since=0"), None)
        .await
        .expect(200);
    let moves = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "move")
        .count();
    assert_eq!(moves, 1, "the repeat added nothing");
}

/// The README's quick start: a whole paired match played the way a shell loop plays it, with
/// the text forms of mint, challenge and turns.
#[tokio::test]
async fn a_shell_loop_plays_a_match_with_the_text_forms() {
    let app = spawn_app().await;
    let minted = app
        .post("/bots/anon?format=text", None, json!({"name": "shell"}))
        .await;
    assert_eq!(minted.status, 201);
    let token = minted.text.trim_end().to_owned();
    assert!(
        token.starts_with("arba_") && !token.contains(char::is_whitespace),
        "the body is the token alone: {:?}",
        minted.text
    );
    let created = app
        .post(
            "/challenges?format=text",
            Some(&token),
            json!({"opponent": "house-greedy"}),
        )
        .await;
    assert_eq!(created.status, 201);
    let id: i64 = created
        .text
        .trim_end()
        .parse()
        .expect("the body is the match id");

    let mut moves_played = 0;
    let end = loop {
        let reply = app
            .get(
                &format!("/matches/{id}/turns?wait=5&format=text"),
                Some(&token),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(
            reply.headers["content-type"]
                .to_str()
                .is_ok_and(|t| t.starts_with("text/plain")),
            "text is labelled as text"
        );
        if reply.text.starts_with("end ") {
            break reply.text;
        }
        for line in reply.text.lines() {
            let fields: Vec<&str> = line.split(' ').collect();
            let [kind, leg, revision, moves] = fields[..] else {
                panic!("a turn line has four fields: {line:?}");
            };
            assert_eq!(kind, "turn");
            let first = moves.split(',').next().expect("at least one move");
            let body = format!(r#"{{"leg":{leg},"revision":{revision},"move":{first}}}"#);
            let played = app
                .post(
                    &format!("/matches/{id}/moves"),
                    Some(&token),
                    serde_json::from_str(&body).expect("the line makes valid JSON"),
                )
                .await;
            assert_eq!(played.status, 200, "{}", played.body);
            moves_played += 1;
        }
        assert!(moves_played < 200, "a paired 8x8 match ends");
    };
    let snapshot = app.snapshot(id).await;
    let result = &snapshot["result"];
    assert_eq!(
        end,
        format!(
            "end finished {} {} {} {}\n",
            result["reason"].as_str().expect("reason"),
            result["totals"][0],
            result["totals"][1],
            result["winner"].as_i64().unwrap_or(-1)
        )
    );
    assert!(moves_played >= 4, "both legs were played: {moves_played}");
    app.get(&format!("/matches/{id}/turns?format=xml"), Some(&token))
        .await
        .expect_error(400, "invalid_query");
}

#[tokio::test]
async fn a_full_paired_match_against_the_house_bot() {
    let app = spawn_app().await;
    let (_, token) = app.anonymous().await;
    let created = app
        .post(
            "/challenges",
            Some(&token),
            json!({"opponent": "house-random", "variant": "octagon"}),
        )
        .await
        .expect(201);
    assert_eq!(
        created["status"], "running",
        "the house bot accepts at once"
    );
    let id = created["id"].as_i64().expect("id");
    for _ in 0..500 {
        let turns = app
            .get(&format!("/matches/{id}/turns?wait=5"), Some(&token))
            .await
            .expect(200);
        if turns["status"] != "running" {
            break;
        }
        for turn in turns["turns"].as_array().expect("turns") {
            assert_eq!(turn["request"]["game_mode"], "octagon");
            let mv = turn["request"]["legal_moves"]
                .get(0)
                .cloned()
                .unwrap_or(json!(-1));
            app.post(
                &format!("/matches/{id}/moves"),
                Some(&token),
                json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv}),
            )
            .await
            .expect(200);
        }
    }
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "finished");
    assert_eq!(snapshot["result"]["reason"], "discs");
    assert_eq!(snapshot["rated"], false, "anonymous bots are never rated");
    let export = app
        .get(&format!("/matches/{id}/export"), None)
        .await
        .expect(200);
    let seed = export["seed"].as_str().expect("the seed is revealed");
    assert_eq!(
        sha256_hex(seed),
        export["commitment"],
        "the seed matches its commitment"
    );
    let first = &export["events"][0];
    assert_eq!(first["type"], "challenge");
    assert_eq!(
        first["data"]["commitment"], export["commitment"],
        "the commitment was published first"
    );
    let seqs: Vec<i64> = export["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    assert!(
        seqs.iter().enumerate().all(|(i, &s)| s == i as i64 + 1),
        "contiguous seq"
    );
}

#[tokio::test]
async fn challenging_yourself_is_unrated_self_play() {
    let app = spawn_app().await;
    let (_, token) = app.register("Solo").await;
    let created = app
        .post(
            "/challenges",
            Some(&token),
            json!({"opponent": "Solo", "format": "single"}),
        )
        .await
        .expect(201);
    assert_eq!(
        (created["status"].clone(), created["rated"].clone()),
        (json!("running"), json!(false))
    );
    let id = created["id"].as_i64().expect("id");
    for _ in 0..200 {
        if app.play_first_moves(id, &token).await.is_empty() {
            break;
        }
    }
    assert_eq!(app.snapshot(id).await["status"], "finished");
}

#[tokio::test]
async fn concurrency_and_house_variant_limits() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    for _ in 0..2 {
        let id = app.challenge(&a, "Beta", json!({})).await;
        app.post(&format!("/challenges/{id}/accept"), Some(&b), json!({}))
            .await
            .expect(200);
    }
    let third = app.challenge(&a, "Beta", json!({})).await;
    app.post(&format!("/challenges/{third}/accept"), Some(&b), json!({}))
        .await
        .expect_error(409, "bot_busy");
    app.post("/challenges", Some(&a), json!({"opponent": "house-greedy"}))
        .await
        .expect_error(409, "bot_busy");

    let (_, c) = app.anonymous().await;
    let (_, d) = app.anonymous().await;
    let (_, e) = app.register("Epsilon").await;
    app.post(
        "/challenges",
        Some(&c),
        json!({"opponent": "house-random", "variant": "grand"}),
    )
    .await
    .expect(201);
    app.post(
        "/challenges",
        Some(&d),
        json!({"opponent": "house-random", "variant": "anti"}),
    )
    .await
    .expect(201);
    app.post(
        "/challenges",
        Some(&e),
        json!({"opponent": "house-greedy", "variant": "reversi"}),
    )
    .await
    .expect_error(409, "site_bot_variant_matches_full");
    app.post("/challenges", Some(&e), json!({"opponent": "house-greedy"}))
        .await
        .expect(201);
}

#[tokio::test]
async fn a_bot_must_support_the_variant() {
    let app = spawn_app().await;
    let (_, a) = app.anonymous().await;
    app.post(
        "/challenges",
        Some(&a),
        json!({"opponent": "house-greedy", "variant": "anti"}),
    )
    .await
    .expect(201);
    let created = app
        .post("/admin/bots", Some(ADMIN), json!({"name": "StdOnly"}))
        .await
        .expect(201);
    let std_only = created["token"].as_str().expect("token");
    app.post(
        "/challenges",
        Some(std_only),
        json!({"opponent": "house-greedy", "variant": "anti"}),
    )
    .await
    .expect_error(409, "unsupported_variant");
}

#[tokio::test]
async fn spectators_and_participants_see_the_right_things() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    let spectator = app.snapshot(id).await;
    assert!(spectator.get("turns").is_none());
    assert!(
        spectator["seed"].is_null(),
        "the seed stays secret while the match runs"
    );
    assert!(spectator["commitment"].is_string());
    let alpha = app
        .get(&format!("/matches/{id}"), Some(&a))
        .await
        .expect(200);
    assert_eq!(alpha["you"], json!([0]));
    assert_eq!(alpha["turns"].as_array().expect("turns").len(), 1);
    let export = app
        .get(&format!("/matches/{id}/export"), None)
        .await
        .expect(200);
    assert!(export["seed"].is_null());
}

#[tokio::test]
async fn closed_matches_leave_memory_but_stay_readable() {
    let config = ArenaConfig {
        closed_in_memory: 1,
        ..ArenaConfig::default()
    };
    let app = spawn_app_with(config).await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let id = app.challenge(&a, "Beta", json!({})).await;
        app.post(&format!("/challenges/{id}/reject"), Some(&b), json!({}))
            .await
            .expect(200);
        ids.push(id);
    }
    let open = app.challenge(&a, "Beta", json!({})).await;
    // The open challenge and the last closed match; the first two went to the store.
    assert_eq!(app.arena.matches_in_memory(), 2);
    app.post(&format!("/challenges/{open}/cancel"), Some(&a), json!({}))
        .await
        .expect(200);
    ids.push(open);
    assert_eq!(app.arena.matches_in_memory(), 1);
    // Past the retention time the last one goes too.
    app.advance(ArenaConfig::default().closed_retention_ms + 60_000)
        .await;
    assert_eq!(app.arena.matches_in_memory(), 0);
    for &id in &ids {
        let snapshot = app.snapshot(id).await;
        assert_eq!(snapshot["status"], "rejected", "match {id}");
        let events = app
            .get(&format!("/matches/{id}/events?since=0"), None)
            .await
            .expect(200);
        assert!(
            !events["events"].as_array().expect("events").is_empty(),
            "match {id} keeps its log"
        );
    }
}

#[tokio::test]
async fn a_move_the_store_cannot_keep_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(FlakyStore::open(&dir).await);
    let app = start_with_store(
        dir,
        ManualClock::new(T0),
        ArenaConfig::default(),
        store.clone(),
    )
    .await;
    let (id, a, b) = app.running_match().await;
    let turn = app.turns(id, &a).await.remove(0);
    let mv = turn["request"]["legal_moves"][0].clone();
    let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv});
    let before = app.snapshot(id).await;
    let mut opponent = app.stream(&b).await;
    // What is pending on connecting: Beta's own turn in leg 1.
    assert_eq!(opponent.next_of("turn").await["leg"], 1);
    assert!(opponent.nothing_pending().await);

    store.failing.store(true, Ordering::SeqCst);
    app.post(&format!("/matches/{id}/moves"), Some(&a), body.clone())
        .await
        .expect_error(503, "storage_unavailable");
    assert_eq!(app.snapshot(id).await, before, "nothing was kept");
    assert!(opponent.nothing_pending().await, "nothing was announced");

    // Once the store works again the same move is played, as if for the first time.
    store.failing.store(false, Ordering::SeqCst);
    let reply = app
        .post(&format!("/matches/{id}/moves"), Some(&a), body)
        .await
        .expect(200);
    assert_eq!(
        reply["revision"],
        turn["revision"].as_u64().expect("revision") + 1
    );
    assert_ne!(app.snapshot(id).await, before);
}

#[tokio::test]
async fn options_the_family_cannot_set_up_are_refused_when_a_match_is_asked_for() {
    // Fate Tokens is one game a match: a paired challenge or table could never start.
    let app = spawn_running(
        ArenaConfig::default(),
        games().with(&arbiter_fate_tokens::FAMILY),
        dialects,
    )
    .await;
    let mut tokens = Vec::new();
    for name in ["Ana", "Bo", "Cy", "Dee"] {
        let body = json!({"name": name, "supported_variants": ["fate-tokens"]});
        let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
        tokens.push(created["token"].as_str().expect("token").to_owned());
    }
    let challenge = |format: &str| {
        json!({"opponent": ["Bo", "Cy", "Dee"], "game": "fate-tokens", "variant": "quick",
            "format": format})
    };
    let refused = app
        .post("/challenges", Some(&tokens[0]), challenge("paired"))
        .await
        .expect_error(409, "unsupported_variant");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("single game")),
        "the family's own reason: {refused}"
    );
    let table = json!({"game": "fate-tokens", "variant": "quick", "seats": 4, "format": "paired"});
    app.post("/tables", Some(&tokens[0]), table)
        .await
        .expect_error(409, "unsupported_variant");
    // The same match as one game is made, and waits for the others to accept.
    let made = app
        .post("/challenges", Some(&tokens[0]), challenge("single"))
        .await
        .expect(201);
    assert_eq!(made["status"], "pending", "{made}");
}
