//! The `arbiter` binary: argument parsing and wiring only.

mod bench_command;
mod bot_command;
mod bots_command;
mod database;
mod games;
mod match_command;
mod migrate_command;
mod open_files;
mod perft_command;
mod selfplay_command;
mod serve_command;
mod train_command;
mod verify_command;
mod watch_bench_command;
mod xot_command;

use clap::{Parser, Subcommand};

/// The server allocates and frees many small buffers per move on every thread; mimalloc's
/// thread-local free lists do that with far less contention than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Arbiter: an open, self-hostable bot arena for turn-based board games.
#[derive(Parser)]
#[command(name = "arbiter", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the arena server (HTTP API, pages and house bots) on an embedded SQLite database
    /// or on PostgreSQL.
    Serve(Box<serve_command::ServeArgs>),
    /// Copy a stopped server's database into an empty one (SQLite into PostgreSQL), checked
    /// by counts and checksums.
    Migrate(migrate_command::MigrateArgs),
    /// Register and manage bots directly in the database (while the server is stopped).
    Bots(bots_command::BotsArgs),
    /// Count the leaves of an Othello or chess game tree (move-generator test and benchmark).
    Perft(perft_command::PerftArgs),
    /// Load-test a server: simulated bots play paired matches over HTTP.
    Bench(bench_command::BenchArgs),
    /// Measure how fast spectators waiting on a match's event long-poll hear of a move.
    BenchWatch(watch_bench_command::WatchBenchArgs),
    /// Connect an engine to a server and play the bot's matches (token from ARBITER_TOKEN).
    Bot(Box<bot_command::BotArgs>),
    /// Play local engines against each other with no server: mirrored openings, the Elo
    /// difference with its interval, an optional SPRT, or a round robin of several engines.
    Match(Box<match_command::MatchArgs>),
    /// Simulate many games between bots for balance: win rates per player count.
    Selfplay(selfplay_command::SelfplayArgs),
    /// Fit the Othello pattern evaluation's weights to positions of seeded self-play,
    /// labelled by the exact endgame solver (`docs/training.md`).
    Train(train_command::TrainArgs),
    /// Make the list of balanced 8-move openings XOT games start from (printed).
    XotOpenings(xot_command::XotArgs),
    /// Check an exported match: its seed against the commitment, every draw, every action
    /// and the result (a file, - for standard input, or the export's URL).
    Verify(verify_command::VerifyArgs),
}

fn main() {
    // Exit code 2 means a rejected token to `arbiter bot`'s users; options that cannot be
    // parsed are an ordinary error (1), help and version a success.
    let cli = Cli::try_parse().unwrap_or_else(|error| {
        let _ = error.print();
        std::process::exit(if error.use_stderr() { 1 } else { 0 })
    });
    // Errors that reach here are the user's to fix (a bad option, an unreadable file, a server
    // that cannot be used), so they are printed as their message and its causes alone. Returning
    // them from `main` would print their `Debug` form, with a stack backtrace whenever
    // RUST_BACKTRACE is set.
    if let Err(error) = run(cli) {
        eprintln!("Error: {error:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Perft(args) => perft_command::run(&args),
        Command::XotOpenings(args) => xot_command::run(&args),
        Command::Selfplay(args) => selfplay_command::run(&args),
        Command::Train(args) => train_command::run(&args),
        Command::Serve(args) => runtime()?.block_on(serve_command::run(*args)),
        Command::Bots(args) => runtime()?.block_on(bots_command::run(args)),
        Command::Migrate(args) => runtime()?.block_on(migrate_command::run(args)),
        Command::Bench(args) => runtime()?.block_on(bench_command::run(args)),
        Command::Match(args) => runtime()?.block_on(match_command::run(*args)),
        Command::BenchWatch(args) => runtime()?.block_on(watch_bench_command::run(args)),
        Command::Verify(args) => {
            let code = runtime()?.block_on(verify_command::run(args))?;
            std::process::exit(code)
        }
        Command::Bot(args) => {
            let code = runtime()?.block_on(bot_command::run(*args))?;
            // The runtime is gone by now, and with it every engine process.
            std::process::exit(code)
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
