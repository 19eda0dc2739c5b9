//! FlipSight's bot API as a dialect of the arena: `POST /flipsight/bot_match_api.php` with an
//! `action` (`agent_poll`, `agent_challenge`, `agent_accept`, `agent_reject`, `agent_move`),
//! answering in FlipSight's shapes — `{"ok": true, …, "server_now_ms"}`, or
//! `{"ok": false, "error": "<FlipSight's error string>", "server_now_ms"}` with its status —
//! so that bots written against FlipSight's documentation play here unchanged.
//!
//! The dialect serves one game, the one given by whoever starts the server ([`Dialects`]):
//! challenges are in that game, variants and ratings are its. With no game given, its routes
//! answer 404 in its shape.
//!
//! [`Dialects`]: crate::Dialects

use arbiter_arena::directory::{Bot, Environment};
use arbiter_arena::snapshot::{LegSnapshot, LegStatus, ParticipantSummary};
use arbiter_arena::{
    ArenaError, ChallengeRequest, Family, Format, MatchSnapshot, MatchSummary, Mode, ROOM_ROUND,
    StreamEvent, utc_datetime,
};
use arbiter_store::{BotId, BotKind, MatchId, MatchStatus};
use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::{AppState, BODY_LIMIT};

/// FlipSight's failure: a status and one of its error strings.
struct Failure {
    status: StatusCode,
    error: String,
}

impl Failure {
    fn new(status: StatusCode, error: &str) -> Failure {
        Failure {
            status,
            error: error.to_owned(),
        }
    }

    /// `{"ok": false, "error", "server_now_ms"}` with the failure's status.
    fn respond(self, now_ms: i64) -> Response {
        let body = json!({"ok": false, "error": self.error, "server_now_ms": now_ms});
        (self.status, axum::Json(body)).into_response()
    }
}

/// A refusal made before a request reaches the dialect (a body too large or too slow, too
/// many requests from one address), in FlipSight's shape and words.
pub(crate) fn refusal(state: &AppState, status: StatusCode) -> Response {
    let error = match status {
        StatusCode::PAYLOAD_TOO_LARGE => TOO_LARGE,
        StatusCode::REQUEST_TIMEOUT => "request timeout",
        StatusCode::TOO_MANY_REQUESTS => "too many requests",
        _ => "request refused",
    };
    Failure::new(status, error).respond(state.arena.now_ms())
}

/// FlipSight's error for a body over the limit.
const TOO_LARGE: &str = "request too large";

/// The bearer token of a request, or an empty string.
fn bearer(request: &Request) -> String {
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or_default()
        .to_owned()
}

/// The arena's errors in FlipSight's words.
impl From<ArenaError> for Failure {
    fn from(error: ArenaError) -> Failure {
        let conflict = |text: &str| Failure::new(StatusCode::CONFLICT, text);
        match error {
            ArenaError::InvalidToken | ArenaError::WrongPassword => {
                Failure::new(StatusCode::UNAUTHORIZED, "invalid bot credential")
            }
            ArenaError::AdminOnly
            | ArenaError::NotYourBot(_)
            | ArenaError::NotParticipant
            | ArenaError::NotOrganiser
            | ArenaError::NotYourChallenge(_) => {
                Failure::new(StatusCode::FORBIDDEN, "access denied")
            }
            // FlipSight has no tournaments; these reach it from no action.
            ArenaError::TournamentNotFound(_) => {
                Failure::new(StatusCode::FORBIDDEN, "access denied")
            }
            ArenaError::TournamentRefused(_) => conflict("request refused"),
            ArenaError::InvalidRequest(_)
            | ArenaError::InvalidName(_)
            | ArenaError::InvalidEnvironment(_)
            | ArenaError::NoSuchLeg(_)
            | ArenaError::MalformedAction(_) => {
                Failure::new(StatusCode::BAD_REQUEST, "JSON object required")
            }
            ArenaError::StaleRevision { .. } => conflict("stale_revision"),
            ArenaError::NotYourTurn => conflict("not_your_turn"),
            ArenaError::IllegalMove(_) => conflict("illegal_move"),
            ArenaError::LegFinished(_) => conflict("leg_finished"),
            ArenaError::MatchNotRunning => conflict("match not running"),
            ArenaError::InvalidCoordinate(_) => conflict("invalid move coordinate"),
            ArenaError::OutsideBoard(_) => conflict("move outside board"),
            ArenaError::UnsupportedVariant(_) => conflict("unsupported game mode"),
            ArenaError::BotBusy(_) => conflict("bot already has an active match"),
            // Too many pending challenges is a busy bot too: FlipSight's only 429 is for streams.
            ArenaError::HasOpenMatches(_) | ArenaError::RateLimited { .. } => conflict("bot busy"),
            // A disabled bot cannot connect.
            ArenaError::BotUnavailable(_) => conflict("both bots must be connected"),
            ArenaError::ChallengeNotPending => conflict("challenge expired or answered"),
            ArenaError::HouseVariantsFull => conflict("site bot variant matches are full"),
            ArenaError::BotNotFound(_)
            | ArenaError::NameTaken(_)
            | ArenaError::NameTooLike { .. } => conflict("target bot not found"),
            ArenaError::MatchNotFound(_) => Failure::new(StatusCode::FORBIDDEN, "access denied"),
            ArenaError::TooManyStreams(_) => {
                Failure::new(StatusCode::TOO_MANY_REQUESTS, "too many streams")
            }
            ArenaError::Unavailable(_) | ArenaError::ShuttingDown => Failure::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "bot match storage unavailable",
            ),
        }
    }
}

