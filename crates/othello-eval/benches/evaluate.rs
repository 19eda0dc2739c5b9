//! Evaluation and fitting speed: nanoseconds per evaluation over positions from random games,
//! and samples per second through a fit.
//!
//! `cargo bench -p arbiter-othello-eval` prints both; `-- --quick` uses fewer positions.

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use arbiter_othello::Kernels;
use arbiter_othello_eval::{
    FitOptions, HEADER_LEN, MAGIC, PATTERN_SET, Sample, WEIGHTS_PER_STAGE, Weights, fit,
};

/// SplitMix64, so that the bench needs no generator crate and every run sees the same
/// positions.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Every position of `games` random games from the start, as (mover, opponent).
fn game_positions(rng: &mut SplitMix, games: usize) -> Vec<(u64, u64)> {
    let kernels = Kernels::best();
    let mut positions = Vec::new();
    for _ in 0..games {
        let (mut p, mut o) = (0x0000_0008_1000_0000_u64, 0x0000_0010_0800_0000_u64);
        loop {
            let moves = kernels.moves8(p, o);
            if moves == 0 {
                if kernels.moves8(o, p) == 0 {
                    break;
                }
                (p, o) = (o, p);
                continue;
            }
            positions.push((p, o));
            let mut rest = moves;
            for _ in 0..rng.next() % u64::from(moves.count_ones()) {
                rest &= rest - 1;
            }
            let sq = rest.trailing_zeros();
            let flips = kernels.flips8(p, o, sq);
            (p, o) = (o & !flips, p | flips | 1 << sq);
        }
    }
    positions
}

/// Fifteen stages of random weights, through the public format.
fn random_weights(rng: &mut SplitMix) -> Result<Weights, Box<dyn Error>> {
    let stages: u16 = 15;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&PATTERN_SET.to_le_bytes());
    bytes.extend_from_slice(&stages.to_le_bytes());
    for _ in 0..usize::from(stages) * WEIGHTS_PER_STAGE {
        let w = (rng.next() % 401) as i16 - 200;
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    debug_assert_eq!(
        bytes.len(),
        HEADER_LEN + 2 * usize::from(stages) * WEIGHTS_PER_STAGE
    );
    Ok(Weights::from_bytes(&bytes)?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut rng = SplitMix(2024);
    let weights = random_weights(&mut rng)?;
    let positions = game_positions(&mut rng, if quick { 200 } else { 2_000 });

    // Evaluation, in game order (every stage in turn, as in a game-by-game sweep) and grouped
    // by disc count (as in a search, whose leaves share a stage and so its weights in cache).
    let mut grouped = positions.clone();
    grouped.sort_by_key(|&(p, o)| (p | o).count_ones());
    // The machine may be shared: positions are timed in short chunks, few of which a
    // preemption hits, and the lower decile and the median of the chunks are reported.
    for (name, positions) in [("game order", &positions), ("by disc count", &grouped)] {
        let mut chunks = Vec::new();
        for _ in 0..if quick { 3 } else { 30 } {
            for chunk in positions.chunks(2_000) {
                let start = Instant::now();
                let mut sum = 0i64;
                for &(p, o) in chunk {
                    sum += i64::from(weights.evaluate(black_box(p), black_box(o)));
                }
                black_box(sum);
                chunks.push(start.elapsed().as_secs_f64() * 1e9 / chunk.len() as f64);
            }
        }
        chunks.sort_by(f64::total_cmp);
        println!(
            "evaluate, {name}: {} positions, ns per evaluation: lower decile {:.1}, median {:.1}",
            positions.len(),
            chunks[chunks.len() / 10],
            chunks[chunks.len() / 2],
        );
    }

    // Fitting: samples scored by the random weights plus noise, fitted from scratch.
    let samples: Vec<Sample> = positions
        .iter()
        .map(|&(p, o)| Sample {
            p,
            o,
            margin: (weights.evaluate(p, o) as f32 / 128.0 + (rng.next() % 9) as f32 - 4.0)
                .clamp(-64.0, 64.0),
        })
        .collect();
    let options = FitOptions {
        iterations: if quick { 5 } else { 20 },
        tolerance: 0.0,
        ..FitOptions::default()
    };
    let start = Instant::now();
    let (_, report) = fit(&samples, &options)?;
    let seconds = start.elapsed().as_secs_f64();
    let visits: usize = report
        .stages
        .iter()
        .map(|s| s.samples * s.iterations as usize)
        .sum();
    println!(
        "fit: {} samples, {} stages, blend {}, {} iterations in {:.2} s: {:.0} samples per second \
         end to end, {:.2} M sample-iterations per second; training RMSE {:.2}, validation {:.2}",
        samples.len(),
        options.stages,
        options.blend,
        options.iterations,
        seconds,
        samples.len() as f64 / seconds,
        visits as f64 / seconds / 1e6,
        report.training.rmse,
        report.validation.map_or(f64::NAN, |v| v.rmse),
    );
    Ok(())
}
