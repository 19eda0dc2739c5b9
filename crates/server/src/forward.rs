//! Requests about a match another server runs, carried to that server over the bus and
//! answered as it answers them.
//!
//! Servers sharing a store run each open match on the one that holds its lease. A request of
//! the native API about such a match (`/api/v1/matches/{id}/…`, `/api/v1/challenges/{id}/…`,
//! `/api/v1/tables/{id}/…`) that reaches another server is sent whole — method, path and
//! query, headers, body, the client's address — on the bus to the owner's subject; the owner
//! runs it through its own router, as if the client had asked it, and sends the response
//! back whole. Long-polls wait there as long as they would here. A response whose length is
//! not known when its head is (an NDJSON or event stream) comes back as it is written: the
//! owner names two subjects in the head, one addressed to the asking server for the chunks and
//! one addressed to itself for control; the asking server subscribes to the first and says
//! `go` on the second, and each chunk follows as a message, an empty one ending the body; a
//! client that hangs up makes the asking server say `stop`. Every subject is addressed to the
//! one server that listens on it ([`arbiter_arena::NODE_SUBJECTS`]), so that a bus with direct
//! links between servers carries it straight there. A request that was forwarded once is
//! never forwarded again, so that two servers that disagree about an owner cannot pass it
//! back and forth.
//!
//! Every dialect's paths about one match are forwarded: the native API's, the Board Game
//! Protocol's, the Lichess dialect's, FlipSight's actions (whose match is named in the body)
//! and the web pages of a match or table.

use std::net::SocketAddr;
use std::time::Duration;

use arbiter_arena::Arena;
use arbiter_bus::Bytes;
use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tower::ServiceExt;

use crate::AppState;
use crate::error::ApiError;

/// The header a forwarded request carries.
const FORWARDED: &str = "x-arbiter-forwarded";

/// How long an answer may take beyond a long-poll's wait: the round trip and the work. An
/// owner that dies with a request in hand is given up on after this, or at once where the
/// direct link to it closes.
const SLACK: Duration = Duration::from_secs(10);

/// How long a streamed body may go without a chunk before the asking server ends it (every
/// stream sends something more often: pings, keep-alive lines); its client then reconnects,
/// which also recovers from an owner that died.
const STREAM_IDLE: Duration = Duration::from_secs(60);

/// How long a long-poll asks to wait, from its `wait` parameter (seconds, at most
/// `max_ms`); nothing for other requests.
fn wait_of(query: Option<&str>, max_ms: i64) -> Duration {
    let seconds = query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .find_map(|pair| pair.strip_prefix("wait="))
        .and_then(|value| value.parse::<u64>().ok())
        .unwrap_or(0);
    let max = u64::try_from(max_ms).unwrap_or(0);
    Duration::from_millis(seconds.saturating_mul(1_000).min(max))
}

/// Headers that describe one connection, not the request: never carried.
const HOP_BY_HOP: [&str; 6] = [
    "connection",
    "content-length",
    "host",
    "keep-alive",
    "transfer-encoding",
    "upgrade",
];

/// The subject a server hears forwarded requests on.
fn subject(node: &str) -> String {
    arbiter_arena::node_subject(node, "http")
}

/// The paths about one match, by dialect: the prefix before the match's id, and whether
/// something must follow the id (where the bare prefix and a name are another route).
const ABOUT_ONE_MATCH: [(&str, bool); 10] = [
    // The native API.
    ("/api/v1/matches/", false),
    ("/api/v1/challenges/", false),
    ("/api/v1/tables/", false),
    // The Board Game Protocol, and the pages of a match (and its claim page).
    ("/api/matches/", false),
    ("/matches/", false),
    ("/tables/", true),
    // The Lichess dialect; `/api/challenge/{name}` creates a challenge.
    ("/api/bot/game/stream/", false),
    ("/api/bot/game/", false),
    ("/game/export/", false),
    ("/api/challenge/", true),
];

/// FlipSight's action API, whose match is named in the body.
const FLIPSIGHT_ACTIONS: &str = "/flipsight/bot_match_api.php";

/// The match a path is about, if it is about one.
fn match_of(path: &str) -> Option<i64> {
    ABOUT_ONE_MATCH.iter().find_map(|&(prefix, more)| {
        let rest = path.strip_prefix(prefix)?;
        let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
        if more && tail.is_empty() {
            return None;
        }
        id.parse().ok()
    })
}

/// The match a FlipSight action is about: its `match_id`.
fn flipsight_match_of(body: &[u8]) -> Option<i64> {
    let body: serde_json::Value = serde_json::from_slice(body).ok()?;
    let id = &body["match_id"];
    id.as_i64().or_else(|| id.as_str()?.parse().ok())
}

