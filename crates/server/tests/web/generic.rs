//! A game whose family draws no board: its match page shows the viewer's view and the leg's
//! public events, and nothing a seat keeps secret.

use serde_json::{Value, json};

use super::*;

/// Registers two Goofspiel bots and starts a short match between them; returns the match and
/// both tokens.
async fn goofspiel_match(app: &TestApp) -> (i64, String, String) {
    let mut tokens = Vec::new();
    for name in ["Ann", "Bob"] {
        let body = json!({"name": name, "supported_variants": ["short"]});
        let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
        tokens.push(created["token"].as_str().expect("token").to_owned());
    }
    let id = app
        .challenge(
            &tokens[0],
            "Bob",
            json!({"game": "goofspiel", "variant": "short", "rated": false}),
        )
        .await;
    app.post(
        &format!("/challenges/{id}/accept"),
        Some(&tokens[1]),
        json!({}),
    )
    .await
    .expect(200);
    let bob = tokens.pop().expect("Bob");
    let ann = tokens.pop().expect("Ann");
    (id, ann, bob)
}

/// Participant `participant` bids the highest card it holds in leg 0, read from a
/// spectator's snapshot (hands are public); returns the card and the bidder's seat.
async fn bid_high(app: &TestApp, id: i64, token: &str, participant: usize) -> (u64, usize) {
    let snapshot = app.snapshot(id).await;
    let leg = &snapshot["legs"][0];
    let first = usize::try_from(leg["first_seat_participant"].as_u64().expect("first seat"))
        .expect("a participant");
    let seat = (participant + 2 - first) % 2;
    let view = &leg["view"];
    let card = view["hands"][seat]
        .as_array()
        .and_then(|hand| hand.iter().filter_map(Value::as_u64).max())
        .expect("a card in hand");
    let action = json!({"round": view["round"], "card": card});
    let body = json!({"leg": 0, "revision": leg["revision"], "move": action});
    app.post(&format!("/matches/{id}/moves"), Some(token), body)
        .await
        .expect(200);
    (card, seat)
}

/// The text of the `<dd>` after the `<dt>` named `name` in the first leg.
pub(super) fn field<'a>(html: &'a str, name: &str) -> &'a str {
    let start = html
        .find(&format!("<dt>{name}</dt>"))
        .unwrap_or_else(|| panic!("no field {name}: {html}"));
    let rest = &html[start..];
    let dd = rest.find("<dd>").expect("a value") + "<dd>".len();
    let end = rest.find("</dd>").expect("its end");
    &rest[dd..end]
}

#[tokio::test]
async fn a_goofspiel_page_shows_the_view_and_events_and_no_hidden_bid() {
    let app = spawn_app().await;
    let (id, ann, bob) = goofspiel_match(&app).await;
    let browser = Browser::new(&app);
    let page = browser.get(&format!("/matches/{id}")).await;
    assert_eq!(page.status, StatusCode::OK);
    for text in [
        "<dl class=\"view\"",
        "<dt>prize</dt>",
        "<dt>scores</dt>",
        // Lists with one entry per seat are labelled with the participants' names.
        "<span class=\"label\">Ann</span>",
        "<span class=\"label\">Bob</span>",
        "goofspiel short",
    ] {
        assert!(page.html.contains(text), "{text}: {}", page.html);
    }
    assert!(!page.html.contains("<svg class=\"board\""), "no board");

    // Ann bids during the round: a spectator learns that she bid, never what.
    let (card, seat) = bid_high(&app, id, &ann, 0).await;
    let committed = format!("committed: round 1, seat {seat}");
    let during = browser.get(&format!("/matches/{id}")).await;
    assert!(
        during.html.contains(&committed),
        "the public event is listed: {}",
        during.html
    );
    assert_eq!(field(&during.html, "own bid"), "—", "{}", during.html);
    for secret in [format!("card {card}"), "secrets".to_owned()] {
        assert!(!during.html.contains(&secret), "{secret}: {}", during.html);
    }
    // The fragment the script swaps in is drawn the same way.
    let legs = browser.get(&format!("/matches/{id}/legs")).await;
    assert!(legs.html.contains(&committed));
    assert!(
        !legs.html.contains(&format!("card {card}")),
        "{}",
        legs.html
    );

    // Once both have bid, the round is revealed and the page shows both bids.
    let (other, _) = bid_high(&app, id, &bob, 1).await;
    let revealed = browser.get(&format!("/matches/{id}")).await;
    // Bids are listed in seat order.
    let bids = if seat == 0 {
        format!("bids [{card}, {other}]")
    } else {
        format!("bids [{other}, {card}]")
    };
    assert!(revealed.html.contains("revealed: "), "{}", revealed.html);
    assert!(revealed.html.contains(&bids), "{bids}: {}", revealed.html);
}

#[tokio::test]
async fn lists_of_matches_name_goofspiel_players_and_the_game() {
    let app = spawn_app().await;
    let (id, ann, _bob) = goofspiel_match(&app).await;
    let browser = Browser::new(&app);
    let home = browser.get("/").await;
    assert!(home.html.contains(&format!("data-mini=\"{id}\"")));
    assert!(home.html.contains("Ann – Bob"), "{}", home.html);
    app.post(&format!("/matches/{id}/resign"), Some(&ann), json!({}))
        .await
        .expect(200);
    let page = browser.get("/bots/Ann").await;
    assert!(page.html.contains(&format!("#{id}")), "{}", page.html);
    assert!(page.html.contains("goofspiel short"), "{}", page.html);
    let replay = browser.get(&format!("/matches/{id}/replay")).await;
    assert_eq!(replay.status, StatusCode::OK, "{}", replay.html);
    assert!(
        replay.html.contains("<dl class=\"view\""),
        "{}",
        replay.html
    );
}

#[tokio::test]
async fn a_board_that_draws_a_table_keeps_the_chat_beside_it() {
    let app = spawn_running(
        arbiter_arena::ArenaConfig::default(),
        games().with(&arbiter_fate_tokens::FAMILY),
        dialects,
    )
    .await;
    let body = json!({"name": "Ann", "supported_variants": ["fate-tokens"]});
    let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
    let ann = created["token"].as_str().expect("token").to_owned();
    let challenge = json!({"opponent": ["house-random", "house-greedy", "house-easy"],
        "game": "fate-tokens", "variant": "quick"});
    let id = app
        .post("/challenges", Some(&ann), challenge)
        .await
        .expect(201)["id"]
        .as_i64()
        .expect("a match");
    let revision = app.snapshot(id).await["legs"][0]["revision"].clone();
    let chat = json!({"type": "chat", "channel": "everyone", "text": "hello table"});
    let body = json!({"leg": 0, "revision": revision, "move": chat});
    app.post(&format!("/matches/{id}/moves"), Some(&ann), body)
        .await
        .expect(200);
    let page = Browser::new(&app).get(&format!("/matches/{id}")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.html.contains("<svg"), "the table is drawn");
    assert!(page.html.contains("hello table"), "and the chat is listed");
}
