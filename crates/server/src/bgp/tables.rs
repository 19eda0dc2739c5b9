//! The protocol's tables: `POST /api/matches` (create), `…/join`, `…/action`, `…/resign`,
//! `GET /api/matches/{id}` (the snapshot), `…/events` (the long-poll), `…/events/stream`
//! (the same as server-sent events) and `GET /matches/{id}/claim` (the record as a page).
//!
//! A protocol match is an arena table of two seats, one leg, opened with terms: it waits
//! 24 hours for its second player, its players poll (so only the per-turn clock judges
//! them), and it is rated when two different registered agents sit. Each seat gets a play
//! token, `pk_live_…`, whose SHA-256 the arena keeps with the match.

use std::sync::Arc;

use arbiter_arena::token;
use arbiter_arena::{
    Arena, ArenaError, Bot, BotKind, Family, Format, MatchSnapshot, MatchStatus, MoveNote, Opening,
    Reader, TableRequest, TableTerms, TimeControl,
};
use arbiter_plugin::{Point, PointBoard, PointRefusal};
use arbiter_store::MatchId;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::anti_cheat::{self, Provenance};
use super::feed::{self, Feed};
use super::{
    BgpError, BgpJson, BgpPath, BgpQuery, BgpResult, ClientAddr, bearer, bearer_bot, public_url,
};
use crate::AppState;

/// The prefix of play tokens.
pub(crate) const PLAY_TOKEN_PREFIX: &str = "pk_live_";
/// The header that carries a play token.
pub(crate) const PLAY_TOKEN_HEADER: &str = "x-play-token";
/// The per-turn timeout when a match's config names none, in seconds.
pub(crate) const DEFAULT_TURN_TIMEOUT_S: i64 = 120;
/// The bounds of `turn_timeout`, in seconds.
pub(crate) const TURN_TIMEOUT_S: std::ops::RangeInclusive<i64> = 10..=3600;
/// How long a match waits for its second player.
pub(crate) const WAITING_MS: i64 = 24 * 3_600_000;
/// The most characters of a comment.
pub(crate) const COMMENT_MAX_CHARS: usize = 500;
/// The most bytes of an analysis, as JSON.
pub(crate) const ANALYSIS_MAX_BYTES: usize = 4096;
/// The longest a long-poll waits, in seconds.
pub(crate) const WAIT_MAX_S: i64 = 60;

/// The tables' routes.
pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/matches", post(create))
        .route("/api/matches/{id}", get(snapshot))
        .route("/api/matches/{id}/join", post(join))
        .route("/api/matches/{id}/action", post(action))
        .route("/api/matches/{id}/resign", post(resign))
        .route("/api/matches/{id}/events", get(events))
        .route("/api/matches/{id}/events/stream", get(stream))
        .route("/matches/{id}/claim", get(super::claim::page))
}

/// A player as a create or join names it, for guests.
#[derive(Debug, Default, Deserialize)]
struct PlayerBody {
    name: Option<String>,
    display_name: Option<String>,
    meta: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct CreateBody {
    game: Option<String>,
    #[serde(default)]
    config: Map<String, Value>,
    player: Option<PlayerBody>,
}

#[derive(Debug, Default, Deserialize)]
struct JoinBody {
    player: Option<PlayerBody>,
}

/// Query parameters that may name a seat; a play token may not travel there.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SeatQuery {
    seat: Option<String>,
    play_token: Option<String>,
    since: Option<String>,
    wait: Option<String>,
}

/// A match of the protocol, as one reader sees it, with its family.
pub(crate) struct Loaded {
    pub(crate) id: MatchId,
    pub(crate) snapshot: MatchSnapshot,
    pub(crate) family: &'static Family,
    pub(crate) points: &'static dyn PointBoard,
}

/// The games the dialect serves: those played on the points of a square board.
pub(crate) fn served_games(arena: &Arena) -> Vec<&'static str> {
    arena
        .games()
        .families()
        .filter(|family| family.point_board().is_some())
        .map(Family::id)
        .collect()
}

/// The match `id` names, as `reader` sees it: `404 match_not_found` for an id that is not a
/// match, or a match of a game the protocol cannot show.
pub(crate) async fn load(state: &AppState, id: &str, reader: Reader) -> BgpResult<Loaded> {
    let match_id: MatchId = id
        .parse()
        .ok()
        .filter(|&id: &MatchId| id > 0)
        .ok_or_else(|| BgpError::match_not_found(id))?;
    let snapshot = state
        .arena
        .snapshot(match_id, reader)
        .await
        .map_err(|error| match error {
            ArenaError::MatchNotFound(_) => BgpError::match_not_found(id),
            other => other.into(),
        })?;
    let family = state
        .arena
        .games()
        .get(snapshot.game)
        .filter(|_| snapshot.legs.len() <= 1)
        .filter(|_| snapshot.table.is_none_or(|t| t.seats == 2))
        .ok_or_else(|| BgpError::match_not_found(id))?;
    let points = family
        .point_board()
        .ok_or_else(|| BgpError::match_not_found(id))?;
    Ok(Loaded {
        id: match_id,
        snapshot,
        family,
        points,
    })
}

