//! `arbiter train othello`: fits the pattern evaluation's weights (`arbiter-othello-eval`) to
//! positions of our own self-play, labelled by the exact endgame solver (`docs/training.md`).
//!
//! Each game starts with a few uniformly random plies, is played on by the house search at a
//! fixed node budget until few empty squares remain, and is then solved exactly. Every position
//! from the first searched move on where the mover has a move becomes a sample, labelled with
//! the final margin of the line played (the solved value from there on), from its mover's side.
//! The samples are fitted by least squares and the weights written in their binary format.
//!
//! Everything that reaches the output depends on the options alone: game `i` draws from its own
//! ChaCha8 stream of the seed, the search is limited by nodes and never by time, the solver
//! by nothing, and the games are merged in their order whatever thread played them; the fit is
//! deterministic itself. So the same options write the same bytes for any `--threads`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use arbiter_house::{Level, Limits, choose, choose_with_weights, solve};
use arbiter_othello::{Color, Move, Position, Variant};
use arbiter_othello_eval::{
    FitOptions, FitProgress, FitReport, MAX_STAGES, SCALE, Sample, Weights, fit_with_progress,
};
use arbiter_rules::random::below;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// The largest `--solve-empties`: each further empty square makes the solve two to three
/// times slower, and 30 already takes minutes per game.
const MAX_SOLVE_EMPTIES: u32 = 30;
/// Random-move chances are drawn as parts per million.
const PPM: u32 = 1_000_000;

/// Options of `arbiter train`.
#[derive(Args)]
pub(crate) struct TrainArgs {
    #[command(subcommand)]
    game: TrainGame,
}

/// The evaluations `arbiter train` fits.
#[derive(Subcommand)]
enum TrainGame {
    /// Othello's pattern evaluation (8x8: std, anti, reversi): self-play by the house search,
    /// exact endgame labels, a least-squares fit.
    Othello(Box<OthelloArgs>),
}

/// Options of `arbiter train othello`.
#[derive(Args, Clone, Debug)]
pub(crate) struct OthelloArgs {
    /// The game mode: std, anti or reversi (the 8x8 ones the evaluation and the solver play).
    #[arg(long, default_value = "std", value_parser = parse_variant)]
    variant: Variant,
    /// Self-play games.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// The seed: game `i` draws from stream `i` of ChaCha8 seeded with it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play with these weights (the house search scoring its leaves with them, within
    /// `--nodes`) instead of the house search's built-in evaluation.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Uniformly random plies each game opens with, an inclusive range drawn per game
    /// (`8..20`, `8..=20` or one number). Reversi's four centre placements come first, also
    /// at random, and are not counted.
    #[arg(long, default_value = "8..20", value_parser = parse_plies)]
    random_plies: RangeInclusive<u32>,
    /// The house search's node budget per move (no time limit, so play is reproducible).
    #[arg(long, default_value_t = 5_000)]
    nodes: u64,
    /// The chance of a uniformly random move instead of the player's, per searched move, for
    /// diversity (0 to 1).
    #[arg(long, default_value_t = 0.01)]
    random_move_rate: f64,
    /// Solve exactly once at most this many empty squares remain.
    #[arg(long, default_value_t = 16)]
    solve_empties: u32,
    /// Worker threads for self-play (default: the processors available); the output does not
    /// depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Fit: game stages, 1 to 61.
    #[arg(long, default_value_t = FitOptions::default().stages)]
    stages: usize,
    /// Fit: a stage also learns from positions up to this many discs outside its own.
    #[arg(long, default_value_t = FitOptions::default().blend)]
    blend: u32,
    /// Fit: the most conjugate-gradient iterations per stage.
    #[arg(long, default_value_t = FitOptions::default().iterations)]
    iterations: u32,
    /// Fit: the L2 penalty (as if this many samples wanted each weight zero).
    #[arg(long, default_value_t = FitOptions::default().l2)]
    l2: f64,
    /// Fit: stop a stage once its residual falls to this fraction of where it started.
    #[arg(long, default_value_t = FitOptions::default().tolerance)]
    tolerance: f64,
    /// Fit: hold every this-many-th sample out as validation (0 holds none out).
    #[arg(long, default_value_t = FitOptions::default().validation_every)]
    validation_every: usize,
    /// Where to write the fitted weights (the `AOEW` binary format).
    #[arg(long)]
    out: PathBuf,
    /// Also write the labelled samples here, a line each: the mover's and the opponent's
    /// discs as hexadecimal bitboards (a1 = bit 0) and the label.
    #[arg(long)]
    samples_out: Option<PathBuf>,
}

