//! `arbiter bot`: the connector between a bot's engine and an Arbiter server.
//!
//! A bot author starts one command with a token and an engine; the connector does the rest:
//! it proves the bot's identity, reports its environment, accepts challenges for the games the
//! engine plays, follows the bot's event stream (or polls when asked to, or while the stream is
//! down), asks the engine for a move at every decision with a time budget taken from the clock,
//! checks the answer, and submits it. Each leg of a match gets its own engine process, so both
//! legs of a paired match are played at once.
//!
//! Engines are separate programs behind one of six adapters (see [`EngineSpec`]): FlipSight's
//! JSON lines (`--engine`), the NBoard protocol (`--nboard`, and `--edax` on top of it),
//! Egaroucid's console commands (`--egaroucid`), the Gomocup protocol of Gomoku brains
//! (`--gomocup`), UCI for chess engines (`--uci`), or the built-in practice engine. Games other
//! than Othello (`--games`) speak the generic engine protocol (`docs/engine-protocol.md`) with
//! the `--engine` command, one JSON request line per decision and one `{"action": …}` line
//! back, or Gomocup's or UCI's commands;
//! their decisions flow through the same legs as Othello's. An engine that
//! fails (times out, answers garbage, plays an illegal move, dies) is restarted and asked again
//! while the clock allows, and each decision's failures are reported together on one line; the
//! connector itself keeps going.

mod api;
mod engine;
mod environment;
mod games;
mod leg;
mod player;
mod process;
mod session;

use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use engine::find_edax_eval;
pub use engine::uci::{UciOption, UciOptionError};
pub use environment::detect_cpu_name;
pub use games::{CHESS, GOMOKU, GameChoice, Games, GamesError, OTHELLO};
pub use player::{EnginePlayer, PlayerAnswer, PlayerError};

/// The environment variable holding the bot's token.
pub const TOKEN_VARIABLE: &str = "ARBITER_TOKEN";
/// FlipSight's name for the same variable, accepted too so that its instructions work as they are.
pub const FLIPSIGHT_TOKEN_VARIABLE: &str = "FS_BOT_TOKEN";

/// The memory a Gomocup brain is told it may use (`INFO max_memory`) unless told otherwise:
/// Gomocup's tournament limit, in MiB.
pub const DEFAULT_GOMOCUP_MEMORY_MB: u64 = 350;

/// The longest `--max-think-seconds`.
pub const MAX_THINK_SECONDS: u64 = 300;

/// How the connector reaches the bot's engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// A command speaking FlipSight's JSON lines: one request line per decision, one answer
    /// line back. It is kept running; one that exits after answering is started again.
    Json {
        /// The command line, run by the system shell.
        command: String,
    },
    /// The built-in practice engine: the lowest-numbered legal square.
    Practice,
    /// A command speaking the NBoard protocol (standard 8x8 Othello only).
    Nboard {
        /// The command line, run by the system shell.
        command: String,
        /// `set depth` (0 = the engine's default, not sent).
        depth: u8,
    },
    /// Edax in its NBoard mode.
    Edax {
        /// The executable.
        path: PathBuf,
        /// The evaluation weights (`data/eval.dat`), if not found beside the executable.
        eval: Option<PathBuf>,
        /// `set depth` (0 = chosen move by move from the clock, since Edax ignores it).
        depth: u8,
    },
    /// Egaroucid for Console.
    Egaroucid {
        /// The executable.
        path: PathBuf,
    },
    /// A Gomoku brain speaking the Gomocup (piskvork) protocol (Gomoku only).
    Gomocup {
        /// The command line, run by the system shell.
        command: String,
        /// The memory it is told it may use (`INFO max_memory`), in MiB; 0 for no limit.
        max_memory_mb: u64,
    },
    /// A chess engine speaking UCI (chess only, in all three variants).
    Uci {
        /// The command line, run by the system shell.
        command: String,
        /// The options set after `uci` (`--uci-option`), in order.
        options: Vec<UciOption>,
    },
}

