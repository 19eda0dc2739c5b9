//! `--gomocup`: Gomoku engines ("brains") speaking the Gomocup (piskvork) protocol.
//!
//! A leg keeps one brain process. Each decision sends the clock (`INFO timeout_turn`,
//! `timeout_match`, `time_left`), `max_memory` and the rule, after `START size` once, and then
//! the position as cheaply as the brain's knowledge allows: `BEGIN` on an empty board, `TURN x,y`
//! when the brain has seen every stone but the opponent's last, and otherwise `BOARD` … `DONE`
//! with every stone in order, a fixed opening's first (field 1 the brain's own colour, 2 the
//! opponent's), so that a restarted brain or a resumed connector gets the whole position. Swap2's decisions go to
//! `SWAP2BOARD` … `DONE` for brains that answer it; one answer there may settle several
//! decisions (three opening stones, or a colour and the stones after it), and the stones it
//! plans are kept for the leg's next decisions.
//!
//! Replies are read liberally, as real brains write them: `MESSAGE`, `DEBUG` and empty lines
//! are skipped, lines may end with CR LF, LF or CR, and `UNKNOWN` and `ERROR` both mean "not
//! supported" (Rapfi answers `ERROR` to commands it does not know). A brain whose leg ends is
//! kept for the next leg and told `RESTART` if it has answered it with `OK`; otherwise it gets
//! `END` and is stopped a second later, as piskvork does.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::generic::GenericRequest;
use super::{Failure, read_before};
use crate::GOMOKU;
use crate::process::{EngineProcess, LineEndings, Program};

/// How long a brain told `END` may take to exit before it is stopped, as in piskvork.
const END_PATIENCE: Duration = Duration::from_secs(1);
/// Idle brains kept for later legs; more are told `END`.
const IDLE_KEPT: usize = 2;
/// The longest the start-up probe waits for each reply: a brain may load a network first.
const PROBE_PATIENCE: Duration = Duration::from_secs(30);
/// The turn time the start-up probe gives the brain's `SWAP2BOARD` search.
const PROBE_TURN_MS: u64 = 1_000;

/// Whether a variant of Gomoku opens with swap2, which only brains answering `SWAP2BOARD`
/// can play: the variants named for it (`swap2`, `renju-swap2`).
pub(crate) fn is_swap2(variant: &str) -> bool {
    variant.split('-').any(|part| part == "swap2")
}

/// Why a brain's answer is not usable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GomocupError {
    /// The line is none of the replies the protocol has.
    #[error("the Gomocup engine's answer {0:?} is not a move (x,y), SWAP, OK, UNKNOWN or ERROR")]
    NotAReply(String),
    /// A coordinate outside the board.
    #[error("the Gomocup engine played {x},{y}, which is outside the {size}x{size} board")]
    OffBoard {
        /// The column given.
        x: u64,
        /// The row given.
        y: u64,
        /// The board's side.
        size: u8,
    },
    /// A point that is taken, or forbidden to Black under Renju rules.
    #[error(
        "the Gomocup engine played {0}, which is not one of legal_actions (taken, or forbidden to Black)"
    )]
    Illegal(String),
    /// A reply that does not fit the command it answers.
    #[error("the Gomocup engine answered {answer:?} to {command}, which needs {wanted}")]
    Unexpected {
        /// The command answered.
        command: &'static str,
        /// The reply, as written.
        answer: String,
        /// What the command needs.
        wanted: &'static str,
    },
}

/// A reply line, once `MESSAGE` and `DEBUG` lines are skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// `OK`.
    Ok,
    /// `UNKNOWN …` or `ERROR …`: not supported, or not possible; the text after the word.
    Refused(String),
    /// `SWAP`, in answer to `SWAP2BOARD`: the brain takes Black.
    Swap,
    /// One or more stones, `x,y` separated by spaces.
    Stones(Vec<(u8, u8)>),
}

/// Whether a line is no reply: empty, or a `MESSAGE` or `DEBUG` line sent before the reply.
pub(crate) fn is_chatter(line: &str) -> bool {
    let line = line.trim();
    let word = line.split_whitespace().next().unwrap_or_default();
    line.is_empty() || word.eq_ignore_ascii_case("MESSAGE") || word.eq_ignore_ascii_case("DEBUG")
}

