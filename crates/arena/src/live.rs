//! One match: its state and its rules of play, as plain functions of the current time.
//!
//! Nothing here waits, reads a clock or writes anything: the actor (`actor.rs`) takes an
//! [`UndoPoint`], calls these functions on the [`Progress`], persists the events they produce,
//! and goes back to the undo point if they cannot be stored. The same functions rebuild a
//! match from its stored events after a restart.
//!
//! This module holds the match's data (its setup, legs and progress); `play` changes it by
//! challenges and actions, `chat` adds what participants say, `results` ends legs and matches, `clocks` acts as time passes, `presence` tracks who is gone,
//! `views` renders decisions, summaries and snapshots, and `replay` rebuilds a match.

use std::sync::Arc;

use arbiter_fair::ServerSeed;
use arbiter_plugin::{
    ClockPolicy, DecisionContext, Family, Format, Language, LegRequest, Opening, SeatView,
};
use arbiter_rules::{
    Ctx, DynState, Emitted, GameError, Outcome, RuleError, ScoreOrder, Seat, SeatOutcome, ToAct,
    Viewer, Visibility,
};
use arbiter_store::{Audience, BotId, BotKind, EventRecord, MatchId, MatchStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ArenaError;
use crate::config::{ArenaConfig, TimeControl};
use crate::directory::{Bot, Presence};
use crate::fairness::{joined_client_seed, stream_client_part};
use crate::log::{Participants, Reader};
use crate::snapshot::{
    Decision, LegEndSummary, LegSnapshot, LegStatus, LegSummary, MatchResult, MatchSnapshot,
    MatchSummary, ParticipantSummary, Ranking, RatingChange, ResultRatings, TableSeats,
};

mod chat;
mod clocks;
mod play;
mod presence;
mod replay;
mod results;
mod views;

pub use chat::{CHAT_MAX_CHARS, CHAT_MAX_LINES, ChatRoom};
pub(crate) use chat::{count_chat_line, say};
pub(crate) use clocks::*;
pub use play::MoveNote;
pub(crate) use play::*;
pub(crate) use presence::*;
pub(crate) use replay::*;
pub(crate) use results::*;
pub(crate) use views::*;

/// Which seat the challenger takes in the first leg (the seats rotate in the legs after it).
/// In most board games the first seat moves first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatChoice {
    /// The first seat, as in every challenge between bots.
    #[default]
    First,
    /// The second seat.
    Second,
    /// Either, drawn from the match seed when the match starts: committed before the match
    /// and revealed after it, so nobody can guess or choose it, and a replay checks it.
    Random,
}

/// What a match was created with; only `rated` may change, once, when a challenge is
/// accepted while a bot reports practice (see [`accept`]), and an open table's `bots` grow
/// as bots join it (see [`join`]).
pub(crate) struct Setup {
    pub(crate) id: MatchId,
    /// The participants, 2 to 8: participant 0 is the challenger (or the table's opener).
    pub(crate) bots: Vec<Bot>,
    /// How many seats the game is played with: the number of participants, once an open
    /// table is full.
    pub(crate) seat_count: usize,
    /// Whether the match was opened as a table that bots join, rather than as a challenge.
    pub(crate) table: bool,
    pub(crate) family: &'static Family,
    pub(crate) variant: String,
    pub(crate) format: Format,
    pub(crate) time_control: TimeControl,
    pub(crate) rated: bool,
    /// Whether auto-matching made the match.
    pub(crate) auto: bool,
    pub(crate) opening: Opening,
    /// The challenger's seat in the first leg.
    pub(crate) seat: SeatChoice,
    pub(crate) created_ms: i64,
    pub(crate) seed: ServerSeed,
    /// Each participant's client seed, in participant order (empty when not given): the
    /// players' entropy, mixed into every draw (see `fairness.rs`).
    pub(crate) client_seeds: Vec<String>,
    pub(crate) config: ArenaConfig,
    /// The terms an open table was opened with beyond its game and clocks.
    pub(crate) terms: TableTerms,
}