/// The dialect's answer when it serves no game: its routes do not exist.
fn not_served() -> Failure {
    Failure::new(StatusCode::NOT_FOUND, "not found")
}

/// `POST /flipsight/bot_match_api.php`.
pub(crate) async fn action_api(State(state): State<AppState>, request: Request) -> Response {
    let now = state.arena.now_ms();
    let Some(family) = state.dialects.flipsight() else {
        return not_served().respond(now);
    };
    match act(&state, family, request).await {
        Ok(Value::Object(mut body)) => {
            body.insert("ok".to_owned(), json!(true));
            body.insert("server_now_ms".to_owned(), json!(now));
            (StatusCode::OK, axum::Json(Value::Object(body))).into_response()
        }
        Ok(other) => (StatusCode::OK, axum::Json(other)).into_response(),
        Err(failure) => failure.respond(now),
    }
}

async fn act(state: &AppState, family: &Family, request: Request) -> Result<Value, Failure> {
    if request.method() != Method::POST {
        return Err(Failure::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "POST required",
        ));
    }
    let token = bearer(&request);
    let bytes = to_bytes(request.into_body(), BODY_LIMIT)
        .await
        .map_err(|_| Failure::new(StatusCode::PAYLOAD_TOO_LARGE, TOO_LARGE))?;
    let body: Map<String, Value> = match serde_json::from_slice(&bytes) {
        Ok(Value::Object(body)) => body,
        _ => {
            return Err(Failure::new(
                StatusCode::BAD_REQUEST,
                "JSON object required",
            ));
        }
    };
    let bot = state.arena.authenticate(&token)?;
    match body.get("action").and_then(Value::as_str) {
        Some("agent_poll") => poll(state, family, &bot, &body).await,
        Some("agent_challenge") => challenge(state, family, &bot, &body).await,
        Some("agent_accept") => answer(state, &bot, &body, true).await,
        Some("agent_reject") => answer(state, &bot, &body, false).await,
        Some("agent_move") => play(state, &bot, &body).await,
        _ => Err(Failure::new(StatusCode::BAD_REQUEST, "unknown action")),
    }
}

