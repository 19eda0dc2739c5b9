//! Request extractors that fail in the API's own error format: JSON bodies (whatever the
//! content type, so that `curl -d` works), path parameters, bearer tokens, and query strings.

use std::net::SocketAddr;

use arbiter_arena::Bot;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::error::ApiError;

/// Why a JSON body could not be read, for each dialect to say in its own error format.
pub(crate) enum BodyRefusal {
    /// The body is larger than the server accepts.
    TooLarge,
    /// The body could not be read; the text says why.
    Unreadable(String),
    /// The body is not the JSON the route expects; the text says how.
    NotJson(String),
}

/// Reads `request`'s body as JSON whatever its content type, so that `curl -d` works; an
/// empty or blank body reads as `{}`, so that a route whose fields are all optional accepts
/// a bodiless POST. Unknown fields are ignored.
pub(crate) async fn json_body<T: DeserializeOwned>(
    request: Request,
    state: &AppState,
) -> Result<T, BodyRefusal> {
    let bytes = Bytes::from_request(request, state)
        .await
        .map_err(|rejection| match rejection {
            BytesRejection::FailedToBufferBody(e)
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE =>
            {
                BodyRefusal::TooLarge
            }
            other => BodyRefusal::Unreadable(other.body_text()),
        })?;
    let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &bytes
    };
    serde_json::from_slice(text)
        .map_err(|e| BodyRefusal::NotJson(format!("the body is not the expected JSON: {e}")))
}

/// A JSON body, read as [`json_body`] reads it, refused in the API's format.
pub(crate) struct ApiJson<T>(pub(crate) T);

impl<T: DeserializeOwned> FromRequest<AppState> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        json_body(request, state)
            .await
            .map(ApiJson)
            .map_err(|refusal| match refusal {
                BodyRefusal::TooLarge => ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "request_too_large",
                    "the request body is too large",
                ),
                BodyRefusal::Unreadable(why) => ApiError::bad_request("invalid_body", why),
                BodyRefusal::NotJson(why) => ApiError::bad_request("invalid_json", why),
            })
    }
}

/// A query string; malformed ones are a 400 in the API's format.
pub(crate) struct ApiQuery<T>(pub(crate) T);

impl<T: DeserializeOwned + Send> FromRequestParts<AppState> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| ApiQuery(q))
            .map_err(|e| ApiError::bad_request("invalid_query", e.body_text()))
    }
}

/// Path parameters; one that does not parse (`/matches/abc`, a number beyond `i64`, bytes
/// that are not UTF-8) is a 400 in the API's format.
pub(crate) struct ApiPath<T>(pub(crate) T);

impl<T: DeserializeOwned + Send> FromRequestParts<AppState> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| ApiPath(value))
            .map_err(|e| ApiError::new(e.status(), "invalid_path", e.body_text()))
    }
}

fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The bot a request's bearer token belongs to.
pub(crate) struct AuthBot(pub(crate) Bot);

impl FromRequestParts<AppState> for AuthBot {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = bearer(parts).ok_or(arbiter_arena::ArenaError::InvalidToken)?;
        Ok(AuthBot(state.arena.authenticate(token)?))
    }
}

/// The bot behind the request, if it sent a valid token (reads stay public).
pub(crate) struct MaybeBot(pub(crate) Option<Bot>);

impl FromRequestParts<AppState> for MaybeBot {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match bearer(parts) {
            None => Ok(MaybeBot(None)),
            Some(token) => Ok(MaybeBot(Some(state.arena.authenticate(token)?))),
        }
    }
}

/// A request made with the administrator token.
pub(crate) struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match bearer(parts) {
            Some(token) if state.arena.is_admin(token) => Ok(Admin),
            Some(_) => Err(arbiter_arena::ArenaError::AdminOnly.into()),
            None => Err(arbiter_arena::ArenaError::InvalidToken.into()),
        }
    }
}

/// The client's address (the peer of the connection).
pub(crate) struct ClientIp(pub(crate) std::net::IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientIp(peer.unwrap_or(std::net::IpAddr::V4(
            std::net::Ipv4Addr::UNSPECIFIED,
        ))))
    }
}
