//! People at open tables and in games without a board: opening and joining tables from the
//! pages, playing through the action buttons a match page offers, and seeing one's own seat's
//! view and never another's.

use serde_json::{Value, json};

use super::generic::field;
use super::*;

/// Registers a bot that plays Goofspiel's `short` variant; returns its token.
async fn goofspiel_bot(app: &TestApp, name: &str) -> String {
    let body = json!({"name": name, "supported_variants": ["short"]});
    let created = app.post("/admin/bots", Some(ADMIN), body).await.expect(201);
    created["token"].as_str().expect("token").to_owned()
}

/// Text as it was before the templates escaped it.
fn unescape(text: &str) -> String {
    text.replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&")
}

/// One action button of a match page: the fields its form posts, and its label.
#[derive(Clone, Debug)]
struct ActionForm {
    fields: Vec<(String, String)>,
    label: String,
}

impl ActionForm {
    fn value(&self, name: &str) -> &str {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| panic!("no field {name}: {self:?}"), |(_, v)| v.as_str())
    }

    /// The action the button posts, as JSON.
    fn action(&self) -> Value {
        serde_json::from_str(self.value("action")).expect("the action is JSON text")
    }
}

/// The action buttons of match `id`'s page.
fn action_forms(html: &str, id: i64) -> Vec<ActionForm> {
    let start = format!("<form method=\"post\" action=\"/matches/{id}/moves\" data-act>");
    html.split(&start)
        .skip(1)
        .map(|rest| {
            let form = rest.split("</form>").next().unwrap_or_default();
            let fields = form
                .split("<input type=\"hidden\" name=\"")
                .skip(1)
                .filter_map(|input| {
                    let (name, rest) = input.split_once("\" value=\"")?;
                    Some((name.to_owned(), unescape(rest.split('"').next()?)))
                })
                .collect();
            let label = form
                .split("<button type=\"submit\">")
                .nth(1)
                .and_then(|button| button.split("</button>").next())
                .map(unescape)
                .unwrap_or_default();
            ActionForm { fields, label }
        })
        .collect()
}

/// Each bot in `tokens` plays the first legal action of each of its pending decisions in
/// match `id`; returns the actions played.
async fn bots_act(app: &TestApp, id: i64, tokens: &[String]) -> Vec<Value> {
    let mut played = Vec::new();
    for token in tokens {
        for turn in app.turns(id, token).await {
            // A match with a person is a room only to FlipSight's protocol: the generic
            // request names the match as the API does.
            assert_eq!(turn["request"]["match_id"], id, "{turn}");
            let action = turn["request"]["legal_actions"][0].clone();
            let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": action});
            app.post(&format!("/matches/{id}/moves"), Some(token), body)
                .await
                .expect(200);
            played.push(action);
        }
    }
    played
}

