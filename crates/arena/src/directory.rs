//! Every bot the server knows, in memory: the token index for authentication, names,
//! presence (open streams and recent requests) and each bot's last environment report.

use std::collections::HashMap;
use std::sync::Mutex;

use arbiter_store::{BotId, BotKind, BotRecord};
use serde::{Deserialize, Serialize};

use crate::ArenaError;
use crate::names::name_key;
use crate::token;
use arbiter_plugin::HouseLevel;

/// The prefix of every house bot's name; registered names may not start with it.
pub const HOUSE_PREFIX: &str = "house-";
/// The prefix of every anonymous bot's name. Registered names cannot contain `:`, so an
/// anonymous bot can never pose as a registered or house bot.
pub const ANONYMOUS_PREFIX: &str = "anon:";

/// A bot's settings beyond the stored columns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BotProfile {
    /// The variants of the games the server runs that the bot plays; empty means the variant
    /// of the server's default mode only.
    pub supported_variants: Vec<String>,
    /// Matches it may play at once; `None` for the server's default.
    pub concurrency: Option<u32>,
    /// A house bot's strength.
    pub house_level: Option<String>,
    /// Set when the bot's owner switched auto-matching off.
    pub auto_match_off: bool,
    /// The account that registered the bot on the web pages; `None` for bots the
    /// administrator registered, anonymous bots and house bots.
    pub owner: Option<arbiter_store::AccountId>,
    /// When the bot's picture was last uploaded, if it has one; names its version in URLs.
    pub photo_ms: Option<i64>,
    /// The name a door shows for the bot where it has room for more than the bot's name
    /// (at most [`DISPLAY_NAME_MAX_CHARS`] characters); public.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// What the bot's owner says about it (at most [`BIO_MAX_CHARS`] characters); public.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bio: Option<String>,
    /// Where the server calls the bot for its decisions, for a bot that answers over HTTP
    /// instead of holding a stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<Webhook>,
    /// The WebAssembly module the server runs for the bot, for a bot submitted to run here
    /// instead of connecting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandboxed: Option<Sandboxed>,
}

/// A bot the server runs itself, from a WebAssembly module its owner submitted. The arena
/// keeps the module and these settings; the server runs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandboxed {
    /// The module's SHA-256 in lowercase hex.
    pub sha256: String,
    /// The module's size in bytes.
    pub size: u64,
    /// When it was uploaded, in milliseconds since the Unix epoch.
    pub uploaded_ms: i64,
    /// Whether it has passed its validation games.
    pub status: ModuleStatus,
    /// Whether challenges to the bot are accepted on its behalf once it is ready; declined
    /// otherwise.
    pub accept_challenges: bool,
    /// The shortest initial clock, in milliseconds, of a challenge accepted on its behalf.
    pub min_initial_ms: i64,
}

/// Where a submitted module stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ModuleStatus {
    /// Playing its validation games against a house bot.
    Validating,
    /// Passed: it plays challenges, auto-matched games and tournaments.
    Ready,
    /// Failed a validation game: it plays nothing until a new module is uploaded.
    Rejected {
        /// What went wrong.
        reason: String,
    },
}

/// How the server reaches a bot that answers over HTTP instead of holding a stream: each of
/// its decisions is POSTed, signed, to its URL, and the answer is its action. The arena only
/// keeps these settings; the server makes the calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// The URL each decision is POSTed to.
    pub url: String,
    /// The version of the bot's signing secret: rotating the secret moves it on, so that the
    /// old one no longer signs.
    pub secret_version: u32,
    /// Whether challenges to the bot are accepted on its behalf (it has no stream to answer
    /// them on); declined otherwise.
    pub accept_challenges: bool,
    /// The shortest initial clock, in milliseconds, of a challenge accepted on its behalf:
    /// every decision costs the bot a round trip.
    pub min_initial_ms: i64,
}

/// The most characters a bot's display name has.
pub const DISPLAY_NAME_MAX_CHARS: usize = 64;
/// The most characters a bot's bio has.
pub const BIO_MAX_CHARS: usize = 280;

/// The longest `engine`, `cpu` or `os` text an environment report may carry, in characters.
pub const ENVIRONMENT_TEXT_MAX: usize = 120;