/// Reads a reply line on a `size`×`size` board.
pub(crate) fn parse_reply(line: &str, size: u8) -> Result<Reply, GomocupError> {
    let line = line.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(word, rest)| (word, rest.trim()));
    if word.eq_ignore_ascii_case("OK") && rest.is_empty() {
        return Ok(Reply::Ok);
    }
    if word.eq_ignore_ascii_case("UNKNOWN") || word.eq_ignore_ascii_case("ERROR") {
        return Ok(Reply::Refused(line.to_owned()));
    }
    if word.eq_ignore_ascii_case("SWAP") && rest.is_empty() {
        return Ok(Reply::Swap);
    }
    // Stones are `x,y` separated by spaces; spaces around a comma are tolerated.
    let mut joined = String::with_capacity(line.len());
    for part in line.split(',') {
        if !joined.is_empty() {
            joined.push(',');
        }
        joined.push_str(part.trim());
    }
    let mut stones = Vec::new();
    for token in joined.split_whitespace() {
        let Some((x, y)) = token.split_once(',') else {
            return Err(GomocupError::NotAReply(line.to_owned()));
        };
        let (Ok(x), Ok(y)) = (x.parse::<u64>(), y.parse::<u64>()) else {
            return Err(GomocupError::NotAReply(line.to_owned()));
        };
        match (u8::try_from(x), u8::try_from(y)) {
            (Ok(cx), Ok(cy)) if cx < size && cy < size => stones.push((cx, cy)),
            _ => return Err(GomocupError::OffBoard { x, y, size }),
        }
    }
    if stones.is_empty() {
        return Err(GomocupError::NotAReply(line.to_owned()));
    }
    Ok(Reply::Stones(stones))
}

/// The engine's name and version from its `ABOUT` line (`name="Rapfi", version="0.43"`).
pub(crate) fn about_name(line: &str) -> Option<String> {
    let value = |key: &str| {
        let start = line.find(&format!("{key}=\""))? + key.len() + 2;
        let length = line[start..].find('"')?;
        Some(line[start..start + length].trim().to_owned()).filter(|v| !v.is_empty())
    };
    let name = value("name")?;
    Some(match value("version") {
        Some(version) => format!("{name} {version}"),
        None => name,
    })
}

/// A stone's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Colour {
    Black,
    White,
}

impl Colour {
    fn read(value: &Value) -> Option<Colour> {
        match value.as_str()? {
            "black" => Some(Colour::Black),
            "white" => Some(Colour::White),
            _ => None,
        }
    }
}

/// One stone of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stone {
    x: u8,
    y: u8,
    colour: Colour,
}

/// Where a Gomoku game stands, as its view says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Swap2: the first player places three stones.
    Swap2Place,
    /// Swap2: the second player chooses after three stones.
    Swap2Choose,
    /// Swap2: the second player places two more stones.
    Swap2More,
    /// Swap2: the first player chooses after five stones.
    Swap2Final,
    /// The game proper.
    Play,
}

/// The decision's position, read from the view.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Position {
    size: u8,
    /// `INFO rule`'s value: 0 freestyle, 1 standard (exactly five), 4 Renju.
    rule: u8,
    phase: Phase,
    /// The colour of the next stone.
    next: Colour,
    /// A fixed or balanced opening's stones, on the board before the first move.
    opening: Vec<Stone>,
    /// The stones played, in order.
    history: Vec<Stone>,
}

impl Position {
    /// The position in a Gomoku decision; a permanent failure for anything else, since asking
    /// again cannot help.
    fn read(request: &GenericRequest) -> Result<Position, Failure> {
        if request.game() != GOMOKU {
            return Err(Failure::Unsupported(format!(
                "Gomocup engines play gomoku only, and this match is {}; the connector does not guess an action",
                request.game()
            )));
        }
        let view = request.field("view").unwrap_or(&Value::Null);
        Position::from_view(view).ok_or_else(|| {
            Failure::Unsupported(format!(
                "the gomoku view is not one the Gomocup adapter reads (size, rule, phase, next, opening, history): {}",
                super::generic::action_name(view)
            ))
        })
    }