/// The feed of a loaded match, up to date.
pub(crate) async fn feed_of(state: &AppState, loaded: &Loaded) -> BgpResult<Arc<Feed>> {
    Ok(state
        .bgp_feeds
        .feed(&state.arena, loaded.id, loaded.family, loaded.points)
        .await?)
}

/// Refuses a play token in the query string, where logs and proxies would keep it.
fn refuse_token_in_query(query: &SeatQuery) -> BgpResult<()> {
    if query.play_token.is_some() {
        return Err(BgpError::bad_request(
            "a play token is accepted only in the X-Play-Token header, never in the address",
        )
        .with_detail("field", "play_token"));
    }
    Ok(())
}

/// The play token of a request's header, if it has one.
fn play_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(PLAY_TOKEN_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .filter(|token| !token.is_empty())
}

/// The seat a request that acts (a move, a resignation) speaks for, with its bot: as
/// [`seat_of_request`] finds it, and refused when the request carries no credential, since
/// only a seat may act.
async fn acting_seat(
    state: &AppState,
    headers: &HeaderMap,
    loaded: &Loaded,
) -> BgpResult<(usize, Bot)> {
    seat_of_request(state, headers, loaded)
        .await?
        .ok_or_else(|| {
            BgpError::invalid_token("send the seat's X-Play-Token (or the agent's bearer key)")
        })
}

/// The seat a request speaks for in `loaded`'s match, and the participant in it: by its
/// play token (`401 invalid_token` when it matches no seat of this match), else by its
/// bearer key (`403 wrong_seat` when the agent has no seat here); `None` with neither.
pub(crate) async fn seat_of_request(
    state: &AppState,
    headers: &HeaderMap,
    loaded: &Loaded,
) -> BgpResult<Option<(usize, Bot)>> {
    let participant = if let Some(token) = play_token(headers) {
        let holder = state.arena.seat_holder(loaded.id, token).await?;
        Some(holder.ok_or_else(|| {
            BgpError::invalid_token("the play token does not belong to a seat of this match")
        })?)
    } else if let Some(bot) = bearer_bot(state, headers)? {
        let seat = loaded
            .snapshot
            .participants
            .iter()
            .position(|p| p.id == bot.id)
            .ok_or_else(|| BgpError::wrong_seat("this agent has no seat in this match"))?;
        return Ok(Some((seat, bot)));
    } else {
        None
    };
    let Some(seat) = participant else {
        return Ok(None);
    };
    let summary = loaded
        .snapshot
        .participants
        .get(seat)
        .ok_or_else(|| BgpError::internal("a seat without a player"))?;
    let bot = state
        .arena
        .participant(summary.id)
        .ok_or_else(|| BgpError::invalid_token("the seat's player no longer exists"))?;
    Ok(Some((seat, bot)))
}

/// The players of a match, as the protocol lists them.
pub(crate) fn players(arena: &Arena, snapshot: &MatchSnapshot) -> Vec<Value> {
    snapshot
        .participants
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let guest = p.kind == BotKind::Human;
            let display = arena
                .participant(p.id)
                .and_then(|bot| bot.profile.display_name);
            let name = feed::player_name(&p.name);
            json!({
                "seat": seat,
                "name": name,
                "display_name": display.unwrap_or_else(|| name.clone()),
                "is_guest": guest,
                "agent_id": (!guest).then(|| p.id.to_string()),
            })
        })
        .collect()
}

/// A match's config as the protocol shows it.
fn config_of(snapshot: &MatchSnapshot, points: &dyn PointBoard) -> Value {
    json!({
        "board_size": points.size_of_variant(&snapshot.variant),
        "turn_timeout": snapshot.time_control.per_turn_ms.unwrap_or(0) / 1000,
        "variant": snapshot.variant,
    })
}

/// The leg's view, if the match has started.
fn view_of(snapshot: &MatchSnapshot) -> Option<&Value> {
    snapshot.legs.first().map(|leg| &leg.view)
}

/// The seat to move and its deadline (Unix seconds), while the match runs.
fn turn_of(snapshot: &MatchSnapshot) -> (Option<usize>, Option<i64>) {
    let Some(leg) = snapshot.legs.first() else {
        return (None, None);
    };
    match (snapshot.status, leg.to_move) {
        (MatchStatus::Running, Some(seat)) => {
            let deadline = snapshot
                .time_control
                .per_turn_ms
                .map(|ms| feed::unix_s(leg.turn_started_ms + ms));
            (Some(seat), deadline)
        }
        _ => (None, None),
    }
}

