//! Gomoku on the web pages: its board with the points a person may take as buttons, a stone
//! played by posting a point as the page's script does, Renju's forbidden points marked and
//! refused, the replay stepping through the stones, and a game against a house bot to its end.

use serde_json::{Value, json};

use super::*;

/// Registers a bot that plays every Gomoku variant; returns its token.
async fn gomoku_bot(app: &TestApp, name: &str) -> String {
    let body = json!({"name": name, "supported_variants": ["gomoku"]});
    let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
    created["token"].as_str().expect("token").to_owned()
}

/// The actions of the board's buttons, in the order the page draws them (row by row).
fn board_buttons(html: &str) -> Vec<Value> {
    html.split("class=\"play\" data-action=\"")
        .skip(1)
        .map(|rest| {
            let action = rest.split('"').next().unwrap_or_default();
            serde_json::from_str(&action.replace("&quot;", "\"")).expect("the action's JSON")
        })
        .collect()
}

/// The `leg revision` the board takes a move at, when the visitor is to play.
fn board_turn(html: &str) -> Option<(String, String)> {
    let rest = html.split("data-play=\"").nth(1)?;
    let (leg, revision) = rest.split('"').next()?.split_once(' ')?;
    Some((leg.to_owned(), revision.to_owned()))
}

/// Where the board draws point (`x`, `y`): the numbers its circles carry.
fn centre(x: u32, y: u32) -> String {
    format!("cx=\"{}\" cy=\"{}\"", 13 + 10 * x, 13 + 10 * y)
}

/// Posts `action` for the visitor of `page` as the page's script does (asking for JSON);
/// returns the status and the answer.
async fn click(browser: &Browser, csrf: &str, id: i64, page: &str, action: &Value) -> (u16, Value) {
    let (leg, revision) = board_turn(page).expect("the visitor's move");
    let action = action.to_string();
    let fields = [
        ("csrf", csrf),
        ("leg", leg.as_str()),
        ("revision", revision.as_str()),
        ("action", action.as_str()),
    ];
    let answer = browser.post(&format!("/matches/{id}/moves"), &fields).await;
    let body = serde_json::from_str(&answer.html).expect("a JSON answer");
    (answer.status.as_u16(), body)
}

/// Places a stone for `token` in its one pending decision of match `id`.
async fn bot_places(app: &TestApp, id: i64, token: &str, x: u8, y: u8) {
    let turn = app.turns(id, token).await.remove(0);
    let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": {"x": x, "y": y}});
    app.post(&format!("/matches/{id}/moves"), Some(token), body)
        .await
        .expect(200);
}

/// A person `name` signs up and opens a two-seat freestyle Gomoku table on a 5+0 clock;
/// returns the person's browser, its CSRF value and the table's match id.
pub(super) async fn open_freestyle_table(app: &TestApp, name: &str) -> (Browser, String, i64) {
    let person = Browser::new(app);
    let csrf = person.sign_up(name).await;
    let fields = [
        ("csrf", csrf.as_str()),
        ("mode", "freestyle"),
        ("seats", "2"),
        ("clock", "5+0"),
    ];
    let opened = person.post("/tables", &fields).await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER, "{}", opened.html);
    let id = match_id(&opened.location.expect("to the match"));
    (person, csrf, id)
}

#[tokio::test]
async fn a_person_at_a_gomoku_table_plays_a_stone_on_the_board() {
    let app = spawn_app().await;
    let (person, csrf, id) = open_freestyle_table(&app, "ada").await;
    let bot = gomoku_bot(&app, "Tengen").await;
    app.post(&format!("/tables/{id}/join"), Some(&bot), json!({}))
        .await
        .expect(200);
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "running", "{snapshot}");
    // The table's opener is participant 0; the bot answers first if it sits first.
    let bot_first = snapshot["legs"][0]["first_seat_participant"] == 1;
    if bot_first {
        bot_places(&app, id, &bot, 7, 7).await;
    }

    let page = person.get(&format!("/matches/{id}")).await;
    let html = &page.html;
    assert!(html.contains("<svg class=\"board\""), "{html}");
    let seat = if bot_first { "White" } else { "Black" };
    assert!(html.contains(&format!("You play {seat}.")), "{html}");
    let buttons = board_buttons(html);
    let stones = usize::from(bot_first);
    assert_eq!(buttons.len(), 225 - stones, "every empty point is a button");
    assert_eq!(buttons[0], json!({"x": 0, "y": 0}));
    assert!(
        !html.contains("data-act>"),
        "stones are played on the board, not by buttons under it: {html}"
    );
    let watcher = Browser::new(&app).get(&format!("/matches/{id}")).await;
    assert!(
        board_buttons(&watcher.html).is_empty(),
        "a spectator plays nothing"
    );

    let (status, answer) = click(&person, &csrf, id, html, &json!({"x": 3, "y": 4})).await;
    assert_eq!((status, &answer), (200, &json!({"ok": true})));
    let after = person.get(&format!("/matches/{id}")).await.html;
    let colour = if bot_first { "white" } else { "black" };
    assert!(
        after.contains(&format!(
            "<circle {} r=\"4.6\" fill=\"{}\"",
            centre(3, 4),
            if bot_first { "#f5f5f5" } else { "#111" }
        )),
        "the {colour} stone is drawn: {after}"
    );
    assert!(
        after.contains(&format!("<circle {} r=\"5\" fill=\"none\"", centre(3, 4))),
        "the last move is ringed: {after}"
    );
    assert_eq!(after.matches("class=\"last\"").count(), 1);
    assert!(
        after.contains("<li>3,4</li>"),
        "the move is listed: {after}"
    );
    assert!(board_turn(&after).is_none(), "the bot is to move");
    assert!(board_buttons(&after).is_empty());
}