#[tokio::test]
async fn a_person_opens_a_goofspiel_table_and_plays_it_out_against_two_bots() {
    let app = spawn_app().await;
    let person = Browser::new(&app);
    let csrf = person.sign_up("ada").await;
    let home = person.get("/").await;
    assert!(home.html.contains("href=\"/tables\""), "{}", home.html);
    let empty = person.get("/tables").await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(
        empty.html.contains("No table is open now"),
        "{}",
        empty.html
    );
    assert!(
        empty
            .html
            .contains("<option value=\"short\">goofspiel short (2–4 seats)</option>"),
        "{}",
        empty.html
    );
    let open = |seats: &'static str, mode: &'static str, clock: &'static str| {
        [
            ("csrf", csrf.clone()),
            ("mode", mode.to_owned()),
            ("seats", seats.to_owned()),
            ("clock", clock.to_owned()),
        ]
    };
    let post = |fields: [(&'static str, String); 4]| {
        let person = &person;
        async move {
            let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            person.post("/tables", &fields).await
        }
    };
    // Refusals are shown on the tables page, with why.
    let too_many = post(open("3", "std", "5+0")).await;
    assert_eq!(too_many.status, StatusCode::CONFLICT);
    assert!(
        too_many.html.contains("is not played by 3"),
        "{}",
        too_many.html
    );
    let no_clock = post(open("3", "short", "7+7")).await;
    assert_eq!(no_clock.status, StatusCode::BAD_REQUEST);
    assert!(no_clock.html.contains("choose one of the clocks offered"));

    let opened = post(open("3", "short", "3+2")).await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER, "{}", opened.html);
    let id = match_id(&opened.location.expect("to the match"));
    let watcher = Browser::new(&app);
    let listed = watcher.get("/tables").await;
    for text in [
        format!("<a href=\"/matches/{id}\">#{id}</a>"),
        "goofspiel short".to_owned(),
        "1/3".to_owned(),
        "@ada".to_owned(),
        "3 min + 2 s".to_owned(),
        format!("action=\"/tables/{id}/join\""),
    ] {
        assert!(listed.html.contains(&text), "{text}: {}", listed.html);
    }
    let own = person.get("/tables").await;
    assert!(own.html.contains("You are seated"), "{}", own.html);
    assert!(!own.html.contains(&format!("action=\"/tables/{id}/join\"")));

    // Two bots sit down over the API; the match starts with the last seat.
    let bots = [
        goofspiel_bot(&app, "Ann").await,
        goofspiel_bot(&app, "Bob").await,
    ];
    app.post(&format!("/tables/{id}/join"), Some(&bots[0]), json!({}))
        .await
        .expect(200);
    let listed = watcher.get("/tables").await;
    assert!(
        listed.html.contains("2/3") && listed.html.contains("@ada, Ann"),
        "{}",
        listed.html
    );
    let waiting = person.get(&format!("/matches/{id}")).await;
    assert!(action_forms(&waiting.html, id).is_empty(), "not started");
    assert!(
        waiting
            .html
            .contains("Waiting for players: 2 of 3 seats taken."),
        "{}",
        waiting.html
    );
    app.post(&format!("/tables/{id}/join"), Some(&bots[1]), json!({}))
        .await
        .expect(200);
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "running", "{snapshot}");
    assert_eq!(snapshot["participants"].as_array().map(Vec::len), Some(3));
    assert!(
        !watcher
            .get("/tables")
            .await
            .html
            .contains(&format!("#{id}<")),
        "a full table is no longer listed"
    );

    // Every participant is named on the match page.
    let page = person.get(&format!("/matches/{id}")).await;
    assert!(
        page.html
            .contains("@ada – <a href=\"/bots/Ann\">Ann</a> – <a href=\"/bots/Bob\">Bob</a></h1>"),
        "{}",
        page.html
    );
    assert!(page.html.contains("You play Seat"), "{}", page.html);
    // The person's choices are the cards of their own hand, each labelled in the family's
    // notation.
    let forms = action_forms(&page.html, id);
    assert_eq!(forms.len(), 5, "{}", page.html);
    for form in &forms {
        let action = form.action();
        assert_eq!(action["round"], 1, "{action}");
        assert_eq!(form.label, format!("bid {}", action["card"]));
        assert_eq!(form.value("leg"), "0");
        assert_eq!(form.value("csrf"), csrf);
    }
    let cards: Vec<u64> = forms
        .iter()
        .filter_map(|f| f.action()["card"].as_u64())
        .collect();
    assert_eq!(cards, [1, 2, 3, 4, 5]);
    // Someone watching has no choices.
    let watched = watcher.get(&format!("/matches/{id}")).await;
    assert!(!watched.html.contains("data-act"), "{}", watched.html);

    // The person bids their highest card with its button, as a browser without the script
    // posts it, and is sent back to the match.
    let highest = forms.last().expect("a card").clone();
    let sent = person
        .submit(&format!("/matches/{id}/moves"), &highest.fields)
        .await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.html);
    assert_eq!(
        sent.location.as_deref(),
        Some(format!("/matches/{id}").as_str())
    );
    let card = highest.action()["card"].to_string();
    let mine = person.get(&format!("/matches/{id}")).await;
    assert_eq!(field(&mine.html, "own bid"), card, "{}", mine.html);
    assert!(
        action_forms(&mine.html, id).is_empty(),
        "nothing more to decide this round"
    );
    assert_eq!(field(&watched.html, "own bid"), "—");
    assert_eq!(
        field(
            &watcher.get(&format!("/matches/{id}")).await.html,
            "own bid"
        ),
        "—",
        "a spectator never sees a bid before the reveal"
    );

    // Ann bids her lowest card: the person's page still shows their own bid alone, and
    // nothing of hers but that she bid, until the round is revealed.
    let ann = bots_act(&app, id, &bots[..1]).await;
    assert_eq!(ann.len(), 1);
    assert_ne!(ann[0]["card"].to_string(), card);
    for path in [format!("/matches/{id}"), format!("/matches/{id}/legs")] {
        let mine = person.get(&path).await;
        assert_eq!(field(&mine.html, "own bid"), card, "{path}: {}", mine.html);
        for secret in ["secrets", "revealed: ", "bids ["] {
            assert!(
                !mine.html.contains(secret),
                "{path}: {secret}: {}",
                mine.html
            );
        }
    }
    // Bob's bid completes the round, which everyone then sees.
    bots_act(&app, id, &bots[1..]).await;
    for browser in [&person, &watcher] {
        let after = browser.get(&format!("/matches/{id}")).await;
        assert!(after.html.contains("revealed: "), "{}", after.html);
    }

    // The rest of the game: the person through the page's buttons, the bots over the API.
    let mut bids = 1;
    for _ in 0..100 {
        if app.snapshot(id).await["status"] != "running" {
            break;
        }
        let page = person.get(&format!("/matches/{id}")).await;
        if let Some(form) = action_forms(&page.html, id).into_iter().next() {
            let sent = person
                .submit(&format!("/matches/{id}/moves"), &form.fields)
                .await;
            assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.html);
            bids += 1;
        }
        bots_act(&app, id, &bots).await;
        settle().await;
    }
    let finished = app.snapshot(id).await;
    assert_eq!(finished["status"], "finished", "{finished}");
    assert_eq!(bids, 5, "one bid a round");
    assert!(
        finished["legs"][0]["view"]["hands"]
            .as_array()
            .expect("hands")
            .iter()
            .all(|hand| hand.as_array().is_some_and(Vec::is_empty)),
        "every card was played: {finished}"
    );
    let over = person.get(&format!("/matches/{id}")).await;
    assert!(over.html.contains("data-open=\"false\""));
    assert!(action_forms(&over.html, id).is_empty());
}

