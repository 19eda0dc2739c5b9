//! What there is to watch: every running match, of every game or of one, newest first, with a
//! link to its live page; the list again as a fragment the page fetches every few seconds.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::{Page, page, render};
use crate::WebState;
use crate::error::WebError;
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::MatchRow;

/// How many running matches the page lists.
const MATCHES_SHOWN: usize = 200;

/// The page's query: the game to list, every game's when left out.
#[derive(Deserialize)]
pub(crate) struct WatchQuery {
    game: Option<String>,
}

/// One game's tab.
struct GameTab {
    game: &'static str,
    current: bool,
}

/// The running matches alone.
#[derive(Template)]
#[template(path = "watch_list.html")]
struct WatchList {
    running: Vec<MatchRow>,
    /// The game listed, for the fragment's address; empty for every game.
    game: String,
    /// What tells one list from another: the matches listed.
    signature: String,
}

#[derive(Template)]
#[template(path = "watch.html")]
struct WatchPage {
    page: Page,
    tabs: Vec<GameTab>,
    /// Whether every game is listed.
    all: bool,
    list: WatchList,
}

/// The running matches of `game` (every game's for `None`); an unknown game lists none.
async fn watch_list(state: &WebState, game: Option<&str>) -> WatchList {
    let running: Vec<MatchRow> = state
        .arena
        .running_matches(MATCHES_SHOWN)
        .await
        .iter()
        .filter(|m| game.is_none_or(|game| m.game == game))
        .map(MatchRow::of_snapshot)
        .collect();
    let signature = running
        .iter()
        .map(|m| m.id.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    WatchList {
        running,
        game: game.unwrap_or_default().to_owned(),
        signature,
    }
}

/// `GET /watch?game=chess`: the running matches, with a tab per game.
pub(crate) async fn watch(
    State(state): State<WebState>,
    visitor: Visitor,
    Query(query): Query<WatchQuery>,
) -> Result<Html<String>, WebError> {
    let game = query.game.as_deref().filter(|game| !game.is_empty());
    if game.is_some_and(|game| state.arena.games().get(game).is_none()) {
        return Err(WebError::NotFound);
    }
    let tabs = state
        .arena
        .games()
        .ids()
        .into_iter()
        .map(|id| GameTab {
            game: id,
            current: game == Some(id),
        })
        .collect();
    render(&WatchPage {
        page: page(&visitor, "Watch"),
        tabs,
        all: game.is_none(),
        list: watch_list(&state, game).await,
    })
}

/// `GET /watch/list?game=chess`: the list alone, for the page to swap in when it changes.
pub(crate) async fn watch_list_fragment(
    State(state): State<WebState>,
    Query(query): Query<WatchQuery>,
) -> Result<Response, WebError> {
    let game = query.game.as_deref().filter(|game| !game.is_empty());
    let html = render(&watch_list(&state, game).await)?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}
