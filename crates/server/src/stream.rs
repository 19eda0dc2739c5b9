//! `GET /api/v1/stream`: a bot's NDJSON event stream over chunked HTTP.

use arbiter_arena::{Announcement, BotStream, Decision, StreamEvent};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::stream;
use serde_json::json;

use crate::AppState;
use crate::error::ApiResult;
use crate::extract::AuthBot;

/// Opens the calling bot's event stream: one JSON object per line, each flushed as it
/// happens — `hello`, then the bot's pending `challenge`s and running `match`es with any
/// pending `turn`s, then every change: `challenge`, `match`, `turn` (the complete engine
/// request for a decision), `finished`, and a `ping` every 10 seconds. At most 3 streams per
/// bot (429).
#[utoipa::path(get, path = "/api/v1/stream", tag = crate::routes::BOTS, security(("bearer" = [])),
    responses((status = 200, content_type = "application/x-ndjson", description = "The stream"), (status = 429, body = crate::error::ErrorBody)))]
pub(crate) async fn open(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> ApiResult<Response> {
    let events = state.arena.open_stream(&bot, false).await?;
    let ping_ms = state.arena.config().ping_ms;
    let first_ping = state.arena.now_ms() + ping_ms;
    let body = stream::unfold(
        (events, state, first_ping),
        move |(mut events, state, next_ping): (BotStream, AppState, i64)| async move {
            tokio::select! {
                event = events.next_event() => {
                    // `None`: the stream fell behind and was dropped; end it so the client reconnects.
                    let line = line(&event?);
                    Some((Ok::<_, std::convert::Infallible>(line), (events, state, next_ping)))
                }
                // The server is stopping: end the stream so that the bot reconnects later.
                () = state.arena.stopped() => None,
                () = state.arena.sleep_until(next_ping) => {
                    let now = state.arena.now_ms();
                    let ping = ndjson(&json!({"type": "ping", "server_now_ms": now}));
                    Some((Ok(ping), (events, state, now + ping_ms)))
                }
            }
        },
    );
    let mut response = Body::from_stream(body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// An event of the bot's stream as the native stream's line.
fn line(event: &StreamEvent) -> Bytes {
    match event {
        StreamEvent::Hello {
            bot,
            name,
            server_now_ms,
        } => ndjson(&json!({
            "type": "hello",
            "bot": {"id": bot, "name": name},
            "server_now_ms": server_now_ms,
        })),
        StreamEvent::Match { about, summary, .. } => {
            let (kind, key) = match about {
                Announcement::Challenge => ("challenge", "challenge"),
                Announcement::Table => ("table", "table"),
                Announcement::Match => ("match", "match"),
                Announcement::Finished => ("finished", "match"),
            };
            ndjson(&json!({"type": kind, key: summary.as_ref()}))
        }
        StreamEvent::Decision { decision, .. } => turn_line(decision),
    }
}

/// A `turn` line: the decision's fields and `type`, flat. It is written without an
/// intermediate `Value`, because the request is most of the line (two kilobytes of a board
/// game's engine request in mid-game) and is already JSON text.
fn turn_line(decision: &Decision) -> Bytes {
    use std::fmt::Write as _;
    let mut line = String::with_capacity(decision.request.len() + 96);
    let _ = write!(
        line,
        "{{\"type\":\"turn\",\"match_id\":{},\"leg\":{},\"revision\":{},\"participant\":{},\"request\":",
        decision.match_id, decision.leg, decision.revision, decision.participant
    );
    line.push_str(&decision.request);
    line.push_str("}\n");
    Bytes::from(line)
}

fn ndjson(value: &serde_json::Value) -> Bytes {
    Bytes::from(format!("{value}\n"))
}
