//! Two servers sharing one store and a bus: each match runs on the server that holds its
//! lease, and when that server stops, the other takes its matches over at its next heartbeat,
//! resumed from the store with nothing lost and the downtime charged to no clock; a bot
//! registered or changed on one server is known as it now is on the other; a bot streaming on
//! one server hears its match on the other; results rated on both count; one server at a time
//! offers auto-matched games. Runs on two handles to one SQLite file, and on PostgreSQL where
//! `ARBITER_TEST_POSTGRES_URL` names a server; the bus is an in-process one both arenas share.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use arbiter_arena::{
    Announcement, Arena, ArenaConfig, ArenaError, BotProfile, BotStream, Clock as _, Decision,
    Games, ManualClock, MatchSnapshot, MatchStatus, Reader, StreamEvent,
};
use arbiter_bus::LocalBus;
use arbiter_store::Store;
use arbiter_store_postgres::PostgresStore;
use arbiter_store_postgres::testing::TestDatabase;
use arbiter_store_sqlite::SqliteStore;

mod support;

use support::{T0, challenge_accepted, goofspiel, play};

async fn node(name: &str, store: Arc<dyn Store>, clock: Arc<ManualClock>, bus: &LocalBus) -> Arena {
    Arena::start(
        ArenaConfig {
            node_id: name.to_owned(),
            bus: Arc::new(bus.clone()),
            // The tests move the clock a second per action, faster than a server's heartbeat
            // task may run: leases long enough that none lapses under a live server.
            lease_ms: 300_000,
            ..ArenaConfig::default()
        },
        Games::new().with(&arbiter_goofspiel::FAMILY),
        clock,
        store,
        None,
    )
    .await
    .expect("the arena starts")
}

/// A bot's profile that plays Goofspiel.
fn goofspiel_player() -> BotProfile {
    BotProfile {
        supported_variants: vec!["goofspiel".to_owned()],
        ..BotProfile::default()
    }
}

