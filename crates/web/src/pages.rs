//! One handler per page or form.

use arbiter_arena::Mode;
use arbiter_arena::{ArenaError, PASSWORD_MIN, SESSION_MS};
use askama::Template;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use serde::Deserialize;

use crate::WebState;
use crate::error::{WebError, status_of};
use crate::matches::MiniBoard;
use crate::paths::{bot_path, filters};
use crate::photo;
use crate::session::{ClientAddress, GUEST_COOKIE, GUEST_MS, SESSION_COOKIE, Visitor, cookie};
use crate::view::{
    BotRow, GameChoice, MatchRow, Standing, VariantChoice, rating_chart, rating_history,
    variant_key,
};

/// What every page's layout shows: the title, who is signed in, and the CSRF value for the
/// sign-out form.
pub(crate) struct Page {
    pub(crate) title: String,
    pub(crate) account: Option<String>,
    pub(crate) csrf: String,
}

pub(crate) fn page(visitor: &Visitor, title: &str) -> Page {
    Page {
        title: title.to_owned(),
        account: visitor.account.as_ref().map(|a| a.name.clone()),
        csrf: visitor.csrf.clone(),
    }
}

pub(crate) fn render(template: &impl Template) -> Result<Html<String>, WebError> {
    Ok(Html(template.render()?))
}

/// A page shown with a status other than 200 (a form with an error).
fn render_with(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => WebError::Render(error).into_response(),
    }
}

// ----- home -----

/// How many matches the home page shows as live boards. Each board waits on its match's
/// events with a long-poll of its own, and browsers hold at most six connections to a site,
/// so a few boards leave room for everything else.
const LIVE_BOARDS: usize = 4;

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage {
    page: Page,
    /// The games the server runs, with their variants.
    games: Vec<GameChoice>,
    /// The game a quick match plays: the server's default mode's.
    quick_game: &'static str,
    live: Vec<MiniBoard>,
    /// How many more matches are being played than the boards show.
    more: usize,
    recent: Vec<MatchRow>,
}

/// The home page's "Playing now": a small board for each of the first matches being played.
#[derive(Template)]
#[template(path = "live.html")]
struct LiveFragment {
    live: Vec<MiniBoard>,
    /// How many more matches are being played than the boards show.
    more: usize,
}

impl LiveFragment {
    async fn now(state: &WebState) -> LiveFragment {
        let running = state.arena.running_matches(20).await;
        LiveFragment {
            live: running
                .iter()
                .take(LIVE_BOARDS)
                .map(|m| MiniBoard::of_match(state, m))
                .collect(),
            more: running.len().saturating_sub(LIVE_BOARDS),
        }
    }
}

