//! The six table endpoints field by field against the protocol's examples (§2.1 to §2.6),
//! and a whole game to five in a row.

use serde_json::{Value, json};

use super::*;

#[tokio::test]
async fn a_guest_creates_a_match_as_the_protocol_shows() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let body = json!({
        "game": "gomoku",
        "config": {"board_size": 15, "turn_timeout": 120},
        "player": {"name": "alice", "display_name": "Alice", "meta": {"model": "claude-4.6"}},
    });
    let created = expect(client.create(Cred::None, &body).await, 201);

    assert!(
        created["match_id"].is_string(),
        "match_id is a string: {created}"
    );
    let id = id_of(&created["match_id"]);
    assert_eq!(created["seat"], 0, "{created}");
    assert!(
        created["play_token"]
            .as_str()
            .is_some_and(|token| is_token(token, "pk_live_", 32)),
        "{created}"
    );
    assert_eq!(created["status"], "waiting", "{created}");
    assert_eq!(created["config"]["board_size"], 15, "{created}");
    assert_eq!(created["config"]["turn_timeout"], 120, "{created}");
    // Both links are built from the server's public address, as the protocol's examples are
    // from theirs. The invitation's path is the server's own (the protocol's example is its
    // reference site's), but it is a page of this match on this server.
    let invite = created["invite_url"].as_str().unwrap_or_default();
    let invite_path = invite
        .strip_prefix(PUBLIC_URL)
        .unwrap_or_else(|| panic!("invite_url is on the public address: {created}"));
    assert!(invite_path.contains(&id), "{created}");
    assert_eq!(client.page(invite_path).await.status, 200, "{invite}");
    assert_eq!(
        created["claim_url"],
        format!("{PUBLIC_URL}/matches/{id}/claim"),
        "{created}"
    );

    let snapshot = client.snapshot(&id).await;
    assert_eq!(id_of(&snapshot["match_id"]), id);
    assert_eq!(snapshot["game"], "gomoku");
    assert_eq!(snapshot["status"], "waiting");
    assert_eq!(snapshot["config"]["board_size"], 15);
    assert_eq!(snapshot["config"]["turn_timeout"], 120);
    let players = snapshot["players"].as_array().expect("players");
    assert_eq!(players.len(), 1, "{snapshot}");
    assert_eq!(
        (
            &players[0]["seat"],
            &players[0]["name"],
            &players[0]["display_name"]
        ),
        (&json!(0), &json!("alice"), &json!("Alice")),
        "{snapshot}"
    );
    assert_eq!(snapshot["render"]["board_size"], 15, "{snapshot}");
    assert_eq!(snapshot["render"]["stones"], json!([]), "{snapshot}");
    assert_eq!(snapshot["render"]["move_count"], 0, "{snapshot}");
    assert!(snapshot["result"].is_null(), "{snapshot}");
    assert_eq!(
        snapshot["created_at"].as_str().and_then(unix_of_iso),
        Some(T0_S),
        "created_at is the creation time in ISO 8601: {snapshot}"
    );

    let events = client.all_events(&id).await;
    assert_eq!(snapshot["events_total"], json!(events.len()), "{snapshot}");
    assert_eq!(types(&events), ["match_created"]);
    let made = &events[0];
    assert_eq!(made["players"][0]["name"], "alice", "{made}");
    assert_eq!(made["config"]["board_size"], 15, "{made}");
    assert_eq!(made["config"]["turn_timeout"], 120, "{made}");
}

#[tokio::test]
async fn a_match_without_config_gets_the_protocol_defaults() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let created = client.create_guest("alice", Value::Null).await;
    assert_eq!(created.body["config"]["board_size"], 15, "{}", created.body);
    assert_eq!(
        created.body["config"]["turn_timeout"], DEFAULT_TURN_TIMEOUT,
        "{}",
        created.body
    );
    let snapshot = client.snapshot(&created.id).await;
    assert_eq!(snapshot["render"]["board_size"], 15, "{snapshot}");
}

