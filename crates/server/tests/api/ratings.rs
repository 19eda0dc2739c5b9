//! Glicko-2 ratings: applied when a rated match finishes, in the same write as the result;
//! shown on profiles and the leaderboard; kept across restarts; untouched by unrated matches.

use arbiter_arena::ArenaConfig;
use serde_json::{Value, json};

use crate::helpers::*;

/// Both bots play their first legal move at every turn until the match is over.
async fn play_out(app: &TestApp, id: i64, a: &str, b: &str) -> Value {
    loop {
        let snapshot = app.snapshot(id).await;
        if snapshot["status"] != "running" {
            return snapshot;
        }
        app.play_first_moves(id, a).await;
        app.play_first_moves(id, b).await;
    }
}

#[tokio::test]
async fn a_finished_rated_match_moves_both_ratings_once_and_for_good() {
    let app = spawn_app().await;
    let (id, a, b) = app.running_match().await;
    let end = play_out(&app, id, &a, &b).await;
    assert_eq!(end["status"], "finished", "{end}");
    let result = &end["result"];
    assert_eq!(result["rating_applied"], true, "{result}");
    assert_eq!(
        result["rating_before"],
        json!([1200.0, 1200.0]),
        "new bots start at 1200"
    );
    let after = result["rating_after"].as_array().expect("ratings after");
    let (alpha, beta) = (after[0].as_f64().expect("a"), after[1].as_f64().expect("b"));
    match result["winner"].as_u64() {
        Some(0) => assert!(alpha > 1200.0 && beta < 1200.0, "{result}"),
        Some(_) => assert!(beta > 1200.0 && alpha < 1200.0, "{result}"),
        None => assert_eq!(alpha, beta, "{result}"),
    }

    let board = app.get("/leaderboard", None).await.expect(200);
    assert_eq!(board["mode"], "othello:std");
    assert_eq!(board["system"], "glicko2", "two seats: {board}");
    let entries = board["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 2, "{board}");
    assert_eq!(entries[0]["rank"], 1);
    assert!(entries[0]["rating"].as_f64() >= entries[1]["rating"].as_f64());
    for entry in entries {
        assert_eq!(entry["games"], 1, "{entry}");
        assert_eq!(entry["system"], "glicko2", "{entry}");
        assert!(entry["volatility"].is_f64(), "{entry}");
        assert_eq!(entry["provisional"], true);
        assert_eq!(
            entry["official_progress"],
            json!({"games": 1, "needed": 50})
        );
    }
    let profile = app.get("/bots/Alpha", None).await.expect(200);
    assert_eq!(
        profile["ratings"]["othello:std"]["rating"].as_f64(),
        Some(alpha),
        "{profile}"
    );
    let export = app
        .get(&format!("/matches/{id}/export"), None)
        .await
        .expect(200);
    let rated: Vec<&Value> = export["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "rated")
        .collect();
    assert_eq!(rated.len(), 1, "one rating change per match");
    assert_eq!(
        app.get("/leaderboard?variant=anti", None).await.expect(200)["entries"],
        json!([])
    );

    // A restart keeps the ratings and the match's record of them.
    let (dir, clock) = app.stop().await;
    let app = start_on(dir, clock, ArenaConfig::default()).await;
    assert_eq!(app.get("/leaderboard", None).await.expect(200), board);
    assert_eq!(app.snapshot(id).await["result"], end["result"]);
}

#[tokio::test]
async fn unrated_matches_move_no_rating() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    // Self-play, and a match declared unrated.
    let own = app.challenge(&alpha, "Alpha", json!({})).await;
    let end = play_out(&app, own, &alpha, &alpha).await;
    assert_eq!(end["status"], "finished");
    assert!(end["result"]["rating_applied"].is_null(), "{end}");
    let (_, beta) = app.register("Beta").await;
    let friendly = app.challenge(&alpha, "Beta", json!({"rated": false})).await;
    app.post(
        &format!("/challenges/{friendly}/accept"),
        Some(&beta),
        json!({}),
    )
    .await
    .expect(200);
    play_out(&app, friendly, &alpha, &beta).await;
    assert_eq!(
        app.get("/leaderboard", None).await.expect(200)["entries"],
        json!([])
    );
    assert_eq!(
        app.get("/bots/Alpha", None).await.expect(200)["ratings"],
        json!({})
    );
}

#[tokio::test]
async fn a_result_the_store_cannot_keep_moves_no_rating() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = std::sync::Arc::new(FlakyStore::open(&dir).await);
    let app = start_with_store(
        dir,
        arbiter_arena::ManualClock::new(T0),
        ArenaConfig::default(),
        store.clone(),
    )
    .await;
    let (id, a, _) = app.running_match().await;
    store
        .failing
        .store(true, std::sync::atomic::Ordering::SeqCst);
    app.post(&format!("/matches/{id}/resign"), Some(&a), json!({}))
        .await
        .expect_error(503, "storage_unavailable");
    assert_eq!(
        app.get("/leaderboard", None).await.expect(200)["entries"],
        json!([])
    );
    assert_eq!(app.snapshot(id).await["status"], "running");

    store
        .failing
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let end = app
        .post(&format!("/matches/{id}/resign"), Some(&a), json!({}))
        .await
        .expect(200);
    assert_eq!(end["status"], "finished", "{end}");
    let board = app.get("/leaderboard", None).await.expect(200);
    let names: Vec<&str> = board["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["bot"]["name"].as_str())
        .collect();
    assert_eq!(names, ["Beta", "Alpha"], "the resigning bot lost: {board}");
    assert!(
        board["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .all(|e| e["games"] == 1),
        "rated once: {board}"
    );
}

#[tokio::test]
async fn a_rated_match_of_three_rates_everyone_by_place() {
    let app = spawn_app().await;
    let mut tokens = Vec::new();
    for name in ["Alpha", "Beta", "Gamma"] {
        let body = json!({"name": name, "supported_variants": ["goofspiel"]});
        let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
        tokens.push(created["token"].as_str().expect("token").to_owned());
    }
    let body = json!({"opponent": ["Beta", "Gamma"], "game": "goofspiel", "variant": "short"});
    let id = app
        .post("/challenges", Some(&tokens[0]), body)
        .await
        .expect(201)["id"]
        .as_i64()
        .expect("id");
    for token in &tokens[1..] {
        app.post(&format!("/challenges/{id}/accept"), Some(token), json!({}))
            .await
            .expect(200);
    }
    // Alpha bids its lowest card, Gamma its highest and Beta one between, round after round,
    // so that the places differ.
    let mut end = app.snapshot(id).await;
    while end["status"] == "running" {
        for (i, token) in tokens.iter().enumerate() {
            for turn in app.turns(id, token).await {
                let cards = turn["request"]["legal_actions"].as_array().expect("bids");
                let bid = cards[i * (cards.len() - 1) / 2].clone();
                let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": bid});
                app.post(&format!("/matches/{id}/moves"), Some(token), body)
                    .await
                    .expect(200);
            }
        }
        end = app.snapshot(id).await;
    }
    let result = &end["result"];
    assert_eq!(end["rated"], true, "{end}");
    assert_eq!(result["rating_applied"], true, "{result}");
    assert_eq!(result["rating_before"], json!([1200.0, 1200.0, 1200.0]));
    let ranks: Vec<u64> = result["ranks"]
        .as_array()
        .expect("ranks")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let after: Vec<f64> = result["rating_after"]
        .as_array()
        .expect("ratings after")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!((ranks.len(), after.len()), (3, 3), "{result}");
    assert!(
        ranks.iter().any(|&r| r != ranks[0]),
        "the places differ: {result}"
    );
    // Everyone started equal, so a better place is a higher rating, and an equal one equal.
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(
                ranks[i].cmp(&ranks[j]).reverse(),
                after[i].total_cmp(&after[j]),
                "{result}"
            );
        }
    }
    let board = app
        .get("/leaderboard?game=goofspiel&variant=short", None)
        .await
        .expect(200);
    let entries = board["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 3, "{board}");
    assert!(entries.iter().all(|e| e["games"] == 1), "{board}");
    // Goofspiel seats up to four, so its modes are rated by Weng-Lin: a new rating's
    // uncertainty is 25/3 skill units of 28.8 points, and one game narrows everyone's.
    assert_eq!(board["system"], "weng-lin", "{board}");
    for entry in entries {
        assert_eq!(entry["system"], "weng-lin", "{entry}");
        assert!(entry.get("volatility").is_none(), "{entry}");
        let deviation = entry["deviation"].as_f64().expect("deviation");
        assert!(deviation > 200.0 && deviation < 240.0, "{entry}");
    }
}