/// `GET /`: what the site is, a quick match, live boards and recent results.
pub(crate) async fn home(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Html<String>, WebError> {
    let LiveFragment { live, more } = LiveFragment::now(&state).await;
    let recent = state.arena.closed_matches(None, 10).await?;
    render(&HomePage {
        page: page(&visitor, "Arbiter"),
        games: GameChoice::all(state.arena.games()),
        quick_game: state.arena.games().default_mode().map_or("", |m| m.game),
        live,
        more,
        recent: recent.iter().map(MatchRow::of).collect(),
    })
}

/// `GET /live`: the home page's "Playing now" as a fragment, which the page fetches again now
/// and then so that matches started since it was loaded appear on it.
pub(crate) async fn live_fragment(State(state): State<WebState>) -> Result<Response, WebError> {
    let html = render(&LiveFragment::now(&state).await)?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

// ----- accounts -----

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage {
    page: Page,
    /// `signup` or `signin`: the form's address.
    action: &'static str,
    error: Option<String>,
    name: String,
    password_min: usize,
}

fn account_page(
    visitor: &Visitor,
    action: &'static str,
    error: Option<String>,
    name: String,
) -> AccountPage {
    let title = if action == "signup" {
        "Sign up"
    } else {
        "Sign in"
    };
    AccountPage {
        page: page(visitor, title),
        action,
        error,
        name,
        password_min: PASSWORD_MIN,
    }
}

/// A sign-up or sign-in form.
#[derive(Deserialize)]
pub(crate) struct AccountForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

/// `GET /signup`.
pub(crate) async fn sign_up_form(visitor: Visitor) -> Result<Html<String>, WebError> {
    render(&account_page(&visitor, "signup", None, String::new()))
}

/// `GET /signin`.
pub(crate) async fn sign_in_form(visitor: Visitor) -> Result<Html<String>, WebError> {
    render(&account_page(&visitor, "signin", None, String::new()))
}

/// The session cookie for a new session, and the way to the visitor's bots.
fn signed_in(visitor: &Visitor, secret: String) -> Response {
    let jar = CookieJar::new().add(cookie(SESSION_COOKIE, secret, visitor.secure, SESSION_MS));
    (jar, Redirect::to("/my/bots")).into_response()
}

/// `POST /signup`.
pub(crate) async fn sign_up(
    State(state): State<WebState>,
    visitor: Visitor,
    Form(form): Form<AccountForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    match state.arena.sign_up(&form.name, &form.password).await {
        Ok((_, secret)) => Ok(signed_in(&visitor, secret)),
        Err(error) => Ok(render_with(
            status_of(&error),
            &account_page(&visitor, "signup", Some(error.to_string()), form.name),
        )),
    }
}

/// `POST /signin`.
pub(crate) async fn sign_in(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<AccountForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    match state
        .arena
        .sign_in(&form.name, &form.password, client)
        .await
    {
        Ok((_, secret)) => Ok(signed_in(&visitor, secret)),
        Err(error) => Ok(render_with(
            status_of(&error),
            &account_page(&visitor, "signin", Some(error.to_string()), form.name),
        )),
    }
}

/// A form that carries only the CSRF value.
#[derive(Deserialize)]
pub(crate) struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

/// `POST /signout`.
pub(crate) async fn sign_out(
    State(state): State<WebState>,
    visitor: Visitor,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    if let Some(session) = &visitor.session {
        state.arena.sign_out(session).await?;
    }
    Ok(signed_out(&visitor))
}

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    page: Page,
    name: String,
    /// What the last change did, or why it was refused.
    notice: Option<String>,
    error: Option<String>,
    password_min: usize,
}

fn settings_page(
    visitor: &Visitor,
    notice: Option<String>,
    error: Option<String>,
) -> Result<SettingsPage, WebError> {
    Ok(SettingsPage {
        page: page(visitor, "Your account"),
        name: visitor.account()?.name.clone(),
        notice,
        error,
        password_min: PASSWORD_MIN,
    })
}

/// `GET /account`: changing the password, signing out everywhere, deleting the account.
pub(crate) async fn settings(visitor: Visitor) -> Result<Html<String>, WebError> {
    render(&settings_page(&visitor, None, None)?)
}

/// A form on the account page: the password, given again, and a new one where it changes.
#[derive(Deserialize)]
pub(crate) struct SettingsForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    new_password: String,
}

/// The account page again with why a change was refused.
fn refuse_settings(visitor: &Visitor, error: &ArenaError) -> Result<Response, WebError> {
    let page = settings_page(visitor, None, Some(error.to_string()))?;
    Ok(render_with(status_of(error), &page))
}

/// The way home with the session cookie removed: replaced by an empty one that has already
/// expired (a jar's `remove` says nothing of a cookie the jar was not built from).
fn signed_out(visitor: &Visitor) -> Response {
    let jar = CookieJar::new().add(cookie(SESSION_COOKIE, String::new(), visitor.secure, 0));
    (jar, Redirect::to("/")).into_response()
}

/// `POST /account/password`: a new password; every other session of the account ends.
pub(crate) async fn change_password(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<SettingsForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let kept = visitor.session.as_deref().unwrap_or_default();
    let changed = state
        .arena
        .change_password(account, &form.password, &form.new_password, kept, client)
        .await;
    match changed {
        Ok(()) => {
            let notice = "Your password is changed, and every other browser is signed out.";
            Ok(render(&settings_page(&visitor, Some(notice.to_owned()), None)?)?.into_response())
        }
        Err(error) => refuse_settings(&visitor, &error),
    }
}

