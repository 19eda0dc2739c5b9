//! The PostgreSQL store: one database that several server nodes share.
//!
//! It keeps the same records as the SQLite store, behind the same [`Store`] trait, and passes
//! the same conformance suite. A batch is one transaction on one pooled connection: each kind
//! of put is one prepared statement, and a batch's event appends and new participants are one
//! `INSERT … SELECT FROM UNNEST(…)` each, whatever their number, so that a group commit of
//! hundreds of moves costs a handful of round trips and one commit. PostgreSQL's default
//! `synchronous_commit = on` makes the commit durable before it is acknowledged.
//!
//! Migrations are versioned and embedded; they take PostgreSQL's advisory lock, so nodes that
//! start together migrate the database once.

use std::str::FromStr;
use std::time::Duration;

use arbiter_store::{
    AccountRecord, Audience, BotKind, BotRecord, Claim, EventRecord, IdKind, LeaseRecord,
    MatchRecord, MatchStatus, MaxIds, ModuleRecord, NoteRecord, PhotoRecord, RatingRecord,
    SessionRecord, Store, StoreError, StoreFuture, TournamentRecord, Write,
};
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::{ConnectOptions, PgConnection, Row};

pub mod testing;

/// Connections the pool opens at most: the group-commit writer uses one at a time, readers
/// the rest.
const MAX_CONNECTIONS: u32 = 16;

/// `SELECT`s a match `m`'s columns, its participants included, in order, gathered by a
/// subquery that reads one short range of `match_participants`' primary key. A macro, so that
/// `concat!` makes whole queries `&'static str`s.
macro_rules! select_match {
    () => {
        "SELECT m.id, m.game, m.status, m.created_ms, m.seed, m.details,
                ARRAY(SELECT mp.bot_id FROM match_participants mp
                       WHERE mp.match_id = m.id ORDER BY mp.participant) AS participants"
    };
}

/// The PostgreSQL-backed [`Store`].
pub struct PostgresStore {
    pool: PgPool,
}

fn unavailable(error: sqlx::Error) -> StoreError {
    match &error {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            StoreError::Conflict(db.message().to_owned())
        }
        _ => StoreError::Unavailable(error.to_string()),
    }
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(what.to_owned())
}

fn corrupt_field(error: sqlx::Error) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

fn json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(e.to_string()))
}

impl PostgresStore {
    /// Every rating (`bot` is `None`) or one bot's, by bot and then mode.
    fn read_ratings(&self, bot: Option<i64>) -> StoreFuture<'_, Vec<RatingRecord>> {
        Box::pin(async move {
            let rows = match bot {
                None => sqlx::query(
                    "SELECT bot_id, mode, rating, updated_ms FROM ratings ORDER BY bot_id, mode",
                )
                .fetch_all(&self.pool)
                .await,
                Some(bot) => {
                    sqlx::query(
                        "SELECT bot_id, mode, rating, updated_ms FROM ratings WHERE bot_id = $1
                      ORDER BY mode",
                    )
                    .bind(bot)
                    .fetch_all(&self.pool)
                    .await
                }
            }
            .map_err(unavailable)?;
            rows.iter()
                .map(|row| {
                    let text: String = row.try_get("rating").map_err(corrupt_field)?;
                    Ok(RatingRecord {
                        bot: row.try_get("bot_id").map_err(corrupt_field)?,
                        mode: row.try_get("mode").map_err(corrupt_field)?,
                        rating: json(&text)?,
                        updated_ms: row.try_get("updated_ms").map_err(corrupt_field)?,
                    })
                })
                .collect()
        })
    }

    /// Connects to the database at `url` (`postgres://user@host:port/database`, with any of
    /// libpq's parameters sqlx reads, such as `options=-c search_path=…`) and applies pending
    /// migrations.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(StoreError::Unavailable(
                "the database address must start with postgres:// or postgresql://".to_owned(),
            ));
        }
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| StoreError::Unavailable(format!("reading the database address: {e}")))?
            // Statements are logged at trace level only: the writer runs thousands a second.
            .log_statements(tracing::log::LevelFilter::Trace);
        // One connection first, so that an unreachable server is reported at once rather than
        // retried until the pool's timeout; it applies the migrations.
        let mut first = options.connect().await.map_err(unavailable)?;
        sqlx::migrate!("./migrations")
            .run(&mut first)
            .await
            .map_err(|e| StoreError::Unavailable(format!("migrating the database: {e}")))?;
        drop(first);
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy_with(options);
        Ok(PostgresStore { pool })
    }
}