/// Lets the arenas' tasks run until `done` holds, a bounded number of times: the clock does
/// not move meanwhile.
async fn until<F: AsyncFn() -> bool>(done: F) -> bool {
    for _ in 0..500 {
        if done().await {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    false
}

/// Two tests of `check`: on two handles to one SQLite file, and on two connections to a fresh
/// schema of the PostgreSQL server `ARBITER_TEST_POSTGRES_URL` names (skipped without it).
macro_rules! on_both_stores {
    ($check:ident, $sqlite:ident, $postgres:ident, $schema:literal) => {
        #[tokio::test]
        async fn $sqlite() {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("shared.sqlite");
            let first = SqliteStore::open(&path).await.expect("store");
            let second = SqliteStore::open(&path).await.expect("store");
            $check(Arc::new(first), Arc::new(second)).await;
        }

        #[tokio::test]
        async fn $postgres() {
            let Some(database) = TestDatabase::create($schema).await else {
                return;
            };
            let connect = || PostgresStore::connect(database.url());
            let first = connect().await.expect("connect");
            let second = connect().await.expect("connect");
            $check(Arc::new(first), Arc::new(second)).await;
            database.drop_schema().await;
        }
    };
}

async fn hand_over(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let bus = LocalBus::shared();
    let a = node("a", first, clock.clone(), &bus).await;
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let mut players = Vec::new();
    for label in ["ann", "bob"] {
        players.push(
            a.mint_anonymous(ip, Some(label), None)
                .await
                .expect("bot")
                .0,
        );
    }
    let id = challenge_accepted(&a, &players, goofspiel(&players[1], 60_000, false)).await;
    assert_eq!(play(&a, &clock, &players, id, 4).await, 4);

    // The second server starts while the first runs the match: it leaves the match alone.
    let b = node("b", second, clock.clone(), &bus).await;
    clock.advance(1_000);
    let before = a.snapshot(id, Reader::SPECTATOR).await.expect("snapshot");
    assert_eq!(before.status, MatchStatus::Running);
    let events_before = a
        .events(id, Reader::SPECTATOR, 0, 0)
        .await
        .expect("events")
        .events;
    assert_eq!(b.matches_in_memory(), 0, "the match runs on a alone");
    let listed: Vec<i64> = b
        .open_matches_of(players[0].id)
        .await
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(listed, vec![id], "b lists the match a runs");

    // a stops: at its next heartbeat, b takes the match over.
    a.shutdown().await;
    drop(a);
    clock.advance(1_000);
    assert!(
        until(async || b.matches_in_memory() > 0).await,
        "b took the match over"
    );
    let after = b.snapshot(id, Reader::SPECTATOR).await.expect("snapshot");
    assert_eq!(after.status, MatchStatus::Running);
    assert_eq!(
        after.legs[0].clocks_ms, before.legs[0].clocks_ms,
        "the hand-over is charged to no clock"
    );
    let events_after = b
        .events(id, Reader::SPECTATOR, 0, 0)
        .await
        .expect("events")
        .events;
    let seqs: Vec<i64> = events_after.iter().map(|e| e.seq).collect();
    // Spectators see the public events only, in order, none twice.
    assert!(
        seqs.windows(2).all(|w| w[1] > w[0]),
        "no event repeated: {seqs:?}"
    );
    assert!(events_after.len() > events_before.len(), "a resumed event");
    for (was, is) in events_before.iter().zip(&events_after) {
        assert_eq!(
            (was.seq, &was.kind, was.data.get()),
            (is.seq, &is.kind, is.data.get())
        );
    }
    assert!(play(&b, &clock, &players, id, usize::MAX).await > 0);
    assert_eq!(
        b.snapshot(id, Reader::SPECTATOR)
            .await
            .expect("snapshot")
            .status,
        MatchStatus::Finished
    );
    b.shutdown().await;
}

/// A bot registered on one server, its token rotated there, and a person signed in and out
/// there, as the other sees them.
async fn share_bots(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let bus = LocalBus::shared();
    let a = node("a", first, clock.clone(), &bus).await;
    let b = node("b", second, clock.clone(), &bus).await;
    let (bot, old) = a
        .register_bot("carol", goofspiel_player())
        .await
        .expect("registered");
    assert!(
        until(async || b.authenticate(&old).is_ok()).await,
        "b knows the bot a registered"
    );
    let (_, new) = a.rotate_token(bot.id).await.expect("rotated");
    assert!(
        until(async || b.authenticate(&new).is_ok()).await,
        "b knows the new token"
    );
    assert_eq!(b.authenticate(&old).err(), Some(ArenaError::InvalidToken));
    assert_eq!(a.authenticate(&old).err(), Some(ArenaError::InvalidToken));

    // A person signed up and in on a is signed in on b, and signed out there with a.
    let (account, session) = a
        .sign_up("frida", "a long enough password")
        .await
        .expect("signed up");
    assert!(
        until(async || b
            .session(&session)
            .is_some_and(|on_b| on_b.id == account.id))
        .await,
        "b knows the session"
    );
    a.sign_out(&session).await.expect("signed out");
    assert!(
        until(async || b.session(&session).is_none()).await,
        "the session ended on b too"
    );
    a.shutdown().await;
    b.shutdown().await;
}

/// Servers that did not hear each other (their announcements lost) still never undo each
/// other's changes to a bot: a server changes a bot as stored, under the bot's lock. A third
/// server started afterwards sees both changes.
async fn no_change_lost(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let store = first.clone();
    let a = node("a", first, clock.clone(), &LocalBus::shared()).await;
    let (bot, _) = a
        .register_bot("lena", goofspiel_player())
        .await
        .expect("registered");
    // b starts knowing the bot, then hears nothing more from a.
    let b = node("b", second, clock.clone(), &LocalBus::shared()).await;
    let (_, token) = a.rotate_token(bot.id).await.expect("rotated");
    b.set_concurrency(bot.id, Some(3))
        .await
        .expect("changed on b");
    let c = node("c", store, clock.clone(), &LocalBus::shared()).await;
    let seen = c
        .authenticate(&token)
        .expect("the token a gave out still works");
    assert_eq!(
        seen.profile.concurrency,
        Some(3),
        "and b's change holds too"
    );
    for server in [a, b, c] {
        server.shutdown().await;
    }
}

/// An anonymous bot seen only on b is not expired by a, which sweeps: every server records
/// its sightings in the store, and the sweeping server reads them before a bot goes.
async fn sightings_count_everywhere(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let bus = LocalBus::shared();
    let store = first.clone();
    // a starts first and takes the sweeping duty at once.
    let a = node("a", first, clock.clone(), &bus).await;
    let b = node("b", second, clock.clone(), &bus).await;
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let (bot, token) = a.mint_anonymous(ip, Some("moth"), None).await.expect("bot");
    assert!(until(async || b.authenticate(&token).is_ok()).await);
    let hour = 3_600_000;
    // Time passes in steps shorter than a's hold on the duty, which it renews at each sweep.
    let pass = async |ms: i64| {
        for _ in 0..ms / 240_000 {
            clock.advance(240_000);
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
    };
    pass(23 * hour).await;
    b.authenticate(&token).expect("seen on b");
    // b's next sweep records the sighting.
    pass(240_000).await;
    let recorded = async || {
        store
            .bot(bot.id)
            .await
            .expect("bot")
            .is_some_and(|record| record.last_seen_ms >= T0 + 23 * hour)
    };
    assert!(until(recorded).await, "b recorded the sighting");
    // A day after the mint, a sweeps: the bot was seen an hour ago, on b.
    pass(2 * hour).await;
    let stored = store.bot(bot.id).await.expect("bot").expect("there");
    assert!(!stored.deleted, "a bot seen elsewhere is kept");
    // Idle everywhere for a day, it goes.
    pass(24 * hour).await;
    let gone = async || {
        store
            .bot(bot.id)
            .await
            .expect("bot")
            .is_some_and(|record| record.deleted)
    };
    assert!(until(gone).await, "an idle bot expires");
    a.shutdown().await;
    b.shutdown().await;
}

/// Two idle bots with auto-matching on, online on both servers: one game is offered them,
/// not one per server.
async fn match_once(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let bus = LocalBus::shared();
    let store = first.clone();
    let a = node("a", first, clock.clone(), &bus).await;
    let b = node("b", second, clock.clone(), &bus).await;
    let mut tokens = Vec::new();
    for name in ["dora", "emil"] {
        let (_, token) = a
            .register_bot(name, goofspiel_player())
            .await
            .expect("registered");
        tokens.push(token);
    }
    for token in &tokens {
        assert!(until(async || b.authenticate(token).is_ok()).await);
        a.authenticate(token).expect("online on a");
    }
    clock.advance(ArenaConfig::default().automatch_interval_ms);
    let offered = async || store.open_matches().await.expect("open").len();
    assert!(
        until(async || offered().await > 0).await,
        "a game was offered"
    );
    // Both servers have had their round: still one game.
    for _ in 0..20 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(offered().await, 1);
    a.shutdown().await;
    b.shutdown().await;
}

/// The next event of `stream` that is about the match (a `hello` skipped), within a bounded
/// number of passes of the arenas' tasks.
async fn next_about_match(stream: &mut BotStream) -> StreamEvent {
    loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), stream.next_event())
            .await
            .expect("an event arrives")
            .expect("the stream stays open");
        if !matches!(event, StreamEvent::Hello { .. }) {
            return event;
        }
    }
}

