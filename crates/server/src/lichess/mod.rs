//! The Lichess Bot API as a dialect of the arena, at the root of the server as its clients
//! need (`/api/stream/event`, `/api/bot/game/…`, `/api/challenge/…`, `/api/account`, …;
//! `docs/lichess.md`), answering in its shapes: `{"ok": true}` for every successful POST,
//! `{"error": "…"}` with a 4xx status for a final refusal (5xx only for what may pass), and
//! NDJSON streams with a keep-alive line at least every [`KEEPALIVE_MS`].
//!
//! It serves every two-seat game the server runs whose family tells its games as a line of
//! move tokens (the plugin's move-line part): a variant is named by the key its family gives
//! it, a game's moves are the family's tokens, and its position the family's notation. Its
//! games are ordinary arena matches of one leg, and its identities are the arena's bots:
//! any bot token, anonymous ones included, is a token here.
//!
//! Whoever starts the server says whether it is spoken
//! ([`Dialects::with_lichess`](crate::Dialects::with_lichess)); when it is not, its routes
//! are not there.

mod account;
mod challenges;
mod events;
mod games;
mod render;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use arbiter_arena::{ArenaError, Bot, ErrorClass, Family, Format};
use arbiter_plugin::{MoveLine, VariantKey};
use arbiter_store::MatchId;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

use crate::AppState;
use crate::bgp::bearer;

/// The longest a stream stays silent: clients give up on a stream after 15 seconds without
/// a line, and the reference server sends an empty line every 7.
pub(crate) const KEEPALIVE_MS: i64 = 6_000;

/// A game of the dialect: its family, move line and variant key.
#[derive(Clone, Copy)]
pub(crate) struct LineGame {
    pub(crate) family: &'static Family,
    pub(crate) line: &'static dyn MoveLine,
    pub(crate) key: VariantKey,
}

/// The games the dialect serves.
#[derive(Clone, Debug)]
pub(crate) struct Served {
    /// The game a challenge without a variant is in.
    pub(crate) default: &'static Family,
    /// Every family it serves, the default first.
    pub(crate) families: Arc<[&'static Family]>,
}

impl Served {
    /// The dialect's view of a match in `game`'s `variant` played as `format`; `None` when
    /// it does not serve it. A game here is one leg: matches of several legs (paired, with
    /// the colours swapped) have no place in its clients' model and are left out.
    pub(crate) fn game(&self, game: &str, variant: &str, format: Format) -> Option<LineGame> {
        if format != Format::Single {
            return None;
        }
        let family = self.family(game)?;
        let line = family.line?;
        Some(LineGame {
            family,
            line,
            key: line.variant_key(variant)?,
        })
    }

    /// The family and variant a client's variant key names (`None`: the default game's
    /// default variant); keys are compared without regard to case.
    pub(crate) fn mode_of_key(&self, key: Option<&str>) -> Option<(&'static Family, &'static str)> {
        let Some(key) = key.filter(|k| !k.is_empty()) else {
            return Some((self.default, self.default.default_variant().name));
        };
        self.families.iter().find_map(|family| {
            let line = family.line?;
            family
                .setup
                .variants()
                .iter()
                .find(|v| {
                    line.variant_key(v.name)
                        .is_some_and(|k| k.key.eq_ignore_ascii_case(key))
                })
                .map(|v| (*family, v.name))
        })
    }

    /// The family of `game` if the dialect serves it.
    pub(crate) fn family(&self, game: &str) -> Option<&'static Family> {
        self.families.iter().copied().find(|f| f.id() == game)
    }

    /// Every variant key the dialect knows, for error messages.
    pub(crate) fn keys(&self) -> Vec<&'static str> {
        self.families
            .iter()
            .flat_map(|family| {
                let line = family.line;
                family
                    .setup
                    .variants()
                    .iter()
                    .filter_map(move |v| line?.variant_key(v.name).map(|k| k.key))
            })
            .collect()
    }
}

/// What the dialect keeps between requests: which event stream of each bot is the live one,
/// and why challenges were declined, which the arena does not keep.
#[derive(Default)]
pub(crate) struct Hub {
    inner: Mutex<HubInner>,
}