pub(crate) fn run(args: &TrainArgs) -> anyhow::Result<()> {
    match &args.game {
        TrainGame::Othello(args) => othello(args),
    }
}

/// Who chooses the moves after the random opening.
enum Player {
    /// The house search, limited to this many nodes per move.
    House {
        /// The node budget per move.
        nodes: u64,
    },
    /// The house search over trained weights, limited to this many nodes per move.
    Weights {
        /// The weights its leaves are scored with.
        weights: Box<Weights>,
        /// The node budget per move.
        nodes: u64,
    },
}

/// How the games are played: everything but the seed and the game's number.
struct Plan {
    variant: Variant,
    random_plies: RangeInclusive<u32>,
    random_move_ppm: u32,
    solve_empties: u32,
    player: Player,
}

/// One game's samples and what it cost.
struct Game {
    /// The labelled positions, in the order they were played.
    samples: Vec<Sample>,
    /// The time the exact solves took (for the report only; nothing else depends on it).
    solve_time: Duration,
    /// Positions the solver visited.
    solve_nodes: u64,
}

/// Everything a training run produces.
struct Trained {
    samples: Vec<Sample>,
    weights: Weights,
    report: FitReport,
    options: FitOptions,
    threads: usize,
    play_time: Duration,
    fit_time: Duration,
    solve_time: Duration,
    solve_nodes: u64,
}

