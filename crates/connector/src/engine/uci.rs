//! `--uci`: chess engines speaking UCI (Stockfish, Fairy-Stockfish, …) for the `chess` game.
//!
//! A leg keeps one engine process, taken from a small pool of idle engines (the start-up
//! probe's, or those of ended legs) or started afresh with `uci` (until `uciok`), the user's
//! `--uci-option`s and `isready`. At the leg's first decision it is told `UCI_Chess960` (true
//! only in Chess960, where castling is the king taking its rook, as the server writes it),
//! `ucinewgame` and `isready`. Each decision then sends the position and `go` with both clocks,
//! and `movetime` when the per-move cap is shorter than the clock allows: standard chess and
//! Chess960 as `position startpos|fen <initial_fen> moves …`, Dice Chess micro-move by
//! micro-move as the view's current position, cleaned up for an orthodox engine, with
//! `searchmoves` listing the micro-moves the turn tree allows. A search still running when the
//! budget is nearly spent gets `stop`; one that gives no `bestmove` shortly after is killed.
//!
//! Every answer is checked against the request's legal actions. The engine is not asked when
//! it needs not be (a single legal move, or in Dice Chess a micro-move that takes the king,
//! which an orthodox engine never plays), and where its answer is unusable (`bestmove
//! (none)`, which Stockfish gives when every listed micro-move is illegal in orthodox chess, a
//! move not listed, or in Dice Chess a crash) a legal move is played in its place: the first
//! capture listed, else the first move listed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Failure;
use super::generic::GenericRequest;
use crate::games::CHESS;
use crate::leg::CLOCK_MARGIN_MS;
use crate::process::{EngineProcess, Program, ReadError};

/// The standard start position, sent as `position startpos`.
pub(crate) const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// The longest the handshake (`uciok`, `readyok`) may take: an engine may load a network first.
const HANDSHAKE_PATIENCE: Duration = Duration::from_secs(10);
/// The longest the start-up probe waits for each reply.
const PROBE_PATIENCE: Duration = Duration::from_secs(30);
/// How long an engine told `quit` may take to exit before it is stopped.
const QUIT_PATIENCE: Duration = Duration::from_secs(1);
/// Idle engines kept for later legs; more are told `quit`.
const IDLE_KEPT: usize = 2;
/// The least and the most of a budget kept back for `stop` and the `bestmove` after it.
const GRACE_MIN: Duration = Duration::from_millis(10);
const GRACE_MAX: Duration = Duration::from_millis(250);

/// Why a UCI engine gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UciError {
    /// The engine did not complete a step of the handshake in time.
    #[error("the UCI engine did not answer {command} with {wanted} within {ms} ms")]
    NoReply {
        /// The command sent.
        command: &'static str,
        /// The reply awaited.
        wanted: &'static str,
        /// How long the connector waited.
        ms: u128,
    },
    /// The engine did not answer `stop` with a `bestmove`; it was stopped.
    #[error(
        "the UCI engine gave no bestmove within {0} ms (stop was sent, then the engine was stopped)"
    )]
    NoBestmove(u128),
    /// A `bestmove` line without a move.
    #[error("the UCI engine's answer {0:?} names no move")]
    BadBestmove(String),
}

/// One `--uci-option`: `setoption name NAME value VALUE`, or `setoption name NAME` for a
/// button (an option given without `=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciOption {
    /// The option's name, such as `Skill Level`.
    pub name: String,
    /// Its value; `None` for a button such as `Clear Hash`.
    pub value: Option<String>,
}

/// Why a `--uci-option` cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciOptionError {
    /// `=VALUE` without a name.
    #[error("a UCI option needs a name, as in NAME=VALUE (\"Skill Level=5\")")]
    NoName,
    /// A line break would split the command into two.
    #[error("a UCI option must be on one line")]
    LineBreak,
    /// The name holds the words that split the command into name and value.
    #[error("the UCI option name {0:?} must not contain the word \"value\" or \"name\"")]
    Keyword(String),
}

impl std::str::FromStr for UciOption {
    type Err = UciOptionError;

