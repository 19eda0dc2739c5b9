//! The arena: where bots meet and matches are played.
//!
//! Each open match is owned by one task (an actor) that processes its commands in order:
//! validate → persist → apply → publish → reply. Its rules of play (clocks, challenge expiry,
//! the first-move and disconnect rules, flag falls, idempotent re-sends) are plain functions
//! of the time in the private `live` module, and time comes from an injected [`Clock`], so
//! every timeout can be tested without sleeping. Writes go through the store's group-commit
//! [`Writer`]; nothing is acknowledged before it is durable.
//!
//! [`Arena`] is a thin facade over services with one job each: identities (`identities.rs`),
//! matches (`matches/`), ratings (`ratings.rs`), accounts (`accounts.rs`), people
//! (`humans.rs`), auto-matching (`automatch.rs`) and tournaments (`tournaments/`). They share the surroundings of
//! `context.rs` and reach each other through the references each one is given.
//!
//! The arena knows no HTTP: the server crate translates requests into calls on [`Arena`].

mod accounts;
mod actor;
mod automatch;
pub mod clock;
mod cluster;
pub mod config;
mod context;
pub mod directory;
mod error;
mod fairness;
pub mod feed;
mod humans;
mod identities;
mod ids;
mod live;
pub mod log;
mod matches;
mod metrics;
pub mod names;
pub mod notes;
mod quota;
mod ratings;
mod relay;
mod seats;
pub mod snapshot;
pub mod token;
mod tournaments;
pub mod verify;

use std::net::IpAddr;
use std::sync::Arc;

use arbiter_store::{AccountId, BotId, MatchId, Store, Write, Writer};
use serde_json::Value;

pub use accounts::{Account, PASSWORD_MIN, SESSION_MS};
pub use arbiter_plugin::{
    Family, Format, Games, HouseLevel, Language, Mode, Opening, Silence, TemplateWording, Wording,
};
pub use arbiter_rating::RatingSystem;
pub use arbiter_store::{BotKind, MatchStatus, NoteRecord};
pub use clock::{Clock, ManualClock, SystemClock, utc_datetime};
pub use cluster::{NODE_SUBJECTS, node_subject};
pub use config::{ArenaConfig, TimeControl};
pub use directory::{Bot, BotProfile, Environment, ModuleStatus, Sandboxed, Webhook};
pub use error::{ArenaError, ErrorClass};
pub use humans::{PERSON_PREFIX, PersonChallenge, QuickMatch, ROOM_ROUND};
pub use live::{
    CHAT_MAX_CHARS, CHAT_MAX_LINES, ChatRoom, MoveNote, MoveReply, SeatChoice, TableTerms,
    TournamentGame,
};
pub use log::{Participants, Reader};
pub use matches::{BotStream, ChallengeRequest, TableRequest};
pub use names::{BOT_NAME_RULE, NAME_MAX_CHARS, NAME_MIN_CHARS, NAME_RULE};
pub use ratings::{Standing, Tally};
pub use seats::{GUEST_NAME_MAX_CHARS, table_guest_name};
pub use snapshot::{
    Announcement, Decision, DecisionPage, EventPage, LegStatus, MatchExport, MatchResult,
    MatchSnapshot, MatchSummary, ParticipantSummary, StreamEvent,
};
pub use tournaments::{
    GameEnd, Organiser, Round, RoundGame, RoundTable, Tournament, TournamentAction,
    TournamentEntrant, TournamentFormat, TournamentRequest, TournamentStanding, TournamentStatus,
};
pub use verify::Verdict;

use accounts::Accounts;
use automatch::AutoMatch;
use context::{Context, TalkService};
use humans::People;
use identities::Identities;
use matches::{Matches, Registry};
use ratings::Ratings;
use tournaments::Tournaments;

/// The arena facade: every operation the API needs, each handed to the service that owns it.
///
/// Cloned for every request and task, so a clone is one reference count: the services sit
/// behind one shared [`ArenaParts`].
#[derive(Clone)]
pub struct Arena {
    parts: Arc<ArenaParts>,
}

/// The services an [`Arena`] hands its operations to; nothing of it is reachable outside this
/// crate.
pub struct ArenaParts {
    context: Arc<Context>,
    identities: Arc<Identities>,
    matches: Arc<Matches>,
    ratings: Arc<Ratings>,
    accounts: Arc<Accounts>,
    automatch: Arc<AutoMatch>,
    people: Arc<People>,
    tournaments: Arc<Tournaments>,
}

impl std::ops::Deref for Arena {
    type Target = ArenaParts;

    fn deref(&self) -> &ArenaParts {
        &self.parts
    }
}