/// What a connected bot last reported about the engine behind it (FlipSight's `environment`).
///
/// It lives in memory only: a connector sends it again on every connect, so after a restart a
/// bot has none until it reports again. Each report replaces the previous one entirely.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Environment {
    /// The engine's name and version, such as `Edax 4.6`.
    pub engine: Option<String>,
    /// The processor the engine runs on.
    pub cpu: Option<String>,
    /// The operating system.
    pub os: Option<String>,
    /// Whether the bot is practising: while it says so, its matches against other bots are
    /// unrated.
    pub practice: bool,
    /// The variants the connected engine can play; `None` when it did not say, which
    /// restricts nothing.
    pub variants: Option<Vec<String>>,
}

impl Environment {
    /// Checks and tidies a report: texts are trimmed (an empty one counts as absent) and may
    /// have at most [`ENVIRONMENT_TEXT_MAX`] characters; variants must be among `known`, and
    /// repeats are dropped. An empty variant list is refused rather than guessed at: it would
    /// either mean "plays nothing" or "did not say", and omitting the field says the latter.
    pub fn checked(self, known: &[impl AsRef<str>]) -> Result<Environment, ArenaError> {
        fn text(field: &str, value: Option<String>) -> Result<Option<String>, ArenaError> {
            let Some(value) = value else {
                return Ok(None);
            };
            let value = value.trim();
            if value.chars().count() > ENVIRONMENT_TEXT_MAX {
                return Err(ArenaError::InvalidEnvironment(format!(
                    "{field} is longer than {ENVIRONMENT_TEXT_MAX} characters"
                )));
            }
            Ok((!value.is_empty()).then(|| value.to_owned()))
        }
        let variants = match self.variants {
            None => None,
            Some(list) if list.is_empty() => {
                return Err(ArenaError::InvalidEnvironment(
                    "variants names no variant; leave it out to play every variant".to_owned(),
                ));
            }
            Some(list) => {
                let mut variants: Vec<String> = Vec::with_capacity(list.len());
                for variant in list {
                    if !known.iter().any(|k| k.as_ref() == variant) {
                        let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
                        return Err(ArenaError::InvalidEnvironment(format!(
                            "variants names an unknown variant {variant:?}; known variants are {}",
                            known.join(", ")
                        )));
                    }
                    if !variants.contains(&variant) {
                        variants.push(variant);
                    }
                }
                Some(variants)
            }
        };
        Ok(Environment {
            engine: text("engine", self.engine)?,
            cpu: text("cpu", self.cpu)?,
            os: text("os", self.os)?,
            practice: self.practice,
            variants,
        })
    }
}

/// A bot as the arena sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bot {
    /// Identifier.
    pub id: BotId,
    /// Name.
    pub name: String,
    /// Kind of principal.
    pub kind: BotKind,
    /// Creation time.
    pub created_ms: i64,
    /// Whether it may play.
    pub disabled: bool,
    /// Whether it was deleted (or, for an anonymous bot, expired).
    pub deleted: bool,
    /// The first characters of its token.
    pub token_prefix: Option<String>,
    /// Settings.
    pub profile: BotProfile,
    /// Its last environment report, if it sent one since the server started.
    pub environment: Option<Environment>,
    /// The variant a profile without a list of variants offers: the server's default.
    pub default_variant: &'static str,
}

/// Whether a listed capability covers a requested game mode. Both are keys: `game:variant`,
/// a bare variant name, or (listed only) a game's name, which covers all its variants. A
/// bare name is taken as either; where two games share a variant name, `game:variant` keys
/// tell them apart.
pub fn key_covers(listed: &str, requested: &str) -> bool {
    let (game, variant) = match requested.split_once(':') {
        Some((game, variant)) => (Some(game), variant),
        None => (None, requested),
    };
    match listed.split_once(':') {
        Some((listed_game, listed_variant)) => {
            listed_variant == variant && game.is_none_or(|game| game == listed_game)
        }
        None => listed == variant || game == Some(listed),
    }
}

impl Bot {
    /// Whether the bot plays the game mode `key` (`game:variant`, or a bare variant name):
    /// its profile offers it and, if it reported what its connected engine plays, that list
    /// has it too.
    pub fn supports(&self, key: &str) -> bool {
        self.offers(key) && self.engine_plays(key)
    }

    /// Whether its profile offers the game mode `key` (house bots play them all).
    pub fn offers(&self, key: &str) -> bool {
        if matches!(self.kind, BotKind::House | BotKind::Human) {
            return true;
        }
        if self.profile.supported_variants.is_empty() {
            key_covers(self.default_variant, key)
        } else {
            self.profile
                .supported_variants
                .iter()
                .any(|listed| key_covers(listed, key))
        }
    }

