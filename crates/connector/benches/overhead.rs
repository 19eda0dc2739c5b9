//! The connector's overhead per decision: from the moment it reads the engine's answer to the
//! moment the move's POST reaches the server (the connector's own work, the HTTP client, the
//! loopback and the server's request parsing, all of it charged to the connector).
//!
//! A server runs in this process on its own runtime with a middleware that notes when each
//! move request arrives; the connector runs on another runtime and reports when it read each
//! answer. Both use the same monotonic clock. The engine is this benchmark's own executable,
//! started as a JSON-lines engine that plays the first legal move of Othello, or with
//! `--engine uci` as a UCI engine that plays the first legal move of standard chess at once
//! (`go` answered as soon as it is read), and the bot plays self-play matches so that every
//! decision of both seats goes through the connector.
//!
//! Run with `cargo bench -p arbiter-connector --bench overhead` (`-- --decisions N --matches M
//! --engine json|uci`; the defaults are 4,000 decisions, one match at a time, at most 2 for the
//! bot's limit, and the JSON-lines engine).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_arena::{Arena, ArenaConfig, ManualClock};
use arbiter_connector::{EngineSpec, MoveTiming, Options};
use arbiter_store_sqlite::SqliteStore;
use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{Value, json};

/// When each move request arrived, by (match, leg, revision); health checks by their
/// `x-probe` number under match 0.
type Arrivals = Arc<Mutex<HashMap<(i64, u8, u64), Instant>>>;

/// Health checks sent for the floor: what any HTTP client pays from hand-off to arrival.
const PROBES: u64 = 2_000;

const ENGINE_VARIABLE: &str = "ARBITER_OVERHEAD_ENGINE";

fn main() {
    if let Some(kind) = std::env::var_os(ENGINE_VARIABLE) {
        if kind == "uci" {
            uci_engine();
        } else {
            engine();
        }
        return;
    }
    let flag = |name: &str, default: usize| {
        std::env::args()
            .skip_while(|arg| arg != name)
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let decisions = flag("--decisions", 4_000);
    let matches = flag("--matches", 1);
    let uci = std::env::args()
        .skip_while(|arg| arg != "--engine")
        .nth(1)
        .is_some_and(|kind| kind == "uci");
    let arrivals: Arrivals = Arc::default();
    let (url, _server) = start_server(arrivals.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let timings = runtime.block_on(play(&url, decisions, matches, uci));
    let probes = runtime.block_on(probe(&url));
    report(&timings, &probes, &arrivals.lock().expect("arrivals"));
}

/// A JSON-lines engine: the first legal move, at once.
fn engine() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let request: Value = serde_json::from_str(&line).unwrap_or_default();
        let mv = request["legal_moves"].get(0).cloned().unwrap_or(json!(-1));
        if writeln!(stdout, "{}", json!({"move": mv}))
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

/// A UCI engine for standard chess: `position startpos moves …` replayed on a board, and `go`
/// answered at once with the first legal move.
fn uci_engine() {
    use arbiter_chess::cozy_chess::Board;
    use arbiter_chess::standard::{legal_moves, parse_uci, uci};
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut board = Board::default();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let mut words = line.split_whitespace();
        let reply = match words.next() {
            Some("uci") => Some("id name overhead\nuciok".to_owned()),
            Some("isready") => Some("readyok".to_owned()),
            Some("position") => {
                board = Board::default();
                for text in words.skip_while(|word| *word != "moves").skip(1) {
                    let mv = parse_uci(&board, text, false).expect("a legal move");
                    board.play(mv);
                }
                None
            }
            Some("go") => Some(match legal_moves(&board).first() {
                Some(&mv) => format!("bestmove {}", uci(&board, mv, false)),
                None => "bestmove (none)".to_owned(),
            }),
            Some("quit") => return,
            _ => None,
        };
        if let Some(reply) = reply
            && writeln!(stdout, "{reply}")
                .and_then(|()| stdout.flush())
                .is_err()
        {
            return;
        }
    }
}

/// The server on its own thread and runtime; returns its URL and the thread.
fn start_server(arrivals: Arrivals) -> (String, std::thread::JoinHandle<()>) {
    let (ready, address) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("server runtime");
        runtime.block_on(async move {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = SqliteStore::open(&dir.path().join("bench.db"))
                .await
                .expect("store");
            // A manual clock: match clocks stand still, so no leg is ever lost on time.
            let clock = ManualClock::new(1_795_900_000_000);
            let arena = Arena::start(
                ArenaConfig::default(),
                arbiter_arena::Games::new()
                    .with(&arbiter_othello_plugin::FAMILY)
                    .with(&arbiter_chess::FAMILY),
                Arc::new(clock),
                Arc::new(store),
                None,
            )
            .await
            .expect("arena");
            let dialects = arbiter_server::Dialects::none()
                .with_flipsight(arena.games(), "othello")
                .expect("Othello is registered");
            let app = arbiter_server::app(arena, dialects).layer(axum::middleware::from_fn(
                move |request, next| note_arrival(arrivals.clone(), request, next),
            ));
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let _ = ready.send(listener.local_addr().expect("address"));
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await
            .expect("serve");
        });
    });
    let address = address.recv().expect("the server starts");
    (format!("http://{address}"), thread)
}

