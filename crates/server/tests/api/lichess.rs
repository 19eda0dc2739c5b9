//! The Lichess dialect over real HTTP, as its clients use it: tokens and the account, a
//! challenge made with JSON and answered with a form, both streams (`gameFull` first,
//! keep-alives on the injected clock, the stream closed after the final state, one event
//! stream per bot), moves and their refusals, chat, draws, aborts, resignation, Dice Chess's
//! dice in every state, games against oneself and the house, and the PGN export.

use arbiter_arena::ArenaConfig;
use reqwest::Method;
use serde_json::{Value, json};

use super::helpers::*;

/// A server that runs chess besides the families every test server runs, speaking the
/// Lichess dialect with chess as its default.
async fn app() -> TestApp {
    let games = games().with(&arbiter_chess::FAMILY);
    spawn_running(ArenaConfig::default(), games, |games| {
        dialects(games)
            .with_lichess(games, "chess")
            .expect("chess is served")
    })
    .await
}

/// Registers a bot that plays chess; returns its token.
async fn chess_bot(app: &TestApp, name: &str) -> String {
    bot_playing(app, name, "chess").await
}

/// Registers a bot that plays `game`; returns its token.
async fn bot_playing(app: &TestApp, name: &str, game: &str) -> String {
    let body = json!({"name": name, "supported_variants": [game]});
    let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
    created["token"].as_str().expect("token").to_owned()
}

/// A request off the server's root with a bearer token and a raw body.
async fn li(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<(&str, String)>,
) -> Reply {
    let mut request = app.client.request(method, format!("{}{path}", app.root()));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some((content_type, body)) = body {
        if !content_type.is_empty() {
            request = request.header("content-type", content_type);
        }
        request = request.body(body);
    }
    Reply::read(request.send().await.expect("request sent")).await
}

async fn li_post(app: &TestApp, path: &str, token: &str) -> Reply {
    li(app, Method::POST, path, Some(token), None).await
}

async fn li_json(app: &TestApp, path: &str, token: &str, body: Value) -> Reply {
    let body = Some(("application/json", body.to_string()));
    li(app, Method::POST, path, Some(token), body).await
}

async fn li_form(app: &TestApp, path: &str, token: &str, form: &str) -> Reply {
    let body = Some(("application/x-www-form-urlencoded", form.to_owned()));
    li(app, Method::POST, path, Some(token), body).await
}

/// Opens a stream off the root, checking its content type whatever `Accept` says.
async fn open(app: &TestApp, path: &str, token: &str) -> Lines {
    let response = app
        .client
        .get(format!("{}{path}", app.root()))
        .bearer_auth(token)
        .header("accept", "application/json")
        .send()
        .await
        .expect("stream");
    assert_eq!(response.status(), 200, "stream refused");
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    assert!(response.headers().get("content-encoding").is_none());
    Lines::from_response(response)
}

/// Creates a challenge from `from` to `to` as berserk does (JSON, nulls included); returns
/// its id.
async fn challenge(app: &TestApp, from: &str, to: &str, variant: Option<&str>) -> String {
    let body = json!({"rated": false, "clock.limit": 120, "clock.increment": 1, "days": null,
        "color": "white", "variant": variant, "fen": null});
    let created = li_json(app, &format!("/api/challenge/{to}"), from, body)
        .await
        .expect(200);
    created["id"].as_str().expect("id").to_owned()
}

/// `from` challenges the bot `to` (whose token is `to_token`) with `body`, which accepts;
/// returns the game's id.
async fn accepted(app: &TestApp, from: &str, to: &str, to_token: &str, body: Value) -> String {
    let created = li_json(app, &format!("/api/challenge/{to}"), from, body)
        .await
        .expect(200);
    let id = created["id"].as_str().expect("id").to_owned();
    li_post(app, &format!("/api/challenge/{id}/accept"), to_token)
        .await
        .expect(200);
    id
}

