//! Two servers sharing one store and a bus: bots connected to different servers play a match
//! to its end, each server forwarding the requests about a match the other runs; a closed
//! match is read from the store on either. They do so on the shared bus alone, and with
//! direct links between the servers, which carry everything addressed to one of them.

use std::sync::Arc;

use arbiter_arena::{ArenaConfig, ManualClock};
use arbiter_bus::{Bus, LinkedBus, LocalBus};
use arbiter_store_sqlite::SqliteStore;
use reqwest::Method;
use serde_json::json;

use crate::helpers::{ADMIN, T0, TestApp, settle, start_with_store};

/// How the two servers reach each other.
#[derive(Clone, Copy, Debug)]
enum Between {
    /// Everything on the shared bus.
    Bus,
    /// What is addressed to one server on a direct link to it, the rest on the shared bus.
    Links,
}

/// Two servers, `a` and `b`, on one SQLite file and one in-process bus, linked or not.
async fn two_servers(between: Between) -> (TestApp, TestApp) {
    let bus = LocalBus::shared();
    let clock = ManualClock::new(T0);
    let shared = tempfile::tempdir().expect("temp dir");
    let path = shared.path().join("arbiter.db");
    let mut apps = Vec::new();
    for (node, dir) in [("a", shared), ("b", tempfile::tempdir().expect("temp dir"))] {
        let store = SqliteStore::open(&path).await.expect("store");
        let node_bus: Arc<dyn Bus> = match between {
            Between::Bus => Arc::new(bus.clone()),
            Between::Links => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                let at = listener.local_addr().expect("address");
                let shared = Arc::new(bus.clone());
                let linked =
                    LinkedBus::start(shared, arbiter_arena::NODE_SUBJECTS, node, listener, at);
                Arc::new(linked.await.expect("linked"))
            }
        };
        let config = ArenaConfig {
            node_id: node.to_owned(),
            bus: node_bus,
            ..ArenaConfig::default()
        };
        apps.push(start_with_store(dir, clock.clone(), config, Arc::new(store)).await);
    }
    let b = apps.pop().expect("b");
    let a = apps.pop().expect("a");
    (a, b)
}

/// Lets the servers' tasks run until `token` works on `app`: a bot registered on one server
/// is announced to the other.
async fn until_known(app: &TestApp, token: &str) {
    for _ in 0..200 {
        if app.get("/bots/me", Some(token)).await.status.as_u16() == 200 {
            return;
        }
        settle().await;
    }
    panic!("the bot never became known to {}", app.base);
}

/// A FlipSight action on `app` by `token`'s bot: its JSON reply.
async fn flipsight(app: &TestApp, token: &str, body: serde_json::Value) -> serde_json::Value {
    let url = format!("{}/flipsight/bot_match_api.php", app.root());
    let request = app.client.post(url).bearer_auth(token).json(&body);
    request
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("a JSON reply")
}

#[tokio::test]
async fn bots_on_different_servers_play_a_match_to_its_end() {
    for between in [Between::Bus, Between::Links] {
        bots_on_different_servers_play_a_match(between).await;
    }
}