/// A request or a response as it travels: a line of JSON, then the body.
#[derive(Serialize, Deserialize)]
struct Head {
    /// The request's method, or `None` for a response.
    method: Option<String>,
    /// The request's path and query.
    uri: Option<String>,
    /// The response's status.
    status: Option<u16>,
    headers: Vec<(String, String)>,
    /// The client's address, for a request.
    peer: Option<SocketAddr>,
    /// The server that forwarded a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<String>,
    /// For a response whose body follows chunk by chunk, the subject it comes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stream: Option<String>,
    /// For a response whose body follows chunk by chunk, the subject to say `go` and `stop` on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    control: Option<String>,
}

fn encode(head: &Head, body: &[u8]) -> Bytes {
    let mut bytes = serde_json::to_vec(head).unwrap_or_default();
    bytes.push(b'\n');
    bytes.extend_from_slice(body);
    Bytes::from(bytes)
}

fn decode(bytes: &Bytes) -> Option<(Head, Bytes)> {
    let at = bytes.iter().position(|&b| b == b'\n')?;
    let head = serde_json::from_slice(&bytes[..at]).ok()?;
    Some((head, bytes.slice(at + 1..)))
}

fn headers_of(headers: &axum::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| !HOP_BY_HOP.contains(&name.as_str()))
        .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_owned())))
        .collect()
}

fn unavailable(why: &str) -> Response {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        format!("the server running this match cannot be reached: {why}; try again"),
    )
    .into_response()
}

/// Middleware: sends a request about a match another server runs to that server.
pub(crate) async fn to_owner(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if request.headers().contains_key(FORWARDED) || !state.arena.bus().is_shared() {
        return next.run(request).await;
    }
    let path = request.uri().path();
    let flipsight = path == FLIPSIGHT_ACTIONS;
    let owner = match match_of(path) {
        Some(id) => state.arena.remote_owner(id).await,
        None => None,
    };
    if owner.is_none() && !flipsight {
        return next.run(request).await;
    }
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, crate::BODY_LIMIT).await else {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request",
            "the request's body is too large",
        )
        .into_response();
    };
    let owner = match owner {
        Some(owner) => Some(owner),
        None => match flipsight_match_of(&body) {
            Some(id) => state.arena.remote_owner(id).await,
            None => None,
        },
    };
    let Some(node) = owner else {
        let request = Request::from_parts(parts, axum::body::Body::from(body));
        return next.run(request).await;
    };
    let head = Head {
        method: Some(parts.method.to_string()),
        uri: Some(parts.uri.to_string()),
        status: None,
        headers: headers_of(&parts.headers),
        peer,
        from: Some(state.arena.node_id().to_owned()),
        stream: None,
        control: None,
    };
    let wait = wait_of(parts.uri.query(), state.arena.config().max_wait_ms) + SLACK;
    let bus = state.arena.bus();
    let started = std::time::Instant::now();
    let answer = match bus
        .request(subject(&node), encode(&head, &body), wait)
        .await
    {
        Ok(answer) => answer,
        Err(error) => return unavailable(&error.to_string()),
    };
    state.arena.record_forwarded(started.elapsed());
    let Some((head, body)) = decode(&answer) else {
        return unavailable("its answer could not be read");
    };
    let body = match (&head.stream, &head.control) {
        (Some(chunks), Some(control)) => match streamed(bus, chunks, control).await {
            Ok(body) => body,
            Err(error) => return unavailable(&error.to_string()),
        },
        (None, _) => axum::body::Body::from(body),
        // A server of another version, streaming on a subject with no control beside it.
        (Some(_), None) => return unavailable("its streamed answer names no control subject"),
    };
    let mut response = Response::new(body);
    *response.status_mut() = head
        .status
        .and_then(|status| StatusCode::from_u16(status).ok())
        .unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in head.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            response.headers_mut().append(name, value);
        }
    }
    response
}

/// Says `stop` to the owner of a streamed body when the body is dropped: its client hung up,
/// or it ended.
struct StopOnDrop {
    bus: std::sync::Arc<dyn arbiter_bus::Bus>,
    control: String,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let (bus, control) = (self.bus.clone(), std::mem::take(&mut self.control));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = bus.publish(control, Bytes::from_static(b"stop")).await;
            });
        }
    }
}

