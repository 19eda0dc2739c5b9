//! Bot talk in live matches: a person at a table of house bots asks one about its private
//! pile, and its answer appears in the match; a wording service injected by the test sees
//! only what the talk seam gives it; a failing one leaves the bots silent; the
//! administrator's kill switch silences them at once. Everything waits on the injected clock
//! and on the match's own tasks, never on real time passing.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex, PoisonError};

use arbiter_arena::{
    ArenaConfig, Bot, ChallengeRequest, Clock, Format, Opening, Silence, TimeControl, Wording,
};
use arbiter_fate_tokens::talk::Talk;
use arbiter_plugin::{Examples, Remark, TableTalk, Voice, Worded};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{ADMIN, TestApp, dialects, games, settle, spawn_running};

/// What a fake wording service was asked: the remark and who says it.
#[derive(Clone, Debug)]
struct Asked {
    remark: Remark,
    name: String,
    examples: usize,
}

/// A wording service that records what it is given and says the remark marked as its own,
/// or always fails.
#[derive(Debug, Default)]
struct FakeWording {
    fail: bool,
    asked: Mutex<Vec<Asked>>,
}

impl FakeWording {
    fn asked(&self) -> Vec<Asked> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Wording for FakeWording {
    fn word<'a>(&'a self, remark: &'a Remark, voice: Voice<'a>, examples: Examples) -> Worded<'a> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Asked {
                remark: remark.clone(),
                name: voice.name.to_owned(),
                examples: examples.pairs.len(),
            });
        let said = if self.fail {
            Err(Silence::AiFailed)
        } else {
            Ok(format!("(fake) {}", remark.text))
        };
        Box::pin(std::future::ready(said))
    }

    fn describe(&self) -> String {
        "fake · test".to_owned()
    }
}

/// A server running Fate Tokens with `wording`.
async fn server(wording: Arc<dyn Wording>) -> TestApp {
    let config = ArenaConfig {
        talk: wording,
        ..ArenaConfig::default()
    };
    spawn_running(config, games().with(&arbiter_fate_tokens::FAMILY), dialects).await
}

/// A guest person at a quick four-seat table with three house bots (`house-easy` in the
/// second seat); returns the person and the match.
async fn table(app: &TestApp) -> (Bot, i64) {
    let (person, _) = app
        .arena
        .new_guest(IpAddr::V4(Ipv4Addr::LOCALHOST))
        .await
        .expect("a guest");
    let request = ChallengeRequest {
        opponent: "house-easy".to_owned(),
        game: "fate-tokens".to_owned(),
        variant: Some("quick".to_owned()),
        format: Format::Single,
        time_control: TimeControl {
            initial_ms: 600_000,
            ..TimeControl::default()
        },
        rated: false,
        auto: false,
        opening: Opening::Random,
        client_seed: None,
    };
    let more = ["house-medium".to_owned(), "house-hard".to_owned()];
    let summary = app
        .arena
        .challenge_several(&person, request, &more)
        .await
        .expect("house bots accept at once");
    settle().await;
    (person, summary.id)
}

/// The first leg's view as spectators see it.
async fn view(app: &TestApp, id: i64) -> Value {
    app.snapshot(id).await["legs"][0]["view"].clone()
}

/// Moves the clock a second at a time until the table talks: the discussion, opened.
async fn until_discussion(app: &TestApp, id: i64) {
    for _ in 0..300 {
        let view = view(app, id).await;
        let open = view["opens_at_ms"]
            .as_i64()
            .is_some_and(|at| at <= app.clock.now_ms());
        if view["phase"] == "discussion" && open {
            return;
        }
        app.advance(1_000).await;
    }
    panic!("the discussion never came: {}", view(app, id).await);
}

