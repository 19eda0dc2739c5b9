//! The engine protocol: one JSON line to the engine per decision, one JSON line back.
//!
//! For the Othello family the request is FlipSight's engine request, field for field, so that
//! engines and adapters written for FlipSight work unchanged:
//!
//! ```json
//! {"board":[0,…],"color":1,"legal_moves":[19,26,37,44],"game_mode":"std","board_size":8,
//!  "blocked_squares":[],"placed":{"1":0,"2":0},"remaining_ms":60000,"match_id":123,"leg":0,
//!  "revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}
//! ```
//!
//! The answer is an object with a `move`: a square index (`19`), a coordinate in either case
//! (`"d3"`), or a pass (`-1`, `"pass"`, `"PA"`, `"PS"`, `"--"`).

use arbiter_othello::coord::{CoordError, move_from_index};
use arbiter_othello::{Color, Move, OthelloState, OthelloView, Variant, parse_move};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Discs placed per colour, keyed `"1"` (Black) and `"2"` (White) as FlipSight writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    /// Black's placed discs.
    #[serde(rename = "1")]
    pub black: u16,
    /// White's placed discs.
    #[serde(rename = "2")]
    pub white: u16,
}

/// One move of the leg so far, as FlipSight's match object lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// 1 Black, 2 White.
    pub color: Color,
    /// The participant who played it (0 or 1).
    pub participant: u8,
    /// The square index, or -1 for a pass.
    #[serde(rename = "move")]
    pub mv: Move,
    /// When the server received it, in milliseconds since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<i64>,
}

/// The match around a leg: what the request needs beyond the game state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchContext {
    /// The match id (negative for a human match).
    pub match_id: i64,
    /// The leg, 0 or 1 (0 in human matches).
    pub leg: u8,
    /// The participant playing Black in this leg.
    pub black_participant: u8,
    /// The mover's remaining clock, in milliseconds, net of time already spent this turn.
    pub remaining_ms: u64,
    /// How long the connector waits for the answer, in milliseconds.
    pub budget_ms: u64,
    /// When each move of the history arrived, if known (same order as the history).
    pub move_times_ms: Vec<i64>,
    /// The human match's round number; `None` between bots.
    pub round_no: Option<i64>,
    /// The human room's creation time; `None` between bots.
    pub room_created_at: Option<String>,
}

/// FlipSight's engine request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineRequest {
    /// One cell per square from a1 row by row: 0 empty (or blocked), 1 black, 2 white.
    pub board: Vec<u8>,
    /// The colour to choose a move for.
    pub color: Color,
    /// The legal squares; empty when the engine must pass.
    pub legal_moves: Vec<u8>,
    /// std, anti, grand, octagon or reversi.
    pub game_mode: Variant,
    /// 8 or 10.
    pub board_size: u8,
    /// The octagon's blocked squares.
    pub blocked_squares: Vec<u8>,
    /// Discs placed per colour, the opening included.
    pub placed: Placed,
    /// The mover's remaining clock in milliseconds.
    pub remaining_ms: u64,
    /// The match id.
    pub match_id: i64,
    /// The leg.
    pub leg: u8,
    /// The leg's revision, to quote when submitting the move.
    pub revision: u64,
    /// The moves of this leg so far.
    pub history: Vec<HistoryEntry>,
    /// Human matches only.
    pub round_no: Option<i64>,
    /// Human matches only.
    pub room_created_at: Option<String>,
    /// How long the connector waits for the answer.
    pub budget_ms: u64,
}

impl EngineRequest {
    /// The request for the side to move in `state`.
    pub fn new(state: &OthelloState, context: &MatchContext) -> EngineRequest {
        EngineRequest::from_view(state.view(), context)
    }

    /// The request for the side to move, from what it sees of the game (in Othello, all of
    /// it), consuming the view so that its lists move into the request.
    pub fn from_view(view: OthelloView, context: &MatchContext) -> EngineRequest {
        let variant = view.variant;
        let participant = |color: Color| match color {
            Color::Black => context.black_participant,
            Color::White => 1 - context.black_participant.min(1),
        };
        let history = view
            .history
            .iter()
            .enumerate()
            .map(|(i, played)| HistoryEntry {
                color: played.color,
                participant: participant(played.color),
                mv: played.mv,
                at_ms: context.move_times_ms.get(i).copied(),
            })
            .collect();
        EngineRequest {
            board: view.board,
            color: view.position.to_move(),
            legal_moves: view.legal_moves,
            game_mode: variant,
            board_size: view.board_size,
            blocked_squares: view.blocked_squares,
            placed: Placed {
                black: view.placed[0],
                white: view.placed[1],
            },
            remaining_ms: context.remaining_ms,
            match_id: context.match_id,
            leg: context.leg,
            revision: view.revision as u64,
            history,
            round_no: context.round_no,
            room_created_at: context.room_created_at.clone(),
            budget_ms: context.budget_ms,
        }
    }

