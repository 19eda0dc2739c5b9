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
    assert!(document["components"]["securitySchemes"]["bearer"].is_object());
    // Every status each operation can answer, the errors of reading a request included.
    let table: [(&str, &str, &[&str]); 8] = [
        ("/api/v1/health", "get", &["200", "429"]),
        (
            "/api/v1/bots/anon",
            "post",
            &["201", "400", "408", "413", "429", "503"],
        ),
        (
            "/api/v1/bots/{name}",
            "get",
            &["200", "400", "404", "429", "503"],
        ),
        (
            "/api/v1/admin/bots",
            "post",
            &[
                "201", "400", "401", "403", "408", "409", "413", "429", "503",
            ],
        ),
        (
            "/api/v1/challenges",
            "post",
            &[
                "201", "400", "401", "404", "408", "409", "413", "429", "503",
            ],
        ),
        (
            "/api/v1/matches/{id}",
            "get",
            &["200", "400", "401", "404", "429", "503"],
        ),
        (
            "/api/v1/matches/{id}/moves",
            "post",
            &[
                "200", "400", "401", "403", "404", "408", "409", "413", "429", "503",
            ],
        ),
        (
            "/api/v1/stream",
            "get",
            &["200", "400", "401", "429", "503"],
        ),
    ];
    for (path, method, statuses) in table {
        let responses = paths[path][method]["responses"].as_object().expect(path);
        let listed: Vec<&str> = responses.keys().map(String::as_str).collect();
        assert_eq!(listed, statuses, "{method} {path}");
        for (status, response) in responses {
            if status.starts_with(['4', '5']) {
                assert_eq!(
                    response["content"]["application/json"]["schema"]["$ref"],
                    "#/components/schemas/ErrorBody",
                    "{method} {path} {status}"
                );
            }
        }
    }
    // Schemas are as strict as the server.
    let schemas = &document["components"]["schemas"];
    let name = &schemas["RegisterRequest"]["properties"]["name"];
    assert_eq!(
        (&name["minLength"], &name["maxLength"]),
        (&json!(2), &json!(24))
    );
    // The games and variants are the registered families'.
    assert_eq!(
        schemas["VariantName"]["enum"],
        json!([
            "std",
            "anti",
            "grand",
            "octagon",
            "reversi",
            "standard",
            "short",
            "freestyle",
            "renju",
            "renju-foul",
            "swap2",
            "renju-swap2",
            "freestyle-19",
            "freestyle-20"
        ]),
        "a name two families share is listed once"
    );
    assert_eq!(
        schemas["GameName"]["enum"],
        json!(["othello", "goofspiel", "gomoku"])
    );
    assert_eq!(schemas["MatchFormat"]["enum"], json!(["paired", "single"]));
    assert_eq!(
        schemas["ChallengeBody"]["properties"]["opponent"]["$ref"],
        "#/components/schemas/Opponents"
    );
    assert_eq!(
        schemas["Opponents"]["oneOf"][1]["maxItems"], 7,
        "one opponent, or a list for up to eight seats"
    );
    assert_eq!(
        schemas["Opponents"]["oneOf"][0]["oneOf"],
        json!([{"type": "string", "minLength": 1}, {"type": "integer"}])
    );
    assert_eq!(
        schemas["RegisterRequest"]["properties"]["concurrency"]["maximum"],
        16
    );
}

/// Path parameters that do not parse, for every kind of parameter.
const BAD_IDS: [&str; 6] = [
    "abc",
    "1.5",
    "9223372036854775808",
    "%2e%2e%2f",
    "1%00",
    "-",
];

