//! Chess on the web pages: a guest plays a registered bot (moved here over the API) by picking
//! a piece and one of its squares, the legs fragment shows the position after the move, and a
//! Dice Chess page draws the turn's dice and the micro-moves played with them.

use arbiter_arena::ArenaConfig;
use serde_json::{Value, json};

use super::*;

/// A server that runs chess besides the families every test server runs.
async fn chess_app() -> TestApp {
    spawn_running(
        ArenaConfig::default(),
        games().with(&arbiter_chess::FAMILY),
        dialects,
    )
    .await
}

/// A guest challenges a chess bot, which accepts, to one game of `variant` with the colours
/// drawn at random; returns the guest's browser, its CSRF value, the match and the bot's
/// token.
async fn guest_plays_a_bot(app: &TestApp, variant: &str) -> (Browser, String, i64, String) {
    let body = json!({"name": "Deep", "supported_variants": ["chess:standard", "dice"]});
    let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
    let bot = created["token"].as_str().expect("token").to_owned();
    // The bot is online once it has asked the server something.
    app.get("/matches", Some(&bot)).await.expect(200);
    let guest = Browser::new(app);
    let csrf = guest.csrf().await;
    let fields = [
        ("csrf", csrf.as_str()),
        ("variant", variant),
        ("minutes", "5"),
        ("increment", "0"),
        ("colour", "random"),
    ];
    let started = guest.post("/bots/Deep/play", &fields).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    let id = match_id(&started.location.expect("to the match"));
    app.post(&format!("/challenges/{id}/accept"), Some(&bot), json!({}))
        .await
        .expect(200);
    assert_eq!(app.snapshot(id).await["status"], "running");
    (guest, csrf, id, bot)
}

/// The values of attribute `name` in `html`, in order, with `&quot;` read back.
fn attributes(html: &str, name: &str) -> Vec<String> {
    html.split(&format!(" {name}=\""))
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|value| value.replace("&quot;", "\""))
        .collect()
}

/// The `leg revision` the board takes a move at, when the visitor is to play.
fn board_turn(html: &str) -> Option<(String, String)> {
    let rest = html.split("data-play=\"").nth(1)?;
    let (leg, revision) = rest.split('"').next()?.split_once(' ')?;
    Some((leg.to_owned(), revision.to_owned()))
}

/// Posts `action` (JSON text, as a `data-action` holds it) for the visitor of `page` as the
/// page's script does; returns the status and the answer.
async fn click(browser: &Browser, csrf: &str, id: i64, page: &str, action: &str) -> (u16, Value) {
    let (leg, revision) = board_turn(page).expect("the visitor's move");
    let fields = [
        ("csrf", csrf),
        ("leg", leg.as_str()),
        ("revision", revision.as_str()),
        ("action", action),
    ];
    let answer = browser.post(&format!("/matches/{id}/moves"), &fields).await;
    let body = serde_json::from_str(&answer.html).expect("a JSON answer");
    (answer.status.as_u16(), body)
}

/// The bot plays the first legal move of each decision it has, until it has none (a Dice
/// Chess turn is several micro-moves); returns how many it played.
async fn bot_plays(app: &TestApp, id: i64, bot: &str) -> usize {
    let mut played = 0;
    while let Some(turn) = app.turns(id, bot).await.into_iter().next() {
        let mv = turn["request"]["legal_actions"][0].clone();
        assert!(mv.is_string(), "{turn}");
        let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv});
        app.post(&format!("/matches/{id}/moves"), Some(bot), body)
            .await
            .expect(200);
        played += 1;
    }
    played
}

#[tokio::test]
async fn a_guest_plays_chess_by_picking_a_piece_and_its_square() {
    let app = chess_app().await;
    let (guest, csrf, id, bot) = guest_plays_a_bot(&app, "chess:standard").await;
    // The colours were drawn: the bot opens when the guest plays Black.
    let page = guest.get(&format!("/matches/{id}")).await.html;
    let bot_white = page.contains("You play Black.");
    if bot_white {
        assert_eq!(bot_plays(&app, id, &bot).await, 1);
    }
    let colour = if bot_white { "Black" } else { "White" };

    let page = guest.get(&format!("/matches/{id}")).await.html;
    assert!(page.contains("<svg class=\"board\""), "{page}");
    assert!(page.contains(&format!("You play {colour}.")), "{page}");
    assert_eq!(page.matches("class=\"piece ").count(), 32);
    let picks = attributes(&page, "data-pick");
    assert_eq!(picks.len(), 10, "eight pawns and two knights: {picks:?}");
    let actions = attributes(&page, "data-action");
    assert_eq!(actions.len(), 20, "{actions:?}");
    let (knight, from, to) = if bot_white {
        ("\"g8f6\"", "g8", "f6")
    } else {
        ("\"g1f3\"", "g1", "f3")
    };
    assert!(actions.iter().any(|a| a == knight), "{actions:?}");
    assert!(picks.iter().any(|p| p == from));
    assert!(
        !page.contains("data-act>"),
        "every move is played on the board, none by a button under it: {page}"
    );
    let watcher = Browser::new(&app).get(&format!("/matches/{id}")).await.html;
    assert!(watcher.contains("<svg class=\"board\""));
    for attribute in ["data-pick", "data-from", "data-action", "data-play"] {
        assert!(!watcher.contains(attribute), "a spectator plays nothing");
    }

    let (status, answer) = click(&guest, &csrf, id, &page, knight).await;
    assert_eq!((status, &answer), (200, &json!({"ok": true})));
    let legs = guest.get(&format!("/matches/{id}/legs")).await.html;
    let piece = if bot_white { "black" } else { "white" };
    assert!(
        legs.contains(&format!("class=\"piece {piece}\" data-square=\"{to}\"")),
        "the knight stands on {to}: {legs}"
    );
    assert!(!legs.contains(&format!("data-square=\"{from}\"")), "{legs}");
    assert_eq!(legs.matches("class=\"last\"").count(), 2);
    assert!(
        legs.contains("<li>Nf6</li>") || legs.contains("<li>Nf3</li>"),
        "{legs}"
    );
    assert!(board_turn(&legs).is_none(), "the bot is to move");
    assert!(!legs.contains("data-pick"));
    assert!(
        legs.contains("<strong>39</strong>"),
        "the material beside the names"
    );

    // A refused move is answered, and changes nothing.
    assert_eq!(bot_plays(&app, id, &bot).await, 1);
    let page = guest.get(&format!("/matches/{id}")).await.html;
    let (status, refused) = click(&guest, &csrf, id, &page, "\"e2e5\"").await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["ok"], false);
    assert_eq!(
        board_turn(&guest.get(&format!("/matches/{id}")).await.html),
        board_turn(&page)
    );
}

