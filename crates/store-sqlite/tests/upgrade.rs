//! A database written by the release before `match_participants` existed, upgraded in place.
//!
//! `fixtures/previous-release.sqlite` was written by a real server of that release (see
//! `fixtures/README.md`): its `matches` rows name their two participants in `bot_a` and
//! `bot_b`. Opening a copy with the current store runs the migrations on it; nothing it held may
//! be lost, and the matches must read back with their participants in order.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use arbiter_store::{Audience, EventRecord, IdKind, MatchRecord, MatchStatus, Store, Write};
use arbiter_store_sqlite::SqliteStore;
use serde_json::json;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Row};

const ALPHA: i64 = 6;
const BETA: i64 = 7;
const GAMMA: i64 = 8;

/// What the old release stored, as read from the fixture before the upgrade: its matches with
/// `bot_a` and `bot_b`, how many events each has, and the status.
struct OldMatch {
    id: i64,
    bot_a: i64,
    bot_b: i64,
    status: MatchStatus,
    events: usize,
}

/// The fixture's matches, as its README records them.
const OLD_MATCHES: [OldMatch; 3] = [
    OldMatch {
        id: 1,
        bot_a: ALPHA,
        bot_b: BETA,
        status: MatchStatus::Finished,
        events: 113,
    },
    OldMatch {
        id: 2,
        bot_a: BETA,
        bot_b: ALPHA,
        status: MatchStatus::Running,
        events: 9,
    },
    OldMatch {
        id: 3,
        bot_a: GAMMA,
        bot_b: ALPHA,
        status: MatchStatus::Pending,
        events: 1,
    },
];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/previous-release.sqlite")
}

/// A `matches` row of the old schema: `(id, bot_a, bot_b, game, status, created_ms, seed,
/// details)`.
type OldMatchRow = (i64, i64, i64, String, String, i64, String, String);
/// A `match_events` row: `(match_id, seq, at_ms, audience, kind, payload)`.
type EventRow = (i64, i64, i64, Option<i64>, String, String);

/// Everything about the old database the upgrade must keep, read with plain SQL: every match's
/// row and every event.
async fn read_old(path: &Path) -> (Vec<OldMatchRow>, Vec<EventRow>) {
    let mut db = SqliteConnectOptions::from_str("sqlite://")
        .expect("options")
        .filename(path)
        .read_only(true)
        .connect()
        .await
        .expect("open the old database");
    let matches = sqlx::query_as(
        "SELECT id, bot_a, bot_b, game, status, created_ms, seed, details FROM matches ORDER BY id",
    )
    .fetch_all(&mut db)
    .await
    .expect("old matches");
    let events = sqlx::query_as(
        "SELECT match_id, seq, at_ms, audience, kind, payload FROM match_events ORDER BY match_id, seq",
    )
    .fetch_all(&mut db)
    .await
    .expect("old events");
    (matches, events)
}

fn ids(matches: &[MatchRecord]) -> Vec<i64> {
    matches.iter().map(|m| m.id).collect()
}

