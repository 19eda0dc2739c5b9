//! The handlers of the native API v1.

use arbiter_arena::{
    ArenaError, BotKind, ChallengeRequest, EventPage, Format, MatchExport, MatchSnapshot,
    MatchStatus, MatchSummary, MoveReply, TableRequest,
};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::AppState;
use crate::dto::{
    AnonymousRequest, AutoMatchRequest, BotView, ChallengeBody, DisableRequest, EnvironmentReport,
    EventsQuery, FormatQuery, GameFilter, Health, LeaderboardQuery, MoveBody, NewBot, OutputFormat,
    RegisterRequest, SeedBody, TableBody, TalkState, TalkSwitch, TurnsQuery, VariantsRequest,
    WebhookBody, WebhookView,
};
#[cfg(feature = "wasm-sandbox")]
use crate::dto::{ModuleSettings, ModuleView};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Admin, ApiJson, ApiPath, ApiQuery, AuthBot, ClientIp, MaybeBot};
use crate::text;

/// A plain-text response body.
fn plain(status: StatusCode, text: String) -> Response {
    (
        status,
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// The OpenAPI tags.
pub(crate) const BOTS: &str = "bots";
pub(crate) const MATCHES: &str = "matches";
pub(crate) const ADMIN: &str = "admin";

/// A liveness probe and the cheapest request the server answers.
#[utoipa::path(get, path = "/api/v1/health", tag = BOTS, responses((status = 200, body = Health, description = "The server is up")))]
pub(crate) async fn health(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        ok: true,
        server_now_ms: state.arena.now_ms(),
    })
}

/// `GET /health`: 200 while the process answers at all, for a load balancer's liveness check.
pub(crate) async fn liveness() -> &'static str {
    "ok\n"
}

/// `GET /ready`: 200 while the server should be sent traffic, 503 while it is stopping or its
/// store is out of reach, so that a load balancer sends its clients to another node.
pub(crate) async fn readiness(State(state): State<AppState>) -> Response {
    if state.arena.is_ready() {
        (StatusCode::OK, "ready\n").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready\n").into_response()
    }
}

/// `GET /metrics`: the server's metrics in the OpenMetrics text format Prometheus scrapes.
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.arena.metrics_text(),
    )
        .into_response()
}

/// Mints an anonymous bot: unranked, expires when idle, limited per client address.
/// With `?format=text` the answer is the token alone, on one line.
#[utoipa::path(post, path = "/api/v1/bots/anon", tag = BOTS, request_body = AnonymousRequest, params(FormatQuery),
    responses((status = 201, description = "The bot and its token; with `?format=text` the token alone", content((NewBot = "application/json"), (String = "text/plain"))),
        (status = 400, body = ErrorBody, description = "`invalid_name` (the label breaks the naming rule), `invalid_request` (an unknown variant, or none), or a body or query that does not parse; nothing changed"),
        (status = 429, body = ErrorBody, description = "`rate_limited`: too many bots from this address; see Retry-After")))]
pub(crate) async fn mint_anonymous(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiQuery(query): ApiQuery<FormatQuery>,
    ApiJson(body): ApiJson<AnonymousRequest>,
) -> ApiResult<Response> {
    let (bot, token) = state
        .arena
        .mint_anonymous(ip, body.name.as_deref(), body.supported_variants)
        .await?;
    if query.format == OutputFormat::Text {
        return Ok(plain(StatusCode::CREATED, format!("{token}\n")));
    }
    let new = NewBot {
        bot: BotView::own(&bot, true, state.arena.games()),
        token,
    };
    Ok((StatusCode::CREATED, Json(new)).into_response())
}

/// The calling bot's own profile.
#[utoipa::path(get, path = "/api/v1/bots/me", tag = BOTS, security(("bearer" = [])), responses((status = 200, body = BotView)))]
pub(crate) async fn me(State(state): State<AppState>, AuthBot(bot): AuthBot) -> Json<BotView> {
    Json(own_profile(&state, &bot).await)
}

/// The view a bot has of itself, with its ratings.
async fn own_profile(state: &AppState, bot: &arbiter_arena::Bot) -> BotView {
    let mut view = BotView::own(bot, state.arena.is_online(bot.id), state.arena.games());
    view.ratings = Some(state.arena.ratings_of(bot.id).await);
    view
}

