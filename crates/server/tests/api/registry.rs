//! What the server takes from the games it runs rather than from any game it knows: the
//! default game and variant, the variants of house bots, and the game FlipSight's dialect
//! serves.

use std::sync::Arc;

use arbiter_arena::{ArenaConfig, Family, Games, ManualClock};
use arbiter_server::Dialects;
use arbiter_store_sqlite::SqliteStore;
use serde_json::{Value, json};

use crate::helpers::*;

/// Goofspiel without its house player, so that house bots do not play it.
fn goofspiel_without_house() -> &'static Family {
    let family = &arbiter_goofspiel::FAMILY;
    Box::leak(Box::new(Family {
        rules: family.rules,
        setup: family.setup,
        codec: family.codec,
        decisions: family.decisions,
        clock: family.clock,
        house: None,
        board: family.board,
        points: family.points,
        line: family.line,
        talk: family.talk,
        record: family.record,
    }))
}

/// A server running `games`, speaking the dialects `dialects` gives.
async fn serve(games: Games, dialects: fn(&Games) -> Dialects) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("arbiter.db"))
        .await
        .expect("store");
    let clock = ManualClock::new(T0);
    start_running(
        dir,
        clock,
        ArenaConfig::default(),
        Arc::new(store),
        games,
        dialects,
    )
    .await
}

#[tokio::test]
async fn defaults_are_the_first_registered_game_s() {
    let games = Games::new()
        .with(goofspiel_without_house())
        .with(&arbiter_othello_plugin::FAMILY);
    let app = serve(games, |_| Dialects::none()).await;
    // A bot registered without variants plays the default mode's.
    let plain = app
        .post("/admin/bots", Some(ADMIN), json!({"name": "Plain"}))
        .await
        .expect(201);
    assert_eq!(plain["bot"]["supported_variants"], json!(["standard"]));
    let token = plain["token"].as_str().expect("token");
    // House bots play every variant of the games with a house player, and only those.
    let house = app.get("/bots/house-random", None).await.expect(200);
    assert_eq!(
        house["supported_variants"],
        json!(["std", "anti", "grand", "octagon", "reversi"])
    );
    // A challenge naming no game is for the default game, in its default variant.
    let id = app.challenge(token, "Plain", json!({})).await;
    let snapshot = app.snapshot(id).await;
    assert_eq!(
        (&snapshot["game"], &snapshot["variant"]),
        (&json!("goofspiel"), &json!("standard")),
        "{snapshot}"
    );
    // The leaderboard's game defaults to the default game, and its variant to the game's.
    let table = [
        ("", "goofspiel:standard"),
        ("?variant=short", "goofspiel:short"),
        ("?game=othello", "othello:std"),
        ("?game=othello&variant=anti", "othello:anti"),
    ];
    for (query, mode) in table {
        let board = app
            .get(&format!("/leaderboard{query}"), None)
            .await
            .expect(200);
        assert_eq!(board["mode"], mode, "{query}");
    }
    app.get("/leaderboard?game=chess", None)
        .await
        .expect_error(400, "invalid_request");
}

#[tokio::test]
async fn flipsight_s_routes_do_not_exist_without_a_game_to_serve() {
    let app = serve(games(), |_| Dialects::none()).await;
    let (_, token) = app.register("Alpha").await;
    let origin = app.base.trim_end_matches("/api/v1").to_owned();
    let action = app
        .client
        .post(format!("{origin}/flipsight/bot_match_api.php"))
        .bearer_auth(&token)
        .body(json!({"action": "agent_poll"}).to_string())
        .send()
        .await
        .expect("request");
    let stream = app
        .client
        .get(format!("{origin}/flipsight_api/bot-stream"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("request");
    for response in [action, stream] {
        assert_eq!(response.status().as_u16(), 404);
        let body: Value = response.json().await.expect("FlipSight's JSON shape");
        assert_eq!(
            body,
            json!({"ok": false, "error": "not found", "server_now_ms": T0})
        );
    }
    // The native API is there all the same.
    app.get("/bots/me", Some(&token)).await.expect(200);
}

#[test]
fn flipsight_serves_only_a_game_the_server_runs() {
    let games = games();
    let served = Dialects::none()
        .with_flipsight(&games, "othello")
        .expect("a registered game");
    assert_eq!(served.flipsight().map(Family::id), Some("othello"));
    assert!(Dialects::none().flipsight().is_none());
    let refused = Dialects::none()
        .with_flipsight(&games, "chess")
        .expect_err("an unknown game");
    assert_eq!(
        refused.to_string(),
        "FlipSight's dialect cannot serve \"chess\": this server runs othello, goofspiel, gomoku"
    );
}
