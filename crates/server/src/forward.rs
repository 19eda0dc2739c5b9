//! Requests about a match another server runs, carried to that server over the bus and
//! answered as it answers them.
//!
//! Servers sharing a store run each open match on the one that holds its lease. A request of
//! the native API about such a match (`/api/v1/matches/{id}/…`, `/api/v1/challenges/{id}/…`,
//! `/api/v1/tables/{id}/…`) that reaches another server is sent whole — method, path and
//! query, headers, body, the client's address — on the bus to the owner's subject; the owner
//! runs it through its own router, as if the client had asked it, and sends the response
//! back whole. Long-polls wait there as long as they would here. A request that was forwarded
//! once is never forwarded again, so that two servers that disagree about an owner cannot
//! pass it back and forth.

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
/// owner that dies with a request in hand is given up on after this.
const SLACK: Duration = Duration::from_secs(10);

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
    format!("arbiter.node.{node}.http")
}

/// The match a native API path is about, if it is about one.
fn match_of(path: &str) -> Option<i64> {
    let rest = path.strip_prefix("/api/v1/")?;
    let (collection, rest) = rest.split_once('/')?;
    if !matches!(collection, "matches" | "challenges" | "tables") {
        return None;
    }
    let id = rest.split('/').next()?;
    id.parse().ok()
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
    let owner = match match_of(request.uri().path()) {
        Some(id) if !request.headers().contains_key(FORWARDED) => {
            state.arena.remote_owner(id).await
        }
        _ => None,
    };
    let Some(node) = owner else {
        return next.run(request).await;
    };
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
    let head = Head {
        method: Some(parts.method.to_string()),
        uri: Some(parts.uri.to_string()),
        status: None,
        headers: headers_of(&parts.headers),
        peer,
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
    let mut response = Response::new(axum::body::Body::from(body));
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
    tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                message = requests.next() => message,
                () = arena.stopped() => None,
            };
            let Some(message) = message else { break };
            let (router, bus) = (router.clone(), bus.clone());
            tokio::spawn(async move {
                let Some(reply) = message.reply else { return };
                let answer = match decode(&message.payload) {
                    Some((head, body)) => answer(router, head, body).await,
                    None => encode(
                        &Head {
                            method: None,
                            uri: None,
                            status: Some(400),
                            headers: Vec::new(),
                            peer: None,
                        },
                        b"",
                    ),
                };
                if let Err(error) = bus.publish(reply, answer).await {
                    tracing::warn!(%error, "cannot answer a forwarded request");
                }
            });
        }
    });
}

/// Runs one forwarded request through `router` and encodes its response.
async fn answer(router: Router, head: Head, body: Bytes) -> Bytes {
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
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    encode(
        &Head {
            method: None,
            uri: None,
            status: Some(parts.status.as_u16()),
            headers: headers_of(&parts.headers),
            peer: None,
        },
        &body,
    )
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
            ("/matches/12", None),
        ];
        for (path, expected) in cases {
            assert_eq!(match_of(path), expected, "{path}");
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
    fn a_message_carries_its_head_and_body() {
        let head = Head {
            method: Some("POST".to_owned()),
            uri: Some("/api/v1/matches/3/moves?x=1".to_owned()),
            status: None,
            headers: vec![("authorization".to_owned(), "Bearer t".to_owned())],
            peer: Some(SocketAddr::from(([10, 0, 0, 1], 4000))),
        };
        let body = b"{\"move\":\n19}";
        let (decoded, decoded_body) = decode(&encode(&head, body)).expect("decoded");
        assert_eq!(decoded.uri, head.uri);
        assert_eq!(decoded.headers, head.headers);
        assert_eq!(decoded.peer, head.peer);
        assert_eq!(&decoded_body[..], body);
    }
}