/// `agent_poll`: every bot, this bot's matches, and the bot itself; takes the environment.
async fn poll(
    state: &AppState,
    family: &Family,
    bot: &Bot,
    body: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut bot = bot.clone();
    if let Some(reported) = body.get("environment").and_then(Value::as_object) {
        let text = |key: &str| reported.get(key).and_then(Value::as_str).map(str::to_owned);
        // FlipSight's report has no variants; whatever the bot reported before stays.
        let report = Environment {
            engine: text("engine"),
            cpu: text("cpu"),
            os: text("os"),
            practice: reported
                .get("practice")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            variants: bot.environment.as_ref().and_then(|e| e.variants.clone()),
        };
        bot = state.arena.report_environment(&bot, report)?;
    }
    let mut bots = Vec::new();
    for (other, online) in state.arena.list_bots() {
        if !other.deleted && other.kind != BotKind::Anonymous {
            bots.push(bot_object(state, family, &other, online).await);
        }
    }
    // Open matches, then those that ended in the last minutes, so that a bot sees how they
    // ended.
    let open = state.arena.open_matches_of(bot.id).await;
    let ids = open
        .iter()
        .map(|snapshot| snapshot.id)
        .chain(state.arena.recently_closed_of(bot.id));
    let mut matches = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // A match that closes between the two lists is in both; it is listed once.
    for id in ids.filter(|id| seen.insert(*id)) {
        let reader = state.arena.reader_for(id, Some(&bot));
        // The dialect shows matches of the game it serves; a bot's other games are the
        // native API's.
        if let Ok(snapshot) = state.arena.snapshot(id, reader).await
            && snapshot.game == family.id()
        {
            matches.push(match_object(&snapshot, state.arena.now_ms()));
        }
    }
    let own = bot_object(state, family, &bot, state.arena.is_online(bot.id)).await;
    // `me` is the account behind the calling bot, when it has one.
    let me = owner_of(state, &bot).map_or_else(String::new, |(id, _)| id);
    Ok(json!({"bots": bots, "record_bots": [], "matches": matches, "me": me, "bot": own}))
}

/// `agent_challenge`: challenges `target_id` or `target_name` to the served game in
/// `game_mode`, a variant of it (its default variant when absent).
async fn challenge(
    state: &AppState,
    family: &Family,
    bot: &Bot,
    body: &Map<String, Value>,
) -> Result<Value, Failure> {
    let target = match (
        body.get("target_id").and_then(Value::as_i64),
        body.get("target_name").and_then(Value::as_str),
    ) {
        (Some(id), _) => id.to_string(),
        (None, Some(name)) => name.to_owned(),
        (None, None) => return Err(Failure::new(StatusCode::CONFLICT, "target bot not found")),
    };
    // FlipSight matches bots that are both connected; the challenger is, as it is calling.
    if let Ok(opponent) = state.arena.find_bot(&target)
        && !state.arena.is_online(opponent.id)
    {
        return Err(Failure::new(
            StatusCode::CONFLICT,
            "both bots must be connected",
        ));
    }
    let variant = body
        .get("game_mode")
        .and_then(Value::as_str)
        .unwrap_or(family.default_variant().name)
        .to_owned();
    let request = ChallengeRequest {
        opponent: target,
        game: family.id().to_owned(),
        variant: Some(variant),
        format: Format::Paired,
        time_control: Default::default(),
        rated: true,
        auto: false,
        opening: Default::default(),
        client_seed: None,
    };
    let created = state.arena.challenge(bot, request).await?;
    Ok(json!({"match_id": created.id}))
}

/// `agent_accept` and `agent_reject`.
async fn answer(
    state: &AppState,
    bot: &Bot,
    body: &Map<String, Value>,
    accept: bool,
) -> Result<Value, Failure> {
    let id = resolve(state, bot, body).await?;
    let summary = if accept {
        state.arena.accept(bot, id, None).await?
    } else {
        state.arena.decline(bot, id, false).await?
    };
    Ok(json!({"match": Pair::of_summary(&summary).short()}))
}

/// `agent_move`: a square index, a coordinate or a pass, for a leg at a revision.
async fn play(state: &AppState, bot: &Bot, body: &Map<String, Value>) -> Result<Value, Failure> {
    let id = resolve(state, bot, body).await?;
    let leg = body
        .get("leg")
        .and_then(Value::as_u64)
        .and_then(|l| u8::try_from(l).ok())
        .ok_or_else(|| Failure::new(StatusCode::BAD_REQUEST, "JSON object required"))?;
    let revision = body
        .get("revision")
        .and_then(Value::as_u64)
        .ok_or_else(|| Failure::new(StatusCode::BAD_REQUEST, "JSON object required"))?;
    let mv = body.get("move").cloned().unwrap_or(Value::Null);
    let reader = state.arena.reader_for(id, Some(bot));
    match state.arena.submit(bot, id, leg, revision, mv).await {
        Ok(_) => {}
        // A move for a leg whose flag has fallen is late, in FlipSight's words.
        Err(error @ (ArenaError::LegFinished(_) | ArenaError::MatchNotRunning)) => {
            let snapshot = state.arena.snapshot(id, reader).await?;
            let timed_out = snapshot
                .legs
                .get(usize::from(leg))
                .is_some_and(|l| l.status == LegStatus::Timeout);
            return Err(if timed_out {
                Failure::new(StatusCode::CONFLICT, "match timed out")
            } else {
                error.into()
            });
        }
        Err(error) => return Err(error.into()),
    }
    let snapshot = state.arena.snapshot(id, reader).await?;
    Ok(json!({"match": Pair::of_snapshot(&snapshot).short()}))
}

