//! FlipSight's action API, driven by a client written from its documentation (seed 000): plain
//! JSON bodies and the field names it documents, never this server's own types.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use arbiter_arena::{ArenaConfig, ManualClock};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;

/// One call of FlipSight's action API: the status and the JSON body.
async fn action(app: &TestApp, token: Option<&str>, body: Value) -> (StatusCode, Value) {
    let url = format!(
        "{}/flipsight/bot_match_api.php",
        app.base.trim_end_matches("/api/v1")
    );
    let mut request = app
        .client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let body: Value = response.json().await.expect("a JSON body");
    assert!(
        body["server_now_ms"].is_i64(),
        "every response has server_now_ms: {body}"
    );
    (status, body)
}

async fn ok(app: &TestApp, token: &str, body: Value) -> Value {
    let (status, reply) = action(app, Some(token), body).await;
    assert_eq!(
        (status, &reply["ok"]),
        (StatusCode::OK, &json!(true)),
        "{reply}"
    );
    reply
}

async fn fails(app: &TestApp, token: Option<&str>, body: Value, status: u16, error: &str) {
    let (got, reply) = action(app, token, body).await;
    assert_eq!(
        (got.as_u16(), reply["ok"].clone(), reply["error"].as_str()),
        (status, json!(false), Some(error)),
        "{reply}"
    );
}

/// A GET of `url` with `token`.
async fn get(app: &TestApp, url: &str, token: &str) -> reqwest::Response {
    app.client
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .expect("request")
}

