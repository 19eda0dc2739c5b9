//! The web pages over real HTTP, as a browser without scripts uses them: a cookie jar per
//! visitor, forms posted with the CSRF value the page carried, and pictures uploaded as files.

use std::io::Cursor;

use reqwest::multipart::{Form, Part};
use reqwest::{Client, StatusCode};

#[allow(dead_code)]
#[path = "../api/helpers.rs"]
mod helpers;

use helpers::*;

mod errors;

/// One browser: its own cookies, not following redirects so that tests see them.
struct Browser {
    client: Client,
    origin: String,
}

/// A page as it arrived.
struct Page {
    status: StatusCode,
    location: Option<String>,
    cache_control: Option<String>,
    /// The `Set-Cookie` headers.
    cookies: Vec<String>,
    html: String,
}

impl Browser {
    fn new(app: &TestApp) -> Browser {
        Browser {
            client: Client::builder()
                .cookie_store(true)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            origin: app.base.trim_end_matches("/api/v1").to_owned(),
        }
    }

    async fn read(response: reqwest::Response) -> Page {
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let (location, cache_control) = (header("location"), header("cache-control"));
        let cookies = response
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_owned))
            .collect();
        Page {
            status: response.status(),
            location,
            cache_control,
            cookies,
            html: response.text().await.expect("body"),
        }
    }

    async fn get(&self, path: &str) -> Page {
        let response = self
            .client
            .get(format!("{}{path}", self.origin))
            .send()
            .await
            .expect("GET");
        Browser::read(response).await
    }

    async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let response = self
            .client
            .post(format!("{}{path}", self.origin))
            .form(fields)
            .send()
            .await
            .expect("POST");
        Browser::read(response).await
    }

    async fn upload(&self, path: &str, form: Form) -> Page {
        let response = self
            .client
            .post(format!("{}{path}", self.origin))
            .multipart(form)
            .send()
            .await
            .expect("POST");
        Browser::read(response).await
    }

    /// The CSRF value the pages give this browser.
    async fn csrf(&self) -> String {
        let page = self.get("/signin").await;
        hidden(&page.html, "csrf").expect("a CSRF field")
    }

    /// Signs up and returns the CSRF value.
    async fn sign_up(&self, name: &str) -> String {
        let csrf = self.csrf().await;
        let page = self
            .post(
                "/signup",
                &[
                    ("name", name),
                    ("password", "correct horse"),
                    ("csrf", &csrf),
                ],
            )
            .await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.html);
        csrf
    }

    /// Registers a bot with the given picture; returns the registration's answer.
    async fn register(&self, csrf: &str, name: &str, photo: Option<(Vec<u8>, &str)>) -> Page {
        let mut form = Form::new()
            .text("csrf", csrf.to_owned())
            .text("name", name.to_owned())
            .text("variant", "std")
            .text("variant", "anti");
        if let Some((bytes, file)) = photo {
            form = form.part("photo", Part::bytes(bytes).file_name(file.to_owned()));
        }
        self.upload("/my/bots", form).await
    }
}

/// The value of the hidden or read-only input named or identified `name`.
fn hidden(html: &str, name: &str) -> Option<String> {
    for marker in [
        format!("name=\"{name}\" value=\""),
        format!("id=\"{name}\" readonly value=\""),
    ] {
        if let Some(start) = html.find(&marker) {
            let rest = &html[start + marker.len()..];
            return rest.split('"').next().map(str::to_owned);
        }
    }
    None
}

fn picture(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb8(image)
        .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
        .expect("png");
    bytes
}