impl EngineSpec {
    /// The Othello variants the engine can play: NBoard, Edax and Egaroucid know standard 8x8
    /// Othello only; JSON engines and the practice engine receive the server's legal moves and
    /// so can play every variant; Gomocup brains and UCI engines play no Othello.
    pub fn variants(&self) -> &'static [&'static str] {
        match self {
            EngineSpec::Json { .. } | EngineSpec::Practice => {
                &["std", "anti", "grand", "octagon", "reversi"]
            }
            EngineSpec::Nboard { .. } | EngineSpec::Edax { .. } | EngineSpec::Egaroucid { .. } => {
                &["std"]
            }
            EngineSpec::Gomocup { .. } | EngineSpec::Uci { .. } => &[],
        }
    }

    /// Whether the engine can play games other than Othello, through the generic engine
    /// protocol (`docs/engine-protocol.md`): a `--engine` command, which receives every
    /// decision as JSON, or the practice engine, which plays the first legal action.
    pub fn plays_generic(&self) -> bool {
        matches!(self, EngineSpec::Json { .. } | EngineSpec::Practice)
    }

    /// The adapter's name in messages.
    pub(crate) fn adapter_name(&self) -> &'static str {
        match self {
            EngineSpec::Json { .. } => "JSON",
            EngineSpec::Practice => "practice",
            EngineSpec::Nboard { .. } => "NBoard",
            EngineSpec::Edax { .. } => "Edax",
            EngineSpec::Egaroucid { .. } => "Egaroucid",
            EngineSpec::Gomocup { .. } => "Gomocup",
            EngineSpec::Uci { .. } => "UCI",
        }
    }

    /// Whether one process of the engine is kept from move to move, and so started once at
    /// start-up to check it (NBoard, Edax, Egaroucid, Gomocup, UCI).
    fn keeps_running(&self) -> bool {
        matches!(
            self,
            EngineSpec::Nboard { .. }
                | EngineSpec::Edax { .. }
                | EngineSpec::Egaroucid { .. }
                | EngineSpec::Gomocup { .. }
                | EngineSpec::Uci { .. }
        )
    }

    /// The engine name reported when `--engine-name` is not given.
    fn default_name(&self) -> Option<&'static str> {
        match self {
            EngineSpec::Practice => Some("practice"),
            EngineSpec::Edax { .. } => Some("Edax"),
            EngineSpec::Egaroucid { .. } => Some("Egaroucid"),
            EngineSpec::Json { .. }
            | EngineSpec::Nboard { .. }
            | EngineSpec::Gomocup { .. }
            | EngineSpec::Uci { .. } => None,
        }
    }
}

/// Everything `arbiter bot` is told.
#[derive(Clone, Debug)]
pub struct Options {
    /// The server's base URL, e.g. `http://127.0.0.1:8080` or `https://arena.example.org`.
    pub server: String,
    /// A PEM file of certificates trusted besides the platform's, for a server whose
    /// certificate is self-signed or issued by a private authority.
    pub ca_file: Option<PathBuf>,
    /// The bot's token (from the environment only).
    pub token: String,
    /// The engine.
    pub engine: EngineSpec,
    /// The games (and variants) the engine plays: challenges for others are declined. By
    /// default Othello, Gomoku for a Gomocup brain, or chess for a UCI engine.
    pub games: Games,
    /// The longest the engine may think about one move; `None` leaves only the clock.
    pub max_think: Option<Duration>,
    /// The engine name reported to the server.
    pub engine_name: Option<String>,
    /// The CPU name reported to the server.
    pub cpu_name: Option<String>,
    /// Play this match only, then exit.
    pub once_match: Option<i64>,
    /// Challenge this opponent once signed in, play that match only, then exit.
    pub challenge: Option<Challenge>,
    /// Stop after this long (exit code 3).
    pub max_runtime: Option<Duration>,
    /// Poll instead of keeping the event stream open.
    pub no_stream: bool,
    /// How often to poll while a match runs (five times as long when idle). The API asks
    /// for no more than one poll a second, which is the default; tests shorten it.
    pub poll_every: Duration,
    /// Where each submitted move's timing is sent (benchmarks and tests).
    pub timings: Option<tokio::sync::mpsc::UnboundedSender<MoveTiming>>,
}

