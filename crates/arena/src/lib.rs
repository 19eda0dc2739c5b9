//! The arena: where bots meet and matches are played.
//!
//! Each open match is owned by one task (an actor) that processes its commands in order:
//! validate → persist → apply → publish → reply. Its rules of play (clocks, challenge expiry,
//! the first-move and disconnect rules, flag falls, idempotent re-sends) are plain functions
//! of the time in the private `live` module, and time comes from an injected [`Clock`], so
//! every timeout can be tested without sleeping. Writes go through the store's group-commit
//! [`Writer`]; nothing is acknowledged before it is durable.
//!
//! The arena knows no HTTP: the server crate translates requests into calls on [`Arena`].

mod accounts;
mod actor;
mod automatch;
pub mod clock;
pub mod config;
pub mod directory;
mod error;
pub mod feed;
mod humans;
mod live;
pub mod log;
pub mod names;
mod ratings;
mod tables;
pub mod token;

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use arbiter_fair::ServerSeed;
use arbiter_store::{BotId, BotRecord, MatchId, MatchRecord, MatchStatus, Store, Write, Writer};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

pub use accounts::{Account, PASSWORD_MIN, SESSION_MS};
pub use arbiter_plugin::{Family, Format, Games, HouseLevel, Mode, Opening};
pub use arbiter_store::BotKind;
pub use clock::{Clock, ManualClock, SystemClock, utc_datetime};
pub use config::{ArenaConfig, TimeControl};
pub use directory::{Bot, BotProfile, Environment};
pub use error::{ArenaError, ErrorClass};
pub use humans::{PERSON_PREFIX, PersonChallenge, QuickMatch, ROOM_ROUND};
pub use live::{MoveReply, SeatChoice};
pub use log::{Participants, Reader};
pub use names::{BOT_NAME_RULE, NAME_MAX_CHARS, NAME_MIN_CHARS, NAME_RULE};
pub use tables::TableRequest;

use actor::{Actor, Command};
use directory::{ANONYMOUS_PREFIX, Directory, HOUSE_PREFIX};
use feed::{Feeds, Line, Subscription};
use log::MatchLog;

/// One line of a leaderboard.
#[derive(Clone, Debug)]
pub struct Standing {
    /// The place, 1 for the best.
    pub rank: usize,
    /// The bot.
    pub bot: Bot,
    /// Its rating in the leaderboard's game mode.
    pub rating: arbiter_rating::Rating,
    /// Whether it has played too few rated games for the rating to be official.
    pub provisional: bool,
}

/// Who a challenge is for, and on what terms.
#[derive(Clone, Debug)]
pub struct ChallengeRequest {
    /// The opponent's name, or its id as a decimal string.
    pub opponent: String,
    /// The game, one of the registered families.
    pub game: String,
    /// The variant; the game's default when `None`.
    pub variant: Option<String>,
    /// One leg or two.
    pub format: Format,
    /// Clocks.
    pub time_control: TimeControl,
    /// Whether the result should count for ratings (only between registered bots, and never
    /// while either bot reports practice).
    pub rated: bool,
    /// Whether auto-matching makes it (shown on the match; only the arena sets it).
    pub auto: bool,
    /// Where the legs start from.
    pub opening: Opening,
}

/// The channels of one match, for the arena's bookkeeping.
struct Handle {
    commands: mpsc::Sender<Command>,
    log: Arc<MatchLog>,
    /// The participants' bots, in participant order.
    bots: Arc<[BotId]>,
    /// Whether the match has closed (it is then in [`Shared::closed`]).
    closed: bool,
}

/// A match's command queue, log and participants' bots, as [`Shared::handle`] gives them.
type MatchChannels = (mpsc::Sender<Command>, Arc<MatchLog>, Arc<[BotId]>);