/// Two chess bots, A challenging B, B accepting; their tokens, the game's id and both
/// event streams, read up to `gameStart`.
async fn started_game(
    app: &TestApp,
    variant: Option<&str>,
) -> (String, String, String, Lines, Lines) {
    let a = chess_bot(app, "Alpha").await;
    let b = chess_bot(app, "Beta").await;
    let mut a_events = open(app, "/api/stream/event", &a).await;
    let mut b_events = open(app, "/api/stream/event", &b).await;
    let id = challenge(app, &a, "Beta", variant).await;
    let offered = b_events.next_of("challenge").await;
    assert_eq!(offered["challenge"]["id"], id.as_str());
    assert_eq!(offered["challenge"]["direction"], "in");
    assert_eq!(offered["challenge"]["challenger"]["name"], "Alpha");
    assert_eq!(offered["challenge"]["timeControl"]["limit"], 120);
    assert_eq!(offered["challenge"]["color"], "white");
    li_post(app, &format!("/api/challenge/{id}/accept"), &b)
        .await
        .expect(200);
    for events in [&mut a_events, &mut b_events] {
        let start = events.next_of("gameStart").await;
        assert_eq!(
            (&start["game"]["id"], &start["game"]["gameId"]),
            (&json!(id), &json!(id))
        );
    }
    (a, b, id, a_events, b_events)
}

#[tokio::test]
async fn tokens_accounts_and_users_answer_in_the_dialects_shapes() {
    let app = app().await;
    let a = chess_bot(&app, "Alpha").await;
    let body = Some(("", format!("{a},nonsense")));
    let tested = li(&app, Method::POST, "/api/token/test", None, body)
        .await
        .expect(200);
    assert_eq!(tested[&a]["userId"], "alpha");
    assert!(
        tested[&a]["scopes"]
            .as_str()
            .expect("scopes")
            .split(',')
            .any(|s| s == "bot:play")
    );
    assert_eq!(tested["nonsense"], Value::Null);

    let account = li(&app, Method::GET, "/api/account", Some(&a), None)
        .await
        .expect(200);
    assert_eq!(
        (&account["id"], &account["username"], &account["title"]),
        (&json!("alpha"), &json!("Alpha"), &json!("BOT"))
    );
    assert_eq!(
        li_post(&app, "/api/bot/account/upgrade", &a)
            .await
            .expect(200),
        json!({"ok": true})
    );
    let refused = li(&app, Method::GET, "/api/account", Some("nonsense"), None).await;
    assert_eq!(refused.status, 401);
    assert!(refused.body["error"].is_string());

    let statuses = li(
        &app,
        Method::GET,
        "/api/users/status?ids=alpha,nobody",
        None,
        None,
    )
    .await
    .expect(200);
    assert_eq!(
        statuses,
        json!([{"id": "alpha", "name": "Alpha", "title": "BOT", "online": true}])
    );
    let user = li(&app, Method::GET, "/api/user/ALPHA", None, None)
        .await
        .expect(200);
    assert_eq!(user["username"], "Alpha");
    assert_eq!(
        li(&app, Method::GET, "/api/user/nobody", None, None)
            .await
            .status,
        404
    );
    let playing = li(&app, Method::GET, "/api/account/playing", Some(&a), None)
        .await
        .expect(200);
    assert_eq!(playing, json!({"nowPlaying": [], "nbMyTurn": 0}));
}