/// Makes the calling bot answer over HTTP: from now on the server holds its stream itself and
/// POSTs each of its decisions to `url`, signed (`X-Arbiter-Signature: v1=<hex>`, HMAC-SHA256
/// with the bot's secret over `X-Arbiter-Timestamp`, a dot and the body); the answer's body is
/// `{"action": …}`. Challenges are accepted on its behalf as the settings say. The signing
/// secret is shown once, when it is new.
#[utoipa::path(put, path = "/api/v1/bots/me/webhook", tag = BOTS, security(("bearer" = [])), request_body = WebhookBody,
    responses((status = 200, body = WebhookView),
        (status = 400, body = ErrorBody, description = "`invalid_request`: the URL is not https (or http where allowed), carries credentials or names an address the server does not call; the bot is not registered; or this server calls no webhooks")))]
pub(crate) async fn set_webhook(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiJson(body): ApiJson<WebhookBody>,
) -> ApiResult<Json<WebhookView>> {
    let webhooks = state.dialects.webhooks.clone().ok_or_else(|| {
        ArenaError::InvalidRequest("this server does not call bots over HTTP".to_owned())
    })?;
    let set = webhooks
        .configure(
            &state.arena,
            &bot,
            arbiter_web::WebhookRequest {
                url: body.url,
                accept_challenges: body.accept_challenges.unwrap_or(true),
                min_initial_ms: body.min_initial_ms,
                rotate_secret: body.rotate_secret,
            },
        )
        .await?;
    Ok(Json(WebhookView {
        url: set.webhook.url,
        accept_challenges: set.webhook.accept_challenges,
        min_initial_ms: set.webhook.min_initial_ms,
        secret: set.secret,
    }))
}

/// Stops calling the calling bot over HTTP: it plays again only through a stream or polling.
#[utoipa::path(delete, path = "/api/v1/bots/me/webhook", tag = BOTS, security(("bearer" = [])), responses((status = 200, body = BotView)))]
pub(crate) async fn remove_webhook(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.set_webhook(bot.id, None).await?;
    Ok(Json(own_profile(&state, &bot).await))
}

/// Submits the calling bot to run here as a WebAssembly module: a WASI preview 1 command
/// (`wasm32-wasip1`) reading one decision request per line on standard input and writing one
/// answer line on standard output, as an engine behind `arbiter bot` does. The body is the
/// module's bytes. It is checked at once (its size, imports limited to WASI, a `_start`),
/// then plays a validation match against a house bot; once ready it accepts challenges as
/// the settings say, is auto-matched and may enter tournaments. It replaces any earlier module
/// and any webhook.
#[cfg(feature = "wasm-sandbox")]
#[utoipa::path(put, path = "/api/v1/bots/me/module", tag = BOTS, security(("bearer" = [])), params(ModuleSettings),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "The module's bytes (sent as `application/wasm` or any other type)."),
    responses((status = 200, body = ModuleView),
        (status = 400, body = ErrorBody, description = "`invalid_module`: not a module the sandbox runs (the message says why); `invalid_request`: the bot is not registered, the settings are out of range, or this server runs no modules"),
        (status = 413, body = ErrorBody, description = "`request_too_large`: larger than the server reads")))]
pub(crate) async fn upload_module(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiQuery(settings): ApiQuery<ModuleSettings>,
    body: axum::body::Body,
) -> ApiResult<Json<ModuleView>> {
    let sandboxes = state.dialects.sandboxes.clone().ok_or_else(|| {
        ArenaError::InvalidRequest("this server does not run WebAssembly bots".to_owned())
    })?;
    if bot.kind != BotKind::Registered {
        return Err(ArenaError::InvalidRequest(
            "only registered bots may run as modules".to_owned(),
        )
        .into());
    }
    let min_initial_ms = crate::hosted::min_initial_ms(settings.min_initial_ms)?;
    let wasm = axum::body::to_bytes(body, crate::MODULE_BODY_LIMIT)
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                "the module is larger than the server reads",
            )
        })?
        .to_vec();
    let program = sandboxes
        .check(wasm.clone())
        .await
        .map_err(|e| ApiError::bad_request("invalid_module", e.to_string()))?;
    let settings = arbiter_arena::Sandboxed {
        sha256: program.sha256(),
        size: program.size() as u64,
        uploaded_ms: state.arena.now_ms(),
        status: arbiter_arena::ModuleStatus::Validating,
        accept_challenges: settings.accept_challenges.unwrap_or(true),
        min_initial_ms,
    };
    state
        .arena
        .set_module(bot.id, wasm, settings.clone())
        .await?;
    sandboxes.forget_failures(bot.id);
    Ok(Json(ModuleView::of(&settings)))
}

/// The calling bot's module: where its validation stands, and how it plays.
#[cfg(feature = "wasm-sandbox")]
#[utoipa::path(get, path = "/api/v1/bots/me/module", tag = BOTS, security(("bearer" = [])),
    responses((status = 200, body = ModuleView), (status = 404, body = ErrorBody, description = "`not_found`: the bot has no module")))]
