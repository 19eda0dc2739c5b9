//! What readers receive of a match, as typed values: snapshots, summaries, decisions, results,
//! event pages, exports and the events of a bot's stream.
//!
//! The arena produces these and never renders them: the native API, the dialects and the web
//! pages are codecs that turn them into their own formats. Only what a game defines — a leg's
//! view, an event's data — stays JSON, because the arena does not know its type.

use std::sync::Arc;

use arbiter_store::{BotId, BotKind, MatchId, MatchStatus};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Format;
use crate::config::TimeControl;
use crate::live::SeatChoice;

/// A participant as readers see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParticipantSummary {
    /// The bot's id.
    pub id: BotId,
    /// The bot's name.
    pub name: String,
    /// What kind of participant it is.
    pub kind: BotKind,
    /// Its index among the match's participants, where a list of them is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub participant: Option<usize>,
}

/// Where a leg stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LegStatus {
    /// Being played.
    Active,
    /// Ended by the rules.
    Finished,
    /// Ended by a flag falling.
    Timeout,
    /// Stopped because the match ended (a resignation, a disconnection).
    Stopped,
}

impl LegStatus {
    /// Its name, as it is serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            LegStatus::Active => "active",
            LegStatus::Finished => "finished",
            LegStatus::Timeout => "timeout",
            LegStatus::Stopped => "stopped",
        }
    }
}

/// How a leg ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegEndSummary {
    /// Why it ended (the rules' reason, `timeout` or `stopped`).
    pub reason: String,
    /// Each participant's score in the leg, in participant order.
    pub scores: Vec<i64>,
    /// When it ended.
    pub at_ms: i64,
}

/// One leg in a match summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegSummary {
    /// The leg's index.
    pub leg: usize,
    /// Where it stands.
    pub status: LegStatus,
    /// Its revision: the number of actions it has taken.
    pub revision: u64,
    /// The participant to act in a turn; `None` in a simultaneous phase or once it ended.
    pub to_move: Option<usize>,
    /// Each seat's clock at the start of the current period.
    pub clocks_ms: Vec<i64>,
    /// When the current period began.
    pub turn_started_ms: i64,
    /// In a simultaneous phase, the participants still to act.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<Vec<usize>>,
}

/// What an open table adds to a match: its seats, which bots fill until it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSeats {
    /// Always `true`: the match was opened as a table.
    pub table: bool,
    /// The number of seats.
    pub seats: usize,
}

/// A compact summary of a match, for streams and lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// The match.
    pub id: MatchId,
    /// Its status.
    pub status: MatchStatus,
    /// Its game. Not read back from a serialised form: a server reading one that another
    /// server sent names the game as it registered it.
    #[serde(skip_deserializing)]
    pub game: &'static str,
    /// Its variant.
    pub variant: String,
    /// How many legs, and how seats rotate.
    pub format: Format,
    /// Whether it is rated.
    pub rated: bool,
    /// The first participant.
    pub bot_a: ParticipantSummary,
    /// The second participant, if one has taken its seat.
    pub bot_b: Option<ParticipantSummary>,
    /// The time control.
    pub time_control: TimeControl,
    /// When a pending match expires.
    pub expires_ms: Option<i64>,
    /// Its legs.
    pub legs: Vec<LegSummary>,
    /// Its result, once it has one.
    pub result: Option<MatchResult>,
    /// The server's time when the summary was made.
    pub server_now_ms: i64,
    /// Every participant, for a match of more than two or a table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub participants: Option<Vec<ParticipantSummary>>,
    /// A table's seats.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableSeats>,
    /// The seat the challenger (`bot_a`) asked for in the first leg, for doors that show a
    /// pending challenge's colours; not part of the native shapes.
    #[serde(skip)]
    pub challenger_seat: SeatChoice,
}

/// One leg as a reader may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LegSnapshot {
    /// The leg's index.
    pub leg: usize,
    /// Where it stands.
    pub status: LegStatus,
    /// The participant in the leg's first seat.
    pub first_seat_participant: usize,
    /// Its revision: the number of actions it has taken.
    pub revision: u64,
    /// The participant to act in a turn.
    pub to_move: Option<usize>,
    /// Each seat's clock at the start of the current period.
    pub clocks_ms: Vec<i64>,
    /// When the current period began.
    pub turn_started_ms: i64,
    /// The mover's time left now, in a turn.
    pub remaining_ms: Option<i64>,
    /// How it ended.
    pub end: Option<LegEndSummary>,
    /// When each accepted action arrived, in the order the rules' history lists them.
    pub moves_at_ms: Vec<i64>,
    /// The game's view of the leg for this reader: its own seat's, a spectator's, or, once
    /// the match has ended, everything.
    pub view: Value,
    /// In a simultaneous phase, the participants still to act.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<Vec<usize>>,
}