/// Notes when a move request arrived, then hands it on unchanged.
async fn note_arrival(arrivals: Arrivals, request: Request, next: Next) -> Response {
    let arrived = Instant::now();
    if let Some(n) = request
        .headers()
        .get("x-probe")
        .and_then(|v| v.to_str().ok()?.parse().ok())
    {
        arrivals
            .lock()
            .expect("arrivals")
            .insert((0, 0, n), arrived);
        return next.run(request).await;
    }
    let path = request.uri().path().to_owned();
    let Some(id) = path
        .strip_prefix("/api/v1/matches/")
        .and_then(|rest| rest.strip_suffix("/moves"))
        .and_then(|id| id.parse::<i64>().ok())
    else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 1 << 16).await.unwrap_or_default();
    let mv: Value = serde_json::from_slice(&bytes).unwrap_or_default();
    if let (Some(leg), Some(revision)) = (mv["leg"].as_u64(), mv["revision"].as_u64()) {
        let leg = u8::try_from(leg).unwrap_or(u8::MAX);
        arrivals
            .lock()
            .expect("arrivals")
            .insert((id, leg, revision), arrived);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Runs a connector playing `matches` self-play matches at a time until `decisions` moves are
/// sent: Othello with the JSON-lines engine, or standard chess with the UCI engine (`uci`).
async fn play(url: &str, decisions: usize, matches: usize, uci: bool) -> Vec<MoveTiming> {
    let client = arbiter_http_client::client();
    let minted: Value = client
        .post(format!("{url}/api/v1/bots/anon"))
        .body(r#"{"name":"bench"}"#)
        .send()
        .await
        .expect("mint")
        .json()
        .await
        .expect("minted");
    let token = minted["token"].as_str().expect("token").to_owned();
    let name = minted["bot"]["name"].as_str().expect("name").to_owned();
    let exe = std::env::current_exe().expect("own path");
    let (engine, challenge) = if uci {
        let engine = EngineSpec::Uci {
            command: format!("{ENGINE_VARIABLE}=uci '{}'", exe.display()),
            options: Vec::new(),
        };
        (
            engine,
            json!({"opponent": name, "game": "chess", "variant": "standard"}),
        )
    } else {
        let engine = EngineSpec::Json {
            command: format!("{ENGINE_VARIABLE}=1 '{}'", exe.display()),
        };
        (engine, json!({"opponent": name}))
    };
    let (sender, mut timings) = tokio::sync::mpsc::unbounded_channel();
    let mut options = Options::new(url, &token, engine);
    options.timings = Some(sender);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let connector = tokio::spawn(arbiter_connector::run(options, async move {
        let _ = stopped.await;
    }));
    let mut collected = Vec::with_capacity(decisions);
    let mut open = 0;
    let mut last_progress = Instant::now();
    while collected.len() < decisions {
        while open < matches {
            let created = client
                .post(format!("{url}/api/v1/challenges"))
                .bearer_auth(&token)
                .body(challenge.to_string())
                .send()
                .await
                .expect("challenge");
            assert!(
                created.status().is_success(),
                "{}",
                created.text().await.unwrap_or_default()
            );
            open += 1;
        }
        match tokio::time::timeout(Duration::from_millis(200), timings.recv()).await {
            Ok(Some(timing)) => {
                collected.push(timing);
                last_progress = Instant::now();
                continue;
            }
            Ok(None) => panic!("the connector stopped"),
            Err(_) => assert!(
                last_progress.elapsed() < Duration::from_secs(30),
                "the connector stopped playing"
            ),
        }
        // Quiet for a moment: see which matches have ended, so that new ones replace them.
        let listed: Value = client
            .get(format!("{url}/api/v1/matches"))
            .bearer_auth(&token)
            .send()
            .await
            .expect("matches")
            .json()
            .await
            .expect("list");
        open = listed.as_array().map_or(0, Vec::len);
    }
    let _ = stop.send(());
    let _ = connector.await;
    collected
}

/// Sends health checks one after another from a plain client on the connector's runtime and
/// notes when each was handed to the client.
async fn probe(url: &str) -> Vec<(u64, Instant)> {
    let client = arbiter_http_client::client();
    let mut sent = Vec::new();
    for n in 1..=PROBES {
        let request = client
            .get(format!("{url}/api/v1/health"))
            .header("x-probe", n);
        sent.push((n, Instant::now()));
        let _ = request.send().await.expect("health");
        // Spaced like decisions, so that the server has gone idle in between as it does
        // while an engine thinks.
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    sent
}

fn report(
    timings: &[MoveTiming],
    probes: &[(u64, Instant)],
    arrivals: &HashMap<(i64, u8, u64), Instant>,
) {
    let mut to_server: Vec<Duration> = Vec::new();
    let mut to_client: Vec<Duration> = Vec::new();
    let mut floor: Vec<Duration> = probes
        .iter()
        .filter_map(|(n, sent)| Some(arrivals.get(&(0, 0, *n))?.duration_since(*sent)))
        .collect();
    for t in timings {
        to_client.push(t.posting.duration_since(t.answered));
        if let Some(arrived) = arrivals.get(&(t.match_id, t.leg, t.revision)) {
            to_server.push(arrived.duration_since(t.answered));
        }
    }
    println!(
        "decisions measured: {} ({} matched to the server's arrival)",
        timings.len(),
        to_server.len()
    );
    for (what, samples) in [
        (
            "answer read -> POST handed to the HTTP client",
            &mut to_client,
        ),
        ("answer read -> POST arrived at the server", &mut to_server),
        (
            "floor: a plain GET handed to an HTTP client -> arrived",
            &mut floor,
        ),
    ] {
        samples.sort();
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        println!(
            "{what}: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
            micros(at(0.5)),
            micros(at(0.99)),
            micros(at(1.0))
        );
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
