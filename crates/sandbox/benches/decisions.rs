//! What the sandbox costs: the time from handing a trivial engine a request (an Othello
//! request of ordinary size) to receiving its answer, which is all overhead since the engine
//! does nothing, for one instance asked again and again and for two asked in turn; and the
//! time to start an instance of a compiled module.
//! `cargo bench -p arbiter-sandbox --bench decisions -- [DECISIONS]`.
//!
//! Before the round trips it measures a floor: the same request and answer passed between
//! the caller's runtime and a second runtime built like the sandbox's, over the same kinds of
//! channel, with no WebAssembly at all. Where the caller's and the worker's threads both park,
//! the floor is what the two thread hops cost, and the difference between it and a round trip
//! is what wasmtime and the sandbox's WASI cost. The sandbox's worker, though, lingers for a
//! request that comes quickly instead of parking at once (see the crate's documentation), so
//! its round trips can be faster than the floor.

use std::time::{Duration, Instant};

use arbiter_sandbox::{Instance, Limits, Sandbox};
use tokio::sync::{mpsc, oneshot};

/// Answers every request with the same move, without reading it beyond its end.
const TRIVIAL: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "\00\04\00\00\00\10\00\00")
  (data (i32.const 16) "\40\00\00\00\0e\00\00\00")
  (data (i32.const 64) "{\"move\":\"d3\"}\0a")
  (func (export "_start")
    (loop $next
      (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (if (i32.eqz (i32.load (i32.const 8))) (then (return)))
      (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24)))
      (br $next))))"#;

fn percentiles(name: &str, samples: &mut [Duration]) {
    samples.sort_unstable();
    let at = |q: f64| {
        let index = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples.get(index).map_or(0, Duration::as_micros)
    };
    println!(
        "{name}: {} samples, p50 {} µs, p90 {} µs, p99 {} µs, max {} µs",
        samples.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        samples.last().map_or(0, Duration::as_micros)
    );
}

/// One request for the floor's responder: the line and where its answer goes, as the
/// sandbox passes them.
type Ask = (Vec<u8>, oneshot::Sender<Result<String, ()>>);

/// The floor: `decisions` round trips of `request` from the caller's runtime to a task on
/// `other` that answers at once, each timed.
async fn ping_pong(
    other: &tokio::runtime::Handle,
    request: &str,
    decisions: usize,
) -> Vec<Duration> {
    let (asks, mut receiver) = mpsc::channel::<Ask>(1);
    other.spawn(async move {
        while let Some((line, answer)) = receiver.recv().await {
            assert!(line.ends_with(b"\n"));
            let _ = answer.send(Ok(r#"{"move":"d3"}"#.to_owned()));
        }
    });
    let mut times = Vec::with_capacity(decisions);
    for _ in 0..decisions {
        let began = Instant::now();
        let (answer, answered) = oneshot::channel();
        let line = format!("{request}\n").into_bytes();
        asks.send((line, answer)).await.expect("the responder runs");
        let answer = answered.await.expect("an answer").expect("an answer");
        times.push(began.elapsed());
        assert_eq!(answer, r#"{"move":"d3"}"#);
    }
    times
}

fn main() {
    let decisions: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(20_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // Built as `Sandbox::new` builds its pool; a runtime may not be dropped inside another,
    // so this one lives outside the caller's.
    let other = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(Limits::default().workers.max(1))
        .thread_name("ping-pong")
        .build()
        .expect("a second runtime");
    runtime.block_on(async {
        let sandbox = Sandbox::new(Limits::default()).expect("a sandbox");
        let bytes = wat::parse_str(TRIVIAL).expect("valid text");
        let program = sandbox.load(bytes).await.expect("loads");
        let request = format!(
            r#"{{"board":[{}],"color":1,"legal_moves":[19,26,37,44],"game_mode":"std","board_size":8,"blocked_squares":[],"placed":{{"1":2,"2":2}},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}}"#,
            ["0"; 64].join(",")
        );

        let mut floor = ping_pong(other.handle(), &request, decisions).await;
        percentiles("cross-runtime ping-pong (no wasm)", &mut floor);

        let mut starts = Vec::with_capacity(1_000);
        for _ in 0..1_000 {
            let began = Instant::now();
            let instance = sandbox.start(&program, [1; 32]).await.expect("starts");
            starts.push(began.elapsed());
            drop(instance);
        }
        percentiles("instantiation", &mut starts);

        let instance = sandbox.start(&program, [1; 32]).await.expect("starts");
        let mut times = Vec::with_capacity(decisions);
        for _ in 0..decisions {
            times.push(timed(&instance, &request).await);
        }
        percentiles("decision round trip", &mut times);

        // As in a match between two modules: each request goes to the other instance.
        let other = sandbox.start(&program, [2; 32]).await.expect("starts");
        let mut times = Vec::with_capacity(decisions);
        for turn in 0..decisions {
            let mover = if turn % 2 == 0 { &instance } else { &other };
            times.push(timed(mover, &request).await);
        }
        percentiles("decision round trip, two instances in turn", &mut times);
    });
}

/// One decision's round trip.
async fn timed(instance: &Instance, request: &str) -> Duration {
    let began = Instant::now();
    let answer = instance
        .decide(request, Duration::from_secs(10))
        .await
        .expect("an answer");
    let elapsed = began.elapsed();
    assert_eq!(answer, r#"{"move":"d3"}"#);
    elapsed
}
