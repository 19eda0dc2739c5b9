use reqwest::Method;
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn every_error_has_the_same_shape_and_status() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    app.get("/bots/me", None)
        .await
        .expect_error(401, "invalid_token");
    app.get("/bots/me", Some("arbb_not-a-token"))
        .await
        .expect_error(401, "invalid_token");
    app.get("/matches/999", None)
        .await
        .expect_error(404, "match_not_found");
    app.get("/nowhere", None)
        .await
        .expect_error(404, "not_found");
    app.call(Method::DELETE, "/bots/me", Some(&token), None)
        .await
        .expect_error(405, "method_not_allowed");
    app.call(Method::POST, "/challenges", Some(&token), None)
        .await
        .expect_error(400, "invalid_json");
    let broken = app
        .client
        .post(format!("{}/challenges", app.base))
        .bearer_auth(&token)
        .body("{not json")
        .send()
        .await
        .expect("sent");
    assert_eq!(broken.status(), 400);
    let big = "x".repeat(arbiter_server::BODY_LIMIT + 1);
    app.post(
        "/challenges",
        Some(&token),
        json!({"opponent": "house-greedy", "padding": big}),
    )
    .await
    .expect_error(413, "request_too_large");
    app.get("/matches/1/events?since=abc", None)
        .await
        .expect_error(400, "invalid_query");
    app.post("/challenges", Some(&token), json!({"opponent": "Nobody"}))
        .await
        .expect_error(404, "bot_not_found");
    app.post(
        "/challenges",
        Some(&token),
        json!({"opponent": "house-greedy", "variant": "chess960"}),
    )
    .await
    .expect_error(409, "unsupported_variant");
    app.post(
        "/challenges",
        Some(&token),
        json!({"opponent": "house-greedy", "game": "go"}),
    )
    .await
    .expect_error(409, "unsupported_variant");
    app.post(
        "/challenges",
        Some(&token),
        json!({"opponent": "house-greedy", "time_control": {"initial_ms": 5}}),
    )
    .await
    .expect_error(400, "invalid_request");
    // Unknown fields are ignored.
    app.post(
        "/challenges",
        Some(&token),
        json!({"opponent": "house-greedy", "colour": "pink"}),
    )
    .await
    .expect(201);
}

#[tokio::test]
async fn the_openapi_document_describes_the_api() {
    let app = spawn_app().await;
    let document = app.get("/openapi.json", None).await.expect(200);
    let paths = document["paths"].as_object().expect("paths");
    for path in [
        "/api/v1/bots/anon",
        "/api/v1/bots/me/environment",
        "/api/v1/challenges",
        "/api/v1/matches/{id}/moves",
        "/api/v1/matches/{id}/events",
        "/api/v1/stream",
    ] {
        assert!(paths.contains_key(path), "{path} missing");
    }
    assert!(document["components"]["securitySchemes"]["bearer"].is_object());
}