    /// `NAME=VALUE`, split at the first `=`; spaces around both are dropped. `NAME` alone is
    /// a button.
    fn from_str(text: &str) -> Result<UciOption, UciOptionError> {
        if text.contains(['\n', '\r']) {
            return Err(UciOptionError::LineBreak);
        }
        let (name, value) = match text.split_once('=') {
            Some((name, value)) => (name.trim(), Some(value.trim().to_owned())),
            None => (text.trim(), None),
        };
        if name.is_empty() {
            return Err(UciOptionError::NoName);
        }
        // The engine reads the name up to the word `value`, so a name holding it would be cut.
        if name
            .split_whitespace()
            .any(|word| word.eq_ignore_ascii_case("value") || word.eq_ignore_ascii_case("name"))
        {
            return Err(UciOptionError::Keyword(name.to_owned()));
        }
        Ok(UciOption {
            name: name.to_owned(),
            value,
        })
    }
}

impl UciOption {
    /// The `setoption` line.
    fn line(&self) -> String {
        match &self.value {
            Some(value) => format!("setoption name {} value {value}", self.name),
            None => format!("setoption name {}", self.name),
        }
    }
}

/// The chess variants, as the view names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Standard,
    Chess960,
    Dice,
}

/// A board from a FEN's first field: the piece letter on each square (a1 first, rank by rank),
/// `.` on an empty one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Board([u8; 64]);

/// The square `e4` names, as an index from a1.
fn square(name: &str) -> Option<usize> {
    let &[file, rank] = name.as_bytes() else {
        return None;
    };
    let file = file.checked_sub(b'a').filter(|&f| f < 8)?;
    let rank = rank.checked_sub(b'1').filter(|&r| r < 8)?;
    Some(usize::from(rank) * 8 + usize::from(file))
}

/// A move's origin and target squares (`e7e8q` gives e7 and e8).
fn squares(mv: &str) -> Option<(usize, usize)> {
    Some((square(mv.get(0..2)?)?, square(mv.get(2..4)?)?))
}

impl Board {
    /// The placement field of a FEN; `None` unless it names exactly 64 squares with pieces of
    /// chess.
    pub(crate) fn parse(placement: &str) -> Option<Board> {
        let mut squares = [b'.'; 64];
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return None;
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = 7 - row;
            let mut file = 0usize;
            for byte in text.bytes() {
                match byte {
                    b'1'..=b'8' => file += usize::from(byte - b'0'),
                    b'p' | b'n' | b'b' | b'r' | b'q' | b'k' | b'P' | b'N' | b'B' | b'R' | b'Q'
                    | b'K' => {
                        if file >= 8 {
                            return None;
                        }
                        squares[rank * 8 + file] = byte;
                        file += 1;
                    }
                    _ => return None,
                }
                if file > 8 {
                    return None;
                }
            }
            if file != 8 {
                return None;
            }
        }
        Some(Board(squares))
    }

    fn at(&self, square: usize) -> u8 {
        self.0[square]
    }

    fn count(&self, piece: u8) -> usize {
        self.0.iter().filter(|&&p| p == piece).count()
    }

    /// Whether the piece on `square` belongs to the side `white` says.
    fn owned_by(&self, square: usize, white: bool) -> bool {
        let piece = self.at(square);
        piece != b'.' && piece.is_ascii_uppercase() == white
    }

    /// Whether `mv` takes something: an enemy piece on its target, or a pawn's diagonal step
    /// onto an empty square (en passant).
    fn captures(&self, mv: &str, white: bool) -> bool {
        let Some((from, to)) = squares(mv) else {
            return false;
        };
        if self.owned_by(to, !white) {
            return true;
        }
        let pawn = if white { b'P' } else { b'p' };
        self.at(from) == pawn && self.at(to) == b'.' && from % 8 != to % 8
    }
}

/// The legal move that takes the enemy king, if one does: in Dice Chess the game is won at
/// once, and no orthodox engine would ever play it.
pub(crate) fn king_capture<'a>(board: &Board, white: bool, legal: &'a [String]) -> Option<&'a str> {
    let king = if white { b'k' } else { b'K' };
    legal
        .iter()
        .map(String::as_str)
        .find(|mv| squares(mv).is_some_and(|(_, to)| board.at(to) == king))
}

