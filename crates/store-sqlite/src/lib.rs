//! The SQLite store: one file in WAL mode, created on first start.
//!
//! Writes go through one connection, so the store has a single writer, as SQLite wants; reads
//! use a small pool of their own connections, which WAL lets run alongside the writer. A batch
//! is one transaction sent as one multi-statement query, because every statement sqlx runs
//! costs a round trip to the connection's worker thread, and under load each round trip waits
//! for that thread to be scheduled; event appends are multi-row `INSERT`s for the same reason.
//! `synchronous = FULL`, so a commit survives power loss, not only a crash.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use arbiter_store::{
    AccountRecord, Audience, BotKind, BotRecord, Claim, EventRecord, IdKind, LeaseRecord,
    MatchRecord, MatchStatus, MaxIds, ModuleRecord, NoteRecord, PhotoRecord, RatingRecord,
    SessionRecord, Store, StoreError, StoreFuture, TournamentRecord, Write,
};
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteRow, SqliteSynchronous,
};
use sqlx::{ConnectOptions, Executor, QueryBuilder, Row, Sqlite};
use tokio::sync::Mutex;

/// Rows per multi-row `INSERT` (at most six parameters each, well under SQLite's limit of
/// 32,766).
const ROWS_PER_STATEMENT: usize = 1_000;

/// `SELECT`s a match `m`'s columns, its participants included: in order, as a JSON array
/// gathered by a subquery that reads one short range of `match_participants`' primary key, so
/// that a list of matches is still one query. A macro, so that `concat!` makes whole queries
/// `&'static str`s.
macro_rules! select_match {
    () => {
        "SELECT m.id, m.game, m.status, m.created_ms, m.seed, m.details,
                (SELECT json_group_array(mp.bot_id ORDER BY mp.participant)
                   FROM match_participants mp WHERE mp.match_id = m.id) AS participants"
    };
}

/// How often the WAL is copied back into the database file. Often, because the pass that holds
/// writes back costs a sync of the database file whatever it copies, and the WAL between two
/// rounds is what the next round must copy: at 10,000 moves/s, 200 ms gave a lower p99 latency
/// than 100 ms, 500 ms or 2 s.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(200);

/// Passes a checkpoint round makes at most while writes go on.
const CHECKPOINT_PASSES: usize = 4;

/// Few enough frames to copy while writes wait.
const FRAMES_LEFT_TO_HOLD: i64 = 64;

/// The most the WAL file keeps of its size once it starts over (after a burst made it grow).
const WAL_SIZE_LIMIT: &str = "67108864";

/// The SQLite-backed [`Store`].
pub struct SqliteStore {
    /// The one connection that writes. The checkpointer also locks it, for the moment it needs
    /// the WAL to stand still.
    writer: Arc<Mutex<SqliteConnection>>,
    checkpointer: Arc<Mutex<SqliteConnection>>,
    reader: SqlitePool,
    checkpoints: tokio::task::AbortHandle,
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.checkpoints.abort();
    }
}

fn unavailable(error: sqlx::Error) -> StoreError {
    match &error {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            StoreError::Conflict(db.message().to_owned())
        }
        _ => StoreError::Unavailable(error.to_string()),
    }
}

/// Copies the WAL back into the database file, forever.
///
/// SQLite starts the WAL over from its beginning only when a write finds every frame already
/// copied. Under a steady stream of commits a checkpoint running beside them never catches up,
/// so the file would grow without end, and appending to a growing file makes every commit's
/// sync slower than overwriting one. So each round first copies what is there while writes go
/// on, then holds writes back for the short moment it takes to copy the few frames added
/// meanwhile; the next write then starts the WAL over.
async fn checkpoint_forever(
    checkpointer: Arc<Mutex<SqliteConnection>>,
    writer: Arc<Mutex<SqliteConnection>>,
) {
    let mut interval = tokio::time::interval(CHECKPOINT_EVERY);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        checkpoint_round(&mut *checkpointer.lock().await, &writer).await;
    }
}

async fn checkpoint_round(checkpointer: &mut SqliteConnection, writer: &Mutex<SqliteConnection>) {
    let started = std::time::Instant::now();
    // Each pass copies what the commits during the previous one added; a few passes leave
    // little for the moment writes are held back.
    for _ in 0..CHECKPOINT_PASSES {
        if checkpoint(checkpointer).await <= FRAMES_LEFT_TO_HOLD {
            break;
        }
    }
    let copied = started.elapsed();
    let _held = writer.lock().await;
    let held = std::time::Instant::now();
    checkpoint(checkpointer).await;
    tracing::debug!(
        copying_us = copied.as_micros(),
        held_us = held.elapsed().as_micros(),
        "WAL checkpoint"
    );
}