    fn from_view(view: &Value) -> Option<Position> {
        let size = u8::try_from(view["size"].as_u64()?).ok()?;
        // Rapfi reads 2 as Renju, the specification as a continuous game: only 0, 1 and 4 are
        // sent, which every brain reads alike.
        let rule = match view["rule"].as_str()? {
            "freestyle" => 0,
            "standard" => 1,
            "renju" => 4,
            _ => return None,
        };
        let phase = match view["phase"].as_str()? {
            "swap2_place" => Phase::Swap2Place,
            "swap2_choose" => Phase::Swap2Choose,
            "swap2_more" => Phase::Swap2More,
            "swap2_final" => Phase::Swap2Final,
            "play" => Phase::Play,
            _ => return None,
        };
        let next = Colour::read(&view["next"])?;
        let history = view["history"]
            .as_array()?
            .iter()
            .map(|stone| {
                Some(Stone {
                    x: u8::try_from(stone["x"].as_u64()?).ok()?,
                    y: u8::try_from(stone["y"].as_u64()?).ok()?,
                    colour: Colour::read(&stone["color"])?,
                })
            })
            .collect::<Option<Vec<Stone>>>()?;
        // The opening's stones alternate from Black, as the config places them. A server
        // whose view has no `opening` has no fixed openings either.
        let opening = match view.get("opening") {
            None | Some(Value::Null) => Vec::new(),
            Some(opening) => opening
                .as_array()?
                .iter()
                .zip([Colour::Black, Colour::White].into_iter().cycle())
                .map(|(point, colour)| {
                    Some(Stone {
                        x: u8::try_from(point[0].as_u64()?).ok()?,
                        y: u8::try_from(point[1].as_u64()?).ok()?,
                        colour,
                    })
                })
                .collect::<Option<Vec<Stone>>>()?,
        };
        Some(Position {
            size,
            rule,
            phase,
            next,
            opening,
            history,
        })
    }

    /// Every stone on the board in the order it came there: the opening's, then those played.
    fn stones(&self) -> impl Iterator<Item = &Stone> {
        self.opening.iter().chain(&self.history)
    }

    /// The stones as `x,y,field` lines, in order (the opening's first): field 1 for `own`'s,
    /// 2 for the others.
    fn stone_lines(&self, own: Colour) -> impl Iterator<Item = String> + '_ {
        self.stones().map(move |stone| {
            let field = if stone.colour == own { 1 } else { 2 };
            format!("{},{},{field}", stone.x, stone.y)
        })
    }

    /// The whole board for the colour to move, as `BOARD` and `SWAP2BOARD` send it: the
    /// `command` line, the stone lines, then `DONE`.
    fn board_block(&self, command: &str) -> Vec<String> {
        std::iter::once(command.to_owned())
            .chain(self.stone_lines(self.next))
            .chain(std::iter::once("DONE".to_owned()))
            .collect()
    }
}

/// An action to send: a stone or a swap2 choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Stone(u8, u8),
    /// `black`, `white` or `more`.
    Choose(&'static str),
}

impl Act {
    fn to_value(self) -> Value {
        match self {
            Act::Stone(x, y) => json!({"x": x, "y": y}),
            Act::Choose(choice) => json!({"swap2": choice}),
        }
    }
}

/// A stone an earlier answer planned: it is played when the history is `due` stones long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Planned {
    due: usize,
    x: u8,
    y: u8,
}

