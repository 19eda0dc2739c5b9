//! A database written by the previous release (the store's fixture, from before matches named
//! their participants in a table of their own) is upgraded in place, and the arena loads its
//! finished match, resumes its running match where it stopped, and keeps its challenge.

use std::sync::Arc;

use arbiter_arena::{Arena, ArenaConfig, Games, ManualClock, MatchStatus, Reader};
use arbiter_store::Store;
use arbiter_store_sqlite::SqliteStore;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../store-sqlite/tests/fixtures/previous-release.sqlite"
);

#[tokio::test]
async fn the_previous_release_s_matches_load_after_the_upgrade() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    std::fs::copy(FIXTURE, &path).expect("copy the fixture");
    let store = SqliteStore::open(&path).await.expect("the upgrade runs");
    // The server restarts a second after it last said it was alive, so nothing is aborted for
    // the outage and the running match resumes.
    let heartbeat = store
        .last_heartbeat()
        .await
        .expect("readable")
        .expect("the old server beat");
    let clock = ManualClock::new(heartbeat + 1_000);
    let games = Games::new().with(&arbiter_othello_plugin::FAMILY);
    let arena = Arena::start(
        ArenaConfig::default(),
        games,
        Arc::new(clock),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts on the upgraded database");

    let finished = arena.snapshot(1, Reader::SPECTATOR).await.expect("match 1");
    assert_eq!(finished.status, MatchStatus::Finished, "{finished:?}");
    let ranking = finished.result.as_ref().and_then(|r| r.ranking.as_ref());
    assert_eq!(
        ranking.map(|r| (r.totals.clone(), r.winner)),
        Some((vec![64, 64], None)),
        "a draw: {finished:?}"
    );
    let ids: Vec<i64> = finished.participants.iter().map(|p| p.id).collect();
    assert_eq!(ids, [6, 7]);

    let running = arena.snapshot(2, Reader::SPECTATOR).await.expect("match 2");
    assert_eq!(running.status, MatchStatus::Running, "{running:?}");
    let revisions: Vec<u64> = running.legs.iter().map(|l| l.revision).collect();
    assert_eq!(revisions, [4, 2], "every stored move replayed: {running:?}");
    assert_eq!(running.participants[0].id, 7);

    let pending = arena.snapshot(3, Reader::SPECTATOR).await.expect("match 3");
    assert_eq!(pending.status, MatchStatus::Pending, "{pending:?}");
    arena.shutdown().await;
}
