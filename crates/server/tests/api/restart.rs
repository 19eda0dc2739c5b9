use arbiter_arena::ArenaConfig;
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn a_restart_resumes_matches_and_charges_the_downtime_to_nobody() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    let pending = app.challenge(&a, "Beta", json!({})).await;
    app.play_first_moves(id, &a).await;
    app.advance(3_000).await;
    app.play_first_moves(id, &b).await;
    let before = app.snapshot(id).await;
    let (dir, clock) = app.stop().await;

    clock.advance(20_000); // the server is down for 20 s
    let app = start_on(dir, clock, ArenaConfig::default()).await;
    let after = app.snapshot(id).await;
    assert_eq!(after["status"], "running");
    assert_eq!(
        after["seq"].as_i64(),
        before["seq"].as_i64().map(|seq| seq + 1),
        "every acknowledged event is still there, and the outage is logged after them"
    );
    let export = app
        .get(&format!("/matches/{id}/export"), None)
        .await
        .expect(200);
    let last = export["events"].as_array().and_then(|e| e.last()).cloned();
    assert_eq!(
        last.as_ref().map(|e| e["type"].clone()),
        Some(json!("resumed"))
    );
    assert_eq!(
        last.map(|e| e["data"].clone()),
        Some(json!({"downtime_ms": 20_000}))
    );
    for (l0, l1) in before["legs"]
        .as_array()
        .expect("legs")
        .iter()
        .zip(after["legs"].as_array().expect("legs"))
    {
        assert_eq!(l0["revision"], l1["revision"]);
        assert_eq!(l0["clocks_ms"], l1["clocks_ms"]);
        assert_eq!(
            l0["remaining_ms"], l1["remaining_ms"],
            "the outage was not charged"
        );
    }
    assert_eq!(app.snapshot(pending).await["status"], "pending");
    // Play goes on with the same tokens.
    assert!(!app.play_first_moves(id, &a).await.is_empty());
}

#[tokio::test]
async fn an_outage_longer_than_30_s_aborts_running_matches() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    app.play_first_moves(id, &a).await;
    let (dir, clock) = app.stop().await;
    clock.advance(31_000);
    let app = start_on(dir, clock, ArenaConfig::default()).await;
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "aborted");
    assert_eq!(snapshot["result"]["reason"], "technical");
}

#[tokio::test]
async fn time_before_a_crash_is_charged_up_to_the_last_durable_event() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    app.advance(2_000).await; // a heartbeat is stored now, the next one is due in a second
    app.play_first_moves(id, &a).await;
    app.advance(400).await;
    app.play_first_moves(id, &b).await; // durable 400 ms after the last heartbeat
    let before = app.snapshot(id).await;
    let (dir, clock) = app.stop().await;

    clock.advance(20_000);
    let app = start_on(dir, clock, ArenaConfig::default()).await;
    let after = app.snapshot(id).await;
    assert_eq!(after["status"], "running");
    for (l0, l1) in before["legs"]
        .as_array()
        .expect("legs")
        .iter()
        .zip(after["legs"].as_array().expect("legs"))
    {
        assert_eq!(
            l0["remaining_ms"], l1["remaining_ms"],
            "no clock gets back time that passed before its last event"
        );
    }
}