/// The arena's match named by `match_id`. A negative id names a human match by its room
/// (FlipSight numbers those apart from bot matches); its `round_no` and `room_created_at`,
/// when given, must be this room's, or the bot is acting on a position it no longer has.
/// Any integer is a well-formed id: one that names no match (0, or beyond 64 bits) gets
/// `access denied`, FlipSight's answer for a match that is not the bot's, like any other
/// missing match; only a `match_id` that is not an integer gets `JSON object required`.
async fn resolve(state: &AppState, bot: &Bot, body: &Map<String, Value>) -> Result<i64, Failure> {
    let denied = || Failure::new(StatusCode::FORBIDDEN, "access denied");
    let value = body.get("match_id").unwrap_or(&Value::Null);
    let id = match value.as_i64() {
        Some(id) => id,
        None if value.is_u64() => return Err(denied()),
        None => {
            return Err(Failure::new(
                StatusCode::BAD_REQUEST,
                "JSON object required",
            ));
        }
    };
    if id > 0 {
        return Ok(id);
    }
    let room = id
        .checked_neg()
        .filter(|room| *room > 0)
        .ok_or_else(denied)?;
    let reader = state.arena.reader_for(room, Some(bot));
    let snapshot = state.arena.snapshot(room, reader).await?;
    check_room(&snapshot, bot.id, body)?;
    Ok(room)
}

/// Checks that `snapshot` is a human match `bot` plays in, at the round and room `body` names.
fn check_room(
    snapshot: &MatchSnapshot,
    bot: i64,
    body: &Map<String, Value>,
) -> Result<(), Failure> {
    let plays = snapshot.participants.iter().any(|p| p.id == bot);
    if !snapshot.has_person() || !plays {
        return Err(Failure::new(StatusCode::FORBIDDEN, "access denied"));
    }
    let created = utc_datetime(snapshot.created_ms);
    let stale_round = body
        .get("round_no")
        .is_some_and(|r| !r.is_null() && r.as_i64() != Some(ROOM_ROUND));
    let stale_room = body
        .get("room_created_at")
        .is_some_and(|c| !c.is_null() && c.as_str() != Some(created.as_str()));
    if stale_round || stale_room {
        return Err(Failure::new(StatusCode::CONFLICT, "stale room revision"));
    }
    Ok(())
}

/// A match's two participants, as FlipSight's shapes name them, from a summary or a
/// snapshot.
struct Pair<'a> {
    id: MatchId,
    status: MatchStatus,
    seats: [Option<&'a ParticipantSummary>; 2],
}

impl Pair<'_> {
    fn of_summary(summary: &MatchSummary) -> Pair<'_> {
        Pair {
            id: summary.id,
            status: summary.status,
            seats: [Some(&summary.bot_a), summary.bot_b.as_ref()],
        }
    }

    fn of_snapshot(snapshot: &MatchSnapshot) -> Pair<'_> {
        Pair {
            id: snapshot.id,
            status: snapshot.status,
            seats: [snapshot.participants.first(), snapshot.participants.get(1)],
        }
    }

    /// Whether a person plays in the match.
    fn is_human(&self) -> bool {
        self.seats
            .iter()
            .flatten()
            .any(|p| p.kind == BotKind::Human)
    }

    /// The match's id as FlipSight shows it: a human match is minus its room number.
    fn flipsight_id(&self) -> i64 {
        if self.is_human() { -self.id } else { self.id }
    }

    /// The participants' bot ids; a person is 0.
    fn bot_ids(&self) -> [Option<BotId>; 2] {
        self.seats
            .map(|seat| seat.map(|p| if p.kind == BotKind::Human { 0 } else { p.id }))
    }

    /// `{"id", "status", "bot_a", "bot_b"}`, as the answering actions return it.
    fn short(&self) -> Value {
        let [a, b] = self.bot_ids();
        json!({"id": self.flipsight_id(), "status": self.status, "bot_a": a, "bot_b": b})
    }
}

