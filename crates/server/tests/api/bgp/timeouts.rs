//! Time as the server keeps it (§4, §5), on the injected clock: a warning at half the turn, a
//! forfeit at its end, each turn timed afresh, and waiting matches cancelled after a day.

use serde_json::{Value, json};

use super::*;

/// Asserts that no event of `kinds` is among match `id`'s events after `since`.
async fn none_of(client: &Bgp, id: &str, since: i64, kinds: &[&str]) {
    let page = client.events(id, since, 0).await;
    let events = page["events"].as_array().cloned().unwrap_or_default();
    for kind in kinds {
        assert!(
            of_type(&events, kind).is_empty(),
            "no {kind} yet: {events:?}"
        );
    }
}

#[tokio::test]
async fn a_silent_turn_is_warned_at_half_and_forfeited_at_its_end() {
    // (the config's turn_timeout, the timeout in force in seconds)
    for (config, timeout) in [
        (Value::Null, DEFAULT_TURN_TIMEOUT),
        (json!({"turn_timeout": 30}), 30),
    ] {
        let app = spawn_bgp().await;
        let client = Bgp::new(&app);
        let table = client.table(config.clone()).await;
        let half_ms = timeout * 500;
        let start = client.last_seq(&table.id).await;

        app.advance(half_ms - 1_000).await;
        none_of(
            &client,
            &table.id,
            start,
            &["turn_warning", "turn_forfeit", "match_finished"],
        )
        .await;
        app.advance(1_000).await;
        let (warning, _) = client.wait_for(&table.id, start, "turn_warning").await;
        assert_eq!(
            (&warning["seat"], &warning["seconds_left"]),
            (&json!(0), &json!(timeout / 2)),
            "{config}: {warning}"
        );
        assert_eq!(client.snapshot(&table.id).await["status"], "in_progress");

        app.advance(half_ms - 1_000).await;
        none_of(
            &client,
            &table.id,
            start,
            &["turn_forfeit", "match_finished"],
        )
        .await;
        app.advance(1_000).await;
        let (forfeit, _) = client.wait_for(&table.id, start, "turn_forfeit").await;
        assert_eq!(
            (&forfeit["seat"], &forfeit["winner_seat"]),
            (&json!(0), &json!(1)),
            "{config}: {forfeit}"
        );
        let (finished, _) = client
            .wait_for(
                &table.id,
                forfeit["seq"].as_i64().unwrap_or(0),
                "match_finished",
            )
            .await;
        assert_eq!(
            (&finished["winner_seat"], &finished["reason"]),
            (&json!(1), &json!("timeout")),
            "{config}: {finished}"
        );
        assert!(
            finished["summary"].as_str().is_some_and(|s| !s.is_empty()),
            "{finished}"
        );
        let events = client.all_events(&table.id).await;
        assert_eq!(
            of_type(&events, "turn_warning").len(),
            1,
            "one warning: {events:?}"
        );
        assert_eq!(
            of_type(&events, "turn_forfeit").len(),
            1,
            "one forfeit: {events:?}"
        );

        let snapshot = client.snapshot(&table.id).await;
        assert_eq!(snapshot["status"], "finished");
        assert_eq!(
            (
                &snapshot["result"]["winner_seat"],
                &snapshot["result"]["reason"]
            ),
            (&json!(1), &json!("timeout")),
            "{snapshot}"
        );

        // Black's stone arrives too late: the forfeit stands and nothing changes.
        let late = json!({"type": "place_stone", "x": 7, "y": 7});
        expect_error(
            client.action(&table.id, &table.black.token, &late).await,
            409,
            "timeout_already_forfeited",
        );
        let answer = json!({"type": "place_stone", "x": 8, "y": 8});
        expect_error_among(
            client.action(&table.id, &table.white.token, &answer).await,
            &[(409, "timeout_already_forfeited"), (409, "match_finished")],
        );
        assert_eq!(client.snapshot(&table.id).await["render"]["move_count"], 0);
    }
}

#[tokio::test]
async fn each_turn_is_timed_afresh() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    // Black thinks for 50 s, short of its warning, then plays.
    app.advance(50_000).await;
    let start = client.last_seq(&table.id).await;
    client.place(&table.id, &table.black.token, 7, 7).await;
    let snapshot = client.snapshot(&table.id).await;
    assert_eq!(
        snapshot["deadline_ts"],
        T0_S + 50 + DEFAULT_TURN_TIMEOUT,
        "{snapshot}"
    );

    // Black's old timer would warn 10 s into White's turn; White's own warns at 60 s.
    app.advance(59_000).await;
    none_of(&client, &table.id, start, &["turn_warning", "turn_forfeit"]).await;
    app.advance(1_000).await;
    let (warning, _) = client.wait_for(&table.id, start, "turn_warning").await;
    assert_eq!(
        (&warning["seat"], &warning["seconds_left"]),
        (&json!(1), &json!(60))
    );
    client.place(&table.id, &table.white.token, 8, 8).await;

    // White played in time; Black's new turn runs its full 120 s.
    let after = client.last_seq(&table.id).await;
    app.advance(119_000).await;
    none_of(
        &client,
        &table.id,
        after,
        &["turn_forfeit", "match_finished"],
    )
    .await;
    assert_eq!(client.snapshot(&table.id).await["status"], "in_progress");
    app.advance(1_000).await;
    let (forfeit, _) = client.wait_for(&table.id, after, "turn_forfeit").await;
    assert_eq!(
        (&forfeit["seat"], &forfeit["winner_seat"]),
        (&json!(0), &json!(1))
    );
}

#[tokio::test]
async fn a_match_nobody_joins_is_cancelled_after_a_day() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let open = client.create_guest("alice", Value::Null).await;
    app.advance(24 * 3_600_000 - 60_000).await;
    assert_eq!(client.snapshot(&open.id).await["status"], "waiting");

    app.advance(61_000).await;
    // A second step lets a periodic sweep that woke at the first one run once more.
    app.advance(60_000).await;
    assert_eq!(client.snapshot(&open.id).await["status"], "cancelled");
    let bob = json!({"player": {"name": "bob", "display_name": "Bob", "meta": {}}});
    expect_error(
        client.join(&open.id, Cred::None, &bob).await,
        409,
        "match_not_waiting",
    );
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    let refused = client.action(&open.id, &open.token, &stone).await;
    assert_eq!(refused.status.as_u16() / 100, 4, "{}", refused.text);
    check_error_shape(&refused.body);
}
