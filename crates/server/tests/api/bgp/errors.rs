//! The protocol's error table (§6.1): each code with its status, in `{error, message,
//! detail}`, and a refused request changes nothing.

use reqwest::Method;
use serde_json::{Value, json};

use super::*;

/// The stones on the board and whose turn it is, to show that a refusal changed nothing.
async fn board_state(client: &Bgp, id: &str) -> (Value, Value) {
    let snapshot = client.snapshot(id).await;
    (
        snapshot["render"]["move_count"].clone(),
        snapshot["current_seat"].clone(),
    )
}

#[tokio::test]
async fn a_malformed_action_or_an_unknown_type_is_a_bad_request() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let before = board_state(&client, &table.id).await;
    // Every case is tried, and those answered otherwise are reported together.
    let mut accepted = Vec::new();
    for body in [
        "{not json",
        "[]",
        r#"{"type": "teleport", "x": 7, "y": 7}"#,
        r#"{"type": "place_stone", "y": 7}"#,
        r#"{"type": "place_stone", "x": "7", "y": 7}"#,
        r#"{"type": "place_stone", "x": 7.5, "y": 7}"#,
        // The protocol's smallest action names its type (§2.3).
        r#"{"x": 7, "y": 7}"#,
    ] {
        let reply = client
            .send(
                Method::POST,
                &format!("/api/matches/{}/action", table.id),
                Cred::Play(&table.black.token),
                Some(body.to_owned()),
            )
            .await;
        if reply.status != 400 || reply.body["error"] != "bad_request" {
            accepted.push(format!("{body} -> {} {}", reply.status, reply.text));
            continue;
        }
        check_error_shape(&reply.body);
        assert_eq!(
            board_state(&client, &table.id).await,
            before,
            "{body} changed nothing"
        );
    }
    assert!(
        accepted.is_empty(),
        "not refused as bad_request: {accepted:#?}"
    );
}

#[tokio::test]
async fn a_malformed_create_or_join_is_a_bad_request() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let guest = json!({"name": "alice", "display_name": "Alice", "meta": {}});
    for body in [
        "{not json".to_owned(),
        json!({"game": "chess", "player": guest}).to_string(),
        json!({"game": "gomoku", "config": {"board_size": "big"}, "player": guest}).to_string(),
        json!({"game": "gomoku", "player": {"display_name": "No name"}}).to_string(),
    ] {
        let reply = client
            .send(Method::POST, "/api/matches", Cred::None, Some(body.clone()))
            .await;
        expect_error(reply, 400, "bad_request");
    }
    let open = client.create_guest("alice", Value::Null).await;
    for body in ["{not json", r#"{"player": {"display_name": "No name"}}"#] {
        let reply = client
            .send(
                Method::POST,
                &format!("/api/matches/{}/join", open.id),
                Cred::None,
                Some(body.to_owned()),
            )
            .await;
        expect_error(reply, 400, "bad_request");
    }
    assert_eq!(client.snapshot(&open.id).await["status"], "waiting");
}

#[tokio::test]
async fn an_unknown_match_is_not_found_on_every_endpoint() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    // A real match exists, so that its token is a valid one somewhere.
    let table = client.table(Value::Null).await;
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    let guest = json!({"player": {"name": "carol", "display_name": "Carol", "meta": {}}});
    for id in ["999999", "no-such-match"] {
        for (what, reply) in [
            ("snapshot", client.snapshot_with(id, "", Cred::None).await),
            (
                "events",
                client.events_with(id, "since=0&wait=0", Cred::None).await,
            ),
            ("join", client.join(id, Cred::None, &guest).await),
            (
                "action",
                client.action(id, &table.black.token, &stone).await,
            ),
        ] {
            let body = expect_error(reply, 404, "match_not_found");
            assert!(body["message"].is_string(), "{what} {id}");
        }
    }
}

