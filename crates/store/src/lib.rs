//! The persistence interface of the arena.
//!
//! The arena keeps bots and their WebAssembly modules, matches and the per-match event log,
//! ratings, and the web pages' accounts, sessions and bot pictures. A backend implements
//! [`Store`]: reads return records, and every write goes through [`Store::write_batch`],
//! which must apply a whole batch atomically and durably. The [`Writer`] in front of it is the
//! single writer of the process: it gathers the writes of many matches into one batch (group
//! commit), so durability costs one transaction per batch rather than per move, and it
//! acknowledges each write only once its batch is durable.
//!
//! Nothing here names a database: SQLite (`arbiter-store-sqlite`) and, later, PostgreSQL
//! implement the same trait and run the same conformance tests ([`conformance`]).

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

mod writer;

pub mod conformance;
pub mod copy;
pub use writer::{CommitObserver, Writer, WriterError};

/// A bot's identifier.
pub type BotId = i64;
/// A match's identifier (positive; FlipSight's human matches use negative ids).
pub type MatchId = i64;
/// An account's identifier.
pub type AccountId = i64;
/// A tournament's identifier.
pub type TournamentId = i64;

/// A tournament as stored: what finds it, and the rest as the arena writes it. Tournaments are
/// few and small, so a tournament is one row, rewritten whole at each change.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentRecord {
    /// Identifier.
    pub id: TournamentId,
    /// Its status, as the arena names it (`open`, `running`, …); opaque to the store.
    pub status: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When it last changed, milliseconds since the Unix epoch.
    pub updated_ms: i64,
    /// Everything else (terms, entrants, rounds, results), as JSON.
    pub data: Value,
}

/// A person's account on the web pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRecord {
    /// Identifier.
    pub id: AccountId,
    /// The name the person signs in with; unique case-insensitively.
    pub name: String,
    /// The password's Argon2id hash in PHC string form; never the password.
    pub password_hash: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// A signed-in browser: the hash of its session cookie and whose it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    /// SHA-256 of the session cookie's value, in hex; never the value.
    pub token_hash: String,
    /// The account signed in.
    pub account: AccountId,
    /// Sign-in time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When the session ends, milliseconds since the Unix epoch.
    pub expires_ms: i64,
}

/// A bot's picture, as the server re-encoded it (never the uploaded bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhotoRecord {
    /// The bot.
    pub bot: BotId,
    /// The picture as PNG.
    pub png: Vec<u8>,
    /// When it was uploaded, milliseconds since the Unix epoch; it names the version in URLs.
    pub updated_ms: i64,
}

/// A bot's submitted WebAssembly module: the program the server runs for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleRecord {
    /// The bot.
    pub bot: BotId,
    /// The module's bytes.
    pub wasm: Vec<u8>,
    /// Their SHA-256 in lowercase hex.
    pub sha256: String,
    /// When it was uploaded, in milliseconds since the Unix epoch.
    pub uploaded_ms: i64,
}

/// What kind of principal a bot is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Created by an administrator (later by an account); may be rated.
    Registered,
    /// Minted by anyone without registration; never rated; expires when idle.
    Anonymous,
    /// Built into the server.
    House,
    /// A person playing from the web pages (an account's, or a guest's); never a bot API
    /// client.
    Human,
}

impl BotKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            BotKind::Registered => "registered",
            BotKind::Anonymous => "anonymous",
            BotKind::House => "house",
            BotKind::Human => "human",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<BotKind> {
        [
            BotKind::Registered,
            BotKind::Anonymous,
            BotKind::House,
            BotKind::Human,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// A bot as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRecord {
    /// Identifier.
    pub id: BotId,
    /// Display name; unique case-insensitively.
    pub name: String,
    /// Kind of principal.
    pub kind: BotKind,
    /// SHA-256 of the bot's token in hex; `None` for house bots.
    pub token_hash: Option<String>,
    /// The first characters of the token, safe to show.
    pub token_prefix: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// Last time the bot was seen (request or stream), milliseconds since the Unix epoch.
    pub last_seen_ms: i64,
    /// A disabled bot cannot authenticate or be challenged.
    pub disabled: bool,
    /// A deleted bot is kept for the history of its matches only.
    pub deleted: bool,
    /// Everything else about the bot (supported games, limits, house level), as JSON.
    pub profile: Value,
}

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// A challenge waiting for an answer.
    Pending,
    /// Being played.
    Running,
    /// Played to a result.
    Finished,
    /// Stopped without a rated result (no first move, technical).
    Aborted,
    /// The challenge was declined or cancelled.
    Rejected,
    /// The challenge was not answered in time.
    Expired,
}