#[tokio::test]
async fn a_game_is_played_to_mate_over_both_streams() {
    let app = app().await;
    let (a, b, id, mut a_events, mut b_events) = started_game(&app, None).await;
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), &b).await;
    let full = stream.next().await;
    assert_eq!(full["type"], "gameFull");
    assert_eq!(
        (&full["white"]["name"], &full["black"]["name"]),
        (&json!("Alpha"), &json!("Beta"))
    );
    assert_eq!(
        full["clock"],
        json!({"initial": 120_000, "increment": 1000})
    );
    assert_eq!(full["initialFen"], "startpos");
    assert_eq!(full["variant"]["key"], "standard");
    assert_eq!(full["state"]["moves"], "");
    assert_eq!(
        (&full["state"]["wtime"], &full["state"]["winc"]),
        (&json!(120_000), &json!(1000))
    );

    let playing = li(&app, Method::GET, "/api/account/playing", Some(&a), None)
        .await
        .expect(200);
    assert_eq!(playing["nowPlaying"][0]["gameId"], id.as_str());
    assert_eq!(playing["nowPlaying"][0]["isMyTurn"], true);
    assert_eq!(playing["nbMyTurn"], 1);

    // Fool's mate, with a draw offer and chat along the way.
    let moves = [(&a, "f2f3"), (&b, "e7e5"), (&a, "g2g4"), (&b, "d8h4")];
    let mut played = Vec::new();
    for (i, (token, mv)) in moves.into_iter().enumerate() {
        let path = format!("/api/bot/game/{id}/move/{mv}?offeringDraw={}", i == 0);
        assert_eq!(
            li_post(&app, &path, token).await.expect(200),
            json!({"ok": true})
        );
        played.push(mv);
        let state = stream.next_of("gameState").await;
        if i == 0 {
            // The offer came with the move: it may show in the same state or the next.
            let state = if state["wdraw"] == true {
                state
            } else {
                stream.next_of("gameState").await
            };
            assert_eq!(
                (&state["wdraw"], &state["bdraw"]),
                (&json!(true), &json!(false))
            );
            continue;
        }
        assert_eq!(state["moves"], played.join(" "));
        let status = if i == 3 { "mate" } else { "started" };
        assert_eq!(state["status"], status);
        if i == 1 {
            li_form(
                &app,
                &format!("/api/bot/game/{id}/chat"),
                &b,
                "room=player&text=good+luck",
            )
            .await
            .expect(200);
            let said = stream.next_of("chatLine").await;
            assert_eq!(
                said,
                json!({"type": "chatLine", "room": "player", "username": "Beta", "text": "good luck"})
            );
        }
    }
    let last = li(
        &app,
        Method::GET,
        &format!("/api/bot/game/stream/{id}"),
        Some(&a),
        None,
    )
    .await;
    let last: Value = serde_json::from_str(last.text.trim()).expect("gameFull alone");
    assert_eq!(
        (&last["state"]["status"], &last["state"]["winner"]),
        (&json!("mate"), &json!("black"))
    );
    assert!(
        stream.ends().await,
        "the game stream closes after the final state"
    );
    for events in [&mut a_events, &mut b_events] {
        let finish = events.next_of("gameFinish").await;
        assert_eq!(finish["game"]["winner"], "black");
    }
    // A finished game's stream sends `gameFull` and closes.
    let mut again = open(&app, &format!("/api/bot/game/stream/{id}"), &a).await;
    assert_eq!(again.next().await["state"]["status"], "mate");
    assert!(again.ends().await);
    let pgn = li(&app, Method::GET, &format!("/game/export/{id}"), None, None).await;
    assert_eq!(pgn.status, 200);
    assert!(
        pgn.text.contains("[White \"Alpha\"]") && pgn.text.contains("[Result \"0-1\"]"),
        "{}",
        pgn.text
    );
    assert!(pgn.text.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{}", pgn.text);
}

#[tokio::test]
async fn moves_are_refused_with_a_4xx_and_change_nothing() {
    let app = app().await;
    let (a, b, id, _, _) = started_game(&app, None).await;
    for (token, path, status) in [
        (&b, format!("/api/bot/game/{id}/move/e7e5"), 400),
        (&a, format!("/api/bot/game/{id}/move/e2e5"), 400),
        (&a, format!("/api/bot/game/{id}/move/zz"), 400),
        (&a, "/api/bot/game/999/move/e2e4".to_owned(), 404),
        (&a, "/api/bot/game/nonsense/move/e2e4".to_owned(), 404),
    ] {
        let refused = li_post(&app, &path, token).await;
        assert_eq!(refused.status, status, "{path}: {}", refused.text);
        assert!(refused.body["error"].is_string(), "{path}");
    }
    let snapshot = app.snapshot(id.parse().expect("id")).await;
    assert_eq!(snapshot["legs"][0]["revision"], 0);
    assert_eq!(
        li_post(&app, &format!("/api/bot/game/{id}/takeback/no"), &a)
            .await
            .expect(200),
        json!({"ok": true})
    );
}

#[tokio::test]
async fn both_streams_send_a_keepalive_before_seven_seconds_pass() {
    let app = app().await;
    let (_, b, id, _, mut events) = started_game(&app, None).await;
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), &b).await;
    assert_eq!(stream.next().await["type"], "gameFull");
    for _ in 0..3 {
        assert!(stream.nothing_pending().await && events.nothing_pending().await);
        app.advance(6_000).await;
        assert_eq!(stream.next_text().await, "", "the game stream's keep-alive");
        assert_eq!(
            events.next_text().await,
            "",
            "the event stream's keep-alive"
        );
    }
}

