//! Games: the game stream (`gameFull`, then `gameState` on every change, `chatLine`, an
//! empty line every [`KEEPALIVE_MS`], closed after the final state), moves, draw offers,
//! chat, aborting, resigning, takebacks (never offered, so every answer is a no-op), and the
//! export as PGN.

use arbiter_arena::{
    ArenaError, Bot, ChatRoom, LegStatus, MatchSnapshot, MatchStatus, MatchSummary, Reader,
    utc_datetime,
};
use arbiter_store::MatchId;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};

use super::{
    Fields, KEEPALIVE_MS, LiBot, LiError, LiResult, LineGame, line, match_id, ndjson, ok, render,
    served,
};
use crate::AppState;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/bot/game/stream/{id}", get(stream))
        .route("/api/bot/game/{id}/move/{token}", post(play))
        .route("/api/bot/game/{id}/draw/{answer}", post(draw))
        .route("/api/bot/game/{id}/chat", post(chat))
        .route("/api/bot/game/{id}/abort", post(abort))
        .route("/api/bot/game/{id}/resign", post(resign))
        .route("/api/bot/game/{id}/takeback/{answer}", post(takeback))
        .route("/game/export/{id}", get(export))
}

/// A game of the dialect as `bot` sees it now: the arena's snapshot and the game's line.
async fn game_of(
    state: &AppState,
    bot: Option<&Bot>,
    id: &str,
) -> LiResult<(MatchId, Reader, MatchSnapshot, LineGame)> {
    let served = served(state)?;
    let id = match_id(id)?;
    let reader = state.arena.reader_for(id, bot);
    let snapshot = state.arena.snapshot_without_turns(id, reader).await?;
    let game = served
        .game(snapshot.game, &snapshot.variant, snapshot.format)
        .filter(|_| !snapshot.legs.is_empty())
        .ok_or_else(LiError::not_found)?;
    Ok((id, reader, snapshot, game))
}

/// One open game stream.
struct GameStream {
    state: AppState,
    id: MatchId,
    reader: Reader,
    game: LineGame,
    /// The participants' names, for chat lines.
    names: Vec<String>,
    /// The last event read.
    since: i64,
    /// The last state sent, so that a change that does not show is not sent again.
    last: Value,
    next_keepalive: i64,
    /// Lines ready to go, in order.
    queue: std::collections::VecDeque<Bytes>,
    /// The final state was sent: the stream ends once its queue is empty.
    over: bool,
    /// The bot's token, shown again with each keep-alive: a bot that holds only a game
    /// stream, its event stream closed, stays present as long as it listens (and a token
    /// rotated away ends the stream).
    token: String,
}

/// `GET /api/bot/game/stream/{id}`.
async fn stream(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> LiResult<Response> {
    let token = crate::bgp::bearer(&headers).unwrap_or_default().to_owned();
    let (id, reader, snapshot, game) = game_of(&state, Some(&bot), &id).await?;
    let full = render::game_full(&state, &game, &snapshot).await;
    let stream = GameStream {
        next_keepalive: state.arena.now_ms() + KEEPALIVE_MS,
        id,
        reader,
        game,
        names: snapshot
            .participants
            .iter()
            .map(|p| p.name.clone())
            .collect(),
        since: snapshot.seq,
        last: full["state"].clone(),
        over: snapshot.status != MatchStatus::Running,
        queue: [line(&full)].into(),
        state,
        token,
    };
    // The first line is `gameFull`: it is queued before anything else is read.
    let body = futures::stream::unfold(stream, |mut stream| async move {
        let chunk = stream.next_chunk().await?;
        Some((Ok::<_, std::convert::Infallible>(chunk), stream))
    });
    Ok(ndjson(Body::from_stream(body)))
}

impl GameStream {
    /// The next chunk to send; `None` ends the stream.
    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if let Some(chunk) = self.queue.pop_front() {
                self.next_keepalive = self.state.arena.now_ms() + KEEPALIVE_MS;
                return Some(chunk);
            }
            if self.over {
                return None;
            }
            let wait_ms = (self.next_keepalive - self.state.arena.now_ms()).max(0);
            let page = tokio::select! {
                page = self.state.arena.events(self.id, self.reader, self.since, wait_ms) => page,
                () = self.state.arena.stopped() => return None,
            };
            let Ok(page) = page else {
                // The match is gone from memory: nothing more will happen in it.
                return None;
            };
            self.since = page.next_since;
            let mut changed = false;
            for event in &page.events {
                match event.kind.as_str() {
                    "chat" => self.queue_chat(event.data.get()),
                    "note" => {}
                    _ => changed = true,
                }
            }
            if changed {
                self.queue_state().await;
            }
            if self.queue.is_empty() && self.state.arena.now_ms() >= self.next_keepalive {
                self.state.arena.authenticate(&self.token).ok()?;
                self.queue.push_back(Bytes::from_static(b"\n"));
            }
        }
    }

    /// Queues a chat line of the match's log.
    fn queue_chat(&mut self, data: &str) {
        let Ok(said) = serde_json::from_str::<Value>(data) else {
            return;
        };
        let speaker = said["participant"]
            .as_u64()
            .and_then(|p| self.names.get(usize::try_from(p).ok()?));
        let room = if said["room"] == "spectators" {
            "spectator"
        } else {
            "player"
        };
        self.queue.push_back(line(&json!({
            "type": "chatLine",
            "room": room,
            "username": speaker.map_or("", String::as_str),
            "text": said["text"],
        })));
    }

    /// Queues the game's state if it changed; the stream ends after the final one.
    async fn queue_state(&mut self) {
        let Ok(snapshot) = self
            .state
            .arena
            .snapshot_without_turns(self.id, self.reader)
            .await
        else {
            return;
        };
        let state = render::game_state(&self.game, &snapshot);
        self.over = snapshot.status != MatchStatus::Running;
        if !same_but_clocks(&state, &self.last) || self.over {
            self.queue.push_back(line(&state));
            self.last = state;
        }
    }
}