/// `POST /account/sign-out-everywhere`: ends every session of the account, this one too.
pub(crate) async fn sign_out_everywhere(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<SettingsForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    match state
        .arena
        .sign_out_everywhere(account, &form.password, client)
        .await
    {
        Ok(()) => Ok(signed_out(&visitor)),
        Err(error) => refuse_settings(&visitor, &error),
    }
}

/// `POST /account/delete`: deletes the account and its bots (see `Arena::delete_account`).
pub(crate) async fn delete_account(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<SettingsForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    match state
        .arena
        .delete_account(account, &form.password, client)
        .await
    {
        Ok(()) => Ok(signed_out(&visitor)),
        Err(error) => refuse_settings(&visitor, &error),
    }
}

// ----- bots -----

#[derive(Template)]
#[template(path = "bots.html")]
struct BotsPage {
    page: Page,
    bots: Vec<BotRow>,
}

/// `GET /bots`: every bot that can play, online ones first.
pub(crate) async fn bots(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Html<String>, WebError> {
    let mut listed = state.arena.list_bots();
    listed.retain(|(bot, _)| !bot.deleted && !bot.disabled && bot.kind.as_str() != "anonymous");
    listed.sort_by_key(|(bot, online)| (!online, bot.name.to_lowercase()));
    let mut rows = Vec::with_capacity(listed.len());
    for (bot, online) in &listed {
        rows.push(BotRow::of(&state.arena, bot, *online).await);
    }
    render(&BotsPage {
        page: page(&visitor, "Bots"),
        bots: rows,
    })
}

#[derive(Template)]
#[template(path = "my_bots.html")]
struct MyBotsPage {
    page: Page,
    bots: Vec<BotRow>,
    error: Option<String>,
    name: String,
    variants: Vec<VariantChoice>,
    chosen: Vec<String>,
    /// This server's address, for the connector's `--server`.
    origin: String,
}

impl MyBotsPage {
    fn chose(&self, variant: &str) -> bool {
        self.chosen.iter().any(|c| c == variant)
    }
}

async fn my_bots_page(
    state: &WebState,
    visitor: &Visitor,
    error: Option<String>,
    name: String,
    chosen: Vec<String>,
) -> Result<MyBotsPage, WebError> {
    let account = visitor.account()?;
    let mut rows = Vec::new();
    for (bot, online) in state.arena.bots_of(account) {
        rows.push(BotRow::of(&state.arena, &bot, online).await);
    }
    Ok(MyBotsPage {
        page: page(visitor, "My bots"),
        bots: rows,
        error,
        name,
        variants: VariantChoice::all(state.arena.games()),
        chosen,
        origin: visitor.origin.clone(),
    })
}

/// `GET /my/bots`: the visitor's bots and the form to register one.
pub(crate) async fn my_bots(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Html<String>, WebError> {
    // The server's default mode is checked to begin with.
    let chosen = state
        .arena
        .games()
        .default_mode()
        .map(|mode| variant_key(state.arena.games(), mode))
        .into_iter()
        .collect();
    let page = my_bots_page(&state, &visitor, None, String::new(), chosen).await?;
    render(&page)
}

/// The fields of the registration form.
#[derive(Default)]
struct Registration {
    name: String,
    variants: Vec<String>,
    photo: Option<Vec<u8>>,
    csrf: String,
}

async fn read_registration(mut multipart: Multipart) -> Result<Registration, WebError> {
    let bad = |e: axum::extract::multipart::MultipartError| WebError::BadRequest(e.body_text());
    let mut form = Registration::default();
    while let Some(field) = multipart.next_field().await.map_err(bad)? {
        match field.name().unwrap_or_default() {
            "name" => form.name = field.text().await.map_err(bad)?,
            "variant" => form.variants.push(field.text().await.map_err(bad)?),
            "csrf" => form.csrf = field.text().await.map_err(bad)?,
            "photo" => {
                let bytes = field.bytes().await.map_err(bad)?;
                form.photo = (!bytes.is_empty()).then(|| bytes.to_vec());
            }
            _ => {}
        }
    }
    Ok(form)
}

/// `POST /my/bots` (multipart): registers a bot, with its picture if one was chosen, and
/// shows its token once.
pub(crate) async fn register_bot(
    State(state): State<WebState>,
    visitor: Visitor,
    multipart: Multipart,
) -> Result<Response, WebError> {
    let form = read_registration(multipart).await?;
    visitor.check(&form.csrf)?;
    let account = visitor.account()?.clone();
    // The picture is checked before anything is created, so a refused one changes nothing.
    let png = match form.photo.as_deref().map(photo::reencode).transpose() {
        Ok(png) => png,
        Err(error) => {
            return refuse_registration(
                &state,
                &visitor,
                StatusCode::BAD_REQUEST,
                error.to_string(),
                form,
            )
            .await;
        }
    };
    let registered = state
        .arena
        .register_bot_for(&account, &form.name, form.variants.clone())
        .await;
    let (bot, token) = match registered {
        Ok(created) => created,
        Err(error) => {
            return refuse_registration(
                &state,
                &visitor,
                status_of(&error),
                error.to_string(),
                form,
            )
            .await;
        }
    };
    if let Some(png) = png {
        state.arena.set_photo(bot.id, png).await?;
    }
    Ok(show_token_once(&state, &visitor, bot.name, token))
}

/// The registration form again, filled in as it was, with why it was refused.
async fn refuse_registration(
    state: &WebState,
    visitor: &Visitor,
    status: StatusCode,
    message: String,
    form: Registration,
) -> Result<Response, WebError> {
    let page = my_bots_page(state, visitor, Some(message), form.name, form.variants).await?;
    Ok(render_with(status, &page))
}

/// Keeps a new token for the visitor's next page only, and sends the visitor there; the
/// token never appears in an address.
fn show_token_once(state: &WebState, visitor: &Visitor, bot: String, token: String) -> Response {
    let Some(key) = visitor.token_key() else {
        return WebError::SignInRequired.into_response();
    };
    let to = format!("/my{}/token", bot_path(&bot));
    crate::lock(&state.tokens).insert(key, (bot, token));
    Redirect::to(&to).into_response()
}

#[derive(Template)]
#[template(path = "token.html")]
struct TokenPage {
    page: Page,
    bot: String,
    token: Option<String>,
}

/// `GET /my/bots/{name}/token`: the token, the one time it is shown.
pub(crate) async fn token_once(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    visitor.account()?;
    let key = visitor.token_key().unwrap_or_default();
    let token = {
        let mut tokens = crate::lock(&state.tokens);
        match tokens.get(&key) {
            Some((bot, _)) if *bot == name => tokens.remove(&key).map(|(_, token)| token),
            _ => None,
        }
    };
    let html = render(&TokenPage {
        page: page(&visitor, "Your bot's token"),
        bot: name,
        token,
    })?;
    // Never kept by the browser: going back or reloading must not show the token again.
    Ok(([(header::CACHE_CONTROL, "no-store")], html).into_response())
}

#[derive(Template)]
#[template(path = "bot.html")]
struct BotPage {
    page: Page,
    bot: BotRow,
    mine: bool,
    matches: Vec<MatchRow>,
    variants: Vec<VariantChoice>,
    message: Option<String>,
    /// The visitor's bots that may challenge this one, each with the key of a variant both
    /// play.
    challengers: Vec<(String, String)>,
    /// The rating in the default mode over its last rated matches, as SVG.
    chart: Option<String>,
    /// Whether a person may play it now (a house bot, or a registered bot online).
    open_to_people: bool,
    /// The variants a person may play it in: those of the server's default game that it
    /// plays (a person's game is the default game).
    person_variants: Vec<String>,
    /// The variant XOT openings are for (the default mode's), if the bot plays it.
    xot_variant: Option<String>,
}

async fn bot_page_for(
    state: &WebState,
    visitor: &Visitor,
    name: &str,
    message: Option<String>,
) -> Result<BotPage, WebError> {
    let bot = state.arena.find_bot(name).map_err(|_| WebError::NotFound)?;
    if bot.deleted {
        return Err(WebError::NotFound);
    }
    let mine = visitor
        .account
        .as_ref()
        .is_some_and(|a| bot.profile.owner == Some(a.id));
    let games = state.arena.games();
    let default = games.default_mode();
    let mut matches = state.arena.closed_matches(Some(bot.id), 100).await?;
    let chart = default.and_then(|mode| rating_chart(&rating_history(&matches, bot.id, mode)));
    matches.truncate(20);
    let variants = VariantChoice::all(games);
    let challengers = match &visitor.account {
        Some(account) if !mine && !bot.disabled => state
            .arena
            .bots_of(account)
            .into_iter()
            .filter(|(own, _)| !own.disabled)
            .flat_map(|(own, _)| {
                variants
                    .iter()
                    .filter(|c| own.supports(&c.key) && bot.supports(&c.key))
                    .map(|c| (own.name.clone(), c.key.clone()))
                    .collect::<Vec<_>>()
            })
            .collect(),
        _ => Vec::new(),
    };
    let row = BotRow::of(&state.arena, &bot, state.arena.is_online(bot.id)).await;
    let person_variants = variants
        .iter()
        .filter(|c| default.is_some_and(|d| d.game == c.game) && row.offers(&c.key))
        .map(|c| c.key.clone())
        .collect();
    let xot_variant = default
        .map(|mode| variant_key(games, mode))
        .filter(|key| row.offers(key));
    Ok(BotPage {
        page: page(visitor, &bot.name),
        bot: row,
        mine,
        matches: matches.iter().map(MatchRow::of).collect(),
        variants,
        message,
        challengers,
        chart,
        open_to_people: !bot.disabled
            && (bot.kind == arbiter_arena::BotKind::House
                || (bot.kind == arbiter_arena::BotKind::Registered
                    && state.arena.is_online(bot.id))),
        person_variants,
        xot_variant,
    })
}

/// `GET /bots/{name}`: a bot's profile, with its manage menu for its owner.
pub(crate) async fn bot_page(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
) -> Result<Html<String>, WebError> {
    render(&bot_page_for(&state, &visitor, &name, None).await?)
}

/// `GET /bots/{name}/photo`: the bot's picture as the server re-encoded it.
pub(crate) async fn photo(
    State(state): State<WebState>,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    let bot = state
        .arena
        .find_bot(&name)
        .map_err(|_| WebError::NotFound)?;
    let png = state.arena.photo(bot.id).await?.ok_or(WebError::NotFound)?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            // The address names the picture's version.
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        png,
    )
        .into_response())
}