/// Match `id` as `token`'s bot sees it in `agent_poll`.
async fn polled_match(app: &TestApp, token: &str, id: &Value) -> Value {
    let polled = ok(app, token, json!({"action": "agent_poll"})).await;
    polled["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .find(|m| &m["id"] == id)
        .cloned()
        .expect("the match is listed")
}

/// Alpha challenges Beta, who is connected (it has just polled) and accepts; the match id.
async fn challenge_accepted(app: &TestApp, alpha: &str, beta: &str) -> Value {
    ok(app, beta, json!({"action": "agent_poll"})).await;
    let challenge = json!({"action": "agent_challenge", "target_name": "Beta"});
    let id = ok(app, alpha, challenge).await["match_id"].clone();
    ok(app, beta, json!({"action": "agent_accept", "match_id": id})).await;
    id
}

#[tokio::test]
async fn a_bot_polls_challenges_accepts_and_moves_as_flipsight_documents() {
    let app = spawn_app().await;
    let (alpha_id, alpha) = app.register("Alpha").await;
    let (beta_id, beta) = app.register("Beta").await;

    let polled = ok(&app, &alpha, json!({"action": "agent_poll", "environment": {"cpu": "Apple M4", "engine": "MyEngine", "os": "Darwin"}})).await;
    assert_eq!(polled["bot"]["id"], alpha_id);
    assert_eq!(
        polled["bot"]["environment"],
        json!({"cpu": "Apple M4", "engine": "MyEngine", "os": "Darwin", "practice": false})
    );
    assert_eq!(polled["bot"]["rating"]["rating"], 1200.0);
    assert_eq!(
        polled["bot"]["rating"]["official_progress"],
        json!({"kind": "provisional", "current": 0, "required": 50})
    );
    let builtin: Vec<&Value> = polled["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .filter(|b| b["is_builtin"] == true)
        .collect();
    assert_eq!(
        builtin.len(),
        arbiter_plugin::HouseLevel::ALL.len(),
        "the house bots are FlipSight's built-in bots"
    );
    assert_eq!(
        builtin[0]["supported_games"],
        json!(["std", "anti", "grand", "octagon", "reversi"])
    );
    assert_eq!(polled["matches"], json!([]));

    // Beta connects by polling: FlipSight matches connected bots only.
    ok(&app, &beta, json!({"action": "agent_poll"})).await;
    let challenged = ok(
        &app,
        &alpha,
        json!({"action": "agent_challenge", "target_name": "Beta"}),
    )
    .await;
    let id = challenged["match_id"].as_i64().expect("match_id");
    let seen = ok(&app, &beta, json!({"action": "agent_poll"})).await;
    let pending = &seen["matches"][0];
    assert_eq!(
        (pending["id"].as_i64(), pending["status"].as_str()),
        (Some(id), Some("pending"))
    );
    assert_eq!(
        (pending["bot_a"].as_i64(), pending["bot_b"].as_i64()),
        (Some(alpha_id), Some(beta_id))
    );
    assert!(pending["expires_ms"].is_i64());

    let accepted = ok(
        &app,
        &beta,
        json!({"action": "agent_accept", "match_id": id}),
    )
    .await;
    assert_eq!(
        accepted["match"],
        json!({"id": id, "status": "running", "bot_a": alpha_id, "bot_b": beta_id})
    );
    let running = ok(&app, &alpha, json!({"action": "agent_poll"})).await["matches"][0].clone();
    assert_eq!(running["status"], "running");
    assert_eq!(running["ranked"], true);
    assert_eq!(
        running["auto"], false,
        "a direct challenge, not an auto-match"
    );
    let legs = running["state"]["legs"].as_array().expect("legs");
    assert_eq!(legs.len(), 2);
    // Participant 0 (bot_a) is Black in leg 0 and White in leg 1; Black moves first.
    assert_eq!(
        (
            legs[0]["black_participant"].as_u64(),
            legs[1]["black_participant"].as_u64()
        ),
        (Some(0), Some(1))
    );
    assert_eq!(
        (legs[0]["turn"].as_u64(), legs[0]["status"].as_str()),
        (Some(1), Some("active"))
    );
    assert_eq!(legs[0]["board"].as_array().map(Vec::len), Some(64));
    assert_eq!(
        running["state"]["opening_moves"].as_array().map(Vec::len),
        Some(8),
        "a random 12-disc opening"
    );

    let leg = &legs[0];
    let legal: Vec<i64> = leg["legal_moves"]
        .as_array()
        .expect("legal")
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    let illegal = (0..64)
        .find(|sq| !legal.contains(sq) && leg["board"][*sq as usize] == 0)
        .expect("an empty illegal square");
    let revision = leg["revision"].clone();
    fails(&app, Some(&alpha), json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": revision, "move": illegal}), 409, "illegal_move").await;
    fails(&app, Some(&beta), json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": revision, "move": legal[0]}), 409, "not_your_turn").await;
    for (spelling, error) in [
        (json!("zz"), "invalid move coordinate"),
        (json!("d"), "invalid move coordinate"),
        (json!(64), "move outside board"),
        (json!("i1"), "move outside board"),
        (json!("a9"), "move outside board"),
    ] {
        fails(&app, Some(&alpha), json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": revision, "move": spelling}), 409, error).await;
    }
    let square = legal[0];
    let coordinate = format!("{}{}", (b'a' + (square % 8) as u8) as char, square / 8 + 1);
    let moved = ok(&app, &alpha, json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": revision, "move": coordinate})).await;
    assert_eq!(moved["match"]["status"], "running");
    // The identical move again is answered as before; another one for the old revision is stale.
    ok(&app, &alpha, json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": revision, "move": square})).await;
    fails(&app, Some(&alpha), json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": revision, "move": illegal}), 409, "stale_revision").await;
    let after =
        ok(&app, &beta, json!({"action": "agent_poll"})).await["matches"][0]["state"]["legs"][0]
            .clone();
    assert_eq!(
        after["history"][0],
        json!({"color": 1, "participant": 0, "move": square, "at_ms": moved["server_now_ms"]})
    );
    assert_eq!(after["turn"], 2);
}

#[tokio::test]
async fn every_documented_error_comes_in_flipsights_words() {
    // One match at a time per bot, so that a second one finds the bot busy.
    let app = spawn_app_with(ArenaConfig {
        default_concurrency: 1,
        ..ArenaConfig::default()
    })
    .await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let only_std = json!({"variants": ["std"]});
    app.call(
        reqwest::Method::PUT,
        "/admin/bots/Beta/variants",
        Some(ADMIN),
        Some(only_std),
    )
    .await
    .expect(200);
    fails(
        &app,
        None,
        json!({"action": "agent_poll"}),
        401,
        "invalid bot credential",
    )
    .await;
    fails(
        &app,
        Some("arbb_wrong"),
        json!({"action": "agent_poll"}),
        401,
        "invalid bot credential",
    )
    .await;
    fails(
        &app,
        Some(&alpha),
        json!(["agent_poll"]),
        400,
        "JSON object required",
    )
    .await;
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_dance"}),
        400,
        "unknown action",
    )
    .await;
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_challenge", "target_name": "Nobody"}),
        409,
        "target bot not found",
    )
    .await;
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_challenge", "target_name": "Beta"}),
        409,
        "both bots must be connected",
    )
    .await;
    ok(&app, &beta, json!({"action": "agent_poll"})).await;
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_challenge", "target_name": "Beta", "game_mode": "anti"}),
        409,
        "unsupported game mode",
    )
    .await;
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_accept", "match_id": 424242}),
        403,
        "access denied",
    )
    .await;
    let url = format!(
        "{}/flipsight/bot_match_api.php",
        app.base.trim_end_matches("/api/v1")
    );
    let response = get(&app, url.as_str(), &alpha).await;
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        response.json::<Value>().await.expect("json")["error"],
        "POST required"
    );
    let big = json!({"action": "agent_poll", "padding": "x".repeat(70 * 1024)});
    fails(&app, Some(&alpha), big, 413, "request too large").await;

    let id = ok(
        &app,
        &alpha,
        json!({"action": "agent_challenge", "target_name": "Beta"}),
    )
    .await["match_id"]
        .clone();
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": 0, "move": 19}),
        409,
        "match not running",
    )
    .await;
    let (_, beta) = app
        .post("/admin/bots/Beta/rotate-token", Some(ADMIN), json!({}))
        .await
        .expect(200)["token"]
        .as_str()
        .map(|t| ((), t.to_owned()))
        .expect("token");
    let rejected = ok(
        &app,
        &beta,
        json!({"action": "agent_reject", "match_id": id}),
    )
    .await;
    assert_eq!(rejected["match"]["status"], "rejected");
    fails(
        &app,
        Some(&beta),
        json!({"action": "agent_accept", "match_id": id}),
        409,
        "challenge expired or answered",
    )
    .await;

    let id = challenge_accepted(&app, &alpha, &beta).await;
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_challenge", "target_name": "house-greedy"}),
        409,
        "bot already has an active match",
    )
    .await;
    // A negative id names a human match's room; a bot match is not one.
    let negative = -id.as_i64().expect("id");
    fails(
        &app,
        Some(&alpha),
        json!({"action": "agent_move", "match_id": negative, "leg": 0, "revision": 0, "move": -1}),
        403,
        "access denied",
    )
    .await;
}