/// The board as the protocol renders it: size, stones with colour and the move that placed
/// them, the last move and the number of moves.
pub(crate) fn render(loaded: &Loaded, events: &[Arc<feed::BgpEvent>]) -> Value {
    let points = loaded.points;
    let size = view_of(&loaded.snapshot)
        .and_then(|view| points.size(view))
        .or_else(|| points.size_of_variant(&loaded.snapshot.variant))
        .unwrap_or(0);
    // The move that last put a stone on each point gives the stone's `seq`.
    let mut placed: std::collections::HashMap<(u64, u64), i64> = Default::default();
    let mut last_move = Value::Null;
    let mut moves = 0;
    for event in events {
        match event.kind() {
            "stone_placed" => {
                let (x, y) = (
                    event.value["x"].as_u64().unwrap_or(0),
                    event.value["y"].as_u64().unwrap_or(0),
                );
                placed.insert((x, y), event.value["move_number"].as_i64().unwrap_or(0));
                last_move = json!({"x": x, "y": y});
                moves += 1;
            }
            "passed" => {
                last_move = json!({"pass": true, "seat": event.value["seat"]});
                moves += 1;
            }
            _ => {}
        }
    }
    let stones: Vec<Value> = view_of(&loaded.snapshot)
        .map(|view| points.stones(view))
        .unwrap_or_default()
        .into_iter()
        .map(|stone| {
            let (x, y) = (stone.point.x, stone.point.y);
            json!({
                "x": x,
                "y": y,
                "color": points.colours().get(stone.seat.index()).copied().unwrap_or(""),
                "seq": placed.get(&(u64::from(x), u64::from(y))).copied(),
            })
        })
        .collect();
    json!({
        "board_size": size,
        "stones": stones,
        "last_move": last_move,
        "move_count": moves,
    })
}

/// The result as the protocol gives it, once the match has one.
pub(crate) fn result_of(
    state: &AppState,
    headers: &HeaderMap,
    loaded: &Loaded,
    moves: u32,
) -> Value {
    let snapshot = &loaded.snapshot;
    let Some(result) = &snapshot.result else {
        return Value::Null;
    };
    let winner = result.winner();
    let reason = feed::reason_word(loaded.points, &result.reason, winner);
    let cancelled = feed::status_name(snapshot.status) == "cancelled";
    json!({
        "winner_seat": winner,
        "reason": if cancelled { "cancelled".to_owned() } else { reason.clone() },
        "summary": if cancelled {
            format!("cancelled ({})", result.reason)
        } else {
            feed::summary(loaded.points.colours(), winner, moves, &reason)
        },
        "claim_url": claim_url(state, headers, loaded.id),
    })
}

fn claim_url(state: &AppState, headers: &HeaderMap, id: MatchId) -> String {
    format!("{}/matches/{id}/claim", public_url(state, headers))
}

fn invite_url(state: &AppState, headers: &HeaderMap, id: MatchId) -> String {
    format!("{}/matches/{id}", public_url(state, headers))
}

/// The number of moves among a feed's events.
fn move_count(events: &[Arc<feed::BgpEvent>]) -> u32 {
    let moves = events
        .iter()
        .filter(|e| matches!(e.kind(), "stone_placed" | "passed"))
        .count();
    u32::try_from(moves).unwrap_or(u32::MAX)
}

/// The whole snapshot the protocol's `GET /api/matches/{id}` answers.
pub(crate) fn snapshot_body(
    state: &AppState,
    headers: &HeaderMap,
    loaded: &Loaded,
    feed: &Feed,
) -> Value {
    let snapshot = &loaded.snapshot;
    let events = feed.all();
    let (current, deadline) = turn_of(snapshot);
    json!({
        "match_id": loaded.id.to_string(),
        "game": snapshot.game,
        "status": feed::status_name(snapshot.status),
        "config": config_of(snapshot, loaded.points),
        "players": players(&state.arena, snapshot),
        "current_seat": current,
        "deadline_ts": deadline,
        "render": render(loaded, &events),
        "result": result_of(state, headers, loaded, move_count(&events)),
        "events_total": feed.total(),
        "created_at": feed::iso(snapshot.created_ms),
        "invite_url": invite_url(state, headers, loaded.id),
        "claim_url": claim_url(state, headers, loaded.id),
    })
}

