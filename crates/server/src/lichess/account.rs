//! Identities: testing tokens, the account (every bot is a bot already, so upgrading changes
//! nothing), the games being played, users' presence, the online bots and public profiles.

use arbiter_arena::{BotKind, MatchStatus};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use super::{LiBot, LiError, LiResult, line, ndjson, ok, render, served};
use crate::AppState;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/token/test", post(test_tokens))
        .route("/api/account", get(account))
        .route("/api/bot/account/upgrade", post(upgrade))
        .route("/api/account/playing", get(playing))
        .route("/api/users/status", get(users_status))
        .route("/api/bot/online", get(online))
        .route("/api/user/{username}", get(user))
}

/// The most tokens one test may name.
const MAX_TOKENS: usize = 1000;

/// What every bot token may do here.
const SCOPES: &str = "bot:play,challenge:read,challenge:write";

/// `POST /api/token/test`: for each token of the body (comma-separated), the bot it belongs
/// to and what it may do, or `null`.
async fn test_tokens(State(state): State<AppState>, body: Bytes) -> LiResult<Response> {
    served(&state)?;
    let text = std::str::from_utf8(&body)
        .map_err(|_| LiError::bad_request("the body is not UTF-8 text"))?;
    let tokens: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() > MAX_TOKENS {
        return Err(LiError::bad_request(format!(
            "at most {MAX_TOKENS} tokens at once"
        )));
    }
    let mut answers = Map::new();
    for token in tokens {
        let answer = match state.arena.authenticate(token) {
            Ok(bot) => json!({
                "userId": render::user_id(&bot.name),
                "scopes": SCOPES,
                "expires": Value::Null,
            }),
            Err(_) => Value::Null,
        };
        answers.insert(token.to_owned(), answer);
    }
    Ok(axum::Json(Value::Object(answers)).into_response())
}

/// `GET /api/account`.
async fn account(State(state): State<AppState>, LiBot(bot): LiBot) -> LiResult<Response> {
    let served = served(&state)?.clone();
    Ok(axum::Json(render::profile(&state, &served, &bot).await).into_response())
}

/// `POST /api/bot/account/upgrade`: every bot is a bot account already.
async fn upgrade(State(state): State<AppState>, LiBot(_bot): LiBot) -> LiResult<Response> {
    served(&state)?;
    Ok(ok())
}

/// `GET /api/account/playing`: the games the bot is playing, in the dialect's games.
async fn playing(State(state): State<AppState>, LiBot(bot): LiBot) -> LiResult<Response> {
    let served = served(&state)?.clone();
    let mut now_playing = Vec::new();
    for snapshot in state.arena.open_matches_of(bot.id).await {
        if snapshot.status != MatchStatus::Running {
            continue;
        }
        if let Some(game) = served.game(snapshot.game, &snapshot.variant, snapshot.format) {
            now_playing.push(render::game_info(&state, &game, &snapshot, bot.id).await);
        }
    }
    let my_turn = now_playing
        .iter()
        .filter(|info| info["isMyTurn"] == true)
        .count();
    Ok(axum::Json(json!({"nowPlaying": now_playing, "nbMyTurn": my_turn})).into_response())
}

/// The most users one status request may name.
const MAX_IDS: usize = 100;

/// `GET /api/users/status?ids=a,b`: whether each bot named is connected; unknown names are
/// left out.
async fn users_status(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> LiResult<Response> {
    served(&state)?;
    let ids = query_field(query.as_deref(), "ids").unwrap_or_default();
    let statuses: Vec<Value> = ids
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .take(MAX_IDS)
        .filter_map(|id| state.arena.find_bot(id).ok())
        .filter(|bot| bot.kind != BotKind::Human)
        .map(|bot| {
            json!({
                "id": render::user_id(&bot.name),
                "name": bot.name,
                "title": "BOT",
                "online": state.arena.is_online(bot.id),
            })
        })
        .collect();
    Ok(axum::Json(statuses).into_response())
}

/// The most bots the online list gives.
const MAX_ONLINE: usize = 300;

/// `GET /api/bot/online?nb=N`: the connected bots, one profile per line.
async fn online(State(state): State<AppState>, RawQuery(query): RawQuery) -> LiResult<Response> {
    let served = served(&state)?.clone();
    let limit = query_field(query.as_deref(), "nb")
        .and_then(|nb| nb.parse::<usize>().ok())
        .unwrap_or(50)
        .min(MAX_ONLINE);
    let mut lines = Vec::new();
    for (bot, connected) in state.arena.list_bots() {
        if lines.len() >= limit {
            break;
        }
        if connected || bot.kind == BotKind::House {
            lines.push(line(&render::profile(&state, &served, &bot).await));
        }
    }
    let chunks = futures::stream::iter(lines.into_iter().map(Ok::<_, std::convert::Infallible>));
    Ok(ndjson(Body::from_stream(chunks)))
}

/// `GET /api/user/{username}`: a bot's public profile.
async fn user(State(state): State<AppState>, Path(username): Path<String>) -> LiResult<Response> {
    let served = served(&state)?.clone();
    let bot = state
        .arena
        .find_bot(&username)
        .ok()
        .filter(|bot| bot.kind != BotKind::Human)
        .ok_or_else(LiError::not_found)?;
    Ok(axum::Json(render::profile(&state, &served, &bot).await).into_response())
}

/// A field of a query string, if it is there.
fn query_field(query: Option<&str>, name: &str) -> Option<String> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query?)
        .ok()?
        .into_iter()
        .find_map(|(key, value)| (key == name).then_some(value))
}
