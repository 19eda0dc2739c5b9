use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn an_unanswered_challenge_expires_after_120_s() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let id = app.challenge(&a, "Beta", json!({})).await;
    let pending = app.get("/challenges", Some(&b)).await.expect(200);
    assert_eq!(pending[0]["id"], id);
    app.advance(119_999).await;
    assert_eq!(app.snapshot(id).await["status"], "pending");
    app.advance(1).await;
    assert_eq!(app.snapshot(id).await["status"], "expired");
    app.post(&format!("/challenges/{id}/accept"), Some(&b), json!({}))
        .await
        .expect_error(409, "challenge_not_pending");
}

#[tokio::test]
async fn challenges_are_answered_by_the_right_bot() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let id = app.challenge(&a, "Beta", json!({})).await;
    app.post(&format!("/challenges/{id}/accept"), Some(&a), json!({}))
        .await
        .expect_error(403, "not_your_challenge");
    app.post(&format!("/challenges/{id}/reject"), Some(&b), json!({}))
        .await
        .expect(200);
    assert_eq!(app.snapshot(id).await["status"], "rejected");
    let id = app.challenge(&a, "Beta", json!({})).await;
    app.post(&format!("/challenges/{id}/cancel"), Some(&b), json!({}))
        .await
        .expect_error(403, "not_your_challenge");
    app.post(&format!("/challenges/{id}/cancel"), Some(&a), json!({}))
        .await
        .expect(200);
    assert_eq!(app.snapshot(id).await["status"], "rejected");
}

#[tokio::test]
async fn no_first_move_within_30_s_aborts_the_match_unrated() {
    let app = spawn_app().await;
    let (id, a, _) = app.running_match().await;
    app.play_first_moves(id, &a).await;
    app.advance(29_999).await;
    assert_eq!(app.snapshot(id).await["status"], "running");
    app.advance(1).await;
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "aborted");
    assert_eq!(snapshot["result"]["reason"], "no_first_move");
    assert!(
        snapshot["seed"].is_string(),
        "the seed is revealed once the match is over"
    );
}

#[tokio::test]
async fn a_flag_fall_forfeits_that_leg_with_result_discs_while_the_other_continues() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    let mut alpha_stream = app.stream(&a).await;
    alpha_stream.next_of("hello").await;
    app.play_first_moves(id, &a).await; // Alpha, Black in leg 0
    app.play_first_moves(id, &b).await; // Beta: White in leg 0 and Black in leg 1
    app.play_first_moves(id, &a).await; // Alpha: leg 0 and White in leg 1
    // Beta stops playing leg 0 and leg 1 but keeps polling; Alpha stays connected.
    for _ in 0..11 {
        app.advance(5_000).await;
        app.get("/bots/me", Some(&b)).await.expect(200);
    }
    app.advance(4_999).await;
    assert!(
        app.snapshot(id).await["legs"]
            .as_array()
            .expect("legs")
            .iter()
            .all(|l| l["status"] == "active")
    );
    app.advance(1).await;
    let snapshot = app.snapshot(id).await;
    let legs = snapshot["legs"].as_array().expect("legs");
    assert_eq!(legs[0]["status"], "timeout");
    // Beta (participant 1) lost leg 0 on time: 64 for Alpha, 0 for Beta.
    assert_eq!(legs[0]["end"]["scores"], json!([64, 0]));
    assert_eq!(
        legs[1]["status"], "timeout",
        "Beta was also to move in leg 1"
    );
    assert_eq!(snapshot["result"]["reason"], "double_timeout");
    assert_eq!(snapshot["result"]["totals"], json!([128, 0]));
    assert_eq!(snapshot["result"]["winner"], 0);
}

#[tokio::test]
async fn one_leg_lost_on_time_is_scored_with_the_other_played_out() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    app.play_first_moves(id, &a).await;
    app.play_first_moves(id, &b).await;
    app.advance(1_000).await;
    // Alpha keeps answering leg 1 only and lets leg 0 run out; Beta answers everything.
    let mut now = 1_000;
    loop {
        for turn in app.turns(id, &a).await {
            if turn["leg"] == 1 {
                let mv = turn["request"]["legal_moves"]
                    .get(0)
                    .cloned()
                    .unwrap_or(json!(-1));
                app.post(
                    &format!("/matches/{id}/moves"),
                    Some(&a),
                    json!({"leg": 1, "revision": turn["revision"], "move": mv}),
                )
                .await
                .expect(200);
            }
        }
        app.play_first_moves(id, &b).await;
        if app.snapshot(id).await["status"] != "running" || now > 70_000 {
            break;
        }
        app.advance(500).await;
        now += 500;
    }
    let snapshot = app.snapshot(id).await;
    let legs = snapshot["legs"].as_array().expect("legs");
    assert_eq!(legs[0]["status"], "timeout");
    assert_eq!(
        legs[0]["end"]["scores"],
        json!([0, 64]),
        "Alpha (Black) timed out in leg 0"
    );
    assert_eq!(snapshot["result"]["reason"], "timeout");
    let leg1 = legs[1]["end"]["scores"]
        .as_array()
        .expect("scores")
        .iter()
        .map(|s| s.as_i64().expect("score"))
        .collect::<Vec<_>>();
    assert_eq!(snapshot["result"]["totals"], json!([leg1[0], 64 + leg1[1]]));
}

#[tokio::test]
async fn a_bot_gone_for_30_s_while_the_other_is_connected_loses() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    app.play_first_moves(id, &a).await;
    app.play_first_moves(id, &b).await;
    let mut stream = app.stream(&a).await;
    stream.next_of("hello").await;
    // Beta was last seen now; it counts as gone 10 s later, and loses 30 s after that.
    app.advance(39_999).await;
    assert_eq!(app.snapshot(id).await["status"], "running");
    app.advance(1).await;
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "finished");
    assert_eq!(snapshot["result"]["reason"], "disconnect");
    assert_eq!(snapshot["result"]["winner"], 0);
    assert_eq!(snapshot["rated"], true, "a disconnect loss is rated");
    stream.next_of("finished").await;
}

#[tokio::test]
async fn resigning_ends_the_match() {
    let app = spawn_app().await;
    let (id, _, b) = app.running_match().await;
    app.post(&format!("/matches/{id}/resign"), Some(&b), json!({}))
        .await
        .expect(200);
    let snapshot = app.snapshot(id).await;
    assert_eq!(
        (
            snapshot["result"]["reason"].clone(),
            snapshot["result"]["winner"].clone()
        ),
        (json!("resign"), json!(0))
    );
    app.post(&format!("/matches/{id}/resign"), Some(&b), json!({}))
        .await
        .expect_error(409, "match_not_running");
}

#[tokio::test]
async fn a_per_turn_limit_warns_at_half_time_and_forfeits_at_the_end() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let id = app.challenge(&a, "Beta", json!({"format": "single", "time_control": {"initial_ms": 600000, "per_turn_ms": 20000}})).await;
    app.post(&format!("/challenges/{id}/accept"), Some(&b), json!({}))
        .await
        .expect(200);
    app.play_first_moves(id, &a).await;
    app.play_first_moves(id, &b).await;
    app.advance(10_000).await;
    let events = app
        .get(&format!("/matches/{id}/events?since=0"), None)
        .await
        .expect(200);
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    assert_eq!(kinds.last(), Some(&"turn_warning"), "{kinds:?}");
    app.advance(10_000).await;
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["result"]["reason"], "timeout");
    assert_eq!(snapshot["result"]["winner"], 1);
}