#[derive(Default)]
struct HubInner {
    /// The live event stream of each bot: its number and the signal that ends it.
    streams: HashMap<i64, (u64, Arc<Notify>)>,
    next_stream: u64,
    /// Why challenges were declined, by challenge.
    decline_reasons: HashMap<MatchId, &'static str>,
}

/// How many decline reasons a hub remembers at most; the oldest are forgotten first (ids
/// grow).
const REMEMBERED: usize = 10_000;

impl Hub {
    fn lock(&self) -> std::sync::MutexGuard<'_, HubInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes a new event stream of `bot` the live one, ending the one before; returns its
    /// number and the signal that ends it.
    pub(crate) fn open_stream(&self, bot: i64) -> (u64, Arc<Notify>) {
        let mut inner = self.lock();
        inner.next_stream += 1;
        let number = inner.next_stream;
        let signal = Arc::new(Notify::new());
        if let Some((_, old)) = inner.streams.insert(bot, (number, signal.clone())) {
            old.notify_one();
        }
        (number, signal)
    }

    /// Forgets a stream that ended, unless a newer one replaced it.
    pub(crate) fn close_stream(&self, bot: i64, number: u64) {
        let mut inner = self.lock();
        if inner.streams.get(&bot).is_some_and(|(n, _)| *n == number) {
            inner.streams.remove(&bot);
        }
    }

    pub(crate) fn remember_decline(&self, id: MatchId, reason: &'static str) {
        let mut inner = self.lock();
        forget_oldest(&mut inner.decline_reasons);
        inner.decline_reasons.insert(id, reason);
    }

    pub(crate) fn decline_reason(&self, id: MatchId) -> Option<&'static str> {
        self.lock().decline_reasons.get(&id).copied()
    }
}

/// Drops the oldest entries of a full map.
fn forget_oldest<V>(map: &mut HashMap<MatchId, V>) {
    if map.len() >= REMEMBERED {
        let mut ids: Vec<MatchId> = map.keys().copied().collect();
        ids.sort_unstable();
        for id in ids.into_iter().take(REMEMBERED / 10) {
            map.remove(&id);
        }
    }
}

/// The dialect's routes.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .merge(account::routes())
        .merge(challenges::routes())
        .merge(events::routes())
        .merge(games::routes())
}

/// The games served, for handlers; the routes exist only where the dialect is spoken.
pub(crate) fn served(state: &AppState) -> LiResult<&Served> {
    state.dialects.lichess().ok_or_else(LiError::not_found)
}

/// An error as the dialect answers it: `{"error": "…"}` with a status.
#[derive(Debug)]
pub(crate) struct LiError {
    status: StatusCode,
    message: String,
    /// Fields added to the body (a rate limit's key).
    extra: Option<Map<String, Value>>,
}

/// The result of a handler.
pub(crate) type LiResult<T> = Result<T, LiError>;