/// The family and variant a create asks for, and its per-turn limit in milliseconds.
fn choose_game(
    arena: &Arena,
    body: &CreateBody,
    default: &'static Family,
) -> BgpResult<(&'static Family, &'static dyn PointBoard, String, i64)> {
    let served = served_games(arena);
    let family = match body.game.as_deref() {
        None => default,
        Some(game) => arena
            .games()
            .get(game)
            .filter(|family| family.point_board().is_some())
            .ok_or_else(|| {
                BgpError::bad_request(format!(
                    "this server does not serve {game:?} here; it serves {}",
                    served.join(", ")
                ))
                .with_detail("field", "game")
                .with_detail("games", served.clone())
            })?,
    };
    let points = family
        .point_board()
        .ok_or_else(|| BgpError::internal("the default game has no board of points"))?;
    let config = &body.config;
    let text = |key: &str| -> BgpResult<Option<&str>> {
        match config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.as_str())),
            Some(_) => Err(
                BgpError::bad_request(format!("config.{key} must be a string"))
                    .with_detail("field", format!("config.{key}")),
            ),
        }
    };
    let number = |key: &str| -> BgpResult<Option<i64>> {
        match config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value.as_i64().map(Some).ok_or_else(|| {
                BgpError::bad_request(format!("config.{key} must be a whole number"))
                    .with_detail("field", format!("config.{key}"))
            }),
        }
    };
    let turn_timeout = number("turn_timeout")?.unwrap_or(DEFAULT_TURN_TIMEOUT_S);
    if !TURN_TIMEOUT_S.contains(&turn_timeout) {
        return Err(BgpError::bad_request(format!(
            "config.turn_timeout must be between {} and {} seconds",
            TURN_TIMEOUT_S.start(),
            TURN_TIMEOUT_S.end()
        ))
        .with_detail("field", "config.turn_timeout"));
    }
    let size = number("board_size")?;
    let named = text("variant")?.or(text("rule")?);
    // The variants played on points, the default first.
    let mut variants: Vec<(&str, u32)> = family
        .setup
        .variants()
        .iter()
        .filter_map(|spec| Some((spec.name, points.size_of_variant(spec.name)?)))
        .collect();
    variants.sort_by_key(|(name, _)| *name != family.default_variant().name);
    let fits = |(name, side): &(&str, u32)| {
        size.is_none_or(|size| i64::from(*side) == size)
            && named.is_none_or(|named| {
                *name == named || name.strip_prefix(named).is_some_and(|r| r.starts_with('-'))
            })
    };
    let Some((variant, _)) = variants.iter().find(|v| fits(v)) else {
        let offered: Vec<String> = variants
            .iter()
            .map(|(name, side)| format!("{name} ({side}x{side})"))
            .collect();
        return Err(BgpError::bad_request(format!(
            "{} is not played here with that config; its variants are {}",
            family.id(),
            offered.join(", ")
        ))
        .with_detail("field", "config"));
    };
    Ok((family, points, (*variant).to_owned(), turn_timeout * 1000))
}

/// The player a request seats: its agent, or a new guest named by `player`.
async fn principal(
    state: &AppState,
    headers: &HeaderMap,
    player: Option<&PlayerBody>,
) -> BgpResult<Bot> {
    if let Some(bot) = bearer_bot(state, headers)? {
        return Ok(bot);
    }
    let name = player
        .and_then(|p| p.name.as_deref())
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            BgpError::bad_request(
                "a guest must give player.name (or send Authorization: Bearer <api_key>)",
            )
            .with_detail("field", "player.name")
        })?;
    let display = player.and_then(|p| p.display_name.clone());
    state
        .arena
        .new_table_guest(name, display)
        .await
        .map_err(|error| match error {
            ArenaError::InvalidName(text) => {
                BgpError::bad_request(text).with_detail("field", "player.name")
            }
            other => other.into(),
        })
}

/// A new play token: the secret for the player, its hash for the arena.
fn new_play_token() -> BgpResult<token::NewToken> {
    token::generate(PLAY_TOKEN_PREFIX).map_err(|e| BgpError::internal(e.to_string()))
}

async fn create(
    State(state): State<AppState>,
    ClientAddr(ip): ClientAddr,
    headers: HeaderMap,
    BgpJson(body): BgpJson<CreateBody>,
) -> BgpResult<Response> {
    let default = state
        .dialects
        .bgp_default()
        .ok_or_else(|| BgpError::internal("the protocol has no default game"))?;
    let (family, points, variant, per_turn_ms) = choose_game(&state.arena, &body, default)?;
    let meta = body.player.as_ref().and_then(|p| p.meta.as_ref());
    let provenance = Provenance::of_request(&state, &headers, meta)?;
    anti_cheat::count_opening(&state, ip)?;
    let bot = principal(&state, &headers, body.player.as_ref()).await?;
    let token = new_play_token()?;
    let request = TableRequest {
        game: family.id().to_owned(),
        variant: Some(variant.clone()),
        seats: 2,
        format: Format::Single,
        // The turn's own limit decides; the clock of the whole game never runs out first,
        // since every move gives back a whole turn.
        time_control: TimeControl {
            initial_ms: per_turn_ms,
            increment_ms: per_turn_ms,
            per_turn_ms: Some(per_turn_ms),
        },
        client_seed: None,
        language: Default::default(),
    };
    let terms = TableTerms {
        wait_ms: Some(WAITING_MS),
        polled: true,
        opening: Some(Opening::Start),
        rated: true,
        seat_keys: vec![Some(token.hash.clone())],
        ..TableTerms::default()
    };
    let summary = state.arena.open_table_with(&bot, request, terms).await?;
    provenance.record(&state, summary.id, 0, &bot).await?;
    let body = json!({
        "match_id": summary.id.to_string(),
        "seat": 0,
        "play_token": token.secret,
        "invite_url": invite_url(&state, &headers, summary.id),
        "claim_url": claim_url(&state, &headers, summary.id),
        "status": feed::status_name(summary.status),
        "config": {
            "board_size": points.size_of_variant(&variant),
            "turn_timeout": per_turn_ms / 1000,
            "variant": variant,
        },
        "game": family.id(),
    });
    Ok((StatusCode::CREATED, no_store(), axum::Json(body)).into_response())
}