/// Whether two states differ at most in their clocks: the mover's runs, and is no news by
/// itself.
fn same_but_clocks(a: &Value, b: &Value) -> bool {
    let without_clocks = |state: &Value| {
        let mut state = state.clone();
        if let Value::Object(fields) = &mut state {
            fields.remove("wtime");
            fields.remove("btime");
        }
        state
    };
    without_clocks(a) == without_clocks(b)
}

/// The leg and revision at which `bot` is to move in a game now: games told as a line of
/// moves take turns, so the leg's mover says it, and the match's summary, which builds no
/// view, is enough to find it.
fn my_turn(summary: &MatchSummary, bot: i64) -> Option<(u8, u64)> {
    if summary.status != MatchStatus::Running {
        return None;
    }
    let bot_of = |participant: usize| match (&summary.participants, participant) {
        (Some(list), p) => list.get(p).map(|who| who.id),
        (None, 0) => Some(summary.bot_a.id),
        (None, _) => summary.bot_b.as_ref().map(|who| who.id),
    };
    summary.legs.iter().find_map(|leg| {
        let mine = leg.status == LegStatus::Active && bot_of(leg.to_move?)? == bot;
        mine.then(|| Some((u8::try_from(leg.leg).ok()?, leg.revision)))?
    })
}

/// A refusal of a move: never a 429, which would make clients wait a minute.
fn move_refusal(error: ArenaError) -> LiError {
    let refusal = LiError::from(error);
    if refusal.status == StatusCode::TOO_MANY_REQUESTS {
        LiError::bad_request(refusal.message)
    } else {
        refusal
    }
}

/// `POST /api/bot/game/{id}/move/{token}`, with `offeringDraw=true` to offer (or accept) a
/// draw with the move.
async fn play(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path((id, token)): Path<(String, String)>,
    fields: Fields,
) -> LiResult<Response> {
    let served = served(&state)?;
    let id = match_id(&id)?;
    let summary = state.arena.summary(id).await?;
    let game = served
        .game(summary.game, &summary.variant, summary.format)
        .ok_or_else(LiError::not_found)?;
    let action = game
        .line
        .action(&token)
        .ok_or_else(|| LiError::bad_request(format!("{token:?} is not a move of this game")))?;
    let (leg, revision) = my_turn(&summary, bot.id)
        .ok_or_else(|| LiError::bad_request("Not your turn, or game already over"))?;
    let reply = state
        .arena
        .submit(&bot, id, leg, revision, action)
        .await
        .map_err(move_refusal)?;
    if fields.flag("offeringDraw")? == Some(true)
        && reply.status == MatchStatus::Running
        && let Some(offer) = game.line.draw_action(true)
        && let Err(error) = state
            .arena
            .submit(&bot, id, leg, reply.revision, offer)
            .await
    {
        tracing::debug!(match_id = id, %error, "draw offer with a move not made");
    }
    Ok(ok())
}

/// `POST /api/bot/game/{id}/draw/{yes|no}`: offers or accepts a draw, or declines one.
async fn draw(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path((id, answer)): Path<(String, String)>,
) -> LiResult<Response> {
    let (id, _, snapshot, game) = game_of(&state, Some(&bot), &id).await?;
    let offer = yes_or_no(&answer)?;
    let action = game
        .line
        .draw_action(offer)
        .ok_or_else(|| LiError::bad_request("this game has no draw offers"))?;
    let leg = snapshot.legs.last().ok_or_else(LiError::not_found)?;
    let leg_index = u8::try_from(leg.leg).map_err(|_| LiError::not_found())?;
    state
        .arena
        .submit(&bot, id, leg_index, leg.revision, action)
        .await
        .map_err(move_refusal)?;
    Ok(ok())
}