#[tokio::test]
async fn a_dice_chess_page_draws_the_dice_and_the_micro_moves_played() {
    let app = chess_app().await;
    let (guest, csrf, id, bot) = guest_plays_a_bot(&app, "dice").await;
    // The bot plays its turns (if it is White) until the guest has a decision; a roll that
    // leaves no die usable passes the turn by itself.
    let mut page = String::new();
    for _ in 0..20 {
        bot_plays(&app, id, &bot).await;
        page = guest.get(&format!("/matches/{id}")).await.html;
        if board_turn(&page).is_some() {
            break;
        }
    }
    let view = app.snapshot(id).await["legs"][0]["view"].clone();
    let dice = &view["dice"];
    let rolled = dice["rolled"].as_array().map_or(0, Vec::len);
    let unused = dice["unused"].as_array().map_or(0, Vec::len);
    assert_eq!(rolled, 3, "{view}");
    assert_eq!(page.matches("class=\"die\"").count(), unused, "{page}");
    assert_eq!(page.matches("class=\"die used\"").count(), rolled - unused);
    assert!(page.contains(" dice used</text>") || page.contains(" die used</text>"));

    // The guest plays the first micro-move the board offers.
    let actions = attributes(&page, "data-action");
    let first = actions.first().expect("a micro-move on the board").clone();
    let (status, answer) = click(&guest, &csrf, id, &page, &first).await;
    assert_eq!((status, &answer), (200, &json!({"ok": true})));
    let legs = guest.get(&format!("/matches/{id}/legs")).await.html;
    let view = app.snapshot(id).await["legs"][0]["view"].clone();
    let dice = &view["dice"];
    let played = dice["played"].as_array().map_or(0, Vec::len);
    let used = dice["rolled"].as_array().map_or(0, Vec::len)
        - dice["unused"].as_array().map_or(0, Vec::len);
    // Either the guest's turn goes on, one die used, or it ended and the bot rolled.
    assert_eq!(legs.matches("class=\"played\"").count(), played, "{legs}");
    assert_eq!(legs.matches("class=\"die used\"").count(), used, "{legs}");
    let uci: String = serde_json::from_str(&first).expect("a move");
    if played > 0 {
        assert!(
            legs.contains(&format!("{}-{}<", &uci[0..2], &uci[2..4])),
            "the micro-move is listed under the dice: {legs}"
        );
    }
    assert_eq!(legs.matches("class=\"last\"").count(), 2);
}

#[tokio::test]
async fn a_draw_offer_leaves_the_replay_in_step_with_the_moves() {
    let app = chess_app().await;
    let (guest, csrf, id, bot) = guest_plays_a_bot(&app, "chess:standard").await;
    // The bot offers a draw (a free action, from whichever side); the guest declines it by
    // moving, and the bot resigns after one more move.
    let page = guest.get(&format!("/matches/{id}")).await.html;
    if page.contains("You play Black.") {
        bot_plays(&app, id, &bot).await;
    }
    let offer = json!({"leg": 0, "revision": 0, "move": {"draw": true}});
    app.post(&format!("/matches/{id}/moves"), Some(&bot), offer)
        .await
        .expect(200);
    let page = guest.get(&format!("/matches/{id}")).await.html;
    let first = attributes(&page, "data-action")
        .into_iter()
        .next()
        .expect("a move");
    let (status, _) = click(&guest, &csrf, id, &page, &first).await;
    assert_eq!(status, 200);
    assert_eq!(bot_plays(&app, id, &bot).await, 1);
    app.post(&format!("/matches/{id}/resign"), Some(&bot), json!({}))
        .await
        .expect(200);
    let finished = app.snapshot(id).await;
    assert_eq!(finished["status"], "finished", "{finished}");

    let moves = finished["legs"][0]["view"]["san"]
        .as_array()
        .expect("san")
        .len();
    let replay = guest.get(&format!("/matches/{id}/replay")).await.html;
    assert!(
        replay.contains(&format!("<strong id=\"ply\">{moves}</strong> of {moves}")),
        "one position per move, none for the offer: {replay}"
    );
    assert!(replay.contains("data-verdict>verified"), "{replay}");
}