impl Arena {
    /// Opens the arena on `store`: loads bots, creates the house bots if missing, resumes open
    /// matches (charging downtime to nobody, or aborting them after a long outage), and starts
    /// the background tasks. `games` are the game families it runs; `admin_token` enables the
    /// administrator API.
    pub async fn start(
        config: ArenaConfig,
        games: Games,
        clock: Arc<dyn Clock>,
        store: Arc<dyn Store>,
        admin_token: Option<&str>,
    ) -> Result<Arena, ArenaError> {
        let bots = store.bots().await?;
        let open: Vec<MatchId> = store.open_matches().await?.iter().map(|m| m.id).collect();
        let ratings = store.ratings().await?;
        let account_records = store.accounts().await?;
        let sessions = store.sessions(clock.now_ms()).await?;
        let started_ms = clock.now_ms();
        let metrics = Arc::new(metrics::Metrics::new());
        let commits = metrics.commit_seconds.clone();
        let (writer, _writer_task) = Writer::start_observed(
            store.clone(),
            Arc::new(move |took| commits.observe(took.as_secs_f64())),
        );
        let talk = Arc::new(TalkService {
            on: std::sync::atomic::AtomicBool::new(config.talk.enabled()),
            wording: config.talk.clone(),
        });
        let context = Arc::new(Context {
            config,
            clock,
            store,
            writer,
            games,
            stopping: tokio::sync::watch::channel(false).0,
            talk,
            ids: ids::Ids::new(),
            metrics,
            // The store has just answered every read of the start.
            last_heartbeat_ms: std::sync::atomic::AtomicI64::new(started_ms),
        });
        // Each service is built after those it is given: none refers back to one built later.
        let registry = Arc::new(Registry::new(context.clone()));
        let identities = Arc::new(Identities::new(
            context.clone(),
            registry.clone(),
            bots,
            admin_token,
        ));
        let ratings = Arc::new(Ratings::load(
            context.clone(),
            identities.directory.clone(),
            ratings,
        ));
        let matches = Arc::new(Matches::new(
            context.clone(),
            identities.clone(),
            ratings.clone(),
            registry.clone(),
        ));
        let accounts = Arc::new(Accounts::new(
            context.clone(),
            identities.clone(),
            registry.clone(),
            account_records,
            sessions,
        ));
        let automatch = Arc::new(AutoMatch::new(
            context.clone(),
            identities.clone(),
            registry.clone(),
            matches.clone(),
            ratings.clone(),
        ));
        let people = Arc::new(People::new(
            context.clone(),
            identities.clone(),
            matches.clone(),
            automatch.clone(),
            ratings.clone(),
        ));
        let tournaments = Arc::new(Tournaments::new(
            context.clone(),
            identities.clone(),
            matches.clone(),
        ));
        let arena = Arena {
            parts: Arc::new(ArenaParts {
                context,
                identities,
                matches,
                ratings,
                accounts,
                automatch,
                people,
                tournaments,
            }),
        };
        arena.identities.ensure_house_bots().await?;
        // Relayed streams first: the matches taken over send their news at once.
        relay::start(&arena).await?;
        arena.matches.take_over(&open).await?;
        cluster::listen(&arena).await?;
        arena.spawn_background();
        Ok(arena)
    }

    fn now(&self) -> i64 {
        self.context.now()
    }

    /// The arena's configuration.
    pub fn config(&self) -> &ArenaConfig {
        &self.context.config
    }

    /// The game families the arena runs.
    pub fn games(&self) -> &Games {
        &self.context.games
    }