/// A closed match as lists of past matches show it (a bot's history, the recent results).
///
/// It serializes as summaries do: `bot_a` and `bot_b` without their indices, and the list of
/// `participants` only for a match of other than two.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedMatch {
    /// The match.
    pub id: MatchId,
    /// How it closed.
    pub status: MatchStatus,
    /// Its game, as stored: a game the server no longer runs keeps its name.
    pub game: String,
    /// Its variant.
    pub variant: String,
    /// Whether it was rated.
    pub rated: bool,
    /// Every participant, in order, each with its index.
    pub participants: Vec<ParticipantSummary>,
    /// When it was created.
    pub created_ms: i64,
    /// When it ended, where the stored details say.
    pub ended_ms: Option<i64>,
    /// Its result; `None` for a match closed without one, or whose stored result could not
    /// be read.
    pub result: Option<MatchResult>,
}

impl Serialize for ClosedMatch {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        /// A participant named as `bot_a` or `bot_b`, whose place says its index.
        #[derive(Serialize)]
        struct Named<'a> {
            id: BotId,
            name: &'a str,
            kind: BotKind,
        }
        let named = |i: usize| {
            self.participants.get(i).map(|p| Named {
                id: p.id,
                name: &p.name,
                kind: p.kind,
            })
        };
        let listed = self.participants.len() != 2;
        let mut out = serializer.serialize_struct("ClosedMatch", 10 + usize::from(listed))?;
        out.serialize_field("id", &self.id)?;
        out.serialize_field("status", &self.status)?;
        out.serialize_field("game", &self.game)?;
        out.serialize_field("variant", &self.variant)?;
        out.serialize_field("rated", &self.rated)?;
        out.serialize_field("bot_a", &named(0))?;
        out.serialize_field("bot_b", &named(1))?;
        out.serialize_field("created_ms", &self.created_ms)?;
        out.serialize_field("ended_ms", &self.ended_ms)?;
        out.serialize_field("result", &self.result)?;
        if listed {
            out.serialize_field("participants", &self.participants)?;
        }
        out.end()
    }
}

/// A match's whole state as one reader may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSnapshot {
    /// The match.
    pub id: MatchId,
    /// Its status.
    pub status: MatchStatus,
    /// Its game. Not read back from a serialised form: a server reading one that another
    /// server sent names the game as it registered it.
    #[serde(skip_deserializing)]
    pub game: &'static str,
    /// Its variant.
    pub variant: String,
    /// How many legs, and how seats rotate.
    pub format: Format,
    /// Whether it is rated.
    pub rated: bool,
    /// Whether auto-matching made it.
    pub auto: bool,
    /// Whether one bot plays every seat.
    pub self_play: bool,
    /// The time control.
    pub time_control: TimeControl,
    /// Every participant, in order.
    pub participants: Vec<ParticipantSummary>,
    /// When it was created.
    pub created_ms: i64,
    /// When a pending match expires.
    pub expires_ms: Option<i64>,
    /// When it started.
    pub started_ms: Option<i64>,
    /// When it ended.
    pub ended_ms: Option<i64>,
    /// The commitment to its seed, published before the match.
    pub commitment: String,
    /// Its seed, revealed once it has ended (a tournament game's only on its tournament and
    /// in its export, once every game of its round has ended).
    pub seed: Option<String>,
    /// The tournament game it is, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<crate::live::TournamentGame>,
    /// Its legs.
    pub legs: Vec<LegSnapshot>,
    /// Its result, once it has one.
    pub result: Option<MatchResult>,
    /// The sequence number of its last event.
    pub seq: i64,
    /// The server's time when the snapshot was made.
    pub server_now_ms: i64,
    /// A table's seats.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableSeats>,
    /// The participants the reader plays, for a reader with a seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub you: Option<Vec<usize>>,
    /// The reader's pending decisions, for a reader with a seat. Not read back from a
    /// serialised snapshot, which is read through a buffer that cannot keep a decision's
    /// request as the exact text it was: a server relaying a snapshot sends them beside it.
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub turns: Option<Vec<Decision>>,
}

impl MatchSnapshot {
    /// Whether a person (an account or a guest on the web pages) plays in the match.
    pub fn has_person(&self) -> bool {
        self.participants.iter().any(|p| p.kind == BotKind::Human)
    }
}

