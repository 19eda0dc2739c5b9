//! The HTTP server: the native bot API v1, the FlipSight dialect and the web pages over the
//! arena.
//!
//! [`app`] builds the router (so tests can drive it in-process or serve it on port 0);
//! [`serve`] runs it on a listener until shutdown. Every error is one JSON shape
//! (`{"error", "message"}`), bodies are limited to [`BODY_LIMIT`] bytes (413 beyond), unknown
//! request fields are ignored, and every write needs `Authorization: Bearer`.

pub mod dto;
pub mod error;
mod extract;
mod flipsight;
mod openapi;
mod routes;
mod stream;
mod text;

use std::net::SocketAddr;

use arbiter_arena::Arena;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::response::IntoResponse;
use axum::serve::ListenerExt;
use openapi::{BearerAuth, ErrorResponses};
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The arena.
    pub arena: Arena,
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Arbiter native bot API", version = "1", description = "Bots connect with a bearer token, receive challenges and decisions on an NDJSON stream (or by long-polling), and submit moves."),
    modifiers(&BearerAuth),
    tags((name = "bots", description = "Identities, profiles and the event stream"), (name = "matches", description = "Challenges, matches, moves and events"), (name = "admin", description = "Registering and managing bots with the administrator token"))
)]
struct ApiDoc;

/// The router and the OpenAPI document describing it.
fn router() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, mut api) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(routes::health))
        .routes(routes!(routes::mint_anonymous))
        .routes(routes!(routes::me))
        .routes(routes!(routes::rotate_own_token))
        .routes(routes!(routes::report_environment))
        .routes(routes!(routes::list_bots))
        .routes(routes!(routes::bot_profile))
        .routes(routes!(routes::leaderboard))
        .routes(routes!(routes::register_bot))
        .routes(routes!(routes::admin_rotate))
        .routes(routes!(routes::admin_disable))
        .routes(routes!(routes::admin_auto_match))
        .routes(routes!(routes::admin_variants))
        .routes(routes!(routes::admin_delete))
        .routes(routes!(routes::create_challenge, routes::my_challenges))
        .routes(routes!(routes::accept))
        .routes(routes!(routes::reject))
        .routes(routes!(routes::cancel))
        .routes(routes!(routes::my_matches))
        .routes(routes!(routes::snapshot))
        .routes(routes!(routes::events))
        .routes(routes!(routes::turns))
        .routes(routes!(routes::play))
        .routes(routes!(routes::resign))
        .routes(routes!(routes::export))
        .routes(routes!(stream::open))
        .split_for_parts();
    // Once every route is in: the errors of reading requests go to each operation that can
    // give them.
    ErrorResponses.modify(&mut api);
    (router, api)
}

/// The OpenAPI document of the native API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    router().1
}

/// The whole application.
pub fn app(arena: Arena) -> Router {
    let (router, api) = router();
    let document = api.to_pretty_json().unwrap_or_default();
    let pages = arbiter_web::router(arena.clone());
    router
        .route(
            "/api/v1/openapi.json",
            axum::routing::get(move || async move {
                ([("content-type", "application/json")], document).into_response()
            }),
        )
        // FlipSight's bot API, for bots written against its documentation.
        .route(
            "/flipsight/bot_match_api.php",
            axum::routing::any(flipsight::action_api),
        )
        .route(
            "/flipsight_api/bot-stream",
            axum::routing::get(flipsight::bot_stream),
        )
        .with_state(AppState { arena })
        .merge(pages)
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(|_| {
            error::ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "the server failed to handle the request",
            )
            .into_response()
        }))
}

/// Serves the application on `listener` until `shutdown` completes, then stops the arena
/// (ending streams and long-polls, storing everything acknowledged) and lets open requests
/// finish.
pub async fn serve(
    listener: TcpListener,
    arena: Arena,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = app(arena.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let shutdown = async move {
        shutdown.await;
        arena.shutdown().await;
    };
    // Stream lines and replies are small writes that must leave at once, not wait for more.
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
    });
    axum::serve(listener, service)
        .with_graceful_shutdown(shutdown)
        .await
}
