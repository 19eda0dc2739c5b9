//! Auto-matching, on the injected clock: offers to idle bots, the closest-rated opponent or a
//! house bot, two games at most, and the ten minutes out after an offer expires or is declined.

use serde_json::{Value, json};

use crate::helpers::*;

/// One round of auto-matching runs every five seconds.
const ROUND: i64 = 5_000;

/// The pending challenges offered to `token`'s bot.
async fn offers(app: &TestApp, token: &str) -> Vec<Value> {
    let me = app.get("/bots/me", Some(token)).await.expect(200);
    app.get("/challenges", Some(token))
        .await
        .expect(200)
        .as_array()
        .expect("list")
        .iter()
        .filter(|c| c["participants"][1]["id"] == me["id"])
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_lone_idle_bot_is_offered_a_rated_game_by_a_house_bot() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let _online = app.stream(&alpha).await;
    app.advance(ROUND).await;
    let offered = offers(&app, &alpha).await;
    assert_eq!(offered.len(), 1, "{offered:?}");
    let offer = &offered[0];
    assert_eq!(offer["participants"][0]["name"], "house-medium");
    assert_eq!(
        (offer["variant"].as_str(), offer["rated"].as_bool()),
        (Some("std"), Some(true))
    );
    let id = offer["id"].as_i64().expect("id");
    app.post(&format!("/challenges/{id}/accept"), Some(&alpha), json!({}))
        .await
        .expect(200);
    assert_eq!(app.snapshot(id).await["status"], "running");
    app.advance(ROUND).await;
    assert!(
        offers(&app, &alpha).await.is_empty(),
        "a bot in a match is not idle"
    );
}

#[tokio::test]
async fn registered_bots_meet_each_other_and_only_two_games_go_at_once() {
    let app = spawn_app().await;
    let mut streams = Vec::new();
    let mut tokens = Vec::new();
    for name in ["Alpha", "Beta", "Gamma", "Delta", "Eps", "Zeta"] {
        let (_, token) = app.register(name).await;
        streams.push(app.stream(&token).await);
        tokens.push(token);
    }
    app.advance(ROUND).await;
    let mut offered = Vec::new();
    for token in &tokens {
        offered.extend(offers(&app, token).await);
    }
    assert_eq!(offered.len(), 2, "two rooms: {offered:?}");
    for offer in &offered {
        assert_eq!(
            offer["participants"][0]["kind"], "registered",
            "a registered bot before a house bot"
        );
    }
    app.advance(ROUND).await;
    let again: usize = futures::future::join_all(tokens.iter().map(|t| offers(&app, t)))
        .await
        .iter()
        .map(Vec::len)
        .sum();
    assert_eq!(again, 2, "no more while two are pending");
}

#[tokio::test]
async fn a_bot_that_lets_an_offer_expire_or_declines_it_is_left_out_for_ten_minutes() {
    for decline in [false, true] {
        let app = spawn_app().await;
        let (_, alpha) = app.register("Alpha").await;
        let _online = app.stream(&alpha).await;
        app.advance(ROUND).await;
        let id = offers(&app, &alpha).await[0]["id"].as_i64().expect("offer");
        if decline {
            app.post(&format!("/challenges/{id}/reject"), Some(&alpha), json!({}))
                .await
                .expect(200);
        } else {
            app.advance(119_999).await;
            assert_eq!(app.snapshot(id).await["status"], "pending");
            app.advance(1).await;
            assert_eq!(app.snapshot(id).await["status"], "expired");
        }
        for _ in 0..(600_000 / ROUND - 2) {
            app.clock.advance(ROUND);
            settle().await;
        }
        assert!(
            offers(&app, &alpha).await.is_empty(),
            "decline {decline}: still left out"
        );
        app.advance(3 * ROUND).await;
        assert_eq!(
            offers(&app, &alpha).await.len(),
            1,
            "decline {decline}: offered again after ten minutes"
        );
    }
}

#[tokio::test]
async fn practising_and_switched_off_bots_are_left_out() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let (_online_a, _online_b) = (app.stream(&alpha).await, app.stream(&beta).await);
    app.post(
        "/bots/me/environment",
        Some(&alpha),
        json!({"practice": true}),
    )
    .await
    .expect(200);
    let off = app
        .post(
            "/admin/bots/Beta/auto-match",
            Some(ADMIN),
            json!({"enabled": false}),
        )
        .await
        .expect(200);
    assert_eq!(off["auto_match"], false);
    app.advance(ROUND).await;
    assert!(offers(&app, &alpha).await.is_empty());
    assert!(offers(&app, &beta).await.is_empty());
    // Switched back on, Beta is offered a game (by a house bot: Alpha is still practising).
    app.post(
        "/admin/bots/Beta/auto-match",
        Some(ADMIN),
        json!({"enabled": true}),
    )
    .await
    .expect(200);
    app.advance(ROUND).await;
    let offered = offers(&app, &beta).await;
    assert_eq!(offered.len(), 1);
    assert_eq!(offered[0]["participants"][0]["kind"], "house");
}

#[tokio::test]
async fn after_a_restart_only_bots_heard_from_since_are_online_or_offered_games() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let (_, beta) = app.register("Beta").await;
    let stream = app.stream(&alpha).await;
    drop(stream);
    let (dir, clock) = app.stop().await;
    clock.advance(1_000); // a short outage: Alpha's stream closed a second before the start
    let app = start_on(dir, clock, arbiter_arena::ArenaConfig::default()).await;

    let online = |bots: &Value, name: &str| {
        bots.as_array()
            .expect("list")
            .iter()
            .find(|b| b["name"] == name)
            .map(|b| b["online"].clone())
    };
    let bots = app.get("/bots", None).await.expect(200);
    assert_eq!(online(&bots, "Alpha"), Some(json!(false)), "{bots}");
    assert_eq!(online(&bots, "Beta"), Some(json!(false)), "{bots}");
    assert_eq!(online(&bots, "house-medium"), Some(json!(true)));

    app.advance(ROUND).await;
    assert!(offers(&app, &alpha).await.is_empty(), "Alpha was not here");
    assert!(offers(&app, &beta).await.is_empty(), "Beta was not here");

    // Once heard from (the calls above), both count as online and are matched.
    let bots = app.get("/bots", None).await.expect(200);
    assert_eq!(online(&bots, "Alpha"), Some(json!(true)), "{bots}");
    app.advance(ROUND).await;
    let offered = offers(&app, &alpha).await.len() + offers(&app, &beta).await.len();
    assert_eq!(offered, 1, "one game between the two");
}