fn othello(args: &OthelloArgs) -> anyhow::Result<()> {
    // A run may take hours; refuse a path it could not write at the end before it starts.
    for path in std::iter::once(&args.out).chain(&args.samples_out) {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(parent) = parent {
            anyhow::ensure!(
                parent.is_dir(),
                "cannot write {}: {} is not a directory",
                path.display(),
                parent.display()
            );
        }
    }
    println!("{}", describe(args));
    let trained = train(args, true)?;
    print!("{}", report(args, &trained));
    let bytes = trained.weights.to_bytes();
    std::fs::write(&args.out, &bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("weights: {} ({} bytes)", args.out.display(), bytes.len());
    if let Some(path) = &args.samples_out {
        write_samples(path, &trained.samples)?;
        println!("samples: {}", path.display());
    }
    Ok(())
}

/// The run's options, so that a log says how its weights were made.
fn describe(args: &OthelloArgs) -> String {
    let player = match &args.weights {
        Some(path) => format!(
            "the house search over {} at {} nodes a move",
            path.display(),
            args.nodes
        ),
        None => format!("the house search at {} nodes a move", args.nodes),
    };
    format!(
        "training {} weights: {} games from seed {}, random plies {}..={}, then {player} \
         (random move chance {}), exact solve from {} empties\n\
         fit: {} stages, blend {}, at most {} iterations, l2 {}, tolerance {}, \
         validation every {}",
        args.variant,
        args.games,
        args.seed,
        args.random_plies.start(),
        args.random_plies.end(),
        args.random_move_rate,
        args.solve_empties,
        args.stages,
        args.blend,
        args.iterations,
        args.l2,
        args.tolerance,
        args.validation_every,
    )
}

/// Plays the games and fits the weights, with progress bars when `bars` is set.
fn train(args: &OthelloArgs, bars: bool) -> anyhow::Result<Trained> {
    let plan = plan(args)?;
    let options = fit_options(args)?;
    let threads = match args.threads {
        Some(threads) => threads,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");

    let bar = progress_bar(
        bars,
        u64::from(args.games),
        "{bar:40} {pos}/{len} games, {per_sec}, {eta} left",
    )?;
    let started = Instant::now();
    let games = play_games(&plan, args.seed, args.games, threads, &|| bar.inc(1));
    let play_time = started.elapsed();
    bar.finish_and_clear();
    let games = games?;
    let solve_time = games.iter().map(|g| g.solve_time).sum();
    let solve_nodes = games.iter().map(|g| g.solve_nodes).sum();
    let samples: Vec<Sample> = games.into_iter().flat_map(|g| g.samples).collect();

    let steps = options.stages as u64 * u64::from(options.iterations.max(1));
    let bar = progress_bar(
        bars,
        steps,
        "{bar:40} fitting stage {msg}, {elapsed} elapsed, {eta} left",
    )?;
    let started = Instant::now();
    let per_stage = u64::from(options.iterations.max(1));
    let fitted = fit_with_progress(&samples, &options, &mut |at: &FitProgress| {
        bar.set_position(at.stage as u64 * per_stage + u64::from(at.iteration));
        bar.set_message(format!(
            "{}/{}, rmse {:.2}",
            at.stage + 1,
            at.stages,
            at.rmse
        ));
    });
    let fit_time = started.elapsed();
    bar.finish_and_clear();
    let (weights, report) = fitted.context("cannot fit the weights")?;
    Ok(Trained {
        samples,
        weights,
        report,
        options,
        threads,
        play_time,
        fit_time,
        solve_time,
        solve_nodes,
    })
}

/// A progress bar drawn on standard error, or a hidden one.
fn progress_bar(show: bool, len: u64, template: &str) -> anyhow::Result<ProgressBar> {
    if !show {
        return Ok(ProgressBar::hidden());
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template)?);
    Ok(bar)
}

/// The play options, checked, with the weights file read when one is given.
fn plan(args: &OthelloArgs) -> anyhow::Result<Plan> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    anyhow::ensure!(
        (0.0..=1.0).contains(&args.random_move_rate),
        "--random-move-rate must be from 0 to 1, not {}",
        args.random_move_rate
    );
    anyhow::ensure!(
        args.solve_empties <= MAX_SOLVE_EMPTIES,
        "--solve-empties must be at most {MAX_SOLVE_EMPTIES}: each empty square more makes \
         the exact solve two to three times slower"
    );
    anyhow::ensure!(args.nodes >= 1, "--nodes must be at least 1");
    let player = match &args.weights {
        Some(path) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read the weights {}", path.display()))?;
            let weights = Weights::from_bytes(&bytes)
                .with_context(|| format!("{} holds no usable weights", path.display()))?;
            Player::Weights {
                weights: Box::new(weights),
                nodes: args.nodes,
            }
        }
        None => Player::House { nodes: args.nodes },
    };
    Ok(Plan {
        variant: args.variant,
        random_plies: args.random_plies.clone(),
        // The rate is within 0 to 1, so the product fits in a u32.
        random_move_ppm: (args.random_move_rate * f64::from(PPM)).round() as u32,
        solve_empties: args.solve_empties,
        player,
    })
}

/// The fit's options from the flags, checked.
fn fit_options(args: &OthelloArgs) -> anyhow::Result<FitOptions> {
    anyhow::ensure!(
        (1..=MAX_STAGES).contains(&args.stages),
        "--stages must be from 1 to {MAX_STAGES}"
    );
    anyhow::ensure!(
        args.l2.is_finite() && args.l2 >= 0.0,
        "--l2 must be a finite number, 0 or more"
    );
    anyhow::ensure!(
        args.tolerance.is_finite() && args.tolerance >= 0.0,
        "--tolerance must be a finite number, 0 or more"
    );
    Ok(FitOptions {
        stages: args.stages,
        blend: args.blend,
        iterations: args.iterations,
        l2: args.l2,
        tolerance: args.tolerance,
        validation_every: args.validation_every,
    })
}

