//! The arena's rules of play, with the defaults of FlipSight's documentation.

use std::sync::Arc;

use arbiter_plugin::{TemplateWording, Wording};
use serde::{Deserialize, Serialize};

/// A match's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimeControl {
    /// Each side's clock per leg at the start, in milliseconds.
    pub initial_ms: i64,
    /// Added to a side's clock after each of its moves.
    pub increment_ms: i64,
    /// A limit on every single turn, with a warning event at half of it; `None` for none.
    pub per_turn_ms: Option<i64>,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            initial_ms: 60_000,
            increment_ms: 0,
            per_turn_ms: None,
        }
    }
}

impl TimeControl {
    /// Checks the values are usable.
    pub fn validate(&self) -> Result<(), String> {
        if !(1_000..=24 * 3_600_000).contains(&self.initial_ms) {
            return Err("time_control.initial_ms must be between 1000 and 86400000".to_owned());
        }
        if !(0..=3_600_000).contains(&self.increment_ms) {
            return Err("time_control.increment_ms must be between 0 and 3600000".to_owned());
        }
        if self
            .per_turn_ms
            .is_some_and(|t| !(1_000..=24 * 3_600_000).contains(&t))
        {
            return Err("time_control.per_turn_ms must be between 1000 and 86400000".to_owned());
        }
        Ok(())
    }
}

/// Tunable limits and timeouts; every duration in milliseconds.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// How long a challenge waits for an answer.
    pub challenge_ttl_ms: i64,
    /// How long a side has to make its first move after its first turn starts.
    pub first_move_ms: i64,
    /// How long a side may be gone while its opponent is connected before it loses.
    pub disconnect_ms: i64,
    /// A bot without a stream counts as connected this long after its last request.
    pub presence_ms: i64,
    /// A server outage longer than this aborts running matches on restart.
    pub outage_abort_ms: i64,
    /// Default matches a bot may play at once (a paired match counts once).
    pub default_concurrency: u32,
    /// Streams a registered bot may hold open.
    pub max_streams: usize,
    /// Streams an anonymous bot may hold open.
    pub max_anonymous_streams: usize,
    /// Anonymous tokens one IP address may mint per window.
    pub anonymous_mints_per_window: usize,
    /// The window of the limit above.
    pub anonymous_mint_window_ms: i64,
    /// An anonymous bot unused this long expires.
    pub anonymous_idle_ms: i64,
    /// Bots one IP address may register per window through a door whose registration is
    /// open to anyone (needs no administrator token or account).
    pub open_registrations_per_window: usize,
    /// The window of the limit above.
    pub open_registration_window_ms: i64,
    /// Matches one IP address may open per window through a door that limits openings per
    /// address.
    pub openings_per_window: usize,
    /// The window of the limit above.
    pub opening_window_ms: i64,
    /// Variant (non-`std`) matches the house bots play at once.
    pub house_variant_matches: usize,
    /// Pending challenges one bot may have out at once.
    pub max_pending_challenges: usize,
    /// The interval of stream keep-alive pings.
    pub ping_ms: i64,
    /// The longest a long-poll may wait.
    pub max_wait_ms: i64,
    /// The most events one long-poll returns.
    pub events_per_page: usize,
    /// The engine request's `budget_ms` cap, as the connector's default `--max-think-seconds`.
    pub default_budget_ms: i64,
    /// How often the server records that it is alive, renews its leases on the matches it
    /// runs and looks for matches whose node died.
    pub heartbeat_ms: i64,
    /// This server's name among the servers sharing a store; each must have its own.
    pub node_id: String,
    /// How long a lease on a match lasts unless renewed: a server that stops renewing is
    /// taken to be dead this long after its last renewal, and another server takes its
    /// matches over.
    pub lease_ms: i64,
    /// How long a closed match stays in memory before it is served from the store.
    pub closed_retention_ms: i64,
    /// The most closed matches kept in memory; beyond it, the longest closed is served from
    /// the store. Under sustained load matches close by the thousand a minute, and each holds
    /// its whole event log.
    pub closed_in_memory: usize,
    /// How often auto-matching looks for idle bots.
    pub automatch_interval_ms: i64,
    /// Auto-matched games kept going at once (FlipSight's "two rooms").
    pub automatch_rooms: usize,
    /// How long a bot that let an auto-match offer expire, or declined it, is left out.
    pub automatch_exclusion_ms: i64,
    /// The house bot that plays a bot no registered bot is free to meet.
    pub automatch_house: String,
    /// The bus to the other servers sharing the store: an in-process bus that no one else
    /// hears by default, for a server alone with its store.
    pub bus: Arc<dyn arbiter_bus::Bus>,
    /// How what house seats say is worded, in the families that talk: the remark as it is
    /// by default, so that a server runs with no model at all.
    pub talk: Arc<dyn Wording>,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            challenge_ttl_ms: 120_000,
            first_move_ms: 30_000,
            disconnect_ms: 30_000,
            presence_ms: 10_000,
            outage_abort_ms: 30_000,
            default_concurrency: 2,
            max_streams: 3,
            max_anonymous_streams: 2,
            anonymous_mints_per_window: 5,
            anonymous_mint_window_ms: 3_600_000,
            anonymous_idle_ms: 24 * 3_600_000,
            open_registrations_per_window: 5,
            open_registration_window_ms: 3_600_000,
            openings_per_window: 30,
            opening_window_ms: 600_000,
            house_variant_matches: 2,
            max_pending_challenges: 10,
            ping_ms: 10_000,
            max_wait_ms: 60_000,
            events_per_page: 100,
            default_budget_ms: 10_000,
            heartbeat_ms: 1_000,
            node_id: "local".to_owned(),
            lease_ms: 10_000,
            closed_retention_ms: 600_000,
            closed_in_memory: 1_000,
            automatch_interval_ms: 5_000,
            automatch_rooms: 2,
            automatch_exclusion_ms: 600_000,
            automatch_house: "house-medium".to_owned(),
            talk: Arc::new(TemplateWording),
            bus: Arc::new(arbiter_bus::LocalBus::new()),
        }
    }
}
