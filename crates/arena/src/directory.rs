//! Every bot the server knows, in memory: the token index for authentication, names, and
//! presence (open streams and recent requests).

use std::collections::HashMap;
use std::sync::Mutex;

use arbiter_store::{BotId, BotKind, BotRecord};
use serde::{Deserialize, Serialize};

use crate::ArenaError;
use crate::kit::HouseLevel;
use crate::token;

/// The prefix of every house bot's name; registered names may not start with it.
pub const HOUSE_PREFIX: &str = "house-";
/// The prefix of every anonymous bot's name. Registered names cannot contain `:`, so an
/// anonymous bot can never pose as a registered or house bot.
pub const ANONYMOUS_PREFIX: &str = "anon:";

/// A bot's settings beyond the stored columns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BotProfile {
    /// The Othello variants the bot plays; empty means `std` only.
    pub supported_variants: Vec<String>,
    /// Matches it may play at once; `None` for the server's default.
    pub concurrency: Option<u32>,
    /// A house bot's strength.
    pub house_level: Option<String>,
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
}

impl Bot {
    /// The variants the bot plays.
    pub fn supports(&self, variant: &str) -> bool {
        if self.kind == BotKind::House {
            return true;
        }
        if self.profile.supported_variants.is_empty() {
            variant == "std"
        } else {
            self.profile.supported_variants.iter().any(|v| v == variant)
        }
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
}

impl Entry {
    fn bot(&self) -> Bot {
        Bot {
            id: self.record.id,
            name: self.record.name.clone(),
            kind: self.record.kind,
            created_ms: self.record.created_ms,
            disabled: self.record.disabled,
            deleted: self.record.deleted,
            token_prefix: self.record.token_prefix.clone(),
            profile: self.profile.clone(),
        }
    }
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<BotId, Entry>,
    by_token: HashMap<String, BotId>,
    by_name: HashMap<String, BotId>,
    reserved: Vec<String>,
    next_id: BotId,
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
}

/// Checks a registered bot's name: 2 to 24 letters, digits, `_`, `-` or `.`, and not a
/// reserved name.
pub fn validate_name(name: &str) -> Result<String, ArenaError> {
    let name = name.trim();
    let count = name.chars().count();
    if !(2..=24).contains(&count) {
        return Err(ArenaError::InvalidRequest(
            "a bot name has 2 to 24 characters".to_owned(),
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(ArenaError::InvalidRequest(
            "a bot name may contain only letters, digits, '_', '-' and '.'".to_owned(),
        ));
    }
    if name.to_lowercase().starts_with(HOUSE_PREFIX) {
        return Err(ArenaError::NameTaken(name.to_owned()));
    }
    Ok(name.to_owned())
}

fn key(name: &str) -> String {
    name.to_lowercase()
}

impl Directory {
    /// A directory holding `records`; bots not seen for `presence_ms` count as gone.
    pub fn new(records: Vec<BotRecord>, presence_ms: i64) -> Directory {
        let mut inner = Inner::default();
        for record in records {
            inner.next_id = inner.next_id.max(record.id);
            insert(&mut inner, record);
        }
        Directory {
            inner: Mutex::new(inner),
            presence_ms,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data that is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A fresh bot id.
    pub fn next_id(&self) -> BotId {
        let mut inner = self.lock();
        inner.next_id += 1;
        inner.next_id
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
        if !token::hashes_match(stored, &hash) || !entry.bot().active() {
            return Err(ArenaError::InvalidToken);
        }
        let was_online = entry.streams > 0 || now_ms - entry.record.last_seen_ms <= presence_ms;
        entry.record.last_seen_ms = entry.record.last_seen_ms.max(now_ms);
        Ok((entry.bot(), !was_online))
    }

    /// Marks every bot as seen at `now_ms` (when the server starts).
    pub fn seen_all(&self, now_ms: i64) {
        for entry in self.lock().by_id.values_mut() {
            entry.record.last_seen_ms = entry.record.last_seen_ms.max(now_ms);
        }
    }

    /// Reserves a name for a bot about to be created.
    pub fn reserve_name(&self, name: &str) -> Result<(), ArenaError> {
        let mut inner = self.lock();
        let k = key(name);
        if inner.by_name.contains_key(&k) || inner.reserved.contains(&k) {
            return Err(ArenaError::NameTaken(name.to_owned()));
        }
        inner.reserved.push(k);
        Ok(())
    }

    /// Gives a reserved name back (the creation failed or completed).
    pub fn release_name(&self, name: &str) {
        let k = key(name);
        self.lock().reserved.retain(|r| *r != k);
    }

    /// Adds or replaces a bot.
    pub fn put(&self, record: BotRecord) {
        let mut inner = self.lock();
        inner.next_id = inner.next_id.max(record.id);
        if let Some(old) = inner.by_id.remove(&record.id) {
            if let Some(hash) = &old.record.token_hash {
                inner.by_token.remove(hash);
            }
            inner.by_name.remove(&key(&old.record.name));
            let streams = old.streams;
            insert(&mut inner, record);
            if let Some(entry) = inner.by_id.get_mut(&old.record.id) {
                entry.streams = streams;
            }
        } else {
            insert(&mut inner, record);
        }
    }

    /// The stored record of a bot, with its latest `last_seen_ms`.
    pub fn record(&self, id: BotId) -> Option<BotRecord> {
        self.lock().by_id.get(&id).map(|e| e.record.clone())
    }

    /// A bot by id.
    pub fn get(&self, id: BotId) -> Option<Bot> {
        self.lock().by_id.get(&id).map(Entry::bot)
    }

    /// A bot by name, case-insensitively.
    pub fn by_name(&self, name: &str) -> Option<Bot> {
        let inner = self.lock();
        inner
            .by_name
            .get(&key(name))
            .and_then(|id| inner.by_id.get(id))
            .map(Entry::bot)
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
                    e.bot(),
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
            .filter(|e| e.record.kind == BotKind::Anonymous && !e.record.deleted && e.streams == 0)
            .filter(|e| e.record.last_seen_ms.max(e.record.created_ms) < before_ms)
            .map(|e| e.record.id)
            .collect()
    }

    fn presence_of(&self, entry: &Entry, now_ms: i64) -> PresenceKind {
        if entry.record.kind == BotKind::House || entry.streams > 0 {
            PresenceKind::Stream
        } else if now_ms - entry.record.last_seen_ms <= self.presence_ms {
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
        let until = entry.record.last_seen_ms + self.presence_ms;
        match self.presence_of(entry, now_ms) {
            PresenceKind::Stream => Presence::Online { until_ms: None },
            PresenceKind::Recent => Presence::Online {
                until_ms: Some(until),
            },
            PresenceKind::Offline => Presence::Offline { since_ms: until },
        }
    }

    /// Notes a new stream; refuses beyond `max` open streams.
    pub fn open_stream(&self, id: BotId, max: usize, now_ms: i64) -> Result<bool, ArenaError> {
        let presence_ms = self.presence_ms;
        let mut inner = self.lock();
        let entry = inner.by_id.get_mut(&id).ok_or(ArenaError::InvalidToken)?;
        if entry.streams >= max {
            return Err(ArenaError::TooManyStreams(max));
        }
        let was_online = entry.streams > 0 || now_ms - entry.record.last_seen_ms <= presence_ms;
        entry.streams += 1;
        entry.record.last_seen_ms = entry.record.last_seen_ms.max(now_ms);
        Ok(!was_online)
    }

    /// Notes a closed stream; the bot stays present for the usual grace after it.
    pub fn close_stream(&self, id: BotId, now_ms: i64) {
        if let Some(entry) = self.lock().by_id.get_mut(&id) {
            entry.streams = entry.streams.saturating_sub(1);
            entry.record.last_seen_ms = entry.record.last_seen_ms.max(now_ms);
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
    inner.by_id.insert(
        record.id,
        Entry {
            record,
            profile,
            streams: 0,
        },
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(id: BotId, name: &str, secret: &str) -> BotRecord {
        BotRecord {
            id,
            name: name.to_owned(),
            kind: BotKind::Registered,
            token_hash: Some(token::hash(secret)),
            token_prefix: Some(secret[..4].to_owned()),
            created_ms: 0,
            last_seen_ms: 0,
            disabled: false,
            deleted: false,
            profile: json!({}),
        }
    }

    #[test]
    fn names() {
        assert_eq!(validate_name(" Edax-4.6 "), Ok("Edax-4.6".to_owned()));
        assert!(validate_name("x").is_err());
        assert!(validate_name("a".repeat(25).as_str()).is_err());
        assert!(validate_name("bad name").is_err());
        assert!(validate_name("anon:me").is_err());
        assert_eq!(
            validate_name("House-Greedy"),
            Err(ArenaError::NameTaken("House-Greedy".into()))
        );
        assert!(validate_name("오델로봇").is_ok());
    }

    #[test]
    fn authentication_and_reservation() {
        let directory = Directory::new(vec![record(4, "Alpha", "arbb_secret")], 10_000);
        let (bot, came_online) = directory
            .authenticate("arbb_secret", 50_000)
            .expect("valid");
        assert_eq!((bot.id, came_online), (4, true));
        assert!(
            !directory
                .authenticate("arbb_secret", 55_000)
                .expect("valid")
                .1
        );
        assert_eq!(
            directory.authenticate("arbb_other", 0).err(),
            Some(ArenaError::InvalidToken)
        );
        assert_eq!(directory.next_id(), 5);
        assert!(directory.reserve_name("ALPHA").is_err());
        directory.reserve_name("Beta").expect("free");
        assert!(directory.reserve_name("beta").is_err());
        directory.release_name("Beta");
        directory.reserve_name("beta").expect("free again");

        let mut disabled = record(4, "Alpha", "arbb_secret");
        disabled.disabled = true;
        directory.put(disabled);
        assert_eq!(
            directory.authenticate("arbb_secret", 0).err(),
            Some(ArenaError::InvalidToken)
        );
    }

    #[test]
    fn presence_from_streams_and_requests() {
        let directory = Directory::new(vec![record(1, "Alpha", "arbb_a")], 10_000);
        assert_eq!(
            directory.presence(1, 5_000),
            Presence::Online {
                until_ms: Some(10_000)
            }
        );
        assert_eq!(
            directory.presence(1, 10_001),
            Presence::Offline { since_ms: 10_000 }
        );
        assert!(directory.open_stream(1, 1, 20_000).expect("first stream"));
        assert_eq!(
            directory.open_stream(1, 1, 20_000),
            Err(ArenaError::TooManyStreams(1))
        );
        assert_eq!(
            directory.presence(1, 99_000),
            Presence::Online { until_ms: None }
        );
        directory.close_stream(1, 100_000);
        assert_eq!(
            directory.presence(1, 105_000),
            Presence::Online {
                until_ms: Some(110_000)
            }
        );
        assert_eq!(
            directory.list(200_000),
            vec![(directory.get(1).expect("bot"), false)]
        );
    }
}