/// A game's number and how it went.
type Played = (u32, anyhow::Result<Game>);

/// Plays games `0..games` on `threads` threads and returns them in game order, calling
/// `finished` after each; the first failure (by game number) is returned instead.
fn play_games(
    plan: &Plan,
    seed: u64,
    games: u32,
    threads: usize,
    finished: &(dyn Fn() + Sync),
) -> anyhow::Result<Vec<Game>> {
    let next = AtomicU32::new(0);
    let failed = AtomicBool::new(false);
    let workers = threads.clamp(1, usize::try_from(games).unwrap_or(usize::MAX).max(1));
    let played: Option<Vec<Vec<Played>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    // Threads pull game numbers from a shared counter, so a slow game holds
                    // up only its own thread; what a game plays depends on its number alone.
                    while !failed.load(Ordering::Relaxed) {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= games {
                            break;
                        }
                        let game = play_game(plan, seed, index);
                        if game.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        mine.push((index, game));
                        finished();
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().ok())
            .collect()
    });
    let mut played: Vec<_> = played
        .ok_or_else(|| anyhow!("a self-play thread panicked"))?
        .into_iter()
        .flatten()
        .collect();
    played.sort_by_key(|(index, _)| *index);
    played
        .into_iter()
        .map(|(index, game)| game.with_context(|| format!("game {index} failed")))
        .collect()
}

/// The empty playable squares of `position`.
fn empties(position: &Position) -> u32 {
    let [black, white] = position.disc_counts();
    position
        .variant()
        .playable_squares()
        .saturating_sub(black + white)
}

/// The final margin of a finished game for `side`: its discs minus the other's, negated in
/// anti-Othello so that more is always better.
fn final_goal(position: &Position, side: Color) -> i32 {
    let counts = position.disc_counts();
    let margin = counts[side.index()] as i32 - counts[side.other().index()] as i32;
    if position.variant().fewer_wins() {
        -margin
    } else {
        margin
    }
}

/// A position as the evaluation reads it: the mover's discs, the opponent's.
fn sides64(position: &Position) -> (u64, u64) {
    let (p, o) = position.sides();
    // The variants trained are 8x8, whose squares are the low 64 bits.
    (p as u64, o as u64)
}

/// Plays game `index` of the run seeded `seed` and labels its positions.
///
/// The game draws only from stream `index` of ChaCha8 seeded with `seed`: the number of
/// random plies, the random plies themselves (Reversi's placements included) and the chances
/// of a random move later. Positions before the solve are labelled once the game's value is
/// known; positions from the solve on each with their own exact solve, which along the
/// solver's line is the same value (checked: a mismatch is a solver bug and stops the run).
fn play_game(plan: &Plan, seed: u64, index: u32) -> anyhow::Result<Game> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(u64::from(index));
    let mut position = Position::start(plan.variant);

    let placements = if plan.variant.is_reversi() { 4 } else { 0 };
    let (low, high) = (*plan.random_plies.start(), *plan.random_plies.end());
    let random_plies = low + below(&mut rng, high - low + 1);
    for _ in 0..placements + random_plies {
        if position.is_over() {
            break;
        }
        let choice = choose(&position, Level::Random, &Limits::default(), &mut rng);
        position.play(choice.mv)?;
    }

    // The positions played before the solve, with their mover, waiting for the game's value.
    let mut played: Vec<(u64, u64, Color)> = Vec::new();
    while !position.is_over() && empties(&position) > plan.solve_empties {
        if position.legal_moves() == 0 {
            position.play(Move::Pass)?;
            continue;
        }
        let (p, o) = sides64(&position);
        played.push((p, o, position.to_move()));
        let random = plan.random_move_ppm > 0 && below(&mut rng, PPM) < plan.random_move_ppm;
        let mv = if random {
            choose(&position, Level::Random, &Limits::default(), &mut rng).mv
        } else {
            plan.player.choose(&position, &mut rng)
        };
        position.play(mv)?;
    }

    let mut solved_samples = Vec::new();
    let mut black_value = None;
    let mut solve_time = Duration::ZERO;
    let mut solve_nodes = 0;
    while !position.is_over() {
        if position.legal_moves() == 0 {
            position.play(Move::Pass)?;
            continue;
        }
        let started = Instant::now();
        let solved = solve(&position, &Limits::default()).ok_or_else(|| {
            anyhow!("the endgame solver does not play this position:\n{position}")
        })?;
        solve_time += started.elapsed();
        solve_nodes += solved.nodes;
        let for_black = match position.to_move() {
            Color::Black => solved.score,
            Color::White => -solved.score,
        };
        let value = *black_value.get_or_insert(for_black);
        anyhow::ensure!(
            for_black == value,
            "the endgame solver's line changed its own value from {value} to {for_black} \
             (for black) at:\n{position}"
        );
        let (p, o) = sides64(&position);
        solved_samples.push(Sample {
            p,
            o,
            margin: solved.score as f32,
        });
        position.play(solved.mv)?;
    }
    // A game that ended before the solve (a wipe-out) has its value on the board.
    let black_value = black_value.unwrap_or_else(|| final_goal(&position, Color::Black));

    let mut samples: Vec<Sample> = played
        .into_iter()
        .map(|(p, o, mover)| Sample {
            p,
            o,
            margin: match mover {
                Color::Black => black_value,
                Color::White => -black_value,
            } as f32,
        })
        .collect();
    samples.extend(solved_samples);
    Ok(Game {
        samples,
        solve_time,
        solve_nodes,
    })
}

