//! Matches: creating them, the commands bots send them, what anyone may read of them, and
//! their lifetime in memory, from resumption at start-up to retirement once closed.
//!
//! Each open match is owned by one actor task (`actor.rs`); this service starts the actors,
//! asks them, and falls back on the store for matches no longer held in memory.
//! - `registry.rs`: the matches held in memory and each bot's open matches.
//! - `challenges.rs`: challenges, accept, decline, moves and resignation.
//! - `reads.rs`: snapshots, long-polls, turns, exports, replays and lists of matches.
//! - `streams.rs`: a bot's event stream.

mod challenges;
mod reads;
mod registry;
mod streams;
mod tables;

use std::collections::HashMap;
use std::sync::Arc;

use arbiter_fair::ServerSeed;
use arbiter_plugin::{Family, LegRequest};
use arbiter_store::{BotId, BotKind, MatchId, MatchRecord, MatchStatus, Write, Writer};
use tokio::sync::{mpsc, oneshot, watch};

pub use challenges::ChallengeRequest;
pub(crate) use registry::Registry;
pub use streams::BotStream;
pub use tables::TableRequest;

use crate::actor::{Actor, Command};
use crate::context::Context;
use crate::directory::Directory;
use crate::feed::Feeds;
use crate::identities::Identities;
use crate::live;
use crate::log::MatchLog;
use crate::ratings::Ratings;
use crate::{ArenaError, Clock, Format, Opening};

/// Commands a match actor may queue before senders wait.
const COMMAND_QUEUE: usize = 256;

/// What a match actor needs from the rest of the arena, and nothing more.
pub(crate) struct MatchContext {
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) stopping: watch::Sender<bool>,
    pub(crate) writer: Writer,
    /// For the participants' presence.
    pub(crate) directory: Arc<Directory>,
    /// For the participants' stream lines.
    pub(crate) feeds: Arc<Feeds>,
    /// For rating a rated match in the write that finishes it.
    pub(crate) ratings: Arc<Ratings>,
    /// For what house seats say.
    pub(crate) talk: Arc<crate::context::TalkService>,
    /// For counting moves.
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    registry: Arc<Registry>,
}

impl MatchContext {
    /// Called by a match actor when a bot takes a seat at an open table.
    pub(crate) fn note_participants(&self, id: MatchId, bots: &[BotId], status: MatchStatus) {
        self.registry.note_participants(id, bots, status);
    }

    /// Called by a match actor whenever its status changes.
    pub(crate) fn note_status(
        &self,
        id: MatchId,
        bots: &[BotId],
        status: MatchStatus,
        variant: &str,
        house: bool,
    ) {
        self.registry.note_status(id, bots, status, variant, house);
    }
}

/// The matches service.
pub(crate) struct Matches {
    context: Arc<Context>,
    identities: Arc<Identities>,
    registry: Arc<Registry>,
    actors: Arc<MatchContext>,
    /// Held while leases are renewed, matches taken over or leases released, so that a
    /// heartbeat's renewal never lands after the release of a server that is stopping.
    leases: tokio::sync::Mutex<()>,
    /// The servers other matches were last seen to run on, each until a moment no later than
    /// its lease's expiry: every request about such a match would otherwise read its lease.
    owners: std::sync::Mutex<HashMap<MatchId, (String, i64)>>,
}

/// How long a server trusts what it read of another server's lease before reading it again:
/// short, since a stopping server lets its leases go at once.
const OWNER_TRUSTED_MS: i64 = 1_000;

