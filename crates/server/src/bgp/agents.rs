//! The dialect's identity side: agents, their keys and public profiles.

use axum::Router;

use crate::AppState;

/// The identity side's routes, merged into the dialect's router.
pub(super) fn routes() -> Router<AppState> {
    Router::new()
}