    /// Whether its last environment report allows the game mode `key`: a registered bot may
    /// connect an engine that plays fewer modes than its profile lists, and a challenge it
    /// cannot play would only be lost on time.
    pub fn engine_plays(&self, key: &str) -> bool {
        self.environment
            .as_ref()
            .and_then(|e| e.variants.as_ref())
            .is_none_or(|listed| listed.iter().any(|listed| key_covers(listed, key)))
    }

    /// Whether a challenge with `initial_ms` on its clock would be accepted on the bot's
    /// behalf where the server plays for it: as its webhook's or its module's settings say,
    /// and for a module only once it is ready. A bot with a stream of its own answers for
    /// itself, so for it this is true.
    pub fn hosted_accepts(&self, initial_ms: i64) -> bool {
        if let Some(module) = &self.profile.sandboxed {
            return module.status == ModuleStatus::Ready
                && module.accept_challenges
                && initial_ms >= module.min_initial_ms;
        }
        if let Some(webhook) = &self.profile.webhook {
            return webhook.accept_challenges && initial_ms >= webhook.min_initial_ms;
        }
        true
    }

    /// Whether its last environment report says it is practising.
    pub fn practising(&self) -> bool {
        self.environment.as_ref().is_some_and(|e| e.practice)
    }

    /// A house bot's level.
    pub fn house_level(&self) -> Option<HouseLevel> {
        self.profile
            .house_level
            .as_deref()
            .and_then(HouseLevel::parse)
    }

    /// Whether it can play at all now.
    pub fn active(&self) -> bool {
        !self.disabled && !self.deleted
    }
}

struct Entry {
    record: BotRecord,
    profile: BotProfile,
    streams: usize,
    /// Whether another server sharing the store holds a stream of the bot.
    remote_stream: bool,
    environment: Option<Environment>,
    /// When this process last heard from the bot: a request or a stream. The stored
    /// `last_seen_ms` survives restarts, so it cannot tell whether a bot is here now.
    heard_ms: Option<i64>,
}

impl Entry {
    /// Whether the bot holds a stream or was heard from in the last `presence_ms` of this
    /// process's life.
    fn online(&self, now_ms: i64, presence_ms: i64) -> bool {
        self.has_stream()
            || self
                .heard_ms
                .is_some_and(|heard| now_ms - heard <= presence_ms)
    }

    /// Whether the bot holds a stream here or on another server.
    fn has_stream(&self) -> bool {
        self.streams > 0 || self.remote_stream
    }

    /// Notes that the bot made a request or held a stream at `now_ms`.
    fn heard(&mut self, now_ms: i64) {
        self.heard_ms = Some(self.heard_ms.map_or(now_ms, |heard| heard.max(now_ms)));
        self.record.last_seen_ms = self.record.last_seen_ms.max(now_ms);
    }

    fn bot_active(&self) -> bool {
        !self.record.disabled && !self.record.deleted
    }

    fn bot(&self, default_variant: &'static str) -> Bot {
        Bot {
            default_variant,
            id: self.record.id,
            name: self.record.name.clone(),
            kind: self.record.kind,
            created_ms: self.record.created_ms,
            disabled: self.record.disabled,
            deleted: self.record.deleted,
            token_prefix: self.record.token_prefix.clone(),
            profile: self.profile.clone(),
            environment: self.environment.clone(),
        }
    }
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<BotId, Entry>,
    by_token: HashMap<String, BotId>,
    by_name: HashMap<String, BotId>,
    /// Every name ever given, by its [`name_key`]: names are never given back, deleted
    /// bots' included, so a lookalike can never take over a bot's history.
    keys: HashMap<String, String>,
    /// The keys of names being created now.
    reserved: Vec<String>,
}

/// Whether a bot is connected, and since or until when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Connected; with no stream open it stays so until the given time unless it polls again.
    Online {
        /// When it stops counting as connected, `None` while a stream is open.
        until_ms: Option<i64>,
    },
    /// Gone since this time.
    Offline {
        /// When it stopped counting as connected.
        since_ms: i64,
    },
}

/// The bots, in memory.
pub struct Directory {
    inner: Mutex<Inner>,
    presence_ms: i64,
    default_variant: &'static str,
}

/// The most matches a bot may play at once.
pub const CONCURRENCY_MAX: u32 = 16;

