//! Goofspiel through the whole stack, for two, three and four seats: a connector running the
//! example engine on the generic protocol, bots playing over long-polls, and a house player,
//! at once, in challenges to several bots and at an open table, to the end; replayed and
//! exported from the store. The server's clock is the test's, so a seat that lets a round's
//! deadline pass does so without the test waiting.

use arbiter_connector::EngineSpec;
use reqwest::Method;
use serde_json::{Value, json};

use crate::harness::*;

/// A connector for `token` that plays Goofspiel with the example engine.
fn example_engine(server: &Server, token: &str, python: &str) -> Connector {
    let mut options = Connector::options(
        server,
        token,
        EngineSpec::Json {
            command: format!(
                "{python} {}",
                engine_file("../../examples/goofspiel_engine.py")
            ),
        },
    );
    options.games = "goofspiel".parse().expect("games");
    Connector::start(options)
}

/// A bot on long-polls: it bids the first legal card of each decision it is asked for, except
/// that it lets the rounds in `skip` go by, and it resigns at round `resign_at`.
async fn long_poll_bot(
    server: &Server,
    token: &str,
    id: i64,
    skip: &[u64],
    resign_at: Option<u64>,
) -> usize {
    let mut bids = 0;
    loop {
        let (_, body) = server
            .call(
                Method::GET,
                &format!("/matches/{id}/turns?wait=30000"),
                token,
                None,
            )
            .await;
        if !matches!(body["status"].as_str(), Some("running" | "pending")) {
            return bids;
        }
        for turn in body["turns"].as_array().into_iter().flatten() {
            let request = &turn["request"];
            let round = request["phase"].as_u64().unwrap_or(0);
            if Some(round) == resign_at {
                let (status, body) = server
                    .call(Method::POST, &format!("/matches/{id}/resign"), token, None)
                    .await;
                assert_eq!(status, 200, "{body}");
                return bids;
            }
            if skip.contains(&round) {
                continue;
            }
            let body = json!({"leg": turn["leg"], "revision": turn["revision"],
                "move": request["legal_actions"][0]});
            let (status, answer) = server
                .call(
                    Method::POST,
                    &format!("/matches/{id}/moves"),
                    token,
                    Some(body),
                )
                .await;
            // A match another seat ended (by resigning) takes no more bids.
            if answer["error"] == "match_not_running" {
                return bids;
            }
            // A round that closed meanwhile refuses a late bid; anything else is a bug.
            assert!(
                status == 200 || answer["error"] == "not_your_turn",
                "{status} {answer}"
            );
            bids += usize::from(status == 200);
        }
        // A skipped round gives no new decision until its deadline: wait for the match to
        // change instead of asking again at once.
        let skipping = body["turns"].as_array().is_some_and(|turns| {
            !turns.is_empty()
                && turns
                    .iter()
                    .all(|t| skip.contains(&t["request"]["phase"].as_u64().unwrap_or(0)))
        });
        if skipping {
            next_event(server, id).await;
        }
    }
}

/// Waits for the match's next event (a long-poll of its log from its latest event).
async fn next_event(server: &Server, id: i64) {
    let seq = server.snapshot(id).await["seq"].as_i64().unwrap_or(0);
    server
        .call(
            Method::GET,
            &format!("/matches/{id}/events?since={seq}&wait=30000"),
            "",
            None,
        )
        .await;
}

/// Waits until only `participant` is pending in the first leg, then lets the round's deadline
/// pass on the server's clock.
async fn expire_round_for(server: &Server, id: i64, participant: u64) {
    let waited = async {
        while server.snapshot(id).await["legs"][0]["pending"] != json!([participant]) {
            next_event(server, id).await;
        }
    };
    tokio::time::timeout(PATIENCE, waited)
        .await
        .expect("everyone else bids");
    server.advance(10_001);
}

