//! An open table is a stored pending match with fewer participants than seats: it survives a
//! restart, is listed and exported, and starts when its last seat is taken.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::sync::Arc;

use arbiter_arena::{
    Arena, ArenaConfig, BotKind, Format, Games, ManualClock, MatchStatus, TableRequest, TimeControl,
};
use arbiter_store_sqlite::SqliteStore;

const T0: i64 = 1_795_900_000_000;

async fn arena(path: &Path) -> Arena {
    let store = SqliteStore::open(path).await.expect("store");
    let games = Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY);
    Arena::start(
        ArenaConfig::default(),
        games,
        Arc::new(ManualClock::new(T0)),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts")
}

/// A table of short Goofspiel for three.
fn three_seats() -> TableRequest {
    TableRequest {
        game: "goofspiel".to_owned(),
        variant: Some("short".to_owned()),
        seats: 3,
        format: Format::Single,
        time_control: TimeControl::default(),
        client_seed: None,
        language: Default::default(),
    }
}

#[tokio::test]
async fn an_open_table_survives_a_restart_and_starts_when_full() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let first = arena(&path).await;
    let (opener, _) = first
        .mint_anonymous(ip, Some("opener"), None)
        .await
        .expect("bot");
    let table = first
        .open_table(&opener, three_seats())
        .await
        .expect("a table");
    let id = table.id;
    assert_eq!(table.table.map(|t| t.seats), Some(3));
    first.shutdown().await;

    let second = arena(&path).await;
    let listed = second.open_tables(10).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].participants.len(), 1);
    let export = second.export(id).await.expect("exported while open");
    assert_eq!(export.participants, [opener.id]);
    for label in ["second", "third"] {
        let (bot, _) = second
            .mint_anonymous(ip, Some(label), None)
            .await
            .expect("bot");
        second.join_table(&bot, id, None).await.expect("a seat");
    }
    let started = second
        .snapshot(id, arbiter_arena::Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert_eq!(started.status, MatchStatus::Running, "{started:?}");
    assert!(second.open_tables(10).await.is_empty());
    second.shutdown().await;
}

#[tokio::test]
async fn people_open_and_join_tables_as_bots_do_and_house_bots_do_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let arena = arena(&dir.path().join("arbiter.sqlite")).await;
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let (opener, _) = arena.new_guest(ip).await.expect("a guest");
    let (guest, _) = arena.new_guest(ip).await.expect("a guest");
    let (late, _) = arena.new_guest(ip).await.expect("a guest");
    let (bot, _) = arena
        .mint_anonymous(ip, Some("sitter"), None)
        .await
        .expect("bot");
    let table = arena
        .open_table(&opener, three_seats())
        .await
        .expect("a person opens a table");
    let id = table.id;
    let opener = table.participants.as_ref().and_then(|p| p.first());
    assert_eq!(opener.map(|p| p.kind), Some(BotKind::Human), "{table:?}");

    arena
        .join_table(&guest, id, None)
        .await
        .expect("a person sits down");
    let twice = arena
        .join_table(&guest, id, None)
        .await
        .expect_err("one seat each");
    assert!(twice.to_string().contains("already has a seat"), "{twice}");
    let house = arena.find_bot("house-greedy").expect("a house bot");
    let refused = arena
        .join_table(&house, id, None)
        .await
        .expect_err("no house bots");
    assert!(
        refused.to_string().contains("only bots and people"),
        "{refused}"
    );

    let started = arena
        .join_table(&bot, id, None)
        .await
        .expect("the last seat");
    assert_eq!(started.status, MatchStatus::Running, "{started:?}");
    let full = arena.join_table(&late, id, None).await.expect_err("full");
    assert!(
        matches!(full, arbiter_arena::ArenaError::ChallengeNotPending),
        "{full}"
    );
}