#[tokio::test]
async fn a_newcomer_signs_up_registers_a_bot_and_sees_its_token_once() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let mine = browser.get("/my/bots").await;
    assert_eq!(mine.status, StatusCode::OK);
    assert!(mine.html.contains("Register a bot"));
    assert!(
        mine.html.contains(&format!("--server {}", browser.origin)),
        "the connector's command names this server"
    );
    assert!(
        mine.html.contains("name=\"variant\" value=\"std\" checked"),
        "std is pre-checked"
    );

    let registered = browser
        .register(&csrf, "Flippy", Some((picture(200, 200), "me.png")))
        .await;
    assert_eq!(
        registered.status,
        StatusCode::SEE_OTHER,
        "{}",
        registered.html
    );
    let location = registered.location.expect("to the token page");
    assert!(
        !location.contains("arbb_"),
        "the token is never in an address"
    );
    let shown = browser.get(&location).await;
    assert_eq!(shown.cache_control.as_deref(), Some("no-store"));
    let token = hidden(&shown.html, "token").expect("the token, shown now");
    assert!(token.starts_with("arbb_"), "{token}");
    // The token works for the bot API, and is shown no more.
    let me = app.get("/bots/me", Some(&token)).await.expect(200);
    assert_eq!(me["name"], "Flippy");
    // FlipSight's poll names the account behind the bot and the bot's picture.
    let polled: serde_json::Value = app
        .client
        .post(format!("{}/flipsight/bot_match_api.php", browser.origin))
        .bearer_auth(&token)
        .body(r#"{"action":"agent_poll"}"#)
        .send()
        .await
        .expect("poll")
        .json()
        .await
        .expect("json");
    assert_eq!(polled["bot"]["owner_name"], "ada");
    assert_eq!(polled["me"], polled["bot"]["owner_id"]);
    let photo = polled["bot"]["photo"].as_str().expect("photo");
    assert!(photo.starts_with("/bots/Flippy/photo?v="), "{photo}");
    let again = browser.get(&location).await;
    assert!(hidden(&again.html, "token").is_none());
    assert!(again.html.contains("shown once and is gone"));

    // The bot is listed with its picture, offline until it connects.
    let listed = browser.get("/bots").await;
    assert!(listed.html.contains("href=\"/bots/Flippy\""));
    let photo = browser.get("/bots/Flippy/photo").await;
    assert_eq!(photo.status, StatusCode::OK);
    // A request made it online for a while; once that has passed it is offline until it
    // connects.
    app.advance(11_000).await;
    let profile = browser.get("/bots/Flippy").await;
    assert!(profile.html.contains("title=\"offline\""));
    let _online = app.stream(&token).await;
    let profile = browser.get("/bots/Flippy").await;
    assert!(profile.html.contains("title=\"online\""));
    assert!(
        profile.html.contains("Manage Flippy"),
        "its owner manages it"
    );

    // A second visitor sees the bot but neither its token nor its manage menu.
    let stranger = Browser::new(&app);
    let seen = stranger.get("/bots/Flippy").await;
    assert!(!seen.html.contains("Manage Flippy"));
    assert!(!seen.html.contains(&token));
    assert!(hidden(&stranger.get(&location).await.html, "token").is_none());
}

#[tokio::test]
async fn forms_without_the_visitors_csrf_value_are_refused() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let other = Browser::new(&app).csrf().await;
    for sent in ["", "forged", other.as_str()] {
        let page = browser
            .post(
                "/signup",
                &[
                    ("name", "bob"),
                    ("password", "correct horse"),
                    ("csrf", sent),
                ],
            )
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{sent:?}");
        assert!(page.html.contains("invalid csrf"));
        let page = browser.register(sent, "Forged", None).await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{sent:?}");
    }
    assert!(app.arena.find_bot("Forged").is_err(), "nothing was created");
    // Signing out needs it too.
    assert_eq!(
        browser.post("/signout", &[("csrf", "forged")]).await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(browser.get("/my/bots").await.status, StatusCode::OK);
    let out = browser.post("/signout", &[("csrf", &csrf)]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert_eq!(
        browser.get("/my/bots").await.location.as_deref(),
        Some("/signin")
    );
}

#[tokio::test]
async fn sign_in_checks_the_password_and_slows_down_guessing() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    browser.sign_up("ada").await;
    let guesser = Browser::new(&app);
    let csrf = guesser.csrf().await;
    for _ in 0..5 {
        let page = guesser
            .post(
                "/signin",
                &[
                    ("name", "ada"),
                    ("password", "wrong guess"),
                    ("csrf", &csrf),
                ],
            )
            .await;
        assert_eq!(page.status, StatusCode::UNAUTHORIZED);
        assert!(page.html.contains("wrong name or password"));
    }
    // An unknown name fails the same way.
    let unknown = guesser
        .post(
            "/signin",
            &[
                ("name", "nobody"),
                ("password", "wrong guess"),
                ("csrf", &csrf),
            ],
        )
        .await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    assert!(unknown.html.contains("wrong name or password"));
    let right = [
        ("name", "ada"),
        ("password", "correct horse"),
        ("csrf", csrf.as_str()),
    ];
    let limited = guesser.post("/signin", &right).await;
    assert_eq!(
        limited.status,
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password"
    );
    app.advance(15 * 60_000).await;
    let signed_in = guesser.post("/signin", &right).await;
    assert_eq!(signed_in.status, StatusCode::SEE_OTHER);
    assert_eq!(guesser.get("/my/bots").await.status, StatusCode::OK);
}

