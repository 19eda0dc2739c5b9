//! The closed-match listing, read from the store: newest first, with every participant, and
//! a stored result that does not parse listed without its result rather than failing the list.

use std::sync::Arc;

use arbiter_arena::{Arena, ArenaConfig, Games, ManualClock};
use arbiter_store::{BotId, BotKind, BotRecord, MatchId, MatchRecord, MatchStatus, Store, Write};
use serde_json::{Value, json};

fn bot(id: BotId, name: &str) -> BotRecord {
    BotRecord {
        id,
        name: name.to_owned(),
        kind: BotKind::Registered,
        token_hash: Some(format!("hash-{id}")),
        token_prefix: Some("arbb_x".to_owned()),
        created_ms: 1_000,
        last_seen_ms: 0,
        disabled: false,
        deleted: false,
        profile: json!({}),
    }
}

fn closed(id: MatchId, participants: Vec<BotId>, result: Value) -> Write {
    Write::PutMatch(MatchRecord {
        id,
        participants,
        game: "board".to_owned(),
        status: MatchStatus::Finished,
        created_ms: 5_000 + id,
        seed: format!("seed-{id}"),
        details: json!({"variant": "main", "rated": true, "ended_ms": 9_000 + id,
            "result": result}),
    })
}

#[tokio::test]
async fn closed_matches_are_listed_even_when_a_stored_result_does_not_parse() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = arbiter_store_sqlite::SqliteStore::open(&dir.path().join("a.sqlite"))
        .await
        .expect("store");
    let result = json!({"reason": "completed", "winner": 1, "totals": [3, 5], "rated": true,
        "rating_applied": true, "rating_before": [1200.0, 1200.0],
        "rating_after": [1190.0, 1210.0]});
    store
        .write_batch(&[
            Write::PutBot(bot(1, "ann")),
            Write::PutBot(bot(2, "bob")),
            Write::PutBot(bot(3, "cy")),
            closed(1, vec![1, 2], result),
            closed(2, vec![2, 1], json!({"reason": 5})),
            closed(3, vec![1, 2, 3], Value::Null),
        ])
        .await
        .expect("written");
    let arena = Arena::start(
        ArenaConfig::default(),
        Games::new().with(&arbiter_goofspiel::FAMILY),
        Arc::new(ManualClock::new(10_000)),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts");
    let listed = arena.closed_matches(None, 10).await.expect("listed");
    let ids: Vec<MatchId> = listed.iter().map(|m| m.id).collect();
    assert_eq!(ids, [3, 2, 1], "newest first");
    let first = &listed[2];
    assert_eq!(first.variant, "main");
    assert!(first.rated);
    assert_eq!(first.ended_ms, Some(9_001));
    let names: Vec<&str> = first.participants.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["ann", "bob"]);
    let result = first.result.as_ref().expect("a result");
    assert_eq!(result.winner(), Some(1));
    assert_eq!(
        result.ratings.as_ref().map(|r| r.rating_after.clone()),
        Some(vec![1190.0, 1210.0])
    );
    assert_eq!(listed[1].result, None, "a result that does not parse");
    assert_eq!(listed[0].result, None, "no result");
    assert_eq!(listed[0].participants[2].participant, Some(2));
    arena.shutdown().await;
}