#[tokio::test]
async fn a_new_event_stream_ends_the_one_before() {
    let app = app().await;
    let a = chess_bot(&app, "Alpha").await;
    let mut first = open(&app, "/api/stream/event", &a).await;
    let _second = open(&app, "/api/stream/event", &a).await;
    assert!(first.ends().await);
}

#[tokio::test]
async fn a_declined_challenge_tells_the_challenger_why() {
    let app = app().await;
    let a = chess_bot(&app, "Alpha").await;
    let b = chess_bot(&app, "Beta").await;
    let mut a_events = open(&app, "/api/stream/event", &a).await;
    let body = json!({"clock.limit": 60, "color": "black", "variant": "chess960"});
    let created = li_json(&app, "/api/challenge/Beta", &a, body)
        .await
        .expect(200);
    let id = created["id"].as_str().expect("id").to_owned();
    li_form(
        &app,
        &format!("/api/challenge/{id}/decline"),
        &b,
        "reason=variant",
    )
    .await
    .expect(200);
    let declined = a_events.next_of("challengeDeclined").await;
    assert_eq!(declined["challenge"]["declineReasonKey"], "variant");
    assert_eq!(declined["challenge"]["variant"]["key"], "chess960");
    assert_eq!(declined["challenge"]["color"], "black");
    assert!(declined["challenge"]["declineReason"].is_string());

    let id = challenge(&app, &a, "Beta", None).await;
    li_post(&app, &format!("/api/challenge/{id}/cancel"), &a)
        .await
        .expect(200);
    assert_eq!(
        a_events.next_of("challengeCanceled").await["challenge"]["id"],
        id.as_str()
    );
    let unknown = li_json(&app, "/api/challenge/Beta", &a, json!({"variant": "shogi"})).await;
    assert_eq!(unknown.status, 400);
    assert!(
        unknown.body["error"]
            .as_str()
            .expect("error")
            .contains("diceChess")
    );
}

#[tokio::test]
async fn a_game_may_be_aborted_until_both_have_moved() {
    let app = app().await;
    let (a, b, id, _, mut b_events) = started_game(&app, None).await;
    li_post(&app, &format!("/api/bot/game/{id}/move/e2e4"), &a)
        .await
        .expect(200);
    li_post(&app, &format!("/api/bot/game/{id}/abort"), &b)
        .await
        .expect(200);
    let finish = b_events.next_of("gameFinish").await;
    assert_eq!(finish["game"]["status"]["name"], "aborted");

    let (a, b, id, _, _) = started_game_again(&app).await;
    li_post(&app, &format!("/api/bot/game/{id}/move/e2e4"), &a)
        .await
        .expect(200);
    li_post(&app, &format!("/api/bot/game/{id}/move/e7e5"), &b)
        .await
        .expect(200);
    assert_eq!(
        li_post(&app, &format!("/api/bot/game/{id}/abort"), &a)
            .await
            .status,
        400
    );
    li_post(&app, &format!("/api/bot/game/{id}/resign"), &a)
        .await
        .expect(200);
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), &a).await;
    let full = stream.next().await;
    assert_eq!(
        (&full["state"]["status"], &full["state"]["winner"]),
        (&json!("resign"), &json!("black"))
    );
}

/// A second game between the bots of [`started_game`].
async fn started_game_again(app: &TestApp) -> (String, String, String, Lines, Lines) {
    let a = chess_bot(app, "Gamma").await;
    let b = chess_bot(app, "Delta").await;
    let b_events = open(app, "/api/stream/event", &b).await;
    let body = json!({"clock.limit": 120, "color": "white"});
    let id = accepted(app, &a, "Delta", &b, body).await;
    let a_events = open(app, "/api/stream/event", &a).await;
    (a, b, id, a_events, b_events)
}