/// Runs an owner's change to their bot, then shows the bot's page again: with the change, or
/// with why it was refused.
async fn manage(
    state: &WebState,
    visitor: &Visitor,
    name: &str,
    csrf: &str,
    change: impl AsyncFnOnce(&arbiter_arena::Arena, i64) -> Result<(), ArenaError>,
) -> Result<Response, WebError> {
    visitor.check(csrf)?;
    let account = visitor.account()?;
    let bot = state.arena.owned_bot(account, name)?;
    match change(&state.arena, bot.id).await {
        Ok(()) => Ok(Redirect::to(&bot_path(&bot.name)).into_response()),
        Err(error) => {
            let page = bot_page_for(state, visitor, name, Some(error.to_string())).await?;
            Ok(render_with(status_of(&error), &page))
        }
    }
}

/// `POST /bots/{name}/token`: a new token; the old one stops working at once.
pub(crate) async fn rotate_token(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let bot = state.arena.owned_bot(visitor.account()?, &name)?;
    let (bot, token) = state.arena.rotate_token(bot.id).await?;
    Ok(show_token_once(&state, &visitor, bot.name, token))
}

/// The challenge form: one of the visitor's bots and a variant both play, as
/// `"name variant"` (the variant's key: `std`, or `game:variant` where several games have a
/// variant of that name).
#[derive(Deserialize)]
pub(crate) struct ChallengeForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    pair: String,
}