/// What an open table may be opened with beyond its game, seats and clocks: how long it
/// waits for its seats, whether its players poll, and keys that claim its seats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableTerms {
    /// How long the table waits for its seats to be taken; the arena's challenge
    /// lifetime when `None`.
    pub wait_ms: Option<i64>,
    /// Whether its players poll instead of holding a stream: then nobody is judged absent
    /// and a missing first move aborts nothing; only the clocks decide.
    pub polled: bool,
    /// Where the legs start; the family's random start when `None`, as for every table.
    pub opening: Option<Opening>,
    /// Whether the match is rated once its seats are taken, if every seat is taken by a
    /// different registered bot (a table is otherwise unrated: who will sit is not known
    /// when it opens).
    pub rated: bool,
    /// The SHA-256 (hex) of each seat's key, by participant: a secret its holder presents
    /// to act for that seat in a door that speaks of seats rather than of bots.
    pub seat_keys: Vec<Option<String>>,
    /// The language the room talks in, which house seats speak in a family that talks.
    pub language: Language,
    /// The tournament game this match is, if it is one.
    pub tournament: Option<TournamentGame>,
    /// Whether the seed stays out of the match's events and snapshots when it ends, because
    /// other matches play from the same seed (a tournament round's) and must not learn it
    /// before they end: whoever sealed it reveals it later, by marking the stored match
    /// `revealed`, and only then do exports carry it.
    pub sealed: bool,
    /// Whether a participant that never makes its first move loses the match by forfeit,
    /// rather than the match being aborted: a game that must have a result (a tournament's).
    pub no_show_forfeits: bool,
}

/// Which tournament game a match is: shown with the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentGame {
    /// The tournament.
    pub tournament: i64,
    /// Its round (from 0; in an arena tournament, its wave of pairings).
    pub round: u32,
}

impl TableTerms {
    /// The terms a tournament game keeps in its stored details (its tournament, whether it is
    /// sealed and whether a missing first move forfeits), the rest left as by default.
    pub(crate) fn sealed_from(details: &Value) -> TableTerms {
        TableTerms {
            tournament: serde_json::from_value(details["tournament"].clone()).ok(),
            sealed: details["sealed"].as_bool().unwrap_or(false),
            no_show_forfeits: details["no_show_forfeits"].as_bool().unwrap_or(false),
            ..TableTerms::default()
        }
    }

    /// Whether a stored match's seed may be shown once it has ended: it was never sealed,
    /// or whoever sealed it has revealed it since.
    pub(crate) fn seed_shown(details: &Value) -> bool {
        !details["sealed"].as_bool().unwrap_or(false)
            || details["revealed"].as_bool().unwrap_or(false)
    }

    /// The participant whose seat key hashes to `hash`, compared in constant time.
    pub(crate) fn holder(&self, hash: &str) -> Option<usize> {
        let mut found = None;
        for (participant, key) in self.seat_keys.iter().enumerate() {
            if let Some(key) = key
                && crate::token::hashes_match(key, hash)
            {
                found = Some(participant);
            }
        }
        found
    }
}

impl Setup {
    /// Whether one bot plays every seat (an open table's free seats are nobody's yet).
    pub(crate) fn self_play(&self) -> bool {
        self.bots.len() == self.seat_count && self.bots.iter().all(|bot| bot.id == self.bots[0].id)
    }

    /// How many seats (and, once it starts, participants) the match has.
    pub(crate) fn seats(&self) -> usize {
        self.seat_count
    }

    /// Whether seats are still free: an open table that is not yet full.
    pub(crate) fn seats_free(&self) -> usize {
        self.seat_count.saturating_sub(self.bots.len())
    }

    pub(crate) fn is_house(&self, participant: usize) -> bool {
        self.bots
            .get(participant)
            .is_some_and(|bot| bot.kind == BotKind::House)
    }

    /// Whether a person plays this side from the web pages.
    pub(crate) fn is_human(&self, participant: usize) -> bool {
        self.bots
            .get(participant)
            .is_some_and(|bot| bot.kind == BotKind::Human)
    }