impl MatchStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Pending => "pending",
            MatchStatus::Running => "running",
            MatchStatus::Finished => "finished",
            MatchStatus::Aborted => "aborted",
            MatchStatus::Rejected => "rejected",
            MatchStatus::Expired => "expired",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<MatchStatus> {
        use MatchStatus::*;
        [Pending, Running, Finished, Aborted, Rejected, Expired]
            .into_iter()
            .find(|m| m.as_str() == s)
    }

    /// Whether the match can still change.
    pub fn is_open(self) -> bool {
        matches!(self, MatchStatus::Pending | MatchStatus::Running)
    }
}

/// A match as stored. The match's progress is its event log; this row holds what is needed
/// to find and list matches and to rebuild them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// Identifier.
    pub id: MatchId,
    /// The participants in order: participant `i` is at index `i`, participant 0 being the
    /// challenger and participant 1 the challenged. A match has 2 to 8 of them, fixed when it
    /// is created: a later [`Write::PutMatch`] of the same match must carry the same list,
    /// and a backend may keep the stored one rather than write it again.
    pub participants: Vec<BotId>,
    /// The game's identifier, as its family names it; opaque to the store.
    pub game: String,
    /// Current status.
    pub status: MatchStatus,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The server seed, secret until the match has ended.
    pub seed: String,
    /// Everything else (variant, format, time control, rating flag, result), as JSON.
    pub details: Value,
}

/// Who may read an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Audience {
    /// Everyone, spectators included.
    Everyone,
    /// Only this participant (an index into [`MatchRecord::participants`]).
    Participant(u8),
}

/// One entry of a match's event log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EventRecord {
    /// The match.
    pub match_id: MatchId,
    /// Position in the match's log: 1, 2, 3, … without gaps.
    pub seq: i64,
    /// When it happened, milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// Who may read it.
    pub audience: Audience,
    /// The event's type (`move`, `started`, …).
    pub kind: String,
    /// The event's data as compact JSON text. Events are written once and read rarely, so
    /// they stay text: a live match keeps hundreds of them, and a parsed tree costs several
    /// times the memory of its text.
    pub payload: Box<RawValue>,
}

impl EventRecord {
    /// The JSON text of `value`, for [`EventRecord::payload`]; `null` for a value that has
    /// no JSON form (a map with non-string keys), which no payload has.
    pub fn payload_of<T: Serialize + ?Sized>(value: &T) -> Box<RawValue> {
        serde_json::value::to_raw_value(value).unwrap_or_default()
    }

    /// The payload parsed.
    pub fn payload_value(&self) -> Value {
        serde_json::from_str(self.payload.get()).unwrap_or_default()
    }
}

impl PartialEq for EventRecord {
    fn eq(&self, other: &Self) -> bool {
        self.match_id == other.match_id
            && self.seq == other.seq
            && self.at_ms == other.at_ms
            && self.audience == other.audience
            && self.kind == other.kind
            && self.payload.get() == other.payload.get()
    }
}

impl Eq for EventRecord {}

/// A note about a match for the server's operator alone (where a seat's player came from, a
/// suspicion about its play): never shown to players or spectators. Notes are only added,
/// never changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteRecord {
    /// The match.
    pub match_id: MatchId,
    /// The participant it is about (an index into [`MatchRecord::participants`]), if any.
    pub participant: Option<u8>,
    /// What kind of note it is; opaque to the store.
    pub kind: String,
    /// The note, as JSON.
    pub data: Value,
    /// When it was added, milliseconds since the Unix epoch.
    pub at_ms: i64,
}