/// `POST /bots/{name}/challenge`: one of the visitor's bots challenges this one to a rated
/// paired match; the visitor is taken to the match.
pub(crate) async fn challenge(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<ChallengeForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let (mine, variant) = form
        .pair
        .split_once(' ')
        .ok_or_else(|| WebError::BadRequest("choose one of your bots and a game".to_owned()))?;
    let challenger = state.arena.owned_bot(account, mine)?;
    let mode = state
        .arena
        .games()
        .mode_of_key(variant)
        .map_err(|e| WebError::BadRequest(e.to_string()))?;
    let request = arbiter_arena::ChallengeRequest {
        opponent: name.clone(),
        game: mode.game.to_owned(),
        variant: Some(mode.variant.to_owned()),
        format: arbiter_arena::Format::Paired,
        time_control: Default::default(),
        rated: true,
        auto: false,
        opening: Default::default(),
    };
    let created = state.arena.challenge(&challenger, request).await;
    to_the_match(&state, &visitor, &name, created).await
}

/// The way to a match the arena just created.
fn to_match(created: &serde_json::Value) -> Response {
    let id = created["id"].as_i64().unwrap_or(0);
    Redirect::to(&format!("/matches/{id}")).into_response()
}

/// The way to a new match, or the bot's page again with why the match was refused.
async fn to_the_match(
    state: &WebState,
    visitor: &Visitor,
    bot: &str,
    created: Result<serde_json::Value, ArenaError>,
) -> Result<Response, WebError> {
    match created {
        Ok(created) => Ok(to_match(&created)),
        Err(error) => {
            let page = bot_page_for(state, visitor, bot, Some(error.to_string())).await?;
            Ok(render_with(status_of(&error), &page))
        }
    }
}

