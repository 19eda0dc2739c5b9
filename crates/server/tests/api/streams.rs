use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn the_stream_sends_hello_challenges_turns_and_pings_one_line_at_a_time() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let mut beta = app.stream(&b).await;
    let hello = beta.next().await;
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["bot"]["name"], "Beta");
    assert!(beta.nothing_pending().await);

    let id = app.challenge(&a, "Beta", json!({})).await;
    let challenge = beta.next().await;
    assert_eq!(challenge["type"], "challenge");
    assert_eq!(challenge["challenge"]["id"], id);
    // The line was readable before anything else happened.
    assert!(beta.nothing_pending().await);

    app.post(&format!("/challenges/{id}/accept"), Some(&b), json!({}))
        .await
        .expect(200);
    let mut saw_turn = None;
    for _ in 0..3 {
        let line = beta.next().await;
        if line["type"] == "turn" {
            saw_turn = Some(line);
            break;
        }
        assert_eq!(line["type"], "match");
    }
    let turn = saw_turn.expect("Beta is Black in leg 1");
    assert_eq!(
        (
            turn["match_id"].clone(),
            turn["leg"].clone(),
            turn["revision"].clone()
        ),
        (json!(id), json!(1), json!(0))
    );
    assert_eq!(turn["request"]["color"], 1);
    assert_eq!(turn["request"]["leg"], 1);

    // Alpha moves in leg 0: Beta's next decision arrives as a turn line.
    app.play_first_moves(id, &a).await;
    let next = beta.next_of("turn").await;
    assert_eq!(
        (next["leg"].clone(), next["revision"].clone()),
        (json!(0), json!(1))
    );

    app.advance(10_000).await;
    assert_eq!(beta.next_of("ping").await["type"], "ping");
}

#[tokio::test]
async fn a_new_stream_is_sent_what_is_pending() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    let (_, c) = app.register("Gamma").await;
    let pending = app.challenge(&c, "Alpha", json!({})).await;
    let mut alpha = app.stream(&a).await;
    assert_eq!(alpha.next().await["type"], "hello");
    let mut kinds = Vec::new();
    for _ in 0..3 {
        let line = alpha.next().await;
        kinds.push((line["type"].as_str().unwrap_or("").to_owned(), line.clone()));
    }
    assert!(
        kinds
            .iter()
            .any(|(k, l)| k == "challenge" && l["challenge"]["id"] == pending),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|(k, l)| k == "match" && l["match"]["id"] == id)
    );
    assert!(
        kinds
            .iter()
            .any(|(k, l)| k == "turn" && l["match_id"] == id && l["leg"] == 0)
    );
}

#[tokio::test]
async fn at_most_three_streams_per_bot() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let _streams = [
        app.stream(&a).await,
        app.stream(&a).await,
        app.stream(&a).await,
    ];
    app.get("/stream", Some(&a))
        .await
        .expect_error(429, "too_many_streams");
    drop(_streams);
    settle().await;
    let _again = app.stream(&a).await;
    let (_, anonymous) = app.anonymous().await;
    let _anon = [app.stream(&anonymous).await, app.stream(&anonymous).await];
    app.get("/stream", Some(&anonymous))
        .await
        .expect_error(429, "too_many_streams");
}

#[tokio::test]
async fn a_long_poll_wakes_as_soon_as_an_event_exists() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    let latest = app.snapshot(id).await["seq"].as_i64().expect("seq");
    let base = app.base.clone();
    let poll = tokio::spawn(async move {
        let started = std::time::Instant::now();
        let body: serde_json::Value = arbiter_http_client::client()
            .get(format!("{base}/matches/{id}/events?since={latest}&wait=30"))
            .send()
            .await
            .expect("poll")
            .json()
            .await
            .expect("json");
        (body, started.elapsed())
    });
    settle().await;
    assert!(!poll.is_finished(), "nothing has happened yet");
    app.play_first_moves(id, &a).await;
    let (body, _) = tokio::time::timeout(std::time::Duration::from_secs(5), poll)
        .await
        .expect("woken")
        .expect("task");
    let events = body["events"].as_array().expect("events");
    assert_eq!(events[0]["type"], "move");
    assert_eq!(body["next_since"], latest + 1);

    // With nothing to report, the wait ends when the clock passes it.
    let base = app.base.clone();
    let since = latest + 1;
    let idle = tokio::spawn(async move {
        arbiter_http_client::client()
            .get(format!("{base}/matches/{id}/events?since={since}&wait=5"))
            .send()
            .await
            .expect("poll")
            .json::<serde_json::Value>()
            .await
            .expect("json")
    });
    settle().await;
    assert!(!idle.is_finished());
    app.advance(5_000).await;
    let body = tokio::time::timeout(std::time::Duration::from_secs(5), idle)
        .await
        .expect("returned")
        .expect("task");
    assert_eq!(body["events"], json!([]));
    assert_eq!(body["next_since"], since);
}