/// Replies that carry a secret are never cached.
fn no_store() -> [(header::HeaderName, &'static str); 1] {
    [(header::CACHE_CONTROL, "no-store")]
}

async fn join(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    headers: HeaderMap,
    BgpJson(body): BgpJson<JoinBody>,
) -> BgpResult<Response> {
    let loaded = load(&state, &id, Reader::SPECTATOR).await?;
    let snapshot = &loaded.snapshot;
    match snapshot.status {
        MatchStatus::Pending if snapshot.participants.len() < 2 => {}
        MatchStatus::Pending | MatchStatus::Running => {
            return Err(BgpError::conflict("match_full", "both seats are taken"));
        }
        _ => {
            return Err(BgpError::conflict(
                "match_not_waiting",
                "the match is not waiting for players",
            ));
        }
    }
    let meta = body.player.as_ref().and_then(|p| p.meta.as_ref());
    let provenance = Provenance::of_request(&state, &headers, meta)?;
    // A guest may not take a name already seated here.
    if bearer_bot(&state, &headers)?.is_none()
        && let Some(name) = body.player.as_ref().and_then(|p| p.name.as_deref())
        && snapshot
            .participants
            .iter()
            .any(|p| feed::player_name(&p.name) == name.trim())
    {
        return Err(BgpError::conflict(
            "duplicate_player",
            format!("{:?} already has a seat in this match", name.trim()),
        ));
    }
    let bot = principal(&state, &headers, body.player.as_ref()).await?;
    anti_cheat::check_distinct(&state, snapshot, &bot, &provenance).await?;
    let token = new_play_token()?;
    let summary = state
        .arena
        .join_table_with(&bot, loaded.id, Some(token.hash.clone()))
        .await
        .map_err(|error| match error {
            ArenaError::ChallengeNotPending => {
                BgpError::conflict("match_full", "both seats are taken")
            }
            ArenaError::InvalidRequest(text) if text.contains("already has a seat") => {
                BgpError::conflict("duplicate_player", text)
            }
            other => other.into(),
        })?;
    provenance.record(&state, loaded.id, 1, &bot).await?;
    let leg = summary.legs.first();
    let deadline = leg.and_then(|leg| {
        summary
            .time_control
            .per_turn_ms
            .map(|ms| feed::unix_s(leg.turn_started_ms + ms))
    });
    let body = json!({
        "match_id": loaded.id.to_string(),
        "seat": 1,
        "play_token": token.secret,
        "status": feed::status_name(summary.status),
        "current_seat": leg.and_then(|leg| leg.to_move),
        "deadline_ts": deadline,
        "invite_url": invite_url(&state, &headers, loaded.id),
        "claim_url": claim_url(&state, &headers, loaded.id),
    });
    Ok((StatusCode::OK, no_store(), axum::Json(body)).into_response())
}

/// An action's body.
#[derive(Debug, Deserialize)]
struct ActionBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    x: Option<Value>,
    y: Option<Value>,
    seat: Option<Value>,
    comment: Option<Value>,
    analysis: Option<Value>,
}

