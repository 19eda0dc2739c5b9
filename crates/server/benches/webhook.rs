//! The server's own time per webhook decision on loopback: two webhook bots that answer at
//! once play each other, and each bot's server notes when it answered and when the next
//! request of the same leg arrived. The difference is everything the server does between a
//! bot's answer and the next call: reading the answer, playing the move, storing it, and
//! signing and sending the next request. `cargo bench -p arbiter-server --bench webhook --
//! [MATCHES] [--db-dir DIR]`.
//!
//! The database goes in a fresh temporary directory, or under `DIR`: on a RAM disk
//! (`/dev/shm`) the durable commit of each move costs next to nothing, which separates the
//! server's own work from the disk's flush.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_arena::{Arena, ArenaConfig, BotProfile, Games, SystemClock};
use arbiter_webhook::client::Lookups;
use arbiter_webhook::{Lookup, TargetPolicy};
use axum::body::Bytes;
use serde_json::{Value, json};

/// `bot.test` is the loopback address.
struct Names;

impl Lookup for Names {
    fn lookup<'a>(&'a self, _host: &'a str) -> Lookups<'a> {
        Box::pin(async { Ok(vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]) })
    }
}

/// When each leg's last answer left, and the gaps measured so far.
#[derive(Default)]
struct Timings {
    answered: HashMap<(i64, u64), Instant>,
    gaps: Vec<Duration>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let matches: usize = args.iter().find_map(|arg| arg.parse().ok()).unwrap_or(10);
    let db_dir = args
        .iter()
        .position(|arg| arg == "--db-dir")
        .and_then(|at| args.get(at + 1))
        .map(std::path::PathBuf::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let gaps = runtime.block_on(run(matches, db_dir.clone()));
    let mut micros: Vec<u128> = gaps.iter().map(Duration::as_micros).collect();
    micros.sort_unstable();
    let at = |q: f64| {
        let index = ((micros.len() as f64 - 1.0) * q).round() as usize;
        micros.get(index).copied().unwrap_or(0)
    };
    println!(
        "{matches} matches, {} decisions{}: server time per webhook decision p50 {} µs, p90 {} µs, p99 {} µs, max {} µs",
        micros.len(),
        if let Some(dir) = &db_dir {
            format!(" (database under {})", dir.display())
        } else {
            String::new()
        },
        at(0.5),
        at(0.9),
        at(0.99),
        micros.last().copied().unwrap_or(0)
    );
}

async fn run(matches: usize, db_dir: Option<std::path::PathBuf>) -> Vec<Duration> {
    let dir = match db_dir {
        Some(parent) => tempfile::tempdir_in(parent),
        None => tempfile::tempdir(),
    }
    .expect("temp dir");
    let store = arbiter_store_sqlite::SqliteStore::open(&dir.path().join("bench.db"))
        .await
        .expect("store");
    let arena = Arena::start(
        ArenaConfig::default(),
        Games::new().with(&arbiter_othello_plugin::FAMILY),
        Arc::new(SystemClock),
        Arc::new(store),
        None,
    )
    .await
    .expect("arena");
    let policy = TargetPolicy {
        allow_http: true,
        allowed: vec!["127.0.0.1".parse().expect("an address")],
    };
    let webhooks = arbiter_server::Webhooks::with_lookup(b"bench key", policy, Arc::new(Names))
        .expect("webhooks");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let served = arena.clone();
    let dialects = arbiter_server::Dialects::none().with_webhooks(webhooks);
    tokio::spawn(async move {
        arbiter_server::serve(listener, served, dialects, std::future::pending()).await
    });

    // The bots' server: the first legal move, at once, with the time of each call noted.
    let timings = Arc::new(Mutex::new(Timings::default()));
    let noted = timings.clone();
    let bot = axum::Router::new().route(
        "/",
        axum::routing::post(move |body: Bytes| {
            let noted = noted.clone();
            async move {
                let arrived = Instant::now();
                let asked: Value = serde_json::from_slice(&body).unwrap_or_default();
                let key = (
                    asked["match_id"].as_i64().unwrap_or(0),
                    asked["leg"].as_u64().unwrap_or(0),
                );
                let action = asked["request"]["legal_moves"]
                    .get(0)
                    .cloned()
                    .unwrap_or(json!(-1));
                let mut timings = noted.lock().expect("timings");
                if let Some(answered) = timings.answered.get(&key).copied() {
                    timings.gaps.push(arrived - answered);
                }
                timings.answered.insert(key, Instant::now());
                axum::Json(json!({ "action": action }))
            }
        }),
    );
    let bot_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = bot_listener.local_addr().expect("address").port();
    tokio::spawn(async move { axum::serve(bot_listener, bot).await });

    let mut bots = Vec::new();
    for name in ["Left", "Right"] {
        let (bot, _) = arena
            .register_bot(
                name,
                BotProfile {
                    supported_variants: vec!["othello".to_owned()],
                    concurrency: Some(8),
                    auto_match_off: true,
                    ..BotProfile::default()
                },
            )
            .await
            .expect("registered");
        let bot = arena
            .set_webhook(
                bot.id,
                Some(arbiter_arena::Webhook {
                    url: format!("http://bot.test:{port}/"),
                    secret_version: 0,
                    accept_challenges: true,
                    min_initial_ms: 1_000,
                }),
            )
            .await
            .expect("a webhook");
        bots.push(bot);
    }
    while !bots.iter().all(|bot| arena.is_online(bot.id)) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..matches {
        let request = arbiter_arena::ChallengeRequest {
            opponent: bots[1].name.clone(),
            game: "othello".to_owned(),
            variant: None,
            format: arbiter_arena::Format::Paired,
            time_control: Default::default(),
            rated: false,
            auto: false,
            opening: Default::default(),
            client_seed: None,
        };
        let id = arena
            .challenge(&bots[0], request)
            .await
            .expect("challenge")
            .id;
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let snapshot = arena
                .snapshot(id, arbiter_arena::Reader::SPECTATOR)
                .await
                .expect("snapshot");
            if !snapshot.status.is_open() {
                break;
            }
        }
    }
    arena.shutdown().await;
    std::mem::take(&mut timings.lock().expect("timings").gaps)
}