/// One write. A batch of writes is applied in order, atomically.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    /// Insert a bot, or replace the bot with the same id.
    PutBot(BotRecord),
    /// Note that a bot was seen at this time: its `last_seen_ms` becomes the later of the two
    /// (nothing happens to a bot that is not there). Servers sharing a store record what each
    /// has seen this way, without rewriting the rest of the bot.
    BotSeen {
        /// The bot.
        bot: BotId,
        /// When it was seen, milliseconds since the Unix epoch.
        at_ms: i64,
    },
    /// Insert a match with its participants, or replace the match with the same id (its
    /// participants, which never change, may be left as stored).
    PutMatch(MatchRecord),
    /// Append an event (its `(match_id, seq)` must be new). Shared, because the same event
    /// also goes to the match's in-memory log.
    AppendEvent(std::sync::Arc<EventRecord>),
    /// Record that the server was alive at this time (milliseconds since the Unix epoch).
    Heartbeat(i64),
    /// Insert a bot's rating in a game mode, or replace the one it had there.
    PutRating(RatingRecord),
    /// Insert an account, or replace the account with the same id.
    PutAccount(AccountRecord),
    /// Insert a session.
    PutSession(SessionRecord),
    /// End the session with this token hash (nothing happens if there is none).
    DeleteSession(String),
    /// End every session of an account but the one with the token hash `except`, if given.
    DeleteSessionsOf {
        /// The account.
        account: AccountId,
        /// The session to keep (the one that asked), if any.
        except: Option<String>,
    },
    /// Delete an account and every session of it (nothing happens if there is none); its
    /// name may then be taken again, its id never (see [`MaxIds::account`]).
    DeleteAccount(AccountId),
    /// Insert a bot's picture, or replace the one it had.
    PutPhoto(std::sync::Arc<PhotoRecord>),
    /// Insert a bot's WebAssembly module, or replace the one it had.
    PutModule(std::sync::Arc<ModuleRecord>),
    /// Remove a bot's WebAssembly module (nothing happens if it has none).
    DeleteModule(BotId),
    /// Add a note about a match for the operator (after the match's other notes).
    AddNote(NoteRecord),
    /// Insert a tournament, or replace the tournament with the same id.
    PutTournament(TournamentRecord),
    /// Give a new match's lease to a node, whoever held it (only for a match no one else can
    /// know of yet: every other claim goes through [`Store::claim_matches`]).
    PutLease(LeaseRecord),
    /// Let every lease and duty of a node expire at this time (a node stopping hands its
    /// matches and duties on).
    ReleaseLeases {
        /// The node.
        node: String,
        /// When its leases expire, milliseconds since the Unix epoch.
        at_ms: i64,
    },
    /// Record that every id up to these is taken, so that [`Store::reserve_ids`] hands out
    /// only larger ones (a copy of another store's data carries its ids, those of deleted
    /// accounts included, this way).
    IdsTaken(MaxIds),
}

/// A node's hold on an open match: while it lasts, only that node runs the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRecord {
    /// The match.
    pub match_id: MatchId,
    /// The node that holds it, by the name it was started with.
    pub node: String,
    /// When the node last renewed it, milliseconds since the Unix epoch: the node was alive
    /// then.
    pub renewed_ms: i64,
    /// When it lapses unless renewed, milliseconds since the Unix epoch.
    pub expires_ms: i64,
}

/// A match a node won with [`Store::claim_matches`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The match.
    pub match_id: MatchId,
    /// When the lease was last renewed before this claim (by this node or the one whose
    /// lease lapsed), if the match had one: its holder was alive then.
    pub renewed_ms: Option<i64>,
}

/// The kinds of identifiers the store hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// Bots' ids ([`BotId`]).
    Bot,
    /// Matches' ids ([`MatchId`]).
    Match,
    /// Accounts' ids ([`AccountId`]).
    Account,
    /// Tournaments' ids ([`TournamentId`]).
    Tournament,
}