#[tokio::test]
async fn busy_bots_full_house_bots_and_a_failing_store_are_refused_in_flipsights_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Arc::new(FlakyStore::open(&dir).await);
    let config = ArenaConfig {
        max_pending_challenges: 1,
        house_variant_matches: 1,
        ..ArenaConfig::default()
    };
    let app = start_with_store(dir, ManualClock::new(T0), config, store.clone()).await;
    let mut tokens = Vec::new();
    for name in ["Alpha", "Beta", "Gamma"] {
        let (_, token) = app.register(name).await;
        ok(&app, &token, json!({"action": "agent_poll"})).await;
        tokens.push(token);
    }
    let [alpha, _, gamma] = &tokens[..] else {
        unreachable!("three bots")
    };
    let to = |target: &str, mode: &str| json!({"action": "agent_challenge", "target_name": target, "game_mode": mode});
    ok(&app, alpha, to("Beta", "std")).await;
    fails(&app, Some(alpha), to("Gamma", "std"), 409, "bot busy").await;
    ok(&app, gamma, to("house-greedy", "anti")).await;
    fails(
        &app,
        Some(gamma),
        to("house-greedy", "grand"),
        409,
        "site bot variant matches are full",
    )
    .await;
    store.failing.store(true, Ordering::SeqCst);
    fails(
        &app,
        Some(gamma),
        to("house-greedy", "std"),
        503,
        "bot match storage unavailable",
    )
    .await;
    store.failing.store(false, Ordering::SeqCst);
    ok(&app, gamma, to("house-greedy", "std")).await;
}

