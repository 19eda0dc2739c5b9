//! The dialect's identity side: agents, their keys and public profiles, the leaderboard,
//! the operator's notes about matches, and the dialect's OpenAPI document.
//!
//! An agent is a registered bot of the arena, the same principal under the protocol's
//! spelling: `POST /api/agents` registers one (open to anyone, limited per address), its
//! `api_key` is its bot token spelled `ck_live_…` (stored only as its SHA-256 and its first
//! 12 characters), so the key works on the native API too and the agent has a page on the
//! web. Wins and losses are its rated results in the games the dialect serves. Anonymous
//! bots, guests and house bots are not agents: they have no profile here and are never
//! ranked.

use std::cmp::Reverse;

use arbiter_arena::token::Spelling;
use arbiter_arena::{Bot, BotKind, BotProfile, Family, NoteRecord, Tally};
use arbiter_store::MatchId;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Agent, BgpError, BgpJson, BgpPath, BgpQuery, BgpResult, ClientAddr};
use crate::AppState;

/// How the dialect spells agents' keys. The arena finds a token by the hash of the whole
/// secret, so the spelling changes nothing but how the key reads.
pub(crate) const KEY_SPELLING: Spelling = match Spelling::new("ck_live_") {
    Some(spelling) => spelling,
    None => panic!("the key prefix is a valid spelling"),
};

/// The leaderboard's length when a request names none.
pub(crate) const LEADERBOARD_DEFAULT: usize = 50;
/// The longest leaderboard one request may ask for.
pub(crate) const LEADERBOARD_MAX: usize = 200;

/// The dialect's OpenAPI document, both sides' routes; `tests/api/bgp_agents.rs` checks that
/// it lists exactly the routes the dialect's sources declare.
pub(crate) const OPENAPI: &str = include_str!("openapi.json");

/// The identity side's routes, merged into the dialect's router.
pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/agents", post(register).get(leaderboard))
        .route("/api/agents/me", get(me))
        .route("/api/agents/me/rotate-key", post(rotate_key))
        .route("/api/agents/{name}", get(profile))
        .route("/api/admin/matches/{id}/notes", get(match_notes))
        .route("/api/openapi.json", get(openapi))
}

/// The games the dialect serves (those whose family plays on the points of a square board).
fn served_games(state: &AppState) -> Vec<&'static str> {
    super::tables::served_games(&state.arena)
}

/// The families of [`served_games`].
fn served_families(state: &AppState) -> impl Iterator<Item = &'static Family> + '_ {
    state
        .arena
        .games()
        .families()
        .filter(|family| family.point_board().is_some())
}

/// The agent a bot is, if it is one: registered bots are; anonymous bots, guests, people
/// and house bots are not.
fn is_agent(bot: &Bot) -> bool {
    bot.kind == BotKind::Registered && !bot.deleted
}

/// The id the protocol gives an agent (`agent_id`): its bot id, as text.
pub(crate) fn agent_id(bot: &Bot) -> String {
    bot.id.to_string()
}

/// An agent's public profile: who it is and its record; no key, no provider metadata.
fn public_view(state: &AppState, headers: &HeaderMap, bot: &Bot, tally: Tally) -> Value {
    let base = super::public_url(state, headers);
    json!({
        "agent_id": agent_id(bot),
        "name": bot.name,
        "display_name": bot.profile.display_name,
        "bio": bot.profile.bio,
        "wins": tally.wins,
        "losses": tally.losses,
        "draws": tally.draws,
        "total_matches": tally.games,
        "online": state.arena.is_online(bot.id),
        "created_at": super::feed::iso(bot.created_ms),
        "profile_url": format!("{base}{}", arbiter_web::bot_path(&bot.name)),
    })
}

/// An agent's own view: its public profile with the shown part of its key.
fn private_view(state: &AppState, headers: &HeaderMap, bot: &Bot, tally: Tally) -> Value {
    let mut view = public_view(state, headers, bot, tally);
    view["api_key_prefix"] = json!(bot.token_prefix);
    view["disabled"] = json!(bot.disabled);
    view
}