    /// Whether a person plays in the match: then the server plays forced passes, as a game
    /// room does, and the presence rules that judge bots do not apply to the person.
    pub(crate) fn has_human(&self) -> bool {
        (0..self.seats()).any(|p| self.is_human(p))
    }

    /// The participants `bot` plays (several in self-play).
    pub(crate) fn participants_of(&self, bot: BotId) -> Participants {
        let ids: Vec<BotId> = self.bots.iter().map(|b| b.id).collect();
        Participants::of(&ids, &bot)
    }

    /// The participant in the first seat of the first leg, for the match started by event
    /// `nonce`. A random seat is drawn from a stream of its own, so that it never shifts what
    /// the rules draw for the opening.
    fn first_seat_participant(&self, nonce: i64) -> usize {
        match self.seat {
            SeatChoice::First => 0,
            SeatChoice::Second => 1,
            SeatChoice::Random => {
                let mut rng = self.labelled_rng("seat", nonce);
                let seats = u32::try_from(self.seats()).unwrap_or(2);
                usize::try_from(arbiter_rules::random::below(&mut rng, seats)).unwrap_or(0)
            }
        }
    }

    /// The generator for the command producing event `nonce`; derived only if the rules draw.
    fn rng(&self, nonce: i64) -> LazyStream<'_> {
        self.labelled_rng("", nonce)
    }

    /// A generator of its own for one purpose within a command (`label` goes with the
    /// client seeds in the derivation), so that what one purpose draws never shifts another's
    /// stream: a replay that skips one still reproduces the other.
    fn labelled_rng(&self, label: &'static str, nonce: i64) -> LazyStream<'_> {
        LazyStream {
            seed: &self.seed,
            client_seeds: &self.client_seeds,
            label,
            nonce: u64::try_from(nonce).unwrap_or(0),
            stream: None,
        }
    }

    /// The rules' context for a command at `now_ms`: its random stream and the match's
    /// public rolls.
    fn ctx<'a>(&'a self, now_ms: i64, rng: &'a mut dyn arbiter_rules::Random) -> Ctx<'a> {
        Ctx::new(u64::try_from(now_ms).unwrap_or(0), rng).with_dice(self)
    }

    /// Records `participant`'s client seed, given with its challenge, acceptance or seat.
    pub(crate) fn set_client_seed(&mut self, participant: usize, seed: String) {
        if self.client_seeds.len() < self.seats() {
            self.client_seeds.resize(self.seats(), String::new());
        }
        if let Some(slot) = self.client_seeds.get_mut(participant) {
            *slot = seed;
        }
    }

    /// The match row's details, as stored.
    pub(crate) fn details(&self, progress: &Progress) -> Value {
        let mut details = json!({
            "variant": self.variant,
            "format": self.format,
            "time_control": self.time_control,
            "rated": self.rated,
            "auto": self.auto,
            "opening": self.opening,
            "seat": self.seat,
            "commitment": self.seed.commitment().as_hex(),
            "expires_ms": progress.expires_ms,
            "started_ms": progress.started_ms,
            "ended_ms": progress.ended_ms,
            "result": progress.result,
        });
        if self.table {
            details["table"] = json!(true);
            details["seats"] = json!(self.seat_count);
        }
        if let Some(wait_ms) = self.terms.wait_ms {
            details["wait_ms"] = json!(wait_ms);
        }
        if self.terms.rated {
            details["rated_if_registered"] = json!(true);
        }
        if self.terms.polled {
            details["polled"] = json!(true);
        }
        if self.terms.seat_keys.iter().any(Option::is_some) {
            details["seat_keys"] = json!(self.terms.seat_keys);
        }
        if self.client_seeds.iter().any(|seed| !seed.is_empty()) {
            details["client_seeds"] = json!(self.client_seeds);
        }
        // Only a room that talks in another language than the default stores it, so that
        // every other match's details stay as they were.
        if self.terms.language != Language::default() {
            details["language"] = json!(self.terms.language);
        }
        if let Some(game) = self.terms.tournament {
            details["tournament"] = json!(game);
        }
        if self.terms.sealed {
            details["sealed"] = json!(true);
        }
        if self.terms.no_show_forfeits {
            details["no_show_forfeits"] = json!(true);
        }
        details
    }
}