#[tokio::test]
async fn a_third_player_finds_the_match_full() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let carol = json!({"player": {"name": "carol", "display_name": "Carol", "meta": {}}});
    expect_error(
        client.join(&table.id, Cred::None, &carol).await,
        409,
        "match_full",
    );
    let snapshot = client.snapshot(&table.id).await;
    assert_eq!(snapshot["players"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn a_finished_match_refuses_actions_and_joins() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    client.five_in_row(&table).await;
    for token in [&table.white.token, &table.black.token] {
        let stone = json!({"type": "place_stone", "x": 10, "y": 10});
        expect_error(
            client.action(&table.id, token, &stone).await,
            409,
            "match_finished",
        );
    }
    let carol = json!({"player": {"name": "carol", "display_name": "Carol", "meta": {}}});
    expect_error_among(
        client.join(&table.id, Cred::None, &carol).await,
        &[(409, "match_not_waiting"), (409, "match_full")],
    );
    assert_eq!(client.snapshot(&table.id).await["render"]["move_count"], 9);
}

#[tokio::test]
async fn a_move_out_of_turn_is_not_your_turn() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    expect_error(
        client.action(&table.id, &table.white.token, &stone).await,
        409,
        "not_your_turn",
    );
    client.place(&table.id, &table.black.token, 7, 7).await;
    let stone = json!({"type": "place_stone", "x": 8, "y": 8});
    expect_error(
        client.action(&table.id, &table.black.token, &stone).await,
        409,
        "not_your_turn",
    );
    assert_eq!(board_state(&client, &table.id).await, (json!(1), json!(1)));
}

#[tokio::test]
async fn the_same_player_cannot_take_both_seats() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let agent = client.register("solo-agent", json!({})).await;
    let guest = |name: &str, meta: Value| json!({"player": {"name": name, "display_name": display_name(name), "meta": meta}});
    let same_provider_agent = json!({"agent_id": "0b5e1c52-uuid"});
    // (who creates, who then tries to join): the same name, the same agent key, and the same
    // provider agent in `player.meta` under another name (§7: no playing oneself).
    for (case, create_cred, create_body, join_cred, join_body) in [
        (
            "the same guest name",
            Cred::None,
            json!({"game": "gomoku", "player": guest("alice", json!({}))["player"]}),
            Cred::None,
            guest("alice", json!({})),
        ),
        (
            "the same agent",
            Cred::Bearer(&agent.key),
            json!({"game": "gomoku"}),
            Cred::Bearer(&agent.key),
            json!({}),
        ),
        (
            "the same player.meta.agent_id",
            Cred::None,
            json!({"game": "gomoku", "player": guest("alice", same_provider_agent.clone())["player"]}),
            Cred::None,
            guest("alice2", same_provider_agent.clone()),
        ),
    ] {
        let created = expect(client.create(create_cred, &create_body).await, 201);
        let id = id_of(&created["match_id"]);
        let refused = client.join(&id, join_cred, &join_body).await;
        assert_eq!(refused.status, 409, "{case}: {}", refused.text);
        expect_error(refused, 409, "duplicate_player");
        assert_eq!(client.snapshot(&id).await["status"], "waiting", "{case}");
    }
}

/// Black's stones of two open threes that cross at (7, 7), White answering far away: (7, 7)
/// is then a double three, forbidden to Black under Renju and legal in freestyle.
const DOUBLE_THREE: [((i64, i64), (i64, i64)); 4] = [
    ((5, 7), (0, 0)),
    ((6, 7), (0, 2)),
    ((7, 8), (0, 4)),
    ((7, 9), (0, 6)),
];

/// An illegal stone: the config, the stones played first (Black, White, …), the seat that
/// then plays, the stone, and the words of which one the `detail` must say.
struct IllegalCase {
    what: &'static str,
    config: Value,
    before: Vec<(i64, i64)>,
    stone: (i64, i64),
    detail_says: &'static [&'static str],
}

