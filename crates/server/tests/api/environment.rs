//! Environment reports: what a connected bot says about its engine, and what that changes.

use arbiter_arena::ArenaConfig;
use serde_json::{Value, json};

use crate::helpers::*;

const PATH: &str = "/bots/me/environment";

/// A bot's environment in its public profile.
async fn public_environment(app: &TestApp, name: &str) -> Value {
    app.get(&format!("/bots/{name}"), None).await.expect(200)["environment"].clone()
}

/// A bot's environment in its own profile.
async fn own_environment(app: &TestApp, token: &str) -> Value {
    app.get("/bots/me", Some(token)).await.expect(200)["environment"].clone()
}

#[tokio::test]
async fn a_report_shows_in_the_own_profile_the_public_profile_and_the_list() {
    let app = spawn_app().await;
    let (id, token) = app.register("Alpha").await;
    assert_eq!(own_environment(&app, &token).await, Value::Null);
    assert_eq!(public_environment(&app, "Alpha").await, Value::Null);

    let reply = app
        .post(
            PATH,
            Some(&token),
            json!({
                "engine": "  Edax 4.6 ",
                "cpu": "AMD Ryzen 9 7950X",
                "os": "",
                "practice": false,
                "variants": ["std", "grand", "std"],
                "threads": 16,
            }),
        )
        .await
        .expect(200);
    let expected = json!({
        "engine": "Edax 4.6",
        "cpu": "AMD Ryzen 9 7950X",
        "os": null,
        "practice": false,
        "variants": ["std", "grand"],
    });
    assert_eq!(
        reply["environment"], expected,
        "trimmed, tidied, unknown fields ignored"
    );
    assert_eq!(reply["id"], id);
    assert!(reply["token_prefix"].is_string(), "the bot's own view");
    assert_eq!(
        reply,
        app.get("/bots/me", Some(&token)).await.expect(200),
        "the reply is what GET /bots/me returns"
    );
    assert_eq!(public_environment(&app, "Alpha").await, expected);
    let list = app.get("/bots", None).await.expect(200);
    let listed = list
        .as_array()
        .expect("list")
        .iter()
        .find(|b| b["name"] == "Alpha")
        .expect("Alpha is listed");
    assert_eq!(listed["environment"], expected);
    assert_eq!(
        public_environment(&app, "house-greedy").await,
        Value::Null,
        "house bots report nothing"
    );
}

#[tokio::test]
async fn a_later_report_replaces_the_earlier_one_entirely() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    let reports = [
        (
            json!({"engine": "Edax 4.6", "cpu": "Ryzen", "os": "linux", "practice": true, "variants": ["std"]}),
            json!({"engine": "Edax 4.6", "cpu": "Ryzen", "os": "linux", "practice": true, "variants": ["std"]}),
        ),
        (
            json!({"engine": "Edax 4.7"}),
            json!({"engine": "Edax 4.7", "cpu": null, "os": null, "practice": false, "variants": null}),
        ),
        (
            json!({"os": "windows", "variants": null}),
            json!({"engine": null, "cpu": null, "os": "windows", "practice": false, "variants": null}),
        ),
        (
            json!({}),
            json!({"engine": null, "cpu": null, "os": null, "practice": false, "variants": null}),
        ),
    ];
    for (report, expected) in reports {
        let reply = app
            .post(PATH, Some(&token), report.clone())
            .await
            .expect(200);
        assert_eq!(reply["environment"], expected, "after {report}");
        assert_eq!(
            own_environment(&app, &token).await,
            expected,
            "after {report}"
        );
    }
}

#[tokio::test]
async fn invalid_reports_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    let valid =
        json!({"engine": "Edax 4.6", "cpu": "Ryzen", "practice": true, "variants": ["anti"]});
    let kept = app.post(PATH, Some(&token), valid).await.expect(200)["environment"].clone();
    let long = "x".repeat(121);
    let cases = [
        (json!({"cpu": long}), "cpu"),
        (json!({"engine": long, "cpu": "Ryzen"}), "engine"),
        (json!({"os": format!(" {long} ")}), "os"),
        (json!({"variants": ["std", "chess960"]}), "chess960"),
        (json!({"variants": []}), "variants"),
    ];
    for (report, field) in cases {
        let error = app
            .post(PATH, Some(&token), report.clone())
            .await
            .expect_error(400, "invalid_environment");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(field),
            "{report}: {message:?} names {field}"
        );
        assert_eq!(
            own_environment(&app, &token).await,
            kept,
            "{report} changed nothing"
        );
    }
    app.post(PATH, Some(&token), json!({"practice": "yes"}))
        .await
        .expect_error(400, "invalid_json");
    app.post(PATH, None, json!({"cpu": "Ryzen"}))
        .await
        .expect_error(401, "invalid_token");
    assert_eq!(own_environment(&app, &token).await, kept);

    // Exactly 120 characters is allowed.
    let limit = "é".repeat(120);
    let reply = app
        .post(PATH, Some(&token), json!({"cpu": limit}))
        .await
        .expect(200);
    assert_eq!(reply["environment"]["cpu"], limit);
}