impl BotProfile {
    /// Checks the settings a registration or a change asks for, whatever door it came
    /// through: every variant must be among `known` and at least one must be named (repeats
    /// are dropped), a concurrency, if set, lies between 1 and [`CONCURRENCY_MAX`], and a
    /// display name or bio is trimmed (an empty one counts as absent), has no control
    /// characters and is at most [`DISPLAY_NAME_MAX_CHARS`] or [`BIO_MAX_CHARS`] long.
    pub fn checked(mut self, known: &[impl AsRef<str>]) -> Result<BotProfile, ArenaError> {
        self.supported_variants = check_variants(&self.supported_variants, known)?;
        check_concurrency(self.concurrency)?;
        self.display_name = check_text(
            "display_name",
            self.display_name.take(),
            DISPLAY_NAME_MAX_CHARS,
        )?;
        self.bio = check_text("bio", self.bio.take(), BIO_MAX_CHARS)?;
        Ok(self)
    }
}

/// A public text of a profile, trimmed; `None` when absent or empty. Line breaks are allowed
/// (a bio may have paragraphs), other control characters are not.
fn check_text(
    field: &str,
    value: Option<String>,
    max_chars: usize,
) -> Result<Option<String>, ArenaError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let value = value.trim();
    if value.chars().count() > max_chars {
        return Err(ArenaError::InvalidRequest(format!(
            "{field} is longer than {max_chars} characters"
        )));
    }
    if value.chars().any(|c| c.is_control() && c != '\n') {
        return Err(ArenaError::InvalidRequest(format!(
            "{field} may not contain control characters"
        )));
    }
    Ok((!value.is_empty()).then(|| value.to_owned()))
}

/// Checks a list of variants a bot plays: each among `known`, at least one; repeats dropped.
pub fn check_variants(
    variants: &[String],
    known: &[impl AsRef<str>],
) -> Result<Vec<String>, ArenaError> {
    let mut list: Vec<String> = Vec::with_capacity(variants.len());
    for variant in variants {
        if !known.iter().any(|k| k.as_ref() == variant) {
            let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
            return Err(ArenaError::InvalidRequest(format!(
                "unknown variant {variant:?}; the variants are {}",
                known.join(", ")
            )));
        }
        if !list.contains(variant) {
            list.push(variant.clone());
        }
    }
    if list.is_empty() {
        return Err(ArenaError::InvalidRequest(
            "a bot must play at least one variant".to_owned(),
        ));
    }
    Ok(list)
}

/// Checks how many matches a bot may play at once (`None`: the server's default).
pub fn check_concurrency(limit: Option<u32>) -> Result<(), ArenaError> {
    if limit.is_some_and(|n| !(1..=CONCURRENCY_MAX).contains(&n)) {
        return Err(ArenaError::InvalidRequest(format!(
            "a bot plays 1 to {CONCURRENCY_MAX} matches at once"
        )));
    }
    Ok(())
}

fn key(name: &str) -> String {
    name.to_lowercase()
}