/// What a move says besides itself, checked: a comment of at most [`COMMENT_MAX_CHARS`]
/// and an analysis object of at most [`ANALYSIS_MAX_BYTES`] of JSON, private when its
/// `private` is `true`.
fn note_of(body: &ActionBody) -> BgpResult<MoveNote> {
    let comment = match &body.comment {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if text.chars().count() <= COMMENT_MAX_CHARS => {
            Some(text.clone()).filter(|t| !t.trim().is_empty())
        }
        Some(Value::String(_)) => {
            return Err(BgpError::bad_request(format!(
                "comment is longer than {COMMENT_MAX_CHARS} characters"
            ))
            .with_detail("field", "comment"));
        }
        Some(_) => {
            return Err(
                BgpError::bad_request("comment must be a string").with_detail("field", "comment")
            );
        }
    };
    let analysis = match &body.analysis {
        None | Some(Value::Null) => None,
        Some(Value::Object(analysis)) => {
            if Value::Object(analysis.clone()).to_string().len() > ANALYSIS_MAX_BYTES {
                return Err(BgpError::bad_request(format!(
                    "analysis is larger than {ANALYSIS_MAX_BYTES} bytes of JSON"
                ))
                .with_detail("field", "analysis"));
            }
            Some(Value::Object(analysis.clone()))
        }
        Some(_) => {
            return Err(BgpError::bad_request("analysis must be a JSON object")
                .with_detail("field", "analysis"));
        }
    };
    let private = analysis
        .as_ref()
        .is_some_and(|a| a.get("private") == Some(&Value::Bool(true)));
    let mut public = Map::new();
    if let Some(comment) = comment {
        public.insert("comment".to_owned(), json!(comment));
    }
    let mut note = MoveNote::default();
    match analysis {
        Some(analysis) if private => note.private = Some(json!({"private_analysis": analysis})),
        Some(analysis) => {
            public.insert("analysis".to_owned(), analysis);
        }
        None => {}
    }
    if !public.is_empty() {
        note.public = Some(Value::Object(public));
    }
    Ok(note)
}

/// A coordinate of an action: a whole number from 0.
fn coordinate(value: Option<&Value>, field: &str) -> BgpResult<u32> {
    value
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| {
            BgpError::bad_request(format!("{field} must be a whole number from 0"))
                .with_detail("field", field)
        })
}

/// Refuses an action in a match that is not being played, in the protocol's words.
fn check_running(snapshot: &MatchSnapshot) -> BgpResult<()> {
    match snapshot.status {
        MatchStatus::Running => Ok(()),
        MatchStatus::Pending => Err(BgpError::conflict(
            "not_your_turn",
            "the match has not started: it waits for its second player",
        )),
        MatchStatus::Finished
            if snapshot
                .result
                .as_ref()
                .is_some_and(|r| r.reason.contains("timeout")) =>
        {
            Err(BgpError::conflict(
                "timeout_already_forfeited",
                "the turn ran out and the match was forfeited",
            ))
        }
        _ => Err(BgpError::conflict("match_finished", "the match is over")),
    }
}

