//! A server's data copied from SQLite into PostgreSQL: a finished match still verifies there,
//! a running match resumes there with nothing lost and its clocks charged nothing for the
//! downtime, and new ids come after the copied ones. Runs against the PostgreSQL server that
//! `ARBITER_TEST_POSTGRES_URL` names, and skips without it.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use arbiter_arena::{
    Arena, ArenaConfig, Bot, Clock, Games, ManualClock, MatchStatus, Reader, Verdict,
};
use arbiter_store::copy::copy;
use arbiter_store_postgres::PostgresStore;
use arbiter_store_postgres::testing::TestDatabase;
use arbiter_store_sqlite::SqliteStore;

mod support;

use support::{T0, challenge_accepted, goofspiel, play};

async fn start(store: Arc<dyn arbiter_store::Store>, clock: Arc<ManualClock>) -> Arena {
    Arena::start(
        ArenaConfig::default(),
        Games::new().with(&arbiter_goofspiel::FAMILY),
        clock,
        store,
        None,
    )
    .await
    .expect("the arena starts")
}

async fn challenge(arena: &Arena, players: &[Bot; 2]) -> i64 {
    challenge_accepted(arena, players, goofspiel(&players[1], 60_000, false)).await
}

#[tokio::test]
async fn a_copy_into_postgres_resumes_running_matches_and_keeps_finished_ones() {
    let Some(database) = TestDatabase::create("migrate_arena").await else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let arena = start(
        Arc::new(SqliteStore::open(&path).await.expect("store")),
        clock.clone(),
    )
    .await;
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let mut players = Vec::new();
    for label in ["ann", "bob"] {
        players.push(
            arena
                .mint_anonymous(ip, Some(label), None)
                .await
                .expect("bot")
                .0,
        );
    }
    let players: [Bot; 2] = players.try_into().expect("two");
    let finished = challenge(&arena, &players).await;
    play(&arena, &clock, &players, finished, usize::MAX).await;
    let running = challenge(&arena, &players).await;
    assert_eq!(play(&arena, &clock, &players, running, 4).await, 4);
    let before = arena
        .snapshot(running, Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert_eq!(before.status, MatchStatus::Running);
    let events_before = arena
        .events(running, Reader::SPECTATOR, 0, 0)
        .await
        .expect("events")
        .events;
    arena.shutdown().await;
    drop(arena);

    let sqlite = SqliteStore::open(&path).await.expect("reopened");
    let postgres = PostgresStore::connect(database.url())
        .await
        .expect("connect");
    copy(&sqlite, &postgres, clock.now_ms(), |_| {})
        .await
        .expect("copied and verified");
    drop(sqlite);

    // Ten seconds down, then the server starts on PostgreSQL.
    clock.advance(10_000);
    let arena = start(Arc::new(postgres), clock.clone()).await;
    assert!(
        matches!(arena.verify(finished).await, Ok(Verdict::Verified { .. })),
        "the finished match verifies from the copy"
    );
    let after = arena
        .snapshot(running, Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert_eq!(after.status, MatchStatus::Running, "resumed");
    assert_eq!(
        after.legs[0].clocks_ms, before.legs[0].clocks_ms,
        "the downtime is charged to nobody"
    );
    let events_after = arena
        .events(running, Reader::SPECTATOR, 0, 0)
        .await
        .expect("events")
        .events;
    let kinds = |events: &[arbiter_arena::snapshot::EventView]| {
        events
            .iter()
            .map(|e| (e.seq, e.kind.clone(), e.data.get().to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        kinds(&events_after[..events_before.len()]),
        kinds(&events_before),
        "every event kept"
    );
    assert!(play(&arena, &clock, &players, running, usize::MAX).await > 0);
    let ended = arena
        .snapshot(running, Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert_eq!(ended.status, MatchStatus::Finished);
    assert!(matches!(
        arena.verify(running).await,
        Ok(Verdict::Verified { .. })
    ));
    assert!(
        challenge(&arena, &players).await > running,
        "new matches are numbered after the copied ones"
    );
    arena.shutdown().await;
    database.drop_schema().await;
}