/// What an answer to `SWAP2BOARD` with `stones` stones on the board means: the action for the
/// decision now, and the stones it plans for the decisions that follow. The brain is always
/// asked as the colour to move, White after three or five stones; `SWAP` takes Black instead.
fn swap2_meaning(stones: usize, reply: &Reply) -> Result<(Act, Vec<Planned>), &'static str> {
    // Each stone answered is due when the history is as long as the stones before it.
    let plan = |placed: &[(u8, u8)], first_due: usize| -> Vec<Planned> {
        placed
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| Planned {
                due: first_due + i,
                x,
                y,
            })
            .collect()
    };
    match (stones, reply) {
        // The opening three stones, black, white, black: the first goes now.
        (0, Reply::Stones(placed)) if placed.len() == 3 => {
            let (x, y) = placed[0];
            Ok((Act::Stone(x, y), plan(&placed[1..], 1)))
        }
        (0, _) => Err("three stones"),
        (3 | 5, Reply::Swap) => Ok((Act::Choose("black"), Vec::new())),
        // One stone: stay White and place it.
        (3 | 5, Reply::Stones(placed)) if placed.len() == 1 => {
            Ok((Act::Choose("white"), plan(placed, stones)))
        }
        // Two stones after three: place White's fourth and Black's fifth, and hand the choice
        // of colour back.
        (3, Reply::Stones(placed)) if placed.len() == 2 => {
            Ok((Act::Choose("more"), plan(placed, stones)))
        }
        (3, _) => Err("SWAP, one stone or two stones"),
        _ => Err("SWAP or one stone"),
    }
}

/// A brain between legs, ready for `RESTART`.
struct Idle {
    process: EngineProcess,
    /// The board size it was started with.
    size: u8,
}

#[derive(Default)]
struct PoolState {
    idle: Vec<Idle>,
    /// Set once a brain refused `RESTART`: brains are then told `END` when their leg ends.
    restart_refused: bool,
}

/// The brains kept between legs, shared by every leg of the connector.
#[derive(Clone, Default)]
pub(crate) struct BrainPool(Arc<Mutex<PoolState>>);

impl BrainPool {
    fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An idle brain started for a `size` board, if there is one.
    fn take(&self, size: u8) -> Option<EngineProcess> {
        let mut state = self.state();
        let at = state.idle.iter().position(|idle| idle.size == size)?;
        Some(state.idle.remove(at).process)
    }

    /// Keeps a brain whose leg ended for a later leg, or ends it when brains refuse `RESTART`
    /// or enough are kept.
    async fn put(&self, process: EngineProcess, size: u8) {
        let ended = {
            let mut state = self.state();
            if state.restart_refused {
                Some(process)
            } else {
                state.idle.push(Idle { process, size });
                (state.idle.len() > IDLE_KEPT).then(|| state.idle.remove(0).process)
            }
        };
        if let Some(process) = ended {
            end(process).await;
        }
    }

    fn refused_restart(&self) {
        self.state().restart_refused = true;
    }

    /// Tells every idle brain `END` and stops it, when the connector stops.
    pub(crate) async fn close(&self) {
        let idle = std::mem::take(&mut self.state().idle);
        futures::future::join_all(idle.into_iter().map(|idle| end(idle.process))).await;
    }
}

/// `END`, then the process is stopped a second later at most, as piskvork does.
async fn end(process: EngineProcess) {
    process.quit("END", END_PATIENCE).await;
}

/// One leg's Gomocup brain.
pub(crate) struct GomocupEngine {
    program: Program,
    max_memory: u64,
    pool: BrainPool,
    process: Option<EngineProcess>,
    /// The board size the running brain was started (or restarted) with.
    size: Option<u8>,
    /// The stones on the running brain's board, in order, its own answer included; `None`
    /// when unknown (after `SWAP2BOARD`, whose effect on the board the protocol leaves open).
    seen: Option<Vec<Stone>>,
    /// A command was sent whose reply has not been read: such a brain is not kept.
    busy: bool,
    /// Stones an earlier answer planned.
    plan: Vec<Planned>,
    /// The longest clock seen in the leg, sent as `timeout_match`.
    longest_clock_ms: u64,
}

impl GomocupEngine {
    /// A brain run by `command`; its process starts (or comes from `pool`) at the first
    /// decision.
    pub(crate) fn new(command: &str, max_memory_mb: u64, pool: BrainPool) -> GomocupEngine {
        GomocupEngine {
            program: Program::Shell(command.to_owned()),
            max_memory: max_memory_mb.saturating_mul(1024 * 1024),
            pool,
            process: None,
            size: None,
            seen: None,
            busy: false,
            plan: Vec::new(),
            longest_clock_ms: 0,
        }
    }