/// The move played when the engine's is unusable: the first capture listed (a capture is
/// rarely the worst move of a position), else the first move listed. It is the same for the
/// same request, so that a replayed decision plays the same move.
pub(crate) fn fallback<'a>(
    board: Option<&Board>,
    white: bool,
    legal: &'a [String],
) -> Option<&'a str> {
    board
        .and_then(|board| legal.iter().find(|mv| board.captures(mv, white)))
        .or_else(|| legal.first())
        .map(String::as_str)
}

/// The view's Dice Chess position as an orthodox engine takes it; `None` when no orthodox
/// engine could read it (a side without exactly one king). The side to move is the turn's
/// (`white`), also between its micro-moves; castling rights are kept only where king and rook
/// still stand on their squares; of the en-passant squares Dice Chess may list (several,
/// concatenated, some of them the mover's own double pushes of this turn), one valid for the
/// side to move is kept, preferring one a legal micro-move takes on, else `-`. The halfmove
/// clock is written 0: Dice Chess counts micro-moves towards its own limit, and an orthodox
/// engine would call every line drawn at 100 of them.
pub(crate) fn orthodox_fen(fen: &str, white: bool, legal: &[String]) -> Option<String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let placement = *fields.first()?;
    let board = Board::parse(placement)?;
    if board.count(b'K') != 1 || board.count(b'k') != 1 {
        return None;
    }
    let castling = castling_rights(&board, fields.get(2).copied().unwrap_or("-"));
    let en_passant = en_passant(&board, white, fields.get(3).copied().unwrap_or("-"), legal);
    let fullmove = fields
        .get(5)
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n >= 1)
        .unwrap_or(1);
    let side = if white { 'w' } else { 'b' };
    Some(format!(
        "{placement} {side} {castling} {en_passant} 0 {fullmove}"
    ))
}

/// The rights of `field` (`KQkq` letters) whose king and rook stand on their start squares.
fn castling_rights(board: &Board, field: &str) -> String {
    // (letter, king's square, king, rook's square, rook)
    let rights = [
        ('K', "e1", b'K', "h1", b'R'),
        ('Q', "e1", b'K', "a1", b'R'),
        ('k', "e8", b'k', "h8", b'r'),
        ('q', "e8", b'k', "a8", b'r'),
    ];
    let kept: String = rights
        .iter()
        .filter(|(letter, king_at, king, rook_at, rook)| {
            field.contains(*letter)
                && square(king_at).is_some_and(|s| board.at(s) == *king)
                && square(rook_at).is_some_and(|s| board.at(s) == *rook)
        })
        .map(|(letter, ..)| *letter)
        .collect();
    if kept.is_empty() {
        "-".to_owned()
    } else {
        kept
    }
}

/// One en-passant square of `field` that the side to move may take on, or `-`.
fn en_passant(board: &Board, white: bool, field: &str, legal: &[String]) -> String {
    let valid = |target: usize| {
        // The target is on the sixth rank for White (third for Black), so the squares a rank
        // on either side of it exist.
        if target / 8 != if white { 5 } else { 2 } {
            return false;
        }
        let (pushed, passed, mine, theirs) = if white {
            (target - 8, target + 8, b'P', b'p')
        } else {
            (target + 8, target - 8, b'p', b'P')
        };
        if board.at(target) != b'.' || board.at(passed) != b'.' {
            return false;
        }
        if board.at(pushed) != theirs {
            return false;
        }
        let file = pushed % 8;
        let beside = [file.checked_sub(1), (file < 7).then_some(file + 1)];
        beside
            .into_iter()
            .flatten()
            .any(|f| board.at(pushed - file + f) == mine)
    };
    let listed: Vec<usize> = field
        .as_bytes()
        .chunks(2)
        .filter_map(|pair| square(std::str::from_utf8(pair).ok()?))
        .filter(|&target| valid(target))
        .collect();
    let pawn = if white { b'P' } else { b'p' };
    let taken_on = |target: usize| {
        legal
            .iter()
            .any(|mv| squares(mv).is_some_and(|(from, to)| to == target && board.at(from) == pawn))
    };
    let chosen = listed
        .iter()
        .copied()
        .find(|&target| taken_on(target))
        .or_else(|| listed.first().copied());
    match chosen {
        Some(target) => {
            let file = char::from(b'a' + (target % 8) as u8);
            let rank = char::from(b'1' + (target / 8) as u8);
            format!("{file}{rank}")
        }
        None => "-".to_owned(),
    }
}

