use reqwest::Method;
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn anonymous_bots_are_namespaced_unranked_and_limited_per_address() {
    let app = spawn_app().await;
    let body = app
        .post(
            "/bots/anon",
            None,
            json!({"name": "house-greedy", "ignored": 1}),
        )
        .await
        .expect(201);
    let name = body["bot"]["name"].as_str().expect("name");
    assert!(name.starts_with("anon:house-greedy#"), "{name}");
    assert_eq!(body["bot"]["ranked"], false);
    assert!(body["token"].as_str().expect("token").starts_with("arba_"));
    for _ in 0..4 {
        app.post("/bots/anon", None, json!({})).await.expect(201);
    }
    let refused = app.post("/bots/anon", None, json!({})).await;
    assert_eq!(refused.headers["retry-after"], "3600");
    refused.expect_error(429, "rate_limited");
    app.advance(3_600_000).await;
    app.post("/bots/anon", None, json!({})).await.expect(201);
}

#[tokio::test]
async fn registered_tokens_are_shown_once_hashed_and_rotated() {
    let app = spawn_app().await;
    let created = app
        .post("/admin/bots", Some(ADMIN), json!({"name": "Edax"}))
        .await
        .expect(201);
    let token = created["token"].as_str().expect("token").to_owned();
    assert!(token.starts_with("arbb_") && token.len() > 40);
    let me = app.get("/bots/me", Some(&token)).await.expect(200);
    assert_eq!(me["name"], "Edax");
    assert_eq!(me["token_prefix"], token[..12]);
    assert!(me.get("token").is_none(), "the token is never shown again");
    let public = app.get("/bots/Edax", None).await.expect(200);
    assert!(public.get("token_prefix").is_none());

    // Names are unique regardless of case; house names are reserved.
    app.post("/admin/bots", Some(ADMIN), json!({"name": "edax"}))
        .await
        .expect_error(409, "name_taken");
    app.post("/admin/bots", Some(ADMIN), json!({"name": "house-x"}))
        .await
        .expect_error(409, "name_taken");
    app.post("/admin/bots", Some(ADMIN), json!({"name": "x"}))
        .await
        .expect_error(400, "invalid_name");
    app.post("/admin/bots", Some(&token), json!({"name": "Sneaky"}))
        .await
        .expect_error(403, "admin_only");

    let rotated = app
        .post("/bots/me/rotate-token", Some(&token), json!({}))
        .await
        .expect(200);
    let new_token = rotated["token"].as_str().expect("token");
    app.get("/bots/me", Some(&token))
        .await
        .expect_error(401, "invalid_token");
    app.get("/bots/me", Some(new_token)).await.expect(200);

    let by_admin = app
        .post("/admin/bots/Edax/rotate-token", Some(ADMIN), json!({}))
        .await
        .expect(200);
    app.get("/bots/me", Some(new_token))
        .await
        .expect_error(401, "invalid_token");
    let newest = by_admin["token"].as_str().expect("token");

    app.post("/admin/bots/Edax/disable", Some(ADMIN), json!({}))
        .await
        .expect(200);
    app.get("/bots/me", Some(newest))
        .await
        .expect_error(401, "invalid_token");
    app.post(
        "/admin/bots/Edax/disable",
        Some(ADMIN),
        json!({"disabled": false}),
    )
    .await
    .expect(200);
    app.get("/bots/me", Some(newest)).await.expect(200);
    app.call(Method::DELETE, "/admin/bots/Edax", Some(ADMIN), None)
        .await
        .expect(200);
    app.get("/bots/me", Some(newest))
        .await
        .expect_error(401, "invalid_token");
    app.get("/bots/Edax", None)
        .await
        .expect_error(404, "bot_not_found");
}

#[tokio::test]
async fn bots_are_listed_with_presence() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    let bots = app.get("/bots", None).await.expect(200);
    let names: Vec<&str> = bots
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert!(
        names.contains(&"Alpha") && names.contains(&"house-greedy"),
        "{names:?}"
    );
    let alpha = |bots: &serde_json::Value| {
        bots.as_array()
            .expect("list")
            .iter()
            .find(|b| b["name"] == "Alpha")
            .cloned()
            .expect("Alpha")
    };
    assert_eq!(alpha(&bots)["online"], false, "never connected");
    app.get("/bots/me", Some(&token)).await.expect(200);
    assert_eq!(
        alpha(&app.get("/bots", None).await.expect(200))["online"],
        true,
        "polled just now"
    );
    app.advance(10_001).await;
    assert_eq!(
        alpha(&app.get("/bots", None).await.expect(200))["online"],
        false,
        "silent for more than 10 s"
    );
    let _stream = app.stream(&token).await;
    app.advance(60_000).await;
    assert_eq!(
        alpha(&app.get("/bots", None).await.expect(200))["online"],
        true,
        "a stream is open"
    );
    assert_eq!(
        app.get("/bots/house-hard", None).await.expect(200)["online"],
        true,
        "house bots are always there"
    );
}