/// State shared by the arena facade and every match actor.
pub(crate) struct Shared {
    pub(crate) config: ArenaConfig,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) store: Arc<dyn Store>,
    pub(crate) writer: Writer,
    pub(crate) directory: Directory,
    pub(crate) feeds: Feeds,
    pub(crate) ratings: ratings::Ratings,
    pub(crate) accounts: accounts::Accounts,
    automatch: Mutex<automatch::AutoMatch>,
    /// The game families this arena runs.
    games: Games,
    matches: RwLock<HashMap<MatchId, Handle>>,
    /// Closed matches still in memory, with when they closed, longest closed first.
    closed: Mutex<VecDeque<(i64, MatchId)>>,
    /// Each bot's open matches and their status.
    open: Mutex<HashMap<BotId, HashMap<MatchId, MatchStatus>>>,
    /// Running variant matches against house bots.
    house_variants: Mutex<HashSet<MatchId>>,
    next_match: AtomicI64,
    mints: Mutex<HashMap<IpAddr, VecDeque<i64>>>,
    admin_hash: Option<String>,
    /// Set when the arena shuts down; background tasks and match actors stop.
    pub(crate) stopping: tokio::sync::watch::Sender<bool>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The guarded maps stay consistent even if a holder panicked.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Every variant of every game the arena runs.
    fn known_variants(&self) -> Vec<&'static str> {
        self.games.variant_names()
    }

    /// Every key a bot may list what it plays by (see [`Games::keys`]).
    fn known_keys(&self) -> Vec<String> {
        self.games.keys()
    }

    /// The mode auto-matching and quick matches play, and whose variant a bot that lists no
    /// variants offers: the first registered family's default.
    pub(crate) fn default_mode(&self) -> Result<Mode, ArenaError> {
        self.games
            .default_mode()
            .ok_or_else(|| ArenaError::UnsupportedVariant("this server runs no game".to_owned()))
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
        {
            let mut open = lock(&self.open);
            for bot in bots {
                let entry = open.entry(*bot).or_default();
                if status.is_open() {
                    entry.insert(id, status);
                } else {
                    entry.remove(&id);
                }
            }
        }
        if !status.is_open() {
            let newly_closed = self
                .matches
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get_mut(&id)
                .is_some_and(|handle| !std::mem::replace(&mut handle.closed, true));
            if newly_closed {
                let now = self.clock.now_ms();
                lock(&self.closed).push_back((now, id));
                self.retire_closed(now);
            }
        }
        let mut house_variants = lock(&self.house_variants);
        let default_variant = self.default_mode().map_or("", |mode| mode.variant);
        if house && variant != default_variant && status == MatchStatus::Running {
            house_variants.insert(id);
        } else {
            house_variants.remove(&id);
        }
    }

    /// Records the participants of a match that gained one (an open table): its handle and
    /// each bot's open matches list them.
    pub(crate) fn note_participants(&self, id: MatchId, bots: &[BotId], status: MatchStatus) {
        if let Some(handle) = self
            .matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_mut(&id)
        {
            handle.bots = bots.iter().copied().collect();
        }
        if status.is_open() {
            let mut open = lock(&self.open);
            for bot in bots {
                open.entry(*bot).or_default().insert(id, status);
            }
        }
    }

    /// Retires closed matches from memory, longest closed first, while there are more than
    /// the configured number or they closed longer ago than the retention; they are served
    /// from the store from then on.
    fn retire_closed(&self, now: i64) {
        let retired: Vec<MatchId> = {
            let mut closed = lock(&self.closed);
            let mut retired = Vec::new();
            while let Some(&(closed_ms, id)) = closed.front() {
                if closed.len() <= self.config.closed_in_memory
                    && now - closed_ms < self.config.closed_retention_ms
                {
                    break;
                }
                closed.pop_front();
                retired.push(id);
            }
            retired
        };
        self.retire(retired);
    }

    /// Retires from memory every closed match `bot` played, so that they are served from the
    /// store from then on, with the bot as it now is.
    pub(crate) fn retire_closed_of(&self, bot: BotId) {
        let played: Vec<MatchId> = self
            .matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(_, handle)| handle.closed && handle.bots.contains(&bot))
            .map(|(id, _)| *id)
            .collect();
        lock(&self.closed).retain(|(_, id)| !played.contains(id));
        self.retire(played);
    }

    /// Stops the actors of closed matches and forgets them.
    fn retire(&self, ids: Vec<MatchId>) {
        for id in ids {
            let handle = self
                .matches
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&id);
            if let Some(handle) = handle {
                let _ = handle.commands.try_send(Command::Retire);
            }
        }
    }

    fn running_count(&self, bot: BotId) -> usize {
        lock(&self.open).get(&bot).map_or(0, |m| {
            m.values().filter(|s| **s == MatchStatus::Running).count()
        })
    }

    fn pending_sent(&self, bot: BotId) -> usize {
        lock(&self.open).get(&bot).map_or(0, |m| {
            m.values().filter(|s| **s == MatchStatus::Pending).count()
        })
    }

    fn handle(&self, id: MatchId) -> Option<MatchChannels> {
        let matches = self
            .matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        matches
            .get(&id)
            .map(|h| (h.commands.clone(), h.log.clone(), h.bots.clone()))
    }

    fn family(&self, game: &str) -> Result<&'static Family, ArenaError> {
        self.games
            .get(game)
            .ok_or_else(|| ArenaError::UnsupportedVariant(format!("unknown game {game:?}")))
    }

    /// Tells the matches of `bot` that its presence changed.
    fn presence_changed(&self, bot: BotId) {
        let ids: Vec<MatchId> = lock(&self.open)
            .get(&bot)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        for id in ids {
            if let Some((commands, _, _)) = self.handle(id) {
                let _ = commands.try_send(Command::Presence);
            }
        }
    }
}

/// The arena facade: every operation the API needs.
#[derive(Clone)]
pub struct Arena {
    shared: Arc<Shared>,
}