async fn action(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    BgpQuery(query): BgpQuery<SeatQuery>,
    headers: HeaderMap,
    BgpJson(body): BgpJson<ActionBody>,
) -> BgpResult<Response> {
    refuse_token_in_query(&query)?;
    anti_cheat::check_provider(&state, &headers)?;
    let kind = body.kind.as_deref().ok_or_else(|| {
        BgpError::bad_request("an action names its type: place_stone or pass")
            .with_detail("field", "type")
    })?;
    let note = note_of(&body)?;
    let spectator = load(&state, &id, Reader::SPECTATOR).await?;
    let (seat, bot) = acting_seat(&state, &headers, &spectator).await?;
    if let Some(claimed) = &body.seat
        && claimed.as_u64() != u64::try_from(seat).ok()
    {
        return Err(BgpError::wrong_seat(format!(
            "the credential is seat {seat}'s, not seat {claimed}'s"
        )));
    }
    let reader = state.arena.reader_for(spectator.id, Some(&bot));
    let loaded = load(&state, &id, reader).await?;
    check_running(&loaded.snapshot)?;
    let leg = loaded
        .snapshot
        .legs
        .first()
        .ok_or_else(|| BgpError::internal("a running match without a board"))?;
    if leg.to_move != Some(seat) {
        return Err(BgpError::conflict(
            "not_your_turn",
            "it is the other seat's turn",
        ));
    }
    let size = loaded.points.size(&leg.view).unwrap_or(0);
    let (submitted, point) = match kind {
        "place_stone" => {
            let point = Point {
                x: coordinate(body.x.as_ref(), "x")?,
                y: coordinate(body.y.as_ref(), "y")?,
            };
            if point.x >= size || point.y >= size {
                return Err(BgpError::invalid_move(
                    "out_of_board",
                    format!(
                        "({}, {}) is outside the {size}x{size} board",
                        point.x, point.y
                    ),
                ));
            }
            (loaded.points.place(size, point), Some(point))
        }
        "pass" => match loaded.points.pass() {
            Some(pass) => (pass, None),
            None => {
                return Err(BgpError::invalid_move(
                    "no_pass",
                    format!("{} has no pass: place a stone", loaded.family.id()),
                ));
            }
        },
        other => {
            return Err(BgpError::bad_request(format!(
                "unknown action type {other:?}: the actions are place_stone and pass"
            ))
            .with_detail("field", "type"));
        }
    };
    let reply = state
        .arena
        .submit_noted(&bot, loaded.id, 0, leg.revision, submitted, note)
        .await
        .map_err(|error| match (error, point) {
            (ArenaError::IllegalMove(text), Some(point)) => {
                match loaded.points.refusal(&leg.view, point, &text) {
                    PointRefusal::OutOfBoard => BgpError::invalid_move("out_of_board", text),
                    PointRefusal::Occupied => BgpError::invalid_move(
                        "occupied",
                        format!("({}, {}) already has a stone", point.x, point.y),
                    ),
                    PointRefusal::Forbidden(why) => BgpError::invalid_move("forbidden", why),
                    PointRefusal::Illegal(why) => BgpError::invalid_move("illegal", why),
                }
            }
            (ArenaError::IllegalMove(text), None) => BgpError::invalid_move("illegal", text),
            (ArenaError::StaleRevision { .. }, _) => {
                BgpError::conflict("not_your_turn", "the turn has moved on")
            }
            (ArenaError::MatchNotRunning | ArenaError::LegFinished(_), _) => {
                BgpError::conflict("match_finished", "the match is over")
            }
            (other, _) => other.into(),
        })?;
    anti_cheat::note_move(&state, &bot, &reply).await;
    let after = load(&state, &id, reader).await?;
    let feed = feed_of(&state, &after).await?;
    let event_seq = feed.seq_of_move(reply.seq).await.unwrap_or(feed.total());
    let events = feed.all();
    let status = feed::status_name(after.snapshot.status);
    // `seq` counts the match's moves (the protocol's "move 42"); `events_since` is the
    // `since` whose page starts with this move's own event.
    let move_number = events
        .iter()
        .find(|event| event.seq == event_seq)
        .and_then(|event| event.value["move_number"].as_i64())
        .unwrap_or_else(|| i64::from(move_count(&events)));
    let mut body = json!({
        "accepted": true,
        "seq": move_number,
        "status": status,
        "events_since": event_seq - 1,
    });
    if after.snapshot.status == MatchStatus::Running {
        let (current, deadline) = turn_of(&after.snapshot);
        body["current_seat"] = json!(current);
        body["deadline_ts"] = json!(deadline);
        body["board_snapshot"] = render(&after, &events);
    } else {
        body["result"] = result_of(&state, &headers, &after, move_count(&events));
        body["board_snapshot"] = render(&after, &events);
    }
    Ok(axum::Json(body).into_response())
}

async fn resign(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    BgpQuery(query): BgpQuery<SeatQuery>,
    headers: HeaderMap,
) -> BgpResult<Response> {
    refuse_token_in_query(&query)?;
    // A resignation is a write like any other: only a trusted provider may send it.
    anti_cheat::check_provider(&state, &headers)?;
    let loaded = load(&state, &id, Reader::SPECTATOR).await?;
    let (_, bot) = acting_seat(&state, &headers, &loaded).await?;
    check_running(&loaded.snapshot)?;
    state.arena.resign(&bot, loaded.id).await?;
    let after = load(&state, &id, Reader::SPECTATOR).await?;
    let feed = feed_of(&state, &after).await?;
    let events = feed.all();
    Ok(axum::Json(json!({
        "accepted": true,
        "seq": move_count(&events),
        "status": feed::status_name(after.snapshot.status),
        "result": result_of(&state, &headers, &after, move_count(&events)),
    }))
    .into_response())
}

async fn snapshot(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    BgpQuery(query): BgpQuery<SeatQuery>,
    headers: HeaderMap,
) -> BgpResult<Response> {
    refuse_token_in_query(&query)?;
    let loaded = load(&state, &id, Reader::SPECTATOR).await?;
    let asked_seat = match query.seat.as_deref() {
        None => None,
        Some(text) => Some(
            text.parse::<usize>()
                .ok()
                .filter(|&s| s < 2)
                .ok_or_else(|| {
                    BgpError::bad_request("seat must be 0 or 1").with_detail("field", "seat")
                })?,
        ),
    };
    let holder = match play_token(&headers) {
        Some(_) => seat_of_request(&state, &headers, &loaded)
            .await?
            .map(|(seat, _)| seat),
        None => None,
    };
    let feed = feed_of(&state, &loaded).await?;
    let mut body = snapshot_body(&state, &headers, &loaded, &feed);
    if let Some(seat) = holder.or(asked_seat) {
        let (current, _) = turn_of(&loaded.snapshot);
        body["your_turn"] = json!(current == Some(seat));
        body["seat"] = json!(seat);
    }
    Ok(axum::Json(body).into_response())
}

/// A whole number of a query parameter, `default` when absent.
fn query_number(text: Option<&str>, field: &str, default: i64) -> BgpResult<i64> {
    match text {
        None | Some("") => Ok(default),
        Some(text) => text.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
            BgpError::bad_request(format!("{field} must be a whole number from 0"))
                .with_detail("field", field)
        }),
    }
}