impl Directory {
    /// A directory holding `records`; bots not seen for `presence_ms` count as gone, and a
    /// bot that lists no variants offers `default_variant`.
    pub fn new(
        records: Vec<BotRecord>,
        presence_ms: i64,
        default_variant: &'static str,
    ) -> Directory {
        let mut inner = Inner::default();
        for record in records {
            insert(&mut inner, record);
        }
        Directory {
            inner: Mutex::new(inner),
            presence_ms,
            default_variant,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data that is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bot a presented token belongs to; marks it as seen at `now_ms`. Returns the bot and
    /// whether this request brought it back online.
    pub fn authenticate(&self, secret: &str, now_ms: i64) -> Result<(Bot, bool), ArenaError> {
        let hash = token::hash(secret);
        let mut inner = self.lock();
        let id = *inner.by_token.get(&hash).ok_or(ArenaError::InvalidToken)?;
        let presence_ms = self.presence_ms;
        let entry = inner.by_id.get_mut(&id).ok_or(ArenaError::InvalidToken)?;
        let stored = entry.record.token_hash.as_deref().unwrap_or_default();
        if !token::hashes_match(stored, &hash) || !entry.bot(self.default_variant).active() {
            return Err(ArenaError::InvalidToken);
        }
        let was_online = entry.online(now_ms, presence_ms);
        entry.heard(now_ms);
        Ok((entry.bot(self.default_variant), !was_online))
    }

    /// Reserves a name for a bot about to be created.
    pub fn reserve_name(&self, name: &str) -> Result<(), ArenaError> {
        let mut inner = self.lock();
        let k = Self::free_key(&inner, name)?;
        inner.reserved.push(k);
        Ok(())
    }

    /// Refuses a name that is taken, too like a taken one, or being created now, as
    /// [`Directory::reserve_name`] would, without reserving it.
    pub fn check_name_free(&self, name: &str) -> Result<(), ArenaError> {
        Self::free_key(&self.lock(), name).map(drop)
    }

    /// The key of `name` if no bot has or is being given a name with that key.
    fn free_key(inner: &Inner, name: &str) -> Result<String, ArenaError> {
        let k = name_key(name);
        if let Some(taken) = inner.keys.get(&k) {
            return Err(if key(taken) == key(name) {
                ArenaError::NameTaken(name.to_owned())
            } else {
                ArenaError::NameTooLike {
                    name: name.to_owned(),
                    taken: taken.clone(),
                }
            });
        }
        if inner.reserved.contains(&k) {
            return Err(ArenaError::NameTaken(name.to_owned()));
        }
        Ok(k)
    }

    /// Gives a reserved name back (the creation failed or completed).
    pub fn release_name(&self, name: &str) {
        let k = name_key(name);
        self.lock().reserved.retain(|r| *r != k);
    }

    /// Adds or replaces a bot.
    pub fn put(&self, record: BotRecord) {
        let mut inner = self.lock();
        if let Some(old) = inner.by_id.remove(&record.id) {
            if let Some(hash) = &old.record.token_hash {
                inner.by_token.remove(hash);
            }
            inner.by_name.remove(&key(&old.record.name));
            // Bots keep their names for ever; a person is renamed only when their account
            // is deleted, to hide the name, which is then free for a new account's person.
            if old.record.kind == BotKind::Human && old.record.name != record.name {
                inner.keys.remove(&name_key(&old.record.name));
            }
            let streams = old.streams;
            insert(&mut inner, record);
            // The stored columns changed (a new token, disabled); the connection did not, so
            // its streams, presence and environment report carry over.
            if let Some(entry) = inner.by_id.get_mut(&old.record.id) {
                entry.streams = streams;
                entry.remote_stream = old.remote_stream;
                entry.heard_ms = old.heard_ms;
                entry.environment = old.environment;
            }
        } else {
            insert(&mut inner, record);
        }
    }

    /// Replaces a bot's environment report; returns the bot as it now is, or `None` if there
    /// is no such bot.
    pub fn set_environment(&self, id: BotId, environment: Environment) -> Option<Bot> {
        let mut inner = self.lock();
        let entry = inner.by_id.get_mut(&id)?;
        entry.environment = Some(environment);
        Some(entry.bot(self.default_variant))
    }

    /// The stored record of a bot, with its latest `last_seen_ms`.
    pub fn record(&self, id: BotId) -> Option<BotRecord> {
        self.lock().by_id.get(&id).map(|e| e.record.clone())
    }

    /// A bot by id.
    pub fn get(&self, id: BotId) -> Option<Bot> {
        self.lock()
            .by_id
            .get(&id)
            .map(|e| e.bot(self.default_variant))
    }

    /// Whether a token belongs to an active bot, without marking it as seen.
    pub fn knows(&self, secret: &str) -> bool {
        let hash = token::hash(secret);
        let inner = self.lock();
        inner
            .by_token
            .get(&hash)
            .and_then(|id| inner.by_id.get(id))
            .is_some_and(|entry| {
                let stored = entry.record.token_hash.as_deref().unwrap_or_default();
                token::hashes_match(stored, &hash) && entry.bot_active()
            })
    }

    /// The holder of a token, without marking it as seen.
    pub fn holder(&self, secret: &str) -> Option<Bot> {
        let hash = token::hash(secret);
        let inner = self.lock();
        let entry = inner.by_id.get(inner.by_token.get(&hash)?)?;
        let stored = entry.record.token_hash.as_deref().unwrap_or_default();
        (token::hashes_match(stored, &hash) && entry.bot(self.default_variant).active())
            .then(|| entry.bot(self.default_variant))
    }

    /// A bot by name, case-insensitively.
    pub fn by_name(&self, name: &str) -> Option<Bot> {
        let inner = self.lock();
        inner
            .by_name
            .get(&key(name))
            .and_then(|id| inner.by_id.get(id))
            .map(|e| e.bot(self.default_variant))
    }

    /// Every bot that is not deleted, with whether it is connected at `now_ms`.
    pub fn list(&self, now_ms: i64) -> Vec<(Bot, bool)> {
        let inner = self.lock();
        let mut bots: Vec<(Bot, bool)> = inner
            .by_id
            .values()
            .filter(|e| !e.record.deleted)
            .map(|e| {
                (
                    e.bot(self.default_variant),
                    self.presence_of(e, now_ms) != PresenceKind::Offline,
                )
            })
            .collect();
        bots.sort_by_key(|(b, _)| b.id);
        bots
    }

    /// Anonymous bots last seen before `before_ms` (to expire them).
    pub fn idle_anonymous(&self, before_ms: i64) -> Vec<BotId> {
        self.lock()
            .by_id
            .values()
            .filter(|e| e.record.kind == BotKind::Anonymous && !e.record.deleted && !e.has_stream())
            .filter(|e| e.record.last_seen_ms.max(e.record.created_ms) < before_ms)
            .map(|e| e.record.id)
            .collect()
    }

    fn presence_of(&self, entry: &Entry, now_ms: i64) -> PresenceKind {
        if entry.record.kind == BotKind::House || entry.has_stream() {
            PresenceKind::Stream
        } else if entry.online(now_ms, self.presence_ms) {
            PresenceKind::Recent
        } else {
            PresenceKind::Offline
        }
    }

    /// Whether a bot counts as connected at `now_ms`.
    pub fn presence(&self, id: BotId, now_ms: i64) -> Presence {
        let inner = self.lock();
        let Some(entry) = inner.by_id.get(&id) else {
            return Presence::Offline { since_ms: i64::MIN };
        };
        // A bot not heard from since this process started has been gone since before it.
        let until = entry
            .heard_ms
            .map_or(i64::MIN, |heard| heard + self.presence_ms);
        match self.presence_of(entry, now_ms) {
            PresenceKind::Stream => Presence::Online { until_ms: None },
            PresenceKind::Recent => Presence::Online {
                until_ms: Some(until),
            },
            PresenceKind::Offline => Presence::Offline { since_ms: until },
        }
    }

    /// The bots this server heard from at `since_ms` or later, each with the last time.
    pub(crate) fn heard_since(&self, since_ms: i64) -> Vec<(BotId, i64)> {
        self.lock()
            .by_id
            .values()
            .filter_map(|entry| {
                let heard = entry.heard_ms.filter(|&heard| heard >= since_ms)?;
                Some((entry.record.id, heard))
            })
            .collect()
    }

    /// Notes a new stream; refuses beyond `max` open streams.
    pub fn open_stream(&self, id: BotId, max: usize, now_ms: i64) -> Result<bool, ArenaError> {
        let presence_ms = self.presence_ms;
        let mut inner = self.lock();
        let entry = inner.by_id.get_mut(&id).ok_or(ArenaError::InvalidToken)?;
        if entry.streams >= max {
            return Err(ArenaError::TooManyStreams(max));
        }
        let was_online = entry.online(now_ms, presence_ms);
        entry.streams += 1;
        entry.heard(now_ms);
        Ok(!was_online)
    }

    /// Notes whether another server holds a stream of the bot; when none does any more, the
    /// bot stays present for the usual grace after `now_ms`, as after a stream closed here.
    pub(crate) fn note_remote_stream(&self, id: BotId, held: bool, now_ms: i64) {
        if let Some(entry) = self.lock().by_id.get_mut(&id) {
            if entry.remote_stream && !held {
                entry.heard(now_ms);
            }
            entry.remote_stream = held;
        }
    }

    /// Notes a closed stream; the bot stays present for the usual grace after it.
    pub fn close_stream(&self, id: BotId, now_ms: i64) {
        if let Some(entry) = self.lock().by_id.get_mut(&id) {
            entry.streams = entry.streams.saturating_sub(1);
            entry.heard(now_ms);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PresenceKind {
    Stream,
    Recent,
    Offline,
}

fn insert(inner: &mut Inner, record: BotRecord) {
    let profile = serde_json::from_value(record.profile.clone()).unwrap_or_default();
    if let Some(hash) = &record.token_hash {
        inner.by_token.insert(hash.clone(), record.id);
    }
    inner.by_name.insert(key(&record.name), record.id);
    inner
        .keys
        .entry(name_key(&record.name))
        .or_insert_with(|| record.name.clone());
    inner.by_id.insert(
        record.id,
        Entry {
            record,
            profile,
            streams: 0,
            remote_stream: false,
            environment: None,
            heard_ms: None,
        },
    );
}

#[cfg(test)]
mod tests;