impl IdKind {
    /// Every kind.
    pub const ALL: [IdKind; 4] = [
        IdKind::Bot,
        IdKind::Match,
        IdKind::Account,
        IdKind::Tournament,
    ];

    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            IdKind::Bot => "bot",
            IdKind::Match => "match",
            IdKind::Account => "account",
            IdKind::Tournament => "tournament",
        }
    }

    /// This kind's id in `ids`.
    pub fn of(self, ids: &MaxIds) -> i64 {
        match self {
            IdKind::Bot => ids.bot,
            IdKind::Match => ids.r#match,
            IdKind::Account => ids.account,
            IdKind::Tournament => ids.tournament,
        }
    }
}

/// One bot's rating in one game mode. The rating itself is the rating system's business; the
/// store keeps it as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRecord {
    /// The bot.
    pub bot: BotId,
    /// The game mode (`game:variant`); opaque to the store.
    pub mode: String,
    /// The rating and record, as the rating system writes them.
    pub rating: Value,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_ms: i64,
}

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique key already exists (a bot name, an event's seq).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The database failed or is unreachable.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Stored data cannot be read back (it was written by another version, or damaged).
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
}

/// The future every [`Store`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The largest identifiers in use or reserved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxIds {
    /// The largest bot id, 0 if none.
    pub bot: BotId,
    /// The largest match id, 0 if none.
    pub r#match: MatchId,
    /// The largest account id ever used or reserved, deleted accounts included, 0 if none.
    pub account: AccountId,
    /// The largest tournament id, 0 if none.
    pub tournament: TournamentId,
}