    /// The request as one line of JSON, without the newline: exactly the text `serde_json`
    /// writes for it, written directly, because a server sends one for every move and a
    /// generic serializer spends most of its time escaping the same keys over and over.
    pub fn to_line(&self) -> String {
        let mut out = String::with_capacity(400 + 4 * self.board.len() + 48 * self.history.len());
        out.push_str("{\"board\":");
        push_list(&mut out, self.board.iter().map(|&cell| u64::from(cell)));
        push_key(&mut out, "color");
        push_uint(&mut out, u64::from(u8::from(self.color)));
        push_key(&mut out, "legal_moves");
        push_list(&mut out, self.legal_moves.iter().map(|&sq| u64::from(sq)));
        push_key(&mut out, "game_mode");
        out.push('"');
        out.push_str(self.game_mode.name());
        out.push('"');
        push_key(&mut out, "board_size");
        push_uint(&mut out, u64::from(self.board_size));
        push_key(&mut out, "blocked_squares");
        push_list(
            &mut out,
            self.blocked_squares.iter().map(|&sq| u64::from(sq)),
        );
        out.push_str(",\"placed\":{\"1\":");
        push_uint(&mut out, u64::from(self.placed.black));
        out.push_str(",\"2\":");
        push_uint(&mut out, u64::from(self.placed.white));
        out.push('}');
        push_key(&mut out, "remaining_ms");
        push_uint(&mut out, self.remaining_ms);
        push_key(&mut out, "match_id");
        push_int(&mut out, self.match_id);
        push_key(&mut out, "leg");
        push_uint(&mut out, u64::from(self.leg));
        push_key(&mut out, "revision");
        push_uint(&mut out, self.revision);
        out.push_str(",\"history\":[");
        for (i, entry) in self.history.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"color\":");
            push_uint(&mut out, u64::from(u8::from(entry.color)));
            push_key(&mut out, "participant");
            push_uint(&mut out, u64::from(entry.participant));
            push_key(&mut out, "move");
            push_int(&mut out, i64::from(i16::from(entry.mv)));
            if let Some(at_ms) = entry.at_ms {
                push_key(&mut out, "at_ms");
                push_int(&mut out, at_ms);
            }
            out.push('}');
        }
        out.push(']');
        push_key(&mut out, "round_no");
        match self.round_no {
            Some(round) => push_int(&mut out, round),
            None => out.push_str("null"),
        }
        push_key(&mut out, "room_created_at");
        match &self.room_created_at {
            // A string is the one thing here that may need escaping.
            Some(at) => out.push_str(&Value::from(at.as_str()).to_string()),
            None => out.push_str("null"),
        }
        push_key(&mut out, "budget_ms");
        push_uint(&mut out, self.budget_ms);
        out.push('}');
        out
    }

    /// Checks that an answered move is legal here: one of `legal_moves`, or a pass when
    /// there is none.
    pub fn check(&self, mv: Move) -> Result<Move, AnswerError> {
        let legal = match mv {
            Move::Pass => self.legal_moves.is_empty(),
            Move::Place(sq) => self.legal_moves.contains(&sq),
        };
        if legal {
            Ok(mv)
        } else {
            Err(AnswerError::Illegal(mv.name(self.board_size)))
        }
    }
}

/// Appends `,"key":`.
fn push_key(out: &mut String, key: &str) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":");
}

/// Appends an integer in decimal, without going through `core::fmt`, which costs several times
/// as much for the hundreds of small numbers in a request.
fn push_uint(out: &mut String, mut value: u64) {
    // Most numbers in a request are board cells and colours: one digit (so the cast cannot
    // truncate).
    if value < 10 {
        out.push(char::from(b'0' + value as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        // The remainder is below 10, so the cast cannot truncate.
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

/// Appends a signed integer in decimal.
fn push_int(out: &mut String, value: i64) {
    if value < 0 {
        out.push('-');
    }
    push_uint(out, value.unsigned_abs());
}

/// Appends a JSON list of integers.
fn push_list(out: &mut String, items: impl Iterator<Item = u64>) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_uint(out, item);
    }
    out.push(']');
}

/// Why an engine's answer was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The engine wrote an empty line.
    #[error("the engine's answer is empty")]
    Empty,
    /// The line is not JSON.
    #[error("the engine's answer is not JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object.
    #[error("the engine's answer is not a JSON object with a \"move\"")]
    NotAnObject,
    /// The object has no `move`.
    #[error("the engine's answer has no \"move\"")]
    MissingMove,
    /// `move` is neither a number nor a string.
    #[error("the engine's \"move\" must be a square number or a coordinate, not {0}")]
    WrongType(String),
    /// `move` names no square of this board.
    #[error(transparent)]
    Coordinate(#[from] CoordError),
    /// `move` is not legal in the position asked about.
    #[error("the engine chose {0}, which is not a legal move here")]
    Illegal(String),
}

/// Parses one answer line into a move on the variant's board (legality is checked separately
/// with [`EngineRequest::check`]).
pub fn parse_answer(line: &str, variant: Variant) -> Result<Move, AnswerError> {
    let line = line.trim();
    if line.is_empty() {
        return Err(AnswerError::Empty);
    }
    let value: Value =
        serde_json::from_str(line).map_err(|e| AnswerError::NotJson(e.to_string()))?;
    let object = value.as_object().ok_or(AnswerError::NotAnObject)?;
    match object.get("move") {
        None => Err(AnswerError::MissingMove),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(index) => Ok(move_from_index(index, variant)?),
            None => Err(AnswerError::WrongType(format!("the number {n}"))),
        },
        Some(Value::String(text)) => Ok(parse_move(text, variant)?),
        Some(other) => Err(AnswerError::WrongType(kind_of(other).to_owned())),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