/// The body the owner streams on `chunks`: subscribed to before saying `go` on `control`, so
/// that no chunk is missed.
async fn streamed(
    bus: std::sync::Arc<dyn arbiter_bus::Bus>,
    chunks: &str,
    control: &str,
) -> Result<axum::body::Body, arbiter_bus::BusError> {
    let frames = bus.subscribe(chunks.to_owned()).await?;
    let control = control.to_owned();
    bus.publish(control.clone(), Bytes::from_static(b"go"))
        .await?;
    let guard = StopOnDrop { bus, control };
    let body = futures::stream::unfold((frames, guard), |(mut frames, guard)| async move {
        // An empty message ends the body; so do silence and a bus that went away.
        match tokio::time::timeout(STREAM_IDLE, frames.next()).await {
            Ok(Some(message)) if !message.payload.is_empty() => Some((
                Ok::<_, std::convert::Infallible>(message.payload),
                (frames, guard),
            )),
            _ => None,
        }
    });
    Ok(axum::body::Body::from_stream(body))
}

/// Sends a streamed `body` on `chunks` once the asking server says `go`, until it ends or
/// the asking server says `stop`.
async fn stream_out(
    bus: std::sync::Arc<dyn arbiter_bus::Bus>,
    chunks: String,
    mut control: arbiter_bus::Subscription,
    body: axum::body::Body,
) {
    use futures::StreamExt as _;
    let go = tokio::time::timeout(SLACK, control.next()).await;
    if !matches!(go, Ok(Some(message)) if &message.payload[..] == b"go") {
        return;
    }
    let mut data = body.into_data_stream();
    loop {
        let chunk = tokio::select! {
            chunk = data.next() => chunk,
            _ = control.next() => None,
        };
        let Some(Ok(chunk)) = chunk else { break };
        if chunk.is_empty() {
            continue;
        }
        if bus.publish(chunks.clone(), chunk).await.is_err() {
            return;
        }
    }
    let _ = bus.publish(chunks, Bytes::new()).await;
}

/// Answers the requests other servers forward to this one through `router`, for as long as
/// the arena runs.
pub(crate) async fn answer_forwarded(router: Router, arena: Arena) {
    let bus = arena.bus();
    if !bus.is_shared() {
        return;
    }
    let mut requests = match bus.subscribe(subject(arena.node_id())).await {
        Ok(requests) => requests,
        Err(error) => {
            tracing::error!(%error, "cannot hear requests forwarded by other servers");
            return;
        }
    };
    let streams = std::sync::Arc::new(StreamNames::new(arena.node_id()));
    tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                message = requests.next() => message,
                () = arena.stopped() => None,
            };
            let Some(message) = message else { break };
            let (router, bus, streams) = (router.clone(), bus.clone(), streams.clone());
            tokio::spawn(async move {
                let Some(reply) = message.reply else { return };
                let answer = match decode(&message.payload) {
                    Some((head, body)) => answer(router, &bus, &streams, head, body).await,
                    None => encode(&Head::response(400), b""),
                };
                if let Err(error) = bus.publish(reply, answer).await {
                    tracing::warn!(%error, "cannot answer a forwarded request");
                }
            });
        }
    });
}

/// Names the subjects this server streams bodies on and hears their control on: unique to
/// this run of the server, so that a subject of a server's earlier run is never reused.
struct StreamNames {
    node: String,
    run: u64,
    next: std::sync::atomic::AtomicU64,
}

