//! `arbiter match`: local engines against each other, with no server: a progress bar and a live
//! results line, then the Elo difference (or a round robin's table) and the arena's own time
//! per move; every game written out as a JSON line with `--output`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, bail};
use arbiter_connector::EngineSpec;
use arbiter_match::stats::{Sprt, SprtVerdict, Tally};
use arbiter_match::{
    Entrant, MatchOptions, Openings, Player, Report, Standing, TimeControl, Update,
};
use arbiter_plugin::{HouseLevel, Opening};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::mpsc;

use crate::games::games;

/// Options of `arbiter match`.
#[derive(Args)]
pub(crate) struct MatchArgs {
    /// The game (othello, gomoku, chess, goofspiel).
    #[arg(long, default_value = "othello")]
    game: String,
    /// The variant [default: the game's first: std, freestyle, standard, …].
    #[arg(long)]
    variant: Option<String>,
    /// An engine speaking JSON lines (FlipSight's for Othello, the generic engine protocol for
    /// other games), named for the results: `NAME=COMMAND` (repeatable; the first named is the
    /// one whose Elo difference is reported).
    #[arg(long = "engine", value_name = "NAME=COMMAND", value_parser = named)]
    engines: Vec<(String, String)>,
    /// The engine NAME speaks UCI (chess) instead.
    #[arg(long, value_name = "NAME")]
    uci: Vec<String>,
    /// The engine NAME speaks NBoard (standard Othello) instead.
    #[arg(long, value_name = "NAME")]
    nboard: Vec<String>,
    /// The engine NAME is a Gomocup brain (Gomoku) instead.
    #[arg(long, value_name = "NAME")]
    gomocup: Vec<String>,
    /// The NBoard engine NAME searches to this depth (`set depth`, 1–60) instead of its
    /// default: `NAME=DEPTH` (repeatable).
    #[arg(long = "nboard-depth", value_name = "NAME=DEPTH", value_parser = named)]
    nboard_depths: Vec<(String, String)>,
    /// Add the built-in practice engine (the first legal action) as NAME.
    #[arg(long, value_name = "NAME")]
    practice: Vec<String>,
    /// Add the game's own house player as NAME, at a level (random, greedy, easy, medium, hard,
    /// max), thinking in this process as it does on a server: `NAME=LEVEL` (repeatable).
    #[arg(long, value_name = "NAME=LEVEL", value_parser = named)]
    house: Vec<(String, String)>,
    /// Games per pairing: each opening is played twice, colours swapped.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Each engine's clock: seconds, and an increment in seconds after each turn.
    #[arg(long, default_value = "10+0.1")]
    tc: TimeControl,
    /// Where games start: `random` (a random opening per pair, drawn from the seed), `start`
    /// (the rules' own start), `balanced` (Othello's XOT list), or an opening book: a file with
    /// one opening a line (Othello's moves from the start, `f5d6c3`; a chess FEN or EPD line),
    /// used in order, `#` lines and empty ones skipped.
    #[arg(long, default_value = "random")]
    openings: String,
    /// The seed openings and dice are drawn from: the same seed plays the same openings
    /// [default: a new one, printed].
    #[arg(long)]
    seed: Option<String>,
    /// Stop once a sequential probability ratio test decides: `elo0=0 elo1=5 alpha=0.05
    /// beta=0.05` (two engines only).
    #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
    sprt: Vec<String>,
    /// Write every game as a JSON line to this file.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write every game to this file in its game's record format: PGN for chess and Chess960,
    /// GGF for Othello (standard and 10x10).
    #[arg(long)]
    records: Option<PathBuf>,
}

fn named(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, command)) if !name.trim().is_empty() && !command.trim().is_empty() => {
            Ok((name.trim().to_owned(), command.to_owned()))
        }
        _ => Err(format!("{text:?} is not NAME=COMMAND")),
    }
}

/// The openings `--openings` names: a way to draw them, or a book's file.
fn openings(text: &str) -> anyhow::Result<Openings> {
    Ok(match text {
        "random" => Openings::Drawn(Opening::Random),
        "start" => Openings::Drawn(Opening::Start),
        "balanced" => Openings::Drawn(Opening::Balanced),
        path => {
            let book = std::fs::read_to_string(path).with_context(|| {
                format!("--openings {path:?} is neither random, start nor balanced, nor a file that can be read")
            })?;
            Openings::Book(
                book.lines()
                    .map(str::trim)
                    .filter(|line| !line.is_empty() && !line.starts_with('#'))
                    .map(str::to_owned)
                    .collect(),
            )
        }
    })
}