impl Matches {
    /// The service.
    pub(crate) fn new(
        context: Arc<Context>,
        identities: Arc<Identities>,
        ratings: Arc<Ratings>,
        registry: Arc<Registry>,
    ) -> Matches {
        let actors = Arc::new(MatchContext {
            clock: context.clock.clone(),
            stopping: context.stopping.clone(),
            writer: context.writer.clone(),
            directory: identities.directory.clone(),
            feeds: identities.feeds.clone(),
            ratings,
            talk: context.talk.clone(),
            metrics: context.metrics.clone(),
            registry: registry.clone(),
        });
        Matches {
            context,
            identities,
            registry,
            actors,
            leases: tokio::sync::Mutex::new(()),
            owners: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The other server running match `id`, if one does: read from its lease in the store,
    /// and trusted for up to [`OWNER_TRUSTED_MS`] (never past the lease's expiry).
    pub(crate) async fn remote_owner(&self, id: MatchId) -> Option<String> {
        if self.runs(id) {
            return None;
        }
        let now = self.now();
        let lock = || {
            self.owners
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some((node, until)) = lock().get(&id)
            && *until > now
        {
            return Some(node.clone());
        }
        let lease = self.context.store.lease(id).await.ok()??;
        if lease.node == self.context.config.node_id || lease.expires_ms <= now {
            return None;
        }
        let mut owners = lock();
        // Forget what can no longer be trusted before the table grows.
        if owners.len() >= 4_096 {
            owners.retain(|_, (_, until)| *until > now);
        }
        let until = lease.expires_ms.min(now + OWNER_TRUSTED_MS);
        owners.insert(id, (lease.node.clone(), until));
        Some(lease.node)
    }

    fn now(&self) -> i64 {
        self.context.now()
    }

    /// Whether this server holds match `id` in memory (it runs it, or ran it lately).
    pub(crate) fn runs(&self, id: MatchId) -> bool {
        self.registry.handle(id).is_some()
    }

    /// How many open matches this server runs.
    pub(crate) fn open_count(&self) -> usize {
        self.registry.open_ids().len()
    }

    /// How many matches are held in memory: the open ones and the recently closed ones.
    pub(crate) fn in_memory(&self) -> usize {
        self.registry.len()
    }

    /// Claims those of the open matches `ids` that no live server holds (this server's own,
    /// unleased ones, and those whose server died) and runs them here, resumed from the
    /// store; returns how many it took. At start-up and at every heartbeat.
    pub(crate) async fn take_over(&self, ids: &[MatchId]) -> Result<usize, ArenaError> {
        let ids: Vec<MatchId> = ids
            .iter()
            .copied()
            .filter(|&id| self.registry.handle(id).is_none())
            .collect();
        if ids.is_empty() {
            return Ok(0);
        }
        let now = self.now();
        let config = &self.context.config;
        let store = &self.context.store;
        let claims = store
            .claim_matches(&config.node_id, &ids, now, now + config.lease_ms)
            .await?;
        let mut last_heartbeat = None;
        for claim in &claims {
            let Some(record) = store.match_by_id(claim.match_id).await? else {
                continue;
            };
            // A match never leased (stored by a release before leases, or copied from another
            // store) was last alive at the server's heartbeat.
            let alive = match claim.renewed_ms {
                Some(renewed) => Some(renewed),
                None => {
                    if last_heartbeat.is_none() {
                        last_heartbeat = Some(store.last_heartbeat().await?);
                    }
                    last_heartbeat.flatten()
                }
            };
            self.resume(record, alive).await?;
        }
        Ok(claims.len())
    }

    /// Resumes an open match from the store; its server was last known alive at `alive`.
    async fn resume(&self, record: MatchRecord, alive: Option<i64>) -> Result<(), ArenaError> {
        let now = self.now();
        {
            let events = self.context.store.events(record.id, 0, u32::MAX).await?;
            // The server was certainly up when it last renewed the match's lease (or at its
            // last heartbeat) and at this match's last durable event, whichever came later;
            // only the time after that is an outage. Measuring from the renewal alone would
            // hand back the time between a late event and the renewal before it, leaving a
            // clock more than it had.
            let alive_until = alive.max(events.last().map(|event| event.at_ms));
            let downtime = alive_until.map_or(0, |alive| (now - alive).max(0));
            let setup = self.setup_from(&record)?;
            let mut progress = live::replay(&setup, record.status, &events)?;
            if progress.status == MatchStatus::Running
                && downtime > self.context.config.outage_abort_ms
            {
                live::abort_technical(&setup, &mut progress, now);
            } else {
                if downtime > 0 && progress.status.is_open() {
                    live::resume_after(&setup, &mut progress, downtime, now);
                }
                live::watch_from(&mut progress, now);
                progress.row_changed = true;
            }
            tracing::info!(match_id = record.id, status = ?progress.status, downtime_ms = downtime, "resumed match");
            self.spawn(setup, progress, events, Vec::new());
        }
        Ok(())
    }

    /// At a heartbeat: renews this server's leases, then takes over the matches of servers
    /// that died. Nothing happens once the arena is stopping.
    pub(crate) async fn heartbeat(&self, now: i64) {
        let _leases = self.leases.lock().await;
        if self.context.is_stopping() {
            return;
        }
        if let Err(error) = self.keep_leases(now).await {
            tracing::warn!(%error, "cannot renew the leases on matches");
        }
        let taken = match self.context.store.unleased_matches(now).await {
            Ok(unleased) => self.take_over(&unleased).await,
            Err(error) => Err(error.into()),
        };
        match taken {
            Ok(0) => {}
            Ok(taken) => {
                self.context.metrics.takeovers.inc_by(taken as u64);
                tracing::info!(taken, "took over matches whose server stopped");
            }
            Err(error) => tracing::warn!(%error, "cannot take over matches"),
        }
    }

    /// Lets every lease of this server lapse at once, so that the other servers sharing the
    /// store take its open matches over: once it is stopping, and after every write of its
    /// matches.
    pub(crate) async fn release_leases(&self) {
        let _leases = self.leases.lock().await;
        let release = Write::ReleaseLeases {
            node: self.context.config.node_id.clone(),
            at_ms: self.now(),
        };
        if self.context.writer.write(vec![release]).await.is_err() {
            tracing::warn!("cannot hand the open matches on: they wait for their leases to lapse");
        }
    }

    /// Renews this server's leases; the matches it held and lost (it was taken for dead)
    /// stop here, since another server runs them now.
    async fn keep_leases(&self, now: i64) -> Result<(), ArenaError> {
        // Matches held before the renewal was asked for were leased before it too.
        let before = self.registry.open_ids();
        let config = &self.context.config;
        let held = self
            .context
            .store
            .renew_leases(&config.node_id, now, now + config.lease_ms)
            .await?;
        for id in before.into_iter().filter(|id| !held.contains(id)) {
            // A lease is also let go of when its match has just closed here.
            let Some(lease) = self.context.store.lease(id).await? else {
                continue;
            };
            if lease.node != config.node_id {
                tracing::warn!(
                    match_id = id,
                    node = lease.node,
                    "another server took this match over: stopping it here"
                );
                self.registry.surrender(id);
            }
        }
        Ok(())
    }

    fn setup_from(&self, record: &MatchRecord) -> Result<live::Setup, ArenaError> {
        let bot = |id: BotId| {
            self.identities
                .directory
                .get(id)
                .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))
        };
        fn parse<T: serde::de::DeserializeOwned>(
            record: &MatchRecord,
            field: &str,
        ) -> Result<T, ArenaError> {
            serde_json::from_value(record.details[field].clone())
                .map_err(|e| ArenaError::Unavailable(format!("match {}: {field}: {e}", record.id)))
        }
        let details = &record.details;
        let bots = participants(record)?
            .iter()
            .map(|&id| bot(id))
            .collect::<Result<Vec<_>, _>>()?;
        let seat_count = details["seats"]
            .as_u64()
            .and_then(|seats| usize::try_from(seats).ok())
            .unwrap_or(bots.len());
        Ok(live::Setup {
            id: record.id,
            bots,
            seat_count,
            table: details["table"].as_bool().unwrap_or(false),
            family: self.context.family(&record.game)?,
            variant: parse(record, "variant")?,
            format: parse(record, "format")?,
            time_control: parse(record, "time_control")?,
            rated: details["rated"].as_bool().unwrap_or(false),
            auto: details["auto"].as_bool().unwrap_or(false),
            opening: serde_json::from_value(details["opening"].clone()).unwrap_or_default(),
            // Matches stored before seats could be chosen gave the challenger the first seat.
            seat: serde_json::from_value(details["seat"].clone()).unwrap_or_default(),
            created_ms: record.created_ms,
            seed: ServerSeed::from_revealed(&record.seed),
            client_seeds: {
                let mut seeds: Vec<String> =
                    serde_json::from_value(details["client_seeds"].clone()).unwrap_or_default();
                seeds.resize(seat_count, String::new());
                seeds
            },
            config: self.context.config.clone(),
            terms: live::TableTerms {
                // The opening is the setup's own, stored with every match.
                opening: None,
                wait_ms: details["wait_ms"].as_i64(),
                polled: details["polled"].as_bool().unwrap_or(false),
                rated: details["rated_if_registered"].as_bool().unwrap_or(false),
                seat_keys: serde_json::from_value(details["seat_keys"].clone()).unwrap_or_default(),
                language: serde_json::from_value(details["language"].clone()).unwrap_or_default(),
                ..live::TableTerms::sealed_from(details)
            },
        })
    }

    /// Starts the actor of a match. `logged` are the stored events its log starts with;
    /// `unpublished` are stored events the actor still has to publish.
    fn spawn(
        &self,
        setup: live::Setup,
        progress: live::Progress,
        logged: Vec<arbiter_store::EventRecord>,
        unpublished: Vec<Arc<arbiter_store::EventRecord>>,
    ) {
        let (commands, receiver) = mpsc::channel(COMMAND_QUEUE);
        let log = Arc::new(MatchLog::new(logged));
        let bots: Arc<[BotId]> = setup.bots.iter().map(|bot| bot.id).collect();
        let id = setup.id;
        self.registry
            .insert(id, commands.clone(), log.clone(), bots.clone());
        let house = setup.bots.iter().any(|b| b.kind == BotKind::House);
        self.registry
            .note_status(id, &bots, progress.status, &setup.variant, house);
        let actor = Actor::new(
            self.actors.clone(),
            setup,
            progress,
            log,
            receiver,
            commands,
        );
        tokio::spawn(actor.run(unpublished));
    }

    /// Asks a match's actor, with the reply channel `make` puts in the command.
    async fn ask<T>(
        &self,
        id: MatchId,
        make: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, ArenaError> {
        // An actor that is gone has retired its match, unless the arena is stopping: then the
        // match lives on after the restart, and the caller should try again, not give up.
        let gone = || {
            if self.context.is_stopping() {
                ArenaError::ShuttingDown
            } else {
                ArenaError::MatchNotFound(id)
            }
        };
        let (commands, _, _) = self.registry.handle(id).ok_or_else(gone)?;
        let (reply, answer) = oneshot::channel();
        commands.send(make(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| ArenaError::ShuttingDown)
    }

    /// A match this process no longer runs: not running, or not there at all.
    async fn closed_or_missing<T>(&self, id: MatchId) -> Result<T, ArenaError> {
        self.stored_match(id).await?;
        Err(ArenaError::MatchNotRunning)
    }

    /// The match's row in the store.
    pub(crate) async fn stored_match(&self, id: MatchId) -> Result<MatchRecord, ArenaError> {
        self.context
            .store
            .match_by_id(id)
            .await?
            .ok_or(ArenaError::MatchNotFound(id))
    }

    /// Retires the matches closed long enough ago, or beyond the number kept in memory.
    pub(crate) fn retire_closed(&self, now: i64) {
        self.registry.retire_closed(now);
    }

    /// Stops every match actor once it has finished the command at hand.
    pub(crate) async fn stop(&self) {
        for commands in self.registry.drain() {
            // Waiting for room in the queue means the actor has finished what came before.
            let _ = commands.send(Command::Retire).await;
        }
    }
}

/// Asks the family whether it can set up `variant` for `seats` in `format` from `opening`, so
/// that options it refuses (a format or an opening it does not play) are refused when a match
/// is asked for, not when it starts. The configurations are thrown away: they are drawn from a
/// stream of the seed no other draw uses, so the match's own draws are unchanged.
fn check_setup(
    family: &Family,
    variant: &str,
    seats: usize,
    format: Format,
    opening: Opening,
    seed: &ServerSeed,
) -> Result<(), ArenaError> {
    let request = LegRequest {
        variant,
        seats,
        legs: format.legs(seats),
        opening,
    };
    family
        .setup
        .leg_configs(&request, &mut seed.stream("setup-check", 0))
        .map(drop)
        .map_err(ArenaError::from)
}

/// A stored match's participants, checked: a match has 2 to 8 (an open table fewer, down to
/// its opener alone), so a record with any other number cannot be a match this arena wrote.
fn participants(record: &MatchRecord) -> Result<&[BotId], ArenaError> {
    if (1..=8).contains(&record.participants.len()) {
        Ok(&record.participants)
    } else {
        Err(ArenaError::Unavailable(format!(
            "match {} has {} participants",
            record.id,
            record.participants.len()
        )))
    }
}
