//! `arbiter bot`: connects an engine to a server and plays the bot's matches.

use std::path::PathBuf;
use std::time::Duration;

use arbiter_connector::{
    Challenge, DEFAULT_GOMOCUP_MEMORY_MB, EngineSpec, Exit, FLIPSIGHT_TOKEN_VARIABLE, Games,
    MAX_THINK_SECONDS, Options, TOKEN_VARIABLE, UciOption,
};
use clap::{ArgGroup, Args};

/// Options of `arbiter bot`. The token is read from `ARBITER_TOKEN` (or `FS_BOT_TOKEN`) only,
/// never from a flag, so that it stays out of shell history and process lists.
#[derive(Args)]
#[command(group(ArgGroup::new("adapter").required(true).args(["engine", "practice", "nboard", "edax", "egaroucid", "gomocup", "uci"])))]
pub(crate) struct BotArgs {
    /// The server's address, http:// or https://.
    #[arg(long, env = "ARBITER_SERVER", default_value = "http://127.0.0.1:8080")]
    server: String,
    /// A PEM file of certificates to trust besides the system's, for a server with a self-signed certificate.
    #[arg(long, value_name = "PATH")]
    ca_file: Option<PathBuf>,
    /// An engine speaking JSON lines: one request line per decision, one `{"move": …}` line back (for games other than Othello, the generic engine protocol's `{"action": …}`).
    #[arg(long, value_name = "COMMAND")]
    engine: Option<String>,
    /// The games the engine plays, comma-separated: a game (othello, goofspiel) or game:variant (othello:std, goofspiel:standard, chess:dice); challenges for others are declined. Games other than Othello need --engine speaking the generic engine protocol (docs/engine-protocol.md), or, for gomoku, --gomocup, or, for chess, --uci [default: othello; gomoku with --gomocup; chess (standard, chess960, dice) with --uci]
    #[arg(long, value_name = "LIST", value_parser = games_list)]
    games: Option<Games>,
    /// The built-in practice engine (plays the lowest-numbered legal square; unrated).
    #[arg(long)]
    practice: bool,
    /// An engine speaking the NBoard protocol (standard 8x8 Othello only).
    #[arg(long, value_name = "COMMAND")]
    nboard: Option<String>,
    /// The `set depth` sent to an NBoard engine, 0–60 (0: the engine's default; with --edax, chosen move by move from the clock).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=60))]
    nboard_depth: u8,
    /// Edax's executable, run in its NBoard mode.
    #[arg(long, value_name = "PATH")]
    edax: Option<PathBuf>,
    /// Edax's evaluation weights (default: data/eval.dat beside the executable or in its parent folder).
    #[arg(long, value_name = "PATH")]
    edax_eval: Option<PathBuf>,
    /// Egaroucid for Console's executable (keep its resources folder beside it).
    #[arg(long, value_name = "PATH")]
    egaroucid: Option<PathBuf>,
    /// A Gomoku brain speaking the Gomocup (piskvork) protocol, such as a pbrain- executable or `rapfi` (Gomoku only; swap2 openings only if it answers SWAP2BOARD).
    #[arg(long, value_name = "COMMAND")]
    gomocup: Option<String>,
    /// The memory a --gomocup brain is told it may use (INFO max_memory), in MiB; 0 for no limit [default: 350, Gomocup's tournament limit]
    #[arg(long, value_name = "MIB")]
    gomocup_memory: Option<u64>,
    /// A chess engine speaking UCI, such as `/usr/games/stockfish` (chess only: standard, chess960 and dice).
    #[arg(long, value_name = "COMMAND")]
    uci: Option<String>,
    /// An option for the --uci engine, sent as `setoption name NAME value VALUE` after `uci` (repeatable; NAME alone for a button).
    #[arg(long, value_name = "NAME=VALUE", value_parser = uci_option)]
    uci_option: Vec<UciOption>,
    /// The longest the engine may think about one move, in seconds (at most 300; 0: only the clock limits it).
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    max_think_seconds: f64,
    /// The engine name shown on the bot's profile (at most 120 characters; no paths).
    #[arg(long, value_name = "NAME", value_parser = short_name)]
    engine_name: Option<String>,
    /// The CPU name shown on the bot's profile (default: detected).
    #[arg(long, value_name = "NAME", value_parser = short_name)]
    cpu_name: Option<String>,
    /// Play this match only (accepting it if it is a challenge to this bot), then exit.
    #[arg(
        long,
        value_name = "ID",
        allow_negative_numbers = true,
        conflicts_with = "challenge"
    )]
    once_match: Option<i64>,
    /// Challenge this bot once signed in (a house bot such as house-easy, or any bot's name), play that match, then exit.
    #[arg(long, value_name = "NAME")]
    challenge: Option<String>,
    /// The game of the --challenge match, one --games lists (default: the first it lists: othello, gomoku with --gomocup, chess with --uci).
    #[arg(long, value_name = "G", requires = "challenge")]
    game: Option<String>,
    /// The variant of the --challenge match, one of its game's: std, anti, grand, octagon or reversi for othello; freestyle, standard, renju, swap2, … for gomoku; standard, chess960 or dice for chess (default: the variant --games names for the game, else the game's default: std, freestyle, standard).
    #[arg(long, value_name = "V", requires = "challenge")]
    variant: Option<String>,
    /// Make the --challenge match one game rather than a paired match (two games, the colours swapped); bots on the Lichess dialect play only single games.
    #[arg(long, requires = "challenge")]
    single: bool,
    /// Stop after this many seconds, with exit code 3.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    max_runtime: Option<f64>,
    /// Poll instead of keeping the event stream open.
    #[arg(long)]
    no_stream: bool,
}

