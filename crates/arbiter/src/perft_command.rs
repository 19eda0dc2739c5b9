//! `arbiter perft`: leaves, time and leaves per second for a variant's start position.

use std::time::Instant;

use anyhow::Context;
use arbiter_othello::{Kernels, Position, SimdLevel, Variant, perft};
use clap::Args;

/// Options of `arbiter perft`.
#[derive(Args)]
pub(crate) struct PerftArgs {
    /// Game mode: std, anti, grand, octagon or reversi.
    #[arg(long, default_value = "std")]
    variant: Variant,
    /// Plies to search (a pass is a ply; a finished game is one leaf).
    #[arg(long)]
    depth: u32,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Kernel level: scalar, avx2 or avx512 (default: the fastest this CPU supports).
    #[arg(long, env = "ARBITER_SIMD")]
    simd: Option<SimdLevel>,
}

pub(crate) fn run(args: &PerftArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    let kernels = match args.simd {
        Some(level) => {
            Kernels::with_level(level).context("cannot use the requested --simd level")?
        }
        None => Kernels::best(),
    };
    println!(
        "perft {} depth {} on {} thread{} with {} kernels",
        args.variant,
        args.depth,
        args.threads,
        if args.threads == 1 { "" } else { "s" },
        kernels.level()
    );
    let started = Instant::now();
    let leaves = perft(
        &Position::start(args.variant),
        args.depth,
        args.threads,
        kernels,
    );
    let seconds = started.elapsed().as_secs_f64();
    println!("leaves  {leaves}");
    println!("time    {seconds:.3} s");
    println!(
        "rate    {:.1} M leaves/s",
        leaves as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}
