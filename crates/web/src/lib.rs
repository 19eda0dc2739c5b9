//! The web pages: accounts, registering and managing bots, the list of bots, leaderboards,
//! tournaments and matches, as server-rendered HTML over the arena.
//!
//! [`router`] builds the pages' routes; the server merges them beside its APIs. Templates are
//! askama files under `templates/`, checked at compile time and escaped by default; the style
//! sheet and the little script are compiled in, so the pages need nothing from the internet.
//! Every form carries the visitor's CSRF token, and every state-changing request is refused
//! without it.

mod comments;
mod error;
#[cfg(test)]
mod fixtures;
mod generic;
mod hosting;
mod matches;
mod pages;
mod paths;
mod photo;
mod session;
mod spectators;
mod view;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arbiter_arena::Arena;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use pages::{accounts, assets, bots, home, leaderboard, my_bots, play, tables, tournaments, watch};

pub use error::status_of;
pub use hosting::{BoxFuture, Hosting, WebhookRequest, WebhookSet};
pub use paths::bot_path;

/// The largest photo upload request accepted, in bytes: room for a 5 MB picture and the form
/// around it. Larger pictures are refused with a page that says why. No page accepts more.
pub const UPLOAD_LIMIT: usize = 8 * 1024 * 1024;

/// What the pages' handlers share.
#[derive(Clone)]
pub(crate) struct WebState {
    pub(crate) arena: Arena,
    /// Secrets (tokens and webhook secrets) waiting to be shown once, by the SHA-256 of the
    /// session they were made for; taken out when shown. They are in memory only.
    pub(crate) secrets: Arc<Mutex<HashMap<String, my_bots::ShownOnce>>>,
    /// What the server does about the bots it hosts; `None` where it calls no webhooks.
    pub(crate) hosting: Option<Arc<dyn Hosting>>,
    /// Each watched match's legs fragment as spectators read it, rendered once for them all.
    pub(crate) spectators: Arc<spectators::SpectatorFragments>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The map of secrets stays consistent even if a holder panicked.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The page a browser gets for an address nothing answers (404, in the site's layout, with
/// the security headers of every page, since it is served outside the pages' routes).
pub fn not_found_page() -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut response = error::WebError::NotFound.into_response();
    session::add_page_headers(&mut response);
    response
}

/// A page for a request refused before it reached the pages (too large, too slow, too many
/// at once): the status and a sentence, in the site's layout.
pub fn error_page(status: axum::http::StatusCode, message: &str) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut response = error::WebError::Refused(status, message.to_owned()).into_response();
    session::add_page_headers(&mut response);
    response
}

/// The page a browser gets for a page's address with a method it does not take (405).
pub fn method_not_allowed_page() -> axum::response::Response {
    use axum::response::IntoResponse;
    error::WebError::Refused(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "This address does not take that method.".to_owned(),
    )
    .into_response()
}

/// The pages' routes, with their state. With `hosting`, a bot's owner may make it answer
/// over HTTP from its page.
pub fn router(arena: Arena, hosting: Option<Arc<dyn Hosting>>) -> Router {
    let state = WebState {
        arena,
        secrets: Arc::default(),
        hosting,
        spectators: Arc::default(),
    };
    let uploads = Router::new()
        .route("/my/bots", post(my_bots::register_bot))
        .route("/bots/{name}/photo", post(my_bots::upload_photo))
        .layer(DefaultBodyLimit::max(UPLOAD_LIMIT));
    Router::new()
        .route("/", get(home::home))
        .route("/live", get(home::live_fragment))
        .route(
            "/signup",
            get(accounts::sign_up_form).post(accounts::sign_up),
        )
        .route(
            "/signin",
            get(accounts::sign_in_form).post(accounts::sign_in),
        )
        .route("/signout", post(accounts::sign_out))
        .route("/account", get(accounts::settings))
        .route("/account/password", post(accounts::change_password))
        .route(
            "/account/sign-out-everywhere",
            post(accounts::sign_out_everywhere),
        )
        .route("/account/delete", post(accounts::delete_account))
        .route("/bots", get(bots::bots))
        .route("/my/bots", get(my_bots::my_bots))
        .route("/my/bots/{name}/token", get(my_bots::token_once))
        .route(
            "/my/bots/{name}/webhook-secret",
            get(my_bots::webhook_secret_once),
        )
        .route("/bots/{name}", get(bots::bot_page))
        .route("/bots/{name}/photo", get(bots::photo))
        .route("/bots/{name}/token", post(my_bots::rotate_token))
        .route("/bots/{name}/challenge", post(play::challenge))
        .route("/bots/{name}/variants", post(my_bots::set_variants))
        .route("/bots/{name}/auto-match", post(my_bots::set_auto_match))
        .route("/bots/{name}/concurrency", post(my_bots::set_concurrency))
        .route("/bots/{name}/disable", post(my_bots::set_disabled))
        .route("/bots/{name}/webhook", post(my_bots::set_webhook))
        .route("/bots/{name}/webhook/remove", post(my_bots::remove_webhook))
        .route("/bots/{name}/delete", post(my_bots::delete_bot))
        .route("/leaderboard", get(leaderboard::leaderboard))
        .route("/matches/{id}", get(matches::match_page))
        .route("/matches/{id}/legs", get(matches::legs_fragment))
        .route("/matches/{id}/mini", get(matches::mini_fragment))
        .route("/play/quick", post(play::quick_play))
        .route("/matches/{id}/replay", get(matches::replay))
        .route("/matches/{id}/moves", post(matches::play))
        .route("/bots/{name}/play", post(play::play_bot))
        .route("/tables", get(tables::tables).post(tables::open_table))
        .route("/tables/list", get(tables::table_list))
        .route("/watch", get(watch::watch))
        .route("/watch/list", get(watch::watch_list_fragment))
        .route("/tables/{id}/join", post(tables::join_table))
        .route("/tables/{id}/fill", post(tables::fill_table))
        .route(
            "/tournaments",
            get(tournaments::tournaments).post(tournaments::create_tournament),
        )
        .route("/tournaments/{id}", get(tournaments::tournament))
        .route("/tournaments/{id}/live", get(tournaments::live_fragment))
        .route("/tournaments/{id}/control", post(tournaments::control))
        .route(
            "/tournaments/{id}/house",
            post(tournaments::enter_house_bot),
        )
        .route(
            "/tournaments/{id}/remove",
            post(tournaments::withdraw_entrant),
        )
        .route("/tournaments/{id}/join", post(tournaments::join))
        .route("/tournaments/{id}/withdraw", post(tournaments::withdraw))
        .route("/static/style.css", get(assets::style))
        .route("/static/app.js", get(assets::script))
        .route("/img/no_profile.gif", get(assets::no_profile))
        .merge(uploads)
        .layer(axum::middleware::from_fn(error::pages_for_errors))
        .layer(axum::middleware::from_fn(session::csrf_cookie))
        .with_state(state)
}
