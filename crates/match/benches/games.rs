//! 1,000 games of Othello between two instant engines (`tests/engines/test_engine.py`, the
//! first legal move), as `arbiter match` plays them: the run's time and the arena's own time
//! per move (from an engine's answer to the next request), at the median and the 99th
//! percentile. `cargo bench -p arbiter-match -- [GAMES] [CONCURRENCY]`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use arbiter_connector::EngineSpec;
use arbiter_match::{Entrant, MatchOptions, Openings, Player, TimeControl, run};
use arbiter_plugin::Opening;

const TEST_ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/test_engine.py");

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse().ok())
        .collect();
    let games = numbers.first().copied().unwrap_or(1000);
    let concurrency = numbers.get(1).copied().unwrap_or(2);
    let entrant = |name: &str| Entrant {
        name: name.to_owned(),
        player: Player::Engine(EngineSpec::Json {
            command: format!("python3 {TEST_ENGINE}"),
        }),
    };
    let options = MatchOptions {
        family: &arbiter_othello_plugin::FAMILY,
        variant: "std".to_owned(),
        entrants: vec![entrant("a"), entrant("b")],
        games: u32::try_from(games).unwrap_or(1000),
        concurrency: usize::try_from(concurrency).unwrap_or(2),
        time_control: TimeControl {
            base_ms: 60_000,
            increment_ms: 0,
        },
        openings: Openings::Drawn(Opening::Random),
        seed: "bench".to_owned(),
        sprt: None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (sender, _updates) = tokio::sync::mpsc::unbounded_channel();
    let report = runtime
        .block_on(run(options, sender, Arc::new(AtomicBool::new(false))))
        .expect("the match is played");
    let quantile = |q| {
        report
            .overhead_quantile(q)
            .map_or(0, |d: std::time::Duration| d.as_micros())
    };
    println!(
        "{} games, concurrency {concurrency}: {:.2} s, {} moves, overhead per move p50 {} µs, p99 {} µs, max {} µs",
        report.standing.games,
        report.elapsed.as_secs_f64(),
        report.overheads.len() as u64 + report.standing.games,
        quantile(0.5),
        quantile(0.99),
        quantile(1.0),
    );
}
