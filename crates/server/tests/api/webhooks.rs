//! Bots that answer over HTTP: a bot's own server on port 0, reached through a name the test
//! resolves, checks each request's signature and answers with an action; the server plays it.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arbiter_webhook::client::Lookups;
use arbiter_webhook::{Lookup, SIGNATURE_HEADER, TIMESTAMP_HEADER, TargetPolicy, verify};
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use crate::helpers::*;

/// `bot.test` is the loopback address, which this server is allowed to call.
struct Names;

impl Lookup for Names {
    fn lookup<'a>(&'a self, host: &'a str) -> Lookups<'a> {
        let found = match host {
            "bot.test" => vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
            _ => Vec::new(),
        };
        Box::pin(async move { Ok(found) })
    }
}

fn with_webhooks(games: &arbiter_arena::Games) -> arbiter_server::Dialects {
    let policy = TargetPolicy {
        allow_http: true,
        allowed: vec!["127.0.0.1".parse().expect("an address")],
    };
    let webhooks = arbiter_server::Webhooks::with_lookup(b"test key", policy, Arc::new(Names))
        .expect("webhooks");
    dialects(games).with_webhooks(webhooks)
}

/// A bot's server: `/play` answers with the first legal action of a request signed with the
/// secret it was given; `/fail` answers 500 and `/garbage` something that is no action, but
/// for the server's first call.
struct BotServer {
    port: u16,
    secret: Arc<Mutex<String>>,
    hits: Arc<AtomicUsize>,
    refused: Arc<AtomicUsize>,
}

async fn bot_server(app: &TestApp) -> BotServer {
    let secret = Arc::new(Mutex::new(String::new()));
    let hits = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let (key, counted, refusals, clock) = (
        secret.clone(),
        hits.clone(),
        refused.clone(),
        app.clock.clone(),
    );
    let handler = move |Path(mode): Path<String>, headers: HeaderMap, body: Bytes| {
        let (key, counted, refusals, clock) = (
            key.clone(),
            counted.clone(),
            refusals.clone(),
            clock.clone(),
        );
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            let header = |name: &str| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned()
            };
            let secret = key.lock().expect("secret").clone();
            let now_s = arbiter_arena::Clock::now_ms(&clock) / 1_000;
            let checked = verify(
                secret.as_bytes(),
                &header(TIMESTAMP_HEADER),
                &body,
                &header(SIGNATURE_HEADER),
                now_s,
            );
            if checked.is_err() {
                refusals.fetch_add(1, Ordering::SeqCst);
                return StatusCode::UNAUTHORIZED.into_response();
            }
            // A failing bot fails from its second call on, so that it has moved and its
            // clock, not the first-move rule, decides.
            let first = counted.load(Ordering::SeqCst) == 1;
            match mode.as_str() {
                "fail" if !first => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
                "garbage" if !first => "no action here".into_response(),
                _ => {
                    let asked: Value = serde_json::from_slice(&body).expect("json");
                    let request = &asked["request"];
                    let action = request["legal_moves"]
                        .get(0)
                        .or_else(|| request["legal_actions"].get(0))
                        .cloned()
                        .unwrap_or(json!(-1));
                    axum::Json(json!({ "action": action })).into_response()
                }
            }
        }
    };
    let router = axum::Router::new().route("/{mode}", axum::routing::post(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move { axum::serve(listener, router).await });
    BotServer {
        port,
        secret,
        hits,
        refused,
    }
}

/// Registers a bot and makes it a webhook bot answering at `path` of `server`; returns its
/// token.
async fn webhook_bot(app: &TestApp, server: &BotServer, name: &str, path: &str) -> String {
    let (_, token) = app.register(name).await;
    let url = format!("http://bot.test:{}/{path}", server.port);
    let set = app
        .call(
            reqwest::Method::PUT,
            "/bots/me/webhook",
            Some(&token),
            Some(json!({ "url": url })),
        )
        .await
        .expect(200);
    let secret = set["secret"].as_str().expect("a new secret, shown once");
    *server.secret.lock().expect("secret") = secret.to_owned();
    // The server picks up webhook bots at its next look.
    app.advance(1_000).await;
    for _ in 0..200 {
        if app.get(&format!("/bots/{name}"), None).await.expect(200)["online"] == true {
            return token;
        }
        settle().await;
    }
    panic!("the webhook bot never came online");
}