/// A match's public rolls: its server seed with its participants' client seeds.
impl arbiter_rules::Dice for Setup {
    fn roll(&self, nonce: u64, sides: u8, count: usize) -> Vec<u8> {
        crate::fairness::roll(&self.seed, &self.client_seeds, nonce, sides, count)
    }
}

/// A match's random stream for one command, derived from the seed on first use: most moves
/// draw nothing, and deriving costs an HMAC.
pub(crate) struct LazyStream<'a> {
    seed: &'a ServerSeed,
    client_seeds: &'a [String],
    label: &'static str,
    nonce: u64,
    stream: Option<arbiter_fair::Stream>,
}

impl arbiter_rules::Random for LazyStream<'_> {
    fn next_u32(&mut self) -> u32 {
        let (seed, nonce) = (self.seed, self.nonce);
        let (client_seeds, label) = (self.client_seeds, self.label);
        rand::Rng::next_u32(
            self.stream.get_or_insert_with(|| {
                seed.stream(&stream_client_part(client_seeds, label), nonce)
            }),
        )
    }
}

/// How a leg ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LegEnd {
    pub(crate) reason: String,
    /// Per participant.
    pub(crate) scores: Vec<i64>,
    /// Per participant, from the rules' outcome: 1 for the best, shared by ties.
    pub(crate) ranks: Vec<u8>,
    /// Per participant, its team in a team game (`None` where every seat plays for itself).
    pub(crate) teams: Vec<Option<u8>>,
    /// When it ended.
    pub(crate) at_ms: i64,
}

/// A move as accepted, kept to answer a repeated submission with the original result.
#[derive(Clone, Debug)]
pub(crate) struct Accepted {
    participant: usize,
    /// Whether it was taken in a simultaneous phase.
    simultaneous: bool,
    /// Shared, because every step copies the match's progress with all its moves.
    action: Arc<Value>,
    at_ms: i64,
    reply: MoveReply,
}

/// What a client is told when its move is accepted (again, if it repeats the move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveReply {
    /// The match.
    pub match_id: MatchId,
    /// The leg the move was played in.
    pub leg: usize,
    /// The leg's revision after the move.
    pub revision: u64,
    /// The move's event in the match log.
    pub seq: i64,
    /// `running` or `finished`.
    pub leg_status: LegStatus,
    /// The match's status after the move.
    pub status: MatchStatus,
}

/// One board.
#[derive(Clone, Debug)]
pub(crate) struct Leg {
    pub(crate) state: Box<dyn DynState>,
    /// The participant in the first seat; the seats rotate from leg to leg.
    pub(crate) first_seat_participant: usize,
    /// Remaining time per seat at the start of the current turn (one entry per seat).
    pub(crate) clocks_ms: Vec<i64>,
    /// When the pending decisions began: the turn (the first action of a turn of several
    /// under a per-turn clock) or the simultaneous phase.
    pub(crate) turn_started_ms: i64,
    /// The revision at which the pending decisions began: a simultaneous phase's decisions
    /// are announced once, at the phase's first revision, however many seats act in it.
    pub(crate) period_revision: u64,
    pub(crate) revision: u64,
    pub(crate) ended: Option<LegEnd>,
    pub(crate) moves: Vec<Accepted>,
    pub(crate) warned: bool,
    pub(crate) score_order: ScoreOrder,
}

impl Leg {
    fn seats(&self) -> usize {
        self.clocks_ms.len()
    }

    pub(crate) fn participant_of(&self, seat: Seat) -> usize {
        (seat.index() + self.first_seat_participant) % self.seats().max(1)
    }

    pub(crate) fn seat_of(&self, participant: usize) -> Seat {
        let seats = self.seats().max(1);
        let seat = (participant + seats - self.first_seat_participant % seats) % seats;
        Seat(u8::try_from(seat).unwrap_or(0))
    }

