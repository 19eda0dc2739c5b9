//! A person at a table of a hidden-role game whose board offers forms (Fate Tokens): the
//! table started at once with house bots in its empty seats, the prompt, the draw played on
//! the table, chat and claims as free actions, the night form, votes; what the other seats
//! and spectators see of it, and never a secret.

use serde_json::{Value, json};

use super::*;

/// Text as it was before the templates (or the board's attributes) escaped it.
fn unescape(text: &str) -> String {
    text.replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&")
}

/// The value of the first `attribute="…"` after `marker` in `html`.
fn attribute_after(html: &str, marker: &str, attribute: &str) -> Option<String> {
    let rest = &html[html.find(marker)?..];
    let start = rest.find(&format!("{attribute}=\""))? + attribute.len() + 2;
    rest[start..].split('"').next().map(unescape)
}

/// Every form of the page composed from its template: its key and the template as JSON.
fn templates(html: &str) -> Vec<(String, Value, String)> {
    html.split("data-compose data-key=\"")
        .skip(1)
        .filter_map(|rest| {
            let key = rest.split('"').next()?.to_owned();
            let template = attribute_after(rest, "data-template", "data-template")?;
            let revision = attribute_after(rest, "name=\"revision\"", "value")?;
            Some((key, serde_json::from_str(&template).ok()?, revision))
        })
        .collect()
}

/// Posts `action` as the page's script does; returns the JSON answer.
async fn act(person: &Browser, id: i64, csrf: &str, revision: &str, action: &Value) -> Value {
    let action = action.to_string();
    let page = person
        .post(
            &format!("/matches/{id}/moves"),
            &[
                ("csrf", csrf),
                ("leg", "0"),
                ("revision", revision),
                ("action", &action),
            ],
        )
        .await;
    serde_json::from_str(&page.html).unwrap_or_else(|_| panic!("{}", page.html))
}

/// The time left in the phase, from the page's phase clock.
fn phase_left_ms(html: &str) -> Option<i64> {
    attribute_after(html, "class=\"phase-clock\"", "data-ms")?
        .parse()
        .ok()
}