/// A batch's event appends, as one array per column for `UNNEST`.
#[derive(Default)]
struct EventColumns<'a> {
    match_id: Vec<i64>,
    seq: Vec<i64>,
    at_ms: Vec<i64>,
    audience: Vec<Option<i16>>,
    kind: Vec<&'a str>,
    payload: Vec<&'a str>,
}

impl<'a> EventColumns<'a> {
    /// The columns of the event appends among `writes`.
    fn of(writes: &'a [Write]) -> EventColumns<'a> {
        let mut events = EventColumns::default();
        for write in writes {
            if let Write::AppendEvent(event) = write {
                events.push(event);
            }
        }
        events
    }

    fn push(&mut self, event: &'a EventRecord) {
        self.match_id.push(event.match_id);
        self.seq.push(event.seq);
        self.at_ms.push(event.at_ms);
        self.audience.push(match event.audience {
            Audience::Everyone => None,
            Audience::Participant(p) => Some(i16::from(p)),
        });
        self.kind.push(&event.kind);
        self.payload.push(event.payload.get());
    }

    /// Inserts the events, if there are any, in one statement.
    async fn insert<'c, E>(&self, executor: E) -> Result<(), sqlx::Error>
    where
        E: sqlx::Executor<'c, Database = sqlx::Postgres>,
    {
        if self.match_id.is_empty() {
            return Ok(());
        }
        sqlx::query(
            "INSERT INTO match_events (match_id, seq, at_ms, audience, kind, payload)
             SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::BIGINT[], $4::SMALLINT[],
                                  $5::TEXT[], $6::TEXT[])",
        )
        .bind(&self.match_id)
        .bind(&self.seq)
        .bind(&self.at_ms)
        .bind(&self.audience)
        .bind(&self.kind)
        .bind(&self.payload)
        .execute(executor)
        .await?;
        Ok(())
    }
}

/// A batch's match participants, as one array per column for `UNNEST`.
#[derive(Default)]
struct ParticipantColumns {
    match_id: Vec<i64>,
    participant: Vec<i16>,
    bot_id: Vec<i64>,
}