    /// Every pending decision, as (seat, participant): the mover in a turn, every pending
    /// seat in a simultaneous phase.
    pub(crate) fn pending(&self) -> Vec<(Seat, usize)> {
        if self.ended.is_some() {
            return Vec::new();
        }
        match self.state.to_act() {
            ToAct::Turn { seat } => vec![(seat, self.participant_of(seat))],
            ToAct::Simultaneous { pending, .. } => pending
                .iter()
                .map(|seat| (seat, self.participant_of(seat)))
                .collect(),
            ToAct::Nobody => Vec::new(),
        }
    }

    /// The revision the pending decisions are announced at: a turn's is the leg's current
    /// revision; a simultaneous phase's decisions are the phase's, announced once.
    pub(crate) fn decision_revision(&self) -> u64 {
        if self.phase().is_some() {
            self.period_revision
        } else {
            self.revision
        }
    }

    /// The simultaneous phase under way, if any.
    fn phase(&self) -> Option<u32> {
        match self.state.to_act() {
            ToAct::Simultaneous { phase, .. } => Some(phase),
            ToAct::Turn { .. } | ToAct::Nobody => None,
        }
    }

    /// The seat to move and its participant, while the leg runs a turn-based game.
    pub(crate) fn mover(&self) -> Option<(Seat, usize)> {
        if self.ended.is_some() {
            return None;
        }
        match self.state.to_act() {
            ToAct::Turn { seat } => Some((seat, self.participant_of(seat))),
            ToAct::Nobody | ToAct::Simultaneous { .. } => None,
        }
    }

    /// The mover's clock at `now_ms`.
    pub(crate) fn remaining_ms(&self, seat: Seat, now_ms: i64) -> i64 {
        self.clocks_ms[seat.index()] - (now_ms - self.turn_started_ms)
    }

    /// How long `seat` has for its pending decision at `now_ms`: its running clock in a turn,
    /// and until the rules' deadline in a simultaneous phase.
    pub(crate) fn time_left(&self, seat: Seat, now_ms: i64) -> i64 {
        let left = match (self.phase(), self.state.deadline()) {
            (Some(_), Some(at)) => i64::try_from(at).unwrap_or(i64::MAX) - now_ms,
            (Some(_), None) => self.clocks_ms[seat.index()],
            (None, _) => self.remaining_ms(seat, now_ms),
        };
        left.max(0)
    }

    /// How long one decision of `seat` may take, from what is left to it at `now_ms`: in a
    /// simultaneous phase bounded by the rules' deadline the phase is this one decision, and
    /// half of what is left of it keeps a margin for the decision to arrive; otherwise
    /// `clock_share` shares what is left of the seat's clock among the rest of its game.
    pub(crate) fn decision_share_ms(
        &self,
        seat: Seat,
        now_ms: i64,
        clock_share: impl FnOnce(i64) -> i64,
    ) -> i64 {
        let left = self.time_left(seat, now_ms);
        match (self.phase(), self.state.deadline()) {
            (Some(_), Some(_)) => left / 2,
            _ => clock_share(left).clamp(0, left),
        }
    }

    fn status(&self) -> LegStatus {
        match &self.ended {
            None => LegStatus::Active,
            Some(end) if end.reason == "timeout" => LegStatus::Timeout,
            Some(end) if end.reason == "stopped" => LegStatus::Stopped,
            Some(_) => LegStatus::Finished,
        }
    }

    /// Each participant's part of `outcome`, as `part` reads it from its seat's.
    fn by_participant<T: Clone>(
        &self,
        outcome: &Outcome,
        missing: T,
        part: impl Fn(&SeatOutcome) -> T,
    ) -> Vec<T> {
        let mut parts = vec![missing; self.seats()];
        for (seat, result) in outcome.seats.iter().enumerate().take(self.seats()) {
            parts[self.participant_of(Seat(u8::try_from(seat).unwrap_or(0)))] = part(result);
        }
        parts
    }

