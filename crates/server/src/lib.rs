//! The HTTP server: the native bot API v1, the FlipSight dialect and the web pages over the
//! arena.
//!
//! [`app`] builds the router (so tests can drive it in-process or serve it on port 0);
//! [`serve`] runs it on a listener until shutdown. Every error is one JSON shape
//! (`{"error", "message"}`), bodies are limited to [`BODY_LIMIT`] bytes (413 beyond), unknown
//! request fields are ignored, and every write needs `Authorization: Bearer`.

mod bgp;
pub mod dto;
pub mod error;
mod extract;
mod flipsight;
mod forward;
mod hosted;
mod lichess;
mod limits;
mod openapi;
mod routes;
#[cfg(feature = "wasm-sandbox")]
mod sandboxed_bots;
mod stream;
mod text;
mod tournaments;
mod webhook_bots;

use arbiter_arena::{Arena, Family, Games};
use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::response::IntoResponse;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use openapi::{BearerAuth, ErrorResponses};
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;
/// Where a bot uploads its WebAssembly module, the one route with larger bodies.
pub const MODULE_UPLOAD_PATH: &str = "/api/v1/bots/me/module";
/// The largest module upload read (the sandbox's own limit may be lower).
pub const MODULE_BODY_LIMIT: usize = 64 << 20;

/// What every handler can reach.
///
/// Cloned for every request, so a clone is one reference count.
#[derive(Clone)]
pub struct AppState {
    shared: std::sync::Arc<AppParts>,
}

impl std::ops::Deref for AppState {
    type Target = AppParts;

    fn deref(&self) -> &AppParts {
        &self.shared
    }
}

/// What an [`AppState`] shares: the arena, and what the dialects keep.
pub struct AppParts {
    /// The arena.
    pub arena: Arena,
    /// The limits on slow and greedy clients, with what they count.
    limits: limits::Guard,
    /// The dialects this server speaks, and the game each serves.
    dialects: Dialects,
    /// The Board Game Protocol's translated event logs of the open matches it is asked
    /// about.
    bgp_feeds: std::sync::Arc<bgp::feed::Feeds>,
    /// What the Lichess dialect keeps between requests.
    lichess: std::sync::Arc<lichess::Hub>,
}

#[cfg(feature = "wasm-sandbox")]
pub use arbiter_sandbox::Limits as SandboxLimits;
pub use hosted::DEFAULT_MIN_INITIAL_MS;
pub use limits::ServeLimits;
#[cfg(feature = "wasm-sandbox")]
pub use sandboxed_bots::Sandboxes;
pub use webhook_bots::Webhooks;

/// The dialects a server speaks besides its native API, and the game each serves.
///
/// A dialect's wire format can belong to one game by nature (FlipSight's speaks of squares,
/// discs and colours), but the server names no game: whoever starts it says which registered
/// game each dialect serves, as it registers the families. A dialect with no game answers
/// 404 on its routes, in its own error shape.
#[derive(Clone, Debug, Default)]
pub struct Dialects {
    flipsight: Option<&'static Family>,
    /// The game the Board Game Protocol's matches are in when a request names none.
    bgp: Option<&'static Family>,
    /// The address the server is reached at, for the links dialects hand out.
    public_url: Option<std::sync::Arc<str>>,
    /// The upstream providers the Board Game Protocol trusts to speak for agents; `None`
    /// trusts any.
    bgp_providers: Option<std::sync::Arc<[String]>>,
    /// The games the Lichess dialect serves, if it is spoken.
    lichess: Option<lichess::Served>,
    /// Whether bots may answer over HTTP, and how they are called.
    webhooks: Option<std::sync::Arc<webhook_bots::Webhooks>>,
    /// Whether bots may be submitted as WebAssembly modules, and the sandbox that runs them.
    #[cfg(feature = "wasm-sandbox")]
    sandboxes: Option<std::sync::Arc<sandboxed_bots::Sandboxes>>,
}

/// A provider id for the Board Game Protocol's allow-list is not one word.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a provider id: 1 to 64 letters, digits, '.', '_', '-' or '@'")]
pub struct InvalidProvider(pub String);