#[tokio::test]
async fn a_person_plays_a_table_filled_with_house_bots_through_its_forms() {
    let app = spawn_running(
        arbiter_arena::ArenaConfig::default(),
        games().with(&arbiter_fate_tokens::FAMILY),
        dialects,
    )
    .await;
    let ada = Browser::new(&app);
    let csrf = ada.sign_up("ada").await;
    let opened = ada
        .post(
            "/tables",
            &[
                ("csrf", &csrf),
                ("mode", "quick"),
                ("seats", "6"),
                ("clock", "5+0"),
            ],
        )
        .await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER, "{}", opened.html);
    let path = opened.location.expect("to the match");
    let id: i64 = path.trim_start_matches("/matches/").parse().expect("an id");
    let fill = format!("/tables/{id}/fill");

    // The opener is offered the start with bots, on the tables page and the waiting match
    // page; nobody else is, and nobody else may.
    let waiting = ada.get(&path).await;
    assert!(
        waiting.html.contains(&format!("action=\"{fill}\"")),
        "{}",
        waiting.html
    );
    assert!(ada.get("/tables").await.html.contains("Start with bots"));
    let bo = Browser::new(&app);
    let bo_csrf = bo.sign_up("bo").await;
    assert!(!bo.get("/tables").await.html.contains("Start with bots"));
    assert!(!bo.get(&path).await.html.contains(&fill));
    let refused = bo.post(&fill, &[("csrf", &bo_csrf)]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.html);
    assert!(refused.html.contains("only the person who opened"));
    let no_csrf = ada.post(&fill, &[("csrf", "wrong")]).await;
    assert_eq!(no_csrf.status, StatusCode::FORBIDDEN);

    let started = ada.post(&fill, &[("csrf", &csrf)]).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    assert_eq!(started.location.as_deref(), Some(path.as_str()));
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "running", "{snapshot}");
    let names: Vec<&str> = snapshot["participants"]
        .as_array()
        .expect("participants")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names.len(), 6);
    assert_eq!(names.iter().filter(|n| **n == "house-hard").count(), 5);
    // Filling twice, or a table that has started, is refused.
    let again = ada.post(&fill, &[("csrf", &csrf)]).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.html);

    let legs = format!("/matches/{id}/legs");
    let page = ada.get(&legs).await.html;
    // One house bot in five seats: each named with its seat.
    let seats_named = (1..=6)
        .filter(|seat| page.contains(&format!("house-hard (seat {seat})")))
        .count();
    assert_eq!(seats_named, 5, "{page}");
    assert!(
        page.contains("data-prompt=\"Draw two tokens from your bag, then reveal one of them.\""),
        "{page}"
    );
    assert!(page.contains("data-bag"), "{page}");
    assert!(phase_left_ms(&page).is_some(), "{page}");

    // The draw: a reveal from the table, as the script posts it.
    let reveal = attribute_after(&page, "class=\"drawn play\"", "data-action").expect("a token");
    let play = attribute_after(&page, "class=\"board-box\"", "data-play").expect("to play");
    let revision = play.split(' ').nth(1).expect("a revision").to_owned();
    let reveal: Value = serde_json::from_str(&reveal).expect("JSON");
    assert_eq!(act(&ada, id, &csrf, &revision, &reveal).await["ok"], true);

    // Chat, a free action, is escaped everywhere and shown with its speaker.
    let (key, chat, chat_revision) = templates(&page)
        .into_iter()
        .find(|(key, _, _)| key.ends_with("-chat"))
        .expect("a chat form");
    assert_eq!(key, "1-chat");
    let mut line = chat.clone();
    line["text"] = json!("<b>hello</b> table");
    assert_eq!(
        act(&ada, id, &csrf, &chat_revision, &line).await["ok"],
        true
    );
    let watcher = Browser::new(&app);
    let seen = watcher.get(&legs).await.html;
    assert!(
        seen.contains("<strong class=\"who\">@ada</strong>: &#60;b&#62;hello&#60;/b&#62; table"),
        "{seen}"
    );
    assert!(!seen.contains("<b>hello"), "{seen}");
    // Spectators share one rendering of the fragment, each with their own CSRF value; a new
    // line makes it stale at once, on the same clock, and a seat still reads its own.
    let other = Browser::new(&app);
    let also = other.get(&legs).await.html;
    let csrf_of = |html: &str| attribute_after(html, "class=\"legs\"", "data-csrf");
    assert_ne!(csrf_of(&seen), csrf_of(&also));
    assert_eq!(
        seen.replace(&csrf_of(&seen).expect("a value"), ""),
        also.replace(&csrf_of(&also).expect("a value"), "")
    );
    line["text"] = json!("second line");
    assert_eq!(
        act(&ada, id, &csrf, &chat_revision, &line).await["ok"],
        true
    );
    for spectator in [&watcher, &other] {
        let html = spectator.get(&legs).await.html;
        assert!(html.contains("</strong>: second line"), "{html}");
        assert!(!html.contains("class=\"you\""), "{html}");
    }
    assert!(ada.get(&legs).await.html.contains("class=\"you\""));

    // The game goes on: the person answers what the page offers, the clock runs to each
    // deadline, and spectators never see a form, a draw or a secret.
    let (mut nights, mut claims, mut votes) = (0, 0, 0);
    for _ in 0..400 {
        let page = ada.get(&legs).await.html;
        let spectator = watcher.get(&legs).await.html;
        // Only a Great Misfortune's role is ever made public before the end.
        let over = spectator.contains("Good wins") || spectator.contains("Misfortune wins");
        for secret in [
            "data-compose",
            "data-bag",
            "class=\"drawn",
            "data-prompt",
            "class=\"role\">Common Fortune",
            "class=\"role\">Great Fortune",
        ] {
            if over && secret.starts_with("class=\"role") {
                continue;
            }
            assert!(!spectator.contains(secret), "{secret}: {spectator}");
        }
        if page.contains("data-open=\"false\"") {
            break;
        }
        for (key, template, revision) in templates(&page) {
            if key.ends_with("-night") {
                let answer = act(&ada, id, &csrf, &revision, &template).await;
                assert_eq!(answer["ok"], true, "{template} {answer}");
                nights += 1;
            } else if key.ends_with("-claim") {
                let answer = act(&ada, id, &csrf, &revision, &template).await;
                assert_eq!(answer["ok"], true, "{template} {answer}");
                claims += 1;
            }
        }
        if let Some(form) = page
            .split("data-act>")
            .skip(1)
            .find(|form| form.contains("Vote yes: exile"))
        {
            let vote = attribute_after(form, "name=\"action\"", "value").expect("a vote");
            let revision = attribute_after(form, "name=\"revision\"", "value").expect("a revision");
            let vote: Value = serde_json::from_str(&vote).expect("JSON");
            assert_eq!(act(&ada, id, &csrf, &revision, &vote).await["ok"], true);
            votes += 1;
        }
        let left = phase_left_ms(&page).unwrap_or(1_000);
        app.advance(left + 1).await;
        settle().await;
    }
    let end = ada.get(&legs).await.html;
    assert!(end.contains("data-open=\"false\""), "the game ended: {end}");
    assert!(nights > 0, "ada sent a night form");
    // Whether ada was ever exiled, accused or had a claim open depends on the deal; what
    // she sent was accepted.
    let _ = (claims, votes);
    let seen = watcher.get(&legs).await.html;
    assert!(
        seen.contains("Good wins") || seen.contains("Misfortune wins"),
        "{seen}"
    );
}