/// `yes`/`no` (or `true`/`false`, `accept`/`decline`) in a path.
fn yes_or_no(answer: &str) -> LiResult<bool> {
    match answer {
        "yes" | "true" | "accept" => Ok(true),
        "no" | "false" | "decline" => Ok(false),
        other => Err(LiError::bad_request(format!(
            "the answer is yes or no, not {other:?}"
        ))),
    }
}

/// `POST /api/bot/game/{id}/chat`: `room` (`player` or `spectator`) and `text`.
async fn chat(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
    fields: Fields,
) -> LiResult<Response> {
    served(&state)?;
    let id = match_id(&id)?;
    let room = match fields.text("room").as_deref() {
        None | Some("player") => ChatRoom::Players,
        Some("spectator") => ChatRoom::Spectators,
        Some(other) => {
            return Err(LiError::bad_request(format!(
                "room is player or spectator, not {other:?}"
            )));
        }
    };
    let text = fields
        .text("text")
        .ok_or_else(|| LiError::bad_request("text is missing"))?;
    state.arena.say(&bot, id, room, &text).await?;
    Ok(ok())
}

/// `POST /api/bot/game/{id}/abort`: ends a game without a result while some player has
/// not moved yet.
async fn abort(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
) -> LiResult<Response> {
    served(&state)?;
    state.arena.abort(&bot, match_id(&id)?).await?;
    Ok(ok())
}

/// `POST /api/bot/game/{id}/resign`.
async fn resign(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
) -> LiResult<Response> {
    served(&state)?;
    state.arena.resign(&bot, match_id(&id)?).await?;
    Ok(ok())
}

/// `POST /api/bot/game/{id}/takeback/{yes|no}`: no game here ever has a takeback offer, so
/// either answer changes nothing.
async fn takeback(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path((id, answer)): Path<(String, String)>,
) -> LiResult<Response> {
    game_of(&state, Some(&bot), &id).await?;
    yes_or_no(&answer)?;
    Ok(ok())
}

/// `GET /game/export/{id}`: the game as PGN, its moves in the notation the pages show.
async fn export(State(state): State<AppState>, Path(id): Path<String>) -> LiResult<Response> {
    let (_, _, snapshot, game) = game_of(&state, None, &id).await?;
    let pgn = pgn(&state, &game, &snapshot);
    let mut response = pgn.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Ok(response)
}

/// How a game ended, in the words of PGN's `Termination` tag.
fn termination(status: &str) -> &'static str {
    match status {
        "created" | "started" => "Unterminated",
        "outoftime" | "timeout" => "Time forfeit",
        "aborted" | "noStart" => "Abandoned",
        _ => "Normal",
    }
}

/// A game as PGN.
fn pgn(state: &AppState, game: &LineGame, snapshot: &MatchSnapshot) -> String {
    let line = game.line;
    let (status, winner) = render::status(line, snapshot);
    let result = match (snapshot.status, winner) {
        (_, Some("white")) => "1-0",
        (_, Some(_)) => "0-1",
        (MatchStatus::Finished, None) => "1/2-1/2",
        _ => "*",
    };
    let name = |colour: &str| {
        snapshot
            .participants
            .get(render::participant_of_colour(line, snapshot, colour))
            .map_or_else(String::new, |p| p.name.clone())
    };
    let view = snapshot
        .legs
        .last()
        .map(|leg| &leg.view)
        .unwrap_or(&Value::Null);
    let first_view = snapshot
        .legs
        .first()
        .map(|leg| &leg.view)
        .unwrap_or(&Value::Null);
    let date = utc_datetime(snapshot.created_ms)
        .get(..10)
        .unwrap_or("????-??-??")
        .replace('-', ".");
    let clock = &snapshot.time_control;
    let mut tags = vec![
        (
            "Event",
            format!("{} game", if snapshot.rated { "Rated" } else { "Casual" }),
        ),
        (
            "Site",
            format!("{}/matches/{}", super::base_url(state), snapshot.id),
        ),
        ("Date", date),
        ("White", name("white")),
        ("Black", name("black")),
        ("Result", result.to_owned()),
        ("Variant", game.key.name.to_owned()),
        (
            "TimeControl",
            format!("{}+{}", clock.initial_ms / 1000, clock.increment_ms / 1000),
        ),
        ("Termination", termination(status).to_owned()),
    ];
    let initial = line.initial_position(first_view);
    if initial != "startpos" {
        tags.push(("FEN", initial));
        tags.push(("SetUp", "1".to_owned()));
    }
    let moves = match game.family.board {
        Some(board) => board.history(view),
        None => line.moves(view),
    };
    let mut text = String::new();
    for (tag, value) in tags {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        text.push_str(&format!("[{tag} \"{value}\"]\n"));
    }
    text.push('\n');
    let mut movetext: Vec<String> = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        if i % 2 == 0 {
            movetext.push(format!("{}.", i / 2 + 1));
        }
        movetext.push(mv.clone());
    }
    movetext.push(result.to_owned());
    text.push_str(&movetext.join(" "));
    text.push_str("\n\n");
    text
}