/// The `position` line of standard chess and Chess960: the leg's start and every move since.
pub(crate) fn position_line(initial_fen: &str, moves: &[String]) -> String {
    let mut line = if initial_fen.trim() == START_FEN {
        "position startpos".to_owned()
    } else {
        format!("position fen {}", initial_fen.trim())
    };
    if !moves.is_empty() {
        line.push_str(" moves");
        for mv in moves {
            line.push(' ');
            line.push_str(mv);
        }
    }
    line
}

/// The clock `go` gives the engine, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GoClock {
    pub(crate) wtime: u64,
    pub(crate) btime: u64,
    pub(crate) winc: u64,
    pub(crate) binc: u64,
    /// Set when the per-move cap is shorter than what the clock allows.
    pub(crate) movetime: Option<u64>,
}

/// What is kept back from a budget for `stop` and the `bestmove` after it.
fn grace(budget: Duration) -> Duration {
    (budget / 10).clamp(GRACE_MIN, GRACE_MAX)
}

impl GoClock {
    /// The clock of `request` for the side to move (`white`), with `budget` the time the
    /// connector waits: the seat's remaining time, and the opponent's from `clocks_ms` (else
    /// the same); `movetime` the budget less what `stop` needs, when the budget is shorter
    /// than the clock less the connector's margin, as it is when `--max-think-seconds` caps it.
    pub(crate) fn of(request: &GenericRequest, white: bool, budget: Duration) -> GoClock {
        let own = request.remaining_ms();
        let opponent = request
            .field("seat")
            .and_then(Value::as_u64)
            .filter(|&seat| seat < 2)
            .and_then(|seat| request.field("clocks_ms")?.get(usize::from(seat == 0)))
            .and_then(Value::as_u64)
            .unwrap_or(own);
        let increment = request
            .field("increment_ms")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let budget_ms = millis(budget);
        let movetime = (budget_ms < own.saturating_sub(CLOCK_MARGIN_MS))
            .then(|| budget_ms.saturating_sub(2 * millis(grace(budget))).max(1));
        let (wtime, btime) = if white {
            (own, opponent)
        } else {
            (opponent, own)
        };
        GoClock {
            wtime,
            btime,
            winc: increment,
            binc: increment,
            movetime,
        }
    }