/// Applies the writes in order on a connection inside a transaction; event appends and
/// participants go last, as one statement each (they are new rows that nothing in the batch
/// reads, so the transaction makes the order invisible).
async fn apply(conn: &mut PgConnection, writes: &[Write]) -> Result<(), sqlx::Error> {
    let mut events = EventColumns::default();
    let mut participants = ParticipantColumns::default();
    let mut heartbeat = None;
    for write in writes {
        match write {
            Write::PutBot(bot) => {
                sqlx::query(
                    "INSERT INTO bots (id, name, name_key, kind, token_hash, token_prefix, created_ms,
                                       last_seen_ms, disabled, deleted, profile)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                     ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key,
                       kind = excluded.kind, token_hash = excluded.token_hash,
                       token_prefix = excluded.token_prefix, created_ms = excluded.created_ms,
                       last_seen_ms = excluded.last_seen_ms, disabled = excluded.disabled,
                       deleted = excluded.deleted, profile = excluded.profile",
                )
                .bind(bot.id)
                .bind(&bot.name)
                .bind(bot.name.to_lowercase())
                .bind(bot.kind.as_str())
                .bind(&bot.token_hash)
                .bind(&bot.token_prefix)
                .bind(bot.created_ms)
                .bind(bot.last_seen_ms)
                .bind(bot.disabled)
                .bind(bot.deleted)
                .bind(bot.profile.to_string())
                .execute(&mut *conn)
                .await?;
            }
            Write::PutMatch(m) => {
                sqlx::query(
                    "INSERT INTO matches (id, game, status, created_ms, seed, details)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (id) DO UPDATE SET game = excluded.game, status = excluded.status,
                       created_ms = excluded.created_ms, seed = excluded.seed, details = excluded.details",
                )
                .bind(m.id)
                .bind(&m.game)
                .bind(m.status.as_str())
                .bind(m.created_ms)
                .bind(&m.seed)
                .bind(m.details.to_string())
                .execute(&mut *conn)
                .await?;
                for (participant, &bot) in m.participants.iter().enumerate() {
                    participants.match_id.push(m.id);
                    participants
                        .participant
                        .push(i16::try_from(participant).unwrap_or(i16::MAX));
                    participants.bot_id.push(bot);
                }
            }
            Write::AppendEvent(event) => events.push(event),
            Write::Heartbeat(ms) => heartbeat = heartbeat.max(Some(*ms)),
            Write::BotSeen { bot, at_ms } => {
                sqlx::query(
                    "UPDATE bots SET last_seen_ms = GREATEST(last_seen_ms, $2) WHERE id = $1",
                )
                .bind(bot)
                .bind(at_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::PutRating(r) => {
                sqlx::query(
                    "INSERT INTO ratings (bot_id, mode, rating, updated_ms) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (bot_id, mode) DO UPDATE SET rating = excluded.rating,
                       updated_ms = excluded.updated_ms",
                )
                .bind(r.bot)
                .bind(&r.mode)
                .bind(r.rating.to_string())
                .bind(r.updated_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::PutAccount(a) => {
                sqlx::query(
                    "INSERT INTO accounts (id, name, name_key, password_hash, created_ms)
                     VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key,
                       password_hash = excluded.password_hash, created_ms = excluded.created_ms",
                )
                .bind(a.id)
                .bind(&a.name)
                .bind(a.name.to_lowercase())
                .bind(&a.password_hash)
                .bind(a.created_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::PutSession(session) => {
                sqlx::query(
                    "INSERT INTO sessions (token_hash, account_id, created_ms, expires_ms)
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(&session.token_hash)
                .bind(session.account)
                .bind(session.created_ms)
                .bind(session.expires_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::DeleteSession(hash) => {
                sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                    .bind(hash)
                    .execute(&mut *conn)
                    .await?;
            }
            Write::DeleteSessionsOf { account, except } => {
                sqlx::query(
                    "DELETE FROM sessions WHERE account_id = $1
                       AND ($2::TEXT IS NULL OR token_hash <> $2)",
                )
                .bind(account)
                .bind(except)
                .execute(&mut *conn)
                .await?;
            }
            Write::DeleteAccount(account) => {
                sqlx::query(
                    "WITH gone_sessions AS (DELETE FROM sessions WHERE account_id = $1),
                          gone AS (DELETE FROM accounts WHERE id = $1 RETURNING id)
                     INSERT INTO deleted_accounts (id) SELECT id FROM gone
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(account)
                .execute(&mut *conn)
                .await?;
            }
            Write::PutPhoto(photo) => {
                sqlx::query(
                    "INSERT INTO bot_photos (bot_id, png, updated_ms) VALUES ($1, $2, $3)
                     ON CONFLICT (bot_id) DO UPDATE SET png = excluded.png,
                       updated_ms = excluded.updated_ms",
                )
                .bind(photo.bot)
                .bind(&photo.png)
                .bind(photo.updated_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::PutModule(module) => {
                sqlx::query(
                    "INSERT INTO bot_modules (bot_id, wasm, sha256, uploaded_ms) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (bot_id) DO UPDATE SET wasm = excluded.wasm,
                       sha256 = excluded.sha256, uploaded_ms = excluded.uploaded_ms",
                )
                .bind(module.bot)
                .bind(&module.wasm)
                .bind(&module.sha256)
                .bind(module.uploaded_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::DeleteModule(bot) => {
                sqlx::query("DELETE FROM bot_modules WHERE bot_id = $1")
                    .bind(bot)
                    .execute(&mut *conn)
                    .await?;
            }
            Write::PutLease(lease) => {
                sqlx::query(
                    "INSERT INTO match_leases (match_id, node, renewed_ms, expires_ms)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (match_id) DO UPDATE SET node = excluded.node,
                       renewed_ms = excluded.renewed_ms, expires_ms = excluded.expires_ms",
                )
                .bind(lease.match_id)
                .bind(&lease.node)
                .bind(lease.renewed_ms)
                .bind(lease.expires_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::ReleaseLeases { node, at_ms } => {
                sqlx::query(
                    "UPDATE match_leases SET expires_ms = LEAST(expires_ms, $2) WHERE node = $1",
                )
                .bind(node)
                .bind(at_ms)
                .execute(&mut *conn)
                .await?;
                sqlx::query("UPDATE duties SET expires_ms = LEAST(expires_ms, $2) WHERE node = $1")
                    .bind(node)
                    .bind(at_ms)
                    .execute(&mut *conn)
                    .await?;
            }
            Write::IdsTaken(ids) => {
                sqlx::query(
                    "UPDATE id_counters SET last = GREATEST(id_counters.last, taken.last)
                       FROM UNNEST($1::TEXT[], $2::BIGINT[]) AS taken (kind, last)
                      WHERE id_counters.kind = taken.kind",
                )
                .bind(IdKind::ALL.map(IdKind::as_str))
                .bind(IdKind::ALL.map(|kind| kind.of(ids)))
                .execute(&mut *conn)
                .await?;
            }
            Write::AddNote(note) => {
                sqlx::query(
                    "INSERT INTO match_notes (match_id, participant, kind, data, at_ms)
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(note.match_id)
                .bind(note.participant.map(i16::from))
                .bind(&note.kind)
                .bind(note.data.to_string())
                .bind(note.at_ms)
                .execute(&mut *conn)
                .await?;
            }
            Write::PutTournament(t) => {
                sqlx::query(
                    "INSERT INTO tournaments (id, status, created_ms, updated_ms, data)
                     VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (id) DO UPDATE SET status = excluded.status,
                       created_ms = excluded.created_ms, updated_ms = excluded.updated_ms,
                       data = excluded.data",
                )
                .bind(t.id)
                .bind(&t.status)
                .bind(t.created_ms)
                .bind(t.updated_ms)
                .bind(t.data.to_string())
                .execute(&mut *conn)
                .await?;
            }
        }
    }
    // Participants never change once a match is created, and most puts update a match that
    // exists: those rows are already there, so a conflict keeps them.
    if !participants.match_id.is_empty() {
        sqlx::query(
            "INSERT INTO match_participants (match_id, participant, bot_id)
             SELECT * FROM UNNEST($1::BIGINT[], $2::SMALLINT[], $3::BIGINT[])
             ON CONFLICT (match_id, participant) DO NOTHING",
        )
        .bind(&participants.match_id)
        .bind(&participants.participant)
        .bind(&participants.bot_id)
        .execute(&mut *conn)
        .await?;
    }
    events.insert(&mut *conn).await?;
    if let Some(ms) = heartbeat {
        sqlx::query(
            "INSERT INTO server_state (key, value) VALUES ('heartbeat_ms', $1)
             ON CONFLICT (key) DO UPDATE SET value = GREATEST(server_state.value, excluded.value)",
        )
        .bind(ms)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

fn bot_from(row: &PgRow) -> Result<BotRecord, StoreError> {
    let kind: String = row.try_get("kind").map_err(corrupt_field)?;
    let profile: String = row.try_get("profile").map_err(corrupt_field)?;
    Ok(BotRecord {
        id: row.try_get("id").map_err(corrupt_field)?,
        name: row.try_get("name").map_err(corrupt_field)?,
        kind: BotKind::parse(&kind).ok_or_else(|| corrupt(&format!("bot kind {kind:?}")))?,
        token_hash: row.try_get("token_hash").map_err(corrupt_field)?,
        token_prefix: row.try_get("token_prefix").map_err(corrupt_field)?,
        created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
        last_seen_ms: row.try_get("last_seen_ms").map_err(corrupt_field)?,
        disabled: row.try_get("disabled").map_err(corrupt_field)?,
        deleted: row.try_get("deleted").map_err(corrupt_field)?,
        profile: json(&profile)?,
    })
}

fn match_from(row: &PgRow) -> Result<MatchRecord, StoreError> {
    let status: String = row.try_get("status").map_err(corrupt_field)?;
    let details: String = row.try_get("details").map_err(corrupt_field)?;
    Ok(MatchRecord {
        id: row.try_get("id").map_err(corrupt_field)?,
        participants: row.try_get("participants").map_err(corrupt_field)?,
        game: row.try_get("game").map_err(corrupt_field)?,
        status: MatchStatus::parse(&status)
            .ok_or_else(|| corrupt(&format!("match status {status:?}")))?,
        created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
        seed: row.try_get("seed").map_err(corrupt_field)?,
        details: json(&details)?,
    })
}

fn participant_from(stored: Option<i16>, what: &str) -> Result<Option<u8>, StoreError> {
    stored
        .map(|p| u8::try_from(p).map_err(|_| corrupt(what)))
        .transpose()
}

fn tournament_from(row: &PgRow) -> Result<TournamentRecord, StoreError> {
    let data: String = row.try_get("data").map_err(corrupt_field)?;
    Ok(TournamentRecord {
        id: row.try_get("id").map_err(corrupt_field)?,
        status: row.try_get("status").map_err(corrupt_field)?,
        created_ms: row.try_get("created_ms").map_err(corrupt_field)?,
        updated_ms: row.try_get("updated_ms").map_err(corrupt_field)?,
        data: json(&data)?,
    })
}

fn event_from(row: &PgRow) -> Result<EventRecord, StoreError> {
    let audience: Option<i16> = row.try_get("audience").map_err(corrupt_field)?;
    let payload: String = row.try_get("payload").map_err(corrupt_field)?;
    Ok(EventRecord {
        match_id: row.try_get("match_id").map_err(corrupt_field)?,
        seq: row.try_get("seq").map_err(corrupt_field)?,
        at_ms: row.try_get("at_ms").map_err(corrupt_field)?,
        audience: match participant_from(audience, "event audience")? {
            None => Audience::Everyone,
            Some(p) => Audience::Participant(p),
        },
        kind: row.try_get("kind").map_err(corrupt_field)?,
        payload: serde_json::value::RawValue::from_string(payload)
            .map_err(|e| StoreError::Corrupt(format!("event payload: {e}")))?,
    })
}

impl Store for PostgresStore {
    fn write_batch<'a>(&'a self, writes: &'a [Write]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // A batch of event appends alone, the usual batch while matches are played, is
            // one statement, which is atomic on its own: sent without `BEGIN` and `COMMIT`, it
            // takes one round trip to the database instead of three.
            if writes
                .iter()
                .all(|write| matches!(write, Write::AppendEvent(_)))
            {
                return EventColumns::of(writes)
                    .insert(&self.pool)
                    .await
                    .map_err(unavailable);
            }
            let mut transaction = self.pool.begin().await.map_err(unavailable)?;
            // Dropped without a commit on an error, the transaction rolls back.
            apply(&mut transaction, writes).await.map_err(unavailable)?;
            transaction.commit().await.map_err(unavailable)
        })
    }

    fn bots(&self) -> StoreFuture<'_, Vec<BotRecord>> {
        Box::pin(async move {
            let rows = sqlx::query("SELECT * FROM bots ORDER BY id")
                .fetch_all(&self.pool)
                .await
                .map_err(unavailable)?;
            rows.iter().map(bot_from).collect()
        })
    }

    fn bot(&self, id: i64) -> StoreFuture<'_, Option<BotRecord>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM bots WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(unavailable)?;
            row.as_ref().map(bot_from).transpose()
        })
    }

    fn match_by_id(&self, id: i64) -> StoreFuture<'_, Option<MatchRecord>> {
        Box::pin(async move {
            let row = sqlx::query(concat!(select_match!(), " FROM matches m WHERE m.id = $1"))
                .bind(id)
                .fetch_optional(&self.pool)
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
            .fetch_all(&self.pool)
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
            .fetch_all(&self.pool)
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
            .fetch_all(&self.pool)
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
            .fetch_all(&self.pool)
            .await
            .map_err(unavailable)?;
            rows.iter().map(event_from).collect()
        })
    }

    fn max_ids(&self) -> StoreFuture<'_, MaxIds> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT GREATEST((SELECT coalesce(max(id), 0) FROM bots),
                                 (SELECT last FROM id_counters WHERE kind = 'bot')) AS bot,
                        GREATEST((SELECT coalesce(max(id), 0) FROM matches),
                                 (SELECT last FROM id_counters WHERE kind = 'match')) AS m,
                        GREATEST((SELECT coalesce(max(id), 0) FROM accounts),
                                 (SELECT coalesce(max(id), 0) FROM deleted_accounts),
                                 (SELECT last FROM id_counters WHERE kind = 'account')) AS account,
                        GREATEST((SELECT coalesce(max(id), 0) FROM tournaments),
                                 (SELECT last FROM id_counters WHERE kind = 'tournament')) AS tournament",
            )
            .fetch_one(&self.pool)
            .await
            .map_err(unavailable)?;
            Ok(MaxIds {
                bot: row.try_get("bot").map_err(corrupt_field)?,
                r#match: row.try_get("m").map_err(corrupt_field)?,
                account: row.try_get("account").map_err(corrupt_field)?,
                tournament: row.try_get("tournament").map_err(corrupt_field)?,
            })
        })
    }

    fn reserve_ids(&self, kind: IdKind, count: u32) -> StoreFuture<'_, i64> {
        Box::pin(async move {
            let count = i64::from(count.max(1));
            // The counter moves past the largest id stored too: rows written with ids of
            // their own never get a reserved id again. The counter row's lock orders nodes
            // reserving at once, and each sees the other's update before adding its own.
            let sql = match kind {
                IdKind::Bot => {
                    "UPDATE id_counters
                        SET last = GREATEST(last, (SELECT coalesce(max(id), 0) FROM bots)) + $1
                      WHERE kind = 'bot' RETURNING last"
                }
                IdKind::Match => {
                    "UPDATE id_counters
                        SET last = GREATEST(last, (SELECT coalesce(max(id), 0) FROM matches)) + $1
                      WHERE kind = 'match' RETURNING last"
                }
                IdKind::Account => {
                    "UPDATE id_counters
                        SET last = GREATEST(last, (SELECT coalesce(max(id), 0) FROM accounts),
                                            (SELECT coalesce(max(id), 0) FROM deleted_accounts)) + $1
                      WHERE kind = 'account' RETURNING last"
                }
                IdKind::Tournament => {
                    "UPDATE id_counters
                        SET last = GREATEST(last, (SELECT coalesce(max(id), 0) FROM tournaments)) + $1
                      WHERE kind = 'tournament' RETURNING last"
                }
            };
            let last: i64 = sqlx::query_scalar(sql)
                .bind(count)
                .fetch_one(&self.pool)
                .await
                .map_err(unavailable)?;
            Ok(last - count + 1)
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
            // One statement: the upsert takes each lease atomically (a node claiming the same
            // match at once waits for the row, then finds it taken), and `before`, read from
            // the statement's snapshot, says when each was renewed before.
            let rows: Vec<(i64, Option<i64>)> = sqlx::query_as(
                "WITH before AS (
                     SELECT match_id, renewed_ms FROM match_leases WHERE match_id = ANY($1)
                 ), won AS (
                     INSERT INTO match_leases (match_id, node, renewed_ms, expires_ms)
                     SELECT m.id, $2, $3, $4 FROM matches m
                      WHERE m.id = ANY($1) AND m.status IN ('pending', 'running')
                     ON CONFLICT (match_id) DO UPDATE SET node = excluded.node,
                        renewed_ms = excluded.renewed_ms, expires_ms = excluded.expires_ms
                      WHERE match_leases.node = excluded.node OR match_leases.expires_ms <= $3
                     RETURNING match_id
                 )
                 SELECT won.match_id, before.renewed_ms FROM won LEFT JOIN before USING (match_id)",
            )
            .bind(ids)
            .bind(node)
            .bind(now_ms)
            .bind(until_ms)
            .fetch_all(&self.pool)
            .await
            .map_err(unavailable)?;
            Ok(rows
                .into_iter()
                .map(|(match_id, renewed_ms)| Claim {
                    match_id,
                    renewed_ms,
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
            let mut transaction = self.pool.begin().await.map_err(unavailable)?;
            sqlx::query(
                "DELETE FROM match_leases l USING matches m
                  WHERE l.node = $1 AND m.id = l.match_id
                    AND m.status NOT IN ('pending', 'running')",
            )
            .bind(node)
            .execute(&mut *transaction)
            .await
            .map_err(unavailable)?;
            let held = sqlx::query_scalar(
                "UPDATE match_leases SET renewed_ms = $2, expires_ms = $3 WHERE node = $1
                 RETURNING match_id",
            )
            .bind(node)
            .bind(now_ms)
            .bind(until_ms)
            .fetch_all(&mut *transaction)
            .await
            .map_err(unavailable)?;
            transaction.commit().await.map_err(unavailable)?;
            Ok(held)
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
            .fetch_all(&self.pool)
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
            .fetch_optional(&self.pool)
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
            // The upsert takes the row atomically: a node asking at the same moment waits for
            // it, then finds it held.
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
            .fetch_optional(&self.pool)
            .await
            .map_err(unavailable)?;
            Ok(held.is_some())
        })
    }

    fn last_heartbeat(&self) -> StoreFuture<'_, Option<i64>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT value FROM server_state WHERE key = 'heartbeat_ms'")
                .fetch_optional(&self.pool)
                .await
                .map_err(unavailable)?;
            row.map(|r| r.try_get("value").map_err(corrupt_field))
                .transpose()
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
                // A bot that is more than one participant (self-play) took part in one match,
                // hence the DISTINCT.
                Some(bot) => sqlx::query(concat!(
                    select_match!(),
                    " FROM matches m
                       JOIN (SELECT DISTINCT p.match_id FROM match_participants p
                              WHERE p.bot_id = $1) mine ON mine.match_id = m.id
                      WHERE m.status NOT IN ('pending', 'running')
                      ORDER BY m.id DESC LIMIT $2"
                ))
                .bind(bot)
                .bind(limit),
            };
            let rows = query.fetch_all(&self.pool).await.map_err(unavailable)?;
            rows.iter().map(match_from).collect()
        })
    }

    fn accounts(&self) -> StoreFuture<'_, Vec<AccountRecord>> {
        Box::pin(async move {
            let rows =
                sqlx::query("SELECT id, name, password_hash, created_ms FROM accounts ORDER BY id")
                    .fetch_all(&self.pool)
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
            .fetch_optional(&self.pool)
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
            .fetch_all(&self.pool)
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
            .fetch_all(&self.pool)
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
                .fetch_optional(&self.pool)
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
                    .fetch_optional(&self.pool)
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
            .fetch_all(&self.pool)
            .await
            .map_err(unavailable)?;
            rows.iter()
                .map(|row| {
                    let participant: Option<i16> =
                        row.try_get("participant").map_err(corrupt_field)?;
                    let data: String = row.try_get("data").map_err(corrupt_field)?;
                    Ok(NoteRecord {
                        match_id: id,
                        participant: participant_from(participant, "a note's participant")?,
                        kind: row.try_get("kind").map_err(corrupt_field)?,
                        data: json(&data)?,
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
            .fetch_all(&self.pool)
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
            let rows = sqlx::query(
                "SELECT id, status, created_ms, updated_ms, data FROM tournaments \
                 WHERE status = ANY($1) ORDER BY id DESC",
            )
            .bind(statuses)
            .fetch_all(&self.pool)
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
            .fetch_optional(&self.pool)
            .await
            .map_err(unavailable)?;
            row.as_ref().map(tournament_from).transpose()
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arbiter_store::conformance::check_copy;
    use arbiter_store_sqlite::SqliteStore;

    use super::*;
    use crate::testing::TestDatabase;

    #[tokio::test]
    async fn passes_the_store_conformance_suite() {
        let Some(database) = TestDatabase::create("conformance").await else {
            return;
        };
        let store = PostgresStore::connect(database.url())
            .await
            .expect("connect");
        arbiter_store::conformance::check_all(Arc::new(store)).await;
        database.drop_schema().await;
    }

    #[tokio::test]
    async fn copies_from_sqlite_and_back() {
        let Some(first) = TestDatabase::create("copy_in").await else {
            return;
        };
        let Some(second) = TestDatabase::create("copy_out").await else {
            return;
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let sqlite = |name: &str| {
            let path = dir.path().join(name);
            async move { Arc::new(SqliteStore::open(&path).await.expect("open")) }
        };
        let postgres = |database: &TestDatabase| {
            let url = database.url().to_owned();
            async move { Arc::new(PostgresStore::connect(&url).await.expect("connect")) }
        };
        check_copy(sqlite("from.db").await, postgres(&first).await).await;
        check_copy(postgres(&second).await, sqlite("to.db").await).await;
        first.drop_schema().await;
        second.drop_schema().await;
    }

    #[tokio::test]
    async fn reconnecting_keeps_data_and_migrations_are_idempotent() {
        let Some(database) = TestDatabase::create("reconnect").await else {
            return;
        };
        {
            let store = PostgresStore::connect(database.url())
                .await
                .expect("connect");
            store
                .write_batch(&[Write::Heartbeat(7), Write::Heartbeat(3)])
                .await
                .expect("write");
        }
        let store = PostgresStore::connect(database.url())
            .await
            .expect("reconnect");
        store
            .write_batch(&[Write::Heartbeat(5)])
            .await
            .expect("write");
        // The heartbeat only moves forward, whatever order the writes come in.
        assert_eq!(store.last_heartbeat().await.expect("read"), Some(7));
        database.drop_schema().await;
    }

    #[tokio::test]
    async fn an_unreachable_server_is_a_clear_error() {
        // Port 1 on the loopback refuses at once.
        let error = PostgresStore::connect("postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
            .await
            .err()
            .expect("cannot connect");
        assert!(matches!(error, StoreError::Unavailable(_)), "{error}");
        let error = PostgresStore::connect("mysql://elsewhere")
            .await
            .err()
            .expect("not a PostgreSQL address");
        assert!(error.to_string().contains("database address"), "{error}");
    }
}
