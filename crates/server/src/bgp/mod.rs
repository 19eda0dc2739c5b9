//! The Board Game Protocol v1 as a dialect of the arena: tables (`/api/matches…`, the claim
//! page `/matches/{id}/claim`) and identities (`/api/agents…`), answering in the protocol's
//! shapes with its error body `{"error", "message", "detail"}`.
//!
//! The protocol knows no game: it serves every two-seat game the server runs whose family
//! plays on the points of a square board (the plugin's point-board part), so that its
//! `place_stone` (and `pass`) can be spelled. Its matches are ordinary arena matches.
//!
//! Whoever starts the server says whether it is spoken ([`Dialects::with_bgp`]); when it is
//! not, its routes are not there.
//!
//! [`Dialects::with_bgp`]: crate::Dialects::with_bgp

mod agents;
pub(crate) mod anti_cheat;
mod claim;
pub(crate) mod error;
pub(crate) mod feed;
mod tables;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use arbiter_arena::Bot;
use axum::Router;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::header::{AUTHORIZATION, HOST};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::extract::{BodyRefusal, json_body};
pub(crate) use anti_cheat::is_provider_id;
pub(crate) use error::{BgpError, BgpResult};

/// The dialect's routes: the identity side's and the tables'.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .merge(agents::routes())
        .merge(tables::routes())
}

/// The server's public address (`https://host[:port]`, no trailing slash) for the links it
/// hands out: the one it was started with, else the address the request was sent to.
pub(crate) fn public_url(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(url) = state.dialects.public_url() {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers
        .get(HOST)
        .and_then(|value| value.to_str().ok())
        .filter(|host| {
            host.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost");
    format!("http://{host}")
}

/// The bearer token of a request's `Authorization` header, if it has one.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The registered bot a request's bearer key belongs to: `None` without a bearer (a guest),
/// `401 invalid_token` for a key that is not valid.
pub(crate) fn bearer_bot(state: &AppState, headers: &HeaderMap) -> BgpResult<Option<Bot>> {
    match bearer(headers) {
        None => Ok(None),
        Some(token) => state
            .arena
            .authenticate(token)
            .map(Some)
            .map_err(|_| BgpError::invalid_token("the bearer key is missing or invalid")),
    }
}

/// The agent behind a request that needs one (a valid bearer key).
pub(crate) struct Agent(pub(crate) Bot);

impl FromRequestParts<AppState> for Agent {
    type Rejection = BgpError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> BgpResult<Self> {
        bearer_bot(state, &parts.headers)?
            .map(Agent)
            .ok_or_else(|| BgpError::invalid_token("this needs `Authorization: Bearer <api_key>`"))
    }
}

/// The client's address (the peer of the connection).
pub(crate) struct ClientAddr(pub(crate) IpAddr);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = BgpError;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> BgpResult<Self> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientAddr(
            peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        ))
    }
}

/// A JSON body in the dialect's error shape; an empty body reads as `{}`, and unknown
/// fields are ignored.
pub(crate) struct BgpJson<T>(pub(crate) T);

impl<T: DeserializeOwned> FromRequest<AppState> for BgpJson<T> {
    type Rejection = BgpError;

    async fn from_request(request: Request, state: &AppState) -> BgpResult<Self> {
        json_body(request, state)
            .await
            .map(BgpJson)
            .map_err(|refusal| match refusal {
                BodyRefusal::TooLarge => BgpError::refusal(StatusCode::PAYLOAD_TOO_LARGE),
                BodyRefusal::Unreadable(why) | BodyRefusal::NotJson(why) => {
                    BgpError::bad_request(why)
                }
            })
    }
}

/// A query string in the dialect's error shape.
pub(crate) struct BgpQuery<T>(pub(crate) T);

impl<T: DeserializeOwned + Send> FromRequestParts<AppState> for BgpQuery<T> {
    type Rejection = BgpError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> BgpResult<Self> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| BgpQuery(q))
            .map_err(|e| BgpError::bad_request(e.body_text()))
    }
}

/// Path parameters in the dialect's error shape.
pub(crate) struct BgpPath<T>(pub(crate) T);

impl<T: DeserializeOwned + Send> FromRequestParts<AppState> for BgpPath<T> {
    type Rejection = BgpError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> BgpResult<Self> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| BgpPath(value))
            .map_err(|e| BgpError::bad_request(e.body_text()))
    }
}