/// FlipSight's picture for someone without one.
const NO_PHOTO: &str = "/img/no_profile.gif";

/// The account that registered a bot on the pages: its id (as FlipSight's player id) and name.
fn owner_of(state: &AppState, bot: &Bot) -> Option<(String, String)> {
    let account = state.arena.account(bot.profile.owner?)?;
    Some((account.id.to_string(), account.name))
}

/// A bot as `agent_poll` lists it: its rating is the one in the served game's default
/// variant, and its games are the served game's variants it plays.
async fn bot_object(state: &AppState, family: &Family, bot: &Bot, online: bool) -> Value {
    let ratings = state.arena.ratings_of(bot.id).await;
    let mode = Mode {
        game: family.id(),
        variant: family.default_variant().name,
    };
    let main = &ratings[mode.to_string()];
    let rating = |key: &str, default: Value| main.get(key).cloned().unwrap_or(default);
    let official = main.get("provisional").and_then(Value::as_bool) == Some(false);
    let games = rating("games", json!(0));
    let (owner_id, owner_name) = owner_of(state, bot).unwrap_or_default();
    let environment = bot.environment.as_ref().map_or(
        json!({"practice": false}),
        |e| json!({"cpu": e.cpu, "engine": e.engine, "os": e.os, "practice": e.practice}),
    );
    let supported: Vec<&str> = family
        .setup
        .variants()
        .iter()
        .map(|v| v.name)
        .filter(|v| bot.supports(v))
        .collect();
    json!({
        "id": bot.id,
        "name": bot.name,
        "owner_id": owner_id,
        "owner_name": owner_name,
        "owner": {"player_id": owner_id, "name": owner_name, "photo": NO_PHOTO, "country_code": "", "country_name": "", "country_flag_url": "", "donor": false, "verified_player_id": ""},
        "engine_level": bot.profile.house_level,
        "rating": {
            "rating": rating("rating", json!(1200.0)),
            "rd": rating("deviation", json!(300.0)),
            "official": official,
            "official_progress": {
                "kind": if official { "official" } else { "provisional" },
                "current": main["official_progress"].get("games").cloned().unwrap_or(json!(0)),
                "required": 50,
            },
            "color": if official { "pz-rating-official" } else { "pz-rating-unofficial" },
            "high_rating": rating("high", json!(1200.0)),
            "wins": rating("wins", json!(0)),
            "losses": rating("losses", json!(0)),
            "draws": rating("draws", json!(0)),
            "streak": rating("streak", json!(0)),
            "best_streak": rating("best_streak", json!(0)),
            "games": games,
        },
        "supported_games": supported,
        "auto_match": bot.kind == BotKind::Registered && !bot.profile.auto_match_off,
        "bio": "",
        "registered_at": utc_datetime(bot.created_ms),
        "registered_at_ts": bot.created_ms / 1000,
        "environment": environment,
        "is_builtin": bot.kind == BotKind::House,
        "online": online,
        "disabled": bot.disabled,
        "deleted": bot.deleted,
        "photo": bot.profile.photo_ms.map_or_else(|| NO_PHOTO.to_owned(), |v| format!("{}/photo?v={v}", arbiter_web::bot_path(&bot.name))),
    })
}