impl Options {
    /// Options with the defaults of `arbiter bot` for `server`, `token` and `engine`.
    pub fn new(server: impl Into<String>, token: impl Into<String>, engine: EngineSpec) -> Options {
        Options {
            server: server.into(),
            token: token.into(),
            ca_file: None,
            games: Games::default_for(&engine),
            engine,
            max_think: Some(Duration::from_secs(10)),
            engine_name: None,
            cpu_name: None,
            once_match: None,
            challenge: None,
            max_runtime: None,
            no_stream: false,
            poll_every: Duration::from_secs(1),
            timings: None,
        }
    }
}

/// The match `--challenge` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// The opponent's name (a house bot such as `house-easy`, or any bot's name).
    pub opponent: String,
    /// The game; `None` for the first game `games` lists (Othello, Gomoku for a Gomocup brain
    /// or chess for a UCI engine, by default).
    pub game: Option<String>,
    /// The variant; `None` for the one the game's first entry in `games` names, else the
    /// game's default variant on the server.
    pub variant: Option<String>,
    /// Whether the match is one game rather than a paired match (two games, the colours
    /// swapped, the server's default); bots on the Lichess dialect play only single games.
    pub single: bool,
}

/// When one move went from the engine to the server.
#[derive(Clone, Copy, Debug)]
pub struct MoveTiming {
    /// The match.
    pub match_id: i64,
    /// The leg.
    pub leg: u8,
    /// The revision the move answers.
    pub revision: u64,
    /// When the engine's answer was read.
    pub answered: Instant,
    /// When the move's POST was handed to the HTTP client.
    pub posting: Instant,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Stopped on request, or `--once-match` ended.
    Normal,
    /// The server rejected the token.
    TokenRejected,
    /// `--max-runtime` elapsed.
    MaxRuntime,
}

impl Exit {
    /// The process exit code: 0, 2 or 3.
    pub fn code(self) -> i32 {
        match self {
            Exit::Normal => 0,
            Exit::TokenRejected => 2,
            Exit::MaxRuntime => 3,
        }
    }
}

/// Why the connector could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum ConnectorError {
    /// The server URL is neither an `http://` nor an `https://` URL.
    #[error("the server address {0:?} is not an http:// or https:// URL")]
    BadServer(String),
    /// The `--ca-file` cannot be read or holds no certificate.
    #[error("cannot use the certificate file {path:?} given with --ca-file: {why}")]
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why it cannot be used.
        why: String,
    },
    /// The server's TLS certificate is not trusted by the platform, nor by `--ca-file`.
    #[error(
        "the server's certificate is not trusted ({0}); if the server uses a self-signed certificate or a private authority, give that certificate with --ca-file PATH (a PEM file)"
    )]
    Untrusted(String),
    /// `--challenge` asks for a match the engine would not play, so it is not sent.
    #[error("cannot challenge {opponent}: {why}")]
    ChallengeNotPlayed {
        /// The opponent asked for.
        opponent: String,
        /// Why the engine would not play it.
        why: String,
    },
    /// The server refused the challenge asked for with `--challenge`.
    #[error("the challenge to {opponent} was refused: {why}")]
    ChallengeRefused {
        /// The opponent asked for.
        opponent: String,
        /// The server's reason.
        why: String,
    },
    /// `--once-match` names a match this bot does not play.
    #[error("match {0} does not exist or is not this bot's")]
    NoSuchMatch(i64),
    /// `--games` names a game or variant the engine cannot play.
    #[error(transparent)]
    Games(#[from] GamesError),
    /// The HTTP client could not be built.
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
}

/// Runs the connector until `shutdown` completes, the token is rejected, `--max-runtime`
/// elapses or the `--once-match` match ends. Every engine process is stopped before it returns.
pub async fn run(
    options: Options,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<Exit, ConnectorError> {
    session::run(options, shutdown).await
}