#[tokio::test]
async fn pictures_are_checked_before_anything_is_created() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let too_big = {
        let mut bytes = picture(200, 200);
        bytes.resize(6 * 1024 * 1024, 0);
        bytes
    };
    let cases = [
        (picture(100, 100), "small.png", "at least 175×175"),
        (too_big, "big.png", "larger than 5 MB"),
        (b"hello, I am text".to_vec(), "text.png", "GIF, JPEG or PNG"),
    ];
    for (bytes, file, reason) in cases {
        let page = browser.register(&csrf, "Flippy", Some((bytes, file))).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{file}");
        assert!(page.html.contains(reason), "{file}: {}", page.html);
        assert!(
            page.html.contains("value=\"Flippy\""),
            "the form keeps what was typed"
        );
        assert!(
            app.arena.find_bot("Flippy").is_err(),
            "{file}: no bot was created"
        );
    }
}

#[tokio::test]
async fn owners_manage_their_bots_and_nobody_else_can() {
    let app = spawn_app().await;
    let owner = Browser::new(&app);
    let csrf = owner.sign_up("ada").await;
    let registered = owner.register(&csrf, "Flippy", None).await;
    let first = hidden(
        &owner
            .get(&registered.location.expect("token page"))
            .await
            .html,
        "token",
    )
    .expect("token");

    // A new token replaces the old one at once.
    let rotated = owner.post("/bots/Flippy/token", &[("csrf", &csrf)]).await;
    let second = hidden(
        &owner.get(&rotated.location.expect("token page")).await.html,
        "token",
    )
    .expect("token");
    assert_ne!(first, second);
    app.get("/bots/me", Some(&first)).await.expect(401);
    app.get("/bots/me", Some(&second)).await.expect(200);

    let manage = |path: &'static str, fields: Vec<(&'static str, &'static str)>| {
        let mut fields = fields;
        fields.push(("csrf", csrf.as_str()));
        let owner = &owner;
        async move { owner.post(path, &fields).await }
    };
    let saved = manage(
        "/bots/Flippy/variants",
        vec![("variant", "std"), ("variant", "grand")],
    )
    .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let bot = app.arena.find_bot("Flippy").expect("bot");
    assert_eq!(bot.profile.supported_variants, ["std", "grand"]);
    let none = manage("/bots/Flippy/variants", vec![]).await;
    assert_eq!(none.status, StatusCode::BAD_REQUEST);
    assert!(none.html.contains("at least one variant"));
    manage("/bots/Flippy/auto-match", vec![("on", "false")]).await;
    manage("/bots/Flippy/concurrency", vec![("concurrency", "3")]).await;
    let bot = app.arena.find_bot("Flippy").expect("bot");
    assert!(bot.profile.auto_match_off);
    assert_eq!(bot.profile.concurrency, Some(3));
    assert_eq!(
        manage("/bots/Flippy/concurrency", vec![("concurrency", "99")])
            .await
            .status,
        StatusCode::BAD_REQUEST
    );

    // While a match is pending, the games it plays stay as they are.
    let (_, rival) = app.register("Rival").await;
    app.challenge(&rival, "Flippy", serde_json::json!({})).await;
    let refused = manage("/bots/Flippy/variants", vec![("variant", "std")]).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);

    // Another account can change nothing.
    let stranger = Browser::new(&app);
    let theirs = stranger.sign_up("eve").await;
    for path in [
        "/bots/Flippy/token",
        "/bots/Flippy/disable",
        "/bots/Flippy/delete",
    ] {
        let page = stranger
            .post(path, &[("csrf", &theirs), ("on", "true")])
            .await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}");
    }
    app.get("/bots/me", Some(&second)).await.expect(200);

    manage("/bots/Flippy/disable", vec![("on", "true")]).await;
    app.get("/bots/me", Some(&second)).await.expect(401);
    let deleted = manage("/bots/Flippy/delete", vec![]).await;
    assert_eq!(deleted.location.as_deref(), Some("/my/bots"));
    assert_eq!(
        owner.get("/bots/Flippy").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_home_page_and_leaderboards_list_matches_and_ratings() {
    let app = spawn_app().await;
    let (id, alpha, _beta) = app.running_match().await;
    let browser = Browser::new(&app);
    let home = browser.get("/").await;
    assert!(
        home.html.contains(&format!("#{id}")),
        "the running match is listed"
    );
    app.post(
        &format!("/matches/{id}/resign"),
        Some(&alpha),
        serde_json::json!({}),
    )
    .await
    .expect(200);
    let home = browser.get("/").await;
    assert!(home.html.contains("Recent results"));
    assert!(home.html.contains("resign"), "{}", home.html);
    assert!(home.html.contains("Beta wins"), "the winner by name");
    let board = browser.get("/leaderboard?variant=std").await;
    assert_eq!(board.status, StatusCode::OK);
    assert!(board.html.contains("aria-current=\"page\">Othello"));
    assert_eq!(
        browser.get("/leaderboard?variant=chess").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn what_bots_report_is_shown_as_text() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    let script = "<script>alert('x')</script>";
    app.post(
        "/bots/me/environment",
        Some(&token),
        serde_json::json!({"engine": script, "cpu": "\"><img src=x onerror=alert(1)>"}),
    )
    .await
    .expect(200);
    let browser = Browser::new(&app);
    for path in ["/bots", "/bots/Alpha"] {
        let page = browser.get(path).await;
        assert!(!page.html.contains("<script>alert"), "{path}");
        assert!(!page.html.contains("<img src=x"), "{path}");
        assert!(
            page.html.contains("&#60;script&#62;alert"),
            "{path}: shown, escaped"
        );
    }
}

#[tokio::test]
async fn a_bot_owner_challenges_a_house_bot_then_watches_and_replays_the_match() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let registered = browser.register(&csrf, "Flippy", None).await;
    let token = hidden(
        &browser
            .get(&registered.location.expect("token page"))
            .await
            .html,
        "token",
    )
    .expect("token");

    let house = browser.get("/bots/house-greedy").await;
    assert!(
        house.html.contains("value=\"Flippy anti\""),
        "games both play are offered"
    );
    assert!(
        !house.html.contains("value=\"Flippy grand\""),
        "Flippy does not play grand"
    );
    let challenged = browser
        .post(
            "/bots/house-greedy/challenge",
            &[("csrf", &csrf), ("pair", "Flippy std")],
        )
        .await;
    let location = challenged.location.expect("to the match");
    let id: i64 = location
        .trim_start_matches("/matches/")
        .parse()
        .expect("a match id");

    let live = browser.get(&location).await;
    assert_eq!(live.status, StatusCode::OK);
    assert_eq!(
        live.html.matches("<svg class=\"board\"").count(),
        2,
        "both legs"
    );
    assert!(live.html.contains("data-open=\"true\""));
    assert!(
        live.html.contains("class=\"clock running\""),
        "a clock runs"
    );
    assert!(
        live.html.contains("class=\"hint\""),
        "legal moves are marked"
    );

    // Flippy plays its first legal move each time until the match ends.
    for _ in 0..1_000 {
        if app.snapshot(id).await["status"] != "running" {
            break;
        }
        if app.play_first_moves(id, &token).await.is_empty() {
            settle().await;
        }
    }
    let finished = app.snapshot(id).await;
    assert_eq!(finished["status"], "finished");
    let legs = browser.get(&format!("/matches/{id}/legs")).await;
    assert!(legs.html.contains("data-open=\"false\""));
    assert!(
        !legs.html.contains("class=\"hint\""),
        "no hints once it is over"
    );

    // The replay steps from the opening to the final position of each leg.
    for leg in 0..2 {
        let view = &finished["legs"][leg]["view"];
        let played = view["history"].as_array().expect("history").len();
        let end = browser
            .get(&format!("/matches/{id}/replay?leg={leg}"))
            .await;
        assert!(
            end.html
                .contains(&format!("<strong id=\"ply\">{played}</strong> of {played}")),
            "{}",
            end.html
        );
        let discs = format!(
            "Board: {} black, {} white",
            view["discs"][0], view["discs"][1]
        );
        assert!(end.html.contains(&discs), "leg {leg}: the final position");
        let start = browser
            .get(&format!("/matches/{id}/replay?leg={leg}&ply=0"))
            .await;
        let label = start
            .html
            .split("aria-label=\"Board: ")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a board");
        let counts: Vec<u32> = label
            .split(", ")
            .filter_map(|part| part.split(' ').next()?.parse().ok())
            .collect();
        assert_eq!(counts.iter().sum::<u32>(), 12, "a 12-disc opening: {label}");
        assert!(start.html.contains("data-key=\"ArrowRight\""));
    }
    assert_eq!(
        browser
            .get(&format!("/matches/{id}/replay?leg=2"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        browser.get("/matches/999").await.status,
        StatusCode::NOT_FOUND
    );
}

/// The match a `/matches/{id}` address names.
fn match_id(location: &str) -> i64 {
    location
        .trim_start_matches("/matches/")
        .parse()
        .expect("a match id")
}

/// Plays, as the person behind `browser`, the first legal move whenever it is their turn in
/// the one-leg match `id`, until the match is over; returns how many moves they sent.
async fn play_out(app: &TestApp, browser: &Browser, csrf: &str, id: i64, person: usize) -> usize {
    let mut sent = 0;
    for _ in 0..2_000 {
        let snapshot = app.snapshot(id).await;
        if snapshot["status"] != "running" {
            return sent;
        }
        let leg = &snapshot["legs"][0];
        if leg["to_move"].as_u64() != Some(person as u64) {
            settle().await;
            continue;
        }
        let square = leg["view"]["legal_moves"][0].to_string();
        let revision = leg["revision"].to_string();
        let reply = browser
            .post(
                &format!("/matches/{id}/moves"),
                &[
                    ("csrf", csrf),
                    ("leg", "0"),
                    ("revision", &revision),
                    ("square", &square),
                ],
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.html);
        sent += 1;
    }
    panic!("the match did not end");
}

#[tokio::test]
async fn a_person_plays_a_house_bot_to_the_end_from_the_match_page() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let house = browser.get("/bots/house-greedy").await;
    assert!(house.html.contains("Play house-greedy yourself"));
    let play = [
        ("csrf", csrf.as_str()),
        ("variant", "std"),
        ("minutes", "5"),
        ("increment", "2"),
    ];
    let started = browser.post("/bots/house-greedy/play", &play).await;
    let id = match_id(&started.location.expect("to the match"));

    let page = browser.get(&format!("/matches/{id}")).await;
    assert!(page.html.contains("You play Black"), "{}", page.html);
    assert!(
        page.html.contains("@ada") && !page.html.contains("href=\"/bots/@ada\""),
        "a person has no bot page"
    );
    assert!(
        page.html.contains("data-play=\"0 0\""),
        "it is the person's move"
    );
    assert!(page.html.contains("class=\"play\""), "squares to click");
    let snapshot = app.snapshot(id).await;
    assert_eq!(
        snapshot["legs"].as_array().map(Vec::len),
        Some(1),
        "one leg"
    );
    assert_eq!(snapshot["rated"], false);
    assert_eq!(snapshot["time_control"]["initial_ms"], 300_000);
    assert_eq!(
        snapshot["legs"][0]["view"]["discs"],
        serde_json::json!([2, 2]),
        "the start position"
    );
    // Someone else watching sees no squares to click.
    let watcher = Browser::new(&app).get(&format!("/matches/{id}")).await;
    assert!(!watcher.html.contains("You play") && !watcher.html.contains("class=\"play\""));

    let illegal = [
        ("csrf", csrf.as_str()),
        ("leg", "0"),
        ("revision", "0"),
        ("square", "0"),
    ];
    let refused = browser
        .post(&format!("/matches/{id}/moves"), &illegal)
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert!(refused.html.contains("illegal move"), "{}", refused.html);
    let forged = [
        ("csrf", "forged"),
        ("leg", "0"),
        ("revision", "0"),
        ("square", "19"),
    ];
    let forged = browser.post(&format!("/matches/{id}/moves"), &forged).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);

    let sent = play_out(&app, &browser, &csrf, id, 0).await;
    assert!(sent > 10, "{sent} moves");
    let finished = app.snapshot(id).await;
    assert_eq!(finished["status"], "finished", "{finished}");
    assert_eq!(
        finished["result"]["rating_applied"],
        serde_json::Value::Null
    );
    // Whoever could not move had their pass played for them; nobody sent one.
    let history = finished["legs"][0]["view"]["history"]
        .as_array()
        .expect("history");
    let discs = &finished["legs"][0]["view"]["discs"];
    let placed = history.iter().filter(|m| m["move"] != -1).count() as i64;
    assert_eq!(
        discs[0].as_i64().unwrap_or(0) + discs[1].as_i64().unwrap_or(0),
        4 + placed
    );
}

#[tokio::test]
async fn a_guest_plays_without_an_account_and_its_cookie_is_no_bot_token() {
    let app = spawn_app().await;
    let guest = Browser::new(&app);
    let csrf = guest.csrf().await;
    let play = [
        ("csrf", csrf.as_str()),
        ("variant", "anti"),
        ("minutes", "1"),
        ("increment", "0"),
    ];
    let started = guest.post("/bots/house-random/play", &play).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    let cookie = started
        .cookies
        .iter()
        .find_map(|c| c.strip_prefix("arbiter_guest="))
        .and_then(|c| c.split(';').next())
        .expect("a guest cookie")
        .to_owned();
    assert!(
        started
            .cookies
            .iter()
            .any(|c| c.contains("HttpOnly") && c.starts_with("arbiter_guest="))
    );
    let id = match_id(&started.location.expect("to the match"));
    let page = guest.get(&format!("/matches/{id}")).await;
    assert!(page.html.contains("You play Black"));
    assert_eq!(app.snapshot(id).await["variant"], "anti");
    // The same guest plays again as the same person.
    let again = guest.post("/bots/house-random/play", &play).await;
    assert!(
        again
            .cookies
            .iter()
            .all(|c| !c.starts_with("arbiter_guest="))
    );
    // A person is not a bot: the cookie is no API token, and people are not listed as bots.
    app.get("/bots/me", Some(&cookie)).await.expect(401);
    let bots = app.get("/bots", None).await.expect(200);
    assert!(
        bots.as_array()
            .expect("bots")
            .iter()
            .all(|b| b["kind"] != "human"),
        "{bots}"
    );
    assert!(!guest.get("/bots").await.html.contains("@guest"));
}

#[tokio::test]
async fn a_registered_bot_plays_a_person_through_the_flipsight_dialect() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    let flipsight = |body: serde_json::Value| {
        let request = app
            .client
            .post(format!(
                "{}/flipsight/bot_match_api.php",
                app.base.trim_end_matches("/api/v1")
            ))
            .bearer_auth(&alpha)
            .json(&body);
        async move {
            let response = request.send().await.expect("request");
            let status = response.status();
            (
                status,
                response.json::<serde_json::Value>().await.expect("json"),
            )
        }
    };
    let person = Browser::new(&app);
    let csrf = person.sign_up("ada").await;
    let play = [
        ("csrf", csrf.as_str()),
        ("variant", "std"),
        ("minutes", "5"),
        ("increment", "0"),
    ];
    let offline = person.post("/bots/Alpha/play", &play).await;
    assert_eq!(
        offline.status,
        StatusCode::CONFLICT,
        "an offline bot cannot be played"
    );

    flipsight(serde_json::json!({"action": "agent_poll"})).await;
    let started = person.post("/bots/Alpha/play", &play).await;
    let id = match_id(&started.location.expect("to the match"));
    let (_, polled) = flipsight(serde_json::json!({"action": "agent_poll"})).await;
    let room = polled["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .find(|m| m["kind"] == "human")
        .cloned()
        .expect("the person's challenge");
    assert_eq!(room["id"], -id, "a human match has a negative id");
    assert_eq!(
        (room["room_id"].as_i64(), room["bot_a"].as_i64()),
        (Some(id), Some(0))
    );
    assert_eq!(room["status"], "pending");
    let (status, accepted) =
        flipsight(serde_json::json!({"action": "agent_accept", "match_id": -id})).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!(accepted["match"]["id"], -id);

    // The person (Black) moves; then the bot answers in the room, naming its round.
    let snapshot = app.snapshot(id).await;
    let square = snapshot["legs"][0]["view"]["legal_moves"][0].to_string();
    let moved = person
        .post(
            &format!("/matches/{id}/moves"),
            &[
                ("csrf", csrf.as_str()),
                ("leg", "0"),
                ("revision", "0"),
                ("square", &square),
            ],
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK);
    // A connector on the native API gets the room's engine request: FlipSight's negative
    // id, round and room time, while the turn itself names the match as the API does.
    let turn = app.turns(id, &alpha).await.remove(0);
    assert_eq!(turn["match_id"], id);
    assert_eq!(turn["request"]["match_id"], -id);
    assert_eq!(turn["request"]["round_no"], 1);
    assert!(turn["request"]["room_created_at"].is_string(), "{turn}");
    let (_, polled) = flipsight(serde_json::json!({"action": "agent_poll"})).await;
    let room = polled["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .find(|m| m["id"] == -id)
        .cloned()
        .expect("the room");
    let leg = &room["state"]["legs"][0];
    assert_eq!(room["state"]["legs"].as_array().map(Vec::len), Some(1));
    assert_eq!(leg["turn"], 2, "White, the bot, to move");
    let mv = |round: serde_json::Value| {
        serde_json::json!({"action": "agent_move", "match_id": -id, "leg": 0,
            "revision": leg["revision"], "move": leg["legal_moves"][0],
            "round_no": round, "room_created_at": room["room_created_at"]})
    };
    let (status, stale) = flipsight(mv(serde_json::json!(7))).await;
    assert_eq!(
        (status, stale["error"].as_str()),
        (StatusCode::CONFLICT, Some("stale room revision"))
    );
    let (status, played) = flipsight(mv(room["round_no"].clone())).await;
    assert_eq!(status, StatusCode::OK, "{played}");
    assert_eq!(app.snapshot(id).await["legs"][0]["revision"], 2);
}

#[tokio::test]
async fn a_person_may_start_from_a_balanced_xot_opening_in_std_only() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let xot = |variant: &'static str| {
        [
            ("csrf", csrf.clone()),
            ("variant", variant.to_owned()),
            ("minutes", "5".to_owned()),
            ("increment", "0".to_owned()),
            ("opening", "xot".to_owned()),
        ]
    };
    let fields = xot("std");
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let started = browser.post("/bots/house-greedy/play", &fields).await;
    let id = match_id(&started.location.expect("to the match"));
    let view = &app.snapshot(id).await["legs"][0]["view"];
    let opening = view["opening"].as_array().expect("opening");
    assert_eq!(opening.len(), 8, "eight moves were played: {view}");
    let discs = view["discs"][0].as_i64().unwrap_or(0) + view["discs"][1].as_i64().unwrap_or(0);
    assert_eq!(discs, 12);
    let fields = xot("anti");
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let refused = browser.post("/bots/house-greedy/play", &fields).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert!(
        refused.html.contains("XOT openings are for std only"),
        "{}",
        refused.html
    );
}

