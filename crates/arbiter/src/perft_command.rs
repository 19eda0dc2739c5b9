//! `arbiter perft`: leaves, time and leaves per second for a position of Othello or chess.

use std::time::Instant;

use anyhow::Context;
use arbiter_othello::{Kernels, Position, SimdLevel, Variant, perft};
use clap::{Args, ValueEnum};

/// The games whose move generators `arbiter perft` counts.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum PerftGame {
    /// An Othello-family variant (`--variant`).
    Othello,
    /// Chess, from the start position or `--fen` (Shredder-FEN castling for Chess960).
    Chess,
}

/// Options of `arbiter perft`.
#[derive(Args)]
pub(crate) struct PerftArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "othello")]
    game: PerftGame,
    /// Othello's game mode: std, anti, grand, octagon or reversi.
    #[arg(long, default_value = "std")]
    variant: Variant,
    /// Chess: the position, as FEN (the start position by default).
    #[arg(long)]
    fen: Option<String>,
    /// Plies to search (an Othello pass is a ply; a finished game is one leaf).
    #[arg(long)]
    depth: u32,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Othello's kernel level: scalar, avx2 or avx512 (default: the fastest this CPU supports).
    #[arg(long, env = "ARBITER_SIMD")]
    simd: Option<SimdLevel>,
}

pub(crate) fn run(args: &PerftArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.threads >= 1, "--threads must be at least 1");
    let threads = format!(
        "{} thread{}",
        args.threads,
        if args.threads == 1 { "" } else { "s" }
    );
    let started = Instant::now();
    let leaves = match args.game {
        PerftGame::Othello => {
            let kernels = match args.simd {
                Some(level) => {
                    Kernels::with_level(level).context("cannot use the requested --simd level")?
                }
                None => Kernels::best(),
            };
            println!(
                "perft {} depth {} on {threads} with {} kernels",
                args.variant,
                args.depth,
                kernels.level()
            );
            let position = Position::start(args.variant);
            perft(&position, args.depth, args.threads, kernels)
        }
        PerftGame::Chess => {
            let fen = args.fen.as_deref().unwrap_or(START_FEN);
            let board = parse_board(fen)?;
            println!("perft chess depth {} on {threads}: {fen}", args.depth);
            chess_perft(&board, args.depth, args.threads)
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    println!("leaves  {leaves}");
    println!("time    {seconds:.3} s");
    println!(
        "rate    {:.1} M leaves/s",
        leaves as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A chess position from FEN, with standard or Shredder-FEN (Chess960) castling letters.
fn parse_board(fen: &str) -> anyhow::Result<arbiter_chess::cozy_chess::Board> {
    use arbiter_chess::cozy_chess::Board;
    Board::from_fen(fen, false)
        .or_else(|_| Board::from_fen(fen, true))
        .map_err(|e| anyhow::anyhow!("{fen:?} is not a chess position: {e:?}"))
}

/// Perft of a chess position, its first moves shared out among `threads` threads.
fn chess_perft(board: &arbiter_chess::cozy_chess::Board, depth: u32, threads: usize) -> u64 {
    if depth <= 1 || threads <= 1 {
        return arbiter_chess::perft(board, depth);
    }
    let children: Vec<_> = arbiter_chess::standard::legal_moves(board)
        .into_iter()
        .map(|mv| {
            let mut child = board.clone();
            child.play_unchecked(mv);
            child
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut leaves = 0;
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(child) = children.get(i) else {
                            return leaves;
                        };
                        leaves += arbiter_chess::perft(child, depth - 1);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or(0))
            .sum()
    })
}