#[tokio::test]
async fn declared_variants_restrict_challenges_either_way() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let (_, gamma) = app.register("Gamma").await;
    // Created before Gamma reports: the report is checked again at acceptance.
    let early = app
        .challenge(&beta, "Gamma", json!({"variant": "grand"}))
        .await;
    for token in [&alpha, &gamma] {
        app.post(PATH, Some(token), json!({"variants": ["std"]}))
            .await
            .expect(200);
    }
    let cases = [
        (&alpha, "house-greedy", "grand", 409),
        (&alpha, "Beta", "grand", 409),
        (&beta, "Alpha", "grand", 409),
        (&alpha, "Beta", "std", 201),
        (&beta, "Alpha", "std", 201),
        (&beta, "house-greedy", "grand", 201),
        (&alpha, "house-greedy", "std", 201),
    ];
    for (token, opponent, variant, status) in cases {
        let reply = app
            .post(
                "/challenges",
                Some(token),
                json!({"opponent": opponent, "variant": variant, "format": "single"}),
            )
            .await;
        if status == 201 {
            reply.expect(201);
        } else {
            let error = reply.expect_error(status, "unsupported_variant");
            assert!(
                error["message"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("Alpha"),
                "the refusal names the bot: {error}"
            );
        }
    }
    app.post(
        &format!("/challenges/{early}/accept"),
        Some(&gamma),
        json!({}),
    )
    .await
    .expect_error(409, "unsupported_variant");
    assert_eq!(
        app.snapshot(early).await["status"],
        "pending",
        "nothing changed"
    );

    // The effective list is the intersection with the profile: a std-only bot stays std-only.
    let created = app
        .post("/admin/bots", Some(ADMIN), json!({"name": "StdOnly"}))
        .await
        .expect(201);
    let std_only = created["token"].as_str().expect("token");
    app.post(PATH, Some(std_only), json!({"variants": ["std", "grand"]}))
        .await
        .expect(200);
    app.post(
        "/challenges",
        Some(std_only),
        json!({"opponent": "house-greedy", "variant": "grand"}),
    )
    .await
    .expect_error(409, "unsupported_variant");
}

#[tokio::test]
async fn practice_makes_matches_between_bots_unrated() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let report = |practice: bool| json!({"engine": "Edax 4.6", "practice": practice});
    // (Alpha practising when it challenges, Beta then, Alpha when Beta accepts, Beta then,
    // rated).
    let cases = [
        (false, false, false, false, true),
        (true, false, true, false, false),
        (false, true, false, true, false),
        (false, false, false, true, false),
        (false, false, true, false, false),
        (true, false, false, false, false),
    ];
    for (case, (a_created, b_created, a_accepted, b_accepted, rated)) in
        cases.into_iter().enumerate()
    {
        app.post(PATH, Some(&alpha), report(a_created))
            .await
            .expect(200);
        app.post(PATH, Some(&beta), report(b_created))
            .await
            .expect(200);
        let id = app.challenge(&alpha, "Beta", json!({"rated": true})).await;
        app.post(PATH, Some(&alpha), report(a_accepted))
            .await
            .expect(200);
        app.post(PATH, Some(&beta), report(b_accepted))
            .await
            .expect(200);
        let accepted = app
            .post(&format!("/challenges/{id}/accept"), Some(&beta), json!({}))
            .await
            .expect(200);
        assert_eq!(accepted["rated"], rated, "case {case}: the accept reply");
        assert_eq!(
            app.snapshot(id).await["rated"],
            rated,
            "case {case}: the snapshot"
        );
        let export = app
            .get(&format!("/matches/{id}/export"), None)
            .await
            .expect(200);
        assert_eq!(
            export["details"]["rated"], rated,
            "case {case}: the stored row"
        );
        let unrated_at_acceptance = !a_created && !b_created && !rated;
        let event = export["events"]
            .as_array()
            .expect("events")
            .iter()
            .find(|e| e["type"] == "accepted")
            .expect("an accepted event")
            .clone();
        assert_eq!(
            event["data"]["unrated_because"] == "practice",
            unrated_at_acceptance,
            "case {case}: the accepted event says why the terms changed: {event}"
        );
        // Make room for the next case (two matches at once per bot).
        app.post(&format!("/matches/{id}/resign"), Some(&alpha), json!({}))
            .await
            .expect(200);
    }

    // Against a house bot too.
    app.post(PATH, Some(&alpha), report(true)).await.expect(200);
    let created = app
        .post(
            "/challenges",
            Some(&alpha),
            json!({"opponent": "house-greedy"}),
        )
        .await
        .expect(201);
    assert_eq!(created["rated"], false);
}

#[tokio::test]
async fn reports_are_not_kept_across_a_restart() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    app.post(
        PATH,
        Some(&token),
        json!({"engine": "Edax 4.6", "practice": true}),
    )
    .await
    .expect(200);
    let (dir, clock) = app.stop().await;
    let app = start_on(dir, clock, ArenaConfig::default()).await;
    assert_eq!(
        own_environment(&app, &token).await,
        Value::Null,
        "connectors report again on every connect"
    );
}

#[tokio::test]
async fn the_openapi_document_describes_reports() {
    let app = spawn_app().await;
    let document = app.get("/openapi.json", None).await.expect(200);
    let operation = &document["paths"]["/api/v1/bots/me/environment"]["post"];
    assert_eq!(
        operation["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/EnvironmentReport"
    );
    assert!(operation["responses"]["400"].is_object());
    let schemas = &document["components"]["schemas"];
    assert!(
        schemas["BotView"]["required"]
            .as_array()
            .expect("required")
            .contains(&json!("environment")),
        "always present, null when nothing was reported"
    );
    assert_eq!(
        schemas["EnvironmentView"]["required"],
        json!(["engine", "cpu", "os", "practice", "variants"])
    );
}