#[tokio::test]
async fn joining_starts_the_match_with_seat_zero_to_move() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let black = client
        .create_guest("alice", json!({"board_size": 15, "turn_timeout": 120}))
        .await;
    app.advance(5_000).await;
    let white = client.join_guest(&black.id, "bob").await;
    let joined = &white.body;
    let deadline = T0_S + 5 + 120;
    assert_eq!(id_of(&joined["match_id"]), black.id);
    assert_eq!(white.seat, 1, "{joined}");
    assert_ne!(white.token, black.token, "each seat has its own token");
    assert_eq!(joined["status"], "in_progress", "{joined}");
    assert_eq!(joined["current_seat"], 0, "{joined}");
    assert_eq!(
        joined["deadline_ts"], deadline,
        "Black's deadline in Unix seconds"
    );

    let snapshot = client.snapshot(&black.id).await;
    assert_eq!(snapshot["status"], "in_progress");
    assert_eq!(snapshot["current_seat"], 0);
    assert_eq!(snapshot["deadline_ts"], deadline);
    let players: Vec<(Value, Value, Value)> = snapshot["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| {
            (
                p["seat"].clone(),
                p["name"].clone(),
                p["display_name"].clone(),
            )
        })
        .collect();
    assert_eq!(
        players,
        [
            (json!(0), json!("alice"), json!(display_name("alice"))),
            (json!(1), json!("bob"), json!(display_name("bob"))),
        ]
    );

    let events = client.all_events(&black.id).await;
    assert_eq!(
        types(&events)[..3],
        ["match_created", "player_joined", "match_started"],
        "{events:?}"
    );
    assert_eq!(
        (&events[1]["seat"], &events[1]["name"]),
        (&json!(1), &json!("bob"))
    );
    assert_eq!(
        (&events[2]["first_seat"], &events[2]["deadline_ts"]),
        (&json!(0), &json!(deadline)),
        "{}",
        events[2]
    );
    assert_eq!(snapshot["events_total"], json!(events.len()));
}

#[tokio::test]
async fn a_stone_is_answered_and_shown_in_the_snapshot_and_the_events() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client
        .table(json!({"board_size": 15, "turn_timeout": 120}))
        .await;
    let before = client.last_seq(&table.id).await;
    app.advance(3_000).await;

    let answer = client.place(&table.id, &table.black.token, 7, 7).await;
    assert_eq!(answer["status"], "in_progress", "{answer}");
    assert_eq!(answer["current_seat"], 1, "{answer}");
    assert!(answer["events_since"].is_i64(), "{answer}");
    let board = &answer["board_snapshot"];
    let stones = board["render"]["stones"]
        .as_array()
        .or_else(|| board["stones"].as_array())
        .unwrap_or_else(|| panic!("board_snapshot shows the stones: {answer}"));
    assert_eq!(stones.len(), 1, "{answer}");

    let snapshot = client.snapshot(&table.id).await;
    assert_eq!(snapshot["current_seat"], 1);
    assert_eq!(snapshot["deadline_ts"], T0_S + 3 + 120);
    assert_fields(
        &snapshot["render"],
        &json!({
            "board_size": 15,
            "stones": [{"x": 7, "y": 7, "color": "black", "seq": 1}],
            "last_move": {"x": 7, "y": 7},
            "move_count": 1,
        }),
    );

    let (placed, seen) = client.wait_for(&table.id, before, "stone_placed").await;
    assert_eq!(
        seen.len(),
        1,
        "the stone is the first event after the join: {seen:?}"
    );
    assert_eq!(
        (
            &placed["seat"],
            &placed["x"],
            &placed["y"],
            &placed["color"]
        ),
        (&json!(0), &json!(7), &json!(7), &json!("black")),
        "{placed}"
    );
    assert_eq!(
        placed["ts"].as_str().and_then(unix_of_iso),
        Some(T0_S + 3),
        "{placed}"
    );
    let (turn, _) = client
        .wait_for(
            &table.id,
            placed["seq"].as_i64().unwrap_or(0),
            "turn_started",
        )
        .await;
    assert_eq!(
        turn["seq"],
        placed["seq"].as_i64().unwrap_or(0) + 1,
        "{turn}"
    );
    assert_eq!(
        (&turn["seat"], &turn["deadline_ts"]),
        (&json!(1), &json!(T0_S + 3 + 120)),
        "{turn}"
    );

    let second = client.place(&table.id, &table.white.token, 8, 8).await;
    assert_eq!(second["current_seat"], 0, "{second}");
    let snapshot = client.snapshot(&table.id).await;
    // The protocol lists the stones in no particular order: each is found by its point.
    let white = snapshot["render"]["stones"]
        .as_array()
        .and_then(|stones| {
            stones
                .iter()
                .find(|stone| stone["x"] == 8 && stone["y"] == 8)
        })
        .unwrap_or_else(|| panic!("White's stone is shown: {snapshot}"));
    assert_fields(white, &json!({"x": 8, "y": 8, "color": "white", "seq": 2}));
    assert_fields(&snapshot["render"]["last_move"], &json!({"x": 8, "y": 8}));

    // An action's `seq` is the move's number, as the stones' `seq` is: the protocol's first
    // move answers 1, and its winning answer 42 is "第 42 手" in its summary (§2.3).
    assert_eq!(
        (&answer["seq"], &second["seq"]),
        (&json!(1), &json!(2)),
        "the moves' numbers: {answer} {second}"
    );
}