    /// The `go` line, with `searchmoves` when given.
    pub(crate) fn line(&self, searchmoves: Option<&[String]>) -> String {
        let mut line = format!(
            "go wtime {} btime {} winc {} binc {}",
            self.wtime, self.btime, self.winc, self.binc
        );
        if let Some(movetime) = self.movetime {
            line.push_str(&format!(" movetime {movetime}"));
        }
        if let Some(moves) = searchmoves {
            line.push_str(" searchmoves");
            for mv in moves {
                line.push(' ');
                line.push_str(mv);
            }
        }
        line
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A chess decision, as the adapter reads it.
#[derive(Clone, Debug)]
struct Position {
    variant: Variant,
    initial_fen: String,
    fen: String,
    moves: Vec<String>,
    /// The legal moves, as the request spells them.
    legal: Vec<String>,
    /// Whether White is to move.
    white: bool,
}

impl Position {
    /// The position in a chess decision; a permanent failure for anything else, since asking
    /// again cannot help.
    fn read(request: &GenericRequest) -> Result<Position, Failure> {
        if request.game() != CHESS {
            return Err(Failure::Unsupported(format!(
                "UCI engines play chess only, and this match is {}; the connector does not guess an action",
                request.game()
            )));
        }
        let view = request.field("view").unwrap_or(&Value::Null);
        Position::from_view(view, request.legal_actions()).ok_or_else(|| {
            Failure::Unsupported(format!(
                "the chess view is not one the UCI adapter reads (variant, initial_fen, fen, moves, to_move, legal_moves): {}",
                super::generic::action_name(view)
            ))
        })
    }

    fn from_view(view: &Value, legal_actions: Option<&[Value]>) -> Option<Position> {
        let variant = match view["variant"].as_str()? {
            "standard" => Variant::Standard,
            "chess960" => Variant::Chess960,
            "dice" => Variant::Dice,
            _ => return None,
        };
        let strings = |list: &[Value]| -> Option<Vec<String>> {
            list.iter()
                .map(|mv| mv.as_str().map(str::to_owned))
                .collect()
        };
        let legal = match legal_actions {
            Some(list) => strings(list)?,
            None => strings(view["legal_moves"].as_array()?)?,
        };
        let fen = view["fen"].as_str()?.to_owned();
        let white = match view["to_move"].as_str() {
            Some("white") => true,
            Some("black") => false,
            _ => fen.split_whitespace().nth(1)? == "w",
        };
        Some(Position {
            variant,
            initial_fen: view["initial_fen"].as_str()?.to_owned(),
            fen,
            moves: strings(view["moves"].as_array()?)?,
            legal,
            white,
        })
    }

    fn board(&self) -> Option<Board> {
        Board::parse(self.fen.split_whitespace().next()?)
    }
}

/// The answer to a chess decision: the move, when it was chosen, and, when the adapter chose
/// it in the engine's place because the engine's was unusable, why.
pub(crate) struct UciAnswer {
    pub(crate) action: Value,
    pub(crate) at: Instant,
    pub(crate) substitute: Option<String>,
}

impl UciAnswer {
    fn now(mv: &str) -> UciAnswer {
        UciAnswer {
            action: Value::String(mv.to_owned()),
            at: Instant::now(),
            substitute: None,
        }
    }
}

/// A running engine that has completed `uci`, its options and `isready`.
struct Running {
    process: EngineProcess,
    /// `UCI_Chess960` as last set.
    chess960: bool,
}

/// The engines kept between legs, shared by every leg of the connector.
#[derive(Clone, Default)]
pub(crate) struct UciPool(Arc<Mutex<Vec<Running>>>);

impl UciPool {
    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Running>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The idle engine kept last, if one is still running (one that exited while idle is
    /// dropped, which stops whatever is left of it).
    fn take(&self) -> Option<Running> {
        let mut idle = self.idle();
        while let Some(mut running) = idle.pop() {
            if !running.process.exited() {
                return Some(running);
            }
        }
        None
    }

    /// Keeps an idle engine for a later leg, telling the oldest `quit` when enough are kept.
    async fn put(&self, running: Running) {
        let extra = {
            let mut idle = self.idle();
            idle.push(running);
            (idle.len() > IDLE_KEPT).then(|| idle.remove(0))
        };
        if let Some(extra) = extra {
            quit(extra.process).await;
        }
    }

    /// Tells every idle engine `quit`, when the connector stops.
    pub(crate) async fn close(&self) {
        let idle = std::mem::take(&mut *self.idle());
        futures::future::join_all(idle.into_iter().map(|running| quit(running.process))).await;
    }
}

async fn quit(process: EngineProcess) {
    process.quit("quit", QUIT_PATIENCE).await;
}

/// One leg's UCI engine.
pub(crate) struct UciEngine {
    program: Program,
    options: Vec<UciOption>,
    pool: UciPool,
    running: Option<Running>,
    /// Whether the running engine was told `ucinewgame` in this leg.
    in_game: bool,
    /// A `go` was sent whose `bestmove` has not been read: such an engine is not kept.
    busy: bool,
}

impl UciEngine {
    /// An engine run by `command` with `options`; its process comes from `pool`, or starts, at
    /// the first decision.
    pub(crate) fn new(command: &str, options: &[UciOption], pool: UciPool) -> UciEngine {
        UciEngine {
            program: Program::Shell(command.to_owned()),
            options: options.to_vec(),
            pool,
            running: None,
            in_game: false,
            busy: false,
        }
    }

    /// Chooses a move for a chess decision within `budget`.
    pub(crate) async fn decide(
        &mut self,
        request: &GenericRequest,
        budget: Option<Duration>,
    ) -> Result<UciAnswer, Failure> {
        let started = Instant::now();
        let position = Position::read(request)?;
        let legal = &position.legal;
        let board = position.board();
        match legal.as_slice() {
            [] => {
                return Err(Failure::Unsupported(
                    "this chess decision lists no legal move".to_owned(),
                ));
            }
            [only] => return Ok(UciAnswer::now(only)),
            _ => {}
        }
        let dice = position.variant == Variant::Dice;
        if dice
            && let Some(mv) = board
                .as_ref()
                .and_then(|board| king_capture(board, position.white, legal))
        {
            return Ok(UciAnswer::now(mv));
        }
        let (position_line, searchmoves) = if dice {
            match orthodox_fen(&position.fen, position.white, legal) {
                Some(fen) => (format!("position fen {fen}"), Some(legal.as_slice())),
                None => {
                    return Ok(self.fall_back(
                        &position,
                        board.as_ref(),
                        "the position has no orthodox FEN",
                    ));
                }
            }
        } else {
            (position_line(&position.initial_fen, &position.moves), None)
        };
        // Without a cap, the clock less the margin is the limit, as the leg computes it.
        let remaining = request.remaining_ms();
        let budget = budget
            .unwrap_or_else(|| Duration::from_millis(remaining.saturating_sub(CLOCK_MARGIN_MS)));
        let go = GoClock::of(request, position.white, budget).line(searchmoves);
        // Starting an engine may take longer than one move's cap, but never past the clock.
        let clock_left =
            Duration::from_millis(remaining.saturating_sub(CLOCK_MARGIN_MS)).max(budget);
        let ready_by = started + clock_left.min(HANDSHAKE_PATIENCE).max(budget);
        let chess960 = position.variant == Variant::Chess960;
        let searched = match self.ready(chess960, ready_by).await {
            Ok(()) => {
                // The search gets its whole budget from now, within the clock.
                let end = (Instant::now() + budget).min(started + clock_left);
                self.search(&position_line, &go, end).await
            }
            Err(failure) => Err(failure),
        };
        match searched {
            Ok((Some(mv), at)) => match legal.iter().find(|l| l.eq_ignore_ascii_case(&mv)) {
                Some(mv) => Ok(UciAnswer {
                    action: Value::String(mv.clone()),
                    at,
                    substitute: None,
                }),
                None => Ok(self.fall_back(
                    &position,
                    board.as_ref(),
                    &format!("the UCI engine played {mv}, which is not one of legal_actions"),
                )),
            },
            Ok((None, _)) => Ok(self.fall_back(
                &position,
                board.as_ref(),
                "the UCI engine answered bestmove (none)",
            )),
            // A micro-move is one of many in a turn whose clock runs for all of them: a
            // failing engine is replaced at the next one rather than asked again now.
            Err(failure) if dice => {
                self.restart().await;
                Ok(self.fall_back(&position, board.as_ref(), &failure.to_string()))
            }
            Err(failure) => Err(failure),
        }
    }

    /// A legal move in the engine's place. In Dice Chess that is expected (Stockfish answers
    /// `bestmove (none)` whenever every micro-move listed is illegal in orthodox chess), so it
    /// is logged at debug level; in standard chess and Chess960 it is a failure of the engine,
    /// reported as one.
    fn fall_back(&self, position: &Position, board: Option<&Board>, why: &str) -> UciAnswer {
        let mv = fallback(board, position.white, &position.legal).unwrap_or_default();
        let mut answer = UciAnswer::now(mv);
        if position.variant == Variant::Dice {
            tracing::debug!("Dice Chess: {why}; {mv} was played in its place");
        } else {
            answer.substitute = Some(format!("{why}; {mv} was played in its place"));
        }
        answer
    }

    /// A running engine, told this leg's `UCI_Chess960` and `ucinewgame` if it has not been.
    async fn ready(&mut self, chess960: bool, by: Instant) -> Result<(), Failure> {
        let alive = self
            .running
            .as_mut()
            .is_some_and(|running| !running.process.exited());
        if !alive {
            self.running = None;
            self.in_game = false;
            self.busy = false;
            let running = match self.pool.take() {
                Some(running) => running,
                None => handshake(&self.program, &self.options, by).await?,
            };
            self.running = Some(running);
        }
        let Some(running) = self.running.as_mut() else {
            return Err(Failure::Exited(String::new()));
        };
        if self.in_game && running.chess960 == chess960 {
            return Ok(());
        }
        let result = async {
            if running.chess960 != chess960 {
                send(
                    &mut running.process,
                    &format!("setoption name UCI_Chess960 value {chess960}"),
                )
                .await?;
                running.chess960 = chess960;
            }
            send(&mut running.process, "ucinewgame").await?;
            send(&mut running.process, "isready").await?;
            wait_for(&mut running.process, "isready", "readyok", by).await
        }
        .await;
        if let Err(failure) = result {
            self.restart().await;
            return Err(failure);
        }
        self.in_game = true;
        Ok(())
    }

    /// Sends the position and `go`, and reads the `bestmove`, sending `stop` shortly before
    /// `end`; returns the move (`None` for `(none)`) and when it was read.
    async fn search(
        &mut self,
        position: &str,
        go: &str,
        end: Instant,
    ) -> Result<(Option<String>, Instant), Failure> {
        let budget = end.saturating_duration_since(Instant::now());
        let stop_at = end.checked_sub(grace(budget)).unwrap_or(end);
        let Some(running) = self.running.as_mut() else {
            return Err(Failure::Exited(String::new()));
        };
        send(&mut running.process, position).await?;
        send(&mut running.process, go).await?;
        self.busy = true;
        let mut stopped = false;
        loop {
            let Some(running) = self.running.as_mut() else {
                return Err(Failure::Exited(String::new()));
            };
            let until = if stopped { end } else { stop_at };
            let within = until.saturating_duration_since(Instant::now());
            match running.process.read_line(Some(within)).await {
                Ok(line) => {
                    let mut words = line.split_whitespace();
                    if words.next() != Some("bestmove") {
                        continue;
                    }
                    self.busy = false;
                    let at = Instant::now();
                    return match words.next() {
                        Some("(none)") => Ok((None, at)),
                        Some(mv) => Ok((Some(mv.to_owned()), at)),
                        None => Err(UciError::BadBestmove(line.trim().to_owned()).into()),
                    };
                }
                Err(ReadError::Timeout) if !stopped => {
                    stopped = true;
                    send(&mut running.process, "stop").await?;
                }
                Err(ReadError::Timeout) => {
                    self.restart().await;
                    return Err(UciError::NoBestmove(budget.as_millis()).into());
                }
                Err(ReadError::Closed) => return Err(self.exited().await),
                Err(ReadError::Garbage(error)) => {
                    self.restart().await;
                    return Err(Failure::Garbage(error));
                }
            }
        }
    }

    async fn exited(&mut self) -> Failure {
        let mut process = self.running.take().map(|running| running.process);
        self.in_game = false;
        self.busy = false;
        super::exited(&mut process).await
    }

    /// Stops the engine at once (it failed, or may be half-way through a search); the next
    /// decision starts a fresh one.
    pub(crate) async fn restart(&mut self) {
        self.in_game = false;
        self.busy = false;
        if let Some(running) = self.running.take() {
            running.process.stop().await;
        }
    }

    /// The leg is over: an idle engine is kept for a later leg, a busy one stopped.
    pub(crate) async fn retire(&mut self) {
        let busy = std::mem::take(&mut self.busy);
        self.in_game = false;
        let Some(mut running) = self.running.take() else {
            return;
        };
        if busy || running.process.exited() {
            running.process.stop().await;
        } else {
            self.pool.put(running).await;
        }
    }
}

async fn send(process: &mut EngineProcess, line: &str) -> Result<(), Failure> {
    process.send(line).await.map_err(Failure::write)
}

/// Reads lines until one that is `wanted`, before `by`.
async fn wait_for(
    process: &mut EngineProcess,
    command: &'static str,
    wanted: &'static str,
    by: Instant,
) -> Result<Vec<String>, Failure> {
    let started = Instant::now();
    let mut before = Vec::new();
    loop {
        let within = by.saturating_duration_since(Instant::now());
        match process.read_line(Some(within)).await {
            Ok(line) if line.trim() == wanted => return Ok(before),
            Ok(line) => before.push(line),
            Err(ReadError::Timeout) => {
                return Err(UciError::NoReply {
                    command,
                    wanted,
                    ms: started.elapsed().as_millis(),
                }
                .into());
            }
            Err(ReadError::Closed) => return Err(Failure::Exited(String::new())),
            Err(ReadError::Garbage(error)) => return Err(Failure::Garbage(error)),
        }
    }
}

/// Starts the engine and completes the handshake before `by`: `uci` until `uciok`, the
/// options, `isready` until `readyok`. Returns the engine and the lines it wrote before
/// `uciok` (its `id` and `option` lines).
async fn start(
    program: &Program,
    options: &[UciOption],
    by: Instant,
) -> Result<(Running, Vec<String>), Failure> {
    let mut process = EngineProcess::start(program).map_err(|e| Failure::Start(e.to_string()))?;
    let steps = async {
        send(&mut process, "uci").await?;
        let described = wait_for(&mut process, "uci", "uciok", by).await?;
        for option in options {
            send(&mut process, &option.line()).await?;
        }
        send(&mut process, "isready").await?;
        wait_for(&mut process, "isready", "readyok", by).await?;
        Ok::<_, Failure>(described)
    }
    .await;
    match steps {
        Ok(described) => Ok((
            Running {
                process,
                chess960: false,
            },
            described,
        )),
        Err(Failure::Exited(_)) => {
            let mut process = Some(process);
            Err(super::exited(&mut process).await)
        }
        Err(failure) => {
            process.stop().await;
            Err(failure)
        }
    }
}

async fn handshake(
    program: &Program,
    options: &[UciOption],
    by: Instant,
) -> Result<Running, Failure> {
    Ok(start(program, options, by).await?.0)
}

/// What the start-up probe learnt about an engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Probe {
    /// Its name, from `id name`.
    pub(crate) name: Option<String>,
    /// The `--uci-option` names it does not list among its options.
    pub(crate) unknown_options: Vec<String>,
    /// Whether it lists `UCI_Chess960`.
    pub(crate) chess960: bool,
}

/// The probe's reading of the lines an engine wrote before `uciok`.
pub(crate) fn read_description(lines: &[String], options: &[UciOption]) -> Probe {
    let mut name = None;
    let mut listed: Vec<String> = Vec::new();
    for line in lines {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("id name ") {
            name = Some(rest.trim().to_owned()).filter(|n| !n.is_empty());
        } else if let Some(rest) = line.strip_prefix("option name ") {
            let option = rest.split(" type ").next().unwrap_or(rest).trim();
            listed.push(option.to_ascii_lowercase());
        }
    }
    // Option names are compared without regard to case, as engines read them.
    let unknown_options = options
        .iter()
        .filter(|option| !listed.contains(&option.name.to_ascii_lowercase()))
        .map(|option| option.name.clone())
        .collect();
    Probe {
        name,
        unknown_options,
        chess960: listed.iter().any(|option| option == "uci_chess960"),
    }
}

/// Starts the engine once before any match, for its name and options and so that a broken
/// command shows at once; the engine, ready, goes to `pool` for the first leg.
pub(crate) async fn probe(
    command: &str,
    options: &[UciOption],
    pool: &UciPool,
) -> Result<Probe, Failure> {
    let program = Program::Shell(command.to_owned());
    let (running, described) = start(&program, options, Instant::now() + PROBE_PATIENCE).await?;
    pool.put(running).await;
    Ok(read_description(&described, options))
}

#[cfg(all(test, unix))]
mod tests;
