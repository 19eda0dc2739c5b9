//! Tests every backend must pass, run by each backend's own test suite.

use std::sync::Arc;

use serde_json::json;

use crate::{
    Audience, BotKind, BotRecord, EventRecord, MatchRecord, MatchStatus, MaxIds, RatingRecord,
    Store, Write, Writer,
};

fn bot(id: i64, name: &str) -> BotRecord {
    BotRecord {
        id,
        name: name.to_owned(),
        kind: BotKind::Registered,
        token_hash: Some(format!("hash-{id}")),
        token_prefix: Some("arbb_x".to_owned()),
        created_ms: 1_000 + id,
        last_seen_ms: 0,
        disabled: false,
        deleted: false,
        profile: json!({"supported": ["std"]}),
    }
}

fn a_match(id: i64, status: MatchStatus) -> MatchRecord {
    MatchRecord {
        id,
        bot_a: 1,
        bot_b: 2,
        game: "othello".to_owned(),
        status,
        created_ms: 5_000,
        seed: format!("seed-{id}"),
        details: json!({"variant": "std", "format": "paired"}),
    }
}

fn rating(bot: i64, mode: &str, value: f64) -> RatingRecord {
    RatingRecord {
        bot,
        mode: mode.to_owned(),
        rating: json!({"rating": value, "games": 1}),
        updated_ms: 20_000 + bot,
    }
}

fn event(match_id: i64, seq: i64) -> EventRecord {
    EventRecord {
        match_id,
        seq,
        at_ms: 10_000 + seq,
        audience: if seq % 3 == 0 {
            Audience::Participant(1)
        } else {
            Audience::Everyone
        },
        kind: "move".to_owned(),
        payload: EventRecord::payload_of(&json!({"move": seq})),
    }
}

/// Runs every check against an empty store.
pub async fn check_all(store: Arc<dyn Store>) {
    round_trips(store.as_ref()).await;
    ratings_are_kept_per_bot_and_mode(store.as_ref()).await;
    batches_are_atomic(store.as_ref()).await;
    the_writer_commits_in_order(store).await;
}

async fn round_trips(store: &dyn Store) {
    assert_eq!(store.max_ids().await.expect("max ids"), MaxIds::default());
    assert_eq!(store.last_heartbeat().await.expect("heartbeat"), None);
    let mut writes = vec![
        Write::PutBot(bot(1, "Alpha")),
        Write::PutBot(bot(2, "beta")),
    ];
    writes.push(Write::PutMatch(a_match(7, MatchStatus::Running)));
    writes.push(Write::PutMatch(a_match(8, MatchStatus::Finished)));
    writes.push(Write::PutMatch(a_match(9, MatchStatus::Pending)));
    writes.extend((1..=5).map(|seq| Write::AppendEvent(Arc::new(event(7, seq)))));
    writes.push(Write::Heartbeat(42));
    store.write_batch(&writes).await.expect("batch");

    let mut bots = store.bots().await.expect("bots");
    bots.sort_by_key(|b| b.id);
    assert_eq!(bots, vec![bot(1, "Alpha"), bot(2, "beta")]);
    assert_eq!(
        store.max_ids().await.expect("max ids"),
        MaxIds { bot: 2, r#match: 9 }
    );
    assert_eq!(store.last_heartbeat().await.expect("heartbeat"), Some(42));
    assert_eq!(
        store.match_by_id(8).await.expect("match"),
        Some(a_match(8, MatchStatus::Finished))
    );
    assert_eq!(store.match_by_id(99).await.expect("match"), None);
    let mut open: Vec<i64> = store
        .open_matches()
        .await
        .expect("open")
        .iter()
        .map(|m| m.id)
        .collect();
    open.sort_unstable();
    assert_eq!(open, vec![7, 9]);

    assert_eq!(
        store.events(7, 0, 100).await.expect("events"),
        (1..=5).map(|s| event(7, s)).collect::<Vec<_>>()
    );
    assert_eq!(
        store.events(7, 2, 2).await.expect("events"),
        vec![event(7, 3), event(7, 4)]
    );
    assert!(store.events(8, 0, 10).await.expect("events").is_empty());

    // Puts replace.
    let mut renamed = bot(2, "Beta");
    renamed.disabled = true;
    let finished = a_match(7, MatchStatus::Finished);
    store
        .write_batch(&[
            Write::PutBot(renamed.clone()),
            Write::PutMatch(finished.clone()),
            Write::Heartbeat(43),
        ])
        .await
        .expect("batch");
    let bots = store.bots().await.expect("bots");
    assert!(bots.contains(&renamed));
    assert_eq!(store.match_by_id(7).await.expect("match"), Some(finished));
    assert_eq!(store.last_heartbeat().await.expect("heartbeat"), Some(43));
}

async fn ratings_are_kept_per_bot_and_mode(store: &dyn Store) {
    assert!(store.ratings().await.expect("ratings").is_empty());
    let writes = [
        Write::PutRating(rating(2, "othello:std", 1510.5)),
        Write::PutRating(rating(1, "othello:std", 1490.0)),
        Write::PutRating(rating(1, "othello:anti", 1500.0)),
    ];
    store.write_batch(&writes).await.expect("batch");
    // A put replaces the bot's rating in that mode only.
    store
        .write_batch(&[Write::PutRating(rating(1, "othello:std", 1477.25))])
        .await
        .expect("batch");
    assert_eq!(
        store.ratings().await.expect("ratings"),
        vec![
            rating(1, "othello:anti", 1500.0),
            rating(1, "othello:std", 1477.25),
            rating(2, "othello:std", 1510.5),
        ]
    );
}

async fn batches_are_atomic(store: &dyn Store) {
    // The second append repeats an existing (match, seq): the whole batch must fail.
    let writes = [
        Write::AppendEvent(Arc::new(event(9, 1))),
        Write::AppendEvent(Arc::new(event(7, 1))),
        Write::PutBot(bot(3, "Gamma")),
    ];
    assert!(store.write_batch(&writes).await.is_err());
    assert!(store.events(9, 0, 10).await.expect("events").is_empty());
    assert!(!store.bots().await.expect("bots").iter().any(|b| b.id == 3));
}

async fn the_writer_commits_in_order(store: Arc<dyn Store>) {
    let (writer, _task) = Writer::start(store.clone());
    let mut handles = Vec::new();
    for seq in 1..=200 {
        let writer = writer.clone();
        handles.push(tokio::spawn(async move {
            writer
                .write(vec![Write::AppendEvent(Arc::new(event(9, seq)))])
                .await
        }));
    }
    for handle in handles {
        handle.await.expect("task").expect("durable");
    }
    let stored = store.events(9, 0, 1_000).await.expect("events");
    assert_eq!(stored.len(), 200);
    // A failing request does not fail others committed alongside it.
    let bad = writer.write(vec![Write::AppendEvent(Arc::new(event(9, 1)))]);
    let good = writer.write(vec![Write::AppendEvent(Arc::new(event(9, 201)))]);
    let (bad, good) = tokio::join!(bad, good);
    assert!(bad.is_err());
    assert_eq!(good, Ok(()));
}
