//! The web pages over real HTTP, as a browser without scripts uses them: a cookie jar per
//! visitor, forms posted with the CSRF value the page carried, and pictures uploaded as files.

use std::io::Cursor;

use reqwest::multipart::{Form, Part};
use reqwest::{Client, StatusCode};

#[allow(dead_code)]
#[path = "../api/helpers.rs"]
mod helpers;

use helpers::*;

mod chess;
mod comments;
mod errors;
mod fate_table;
mod generic;
mod gomoku;
mod tables;
mod tournaments;
mod webhooks;

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
            client: arbiter_http_client::builder()
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

    /// Posts a form as a browser without the script does: asking for a page back.
    async fn submit(&self, path: &str, fields: &[(String, String)]) -> Page {
        let response = self
            .client
            .post(format!("{}{path}", self.origin))
            .header("accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
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
    assert!(
        board.html.contains("aria-current=\"page\">othello std"),
        "{}",
        board.html
    );
    // Every mode of every registered game has its tab.
    for mode in helpers::games().modes() {
        let tab = format!("?game={}&amp;variant={}", mode.game, mode.variant);
        assert!(board.html.contains(&tab), "{tab}");
    }
    // The rated result ranks both bots, the winner first, as the API does.
    let ranked = app.get("/leaderboard?variant=std", None).await.expect(200);
    assert_eq!(ranked["entries"][0]["bot"]["name"], "Beta", "{ranked}");
    let (beta, alpha) = (
        board
            .html
            .find("href=\"/bots/Beta\"")
            .expect("Beta is listed"),
        board
            .html
            .find("href=\"/bots/Alpha\"")
            .expect("Alpha is listed"),
    );
    assert!(beta < alpha, "the winner ranks first");
    assert!(!board.html.contains("No rated game"), "{}", board.html);
    assert!(board.html.contains("Rated by Glicko-2"), "{}", board.html);
    let anti = browser.get("/leaderboard?variant=anti").await;
    assert!(anti.html.contains("No rated game has been played"));
    // A mode that seats more than two says it is rated by Weng-Lin.
    let goofspiel = browser
        .get("/leaderboard?game=goofspiel&variant=short")
        .await;
    assert!(
        goofspiel.html.contains("Rated by Weng-Lin"),
        "{}",
        goofspiel.html
    );
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
async fn a_bot_page_offers_only_games_of_two_seats_to_challenge_in() {
    // Goofspiel is played by 2 to 4, Fate Tokens by 4 to 8: a bot challenges one other bot.
    let app = spawn_running(
        arbiter_arena::ArenaConfig::default(),
        games().with(&arbiter_fate_tokens::FAMILY),
        dialects,
    )
    .await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let form = Form::new()
        .text("csrf", csrf.clone())
        .text("name", "Mixed")
        .text("variant", "short")
        .text("variant", "quick");
    let registered = browser.upload("/my/bots", form).await;
    assert_eq!(
        registered.status,
        StatusCode::SEE_OTHER,
        "{}",
        registered.html
    );
    let house = browser.get("/bots/house-greedy").await;
    assert!(
        house.html.contains("value=\"Mixed short\""),
        "a game of two seats is offered"
    );
    assert!(
        !house.html.contains("value=\"Mixed quick\""),
        "a game of four seats or more is not"
    );
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
    // The replay shows the commitment, the revealed seed and the verifier's verdict.
    let replay = browser.get(&format!("/matches/{id}/replay")).await;
    for shown in [&finished["commitment"], &finished["seed"]] {
        let shown = shown.as_str().expect("hex");
        assert!(
            replay.html.contains(&format!("<code>{shown}</code>")),
            "{shown}"
        );
    }
    assert!(
        replay
            .html
            .contains("class=\"verdict verified\" data-verdict>verified: match"),
        "{}",
        replay.html
    );
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
                    ("action", &square),
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
        ("action", "0"),
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
        ("action", "19"),
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
                ("action", &square),
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
    assert_eq!(
        page.headers().get("content-security-policy"),
        home.headers().get("content-security-policy"),
        "the page for an unknown address is a page like any other"
    );
    assert_eq!(page.headers()["x-content-type-options"], "nosniff");
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

/// The addresses of `/bots/…` links and forms in a page, as written.
fn bot_addresses(html: &str) -> Vec<String> {
    ["href=\"/bots/", "action=\"/bots/"]
        .iter()
        .flat_map(|marker| {
            html.match_indices(marker).filter_map(move |(at, _)| {
                let start = at + marker.len() - "/bots/".len();
                html[start..].split('"').next().map(str::to_owned)
            })
        })
        .collect()
}

#[tokio::test]
async fn links_to_bots_are_percent_encoded_and_lead_to_the_bot() {
    let app = spawn_app().await;
    // An anonymous bot's name holds ':' and '#'; a registered one may hold any letter.
    let anonymous = app
        .post("/bots/anon", None, serde_json::json!({"name": "name"}))
        .await
        .expect(201);
    let anonymous_name = anonymous["bot"]["name"].as_str().expect("name").to_owned();
    assert!(anonymous_name.contains('#'), "{anonymous_name}");
    let anonymous_token = anonymous["token"].as_str().expect("token").to_owned();
    let first = app
        .challenge(&anonymous_token, "house-random", serde_json::json!({}))
        .await;
    let owner = Browser::new(&app);
    let csrf = owner.sign_up("ada").await;
    let registered = owner.register(&csrf, "Flüppy.v2", None).await;
    assert_eq!(
        registered.status,
        StatusCode::SEE_OTHER,
        "{}",
        registered.html
    );
    let to_token = registered.location.expect("to the token page");
    assert_eq!(to_token, "/my/bots/Fl%C3%BCppy.v2/token");
    let token = hidden(&owner.get(&to_token).await.html, "token").expect("the token");
    let second = app
        .challenge(&token, "house-greedy", serde_json::json!({}))
        .await;

    let mut links = Vec::new();
    for id in [first, second] {
        links.extend(bot_addresses(
            &owner.get(&format!("/matches/{id}")).await.html,
        ));
    }
    for expected in [
        "/bots/anon%3Aname%23".to_owned(),
        "/bots/Fl%C3%BCppy.v2".to_owned(),
        "/bots/house-random".to_owned(),
    ] {
        assert!(
            links.iter().any(|l| l.starts_with(&expected)),
            "{expected} in {links:?}"
        );
    }
    let profile = owner.get("/bots/Fl%C3%BCppy.v2").await;
    let forms = bot_addresses(&profile.html);
    assert!(
        forms.contains(&"/bots/Fl%C3%BCppy.v2/token".to_owned()),
        "{forms:?}"
    );
    for address in links.iter().chain(&forms) {
        assert!(
            address
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "/-._~%?=&;".contains(c)),
            "{address} is written as an address"
        );
    }
    for link in links {
        let page = owner.get(&link).await;
        assert_eq!(page.status, StatusCode::OK, "{link}");
    }
    let anonymous_page = owner
        .get(&format!("/bots/anon%3Aname%23{}", anonymous["bot"]["id"]))
        .await;
    assert!(
        anonymous_page.html.contains(&anonymous_name),
        "the anonymous bot's own page"
    );
    // A change made on the bot's page leads back to it.
    let saved = owner
        .post(
            "/bots/Fl%C3%BCppy.v2/auto-match",
            &[("csrf", &csrf), ("on", "false")],
        )
        .await;
    assert_eq!(saved.location.as_deref(), Some("/bots/Fl%C3%BCppy.v2"));
}

#[tokio::test]
async fn the_placeholder_picture_flipsight_bots_are_given_is_served() {
    let app = spawn_app().await;
    let (_, token) = app.register("Alpha").await;
    let origin = app.base.trim_end_matches("/api/v1").to_owned();
    let polled: serde_json::Value = app
        .client
        .post(format!("{origin}/flipsight/bot_match_api.php"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"action": "agent_poll"}))
        .send()
        .await
        .expect("poll")
        .json()
        .await
        .expect("json");
    let photo = polled["bot"]["photo"]
        .as_str()
        .expect("the bot's photo")
        .to_owned();
    assert_eq!(photo, "/img/no_profile.gif", "{polled}");
    let reply = app
        .client
        .get(format!("{origin}{photo}"))
        .send()
        .await
        .expect("picture");
    assert_eq!(reply.status(), StatusCode::OK);
    assert_eq!(reply.headers()["content-type"], "image/gif");
    assert_eq!(reply.headers()["x-content-type-options"], "nosniff");
    assert!(
        reply.headers()["cache-control"]
            .to_str()
            .is_ok_and(|c| c.starts_with("public, max-age=")),
        "cached"
    );
    let bytes = reply.bytes().await.expect("body");
    let picture =
        image::load_from_memory_with_format(&bytes, image::ImageFormat::Gif).expect("a GIF");
    assert!(picture.width() >= 48 && picture.width() == picture.height());
}

/// The fields of the form that plays a bot, with the chosen colour.
fn play_fields(csrf: &str, colour: &str) -> Vec<(&'static str, String)> {
    vec![
        ("csrf", csrf.to_owned()),
        ("variant", "std".to_owned()),
        ("minutes", "5".to_owned()),
        ("increment", "0".to_owned()),
        ("colour", colour.to_owned()),
    ]
}

async fn play_as(browser: &Browser, bot: &str, fields: &[(&'static str, String)]) -> Page {
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    browser.post(&format!("/bots/{bot}/play"), &fields).await
}

#[tokio::test]
async fn a_person_plays_white_and_the_house_bot_moves_first() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let form = browser.get("/bots/house-greedy").await;
    assert!(
        form.html
            .contains("<option value=\"second\">I move second</option>")
    );
    let started = play_as(&browser, "house-greedy", &play_fields(&csrf, "second")).await;
    let id = match_id(&started.location.expect("to the match"));
    let snapshot = app.snapshot(id).await;
    assert_eq!(
        snapshot["legs"][0]["first_seat_participant"], 1,
        "the house bot, participant 1, is Black"
    );
    let page = browser.get(&format!("/matches/{id}")).await;
    assert!(page.html.contains("You play White"), "{}", page.html);
    // Played to the end with the person as White: the server passes for whoever cannot
    // move, and every disc on the board was placed by a move.
    play_out(&app, &browser, &csrf, id, 0).await;
    let finished = app.snapshot(id).await;
    assert_eq!(finished["status"], "finished", "{finished}");
    let history = finished["legs"][0]["view"]["history"]
        .as_array()
        .expect("history");
    assert!(
        history.len() > 10 && history[0]["move"] != -1,
        "Black, the house bot, moved first"
    );
    let discs = &finished["legs"][0]["view"]["discs"];
    let placed = history.iter().filter(|m| m["move"] != -1).count() as i64;
    assert_eq!(
        discs[0].as_i64().unwrap_or(0) + discs[1].as_i64().unwrap_or(0),
        4 + placed
    );

    let refused = play_as(&browser, "house-greedy", &play_fields(&csrf, "green")).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused
            .html
            .contains("choose to move first, second, or a random seat")
    );
}

#[tokio::test]
async fn a_bot_is_asked_for_blacks_moves_when_the_person_plays_white() {
    let app = spawn_app().await;
    let (_, alpha) = app.register("Alpha").await;
    app.get("/bots/me", Some(&alpha)).await.expect(200);
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let started = play_as(&browser, "Alpha", &play_fields(&csrf, "white")).await;
    let id = match_id(&started.location.expect("to the match"));
    app.post(
        &format!("/challenges/{id}/accept"),
        Some(&alpha),
        serde_json::json!({}),
    )
    .await
    .expect(200);
    let turn = app.turns(id, &alpha).await.remove(0);
    assert_eq!(turn["request"]["color"], 1, "the bot plays Black: {turn}");
    assert_eq!(
        turn["request"]["legal_moves"].as_array().map(Vec::len),
        Some(4)
    );
    let page = browser.get(&format!("/matches/{id}")).await;
    assert!(page.html.contains("You play White"));
    assert!(
        !page.html.contains("data-play="),
        "not the person's move yet"
    );
    app.play_first_moves(id, &alpha).await;
    let page = browser.get(&format!("/matches/{id}")).await;
    assert!(page.html.contains("data-play=\"0 1\""), "{}", page.html);
}

#[tokio::test]
async fn a_random_colour_is_shown_as_drawn() {
    // Which colour is drawn, and that both are, is the arena's unit test (with fixed seeds);
    // here the page shows what was drawn.
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let started = play_as(&browser, "house-random", &play_fields(&csrf, "random")).await;
    let id = match_id(&started.location.expect("to the match"));
    let page = browser.get(&format!("/matches/{id}")).await;
    let first = &app.snapshot(id).await["legs"][0]["first_seat_participant"];
    let shown = if *first == 0 {
        "You play Black"
    } else {
        "You play White"
    };
    assert!(page.html.contains(shown), "{first}: {}", page.html);
}

/// The discs on the first board drawn in a page, from its label.
fn disc_total(html: &str) -> u32 {
    let label = html
        .split("aria-label=\"Board: ")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a board");
    label
        .split(", ")
        .filter_map(|part| part.split(' ').next()?.parse::<u32>().ok())
        .sum()
}

#[tokio::test]
async fn the_home_page_tells_a_newcomer_what_to_do_and_shows_live_boards() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let empty = browser.get("/").await;
    for text in [
        "Play a bot now",
        "action=\"/play/quick\"",
        "No match is being played right now",
    ] {
        assert!(empty.html.contains(text), "{text}: {}", empty.html);
    }
    // Every game the server runs is named, with each variant's summary.
    for family in helpers::games().families() {
        let game = format!("<strong>{}</strong>", family.id());
        assert!(empty.html.contains(&game), "{game}: {}", empty.html);
        for variant in family.setup.variants() {
            assert!(empty.html.contains(variant.summary), "{}", variant.summary);
        }
    }
    let (id, alpha, _) = app.running_match().await;
    let home = browser.get("/").await;
    let board = format!("data-mini=\"{id}\"");
    assert!(home.html.contains(&board), "{}", home.html);
    assert!(home.html.contains("data-open=\"true\""));
    assert!(
        home.html.contains("<svg class=\"board\""),
        "a board is drawn"
    );
    assert_eq!(disc_total(&home.html), 12, "the 12-disc opening");
    // The board the script swaps in follows the match.
    app.play_first_moves(id, &alpha).await;
    let fresh = browser.get(&format!("/matches/{id}/mini")).await;
    assert_eq!(fresh.status, StatusCode::OK);
    assert_eq!(fresh.cache_control.as_deref(), Some("no-store"));
    assert!(
        fresh
            .html
            .starts_with(&format!("<a class=\"mini\" href=\"/matches/{id}\" {board}"))
    );
    assert_eq!(disc_total(&fresh.html), 13, "one more disc: {}", fresh.html);
    app.post(
        &format!("/matches/{id}/resign"),
        Some(&alpha),
        serde_json::json!({}),
    )
    .await
    .expect(200);
    let closed = browser.get(&format!("/matches/{id}/mini")).await;
    assert!(closed.html.contains("data-open=\"false\""));
    assert!(closed.html.contains("Beta wins"), "{}", closed.html);
    assert_eq!(
        browser.get("/matches/999/mini").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_home_page_s_list_of_boards_is_served_again_with_matches_started_since() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let before = browser.get("/live").await;
    assert_eq!(before.status, StatusCode::OK);
    assert_eq!(before.cache_control.as_deref(), Some("no-store"));
    assert!(
        before.html.starts_with("<div id=\"live\">"),
        "{}",
        before.html
    );
    assert!(before.html.contains("No match is being played right now"));
    assert!(
        browser.get("/").await.html.contains(before.html.trim_end()),
        "the home page shows the same fragment"
    );

    let (id, alpha, _) = app.running_match().await;
    let after = browser.get("/live").await;
    assert!(
        after.html.contains(&format!("data-mini=\"{id}\"")),
        "{}",
        after.html
    );
    app.post(
        &format!("/matches/{id}/resign"),
        Some(&alpha),
        serde_json::json!({}),
    )
    .await
    .expect(200);
    let ended = browser.get("/live").await;
    assert!(
        !ended.html.contains(&format!("data-mini=\"{id}\"")),
        "a finished match makes way: {}",
        ended.html
    );
}

#[tokio::test]
async fn quick_matching_finds_a_house_bot_when_no_bot_is_free() {
    let app = spawn_app().await;
    let guest = Browser::new(&app);
    let csrf = guest.csrf().await;
    let mut fields = play_fields(&csrf, "black");
    fields.push(("opening", "start".to_owned()));
    let fields_ref: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let started = guest.post("/play/quick", &fields_ref).await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    assert!(
        started
            .cookies
            .iter()
            .any(|c| c.starts_with("arbiter_guest="))
    );
    let id = match_id(&started.location.expect("to the match"));
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["participants"][1]["name"], "house-medium");
    assert_eq!(snapshot["variant"], "std");
    assert_eq!(snapshot["rated"], false);
    assert_eq!(
        snapshot["legs"][0]["view"]["discs"],
        serde_json::json!([2, 2])
    );
    assert!(
        guest
            .get(&format!("/matches/{id}"))
            .await
            .html
            .contains("You play Black")
    );

    let mut xot = play_fields(&csrf, "white");
    xot.push(("opening", "xot".to_owned()));
    let xot: Vec<(&str, &str)> = xot.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let started = guest.post("/play/quick", &xot).await;
    let id = match_id(&started.location.expect("to the match"));
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["variant"], "std");
    assert_eq!(snapshot["legs"][0]["first_seat_participant"], 1);
    let opening = &snapshot["legs"][0]["view"]["opening"];
    assert_eq!(opening.as_array().map(Vec::len), Some(8), "{opening}");

    let forged = guest.post("/play/quick", &[("csrf", "forged")]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn quick_matching_offers_the_free_bot_of_median_rating() {
    let app = spawn_app().await;
    // Beta beats Alpha in a rated match; Gamma has not played: Alpha < Gamma < Beta.
    let (id, alpha, beta) = app.running_match().await;
    app.post(
        &format!("/matches/{id}/resign"),
        Some(&alpha),
        serde_json::json!({}),
    )
    .await
    .expect(200);
    let (_, gamma) = app.register("Gamma").await;
    for token in [&alpha, &beta, &gamma] {
        app.get("/bots/me", Some(token)).await.expect(200);
    }
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let mut fields = play_fields(&csrf, "random");
    fields.push(("opening", "start".to_owned()));
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let started = browser.post("/play/quick", &fields).await;
    let id = match_id(&started.location.expect("to the match"));
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["participants"][1]["name"], "Gamma", "{snapshot}");
    assert_eq!(snapshot["status"], "pending", "offered like any challenge");
    app.post(
        &format!("/challenges/{id}/accept"),
        Some(&gamma),
        serde_json::json!({}),
    )
    .await
    .expect(200);
    assert_eq!(app.snapshot(id).await["status"], "running");
    // A bot that switched auto-matching off is not offered quick matches.
    app.post(
        "/admin/bots/Gamma/auto-match",
        Some(ADMIN),
        serde_json::json!({"enabled": false}),
    )
    .await
    .expect(200);
    let again = browser.post("/play/quick", &fields).await;
    let id = match_id(&again.location.expect("to the match"));
    let name = app.snapshot(id).await["participants"][1]["name"].clone();
    assert!(name == "Alpha" || name == "Beta", "{name}");
}