impl Player {
    /// The move for the side to move of `position`, which has a legal placement. `rng` is
    /// the game's own stream; the house search ignores it today, and should it ever draw from
    /// it, the game would still depend on its seed and number alone.
    fn choose(&self, position: &Position, rng: &mut ChaCha8Rng) -> Move {
        match self {
            Player::House { nodes } => {
                // A node budget and no deadline: the choice depends on the position alone,
                // not on the machine or on what else it is running.
                let limits = Limits {
                    deadline: None,
                    max_nodes: Some(*nodes),
                    selective: false,
                };
                choose(position, Level::hard(), &limits, rng).mv
            }
            Player::Weights { weights, nodes } => {
                let limits = Limits {
                    deadline: None,
                    max_nodes: Some(*nodes),
                    selective: false,
                };
                choose_with_weights(position, weights, 60, &limits).mv
            }
        }
    }
}

/// What the run did: self-play speed, solve cost, the fit's errors overall and per stage.
fn report(args: &OthelloArgs, trained: &Trained) -> String {
    let mut out = String::new();
    let games = f64::from(args.games);
    let samples = trained.samples.len();
    let play = trained.play_time.as_secs_f64().max(1e-9);
    // Writing to a String cannot fail, so the results of `writeln!` are ignored.
    let _ = writeln!(
        out,
        "self-play: {} games, {samples} samples in {play:.1} s on {} thread{}: {:.1} games/s, \
         {:.0} samples/s",
        args.games,
        trained.threads,
        if trained.threads == 1 { "" } else { "s" },
        games / play,
        samples as f64 / play,
    );
    let _ = writeln!(
        out,
        "exact solves: {:.1} ms and {:.0} k nodes per game on average",
        trained.solve_time.as_secs_f64() * 1e3 / games,
        trained.solve_nodes as f64 / games / 1e3,
    );
    let report = &trained.report;
    let _ = write!(
        out,
        "fit in {:.1} s: training {} samples, rmse {:.2}, mae {:.2} discs",
        trained.fit_time.as_secs_f64(),
        report.training.samples,
        report.training.rmse,
        report.training.mae,
    );
    match &report.validation {
        Some(v) => {
            let _ = writeln!(
                out,
                "; validation {} samples, rmse {:.2}, mae {:.2} discs",
                v.samples, v.rmse, v.mae
            );
        }
        None => out.push('\n'),
    }
    let held_out = stage_errors(
        &trained.weights,
        &trained.samples,
        trained.options.validation_every,
    );
    let _ = writeln!(
        out,
        "{:>5}  {:>5}  {:>8}  {:>5}  {:>10}  {:>8}  {:>10}  {:>9}",
        "stage", "discs", "samples", "iters", "train rmse", "held out", "valid rmse", "valid mae"
    );
    for (stage, errors) in report.stages.iter().zip(&held_out) {
        let discs = format!("{}-{}", stage.discs.start(), stage.discs.end());
        let _ = write!(
            out,
            "{:>5}  {:>5}  {:>8}  {:>5}  {:>10.2}  {:>8}",
            stage.stage, discs, stage.samples, stage.iterations, stage.rmse, errors.count
        );
        if errors.count > 0 {
            let n = errors.count as f64;
            let _ = writeln!(
                out,
                "  {:>10.2}  {:>9.2}",
                (errors.squares / n).sqrt(),
                errors.absolute / n
            );
        } else {
            let _ = writeln!(out, "  {:>10}  {:>9}", "-", "-");
        }
    }
    out
}

