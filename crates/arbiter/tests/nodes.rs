//! Two real servers sharing PostgreSQL and NATS: a token rotated on one is refused by the other
//! within a second; bots connected to different servers play one match, the one streaming on
//! the server that does not run it hearing of it, their moves and answers going on the direct
//! links between the servers; the server that runs it is killed with SIGKILL, and the other
//! takes the match over once its lease lapses, with every acknowledged move kept and no event
//! twice. Skips without `ARBITER_TEST_POSTGRES_URL` and `ARBITER_TEST_NATS_URL`.

mod support;

use std::ffi::OsStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_store_postgres::testing::TestDatabase;
use futures::StreamExt as _;
use serde_json::{Value, json};
use support::{ADMIN, Server, call, start_with};

/// How long a lease lasts on these servers.
const LEASE_MS: u64 = 2_000;

fn node(database: &str, nats: &str, name: &str) -> Server {
    let lease = LEASE_MS.to_string();
    start_with(&[
        OsStr::new("--database"),
        OsStr::new(database),
        OsStr::new("--nats"),
        OsStr::new(nats),
        OsStr::new("--node-id"),
        OsStr::new(name),
        OsStr::new("--lease-ms"),
        OsStr::new(&lease),
    ])
}

/// Plays the first legal move of every pending decision of `token` through `base` until a
/// request fails; records each acknowledged move as (leg, revision after the move).
async fn play(base: String, id: i64, token: String, acknowledged: Arc<Mutex<Vec<(i64, i64)>>>) {
    let client = arbiter_http_client::client();
    loop {
        let url = format!("{base}/matches/{id}/turns?wait=1");
        let (status, turns) = call(&client, reqwest::Method::GET, url, &token, Value::Null).await;
        if status != 200 {
            return;
        }
        for turn in turns["turns"].as_array().cloned().unwrap_or_default() {
            let mv = turn["request"]["legal_moves"]
                .get(0)
                .cloned()
                .unwrap_or(json!(-1));
            let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv});
            let url = format!("{base}/matches/{id}/moves");
            let (status, reply) = call(&client, reqwest::Method::POST, url, &token, body).await;
            match status {
                200 => acknowledged.lock().expect("lock").push((
                    reply["leg"].as_i64().expect("leg"),
                    reply["revision"].as_i64().expect("revision"),
                )),
                409 => {}
                _ => return,
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_servers_match_goes_on_on_the_other_with_nothing_lost() {
    let Ok(nats) = std::env::var("ARBITER_TEST_NATS_URL") else {
        eprintln!("skipped: set ARBITER_TEST_NATS_URL to run this test against NATS");
        return;
    };
    let Some(database) = TestDatabase::create("nodes").await else {
        return;
    };
    let mut a = node(database.url(), &nats, "a");
    let b = node(database.url(), &nats, "b");
    let client = arbiter_http_client::client();
    let mut tokens = Vec::new();
    for name in ["Alpha", "Beta"] {
        let url = format!("{}/admin/bots", a.base);
        let (status, body) = call(
            &client,
            reqwest::Method::POST,
            url,
            ADMIN,
            json!({"name": name}),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        tokens.push(body["token"].as_str().expect("token").to_owned());
    }
    let (alpha, beta) = (tokens[0].clone(), tokens[1].clone());
    // Beta's server learns of it over NATS.
    let mut known = false;
    for _ in 0..100 {
        let url = format!("{}/bots/me", b.base);
        if call(&client, reqwest::Method::GET, url, &beta, Value::Null)
            .await
            .0
            == 200
        {
            known = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(known, "b knows the bots a registered");

    // A token rotated on a is refused by b within a second.
    let url = format!("{}/admin/bots", a.base);
    let (_, gamma) = call(
        &client,
        reqwest::Method::POST,
        url,
        ADMIN,
        json!({"name": "Gamma"}),
    )
    .await;
    let old = gamma["token"].as_str().expect("token").to_owned();
    let on_b = async |token: &str| {
        let url = format!("{}/bots/me", b.base);
        call(&client, reqwest::Method::GET, url, token, Value::Null)
            .await
            .0
    };
    let mut tries = 0;
    while on_b(&old).await != 200 && tries < 100 {
        tries += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let url = format!("{}/admin/bots/Gamma/rotate-token", a.base);
    let (status, rotated) = call(&client, reqwest::Method::POST, url, ADMIN, json!({})).await;
    assert_eq!(status, 200, "{rotated}");
    let rotated_at = Instant::now();
    while on_b(&old).await != 401 {
        assert!(
            rotated_at.elapsed() < Duration::from_secs(1),
            "b refuses the old token within a second"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    eprintln!(
        "b refused the rotated token {} ms after the rotation",
        rotated_at.elapsed().as_millis()
    );

    // Beta's event stream is on b; its match will run on a.
    let stream = client
        .get(format!("{}/stream", b.base))
        .bearer_auth(&beta)
        .send()
        .await
        .expect("stream");
    assert_eq!(stream.status(), 200);
    let mut stream = stream.bytes_stream();

    // Alpha challenges on a, which runs the match; Beta accepts and plays through b.
    let url = format!("{}/challenges", a.base);
    let (status, created) = call(
        &client,
        reqwest::Method::POST,
        url,
        &alpha,
        json!({"opponent": "Beta"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().expect("id");
    let url = format!("{}/challenges/{id}/accept", b.base);
    let (status, body) = call(&client, reqwest::Method::POST, url, &beta, json!({})).await;
    assert_eq!(status, 200, "accepted through b: {body}");
    // Beta's turns in the match a runs reach its stream on b.
    let mut seen = String::new();
    let turn = format!("{{\"type\":\"turn\",\"match_id\":{id},");
    while !seen.contains(&turn) {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("the stream on b hears of the match on a")
            .expect("open")
            .expect("read");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(stream);
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let players = [
        tokio::spawn(play(
            a.base.clone(),
            id,
            alpha.clone(),
            acknowledged.clone(),
        )),
        tokio::spawn(play(b.base.clone(), id, beta.clone(), acknowledged.clone())),
    ];
    while acknowledged.lock().expect("lock").len() < 20 {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // Beta's moves went from b to a, and their answers back, on the direct links.
    for server in [&a, &b] {
        let root = server.base.trim_end_matches("/api/v1");
        let metrics = client
            .get(format!("{root}/metrics"))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text");
        let value = |name: &str| {
            metrics
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name} ")))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or_else(|| panic!("{name} in\n{metrics}"))
        };
        assert!(value("arbiter_link_messages_total") >= 10.0, "{metrics}");
        assert_eq!(value("arbiter_link_fallbacks_total"), 0.0, "{metrics}");
    }
    a.child.kill().expect("SIGKILL");
    let killed = Instant::now();
    a.child.wait().expect("reaped");
    // A request that was in a's hands is given up on only after a while: stop the players,
    // keeping what was acknowledged.
    for player in &players {
        player.abort();
    }
    let acknowledged = acknowledged.lock().expect("lock").clone();
    assert!(
        acknowledged.iter().any(|&(_, revision)| revision > 0),
        "moves were played through both servers"
    );

    // Once a's lease lapses, b takes the match over at its next heartbeat. A request b
    // forwarded to a in the moment a died fails when b's link to a closes (on NATS alone it
    // would wait until the forwarding gives up on it); asking again finds the match on b.
    let impatient = arbiter_http_client::builder()
        .timeout(Duration::from_secs(1))
        .build()
        .expect("a client");
    let running_on_b = loop {
        let url = format!("{}/matches/{id}", b.base);
        let (status, snapshot) =
            call(&impatient, reqwest::Method::GET, url, &alpha, Value::Null).await;
        if status == 200 {
            break snapshot;
        }
        assert!(
            status == 503 || status == 0,
            "until then, the owner cannot be reached (or the request waits for it): {status} {snapshot}"
        );
        assert!(
            killed.elapsed() < Duration::from_millis(LEASE_MS + 5_000),
            "b took the match over within 5 s of the lease's end"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    eprintln!(
        "b answered for the match {} ms after a was killed (lease {LEASE_MS} ms)",
        killed.elapsed().as_millis()
    );
    assert_eq!(running_on_b["status"], "running", "{running_on_b}");
    let url = format!("{}/matches/{id}/export", b.base);
    let (status, export) = call(&client, reqwest::Method::GET, url, &alpha, Value::Null).await;
    assert_eq!(status, 200);
    let events = export["events"].as_array().expect("events");
    let stored: Vec<(i64, i64)> = events
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
        assert!(stored.contains(ack), "acknowledged move {ack:?} lost");
    }
    let seqs: Vec<i64> = events.iter().filter_map(|e| e["seq"].as_i64()).collect();
    assert!(
        seqs.iter().enumerate().all(|(i, &s)| s == i as i64 + 1),
        "no event lost or repeated: {seqs:?}"
    );

    // Both bots play on through b.
    let more = Arc::new(Mutex::new(Vec::new()));
    let players = [
        tokio::spawn(play(b.base.clone(), id, alpha.clone(), more.clone())),
        tokio::spawn(play(b.base.clone(), id, beta.clone(), more.clone())),
    ];
    while more.lock().expect("lock").len() < 4 {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    drop(b);
    for player in players {
        player.await.expect("player");
    }
    database.drop_schema().await;
}
