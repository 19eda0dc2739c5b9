//! `GET /api/stream/event`: a bot's event stream in the dialect's shapes — `challenge`,
//! `challengeDeclined`, `challengeCanceled`, `gameStart` and `gameFinish` — with an empty
//! line every [`KEEPALIVE_MS`]. One stream per bot: opening one ends the one before, and
//! the arena announces the bot's open challenges and games again to each new stream.

use std::collections::HashSet;

use arbiter_arena::{Announcement, Bot, BotStream, MatchStatus, StreamEvent};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use bytes::Bytes;
use serde_json::{Value, json};

use super::challenges::decline_reason;
use super::{KEEPALIVE_MS, LiBot, LiResult, Served, line, ndjson, render, served};
use crate::AppState;

pub(super) fn routes() -> Router<AppState> {
    Router::new().route("/api/stream/event", get(open))
}

/// One open event stream.
struct EventStream {
    events: BotStream,
    state: AppState,
    served: Served,
    bot: Bot,
    /// This stream's number, and the signal that a newer stream replaced it.
    number: u64,
    replaced: std::sync::Arc<tokio::sync::Notify>,
    next_keepalive: i64,
    /// What this stream already said, as (match, type), so that the arena's repeated
    /// announcements of a match say it once.
    said: HashSet<(i64, &'static str)>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.state.lichess.close_stream(self.bot.id, self.number);
    }
}

async fn open(State(state): State<AppState>, LiBot(bot): LiBot) -> LiResult<Response> {
    let served = served(&state)?.clone();
    let events = state.arena.open_stream(&bot, false).await?;
    let (number, replaced) = state.lichess.open_stream(bot.id);
    let stream = EventStream {
        next_keepalive: state.arena.now_ms() + KEEPALIVE_MS,
        events,
        state,
        served,
        bot,
        number,
        replaced,
        said: HashSet::new(),
    };
    let body = futures::stream::unfold(stream, |mut stream| async move {
        let chunk = stream.next_chunk().await?;
        Some((Ok::<_, std::convert::Infallible>(chunk), stream))
    });
    Ok(ndjson(Body::from_stream(body)))
}

impl EventStream {
    /// The next chunk to send; `None` ends the stream (the server stops, a newer stream
    /// replaced it, or it fell behind and the client must reconnect).
    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            tokio::select! {
                event = self.events.next_event() => {
                    if let Some(value) = self.translate(&event?).await {
                        self.next_keepalive = self.state.arena.now_ms() + KEEPALIVE_MS;
                        return Some(line(&value));
                    }
                }
                () = self.state.arena.stopped() => return None,
                () = self.replaced.notified() => return None,
                () = self.state.arena.sleep_until(self.next_keepalive) => {
                    self.next_keepalive = self.state.arena.now_ms() + KEEPALIVE_MS;
                    return Some(Bytes::from_static(b"\n"));
                }
            }
        }
    }

    /// The line an arena event becomes, if any.
    async fn translate(&mut self, event: &StreamEvent) -> Option<Value> {
        let StreamEvent::Match { about, summary, .. } = event else {
            return None;
        };
        let game = self
            .served
            .game(summary.game, &summary.variant, summary.format)?;
        let state = &self.state;
        let id = summary.id;
        let kind: &'static str = match (about, summary.status) {
            (Announcement::Challenge, MatchStatus::Pending) => "challenge",
            (Announcement::Match, MatchStatus::Running) => "gameStart",
            (Announcement::Finished, MatchStatus::Rejected | MatchStatus::Expired) => {
                match summary.result.as_ref().map(|r| r.reason.as_str()) {
                    Some("rejected" | "declined") => "challengeDeclined",
                    _ => "challengeCanceled",
                }
            }
            (Announcement::Finished, MatchStatus::Finished | MatchStatus::Aborted)
                if summary.legs.is_empty() =>
            {
                "challengeCanceled"
            }
            (Announcement::Finished, MatchStatus::Finished | MatchStatus::Aborted) => "gameFinish",
            _ => return None,
        };
        if !self.said.insert((id, kind)) {
            return None;
        }
        match kind {
            "gameStart" | "gameFinish" => {
                let reader = state.arena.reader_for(id, Some(&self.bot));
                let snapshot = state.arena.snapshot_without_turns(id, reader).await.ok()?;
                let info = render::game_info(state, &game, &snapshot, self.bot.id).await;
                Some(json!({"type": kind, "game": info}))
            }
            _ => {
                let colour = render::challenger_colour(game.line, summary);
                let declined = kind == "challengeDeclined";
                let mut challenge =
                    render::challenge(state, &game, summary, self.bot.id, colour, declined).await;
                if declined {
                    let (key, text) = decline_reason(state.lichess.decline_reason(id));
                    challenge["declineReason"] = json!(text);
                    challenge["declineReasonKey"] = json!(key);
                }
                let mut value = json!({"type": kind, "challenge": challenge});
                if kind == "challenge" {
                    value["compat"] = json!({"bot": true, "board": false});
                }
                Some(value)
            }
        }
    }
}
