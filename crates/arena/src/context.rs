//! What every service of the arena works in: its configuration, its clock, the store and its
//! writer, the game families it runs, and the signal that it is stopping. None of it is any
//! one service's state.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use arbiter_plugin::{Family, Games, Mode, Wording};
use arbiter_store::{IdKind, Store, Writer};
use tokio::sync::watch;

use crate::ids::Ids;
use crate::{ArenaConfig, ArenaError, Clock};

/// How long a server holds a lock of [`Context::exclusively`] unless it lets it go sooner: the
/// lock of a server that died lapses after this.
const EXCLUSIVE_HOLD_MS: i64 = 5_000;

/// How many times a server asks for a lock another holds, 10 ms apart, before it gives up: a
/// little longer than a dead server's hold takes to lapse.
const EXCLUSIVE_ATTEMPTS: u32 = 600;

/// The arena's surroundings, shared by its services and match actors.
pub(crate) struct Context {
    pub(crate) config: ArenaConfig,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) store: Arc<dyn Store>,
    pub(crate) writer: Writer,
    /// The game families this arena runs.
    pub(crate) games: Games,
    /// Set when the arena shuts down; background tasks and match actors stop.
    pub(crate) stopping: watch::Sender<bool>,
    /// Bot talk: the wording service and the administrator's switch.
    pub(crate) talk: Arc<TalkService>,
    /// The ids reserved from the store and not yet handed out.
    pub(crate) ids: Ids,
    /// What the server reports to Prometheus.
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    /// When the last heartbeat reached the store, for readiness.
    pub(crate) last_heartbeat_ms: std::sync::atomic::AtomicI64,
}

/// Bot talk as the arena runs it: the wording service it was given, and whether house seats
/// talk now (the configuration's switch at start, the administrator's after).
pub(crate) struct TalkService {
    pub(crate) wording: Arc<dyn Wording>,
    pub(crate) on: AtomicBool,
}

impl Context {
    /// The arena's current time.
    pub(crate) fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// A new id of `kind`, never handed out before by any server sharing the store.
    pub(crate) async fn new_id(&self, kind: IdKind) -> Result<i64, ArenaError> {
        Ok(self.ids.next(self.store.as_ref(), kind).await?)
    }

    /// Every variant of every game the arena runs.
    pub(crate) fn known_variants(&self) -> Vec<&'static str> {
        self.games.variant_names()
    }

    /// Every key a bot may list what it plays by (see [`arbiter_plugin::Games::keys`]).
    pub(crate) fn known_keys(&self) -> Vec<String> {
        self.games.keys()
    }

    /// The mode auto-matching and quick matches play, and whose variant a bot that lists no
    /// variants offers: the first registered family's default.
    pub(crate) fn default_mode(&self) -> Result<Mode, ArenaError> {
        self.games
            .default_mode()
            .ok_or_else(|| ArenaError::UnsupportedVariant("this server runs no game".to_owned()))
    }

    /// The family of a registered game.
    pub(crate) fn family(&self, game: &str) -> Result<&'static Family, ArenaError> {
        self.games
            .get(game)
            .ok_or_else(|| ArenaError::UnsupportedVariant(format!("unknown game {game:?}")))
    }

    /// Runs `work` while this server alone, among those sharing the store, holds the lock
    /// `name` (a duty in the store, held for at most [`EXCLUSIVE_HOLD_MS`] and let go after):
    /// what `work` reads from the store and writes back cannot be changed meanwhile by another
    /// server doing the same. A server alone with its store runs it at once. Waits a while
    /// for another server that holds the lock, then gives up as unavailable.
    pub(crate) async fn exclusively<T>(
        &self,
        name: &str,
        work: impl AsyncFnOnce() -> Result<T, ArenaError>,
    ) -> Result<T, ArenaError> {
        if !self.config.bus.is_shared() {
            return work().await;
        }
        let node = &self.config.node_id;
        let mut held = false;
        for _ in 0..EXCLUSIVE_ATTEMPTS {
            let now = self.now();
            if self
                .store
                .hold_duty(name, node, now, now + EXCLUSIVE_HOLD_MS)
                .await?
            {
                held = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        if !held {
            return Err(ArenaError::Unavailable(format!(
                "another server has held {name} for too long; try again"
            )));
        }
        let result = work().await;
        let now = self.now();
        if let Err(error) = self.store.hold_duty(name, node, now, now).await {
            tracing::warn!(lock = name, %error, "cannot let a lock go; it lapses soon");
        }
        result
    }

    /// Whether the arena has begun to stop.
    pub(crate) fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// Completes once the arena has begun to stop.
    pub(crate) async fn stopped(&self) {
        let mut stopping = self.stopping.subscribe();
        // An error means the arena is gone, which is stopped too.
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }
}

/// Locks a mutex of the arena's; the guarded maps stay consistent even if a holder panicked.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
