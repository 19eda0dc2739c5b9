//! A bot's owner's pages and forms: my bots, registering a bot, its token shown once, and the
//! forms that manage a bot (a new token, its games, its switches, its concurrency, its picture,
//! its deletion).

use arbiter_arena::ArenaError;
use askama::Template;
use axum::extract::{Multipart, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use serde::Deserialize;

use super::bots::bot_page_for;
use super::{CsrfForm, Page, page, render, render_with};
use crate::WebState;
use crate::error::{WebError, status_of};
use crate::hosting::{WebhookRequest, WebhookSet};
use crate::paths::{bot_path, filters};
use crate::photo;
use crate::session::Visitor;
use crate::view::{BotRow, VariantChoice, variant_key};

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

/// What kind of secret waits to be shown once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Secret {
    /// A bot's token, for the bot API.
    Token,
    /// A webhook bot's signing secret.
    WebhookSecret,
}

impl Secret {
    /// The page that shows it, under `/my/bots/{name}/`.
    fn page(self) -> &'static str {
        match self {
            Secret::Token => "token",
            Secret::WebhookSecret => "webhook-secret",
        }
    }
}

/// A secret waiting to be shown once: its kind, its bot's name and itself.
pub(crate) type ShownOnce = (Secret, String, String);

/// Keeps a new secret for the visitor's next page only, and sends the visitor there; the
/// secret never appears in an address.
fn show_once(
    state: &WebState,
    visitor: &Visitor,
    kind: Secret,
    bot: String,
    secret: String,
) -> Response {
    let Some(key) = visitor.token_key() else {
        return WebError::SignInRequired.into_response();
    };
    let to = format!("/my{}/{}", bot_path(&bot), kind.page());
    crate::lock(&state.secrets).insert(key, (kind, bot, secret));
    Redirect::to(&to).into_response()
}

fn show_token_once(state: &WebState, visitor: &Visitor, bot: String, token: String) -> Response {
    show_once(state, visitor, Secret::Token, bot, token)
}

#[derive(Template)]
#[template(path = "token.html")]
struct SecretPage {
    page: Page,
    bot: String,
    kind: Secret,
    secret: Option<String>,
}

impl SecretPage {
    fn is_token(&self) -> bool {
        self.kind == Secret::Token
    }
}

/// The page that shows a secret of `kind` the one time it is shown.
fn secret_once(
    state: &WebState,
    visitor: &Visitor,
    kind: Secret,
    name: String,
) -> Result<Response, WebError> {
    visitor.account()?;
    let key = visitor.token_key().unwrap_or_default();
    let secret = {
        let mut secrets = crate::lock(&state.secrets);
        match secrets.get(&key) {
            Some((waiting, bot, _)) if *waiting == kind && *bot == name => {
                secrets.remove(&key).map(|(_, _, secret)| secret)
            }
            _ => None,
        }
    };
    let title = match kind {
        Secret::Token => "Your bot's token",
        Secret::WebhookSecret => "Your bot's webhook secret",
    };
    let html = render(&SecretPage {
        page: page(visitor, title),
        bot: name,
        kind,
        secret,
    })?;
    // Never kept by the browser: going back or reloading must not show the secret again.
    Ok(([(header::CACHE_CONTROL, "no-store")], html).into_response())
}

/// `GET /my/bots/{name}/token`: the token, the one time it is shown.
pub(crate) async fn token_once(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    secret_once(&state, &visitor, Secret::Token, name)
}

/// `GET /my/bots/{name}/webhook-secret`: the webhook's signing secret, the one time it is
/// shown.
pub(crate) async fn webhook_secret_once(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    secret_once(&state, &visitor, Secret::WebhookSecret, name)
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

/// The webhook form.
#[derive(Deserialize)]
pub(crate) struct WebhookForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    accept_challenges: String,
    /// The shortest initial clock of an accepted challenge, in seconds.
    #[serde(default)]
    min_initial_s: String,
    #[serde(default)]
    rotate_secret: String,
}

/// `POST /bots/{name}/webhook`: makes the bot answer over HTTP, or changes how; a new signing
/// secret is shown once.
pub(crate) async fn set_webhook(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<WebhookForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let bot = state.arena.owned_bot(visitor.account()?, &name)?;
    let refuse = async |error: ArenaError| -> Result<Response, WebError> {
        let page = bot_page_for(&state, &visitor, &name, Some(error.to_string())).await?;
        Ok(render_with(status_of(&error), &page))
    };
    let Some(hosting) = &state.hosting else {
        return refuse(ArenaError::InvalidRequest(
            "this server does not call bots over HTTP".to_owned(),
        ))
        .await;
    };
    let min_initial_ms = match form.min_initial_s.trim() {
        "" => None,
        seconds => match seconds.parse::<i64>() {
            Ok(seconds) => Some(seconds.saturating_mul(1_000)),
            Err(_) => {
                return refuse(ArenaError::InvalidRequest(
                    "the shortest clock is a whole number of seconds".to_owned(),
                ))
                .await;
            }
        },
    };
    let request = WebhookRequest {
        url: form.url.trim().to_owned(),
        accept_challenges: form.accept_challenges == "true",
        min_initial_ms,
        rotate_secret: form.rotate_secret == "true",
    };
    match hosting.set_webhook(&state.arena, &bot, request).await {
        Ok(WebhookSet {
            secret: Some(secret),
            ..
        }) => Ok(show_once(
            &state,
            &visitor,
            Secret::WebhookSecret,
            bot.name,
            secret,
        )),
        Ok(WebhookSet { secret: None, .. }) => {
            Ok(Redirect::to(&bot_path(&bot.name)).into_response())
        }
        Err(error) => refuse(error).await,
    }
}

/// `POST /bots/{name}/webhook/remove`: the bot plays again only through a stream or polling.
pub(crate) async fn remove_webhook(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    manage(&state, &visitor, &name, &form.csrf, async |arena, id| {
        arena.set_webhook(id, None).await.map(drop)
    })
    .await
}