/// The form to play a bot oneself.
#[derive(Deserialize)]
pub(crate) struct PlayForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    variant: String,
    #[serde(default)]
    minutes: u32,
    #[serde(default)]
    increment: u32,
    /// `start`, or `xot` for a balanced 8-move opening (the default mode only).
    #[serde(default)]
    opening: String,
    /// `black`, `white` or `random`; Black when the form has no choice.
    #[serde(default)]
    colour: String,
}

/// The seat a person asked for: Black is Othello's first seat.
fn seat_of(colour: &str) -> Result<arbiter_arena::SeatChoice, WebError> {
    match colour {
        "" | "black" => Ok(arbiter_arena::SeatChoice::First),
        "white" => Ok(arbiter_arena::SeatChoice::Second),
        "random" => Ok(arbiter_arena::SeatChoice::Random),
        _ => Err(WebError::BadRequest(
            "choose Black, White or a random colour".to_owned(),
        )),
    }
}

/// The game a person asked for on a play form: the clocks, the start and their colour.
fn play_terms(
    form: &PlayForm,
) -> Result<
    (
        arbiter_arena::TimeControl,
        arbiter_arena::Opening,
        arbiter_arena::SeatChoice,
    ),
    WebError,
> {
    if !(1..=60).contains(&form.minutes) || form.increment > 60 {
        return Err(WebError::BadRequest(
            "choose 1 to 60 minutes and an increment of at most 60 seconds".to_owned(),
        ));
    }
    let time_control = arbiter_arena::TimeControl {
        initial_ms: i64::from(form.minutes) * 60_000,
        increment_ms: i64::from(form.increment) * 1_000,
        per_turn_ms: None,
    };
    let opening = if form.opening == "xot" {
        arbiter_arena::Opening::Balanced
    } else {
        arbiter_arena::Opening::Start
    };
    Ok((time_control, opening, seat_of(&form.colour)?))
}

