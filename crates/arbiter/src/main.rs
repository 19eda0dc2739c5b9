//! The `arbiter` binary: argument parsing and wiring only.

mod perft_command;

use clap::{Parser, Subcommand};

/// Arbiter: an open, self-hostable bot arena for turn-based board games.
#[derive(Parser)]
#[command(name = "arbiter", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of an Othello-family game tree (move-generator test and benchmark).
    Perft(perft_command::PerftArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => perft_command::run(&args),
    }
}