#[tokio::test]
async fn dice_chess_states_carry_the_dice_and_micro_moves_go_one_at_a_time() {
    let app = app().await;
    let (a, b, id, _, _) = started_game(&app, Some("diceChess")).await;
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), &a).await;
    let full = stream.next().await;
    assert_eq!(full["variant"]["key"], "diceChess");
    let state = &full["state"];
    assert_eq!(state["dice"]["rolled"].as_array().expect("dice").len(), 3);
    assert!(state["dfen"].as_str().expect("dfen").split(' ').count() == 7);
    // White's first dice may name only pieces that cannot move yet; then Black is to move.
    let mut mover = None;
    for token in [&a, &b] {
        let turn = app.turns(id.parse().expect("id"), token).await;
        if let Some(legal) = turn
            .first()
            .and_then(|t| t["request"]["legal_actions"][0].as_str())
        {
            mover = Some((token, legal.to_owned()));
        }
    }
    let (token, legal) = mover.expect("someone is to move");
    li_post(&app, &format!("/api/bot/game/{id}/move/{legal}"), token)
        .await
        .expect(200);
    let next = stream.next_of("gameState").await;
    assert_eq!(next["moves"], legal.as_str());
    // The micro-move is the turn's first, unless it was its only one and new dice were
    // rolled for the other side.
    let played = if next["dice"]["nonce"] == state["dice"]["nonce"] {
        json!([legal])
    } else {
        json!([])
    };
    assert_eq!(next["dice"]["played"], played);
}

#[tokio::test]
async fn an_anonymous_bot_plays_itself_and_the_house() {
    let app = app().await;
    let (_, token) = app.anonymous().await;
    let me = li(&app, Method::GET, "/api/account", Some(&token), None)
        .await
        .expect(200);
    let name = me["username"].as_str().expect("name").to_owned();
    let mut events = open(&app, "/api/stream/event", &token).await;
    let id = challenge(&app, &token, &name, None).await;
    assert_eq!(events.next_of("gameStart").await["game"]["id"], id.as_str());
    // One process drives both sides.
    for mv in ["e2e4", "e7e5", "g1f3"] {
        li_post(&app, &format!("/api/bot/game/{id}/move/{mv}"), &token)
            .await
            .expect(200);
    }
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), &token).await;
    assert_eq!(stream.next().await["state"]["moves"], "e2e4 e7e5 g1f3");

    let house = challenge(&app, &token, "house-greedy", None).await;
    let start = events.next_of("gameStart").await;
    assert_eq!(start["game"]["id"], house.as_str());
    assert_eq!(start["game"]["opponent"]["username"], "house-greedy");
}

#[tokio::test]
async fn othello_is_played_the_same_way_by_clients_that_take_any_variant() {
    let app = app().await;
    let a = &bot_playing(&app, "Alpha", "othello").await;
    let b = &bot_playing(&app, "Beta", "othello").await;
    let body =
        json!({"clock.limit": 60, "clock.increment": 0, "color": "black", "variant": "othello"});
    let id = accepted(&app, a, "Beta", b, body).await;
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), a).await;
    let full = stream.next().await;
    assert_eq!(
        (&full["variant"]["key"], &full["black"]["name"]),
        (&json!("othello"), &json!("Alpha"))
    );
    assert_eq!(full["initialFen"], "startpos");
    // The random opening's moves come first, from the usual start.
    let opening: Vec<String> = full["state"]["moves"]
        .as_str()
        .expect("moves")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert_eq!(opening.len(), 8);
    let turn = app.turns(id.parse().expect("id"), a).await;
    let square = turn[0]["request"]["legal_moves"][0]
        .as_i64()
        .expect("a square");
    let token = format!(
        "{}{}",
        char::from(b'a' + (square % 8) as u8),
        square / 8 + 1
    );
    li_post(&app, &format!("/api/bot/game/{id}/move/{token}"), a)
        .await
        .expect(200);
    let state = stream.next_of("gameState").await;
    assert_eq!(state["moves"], format!("{} {token}", opening.join(" ")));
}