pub(crate) async fn own_module(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> ApiResult<Json<ModuleView>> {
    let sandboxed = bot.profile.sandboxed.as_ref().ok_or_else(|| {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", "the bot has no module")
    })?;
    let mut view = ModuleView::of(sandboxed);
    view.last_failure = state
        .dialects
        .sandboxes
        .as_ref()
        .and_then(|sandboxes| sandboxes.last_failure(bot.id));
    Ok(Json(view))
}

/// Stops running the calling bot's module: it plays again only through a stream or polling.
#[cfg(feature = "wasm-sandbox")]
#[utoipa::path(delete, path = "/api/v1/bots/me/module", tag = BOTS, security(("bearer" = [])), responses((status = 200, body = BotView)))]
pub(crate) async fn remove_module(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.remove_module(bot.id).await?;
    Ok(Json(own_profile(&state, &bot).await))
}

/// Replaces the calling bot's token; the old token stops working at once.
#[utoipa::path(post, path = "/api/v1/bots/me/rotate-token", tag = BOTS, security(("bearer" = [])), responses((status = 200, body = NewBot)))]
pub(crate) async fn rotate_own_token(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> ApiResult<Json<NewBot>> {
    let (bot, token) = state.arena.rotate_token(bot.id).await?;
    Ok(Json(NewBot {
        bot: BotView::own(&bot, true, state.arena.games()),
        token,
    }))
}

/// Reports the engine the calling bot has connected; answers with the bot's own profile.
///
/// The report names the engine, CPU and OS, says whether the bot is practising (its matches
/// against other bots are then unrated) and which variants the engine plays (challenges in
/// others are refused). It replaces the previous report entirely and is kept in memory only,
/// so a connector sends it on every connect.
#[utoipa::path(post, path = "/api/v1/bots/me/environment", tag = BOTS, security(("bearer" = [])), request_body = EnvironmentReport,
    responses((status = 200, body = BotView), (status = 400, body = ErrorBody, description = "`invalid_environment`: a text longer than 120 characters, or an unknown or empty variant list; or a body that does not parse; nothing changed")))]
pub(crate) async fn report_environment(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiJson(body): ApiJson<EnvironmentReport>,
) -> ApiResult<Json<BotView>> {
    let bot = state
        .arena
        .report_environment(&bot, body.into_environment())?;
    Ok(Json(own_profile(&state, &bot).await))
}

/// Every bot, with whether it is connected.
#[utoipa::path(get, path = "/api/v1/bots", tag = BOTS, responses((status = 200, body = [BotView])))]
pub(crate) async fn list_bots(State(state): State<AppState>) -> Json<Vec<BotView>> {
    Json(
        state
            .arena
            .list_bots()
            .iter()
            .map(|(bot, online)| BotView::public(bot, *online, state.arena.games()))
            .collect(),
    )
}

/// One bot's public profile.
#[utoipa::path(get, path = "/api/v1/bots/{name}", tag = BOTS, params(("name" = String, Path, description = "Name or id")),
    responses((status = 200, body = BotView), (status = 404, body = ErrorBody, description = "`bot_not_found`")))]
pub(crate) async fn bot_profile(
    State(state): State<AppState>,
    ApiPath(name): ApiPath<String>,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.find_bot(&name)?;
    let mut view = BotView::public(&bot, state.arena.is_online(bot.id), state.arena.games());
    view.ratings = Some(state.arena.ratings_of(bot.id).await);
    Ok(Json(view))
}

/// Every rated bot in a game mode, best first.
///
/// The answer names the mode and its rating `system`: `glicko2` for modes of two seats,
/// `weng-lin` (OpenSkill's model, one rating from the places of every player of a game) for
/// modes that seat more. Each entry has the bot, its rank, its `system`, rating, deviation,
/// volatility (Glicko-2 only), games, wins, losses, draws, highest rating, current and best
/// streak, and whether the rating is still provisional (fewer than 50 rated games) with its
/// progress towards an official one.
#[utoipa::path(get, path = "/api/v1/leaderboard", tag = BOTS, params(LeaderboardQuery),
    responses((status = 200, description = "The mode and its entries, best first"), (status = 400, body = ErrorBody, description = "`invalid_request`: no such game or variant; or a query that does not parse")))]
pub(crate) async fn leaderboard(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<LeaderboardQuery>,
) -> ApiResult<Json<Value>> {
    let (game, variant) = query.mode(state.arena.games());
    Ok(Json(state.arena.leaderboard(&game, &variant).await?))
}