#[tokio::test]
async fn an_illegal_stone_is_an_invalid_move_whose_detail_says_why() {
    const OUT_OF_BOARD: &[&str] = &[
        "out of board",
        "out_of_board",
        "off the board",
        "off_board",
        "outside",
        "out of bounds",
        "out_of_bounds",
        "out of range",
        "out_of_range",
    ];
    let double_three: Vec<(i64, i64)> = DOUBLE_THREE
        .iter()
        .flat_map(|(black, white)| [*black, *white])
        .collect();
    let cases = [
        IllegalCase {
            what: "x past a 15 board",
            config: json!({"board_size": 15}),
            before: vec![],
            stone: (15, 7),
            detail_says: OUT_OF_BOARD,
        },
        IllegalCase {
            what: "y past a 15 board",
            config: json!({"board_size": 15}),
            before: vec![],
            stone: (7, 15),
            detail_says: OUT_OF_BOARD,
        },
        IllegalCase {
            what: "x past a 19 board",
            config: json!({"board_size": 19}),
            before: vec![(18, 18)],
            stone: (19, 3),
            detail_says: OUT_OF_BOARD,
        },
        IllegalCase {
            what: "an occupied point",
            config: json!({}),
            before: vec![(7, 7)],
            stone: (7, 7),
            detail_says: &["occupied"],
        },
        IllegalCase {
            what: "a double three under renju",
            config: json!({RULE: "renju"}),
            before: double_three.clone(),
            stone: (7, 7),
            detail_says: &["forbidden"],
        },
    ];
    for case in cases {
        // A server per case, so that no case meets a limit on matches per address.
        let app = spawn_bgp().await;
        let client = Bgp::new(&app);
        let table = client.table(case.config.clone()).await;
        for (n, (x, y)) in case.before.iter().enumerate() {
            let token = if n % 2 == 0 {
                &table.black
            } else {
                &table.white
            };
            client.place(&table.id, &token.token, *x, *y).await;
        }
        let mover = if case.before.len() % 2 == 0 {
            &table.black
        } else {
            &table.white
        };
        let before = board_state(&client, &table.id).await;
        let stone = json!({"type": "place_stone", "x": case.stone.0, "y": case.stone.1});
        let refused = expect_error(
            client.action(&table.id, &mover.token, &stone).await,
            422,
            "invalid_move",
        );
        let detail = refused["detail"].to_string().to_lowercase();
        assert!(
            case.detail_says.iter().any(|word| detail.contains(word)),
            "{}: the detail says which of {:?}: {refused}",
            case.what,
            case.detail_says
        );
        assert_eq!(
            board_state(&client, &table.id).await,
            before,
            "{}",
            case.what
        );
        if case.what.contains("renju") {
            assert!(
                detail.contains("three"),
                "the detail says why (a double three): {refused}"
            );
        }
    }
}

#[tokio::test]
async fn the_same_stones_are_legal_where_no_rule_forbids_them() {
    // A double three is Black's to play in freestyle, and (18, 18) is on a 19 board.
    for (config, last) in [
        (json!({RULE: "freestyle"}), (7, 7)),
        (json!({}), (7, 7)),
        (json!({"board_size": 19}), (18, 18)),
    ] {
        let app = spawn_bgp().await;
        let client = Bgp::new(&app);
        let table = client.table(config.clone()).await;
        assert_eq!(
            table.black.body["config"]["board_size"],
            config.get("board_size").cloned().unwrap_or(json!(15)),
            "{}",
            table.black.body
        );
        for ((bx, by), (wx, wy)) in DOUBLE_THREE {
            client.place(&table.id, &table.black.token, bx, by).await;
            client.place(&table.id, &table.white.token, wx, wy).await;
        }
        client
            .place(&table.id, &table.black.token, last.0, last.1)
            .await;
        let snapshot = client.snapshot(&table.id).await;
        assert_eq!(snapshot["render"]["move_count"], 9, "{config}: {snapshot}");
        assert_fields(
            &snapshot["render"]["last_move"],
            &json!({"x": last.0, "y": last.1}),
        );
    }
}

#[tokio::test]
async fn a_renju_match_shows_its_rule_in_the_config() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let created = client.create_guest("alice", json!({RULE: "renju"})).await;
    assert_eq!(created.body["config"][RULE], "renju", "{}", created.body);
    let snapshot = client.snapshot(&created.id).await;
    assert_eq!(snapshot["config"][RULE], "renju", "{snapshot}");
}

#[tokio::test]
async fn too_many_matches_from_one_address_are_rate_limited() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let mut created = 0;
    let refused = loop {
        assert!(
            created < 300,
            "no limit within 300 matches from one address"
        );
        let body = json!({
            "game": "gomoku",
            "player": {"name": format!("guest{created}"), "display_name": "Guest", "meta": {}},
        });
        let reply = client.create(Cred::None, &body).await;
        if reply.status != 201 {
            break reply;
        }
        created += 1;
    };
    assert!(created > 0, "the first match is created");
    expect_error(refused, 429, "rate_limited");
    // The limit is per unit of time (§7): a day later, the address may create again.
    app.advance(25 * 3_600_000).await;
    client.create_guest("later", Value::Null).await;
}