/// A persistence backend.
pub trait Store: Send + Sync + 'static {
    /// Applies the writes in order, in one transaction, durably; all or nothing.
    fn write_batch<'a>(&'a self, writes: &'a [Write]) -> StoreFuture<'a, ()>;

    /// Every bot, deleted ones included.
    fn bots(&self) -> StoreFuture<'_, Vec<BotRecord>>;

    /// One bot, deleted or not.
    fn bot(&self, id: BotId) -> StoreFuture<'_, Option<BotRecord>>;

    /// One match.
    fn match_by_id(&self, id: MatchId) -> StoreFuture<'_, Option<MatchRecord>>;

    /// The matches that are pending or running.
    fn open_matches(&self) -> StoreFuture<'_, Vec<MatchRecord>>;

    /// The ids of the pending or running matches `bot` takes part in, in order. By default
    /// the open matches filtered; a store with an index by bot walks it instead.
    fn open_matches_of(&self, bot: BotId) -> StoreFuture<'_, Vec<MatchId>> {
        Box::pin(async move {
            let open = self.open_matches().await?;
            Ok(open
                .iter()
                .filter(|m| m.participants.contains(&bot))
                .map(|m| m.id)
                .collect())
        })
    }

    /// Matches of every status with ids above `after`, in the order of their ids, at most
    /// `limit`: every match, a page at a time.
    fn matches_after(&self, after: MatchId, limit: u32) -> StoreFuture<'_, Vec<MatchRecord>>;

    /// A match's events with `seq > since`, in order, at most `limit`.
    fn events(&self, id: MatchId, since: i64, limit: u32) -> StoreFuture<'_, Vec<EventRecord>>;

    /// The largest ids in use or reserved ([`Store::reserve_ids`], [`Write::IdsTaken`]).
    fn max_ids(&self) -> StoreFuture<'_, MaxIds>;

    /// Reserves `count` (at least 1) new consecutive ids of a kind and returns the first:
    /// each is larger than every id of that kind stored, taken or reserved before, by any
    /// process sharing the store, and is never reserved again. A reservation is durable once
    /// returned; ids reserved and never used are simply skipped.
    fn reserve_ids(&self, kind: IdKind, count: u32) -> StoreFuture<'_, i64>;

    /// The last heartbeat recorded, if any.
    fn last_heartbeat(&self) -> StoreFuture<'_, Option<i64>>;

    /// Every rating, by bot and then mode.
    fn ratings(&self) -> StoreFuture<'_, Vec<RatingRecord>>;

    /// One bot's ratings, by mode. By default every rating filtered; a store with an index
    /// by bot walks it instead.
    fn ratings_of(&self, bot: BotId) -> StoreFuture<'_, Vec<RatingRecord>> {
        Box::pin(async move {
            let mut all = self.ratings().await?;
            all.retain(|record| record.bot == bot);
            Ok(all)
        })
    }

    /// The closed matches (finished, aborted, rejected, expired), newest first: all of them,
    /// or those `bot` took part in as any of their participants; at most `limit`.
    fn closed_matches(&self, bot: Option<BotId>, limit: u32) -> StoreFuture<'_, Vec<MatchRecord>>;
    /// Every account.
    fn accounts(&self) -> StoreFuture<'_, Vec<AccountRecord>>;
    /// One account, if it exists (not deleted).
    fn account(&self, id: AccountId) -> StoreFuture<'_, Option<AccountRecord>>;
    /// The sessions of one account that have not ended at `now_ms`.
    fn sessions_of(&self, account: AccountId, now_ms: i64) -> StoreFuture<'_, Vec<SessionRecord>>;
    /// Every session that has not ended at `now_ms`.
    fn sessions(&self, now_ms: i64) -> StoreFuture<'_, Vec<SessionRecord>>;
    /// A bot's picture, if it has one.
    fn photo(&self, bot: BotId) -> StoreFuture<'_, Option<PhotoRecord>>;
    /// A bot's WebAssembly module, if it has one.
    fn module(&self, bot: BotId) -> StoreFuture<'_, Option<ModuleRecord>>;
    /// A match's operator notes, in the order they were added.
    fn notes(&self, id: MatchId) -> StoreFuture<'_, Vec<NoteRecord>>;
    /// Every tournament, newest first.
    fn tournaments(&self) -> StoreFuture<'_, Vec<TournamentRecord>>;
    /// One tournament, if it exists.
    fn tournament(&self, id: TournamentId) -> StoreFuture<'_, Option<TournamentRecord>>;
    /// The tournaments whose status is one of `statuses`, newest first: those still to be
    /// driven, without reading every finished one. By default every tournament filtered; a
    /// store with an index by status walks it instead.
    fn tournaments_with_status<'a>(
        &'a self,
        statuses: &'a [&'a str],
    ) -> StoreFuture<'a, Vec<TournamentRecord>> {
        Box::pin(async move {
            let mut all = self.tournaments().await?;
            all.retain(|record| statuses.contains(&record.status.as_str()));
            Ok(all)
        })
    }

    /// Claims for `node`, until `until_ms`, each of the matches `ids` whose lease is free at
    /// `now_ms`: never leased, lapsed, or already `node`'s. Two nodes claiming the same match
    /// at once never both win it. Returns the matches won, in no particular order.
    fn claim_matches<'a>(
        &'a self,
        node: &'a str,
        ids: &'a [MatchId],
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, Vec<Claim>>;

    /// Renews every lease `node` holds on an open match until `until_ms` (a lapsed one too,
    /// if no other node has claimed it since), forgets its leases on closed matches, and
    /// returns the open matches it holds.
    fn renew_leases<'a>(
        &'a self,
        node: &'a str,
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, Vec<MatchId>>;

    /// The open matches whose lease is free at `now_ms` (never leased, or lapsed), in the
    /// order of their ids: those of nodes that died, for another to take over.
    fn unleased_matches(&self, now_ms: i64) -> StoreFuture<'_, Vec<MatchId>>;

    /// A match's lease, lapsed or not, if it has one.
    fn lease(&self, id: MatchId) -> StoreFuture<'_, Option<LeaseRecord>>;

    /// Takes or keeps for `node`, until `until_ms`, the duty `name` (a job one server at a
    /// time does, such as auto-matching) if it is free at `now_ms`: never taken, lapsed, or
    /// already `node`'s. Returns whether `node` holds it now; of nodes asking at once, one
    /// does.
    fn hold_duty<'a>(
        &'a self,
        name: &'a str,
        node: &'a str,
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, bool>;
}