impl Browser {
    /// Signs in as `name`; returns the sign-in's answer.
    async fn sign_in(&self, name: &str, password: &str) -> Page {
        let csrf = self.csrf().await;
        self.post(
            "/signin",
            &[("name", name), ("password", password), ("csrf", &csrf)],
        )
        .await
    }

    /// Whether the browser is signed in: its own bots' page is shown rather than a redirect.
    async fn signed_in(&self) -> bool {
        self.get("/my/bots").await.status == StatusCode::OK
    }
}

#[tokio::test]
async fn a_new_password_signs_out_every_other_browser() {
    let app = spawn_app().await;
    let here = Browser::new(&app);
    let csrf = here.sign_up("ada").await;
    let elsewhere = Browser::new(&app);
    assert_eq!(
        elsewhere.sign_in("ada", "correct horse").await.status,
        StatusCode::SEE_OTHER
    );
    let page = here.get("/account").await;
    assert!(
        page.html.contains("action=\"/account/password\""),
        "{}",
        page.html
    );

    let change = |current: &'static str, new: &'static str, csrf: String| {
        let here = &here;
        async move {
            here.post(
                "/account/password",
                &[
                    ("csrf", &csrf),
                    ("password", current),
                    ("new_password", new),
                ],
            )
            .await
        }
    };
    let wrong = change("wrong horse", "battery staple", csrf.clone()).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED, "{}", wrong.html);
    let short = change("correct horse", "short", csrf.clone()).await;
    assert_eq!(short.status, StatusCode::BAD_REQUEST);
    let forged = change("correct horse", "battery staple", "forged".to_owned()).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(
        elsewhere.signed_in().await,
        "refused changes change nothing"
    );

    let changed = change("correct horse", "battery staple", csrf).await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.html);
    assert!(changed.html.contains("every other browser is signed out"));
    assert!(
        here.signed_in().await,
        "the browser that asked stays signed in"
    );
    assert!(!elsewhere.signed_in().await, "the others are signed out");
    let old = Browser::new(&app).sign_in("ada", "correct horse").await;
    assert_eq!(old.status, StatusCode::UNAUTHORIZED);
    let new = Browser::new(&app).sign_in("ada", "battery staple").await;
    assert_eq!(new.status, StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn signing_out_everywhere_needs_the_password_and_ends_every_session() {
    let app = spawn_app().await;
    let here = Browser::new(&app);
    let csrf = here.sign_up("ada").await;
    let elsewhere = Browser::new(&app);
    elsewhere.sign_in("ada", "correct horse").await;
    let wrong = here
        .post(
            "/account/sign-out-everywhere",
            &[("csrf", &csrf), ("password", "wrong horse")],
        )
        .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(here.signed_in().await && elsewhere.signed_in().await);
    let done = here
        .post(
            "/account/sign-out-everywhere",
            &[("csrf", &csrf), ("password", "correct horse")],
        )
        .await;
    assert_eq!(done.location.as_deref(), Some("/"));
    assert!(
        done.cookies
            .iter()
            .any(|c| c.starts_with("arbiter_session=") && c.contains("Max-Age=0")),
        "the cookie is removed: {:?}",
        done.cookies
    );
    assert!(!here.signed_in().await && !elsewhere.signed_in().await);
}

#[tokio::test]
async fn deleting_an_account_deletes_its_bots_and_hides_its_name() {
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
    let played = play_as(&browser, "house-random", &play_fields(&csrf, "black")).await;
    let id = match_id(&played.location.expect("to the match"));
    assert!(
        browser
            .get(&format!("/matches/{id}"))
            .await
            .html
            .contains("@ada")
    );
    let busy = browser
        .post(
            "/account/delete",
            &[("csrf", &csrf), ("password", "correct horse")],
        )
        .await;
    assert_eq!(busy.status, StatusCode::CONFLICT, "a game is being played");
    assert!(busy.html.contains("@ada has a pending or running match"));
    play_out(&app, &browser, &csrf, id, 0).await;

    let page = browser.get("/account").await;
    assert!(page.html.contains("Your bots are deleted with it"));
    let forged = browser
        .post(
            "/account/delete",
            &[("csrf", "forged"), ("password", "correct horse")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let wrong = browser
        .post(
            "/account/delete",
            &[("csrf", &csrf), ("password", "wrong horse")],
        )
        .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    app.get("/bots/me", Some(&token)).await.expect(200);

    let deleted = browser
        .post(
            "/account/delete",
            &[("csrf", &csrf), ("password", "correct horse")],
        )
        .await;
    assert_eq!(deleted.location.as_deref(), Some("/"), "{}", deleted.html);
    assert!(!browser.signed_in().await);
    app.get("/bots/me", Some(&token)).await.expect(401);
    assert_eq!(
        browser.get("/bots/Flippy").await.status,
        StatusCode::NOT_FOUND
    );
    let history = browser.get(&format!("/matches/{id}")).await.html;
    assert!(
        !history.contains("@ada") && history.contains("@deleted-"),
        "{history}"
    );
    assert_eq!(
        Browser::new(&app)
            .sign_in("ada", "correct horse")
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    // The name is free again, for a new account that plays as a new person.
    let newcomer = Browser::new(&app);
    let csrf = newcomer.sign_up("ada").await;
    let played = play_as(&newcomer, "house-random", &play_fields(&csrf, "black")).await;
    let again = match_id(&played.location.expect("to the match"));
    assert_ne!(again, id);
    let snapshot = app.snapshot(again).await;
    assert_eq!(snapshot["participants"][0]["name"], "@ada");
    assert!(!newcomer.get("/my/bots").await.html.contains("Flippy"));
}