    /// Chooses an action for a Gomoku decision within `budget`.
    pub(crate) async fn decide(
        &mut self,
        request: &GenericRequest,
        budget: Option<Duration>,
    ) -> Result<(Value, Instant), Failure> {
        let deadline = budget.map(|b| Instant::now() + b);
        let position = Position::read(request)?;
        let legal = request.legal_actions();
        let is_legal = |act: Act| legal.is_none_or(|legal| legal.contains(&act.to_value()));
        if let Some(act) = self.planned(&position).filter(|&act| is_legal(act)) {
            return Ok((act.to_value(), Instant::now()));
        }
        self.plan.clear();
        let clock = Clock::of(request, budget, &mut self.longest_clock_ms);
        let count = position.history.len();
        let act = match position.phase {
            Phase::Swap2Choose | Phase::Swap2Final => {
                self.swap2(&position, &clock, deadline, budget).await?
            }
            Phase::Swap2Place if count == 0 => {
                self.swap2(&position, &clock, deadline, budget).await?
            }
            Phase::Swap2Place | Phase::Swap2More | Phase::Play => {
                self.stone(&position, &clock, deadline, budget).await?
            }
        };
        if !is_legal(act) {
            self.plan.clear();
            return Err(GomocupError::Illegal(super::generic::action_name(&act.to_value())).into());
        }
        Ok((act.to_value(), Instant::now()))
    }

    /// The stone planned for this point of the game, if one is; plans for earlier points are
    /// dropped.
    fn planned(&mut self, position: &Position) -> Option<Act> {
        let count = position.history.len();
        self.plan.retain(|planned| planned.due >= count);
        let stone_phase = matches!(
            position.phase,
            Phase::Swap2Place | Phase::Swap2More | Phase::Play
        );
        let at = self.plan.iter().position(|p| p.due == count)?;
        let planned = self.plan.remove(at);
        stone_phase.then_some(Act::Stone(planned.x, planned.y))
    }

    /// A stone for the colour to move, asked with `BEGIN`, `TURN` or `BOARD`.
    async fn stone(
        &mut self,
        position: &Position,
        clock: &Clock,
        deadline: Option<Instant>,
        budget: Option<Duration>,
    ) -> Result<Act, Failure> {
        self.ready(position.size, deadline, budget).await?;
        self.send_info(position, clock).await?;
        // The opening's stones count as any other: `BEGIN` only on an empty board, and
        // `TURN` only when the brain has seen every stone but the last.
        let on_board: Vec<Stone> = position.stones().copied().collect();
        let (command, lines): (&'static str, Vec<String>) = match &self.seen {
            Some(seen) if seen.is_empty() && on_board.is_empty() => {
                ("BEGIN", vec!["BEGIN".to_owned()])
            }
            Some(seen)
                if on_board.len() == seen.len() + 1 && on_board[..seen.len()] == seen[..] =>
            {
                let last = on_board[seen.len()];
                ("TURN", vec![format!("TURN {},{}", last.x, last.y)])
            }
            _ => ("BOARD", position.board_block("BOARD")),
        };
        // Whatever the brain's board held, it now holds what it is told, or nothing known.
        self.seen = None;
        let reply = self
            .exchange(&lines, position.size, deadline, budget)
            .await?;
        let Reply::Stones(stones) = &reply else {
            return Err(unexpected(command, &reply, "one stone x,y").into());
        };
        let &[(x, y)] = stones.as_slice() else {
            return Err(unexpected(command, &reply, "one stone x,y").into());
        };
        let mut seen = on_board;
        seen.push(Stone {
            x,
            y,
            colour: position.next,
        });
        self.seen = Some(seen);
        Ok(Act::Stone(x, y))
    }

    /// A swap2 decision, asked with `SWAP2BOARD`.
    async fn swap2(
        &mut self,
        position: &Position,
        clock: &Clock,
        deadline: Option<Instant>,
        budget: Option<Duration>,
    ) -> Result<Act, Failure> {
        self.ready(position.size, deadline, budget).await?;
        self.send_info(position, clock).await?;
        let lines = position.board_block("SWAP2BOARD");
        self.seen = None;
        let reply = self
            .exchange(&lines, position.size, deadline, budget)
            .await?;
        if let Reply::Refused(why) = &reply {
            return Err(Failure::Unsupported(format!(
                "the Gomocup engine does not answer SWAP2BOARD ({why}), so it cannot play a swap2 opening"
            )));
        }
        let stones = position.history.len();
        let (act, plan) = swap2_meaning(stones, &reply)
            .map_err(|wanted| unexpected("SWAP2BOARD", &reply, wanted))?;
        self.plan = plan;
        Ok(act)
    }