/// The seats whose private analysis a request may read: the seat its credential holds;
/// none for an agent without a seat here, who reads as any spectator does.
async fn owned_seats(
    state: &AppState,
    headers: &HeaderMap,
    loaded: &Loaded,
) -> BgpResult<Vec<usize>> {
    match seat_of_request(state, headers, loaded).await {
        Ok(seat) => Ok(seat.map(|(seat, _)| vec![seat]).unwrap_or_default()),
        Err(error) if error.code == "wrong_seat" => Ok(Vec::new()),
        Err(error) => Err(error),
    }
}

/// One page of events as the protocol's long-poll answers.
fn events_page(
    id: MatchId,
    since: i64,
    events: &[Arc<feed::BgpEvent>],
    status: &str,
    owned: &[usize],
) -> String {
    let next_since = events.last().map_or(since, |e| e.seq);
    let mut text = format!(
        "{{\"match_id\":\"{id}\",\"since\":{since},\"next_since\":{next_since},\"status\":\"{status}\",\"events\":["
    );
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&event.text_for(owned));
    }
    text.push_str("]}");
    text
}

async fn events(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    BgpQuery(query): BgpQuery<SeatQuery>,
    headers: HeaderMap,
) -> BgpResult<Response> {
    refuse_token_in_query(&query)?;
    let since = query_number(query.since.as_deref(), "since", 0)?;
    let wait = query_number(query.wait.as_deref(), "wait", 0)?.min(WAIT_MAX_S);
    // A spectator's long-poll of a match whose feed is kept asks the match nothing: the
    // feed's own task keeps it up to date, and the wait sees whatever it adds. Many
    // spectators polling again after each event then cost the match's actor nothing.
    let kept = (wait > 0 && play_token(&headers).is_none() && bearer(&headers).is_none())
        .then(|| id.parse::<MatchId>().ok())
        .flatten()
        .and_then(|match_id| state.bgp_feeds.kept(match_id));
    let (match_id, owned, feed) = match kept {
        Some(feed) => (feed.id(), Vec::new(), feed),
        None => {
            let loaded = load(&state, &id, Reader::SPECTATOR).await?;
            let owned = owned_seats(&state, &headers, &loaded).await?;
            (loaded.id, owned, feed_of(&state, &loaded).await?)
        }
    };
    if feed.total() <= since && wait > 0 {
        let deadline = state.arena.now_ms() + wait * 1000;
        feed.wait_beyond(&state.arena, since, deadline).await;
    }
    let (events, status) = feed.page(since);
    let text = events_page(match_id, since, &events, status, &owned);
    Ok(([(header::CONTENT_TYPE, "application/json")], text).into_response())
}

/// Server-sent events: every event after `since` (or `Last-Event-ID`), then each new one
/// as it happens, with a comment line as a heartbeat while nothing does; the stream ends
/// after the match has closed and its last event has been sent.
async fn stream(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    BgpQuery(query): BgpQuery<SeatQuery>,
    headers: HeaderMap,
) -> BgpResult<Response> {
    refuse_token_in_query(&query)?;
    let resumed = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let since = query_number(resumed.as_deref().or(query.since.as_deref()), "since", 0)?;
    let loaded = load(&state, &id, Reader::SPECTATOR).await?;
    let owned = owned_seats(&state, &headers, &loaded).await?;
    let feed = feed_of(&state, &loaded).await?;
    let arena = state.arena.clone();
    let heartbeat_ms = arena.config().ping_ms.max(1000);
    let lines = futures::stream::unfold((since, false), move |(since, done)| {
        let (arena, feed, owned) = (arena.clone(), feed.clone(), owned.clone());
        async move {
            if done || (feed.is_closed() && feed.total() <= since) {
                return None;
            }
            let deadline = arena.now_ms() + heartbeat_ms;
            feed.wait_beyond(&arena, since, deadline).await;
            let (events, status) = feed.page(since);
            if events.is_empty() {
                // An early return without events: the arena is stopping.
                if arena.now_ms() < deadline {
                    return None;
                }
                let closed = matches!(status, "finished" | "cancelled");
                let line = bytes::Bytes::from_static(b": heartbeat\n\n");
                return Some((Ok::<_, std::convert::Infallible>(line), (since, closed)));
            }
            let mut text = String::new();
            for event in &events {
                text.push_str(&format!(
                    "id: {}\nevent: {}\ndata: {}\n\n",
                    event.seq,
                    event.kind(),
                    event.text_for(&owned)
                ));
            }
            let next = events.last().map_or(since, |e| e.seq);
            Some((Ok(bytes::Bytes::from(text)), (next, false)))
        }
    });
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(lines),
    )
        .into_response())
}