impl LiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> LiError {
        LiError {
            status,
            message: message.into(),
            extra: None,
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> LiError {
        LiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub(crate) fn not_found() -> LiError {
        LiError::new(StatusCode::NOT_FOUND, "Not found.")
    }

    pub(crate) fn unauthorized() -> LiError {
        LiError::new(StatusCode::UNAUTHORIZED, "No such token")
    }
}

impl From<ArenaError> for LiError {
    fn from(error: ArenaError) -> Self {
        let status = match error.class() {
            ErrorClass::NotFound => return LiError::not_found(),
            ErrorClass::Unauthenticated => return LiError::unauthorized(),
            // Clients give up on a request answered with a 4xx and retry a 5xx: only what
            // may pass by itself is a 5xx.
            ErrorClass::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorClass::TooMany => StatusCode::TOO_MANY_REQUESTS,
            ErrorClass::Forbidden => StatusCode::FORBIDDEN,
            ErrorClass::BadRequest | ErrorClass::Conflict => StatusCode::BAD_REQUEST,
        };
        let mut refused = LiError::new(status, error.to_string());
        if status == StatusCode::TOO_MANY_REQUESTS {
            let seconds = error.retry_after_s().unwrap_or(60);
            let mut extra = Map::new();
            extra.insert(
                "ratelimit".to_owned(),
                json!({"key": error.code(), "seconds": seconds}),
            );
            refused.extra = Some(extra);
        }
        refused
    }
}

impl IntoResponse for LiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::warn!(message = %self.message, "request failed");
        }
        let mut body = self.extra.unwrap_or_default();
        body.insert("error".to_owned(), Value::String(self.message));
        let mut response = (self.status, axum::Json(Value::Object(body))).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// `{"ok": true}`, the answer to every successful POST.
pub(crate) fn ok() -> Response {
    axum::Json(json!({"ok": true})).into_response()
}

/// The bot behind a request's bearer token.
pub(crate) struct LiBot(pub(crate) Bot);

impl FromRequestParts<AppState> for LiBot {
    type Rejection = LiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> LiResult<Self> {
        let token = bearer(&parts.headers).ok_or_else(LiError::unauthorized)?;
        state
            .arena
            .authenticate(token)
            .map(LiBot)
            .map_err(|_| LiError::unauthorized())
    }
}

/// A request's fields, from a JSON object or a form (`a=1&b=2`) body, and from its query
/// string; a JSON `null` is a field left out, and a body's field wins over the query's.
pub(crate) struct Fields(pub(crate) Map<String, Value>);

impl Fields {
    /// A field as text (numbers and booleans written out).
    pub(crate) fn text(&self, name: &str) -> Option<String> {
        match self.0.get(name)? {
            Value::String(text) => Some(text.trim().to_owned()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// A yes-or-no field: `true`/`false` as JSON or text.
    pub(crate) fn flag(&self, name: &str) -> LiResult<Option<bool>> {
        match self.text(name).as_deref() {
            None | Some("") => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(LiError::bad_request(format!(
                "{name} must be true or false, not {other:?}"
            ))),
        }
    }

    /// A whole number field, between `min` and `max`.
    pub(crate) fn number(&self, name: &str, min: i64, max: i64) -> LiResult<Option<i64>> {
        match self.text(name).as_deref() {
            None | Some("") => Ok(None),
            Some(text) => text
                .parse::<i64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .map(Some)
                .ok_or_else(|| {
                    LiError::bad_request(format!(
                        "{name} must be a whole number from {min} to {max}, not {text:?}"
                    ))
                }),
        }
    }
}

impl FromRequest<AppState> for Fields {
    type Rejection = LiError;

    async fn from_request(request: Request, state: &AppState) -> LiResult<Self> {
        let query = request.uri().query().unwrap_or_default().to_owned();
        let form = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/x-www-form-urlencoded"));
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| LiError::new(rejection.status(), rejection.body_text()))?;
        let mut fields = pairs(&query);
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| LiError::bad_request("the body is not UTF-8 text"))?
            .trim();
        let body = if text.is_empty() {
            Map::new()
        } else if !form && text.starts_with('{') {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => map,
                _ => return Err(LiError::bad_request("the body is not a JSON object")),
            }
        } else {
            pairs(text)
        };
        fields.extend(body);
        fields.retain(|_, value| !value.is_null());
        Ok(Fields(fields))
    }
}

/// The fields of a form or query string.
fn pairs(text: &str) -> Map<String, Value> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(text)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect()
}

/// A match id as the dialect writes it: the arena's id in decimal. Anything else names no
/// game.
pub(crate) fn match_id(text: &str) -> LiResult<MatchId> {
    text.parse::<MatchId>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(LiError::not_found)
}

/// The server's address for the links the dialect hands out.
pub(crate) fn base_url(state: &AppState) -> &str {
    state.dialects.public_url().unwrap_or("http://localhost")
}

/// An NDJSON response over `body`, never compressed or buffered on the way.
pub(crate) fn ndjson(body: axum::body::Body) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// One NDJSON line.
pub(crate) fn line(value: &Value) -> Bytes {
    Bytes::from(format!("{value}\n"))
}
