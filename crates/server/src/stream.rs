//! `GET /api/v1/stream`: a bot's NDJSON event stream over chunked HTTP.

use arbiter_arena::BotStream;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures::stream;

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
    let lines = state.arena.open_stream(&bot).await?;
    let ping_ms = state.arena.config().ping_ms;
    let first_ping = state.arena.now_ms() + ping_ms;
    let body = stream::unfold(
        (lines, state, first_ping),
        move |(mut lines, state, next_ping): (BotStream, AppState, i64)| async move {
            tokio::select! {
                line = lines.next_line() => {
                    // `None`: the stream fell behind and was dropped; end it so the client reconnects.
                    let line = line?;
                    Some((Ok::<_, std::convert::Infallible>(line), (lines, state, next_ping)))
                }
                // The server is stopping: end the stream so that the bot reconnects later.
                () = state.arena.stopped() => None,
                () = state.arena.sleep_until(next_ping) => {
                    let ping = state.arena.ping_line();
                    let next = state.arena.now_ms() + ping_ms;
                    Some((Ok(ping), (lines, state, next)))
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