/// The next decision `stream` is sent, skipping news of the match.
async fn next_decision(stream: &mut BotStream) -> (Arc<Decision>, Option<Arc<MatchSnapshot>>) {
    loop {
        if let StreamEvent::Decision { decision, snapshot } = next_about_match(stream).await {
            return (decision, snapshot);
        }
    }
}

/// Two bots whose streams are on b play a match that runs on a: every event reaches them,
/// with the match as each sees it for the stream that asked, and a bot streaming on b counts
/// as present on a.
async fn stream_elsewhere(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let bus = LocalBus::shared();
    let a = node("a", first, clock.clone(), &bus).await;
    let b = node("b", second, clock.clone(), &bus).await;
    let mut players = Vec::new();
    for name in ["gina", "hugo"] {
        let (bot, token) = a
            .register_bot(name, goofspiel_player())
            .await
            .expect("registered");
        assert!(until(async || b.authenticate(&token).is_ok()).await);
        players.push(bot);
    }
    let mut plain = b.open_stream(&players[0], false).await.expect("stream");
    let mut seeing = b.open_stream(&players[1], true).await.expect("stream");
    assert!(
        until(async || a.is_online(players[0].id) && a.is_online(players[1].id)).await,
        "a counts bots streaming on b as present"
    );
    let id = a
        .challenge(&players[0], goofspiel(&players[1], 60_000, false))
        .await
        .expect("challenge")
        .id;
    match next_about_match(&mut seeing).await {
        StreamEvent::Match { about, summary, .. } => {
            assert_eq!(about, Announcement::Challenge);
            assert_eq!((summary.id, summary.game), (id, "goofspiel"));
        }
        other => panic!("the challenge first, not {other:?}"),
    }
    a.accept(&players[1], id, None).await.expect("accept");
    // Goofspiel's bids are simultaneous: both bots owe one.
    let (decision, none) = next_decision(&mut plain).await;
    assert_eq!((decision.match_id, decision.participant), (id, 0));
    assert!(none.is_none(), "a plain stream is sent no snapshot");
    let (decision, snapshot) = next_decision(&mut seeing).await;
    assert_eq!(decision.participant, 1);
    let snapshot = snapshot.expect("the stream asked for the match as its bot sees it");
    assert_eq!((snapshot.id, snapshot.game), (id, "goofspiel"));
    assert_eq!(snapshot.you.as_deref(), Some(&[1][..]), "hugo's own view");
    assert_eq!(
        snapshot.turns.as_deref(),
        Some(&[(*decision).clone()][..]),
        "its decisions travel with it, as they were"
    );
    // A move played on a reaches the stream on b as the next decision.
    assert_eq!(play(&a, &clock, &players, id, 2).await, 2);
    let (next, _) = next_decision(&mut plain).await;
    assert!(next.revision > decision.revision || next.leg > decision.leg);

    // A bot whose last stream on b closes stays present for the usual grace, then goes. The
    // clock moves a second at a time, a heartbeat's worth, so that b's roll calls keep
    // renewing what a knows of the stream still open.
    drop(plain);
    let closed_at = clock.now_ms();
    assert!(
        until(async || {
            clock.advance(1_000);
            !a.is_online(players[0].id)
        })
        .await,
        "a notices the stream closed"
    );
    assert!(
        clock.now_ms() - closed_at > ArenaConfig::default().presence_ms,
        "after the grace"
    );
    assert!(a.is_online(players[1].id), "hugo still streams on b");
    a.shutdown().await;
    b.shutdown().await;
}