/// Registers a bot and returns its token once (administrator).
#[utoipa::path(post, path = "/api/v1/admin/bots", tag = ADMIN, security(("bearer" = [])), request_body = RegisterRequest,
    responses((status = 201, body = NewBot),
        (status = 400, body = ErrorBody, description = "`invalid_name` (the name breaks the naming rule), `invalid_request` (an unknown variant or none, a concurrency outside 1 to 16), or a body that does not parse; nothing changed"),
        (status = 409, body = ErrorBody, description = "`name_taken`: the name, or one that looks like it regardless of case and lookalike letters, is taken or reserved")))]
pub(crate) async fn register_bot(
    State(state): State<AppState>,
    _admin: Admin,
    ApiJson(body): ApiJson<RegisterRequest>,
) -> ApiResult<(StatusCode, Json<NewBot>)> {
    let profile = body.profile(state.arena.games());
    let (bot, token) = state.arena.register_bot(&body.name, profile).await?;
    Ok((
        StatusCode::CREATED,
        Json(NewBot {
            bot: BotView::own(&bot, false, state.arena.games()),
            token,
        }),
    ))
}

/// Replaces a bot's token (administrator).
#[utoipa::path(post, path = "/api/v1/admin/bots/{name}/rotate-token", tag = ADMIN, security(("bearer" = [])), params(("name" = String, Path, description = "Name or id")),
    responses((status = 200, body = NewBot), (status = 400, body = ErrorBody, description = "`invalid_request`: house bots cannot be changed; or a path that does not parse"), (status = 404, body = ErrorBody, description = "`bot_not_found`")))]
pub(crate) async fn admin_rotate(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(name): ApiPath<String>,
) -> ApiResult<Json<NewBot>> {
    let bot = state.arena.find_bot(&name)?;
    let (bot, token) = state.arena.rotate_token(bot.id).await?;
    Ok(Json(NewBot {
        bot: BotView::own(&bot, state.arena.is_online(bot.id), state.arena.games()),
        token,
    }))
}

/// Disables or enables a bot (administrator).
#[utoipa::path(post, path = "/api/v1/admin/bots/{name}/disable", tag = ADMIN, security(("bearer" = [])), params(("name" = String, Path, description = "Name or id")),
    request_body = DisableRequest, responses((status = 200, body = BotView), (status = 400, body = ErrorBody, description = "`invalid_request`: house bots cannot be changed; or a path or body that does not parse"), (status = 404, body = ErrorBody, description = "`bot_not_found`")))]
pub(crate) async fn admin_disable(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(name): ApiPath<String>,
    ApiJson(body): ApiJson<DisableRequest>,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.find_bot(&name)?;
    let bot = state.arena.set_disabled(bot.id, body.disabled).await?;
    Ok(Json(BotView::own(
        &bot,
        state.arena.is_online(bot.id),
        state.arena.games(),
    )))
}

/// Replaces the variants a registered bot offers (administrator). Refused while the bot has a
/// pending or running match (409 `has_open_matches`) and for an empty list (400).
#[utoipa::path(put, path = "/api/v1/admin/bots/{name}/variants", tag = ADMIN, security(("bearer" = [])), params(("name" = String, Path, description = "Name or id")),
    request_body = VariantsRequest, responses((status = 200, body = BotView), (status = 400, body = ErrorBody, description = "`invalid_request`: an unknown variant or none, or a house bot; or a path or body that does not parse"), (status = 404, body = ErrorBody, description = "`bot_not_found`"), (status = 409, body = ErrorBody, description = "`has_open_matches`: the bot has a pending or running match")))]
pub(crate) async fn admin_variants(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(name): ApiPath<String>,
    ApiJson(body): ApiJson<VariantsRequest>,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.find_bot(&name)?;
    let bot = state
        .arena
        .set_supported_variants(bot.id, &body.variants)
        .await?;
    Ok(Json(BotView::own(
        &bot,
        state.arena.is_online(bot.id),
        state.arena.games(),
    )))
}

/// Switches a registered bot's auto-matching on or off (administrator).
#[utoipa::path(post, path = "/api/v1/admin/bots/{name}/auto-match", tag = ADMIN, security(("bearer" = [])), params(("name" = String, Path, description = "Name or id")),
    request_body = AutoMatchRequest, responses((status = 200, body = BotView), (status = 400, body = ErrorBody, description = "`invalid_request`: house bots cannot be changed; or a path or body that does not parse"), (status = 404, body = ErrorBody, description = "`bot_not_found`")))]
pub(crate) async fn admin_auto_match(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(name): ApiPath<String>,
    ApiJson(body): ApiJson<AutoMatchRequest>,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.find_bot(&name)?;
    let bot = state.arena.set_auto_match(bot.id, body.enabled).await?;
    Ok(Json(BotView::own(
        &bot,
        state.arena.is_online(bot.id),
        state.arena.games(),
    )))
}