#[tokio::test]
async fn a_guest_sits_down_at_a_table_a_bot_opened() {
    let app = spawn_app().await;
    let ann = goofspiel_bot(&app, "Ann").await;
    let bob = goofspiel_bot(&app, "Bob").await;
    let body = json!({"game": "goofspiel", "variant": "short", "seats": 3});
    let table = app.post("/tables", Some(&ann), body).await.expect(201);
    let id = table["id"].as_i64().expect("id");
    let join = format!("/tables/{id}/join");

    let guest = Browser::new(&app);
    let listing = guest.get("/tables").await;
    assert!(
        listing.html.contains("1/3") && listing.html.contains("Ann"),
        "{}",
        listing.html
    );
    assert!(listing.html.contains("Sit down"));
    assert!(listing.html.contains("unrated"), "{}", listing.html);
    // The list alone, which the page fetches again, says the same and tells its version.
    let fragment = guest.get("/tables/list").await;
    assert!(
        fragment.html.contains("data-signature=\"") && fragment.html.contains("1/3"),
        "{}",
        fragment.html
    );
    assert!(
        !fragment.html.contains("<html"),
        "a fragment: {}",
        fragment.html
    );
    let signature_of = |html: &str| {
        html.split("data-signature=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(str::to_owned)
    };
    let before = signature_of(&fragment.html);
    let csrf = hidden(&listing.html, "csrf").expect("a CSRF field");
    let forged = guest.post(&join, &[("csrf", "forged")]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert_eq!(
        app.snapshot(id).await["participants"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    let sat = guest.post(&join, &[("csrf", &csrf)]).await;
    assert_eq!(sat.status, StatusCode::SEE_OTHER, "{}", sat.html);
    assert_eq!(
        sat.location.as_deref(),
        Some(format!("/matches/{id}").as_str())
    );
    assert!(
        sat.cookies.iter().any(|c| c.starts_with("arbiter_guest=")),
        "the guest is named by a cookie"
    );
    let snapshot = app.snapshot(id).await;
    let seated = &snapshot["participants"][1];
    assert!(
        seated["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("@guest-")),
        "{snapshot}"
    );
    assert_eq!(seated["kind"], "human");
    assert_eq!(snapshot["status"], "pending", "one seat is still free");
    let after = guest.get("/tables/list").await;
    assert!(after.html.contains("2/3"), "{}", after.html);
    assert_ne!(
        signature_of(&after.html),
        before,
        "a seat taken changes the list"
    );

    // The same guest cannot take a second seat.
    let again = guest.post(&join, &[("csrf", &csrf)]).await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert!(
        again.html.contains("already has a seat at this table"),
        "{}",
        again.html
    );
    assert!(guest.get("/tables").await.html.contains("You are seated"));

    // Bob takes the last seat; the guest plays from the match page.
    app.post(&join, Some(&bob), json!({})).await.expect(200);
    assert_eq!(app.snapshot(id).await["status"], "running");
    // The match leaves the lobby and is listed for spectators, under its game alone.
    assert!(
        !guest
            .get("/tables/list")
            .await
            .html
            .contains(&format!("#{id}"))
    );
    let watch = Browser::new(&app);
    for (path, listed) in [
        ("/watch", true),
        ("/watch?game=goofspiel", true),
        ("/watch?game=othello", false),
        ("/watch/list?game=goofspiel", true),
    ] {
        let page = watch.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert_eq!(
            page.html.contains(&format!("href=\"/matches/{id}\"")),
            listed,
            "{path}: {}",
            page.html
        );
    }
    assert_eq!(
        watch.get("/watch?game=nonesuch").await.status,
        StatusCode::NOT_FOUND
    );
    let page = guest.get(&format!("/matches/{id}")).await;
    assert!(page.html.contains("You play Seat"), "{}", page.html);
    assert_eq!(action_forms(&page.html, id).len(), 5, "{}", page.html);

    // Anyone else finds the table full, and an unknown table is not found.
    let late = Browser::new(&app);
    let late_csrf = late.csrf().await;
    let full = late.post(&join, &[("csrf", &late_csrf)]).await;
    assert_eq!(full.status, StatusCode::CONFLICT, "{}", full.html);
    assert!(
        full.html.contains("That table is full or no longer open."),
        "{}",
        full.html
    );
    let unknown = late.post("/tables/999/join", &[("csrf", &late_csrf)]).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_person_challenges_a_house_bot_to_goofspiel_from_its_page() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let page = browser.get("/bots/house-greedy").await;
    let default = page
        .html
        .find("<option value=\"std\">othello std</option>")
        .expect("the default mode is offered");
    let short = page
        .html
        .find("<option value=\"short\">goofspiel short</option>")
        .expect("Goofspiel is offered");
    assert!(default < short, "the default mode comes first");

    let fields = [
        ("csrf", csrf.as_str()),
        ("variant", "short"),
        ("minutes", "5"),
        ("increment", "0"),
        ("colour", "random"),
    ];
    let started = browser.post("/bots/house-greedy/play", &fields).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    let id = match_id(&started.location.expect("to the match"));
    let snapshot = app.snapshot(id).await;
    assert_eq!(
        (&snapshot["game"], &snapshot["variant"]),
        (&json!("goofspiel"), &json!("short"))
    );
    assert_eq!(snapshot["status"], "running", "a house bot starts at once");
    assert_eq!(snapshot["rated"], false);
    assert_eq!(snapshot["legs"].as_array().map(Vec::len), Some(1));

    // The person bids through the page while the house bot bids on its own.
    let mut bids = 0;
    for _ in 0..2_000 {
        if app.snapshot(id).await["status"] != "running" {
            break;
        }
        let page = browser.get(&format!("/matches/{id}")).await;
        match action_forms(&page.html, id).into_iter().next() {
            Some(form) => {
                let sent = browser
                    .submit(&format!("/matches/{id}/moves"), &form.fields)
                    .await;
                assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.html);
                bids += 1;
            }
            None => settle().await,
        }
    }
    let finished = app.snapshot(id).await;
    assert_eq!(finished["status"], "finished", "{finished}");
    assert_eq!(bids, 5, "one bid a round");
}

#[tokio::test]
async fn a_refused_action_is_a_page_for_a_browser_and_json_for_the_script() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let fields = [
        ("csrf", csrf.as_str()),
        ("variant", "short"),
        ("minutes", "5"),
        ("increment", "0"),
    ];
    let started = browser.post("/bots/house-random/play", &fields).await;
    let id = match_id(&started.location.expect("to the match"));
    let page = browser.get(&format!("/matches/{id}")).await;
    let form = action_forms(&page.html, id)
        .into_iter()
        .next()
        .expect("the person bids first");
    let with_action = |action: &str| -> Vec<(String, String)> {
        form.fields
            .iter()
            .map(|(k, v)| {
                let v = if k == "action" {
                    action.to_owned()
                } else {
                    v.clone()
                };
                (k.clone(), v)
            })
            .collect()
    };
    let path = format!("/matches/{id}/moves");
    // A card nobody holds is refused by the rules; text that is not JSON is refused before.
    let illegal = browser
        .submit(&path, &with_action(r#"{"card":99,"round":1}"#))
        .await;
    assert_eq!(illegal.status, StatusCode::CONFLICT, "{}", illegal.html);
    assert!(
        illegal.html.contains("<!doctype html>"),
        "a page: {}",
        illegal.html
    );
    let garbled = browser.submit(&path, &with_action("card 3")).await;
    assert_eq!(garbled.status, StatusCode::BAD_REQUEST);
    assert!(garbled.html.contains("not JSON text"), "{}", garbled.html);
    // The script asks for JSON and gets it, refusals included.
    let scripted = browser
        .client
        .post(format!("{}{path}", browser.origin))
        .header("accept", "application/json")
        .form(&with_action("card 3"))
        .send()
        .await
        .expect("POST");
    assert_eq!(scripted.status(), StatusCode::BAD_REQUEST);
    let answer: Value = scripted.json().await.expect("JSON");
    assert_eq!(answer["ok"], false);
    assert!(
        answer["error"]
            .as_str()
            .is_some_and(|e| e.contains("not JSON text"))
    );
    let played = browser
        .client
        .post(format!("{}{path}", browser.origin))
        .header("accept", "application/json")
        .form(&form.fields)
        .send()
        .await
        .expect("POST");
    assert_eq!(played.status(), StatusCode::OK);
    assert_eq!(
        played.json::<Value>().await.expect("JSON"),
        json!({"ok": true})
    );
}
