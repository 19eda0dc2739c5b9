//! The engine adapters: each turns a decision into a move. Othello's decisions are FlipSight's
//! engine request, for any of the adapters; every other game's are the generic protocol's
//! request, for the `--engine` command (`generic.rs`), or, for Gomoku, a Gomocup brain's
//! commands (`gomocup.rs`), or, for chess, a UCI engine's (`uci.rs`).

mod depth;
mod egaroucid;
mod generic;
mod ggf;
pub(crate) mod gomocup;
mod json;
mod nboard;
pub(crate) mod uci;

use std::time::{Duration, Instant};

use arbiter_engine_protocol::{AnswerError, EngineRequest};
use arbiter_othello::{Move, Variant};
use serde_json::Value;

use generic::{ActionError, GenericEngine, GenericRequest};
use gomocup::{BrainPool, GomocupEngine, GomocupError};
pub use nboard::find_edax_eval;
use uci::{UciEngine, UciError, UciPool};

use crate::EngineSpec;
use crate::process::{EngineProcess, Program, ReadError};

/// A move the engine chose.
#[derive(Debug)]
pub(crate) struct Answered {
    /// The move, checked to be legal in the position asked about.
    pub(crate) mv: Move,
    /// When the answer was read.
    pub(crate) at: Instant,
    /// Set when the adapter played a move of its own instead of the engine's, and why.
    pub(crate) substitute: Option<String>,
}

impl Answered {
    fn now(mv: Move) -> Answered {
        Answered {
            mv,
            at: Instant::now(),
            substitute: None,
        }
    }
}