/// Commands a match actor may queue before senders wait.
const COMMAND_QUEUE: usize = 256;

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
        let ids = store.max_ids().await?;
        let bots = store.bots().await?;
        let last_heartbeat = store.last_heartbeat().await?;
        let open_matches = store.open_matches().await?;
        let ratings = ratings::Ratings::load(store.ratings().await?);
        let accounts = accounts::Accounts::new(
            store.accounts().await?,
            store.sessions(clock.now_ms()).await?,
            ids.account,
        );
        let (writer, _writer_task) = Writer::start(store.clone());
        let shared = Arc::new(Shared {
            directory: Directory::new(
                bots,
                config.presence_ms,
                games.default_mode().map_or("", |mode| mode.variant),
            ),
            config,
            clock,
            store,
            writer,
            feeds: Feeds::default(),
            ratings,
            accounts,
            automatch: Mutex::default(),
            games,
            matches: RwLock::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
            house_variants: Mutex::new(HashSet::new()),
            closed: Mutex::new(VecDeque::new()),
            next_match: AtomicI64::new(ids.r#match),
            mints: Mutex::new(HashMap::new()),
            admin_hash: admin_token.filter(|t| !t.is_empty()).map(token::hash),
            stopping: tokio::sync::watch::channel(false).0,
        });
        let arena = Arena { shared };
        arena.ensure_house_bots().await?;
        arena.resume(open_matches, last_heartbeat).await?;
        arena.spawn_background();
        Ok(arena)
    }

    fn now(&self) -> i64 {
        self.shared.clock.now_ms()
    }

    /// The arena's configuration.
    pub fn config(&self) -> &ArenaConfig {
        &self.shared.config
    }

    /// The game families the arena runs.
    pub fn games(&self) -> &Games {
        &self.shared.games
    }

    /// How many matches are held in memory: the open ones and the recently closed ones.
    pub fn matches_in_memory(&self) -> usize {
        self.shared
            .matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    /// The arena's current time.
    pub fn now_ms(&self) -> i64 {
        self.now()
    }

    async fn ensure_house_bots(&self) -> Result<(), ArenaError> {
        for level in HouseLevel::ALL {
            let name = format!("{HOUSE_PREFIX}{}", level.name());
            if self.shared.directory.by_name(&name).is_some() {
                continue;
            }
            let profile = BotProfile {
                house_level: Some(level.name().to_owned()),
                ..BotProfile::default()
            };
            let record = BotRecord {
                id: self.shared.directory.next_id(),
                name,
                kind: BotKind::House,
                token_hash: None,
                token_prefix: None,
                created_ms: self.now(),
                last_seen_ms: self.now(),
                disabled: false,
                deleted: false,
                profile: serde_json::to_value(&profile).unwrap_or_default(),
            };
            self.shared
                .writer
                .write(vec![Write::PutBot(record.clone())])
                .await?;
            self.shared.directory.put(record);
        }
        Ok(())
    }

    async fn resume(
        &self,
        open: Vec<MatchRecord>,
        last_heartbeat: Option<i64>,
    ) -> Result<(), ArenaError> {
        let now = self.now();
        for record in open {
            let events = self.shared.store.events(record.id, 0, u32::MAX).await?;
            // The server was certainly up at its last heartbeat and at this match's last
            // durable event, whichever came later; only the time after that is an outage.
            // Measuring from the heartbeat alone would hand back the time between a late
            // event and the heartbeat before it, leaving a clock more than it had.
            let alive_until = last_heartbeat.max(events.last().map(|event| event.at_ms));
            let downtime = alive_until.map_or(0, |alive| (now - alive).max(0));
            let setup = self.setup_from(&record)?;
            let mut progress = live::replay(&setup, record.status, &events)?;
            if progress.status == MatchStatus::Running
                && downtime > self.shared.config.outage_abort_ms
            {
                live::abort_technical(&setup, &mut progress, now);
            } else {
                live::shift_time(&mut progress, downtime);
                live::watch_from(&mut progress, now);
                progress.row_changed = true;
            }
            tracing::info!(match_id = record.id, status = ?progress.status, downtime_ms = downtime, "resumed match");
            self.spawn(setup, progress, events, Vec::new());
        }
        Ok(())
    }

    fn setup_from(&self, record: &MatchRecord) -> Result<live::Setup, ArenaError> {
        let bot = |id: BotId| {
            self.shared
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
            family: self.shared.family(&record.game)?,
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
            config: self.shared.config.clone(),
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
        self.shared
            .matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                id,
                Handle {
                    commands: commands.clone(),
                    log: log.clone(),
                    bots: bots.clone(),
                    closed: false,
                },
            );
        let house = setup.bots.iter().any(|b| b.kind == BotKind::House);
        self.shared
            .note_status(id, &bots, progress.status, &setup.variant, house);
        let actor = Actor::new(
            self.shared.clone(),
            setup,
            progress,
            log,
            receiver,
            commands,
        );
        tokio::spawn(actor.run(unpublished));
    }

    fn spawn_background(&self) {
        // The heartbeat: after a restart, the time since the last one is the outage.
        self.every(self.shared.config.heartbeat_ms, |arena, now| async move {
            arena.heartbeat(now).await;
        });
        // Offer idle bots auto-matched games.
        self.every(
            self.shared.config.automatch_interval_ms,
            |arena, now| async move {
                arena.automatch(now).await;
            },
        );
        // Expire idle anonymous bots and retire long-closed matches, once a minute.
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
        let mut stopping = self.shared.stopping.subscribe();
        tokio::spawn(async move {
            loop {
                let now = arena.now();
                round(arena.clone(), now).await;
                tokio::select! {
                    () = arena.shared.clock.sleep_until(now + interval_ms) => {}
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
            .shared
            .writer
            .write(vec![Write::Heartbeat(now)])
            .await
            .is_err()
        {
            tracing::warn!("cannot record the heartbeat");
        }
    }

    /// Completes once [`Arena::shutdown`] has begun; long waits (streams, long-polls) end then,
    /// so that the server can finish its open requests.
    pub async fn stopped(&self) {
        let mut stopping = self.shared.stopping.subscribe();
        // An error means the arena is gone, which is stopped too.
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }

    /// Stops the arena: background tasks end, every match actor finishes the command at hand
    /// and stops, and then the writer has stored everything acknowledged. Open matches resume
    /// when an arena is started on the same store again.
    pub async fn shutdown(&self) {
        self.shared.stopping.send_replace(true);
        let handles: Vec<mpsc::Sender<Command>> = self
            .shared
            .matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
            .map(|(_, h)| h.commands)
            .collect();
        for commands in handles {
            // Waiting for room in the queue means the actor has finished what came before.
            let _ = commands.send(Command::Retire).await;
        }
        // A final no-op write returns once everything queued before it is durable.
        let _ = self.shared.writer.write(Vec::new()).await;
    }

    async fn sweep(&self, now: i64) {
        let idle = self
            .shared
            .directory
            .idle_anonymous(now - self.shared.config.anonymous_idle_ms);
        for id in idle {
            if let Some(mut record) = self.shared.directory.record(id) {
                record.deleted = true;
                if self
                    .shared
                    .writer
                    .write(vec![Write::PutBot(record.clone())])
                    .await
                    .is_ok()
                {
                    self.shared.directory.put(record);
                }
            }
        }
        self.shared.retire_closed(now);
    }

    // ----- identity -----

    /// The bot a bearer token belongs to; also marks it as seen.
    pub fn authenticate(&self, secret: &str) -> Result<Bot, ArenaError> {
        let (bot, came_online) = self.shared.directory.authenticate(secret, self.now())?;
        // A person's cookie is not a bot token.
        if humans::is_person(&bot) {
            return Err(ArenaError::InvalidToken);
        }
        if came_online {
            self.shared.presence_changed(bot.id);
        }
        Ok(bot)
    }

    /// Whether `secret` is a bot's token or the administrator's, without marking the bot as
    /// seen.
    pub fn knows_token(&self, secret: &str) -> bool {
        self.is_admin(secret) || self.shared.directory.knows(secret)
    }

    /// Whether `secret` is the administrator token.
    pub fn is_admin(&self, secret: &str) -> bool {
        self.shared
            .admin_hash
            .as_deref()
            .is_some_and(|hash| token::hashes_match(hash, &token::hash(secret)))
    }

    async fn create(
        &self,
        id: BotId,
        name: String,
        kind: BotKind,
        profile: BotProfile,
    ) -> Result<(Bot, String), ArenaError> {
        let new = token::generate(token::prefix_of(kind))
            .map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        self.shared.directory.reserve_name(&name)?;
        let now = self.now();
        let record = BotRecord {
            id,
            name: name.clone(),
            kind,
            token_hash: Some(new.hash),
            token_prefix: Some(new.display),
            created_ms: now,
            // Never seen until it makes a request or opens a stream.
            last_seen_ms: 0,
            disabled: false,
            deleted: false,
            profile: serde_json::to_value(&profile).unwrap_or_default(),
        };
        let written = self
            .shared
            .writer
            .write(vec![Write::PutBot(record.clone())])
            .await;
        self.shared.directory.release_name(&name);
        written?;
        let id = record.id;
        self.shared.directory.put(record);
        let bot = self
            .shared
            .directory
            .get(id)
            .ok_or(ArenaError::BotNotFound(name))?;
        Ok((bot, new.secret))
    }

    /// Registers a bot (administrator, or an account on the web); returns it and its token,
    /// which is never shown again. The name follows [`names::check_bot_name`] and must not be
    /// too like a taken one; the profile is [checked](BotProfile::checked).
    pub async fn register_bot(
        &self,
        name: &str,
        profile: BotProfile,
    ) -> Result<(Bot, String), ArenaError> {
        let name = names::check_bot_name(name)?;
        let profile = profile.checked(&self.shared.known_keys())?;
        let id = self.shared.directory.next_id();
        self.create(id, name, BotKind::Registered, profile).await
    }

    /// Counts one more identity made for a client at `ip` (an anonymous bot or a guest), or
    /// refuses it beyond the limit per address and window.
    pub(crate) fn count_mint(&self, ip: IpAddr) -> Result<(), ArenaError> {
        let now = self.now();
        let config = &self.shared.config;
        let mut mints = lock(&self.shared.mints);
        let recent = mints.entry(ip).or_default();
        while recent
            .front()
            .is_some_and(|&at| at <= now - config.anonymous_mint_window_ms)
        {
            recent.pop_front();
        }
        if recent.len() >= config.anonymous_mints_per_window {
            let oldest = recent.front().copied().unwrap_or(now);
            let wait_ms = oldest + config.anonymous_mint_window_ms - now;
            return Err(ArenaError::RateLimited {
                retry_after_s: u64::try_from((wait_ms + 999) / 1_000).unwrap_or(1).max(1),
            });
        }
        recent.push_back(now);
        Ok(())
    }

    /// Mints an anonymous bot for a client at `ip`, optionally labelled, playing the variants
    /// asked for (`None`: every variant); limited per address. A label follows the naming rule
    /// ([`names::check_name`]); it cannot pose as anyone, because the name it makes,
    /// `anon:<label>#<id>`, says what the bot is.
    pub async fn mint_anonymous(
        &self,
        ip: IpAddr,
        label: Option<&str>,
        supported_variants: Option<Vec<String>>,
    ) -> Result<(Bot, String), ArenaError> {
        let label = label
            .map(|label| names::check_name(label, "a label"))
            .transpose()?;
        let known = self.shared.known_variants();
        let profile = BotProfile {
            // Anonymous bots are for trying things out: they play every variant unless told.
            supported_variants: supported_variants
                .unwrap_or_else(|| known.iter().map(|v| (*v).to_owned()).collect()),
            ..BotProfile::default()
        }
        .checked(&self.shared.known_keys())?;
        self.count_mint(ip)?;
        // The bot's id makes the name unique; the label only helps people recognise it.
        let id = self.shared.directory.next_id();
        let name = match label {
            None => format!("{ANONYMOUS_PREFIX}{id}"),
            Some(label) => format!("{ANONYMOUS_PREFIX}{label}#{id}"),
        };
        self.create(id, name, BotKind::Anonymous, profile).await
    }

    /// Issues a new token for a bot; the old one stops working at once.
    pub async fn rotate_token(&self, id: BotId) -> Result<(Bot, String), ArenaError> {
        let kind = self
            .shared
            .directory
            .record(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?
            .kind;
        let new = token::generate(token::prefix_of(kind))
            .map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        let (hash, display) = (new.hash, new.display);
        let bot = self
            .update_bot(id, |record| {
                record.token_hash = Some(hash);
                record.token_prefix = Some(display);
            })
            .await?;
        self.end_streams(id);
        Ok((bot, new.secret))
    }

    /// Disables or re-enables a bot (administrator).
    pub async fn set_disabled(&self, id: BotId, disabled: bool) -> Result<Bot, ArenaError> {
        let bot = self
            .update_bot(id, |record| record.disabled = disabled)
            .await?;
        self.end_streams(id);
        Ok(bot)
    }

    /// Deletes a bot (administrator); its matches stay in the history.
    pub async fn delete_bot(&self, id: BotId) -> Result<Bot, ArenaError> {
        let bot = self
            .update_bot(id, |record| {
                record.deleted = true;
                record.token_hash = None;
            })
            .await?;
        self.end_streams(id);
        Ok(bot)
    }

    /// Replaces the variants a registered bot offers (administrator; the bot's owner on the
    /// web). Refused for a list [`directory::check_variants`] refuses, and while the bot has
    /// a pending or running match, whose terms were agreed on the old list.
    pub async fn set_supported_variants(
        &self,
        id: BotId,
        variants: &[String],
    ) -> Result<Bot, ArenaError> {
        let list = directory::check_variants(variants, &self.shared.known_keys())?;
        let bot = self
            .shared
            .directory
            .get(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?;
        let busy = lock(&self.shared.open)
            .get(&id)
            .is_some_and(|matches| !matches.is_empty());
        if busy {
            return Err(ArenaError::HasOpenMatches(bot.name));
        }
        self.update_profile(id, |profile| profile.supported_variants = list)
            .await
    }

    /// Switches a bot's auto-matching on or off (administrator; the bot's owner on the web).
    pub async fn set_auto_match(&self, id: BotId, enabled: bool) -> Result<Bot, ArenaError> {
        self.update_profile(id, |profile| profile.auto_match_off = !enabled)
            .await
    }

    /// Sets how many matches a bot may play at once (`None`: the server's default), from 1
    /// to [`directory::CONCURRENCY_MAX`] (administrator; the bot's owner on the web).
    pub async fn set_concurrency(&self, id: BotId, limit: Option<u32>) -> Result<Bot, ArenaError> {
        directory::check_concurrency(limit)?;
        self.update_profile(id, |profile| profile.concurrency = limit)
            .await
    }

    /// Replaces a bot's picture with `png`, which the caller has decoded and re-encoded.
    pub async fn set_photo(&self, id: BotId, png: Vec<u8>) -> Result<Bot, ArenaError> {
        let now = self.now();
        let photo = arbiter_store::PhotoRecord {
            bot: id,
            png,
            updated_ms: now,
        };
        let with = vec![Write::PutPhoto(Arc::new(photo))];
        self.update_bot_with(id, with, |record| {
            let mut profile: BotProfile =
                serde_json::from_value(record.profile.clone()).unwrap_or_default();
            profile.photo_ms = Some(now);
            record.profile = serde_json::to_value(&profile).unwrap_or(Value::Null);
        })
        .await
    }

    /// A bot's picture as PNG, if it has one.
    pub async fn photo(&self, id: BotId) -> Result<Option<Vec<u8>>, ArenaError> {
        Ok(self.shared.store.photo(id).await?.map(|p| p.png))
    }

    /// Closed matches, newest first (all, or those of `bot`), at most `limit`: id, status,
    /// game, variant, both bots' ids, names and kinds, rated, creation and end times, and
    /// result.
    pub async fn closed_matches(
        &self,
        bot: Option<BotId>,
        limit: u32,
    ) -> Result<Vec<Value>, ArenaError> {
        let records = self.shared.store.closed_matches(bot, limit).await?;
        let who = |id: BotId| {
            let bot = self.shared.directory.get(id);
            json!({"id": id, "name": bot.as_ref().map(|b| &b.name), "kind": bot.map(|b| b.kind)})
        };
        records
            .iter()
            .map(|m| {
                let d = &m.details;
                let bots = participants(m)?;
                let mut listed = json!({
                    "id": m.id,
                    "status": m.status,
                    "game": m.game,
                    "variant": d["variant"],
                    "rated": d["rated"],
                    "bot_a": who(bots[0]),
                    "bot_b": who(bots[1]),
                    "created_ms": m.created_ms,
                    "ended_ms": d["ended_ms"],
                    "result": d["result"],
                });
                if bots.len() > 2 {
                    listed["participants"] = bots
                        .iter()
                        .enumerate()
                        .map(|(i, &id)| {
                            let mut bot = who(id);
                            bot["participant"] = json!(i);
                            bot
                        })
                        .collect();
                }
                Ok(listed)
            })
            .collect()
    }

    /// Every running match as a spectator sees it, newest first, at most `limit`.
    pub async fn running_matches(&self, limit: usize) -> Vec<Value> {
        let mut ids: Vec<MatchId> = lock(&self.shared.open)
            .values()
            .flat_map(|m| m.iter())
            .filter(|(_, status)| **status == MatchStatus::Running)
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.dedup();
        let mut out = Vec::new();
        for id in ids.into_iter().take(limit) {
            if let Ok(snapshot) = self.snapshot(id, Reader::SPECTATOR).await {
                out.push(snapshot);
            }
        }
        out
    }

    async fn update_profile(
        &self,
        id: BotId,
        change: impl FnOnce(&mut BotProfile),
    ) -> Result<Bot, ArenaError> {
        self.update_bot(id, |record| {
            let mut profile: BotProfile =
                serde_json::from_value(record.profile.clone()).unwrap_or_default();
            change(&mut profile);
            record.profile = serde_json::to_value(&profile).unwrap_or(Value::Null);
        })
        .await
    }

    /// Ends a bot's open streams after its credentials changed: a stream authenticated with
    /// an old token, or by a bot now disabled or deleted, must not outlive them; its client
    /// has to connect again with valid credentials.
    fn end_streams(&self, id: BotId) {
        self.shared.feeds.close(id);
    }

    async fn update_bot(
        &self,
        id: BotId,
        change: impl FnOnce(&mut BotRecord),
    ) -> Result<Bot, ArenaError> {
        self.update_bot_with(id, Vec::new(), change).await
    }

    /// Changes a bot's record, storing it in one batch with the writes `with`.
    async fn update_bot_with(
        &self,
        id: BotId,
        mut with: Vec<Write>,
        change: impl FnOnce(&mut BotRecord),
    ) -> Result<Bot, ArenaError> {
        let mut record = self
            .shared
            .directory
            .record(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?;
        if record.kind == BotKind::House {
            return Err(ArenaError::InvalidRequest(
                "house bots cannot be changed".to_owned(),
            ));
        }
        change(&mut record);
        with.push(Write::PutBot(record.clone()));
        self.shared.writer.write(with).await?;
        self.shared.directory.put(record);
        self.shared
            .directory
            .get(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))
    }

    /// Every bot's rating in a game mode, best first, deleted bots left out. An unknown game
    /// or variant is refused rather than answered with an empty board.
    pub async fn standings(&self, game: &str, variant: &str) -> Result<Vec<Standing>, ArenaError> {
        let mode = self
            .shared
            .games
            .mode(game, Some(variant))
            .map_err(|e| ArenaError::InvalidRequest(e.0))?
            .to_string();
        let board = self.shared.ratings.leaderboard(&mode).await;
        Ok(board
            .into_iter()
            .filter_map(|(id, rating)| {
                let bot = self.shared.directory.get(id).filter(|b| !b.deleted)?;
                Some((bot, rating))
            })
            .enumerate()
            .map(|(i, (bot, rating))| Standing {
                rank: i + 1,
                provisional: self.shared.ratings.provisional(&rating),
                bot,
                rating,
            })
            .collect())
    }

    /// The leaderboard of a game mode as the API shows it: `{"mode", "entries"}`, each entry
    /// a rating with its `bot` and `rank`.
    pub async fn leaderboard(&self, game: &str, variant: &str) -> Result<Value, ArenaError> {
        let entries: Vec<Value> = self
            .standings(game, variant)
            .await?
            .iter()
            .map(|standing| {
                let bot = &standing.bot;
                let mut entry = self.shared.ratings.view(&standing.rating);
                entry["bot"] = json!({"id": bot.id, "name": bot.name, "kind": bot.kind});
                entry["rank"] = json!(standing.rank);
                entry
            })
            .collect();
        Ok(json!({"mode": format!("{game}:{variant}"), "entries": entries}))
    }

    /// A bot's ratings, by game mode (`game:variant`), in the modes it has been rated in.
    pub async fn ratings_of(&self, bot: BotId) -> Value {
        let mut out = serde_json::Map::new();
        for (mode, rating) in self.shared.ratings.of(bot).await {
            out.insert(mode, self.shared.ratings.view(&rating));
        }
        Value::Object(out)
    }

    /// Records a bot's environment report, replacing its previous one entirely, and returns
    /// the bot with it. The report is checked first (see [`Environment::checked`]); a refused
    /// one changes nothing. Reports are kept in memory only.
    pub fn report_environment(&self, bot: &Bot, report: Environment) -> Result<Bot, ArenaError> {
        let environment = report.checked(&self.shared.known_keys())?;
        self.shared
            .directory
            .set_environment(bot.id, environment)
            .ok_or_else(|| ArenaError::BotNotFound(bot.name.clone()))
    }

    /// A bot by name, or by id written in decimal.
    pub fn find_bot(&self, name_or_id: &str) -> Result<Bot, ArenaError> {
        let by_id = name_or_id
            .parse::<BotId>()
            .ok()
            .and_then(|id| self.shared.directory.get(id));
        by_id
            .or_else(|| self.shared.directory.by_name(name_or_id))
            .filter(|b| !b.deleted && !humans::is_person(b))
            .ok_or_else(|| ArenaError::BotNotFound(name_or_id.to_owned()))
    }

    /// Every bot, with whether it is connected now (people playing from the pages are not
    /// bots and are left out).
    pub fn list_bots(&self) -> Vec<(Bot, bool)> {
        let mut bots = self.shared.directory.list(self.now());
        bots.retain(|(bot, _)| !humans::is_person(bot));
        bots
    }

    /// Whether a bot is connected now.
    pub fn is_online(&self, id: BotId) -> bool {
        matches!(
            self.shared.directory.presence(id, self.now()),
            directory::Presence::Online { .. }
        )
    }

    // ----- challenges and matches -----

    /// Creates a challenge from `from`. A challenge to a house bot starts at once; so does a
    /// challenge to oneself, which is an unrated self-play match.
    pub async fn challenge(
        &self,
        from: &Bot,
        request: ChallengeRequest,
    ) -> Result<Value, ArenaError> {
        self.challenge_in_seat(from, request, &[], SeatChoice::First)
            .await
    }

    /// Creates a challenge from `from` to `request.opponent` and every bot named in `more`:
    /// a match with one seat each, which starts once each of them has accepted (any refusal
    /// or expiry cancels it). Matches of more than two are unrated for now: their results
    /// carry every participant's rank, but ratings are still two-sided.
    pub async fn challenge_several(
        &self,
        from: &Bot,
        request: ChallengeRequest,
        more: &[String],
    ) -> Result<Value, ArenaError> {
        self.challenge_in_seat(from, request, more, SeatChoice::First)
            .await
    }

    /// Creates a challenge from `from`, who takes `seat` in the first leg.
    async fn challenge_in_seat(
        &self,
        from: &Bot,
        request: ChallengeRequest,
        more: &[String],
        seat: SeatChoice,
    ) -> Result<Value, ArenaError> {
        let family = self.shared.family(&request.game)?;
        let variant = self
            .shared
            .games
            .mode(&request.game, request.variant.as_deref())?
            .variant;
        let seats = more.len() + 2;
        if family
            .variant(variant)
            .is_none_or(|spec| !spec.seats_allowed(seats))
        {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} {variant} is not played by {seats}",
                family.id()
            )));
        }
        let variant = variant.to_owned();
        request
            .time_control
            .validate()
            .map_err(ArenaError::InvalidRequest)?;
        let mut opponents = Vec::with_capacity(seats - 1);
        for name in std::iter::once(&request.opponent).chain(more) {
            let opponent = self.find_bot(name)?;
            if !opponent.active() {
                return Err(ArenaError::BotUnavailable(opponent.name));
            }
            check_variant(from, &opponent, family.id(), &variant)?;
            opponents.push(opponent);
        }
        let bots: Vec<Bot> = std::iter::once(from.clone()).chain(opponents).collect();
        if family.house.is_none() && bots.iter().any(|bot| bot.kind == BotKind::House) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "the house bots do not play {}",
                family.id()
            )));
        }
        if self.shared.pending_sent(from.id) >= self.shared.config.max_pending_challenges {
            return Err(ArenaError::RateLimited { retry_after_s: 10 });
        }
        let self_play = bots.iter().all(|bot| bot.id == from.id);
        // Nobody has to accept for the house bots or for the challenger itself.
        let immediate = bots[1..]
            .iter()
            .all(|bot| bot.id == from.id || bot.kind == BotKind::House);
        if immediate {
            for opponent in &bots[1..] {
                self.check_can_start(from, opponent, &variant)?;
            }
        }
        // A practising bot is trying something out; its results must not move ratings.
        // House bots challenge only through auto-matching, whose games are rated.
        let rated = request.rated
            && seats == 2
            && !self_play
            && bots
                .iter()
                .all(|bot| bot.kind != BotKind::Anonymous && !bot.practising());
        let seed = ServerSeed::generate().map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        let now = self.now();
        let setup = live::Setup {
            id: self.shared.next_match.fetch_add(1, Ordering::SeqCst) + 1,
            seat_count: bots.len(),
            table: false,
            bots,
            family,
            variant,
            format: request.format,
            time_control: request.time_control,
            rated,
            auto: request.auto,
            opening: request.opening,
            seat,
            created_ms: now,
            seed,
            config: self.shared.config.clone(),
        };
        self.create_match(setup, immediate).await
    }

    /// Stores a new match (a challenge, or an open table) and starts its actor; `start`
    /// starts it at once.
    pub(crate) async fn create_match(
        &self,
        setup: live::Setup,
        start: bool,
    ) -> Result<Value, ArenaError> {
        let now = setup.created_ms;
        let family = setup.family;
        let mut progress = live::challenge(&setup, now);
        if start {
            live::start(&setup, &mut progress, now)?;
        }
        let id = setup.id;
        // Store the new match before anyone can see it.
        let mut writes = vec![Write::PutMatch(MatchRecord {
            id,
            participants: setup.bots.iter().map(|bot| bot.id).collect(),
            game: family.id().to_owned(),
            status: progress.status,
            created_ms: now,
            seed: setup.seed.reveal().to_owned(),
            details: setup.details(&progress),
        })];
        let stored: Vec<Arc<arbiter_store::EventRecord>> = std::mem::take(&mut progress.fresh)
            .into_iter()
            .map(Arc::new)
            .collect();
        writes.extend(stored.iter().cloned().map(Write::AppendEvent));
        self.shared.writer.write(writes).await?;
        let summary = live::summary(&setup, &progress, now);
        progress.row_changed = false;
        self.spawn(setup, progress, Vec::new(), stored);
        Ok(summary)
    }

    /// Refuses to start a match a bot has no room for.
    fn check_can_start(&self, a: &Bot, b: &Bot, variant: &str) -> Result<(), ArenaError> {
        for bot in [a, b] {
            if bot.kind == BotKind::House {
                continue;
            }
            let limit = usize::try_from(
                bot.profile
                    .concurrency
                    .unwrap_or(self.shared.config.default_concurrency),
            )
            .unwrap_or(usize::MAX);
            if self.shared.running_count(bot.id) >= limit {
                return Err(ArenaError::BotBusy(bot.name.clone()));
            }
        }
        let house = a.kind == BotKind::House || b.kind == BotKind::House;
        if house
            && Some(variant) != self.shared.default_mode().ok().map(|mode| mode.variant)
            && lock(&self.shared.house_variants).len() >= self.shared.config.house_variant_matches
        {
            return Err(ArenaError::HouseVariantsFull);
        }
        Ok(())
    }

    async fn ask<T>(
        &self,
        id: MatchId,
        make: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, ArenaError> {
        // An actor that is gone has retired its match, unless the arena is stopping: then the
        // match lives on after the restart, and the caller should try again, not give up.
        let gone = || {
            if *self.shared.stopping.borrow() {
                ArenaError::ShuttingDown
            } else {
                ArenaError::MatchNotFound(id)
            }
        };
        let (commands, _, _) = self.shared.handle(id).ok_or_else(gone)?;
        let (reply, answer) = oneshot::channel();
        commands.send(make(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| ArenaError::ShuttingDown)
    }

    /// Accepts a challenge. Both bots' environment reports are read again now, since either
    /// may have reported (or reconnected with another engine) after the challenge was made:
    /// a variant one of them no longer plays is refused, and practice makes the match unrated.
    pub async fn accept(&self, bot: &Bot, id: MatchId) -> Result<Value, ArenaError> {
        let (_, _, bots) = self
            .shared
            .handle(id)
            .ok_or(ArenaError::MatchNotFound(id))?;
        let mut practice = false;
        if bots[1..].contains(&bot.id) {
            let challenger = self
                .shared
                .directory
                .get(bots[0])
                .ok_or_else(|| ArenaError::BotNotFound(bots[0].to_string()))?;
            let snapshot = self.snapshot(id, Reader::SPECTATOR).await?;
            let field = |name: &str| snapshot[name].as_str().unwrap_or_default().to_owned();
            let (game, variant) = (field("game"), field("variant"));
            check_variant(&challenger, bot, &game, &variant)?;
            self.check_can_start(&challenger, bot, &variant)?;
            practice = challenger.practising() || bot.practising();
        }
        self.ask(id, |reply| Command::Accept {
            bot: bot.id,
            practice,
            reply,
        })
        .await?
    }

    /// Declines (the challenged bot) or cancels (the challenger) a challenge.
    pub async fn decline(&self, bot: &Bot, id: MatchId, cancel: bool) -> Result<Value, ArenaError> {
        self.ask(id, |reply| Command::Decline {
            bot: bot.id,
            cancel,
            reply,
        })
        .await?
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
        match self
            .ask(id, |reply| Command::Submit {
                bot: bot.id,
                leg,
                revision,
                submitted,
                reply,
            })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.closed_or_missing(id).await,
            other => other?,
        }
    }

    /// A match this process no longer runs: not running, or not there at all.
    async fn closed_or_missing<T>(&self, id: MatchId) -> Result<T, ArenaError> {
        self.stored_match(id).await?;
        Err(ArenaError::MatchNotRunning)
    }

    /// The match's row in the store.
    async fn stored_match(&self, id: MatchId) -> Result<MatchRecord, ArenaError> {
        self.shared
            .store
            .match_by_id(id)
            .await?
            .ok_or(ArenaError::MatchNotFound(id))
    }

    /// Resigns a match.
    pub async fn resign(&self, bot: &Bot, id: MatchId) -> Result<Value, ArenaError> {
        match self
            .ask(id, |reply| Command::Resign { bot: bot.id, reply })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.closed_or_missing(id).await,
            other => other?,
        }
    }

    /// Who a bot is in a match: the participants it plays.
    pub fn reader_for(&self, id: MatchId, bot: Option<&Bot>) -> Reader {
        let bots = self.shared.handle(id).map(|(_, _, bots)| bots);
        match (bot, bots) {
            (Some(bot), Some(bots)) => Reader {
                participants: Participants::of(&bots, &bot.id),
                omniscient: false,
            },
            _ => Reader::SPECTATOR,
        }
    }

    /// A match's state as `reader` may see it.
    pub async fn snapshot(&self, id: MatchId, reader: Reader) -> Result<Value, ArenaError> {
        match self
            .ask(id, |reply| Command::Snapshot { reader, reply })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.rebuild(id).await,
            other => other,
        }
    }

    /// A closed match's final state, rebuilt from the store.
    async fn rebuild(&self, id: MatchId) -> Result<Value, ArenaError> {
        let record = self.stored_match(id).await?;
        let events = self.shared.store.events(id, 0, u32::MAX).await?;
        let setup = self.setup_from(&record)?;
        let progress = live::replay(&setup, record.status, &events)?;
        let mut snapshot = live::snapshot(&setup, &progress, Reader::OMNISCIENT, self.now());
        snapshot["result"] = record.details["result"].clone();
        Ok(snapshot)
    }

    /// The events after `since` that `reader` may see; waits up to `wait_ms` for one.
    pub async fn events(
        &self,
        id: MatchId,
        reader: Reader,
        since: i64,
        wait_ms: i64,
    ) -> Result<Value, ArenaError> {
        let limit = self.shared.config.events_per_page;
        let Some((_, log, _)) = self.shared.handle(id) else {
            // A match no longer in memory: everything is in the store and nothing will change.
            let record = self.stored_match(id).await?;
            let log = MatchLog::new(self.shared.store.events(id, 0, u32::MAX).await?);
            return Ok(page_json(
                id,
                since,
                log.page(since, reader, limit),
                record.status,
            ));
        };
        let deadline = self.now() + wait_ms.clamp(0, self.shared.config.max_wait_ms);
        let mut changes = log.subscribe();
        loop {
            // Asking the match first brings it up to date with the clock.
            let status = self.status_of(id).await;
            let page = log.page(since, reader, limit);
            if !page.events.is_empty() || self.now() >= deadline {
                return Ok(page_json(id, since, page, status));
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { continue },
                () = self.shared.clock.sleep_until(deadline) => {}
                () = self.stopped() => return Err(ArenaError::ShuttingDown),
            }
        }
    }

    /// A match's status, after bringing it up to date with the clock.
    async fn status_of(&self, id: MatchId) -> MatchStatus {
        self.ask(id, |reply| Command::Status { reply })
            .await
            .unwrap_or(MatchStatus::Running)
    }

    /// The decisions `bot` has to make in a match; waits up to `wait_ms` for one.
    pub async fn turns(&self, bot: &Bot, id: MatchId, wait_ms: i64) -> Result<Value, ArenaError> {
        let reader = self.reader_for(id, Some(bot));
        if reader.participants.is_empty() {
            return match self.shared.handle(id) {
                Some(_) => Err(ArenaError::NotParticipant),
                None => {
                    let record = self.stored_match(id).await?;
                    if record.participants.contains(&bot.id) {
                        Ok(json!({"match_id": id, "status": record.status, "turns": []}))
                    } else {
                        Err(ArenaError::NotParticipant)
                    }
                }
            };
        }
        let (_, log, _) = self
            .shared
            .handle(id)
            .ok_or(ArenaError::MatchNotFound(id))?;
        let deadline = self.now() + wait_ms.clamp(0, self.shared.config.max_wait_ms);
        let mut changes = log.subscribe();
        loop {
            let (status, turns) = self
                .ask(id, |reply| Command::Turns {
                    who: reader.participants,
                    reply,
                })
                .await?;
            if !turns.is_empty() || !status.is_open() || self.now() >= deadline {
                return Ok(
                    json!({"match_id": id, "status": status, "turns": turns, "server_now_ms": self.now()}),
                );
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { continue },
                () = self.shared.clock.sleep_until(deadline) => {}
                () = self.stopped() => return Err(ArenaError::ShuttingDown),
            }
        }
    }

    /// A match's whole event log, with the revealed seed once it has ended.
    pub async fn export(&self, id: MatchId) -> Result<Value, ArenaError> {
        let record = self.stored_match(id).await?;
        let events = self.shared.store.events(id, 0, u32::MAX).await?;
        let ended = !record.status.is_open();
        let bots = participants(&record)?;
        Ok(json!({
            "id": id,
            "game": record.game,
            "status": record.status,
            "bot_a": bots[0],
            "bot_b": bots[1],
            "participants": bots,
            "details": record.details,
            "commitment": ServerSeed::from_revealed(&record.seed).commitment().as_hex(),
            "seed": ended.then_some(record.seed),
            "events": events.iter().map(|e| json!({
                "seq": e.seq, "at_ms": e.at_ms, "type": e.kind,
                "audience": match e.audience { arbiter_store::Audience::Everyone => Value::Null, arbiter_store::Audience::Participant(p) => json!(p) },
                "data": e.payload,
            })).collect::<Vec<_>>(),
        }))
    }

    /// Every position of one leg of a closed match, from its start to its end, as anyone may
    /// see it; for replays.
    pub async fn positions(&self, id: MatchId, leg: usize) -> Result<Vec<Value>, ArenaError> {
        let record = self.stored_match(id).await?;
        if record.status.is_open() {
            return Err(ArenaError::InvalidRequest(
                "the match is still open; watch it live".to_owned(),
            ));
        }
        let events = self.shared.store.events(id, 0, u32::MAX).await?;
        let setup = self.setup_from(&record)?;
        let mut positions = Vec::new();
        live::replay_observed(&setup, record.status, &events, |progress, moved| {
            if let Some(state) = progress.legs.get(leg).map(|l| &l.state)
                && moved.is_none_or(|m| m == leg)
            {
                positions.push(state.view(arbiter_rules::Viewer::Omniscient));
            }
        })?;
        if positions.is_empty() {
            return Err(ArenaError::NoSuchLeg(u8::try_from(leg).unwrap_or(u8::MAX)));
        }
        Ok(positions)
    }

    /// The challenges and matches a bot is in that are still open.
    pub async fn open_matches_of(&self, bot: BotId) -> Vec<Value> {
        let ids: Vec<MatchId> = lock(&self.shared.open)
            .get(&bot)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for id in ids {
            if let Ok(snapshot) = self.snapshot(id, Reader::SPECTATOR).await {
                out.push(snapshot);
            }
        }
        out.sort_by_key(|s| s["id"].as_i64());
        out
    }

    /// The bot's matches that have ended and are still held in memory (up to ten minutes),
    /// most recent first: what a poll shows so that a bot sees how its last matches ended.
    pub fn recently_closed_of(&self, bot: BotId) -> Vec<MatchId> {
        let closed: Vec<MatchId> = lock(&self.shared.closed)
            .iter()
            .map(|(_, id)| *id)
            .collect();
        closed
            .into_iter()
            .rev()
            .filter(|id| {
                self.shared
                    .handle(*id)
                    .is_some_and(|(_, _, bots)| bots.contains(&bot))
            })
            .collect()
    }

    // ----- streams -----

    /// Opens an event stream for a bot; the first lines re-send its pending challenges and
    /// running matches (with any pending turns).
    pub async fn open_stream(&self, bot: &Bot) -> Result<BotStream, ArenaError> {
        let max = if bot.kind == BotKind::Anonymous {
            self.shared.config.max_anonymous_streams
        } else {
            self.shared.config.max_streams
        };
        let came_online = self.shared.directory.open_stream(bot.id, max, self.now())?;
        let (subscription, sender) = self.shared.feeds.subscribe(bot.id);
        let stream = BotStream {
            subscription,
            shared: self.shared.clone(),
        };
        let hello = json!({"type": "hello", "bot": {"id": bot.id, "name": bot.name}, "server_now_ms": self.now()});
        let _ = sender.try_send(Line::from(format!("{hello}\n")));
        let ids: Vec<MatchId> = lock(&self.shared.open)
            .get(&bot.id)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        for id in ids {
            if let Some((commands, _, _)) = self.shared.handle(id) {
                let _ = commands
                    .send(Command::Announce {
                        bot: bot.id,
                        stream: sender.clone(),
                    })
                    .await;
            }
        }
        if came_online {
            self.shared.presence_changed(bot.id);
        }
        Ok(stream)
    }

    /// A keep-alive line.
    pub fn ping_line(&self) -> Line {
        Line::from(format!(
            "{}\n",
            json!({"type": "ping", "server_now_ms": self.now()})
        ))
    }

    /// Completes once the arena's clock reads `at_ms`.
    pub async fn sleep_until(&self, at_ms: i64) {
        self.shared.clock.sleep_until(at_ms).await;
    }
}

