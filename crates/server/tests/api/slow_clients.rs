//! Slow, stalled and greedy clients, over raw TCP: each is answered or cut off instead of
//! holding a socket.
//!
//! These limits are the connection's own timers (hyper's and the body deadline), which run on
//! real time rather than the arena's injected clock; the servers here set them to a fraction of
//! a second, and each test waits for the server's answer, never for a fixed time.

use std::sync::Arc;
use std::time::Duration;

use arbiter_arena::{Arena, ArenaConfig, ManualClock};
use arbiter_server::ServeLimits;
use arbiter_store_sqlite::SqliteStore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{ADMIN, T0};

/// The longest a test waits for the server to answer or hang up; far beyond the limits set.
const PATIENCE: Duration = Duration::from_secs(10);

struct Server {
    address: std::net::SocketAddr,
    arena: Arena,
    _dir: tempfile::TempDir,
}

async fn server(limits: ServeLimits) -> Server {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("arbiter.db"))
        .await
        .expect("store");
    let arena = Arena::start(
        ArenaConfig::default(),
        crate::helpers::games(),
        Arc::new(ManualClock::new(T0)),
        Arc::new(store),
        Some(ADMIN),
    )
    .await
    .expect("arena");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let address = listener.local_addr().expect("address");
    let served = arena.clone();
    let dialects = crate::helpers::dialects(arena.games());
    tokio::spawn(async move {
        arbiter_server::serve_with(listener, served, dialects, limits, std::future::pending())
            .await
            .expect("serve");
    });
    Server {
        address,
        arena,
        _dir: dir,
    }
}

fn quick() -> ServeLimits {
    ServeLimits {
        header_read: Duration::from_millis(300),
        body_read: Duration::from_millis(300),
        ..ServeLimits::default()
    }
}

/// Sends `bytes` on a new connection and returns it.
async fn send(server: &Server, bytes: &str) -> TcpStream {
    let mut stream = TcpStream::connect(server.address).await.expect("connect");
    stream.write_all(bytes.as_bytes()).await.expect("write");
    stream
}

/// Everything the server sends until it closes the connection.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer))
        .await
        .expect("the server answers or hangs up in time")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status line and body of the first response on `stream`, read up to its end.
async fn first_response(stream: &mut TcpStream) -> (u16, String) {
    let text = read_to_close(stream).await;
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {text:?}"));
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, body.to_owned())
}

fn request(method: &str, path: &str, extra: &str) -> String {
    format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{extra}\r\n")
}

#[tokio::test]
async fn a_body_declared_too_large_is_refused_before_it_is_read() {
    let server = server(ServeLimits::default()).await;
    let huge = "Content-Length: 99999999999\r\nContent-Type: application/json\r\n";
    let cases = [
        ("/api/v1/bots/anon", "\"error\":\"request_too_large\""),
        ("/flipsight/bot_match_api.php", "\"ok\":false"),
        ("/signup", "<html"),
    ];
    for (path, shape) in cases {
        let mut stream = send(&server, &format!("{}{{}}", request("POST", path, huge))).await;
        let (status, body) = first_response(&mut stream).await;
        assert_eq!(status, 413, "{path}: {body}");
        assert!(
            body.contains(shape),
            "{path} answers in its own format: {body}"
        );
    }
}

#[tokio::test]
async fn a_stalled_body_gets_a_timeout_in_the_door_s_format() {
    let server = server(quick()).await;
    let cases = [
        ("/api/v1/bots/anon", "\"error\":\"request_timeout\""),
        ("/flipsight/bot_match_api.php", "\"ok\":false"),
        ("/signin", "<html"),
    ];
    for (path, shape) in cases {
        let head = request(
            "POST",
            path,
            "Content-Length: 100\r\nContent-Type: application/x-www-form-urlencoded\r\n",
        );
        let mut stream = send(&server, &format!("{head}a=")).await; // 2 bytes of 100
        let (status, body) = first_response(&mut stream).await;
        assert_eq!(status, 408, "{path}: {body}");
        assert!(body.contains(shape), "{path}: {body}");
    }
}

#[tokio::test]
async fn headers_that_never_end_and_idle_connections_are_cut_off() {
    let server = server(quick()).await;
    let mut partial = send(&server, "GET /api/v1/health HTTP/1.1\r\nHost: te").await;
    read_to_close(&mut partial).await;
    let mut silent = TcpStream::connect(server.address).await.expect("connect");
    assert_eq!(read_to_close(&mut silent).await, "", "nothing to answer");
    // A client that is not slow is served as usual.
    let mut prompt = send(&server, &request("GET", "/api/v1/health", "")).await;
    assert_eq!(first_response(&mut prompt).await.0, 200);
}

#[tokio::test]
async fn one_address_holds_a_bounded_number_of_anonymous_requests() {
    let server = server(ServeLimits {
        anonymous_per_address: 2,
        ..ServeLimits::default()
    })
    .await;
    let stalled = "Content-Length: 100\r\n";
    let held = [
        send(&server, &request("POST", "/api/v1/bots/anon", stalled)).await,
        send(&server, &request("POST", "/api/v1/bots/anon", stalled)).await,
    ];
    // The two stalled requests are admitted before the third arrives; wait until the server
    // counts them by asking until the answer is a refusal.
    let refused = tokio::time::timeout(PATIENCE, async {
        loop {
            let mut third = send(&server, &request("GET", "/api/v1/bots", "")).await;
            let (status, body) = first_response(&mut third).await;
            if status == 429 {
                return body;
            }
            assert_eq!(status, 200, "{body}");
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the third anonymous request is refused");
    assert!(refused.contains("too_many_requests"), "{refused}");

    // A bot with a valid token is not counted among the anonymous.
    let (_, token) = server
        .arena
        .register_bot(
            "Alpha",
            arbiter_arena::BotProfile {
                supported_variants: vec!["std".to_owned()],
                ..Default::default()
            },
        )
        .await
        .expect("register");
    let auth = format!("Authorization: Bearer {token}\r\n");
    let mut bot = send(&server, &request("GET", "/api/v1/bots/me", &auth)).await;
    assert_eq!(first_response(&mut bot).await.0, 200);
    drop(held);
}
