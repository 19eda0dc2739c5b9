//! The leaderboards: one tab per mode, the standings of the one shown.

use arbiter_arena::{Mode, RatingSystem};
use askama::Template;
use axum::extract::{Query, State};
use axum::response::Html;
use serde::Deserialize;

use super::{Page, page, render};
use crate::WebState;
use crate::error::WebError;
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::{Standing, VariantChoice};

#[derive(Template)]
#[template(path = "leaderboard.html")]
struct LeaderboardPage {
    page: Page,
    /// The mode shown.
    mode: Mode,
    /// How its results are rated.
    system: RatingSystem,
    variants: Vec<VariantChoice>,
    standings: Vec<Standing>,
}

impl LeaderboardPage {
    fn shows(&self, choice: &VariantChoice) -> bool {
        self.mode.game == choice.game && self.mode.variant == choice.variant
    }

    /// Whether the mode is rated by Weng-Lin rather than Glicko-2.
    fn weng_lin(&self) -> bool {
        self.system == RatingSystem::WengLin
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
        system: state.arena.rating_system(mode),
        mode,
        variants: VariantChoice::all(games),
        standings,
    })
}
