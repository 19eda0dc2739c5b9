//! Limits that keep slow, stalled or greedy clients from holding the server's sockets.
//!
//! Three limits work together. The connection's header read is bounded by hyper (see
//! [`serve_with`](crate::serve_with)): a client that sends its request head a byte at a time,
//! or keeps an idle connection open without sending a request, is cut off after
//! [`ServeLimits::header_read`]. This module adds the other two as one middleware: a request
//! body must arrive in full within [`ServeLimits::body_read`] of the request's start (a
//! declared length beyond what the route could accept is refused before a byte is read), and
//! one address may have at most [`ServeLimits::anonymous_per_address`] requests in flight
//! that carry no valid token. Streams and long-polls have no body, so they stay open as long
//! as they are meant to.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

use crate::AppState;
use crate::error::ApiError;

/// How long clients may take and how much of the server one address may hold.
#[derive(Clone, Debug)]
pub struct ServeLimits {
    /// The longest a client may take to send a request's head, and the longest a kept-alive
    /// connection may sit idle between requests.
    pub header_read: Duration,
    /// The longest a client may take to send a request's body, counted from the moment its
    /// head was read.
    pub body_read: Duration,
    /// How many requests without a valid bot or administrator token one address may have in
    /// flight at once (the public pages, spectators' long-polls, minting anonymous bots); 0
    /// for no limit. Behind a reverse proxy every client has the proxy's address, so the proxy
    /// should limit instead.
    pub anonymous_per_address: usize,
}

impl Default for ServeLimits {
    fn default() -> ServeLimits {
        ServeLimits {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(30),
            anonymous_per_address: 64,
        }
    }
}

/// What the limits middleware keeps between requests.
#[derive(Clone)]
pub(crate) struct Guard {
    limits: ServeLimits,
    /// Requests in flight without a valid token, by address; an address leaves the map when
    /// its last such request ends, so the map holds only addresses with requests in flight.
    anonymous: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Guard {
    pub(crate) fn new(limits: ServeLimits) -> Guard {
        Guard {
            limits,
            anonymous: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        // Plain counters stay consistent even if a holder panicked.
        self.anonymous
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes one of `ip`'s anonymous slots (none is needed without a limit), or fails when
    /// all are taken.
    fn admit(&self, ip: IpAddr) -> Result<Option<Slot>, AllTaken> {
        if self.limits.anonymous_per_address == 0 {
            return Ok(None);
        }
        let mut held = self.lock();
        let count = held.entry(ip).or_insert(0);
        if *count >= self.limits.anonymous_per_address {
            return Err(AllTaken);
        }
        *count += 1;
        Ok(Some(Slot {
            guard: self.clone(),
            ip,
        }))
    }
}

/// Every anonymous slot of an address is taken.
struct AllTaken;

/// An anonymous request's place in its address's count, given back when dropped (when the
/// response, streamed or not, has been sent or abandoned).
struct Slot {
    guard: Guard,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.guard.lock();
        if let Some(count) = held.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.ip);
            }
        }
    }
}

/// Which of the server's doors a path belongs to: each answers errors in its own format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Door {
    Api,
    FlipSight,
    /// The Board Game Protocol's `/api/…` paths beside the native `/api/v1/…`.
    Bgp,
    Pages,
}

impl Door {
    fn of(path: &str) -> Door {
        if path.starts_with("/api/v1/") || path == "/api/v1" {
            Door::Api
        } else if path.starts_with("/api/") {
            Door::Bgp
        } else if path.starts_with("/flipsight") {
            Door::FlipSight
        } else {
            Door::Pages
        }
    }

    /// The largest body the route at `path` behind this door accepts.
    fn body_ceiling(self, path: &str) -> usize {
        match self {
            Door::Api if path == crate::MODULE_UPLOAD_PATH => crate::MODULE_BODY_LIMIT,
            Door::Api | Door::FlipSight | Door::Bgp => crate::BODY_LIMIT,
            Door::Pages => arbiter_web::UPLOAD_LIMIT,
        }
    }

    /// An error in this door's format.
    fn error(self, state: &AppState, status: StatusCode, code: &str, message: &str) -> Response {
        match self {
            Door::Api => ApiError::new(status, code, message).into_response(),
            Door::FlipSight => crate::flipsight::refusal(state, status),
            Door::Bgp => crate::bgp::BgpError::refusal(status).into_response(),
            Door::Pages => arbiter_web::error_page(status, message),
        }
    }
}