    /// A running brain with a `size` board: the one running, an idle one told `RESTART`, or
    /// a fresh one told `START`.
    async fn ready(
        &mut self,
        size: u8,
        deadline: Option<Instant>,
        budget: Option<Duration>,
    ) -> Result<(), Failure> {
        let alive = self.process.as_mut().is_some_and(|p| !p.exited());
        if alive && self.size == Some(size) {
            return Ok(());
        }
        if !alive {
            self.process = None;
            self.size = None;
            if let Some(idle) = self.pool.take(size) {
                self.process = Some(idle);
                match self
                    .exchange(&["RESTART".to_owned()], size, deadline, budget)
                    .await
                {
                    Ok(Reply::Ok) => {
                        self.size = Some(size);
                        self.seen = Some(Vec::new());
                        return Ok(());
                    }
                    Ok(_) => {
                        // UNKNOWN or ERROR (or nonsense): piskvork then ends it and starts
                        // a fresh process, and so does the connector, from now on at once.
                        self.pool.refused_restart();
                        if let Some(process) = self.process.take() {
                            tokio::spawn(end(process));
                        }
                    }
                    Err(_) => self.process = None,
                }
            }
        }
        if self.process.is_none() {
            let process = EngineProcess::start_with(&self.program, LineEndings::Any)
                .map_err(|e| Failure::Start(e.to_string()))?;
            self.process = Some(process);
        }
        let reply = self
            .exchange(&[format!("START {size}")], size, deadline, budget)
            .await?;
        match reply {
            Reply::Ok => {
                self.size = Some(size);
                self.seen = Some(Vec::new());
                Ok(())
            }
            Reply::Refused(why) => Err(Failure::Unsupported(format!(
                "the Gomocup engine refused START {size} ({why}): it cannot play on a {size}x{size} board, so this leg is not played"
            ))),
            other => Err(unexpected("START", &other, "OK or ERROR").into()),
        }
    }

    /// The settings sent before every position.
    async fn send_info(&mut self, position: &Position, clock: &Clock) -> Result<(), Failure> {
        let lines = [
            format!("INFO timeout_turn {}", clock.turn_ms),
            format!("INFO timeout_match {}", clock.match_ms),
            format!("INFO time_left {}", clock.left_ms),
            format!("INFO max_memory {}", self.max_memory),
            format!("INFO rule {}", position.rule),
        ];
        self.send(&lines).await
    }

    async fn send(&mut self, lines: &[String]) -> Result<(), Failure> {
        let Some(process) = self.process.as_mut() else {
            return Err(Failure::Exited(String::new()));
        };
        for line in lines {
            process.send(line).await.map_err(Failure::write)?;
        }
        Ok(())
    }

    /// Sends `lines` and reads the reply, skipping chatter, before `deadline`.
    async fn exchange(
        &mut self,
        lines: &[String],
        size: u8,
        deadline: Option<Instant>,
        budget: Option<Duration>,
    ) -> Result<Reply, Failure> {
        self.send(lines).await?;
        self.busy = true;
        let line = reply_line(&mut self.process, deadline, budget).await?;
        self.busy = false;
        Ok(parse_reply(&line, size)?)
    }

    /// Stops the brain at once (it failed, or may be half-way through an answer); the next
    /// decision starts a fresh one.
    pub(crate) async fn restart(&mut self) {
        self.size = None;
        self.seen = None;
        self.busy = false;
        if let Some(process) = self.process.take() {
            process.stop().await;
        }
    }

    /// The leg is over: the brain is kept for a later leg if it is idle, else told `END`.
    pub(crate) async fn retire(&mut self) {
        let busy = std::mem::take(&mut self.busy);
        let size = self.size.take();
        self.seen = None;
        let Some(mut process) = self.process.take() else {
            return;
        };
        match size {
            Some(size) if !busy && !process.exited() => self.pool.put(process, size).await,
            _ => end(process).await,
        }
    }
}

