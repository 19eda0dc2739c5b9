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
use crate::dto::StreamQuery;
use crate::error::ApiResult;
use crate::extract::{ApiQuery, AuthBot};
use crate::routes::TABLES_LISTED;

/// Opens the calling bot's event stream: one JSON object per line, each flushed as it
/// happens — `hello`, then the bot's pending `challenge`s and running `match`es with any
/// pending `turn`s, then every change: `challenge`, `match`, `turn` (the complete engine
/// request for a decision), `finished`, and a `ping` every 10 seconds. With `?lobby=true`,
/// also a `tables` line listing every open table (as `GET /api/v1/tables` does) when the
/// stream opens and again whenever that list changes. At most 3 streams per bot (429).
#[utoipa::path(get, path = "/api/v1/stream", tag = crate::routes::BOTS, security(("bearer" = [])), params(StreamQuery),
    responses((status = 200, content_type = "application/x-ndjson", description = "The stream"), (status = 429, body = crate::error::ErrorBody)))]
pub(crate) async fn open(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiQuery(query): ApiQuery<StreamQuery>,
) -> ApiResult<Response> {
    let events = state.arena.open_stream(&bot, false).await?;
    let ping_ms = state.arena.config().ping_ms;
    let first_ping = state.arena.now_ms() + ping_ms;
    // The lobby, unread so that the open tables are the first thing it says.
    let lobby = query.lobby.then(|| Lobby {
        changes: state.arena.lobby_changes(),
        unread: true,
        said: String::new(),
    });
    let body = stream::unfold(
        (events, state, first_ping, lobby),
        move |(mut events, state, next_ping, mut lobby): (
            BotStream,
            AppState,
            i64,
            Option<Lobby>,
        )| async move {
            tokio::select! {
                // The bot's own events first: `hello` is always the first line.
                biased;
                event = events.next_event() => {
                    // `None`: the stream fell behind and was dropped; end it so the client reconnects.
                    let line = line(&event?);
                    Some((Ok::<_, std::convert::Infallible>(line), (events, state, next_ping, lobby)))
                }
                // The server is stopping: end the stream so that the bot reconnects later.
                () = state.arena.stopped() => None,
                () = state.arena.sleep_until(next_ping) => {
                    let now = state.arena.now_ms();
                    let ping = ndjson(&json!({"type": "ping", "server_now_ms": now}));
                    Some((Ok(ping), (events, state, now + ping_ms, lobby)))
                }
                tables = lobby_change(&state, lobby.as_mut()) => {
                    Some((Ok(tables), (events, state, next_ping, lobby)))
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

/// What a stream following the lobby keeps: the lobby's revision and the last list it sent.
struct Lobby {
    changes: tokio::sync::watch::Receiver<u64>,
    /// A change has been seen and the list not yet read since: set before the list is read,
    /// so that a wait dropped meanwhile (another line went out first) reads it next time.
    unread: bool,
    said: String,
}

/// Waits until the open tables differ from those last sent (a change of another match sends
/// nothing) and answers the `tables` line; never completes for a stream that does not follow
/// the lobby.
async fn lobby_change(state: &AppState, lobby: Option<&mut Lobby>) -> Bytes {
    let Some(lobby) = lobby else {
        return std::future::pending().await;
    };
    loop {
        if !lobby.unread {
            if lobby.changes.changed().await.is_err() {
                return std::future::pending().await;
            }
            lobby.unread = true;
        }
        let tables = state.arena.open_tables(TABLES_LISTED).await;
        lobby.unread = false;
        let Ok(tables) = serde_json::to_string(&tables) else {
            continue;
        };
        if tables != lobby.said {
            let line = Bytes::from(format!("{{\"type\":\"tables\",\"tables\":{tables}}}\n"));
            lobby.said = tables;
            return line;
        }
    }
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