#[tokio::test]
async fn a_webhook_bot_plays_a_whole_match_against_a_house_bot() {
    let app = spawn_running(Default::default(), games(), with_webhooks).await;
    let server = bot_server(&app).await;
    let token = webhook_bot(&app, &server, "Hooky", "play").await;
    let id = app.challenge(&token, "house-greedy", json!({})).await;
    let done = app.until_closed(id).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_ne!(done["result"]["reason"], "timeout", "{done}");
    assert!(
        server.hits.load(Ordering::SeqCst) >= 20,
        "one call per decision"
    );
    assert_eq!(
        server.refused.load(Ordering::SeqCst),
        0,
        "every request was signed"
    );
    // Shown once: setting the webhook again shows no secret unless it is rotated.
    let again = app
        .call(
            reqwest::Method::PUT,
            "/bots/me/webhook",
            Some(&token),
            Some(json!({"url": format!("http://bot.test:{}/play", server.port)})),
        )
        .await
        .expect(200);
    assert!(again.get("secret").is_none(), "{again}");
    // The bot sees its webhook, never its secret; nobody else sees it at all.
    let own = app.get("/bots/me", Some(&token)).await.expect(200);
    assert_eq!(
        own["webhook"]["url"],
        format!("http://bot.test:{}/play", server.port)
    );
    assert!(own["webhook"].get("secret").is_none(), "{own}");
    let public = app.get("/bots/Hooky", None).await.expect(200);
    assert!(public.get("webhook").is_none(), "{public}");
    let rotated = app
        .call(
            reqwest::Method::PUT,
            "/bots/me/webhook",
            Some(&token),
            Some(json!({"url": format!("http://bot.test:{}/play", server.port), "rotate_secret": true})),
        )
        .await
        .expect(200);
    let new_secret = rotated["secret"].as_str().expect("a new secret");
    assert_ne!(new_secret, *server.secret.lock().expect("secret"));
}

#[tokio::test]
async fn a_bot_that_fails_or_answers_garbage_loses_on_time() {
    let app = spawn_running(Default::default(), games(), with_webhooks).await;
    // One call answered, then a failing bot is asked again after back-offs of real time.
    let cases = [("Failing", "fail", 3), ("Garbled", "garbage", 2)];
    for (name, path, calls) in cases {
        let server = bot_server(&app).await;
        let token = webhook_bot(&app, &server, name, path).await;
        let before = server.hits.load(Ordering::SeqCst);
        let id = app.challenge(&token, "house-greedy", json!({})).await;
        for _ in 0..300 {
            if server.hits.load(Ordering::SeqCst) >= before + calls {
                break;
            }
            settle().await;
        }
        assert!(
            server.hits.load(Ordering::SeqCst) >= before + calls,
            "{name} was asked {calls} times"
        );
        app.advance(61_000).await;
        let done = app.until_closed(id).await;
        assert_eq!(done["status"], "finished", "{name}: {done}");
        assert_eq!(done["result"]["winner"], 1, "{name}: {done}");
        let reason = done["result"]["reason"].as_str().unwrap_or_default();
        assert!(reason.ends_with("timeout"), "{name}: {done}");
    }
}

#[tokio::test]
async fn a_webhook_is_refused_where_the_server_may_not_call() {
    let app = spawn_running(Default::default(), games(), with_webhooks).await;
    let (_, token) = app.register("Careful").await;
    for url in [
        "http://10.0.0.1/move",
        "http://169.254.169.254/latest",
        "ftp://bot.test/move",
        "http://user:pass@bot.test/move",
    ] {
        app.call(
            reqwest::Method::PUT,
            "/bots/me/webhook",
            Some(&token),
            Some(json!({ "url": url })),
        )
        .await
        .expect_error(400, "invalid_request");
    }
    // A server without webhooks refuses them all.
    let plain = spawn_app().await;
    let (_, token) = plain.register("Plain").await;
    plain
        .call(
            reqwest::Method::PUT,
            "/bots/me/webhook",
            Some(&token),
            Some(json!({"url": "https://bot.example.org/"})),
        )
        .await
        .expect_error(400, "invalid_request");
}

#[tokio::test]
async fn challenges_are_answered_by_the_webhook_bot_s_settings() {
    let app = spawn_running(Default::default(), games(), with_webhooks).await;
    let server = bot_server(&app).await;
    webhook_bot(&app, &server, "Picky", "play").await;
    let (_, challenger) = app.register("Challenger").await;
    let short = app
        .challenge(
            &challenger,
            "Picky",
            json!({"time_control": {"initial_ms": 5_000}}),
        )
        .await;
    let long = app
        .challenge(
            &challenger,
            "Picky",
            json!({"time_control": {"initial_ms": 60_000}}),
        )
        .await;
    let mut answered = (Value::Null, Value::Null);
    for _ in 0..200 {
        answered = (
            app.snapshot(short).await["status"].clone(),
            app.snapshot(long).await["status"].clone(),
        );
        if answered.0 != "pending" && answered.1 != "pending" {
            break;
        }
        settle().await;
    }
    assert_eq!(answered, (json!("rejected"), json!("running")));
}