/// The line answering a command, `MESSAGE`, `DEBUG` and empty lines skipped.
async fn reply_line(
    process: &mut Option<EngineProcess>,
    deadline: Option<Instant>,
    budget: Option<Duration>,
) -> Result<String, Failure> {
    loop {
        let line = read_before(process, deadline, budget).await?;
        if !is_chatter(&line) {
            return Ok(line.trim().to_owned());
        }
    }
}

fn unexpected(command: &'static str, reply: &Reply, wanted: &'static str) -> GomocupError {
    let answer = match reply {
        Reply::Ok => "OK".to_owned(),
        Reply::Refused(text) => text.clone(),
        Reply::Swap => "SWAP".to_owned(),
        Reply::Stones(stones) => stones
            .iter()
            .map(|(x, y)| format!("{x},{y}"))
            .collect::<Vec<_>>()
            .join(" "),
    };
    GomocupError::Unexpected {
        command,
        answer,
        wanted,
    }
}

/// The clock as the brain is told it.
struct Clock {
    /// `timeout_turn`: the time the connector waits for this answer.
    turn_ms: u64,
    /// `timeout_match`: the longest clock seen in the leg, since requests carry no match
    /// length (the clock gains an increment per stone).
    match_ms: u64,
    /// `time_left`: the seat's remaining clock.
    left_ms: u64,
}

impl Clock {
    fn of(request: &GenericRequest, budget: Option<Duration>, longest: &mut u64) -> Clock {
        let left_ms = request.remaining_ms();
        let clocks = request
            .field("clocks_ms")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64);
        *longest = clocks.chain([left_ms]).fold(*longest, u64::max);
        let turn_ms = budget.map_or(left_ms, |b| {
            u64::try_from(b.as_millis()).unwrap_or(u64::MAX)
        });
        Clock {
            turn_ms,
            match_ms: *longest,
            left_ms,
        }
    }
}

/// What the start-up probe learnt about a brain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Probe {
    /// Its name and version, from `ABOUT`.
    pub(crate) name: Option<String>,
    /// Whether it answers an empty `SWAP2BOARD` with three stones.
    pub(crate) swap2: bool,
}

/// Starts the brain once before any match: `ABOUT` for its name, then `START 15` and an empty
/// `SWAP2BOARD` to learn whether it plays swap2 openings. The probe runs in a process of its
/// own, told `END` afterwards, so that a brain that answers `SWAP2BOARD` and `DONE` with two
/// `UNKNOWN`s leaves no stray reply behind for a leg to read.
pub(crate) async fn probe(command: &str, max_memory_mb: u64) -> Result<Probe, Failure> {
    let mut engine = GomocupEngine::new(command, max_memory_mb, BrainPool::default());
    let result = engine.probe().await;
    if let Some(process) = engine.process.take() {
        end(process).await;
    }
    result
}

impl GomocupEngine {
    async fn probe(&mut self) -> Result<Probe, Failure> {
        let patience = Some(PROBE_PATIENCE);
        let within = || Some(Instant::now() + PROBE_PATIENCE);
        let process = EngineProcess::start_with(&self.program, LineEndings::Any)
            .map_err(|e| Failure::Start(e.to_string()))?;
        self.process = Some(process);
        self.send(&["ABOUT".to_owned()]).await?;
        let about = reply_line(&mut self.process, within(), patience).await?;
        let name = about_name(&about);
        let start = self
            .exchange(&["START 15".to_owned()], 15, within(), patience)
            .await?;
        if start != Reply::Ok {
            return Ok(Probe { name, swap2: false });
        }
        let lines = [
            format!("INFO timeout_turn {PROBE_TURN_MS}"),
            format!("INFO max_memory {}", self.max_memory),
            "INFO rule 0".to_owned(),
            "SWAP2BOARD".to_owned(),
            "DONE".to_owned(),
        ];
        let swap2 = matches!(
            self.exchange(&lines, 15, within(), patience).await,
            Ok(Reply::Stones(stones)) if stones.len() == 3
        );
        Ok(Probe { name, swap2 })
    }
}

#[cfg(test)]
mod tests;
