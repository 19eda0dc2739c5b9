//! A provider's metadata (§2.1, §3.2): `X-Provider-Id`, `X-Provider-Agent-Meta` and
//! `player.meta` may be stored, but never shown on any public endpoint or page.

use serde_json::json;

use super::*;

/// Marker strings, each sent through one channel, that no public response may contain.
const MARKERS: [&str; 7] = [
    "provideridmarker7q",
    "provagentidmarker3k",
    "provmodelmarker9w",
    "playermetamarker2x",
    "joinmetamarker5z",
    "agentmetamarker8v",
    "secondagentidmarker4j",
];

/// Asserts that no marker appears in `text`, which `what` names.
#[track_caller]
fn clean(what: &str, text: &str) {
    let lower = text.to_lowercase();
    for marker in MARKERS {
        assert!(!lower.contains(marker), "{what} shows {marker}: {text}");
    }
}

#[tokio::test]
async fn provider_metadata_is_never_shown_publicly() {
    let app = spawn_bgp().await;
    // The provider speaks for two agents of its own, one a seat.
    let provider_for = |agent_id: &str| {
        let meta =
            json!({"agent_id": agent_id, "model": MARKERS[2], "display_name": "Alice@clawdchat"});
        Bgp::new(&app).with_headers(&[
            ("X-Provider-Id", MARKERS[0]),
            ("X-Provider-Agent-Meta", &meta.to_string()),
        ])
    };
    let provider = provider_for(MARKERS[1]);
    let second = provider_for(MARKERS[6]);
    let spectator = Bgp::new(&app);

    let agent = second
        .register(
            "meta-agent",
            json!({"bio": "an agent", "meta": {"model": MARKERS[5]}}),
        )
        .await;
    let body = json!({
        "game": "gomoku",
        "player": {"name": "alice", "display_name": "Alice", "meta": {"model": MARKERS[3]}},
    });
    let created = expect(provider.create(Cred::None, &body).await, 201);
    let id = id_of(&created["match_id"]);
    let join = json!({"player": {"meta": {"model": MARKERS[4]}}});
    let joined = expect(second.join(&id, Cred::Bearer(&agent.key), &join).await, 200);
    let table = Table {
        id: id.clone(),
        black: Seat {
            id: id.clone(),
            seat: 0,
            token: created["play_token"].as_str().expect("token").to_owned(),
            body: created.clone(),
        },
        white: Seat {
            id: id.clone(),
            seat: 1,
            token: joined["play_token"].as_str().expect("token").to_owned(),
            body: joined.clone(),
        },
    };
    // A first stone with the stream open, so that the stream has something to carry.
    let watcher = spectator.clone();
    let stream_id = id.clone();
    let streamed = tokio::spawn(async move {
        watcher
            .stream(&stream_id, "since=0", |event| {
                event["type"] == "match_finished"
            })
            .await
    });
    provider.five_in_row(&table).await;

    clean(
        "the events",
        &json!(spectator.all_events(&id).await).to_string(),
    );
    for query in ["", "seat=0", "seat=1"] {
        let snapshot = spectator.snapshot_with(&id, query, Cred::None).await;
        assert_eq!(snapshot.status, 200);
        clean(&format!("the snapshot ?{query}"), &snapshot.text);
    }
    clean(
        "the agent's profile",
        &expect_text(spectator.agent("meta-agent").await),
    );
    clean(
        "the leaderboard",
        &expect_text(spectator.get("/api/agents?limit=50", Cred::None).await),
    );
    let claim = spectator.claim(&id).await;
    assert_eq!(claim.status, 200);
    clean("the claim page", &claim.text);
    if let Some(invite) = created["invite_url"]
        .as_str()
        .and_then(|url| url.strip_prefix(PUBLIC_URL))
    {
        clean("the invite page", &spectator.page(invite).await.text);
    }

    // The native API and pages show every match and bot of this server: none may leak either.
    let mut native_matches = 0;
    for native in 1..=5 {
        let reply = spectator
            .get(&format!("/api/v1/matches/{native}"), Cred::None)
            .await;
        if reply.status == 200 {
            native_matches += 1;
            clean("the native snapshot", &reply.text);
            let events = spectator
                .get(
                    &format!("/api/v1/matches/{native}/events?since=0"),
                    Cred::None,
                )
                .await;
            clean("the native events", &events.text);
            clean(
                "the match page",
                &spectator.page(&format!("/matches/{native}")).await.text,
            );
        }
    }
    assert!(
        native_matches >= 1,
        "the match is one of the native API's too"
    );
    clean(
        "the native bot list",
        &spectator.get("/api/v1/bots", Cred::None).await.text,
    );
    clean(
        "the native bot profile",
        &expect_text(spectator.get("/api/v1/bots/meta-agent", Cred::None).await),
    );
    clean(
        "the bot page",
        &spectator.page("/bots/meta-agent").await.text,
    );

    // Last, as the stream is an optional part of the protocol: what it carried.
    let (_, events) = guarded("the SSE events", streamed)
        .await
        .expect("the stream");
    clean("the SSE stream", &json!(events).to_string());
}

/// The text of a 200 answer.
#[track_caller]
fn expect_text(reply: crate::helpers::Reply) -> String {
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.text
}
