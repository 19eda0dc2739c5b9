//! Copying every record of one store into another, and summing a store up to check the copy.
//!
//! [`copy`] reads the source through the [`Store`] trait a page at a time and writes what it
//! reads to the target in batches, so that any two backends copy into each other and neither
//! is held in memory whole. While it writes, it sums up what it wrote: per kind of record, a
//! count and a SHA-256 over each record's canonical form; then it sums up the target the same
//! way, by reading it back, and the copy is verified when the two summaries are equal.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::{MaxIds, Store, StoreError, Write};

/// Records per batch written to the target, and events per page read from the source.
const PAGE: u32 = 1_000;

/// Why a copy failed.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// A store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The target holds data already: a copy goes into an empty store only.
    #[error("the target already holds data ({0}); copy into an empty database")]
    NotEmpty(String),
    /// What the target holds after the copy is not what was read from the source.
    #[error(
        "the copy differs from the source in its {kind}: {source_side} read, {target_side} stored"
    )]
    Differs {
        /// The kind of record.
        kind: &'static str,
        /// The source's count and checksum.
        source_side: KindSummary,
        /// The target's count and checksum.
        target_side: KindSummary,
    },
}

/// One kind of record in a store: how many, and a checksum of all of them in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindSummary {
    /// How many records.
    pub count: u64,
    /// SHA-256 over the records' canonical forms, in hex.
    pub checksum: String,
}

impl fmt::Display for KindSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (sha256 {})", self.count, &self.checksum)
    }
}

/// A store summed up, per kind of record in a fixed order: bots, accounts, sessions (those
/// live at the time given), ratings, photos, modules, matches, events, notes, tournaments,
/// heartbeat, ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Each kind with its summary.
    pub kinds: Vec<(&'static str, KindSummary)>,
}

/// Sums records up as they pass.
#[derive(Default)]
struct Summer {
    kinds: BTreeMap<&'static str, (u64, Sha256)>,
}

/// The order kinds are reported in.
const KINDS: [&str; 12] = [
    "bots",
    "accounts",
    "sessions",
    "ratings",
    "photos",
    "modules",
    "matches",
    "events",
    "notes",
    "tournaments",
    "heartbeat",
    "ids",
];