/// One PASSIVE checkpoint; returns how many frames of the WAL it left uncopied.
async fn checkpoint(checkpointer: &mut SqliteConnection) -> i64 {
    // PASSIVE never waits for readers or the writer; what it cannot copy now, the next pass
    // copies.
    match sqlx::query_as::<_, (i64, i64, i64)>("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(checkpointer)
        .await
    {
        Ok((_busy, frames, copied)) => frames - copied,
        Err(error) => {
            tracing::warn!(%error, "WAL checkpoint failed");
            0
        }
    }
}

/// Builds one batch as a single query: `BEGIN IMMEDIATE`, every write, `COMMIT`.
///
/// Parameters are all positional `?`, which sqlx hands out to the statements in order. Puts
/// keep their order; event appends (unique keys, no dependencies) are gathered into multi-row
/// statements, and so are the participants of new matches; the transaction makes the order
/// invisible.
fn batch_query(writes: &[Write]) -> QueryBuilder<Sqlite> {
    let mut query: QueryBuilder<Sqlite> = QueryBuilder::new("BEGIN IMMEDIATE;\n");
    let mut events = Vec::new();
    let mut participants = Vec::new();
    let mut heartbeat = None;
    for write in writes {
        match write {
            Write::PutBot(bot) => {
                query.push(
                    "INSERT INTO bots (id, name, name_key, kind, token_hash, token_prefix, created_ms, last_seen_ms, disabled, deleted, profile) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(bot.id)
                    .push_bind(&bot.name)
                    .push_bind(bot.name.to_lowercase())
                    .push_bind(bot.kind.as_str())
                    .push_bind(&bot.token_hash)
                    .push_bind(&bot.token_prefix)
                    .push_bind(bot.created_ms)
                    .push_bind(bot.last_seen_ms)
                    .push_bind(bot.disabled)
                    .push_bind(bot.deleted)
                    .push_bind(bot.profile.to_string());
                query.push(
                    ") ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key, kind = excluded.kind,
                       token_hash = excluded.token_hash, token_prefix = excluded.token_prefix, created_ms = excluded.created_ms,
                       last_seen_ms = excluded.last_seen_ms, disabled = excluded.disabled, deleted = excluded.deleted,
                       profile = excluded.profile;\n",
                );
            }
            Write::PutMatch(m) => {
                query.push(
                    "INSERT INTO matches (id, game, status, created_ms, seed, details) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(m.id)
                    .push_bind(&m.game)
                    .push_bind(m.status.as_str())
                    .push_bind(m.created_ms)
                    .push_bind(&m.seed)
                    .push_bind(m.details.to_string());
                query.push(
                    ") ON CONFLICT (id) DO UPDATE SET game = excluded.game,
                       status = excluded.status, created_ms = excluded.created_ms, seed = excluded.seed, details = excluded.details;\n",
                );
                participants.extend(
                    m.participants
                        .iter()
                        .enumerate()
                        .map(|(participant, &bot)| (m.id, participant, bot)),
                );
            }
            Write::AppendEvent(event) => events.push(&**event),
            Write::Heartbeat(ms) => heartbeat = heartbeat.max(Some(*ms)),
            Write::BotSeen { bot, at_ms } => {
                query.push("UPDATE bots SET last_seen_ms = max(last_seen_ms, ");
                query.push_bind(*at_ms);
                query.push(") WHERE id = ");
                query.push_bind(*bot);
                query.push(";\n");
            }
            Write::PutRating(r) => {
                query.push("INSERT INTO ratings (bot_id, mode, rating, updated_ms) VALUES (");
                query
                    .separated(", ")
                    .push_bind(r.bot)
                    .push_bind(&r.mode)
                    .push_bind(r.rating.to_string())
                    .push_bind(r.updated_ms);
                query.push(
                    ") ON CONFLICT (bot_id, mode) DO UPDATE SET rating = excluded.rating, updated_ms = excluded.updated_ms;\n",
                );
            }
            Write::PutAccount(a) => {
                query.push(
                    "INSERT INTO accounts (id, name, name_key, password_hash, created_ms) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(a.id)
                    .push_bind(&a.name)
                    .push_bind(a.name.to_lowercase())
                    .push_bind(&a.password_hash)
                    .push_bind(a.created_ms);
                query.push(
                    ") ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key,
                       password_hash = excluded.password_hash, created_ms = excluded.created_ms;\n",
                );
            }
            Write::PutSession(session) => {
                query.push(
                    "INSERT INTO sessions (token_hash, account_id, created_ms, expires_ms) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(&session.token_hash)
                    .push_bind(session.account)
                    .push_bind(session.created_ms)
                    .push_bind(session.expires_ms);
                query.push(");\n");
            }
            Write::DeleteSession(hash) => {
                query.push("DELETE FROM sessions WHERE token_hash = ");
                query.push_bind(hash);
                query.push(";\n");
            }
            Write::DeleteSessionsOf { account, except } => {
                query.push("DELETE FROM sessions WHERE account_id = ");
                query.push_bind(account);
                if let Some(kept) = except {
                    query.push(" AND token_hash <> ");
                    query.push_bind(kept);
                }
                query.push(";\n");
            }
            Write::DeleteAccount(account) => {
                query.push("DELETE FROM sessions WHERE account_id = ");
                query.push_bind(account);
                query.push(";\nINSERT OR IGNORE INTO deleted_accounts (id) SELECT id FROM accounts WHERE id = ");
                query.push_bind(account);
                query.push(";\nDELETE FROM accounts WHERE id = ");
                query.push_bind(account);
                query.push(";\n");
            }
            Write::PutPhoto(photo) => {
                query.push("INSERT INTO bot_photos (bot_id, png, updated_ms) VALUES (");
                query
                    .separated(", ")
                    .push_bind(photo.bot)
                    .push_bind(&photo.png)
                    .push_bind(photo.updated_ms);
                query.push(
                    ") ON CONFLICT (bot_id) DO UPDATE SET png = excluded.png, updated_ms = excluded.updated_ms;\n",
                );
            }
            Write::PutModule(module) => {
                query.push("INSERT INTO bot_modules (bot_id, wasm, sha256, uploaded_ms) VALUES (");
                query
                    .separated(", ")
                    .push_bind(module.bot)
                    .push_bind(&module.wasm)
                    .push_bind(&module.sha256)
                    .push_bind(module.uploaded_ms);
                query.push(
                    ") ON CONFLICT (bot_id) DO UPDATE SET wasm = excluded.wasm, sha256 = excluded.sha256,
                       uploaded_ms = excluded.uploaded_ms;\n",
                );
            }
            Write::DeleteModule(bot) => {
                query.push("DELETE FROM bot_modules WHERE bot_id = ");
                query.push_bind(*bot);
                query.push(";\n");
            }
            Write::PutLease(lease) => {
                query.push(
                    "INSERT INTO match_leases (match_id, node, renewed_ms, expires_ms) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(lease.match_id)
                    .push_bind(&lease.node)
                    .push_bind(lease.renewed_ms)
                    .push_bind(lease.expires_ms);
                query.push(
                    ") ON CONFLICT (match_id) DO UPDATE SET node = excluded.node,
                       renewed_ms = excluded.renewed_ms, expires_ms = excluded.expires_ms;\n",
                );
            }
            Write::ReleaseLeases { node, at_ms } => {
                for table in ["match_leases", "duties"] {
                    query.push(format!("UPDATE {table} SET expires_ms = min(expires_ms, "));
                    query.push_bind(at_ms);
                    query.push(") WHERE node = ");
                    query.push_bind(node);
                    query.push(";\n");
                }
            }
            Write::IdsTaken(ids) => {
                for kind in IdKind::ALL {
                    query.push("UPDATE id_counters SET last = max(last, ");
                    query.push_bind(kind.of(ids));
                    query.push(") WHERE kind = ");
                    query.push_bind(kind.as_str());
                    query.push(";\n");
                }
            }
            Write::AddNote(note) => {
                query.push(
                    "INSERT INTO match_notes (match_id, participant, kind, data, at_ms) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(note.match_id)
                    .push_bind(note.participant.map(i64::from))
                    .push_bind(&note.kind)
                    .push_bind(note.data.to_string())
                    .push_bind(note.at_ms);
                query.push(");\n");
            }
            Write::PutTournament(t) => {
                query.push(
                    "INSERT INTO tournaments (id, status, created_ms, updated_ms, data) VALUES (",
                );
                query
                    .separated(", ")
                    .push_bind(t.id)
                    .push_bind(&t.status)
                    .push_bind(t.created_ms)
                    .push_bind(t.updated_ms)
                    .push_bind(t.data.to_string());
                query.push(
                    ") ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_ms = excluded.created_ms,
                       updated_ms = excluded.updated_ms, data = excluded.data;\n",
                );
            }
        }
    }
    // Participants never change once a match is created, and most puts update a match that
    // exists: those rows are already there, so a conflict keeps them rather than rewrite them.
    for chunk in participants.chunks(ROWS_PER_STATEMENT) {
        query.push("INSERT INTO match_participants (match_id, participant, bot_id) ");
        query.push_values(chunk, |mut row, &(id, participant, bot)| {
            row.push_bind(id)
                .push_bind(i64::try_from(participant).unwrap_or(i64::MAX))
                .push_bind(bot);
        });
        query.push(" ON CONFLICT (match_id, participant) DO NOTHING;\n");
    }
    for chunk in events.chunks(ROWS_PER_STATEMENT) {
        query.push("INSERT INTO match_events (match_id, seq, at_ms, audience, kind, payload) ");
        query.push_values(chunk, |mut row, event| {
            let audience = match event.audience {
                Audience::Everyone => None,
                Audience::Participant(p) => Some(i64::from(p)),
            };
            row.push_bind(event.match_id)
                .push_bind(event.seq)
                .push_bind(event.at_ms)
                .push_bind(audience)
                .push_bind(event.kind.as_str())
                .push_bind(event.payload.get());
        });
        query.push(";\n");
    }
    if let Some(ms) = heartbeat {
        query.push("INSERT INTO server_state (key, value) VALUES ('heartbeat_ms', ");
        query.push_bind(ms);
        query.push(") ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value);\n");
    }
    query.push("COMMIT;");
    query
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(what.to_owned())
}

fn corrupt_field(error: sqlx::Error) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

impl SqliteStore {
    /// Every rating (`bot` is `None`) or one bot's, by bot and then mode.
    fn read_ratings(&self, bot: Option<i64>) -> StoreFuture<'_, Vec<RatingRecord>> {
        Box::pin(async move {
            let rows = match bot {
                None => sqlx::query(
                    "SELECT bot_id, mode, rating, updated_ms FROM ratings ORDER BY bot_id, mode",
                )
                .fetch_all(&self.reader)
                .await,
                Some(bot) => {
                    sqlx::query(
                        "SELECT bot_id, mode, rating, updated_ms FROM ratings WHERE bot_id = $1
                      ORDER BY mode",
                    )
                    .bind(bot)
                    .fetch_all(&self.reader)
                    .await
                }
            }
            .map_err(unavailable)?;
            rows.iter()
                .map(|row| {
                    let field = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
                    let text: String = row.try_get("rating").map_err(field)?;
                    Ok(RatingRecord {
                        bot: row.try_get("bot_id").map_err(field)?,
                        mode: row.try_get("mode").map_err(field)?,
                        rating: serde_json::from_str(&text)
                            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        updated_ms: row.try_get("updated_ms").map_err(field)?,
                    })
                })
                .collect()
        })
    }

    /// Opens the database file, creating it and applying pending migrations as needed.
    pub async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str("sqlite://")
            .map_err(unavailable)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10))
            // A multi-row INSERT inside a transaction keeps a statement journal; in memory it
            // costs nothing, in a temporary file it costs a write per page.
            .pragma("temp_store", "memory")
            // Checkpoints run on their own connection (below): when a commit triggers one, that
            // commit, and every write queued behind it, waits tens of milliseconds.
            .pragma("wal_autocheckpoint", "0")
            .pragma("journal_size_limit", WAL_SIZE_LIMIT);
        let mut writer = options.connect().await.map_err(unavailable)?;
        sqlx::migrate!("./migrations")
            .run(&mut writer)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migrating {}: {e}", path.display())))?;
        let checkpointer = options.connect().await.map_err(unavailable)?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options.read_only(true))
            .await
            .map_err(unavailable)?;
        let writer = Arc::new(Mutex::new(writer));
        let checkpointer = Arc::new(Mutex::new(checkpointer));
        let checkpoints =
            tokio::spawn(checkpoint_forever(checkpointer.clone(), writer.clone())).abort_handle();
        Ok(SqliteStore {
            writer,
            checkpointer,
            reader,
            checkpoints,
        })
    }

    /// Copies the WAL back into the database file now, as the background task does every
    /// 200 ms, so that the next write starts the WAL over.
    pub async fn checkpoint(&self) {
        checkpoint_round(&mut *self.checkpointer.lock().await, &self.writer).await;
    }
}

fn json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn bot_from(row: &SqliteRow) -> Result<BotRecord, StoreError> {
    let get = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
    let kind: String = row.try_get("kind").map_err(get)?;
    let profile: String = row.try_get("profile").map_err(get)?;
    Ok(BotRecord {
        id: row.try_get("id").map_err(get)?,
        name: row.try_get("name").map_err(get)?,
        kind: BotKind::parse(&kind).ok_or_else(|| corrupt(&format!("bot kind {kind:?}")))?,
        token_hash: row.try_get("token_hash").map_err(get)?,
        token_prefix: row.try_get("token_prefix").map_err(get)?,
        created_ms: row.try_get("created_ms").map_err(get)?,
        last_seen_ms: row.try_get("last_seen_ms").map_err(get)?,
        disabled: row.try_get("disabled").map_err(get)?,
        deleted: row.try_get("deleted").map_err(get)?,
        profile: json(&profile)?,
    })
}

fn match_from(row: &SqliteRow) -> Result<MatchRecord, StoreError> {
    let get = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
    let status: String = row.try_get("status").map_err(get)?;
    let details: String = row.try_get("details").map_err(get)?;
    let participants: String = row.try_get("participants").map_err(get)?;
    Ok(MatchRecord {
        id: row.try_get("id").map_err(get)?,
        participants: serde_json::from_str(&participants)
            .map_err(|e| StoreError::Corrupt(format!("match participants: {e}")))?,
        game: row.try_get("game").map_err(get)?,
        status: MatchStatus::parse(&status)
            .ok_or_else(|| corrupt(&format!("match status {status:?}")))?,
        created_ms: row.try_get("created_ms").map_err(get)?,
        seed: row.try_get("seed").map_err(get)?,
        details: json(&details)?,
    })
}

fn tournament_from(row: &SqliteRow) -> Result<TournamentRecord, StoreError> {
    let data: String = row.try_get("data").map_err(corrupt_field)?;
    Ok(TournamentRecord {
        id: row.try_get("id").map_err(corrupt_field)?,
        status: row.try_get("status").map_err(corrupt_field)?,
        created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
        updated_ms: row.try_get("updated_ms").map_err(corrupt_field)?,
        data: json(&data)?,
    })
}

fn event_from(row: &SqliteRow) -> Result<EventRecord, StoreError> {
    let get = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
    let audience: Option<i64> = row.try_get("audience").map_err(get)?;
    let payload: String = row.try_get("payload").map_err(get)?;
    Ok(EventRecord {
        match_id: row.try_get("match_id").map_err(get)?,
        seq: row.try_get("seq").map_err(get)?,
        at_ms: row.try_get("at_ms").map_err(get)?,
        audience: match audience {
            None => Audience::Everyone,
            Some(p) => {
                Audience::Participant(u8::try_from(p).map_err(|_| corrupt("event audience"))?)
            }
        },
        kind: row.try_get("kind").map_err(get)?,
        payload: serde_json::value::RawValue::from_string(payload)
            .map_err(|e| StoreError::Corrupt(format!("event payload: {e}")))?,
    })
}

impl Store for SqliteStore {
    fn write_batch<'a>(&'a self, writes: &'a [Write]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut writer = self.writer.lock().await;
            let result = batch_query(writes).build().execute(&mut *writer).await;
            if let Err(error) = result {
                // The batch stopped at its first error, perhaps inside the transaction; undo
                // whatever part of it ran. Outside a transaction this fails harmlessly.
                let _ = writer.execute("ROLLBACK").await;
                return Err(unavailable(error));
            }
            Ok(())
        })
    }

    fn bots(&self) -> StoreFuture<'_, Vec<BotRecord>> {
        Box::pin(async move {
            let rows = sqlx::query("SELECT * FROM bots ORDER BY id")
                .fetch_all(&self.reader)
                .await
                .map_err(unavailable)?;
            rows.iter().map(bot_from).collect()
        })
    }

    fn bot(&self, id: i64) -> StoreFuture<'_, Option<BotRecord>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM bots WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.reader)
                .await
                .map_err(unavailable)?;
            row.as_ref().map(bot_from).transpose()
        })
    }

    fn match_by_id(&self, id: i64) -> StoreFuture<'_, Option<MatchRecord>> {
        Box::pin(async move {
            let row = sqlx::query(concat!(select_match!(), " FROM matches m WHERE m.id = $1"))
                .bind(id)
                .fetch_optional(&self.reader)
                .await
                .map_err(unavailable)?;
            row.as_ref().map(match_from).transpose()
        })
    }

    fn open_matches(&self) -> StoreFuture<'_, Vec<MatchRecord>> {
        Box::pin(async move {
            let rows = sqlx::query(concat!(
                select_match!(),
                " FROM matches m WHERE m.status IN ('pending', 'running') ORDER BY m.id"
            ))
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter().map(match_from).collect()
        })
    }

    fn open_matches_of(&self, bot: i64) -> StoreFuture<'_, Vec<i64>> {
        Box::pin(async move {
            // Walks the bot's index of participants.
            sqlx::query_scalar(
                "SELECT DISTINCT p.match_id FROM match_participants p
                   JOIN matches m ON m.id = p.match_id
                  WHERE p.bot_id = $1 AND m.status IN ('pending', 'running')
                  ORDER BY p.match_id",
            )
            .bind(bot)
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)
        })
    }

    fn matches_after(&self, after: i64, limit: u32) -> StoreFuture<'_, Vec<MatchRecord>> {
        Box::pin(async move {
            let rows = sqlx::query(concat!(
                select_match!(),
                " FROM matches m WHERE m.id > $1 ORDER BY m.id LIMIT $2"
            ))
            .bind(after)
            .bind(i64::from(limit))
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter().map(match_from).collect()
        })
    }

    fn events(&self, id: i64, since: i64, limit: u32) -> StoreFuture<'_, Vec<EventRecord>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT * FROM match_events WHERE match_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            )
            .bind(id)
            .bind(since)
            .bind(i64::from(limit))
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter().map(event_from).collect()
        })
    }

    fn max_ids(&self) -> StoreFuture<'_, MaxIds> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT max((SELECT coalesce(max(id), 0) FROM bots),
                            (SELECT last FROM id_counters WHERE kind = 'bot')) AS bot,
                        max((SELECT coalesce(max(id), 0) FROM matches),
                            (SELECT last FROM id_counters WHERE kind = 'match')) AS m,
                        max((SELECT coalesce(max(id), 0) FROM accounts),
                            (SELECT coalesce(max(id), 0) FROM deleted_accounts),
                            (SELECT last FROM id_counters WHERE kind = 'account')) AS account,
                        max((SELECT coalesce(max(id), 0) FROM tournaments),
                            (SELECT last FROM id_counters WHERE kind = 'tournament')) AS tournament",
            )
            .fetch_one(&self.reader)
            .await
            .map_err(unavailable)?;
            let get = |e: sqlx::Error| StoreError::Corrupt(e.to_string());
            Ok(MaxIds {
                bot: row.try_get("bot").map_err(get)?,
                r#match: row.try_get("m").map_err(get)?,
                account: row.try_get("account").map_err(get)?,
                tournament: row.try_get("tournament").map_err(get)?,
            })
        })
    }

    fn reserve_ids(&self, kind: IdKind, count: u32) -> StoreFuture<'_, i64> {
        Box::pin(async move {
            let count = i64::from(count.max(1));
            // The counter moves past the largest id stored too: rows written with ids of
            // their own never get a reserved id again. On the writer, as every write.
            let sql = match kind {
                IdKind::Bot => {
                    "UPDATE id_counters SET last = max(last, (SELECT coalesce(max(id), 0) FROM bots)) + $1
                      WHERE kind = 'bot' RETURNING last"
                }
                IdKind::Match => {
                    "UPDATE id_counters SET last = max(last, (SELECT coalesce(max(id), 0) FROM matches)) + $1
                      WHERE kind = 'match' RETURNING last"
                }
                IdKind::Account => {
                    "UPDATE id_counters SET last = max(last, (SELECT coalesce(max(id), 0) FROM accounts),
                                                   (SELECT coalesce(max(id), 0) FROM deleted_accounts)) + $1
                      WHERE kind = 'account' RETURNING last"
                }
                IdKind::Tournament => {
                    "UPDATE id_counters SET last = max(last, (SELECT coalesce(max(id), 0) FROM tournaments)) + $1
                      WHERE kind = 'tournament' RETURNING last"
                }
            };
            let mut writer = self.writer.lock().await;
            let last: i64 = sqlx::query_scalar(sql)
                .bind(count)
                .fetch_one(&mut *writer)
                .await
                .map_err(unavailable)?;
            Ok(last - count + 1)
        })
    }

    fn ratings(&self) -> StoreFuture<'_, Vec<RatingRecord>> {
        self.read_ratings(None)
    }

    fn ratings_of(&self, bot: i64) -> StoreFuture<'_, Vec<RatingRecord>> {
        self.read_ratings(Some(bot))
    }

    fn closed_matches(&self, bot: Option<i64>, limit: u32) -> StoreFuture<'_, Vec<MatchRecord>> {
        Box::pin(async move {
            let limit = i64::from(limit);
            let query = match bot {
                None => sqlx::query(concat!(
                    select_match!(),
                    " FROM matches m WHERE m.status NOT IN ('pending', 'running')
                       ORDER BY m.id DESC LIMIT $1"
                ))
                .bind(limit),
                // Walks the bot's index newest first and stops at the limit. A bot that is
                // more than one participant (self-play) took part in one match, hence the
                // grouping.
                Some(bot) => sqlx::query(concat!(
                    select_match!(),
                    " FROM match_participants p JOIN matches m ON m.id = p.match_id
                       WHERE p.bot_id = $1 AND m.status NOT IN ('pending', 'running')
                       GROUP BY p.match_id ORDER BY p.match_id DESC LIMIT $2"
                ))
                .bind(bot)
                .bind(limit),
            };
            let rows = query.fetch_all(&self.reader).await.map_err(unavailable)?;
            rows.iter().map(match_from).collect()
        })
    }

    fn accounts(&self) -> StoreFuture<'_, Vec<AccountRecord>> {
        Box::pin(async move {
            let rows =
                sqlx::query("SELECT id, name, password_hash, created_ms FROM accounts ORDER BY id")
                    .fetch_all(&self.reader)
                    .await
                    .map_err(unavailable)?;
            rows.iter()
                .map(|row| {
                    Ok(AccountRecord {
                        id: row.try_get("id").map_err(corrupt_field)?,
                        name: row.try_get("name").map_err(corrupt_field)?,
                        password_hash: row.try_get("password_hash").map_err(corrupt_field)?,
                        created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
                    })
                })
                .collect()
        })
    }

    fn account(&self, id: i64) -> StoreFuture<'_, Option<AccountRecord>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT id, name, password_hash, created_ms FROM accounts WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(unavailable)?;
            row.map(|row| {
                Ok(AccountRecord {
                    id: row.try_get("id").map_err(corrupt_field)?,
                    name: row.try_get("name").map_err(corrupt_field)?,
                    password_hash: row.try_get("password_hash").map_err(corrupt_field)?,
                    created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
                })
            })
            .transpose()
        })
    }

    fn sessions_of(&self, account: i64, now_ms: i64) -> StoreFuture<'_, Vec<SessionRecord>> {
        Box::pin(async move {
            let rows: Vec<(String, i64, i64)> = sqlx::query_as(
                "SELECT token_hash, created_ms, expires_ms FROM sessions
                  WHERE account_id = $1 AND expires_ms > $2 ORDER BY created_ms",
            )
            .bind(account)
            .bind(now_ms)
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            Ok(rows
                .into_iter()
                .map(|(token_hash, created_ms, expires_ms)| SessionRecord {
                    token_hash,
                    account,
                    created_ms,
                    expires_ms,
                })
                .collect())
        })
    }

    fn sessions(&self, now_ms: i64) -> StoreFuture<'_, Vec<SessionRecord>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT token_hash, account_id, created_ms, expires_ms FROM sessions
                  WHERE expires_ms > $1 ORDER BY created_ms",
            )
            .bind(now_ms)
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter()
                .map(|row| {
                    Ok(SessionRecord {
                        token_hash: row.try_get("token_hash").map_err(corrupt_field)?,
                        account: row.try_get("account_id").map_err(corrupt_field)?,
                        created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
                        expires_ms: row.try_get("expires_ms").map_err(corrupt_field)?,
                    })
                })
                .collect()
        })
    }

    fn photo(&self, bot: i64) -> StoreFuture<'_, Option<PhotoRecord>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT png, updated_ms FROM bot_photos WHERE bot_id = $1")
                .bind(bot)
                .fetch_optional(&self.reader)
                .await
                .map_err(unavailable)?;
            row.map(|row| {
                Ok(PhotoRecord {
                    bot,
                    png: row.try_get("png").map_err(corrupt_field)?,
                    updated_ms: row.try_get("updated_ms").map_err(corrupt_field)?,
                })
            })
            .transpose()
        })
    }

    fn module(&self, bot: i64) -> StoreFuture<'_, Option<ModuleRecord>> {
        Box::pin(async move {
            let row =
                sqlx::query("SELECT wasm, sha256, uploaded_ms FROM bot_modules WHERE bot_id = $1")
                    .bind(bot)
                    .fetch_optional(&self.reader)
                    .await
                    .map_err(unavailable)?;
            row.map(|row| {
                Ok(ModuleRecord {
                    bot,
                    wasm: row.try_get("wasm").map_err(corrupt_field)?,
                    sha256: row.try_get("sha256").map_err(corrupt_field)?,
                    uploaded_ms: row.try_get("uploaded_ms").map_err(corrupt_field)?,
                })
            })
            .transpose()
        })
    }

    fn notes(&self, id: i64) -> StoreFuture<'_, Vec<NoteRecord>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT participant, kind, data, at_ms FROM match_notes WHERE match_id = $1 ORDER BY id",
            )
            .bind(id)
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter()
                .map(|row| {
                    let participant: Option<i64> =
                        row.try_get("participant").map_err(corrupt_field)?;
                    let participant = participant
                        .map(|p| u8::try_from(p).map_err(|_| corrupt("a note's participant")))
                        .transpose()?;
                    Ok(NoteRecord {
                        match_id: id,
                        participant,
                        kind: row.try_get("kind").map_err(corrupt_field)?,
                        data: json(&row.try_get::<String, _>("data").map_err(corrupt_field)?)?,
                        at_ms: row.try_get("at_ms").map_err(corrupt_field)?,
                    })
                })
                .collect()
        })
    }

    fn tournaments(&self) -> StoreFuture<'_, Vec<TournamentRecord>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id, status, created_ms, updated_ms, data FROM tournaments ORDER BY id DESC",
            )
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter().map(tournament_from).collect()
        })
    }

    fn tournaments_with_status<'a>(
        &'a self,
        statuses: &'a [&'a str],
    ) -> StoreFuture<'a, Vec<TournamentRecord>> {
        Box::pin(async move {
            let statuses = serde_json::to_string(statuses).map_err(|e| corrupt(&e.to_string()))?;
            let rows = sqlx::query(
                "SELECT id, status, created_ms, updated_ms, data FROM tournaments \
                 WHERE status IN (SELECT value FROM json_each($1)) ORDER BY id DESC",
            )
            .bind(statuses)
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)?;
            rows.iter().map(tournament_from).collect()
        })
    }

    fn tournament(&self, id: i64) -> StoreFuture<'_, Option<TournamentRecord>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT id, status, created_ms, updated_ms, data FROM tournaments WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(unavailable)?;
            row.as_ref().map(tournament_from).transpose()
        })
    }

    fn claim_matches<'a>(
        &'a self,
        node: &'a str,
        ids: &'a [i64],
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, Vec<Claim>> {
        Box::pin(async move {
            let ids = serde_json::to_string(ids).map_err(|e| corrupt(&e.to_string()))?;
            // On the writer, so that nothing changes between reading the leases and taking
            // them.
            let mut writer = self.writer.lock().await;
            let before: Vec<(i64, i64)> = sqlx::query_as(
                "SELECT match_id, renewed_ms FROM match_leases
                  WHERE match_id IN (SELECT value FROM json_each($1))",
            )
            .bind(&ids)
            .fetch_all(&mut *writer)
            .await
            .map_err(unavailable)?;
            let won: Vec<i64> = sqlx::query_scalar(
                "INSERT INTO match_leases (match_id, node, renewed_ms, expires_ms)
                 SELECT m.id, $2, $3, $4 FROM matches m
                  WHERE m.id IN (SELECT value FROM json_each($1))
                    AND m.status IN ('pending', 'running')
                 ON CONFLICT (match_id) DO UPDATE SET node = excluded.node,
                    renewed_ms = excluded.renewed_ms, expires_ms = excluded.expires_ms
                  WHERE match_leases.node = excluded.node OR match_leases.expires_ms <= $3
                 RETURNING match_id",
            )
            .bind(&ids)
            .bind(node)
            .bind(now_ms)
            .bind(until_ms)
            .fetch_all(&mut *writer)
            .await
            .map_err(unavailable)?;
            Ok(won
                .into_iter()
                .map(|match_id| Claim {
                    match_id,
                    renewed_ms: before
                        .iter()
                        .find(|(id, _)| *id == match_id)
                        .map(|&(_, renewed)| renewed),
                })
                .collect())
        })
    }

    fn renew_leases<'a>(
        &'a self,
        node: &'a str,
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, Vec<i64>> {
        Box::pin(async move {
            let mut writer = self.writer.lock().await;
            sqlx::query(
                "DELETE FROM match_leases WHERE node = $1 AND match_id IN
                    (SELECT id FROM matches WHERE status NOT IN ('pending', 'running'))",
            )
            .bind(node)
            .execute(&mut *writer)
            .await
            .map_err(unavailable)?;
            sqlx::query_scalar(
                "UPDATE match_leases SET renewed_ms = $2, expires_ms = $3 WHERE node = $1
                 RETURNING match_id",
            )
            .bind(node)
            .bind(now_ms)
            .bind(until_ms)
            .fetch_all(&mut *writer)
            .await
            .map_err(unavailable)
        })
    }

    fn unleased_matches(&self, now_ms: i64) -> StoreFuture<'_, Vec<i64>> {
        Box::pin(async move {
            sqlx::query_scalar(
                "SELECT m.id FROM matches m LEFT JOIN match_leases l ON l.match_id = m.id
                  WHERE m.status IN ('pending', 'running')
                    AND (l.match_id IS NULL OR l.expires_ms <= $1)
                  ORDER BY m.id",
            )
            .bind(now_ms)
            .fetch_all(&self.reader)
            .await
            .map_err(unavailable)
        })
    }

    fn lease(&self, id: i64) -> StoreFuture<'_, Option<LeaseRecord>> {
        Box::pin(async move {
            let row: Option<(String, i64, i64)> = sqlx::query_as(
                "SELECT node, renewed_ms, expires_ms FROM match_leases WHERE match_id = $1",
            )
            .bind(id)
            .fetch_optional(&self.reader)
            .await
            .map_err(unavailable)?;
            Ok(row.map(|(node, renewed_ms, expires_ms)| LeaseRecord {
                match_id: id,
                node,
                renewed_ms,
                expires_ms,
            }))
        })
    }

    fn hold_duty<'a>(
        &'a self,
        name: &'a str,
        node: &'a str,
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut writer = self.writer.lock().await;
            let held: Option<String> = sqlx::query_scalar(
                "INSERT INTO duties (name, node, expires_ms) VALUES ($1, $2, $4)
                 ON CONFLICT (name) DO UPDATE SET node = excluded.node, expires_ms = excluded.expires_ms
                  WHERE duties.node = excluded.node OR duties.expires_ms <= $3
                 RETURNING node",
            )
            .bind(name)
            .bind(node)
            .bind(now_ms)
            .bind(until_ms)
            .fetch_optional(&mut *writer)
            .await
            .map_err(unavailable)?;
            Ok(held.is_some())
        })
    }

    fn last_heartbeat(&self) -> StoreFuture<'_, Option<i64>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT value FROM server_state WHERE key = 'heartbeat_ms'")
                .fetch_optional(&self.reader)
                .await
                .map_err(unavailable)?;
            row.map(|r| {
                r.try_get("value")
                    .map_err(|e| StoreError::Corrupt(e.to_string()))
            })
            .transpose()
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn passes_the_store_conformance_suite() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(&dir.path().join("arbiter.db"))
            .await
            .expect("open");
        arbiter_store::conformance::check_all(Arc::new(store)).await;
    }

    #[tokio::test]
    async fn copies_into_another_store() {
        let dir = tempfile::tempdir().expect("temp dir");
        let from = SqliteStore::open(&dir.path().join("from.db"))
            .await
            .expect("open");
        let to = SqliteStore::open(&dir.path().join("to.db"))
            .await
            .expect("open");
        arbiter_store::conformance::check_copy(Arc::new(from), Arc::new(to)).await;
    }

    #[tokio::test]
    async fn reopening_keeps_data_and_migrations_are_idempotent() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("nested.db");
        {
            let store = SqliteStore::open(&path).await.expect("open");
            store
                .write_batch(&[Write::Heartbeat(7)])
                .await
                .expect("write");
        }
        let store = SqliteStore::open(&path).await.expect("reopen");
        assert_eq!(store.last_heartbeat().await.expect("read"), Some(7));
    }

    /// Without checkpoints that catch up, the WAL would grow by every commit forever.
    #[tokio::test]
    async fn after_a_checkpoint_the_wal_starts_over_instead_of_growing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("arbiter.db");
        let store = SqliteStore::open(&path).await.expect("open");
        let wal_size =
            || std::fs::metadata(dir.path().join("arbiter.db-wal")).map_or(0, |m| m.len());
        let commits = |from: i64| {
            let store = &store;
            async move {
                for at in from..from + 100 {
                    store
                        .write_batch(&[Write::Heartbeat(at)])
                        .await
                        .expect("write");
                }
            }
        };
        commits(0).await;
        let grown = wal_size();
        assert!(grown > 50 * 4096, "each commit appends a frame: {grown}");
        store.checkpoint().await;
        commits(100).await;
        // Appending would double the file; starting over leaves it about the same size.
        assert!(
            wal_size() < grown * 3 / 2,
            "the second hundred commits reused the file: {} after {grown}",
            wal_size()
        );
        assert_eq!(store.last_heartbeat().await.expect("read"), Some(199));
    }

    #[tokio::test]
    async fn a_missing_directory_is_a_clear_error() {
        let error = SqliteStore::open(Path::new("/nonexistent-dir/arbiter.db"))
            .await
            .err()
            .expect("cannot open");
        assert!(matches!(error, StoreError::Unavailable(_)), "{error}");
    }
}