/// The SPRT from `elo0=… elo1=… alpha=… beta=…` (alpha and beta 0.05 unless given).
fn sprt(parts: &[String]) -> anyhow::Result<Option<Sprt>> {
    if parts.is_empty() {
        return Ok(None);
    }
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    for part in parts {
        let Some((key, value)) = part.split_once('=') else {
            bail!("--sprt takes KEY=VALUE, not {part:?}");
        };
        let value: f64 = value
            .parse()
            .with_context(|| format!("--sprt {key}: {value:?} is not a number"))?;
        match key {
            "elo0" => elo0 = Some(value),
            "elo1" => elo1 = Some(value),
            "alpha" => alpha = value,
            "beta" => beta = value,
            _ => bail!("--sprt knows elo0, elo1, alpha and beta, not {key:?}"),
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        bail!("--sprt needs elo0 and elo1");
    };
    Ok(Some(Sprt::new(elo0, elo1, alpha, beta)?))
}

impl MatchArgs {
    /// The entrants, in the order they were named.
    fn entrants(&self) -> anyhow::Result<Vec<Entrant>> {
        let mut entrants: Vec<Entrant> = Vec::new();
        for (name, command) in &self.engines {
            let protocols = [
                (&self.uci, "uci"),
                (&self.nboard, "nboard"),
                (&self.gomocup, "gomocup"),
            ];
            let marked: Vec<&str> = protocols
                .iter()
                .filter(|(names, _)| names.contains(name))
                .map(|(_, protocol)| *protocol)
                .collect();
            let command = command.clone();
            let engine = match marked.as_slice() {
                [] => EngineSpec::Json { command },
                ["uci"] => EngineSpec::Uci {
                    command,
                    options: Vec::new(),
                },
                ["nboard"] => EngineSpec::Nboard {
                    command,
                    depth: self.nboard_depth(name)?,
                },
                ["gomocup"] => EngineSpec::Gomocup {
                    command,
                    max_memory_mb: arbiter_connector::DEFAULT_GOMOCUP_MEMORY_MB,
                },
                _ => bail!(
                    "{name} is given more than one protocol: {}",
                    marked.join(", ")
                ),
            };
            entrants.push(Entrant {
                name: name.clone(),
                player: Player::Engine(engine),
            });
        }
        for name in &self.practice {
            entrants.push(Entrant {
                name: name.clone(),
                player: Player::Engine(EngineSpec::Practice),
            });
        }
        for (name, level) in &self.house {
            let Some(level) = HouseLevel::parse(level.trim()) else {
                let levels: Vec<&str> = HouseLevel::ALL.iter().map(|l| l.name()).collect();
                bail!(
                    "--house {name}={level}: no such level; levels: {}",
                    levels.join(", ")
                );
            };
            entrants.push(Entrant {
                name: name.clone(),
                player: Player::House(level),
            });
        }
        let nboard_named = self.nboard_depths.iter().map(|(name, _)| name);
        for name in self.uci.iter().chain(&self.nboard).chain(&self.gomocup) {
            if !self.engines.iter().any(|(named, _)| named == name) {
                bail!("no --engine is named {name:?}");
            }
        }
        for name in nboard_named {
            if !self.nboard.contains(name) {
                bail!("--nboard-depth names {name:?}, which is not an --nboard engine");
            }
        }
        Ok(entrants)
    }

    /// The depth `--nboard-depth` gives the NBoard engine `name`: 0 (its default) if none.
    fn nboard_depth(&self, name: &str) -> anyhow::Result<u8> {
        let Some((_, depth)) = self.nboard_depths.iter().find(|(named, _)| named == name) else {
            return Ok(0);
        };
        match depth.trim().parse::<u8>() {
            Ok(depth @ 1..=60) => Ok(depth),
            _ => bail!("--nboard-depth {name}={depth}: a depth is a number from 1 to 60"),
        }
    }
}

pub(crate) async fn run(args: MatchArgs) -> anyhow::Result<()> {
    let registry = games();
    let family = registry.get(&args.game).with_context(|| {
        format!(
            "no game is called {:?}; games: {}",
            args.game,
            registry.ids().join(", ")
        )
    })?;
    let variant = args
        .variant
        .clone()
        .unwrap_or_else(|| family.default_variant().name.to_owned());
    let seed = match &args.seed {
        Some(seed) => seed.clone(),
        None => arbiter_fair::ServerSeed::generate()?.reveal().to_owned(),
    };
    let options = MatchOptions {
        family,
        variant,
        entrants: args.entrants()?,
        games: args.games,
        concurrency: args.concurrency,
        time_control: args.tc,
        openings: openings(&args.openings)?,
        seed: seed.clone(),
        sprt: sprt(&args.sprt)?,
    };
    let create = |path: &PathBuf| -> anyhow::Result<BufWriter<File>> {
        Ok(BufWriter::new(File::create(path).with_context(|| {
            format!("cannot create {}", path.display())
        })?))
    };
    let mut output = args.output.as_ref().map(create).transpose()?;
    let mut records = match &args.records {
        Some(path) => {
            let Some(format) = family.record.filter(|f| f.supports(&options.variant)) else {
                bail!(
                    "{} {} has no record format here (PGN is chess's and Chess960's, GGF standard and 10x10 Othello's); --output writes every game as JSON lines",
                    family.id(),
                    options.variant
                );
            };
            Some((format, create(path)?))
        }
        None => None,
    };
    let date = arbiter_arena::utc_datetime(now_ms())
        .get(..10)
        .unwrap_or("????-??-??")
        .to_owned();
    println!(
        "{} {}: {} games per pairing at {}+{} s, seed {seed}",
        family.id(),
        options.variant,
        options.games.div_ceil(2) * 2,
        args.tc.base_ms as f64 / 1000.0,
        args.tc.increment_ms as f64 / 1000.0
    );
    let pairings = options.entrants.len() * (options.entrants.len() - 1) / 2;
    let bar = ProgressBar::new(u64::from(options.games.div_ceil(2) * 2) * pairings as u64);
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")?);
    let stop = Arc::new(AtomicBool::new(false));
    let interrupted = Arc::clone(&stop);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupted.store(true, Ordering::SeqCst);
        }
    });
    let (sender, mut updates) = mpsc::unbounded_channel::<Update>();
    let sprt_test = options.sprt;
    let running = tokio::spawn(arbiter_match::run(options, sender, stop));
    while let Some(update) = updates.recv().await {
        if let Some(out) = output.as_mut() {
            serde_json::to_writer(&mut *out, &update.game)?;
            out.write_all(b"\n")?;
            // Each game is in the file as soon as it ends, for whoever follows a long match.
            out.flush()?;
        }
        if let Some((format, out)) = records.as_mut()
            && let Some(text) = update
                .game
                .in_format(*format, "arbiter match", &date, args.tc)
        {
            out.write_all(text.as_bytes())?;
        }
        if let Some(seat) = update.game.failed {
            bar.println(format!(
                "game {}: {} lost ({})",
                update.game.number, update.game.seats[seat], update.game.reason
            ));
        }
        bar.set_position(update.standing.games);
        bar.set_message(results_line(&update.standing, sprt_test.as_ref()));
    }
    let report = running.await??;
    bar.finish_and_clear();
    if let Some(mut out) = output {
        out.flush()?;
    }
    if let Some((_, mut out)) = records {
        out.flush()?;
    }
    print!("{}", summary(&report, sprt_test.as_ref()));
    Ok(())
}