/// A dialect was given a game the server does not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{dialect}'s dialect cannot serve {game:?}: this server runs {runs}")]
pub struct UnknownGame {
    /// The dialect.
    pub dialect: &'static str,
    /// The game it was given.
    pub game: String,
    /// The games the server runs, joined by commas.
    pub runs: String,
}

impl Dialects {
    /// No dialect: the native API and the pages only.
    pub fn none() -> Dialects {
        Dialects::default()
    }

    /// Lets bots answer over HTTP instead of holding a stream (`PUT /api/v1/bots/me/webhook`),
    /// called as `webhooks` says.
    pub fn with_webhooks(mut self, webhooks: Webhooks) -> Dialects {
        self.webhooks = Some(std::sync::Arc::new(webhooks));
        self
    }

    /// Lets bots be submitted as WebAssembly modules (`PUT /api/v1/bots/me/module`), run in
    /// `sandboxes`.
    #[cfg(feature = "wasm-sandbox")]
    pub fn with_sandboxes(mut self, sandboxes: Sandboxes) -> Dialects {
        self.sandboxes = Some(std::sync::Arc::new(sandboxes));
        self
    }

    /// These dialects, with FlipSight's serving `game`, one of `games` (the arena's games).
    pub fn with_flipsight(self, games: &Games, game: &str) -> Result<Dialects, UnknownGame> {
        let family = games.get(game).ok_or_else(|| UnknownGame {
            dialect: "FlipSight",
            game: game.to_owned(),
            runs: games.ids().join(", "),
        })?;
        Ok(Dialects {
            flipsight: Some(family),
            ..self
        })
    }

    /// These dialects, with the Board Game Protocol's spoken: it serves every game of
    /// `games` (the arena's games) whose family plays on the points of a square board, and
    /// `default_game`, one of them, when a request names none.
    pub fn with_bgp(self, games: &Games, default_game: &str) -> Result<Dialects, UnknownGame> {
        let served = |family: &Family| family.point_board().is_some();
        let family = games
            .get(default_game)
            .filter(|family| served(family))
            .ok_or_else(|| UnknownGame {
                dialect: "The Board Game Protocol",
                game: default_game.to_owned(),
                runs: games
                    .families()
                    .filter(|family| served(family))
                    .map(Family::id)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        Ok(Dialects {
            bgp: Some(family),
            ..self
        })
    }

    /// These dialects, with the Lichess dialect spoken: it serves every two-seat game of
    /// `games` (the arena's games) whose family tells its games as a line of move tokens, and
    /// `default_game`, one of them, when a challenge names no variant.
    pub fn with_lichess(self, games: &Games, default_game: &str) -> Result<Dialects, UnknownGame> {
        let served = |family: &&'static Family| {
            family.line.is_some() && family.setup.variants().iter().all(|v| v.max_seats == 2)
        };
        let families: Vec<&'static Family> = games.families().filter(served).collect();
        let default = families
            .iter()
            .copied()
            .find(|family| family.id() == default_game)
            .ok_or_else(|| UnknownGame {
                dialect: "The Lichess",
                game: default_game.to_owned(),
                runs: families
                    .iter()
                    .map(|family| family.id())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let mut ordered = vec![default];
        ordered.extend(families.into_iter().filter(|f| f.id() != default.id()));
        Ok(Dialects {
            lichess: Some(lichess::Served {
                default,
                families: ordered.into(),
            }),
            ..self
        })
    }

    /// Whether the Lichess dialect is spoken.
    pub fn speaks_lichess(&self) -> bool {
        self.lichess.is_some()
    }

    /// The games the Lichess dialect serves.
    pub(crate) fn lichess(&self) -> Option<&lichess::Served> {
        self.lichess.as_ref()
    }

    /// These dialects, with `url` (`https://host[:port]`) as the server's public address in
    /// the links they hand out, instead of the address it listens on.
    pub fn with_public_url(self, url: &str) -> Dialects {
        Dialects {
            public_url: Some(url.trim_end_matches('/').into()),
            ..self
        }
    }

    /// The family whose game FlipSight's dialect serves, if it is spoken.
    pub fn flipsight(&self) -> Option<&'static Family> {
        self.flipsight
    }

    /// The family of the Board Game Protocol's default game, if it is spoken.
    pub fn bgp_default(&self) -> Option<&'static Family> {
        self.bgp
    }

    /// The server's public address, if one was given.
    pub fn public_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }

