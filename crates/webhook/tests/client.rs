//! The guarded client against a real server on port 0: names resolved through a table, so that
//! a name can be made to resolve to loopback, or to a public and a loopback address at once.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use arbiter_webhook::client::Lookups;
use arbiter_webhook::{
    CallError, Lookup, SIGNATURE_HEADER, TIMESTAMP_HEADER, TargetError, TargetPolicy,
    WebhookClient, verify,
};
use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::post;

const SECRET: &[u8] = b"whsec_test";
const NOW_S: i64 = 1_800_000_000;
const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// Names and the addresses they resolve to.
struct Table(HashMap<&'static str, Vec<IpAddr>>);

impl Lookup for Table {
    fn lookup<'a>(&'a self, host: &'a str) -> Lookups<'a> {
        let found = self.0.get(host).cloned().unwrap_or_default();
        Box::pin(async move { Ok(found) })
    }
}

fn table() -> Arc<Table> {
    Arc::new(Table(HashMap::from([
        ("bot.test", vec![LOOPBACK]),
        (
            "rebind.test",
            vec![IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34)), LOOPBACK],
        ),
    ])))
}

/// A bot's server: `/move` checks the signature and echoes the body; the others misbehave.
/// Returns its port and how many requests reached it.
async fn bot_server() -> (u16, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let app = Router::new()
        .route(
            "/move",
            post(|headers: HeaderMap, body: Bytes| async move {
                let header = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned()
                };
                match verify(
                    SECRET,
                    &header(TIMESTAMP_HEADER),
                    &body,
                    &header(SIGNATURE_HEADER),
                    NOW_S,
                ) {
                    Ok(()) => (StatusCode::OK, body).into_response(),
                    Err(error) => (StatusCode::UNAUTHORIZED, error.to_string()).into_response(),
                }
            }),
        )
        .route("/redirect", post(|| async { Redirect::temporary("/move") }))
        .route(
            "/big",
            post(|| async { "x".repeat(WebhookClient::MAX_ANSWER_BYTES + 1) }),
        )
        .route(
            "/fail",
            post(|| async { StatusCode::INTERNAL_SERVER_ERROR.into_response() }),
        )
        .route("/never", post(std::future::pending::<Response>))
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                counted.fetch_add(1, Ordering::SeqCst);
                next.run(request)
            },
        ));
    let listener = tokio::net::TcpListener::bind((LOOPBACK, 0))
        .await
        .expect("a port");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, hits)
}

fn client(allow_loopback: bool) -> WebhookClient {
    let policy = TargetPolicy {
        allow_http: true,
        allowed: if allow_loopback {
            vec!["127.0.0.1".parse().expect("an address")]
        } else {
            Vec::new()
        },
    };
    WebhookClient::new(policy, table()).expect("a client")
}

async fn call(client: &WebhookClient, url: &str) -> Result<Bytes, CallError> {
    client
        .call(
            url,
            b"{\"leg\":0}".to_vec(),
            SECRET,
            NOW_S,
            Duration::from_secs(10),
        )
        .await
}

#[tokio::test]
async fn an_allowed_bot_gets_a_signed_request_through_its_name() {
    let (port, hits) = bot_server().await;
    let answer = call(&client(true), &format!("http://bot.test:{port}/move"))
        .await
        .expect("answered");
    assert_eq!(&answer[..], b"{\"leg\":0}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn refused_targets_are_never_reached() {
    let (port, hits) = bot_server().await;
    let guarded = client(false);
    let cases = [
        format!("http://bot.test:{port}/move"),
        format!("http://rebind.test:{port}/move"),
        format!("http://127.0.0.1:{port}/move"),
        format!("http://2130706433:{port}/move"),
        format!("http://[::ffff:127.0.0.1]:{port}/move"),
    ];
    for url in cases {
        let refused = call(&guarded, &url).await;
        assert!(
            matches!(
                refused,
                Err(CallError::Target(TargetError::Forbidden {
                    kind: "loopback",
                    ..
                }))
            ),
            "{url}: {refused:?}"
        );
    }
    let unknown = call(&guarded, &format!("http://nowhere.test:{port}/move")).await;
    assert!(
        matches!(unknown, Err(CallError::Target(TargetError::Unresolved(_)))),
        "{unknown:?}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing reached the server");
}

#[tokio::test]
async fn redirects_large_answers_and_failures_are_refused() {
    let (port, hits) = bot_server().await;
    let allowed = client(true);
    let url = |path: &str| format!("http://bot.test:{port}/{path}");
    let redirect = call(&allowed, &url("redirect")).await;
    assert_eq!(redirect, Err(CallError::Redirect(307)));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "the redirect was not followed"
    );
    let big = call(&allowed, &url("big")).await;
    assert_eq!(
        big,
        Err(CallError::TooLarge(WebhookClient::MAX_ANSWER_BYTES))
    );
    let failed = call(&allowed, &url("fail")).await;
    assert_eq!(failed, Err(CallError::Status(500)));
    assert!(failed.expect_err("failed").is_transient());
    let tampered = allowed
        .call(
            &url("move"),
            b"{}".to_vec(),
            b"another secret",
            NOW_S,
            Duration::from_secs(10),
        )
        .await;
    assert_eq!(tampered, Err(CallError::Status(401)));
}

#[tokio::test(start_paused = true)]
async fn a_bot_that_never_answers_times_out() {
    let (port, _) = bot_server().await;
    let answer = client(true)
        .call(
            &format!("http://bot.test:{port}/never"),
            b"{}".to_vec(),
            SECRET,
            NOW_S,
            Duration::from_secs(5),
        )
        .await;
    assert_eq!(answer, Err(CallError::TimedOut));
}
