//! The home page: what the site is, the games it runs, the quick-match form, live boards and
//! recent results, and the live boards again as a fragment the page fetches now and then.

use askama::Template;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Response};

use super::{Page, page, render};
use crate::WebState;
use crate::error::WebError;
use crate::matches::MiniBoard;
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::{GameChoice, MatchRow};

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
        recent: recent.iter().map(MatchRow::of_closed).collect(),
    })
}

/// `GET /live`: the home page's "Playing now" as a fragment, which the page fetches again now
/// and then so that matches started since it was loaded appear on it.
pub(crate) async fn live_fragment(State(state): State<WebState>) -> Result<Response, WebError> {
    let html = render(&LiveFragment::now(&state).await)?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}