    /// Whether house seats talk now: the configuration's switch at start, the
    /// administrator's after.
    pub fn talk_enabled(&self) -> bool {
        self.context
            .talk
            .on
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Switches bot talk on or off at once, in every match, without a restart (the
    /// administrator's kill switch). Lines already being worded are dropped when they come
    /// back only if their moment has passed; none is started while it is off.
    pub fn set_talk_enabled(&self, enabled: bool) {
        tracing::info!(enabled, "bot talk switched by the administrator");
        self.context
            .talk
            .on
            .store(enabled, std::sync::atomic::Ordering::Relaxed);
    }

    /// Who words what house seats say, as pages name it (`template`, `ollama · qwen3:8b`),
    /// or `off` while talk is switched off; never a key or an address.
    pub fn talk_provider(&self) -> String {
        if self.talk_enabled() {
            self.context.talk.wording.describe()
        } else {
            "off".to_owned()
        }
    }

    /// The server's metrics in Prometheus's text format: moves accepted, group-commit
    /// latency, open matches and streams, lease takeovers.
    pub fn metrics_text(&self) -> String {
        self.context.metrics.render(
            self.matches.open_count(),
            self.identities.feeds.open_count(),
            self.context.config.bus.link_counts(),
        )
    }

    /// The bus to the other servers sharing the store.
    pub fn bus(&self) -> Arc<dyn arbiter_bus::Bus> {
        self.context.config.bus.clone()
    }

    /// This server's name among the servers sharing the store.
    pub fn node_id(&self) -> &str {
        &self.context.config.node_id
    }

    /// The server that runs match `id`, if it is another one (a live lease of another server
    /// holds it): requests about the match go there. `None` on a server alone with its store,
    /// for a match this server runs, and for a closed or unknown match, which any server
    /// answers from the store.
    pub async fn remote_owner(&self, id: MatchId) -> Option<String> {
        if !self.context.config.bus.is_shared() {
            return None;
        }
        self.matches.remote_owner(id).await
    }

    /// Records how long a request forwarded to the server running its match took, there and
    /// back, for the metrics.
    pub fn record_forwarded(&self, took: std::time::Duration) {
        self.context
            .metrics
            .forwarded_seconds
            .observe(took.as_secs_f64());
    }

    /// Whether the server should be sent traffic: it is not stopping, and its last
    /// heartbeat reached the store within three heartbeats (else the store is out of reach).
    pub fn is_ready(&self) -> bool {
        let last = self
            .context
            .last_heartbeat_ms
            .load(std::sync::atomic::Ordering::Relaxed);
        !self.context.is_stopping() && self.now() - last <= 3 * self.context.config.heartbeat_ms
    }

    /// How many matches are held in memory: the open ones and the recently closed ones.
    pub fn matches_in_memory(&self) -> usize {
        self.matches.in_memory()
    }

    /// The arena's current time.
    pub fn now_ms(&self) -> i64 {
        self.now()
    }

    fn spawn_background(&self) {
        // The heartbeat: after a restart, the time since the last one is the outage.
        self.every(self.context.config.heartbeat_ms, |arena, now| async move {
            arena.heartbeat(now).await;
        });
        // Offer idle bots auto-matched games.
        self.every(
            self.context.config.automatch_interval_ms,
            |arena, now| async move {
                if arena.holds_duty("automatch", now).await {
                    arena.automatch.round(now).await;
                }
            },
        );
        // Record sightings, expire idle anonymous bots and retire long-closed matches, once a
        // minute.
        self.every(60_000, |arena, now| async move { arena.sweep(now).await });
    }

    /// Runs `round` at once and then every `interval_ms` of the arena's clock, until the arena
    /// stops; each round is given the time it started at.
    fn every<F, R>(&self, interval_ms: i64, round: F)
    where
        F: Fn(Arena, i64) -> R + Send + 'static,
        R: std::future::Future<Output = ()> + Send,
    {
        let arena = self.clone();
        let mut stopping = self.context.stopping.subscribe();
        tokio::spawn(async move {
            loop {
                let now = arena.now();
                round(arena.clone(), now).await;
                tokio::select! {
                    () = arena.context.clock.sleep_until(now + interval_ms) => {}
                    _ = stopping.changed() => {}
                }
                if *stopping.borrow() {
                    return;
                }
            }
        });
    }

    async fn heartbeat(&self, now: i64) {
        if self
            .context
            .writer
            .write(vec![Write::Heartbeat(now)])
            .await
            .is_err()
        {
            tracing::warn!("cannot record the heartbeat");
        } else {
            self.context
                .last_heartbeat_ms
                .fetch_max(now, std::sync::atomic::Ordering::Relaxed);
        }
        self.matches.heartbeat(now).await;
        relay::roll_call(self, now).await;
        if self.holds_duty("tournaments", now).await {
            self.tournaments.drive().await;
        }
    }

    async fn sweep(&self, now: i64) {
        self.identities.record_sightings(now).await;
        if self.holds_duty("sweep", now).await {
            self.identities
                .expire_anonymous(now - self.context.config.anonymous_idle_ms)
                .await;
        }
        self.matches.retire_closed(now);
    }

    /// Whether this server does the job `name`, which one server at a time does among those
    /// sharing the store: always, for a server alone with its store.
    async fn holds_duty(&self, name: &str, now: i64) -> bool {
        let config = &self.context.config;
        if !config.bus.is_shared() {
            return true;
        }
        match self
            .context
            .store
            .hold_duty(name, &config.node_id, now, now + config.lease_ms)
            .await
        {
            Ok(held) => held,
            Err(error) => {
                tracing::warn!(duty = name, %error, "cannot tell whether this server holds a duty");
                false
            }
        }
    }

    /// Completes once [`Arena::shutdown`] has begun; long waits (streams, long-polls) end then,
    /// so that the server can finish its open requests.
    pub async fn stopped(&self) {
        self.context.stopped().await;
    }

    /// Stops the arena: background tasks end, every match actor finishes the command at hand
    /// and stops, and then the writer has stored everything acknowledged. Open matches resume
    /// when an arena is started on the same store again.
    pub async fn shutdown(&self) {
        self.context.stopping.send_replace(true);
        self.matches.stop().await;
        // Behind everything queued before it, so durable only once they are: the open
        // matches pass to the other servers sharing the store at once.
        self.matches.release_leases().await;
    }

    /// Completes once the arena's clock reads `at_ms`.
    pub async fn sleep_until(&self, at_ms: i64) {
        self.context.clock.sleep_until(at_ms).await;
    }

    // ----- identities -----

    /// The bot a bearer token belongs to; also marks it as seen.
    pub fn authenticate(&self, secret: &str) -> Result<Bot, ArenaError> {
        self.identities.authenticate(secret)
    }

    /// Whether `secret` is a bot's token or the administrator's, without marking the bot as
    /// seen.
    pub fn knows_token(&self, secret: &str) -> bool {
        self.identities.knows_token(secret)
    }

    /// Whether `secret` is the administrator token.
    pub fn is_admin(&self, secret: &str) -> bool {
        self.identities.is_admin(secret)
    }

    /// Registers a bot (administrator, or an account on the web); returns it and its token,
    /// which is never shown again. The name follows [`names::check_bot_name`] and must not be
    /// too like a taken one; the profile is [checked](BotProfile::checked).
    pub async fn register_bot(
        &self,
        name: &str,
        profile: BotProfile,
    ) -> Result<(Bot, String), ArenaError> {
        self.identities.register_bot(name, profile).await
    }

    /// Mints an anonymous bot for a client at `ip`, optionally labelled, playing the variants
    /// asked for (`None`: every variant); limited per address. A label follows the naming rule
    /// ([`names::check_name`]); the name it makes, `anon:<label>#<id>`, says what the bot is.
    pub async fn mint_anonymous(
        &self,
        ip: IpAddr,
        label: Option<&str>,
        supported_variants: Option<Vec<String>>,
    ) -> Result<(Bot, String), ArenaError> {
        self.identities
            .mint_anonymous(ip, label, supported_variants)
            .await
    }

    /// Registers a bot for a client at `ip` through a door open to anyone (no administrator
    /// token, no account), with its token spelled `spelling`; returns it and its token, which
    /// is never shown again. At most [`ArenaConfig::open_registrations_per_window`] per
    /// address and window; the checks are [`Arena::register_bot`]'s, and a registration they
    /// refuse is not counted.
    pub async fn register_open(
        &self,
        ip: IpAddr,
        name: &str,
        profile: BotProfile,
        spelling: token::Spelling,
    ) -> Result<(Bot, String), ArenaError> {
        self.identities
            .register_open(ip, name, profile, spelling)
            .await
    }

    /// Issues a new token for a bot; the old one stops working at once.
    pub async fn rotate_token(&self, id: BotId) -> Result<(Bot, String), ArenaError> {
        self.identities.rotate_token(id, None).await
    }

    /// Issues a new token for a bot spelled `spelling`, for a door that spells tokens its own
    /// way; the old one stops working at once.
    pub async fn rotate_token_spelled(
        &self,
        id: BotId,
        spelling: token::Spelling,
    ) -> Result<(Bot, String), ArenaError> {
        self.identities.rotate_token(id, Some(spelling)).await
    }

    /// Counts one more match opened by a client at `ip`, for a door that limits openings per
    /// address; refused with [`ArenaError::RateLimited`] beyond
    /// [`ArenaConfig::openings_per_window`] in the window.
    pub fn count_opening(&self, ip: IpAddr) -> Result<(), ArenaError> {
        self.identities.count_opening(ip)
    }

    /// Disables or re-enables a bot (administrator).
    pub async fn set_disabled(&self, id: BotId, disabled: bool) -> Result<Bot, ArenaError> {
        self.identities.set_disabled(id, disabled).await
    }

    /// Deletes a bot (administrator); its matches stay in the history.
    pub async fn delete_bot(&self, id: BotId) -> Result<Bot, ArenaError> {
        self.identities.delete_bot(id).await
    }

    /// Replaces the variants a registered bot offers (administrator; the bot's owner on the
    /// web). Refused for a list [`directory::check_variants`] refuses, and while the bot has
    /// a pending or running match, whose terms were agreed on the old list.
    pub async fn set_supported_variants(
        &self,
        id: BotId,
        variants: &[String],
    ) -> Result<Bot, ArenaError> {
        self.identities.set_supported_variants(id, variants).await
    }

    /// Switches a bot's auto-matching on or off (administrator; the bot's owner on the web).
    pub async fn set_auto_match(&self, id: BotId, enabled: bool) -> Result<Bot, ArenaError> {
        self.identities.set_auto_match(id, enabled).await
    }

    /// Sets how many matches a bot may play at once (`None`: the server's default), from 1
    /// to [`directory::CONCURRENCY_MAX`] (administrator; the bot's owner on the web).
    pub async fn set_concurrency(&self, id: BotId, limit: Option<u32>) -> Result<Bot, ArenaError> {
        self.identities.set_concurrency(id, limit).await
    }

    /// Sets or removes where the server calls a registered bot for its decisions (the bot
    /// itself, or its owner on the web); the server checks the URL.
    pub async fn set_webhook(
        &self,
        id: BotId,
        webhook: Option<directory::Webhook>,
    ) -> Result<Bot, ArenaError> {
        self.identities.set_webhook(id, webhook).await
    }

    /// Makes `id` a bot the server runs from the WebAssembly module `wasm` (already checked by
    /// the caller), to be validated first; it answers over HTTP no more.
    pub async fn set_module(
        &self,
        id: BotId,
        wasm: Vec<u8>,
        settings: directory::Sandboxed,
    ) -> Result<Bot, ArenaError> {
        self.identities.set_module(id, wasm, settings).await
    }

    /// Removes a bot's module: the server runs it no more.
    pub async fn remove_module(&self, id: BotId) -> Result<Bot, ArenaError> {
        self.identities.remove_module(id).await
    }

    /// A bot's module, if it has one.
    pub async fn module(&self, id: BotId) -> Result<Option<Vec<u8>>, ArenaError> {
        self.identities.module(id).await
    }

    /// Records how a bot's module fared in validation, unless another module replaced it
    /// meanwhile (`sha256` names the one validated).
    pub async fn set_module_status(
        &self,
        id: BotId,
        sha256: &str,
        status: directory::ModuleStatus,
    ) -> Result<Bot, ArenaError> {
        self.identities.set_module_status(id, sha256, status).await
    }

    /// Whether this server does the job `name` now, which one server at a time does among
    /// those sharing the store (held for a lease's length and renewed by asking again):
    /// always, for a server alone with its store.
    pub async fn takes_duty(&self, name: &str) -> bool {
        self.holds_duty(name, self.now()).await
    }

    /// Replaces a bot's picture with `png`, which the caller has decoded and re-encoded.
    pub async fn set_photo(&self, id: BotId, png: Vec<u8>) -> Result<Bot, ArenaError> {
        self.identities.set_photo(id, png).await
    }

    /// A bot's picture as PNG, if it has one.
    pub async fn photo(&self, id: BotId) -> Result<Option<Vec<u8>>, ArenaError> {
        self.identities.photo(id).await
    }

    /// Records a bot's environment report, replacing its previous one entirely, and returns
    /// the bot with it. The report is checked first (see [`Environment::checked`]); a refused
    /// one changes nothing. Reports are kept in memory only.
    pub fn report_environment(&self, bot: &Bot, report: Environment) -> Result<Bot, ArenaError> {
        self.identities.report_environment(bot, report)
    }

    /// A bot by name, or by id written in decimal.
    pub fn find_bot(&self, name_or_id: &str) -> Result<Bot, ArenaError> {
        self.identities.find_bot(name_or_id)
    }

    /// Every bot, with whether it is connected now (people playing from the pages are not
    /// bots and are left out).
    pub fn list_bots(&self) -> Vec<(Bot, bool)> {
        self.identities.list_bots()
    }

    /// Whether a bot is connected now.
    pub fn is_online(&self, id: BotId) -> bool {
        self.identities.is_online(id)
    }

    // ----- challenges and matches -----

    /// Creates a challenge from `from`. A challenge to a house bot starts at once; so does a
    /// challenge to oneself, which is an unrated self-play match.
    pub async fn challenge(
        &self,
        from: &Bot,
        request: ChallengeRequest,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches
            .challenge(from, request, &[], SeatChoice::First)
            .await
    }

    /// Creates a challenge from `from` to `request.opponent` and every bot named in `more`:
    /// a match with one seat each, which starts once each of them has accepted (any refusal
    /// or expiry cancels it). A rated match of more than two rates every participant by its
    /// place, in the mode's system (see [`arbiter_rating::rate_match`]).
    pub async fn challenge_several(
        &self,
        from: &Bot,
        request: ChallengeRequest,
        more: &[String],
    ) -> Result<MatchSummary, ArenaError> {
        self.matches
            .challenge(from, request, more, SeatChoice::First)
            .await
    }

    /// Accepts a challenge, adding the bot's `client_seed` (entropy of its own, mixed into
    /// every draw of the match) if it gives one; a variant either bot no longer plays is
    /// refused, and practice makes the match unrated.
    pub async fn accept(
        &self,
        bot: &Bot,
        id: MatchId,
        client_seed: Option<&str>,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches.accept(bot, id, client_seed).await
    }

    /// Declines (the challenged bot) or cancels (the challenger) a challenge.
    pub async fn decline(
        &self,
        bot: &Bot,
        id: MatchId,
        cancel: bool,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches.decline(bot, id, cancel).await
    }

    /// Plays a move.
    pub async fn submit(
        &self,
        bot: &Bot,
        id: MatchId,
        leg: u8,
        revision: u64,
        submitted: Value,
    ) -> Result<MoveReply, ArenaError> {
        self.matches
            .submit(bot, id, leg, revision, submitted, None)
            .await
    }

    /// Resigns a match.
    pub async fn resign(&self, bot: &Bot, id: MatchId) -> Result<MatchSummary, ArenaError> {
        self.matches.resign(bot, id).await
    }

    /// Aborts a running match without a result, which a participant may do until every
    /// participant has moved in it.
    pub async fn abort(&self, bot: &Bot, id: MatchId) -> Result<MatchSummary, ArenaError> {
        self.matches.abort(bot, id).await
    }

    /// Says a chat line in a match, to its players or to everyone watching it (see
    /// [`ChatRoom`]).
    pub async fn say(
        &self,
        bot: &Bot,
        id: MatchId,
        room: ChatRoom,
        text: &str,
    ) -> Result<(), ArenaError> {
        self.matches.say(bot, id, room, text).await
    }

    /// Creates a challenge from `from`, who takes the seat `seat` says in the first leg.
    pub async fn challenge_seated(
        &self,
        from: &Bot,
        request: ChallengeRequest,
        seat: SeatChoice,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches.challenge(from, request, &[], seat).await
    }

    /// Who a bot is in a match: the participants it plays.
    pub fn reader_for(&self, id: MatchId, bot: Option<&Bot>) -> Reader {
        self.matches.reader_for(id, bot)
    }

    /// A match's state as `reader` may see it.
    pub async fn snapshot(&self, id: MatchId, reader: Reader) -> Result<MatchSnapshot, ArenaError> {
        self.matches.snapshot(id, reader, true).await
    }

    /// A match's summary: its legs' movers, revisions and clocks, and no view, which makes it
    /// the cheapest read of whose move it is.
    pub async fn summary(&self, id: MatchId) -> Result<MatchSummary, ArenaError> {
        self.matches.summary(id).await
    }

    /// A match's state as `reader` may see it, without its pending decisions (`turns` is
    /// `None`): for readers that tell whose turn it is from the legs, since building the
    /// decisions' requests is most of a snapshot's cost.
    pub async fn snapshot_without_turns(
        &self,
        id: MatchId,
        reader: Reader,
    ) -> Result<MatchSnapshot, ArenaError> {
        self.matches.snapshot(id, reader, false).await
    }

    /// The events after `since` that `reader` may see; waits up to `wait_ms` for one.
    pub async fn events(
        &self,
        id: MatchId,
        reader: Reader,
        since: i64,
        wait_ms: i64,
    ) -> Result<EventPage, ArenaError> {
        self.matches.events(id, reader, since, wait_ms).await
    }

    /// The decisions `bot` has to make in a match; waits up to `wait_ms` for one.
    pub async fn turns(
        &self,
        bot: &Bot,
        id: MatchId,
        wait_ms: i64,
    ) -> Result<DecisionPage, ArenaError> {
        self.matches.turns(bot, id, wait_ms).await
    }

    /// A match's whole event log, with the revealed seed once it has ended.
    pub async fn export(&self, id: MatchId) -> Result<MatchExport, ArenaError> {
        self.matches.export(id).await
    }

    /// A match checked from its export, as `arbiter verify` checks one (see [`verify`]).
    pub async fn verify(&self, id: MatchId) -> Result<Verdict, ArenaError> {
        let export = self.matches.export(id).await?;
        Ok(verify::verify(self.games(), &export))
    }

    /// Every position of one leg of a closed match, from its start to its end, as anyone may
    /// see it; for replays.
    pub async fn positions(&self, id: MatchId, leg: usize) -> Result<Vec<Value>, ArenaError> {
        self.matches.positions(id, leg).await
    }

    /// The challenges and matches a bot is in that are still open.
    pub async fn open_matches_of(&self, bot: BotId) -> Vec<MatchSnapshot> {
        self.matches.open_matches_of(bot).await
    }

    /// The bot's matches that have ended and are still held in memory (up to ten minutes),
    /// most recent first: what a poll shows so that a bot sees how its last matches ended.
    pub fn recently_closed_of(&self, bot: BotId) -> Vec<MatchId> {
        self.matches.recently_closed_of(bot)
    }

    /// Closed matches, newest first (all, or those of `bot`), at most `limit`: id, status,
    /// game, variant, every participant's id, name and kind, rated, creation and end times,
    /// and result.
    pub async fn closed_matches(
        &self,
        bot: Option<BotId>,
        limit: u32,
    ) -> Result<Vec<snapshot::ClosedMatch>, ArenaError> {
        self.matches.closed_matches(bot, limit).await
    }

    /// Adds a note of `kind` about match `id` (and one of its participants, if given) for the
    /// operator alone, durably: notes are never part of a snapshot, an event, a stream or an
    /// export, so a door shows them only to the administrator. At most
    /// [`notes::NOTE_MAX_BYTES`] of JSON.
    pub async fn add_note(
        &self,
        id: MatchId,
        participant: Option<u8>,
        kind: &str,
        data: Value,
    ) -> Result<(), ArenaError> {
        notes::add(&self.context, id, participant, kind, data).await
    }

    /// The operator's notes about match `id`, in the order they were added.
    pub async fn notes(&self, id: MatchId) -> Result<Vec<NoteRecord>, ArenaError> {
        notes::of(&self.context, id).await
    }

    /// Every running match as a spectator sees it, newest first, at most `limit`.
    pub async fn running_matches(&self, limit: usize) -> Vec<MatchSnapshot> {
        self.matches.running_matches(limit).await
    }

    // ----- tables -----

    /// Opens a table at which `from` takes the first seat; other bots join it, and the match
    /// starts when the last seat is taken. Tables are unrated: who will sit at them is not
    /// known when they open.
    pub async fn open_table(
        &self,
        from: &Bot,
        request: TableRequest,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches
            .open_table(from, request, TableTerms::default())
            .await
    }

    /// `bot` takes a seat at table `id`, with its `client_seed` if it gives one; the match
    /// starts when the last seat is taken.
    pub async fn join_table(
        &self,
        bot: &Bot,
        id: MatchId,
        client_seed: Option<&str>,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches.join_table(bot, id, None, client_seed).await
    }

    /// Starts table `id` now, its free seats taken by the house bot of the game's table
    /// level ([`HouseLevel::TABLE`]), one bot in as many seats as are free. Only the person
    /// who opened the table may, and only where the game has a house player: a table opened
    /// by a bot waits for its seats as it was told to. Each seat taken is stored as any join
    /// is, so replays and restarts see an ordinary table.
    pub async fn fill_table_with_house(
        &self,
        by: &Bot,
        id: MatchId,
    ) -> Result<MatchSummary, ArenaError> {
        let name = format!("{}{}", directory::HOUSE_PREFIX, HouseLevel::TABLE.name());
        let house = self.identities.find_bot(&name)?;
        self.matches.fill_table(by, id, house).await
    }

    /// The open tables with a free seat, newest first, at most `limit`.
    pub async fn open_tables(&self, limit: usize) -> Vec<MatchSnapshot> {
        self.matches.open_tables(limit).await
    }

    /// The lobby's revision on this server: it moves whenever a match opens (a table or a
    /// challenge), a table gains a seat, or a match starts or ends, so that lists of open
    /// tables and live matches know when to be read again. Wait on it with `changed()`.
    pub fn lobby_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.matches.lobby()
    }

    // ----- streams -----

    /// Opens an event stream for a bot; the first events re-send its pending challenges and
    /// running matches (with any pending decisions). With `snapshots`, each event about a
    /// match carries the match as the bot sees it, for dialects that send the whole match on
    /// every change.
    pub async fn open_stream(&self, bot: &Bot, snapshots: bool) -> Result<BotStream, ArenaError> {
        self.matches.open_stream(bot, snapshots).await
    }

    // ----- ratings -----

    /// Every bot's rating in a game mode, best first, deleted bots left out. An unknown game
    /// or variant is refused rather than answered with an empty board.
    pub async fn standings(&self, game: &str, variant: &str) -> Result<Vec<Standing>, ArenaError> {
        self.ratings.standings(game, variant).await
    }

    /// How a game mode's results are rated: by Weng-Lin where its variant seats more than
    /// two, by Glicko-2 otherwise.
    pub fn rating_system(&self, mode: Mode) -> RatingSystem {
        self.ratings.system(&mode.to_string())
    }

    /// The leaderboard of a game mode as the API shows it: `{"mode", "system", "entries"}`,
    /// each entry a rating with its `bot` and `rank`.
    pub async fn leaderboard(&self, game: &str, variant: &str) -> Result<Value, ArenaError> {
        self.ratings.leaderboard(game, variant).await
    }

    /// A bot's ratings, by game mode (`game:variant`), in the modes it has been rated in.
    pub async fn ratings_of(&self, bot: BotId) -> Value {
        self.ratings.ratings_of(bot).await
    }

    /// Every bot's record (rated games, wins, losses, draws) summed over every mode of
    /// `games`, for the bots rated in any of them; deleted bots included, for the caller to
    /// leave out.
    pub async fn tallies(&self, games: &[&str]) -> std::collections::HashMap<BotId, Tally> {
        self.ratings.tallies(games).await
    }

    /// One bot's record summed over every mode of `games` (all zero where it has not played).
    pub async fn tally_of(&self, bot: BotId, games: &[&str]) -> Tally {
        self.ratings.tally_of(bot, games).await
    }

    // ----- accounts -----

    /// Creates an account and signs it in; returns the account and the session cookie's
    /// value, which exists only in this reply.
    pub async fn sign_up(
        &self,
        name: &str,
        password: &str,
    ) -> Result<(Account, String), ArenaError> {
        self.accounts.sign_up(name, password).await
    }

    /// Signs in with a name and password from `client`; returns the account and a new
    /// session cookie's value. Failures are counted per name and per address, and beyond
    /// the limit sign-ins are refused for a while, right password or not.
    pub async fn sign_in(
        &self,
        name: &str,
        password: &str,
        client: IpAddr,
    ) -> Result<(Account, String), ArenaError> {
        self.accounts.sign_in(name, password, client).await
    }

    /// The account a session cookie's value belongs to, while the session lasts.
    pub fn session(&self, secret: &str) -> Option<Account> {
        self.accounts.session(secret)
    }

    /// Ends a session; the cookie stops working at once.
    pub async fn sign_out(&self, secret: &str) -> Result<(), ArenaError> {
        self.accounts.sign_out(secret).await
    }

    /// Changes an account's password once its current one is given again (counted like a
    /// sign-in), and ends every other session of the account; the session `kept` (the
    /// cookie's value of the browser that asked) stays signed in.
    pub async fn change_password(
        &self,
        account: &Account,
        current: &str,
        new: &str,
        kept: &str,
        client: IpAddr,
    ) -> Result<(), ArenaError> {
        self.accounts
            .change_password(account, current, new, kept, client)
            .await
    }

    /// Ends every session of an account, the asking browser's too, once its password is
    /// given again (counted like a sign-in).
    pub async fn sign_out_everywhere(
        &self,
        account: &Account,
        password: &str,
        client: IpAddr,
    ) -> Result<(), ArenaError> {
        self.accounts
            .sign_out_everywhere(account, password, client)
            .await
    }

    /// Deletes an account once its password is given again (counted like a sign-in), with
    /// its bots; the person's games stay in the history under `@deleted-{id}`. Refused while
    /// the person has a pending or running game.
    pub async fn delete_account(
        &self,
        account: &Account,
        password: &str,
        client: IpAddr,
    ) -> Result<(), ArenaError> {
        self.accounts
            .delete_account(account, password, client)
            .await
    }

    /// An account by id.
    pub fn account(&self, id: AccountId) -> Option<Account> {
        self.accounts.account(id)
    }

    /// Registers a bot owned by `account`; returns it and its token, shown only now.
    pub async fn register_bot_for(
        &self,
        account: &Account,
        name: &str,
        variants: Vec<String>,
    ) -> Result<(Bot, String), ArenaError> {
        self.accounts
            .register_bot_for(account, name, variants)
            .await
    }

    /// The bots `account` owns, deleted ones left out, with whether each is online.
    pub fn bots_of(&self, account: &Account) -> Vec<(Bot, bool)> {
        self.accounts.bots_of(account)
    }

    /// The bot named `name` if `account` owns it.
    pub fn owned_bot(&self, account: &Account, name: &str) -> Result<Bot, ArenaError> {
        self.accounts.owned_bot(account, name)
    }

    // ----- people -----

    /// The participant `account` plays as, if it has played.
    pub fn find_person(&self, account: &Account) -> Option<Bot> {
        self.people.find_person(account)
    }

    /// The participant `account` plays as, created the first time.
    pub async fn person_of(&self, account: &Account) -> Result<Bot, ArenaError> {
        self.people.person_of(account).await
    }

    /// The guest a cookie's value names, if that guest exists.
    pub fn guest(&self, secret: &str) -> Option<Bot> {
        self.people.guest(secret)
    }

    /// A new guest for a client at `ip` and the cookie value that names it, which exists
    /// only in this reply. Guests count toward the same limit per address as anonymous bots.
    pub async fn new_guest(&self, ip: IpAddr) -> Result<(Bot, String), ArenaError> {
        self.people.new_guest(ip).await
    }

    /// A person challenges a bot to a one-leg unrated game: a house bot starts at once, a
    /// registered bot must be online and accept like any challenge.
    pub async fn challenge_as_person(
        &self,
        person: &Bot,
        challenge: PersonChallenge,
    ) -> Result<MatchSummary, ArenaError> {
        self.people.challenge_as_person(person, challenge).await
    }

    /// The bot a person's quick match is played against: the median-rated of the registered
    /// bots auto-matching could pair now, else the house bot auto-matching falls back on.
    pub async fn quick_opponent(&self) -> Result<Bot, ArenaError> {
        self.people.quick_opponent().await
    }

    /// A person's quick match: one unrated game of the default mode against
    /// [`Arena::quick_opponent`], started at once against a house bot and offered like any
    /// challenge to a registered bot.
    pub async fn quick_match(
        &self,
        person: &Bot,
        quick: QuickMatch,
    ) -> Result<MatchSummary, ArenaError> {
        self.people.quick_match(person, quick).await
    }

    // ----- tournaments -----

    /// Creates a tournament, open for entries, run by `by`.
    pub async fn create_tournament(
        &self,
        by: Organiser,
        request: TournamentRequest,
    ) -> Result<Tournament, ArenaError> {
        self.tournaments.create(by, request).await
    }

    /// Every tournament, newest first, without the seeds of rounds under way.
    pub async fn tournaments(&self) -> Result<Vec<Tournament>, ArenaError> {
        self.tournaments.list().await
    }

    /// One tournament, without the seeds of rounds under way.
    pub async fn tournament(&self, id: i64) -> Result<Tournament, ArenaError> {
        self.tournaments.get(id).await
    }

    /// `bot` (a registered bot, or a person where the organiser allows people) enters a
    /// tournament: before it starts, or at any time before an arena ends.
    pub async fn enter_tournament(&self, bot: &Bot, id: i64) -> Result<Tournament, ArenaError> {
        self.tournaments.enter(bot, id).await
    }

    /// `bot` withdraws from a tournament: before the start its entry is taken back; after, it
    /// is paired no more (forfeiting its later round-robin games) and a game of it under way
    /// is resigned.
    pub async fn withdraw_from_tournament(
        &self,
        bot: &Bot,
        id: i64,
    ) -> Result<Tournament, ArenaError> {
        self.tournaments.withdraw(bot, id).await
    }

    /// The organiser enters the house bot `name` in a tournament.
    pub async fn enter_house_bot(
        &self,
        by: Organiser,
        id: i64,
        name: &str,
    ) -> Result<Tournament, ArenaError> {
        self.tournaments.enter_house(by, id, name).await
    }

    /// The organiser withdraws the entrant `name` from a tournament.
    pub async fn withdraw_entrant(
        &self,
        by: Organiser,
        id: i64,
        name: &str,
    ) -> Result<Tournament, ArenaError> {
        self.tournaments.withdraw_entrant(by, id, name).await
    }

    /// The organiser starts, pauses or resumes a tournament.
    pub async fn control_tournament(
        &self,
        by: Organiser,
        id: i64,
        action: TournamentAction,
    ) -> Result<Tournament, ArenaError> {
        self.tournaments.control(by, id, action).await
    }

    /// Drives every running tournament once, as the heartbeat does: results of ended games
    /// recorded, rounds ended and their seeds revealed, next rounds paired.
    pub async fn drive_tournaments(&self) {
        self.tournaments.drive().await;
    }
}