/// Now, in milliseconds since the Unix epoch, for the records' date.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0))
}

/// The live line: the first pairing's score as cutechess-cli writes it, and the test's ratio.
fn results_line(standing: &Standing, sprt: Option<&Sprt>) -> String {
    let Some(first) = standing.pairings.first() else {
        return String::new();
    };
    let tally = &first.tally;
    let mut line = format!(
        "{} vs {}: {} - {} - {} [{:.3}]",
        first.first,
        first.second,
        tally.wins,
        tally.losses,
        tally.draws,
        tally.score().unwrap_or(0.5)
    );
    if let Some(elo) = tally.elo() {
        line.push_str(&format!(" Elo {:+.1} ± {:.1}", elo.elo + 0.0, elo.margin));
    }
    if let (Some(sprt), Some(llr)) = (sprt, standing.llr) {
        let (lower, upper) = sprt.bounds();
        line.push_str(&format!(" LLR {llr:.2} ({lower:.2}, {upper:.2})"));
    }
    line
}

/// The final report.
fn summary(report: &Report, sprt: Option<&Sprt>) -> String {
    let standing = &report.standing;
    let mut text = String::new();
    for pairing in &standing.pairings {
        let tally = &pairing.tally;
        text.push_str(&format!(
            "{} vs {}: {} - {} - {} [{:.3}] {} games\n",
            pairing.first,
            pairing.second,
            tally.wins,
            tally.losses,
            tally.draws,
            tally.score().unwrap_or(0.5),
            tally.games()
        ));
        match tally.elo() {
            Some(elo) => text.push_str(&format!(
                "  Elo difference: {:+.2} ± {:.2} (95 %), LOS: {:.2} %, draw ratio: {:.2} %\n",
                elo.elo + 0.0,
                elo.margin,
                tally.los().unwrap_or(0.5) * 100.0,
                tally.draw_ratio().unwrap_or(0.0) * 100.0
            )),
            None => text.push_str("  Elo difference: unbounded (no game was lost, or none won)\n"),
        }
        let p = pairing.pairs.0;
        text.push_str(&format!(
            "  Ptnml(0-2): [{}, {}, {}, {}, {}]",
            p[0], p[1], p[2], p[3], p[4]
        ));
        if let Some(elo) = pairing.pairs.elo() {
            text.push_str(&format!(
                ", pair Elo: {:+.2} ± {:.2}",
                elo.elo + 0.0,
                elo.margin
            ));
        }
        text.push('\n');
    }
    if let (Some(sprt), Some(llr), Some(verdict)) = (sprt, standing.llr, standing.verdict) {
        let (lower, upper) = sprt.bounds();
        let said = match verdict {
            SprtVerdict::Continue => "no bound crossed",
            SprtVerdict::H0 => "H0 accepted",
            SprtVerdict::H1 => "H1 accepted",
        };
        text.push_str(&format!(
            "SPRT [{}, {}] α {} β {}: LLR {llr:.2} ({lower:.2}, {upper:.2}), {said}\n",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        ));
    }
    if standing.pairings.len() > 1 {
        text.push_str(&table(standing));
    }
    if let (Some(p50), Some(p99)) = (
        report.overhead_quantile(0.5),
        report.overhead_quantile(0.99),
    ) {
        text.push_str(&format!(
            "{} games in {:.1} s; the arena's own time per move: p50 {} µs, p99 {} µs\n",
            standing.games,
            report.elapsed.as_secs_f64(),
            p50.as_micros(),
            p99.as_micros()
        ));
    }
    if report.stopped_early && standing.verdict == Some(SprtVerdict::Continue) {
        text.push_str("stopped before every game was played\n");
    }
    text
}