/// Checks a finished match's result, its export and its rebuilt snapshot.
async fn check_finished(server: &Server, id: i64, seats: usize) -> Value {
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    let result = &end["result"];
    assert_eq!(
        result["totals"].as_array().map(Vec::len),
        Some(seats),
        "{end}"
    );
    if seats > 2 {
        assert_eq!(
            result["ranks"].as_array().map(Vec::len),
            Some(seats),
            "{end}"
        );
    }
    let (status, export) = server
        .call(Method::GET, &format!("/matches/{id}/export"), "", None)
        .await;
    assert_eq!(status, 200, "{export}");
    assert_eq!(export["participants"].as_array().map(Vec::len), Some(seats));
    assert!(export["seed"].is_string(), "the seed is revealed: {export}");
    let bids = export["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["type"] == "move")
        .count();
    assert!(bids > 0, "every bid is in the export: {export}");
    end
}

#[tokio::test]
async fn goofspiel_is_played_by_a_connector_long_poll_bots_and_a_house_player() {
    let Some(python) = python() else { return };
    let server = Server::start().await;
    let poller = server.mint("poller").await;
    let engine = server.mint("engine").await;
    let connector = example_engine(&server, &engine, python);
    server.connected(&engine).await;
    let engine_name = server.me(&engine).await["name"]
        .as_str()
        .expect("name")
        .to_owned();

    // Two seats: a challenge the connector accepts.
    let two = server
        .challenge(
            &poller,
            &engine_name,
            json!({"game": "goofspiel", "variant": "short", "format": "single"}),
        )
        .await;
    long_poll_bot(&server, &poller, two, &[], None).await;
    check_finished(&server, two, 2).await;

    // Three seats: the connector and a house player; the long-poll bot lets round 1 pass
    // and gets the rules' default bid (its lowest card).
    let (status, three) = server
        .call(
            Method::POST,
            "/challenges",
            &poller,
            Some(
                json!({"opponent": [engine_name, "house-greedy"], "game": "goofspiel",
                "variant": "short", "format": "single"}),
            ),
        )
        .await;
    assert_eq!(status, 201, "{three}");
    let three = three["id"].as_i64().expect("id");
    let playing = long_poll_bot(&server, &poller, three, &[1], None);
    let expiring = expire_round_for(&server, three, 0);
    let (bids, ()) = tokio::join!(playing, expiring);
    assert_eq!(
        bids, 4,
        "five rounds, one bid for the poller by the deadline"
    );
    let end = check_finished(&server, three, 3).await;
    let revealed = &end["legs"][0]["view"]["history"][0];
    assert_eq!(revealed["defaulted"], 1, "seat 0's bit of the set: {end}");
    assert_eq!(revealed["bids"][0], 1, "the lowest card: {end}");

    // Four seats at an open table: the connector and two more long-poll bots join; one of
    // them resigns in round 2, and Goofspiel plays on, bidding its lowest card every round.
    let (status, table) = server
        .call(
            Method::POST,
            "/tables",
            &poller,
            Some(json!({"game": "goofspiel", "variant": "short", "seats": 4})),
        )
        .await;
    assert_eq!(status, 201, "{table}");
    let table = table["id"].as_i64().expect("id");
    let (_, listed) = server.call(Method::GET, "/tables", "", None).await;
    assert!(
        listed
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["id"] == table)),
        "{listed}"
    );
    let second = server.mint("second").await;
    let third = server.mint("third").await;
    for token in [&engine, &second, &third] {
        let (status, body) = server
            .call(Method::POST, &format!("/tables/{table}/join"), token, None)
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let (_, after) = server.call(Method::GET, "/tables", "", None).await;
    assert!(
        !after
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["id"] == table)),
        "a full table is no longer listed: {after}"
    );
    let (a, b, c) = tokio::join!(
        long_poll_bot(&server, &poller, table, &[], None),
        long_poll_bot(&server, &second, table, &[], None),
        long_poll_bot(&server, &third, table, &[], Some(2)),
    );
    assert!(a == 5 && b == 5 && c == 1, "{a} {b} {c}");
    let end = check_finished(&server, table, 4).await;
    assert_eq!(
        end["result"]["reason"], "score",
        "the game ended as it does: {end}"
    );
    let history = end["legs"][0]["view"]["history"]
        .as_array()
        .expect("history");
    assert_eq!(history.len(), 5, "every round was played: {end}");
    let gone: Vec<&Value> = history[1..].iter().map(|round| &round["bids"][3]).collect();
    assert_eq!(
        gone,
        [&json!(2), &json!(3), &json!(4), &json!(5)],
        "its lowest cards: {end}"
    );
    assert_eq!(connector.stop().await, arbiter_connector::Exit::Normal);
}