fn games_list(text: &str) -> Result<Games, String> {
    text.parse::<Games>().map_err(|error| {
        // The message names the option itself; clap names it again around it.
        error.to_string().trim_start_matches("--games: ").to_owned()
    })
}

fn uci_option(text: &str) -> Result<UciOption, String> {
    text.parse::<UciOption>().map_err(|error| error.to_string())
}

fn short_name(text: &str) -> Result<String, String> {
    let text = text.trim();
    match text.chars().count() {
        0 => Err("must not be empty".into()),
        1..=120 => Ok(text.to_owned()),
        _ => Err("must be at most 120 characters".into()),
    }
}

impl BotArgs {
    /// The match `--challenge` asks for, with `--game` and `--variant`; the connector fills
    /// in what they leave out from `--games`.
    fn challenge(&self) -> Option<Challenge> {
        self.challenge.clone().map(|opponent| Challenge {
            opponent,
            game: self.game.clone(),
            variant: self.variant.clone(),
            single: self.single,
        })
    }

    fn engine(&self) -> anyhow::Result<EngineSpec> {
        if self.edax_eval.is_some() && self.edax.is_none() {
            anyhow::bail!("--edax-eval only goes with --edax");
        }
        if self.gomocup_memory.is_some() && self.gomocup.is_none() {
            anyhow::bail!("--gomocup-memory only goes with --gomocup");
        }
        if !self.uci_option.is_empty() && self.uci.is_none() {
            anyhow::bail!("--uci-option only goes with --uci");
        }
        if self.nboard_depth > 0 && self.nboard.is_none() && self.edax.is_none() {
            anyhow::bail!("--nboard-depth only goes with --nboard or --edax");
        }
        Ok(if let Some(command) = &self.engine {
            EngineSpec::Json {
                command: command.clone(),
            }
        } else if let Some(command) = &self.nboard {
            EngineSpec::Nboard {
                command: command.clone(),
                depth: self.nboard_depth,
            }
        } else if let Some(path) = &self.edax {
            EngineSpec::Edax {
                path: path.clone(),
                eval: self.edax_eval.clone(),
                depth: self.nboard_depth,
            }
        } else if let Some(path) = &self.egaroucid {
            EngineSpec::Egaroucid { path: path.clone() }
        } else if let Some(command) = &self.uci {
            EngineSpec::Uci {
                command: command.clone(),
                options: self.uci_option.clone(),
            }
        } else if let Some(command) = &self.gomocup {
            EngineSpec::Gomocup {
                command: command.clone(),
                max_memory_mb: self.gomocup_memory.unwrap_or(DEFAULT_GOMOCUP_MEMORY_MB),
            }
        } else {
            EngineSpec::Practice
        })
    }
}