/// A round robin's table: each engine's games against all the others, best score first, with
/// the Elo difference its score implies against the field.
fn table(standing: &Standing) -> String {
    let mut engines: Vec<(String, Tally)> = Vec::new();
    let mut add = |name: &str, tally: Tally| match engines.iter_mut().find(|(n, _)| n == name) {
        Some((_, sum)) => {
            sum.wins += tally.wins;
            sum.draws += tally.draws;
            sum.losses += tally.losses;
        }
        None => engines.push((name.to_owned(), tally)),
    };
    for pairing in &standing.pairings {
        add(&pairing.first, pairing.tally);
        let reversed = Tally {
            wins: pairing.tally.losses,
            draws: pairing.tally.draws,
            losses: pairing.tally.wins,
        };
        add(&pairing.second, reversed);
    }
    engines.sort_by(|a, b| {
        b.1.score()
            .unwrap_or(0.0)
            .total_cmp(&a.1.score().unwrap_or(0.0))
    });
    let mut text = format!(
        "{:<4} {:<20} {:>8} {:>7} {:>6} {:>7} {:>6}\n",
        "Rank", "Name", "Elo", "±", "Games", "Score", "Draw"
    );
    for (rank, (name, tally)) in engines.iter().enumerate() {
        let (elo, margin) = tally.elo().map_or(("-".to_owned(), "-".to_owned()), |e| {
            (format!("{:+.1}", e.elo + 0.0), format!("{:.1}", e.margin))
        });
        text.push_str(&format!(
            "{:<4} {:<20} {:>8} {:>7} {:>6} {:>6.1}% {:>5.1}%\n",
            rank + 1,
            name,
            elo,
            margin,
            tally.games(),
            tally.score().unwrap_or(0.0) * 100.0,
            tally.draw_ratio().unwrap_or(0.0) * 100.0
        ));
    }
    text
}