#[tokio::test]
async fn a_renju_page_marks_and_refuses_blacks_forbidden_point_and_replays_the_stones() {
    let app = spawn_app().await;
    let bot = gomoku_bot(&app, "Tengen").await;
    let person = Browser::new(&app);
    let csrf = person.sign_up("ada").await;
    // The bot is online once it has asked the server something.
    app.get("/matches", Some(&bot)).await.expect(200);
    let fields = [
        ("csrf", csrf.as_str()),
        ("variant", "renju"),
        ("minutes", "5"),
        ("increment", "0"),
        ("colour", "black"),
    ];
    let started = person.post("/bots/Tengen/play", &fields).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    let id = match_id(&started.location.expect("to the match"));
    app.post(&format!("/challenges/{id}/accept"), Some(&bot), json!({}))
        .await
        .expect(200);

    // Black builds two open threes meeting at (7, 7); the bot plays far away.
    for ((x, y), (wx, wy)) in [
        ((5, 7), (0, 0)),
        ((6, 7), (0, 2)),
        ((7, 8), (0, 4)),
        ((7, 9), (0, 6)),
    ] {
        let page = person.get(&format!("/matches/{id}")).await.html;
        let (status, answer) = click(&person, &csrf, id, &page, &json!({"x": x, "y": y})).await;
        assert_eq!(status, 200, "{answer}");
        bot_places(&app, id, &bot, wx, wy).await;
    }
    let page = person.get(&format!("/matches/{id}")).await.html;
    assert!(page.contains("You play Black."), "{page}");
    assert_eq!(
        page.matches("class=\"forbidden\"").count(),
        1,
        "one forbidden point: {page}"
    );
    assert!(
        page.contains("<path d=\"M81 81L85 85M81 85L85 81\" stroke=\"#d32f2f\""),
        "the cross is on (7, 7): {page}"
    );
    let buttons = board_buttons(&page);
    assert!(
        !buttons.contains(&json!({"x": 7, "y": 7})),
        "no button there"
    );
    assert_eq!(buttons.len(), 225 - 8 - 1);
    let (status, refused) = click(&person, &csrf, id, &page, &json!({"x": 7, "y": 7})).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["ok"], false);
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("a double three is forbidden to Black")),
        "the rules' reason: {refused}"
    );
    // Nothing changed: the person is still to move at the same revision.
    let again = person.get(&format!("/matches/{id}")).await.html;
    assert_eq!(board_turn(&again), board_turn(&page));

    app.post(&format!("/matches/{id}/resign"), Some(&bot), json!({}))
        .await
        .expect(200);
    // The replay steps through the stones, numbered in order, the last one ringed.
    let cases = [(0, 0, None), (3, 3, Some((6, 7))), (8, 8, Some((0, 6)))];
    for (ply, stones, last) in cases {
        let replay = person.get(&format!("/matches/{id}/replay?ply={ply}")).await;
        assert_eq!(replay.status, StatusCode::OK, "{}", replay.html);
        let html = &replay.html;
        assert!(
            html.contains(&format!(
                "After move <strong id=\"ply\">{ply}</strong> of 8"
            )),
            "{html}"
        );
        assert_eq!(html.matches("class=\"stone ").count(), stones, "{ply}");
        assert_eq!(html.matches("class=\"number\"").count(), stones, "{ply}");
        match last {
            Some((x, y)) => assert!(
                html.contains(&format!("<circle {} r=\"5\" fill=\"none\"", centre(x, y))),
                "{ply}: {html}"
            ),
            None => assert!(!html.contains("class=\"last\""), "{html}"),
        }
        assert!(
            html.contains("<a href=\"?leg=0&amp;ply=1\""),
            "the moves link"
        );
        assert!(
            html.contains(">5,7</a>") && html.contains(">0,6</a>"),
            "{html}"
        );
    }
}

#[tokio::test]
async fn a_person_plays_gomoku_against_a_house_bot_to_the_end() {
    let app = spawn_app().await;
    let person = Browser::new(&app);
    let csrf = person.sign_up("ada").await;
    let fields = [
        ("csrf", csrf.as_str()),
        ("variant", "freestyle"),
        ("minutes", "5"),
        ("increment", "0"),
        ("colour", "black"),
    ];
    let started = person.post("/bots/house-random/play", &fields).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    let id = match_id(&started.location.expect("to the match"));
    let mut played = 0;
    for _ in 0..2_000 {
        if app.snapshot(id).await["status"] != "running" {
            break;
        }
        let page = person.get(&format!("/matches/{id}")).await.html;
        if board_turn(&page).is_none() {
            settle().await;
            continue;
        }
        // The first point the board offers: the person fills the top rows from the left.
        let point = board_buttons(&page).remove(0);
        let (status, answer) = click(&person, &csrf, id, &page, &point).await;
        assert_eq!(status, 200, "{answer}");
        played += 1;
    }
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "finished", "{snapshot}");
    let reason = &snapshot["result"]["reason"];
    assert!(
        ["five", "full_board"].contains(&reason.as_str().unwrap_or_default()),
        "{snapshot}"
    );
    let end = person.get(&format!("/matches/{id}")).await.html;
    assert!(board_buttons(&end).is_empty() && board_turn(&end).is_none());
    let stones = snapshot["legs"][0]["view"]["history"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(
        played >= 5 && stones >= 2 * played - 1,
        "{played} of {stones}"
    );
    // A finished board numbers its stones.
    assert_eq!(end.matches("class=\"number\"").count(), stones, "{end}");
}