async fn bots_on_different_servers_play_a_match(between: Between) {
    eprintln!("between the servers: {between:?}");
    let (a, b) = two_servers(between).await;
    let (_, alpha) = a.register("Alpha").await;
    let (_, beta) = a.register("Beta").await;
    until_known(&b, &beta).await;

    // Alpha challenges on a, which runs the match; Beta answers through b.
    let id = a.challenge(&alpha, "Beta", json!({})).await;
    b.post(&format!("/challenges/{id}/accept"), Some(&beta), json!({}))
        .await
        .expect(200);
    // FlipSight's poll on b lists the match a runs.
    let polled = flipsight(&b, &beta, json!({"action": "agent_poll"})).await;
    assert!(
        polled["matches"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["id"] == id)),
        "{polled}"
    );
    let mut moves = [0, 0];
    let mut through_flipsight = false;
    for _ in 0..400 {
        let status = b.snapshot(id).await["status"].clone();
        if status != "running" {
            assert_eq!(status, "finished");
            break;
        }
        moves[0] += a.play_first_moves(id, &alpha).await.len();
        // Beta's first move goes through FlipSight's action API on b, whose match is named
        // in the body.
        let turns = b.turns(id, &beta).await;
        if let (Some(turn), false) = (turns.first(), through_flipsight) {
            let body = json!({"action": "agent_move", "match_id": id, "leg": turn["leg"],
                "revision": turn["revision"], "move": turn["request"]["legal_moves"][0]});
            let moved = flipsight(&b, &beta, body).await;
            assert_eq!(moved["ok"], true, "{moved}");
            through_flipsight = true;
            moves[1] += 1;
        }
        moves[1] += b.play_first_moves(id, &beta).await.len();
    }
    assert!(through_flipsight);
    assert!(moves[0] > 10 && moves[1] > 10, "both played: {moves:?}");
    let on_a = a.snapshot(id).await;
    let on_b = b.snapshot(id).await;
    assert_eq!(on_a["status"], "finished");
    assert_eq!(
        on_a["result"], on_b["result"],
        "one match, seen alike from both"
    );
    assert!(
        b.arena.matches_in_memory() == 0,
        "b never ran the match: it forwarded every request"
    );
    let metrics = b.call_root(Method::GET, "/metrics", &[], None).await.text;
    let forwarded = metrics
        .lines()
        .find_map(|line| line.strip_prefix("arbiter_forwarded_request_seconds_count "))
        .and_then(|count| count.parse::<u64>().ok());
    assert!(
        forwarded.is_some_and(|count| count as usize >= moves[1]),
        "b timed each forwarded request: {forwarded:?}"
    );

    // Once the match is over, either server reads it from the store.
    a.advance(2_000).await;
    let events = b
        .get(&format!("/matches/{id}/events?since=0&wait=0"), None)
        .await
        .expect(200);
    assert!(events["events"].as_array().is_some_and(|e| e.len() > 10));
}

#[tokio::test]
async fn a_bot_streams_from_one_server_and_spectators_watch_from_either() {
    for between in [Between::Bus, Between::Links] {
        a_bot_streams_and_spectators_watch(between).await;
    }
}

async fn a_bot_streams_and_spectators_watch(between: Between) {
    eprintln!("between the servers: {between:?}");
    let (a, b) = two_servers(between).await;
    // Gomoku, which the Board Game Protocol's spectators can watch.
    let mut tokens = Vec::new();
    for name in ["Alpha", "Beta"] {
        let body = json!({"name": name, "supported_variants": ["gomoku"]});
        let created = a.post("/admin/bots", Some(ADMIN), body).await.expect(201);
        tokens.push(created["token"].as_str().expect("token").to_owned());
    }
    let (alpha, beta) = (tokens[0].clone(), tokens[1].clone());
    until_known(&b, &beta).await;

    // Beta listens on b; the match runs on a.
    let mut lines = b.stream(&beta).await;
    assert_eq!(lines.next_of("hello").await["bot"]["name"], "Beta");
    let id = a
        .challenge(
            &alpha,
            "Beta",
            json!({"game": "gomoku", "format": "single"}),
        )
        .await;
    let challenge = lines.next_of("challenge").await;
    assert_eq!(challenge["challenge"]["id"], id, "{challenge}");
    b.post(&format!("/challenges/{id}/accept"), Some(&beta), json!({}))
        .await
        .expect(200);
    // Whoever moves first, Beta's stream on b is told of its turn.
    a.play_first_moves(id, &alpha).await;
    let turn = lines.next_of("turn").await;
    assert_eq!(turn["match_id"], id, "{turn}");
    assert!(!b.play_first_moves(id, &beta).await.is_empty());

    // A spectator's event stream of the Board Game Protocol, asked of b, is streamed from a.
    let response = b
        .client
        .get(format!("{}/api/matches/{id}/events/stream", b.root()))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = crate::helpers::Lines::from_response(response);
    let mut next_kind = async || loop {
        if let Some(kind) = events.next_text().await.strip_prefix("event: ") {
            return kind.to_owned();
        }
    };
    for expected in ["match_created", "match_started", "turn_started"] {
        assert_eq!(next_kind().await, expected);
    }
    // The stream goes on: every move played, here or there, reaches the spectator.
    let mut moves = 0;
    for _ in 0..3 {
        moves += a.play_first_moves(id, &alpha).await.len();
        moves += b.play_first_moves(id, &beta).await.len();
    }
    let mut seen = 0;
    while seen < moves {
        if next_kind().await == "stone_placed" {
            seen += 1;
        }
    }
    assert!(
        b.arena.matches_in_memory() == 0,
        "b never ran the match: it relayed and forwarded"
    );
}