/// Runs the connector; returns the process's exit code.
pub(crate) async fn run(args: BotArgs) -> anyhow::Result<i32> {
    init_logging();
    // Options first: a mistake in them is reported before anything about the token.
    let engine = args.engine()?;
    let games = args
        .games
        .clone()
        .unwrap_or_else(|| Games::default_for(&engine));
    games.check(&engine)?;
    let think = args.max_think_seconds;
    if !(0.0..=MAX_THINK_SECONDS as f64).contains(&think) {
        anyhow::bail!("--max-think-seconds must be between 0 and {MAX_THINK_SECONDS}, not {think}");
    }
    let max_runtime = match args.max_runtime {
        Some(s) if s.is_finite() && s >= 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => anyhow::bail!("--max-runtime must be a number of seconds, not {s}"),
        None => None,
    };
    let Some(token) = token() else {
        eprintln!(
            "{TOKEN_VARIABLE} is missing or invalid: set it to the bot's token in this terminal first, without typing it into the command line:\n  printf 'Bot token: '; read -r -s {TOKEN_VARIABLE}; printf '\\n'; export {TOKEN_VARIABLE}"
        );
        return Ok(Exit::TokenRejected.code());
    };
    let mut options = Options::new(args.server.clone(), token, engine);
    options.ca_file = args.ca_file.clone();
    options.games = games;
    options.challenge = args.challenge();
    options.max_think = (think > 0.0).then(|| Duration::from_secs_f64(think));
    options.engine_name = args.engine_name.clone();
    options.cpu_name = args.cpu_name.clone();
    options.once_match = args.once_match;
    options.max_runtime = max_runtime;
    options.no_stream = args.no_stream;
    if let EngineSpec::Edax {
        path, eval: None, ..
    } = &options.engine
        && arbiter_connector::find_edax_eval(path).is_none()
    {
        tracing::warn!(
            "Edax's data/eval.dat was not found beside {} or in its parent folder; give it with --edax-eval",
            path.display()
        );
    }
    let exit = arbiter_connector::run(options, crate::serve_command::shutdown_signal()).await?;
    Ok(exit.code())
}

/// The token from the environment: `ARBITER_TOKEN`, else FlipSight's `FS_BOT_TOKEN`.
fn token() -> Option<String> {
    [TOKEN_VARIABLE, FLIPSIGHT_TOKEN_VARIABLE]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .map(|token| token.trim().to_owned())
        .find(|token| !token.is_empty())
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,arbiter_connector=info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// `arbiter bot`'s options alone.
    #[derive(Parser)]
    struct Bot {
        #[command(flatten)]
        args: BotArgs,
    }

    #[test]
    fn uci_engines_take_their_options_in_order() {
        let parsed = |line: &[&str]| {
            Bot::try_parse_from(std::iter::once(&"arbiter-bot").chain(line))
                .ok()
                .and_then(|bot| bot.args.engine().ok())
        };
        let option = |text: &str| text.parse::<UciOption>().expect("an option");
        assert_eq!(
            parsed(&[
                "--uci",
                "/usr/games/stockfish",
                "--uci-option",
                "Skill Level=3",
                "--uci-option",
                "Clear Hash"
            ]),
            Some(EngineSpec::Uci {
                command: "/usr/games/stockfish".to_owned(),
                options: vec![option("Skill Level=3"), option("Clear Hash")],
            })
        );
        // An option needs --uci and a name; --uci is one adapter among the others.
        for refused in [
            &["--engine", "e", "--uci-option", "Hash=16"][..],
            &["--uci", "stockfish", "--uci-option", "=16"],
            &["--uci", "stockfish", "--gomocup", "brain"],
        ] {
            assert_eq!(parsed(refused), None, "{refused:?}");
        }
    }

    #[test]
    fn challenge_names_its_game_and_variant_only_with_challenge() {
        let challenge = |opponent: &str, game: Option<&str>, variant: Option<&str>| {
            Some(Challenge {
                opponent: opponent.to_owned(),
                game: game.map(str::to_owned),
                variant: variant.map(str::to_owned),
                single: false,
            })
        };
        // (the options after the engine's, the challenge, or None where clap refuses them)
        let table: [(&[&str], Option<Option<Challenge>>); 7] = [
            (&[], Some(None)),
            (
                &["--challenge", "house-easy", "--single"],
                Some(Some(Challenge {
                    single: true,
                    ..challenge("house-easy", None, None).expect("a challenge")
                })),
            ),
            (&["--single"], None),
            (
                &[
                    "--challenge",
                    "house-easy",
                    "--game",
                    "gomoku",
                    "--variant",
                    "renju",
                ],
                Some(challenge("house-easy", Some("gomoku"), Some("renju"))),
            ),
            (
                &["--challenge", "house-easy", "--variant", "anti"],
                Some(challenge("house-easy", None, Some("anti"))),
            ),
            (&["--game", "gomoku"], None),
            (&["--variant", "renju"], None),
        ];
        for (options, expected) in table {
            let line = ["arbiter-bot", "--gomocup", "pbrain-test"]
                .iter()
                .chain(options);
            let parsed = Bot::try_parse_from(line)
                .ok()
                .map(|bot| bot.args.challenge());
            assert_eq!(parsed, expected, "{options:?}");
        }
    }
}
