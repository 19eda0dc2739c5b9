//! The events long-poll (§2.5): `wait=0` answers at once, a waiting request wakes on a new
//! event, an empty answer after the wait, pages of at most 100 events with contiguous `seq`,
//! and the SSE alternative delivering the same events.

use serde_json::{Value, json};

use super::*;
use crate::helpers::settle;

#[tokio::test]
async fn wait_zero_answers_at_once_with_nothing_new() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let last = client.last_seq(&table.id).await;
    let page = guarded("a wait=0 answer", client.events(&table.id, last, 0)).await;
    assert_eq!(page["events"], json!([]), "{page}");
    assert_eq!(page["next_since"], last, "{page}");
    assert_eq!(page["status"], "in_progress", "{page}");
    // With no `wait` at all, the default is 0 too.
    let query = format!("since={last}");
    let page = guarded(
        "an answer without wait",
        client.events_with(&table.id, &query, Cred::None),
    )
    .await;
    assert_eq!(expect(page, 200)["events"], json!([]));
}

/// Starts a long-poll of match `id`'s events after `since` that may wait `wait` seconds, and
/// checks that it is still waiting once the server has had every chance to answer.
async fn waiting_poll(
    client: &Bgp,
    id: &str,
    since: i64,
    wait: i64,
) -> tokio::task::JoinHandle<Value> {
    let watcher = client.clone();
    let id = id.to_owned();
    let waiting = tokio::spawn(async move { watcher.events(&id, since, wait).await });
    settle().await;
    assert!(
        !waiting.is_finished(),
        "the request waits while nothing happens"
    );
    waiting
}

#[tokio::test]
async fn a_waiting_request_wakes_when_a_stone_is_placed() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let last = client.last_seq(&table.id).await;
    let waiting = waiting_poll(&client, &table.id, last, 30).await;

    client.place(&table.id, &table.black.token, 7, 7).await;
    let page = guarded("the woken request", waiting)
        .await
        .expect("the request");
    let events = page["events"].as_array().cloned().unwrap_or_default();
    assert_eq!(events[0]["seq"], last + 1, "{page}");
    assert_eq!(events[0]["type"], "stone_placed", "{page}");
    assert_eq!((&events[0]["x"], &events[0]["y"]), (&json!(7), &json!(7)));
}

#[tokio::test]
async fn a_wait_with_no_event_ends_empty_when_the_injected_clock_passes_it() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let last = client.last_seq(&table.id).await;
    let waiting = waiting_poll(&client, &table.id, last, 10).await;

    app.advance(10_001).await;
    let page = guarded(
        "the empty answer once the injected clock passed the wait (a wait on real time would \
         take 10 s)",
        waiting,
    )
    .await
    .expect("the request");
    assert_fields(
        &page,
        &json!({
            "since": last,
            "next_since": last,
            "events": [],
            "status": "in_progress",
        }),
    );
}

/// The points of the first rows of a 15 board coloured in pairs that swap every row (Black
/// where `(x / 2 + y)` is even): no line of this colouring holds more than two stones of one
/// colour in a row, so a game playing any of them, in any order, never makes five.
fn quiet_moves(count: usize) -> Vec<(i64, i64)> {
    let points: Vec<(i64, i64)> = (0..15).flat_map(|y| (0..15).map(move |x| (x, y))).collect();
    let black = points.iter().filter(|(x, y)| (x / 2 + y) % 2 == 0);
    let white = points.iter().filter(|(x, y)| (x / 2 + y) % 2 == 1);
    black
        .zip(white)
        .flat_map(|(b, w)| [*b, *w])
        .take(count)
        .collect()
}

#[tokio::test]
async fn more_than_a_hundred_events_come_in_pages_without_gaps_or_repeats() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    // Each move with a comment makes at least a stone, a comment and a new turn.
    for (n, (x, y)) in quiet_moves(50).into_iter().enumerate() {
        let token = if n % 2 == 0 {
            &table.black.token
        } else {
            &table.white.token
        };
        let body = json!({"type": "place_stone", "x": x, "y": y, "comment": format!("move {n}")});
        assert_eq!(
            expect(client.action(&table.id, token, &body).await, 200)["accepted"],
            true
        );
    }
    let events = client.all_events(&table.id).await;
    assert!(events.len() > 150, "{} events", events.len());
    let first = client.events(&table.id, 0, 0).await;
    let first_page = first["events"].as_array().map_or(0, Vec::len);
    assert!(
        (1..=100).contains(&first_page),
        "{first_page} events in the first page"
    );
    assert_eq!(of_type(&events, "stone_placed").len(), 50);
    assert_eq!(of_type(&events, "comment_posted").len(), 50);

    // A page from the middle starts right after its `since`.
    let middle = client.events(&table.id, 120, 0).await;
    assert_eq!(middle["events"][0], events[120], "{middle}");
    let snapshot = client.snapshot(&table.id).await;
    assert_eq!(snapshot["events_total"], json!(events.len()));
    assert_eq!(snapshot["render"]["move_count"], 50);
}

#[tokio::test]
async fn the_sse_stream_delivers_the_same_events() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    client.place(&table.id, &table.black.token, 7, 7).await;

    let watcher = client.clone();
    let id = table.id.clone();
    let streamed = tokio::spawn(async move {
        watcher
            .stream(&id, "since=0", |event| {
                event["type"] == "stone_placed" && event["x"] == 8 && event["y"] == 8
            })
            .await
    });
    settle().await;
    client.place(&table.id, &table.white.token, 8, 8).await;
    let (content_type, streamed) = guarded("the SSE events", streamed)
        .await
        .expect("the stream");
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );

    let polled = client.all_events(&table.id).await;
    let first = streamed[0]["seq"].as_i64().expect("seq");
    for (n, event) in streamed.iter().enumerate() {
        let seq = event["seq"].as_i64().expect("seq");
        assert_eq!(
            seq,
            first + i64::try_from(n).expect("few"),
            "contiguous: {streamed:?}"
        );
        let index = usize::try_from(seq - 1).expect("seq from 1");
        assert_eq!(
            event, &polled[index],
            "the stream's event is the long-poll's"
        );
    }
}