impl Summer {
    fn add(&mut self, write: &Write) {
        let (kind, form): (&'static str, Vec<u8>) = match write {
            Write::PutBot(bot) => ("bots", serde_json::to_vec(bot).unwrap_or_default()),
            Write::PutAccount(a) => (
                "accounts",
                json!([a.id, a.name, a.password_hash, a.created_ms])
                    .to_string()
                    .into_bytes(),
            ),
            Write::PutSession(s) => (
                "sessions",
                json!([s.token_hash, s.account, s.created_ms, s.expires_ms])
                    .to_string()
                    .into_bytes(),
            ),
            Write::PutRating(r) => (
                "ratings",
                json!([r.bot, r.mode, r.rating, r.updated_ms])
                    .to_string()
                    .into_bytes(),
            ),
            Write::PutPhoto(p) => {
                let mut form = json!([p.bot, p.updated_ms]).to_string().into_bytes();
                form.extend_from_slice(&p.png);
                ("photos", form)
            }
            Write::PutModule(m) => {
                let mut form = json!([m.bot, m.sha256, m.uploaded_ms])
                    .to_string()
                    .into_bytes();
                form.extend_from_slice(&m.wasm);
                ("modules", form)
            }
            Write::PutMatch(m) => ("matches", serde_json::to_vec(m).unwrap_or_default()),
            Write::AppendEvent(e) => ("events", serde_json::to_vec(&**e).unwrap_or_default()),
            Write::AddNote(n) => (
                "notes",
                json!([n.match_id, n.participant, n.kind, n.data, n.at_ms])
                    .to_string()
                    .into_bytes(),
            ),
            Write::PutTournament(t) => (
                "tournaments",
                json!([t.id, t.status, t.created_ms, t.updated_ms, t.data])
                    .to_string()
                    .into_bytes(),
            ),
            Write::Heartbeat(ms) => ("heartbeat", ms.to_string().into_bytes()),
            Write::IdsTaken(ids) => (
                "ids",
                json!([ids.bot, ids.r#match, ids.account, ids.tournament])
                    .to_string()
                    .into_bytes(),
            ),
            // A copy writes nothing else.
            Write::BotSeen { .. }
            | Write::DeleteSession(_)
            | Write::DeleteSessionsOf { .. }
            | Write::DeleteAccount(_)
            | Write::DeleteModule(_)
            | Write::PutLease(_)
            | Write::ReleaseLeases { .. } => {
                return;
            }
        };
        let (count, hash) = self.kinds.entry(kind).or_default();
        *count += 1;
        // Each record's length first, so that no two sequences of records hash alike.
        hash.update((form.len() as u64).to_le_bytes());
        hash.update(&form);
    }

    fn finish(self) -> Summary {
        let mut kinds = self.kinds;
        Summary {
            kinds: KINDS
                .iter()
                .map(|kind| {
                    let (count, hash) = kinds.remove(kind).unwrap_or_default();
                    let checksum = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
                    (*kind, KindSummary { count, checksum })
                })
                .collect(),
        }
    }
}

/// Reads every record of `store` as the writes that would make it again, a batch at a time,
/// and hands each batch to `sink`.
async fn walk(
    store: &dyn Store,
    now_ms: i64,
    mut sink: impl AsyncFnMut(Vec<Write>) -> Result<(), CopyError>,
) -> Result<(), CopyError> {
    let mut batch = Vec::new();
    let bots = store.bots().await?;
    batch.extend(bots.iter().cloned().map(Write::PutBot));
    batch.extend(store.accounts().await?.into_iter().map(Write::PutAccount));
    batch.extend(
        store
            .sessions(now_ms)
            .await?
            .into_iter()
            .map(Write::PutSession),
    );
    batch.extend(store.ratings().await?.into_iter().map(Write::PutRating));
    sink(std::mem::take(&mut batch)).await?;
    for bot in &bots {
        if let Some(photo) = store.photo(bot.id).await? {
            sink(vec![Write::PutPhoto(Arc::new(photo))]).await?;
        }
        if let Some(module) = store.module(bot.id).await? {
            sink(vec![Write::PutModule(Arc::new(module))]).await?;
        }
    }
    let mut after = 0;
    loop {
        let matches = store.matches_after(after, PAGE).await?;
        let Some(last) = matches.last() else { break };
        after = last.id;
        for record in matches {
            let id = record.id;
            batch.push(Write::PutMatch(record));
            let mut since = 0;
            loop {
                let events = store.events(id, since, PAGE).await?;
                let Some(last) = events.last() else { break };
                since = last.seq;
                let full = events.len() == PAGE as usize;
                batch.extend(events.into_iter().map(|e| Write::AppendEvent(Arc::new(e))));
                if batch.len() >= PAGE as usize {
                    sink(std::mem::take(&mut batch)).await?;
                }
                if !full {
                    break;
                }
            }
            batch.extend(store.notes(id).await?.into_iter().map(Write::AddNote));
        }
        sink(std::mem::take(&mut batch)).await?;
    }
    // Tournaments are few and small: all of them make one batch.
    batch.extend(
        store
            .tournaments()
            .await?
            .into_iter()
            .map(Write::PutTournament),
    );
    if let Some(ms) = store.last_heartbeat().await? {
        batch.push(Write::Heartbeat(ms));
    }
    batch.push(Write::IdsTaken(store.max_ids().await?));
    sink(batch).await
}

/// Sums `store` up, with the sessions live at `now_ms`.
pub async fn summarize(store: &dyn Store, now_ms: i64) -> Result<Summary, CopyError> {
    let mut summer = Summer::default();
    walk(store, now_ms, async |writes: Vec<Write>| {
        writes.iter().for_each(|w| summer.add(w));
        Ok(())
    })
    .await?;
    Ok(summer.finish())
}

/// Copies every record of `from` into `to`, which must be empty, then checks that `to` holds
/// what was read; returns the summary both share. Sessions that have ended at `now_ms` are
/// left behind, and so are leases: the servers on `to` claim the open matches afresh. `progress` is told of each batch written, by how many records it holds.
///
/// Nothing else may write to either store meanwhile (stop the server first).
pub async fn copy(
    from: &dyn Store,
    to: &dyn Store,
    now_ms: i64,
    mut progress: impl FnMut(usize),
) -> Result<Summary, CopyError> {
    let held = to.max_ids().await?;
    if held != MaxIds::default() || !to.bots().await?.is_empty() {
        return Err(CopyError::NotEmpty(format!(
            "ids up to bot {}, match {}, account {}, tournament {}",
            held.bot, held.r#match, held.account, held.tournament
        )));
    }
    let mut summer = Summer::default();
    walk(from, now_ms, async |writes: Vec<Write>| {
        if writes.is_empty() {
            return Ok(());
        }
        writes.iter().for_each(|w| summer.add(w));
        to.write_batch(&writes).await?;
        progress(writes.len());
        Ok(())
    })
    .await?;
    let read = summer.finish();
    let stored = summarize(to, now_ms).await?;
    for ((kind, source_side), (_, target_side)) in read.kinds.iter().zip(&stored.kinds) {
        if source_side != target_side {
            return Err(CopyError::Differs {
                kind,
                source_side: source_side.clone(),
                target_side: target_side.clone(),
            });
        }
    }
    Ok(read)
}

/// A store filled with some of every kind of record, for backends' tests of [`copy`]: two
/// bots (one with a picture, the other with a WebAssembly module), an account with a live and
/// an ended session and a deleted one, ratings, a finished match with 2,500 events (more than
/// a page) and notes, a running match of three, two tournaments (one finished, one open), a
/// heartbeat.
pub async fn fill_sample(store: &dyn Store) -> Result<(), StoreError> {
    use crate::{
        AccountRecord, Audience, BotKind, BotRecord, EventRecord, MatchRecord, MatchStatus,
        ModuleRecord, NoteRecord, PhotoRecord, RatingRecord, SessionRecord, TournamentRecord,
    };
    let bot = |id: i64, name: &str| BotRecord {
        id,
        name: name.to_owned(),
        kind: BotKind::Registered,
        token_hash: Some(format!("hash-{id}")),
        token_prefix: Some("arbb_x".to_owned()),
        created_ms: 1_000 + id,
        last_seen_ms: 2_000,
        disabled: id == 2,
        deleted: false,
        profile: json!({"supported": ["main"], "bio": "émigré ♞"}),
    };
    let a_match = |id: i64, status, participants: Vec<i64>| MatchRecord {
        id,
        participants,
        game: "board".to_owned(),
        status,
        created_ms: 5_000 + id,
        seed: format!("seed-{id}"),
        details: json!({"variant": "main", "big": 9_007_199_254_740_993_u64, "x": 0.1}),
    };
    let mut writes = vec![
        Write::PutBot(bot(1, "Alpha")),
        Write::PutBot(bot(2, "beta")),
        Write::PutAccount(AccountRecord {
            id: 1,
            name: "Ada".to_owned(),
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$salt$hash".to_owned(),
            created_ms: 3_000,
        }),
        Write::PutAccount(AccountRecord {
            id: 2,
            name: "Gone".to_owned(),
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$salt$gone".to_owned(),
            created_ms: 3_001,
        }),
        Write::DeleteAccount(2),
        Write::PutSession(SessionRecord {
            token_hash: "live".to_owned(),
            account: 1,
            created_ms: 4_000,
            expires_ms: i64::MAX,
        }),
        Write::PutSession(SessionRecord {
            token_hash: "ended".to_owned(),
            account: 1,
            created_ms: 4_000,
            expires_ms: 4_001,
        }),
        Write::PutRating(RatingRecord {
            bot: 1,
            mode: "board:main".to_owned(),
            rating: json!({"rating": 1234.5, "games": 3}),
            updated_ms: 6_000,
        }),
        Write::PutPhoto(Arc::new(PhotoRecord {
            bot: 2,
            png: vec![0x89, b'P', b'N', b'G', 0, 255],
            updated_ms: 7_000,
        })),
        Write::PutModule(Arc::new(ModuleRecord {
            bot: 1,
            wasm: vec![0, b'a', b's', b'm', 1, 0, 0, 0, 255],
            sha256: "5d".repeat(32),
            uploaded_ms: 7_500,
        })),
        Write::PutMatch(a_match(3, MatchStatus::Finished, vec![1, 2])),
        Write::PutMatch(a_match(4, MatchStatus::Running, vec![2, 1, 2])),
        Write::AddNote(NoteRecord {
            match_id: 3,
            participant: Some(1),
            kind: "provenance".to_owned(),
            data: json!({"agent": "x"}),
            at_ms: 8_000,
        }),
        Write::AddNote(NoteRecord {
            match_id: 3,
            participant: None,
            kind: "fast".to_owned(),
            data: json!(null),
            at_ms: 8_001,
        }),
        Write::PutTournament(TournamentRecord {
            id: 1,
            status: "finished".to_owned(),
            created_ms: 8_100,
            updated_ms: 8_900,
            data: json!({
                "entrants": [1, 2],
                "rounds": [[{"match": 3}]],
                "standings": [{"bot": 1, "points": 1.0}, {"bot": 2, "points": 0.0}],
                "name": "Coupe d'été ♛",
            }),
        }),
        Write::PutTournament(TournamentRecord {
            id: 2,
            status: "open".to_owned(),
            created_ms: 8_200,
            updated_ms: 8_200,
            data: json!({"entrants": [], "big": 9_007_199_254_740_993_u64}),
        }),
        Write::Heartbeat(9_000),
    ];
    for seq in 1..=2_500 {
        writes.push(Write::AppendEvent(Arc::new(EventRecord {
            match_id: 3,
            seq,
            at_ms: 10_000 + seq,
            audience: if seq % 4 == 0 {
                Audience::Participant(1)
            } else {
                Audience::Everyone
            },
            kind: "move".to_owned(),
            payload: EventRecord::payload_of(&json!({"move": seq, "text": "a\"b\\c"})),
        })));
    }
    for seq in 1..=3 {
        writes.push(Write::AppendEvent(Arc::new(EventRecord {
            match_id: 4,
            seq,
            at_ms: 20_000 + seq,
            audience: Audience::Everyone,
            kind: "started".to_owned(),
            payload: EventRecord::payload_of(&json!({"n": seq})),
        })));
    }
    store.write_batch(&writes).await
}