impl StreamNames {
    fn new(node: &str) -> StreamNames {
        use std::hash::{BuildHasher as _, Hasher as _};
        // Randomly keyed by the standard library: a different number on every run.
        let run = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        StreamNames {
            node: node.to_owned(),
            run,
            next: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The subjects of the next body streamed to the server `to`: its chunks, addressed to
    /// `to`, and its control, addressed to this server.
    fn next(&self, to: &str) -> (String, String) {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (node, run) = (&self.node, self.run);
        (
            arbiter_arena::node_subject(to, &format!("body.{node}.{run:x}.{n}")),
            arbiter_arena::node_subject(node, &format!("control.{run:x}.{n}")),
        )
    }
}

impl Head {
    /// The head of a response with `status` and nothing else.
    fn response(status: u16) -> Head {
        Head {
            method: None,
            uri: None,
            status: Some(status),
            headers: Vec::new(),
            peer: None,
            from: None,
            stream: None,
            control: None,
        }
    }
}

/// Runs one forwarded request through `router` and encodes its response; a body whose length
/// is not known yet is streamed on a subject of its own, named in the head.
async fn answer(
    router: Router,
    bus: &std::sync::Arc<dyn arbiter_bus::Bus>,
    streams: &StreamNames,
    head: Head,
    body: Bytes,
) -> Bytes {
    let from = head.from.clone();
    let mut request = Request::new(axum::body::Body::from(body));
    *request.method_mut() = head
        .method
        .as_deref()
        .and_then(|m| Method::from_bytes(m.as_bytes()).ok())
        .unwrap_or(Method::GET);
    *request.uri_mut() = head
        .uri
        .as_deref()
        .and_then(|u| u.parse::<Uri>().ok())
        .unwrap_or_default();
    for (name, value) in head.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            request.headers_mut().append(name, value);
        }
    }
    request
        .headers_mut()
        .insert(FORWARDED, HeaderValue::from_static("1"));
    let peer = head
        .peer
        .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
    request.extensions_mut().insert(ConnectInfo(peer));
    let response = match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let (parts, body) = response.into_parts();
    let mut head = Head::response(parts.status.as_u16());
    head.headers = headers_of(&parts.headers);
    if axum::body::HttpBody::size_hint(&body).exact().is_none() {
        let Some(from) = from else {
            return encode(&Head::response(503), b"");
        };
        let (chunks, control) = streams.next(&from);
        return match bus.subscribe(control.clone()).await {
            Ok(said) => {
                tokio::spawn(stream_out(bus.clone(), chunks.clone(), said, body));
                head.stream = Some(chunks);
                head.control = Some(control);
                encode(&head, b"")
            }
            Err(_) => encode(&Head::response(503), b""),
        };
    }
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    encode(&head, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paths_about_one_match_are_found() {
        let cases = [
            ("/api/v1/matches/12", Some(12)),
            ("/api/v1/matches/12/moves", Some(12)),
            ("/api/v1/challenges/7/accept", Some(7)),
            ("/api/v1/tables/3/join", Some(3)),
            ("/api/v1/matches", None),
            ("/api/v1/tables", None),
            ("/api/v1/bots/12", None),
            ("/api/v1/matches/abc/moves", None),
            ("/api/matches/12/events/stream", Some(12)),
            ("/matches/12", Some(12)),
            ("/matches/12/claim", Some(12)),
            ("/tables/4/join", Some(4)),
            ("/tables/4", None),
            ("/api/bot/game/stream/9", Some(9)),
            ("/api/bot/game/9/move/e2e4", Some(9)),
            ("/game/export/9", Some(9)),
            ("/api/challenge/9/accept", Some(9)),
            ("/api/challenge/9", None),
            ("/api/matches", None),
            ("/bots/12", None),
        ];
        for (path, expected) in cases {
            assert_eq!(match_of(path), expected, "{path}");
        }
    }

    #[test]
    fn a_flipsight_action_names_its_match_in_the_body() {
        let cases: [(&[u8], Option<i64>); 4] = [
            (br#"{"action":"agent_move","match_id":5}"#, Some(5)),
            (br#"{"action":"agent_accept","match_id":"6"}"#, Some(6)),
            (br#"{"action":"agent_poll"}"#, None),
            (b"not json", None),
        ];
        for (body, expected) in cases {
            assert_eq!(flipsight_match_of(body), expected);
        }
    }

    #[test]
    fn a_long_poll_is_given_its_wait() {
        let cases = [
            (None, 0),
            (Some("since=3"), 0),
            (Some("since=3&wait=5"), 5_000),
            (Some("wait=600"), 60_000),
            (Some("wait=x"), 0),
        ];
        for (query, ms) in cases {
            assert_eq!(
                wait_of(query, 60_000),
                Duration::from_millis(ms),
                "{query:?}"
            );
        }
    }

    #[test]
    fn a_streamed_body_is_addressed_to_the_servers_that_hear_it() {
        let names = StreamNames::new("a");
        let (chunks, control) = names.next("b");
        let (again, _) = names.next("b");
        assert!(chunks.starts_with("arbiter.node.b.body.a."), "{chunks}");
        assert!(control.starts_with("arbiter.node.a.control."), "{control}");
        assert_ne!(chunks, again);
        // Another run of the same server names other subjects.
        assert_ne!(StreamNames::new("a").next("b").0, chunks);
    }

    #[test]
    fn a_message_carries_its_head_and_body() {
        let head = Head {
            method: Some("POST".to_owned()),
            uri: Some("/api/v1/matches/3/moves?x=1".to_owned()),
            status: None,
            headers: vec![("authorization".to_owned(), "Bearer t".to_owned())],
            peer: Some(SocketAddr::from(([10, 0, 0, 1], 4000))),
            from: Some("b".to_owned()),
            stream: None,
            control: None,
        };
        let body = b"{\"move\":\n19}";
        let (decoded, decoded_body) = decode(&encode(&head, body)).expect("decoded");
        assert_eq!(decoded.uri, head.uri);
        assert_eq!(decoded.headers, head.headers);
        assert_eq!(decoded.peer, head.peer);
        assert_eq!(decoded.from, head.from);
        assert_eq!(&decoded_body[..], body);
    }
}