    /// How a leg ended for each participant, from the rules' `outcome`.
    fn end(&self, reason: &str, outcome: &Outcome, at_ms: i64) -> LegEnd {
        LegEnd {
            reason: reason.to_owned(),
            scores: self.by_participant(outcome, 0, |s| s.score),
            ranks: self.by_participant(outcome, 1, |s| s.rank),
            teams: self.by_participant(outcome, None, |s| s.team),
            at_ms,
        }
    }
}

/// Everything about a match that changes.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    pub(crate) status: MatchStatus,
    pub(crate) expires_ms: i64,
    pub(crate) started_ms: Option<i64>,
    pub(crate) ended_ms: Option<i64>,
    pub(crate) legs: Vec<Leg>,
    /// When each participant's first turn began.
    first_turn_at: Vec<Option<i64>>,
    /// Whether each participant has moved.
    moved: Vec<bool>,
    /// How many chat lines each participant has said.
    chat_lines: Vec<usize>,
    /// Since when each participant has been gone while another was connected.
    absent_since: Vec<Option<i64>>,
    /// When each participant was last seen gone.
    seen_gone_at: Vec<Option<i64>>,
    /// The invited participants who have accepted the challenge.
    accepted: Participants,
    /// The participants who left a match of more than two that played on without them.
    pub(crate) gone: Participants,
    /// Absence is counted from this time at the earliest: the match's start, or the moment
    /// it was resumed after a restart (when nobody could have been connected).
    pub(crate) watch_from_ms: i64,
    pub(crate) result: Option<MatchResult>,
    pub(crate) seq: i64,
    /// Events produced by the current step and not yet stored.
    pub(crate) fresh: Vec<EventRecord>,
    /// Whether the match row changed in the current step.
    pub(crate) row_changed: bool,
}

/// The state of a match before a step, to go back to if the step's events cannot be stored.
pub(crate) struct UndoPoint {
    /// The progress with every leg's accepted moves left out.
    progress: Progress,
    /// How many accepted moves each leg had.
    moves: Vec<usize>,
}

impl UndoPoint {
    /// The match's status at this point.
    pub(crate) fn status(&self) -> MatchStatus {
        self.progress.status
    }
}

impl Progress {
    /// Remembers the current state so that [`Progress::undo`] can restore it.
    ///
    /// Every step copied the whole progress before; most of that copy was the accepted moves
    /// of both legs, which a step only appends to (and a leg is only ever built where there
    /// was none), so the point leaves them out and undoing cuts them back to their length.
    pub(crate) fn undo_point(&mut self) -> UndoPoint {
        let moves: Vec<Vec<Accepted>> = self
            .legs
            .iter_mut()
            .map(|leg| std::mem::take(&mut leg.moves))
            .collect();
        let progress = self.clone();
        for (leg, moves) in self.legs.iter_mut().zip(moves) {
            leg.moves = moves;
        }
        UndoPoint {
            progress,
            moves: self.legs.iter().map(|leg| leg.moves.len()).collect(),
        }
    }

    /// Goes back to `point`, taken from this progress before the changes to undo.
    pub(crate) fn undo(&mut self, point: UndoPoint) {
        let UndoPoint {
            mut progress,
            moves,
        } = point;
        for ((before, now), count) in progress.legs.iter_mut().zip(&mut self.legs).zip(moves) {
            now.moves.truncate(count);
            before.moves = std::mem::take(&mut now.moves);
        }
        *self = progress;
    }

    fn emit(
        &mut self,
        setup: &Setup,
        at_ms: i64,
        audience: Audience,
        kind: &str,
        payload: impl Serialize,
    ) -> i64 {
        self.seq += 1;
        self.fresh.push(EventRecord {
            match_id: setup.id,
            seq: self.seq,
            at_ms,
            audience,
            kind: kind.to_owned(),
            payload: EventRecord::payload_of(&payload),
        });
        self.seq
    }

    fn set_status(&mut self, status: MatchStatus) {
        self.status = status;
        self.row_changed = true;
    }

    /// Whether the match can change any more.
    pub(crate) fn is_open(&self) -> bool {
        self.status.is_open()
    }
}

#[cfg(test)]
mod tests;