/// Why an engine gave no usable move.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The engine could not be started.
    #[error("cannot start the engine: {0}")]
    Start(String),
    /// Writing the request failed.
    #[error("cannot send the request to the engine: {0}")]
    Write(String),
    /// No answer within the budget; the engine was stopped.
    #[error("no answer within {0} ms (the engine was stopped)")]
    Timeout(u128),
    /// The engine exited before answering.
    #[error("the engine exited without answering{0}")]
    Exited(String),
    /// The answer was not a line of text.
    #[error("the engine's output is not a line of text: {0}")]
    Garbage(String),
    /// The answer was malformed, empty or illegal.
    #[error("{0}")]
    Answer(#[from] AnswerError),
    /// A generic protocol's answer was malformed, empty or not a legal action.
    #[error("{0}")]
    Action(#[from] ActionError),
    /// A Gomocup brain's reply was malformed, off the board or not a legal action.
    #[error("{0}")]
    Gomocup(#[from] GomocupError),
    /// A UCI engine did not complete its handshake, or gave no move in time.
    #[error("{0}")]
    Uci(#[from] UciError),
    /// The engine cannot play this game at all; asking again would not help.
    #[error("{0}")]
    Unsupported(String),
}

impl Failure {
    fn write(error: std::io::Error) -> Failure {
        Failure::Write(error.to_string())
    }

    /// Whether retrying the decision with a fresh engine can help.
    pub(crate) fn is_permanent(&self) -> bool {
        matches!(self, Failure::Unsupported(_))
    }
}

/// One engine, for one leg.
pub(crate) enum Engine {
    Json(json::JsonEngine),
    Practice,
    Nboard(nboard::NboardEngine),
    Egaroucid(Box<egaroucid::EgaroucidEngine>),
    /// An adapter whose protocol knows no Othello (Gomocup's, UCI's), and the game it plays.
    NotOthello {
        adapter: &'static str,
        plays: &'static str,
    },
}

impl Engine {
    /// The engine `spec` describes, for a leg; its process starts at the first decision.
    pub(crate) fn new(spec: &EngineSpec) -> Engine {
        Engine::build(spec, true)
    }

    /// The engine `spec` describes; `spare`: whether an engine that is slow to start keeps a
    /// spare process loaded (legs do; a one-off check does not).
    fn build(spec: &EngineSpec, spare: bool) -> Engine {
        match spec {
            EngineSpec::Json { command } => {
                Engine::Json(json::JsonEngine::new(Program::Shell(command.clone())))
            }
            EngineSpec::Practice => Engine::Practice,
            EngineSpec::Nboard { command, depth } => {
                let depth = match depth {
                    0 => nboard::Depth::EngineDefault,
                    depth => nboard::Depth::Fixed(*depth),
                };
                Engine::Nboard(nboard::NboardEngine::new(
                    Program::Shell(command.clone()),
                    2,
                    depth,
                ))
            }
            EngineSpec::Edax { path, eval, depth } => {
                let (program, _) = nboard::edax_program(path, eval.as_deref());
                // Edax's NBoard mode ignores the clock and searches to its depth, so the
                // connector chooses the depth from the clock unless the user fixed one.
                let depth = match depth {
                    0 => nboard::Depth::FromClock(depth::DepthControl::default()),
                    depth => nboard::Depth::Fixed(*depth),
                };
                Engine::Nboard(nboard::NboardEngine::new(program, 1, depth))
            }
            EngineSpec::Egaroucid { path } => {
                Engine::Egaroucid(Box::new(egaroucid::EgaroucidEngine::new(path, spare)))
            }
            EngineSpec::Gomocup { .. } => Engine::NotOthello {
                adapter: spec.adapter_name(),
                plays: crate::GOMOKU,
            },
            EngineSpec::Uci { .. } => Engine::NotOthello {
                adapter: spec.adapter_name(),
                plays: crate::CHESS,
            },
        }
    }

    /// Asks for a move in `request`'s position, waiting at most `budget`.
    pub(crate) async fn decide(
        &mut self,
        request: &EngineRequest,
        budget: Option<Duration>,
    ) -> Result<Answered, Failure> {
        match self {
            Engine::Json(engine) => engine.decide(request, budget).await,
            Engine::Practice => Ok(Answered::now(practice_move(request))),
            Engine::Nboard(engine) => match without_engine(request, "NBoard")? {
                Some(answered) => Ok(answered),
                None => engine.decide(request, budget).await,
            },
            Engine::Egaroucid(engine) => match without_engine(request, "Egaroucid")? {
                Some(answered) => Ok(answered),
                None => engine.decide(request, budget).await,
            },
            Engine::NotOthello { adapter, plays } => Err(Failure::Unsupported(format!(
                "{adapter} engines play {plays} only, and this match is othello; the connector does not guess a move"
            ))),
        }
    }

    /// Stops the engine's process; the next decision starts a fresh one (or takes the spare).
    pub(crate) async fn restart(&mut self) {
        let process = match self {
            Engine::Json(engine) => engine.process.take(),
            Engine::Practice => None,
            Engine::Nboard(engine) => engine.process.take(),
            Engine::Egaroucid(engine) => engine.process.take(),
            Engine::NotOthello { .. } => None,
        };
        if let Some(process) = process {
            process.stop().await;
        }
    }

    /// Stops every process of the engine, the spare too.
    pub(crate) async fn stop(&mut self) {
        self.restart().await;
        if let Engine::Egaroucid(engine) = self
            && let Some(spare) = engine.spare.take()
        {
            spare.stop().await;
        }
    }
}

/// A decision, in the protocol of its game.
#[derive(Clone, Debug)]
pub(crate) enum Decision {
    /// Othello: FlipSight's engine request.
    Othello(EngineRequest),
    /// Any other game: the generic protocol's request.
    Generic(GenericRequest),
}

impl Decision {
    /// The `request` of a turn: generic when it carries `protocol` and a game other than
    /// Othello, FlipSight's otherwise (it has `game_mode` and no `game`).
    pub(crate) fn from_json(request: &Value) -> Option<Decision> {
        if GenericRequest::is_generic(request) {
            GenericRequest::from_json(request).map(Decision::Generic)
        } else {
            serde_json::from_value(request.clone())
                .ok()
                .map(Decision::Othello)
        }
    }

    /// The mover's remaining clock when the server made the request, in milliseconds.
    pub(crate) fn remaining_ms(&self) -> u64 {
        match self {
            Decision::Othello(request) => request.remaining_ms,
            Decision::Generic(request) => request.remaining_ms(),
        }
    }

    /// The request as the engine is shown it now: the clock as it stands and the time the
    /// connector waits for the answer.
    pub(crate) fn with_clock(&self, remaining_ms: u64, budget_ms: u64) -> Decision {
        match self {
            Decision::Othello(request) => {
                let mut request = request.clone();
                request.remaining_ms = remaining_ms;
                request.budget_ms = budget_ms;
                Decision::Othello(request)
            }
            Decision::Generic(request) => {
                Decision::Generic(request.with_clock(remaining_ms, budget_ms))
            }
        }
    }
}

/// What the engine chose, ready to send.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    /// An Othello move on a board of `board_size`.
    Othello { mv: Move, board_size: u8 },
    /// A generic action, as the engine wrote it.
    Generic(Value),
}

impl Action {
    /// How messages name it: a coordinate, or the action's JSON.
    pub(crate) fn name(&self) -> String {
        match self {
            Action::Othello { mv, board_size } => mv.name(*board_size),
            Action::Generic(action) => generic::action_name(action),
        }
    }

    /// The `move` sent to the server: a square index (-1 for a pass), or the action.
    pub(crate) fn wire(&self) -> Value {
        match self {
            Action::Othello { mv, .. } => Value::from(i16::from(*mv)),
            Action::Generic(action) => action.clone(),
        }
    }
}

/// A usable answer to a decision.
#[derive(Debug)]
pub(crate) struct Chosen {
    /// The action, checked against the request.
    pub(crate) action: Action,
    /// When the answer was read.
    pub(crate) at: Instant,
    /// Set when the adapter played a move of its own instead of the engine's, and why.
    pub(crate) substitute: Option<String>,
}

/// A leg's engines: the adapter chosen for Othello, and the generic protocol's engine for
/// every other game (or a Gomocup brain for Gomoku, or a UCI engine for chess), each started
/// at its first decision (a leg uses only one of them).
pub(crate) struct LegEngine {
    othello: Engine,
    generic: GenericEngine,
    gomocup: Option<GomocupEngine>,
    uci: Option<UciEngine>,
}

impl LegEngine {
    /// The engines `spec` describes; no process starts yet. A Gomocup brain comes from
    /// `brains` when one is idle there, and goes back there when the leg ends, and a UCI
    /// engine likewise from and to `uci`.
    pub(crate) fn new(spec: &EngineSpec, brains: &BrainPool, uci: &UciPool) -> LegEngine {
        let gomocup = match spec {
            EngineSpec::Gomocup {
                command,
                max_memory_mb,
            } => Some(GomocupEngine::new(command, *max_memory_mb, brains.clone())),
            _ => None,
        };
        let uci = match spec {
            EngineSpec::Uci { command, options } => {
                Some(UciEngine::new(command, options, uci.clone()))
            }
            _ => None,
        };
        LegEngine {
            othello: Engine::new(spec),
            generic: GenericEngine::new(spec),
            gomocup,
            uci,
        }
    }

    /// Asks the engine of the decision's protocol, waiting at most `budget`.
    pub(crate) async fn decide(
        &mut self,
        decision: &Decision,
        budget: Option<Duration>,
    ) -> Result<Chosen, Failure> {
        match decision {
            Decision::Othello(request) => {
                let answered = self.othello.decide(request, budget).await?;
                Ok(Chosen {
                    action: Action::Othello {
                        mv: answered.mv,
                        board_size: request.board_size,
                    },
                    at: answered.at,
                    substitute: answered.substitute,
                })
            }
            Decision::Generic(request) => {
                if let Some(engine) = &mut self.uci {
                    let answer = engine.decide(request, budget).await?;
                    return Ok(Chosen {
                        action: Action::Generic(answer.action),
                        at: answer.at,
                        substitute: answer.substitute,
                    });
                }
                let (action, at) = match &mut self.gomocup {
                    Some(brain) => brain.decide(request, budget).await?,
                    None => self.generic.decide(request, budget).await?,
                };
                Ok(Chosen {
                    action: Action::Generic(action),
                    at,
                    substitute: None,
                })
            }
        }
    }

    /// Stops the engines' processes; the next decision starts a fresh one.
    pub(crate) async fn restart(&mut self) {
        self.othello.restart().await;
        self.generic.restart().await;
        if let Some(brain) = &mut self.gomocup {
            brain.restart().await;
        }
        if let Some(engine) = &mut self.uci {
            engine.restart().await;
        }
    }

    /// The game is over but the engine plays on: an idle Gomocup brain or UCI engine goes back
    /// to its pool, to be told of the next game when it is asked about it, and any other
    /// engine keeps its process.
    pub(crate) async fn between_games(&mut self) {
        if let Some(brain) = &mut self.gomocup {
            brain.retire().await;
        }
        if let Some(engine) = &mut self.uci {
            engine.retire().await;
        }
    }

    /// Stops every process, spares included; an idle Gomocup brain or UCI engine is kept for a
    /// later leg.
    pub(crate) async fn stop(&mut self) {
        self.othello.stop().await;
        self.generic.restart().await;
        if let Some(brain) = &mut self.gomocup {
            brain.retire().await;
        }
        if let Some(engine) = &mut self.uci {
            engine.retire().await;
        }
    }
}

/// The longest the start-up check waits for an engine's first answer: Edax without an opening
/// book builds one before it answers anything, which takes about half a minute.
const FIRST_ANSWER_LIMIT: Duration = Duration::from_secs(180);
/// How long an engine asked to quit after the start-up check may take to save and exit.
const QUIT_PATIENCE: Duration = Duration::from_secs(10);

/// Starts the engine once, asks it about the start position, and asks it to quit: a slow first
/// start (Edax building its opening book, which it saves when it quits) then happens before a
/// challenge is accepted, and an engine that cannot play shows at once. Returns how long the
/// answer took.
pub(crate) async fn first_answer(spec: &EngineSpec) -> Result<Duration, Failure> {
    let position = arbiter_othello::OthelloState::new(
        arbiter_othello::Position::start(Variant::Std),
        Vec::new(),
    );
    let limit = u64::try_from(FIRST_ANSWER_LIMIT.as_millis()).unwrap_or(u64::MAX);
    let context = arbiter_engine_protocol::MatchContext {
        match_id: 0,
        leg: 0,
        black_participant: 0,
        remaining_ms: limit,
        budget_ms: limit,
        move_times_ms: Vec::new(),
        round_no: None,
        room_created_at: None,
    };
    let request = EngineRequest::new(&position, &context);
    let mut engine = Engine::build(spec, false);
    let started = Instant::now();
    let answered = engine.decide(&request, Some(FIRST_ANSWER_LIMIT)).await;
    let took = started.elapsed();
    let process = match &mut engine {
        Engine::Nboard(engine) => engine.process.take(),
        Engine::Egaroucid(engine) => engine.process.take(),
        Engine::Json(_) | Engine::Practice | Engine::NotOthello { .. } => None,
    };
    if let Some(process) = process {
        process.quit("quit", QUIT_PATIENCE).await;
    }
    answered.map(|_| took)
}

/// The practice engine: the lowest-numbered legal square, or a pass.
fn practice_move(request: &EngineRequest) -> Move {
    request
        .legal_moves
        .iter()
        .min()
        .map_or(Move::Pass, |&square| Move::Place(square))
}

/// Starts `program` unless a live process is already there.
fn ensure_started<'a>(
    process: &'a mut Option<EngineProcess>,
    program: &Program,
) -> Result<(&'a mut EngineProcess, bool), Failure> {
    let alive = process.as_mut().is_some_and(|running| !running.exited());
    if !alive {
        *process = Some(EngineProcess::start(program).map_err(|e| Failure::Start(e.to_string()))?);
    }
    let fresh = !alive;
    match process {
        Some(running) => Ok((running, fresh)),
        None => Err(Failure::Start("the engine did not start".into())),
    }
}

/// Reads a line before `deadline`, turning a read error into a failure (and stopping the
/// engine on timeout, since it may still be thinking).
async fn read_before(
    process: &mut Option<EngineProcess>,
    deadline: Option<Instant>,
    budget: Option<Duration>,
) -> Result<String, Failure> {
    let Some(running) = process.as_mut() else {
        return Err(Failure::Exited(String::new()));
    };
    let within = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    match running.read_line(within).await {
        Ok(line) => Ok(line),
        Err(ReadError::Timeout) => {
            if let Some(running) = process.take() {
                running.stop().await;
            }
            Err(Failure::Timeout(budget.unwrap_or_default().as_millis()))
        }
        Err(ReadError::Closed) => Err(exited(process).await),
        Err(ReadError::Garbage(error)) => {
            if let Some(running) = process.take() {
                running.stop().await;
            }
            Err(Failure::Garbage(error))
        }
    }
}

/// The failure of a process that closed its output, with its exit status and last words.
async fn exited(process: &mut Option<EngineProcess>) -> Failure {
    let Some(mut running) = process.take() else {
        return Failure::Exited(String::new());
    };
    let status = running.exit_status().await;
    let mut why = String::new();
    if let Some(status) = status {
        why.push_str(&format!(" ({status})"));
    }
    if let Some(line) = running.last_stderr() {
        why.push_str(&format!("; it last wrote: {line}"));
    }
    running.stop().await;
    Failure::Exited(why)
}

/// The clock the engine is shown: what is left on the mover's clock less a safety margin, but
/// no more than the per-move budget times the moves the mover still has to make, so that an
/// engine dividing its clock over the rest of the game spends about the budget on this move.
pub(crate) fn engine_clock(request: &EngineRequest, budget: Option<Duration>) -> Duration {
    let left = Duration::from_millis(
        request
            .remaining_ms
            .saturating_sub(crate::leg::CLOCK_MARGIN_MS),
    );
    match budget {
        Some(budget) => left.min(budget * moves_left(request)),
        None => left,
    }
}

/// The moves the mover still has to make, at most: half the empty squares, plus one.
fn moves_left(request: &EngineRequest) -> u32 {
    let empties = request.board.iter().filter(|&&cell| cell == 0).count() as u32;
    empties / 2 + 1
}

/// Parses a move written as a coordinate or a pass word, checked against the request.
fn checked_move(text: &str, request: &EngineRequest) -> Result<Move, Failure> {
    let mv = arbiter_othello::parse_move(text, request.game_mode).map_err(AnswerError::from)?;
    Ok(request.check(mv)?)
}

/// What the adapters for standard 8x8 Othello answer without asking their engine: a refusal
/// for any other variant, and a pass when there is no legal move (their protocols are never
/// asked about passes).
fn without_engine(request: &EngineRequest, adapter: &str) -> Result<Option<Answered>, Failure> {
    if request.game_mode == Variant::Std {
        return Ok(request
            .legal_moves
            .is_empty()
            .then(|| Answered::now(Move::Pass)));
    }
    Err(Failure::Unsupported(format!(
        "{adapter} engines play standard 8x8 Othello only, and this match is {}; the connector does not guess a move",
        request.game_mode.name()
    )))
}

#[cfg(all(test, unix))]
pub(crate) mod tests;