    /// These dialects, with the Board Game Protocol trusting only the providers `ids` (the
    /// `X-Provider-Id` of requests that upstream proxies make for agents); a request naming
    /// another is refused with 403. Requests without the header are agents' own and pass.
    pub fn with_bgp_providers(self, ids: &[String]) -> Result<Dialects, InvalidProvider> {
        if let Some(bad) = ids.iter().find(|id| !bgp::is_provider_id(id)) {
            return Err(InvalidProvider(bad.clone()));
        }
        Ok(Dialects {
            bgp_providers: Some(ids.into()),
            ..self
        })
    }

    /// The providers the Board Game Protocol trusts, if it trusts only some.
    pub fn bgp_providers(&self) -> Option<&[String]> {
        self.bgp_providers.as_deref()
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Arbiter native bot API", version = "1", description = "Bots connect with a bearer token, receive challenges and decisions on an NDJSON stream (or by long-polling), and submit moves."),
    modifiers(&BearerAuth),
    tags((name = "bots", description = "Identities, profiles and the event stream"), (name = "matches", description = "Challenges, matches, moves and events"), (name = "admin", description = "Registering and managing bots with the administrator token"), (name = "tournaments", description = "Round robins, Swiss tournaments and arenas: their rounds, seeds, standings and crosstables"))
)]
struct ApiDoc;

/// The router and the OpenAPI document describing it, for a server running `games`.
fn router(games: &Games) -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let router = OpenApiRouter::with_openapi(ApiDoc::openapi())
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
        .routes(routes!(routes::admin_talk, routes::admin_talk_state))
        .routes(routes!(routes::create_challenge, routes::my_challenges))
        .routes(routes!(routes::challenge_house))
        .routes(routes!(routes::open_table, routes::list_tables))
        .routes(routes!(routes::live_matches))
        .routes(routes!(routes::join_table))
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
        .routes(routes!(routes::set_webhook, routes::remove_webhook));
    #[cfg(feature = "wasm-sandbox")]
    let router = router.routes(routes!(
        routes::upload_module,
        routes::own_module,
        routes::remove_module
    ));
    let (router, mut api) = router
        .routes(routes!(
            tournaments::create_tournament,
            tournaments::list_tournaments
        ))
        .routes(routes!(tournaments::tournament))
        .routes(routes!(tournaments::join_tournament))
        .routes(routes!(tournaments::withdraw_from_tournament))
        .routes(routes!(tournaments::enter_house_bot))
        .routes(routes!(tournaments::withdraw_entrant))
        .routes(routes!(tournaments::start_tournament))
        .routes(routes!(tournaments::pause_tournament))
        .routes(routes!(tournaments::resume_tournament))
        .routes(routes!(stream::open))
        .split_for_parts();
    // Once every route is in: the errors of reading requests go to each operation that can
    // give them.
    ErrorResponses.modify(&mut api);
    // The games and variants are the registered families', known only now.
    if let Some(components) = api.components.as_mut() {
        components.schemas.insert(
            "VariantName".to_owned(),
            dto::VariantName::schema_for(games),
        );
        components
            .schemas
            .insert("GameName".to_owned(), dto::GameName::schema_for(games));
    }
    (router, api)
}

/// The OpenAPI document of the native API, for a server running `games`.
pub fn openapi(games: &Games) -> utoipa::openapi::OpenApi {
    router(games).1
}

/// The whole application speaking `dialects`, with the default [`ServeLimits`].
pub fn app(arena: Arena, dialects: Dialects) -> Router {
    app_with(arena, dialects, ServeLimits::default())
}

