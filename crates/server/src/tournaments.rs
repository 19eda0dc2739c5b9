//! The native API's tournaments: created and run by the administrator, entered and left by
//! bots, read by anyone with their standings, crosstable and each round's commitment.

use arbiter_arena::{Organiser, Tournament, TournamentAction, TournamentRequest};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::AppState;
use crate::dto::{EntrantBody, TournamentBody};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Admin, ApiJson, ApiPath, AuthBot};
use crate::routes::default_game;

/// The OpenAPI tag.
pub(crate) const TOURNAMENTS: &str = "tournaments";

/// A tournament as the API shows it: everything public, with its standings and crosstable.
pub(crate) fn view(tournament: &Tournament) -> Value {
    let mut view = json!(tournament);
    view["standings"] = json!(tournament.standings());
    view["crosstable"] = json!(tournament.crosstable());
    view
}

/// A tournament in a list.
fn summary(tournament: &Tournament) -> Value {
    json!({
        "id": tournament.id,
        "name": tournament.name,
        "game": tournament.game,
        "variant": tournament.variant,
        "format": tournament.format,
        "status": tournament.status,
        "rated": tournament.rated,
        "people": tournament.people,
        "entrants": tournament.entrants.len(),
        "rounds": tournament.rounds.len(),
        "created_ms": tournament.created_ms,
        "started_ms": tournament.started_ms,
        "ended_ms": tournament.ended_ms,
    })
}

/// Creates a tournament, open for entries (administrator). Signed-in people create theirs
/// on the web pages.
#[utoipa::path(post, path = "/api/v1/tournaments", tag = TOURNAMENTS, security(("bearer" = [])), request_body = TournamentBody,
    responses((status = 201, description = "The tournament, open for entries"),
        (status = 403, body = ErrorBody, description = "`admin_only`: this needs the administrator token"),
        (status = 409, body = ErrorBody, description = "`unsupported_variant`: no such game or variant, or not played by two (by the table size asked, for tables)")))]
pub(crate) async fn create_tournament(
    State(state): State<AppState>,
    _admin: Admin,
    ApiJson(body): ApiJson<TournamentBody>,
) -> ApiResult<Response> {
    let request = TournamentRequest {
        name: body.name,
        game: body.game.unwrap_or_else(|| default_game(&state)),
        variant: body.variant,
        format: body.format.into(),
        time_control: body.time_control.into(),
        rated: body.rated,
        people: body.people,
    };
    let tournament = state
        .arena
        .create_tournament(Organiser::Administrator, request)
        .await?;
    Ok((StatusCode::CREATED, Json(view(&tournament))).into_response())
}

/// Every tournament, newest first.
#[utoipa::path(get, path = "/api/v1/tournaments", tag = TOURNAMENTS,
    responses((status = 200, description = "The tournaments: id, name, game, variant, format, status, the number of entrants and rounds, and times")))]
pub(crate) async fn list_tournaments(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    let tournaments = state.arena.tournaments().await?;
    Ok(Json(json!(
        tournaments.iter().map(summary).collect::<Vec<_>>()
    )))
}

/// One tournament: its terms, entrants, rounds (each with its games, its seed's commitment,
/// and the seed once the round has ended), standings and crosstable.
#[utoipa::path(get, path = "/api/v1/tournaments/{id}", tag = TOURNAMENTS, params(("id" = i64, Path)),
    responses((status = 200, description = "The tournament"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found`")))]
pub(crate) async fn tournament(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    Ok(Json(view(&state.arena.tournament(id).await?)))
}

/// Enters your bot: before the start (an arena's at any time before it ends). It must play
/// the tournament's game and variant; its games start by themselves, and a game it never
/// makes a first move in is lost by forfeit.
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/join", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The tournament"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: entries closed, already entered, or an anonymous bot; `unsupported_variant`: the bot does not play the game")))]
pub(crate) async fn join_tournament(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    Ok(Json(view(&state.arena.enter_tournament(&bot, id).await?)))
}

/// Withdraws your bot: before the start its entry is taken back; after, it is paired no more
/// and its game under way is resigned.
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/withdraw", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The tournament"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: not entered, already withdrawn, or finished")))]
pub(crate) async fn withdraw_from_tournament(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    Ok(Json(view(
        &state.arena.withdraw_from_tournament(&bot, id).await?,
    )))
}

/// Enters a house bot (administrator).
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/entrants", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path)), request_body = EntrantBody,
    responses((status = 200, description = "The tournament"),
        (status = 403, body = ErrorBody, description = "`admin_only`: this needs the administrator token"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found` or `bot_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: not a house bot, entries closed or already entered")))]
pub(crate) async fn enter_house_bot(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<EntrantBody>,
) -> ApiResult<Json<Value>> {
    let tournament = state
        .arena
        .enter_house_bot(Organiser::Administrator, id, &body.bot)
        .await?;
    Ok(Json(view(&tournament)))
}

/// Withdraws an entrant (administrator).
#[utoipa::path(delete, path = "/api/v1/tournaments/{id}/entrants/{name}", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path), ("name" = String, Path, description = "The entrant's name or id")),
    responses((status = 200, description = "The tournament"),
        (status = 403, body = ErrorBody, description = "`admin_only`: this needs the administrator token"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found` or `bot_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: not entered, already withdrawn, or finished")))]
pub(crate) async fn withdraw_entrant(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath((id, name)): ApiPath<(i64, String)>,
) -> ApiResult<Json<Value>> {
    let tournament = state
        .arena
        .withdraw_entrant(Organiser::Administrator, id, &name)
        .await?;
    Ok(Json(view(&tournament)))
}

async fn control(state: &AppState, id: i64, action: TournamentAction) -> ApiResult<Json<Value>> {
    let tournament = state
        .arena
        .control_tournament(Organiser::Administrator, id, action)
        .await?;
    Ok(Json(view(&tournament)))
}

/// Starts a tournament (administrator): entries close, but for an arena's, and the first
/// round is paired at once.
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/start", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The tournament, running"),
        (status = 403, body = ErrorBody, description = "`admin_only`: this needs the administrator token"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: already started, or too few entrants")))]
pub(crate) async fn start_tournament(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    control(&state, id, TournamentAction::Start).await
}

/// Pauses a tournament (administrator): games under way are played out, no new ones paired.
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/pause", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The tournament, paused"),
        (status = 403, body = ErrorBody, description = "`admin_only`: this needs the administrator token"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: not running")))]
pub(crate) async fn pause_tournament(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    control(&state, id, TournamentAction::Pause).await
}

/// Resumes a paused tournament (administrator).
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/resume", tag = TOURNAMENTS, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The tournament, running"),
        (status = 403, body = ErrorBody, description = "`admin_only`: this needs the administrator token"),
        (status = 404, body = ErrorBody, description = "`tournament_not_found`"),
        (status = 409, body = ErrorBody, description = "`tournament_refused`: not paused")))]
pub(crate) async fn resume_tournament(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    control(&state, id, TournamentAction::Resume).await
}