/// A decision a participant has to make now: the request its seat receives, built by the
/// game's family from that seat's view alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The match.
    pub match_id: MatchId,
    /// The leg.
    pub leg: usize,
    /// The revision the answer must name.
    pub revision: u64,
    /// The participant deciding.
    pub participant: usize,
    /// The request, as compact JSON text: it goes out many times a second, so it is written
    /// once and never parsed again.
    pub request: String,
}

impl<'de> Deserialize<'de> for Decision {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            match_id: MatchId,
            leg: usize,
            revision: u64,
            participant: usize,
            request: Box<RawValue>,
        }
        let raw = Raw::deserialize(deserializer)?;
        Ok(Decision {
            match_id: raw.match_id,
            leg: raw.leg,
            revision: raw.revision,
            participant: raw.participant,
            request: raw.request.get().to_owned(),
        })
    }
}

impl Serialize for Decision {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeStruct as _};
        let request = RawValue::from_string(self.request.clone()).map_err(S::Error::custom)?;
        let mut out = serializer.serialize_struct("Decision", 5)?;
        out.serialize_field("match_id", &self.match_id)?;
        out.serialize_field("leg", &self.leg)?;
        out.serialize_field("revision", &self.revision)?;
        out.serialize_field("participant", &self.participant)?;
        out.serialize_field("request", &request)?;
        out.end()
    }
}

/// A participant's pending decisions in one match, as a long-poll answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionPage {
    /// The match.
    pub match_id: MatchId,
    /// Its status.
    pub status: MatchStatus,
    /// The decisions.
    pub turns: Vec<Decision>,
    /// The server's time.
    pub server_now_ms: i64,
}

/// How a match ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Why it ended: the rules' reason, or `resigned`, `timeout`, `aborted`, `expired`, ….
    pub reason: String,
    /// Who won and by how much, for a match that was played to a finish.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<Ranking>,
    /// The rating change, once a rated match has been rated.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<ResultRatings>,
}

impl MatchResult {
    /// A match closed without being played to a finish.
    pub fn closed(reason: &str) -> MatchResult {
        MatchResult {
            reason: reason.to_owned(),
            ranking: None,
            ratings: None,
        }
    }

    /// The sole winner, if there is one.
    pub fn winner(&self) -> Option<usize> {
        self.ranking.as_ref().and_then(|r| r.winner)
    }
}

/// The standing of every participant in a finished match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranking {
    /// The sole participant ranked first; `None` for a draw or a shared first place.
    pub winner: Option<usize>,
    /// Each participant's score summed over the legs.
    pub totals: Vec<i64>,
    /// Whether the match was rated.
    pub rated: bool,
    /// Each participant's rank (1 is first), in a match of more than two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<Vec<u8>>,
    /// Each participant's team, in a team game decided by one leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<Option<u8>>>,
}

impl Ranking {
    /// Each of `participants`' places, 1 for first: the ranks where the result has them,
    /// else from the winner (the others second), else all first (a draw).
    pub fn places(&self, participants: usize) -> Vec<u8> {
        match (&self.ranks, self.winner) {
            (Some(ranks), _) if ranks.len() == participants => ranks.clone(),
            (_, Some(winner)) => (0..participants)
                .map(|p| if p == winner { 1 } else { 2 })
                .collect(),
            _ => vec![1; participants],
        }
    }
}

/// A rated match's change of ratings, as its result carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRatings {
    /// Always `true`: the ratings were changed.
    pub rating_applied: bool,
    /// Each participant's rating before the match.
    pub rating_before: Vec<f64>,
    /// Each participant's rating after it.
    pub rating_after: Vec<f64>,
}

/// The change of ratings of a rated match, as its `rated` event carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The game mode rated (`game:variant`).
    pub mode: String,
    /// Each participant's rating before the match.
    pub rating_before: Vec<f64>,
    /// Each participant's rating after it.
    pub rating_after: Vec<f64>,
}

/// One event of a match's log, as a reader receives it.
#[derive(Clone, Debug, Serialize)]
pub struct EventView {
    /// Its sequence number in the match.
    pub seq: i64,
    /// When it happened.
    pub at_ms: i64,
    /// What happened.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its data, as the arena or the game wrote it.
    pub data: Box<RawValue>,
}

/// The events of a match a long-poll returns.
#[derive(Clone, Debug, Serialize)]
pub struct EventPage {
    /// The match.
    pub match_id: MatchId,
    /// The sequence number the page starts after.
    pub since: i64,
    /// The sequence number to ask for the next page after.
    pub next_since: i64,
    /// The match's status.
    pub status: MatchStatus,
    /// The events.
    pub events: Vec<EventView>,
}

