//! Tournaments over the native API: created and started by the administrator, entered by
//! bots, played through the ordinary match endpoints, read with their rounds' seeds.

use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn two_bots_play_a_round_robin_through_the_api() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let terms = json!({"name": "Club night", "format": {"kind": "round_robin"}, "rated": true});
    app.post("/tournaments", Some(&alpha), terms.clone())
        .await
        .expect_error(403, "admin_only");
    app.post(
        "/tournaments",
        Some(ADMIN),
        json!({"name": "", "format": {"kind": "swiss", "rounds": 3}}),
    )
    .await
    .expect_error(400, "invalid_request");
    let created = app
        .post("/tournaments", Some(ADMIN), terms)
        .await
        .expect(201);
    let id = created["id"].as_i64().expect("id");
    assert_eq!(created["status"], "open");
    assert_eq!(
        (&created["game"], &created["variant"]),
        (&json!("othello"), &json!("std"))
    );
    let path = |action: &str| format!("/tournaments/{id}/{action}");
    for token in [&alpha, &beta] {
        app.post(&path("join"), Some(token), json!({}))
            .await
            .expect(200);
    }
    app.post(&path("join"), Some(&alpha), json!({}))
        .await
        .expect_error(409, "tournament_refused");
    app.post(&path("start"), Some(&alpha), json!({}))
        .await
        .expect_error(403, "admin_only");
    let started = app
        .post(&path("start"), Some(ADMIN), json!({}))
        .await
        .expect(200);
    assert_eq!(started["status"], "running");
    let round = &started["rounds"][0];
    assert!(round["seed"].is_null(), "sealed: {round}");
    let match_id = round["games"][0]["match_id"].as_i64().expect("a game");
    let snapshot = app.snapshot(match_id).await;
    assert_eq!(snapshot["commitment"], round["commitment"]);
    assert_eq!(snapshot["status"], "running", "started as accepted by both");
    assert_eq!(
        snapshot["legs"].as_array().map(Vec::len),
        Some(2),
        "both colours"
    );

    for _ in 0..500 {
        if app.snapshot(match_id).await["status"] != "running" {
            break;
        }
        app.play_first_moves(match_id, &alpha).await;
        app.play_first_moves(match_id, &beta).await;
    }
    app.arena.drive_tournaments().await;
    let done = app
        .get(&format!("/tournaments/{id}"), None)
        .await
        .expect(200);
    assert_eq!(done["status"], "finished", "{done}");
    let seed = done["rounds"][0]["seed"].as_str().expect("revealed");
    let export = app
        .get(&format!("/matches/{match_id}/export"), None)
        .await
        .expect(200);
    assert_eq!(export["seed"], seed);
    let standings = done["standings"].as_array().expect("standings");
    let points: f64 = standings
        .iter()
        .map(|line| line["points"].as_f64().expect("points"))
        .sum();
    assert_eq!(points, 1.0, "{standings:?}");
    assert_eq!(done["crosstable"][0][1].as_array().map(Vec::len), Some(1));
    let listed = app.get("/tournaments", None).await.expect(200);
    assert_eq!(listed[0]["id"], id);
    assert_eq!(listed[0]["entrants"], 2);
    app.get("/tournaments/999", None)
        .await
        .expect_error(404, "tournament_not_found");
    app.post(&path("withdraw"), Some(&alpha), json!({}))
        .await
        .expect_error(409, "tournament_refused");
}

#[tokio::test]
async fn the_administrator_enters_house_bots_and_pauses_a_tournament() {
    let app = spawn_app().await;
    let created = app
        .post(
            "/tournaments",
            Some(ADMIN),
            json!({"name": "House cup", "format": {"kind": "swiss", "rounds": 1}}),
        )
        .await
        .expect(201);
    let id = created["id"].as_i64().expect("id");
    let path = |action: &str| format!("/tournaments/{id}/{action}");
    for name in ["house-easy", "house-medium", "house-hard"] {
        app.post(&path("entrants"), Some(ADMIN), json!({"bot": name}))
            .await
            .expect(200);
    }
    let (_, alpha) = app.register("Alpha").await;
    app.post(&path("entrants"), Some(ADMIN), json!({"bot": "Alpha"}))
        .await
        .expect_error(409, "tournament_refused");
    app.post(&path("join"), Some(&alpha), json!({}))
        .await
        .expect(200);
    let left = app
        .call(
            reqwest::Method::DELETE,
            &path("entrants/Alpha"),
            Some(ADMIN),
            None,
        )
        .await
        .expect(200);
    assert_eq!(left["entrants"].as_array().map(Vec::len), Some(3));
    app.post(&path("pause"), Some(ADMIN), json!({}))
        .await
        .expect_error(409, "tournament_refused");
    let started = app
        .post(&path("start"), Some(ADMIN), json!({}))
        .await
        .expect(200);
    assert_eq!(
        started["rounds"][0]["byes"].as_array().map(Vec::len),
        Some(1)
    );
    let paused = app
        .post(&path("pause"), Some(ADMIN), json!({}))
        .await
        .expect(200);
    assert_eq!(paused["status"], "paused");
    let resumed = app
        .post(&path("resume"), Some(ADMIN), json!({}))
        .await
        .expect(200);
    assert_eq!(resumed["status"], "running");
}

#[tokio::test]
async fn games_for_more_than_two_are_played_at_tables() {
    let app = spawn_app().await;
    let tables = |seats: u8| {
        json!({"name": "Tables", "game": "goofspiel", "variant": "short",
            "format": {"kind": "tables", "rounds": 2, "seats": seats}})
    };
    app.post("/tournaments", Some(ADMIN), tables(6))
        .await
        .expect_error(409, "unsupported_variant");
    let created = app
        .post("/tournaments", Some(ADMIN), tables(3))
        .await
        .expect(201);
    assert_eq!(
        created["format"],
        json!({"kind": "tables", "rounds": 2, "seats": 3})
    );
    let id = created["id"].as_i64().expect("id");
    for name in ["house-random", "house-greedy", "house-easy", "house-medium"] {
        app.post(
            &format!("/tournaments/{id}/entrants"),
            Some(ADMIN),
            json!({"bot": name}),
        )
        .await
        .expect(200);
    }
    let started = app
        .post(&format!("/tournaments/{id}/start"), Some(ADMIN), json!({}))
        .await
        .expect(200);
    // Four at tables of up to three: two tables of two.
    let seated: Vec<usize> = started["rounds"][0]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|table| table["seats"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(seated, [2, 2]);
    assert_eq!(started["crosstable"], json!([]));
}