/// The participant the visitor plays as: the account's (made the first time), the guest its
/// cookie names, or a new guest, with the cookie that will name it.
async fn person_for(
    state: &WebState,
    visitor: &Visitor,
    client: std::net::IpAddr,
) -> Result<(arbiter_arena::Bot, CookieJar), WebError> {
    match (&visitor.account, &visitor.person) {
        (_, Some(person)) => Ok((person.clone(), CookieJar::new())),
        (Some(account), None) => Ok((state.arena.person_of(account).await?, CookieJar::new())),
        (None, None) => {
            let (guest, secret) = state.arena.new_guest(client).await?;
            let jar = CookieJar::new().add(cookie(GUEST_COOKIE, secret, visitor.secure, GUEST_MS));
            Ok((guest, jar))
        }
    }
}

/// `POST /bots/{name}/play`: the visitor (signed in, or as a guest) plays the bot one
/// unrated game, and is taken to it.
pub(crate) async fn play_bot(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Path(name): Path<String>,
    Form(form): Form<PlayForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let (time_control, opening, seat) = play_terms(&form)?;
    let (person, jar) = person_for(&state, &visitor, client).await?;
    let challenge = arbiter_arena::PersonChallenge {
        opponent: name.clone(),
        variant: form.variant,
        time_control,
        opening,
        seat,
    };
    let created = state.arena.challenge_as_person(&person, challenge).await;
    Ok((jar, to_the_match(&state, &visitor, &name, created).await?).into_response())
}

/// `POST /play/quick`: the visitor plays one unrated game of the default mode (from the start or an XOT
/// opening) against the bot quick matching finds for them (see `Arena::quick_opponent`).
pub(crate) async fn quick_play(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<PlayForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let (time_control, opening, seat) = play_terms(&form)?;
    let (person, jar) = person_for(&state, &visitor, client).await?;
    let quick = arbiter_arena::QuickMatch {
        time_control,
        opening,
        seat,
    };
    let created = state.arena.quick_match(&person, quick).await?;
    Ok((jar, to_match(&created)).into_response())
}

/// The supported-games form.
#[derive(Deserialize)]
pub(crate) struct VariantsForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    variant: Vec<String>,
}

/// `POST /bots/{name}/variants`.
pub(crate) async fn set_variants(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<VariantsForm>,
) -> Result<Response, WebError> {
    manage(&state, &visitor, &name, &form.csrf, async |arena, id| {
        arena
            .set_supported_variants(id, &form.variant)
            .await
            .map(drop)
    })
    .await
}

/// A form with one on/off switch.
#[derive(Deserialize)]
pub(crate) struct SwitchForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    on: String,
}

/// `POST /bots/{name}/auto-match`.
pub(crate) async fn set_auto_match(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<SwitchForm>,
) -> Result<Response, WebError> {
    let enabled = form.on == "true";
    manage(&state, &visitor, &name, &form.csrf, async |arena, id| {
        arena.set_auto_match(id, enabled).await.map(drop)
    })
    .await
}

/// `POST /bots/{name}/disable`.
pub(crate) async fn set_disabled(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<SwitchForm>,
) -> Result<Response, WebError> {
    let disabled = form.on == "true";
    manage(&state, &visitor, &name, &form.csrf, async |arena, id| {
        arena.set_disabled(id, disabled).await.map(drop)
    })
    .await
}

/// The concurrency form.
#[derive(Deserialize)]
pub(crate) struct ConcurrencyForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    concurrency: String,
}

/// `POST /bots/{name}/concurrency`.
pub(crate) async fn set_concurrency(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<ConcurrencyForm>,
) -> Result<Response, WebError> {
    let limit = form.concurrency.trim().parse::<u32>().ok();
    manage(&state, &visitor, &name, &form.csrf, async |arena, id| {
        let limit = limit.ok_or_else(|| {
            ArenaError::InvalidRequest("the number of matches is a whole number".to_owned())
        })?;
        arena.set_concurrency(id, Some(limit)).await.map(drop)
    })
    .await
}