/// One stored event in an export: every event, with the participant it was for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportedEvent {
    /// Its sequence number in the match.
    pub seq: i64,
    /// When it happened.
    pub at_ms: i64,
    /// What happened.
    #[serde(rename = "type")]
    pub kind: String,
    /// The participant it was for; `None` for an event everyone sees.
    pub audience: Option<usize>,
    /// Its data.
    pub data: Box<RawValue>,
}

/// A match's whole log, for anyone to verify once it has ended (see [`crate::verify`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchExport {
    /// The match.
    pub id: MatchId,
    /// Its game.
    pub game: String,
    /// Its status.
    pub status: MatchStatus,
    /// The first participant's bot.
    pub bot_a: BotId,
    /// The second participant's bot.
    pub bot_b: Option<BotId>,
    /// Every participant's bot, in order.
    pub participants: Vec<BotId>,
    /// The match's stored details (terms, times and result), as stored.
    pub details: Value,
    /// The commitment to its seed.
    pub commitment: String,
    /// Its seed, once it has ended.
    pub seed: Option<String>,
    /// Every event.
    pub events: Vec<ExportedEvent>,
}

/// What a match's announcement on a bot's stream is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Announcement {
    /// A challenge waiting for answers.
    Challenge,
    /// An open table waiting for players.
    Table,
    /// A match that started or changed.
    Match,
    /// A match, challenge or table that closed.
    Finished,
}

/// One event on a bot's stream. Events are shared by every stream they go to.
#[derive(Clone, Debug)]
pub enum StreamEvent {
    /// The stream opened.
    Hello {
        /// The bot.
        bot: BotId,
        /// Its name.
        name: String,
        /// The server's time.
        server_now_ms: i64,
    },
    /// One of the bot's matches changed.
    Match {
        /// What kind of change.
        about: Announcement,
        /// The match, summarised.
        summary: Arc<MatchSummary>,
        /// The match as the bot sees it, for streams that asked for it (see
        /// [`crate::feed::Feeds::subscribe`]).
        snapshot: Option<Arc<MatchSnapshot>>,
    },
    /// The bot has a decision to make.
    Decision {
        /// The decision.
        decision: Arc<Decision>,
        /// The match as the bot sees it, for streams that asked for it.
        snapshot: Option<Arc<MatchSnapshot>>,
    },
}

impl StreamEvent {
    /// The event without the match as the bot sees it, for streams that did not ask for it.
    pub fn without_snapshot(&self) -> StreamEvent {
        match self {
            StreamEvent::Hello { .. } => self.clone(),
            StreamEvent::Match { about, summary, .. } => StreamEvent::Match {
                about: *about,
                summary: summary.clone(),
                snapshot: None,
            },
            StreamEvent::Decision { decision, .. } => StreamEvent::Decision {
                decision: decision.clone(),
                snapshot: None,
            },
        }
    }

    /// The match as the bot saw it when the event happened, for streams that asked for it.
    pub fn snapshot(&self) -> Option<&MatchSnapshot> {
        match self {
            StreamEvent::Hello { .. } => None,
            StreamEvent::Match { snapshot, .. } | StreamEvent::Decision { snapshot, .. } => {
                snapshot.as_deref()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn closed(count: usize) -> ClosedMatch {
        ClosedMatch {
            id: 7,
            status: MatchStatus::Finished,
            game: "cards".to_owned(),
            variant: "short".to_owned(),
            rated: true,
            participants: (0..count)
                .map(|i| ParticipantSummary {
                    id: 10 + i as BotId,
                    name: format!("p{i}"),
                    kind: BotKind::Registered,
                    participant: Some(i),
                })
                .collect(),
            created_ms: 1,
            ended_ms: Some(2),
            result: Some(MatchResult::closed("aborted")),
        }
    }

    #[test]
    fn a_closed_match_lists_its_participants_only_when_not_two() {
        let who = |i: i64| json!({"id": 10 + i, "name": format!("p{i}"), "kind": "registered"});
        let common = |bot_b: Value| {
            json!({"id": 7, "status": "finished", "game": "cards", "variant": "short",
                "rated": true, "bot_a": who(0), "bot_b": bot_b, "created_ms": 1, "ended_ms": 2,
                "result": {"reason": "aborted"}})
        };
        assert_eq!(json!(closed(2)), common(who(1)));
        let mut three = common(who(1));
        three["participants"] = (0..3)
            .map(|i| {
                let mut p = who(i);
                p["participant"] = json!(i);
                p
            })
            .collect();
        assert_eq!(json!(closed(3)), three);
        let mut one = common(Value::Null);
        one["participants"] =
            json!([{"id": 10, "name": "p0", "kind": "registered", "participant": 0}]);
        assert_eq!(json!(closed(1)), one);
    }
}
