//! Client seeds on challenges, acceptances and seats; the export that reveals the seed; and
//! the verifier's verdict on a match played over the API.

use arbiter_arena::verify::verify;
use arbiter_arena::{MatchExport, Verdict};
use serde_json::{Value, json};

use crate::helpers::*;

/// The export of match `id`, as JSON.
async fn export_value(app: &TestApp, id: i64) -> Value {
    app.get(&format!("/matches/{id}/export"), None)
        .await
        .expect(200)
}

/// The export of match `id`, as `arbiter verify` reads it.
fn match_export(value: Value) -> MatchExport {
    serde_json::from_value(value).expect("an export")
}

fn event<'a>(export: &'a Value, kind: &str) -> &'a Value {
    export["events"]
        .as_array()
        .and_then(|events| events.iter().find(|e| e["type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} event in {export}"))
}

#[tokio::test]
async fn both_players_client_seeds_are_public_and_join_the_match_seed() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let id = app
        .challenge(&a, "Beta", json!({"client_seed": "alpha-1"}))
        .await;
    app.post(
        &format!("/challenges/{id}/accept"),
        Some(&b),
        json!({"client_seed": "beta.2"}),
    )
    .await
    .expect(200);
    let export = export_value(&app, id).await;
    assert_eq!(
        event(&export, "challenge")["data"]["client_seed"],
        "alpha-1"
    );
    assert_eq!(event(&export, "accepted")["data"]["client_seed"], "beta.2");
    assert_eq!(
        event(&export, "started")["data"]["client_seed"],
        "alpha-1:beta.2"
    );
    assert_eq!(
        export["details"]["client_seeds"],
        json!(["alpha-1", "beta.2"])
    );
    assert_eq!(
        export["seed"],
        Value::Null,
        "the seed stays secret while it runs"
    );

    app.post(&format!("/matches/{id}/resign"), Some(&a), json!({}))
        .await
        .expect(200);
    let finished = export_value(&app, id).await;
    let seed = finished["seed"].as_str().expect("revealed once it ended");
    assert_eq!(seed.len(), 64);
    let verdict = verify(app.arena.games(), &match_export(finished));
    assert!(verdict.is_verified(), "{verdict:#?}");
}

#[tokio::test]
async fn a_malformed_client_seed_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    for bad in ["a:b", "a/b", "with space", &"x".repeat(65), "ünï"] {
        app.post(
            "/challenges",
            Some(&a),
            json!({"opponent": "Beta", "client_seed": bad}),
        )
        .await
        .expect_error(400, "invalid_request");
    }
    let id = app.challenge(&a, "Beta", json!({})).await;
    app.post(
        &format!("/challenges/{id}/accept"),
        Some(&b),
        json!({"client_seed": "a:b"}),
    )
    .await
    .expect_error(400, "invalid_request");
    assert_eq!(app.snapshot(id).await["status"], "pending");
    let table = app
        .post(
            "/tables",
            Some(&a),
            json!({"seats": 2, "client_seed": "ok-seed"}),
        )
        .await
        .expect(201)["id"]
        .as_i64()
        .expect("a table");
    app.post(
        &format!("/tables/{table}/join"),
        Some(&b),
        json!({"client_seed": "not ok"}),
    )
    .await
    .expect_error(400, "invalid_request");
    assert_eq!(app.snapshot(table).await["status"], "pending");
    app.post(
        &format!("/tables/{table}/join"),
        Some(&b),
        json!({"client_seed": "fine"}),
    )
    .await
    .expect(200);
    let export = export_value(&app, table).await;
    assert_eq!(event(&export, "joined")["data"]["client_seed"], "fine");
    assert_eq!(
        event(&export, "started")["data"]["client_seed"],
        "ok-seed:fine"
    );
}

#[tokio::test]
async fn a_bodiless_accept_still_works() {
    let app = spawn_app().await;
    let (_, a) = app.register("Alpha").await;
    let (_, b) = app.register("Beta").await;
    let id = app.challenge(&a, "Beta", json!({})).await;
    let reply = app
        .client
        .post(format!("{}/challenges/{id}/accept", app.base))
        .bearer_auth(&b)
        .send()
        .await
        .expect("sent");
    assert_eq!(reply.status().as_u16(), 200);
    let export = export_value(&app, id).await;
    assert_eq!(event(&export, "started")["data"]["client_seed"], ":");
    assert!(matches!(
        verify(app.arena.games(), &match_export(export)),
        Verdict::Unverifiable(_)
    ));
}