#[tokio::test]
async fn long_polls_return_at_most_100_events() {
    let app = spawn_app().await;
    let (_, token) = app.register("Solo").await;
    // A paired match logs about 110 events, but openings are random and a game may end
    // early: play self-play matches until one has logged more than a page.
    let mut id;
    loop {
        id = app
            .post("/challenges", Some(&token), json!({"opponent": "Solo"}))
            .await
            .expect(201)["id"]
            .as_i64()
            .expect("id");
        while !app.play_first_moves(id, &token).await.is_empty() {}
        if app.snapshot(id).await["seq"].as_i64().expect("seq") > 100 {
            break;
        }
    }
    let page = app
        .get(&format!("/matches/{id}/events?since=0"), None)
        .await
        .expect(200);
    assert_eq!(page["events"].as_array().expect("events").len(), 100);
    assert_eq!(page["next_since"], 100);
    let rest = app
        .get(&format!("/matches/{id}/events?since=100"), None)
        .await
        .expect(200);
    assert_eq!(rest["events"][0]["seq"], 101);
}

/// A stopping server ends its streams and long-polls, or it could never finish its open
/// requests and exit.
#[tokio::test]
async fn shutting_down_ends_streams_and_long_polls() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    let mut stream = app.stream(&a).await;
    assert_eq!(stream.next().await["type"], "hello");
    let base = app.base.clone();
    let latest = app.snapshot(id).await["seq"].as_i64().expect("seq");
    let poll = tokio::spawn(async move {
        let response = arbiter_http_client::client()
            .get(format!("{base}/matches/{id}/events?since={latest}&wait=60"))
            .send()
            .await
            .expect("poll");
        let status = response.status().as_u16();
        (
            status,
            response.json::<serde_json::Value>().await.expect("json"),
        )
    });
    settle().await;
    assert!(!poll.is_finished(), "nothing has happened yet");
    app.arena.shutdown().await;
    assert!(stream.ends().await, "the stream is closed");
    let (status, body) = tokio::time::timeout(std::time::Duration::from_secs(5), poll)
        .await
        .expect("the long-poll returns")
        .expect("task");
    assert_eq!(status, 503);
    assert_eq!(body["error"], "shutting_down");
}

#[tokio::test]
async fn a_new_token_or_a_disabled_bot_ends_the_open_streams() {
    let app = spawn_app().await;
    let (_, token) = app.register("Rotor").await;
    let mut stream = app.stream(&token).await;
    assert_eq!(stream.next().await["type"], "hello");
    let rotated = app
        .post("/bots/me/rotate-token", Some(&token), json!({}))
        .await
        .expect(200);
    assert!(stream.ends().await, "the old token's stream is closed");
    let token = rotated["token"].as_str().expect("token").to_owned();
    let mut stream = app.stream(&token).await;
    assert_eq!(stream.next().await["type"], "hello");
    app.post("/admin/bots/Rotor/disable", Some(ADMIN), json!({}))
        .await
        .expect(200);
    assert!(stream.ends().await, "a disabled bot's stream is closed");
}

#[tokio::test]
async fn a_stream_following_the_lobby_hears_every_change_of_the_open_tables() {
    let app = spawn_app().await;
    let mut tokens = Vec::new();
    for name in ["Alpha", "Beta", "Gamma", "Delta"] {
        let body = json!({"name": name, "supported_variants": ["goofspiel"]});
        let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
        tokens.push(created["token"].as_str().expect("token").to_owned());
    }
    let mut lobby = app.stream_with(&tokens[0], "?lobby=true").await;
    assert_eq!(lobby.next().await["type"], "hello");
    assert_eq!(lobby.next_of("tables").await["tables"], json!([]));
    // A stream that does not follow the lobby hears nothing of it.
    let mut plain = app.stream(&tokens[3]).await;
    assert_eq!(plain.next().await["type"], "hello");

    let body = json!({"game": "goofspiel", "variant": "short", "seats": 3});
    let table = app
        .post("/tables", Some(&tokens[1]), body)
        .await
        .expect(201)["id"]
        .as_i64()
        .expect("id");
    let seated = |line: &serde_json::Value| -> Vec<String> {
        line["tables"][0]["participants"]
            .as_array()
            .expect("participants")
            .iter()
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect()
    };
    let opened = lobby.next_of("tables").await;
    assert_eq!(opened["tables"][0]["id"], table, "{opened}");
    assert_eq!(seated(&opened), ["Beta"]);
    app.post(
        &format!("/tables/{table}/join"),
        Some(&tokens[2]),
        json!({}),
    )
    .await
    .expect(200);
    assert_eq!(seated(&lobby.next_of("tables").await), ["Beta", "Gamma"]);

    // The lobby in the API, of every game or of one.
    let listed = |game: &str| {
        let app = &app;
        let game = game.to_owned();
        async move { app.get(&format!("/tables{game}"), None).await.expect(200) }
    };
    assert_eq!(listed("").await.as_array().map(Vec::len), Some(1));
    assert_eq!(
        listed("?game=goofspiel").await.as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(listed("?game=othello").await, json!([]));

    // The last seat starts the match: the table leaves the lobby and the match is live.
    app.post(
        &format!("/tables/{table}/join"),
        Some(&tokens[3]),
        json!({}),
    )
    .await
    .expect(200);
    assert_eq!(lobby.next_of("tables").await["tables"], json!([]));
    let live = app.get("/live?game=goofspiel", None).await.expect(200);
    assert_eq!(live[0]["id"], table, "{live}");
    assert_eq!(live[0]["status"], "running", "{live}");
    assert_eq!(
        app.get("/live?game=othello", None).await.expect(200),
        json!([])
    );
    // Delta's own stream heard of its table and match, and of no lobby.
    while !plain.nothing_pending().await {
        assert_ne!(plain.next().await["type"], "tables");
    }
}
