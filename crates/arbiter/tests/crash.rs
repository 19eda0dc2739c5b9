//! Kills a real server process with SIGKILL in the middle of a match and checks that every
//! move it acknowledged is still there after a restart, and that the match goes on.

mod support;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use support::{ADMIN, call, start};

/// Plays the first legal move of every pending decision of `token`, forever; records each
/// acknowledged move as (leg, revision after the move).
async fn play(
    client: reqwest::Client,
    base: String,
    id: i64,
    token: String,
    acknowledged: Arc<Mutex<Vec<(i64, i64)>>>,
) {
    loop {
        let (status, turns) = call(
            &client,
            reqwest::Method::GET,
            format!("{base}/matches/{id}/turns?wait=1"),
            &token,
            Value::Null,
        )
        .await;
        if status != 200 {
            return;
        }
        for turn in turns["turns"].as_array().cloned().unwrap_or_default() {
            let mv = turn["request"]["legal_moves"]
                .get(0)
                .cloned()
                .unwrap_or(json!(-1));
            let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv});
            let (status, reply) = call(
                &client,
                reqwest::Method::POST,
                format!("{base}/matches/{id}/moves"),
                &token,
                body,
            )
            .await;
            if status == 200 {
                let leg = reply["leg"].as_i64().expect("leg");
                let revision = reply["revision"].as_i64().expect("revision");
                acknowledged.lock().expect("lock").push((leg, revision));
            } else if status == 0 {
                return;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_acknowledged_move_survives_sigkill() {
    let dir = tempfile::tempdir().expect("temp dir");
    let database = dir.path().join("arbiter.db");
    let mut server = start(&database);
    let client = arbiter_http_client::client();
    let base = server.base.clone();
    let register = |name: &'static str| {
        let client = client.clone();
        let base = base.clone();
        async move {
            let (status, body) = call(
                &client,
                reqwest::Method::POST,
                format!("{base}/admin/bots"),
                ADMIN,
                json!({"name": name}),
            )
            .await;
            assert_eq!(status, 201, "{body}");
            body["token"].as_str().expect("token").to_owned()
        }
    };
    let alpha = register("Alpha").await;
    let beta = register("Beta").await;
    let (status, created) = call(
        &client,
        reqwest::Method::POST,
        format!("{base}/challenges"),
        &alpha,
        json!({"opponent": "Beta"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().expect("id");
    let (status, _) = call(
        &client,
        reqwest::Method::POST,
        format!("{base}/challenges/{id}/accept"),
        &beta,
        json!({}),
    )
    .await;
    assert_eq!(status, 200);

    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let players = [
        tokio::spawn(play(
            client.clone(),
            base.clone(),
            id,
            alpha.clone(),
            acknowledged.clone(),
        )),
        tokio::spawn(play(
            client.clone(),
            base.clone(),
            id,
            beta.clone(),
            acknowledged.clone(),
        )),
    ];
    // Kill the server while both bots are sending moves as fast as they can.
    while acknowledged.lock().expect("lock").len() < 30 {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    server.child.kill().expect("SIGKILL");
    server.child.wait().expect("reaped");
    for player in players {
        player.await.expect("player task");
    }
    let acknowledged = acknowledged.lock().expect("lock").clone();
    assert!(acknowledged.len() >= 30);

    let mut server = start(&database);
    let base = server.base.clone();
    let (status, export) = call(
        &client,
        reqwest::Method::GET,
        format!("{base}/matches/{id}/export"),
        &alpha,
        Value::Null,
    )
    .await;
    assert_eq!(status, 200);
    let stored: Vec<(i64, i64)> = export["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == "move")
        .map(|e| {
            (
                e["data"]["leg"].as_i64().expect("leg"),
                e["data"]["revision"].as_i64().expect("revision"),
            )
        })
        .collect();
    for ack in &acknowledged {
        assert!(
            stored.contains(ack),
            "acknowledged move {ack:?} was lost; stored {stored:?}"
        );
    }
    let seqs: Vec<i64> = export["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    assert!(
        seqs.iter().enumerate().all(|(i, &s)| s == i as i64 + 1),
        "the log has no gaps"
    );

    // The match resumed and play goes on.
    let (_, snapshot) = call(
        &client,
        reqwest::Method::GET,
        format!("{base}/matches/{id}"),
        &alpha,
        Value::Null,
    )
    .await;
    assert_eq!(snapshot["status"], "running", "{snapshot}");
    let more = Arc::new(Mutex::new(Vec::new()));
    let resumed = tokio::spawn(play(
        client.clone(),
        base.clone(),
        id,
        alpha.clone(),
        more.clone(),
    ));
    let other = tokio::spawn(play(
        client.clone(),
        base.clone(),
        id,
        beta.clone(),
        more.clone(),
    ));
    while more.lock().expect("lock").is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    server.child.kill().expect("stop");
    server.child.wait().expect("reaped");
    let _ = (resumed.await, other.await);
}