#[tokio::test]
async fn the_native_api_challenges_a_house_bot_by_its_level() {
    let app = app().await;
    let (_, token) = app.anonymous().await;
    let body = json!({"game": "chess", "variant": "dice", "format": "single"});
    let started = app
        .post("/bot/challenge/house/greedy", Some(&token), body)
        .await
        .expect(201);
    assert_eq!(
        (&started["status"], &started["bot_b"]["name"]),
        (&json!("running"), &json!("house-greedy"))
    );
    assert_eq!(started["variant"], "dice");
    let bare = app
        .call(
            Method::POST,
            "/bot/challenge/house/random",
            Some(&token),
            None,
        )
        .await
        .expect(201);
    assert_eq!(bare["bot_b"]["name"], "house-random");
    let unknown = app
        .post("/bot/challenge/house/nobody", Some(&token), json!({}))
        .await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn gomoku_stones_are_named_by_column_letter_and_row_number() {
    let app = app().await;
    let a = &bot_playing(&app, "Alpha", "gomoku").await;
    let b = &bot_playing(&app, "Beta", "gomoku").await;
    let body =
        json!({"clock.limit": 60, "clock.increment": 0, "color": "white", "variant": "renju"});
    let id = accepted(&app, a, "Beta", b, body).await;
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), b).await;
    let full = stream.next().await;
    assert_eq!(
        (&full["variant"]["key"], &full["black"]["name"]),
        (&json!("renju"), &json!("Beta"))
    );
    li_post(&app, &format!("/api/bot/game/{id}/move/h8"), b)
        .await
        .expect(200);
    assert_eq!(stream.next_of("gameState").await["moves"], "h8");
    let snapshot = app.snapshot(id.parse().expect("id")).await;
    assert_eq!(
        snapshot["legs"][0]["view"]["board"][7]
            .as_str()
            .expect("row 8")
            .find('X'),
        Some(7)
    );
}

#[tokio::test]
async fn a_bot_listening_to_its_game_stream_alone_stays_in_the_game() {
    let app = app().await;
    // Alpha stays connected by its event stream; Beta listens to its game alone.
    let (a, b, id, _a_events, b_events) = started_game(&app, None).await;
    drop(b_events);
    let mut a_game = open(&app, &format!("/api/bot/game/stream/{id}"), &a).await;
    let mut b_game = open(&app, &format!("/api/bot/game/stream/{id}"), &b).await;
    li_post(&app, &format!("/api/bot/game/{id}/move/e2e4"), &a)
        .await
        .expect(200);
    li_post(&app, &format!("/api/bot/game/{id}/move/e7e5"), &b)
        .await
        .expect(200);
    for stream in [&mut a_game, &mut b_game] {
        assert_eq!(stream.next().await["type"], "gameFull");
        while stream.next_of("gameState").await["moves"] != "e2e4 e7e5" {}
    }
    // Longer than the arena waits for a player who is gone.
    for _ in 0..10 {
        app.advance(6_000).await;
        for stream in [&mut a_game, &mut b_game] {
            assert_eq!(stream.next_text().await, "");
        }
    }
    let snapshot = app.snapshot(id.parse().expect("id")).await;
    assert_eq!(snapshot["status"], "running");
}

#[tokio::test]
async fn matches_of_several_legs_are_not_shown_to_lichess_clients() {
    let app = app().await;
    let a = chess_bot(&app, "Alpha").await;
    let _b = chess_bot(&app, "Beta").await;
    let mut events = open(&app, "/api/stream/event", &a).await;
    let body = json!({"opponent": "Beta", "game": "chess", "format": "paired"});
    let paired = app.post("/challenges", Some(&a), body).await.expect(201)["id"]
        .as_i64()
        .expect("id");
    let body = json!({"opponent": "Beta", "game": "chess", "format": "single"});
    let single = app.post("/challenges", Some(&a), body).await.expect(201)["id"]
        .as_i64()
        .expect("id");
    let offered = events.next_of("challenge").await;
    assert_eq!(offered["challenge"]["id"], single.to_string());
    let stream = li(
        &app,
        Method::GET,
        &format!("/api/bot/game/stream/{paired}"),
        Some(&a),
        None,
    )
    .await;
    assert_eq!(stream.status, 404);
}

#[tokio::test]
async fn a_stream_opened_during_a_turn_counts_the_time_the_mover_has_spent() {
    let app = app().await;
    let (a, b, id, _, _) = started_game(&app, None).await;
    li_post(&app, &format!("/api/bot/game/{id}/move/e2e4"), &a)
        .await
        .expect(200);
    app.advance(5_000).await;
    let mut stream = open(&app, &format!("/api/bot/game/stream/{id}"), &b).await;
    let state = &stream.next().await["state"];
    // White's increment is on its clock; Black has spent five seconds of its turn.
    assert_eq!(
        (&state["wtime"], &state["btime"]),
        (&json!(121_000), &json!(115_000))
    );
}