/// Switches bot talk on or off at once, in every match, without a restart (administrator):
/// the kill switch for what house bots say in the games whose house players talk.
#[utoipa::path(put, path = "/api/v1/admin/talk", tag = ADMIN, security(("bearer" = [])),
    request_body = TalkSwitch, responses((status = 200, body = TalkState, description = "Whether house bots talk now, and who words their lines")))]
pub(crate) async fn admin_talk(
    State(state): State<AppState>,
    _admin: Admin,
    ApiJson(body): ApiJson<TalkSwitch>,
) -> Json<TalkState> {
    state.arena.set_talk_enabled(body.enabled);
    Json(TalkState::of(&state.arena))
}

/// Whether house bots talk now, and who words their lines (administrator).
#[utoipa::path(get, path = "/api/v1/admin/talk", tag = ADMIN, security(("bearer" = [])),
    responses((status = 200, body = TalkState, description = "Whether house bots talk now, and who words their lines")))]
pub(crate) async fn admin_talk_state(
    State(state): State<AppState>,
    _admin: Admin,
) -> Json<TalkState> {
    Json(TalkState::of(&state.arena))
}

/// Deletes a bot (administrator); its matches stay in the history.
#[utoipa::path(delete, path = "/api/v1/admin/bots/{name}", tag = ADMIN, security(("bearer" = [])), params(("name" = String, Path, description = "Name or id")),
    responses((status = 200, body = BotView), (status = 400, body = ErrorBody, description = "`invalid_request`: house bots cannot be changed; or a path that does not parse"), (status = 404, body = ErrorBody, description = "`bot_not_found`")))]
pub(crate) async fn admin_delete(
    State(state): State<AppState>,
    _admin: Admin,
    ApiPath(name): ApiPath<String>,
) -> ApiResult<Json<BotView>> {
    let bot = state.arena.find_bot(&name)?;
    let bot = state.arena.delete_bot(bot.id).await?;
    Ok(Json(BotView::own(&bot, false, state.arena.games())))
}

/// Challenges a bot. Challenging a house bot or yourself starts the match at once.
/// With `?format=text` the answer is the match id alone, on one line.
#[utoipa::path(post, path = "/api/v1/challenges", tag = MATCHES, security(("bearer" = [])), request_body = ChallengeBody, params(FormatQuery),
    responses((status = 201, description = "The challenge (or started match); with `?format=text` its id alone", content((Object = "application/json"), (String = "text/plain"))),
        (status = 404, body = ErrorBody, description = "`bot_not_found`: no such opponent"),
        (status = 409, body = ErrorBody, description = "`bot_unavailable`, `unsupported_variant`, `bot_busy`, `site_bot_variant_matches_full`"),
        (status = 429, body = ErrorBody, description = "`rate_limited`: too many pending challenges; see Retry-After")))]
pub(crate) async fn create_challenge(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiQuery(query): ApiQuery<FormatQuery>,
    ApiJson(body): ApiJson<ChallengeBody>,
) -> ApiResult<Response> {
    let name = |value: &Value| match value {
        Value::String(name) => Some(name.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    };
    let opponents: Option<Vec<String>> = match &body.opponent {
        Value::Array(list) if (1..=7).contains(&list.len()) => list.iter().map(name).collect(),
        Value::Array(_) => None,
        one => name(one).map(|one| vec![one]),
    };
    let Some((opponent, more)) = opponents.as_deref().and_then(<[String]>::split_first) else {
        return Err(ApiError::bad_request(
            "invalid_request",
            "opponent must be a bot name or id, or a list of 1 to 7 of them",
        ));
    };
    let request = challenge_request(&state, opponent.clone(), body);
    let created = state.arena.challenge_several(&bot, request, more).await?;
    if query.format == OutputFormat::Text {
        return Ok(plain(StatusCode::CREATED, format!("{}\n", created.id)));
    }
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// Challenges a house bot by its level (`random`, `greedy`, `easy`, `medium`, `hard`): the
/// match starts at once. The body is a challenge's without `opponent`, and may be left out.
#[utoipa::path(post, path = "/api/v1/bot/challenge/house/{level}", tag = MATCHES, security(("bearer" = [])),
    params(("level" = String, Path, description = "The house bot's level: its name without `house-`")),
    request_body(content = ChallengeBody, description = "Optional; `opponent` is ignored"),
    responses((status = 201, description = "The started match"),
        (status = 404, body = ErrorBody, description = "`bot_not_found`: no house bot of that level"),
        (status = 409, body = ErrorBody, description = "`bot_unavailable`, `unsupported_variant`, `bot_busy`, `site_bot_variant_matches_full`"),
        (status = 429, body = ErrorBody, description = "`rate_limited`: too many pending challenges; see Retry-After")))]
