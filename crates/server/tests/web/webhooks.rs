//! A bot's owner makes it answer over HTTP from its page: the form, its refusals, the signing
//! secret shown once, rotation and removal.

use super::*;

/// The key the test server signs with, so the test can recompute the secrets it shows.
const KEY: &[u8] = b"web test key";

fn webhooks() -> arbiter_server::Webhooks {
    arbiter_server::Webhooks::new(KEY, arbiter_webhook::TargetPolicy::default()).expect("webhooks")
}

fn with_webhooks(games: &arbiter_arena::Games) -> arbiter_server::Dialects {
    dialects(games).with_webhooks(webhooks())
}

/// A signed-up owner with a registered bot called `name`; returns the CSRF value.
async fn owner_of(browser: &Browser, name: &str) -> String {
    let csrf = browser.sign_up("ada").await;
    let registered = browser.register(&csrf, name, None).await;
    assert_eq!(registered.status, StatusCode::SEE_OTHER);
    csrf
}

fn webhook_fields<'a>(
    csrf: &'a str,
    url: &'a str,
    min_initial_s: &'a str,
    rotate: bool,
) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![
        ("csrf", csrf),
        ("url", url),
        ("accept_challenges", "true"),
        ("min_initial_s", min_initial_s),
    ];
    if rotate {
        fields.push(("rotate_secret", "true"));
    }
    fields
}

#[tokio::test]
async fn an_owner_sets_a_webhook_on_the_bot_page_and_sees_its_secret_once() {
    let app = spawn_running(Default::default(), games(), with_webhooks).await;
    let owner = Browser::new(&app);
    let csrf = owner_of(&owner, "Hooky").await;
    let page = owner.get("/bots/Hooky").await;
    assert!(
        page.html.contains("action=\"/bots/Hooky/webhook\""),
        "{}",
        page.html
    );
    assert!(!page.html.contains("Stop calling the webhook"));

    // Refused, with the reason on the page, and nothing changes.
    for (url, seconds, why) in [
        ("https://127.0.0.1/hook", "30", "127.0.0.1"),
        ("http://bots.example.com/hook", "30", "https"),
        (
            "https://bots.example.com/hook",
            "soon",
            "whole number of seconds",
        ),
        ("https://bots.example.com/hook", "0", "1 second to 1 day"),
    ] {
        let refused = owner
            .post(
                "/bots/Hooky/webhook",
                &webhook_fields(&csrf, url, seconds, false),
            )
            .await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{url} {seconds}");
        assert!(refused.html.contains(why), "{why}: {}", refused.html);
    }
    let bot = app.arena.find_bot("Hooky").expect("bot");
    assert!(bot.profile.webhook.is_none());

    let url = "https://bots.example.com/hook";
    let set = owner
        .post(
            "/bots/Hooky/webhook",
            &webhook_fields(&csrf, url, "30", false),
        )
        .await;
    assert_eq!(set.status, StatusCode::SEE_OTHER, "{}", set.html);
    let location = set.location.expect("to the secret's page");
    assert_eq!(location, "/my/bots/Hooky/webhook-secret");
    let shown = owner.get(&location).await;
    assert_eq!(shown.cache_control.as_deref(), Some("no-store"));
    let secret = hidden(&shown.html, "secret").expect("the secret, shown now");
    let bot = app.arena.find_bot("Hooky").expect("bot");
    assert_eq!(
        secret,
        webhooks().secret(bot.id, 0),
        "the secret it signs with"
    );
    let webhook = bot.profile.webhook.expect("a webhook");
    assert_eq!(webhook.url, url);
    assert_eq!(webhook.min_initial_ms, 30_000);
    assert!(webhook.accept_challenges);
    let again = owner.get(&location).await;
    assert!(hidden(&again.html, "secret").is_none());
    assert!(again.html.contains("shown once and is gone"));

    // The page shows the webhook as set, never its secret.
    let page = owner.get("/bots/Hooky").await;
    assert!(
        page.html.contains(&format!("value=\"{url}\"")),
        "{}",
        page.html
    );
    assert!(page.html.contains("Stop calling the webhook"));
    assert!(!page.html.contains(&secret));

    // Saving again keeps the secret; rotating makes a new one.
    let kept = owner
        .post(
            "/bots/Hooky/webhook",
            &webhook_fields(&csrf, url, "60", false),
        )
        .await;
    assert_eq!(kept.location.as_deref(), Some("/bots/Hooky"));
    let rotated = owner
        .post(
            "/bots/Hooky/webhook",
            &webhook_fields(&csrf, url, "60", true),
        )
        .await;
    let shown = owner
        .get(&rotated.location.expect("to the secret's page"))
        .await;
    let new_secret = hidden(&shown.html, "secret").expect("the new secret");
    assert_ne!(new_secret, secret);
    assert_eq!(new_secret, webhooks().secret(bot.id, 1));

    // Nobody else may change it, nor see it.
    let stranger = Browser::new(&app);
    let theirs = stranger.sign_up("eve").await;
    let page = stranger.get("/bots/Hooky").await;
    assert!(!page.html.contains(url));
    for path in ["/bots/Hooky/webhook", "/bots/Hooky/webhook/remove"] {
        let refused = stranger
            .post(
                path,
                &webhook_fields(&theirs, "https://eve.example.com/", "30", true),
            )
            .await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{path}");
    }
    let bot = app.arena.find_bot("Hooky").expect("bot");
    assert_eq!(bot.profile.webhook.expect("kept").secret_version, 1);

    let removed = owner
        .post("/bots/Hooky/webhook/remove", &[("csrf", &csrf)])
        .await;
    assert_eq!(removed.location.as_deref(), Some("/bots/Hooky"));
    assert!(
        app.arena
            .find_bot("Hooky")
            .expect("bot")
            .profile
            .webhook
            .is_none()
    );
}

#[tokio::test]
async fn a_server_that_calls_no_webhooks_offers_no_form_and_refuses_one() {
    let app = spawn_app().await;
    let owner = Browser::new(&app);
    let csrf = owner_of(&owner, "Plain").await;
    let page = owner.get("/bots/Plain").await;
    assert!(page.html.contains("Manage Plain"));
    assert!(!page.html.contains("/bots/Plain/webhook"));
    let refused = owner
        .post(
            "/bots/Plain/webhook",
            &webhook_fields(&csrf, "https://bots.example.com/hook", "30", false),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(refused.html.contains("does not call bots over HTTP"));
    assert!(
        app.arena
            .find_bot("Plain")
            .expect("bot")
            .profile
            .webhook
            .is_none()
    );
}