#[tokio::test]
async fn the_variants_a_bot_offers_change_only_between_matches_and_never_to_none() {
    let app = spawn_app().await;
    let (_, edax) = app.register("Edax").await;
    let path = "/admin/bots/Edax/variants";
    let set = |variants: serde_json::Value| {
        app.call(
            Method::PUT,
            path,
            Some(ADMIN),
            Some(json!({"variants": variants})),
        )
    };
    let view = set(json!(["std", "anti", "std"])).await.expect(200);
    assert_eq!(
        view["supported_variants"],
        json!(["std", "anti"]),
        "repeats are dropped"
    );
    set(json!([])).await.expect_error(400, "invalid_request");
    set(json!(["std", "chess"]))
        .await
        .expect_error(400, "invalid_request");
    app.call(
        Method::PUT,
        path,
        Some(&edax),
        Some(json!({"variants": ["std"]})),
    )
    .await
    .expect_error(403, "admin_only");
    let id = app
        .challenge(&edax, "house-random", json!({"variant": "anti"}))
        .await;
    set(json!(["std"]))
        .await
        .expect_error(409, "has_open_matches");
    assert_eq!(
        app.get("/bots/Edax", None).await.expect(200)["supported_variants"],
        json!(["std", "anti"]),
        "a refused change changes nothing"
    );
    app.post(&format!("/matches/{id}/resign"), Some(&edax), json!({}))
        .await
        .expect(200);
    set(json!(["grand"])).await.expect(200);
    app.post(
        "/challenges",
        Some(&edax),
        json!({"opponent": "house-random", "variant": "anti"}),
    )
    .await
    .expect_error(409, "unsupported_variant");
}

#[tokio::test]
async fn names_that_cannot_be_addressed_or_pose_as_another_bot_are_refused() {
    let app = spawn_app().await;
    app.register("alpha").await;
    let table: [(&str, u16, &str, &str); 14] = [
        ("..", 400, "invalid_name", "only dots"),
        ("....", 400, "invalid_name", "only dots"),
        ("12345", 400, "invalid_name", "only digits"),
        ("a/b", 400, "invalid_name", "may not contain '/'"),
        ("%2e%2e", 400, "invalid_name", "may not contain '%'"),
        ("x", 400, "invalid_name", "too short"),
        ("me", 409, "name_taken", "already taken"),
        ("anon", 409, "name_taken", "already taken"),
        ("house-easy", 409, "name_taken", "already taken"),
        // A Cyrillic `о`, and a zero for an `o`.
        ("hоuse-easy", 409, "name_taken", "already taken"),
        ("h0use-hard", 409, "name_taken", "already taken"),
        ("ALPHA", 409, "name_taken", "already taken"),
        // A Cyrillic `а`.
        ("аlpha", 409, "name_taken", "too like \"alpha\""),
        ("house-easy-fan", 409, "name_taken", "already taken"),
    ];
    let bots_before = app.get("/bots", None).await.expect(200);
    for (name, status, code, says) in table {
        let body = app
            .post("/admin/bots", Some(ADMIN), json!({"name": name}))
            .await
            .expect_error(status, code);
        let message = body["message"].as_str().expect("message");
        assert!(message.contains(says), "{name:?}: {message}");
    }
    assert_eq!(app.get("/bots", None).await.expect(200), bots_before);
    // Whatever looks like an id is one.
    let (id, _) = app.register("42nd-street").await;
    assert_eq!(
        app.get(&format!("/bots/{id}"), None).await.expect(200)["id"],
        id
    );

    // An anonymous bot's label follows the same rule, and says that the bot is anonymous.
    for label in ["..", "123", "a b", "<b>"] {
        app.post("/bots/anon", None, json!({"name": label}))
            .await
            .expect_error(400, "invalid_name");
    }
    let labelled = app
        .post("/bots/anon", None, json!({"name": "hоuse-easy"}))
        .await
        .expect(201);
    assert!(
        labelled["bot"]["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("anon:hоuse-easy#"))
    );
}