pub(crate) async fn challenge_house(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(level): ApiPath<String>,
    ApiJson(mut body): ApiJson<Value>,
) -> ApiResult<Response> {
    // The opponent is the path's: a body need not name one.
    if let Value::Object(fields) = &mut body {
        fields.insert("opponent".to_owned(), json!(null));
    }
    let body: ChallengeBody = serde_json::from_value(body).map_err(|e| {
        ApiError::bad_request(
            "invalid_json",
            format!("the body is not the expected JSON: {e}"),
        )
    })?;
    let house = state
        .arena
        .find_bot(&format!("house-{level}"))
        .ok()
        .filter(|house| house.kind == BotKind::House)
        .ok_or_else(|| ArenaError::BotNotFound(format!("house-{level}")))?;
    let request = challenge_request(&state, house.name, body);
    let created = state.arena.challenge(&bot, request).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// The arena's challenge to `opponent` that a challenge's body asks for.
fn challenge_request(state: &AppState, opponent: String, body: ChallengeBody) -> ChallengeRequest {
    let game = body.game.unwrap_or_else(|| default_game(state));
    let format = match body.format {
        Some(format) => format.into(),
        None => state
            .arena
            .games()
            .get(&game)
            .map_or(Format::Paired, |family| family.setup.default_format()),
    };
    ChallengeRequest {
        opponent,
        game,
        variant: body.variant,
        format,
        time_control: body.time_control.into(),
        rated: body.rated,
        auto: false,
        opening: body.opening.into(),
        client_seed: body.client_seed,
    }
}

/// The calling bot's open challenges and matches.
#[utoipa::path(get, path = "/api/v1/matches", tag = MATCHES, security(("bearer" = [])), responses((status = 200, description = "Snapshots of open matches")))]
pub(crate) async fn my_matches(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> Json<Vec<MatchSnapshot>> {
    Json(state.arena.open_matches_of(bot.id).await)
}

/// The calling bot's pending challenges (sent and received).
#[utoipa::path(get, path = "/api/v1/challenges", tag = MATCHES, security(("bearer" = [])), responses((status = 200, description = "Pending challenges")))]
pub(crate) async fn my_challenges(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
) -> Json<Vec<MatchSnapshot>> {
    let pending: Vec<MatchSnapshot> = state
        .arena
        .open_matches_of(bot.id)
        .await
        .into_iter()
        .filter(|m| m.status == MatchStatus::Pending)
        .collect();
    Json(pending)
}

/// Opens a table of a game for a number of seats, yours the first; other bots join it, and the
/// match starts when the last seat is taken. Tables are unrated, and expire like challenges.
#[utoipa::path(post, path = "/api/v1/tables", tag = MATCHES, security(("bearer" = [])), request_body = TableBody,
    responses((status = 201, description = "The table, a pending match with `table: true` and its `seats`"),
        (status = 409, body = ErrorBody, description = "`unsupported_variant`: no such game or variant, or not for this many seats"),
        (status = 429, body = ErrorBody, description = "`rate_limited`: too many pending challenges and tables; see Retry-After")))]
pub(crate) async fn open_table(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiJson(body): ApiJson<TableBody>,
) -> ApiResult<Response> {
    let game = body.game.unwrap_or_else(|| default_game(&state));
    let request = TableRequest {
        game,
        variant: body.variant,
        seats: body.seats,
        format: body.format.into(),
        time_control: body.time_control.into(),
        client_seed: body.client_seed,
        language: body.language.unwrap_or_default().into(),
    };
    let table = state.arena.open_table(&bot, request).await?;
    Ok((StatusCode::CREATED, Json(table)).into_response())
}

/// The most open tables a list gives.
pub(crate) const TABLES_LISTED: usize = 100;

/// The open tables with a free seat, newest first, of every game or of `game`: the lobby.
/// People (signed in or guests) and bots sit down at the same tables; a table starts once
/// its last seat is taken. `GET /api/v1/stream?lobby=true` sends this list again whenever
/// it changes.
#[utoipa::path(get, path = "/api/v1/tables", tag = MATCHES, params(GameFilter),
    responses((status = 200, description = "The open tables, as match snapshots with `table: true`, `seats`, `rated`, the clock and the `participants` seated so far")))]
pub(crate) async fn list_tables(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<GameFilter>,
) -> Json<Value> {
    let tables: Vec<_> = state
        .arena
        .open_tables(TABLES_LISTED)
        .await
        .into_iter()
        .filter(|table| filter.admits(table.game))
        .collect();
    Json(json!(tables))
}