#[tokio::test]
async fn guests_from_one_address_are_limited_like_anonymous_bots() {
    let app = spawn_app().await;
    let play = |csrf: String| {
        [
            ("csrf", csrf),
            ("variant", "std".to_owned()),
            ("minutes", "5".to_owned()),
            ("increment", "0".to_owned()),
        ]
    };
    for guest in 0..6 {
        let browser = Browser::new(&app);
        let fields = play(browser.csrf().await);
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let page = browser.post("/bots/house-random/play", &fields).await;
        let expected = if guest < 5 {
            StatusCode::SEE_OTHER
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        assert_eq!(page.status, expected, "guest {guest}: {}", page.html);
    }
}

#[tokio::test]
async fn pages_carry_security_headers_and_browsers_get_a_page_for_unknown_addresses() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let home = app
        .client
        .get(format!("{}/", browser.origin))
        .send()
        .await
        .expect("home");
    let csp = home.headers()["content-security-policy"]
        .to_str()
        .expect("ascii");
    assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"));
    assert_eq!(home.headers()["x-content-type-options"], "nosniff");

    let page = app
        .client
        .get(format!("{}/no/such/page", browser.origin))
        .header("accept", "text/html")
        .send()
        .await
        .expect("page");
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(
        page.text()
            .await
            .expect("body")
            .contains("There is nothing here.")
    );
    // The APIs keep their own error format.
    app.get("/no/such/endpoint", None)
        .await
        .expect_error(404, "not_found");
}