#[tokio::test]
async fn path_parameters_that_do_not_parse_get_the_json_error_shape() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    let by_id = [
        (Method::GET, "/matches/{}"),
        (Method::GET, "/matches/{}/events"),
        (Method::GET, "/matches/{}/turns"),
        (Method::GET, "/matches/{}/export"),
        (Method::POST, "/matches/{}/moves"),
        (Method::POST, "/matches/{}/resign"),
        (Method::POST, "/challenges/{}/accept"),
        (Method::POST, "/challenges/{}/reject"),
        (Method::POST, "/challenges/{}/cancel"),
    ];
    for (method, template) in &by_id {
        for id in BAD_IDS {
            let path = template.replace("{}", id);
            let reply = app
                .call(method.clone(), &path, Some(&token), Some(json!({})))
                .await;
            assert_eq!(
                reply.headers["content-type"], "application/json",
                "{method} {path}: {}",
                reply.text
            );
            reply.expect_error(400, "invalid_path");
        }
    }
    // Names are any text, but not bytes that are not UTF-8.
    let by_name = [
        (Method::GET, "/bots/{}"),
        (Method::POST, "/admin/bots/{}/rotate-token"),
        (Method::POST, "/admin/bots/{}/disable"),
        (Method::POST, "/admin/bots/{}/auto-match"),
        (Method::PUT, "/admin/bots/{}/variants"),
        (Method::DELETE, "/admin/bots/{}"),
    ];
    for (method, template) in &by_name {
        let path = template.replace("{}", "%ff%fe");
        app.call(method.clone(), &path, Some(ADMIN), Some(json!({})))
            .await
            .expect_error(400, "invalid_path");
    }
    // A well-formed id that names nothing is still a 404.
    app.get("/matches/9223372036854775807", None)
        .await
        .expect_error(404, "match_not_found");
}

#[tokio::test]
async fn every_registration_door_checks_variants_and_concurrency_and_changes_nothing() {
    let app = spawn_app().await;
    let bots_before = app.get("/bots", None).await.expect(200);
    let refused = [
        (
            json!({"supported_variants": ["bogus", "<b>"]}),
            "unknown variant \"bogus\"",
        ),
        (
            json!({"supported_variants": []}),
            "a bot must play at least one variant",
        ),
        (
            json!({"supported_variants": ["STD"]}),
            "unknown variant \"STD\"",
        ),
        (
            json!({"concurrency": 0}),
            "a bot plays 1 to 16 matches at once",
        ),
        (
            json!({"concurrency": 17}),
            "a bot plays 1 to 16 matches at once",
        ),
        (
            json!({"concurrency": 4_000_000_000_u64}),
            "a bot plays 1 to 16 matches at once",
        ),
    ];
    for (extra, message) in &refused {
        let mut admin = json!({"name": "Newcomer"});
        let mut anonymous = json!({"name": "Newcomer"});
        for (field, value) in extra.as_object().expect("object") {
            admin[field] = value.clone();
            if field == "supported_variants" {
                anonymous[field] = value.clone();
            }
        }
        let body = app
            .post("/admin/bots", Some(ADMIN), admin.clone())
            .await
            .expect_error(400, "invalid_request");
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(message)),
            "{admin}: {body}"
        );
        if anonymous.get("supported_variants").is_some() {
            let body = app
                .post("/bots/anon", None, anonymous.clone())
                .await
                .expect_error(400, "invalid_request");
            assert!(
                body["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with(message)),
                "{anonymous}: {body}"
            );
        }
    }
    assert_eq!(
        app.get("/bots", None).await.expect(200),
        bots_before,
        "nothing was created"
    );
    // A refused request does not count against the address's five anonymous bots.
    for _ in 0..5 {
        app.post("/bots/anon", None, json!({})).await.expect(201);
    }

    let accepted = app
        .post(
            "/admin/bots",
            Some(ADMIN),
            json!({"name": "Newcomer", "supported_variants": ["grand", "std", "grand"], "concurrency": 16}),
        )
        .await
        .expect(201);
    assert_eq!(
        accepted["bot"]["supported_variants"],
        json!(["grand", "std"])
    );
    let plain = app
        .post("/admin/bots", Some(ADMIN), json!({"name": "Plain"}))
        .await
        .expect(201);
    assert_eq!(plain["bot"]["supported_variants"], json!(["std"]));
}

#[tokio::test]
async fn the_leaderboard_refuses_modes_that_do_not_exist() {
    let app = spawn_app().await;
    let table = [
        ("", Ok("othello:std")),
        ("?variant=grand", Ok("othello:grand")),
        ("?variant=reversi&game=othello", Ok("othello:reversi")),
        ("?variant=bogus", Err(())),
        ("?variant=STD", Err(())),
        ("?variant=", Err(())),
        ("?game=chess", Err(())),
    ];
    for (query, expected) in table {
        let reply = app.get(&format!("/leaderboard{query}"), None).await;
        match expected {
            Ok(mode) => assert_eq!(reply.expect(200)["mode"], mode, "{query}"),
            Err(()) => {
                reply.expect_error(400, "invalid_request");
            }
        }
    }
}