/// The middleware: refuses bodies declared too large, admits anonymous requests within the
/// address's share, and bounds the time the body may take.
pub(crate) async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let guard = state.limits.clone();
    let door = Door::of(request.uri().path());
    let declared = declared_length(request.headers());
    if declared.is_some_and(|length| length > door.body_ceiling(request.uri().path()) as u64) {
        return door.error(
            &state,
            StatusCode::PAYLOAD_TOO_LARGE,
            "request_too_large",
            "the request body is too large",
        );
    }
    let _slot = if has_valid_token(&state, request.headers()) {
        None
    } else {
        let ip = request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from([0, 0, 0, 0]), |info| info.0.ip());
        match guard.admit(ip) {
            Ok(slot) => slot,
            Err(AllTaken) => {
                return door.error(
                    &state,
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_requests",
                    "too many requests from this address at once",
                );
            }
        }
    };
    if declared == Some(0) || !has_body(request.headers()) {
        return next.run(request).await;
    }
    let timed_out = Arc::new(AtomicBool::new(false));
    let request = request.map(|body| with_deadline(body, guard.limits.body_read, &timed_out));
    let response = next.run(request).await;
    if timed_out.load(Ordering::Acquire) {
        // Whatever the handler made of the broken body, the client gets the real reason.
        return door.error(
            &state,
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "the request body did not arrive in time",
        );
    }
    response
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::CONTENT_LENGTH) || headers.contains_key(header::TRANSFER_ENCODING)
}

/// Whether the request carries a bearer token of a bot or of the administrator. Looking it up
/// does not mark the bot as seen: that stays the handlers' business.
fn has_valid_token(state: &AppState, headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .is_some_and(|(_, token)| state.arena.knows_token(token.trim()))
}

/// The error a body yields once its time is up.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
struct BodyTimedOut;

/// `body`, failing once `limit` has passed from now; `timed_out` records that it did.
fn with_deadline(body: Body, limit: Duration, timed_out: &Arc<AtomicBool>) -> Body {
    let deadline = tokio::time::Instant::now() + limit;
    let timed_out = timed_out.clone();
    let chunks = body.into_data_stream();
    let bounded = futures::stream::unfold(Some(chunks), move |chunks| {
        let timed_out = timed_out.clone();
        async move {
            let mut chunks = chunks?;
            match tokio::time::timeout_at(deadline, chunks.next()).await {
                Ok(Some(chunk)) => Some((chunk, Some(chunks))),
                Ok(None) => None,
                Err(_) => {
                    timed_out.store(true, Ordering::Release);
                    Some((Err(axum::Error::new(BodyTimedOut)), None))
                }
            }
        }
    });
    Body::from_stream(bounded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doors_by_path() {
        for (path, door) in [
            ("/api/v1/bots", Door::Api),
            ("/api/matches/3/events", Door::Bgp),
            ("/api/agents/me", Door::Bgp),
            ("/flipsight/bot_match_api.php", Door::FlipSight),
            ("/flipsight_api/bot-stream", Door::FlipSight),
            ("/signup", Door::Pages),
            ("/", Door::Pages),
            ("/apiary", Door::Pages),
        ] {
            assert_eq!(Door::of(path), door, "{path}");
        }
    }

    #[test]
    fn slots_are_counted_per_address_and_given_back() {
        let guard = Guard::new(ServeLimits {
            anonymous_per_address: 2,
            ..ServeLimits::default()
        });
        let a = IpAddr::from([127, 0, 0, 1]);
        let b = IpAddr::from([127, 0, 0, 2]);
        let first = guard.admit(a).ok().flatten().expect("first");
        let second = guard.admit(a).ok().flatten().expect("second");
        assert!(guard.admit(a).is_err(), "a third at once is refused");
        assert!(guard.admit(b).is_ok(), "another address has its own share");
        drop(first);
        let third = guard.admit(a).ok().flatten().expect("a slot came back");
        drop((second, third));
        assert!(guard.lock().is_empty(), "idle addresses are forgotten");
    }

    #[test]
    fn a_limit_of_zero_admits_everyone_and_counts_nothing() {
        let guard = Guard::new(ServeLimits {
            anonymous_per_address: 0,
            ..ServeLimits::default()
        });
        let ip = IpAddr::from([127, 0, 0, 1]);
        let held: Vec<_> = (0..1_000).map(|_| guard.admit(ip)).collect();
        assert!(held.iter().all(|slot| matches!(slot, Ok(None))));
        assert!(guard.lock().is_empty());
    }
}