/// Sums of a stage's errors on held-out samples, in discs.
#[derive(Clone, Copy, Default)]
struct StageErrors {
    count: usize,
    squares: f64,
    absolute: f64,
}

/// The errors of `weights` on the samples the fit held out (the last of every
/// `validation_every`, as the fit chooses them), by the stage that evaluates them.
fn stage_errors(
    weights: &Weights,
    samples: &[Sample],
    validation_every: usize,
) -> Vec<StageErrors> {
    let mut stages = vec![StageErrors::default(); weights.stage_count()];
    if validation_every == 0 {
        return stages;
    }
    let held_out = samples
        .iter()
        .skip(validation_every - 1)
        .step_by(validation_every);
    for sample in held_out {
        let stage = weights.stage((sample.p | sample.o).count_ones());
        let predicted = f64::from(weights.evaluate(sample.p, sample.o)) / f64::from(SCALE);
        let error = predicted - f64::from(sample.margin);
        if let Some(sums) = stages.get_mut(stage) {
            sums.count += 1;
            sums.squares += error * error;
            sums.absolute += error.abs();
        }
    }
    stages
}

/// Writes the samples as text, a line each: mover's discs, opponent's discs, label.
fn write_samples(path: &Path, samples: &[Sample]) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let write = |out: &mut std::io::BufWriter<std::fs::File>| -> std::io::Result<()> {
        writeln!(
            out,
            "# mover's discs, opponent's discs (hexadecimal, a1 = bit 0), final margin for the mover"
        )?;
        for sample in samples {
            writeln!(out, "{:016x} {:016x} {}", sample.p, sample.o, sample.margin)?;
        }
        out.flush()
    };
    write(&mut out).with_context(|| format!("cannot write {}", path.display()))
}

/// Reads `--variant`: the 8x8 game modes the evaluation and the exact solver play.
fn parse_variant(text: &str) -> Result<Variant, String> {
    let variant: Variant = text.parse().map_err(|e| format!("{e}"))?;
    if variant.size() != 8 {
        return Err(format!(
            "{variant} is played on 10x10; the evaluation is trained for std, anti and reversi"
        ));
    }
    Ok(variant)
}

/// Reads `--random-plies`: one count, or an inclusive range `LOW..HIGH` (`LOW..=HIGH` too),
/// of at most 60 plies.
fn parse_plies(text: &str) -> Result<RangeInclusive<u32>, String> {
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (low, high.strip_prefix('=').unwrap_or(high)),
        None => (text, text),
    };
    let count = |part: &str| {
        part.trim()
            .parse::<u32>()
            .map_err(|_| format!("{text:?} is not a ply count (12) or range (8..20)"))
    };
    let (low, high) = (count(low)?, count(high)?);
    if low > high {
        return Err(format!("{text:?} is an empty range"));
    }
    if high > 60 {
        return Err(format!("{text:?}: a game has at most 60 plies"));
    }
    Ok(low..=high)
}

#[cfg(test)]
mod tests;