/// A stored match's participants, checked: a match has 2 to 8, so a record with any other
/// number cannot be a match this arena wrote.
fn participants(record: &MatchRecord) -> Result<&[BotId], ArenaError> {
    if (2..=8).contains(&record.participants.len()) {
        Ok(&record.participants)
    } else {
        Err(ArenaError::Unavailable(format!(
            "match {} has {} participants",
            record.id,
            record.participants.len()
        )))
    }
}

/// Refuses a variant that one of the bots does not play: its profile does not offer it, or
/// its last environment report says the engine it has connected cannot play it.
/// Refuses a match of `game`'s `variant` that either bot does not play.
fn check_variant(a: &Bot, b: &Bot, game: &str, variant: &str) -> Result<(), ArenaError> {
    let key = format!("{game}:{variant}");
    for bot in [a, b] {
        if !bot.offers(&key) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "both bots must support {variant}"
            )));
        }
        if !bot.engine_plays(&key) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} reported that its engine does not play {variant}",
                bot.name
            )));
        }
    }
    Ok(())
}

fn page_json(id: MatchId, since: i64, page: log::Page, status: MatchStatus) -> Value {
    json!({
        "match_id": id,
        "since": since,
        "next_since": page.next_since,
        "status": status,
        "events": page.events.iter().map(|e| json!({"seq": e.seq, "at_ms": e.at_ms, "type": e.kind, "data": e.payload})).collect::<Vec<_>>(),
    })
}

/// One open event stream of a bot. Dropping it closes the stream.
pub struct BotStream {
    subscription: Subscription,
    shared: Arc<Shared>,
}

impl BotStream {
    /// The next line, `None` once the stream has been dropped for falling behind.
    pub async fn next_line(&mut self) -> Option<Line> {
        self.subscription.lines.recv().await
    }
}

impl Drop for BotStream {
    fn drop(&mut self) {
        let bot = self.subscription.bot;
        self.shared.feeds.unsubscribe(bot, self.subscription.id);
        self.shared
            .directory
            .close_stream(bot, self.shared.clock.now_ms());
        self.shared.presence_changed(bot);
    }
}