#[tokio::test]
async fn the_bot_stream_says_hello_and_sends_whole_matches_as_they_change() {
    let app = spawn_app().await;
    let (alpha_id, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let url = format!(
        "{}/flipsight_api/bot-stream",
        app.base.trim_end_matches("/api/v1")
    );
    let unauthorized = app.client.get(&url).send().await.expect("request");
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);
    let response = get(&app, url.as_str(), &beta).await;
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let mut stream = Lines::from_response(response);
    let hello = stream.next().await;
    assert_eq!(hello["type"], "hello");
    assert!(hello["bot_id"].is_i64() && hello["server_now_ms"].is_i64());
    let id = ok(
        &app,
        &alpha,
        json!({"action": "agent_challenge", "target_name": "Beta"}),
    )
    .await["match_id"]
        .clone();
    let event = stream.next_of("match").await;
    assert_eq!(
        (&event["match"]["id"], &event["match"]["bot_a"]),
        (&id, &json!(alpha_id))
    );
    assert_eq!(event["match"]["status"], "pending");
    ok(
        &app,
        &beta,
        json!({"action": "agent_accept", "match_id": id}),
    )
    .await;
    loop {
        let event = stream.next_of("match").await;
        if event["match"]["status"] == "running" {
            assert_eq!(
                event["match"]["state"]["legs"].as_array().map(Vec::len),
                Some(2)
            );
            break;
        }
    }
    app.advance(10_000).await;
    assert_eq!(stream.next_of("ping").await["type"], "ping");

    // Three streams per bot; the fourth is refused.
    let mut open = Vec::new();
    for _ in 0..2 {
        open.push(
            app.client
                .get(&url)
                .bearer_auth(&beta)
                .send()
                .await
                .expect("stream"),
        );
    }
    let fourth = get(&app, url.as_str(), &beta).await;
    assert_eq!(fourth.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        fourth.json::<Value>().await.expect("json")["error"],
        "too many streams"
    );
}