#[tokio::test]
async fn a_database_of_the_previous_release_is_upgraded_in_place_without_loss() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.db");
    std::fs::copy(fixture(), &path).expect("copy the fixture");
    let (old_matches, old_events) = read_old(&path).await;
    // The fixture is what the README says it is.
    assert_eq!(
        old_matches
            .iter()
            .map(|m| (m.0, m.1, m.2, m.4.as_str()))
            .collect::<Vec<_>>(),
        OLD_MATCHES
            .iter()
            .map(|m| (m.id, m.bot_a, m.bot_b, m.status.as_str()))
            .collect::<Vec<_>>()
    );

    let store = SqliteStore::open(&path).await.expect("open and migrate");

    // Every match keeps its row and has its two participants in the old order.
    for (id, bot_a, bot_b, game, status, created_ms, seed, details) in &old_matches {
        let record = store
            .match_by_id(*id)
            .await
            .expect("read")
            .expect("the match is still there");
        assert_eq!(
            record,
            MatchRecord {
                id: *id,
                participants: vec![*bot_a, *bot_b],
                game: game.clone(),
                status: MatchStatus::parse(status).expect("status"),
                created_ms: *created_ms,
                seed: seed.clone(),
                details: serde_json::from_str(details).expect("details"),
            }
        );
    }

    // Every event is there, byte for byte.
    let mut events = Vec::new();
    for old in &OLD_MATCHES {
        let stored = store.events(old.id, 0, u32::MAX).await.expect("events");
        assert_eq!(stored.len(), old.events, "match {}", old.id);
        events.extend(stored);
    }
    let as_tuple = |e: &EventRecord| {
        let audience = match e.audience {
            Audience::Everyone => None,
            Audience::Participant(p) => Some(i64::from(p)),
        };
        let payload = e.payload.get().to_owned();
        (
            e.match_id,
            e.seq,
            e.at_ms,
            audience,
            e.kind.clone(),
            payload,
        )
    };
    assert_eq!(events.iter().map(as_tuple).collect::<Vec<_>>(), old_events);
    let finished = store.events(1, 0, u32::MAX).await.expect("events");
    assert_eq!(
        finished.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=113).collect::<Vec<_>>()
    );
    assert_eq!(
        finished
            .iter()
            .filter(|e| e.kind == "finished" || e.kind == "rated")
            .count(),
        2,
        "the result and its rating are kept"
    );

    // The running match and the pending challenge are open, with their participants.
    let open = store.open_matches().await.expect("open");
    assert_eq!(ids(&open), vec![2, 3]);
    assert_eq!(open[0].participants, vec![BETA, ALPHA]);
    assert_eq!(open[1].participants, vec![GAMMA, ALPHA]);
    assert_eq!(open[1].status, MatchStatus::Pending);

    // The finished match is found for each of its bots, and only for them.
    for bot in [ALPHA, BETA] {
        let closed = store.closed_matches(Some(bot), 10).await.expect("closed");
        assert_eq!(ids(&closed), vec![1], "bot {bot}");
        assert_eq!(closed[0].participants, vec![ALPHA, BETA]);
    }
    assert!(
        store
            .closed_matches(Some(GAMMA), 10)
            .await
            .expect("closed")
            .is_empty()
    );

    // The rest of the database came through too.
    assert_eq!(store.bots().await.expect("bots").len(), 8);
    assert_eq!(store.ratings().await.expect("ratings").len(), 2);
    assert_eq!(store.max_ids().await.expect("max ids").r#match, 3);

    // Kinds of ids newer than the fixture are counted from the start: their counter rows are
    // added by the migrations, or reservations of them would find no row to move.
    assert_eq!(store.max_ids().await.expect("max ids").tournament, 0);
    assert_eq!(
        store
            .reserve_ids(IdKind::Tournament, 2)
            .await
            .expect("tournament ids"),
        1
    );
    assert_eq!(store.max_ids().await.expect("max ids").tournament, 2);
    assert!(store.tournaments().await.expect("tournaments").is_empty());

    // A match of three participants can be written and read back.
    let three = MatchRecord {
        id: 4,
        participants: vec![GAMMA, ALPHA, BETA],
        game: "othello".to_owned(),
        status: MatchStatus::Finished,
        created_ms: 1_800_000_000_000,
        seed: "seed-4".to_owned(),
        details: json!({"variant": "std"}),
    };
    store
        .write_batch(&[Write::PutMatch(three.clone())])
        .await
        .expect("write");
    assert_eq!(
        store.match_by_id(4).await.expect("read"),
        Some(three.clone())
    );
    let closed = store.closed_matches(Some(BETA), 10).await.expect("closed");
    assert_eq!(ids(&closed), vec![4, 1], "found for its third participant");
    assert_eq!(closed[0], three);

    // The old columns are gone: participants live in one place only.
    drop(store);
    let mut db = SqliteConnectOptions::from_str("sqlite://")
        .expect("options")
        .filename(&path)
        .read_only(true)
        .connect()
        .await
        .expect("open");
    let columns: Vec<String> = sqlx::query("SELECT name FROM pragma_table_info('matches')")
        .fetch_all(&mut db)
        .await
        .expect("columns")
        .iter()
        .map(|row| row.get("name"))
        .collect();
    assert_eq!(
        columns,
        ["id", "game", "status", "created_ms", "seed", "details"]
    );
    drop(db);

    // Opening the upgraded file again migrates nothing more and loses nothing.
    let store = SqliteStore::open(&path).await.expect("reopen");
    assert_eq!(store.match_by_id(4).await.expect("read"), Some(three));
    assert_eq!(ids(&store.open_matches().await.expect("open")), vec![2, 3]);
}