/// The running matches of every game or of `game`, newest first, as spectators see them:
/// what there is to watch.
#[utoipa::path(get, path = "/api/v1/live", tag = MATCHES, params(GameFilter),
    responses((status = 200, description = "Match snapshots of running matches, as a spectator reads them")))]
pub(crate) async fn live_matches(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<GameFilter>,
) -> Json<Value> {
    let matches: Vec<_> = state
        .arena
        .running_matches(LIVE_LISTED)
        .await
        .into_iter()
        .filter(|running| filter.admits(running.game))
        .collect();
    Json(json!(matches))
}

/// The most running matches a list gives.
pub(crate) const LIVE_LISTED: usize = 200;

/// Takes a seat at an open table; the match starts when the last seat is taken.
#[utoipa::path(post, path = "/api/v1/tables/{id}/join", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path)), request_body(content = SeedBody, description = "Optional: your client seed"),
    responses((status = 200, description = "The table, or the match if this seat was the last"),
        (status = 404, body = ErrorBody, description = "`match_not_found`: no such table"),
        (status = 400, body = ErrorBody, description = "`invalid_request`: the bot already has a seat there"),
        (status = 409, body = ErrorBody, description = "`challenge_not_pending`: the table is full, started or closed; `unsupported_variant`, `bot_busy`")))]
pub(crate) async fn join_table(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<SeedBody>,
) -> ApiResult<Json<MatchSummary>> {
    let seed = body.client_seed.as_deref();
    Ok(Json(state.arena.join_table(&bot, id, seed).await?))
}

/// Accepts a challenge.
#[utoipa::path(post, path = "/api/v1/challenges/{id}/accept", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path)), request_body(content = SeedBody, description = "Optional: your client seed"),
    responses((status = 200, description = "The started match"), (status = 403, body = ErrorBody, description = "`not_your_challenge`, `not_a_participant`"), (status = 404, body = ErrorBody, description = "`match_not_found`"), (status = 409, body = ErrorBody, description = "`challenge_not_pending`, `bot_busy`, `bot_unavailable`")))]
pub(crate) async fn accept(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<SeedBody>,
) -> ApiResult<Json<MatchSummary>> {
    let seed = body.client_seed.as_deref();
    Ok(Json(state.arena.accept(&bot, id, seed).await?))
}

/// Declines a challenge (the challenged bot).
#[utoipa::path(post, path = "/api/v1/challenges/{id}/reject", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The declined challenge"), (status = 403, body = ErrorBody, description = "`not_your_challenge`, `not_a_participant`"), (status = 404, body = ErrorBody, description = "`match_not_found`"), (status = 409, body = ErrorBody, description = "`challenge_not_pending`")))]
pub(crate) async fn reject(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<MatchSummary>> {
    Ok(Json(state.arena.decline(&bot, id, false).await?))
}

/// Withdraws a challenge (the challenger).
#[utoipa::path(post, path = "/api/v1/challenges/{id}/cancel", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The withdrawn challenge"), (status = 403, body = ErrorBody, description = "`not_your_challenge`, `not_a_participant`"), (status = 404, body = ErrorBody, description = "`match_not_found`"), (status = 409, body = ErrorBody, description = "`challenge_not_pending`")))]
pub(crate) async fn cancel(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<MatchSummary>> {
    Ok(Json(state.arena.decline(&bot, id, true).await?))
}

/// A match as the caller may see it: participants also get their pending `turns`.
#[utoipa::path(get, path = "/api/v1/matches/{id}", tag = MATCHES, security((), ("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The match"), (status = 404, body = ErrorBody, description = "`match_not_found`")))]
pub(crate) async fn snapshot(
    State(state): State<AppState>,
    MaybeBot(bot): MaybeBot,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<MatchSnapshot>> {
    let reader = state.arena.reader_for(id, bot.as_ref());
    Ok(Json(state.arena.snapshot(id, reader).await?))
}

/// The match's events after `since`, waiting up to `wait` seconds for one; at most 100.
#[utoipa::path(get, path = "/api/v1/matches/{id}/events", tag = MATCHES, security((), ("bearer" = [])), params(("id" = i64, Path), EventsQuery),
    responses((status = 200, description = "Events and next_since"), (status = 404, body = ErrorBody, description = "`match_not_found`")))]
pub(crate) async fn events(
    State(state): State<AppState>,
    MaybeBot(bot): MaybeBot,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(query): ApiQuery<EventsQuery>,
) -> ApiResult<Json<EventPage>> {
    let reader = state.arena.reader_for(id, bot.as_ref());
    Ok(Json(
        state
            .arena
            .events(id, reader, query.since, query.wait.saturating_mul(1_000))
            .await?,
    ))
}

/// The caller's pending decisions in a match, each with its complete engine request; waits up
/// to `wait` seconds for one.
///
/// With `?format=text` each decision is a line `turn <leg> <revision> <moves>` (legal moves
/// joined by commas, `-1` for a pass); once the match is over the only line is
/// `end <status> <reason> <total 0> <total 1> <winner>`; nothing pending yet is an empty body.
#[utoipa::path(get, path = "/api/v1/matches/{id}/turns", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path), TurnsQuery),
    responses((status = 200, description = "Pending turns; with `?format=text` one line each", content((Object = "application/json"), (String = "text/plain"))), (status = 403, body = ErrorBody, description = "`not_a_participant`"), (status = 404, body = ErrorBody, description = "`match_not_found`")))]