#[tokio::test]
async fn the_snapshot_says_whose_turn_it_is_to_a_seat_or_a_token() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    for (query, cred, expected) in [
        ("seat=0", Cred::None, Some(true)),
        ("seat=1", Cred::None, Some(false)),
        ("", Cred::Play(&table.black.token), Some(true)),
        ("", Cred::Play(&table.white.token), Some(false)),
        ("", Cred::None, None),
    ] {
        let snapshot = expect(client.snapshot_with(&table.id, query, cred).await, 200);
        assert_eq!(
            snapshot.get("your_turn").and_then(Value::as_bool),
            expected,
            "{query} {cred:?}: {snapshot}"
        );
    }
}

#[tokio::test]
async fn five_in_a_row_finishes_the_match_with_its_result() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let claim_url = table.black.body["claim_url"].clone();

    let end = client.five_in_row(&table).await;
    assert_eq!(end["accepted"], true, "{end}");
    assert_eq!(end["status"], "finished", "{end}");
    let result = &end["result"];
    assert_eq!(
        (&result["winner_seat"], &result["reason"]),
        (&json!(0), &json!("five_in_row")),
        "{end}"
    );
    assert!(
        result["summary"].as_str().is_some_and(|s| !s.is_empty()),
        "{end}"
    );
    assert_eq!(result["claim_url"], claim_url, "{end}");

    let events = client.all_events(&table.id).await;
    let finished = events.last().expect("events");
    assert_eq!(
        finished["type"], "match_finished",
        "the last event: {events:?}"
    );
    assert_eq!(
        (&finished["winner_seat"], &finished["reason"]),
        (&json!(0), &json!("five_in_row"))
    );
    assert!(
        finished["summary"].as_str().is_some_and(|s| !s.is_empty()),
        "{finished}"
    );
    let stones = of_type(&events, "stone_placed");
    assert_eq!(stones.len(), 9, "{events:?}");
    assert_eq!(
        (&stones[8]["x"], &stones[8]["y"], &stones[8]["seat"]),
        (&json!(FIFTH.0), &json!(FIFTH.1), &json!(0))
    );
    assert_eq!(of_type(&events, "match_finished").len(), 1);

    let snapshot = client.snapshot(&table.id).await;
    assert_eq!(snapshot["status"], "finished");
    assert_eq!(snapshot["result"]["winner_seat"], 0, "{snapshot}");
    assert_eq!(snapshot["result"]["reason"], "five_in_row", "{snapshot}");
    assert_eq!(snapshot["render"]["move_count"], 9);
    assert_eq!(snapshot["events_total"], json!(events.len()));
    // The winning answer's `seq` is the move's number (§2.3: 42, "第 42 手").
    assert_eq!(end["seq"], 9, "the ninth move wins: {end}");
}

#[tokio::test]
async fn a_resignation_finishes_the_match_for_the_other_seat() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    client.place(&table.id, &table.black.token, 7, 7).await;
    // White resigns on its own turn; the match ends at once for Black.
    let resigned = client.resign(&table.id, &table.white.token).await;
    assert_eq!(resigned.status, 200, "{}", resigned.text);
    let (finished, _) = client.wait_for(&table.id, 0, "match_finished").await;
    assert_eq!(
        (&finished["winner_seat"], &finished["reason"]),
        (&json!(0), &json!("resigned")),
        "{finished}"
    );
    let snapshot = client.snapshot(&table.id).await;
    assert_eq!(snapshot["status"], "finished");
    assert_eq!(snapshot["result"]["reason"], "resigned");
}

#[tokio::test]
async fn the_claim_page_shows_the_final_board_the_players_and_the_share_link() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let body = json!({
        "game": "gomoku",
        "player": {"name": "eve", "display_name": "<i>Eve</i>@clawdchat", "meta": {}},
    });
    let black = expect(client.create(Cred::None, &body).await, 201);
    let id = id_of(&black["match_id"]);
    let black_token = black["play_token"].as_str().expect("token").to_owned();
    let white = client.join_guest(&id, "bob").await;
    let table = Table {
        id: id.clone(),
        black: Seat {
            id: id.clone(),
            seat: 0,
            token: black_token,
            body: black.clone(),
        },
        white,
    };
    client.five_in_row(&table).await;

    let claim_url = black["claim_url"].as_str().expect("claim_url");
    let path = claim_url
        .find("/matches/")
        .map(|at| &claim_url[at..])
        .expect("a claim path");
    let page = client.page(path).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );
    assert!(page.text.to_lowercase().contains("<html"), "an HTML page");
    assert!(
        page.text.contains(&display_name("bob")),
        "White's name is shown"
    );
    assert!(
        page.text.contains("Eve") && page.text.contains("@clawdchat"),
        "Black's display name is shown as given"
    );
    assert!(
        !page.text.contains("<i>Eve</i>"),
        "a display name is escaped, never markup"
    );
    assert!(
        page.text.contains(claim_url)
            || black["invite_url"]
                .as_str()
                .is_some_and(|invite| page.text.contains(invite)),
        "the page has a link to share"
    );

    let missing = client.claim("999999").await;
    assert_eq!(missing.status, 404, "{}", missing.text);
}
