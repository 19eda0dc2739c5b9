//! Challenges: creating one (to any bot, a house bot, or oneself for a game played from both
//! sides), accepting, declining with a reason, and cancelling.

use std::hash::{BuildHasher, Hasher};

use arbiter_arena::{
    ArenaError, ChallengeRequest, Format, MatchStatus, Opening, SeatChoice, TimeControl,
};
use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use super::render::{self, seat_of_colour};
use super::{Fields, LiBot, LiError, LiResult, match_id, ok, served};
use crate::AppState;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/challenge/{username}", post(create))
        .route("/api/challenge/{id}/accept", post(accept))
        .route("/api/challenge/{id}/decline", post(decline))
        .route("/api/challenge/{id}/cancel", post(cancel))
}

/// The longest initial clock a challenge may ask for, in seconds (three hours).
const MAX_LIMIT_S: i64 = 10_800;

/// The largest increment, in seconds.
const MAX_INCREMENT_S: i64 = 180;

/// `POST /api/challenge/{username}`: challenges a bot (`house-greedy` is a house bot, and
/// one's own name starts a game against oneself) in a variant, with a clock and a colour.
async fn create(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(username): Path<String>,
    fields: Fields,
) -> LiResult<Response> {
    let served = served(&state)?.clone();
    let variant = fields.text("variant");
    let (family, variant) = served.mode_of_key(variant.as_deref()).ok_or_else(|| {
        LiError::bad_request(format!(
            "unknown variant {:?}; this server plays {}",
            variant.unwrap_or_default(),
            served.keys().join(", ")
        ))
    })?;
    if fields.text("fen").is_some_and(|fen| !fen.is_empty()) {
        return Err(LiError::bad_request(
            "games from a given position are not offered; leave fen out",
        ));
    }
    let limit = fields.number("clock.limit", 0, MAX_LIMIT_S)?;
    let increment = fields.number("clock.increment", 0, MAX_INCREMENT_S)?;
    let time_control = match (limit, increment) {
        (None, None) if fields.text("days").is_some() => {
            return Err(LiError::bad_request(
                "correspondence games are not offered; give clock.limit and clock.increment",
            ));
        }
        (None, None) => TimeControl::default(),
        (limit, increment) => TimeControl {
            initial_ms: limit.unwrap_or(0) * 1000,
            increment_ms: increment.unwrap_or(0) * 1000,
            per_turn_ms: None,
        },
    };
    let Some(line) = family.line else {
        return Err(LiError::not_found());
    };
    let colour: &'static str = match fields.text("color").as_deref() {
        None | Some("" | "random") => {
            // A fresh hasher's keys are random: a coin toss without a generator of our own.
            let toss = std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish();
            if toss.is_multiple_of(2) {
                "white"
            } else {
                "black"
            }
        }
        Some("white") => "white",
        Some("black") => "black",
        Some(other) => {
            return Err(LiError::bad_request(format!(
                "color must be white, black or random, not {other:?}"
            )));
        }
    };
    let seat = if seat_of_colour(line, colour) == 0 {
        SeatChoice::First
    } else {
        SeatChoice::Second
    };
    let request = ChallengeRequest {
        opponent: username,
        game: family.id().to_owned(),
        variant: Some(variant.to_owned()),
        format: Format::Single,
        time_control,
        rated: fields.flag("rated")?.unwrap_or(false),
        auto: false,
        opening: Opening::default(),
        client_seed: None,
    };
    let summary = state.arena.challenge_seated(&bot, request, seat).await?;
    let game = served
        .game(summary.game, &summary.variant, summary.format)
        .ok_or_else(LiError::not_found)?;
    let json = render::challenge(&state, &game, &summary, bot.id, colour, false).await;
    Ok(axum::Json(json).into_response())
}

/// `POST /api/challenge/{id}/accept`.
async fn accept(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
) -> LiResult<Response> {
    served(&state)?;
    state.arena.accept(&bot, match_id(&id)?, None).await?;
    Ok(ok())
}

/// The reasons a challenge may be declined for: the key clients send and read, and what the
/// challenger is told.
const DECLINE_REASONS: &[(&str, &str)] = &[
    ("generic", "I am not accepting challenges at the moment."),
    (
        "later",
        "This is not the right time for me; please ask again later.",
    ),
    (
        "toofast",
        "This time control is too fast for me; please ask for a slower game.",
    ),
    (
        "tooslow",
        "This time control is too slow for me; please ask for a faster game.",
    ),
    (
        "timecontrol",
        "I am not accepting challenges with this time control.",
    ),
    ("rated", "Please send me a rated challenge instead."),
    ("casual", "Please send me a casual challenge instead."),
    (
        "standard",
        "I am not accepting variant challenges right now.",
    ),
    ("variant", "This variant is not for me."),
    ("nobot", "I am not accepting challenges from bots."),
    ("onlybot", "I am only accepting challenges from bots."),
];

/// The key and text of a decline reason a client gave (any case; `generic` for none or one
/// unknown).
pub(super) fn decline_reason(given: Option<&str>) -> (&'static str, &'static str) {
    let given = given.unwrap_or_default().to_ascii_lowercase();
    DECLINE_REASONS
        .iter()
        .find(|(key, _)| *key == given)
        .copied()
        .unwrap_or(DECLINE_REASONS[0])
}

/// `POST /api/challenge/{id}/decline`, with a `reason`.
async fn decline(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
    fields: Fields,
) -> LiResult<Response> {
    served(&state)?;
    let id = match_id(&id)?;
    let (key, _) = decline_reason(fields.text("reason").as_deref());
    state.lichess.remember_decline(id, key);
    state.arena.decline(&bot, id, false).await?;
    Ok(ok())
}

/// `POST /api/challenge/{id}/cancel`: cancels one's own challenge, or aborts the game it
/// became while that is still possible.
async fn cancel(
    State(state): State<AppState>,
    LiBot(bot): LiBot,
    Path(id): Path<String>,
) -> LiResult<Response> {
    served(&state)?;
    let id = match_id(&id)?;
    match state.arena.decline(&bot, id, true).await {
        Ok(_) => Ok(ok()),
        Err(ArenaError::ChallengeNotPending) => {
            let summary = state.arena.abort(&bot, id).await?;
            if summary.status == MatchStatus::Aborted {
                Ok(ok())
            } else {
                Err(LiError::bad_request("the game can no longer be aborted"))
            }
        }
        Err(other) => Err(other.into()),
    }
}