pub(crate) async fn turns(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(query): ApiQuery<TurnsQuery>,
) -> ApiResult<Response> {
    let turns = state
        .arena
        .turns(&bot, id, query.wait.saturating_mul(1_000))
        .await?;
    if query.format == OutputFormat::Json {
        return Ok(Json(turns).into_response());
    }
    let text = if turns.status.is_open() {
        text::turn_lines(&turns.turns)
    } else {
        let reader = state.arena.reader_for(id, Some(&bot));
        let snapshot = state.arena.snapshot(id, reader).await?;
        text::end_line(snapshot.status, snapshot.result.as_ref())
    };
    Ok(plain(StatusCode::OK, text))
}

/// Plays a move. Re-sending the identical move for the same revision returns the original
/// result.
#[utoipa::path(post, path = "/api/v1/matches/{id}/moves", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path)), request_body = MoveBody,
    responses((status = 200, description = "The move was accepted"), (status = 400, body = ErrorBody, description = "`invalid_leg`: the match has no such leg; or a path or body that does not parse"), (status = 403, body = ErrorBody, description = "`not_a_participant`"), (status = 404, body = ErrorBody, description = "`match_not_found`"), (status = 409, body = ErrorBody, description = "stale_revision, not_your_turn, illegal_move, leg_finished, match_not_running, invalid_move_coordinate or move_outside_board")))]
pub(crate) async fn play(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<MoveBody>,
) -> ApiResult<Json<MoveReply>> {
    Ok(Json(
        state
            .arena
            .submit(&bot, id, body.leg, body.revision, body.mv)
            .await?,
    ))
}

/// Resigns the match.
#[utoipa::path(post, path = "/api/v1/matches/{id}/resign", tag = MATCHES, security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "The finished match"), (status = 403, body = ErrorBody, description = "`not_a_participant`"), (status = 404, body = ErrorBody, description = "`match_not_found`"), (status = 409, body = ErrorBody, description = "`match_not_running`")))]
pub(crate) async fn resign(
    State(state): State<AppState>,
    AuthBot(bot): AuthBot,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<MatchSummary>> {
    Ok(Json(state.arena.resign(&bot, id).await?))
}

/// The match's complete event log, with the server seed once the match has ended.
#[utoipa::path(get, path = "/api/v1/matches/{id}/export", tag = MATCHES, params(("id" = i64, Path)),
    responses((status = 200, description = "The export"), (status = 404, body = ErrorBody, description = "`match_not_found`")))]
pub(crate) async fn export(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<MatchExport>> {
    let mut export = state.arena.export(id).await?;
    if export.status.is_open() {
        // Hidden information may sit in participant-only events until the end.
        export.events.retain(|e| e.audience.is_none());
    }
    Ok(Json(export))
}

/// Whether a request is a browser's for a page rather than an API client's: not under an
/// API's prefix, and accepting HTML.
fn wants_page(uri: &axum::http::Uri, headers: &axum::http::HeaderMap) -> bool {
    let api = ["/api/", "/flipsight"]
        .iter()
        .any(|prefix| uri.path().starts_with(prefix));
    let wants_html = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    wants_html && !api
}

/// Any path the API does not know.
pub(crate) async fn not_found(uri: axum::http::Uri, headers: axum::http::HeaderMap) -> Response {
    // A browser asking for a page gets a page; clients of the APIs get the API's error.
    if wants_page(&uri, &headers) {
        return arbiter_web::not_found_page();
    }
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint").into_response()
}

/// A known path with the wrong method.
pub(crate) async fn method_not_allowed(
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> Response {
    if wants_page(&uri, &headers) {
        return arbiter_web::method_not_allowed_page();
    }
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not accept that method",
    )
    .into_response()
}

/// The game of a request that names none: the server's default game. With no game at all,
/// the arena refuses the empty name.
pub(crate) fn default_game(state: &AppState) -> String {
    state
        .arena
        .games()
        .default_mode()
        .map(|mode| mode.game.to_owned())
        .unwrap_or_default()
}
