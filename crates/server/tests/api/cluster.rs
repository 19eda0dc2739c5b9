//! Two servers sharing one store and a bus: bots connected to different servers play a match
//! to its end, each server forwarding the requests about a match the other runs; a closed
//! match is read from the store on either.

use std::sync::Arc;

use arbiter_arena::{ArenaConfig, ManualClock};
use arbiter_bus::LocalBus;
use arbiter_store_sqlite::SqliteStore;
use reqwest::Method;
use serde_json::json;

use crate::helpers::{T0, TestApp, settle, start_with_store};

/// Two servers, `a` and `b`, on one SQLite file and one in-process bus.
async fn two_servers() -> (TestApp, TestApp) {
    let bus = LocalBus::shared();
    let clock = ManualClock::new(T0);
    let shared = tempfile::tempdir().expect("temp dir");
    let path = shared.path().join("arbiter.db");
    let mut apps = Vec::new();
    for (node, dir) in [("a", shared), ("b", tempfile::tempdir().expect("temp dir"))] {
        let store = SqliteStore::open(&path).await.expect("store");
        let config = ArenaConfig {
            node_id: node.to_owned(),
            bus: Arc::new(bus.clone()),
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

#[tokio::test]
async fn bots_on_different_servers_play_a_match_to_its_end() {
    let (a, b) = two_servers().await;
    let (_, alpha) = a.register("Alpha").await;
    let (_, beta) = a.register("Beta").await;
    until_known(&b, &beta).await;

    // Alpha challenges on a, which runs the match; Beta answers through b.
    let id = a.challenge(&alpha, "Beta", json!({})).await;
    b.post(&format!("/challenges/{id}/accept"), Some(&beta), json!({}))
        .await
        .expect(200);
    let mut moves = [0, 0];
    for _ in 0..400 {
        let status = b.snapshot(id).await["status"].clone();
        if status != "running" {
            assert_eq!(status, "finished");
            break;
        }
        moves[0] += a.play_first_moves(id, &alpha).await.len();
        moves[1] += b.play_first_moves(id, &beta).await.len();
    }
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