/// The public chat as `(seat, text)`.
async fn chat(app: &TestApp, id: i64) -> Vec<(Option<i64>, String)> {
    view(app, id).await["everyone_chat"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|line| {
            (
                line["seat"].as_i64(),
                line["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The person says `text` to the table; returns how many lines the chat had before.
async fn say(app: &TestApp, person: &Bot, id: i64, text: &str) -> usize {
    let before = chat(app, id).await.len();
    app.arena
        .submit(person, id, 0, 0, Talk.chat_action(text))
        .await
        .expect("a chat line is a free action");
    before
}

/// The first line a seat other than the person's said after the `from`-th, letting the
/// match's tasks run (a bounded number of times) until one comes. The bound is generous
/// (about ten seconds of scheduling) because a loaded machine may take a while to run the
/// remark's blocking task and the wording task; the clock never moves meanwhile.
async fn bot_line_after(app: &TestApp, id: i64, from: usize, seat: i64) -> Option<String> {
    for _ in 0..500 {
        let lines = chat(app, id).await;
        if let Some((_, text)) = lines.iter().skip(from + 1).find(|(s, _)| *s == Some(seat)) {
            return Some(text.clone());
        }
        settle().await;
    }
    None
}

/// Lines said by house seats (every seat but the person's, 0) after the `from`-th.
async fn bot_lines_after(app: &TestApp, id: i64, from: usize) -> Vec<String> {
    chat(app, id)
        .await
        .into_iter()
        .skip(from + 1)
        .filter(|(seat, _)| seat.is_some_and(|s| s != 0))
        .map(|(_, text)| text)
        .collect()
}

/// The match's public events as text, as a spectator reads them.
async fn events(app: &TestApp, id: i64) -> String {
    app.get(&format!("/matches/{id}/events?since=0&wait=0"), None)
        .await
        .expect(200)
        .to_string()
}

#[tokio::test]
async fn a_house_bot_answers_a_question_about_its_pile_at_once() {
    let app = server(Arc::new(arbiter_arena::TemplateWording)).await;
    let (person, id) = table(&app).await;
    until_discussion(&app, id).await;
    let asked = say(
        &app,
        &person,
        id,
        "house-easy, what did you keep in your pile?",
    )
    .await;
    let answer = bot_line_after(&app, id, asked, 1)
        .await
        .expect("house-easy answers without the clock moving");
    assert!(answer.contains("pile"), "{answer}");
    assert!(events(&app, id).await.contains(&answer), "a public event");

    // A suspicion is denied, naming the person.
    let suspected = say(&app, &person, id, "house-easy is suspicious").await;
    let denial = bot_line_after(&app, id, suspected, 1)
        .await
        .expect("house-easy denies it");
    assert!(denial.contains("isn't me"), "{denial}");
}

#[tokio::test]
async fn the_wording_service_sees_only_what_the_seam_gives_it() {
    let fake = Arc::new(FakeWording::default());
    let app = server(fake.clone()).await;
    let (person, id) = table(&app).await;
    until_discussion(&app, id).await;
    let question = "house-easy, what did you keep in your pile?";
    let asked = say(&app, &person, id, question).await;
    let answer = bot_line_after(&app, id, asked, 1)
        .await
        .expect("house-easy answers");
    assert!(answer.starts_with("(fake) "), "{answer}");

    let asked = fake.asked();
    let answer = asked
        .iter()
        .find(|a| a.remark.kind == "private_answer")
        .expect("the answer went through the wording service");
    assert_eq!(answer.name, "house-easy");
    assert_eq!(answer.examples, 10);
    let last = answer.remark.recent.last().expect("the question");
    assert_eq!(last.text, question);
    assert!(last.speaker.starts_with("guest-"), "{}", last.speaker);
    // Whatever any seat was asked to word, its context is the public chat and its own lines.
    let public: Vec<String> = chat(&app, id).await.into_iter().map(|(_, t)| t).collect();
    for a in &asked {
        assert!(a.remark.recent.len() <= arbiter_plugin::RECENT_LIMIT);
        assert!(a.remark.own.len() <= arbiter_plugin::OWN_LIMIT);
        for entry in &a.remark.recent {
            assert!(public.contains(&entry.text), "{entry:?} is not public");
        }
        for own in &a.remark.own {
            assert!(public.contains(own), "{own:?} is not public");
        }
    }
}

#[tokio::test]
async fn a_failing_provider_leaves_the_bots_silent() {
    let fake = Arc::new(FakeWording {
        fail: true,
        ..FakeWording::default()
    });
    let app = server(fake.clone()).await;
    let (person, id) = table(&app).await;
    until_discussion(&app, id).await;
    let asked = say(
        &app,
        &person,
        id,
        "house-easy, what did you keep in your pile?",
    )
    .await;
    for _ in 0..4 {
        settle().await;
        app.advance(4_000).await;
    }
    assert!(
        fake.asked()
            .iter()
            .any(|a| a.remark.kind == "private_answer"),
        "the provider was asked"
    );
    assert_eq!(bot_lines_after(&app, id, asked).await, Vec::<String>::new());
}

/// The match page as a spectator reads it.
async fn page(app: &TestApp, id: i64) -> String {
    let path = format!("/matches/{id}");
    app.call_root(Method::GET, &path, &[], None).await.text
}

#[tokio::test]
async fn the_administrator_switches_talk_off_and_on_without_a_restart() {
    let app = server(Arc::new(arbiter_arena::TemplateWording)).await;
    let (person, id) = table(&app).await;
    assert!(page(&app, id).await.contains("Bots talk through template"));

    let state = app.get("/admin/talk", Some(ADMIN)).await.expect(200);
    assert_eq!(state, json!({"enabled": true, "provider": "template"}));
    app.call(
        Method::PUT,
        "/admin/talk",
        None,
        Some(json!({"enabled": false})),
    )
    .await
    .expect_error(401, "invalid_token");
    let off = app
        .call(
            Method::PUT,
            "/admin/talk",
            Some(ADMIN),
            Some(json!({"enabled": false})),
        )
        .await
        .expect(200);
    assert_eq!(off, json!({"enabled": false, "provider": "off"}));
    assert!(page(&app, id).await.contains("Bot talk is off"));

    until_discussion(&app, id).await;
    let asked = say(
        &app,
        &person,
        id,
        "house-easy, what did you keep in your pile?",
    )
    .await;
    for _ in 0..3 {
        settle().await;
        app.advance(2_000).await;
    }
    assert_eq!(bot_lines_after(&app, id, asked).await, Vec::<String>::new());

    app.call(
        Method::PUT,
        "/admin/talk",
        Some(ADMIN),
        Some(json!({"enabled": true})),
    )
    .await
    .expect(200);
    let asked = say(&app, &person, id, "house-easy, tell me about your pile").await;
    let answer = bot_line_after(&app, id, asked, 1)
        .await
        .expect("talk is back on");
    assert!(answer.contains("pile"), "{answer}");
}