on_both_stores!(
    stream_elsewhere,
    a_bot_streams_from_one_server_while_its_match_runs_on_another_on_sqlite,
    a_bot_streams_from_one_server_while_its_match_runs_on_another_on_postgres,
    "relayed_streams"
);

/// One bot finishes a rated match on each server: both results count in its rating, on
/// both servers, since each server reads the ratings again under the mode's rating duty.
async fn rate_on_both(first: Arc<dyn Store>, second: Arc<dyn Store>) {
    let clock = Arc::new(ManualClock::new(T0));
    let bus = LocalBus::shared();
    let a = node("a", first, clock.clone(), &bus).await;
    let b = node("b", second, clock.clone(), &bus).await;
    let mut bots = Vec::new();
    for name in ["ines", "jack", "kurt"] {
        let (bot, token) = a
            .register_bot(name, goofspiel_player())
            .await
            .expect("registered");
        assert!(until(async || b.authenticate(&token).is_ok()).await);
        bots.push(bot);
    }
    let pairs = [
        vec![bots[0].clone(), bots[1].clone()],
        vec![bots[0].clone(), bots[2].clone()],
    ];
    let on_a = challenge_accepted(&a, &pairs[0], goofspiel(&bots[1], 600_000, true)).await;
    let on_b = challenge_accepted(&b, &pairs[1], goofspiel(&bots[2], 600_000, true)).await;
    play(&a, &clock, &pairs[0], on_a, usize::MAX).await;
    play(&b, &clock, &pairs[1], on_b, usize::MAX).await;
    for (server, id) in [(&a, on_a), (&b, on_b)] {
        let snapshot = server
            .snapshot(id, Reader::SPECTATOR)
            .await
            .expect("snapshot");
        assert_eq!(snapshot.status, MatchStatus::Finished);
    }
    let games = ["goofspiel"];
    for server in [&a, &b] {
        assert!(
            until(async || server.tally_of(bots[0].id, &games).await.games == 2).await,
            "both results count for ines: {:?}",
            server.tally_of(bots[0].id, &games).await
        );
    }
    a.shutdown().await;
    b.shutdown().await;
}

on_both_stores!(
    rate_on_both,
    results_rated_on_two_servers_both_count_on_sqlite,
    results_rated_on_two_servers_both_count_on_postgres,
    "shared_ratings"
);
on_both_stores!(
    match_once,
    one_server_at_a_time_offers_auto_matched_games_on_sqlite,
    one_server_at_a_time_offers_auto_matched_games_on_postgres,
    "automatch"
);
on_both_stores!(
    share_bots,
    changes_to_bots_and_accounts_reach_every_server_on_sqlite,
    changes_to_bots_and_accounts_reach_every_server_on_postgres,
    "shared_bots"
);
on_both_stores!(
    no_change_lost,
    servers_unheard_by_each_other_lose_no_change_to_a_bot_on_sqlite,
    servers_unheard_by_each_other_lose_no_change_to_a_bot_on_postgres,
    "unheard"
);
on_both_stores!(
    sightings_count_everywhere,
    an_anonymous_bot_seen_on_one_server_is_kept_by_the_one_that_sweeps_on_sqlite,
    an_anonymous_bot_seen_on_one_server_is_kept_by_the_one_that_sweeps_on_postgres,
    "sightings"
);
on_both_stores!(
    hand_over,
    a_stopping_server_hands_its_matches_to_another_on_sqlite,
    a_stopping_server_hands_its_matches_to_another_on_postgres,
    "takeover"
);