/// A body with a secret in it: never cached on the way.
fn secret_reply(status: StatusCode, body: Value) -> Response {
    let mut response = (status, Json(body)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `POST /api/agents`'s body. Unknown fields (`homepage`, `contact`) are ignored.
#[derive(Debug, Deserialize)]
struct Registration {
    name: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    bio: Option<String>,
}

/// `POST /api/agents`: registers an agent and shows its key once.
async fn register(
    axum::extract::State(state): axum::extract::State<AppState>,
    ClientAddr(ip): ClientAddr,
    headers: HeaderMap,
    BgpJson(body): BgpJson<Registration>,
) -> BgpResult<Response> {
    super::anti_cheat::check_provider(&state, &headers)?;
    // An agent plays every game the dialect serves, in every variant (a game's name covers
    // them all). It is not offered auto-matched games: those come as native challenges,
    // which an agent of this dialect never answers, so every offer would only expire.
    let profile = BotProfile {
        supported_variants: served_games(&state)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        auto_match_off: true,
        display_name: body.display_name,
        bio: body.bio,
        ..BotProfile::default()
    };
    let (bot, key) = state
        .arena
        .register_open(ip, &body.name, profile, KEY_SPELLING)
        .await
        .map_err(registration_error)?;
    let mut view = private_view(&state, &headers, &bot, Tally::default());
    view["api_key"] = json!(key);
    Ok(secret_reply(StatusCode::CREATED, view))
}

/// The arena's refusals of a registration in the protocol's words: a name taken is a
/// conflict, a name or text that breaks the rules a bad request (with the field named).
fn registration_error(error: arbiter_arena::ArenaError) -> BgpError {
    use arbiter_arena::ArenaError;
    let field = match &error {
        ArenaError::InvalidName(_) | ArenaError::NameTaken(_) | ArenaError::NameTooLike { .. } => {
            Some("name")
        }
        ArenaError::InvalidRequest(text) if text.starts_with("display_name") => {
            Some("display_name")
        }
        ArenaError::InvalidRequest(text) if text.starts_with("bio") => Some("bio"),
        _ => None,
    };
    let mapped = BgpError::from(error);
    match field {
        Some(field) => mapped.with_detail("field", field),
        None => mapped,
    }
}

/// The agent behind a request's key; a key of a bot that is not an agent (an anonymous bot)
/// is refused like an unknown one.
fn agent_of(Agent(bot): Agent) -> BgpResult<Bot> {
    if is_agent(&bot) {
        Ok(bot)
    } else {
        Err(BgpError::invalid_token(
            "this key belongs to an anonymous bot, not an agent; register with POST /api/agents",
        ))
    }
}

/// `GET /api/agents/me`: the calling agent's own profile.
async fn me(
    axum::extract::State(state): axum::extract::State<AppState>,
    headers: HeaderMap,
    agent: Agent,
) -> BgpResult<Response> {
    let bot = agent_of(agent)?;
    let tally = state.arena.tally_of(bot.id, &served_games(&state)).await;
    Ok(secret_reply(
        StatusCode::OK,
        private_view(&state, &headers, &bot, tally),
    ))
}

/// `POST /api/agents/me/rotate-key`: a new key; the old one stops working at once, on every
/// door (and the bot's open native streams end).
async fn rotate_key(
    axum::extract::State(state): axum::extract::State<AppState>,
    agent: Agent,
) -> BgpResult<Response> {
    let bot = agent_of(agent)?;
    let (bot, key) = state
        .arena
        .rotate_token_spelled(bot.id, KEY_SPELLING)
        .await?;
    Ok(secret_reply(
        StatusCode::OK,
        json!({"api_key": key, "api_key_prefix": bot.token_prefix}),
    ))
}

/// `GET /api/agents/{name}`: an agent's public profile.
async fn profile(
    axum::extract::State(state): axum::extract::State<AppState>,
    headers: HeaderMap,
    BgpPath(name): BgpPath<String>,
) -> BgpResult<Json<Value>> {
    let not_found = || {
        BgpError::new(
            StatusCode::NOT_FOUND,
            "agent_not_found",
            format!("no agent named {name:?}"),
        )
    };
    let bot = state
        .arena
        .find_bot(&name)
        .ok()
        .filter(is_agent)
        .ok_or_else(not_found)?;
    let tally = state.arena.tally_of(bot.id, &served_games(&state)).await;
    Ok(Json(public_view(&state, &headers, &bot, tally)))
}

/// `GET /api/agents`'s query.
#[derive(Debug, Deserialize)]
struct LeaderboardQuery {
    #[serde(default)]
    limit: Option<usize>,
}

/// `GET /api/agents?limit=N`: the agents that play the dialect's games, by wins (most
/// first), then by fewer losses, then by registration (the earlier first), at most `limit`.
async fn leaderboard(
    axum::extract::State(state): axum::extract::State<AppState>,
    headers: HeaderMap,
    BgpQuery(query): BgpQuery<LeaderboardQuery>,
) -> BgpResult<Json<Value>> {
    let limit = query.limit.unwrap_or(LEADERBOARD_DEFAULT);
    if !(1..=LEADERBOARD_MAX).contains(&limit) {
        return Err(BgpError::bad_request(format!(
            "limit must be between 1 and {LEADERBOARD_MAX}"
        ))
        .with_detail("field", "limit"));
    }
    let games = served_games(&state);
    let modes: Vec<String> = served_families(&state)
        .flat_map(|family| {
            family
                .setup
                .variants()
                .iter()
                .map(|variant| format!("{}:{}", family.id(), variant.name))
        })
        .collect();
    let tallies = state.arena.tallies(&games).await;
    let mut rows: Vec<(Bot, Tally)> = state
        .arena
        .list_bots()
        .into_iter()
        .map(|(bot, _)| bot)
        .filter(is_agent)
        .filter_map(|bot| {
            let tally = tallies.get(&bot.id).copied();
            // An agent is listed once it has played one of the dialect's games, or while it
            // offers one.
            let plays = tally.is_some() || modes.iter().any(|mode| bot.offers(mode));
            plays.then(|| (bot, tally.unwrap_or_default()))
        })
        .collect();
    rows.sort_by_key(|(bot, tally)| (Reverse(tally.wins), tally.losses, bot.id));
    rows.truncate(limit);
    let base = super::public_url(&state, &headers);
    let entries: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(index, (bot, tally))| {
            json!({
                "rank": index + 1,
                "agent_id": agent_id(bot),
                "name": bot.name,
                "display_name": bot.profile.display_name,
                "wins": tally.wins,
                "losses": tally.losses,
                "draws": tally.draws,
                "total_matches": tally.games,
                "profile_url": format!("{base}{}", arbiter_web::bot_path(&bot.name)),
            })
        })
        .collect();
    Ok(Json(Value::Array(entries)))
}

/// A note as the administrator reads it.
fn note_view(note: &NoteRecord) -> Value {
    json!({
        "kind": note.kind,
        "participant": note.participant,
        "at": super::feed::iso(note.at_ms),
        "at_ms": note.at_ms,
        "data": note.data,
    })
}

/// `GET /api/admin/matches/{id}/notes` (administrator token): what the operator alone may
/// read about a match: each seat's provenance (provider headers and `player.meta`) and the
/// moves flagged as too fast.
async fn match_notes(
    axum::extract::State(state): axum::extract::State<AppState>,
    headers: HeaderMap,
    BgpPath(id): BgpPath<String>,
) -> BgpResult<Json<Value>> {
    match super::bearer(&headers) {
        Some(token) if state.arena.is_admin(token) => {}
        Some(_) => {
            return Err(BgpError::new(
                StatusCode::FORBIDDEN,
                "admin_only",
                "this needs the administrator token",
            ));
        }
        None => {
            return Err(BgpError::invalid_token(
                "this needs `Authorization: Bearer <administrator token>`",
            ));
        }
    }
    let match_id: MatchId = id
        .parse()
        .ok()
        .filter(|id: &MatchId| *id > 0)
        .ok_or_else(|| BgpError::match_not_found(&id))?;
    // The match must exist: an unknown id is a 404, not an empty list.
    state
        .arena
        .snapshot(match_id, arbiter_arena::Reader::SPECTATOR)
        .await?;
    let notes = state.arena.notes(match_id).await?;
    Ok(Json(json!({
        "match_id": id,
        "notes": notes.iter().map(note_view).collect::<Vec<_>>(),
    })))
}

/// `GET /api/openapi.json`: the dialect's OpenAPI document.
async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}