/// A match as `agent_poll` lists it, from the arena's snapshot for a participant.
pub(crate) fn match_object(snapshot: &MatchSnapshot, now_ms: i64) -> Value {
    let pair = Pair::of_snapshot(snapshot);
    let [a, b] = pair.bot_ids();
    let ranking = snapshot.result.as_ref().and_then(|r| r.ranking.as_ref());
    let ratings = snapshot.result.as_ref().and_then(|r| r.ratings.as_ref());
    let mut totals = [0i64; 2];
    for leg in &snapshot.legs {
        let black = leg.first_seat_participant % 2;
        if let Some(end) = &leg.end {
            totals[0] += end.scores.first().copied().unwrap_or(0);
            totals[1] += end.scores.get(1).copied().unwrap_or(0);
        } else {
            let discs = &leg.view["discs"];
            totals[black] += discs[0].as_i64().unwrap_or(0);
            totals[1 - black] += discs[1].as_i64().unwrap_or(0);
        }
    }
    let view = snapshot.legs.first().map_or(&Value::Null, |leg| &leg.view);
    let opening: Vec<Value> = view["opening"].as_array().cloned().unwrap_or_default();
    let opening_history: Vec<Value> = opening
        .iter()
        .enumerate()
        .map(|(i, mv)| json!({"color": if i % 2 == 0 { 1 } else { 2 }, "move": mv}))
        .collect();
    let time_limit_sec = snapshot.time_control.initial_ms / 1000;
    let state = json!({
        "version": 1,
        "game_mode": snapshot.variant,
        "time_limit_sec": time_limit_sec,
        "status": match snapshot.status {
            MatchStatus::Finished => "finished",
            MatchStatus::Aborted => "aborted",
            _ => "active",
        },
        "revision": snapshot.legs.iter().map(|l| l.revision).sum::<u64>(),
        "started_ms": snapshot.started_ms,
        "last_now_ms": now_ms,
        "finished_ms": snapshot.ended_ms,
        "opening_moves": opening,
        "opening_history": opening_history,
        "legs": snapshot.legs.iter().map(leg_object).collect::<Vec<_>>(),
        "totals": ranking.map_or_else(|| json!(totals), |r| json!(r.totals)),
        "winner": ranking.and_then(|r| r.winner),
        "finish_reason": snapshot.result.as_ref().map(|r| &r.reason),
        "board_size": view["board_size"],
        "blocked_squares": view["blocked_squares"],
    });
    let human = pair.is_human();
    json!({
        "id": pair.flipsight_id(),
        "kind": if human { "human" } else { "bot" },
        "room_id": human.then_some(snapshot.id),
        "round_no": human.then_some(ROOM_ROUND),
        "room_created_at": human.then(|| utc_datetime(snapshot.created_ms)),
        "bot_a": a,
        "bot_b": b,
        "game_mode": snapshot.variant,
        "time_limit_sec": time_limit_sec,
        "status": snapshot.status,
        "state": state,
        "auto": snapshot.auto,
        "expires_ms": snapshot.expires_ms,
        "ranked": snapshot.rated,
        "rating_applied": ratings.is_some_and(|r| r.rating_applied),
        "rating_before": ratings.map_or_else(|| json!([null, null]), |r| json!(r.rating_before)),
        "rating_after": ratings.map_or_else(|| json!([null, null]), |r| json!(r.rating_after)),
        "created_at": utc_datetime(snapshot.created_ms),
    })
}

/// One leg in FlipSight's shape.
fn leg_object(leg: &LegSnapshot) -> Value {
    let view = &leg.view;
    let black = leg.first_seat_participant % 2;
    let history: Vec<Value> = view["history"]
        .as_array()
        .into_iter()
        .flatten()
        .zip(&leg.moves_at_ms)
        .map(|(played, at_ms)| {
            let color = played["color"].as_u64().unwrap_or(1);
            let participant = if color == 1 { black } else { 1 - black };
            json!({"color": color, "participant": participant, "move": played["move"], "at_ms": at_ms})
        })
        .collect();
    let placed = &view["placed"];
    let active = leg.status == LegStatus::Active;
    let mut object = json!({
        "board": view["board"],
        "turn": view["to_move"],
        "black_participant": black,
        "placed": {"1": placed[0], "2": placed[1]},
        "clocks_ms": leg.clocks_ms,
        "turn_started_ms": leg.turn_started_ms,
        "revision": leg.revision,
        "history": history,
        "status": leg.status,
        "discs": view["discs"],
        "finished_ms": leg.end.as_ref().map(|e| e.at_ms),
        "legal_moves": if active { view["legal_moves"].clone() } else { json!([]) },
    });
    if let Some(end) = leg
        .end
        .as_ref()
        .filter(|_| leg.status == LegStatus::Timeout)
    {
        // The settlement scores by colour, which the totals add instead of the discs.
        let (b, w) = if black == 0 { (0, 1) } else { (1, 0) };
        object["result_discs"] = json!([end.scores.get(b), end.scores.get(w)]);
    }
    object
}