/// The whole application speaking `dialects`, with `limits` on slow and greedy clients.
pub fn app_with(arena: Arena, dialects: Dialects, limits: ServeLimits) -> Router {
    let state = AppState {
        shared: std::sync::Arc::new(AppParts {
            arena: arena.clone(),
            limits: limits::Guard::new(limits),
            dialects,
            bgp_feeds: Default::default(),
            lichess: Default::default(),
        }),
    };
    if let Some(webhooks) = &state.dialects.webhooks {
        hosted::start(
            arena.clone(),
            std::sync::Arc::new(webhook_bots::WebhookKind(webhooks.clone())),
        );
    }
    #[cfg(feature = "wasm-sandbox")]
    if let Some(sandboxes) = &state.dialects.sandboxes {
        hosted::start(
            arena.clone(),
            std::sync::Arc::new(sandboxed_bots::SandboxedKind(sandboxes.clone())),
        );
    }
    let (router, api) = router(arena.games());
    let document = api.to_pretty_json().unwrap_or_default();
    let hosting = state
        .dialects
        .webhooks
        .clone()
        .map(|webhooks| webhooks as std::sync::Arc<dyn arbiter_web::Hosting>);
    let pages = arbiter_web::router(arena.clone(), hosting);
    // The Board Game Protocol's routes exist only where it is spoken.
    let router = if state.dialects.bgp_default().is_some() {
        router.merge(bgp::router())
    } else {
        router
    };
    // So do the Lichess dialect's, at the server's root as its clients need.
    let router = if state.dialects.speaks_lichess() {
        router.merge(lichess::router())
    } else {
        router
    };
    router
        .route(
            "/api/v1/openapi.json",
            axum::routing::get(move || async move {
                ([("content-type", "application/json")], document).into_response()
            }),
        )
        // For load balancers and Prometheus, at the root as they expect.
        .route("/health", axum::routing::get(routes::liveness))
        .route("/ready", axum::routing::get(routes::readiness))
        .route("/metrics", axum::routing::get(routes::metrics))
        // FlipSight's bot API, for bots written against its documentation; without a game
        // to serve, its routes answer 404 in its shape.
        .route(
            "/flipsight/bot_match_api.php",
            axum::routing::any(flipsight::action_api),
        )
        .route(
            "/flipsight_api/bot-stream",
            axum::routing::get(flipsight::bot_stream),
        )
        .with_state(state.clone())
        .merge(pages)
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            forward::to_owner,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(state, limits::guard))
        .layer(CatchPanicLayer::custom(|_| {
            error::ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "the server failed to handle the request",
            )
            .into_response()
        }))
}

/// Serves the application speaking `dialects` on `listener` with the default
/// [`ServeLimits`] until `shutdown` completes; see [`serve_with`].
pub async fn serve(
    listener: TcpListener,
    arena: Arena,
    dialects: Dialects,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, arena, dialects, ServeLimits::default(), shutdown).await
}

/// Serves the application speaking `dialects` on `listener` until `shutdown` completes, then
/// stops the arena (ending streams and long-polls, storing everything acknowledged) and lets
/// open requests finish.
///
/// Each connection is HTTP/1.1 with a bound on the time its request heads may take
/// ([`ServeLimits::header_read`]), which also closes connections left idle that long.
pub async fn serve_with(
    listener: TcpListener,
    arena: Arena,
    dialects: Dialects,
    limits: ServeLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut connection = hyper::server::conn::http1::Builder::new();
    connection
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read);
    // Links handed out name the address the server listens on unless told otherwise.
    let dialects = match (dialects.public_url(), listener.local_addr()) {
        (None, Ok(address)) => dialects.with_public_url(&format!("http://{address}")),
        _ => dialects,
    };
    let router = app_with(arena.clone(), dialects, limits);
    forward::answer_forwarded(router.clone(), arena.clone()).await;
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Stream lines and replies are small writes that must leave at once, not wait for
        // more.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let service = router.clone().map_request(
            move |request: axum::http::Request<hyper::body::Incoming>| {
                let mut request = request.map(axum::body::Body::new);
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            },
        );
        let served =
            connection.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let served = graceful.watch(served);
        tokio::spawn(async move {
            if let Err(error) = served.await {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
        });
    }
    drop(listener);
    arena.shutdown().await;
    graceful.shutdown().await;
    Ok(())
}

/// Waits after a failed accept. Errors that concern one connection pass at once; others (out
/// of file descriptors, mostly) need a moment before accepting again can succeed.
async fn accept_failed(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::warn!(%error, "cannot accept a connection");
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
}