/// `POST /bots/{name}/delete`.
pub(crate) async fn delete_bot(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let bot = state.arena.owned_bot(visitor.account()?, &name)?;
    state.arena.delete_bot(bot.id).await?;
    Ok(Redirect::to("/my/bots").into_response())
}

/// `POST /bots/{name}/photo` (multipart): a new picture.
pub(crate) async fn upload_photo(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    multipart: Multipart,
) -> Result<Response, WebError> {
    let form = read_registration(multipart).await?;
    let csrf = form.csrf.clone();
    manage(&state, &visitor, &name, &csrf, async |arena, id| {
        let upload = form
            .photo
            .ok_or_else(|| ArenaError::InvalidRequest("choose a picture".to_owned()))?;
        let png =
            photo::reencode(&upload).map_err(|e| ArenaError::InvalidRequest(e.to_string()))?;
        arena.set_photo(id, png).await.map(drop)
    })
    .await
}

// ----- leaderboards -----

#[derive(Template)]
#[template(path = "leaderboard.html")]
struct LeaderboardPage {
    page: Page,
    /// The mode shown.
    mode: Mode,
    variants: Vec<VariantChoice>,
    standings: Vec<Standing>,
}

impl LeaderboardPage {
    fn shows(&self, choice: &VariantChoice) -> bool {
        self.mode.game == choice.game && self.mode.variant == choice.variant
    }
}

/// The leaderboard's query: a variant (its key, or with `game` its name in that game); the
/// server's default mode when it names none.
#[derive(Deserialize)]
pub(crate) struct LeaderboardQuery {
    game: Option<String>,
    variant: Option<String>,
}

/// `GET /leaderboard?variant=std`, `GET /leaderboard?game=goofspiel&variant=short`.
pub(crate) async fn leaderboard(
    State(state): State<WebState>,
    visitor: Visitor,
    Query(query): Query<LeaderboardQuery>,
) -> Result<Html<String>, WebError> {
    let games = state.arena.games();
    let mode = match (&query.game, &query.variant) {
        (Some(game), variant) => games.mode(game, variant.as_deref()),
        (None, Some(variant)) => games.mode_of_key(variant),
        (None, None) => games
            .default_mode()
            .ok_or_else(|| arbiter_plugin::UnknownMode("no game is registered".to_owned())),
    }
    .map_err(|_| WebError::NotFound)?;
    let standings = state
        .arena
        .standings(mode.game, mode.variant)
        .await?
        .iter()
        .map(Standing::of)
        .collect();
    render(&LeaderboardPage {
        page: page(&visitor, "Leaderboard"),
        mode,
        variants: VariantChoice::all(games),
        standings,
    })
}

// ----- static files -----

/// `GET /static/style.css`.
pub(crate) async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../static/style.css"),
    )
        .into_response()
}

/// `GET /img/no_profile.gif`: the picture of those who have none, drawn once per process.
pub(crate) async fn no_profile() -> Response {
    static GIF: std::sync::LazyLock<Result<Vec<u8>, String>> =
        std::sync::LazyLock::new(|| photo::placeholder_gif().map_err(|e| e.to_string()));
    match &*GIF {
        Ok(gif) => (
            [
                (header::CONTENT_TYPE, "image/gif"),
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            gif.clone(),
        )
            .into_response(),
        Err(error) => {
            WebError::Internal(format!("the placeholder picture failed: {error}")).into_response()
        }
    }
}

/// `GET /static/app.js`.
pub(crate) async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../static/app.js"),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_in_every_place_they_appear() {
        let page = BotsPage {
            page: Page {
                title: "<b>".to_owned(),
                account: Some("<script>".to_owned()),
                csrf: "\"><script>".to_owned(),
            },
            bots: Vec::new(),
        };
        let html = page.render().expect("render");
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&#60;script&#62;"), "{html}");
        assert!(
            !html.contains("\"><"),
            "an attribute cannot be closed: {html}"
        );
    }
}