/// `GET /flipsight_api/bot-stream`: FlipSight's NDJSON stream — `hello`, a `match` with the
/// whole match object whenever one of the bot's matches changes, and a `ping` every 10 s.
pub(crate) async fn bot_stream(State(state): State<AppState>, request: Request) -> Response {
    let now = state.arena.now_ms();
    if state.dialects.flipsight().is_none() {
        return not_served().respond(now);
    }
    let token = bearer(&request);
    let bot = match state.arena.authenticate(&token) {
        Ok(bot) => bot,
        Err(error) => return Failure::from(error).respond(now),
    };
    // The stream asks for the match as the bot sees it with every event: FlipSight sends
    // the whole match on every change.
    let events = match state.arena.open_stream(&bot, true).await {
        Ok(events) => events,
        Err(error) => return Failure::from(error).respond(now),
    };
    let ping_ms = state.arena.config().ping_ms;
    let hello = ndjson(&json!({"type": "hello", "bot_id": bot.id, "server_now_ms": now}));
    let start = (events, state, Some(hello), now + ping_ms);
    let body = futures::stream::unfold(
        start,
        move |(mut events, state, first, next_ping)| async move {
            if let Some(hello) = first {
                return Some((
                    Ok::<_, std::convert::Infallible>(hello),
                    (events, state, None, next_ping),
                ));
            }
            loop {
                tokio::select! {
                    // `None`: the stream fell behind or the bot's credentials changed; it ends.
                    event = events.next_event() => {
                        if let Some(line) = match_line(&state, &event?) {
                            return Some((Ok(line), (events, state, None, next_ping)));
                        }
                    }
                    () = state.arena.stopped() => return None,
                    () = state.arena.sleep_until(next_ping) => {
                        let now = state.arena.now_ms();
                        let ping = ndjson(&json!({"type": "ping", "server_now_ms": now}));
                        return Some((Ok(ping), (events, state, None, now + ping_ms)));
                    }
                }
            }
        },
    );
    let mut response = axum::body::Body::from_stream(body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/x-ndjson"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    response
}

/// An event of the bot's stream as FlipSight's `match` event: the whole match object, as the
/// bot saw it when the event happened. Events about no match (the arena's `hello`) and about
/// matches of other games give nothing.
fn match_line(state: &AppState, event: &StreamEvent) -> Option<bytes::Bytes> {
    let snapshot = event.snapshot()?;
    let served = state.dialects.flipsight().map(Family::id);
    if Some(snapshot.game) != served {
        return None;
    }
    Some(ndjson(&match_event(snapshot, state.arena.now_ms())))
}

/// A stream's `match` event: the whole match object for a bot match; for a human match only
/// its id, kind and room, as FlipSight sends them, and the bot polls for the rest.
fn match_event(snapshot: &MatchSnapshot, now_ms: i64) -> Value {
    let pair = Pair::of_snapshot(snapshot);
    let object = if pair.is_human() {
        json!({"id": pair.flipsight_id(), "kind": "human", "room_id": snapshot.id})
    } else {
        match_object(snapshot, now_ms)
    };
    json!({"type": "match", "match": object, "server_now_ms": now_ms})
}

fn ndjson(value: &Value) -> bytes::Bytes {
    bytes::Bytes::from(format!("{value}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn participant(id: i64, name: &str, kind: BotKind, participant: usize) -> ParticipantSummary {
        ParticipantSummary {
            id,
            name: name.to_owned(),
            kind,
            participant: Some(participant),
        }
    }

    /// A running one-leg match between a human (participant 0) and bot 7, as the arena's
    /// snapshot shows it to the bot.
    fn human_snapshot() -> MatchSnapshot {
        MatchSnapshot {
            id: 45,
            status: MatchStatus::Running,
            game: "board",
            variant: "std".to_owned(),
            format: Format::Single,
            rated: false,
            auto: false,
            self_play: false,
            time_control: arbiter_arena::TimeControl {
                initial_ms: 300_000,
                ..Default::default()
            },
            participants: vec![
                participant(3, "guest", BotKind::Human, 0),
                participant(7, "Alpha", BotKind::Registered, 1),
            ],
            created_ms: 1_794_474_000_000,
            expires_ms: None,
            started_ms: Some(1_794_474_001_000),
            ended_ms: None,
            commitment: String::new(),
            seed: None,
            tournament: None,
            legs: vec![LegSnapshot {
                leg: 0,
                status: LegStatus::Active,
                first_seat_participant: 0,
                revision: 1,
                to_move: Some(1),
                clocks_ms: vec![299_000, 300_000],
                turn_started_ms: 1_794_474_002_000,
                remaining_ms: None,
                end: None,
                moves_at_ms: vec![1_794_474_002_000],
                view: json!({"board": [], "to_move": 2, "discs": [4, 1], "placed": [1, 0],
                         "legal_moves": [29], "history": [{"color": 1, "move": 19}],
                         "board_size": 8, "blocked_squares": [], "opening": []}),
                pending: None,
            }],
            result: None,
            seq: 3,
            server_now_ms: 1_794_474_003_000,
            table: None,
            you: None,
            turns: None,
        }
    }

    #[test]
    fn a_human_match_is_a_room_under_a_negative_id() {
        let snapshot = human_snapshot();
        let object = match_object(&snapshot, 1_794_474_003_000);
        assert_eq!(
            (&object["id"], &object["kind"], &object["room_id"]),
            (&json!(-45), &json!("human"), &json!(45))
        );
        assert_eq!(
            (&object["round_no"], &object["room_created_at"]),
            (&json!(ROOM_ROUND), &json!("2026-11-12 09:00:00"))
        );
        assert_eq!((&object["bot_a"], &object["bot_b"]), (&json!(0), &json!(7)));
        let legs = object["state"]["legs"].as_array().expect("legs");
        assert_eq!(legs.len(), 1, "one leg with a human");
        assert_eq!(
            legs[0]["history"],
            json!([{"color": 1, "participant": 0, "move": 19, "at_ms": 1_794_474_002_000i64}])
        );
        // The stream names a human match only; the bot polls for the rest.
        assert_eq!(
            match_event(&snapshot, 1)["match"],
            json!({"id": -45, "kind": "human", "room_id": 45})
        );
        assert_eq!(
            Pair::of_snapshot(&snapshot).short(),
            json!({"id": -45, "status": "running", "bot_a": 0, "bot_b": 7})
        );
    }

    #[test]
    fn a_bot_match_has_no_room() {
        let mut snapshot = human_snapshot();
        snapshot.participants[0] = participant(3, "Beta", BotKind::Registered, 0);
        let object = match_object(&snapshot, 0);
        assert_eq!(
            (&object["id"], &object["kind"], &object["bot_a"]),
            (&json!(45), &json!("bot"), &json!(3))
        );
        for field in ["room_id", "round_no", "room_created_at"] {
            assert_eq!(object[field], Value::Null, "{field}");
        }
        assert_eq!(match_event(&snapshot, 0)["match"], object);
    }

    #[test]
    fn a_move_in_a_room_must_name_its_round_and_room() {
        let snapshot = human_snapshot();
        let body = |extra: Value| {
            let mut body = json!({"action": "agent_move", "match_id": -45, "leg": 0});
            body.as_object_mut()
                .expect("object")
                .extend(extra.as_object().expect("object").clone());
            body.as_object().expect("object").clone()
        };
        let outcome = |bot: i64, extra: Value| {
            check_room(&snapshot, bot, &body(extra)).map_err(|f| (f.status.as_u16(), f.error))
        };
        let stale = Err((409, "stale room revision".to_owned()));
        let denied = Err((403, "access denied".to_owned()));
        let cases = [
            (7, json!({}), Ok(())),
            (
                7,
                json!({"round_no": 1, "room_created_at": "2026-11-12 09:00:00"}),
                Ok(()),
            ),
            (
                7,
                json!({"round_no": null, "room_created_at": null}),
                Ok(()),
            ),
            (7, json!({"round_no": 2}), stale.clone()),
            (7, json!({"round_no": "1"}), stale.clone()),
            (7, json!({"room_created_at": "2026-11-12 09:00:01"}), stale),
            (8, json!({}), denied.clone()),
        ];
        for (bot, extra, expected) in cases {
            assert_eq!(outcome(bot, extra.clone()), expected, "{bot} {extra}");
        }
        let mut bots_only = human_snapshot();
        bots_only.participants[0].kind = BotKind::Registered;
        assert_eq!(
            check_room(&bots_only, 7, &body(json!({}))).map_err(|f| (f.status.as_u16(), f.error)),
            denied,
            "a bot match is not a room"
        );
    }
}