#[tokio::test]
async fn flags_fall_with_result_discs_and_the_rating_is_applied() {
    let app = spawn_app().await;
    let (alpha_id, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let id = challenge_accepted(&app, &alpha, &beta).await;
    // Each side makes its first move; then Alpha, to move in both legs, lets its clocks run out.
    app.play_first_moves(id.as_i64().expect("id"), &alpha).await;
    app.play_first_moves(id.as_i64().expect("id"), &beta).await;
    app.play_first_moves(id.as_i64().expect("id"), &beta).await;
    app.advance(61_000).await;
    let game = polled_match(&app, &beta, &id).await;
    assert_eq!(game["status"], "finished", "{game}");
    assert_eq!(game["state"]["status"], "finished");
    assert_eq!(game["state"]["finish_reason"], "double_timeout");
    assert_eq!(game["state"]["winner"], 1, "Beta, participant 1, wins");
    for leg in game["state"]["legs"].as_array().expect("legs") {
        assert_eq!(leg["status"], "timeout", "{leg}");
        let black = leg["black_participant"].as_u64().expect("black");
        // Alpha (participant 0) lost on time: 0 for its colour, 64 for the other.
        let expected = if black == 0 {
            json!([0, 64])
        } else {
            json!([64, 0])
        };
        assert_eq!(leg["result_discs"], expected, "{leg}");
        let ended = leg["finished_ms"].as_i64().expect("when the flag fell");
        assert!(
            Some(ended) <= game["state"]["finished_ms"].as_i64(),
            "{game}"
        );
        assert_eq!(leg["legal_moves"], json!([]));
    }
    assert_eq!(game["state"]["totals"], json!([0, 128]));
    assert_eq!(
        (game["ranked"].as_bool(), game["rating_applied"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(game["rating_before"], json!([1200.0, 1200.0]));
    let after = game["rating_after"].as_array().expect("after");
    assert!(
        after[0].as_f64() < Some(1200.0) && after[1].as_f64() > Some(1200.0),
        "{game}"
    );
    let alpha_view = ok(&app, &alpha, json!({"action": "agent_poll"})).await["bot"].clone();
    assert_eq!(alpha_view["id"], alpha_id);
    assert_eq!(
        (
            alpha_view["rating"]["losses"].as_u64(),
            alpha_view["rating"]["streak"].as_i64()
        ),
        (Some(1), Some(-1))
    );
    assert_eq!(alpha_view["rating"]["official_progress"]["current"], 1);
    // A move for a leg whose flag fell is late.
    let leg = &game["state"]["legs"][0];
    fails(&app, Some(&alpha), json!({"action": "agent_move", "match_id": id, "leg": 0, "revision": leg["revision"], "move": -1}), 409, "match timed out").await;
}

#[tokio::test]
async fn no_first_move_aborts_unrated_and_practice_reported_in_a_poll_unrates() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let id = challenge_accepted(&app, &alpha, &beta).await;
    app.advance(31_000).await;
    let game = polled_match(&app, &alpha, &id).await;
    assert_eq!(
        (game["status"].as_str(), game["state"]["status"].as_str()),
        (Some("aborted"), Some("aborted")),
        "{game}"
    );
    assert_eq!(game["state"]["finish_reason"], "no_first_move");
    assert_eq!(game["rating_applied"], false);
    assert_eq!(game["rating_before"], json!([null, null]));

    // A bot that says it is practising plays unrated.
    let polled = ok(
        &app,
        &alpha,
        json!({"action": "agent_poll", "environment": {"engine": "practice", "practice": true}}),
    )
    .await;
    assert_eq!(polled["bot"]["environment"]["practice"], true);
    ok(&app, &beta, json!({"action": "agent_poll"})).await;
    let id = ok(
        &app,
        &alpha,
        json!({"action": "agent_challenge", "target_name": "Beta"}),
    )
    .await["match_id"]
        .clone();
    let pending = polled_match(&app, &beta, &id).await;
    assert_eq!(pending["ranked"], false, "{pending}");
}

#[tokio::test]
async fn a_bot_gone_while_the_other_keeps_its_stream_loses_by_disconnect() {
    let app = spawn_app().await;
    let (id, alpha, beta) = app.running_match().await;
    app.play_first_moves(id, &alpha).await;
    app.play_first_moves(id, &beta).await;
    // Alpha stays connected through FlipSight's stream; Beta goes quiet.
    let url = format!(
        "{}/flipsight_api/bot-stream",
        app.base.trim_end_matches("/api/v1")
    );
    let response = get(&app, url.as_str(), &alpha).await;
    let mut stream = Lines::from_response(response);
    assert_eq!(stream.next().await["type"], "hello");
    app.advance(40_000).await;
    let game = polled_match(&app, &alpha, &json!(id)).await;
    assert_eq!(game["status"], "finished", "{game}");
    assert_eq!(game["state"]["finish_reason"], "disconnect");
    assert_eq!(
        (
            game["state"]["winner"].as_u64(),
            game["rating_applied"].as_bool()
        ),
        (Some(0), Some(true))
    );
    let event = stream.next_of("match").await;
    assert_eq!(event["match"]["id"], id);
}

/// The squares `color` flips by playing `square` on an 8×8 `board` (0 empty, 1 Black,
/// 2 White), by the rules seed 000 states.
fn flips(board: &[i64], square: usize, color: i64) -> Vec<usize> {
    let (row, column) = ((square / 8) as i64, (square % 8) as i64);
    let mut flipped = Vec::new();
    if board[square] != 0 {
        return flipped;
    }
    for (dr, dc) in [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ] {
        let mut line = Vec::new();
        let (mut r, mut c) = (row + dr, column + dc);
        while (0..8).contains(&r) && (0..8).contains(&c) && board[(r * 8 + c) as usize] == 3 - color
        {
            line.push((r * 8 + c) as usize);
            (r, c) = (r + dr, c + dc);
        }
        if !line.is_empty()
            && (0..8).contains(&r)
            && (0..8).contains(&c)
            && board[(r * 8 + c) as usize] == color
        {
            flipped.extend(line);
        }
    }
    flipped
}

/// `board` after `color` plays `square`.
fn played(board: &[i64], square: usize, color: i64) -> Vec<i64> {
    let mut next = board.to_vec();
    for flipped in flips(board, square, color) {
        next[flipped] = color;
    }
    next[square] = color;
    next
}

/// The squares `color` may play.
fn moves(board: &[i64], color: i64) -> Vec<usize> {
    (0..64)
        .filter(|&s| !flips(board, s, color).is_empty())
        .collect()
}

/// A move that hands the board to the opponent: after the reply that flips most (what a greedy
/// opponent plays), `color` has as few moves as possible. Such a bot is soon left without a
/// move and must pass.
fn self_smothering_move(board: &[i64], legal: &[usize], color: i64) -> usize {
    let mobility_after = |square: usize| {
        let after = played(board, square, color);
        let reply = moves(&after, 3 - color)
            .into_iter()
            .max_by_key(|&s| flips(&after, s, 3 - color).len());
        reply.map_or(64, |r| moves(&played(&after, r, 3 - color), color).len())
    };
    *legal
        .iter()
        .min_by_key(|&&s| mobility_after(s))
        .expect("a legal move")
}

#[tokio::test]
async fn a_bot_written_from_the_document_plays_rated_auto_matched_games_with_passes() {
    let app = spawn_app_with(ArenaConfig {
        automatch_house: "house-greedy".to_owned(),
        ..ArenaConfig::default()
    })
    .await;
    let (me, token) = app.register("Alpha").await;
    let url = format!(
        "{}/flipsight_api/bot-stream",
        app.base.trim_end_matches("/api/v1")
    );
    let mut stream = Lines::from_response(get(&app, url.as_str(), &token).await);
    assert_eq!(stream.next().await["type"], "hello");
    // Each of FlipSight's ways to write a pass, in turn.
    let pass_spellings = [
        json!(-1),
        json!("pass"),
        json!("PA"),
        json!("PS"),
        json!("--"),
    ];
    let mut passes = 0;
    // Whether a move was sent to a leg that ended while the other leg played on.
    let mut late_move_refused = false;
    let mut games = Vec::new();
    // Auto-matching offers a game every round while the bot is idle; the bot plays until it has
    // had to pass. Its strategy leaves it without a move in about half of its games, so thirty
    // games without a pass would mean passes are broken.
    while (passes == 0 || !late_move_refused) && games.len() < 30 {
        app.advance(5_000).await;
        let offer = loop {
            let polled = ok(&app, &token, json!({"action": "agent_poll"})).await;
            let pending = polled["matches"]
                .as_array()
                .expect("matches")
                .iter()
                .find(|m| m["status"] == "pending" && m["bot_b"] == me)
                .cloned();
            match pending {
                Some(offer) => break offer,
                None => {
                    stream.next_of("match").await;
                }
            }
        };
        assert_eq!(
            (&offer["auto"], &offer["ranked"], &offer["game_mode"]),
            (&json!(true), &json!(true), &json!("std")),
            "{offer}"
        );
        let id = offer["id"].clone();
        ok(
            &app,
            &token,
            json!({"action": "agent_accept", "match_id": id}),
        )
        .await;
        let finished = loop {
            let game = polled_match(&app, &token, &id).await;
            if game["status"] != "running" {
                break game;
            }
            let mut moved = false;
            for (leg, state) in game["state"]["legs"]
                .as_array()
                .expect("legs")
                .iter()
                .enumerate()
            {
                // Participant 1 (bot_b) is Black where black_participant is 1.
                let mine = if state["black_participant"] == 1 {
                    1
                } else {
                    2
                };
                if state["status"] == "finished" && !late_move_refused {
                    let late = json!({"action": "agent_move", "match_id": id, "leg": leg, "revision": state["revision"], "move": -1});
                    let (status, reply) = action(&app, Some(&token), late).await;
                    assert_eq!(status, StatusCode::CONFLICT, "{reply}");
                    // The other leg may have ended the match since the poll.
                    match reply["error"].as_str() {
                        Some("leg_finished") => late_move_refused = true,
                        Some("match not running") => {}
                        _ => panic!("a move for a finished leg: {reply}"),
                    }
                }
                if state["status"] != "active" || state["turn"] != mine {
                    continue;
                }
                let legal: Vec<usize> = state["legal_moves"]
                    .as_array()
                    .expect("legal_moves")
                    .iter()
                    .map(|m| m.as_u64().expect("a square") as usize)
                    .collect();
                let board: Vec<i64> = state["board"]
                    .as_array()
                    .expect("board")
                    .iter()
                    .map(|c| c.as_i64().expect("a colour"))
                    .collect();
                assert_eq!(
                    legal,
                    moves(&board, mine),
                    "the server's legal moves are the rules'"
                );
                let choice = if legal.is_empty() {
                    passes += 1;
                    pass_spellings[(games.len() + passes) % pass_spellings.len()].clone()
                } else {
                    json!(self_smothering_move(&board, &legal, mine))
                };
                let reply = ok(&app, &token, json!({"action": "agent_move", "match_id": id, "leg": leg, "revision": state["revision"], "move": choice})).await;
                assert_eq!(reply["match"]["id"], id);
                moved = true;
            }
            if !moved {
                stream.next_of("match").await;
            }
        };
        assert_eq!(finished["status"], "finished", "{finished}");
        games.push(finished);
    }
    assert!(passes > 0, "the bot never passed in {} games", games.len());
    assert!(late_move_refused, "no leg ended before the other");
    for game in &games {
        assert_eq!(game["state"]["finish_reason"], "discs", "{game}");
        assert_eq!(
            (game["ranked"].as_bool(), game["rating_applied"].as_bool()),
            (Some(true), Some(true)),
            "{game}"
        );
        let before = game["rating_before"][1].as_f64().expect("rated before");
        let after = game["rating_after"][1].as_f64().expect("rated after");
        let totals = &game["state"]["totals"];
        let won = totals[1].as_i64() > totals[0].as_i64();
        let lost = totals[1].as_i64() < totals[0].as_i64();
        assert!(!won || after > before, "a win raises the rating: {game}");
        assert!(!lost || after < before, "a loss lowers it: {game}");
    }
    let own = ok(&app, &token, json!({"action": "agent_poll"})).await["bot"]["rating"].clone();
    assert_eq!(own["games"], json!(games.len()), "{own}");
    assert_eq!(own["official_progress"]["current"], json!(games.len()));
    let last = games.last().expect("a game");
    assert_eq!(own["rating"], last["rating_after"][1], "{own}");
}

#[tokio::test]
async fn a_well_formed_request_for_a_missing_match_is_denied_not_called_malformed() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let table = [
        (json!(999), 403, "access denied"),
        (json!(0), 403, "access denied"),
        (json!(-999), 403, "access denied"),
        (json!(i64::MIN), 403, "access denied"),
        (json!(u64::MAX), 403, "access denied"),
        (json!("999"), 400, "JSON object required"),
        (json!(1.5), 400, "JSON object required"),
        (json!(null), 400, "JSON object required"),
    ];
    for (match_id, status, error) in table {
        for action_name in ["agent_move", "agent_accept", "agent_reject"] {
            let body = json!({"action": action_name, "match_id": match_id, "leg": 0, "revision": 0, "move": "d3"});
            fails(&app, Some(&alpha), body, status, error).await;
        }
    }
}

#[tokio::test]
async fn the_dialect_lists_only_the_game_it_serves() {
    let app = spawn_app().await;
    let (_, token) = app.anonymous().await;
    let othello = app
        .challenge(&token, "house-random", json!({"format": "single"}))
        .await;
    let other = app
        .challenge(
            &token,
            "house-random",
            json!({"game": "goofspiel", "variant": "short", "format": "single"}),
        )
        .await;
    let polled = ok(&app, &token, json!({"action": "agent_poll"})).await;
    let listed: Vec<i64> = polled["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .filter_map(|m| m["id"].as_i64())
        .collect();
    assert!(listed.contains(&othello), "{polled}");
    assert!(!listed.contains(&other), "{polled}");
}
