//! `arbiter selfplay fate-tokens`: the balance simulator. Bots play whole games of Fate Tokens
//! through the rules library, many at a time, and the command prints the good side's win rate
//! per player count (`docs/selfplay.md`).

use std::fmt::Write;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use arbiter_fate_tokens::selfplay::{self, CountReport, Ending, Players, RandomPlayers, RuleBots};
use arbiter_fate_tokens::{FateTokens, MAX_PLAYERS, MIN_PLAYERS};
use arbiter_rules::Game;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `arbiter selfplay`.
#[derive(Args)]
pub(crate) struct SelfplayArgs {
    #[command(subcommand)]
    game: SelfplayGame,
}

/// The games `arbiter selfplay` simulates.
#[derive(Subcommand)]
enum SelfplayGame {
    /// Fate Tokens: the good side's win rate, game length and endings per player count.
    FateTokens(FateTokensArgs),
}

/// Options of `arbiter selfplay fate-tokens`.
#[derive(Args)]
struct FateTokensArgs {
    /// Player counts: one (`6`) or an inclusive range (`4..8`).
    #[arg(long, default_value = "4..8", value_parser = parse_players)]
    players: RangeInclusive<u8>,
    /// Games per player count.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// The simulation's seed: the same seed plays the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: the processors available).
    #[arg(long)]
    threads: Option<usize>,
    /// Also write a bar chart of the win rates to this SVG file.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Random players in every seat: each decision uniform among the legal ones, no claims.
    #[arg(long)]
    random: bool,
}

pub(crate) fn run(args: &SelfplayArgs) -> anyhow::Result<()> {
    match &args.game {
        SelfplayGame::FateTokens(args) => fate_tokens(args),
    }
}

/// Who plays the seats, and how the report names them.
fn seat_players(args: &FateTokensArgs) -> (&'static dyn Players, &'static str) {
    if args.random {
        return (&RandomPlayers, "random players");
    }
    (&RuleBots, "rule bots")
}

fn fate_tokens(args: &FateTokensArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    let threads = match args.threads {
        Some(threads) => threads,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    let (who, name) = seat_players(args);
    println!(
        "Fate Tokens self-play, rules_version {}: {name}, {} games per player count, seed {}",
        FateTokens::RULES_VERSION,
        args.games,
        args.seed
    );
    let counts = u64::from(args.players.end() - args.players.start()) + 1;
    let bar = ProgressBar::new(counts * u64::from(args.games));
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} games, {per_sec}, {eta} left",
    )?);
    let started = Instant::now();
    let reports = selfplay::simulate(
        args.players.clone(),
        args.games,
        args.seed,
        threads,
        who,
        &|games| bar.inc(games),
    );
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let reports = reports.context("the simulation stopped")?;
    println!();
    print!("{}", table(&reports));
    println!();
    let refused: u64 = reports.iter().map(|r| r.refused).sum();
    if refused == 0 {
        println!("refused actions: 0");
    } else {
        println!("refused actions: {refused} (a bug: the players chose what the rules refuse)");
    }
    let played: u32 = reports.iter().map(|r| r.games).sum();
    println!(
        "throughput: {:.1} games/s per thread ({played} games in {seconds:.2} s on {threads} thread{})",
        f64::from(played) / seconds.max(1e-9) / threads as f64,
        if threads == 1 { "" } else { "s" }
    );
    if let Some(path) = &args.svg {
        std::fs::write(path, selfplay::svg(&reports))
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("chart: {}", path.display());
    }
    Ok(())
}

/// The report as a table, a line per player count: the win rate in per cent with its 95 %
/// Wilson interval, the average rounds, and each ending's count.
fn table(reports: &[CountReport]) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail, so the results of `write!` are ignored.
    let _ = write!(
        out,
        "{:>7}  {:>6}  {:>9}  {:>8}  {:>14}  {:>10}",
        "players", "games", "good wins", "win rate", "95 % CI", "avg rounds"
    );
    for ending in Ending::ALL {
        let _ = write!(out, "  {:>w$}", ending.label(), w = width(ending));
    }
    out.push('\n');
    for report in reports {
        let interval = report.interval();
        let _ = write!(
            out,
            "{:>7}  {:>6}  {:>9}  {:>6.1} %  {:>14}  {:>10.2}",
            report.players,
            report.games,
            report.good_wins,
            report.win_rate() * 100.0,
            format!(
                "[{:.1}, {:.1}] %",
                interval.low * 100.0,
                interval.high * 100.0
            ),
            report.average_rounds()
        );
        for (ending, count) in report.endings.iter() {
            let _ = write!(out, "  {count:>w$}", w = width(ending));
        }
        out.push('\n');
    }
    out
}

/// The width of an ending's column: its label, or room for six digits.
fn width(ending: Ending) -> usize {
    ending.label().len().max(6)
}

/// Reads `--players`: one count, or an inclusive range `LOW..HIGH` (`LOW..=HIGH` too), within
/// the rules' 4 to 8 players.
fn parse_players(text: &str) -> Result<RangeInclusive<u8>, String> {
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (low, high.strip_prefix('=').unwrap_or(high)),
        None => (text, text),
    };
    let count = |part: &str| {
        part.trim()
            .parse::<u8>()
            .map_err(|_| format!("{text:?} is not a player count (6) or range (4..8)"))
    };
    let (low, high) = (count(low)?, count(high)?);
    if low > high {
        return Err(format!("{text:?} is an empty range"));
    }
    if low < MIN_PLAYERS || high > MAX_PLAYERS {
        return Err(format!(
            "Fate Tokens has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {text}"
        ));
    }
    Ok(low..=high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_counts_are_one_or_an_inclusive_range() {
        let cases: [(&str, Option<RangeInclusive<u8>>); 10] = [
            ("6", Some(6..=6)),
            ("4..8", Some(4..=8)),
            ("4..=8", Some(4..=8)),
            ("5..5", Some(5..=5)),
            (" 4 .. 6 ", Some(4..=6)),
            ("3", None),
            ("4..9", None),
            ("8..4", None),
            ("four", None),
            ("4..", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_players(text).ok(), want, "{text:?}");
        }
    }

    #[test]
    fn the_table_has_a_line_per_count_and_a_column_per_ending() {
        let reports = selfplay::simulate(4..=5, 4, 1, 1, &RandomPlayers, &|_| {}).expect("games");
        let text = table(&reports);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        for ending in Ending::ALL {
            assert!(lines[0].contains(ending.label()), "{text}");
        }
        // Every line is as wide as the header, so the columns line up.
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{text}");
        assert!(lines[1].trim_start().starts_with("4 "), "{text}");
        assert!(lines[2].trim_start().starts_with("5 "), "{text}");
    }
}
