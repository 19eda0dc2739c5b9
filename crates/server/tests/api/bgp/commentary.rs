//! An action's `comment` and `analysis` (§2.3): a comment is a `comment_posted` event for
//! everyone, a public analysis reaches the audience, a private one its owner alone, and each
//! has its limit (500 characters, 4 KB of JSON).

use serde_json::{Value, json};

use super::*;

#[tokio::test]
async fn a_comment_is_posted_for_everyone() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let since = client.last_seq(&table.id).await;
    let body = json!({"type": "place_stone", "x": 7, "y": 7, "comment": "中心开局，抢占制高点"});
    expect(
        client.action(&table.id, &table.black.token, &body).await,
        200,
    );
    let (comment, _) = client.wait_for(&table.id, since, "comment_posted").await;
    assert_eq!(
        (&comment["seat"], &comment["name"], &comment["text"]),
        (&json!(0), &json!("alice"), &json!("中心开局，抢占制高点")),
        "{comment}"
    );
    // A stone without a comment posts none.
    client.place(&table.id, &table.white.token, 8, 8).await;
    let events = client.all_events(&table.id).await;
    assert_eq!(of_type(&events, "comment_posted").len(), 1, "{events:?}");
}

/// Everything match `id` shows `cred`: its events and its snapshot, as text.
async fn shown_to(client: &Bgp, id: &str, cred: Cred<'_>) -> String {
    let events = expect(client.events_with(id, "since=0&wait=0", cred).await, 200);
    let snapshot = expect(client.snapshot_with(id, "", cred).await, 200);
    format!("{events} {snapshot}")
}

#[tokio::test]
async fn a_private_analysis_is_shown_to_its_owner_alone() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let public = json!({
        "type": "place_stone", "x": 7, "y": 7,
        "analysis": {"eval": 0.15, "pv": [[7, 7], [8, 8]], "threats": [], "spent_ms": 3400,
                     "note": "publicnotemarker41", "private": false},
    });
    expect(
        client.action(&table.id, &table.black.token, &public).await,
        200,
    );
    let private = json!({
        "type": "place_stone", "x": 8, "y": 8,
        "comment": "a move",
        "analysis": {"eval": -0.2, "note": "secretnotemarker42", "private": true},
    });
    expect(
        client.action(&table.id, &table.white.token, &private).await,
        200,
    );

    let spectator = shown_to(&client, &table.id, Cred::None).await;
    assert!(
        spectator.contains("publicnotemarker41"),
        "a public analysis reaches the audience: {spectator}"
    );
    assert!(!spectator.contains("secretnotemarker42"), "{spectator}");
    let opponent = shown_to(&client, &table.id, Cred::Play(&table.black.token)).await;
    assert!(!opponent.contains("secretnotemarker42"), "{opponent}");
    let owner = shown_to(&client, &table.id, Cred::Play(&table.white.token)).await;
    assert!(
        owner.contains("secretnotemarker42"),
        "its owner sees it: {owner}"
    );
    let claim = client.claim(&table.id).await;
    assert!(
        !claim.text.contains("secretnotemarker42"),
        "nor does the claim page show it"
    );
}

#[tokio::test]
async fn a_comment_or_analysis_past_its_limit_is_refused_and_plays_nothing() {
    // (what, the extra fields of the action, accepted)
    let pad = |bytes: usize| json!({"pad": "x".repeat(bytes)});
    let cases = [
        (
            "a comment of 500 characters",
            json!({"comment": "棋".repeat(500)}),
            true,
        ),
        (
            "a comment of 501 characters",
            json!({"comment": "a".repeat(501)}),
            false,
        ),
        (
            "an analysis of 3,900 bytes",
            json!({"analysis": pad(3_900)}),
            true,
        ),
        (
            "an analysis of 4,200 bytes",
            json!({"analysis": pad(4_200)}),
            false,
        ),
    ];
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let mut played = 0;
    for (n, (what, extra, accepted)) in cases.into_iter().enumerate() {
        let seat = if played % 2 == 0 {
            &table.black
        } else {
            &table.white
        };
        let mut body = json!({"type": "place_stone", "x": 2 * n, "y": 3});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let reply = client.action(&table.id, &seat.token, &body).await;
        if accepted {
            assert_eq!(expect(reply, 200)["accepted"], true, "{what}");
            played += 1;
        } else {
            expect_error(reply, 400, "bad_request");
        }
        let snapshot = client.snapshot(&table.id).await;
        assert_eq!(snapshot["render"]["move_count"], played, "{what}");
    }
    let events = client.all_events(&table.id).await;
    let comments = of_type(&events, "comment_posted");
    assert_eq!(comments.len(), 1, "{events:?}");
    assert_eq!(comments[0]["text"], "棋".repeat(500));
}
