//! One match: its state and its rules of play, as plain functions of the current time.
//!
//! Nothing here waits, reads a clock or writes anything: the actor (`actor.rs`) takes an
//! [`UndoPoint`], calls these functions on the [`Progress`], persists the events they produce,
//! and goes back to the undo point if they cannot be stored. The same functions rebuild a
//! match from its stored events after a restart.

use std::sync::Arc;

use arbiter_fair::ServerSeed;
use arbiter_rules::{
    Ctx, DynState, Emitted, GameError, Outcome, RuleError, ScoreOrder, Seat, ToAct, Viewer,
    Visibility,
};
use arbiter_store::{Audience, BotId, BotKind, EventRecord, MatchId, MatchStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use arbiter_plugin::{ClockPolicy, DecisionContext, Family, Format, LegRequest, Opening, SeatView};

use crate::ArenaError;
use crate::config::{ArenaConfig, TimeControl};
use crate::directory::{Bot, Presence};
use crate::log::{Participants, Reader};

/// Which seat the challenger takes in the first leg (the legs after it alternate). In
/// Othello the first seat is Black, who moves first.
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
/// accepted while a bot reports practice (see [`accept`]).
pub(crate) struct Setup {
    pub(crate) id: MatchId,
    /// The participants, 2 to 8: participant 0 is the challenger.
    pub(crate) bots: Vec<Bot>,
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
    pub(crate) config: ArenaConfig,
}

impl Setup {
    /// Whether one bot plays every seat.
    pub(crate) fn self_play(&self) -> bool {
        self.bots.iter().all(|bot| bot.id == self.bots[0].id)
    }

    /// How many participants (and seats) the match has.
    pub(crate) fn seats(&self) -> usize {
        self.bots.len()
    }

    fn is_house(&self, participant: usize) -> bool {
        self.bots[participant].kind == BotKind::House
    }

    /// Whether a person plays this side from the web pages.
    pub(crate) fn is_human(&self, participant: usize) -> bool {
        self.bots[participant].kind == BotKind::Human
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

    /// A generator of its own for one purpose within a command (`label` goes where client
    /// seeds go in the derivation), so that what one purpose draws never shifts another's
    /// stream: a replay that skips one still reproduces the other.
    fn labelled_rng(&self, label: &'static str, nonce: i64) -> LazyStream<'_> {
        LazyStream {
            seed: &self.seed,
            label,
            nonce: u64::try_from(nonce).unwrap_or(0),
            stream: None,
        }
    }

    /// The match row's details, as stored.
    pub(crate) fn details(&self, progress: &Progress) -> Value {
        json!({
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
        })
    }
}

/// A match's random stream for one command, derived from the seed on first use: most moves
/// draw nothing, and deriving costs an HMAC.
pub(crate) struct LazyStream<'a> {
    seed: &'a ServerSeed,
    label: &'static str,
    nonce: u64,
    stream: Option<arbiter_fair::Stream>,
}

impl arbiter_rules::Random for LazyStream<'_> {
    fn next_u32(&mut self) -> u32 {
        let (seed, label, nonce) = (self.seed, self.label, self.nonce);
        rand::Rng::next_u32(self.stream.get_or_insert_with(|| seed.stream(label, nonce)))
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
    pub leg_status: &'static str,
    /// The match's status after the move.
    pub status: MatchStatus,
}

/// The payload of a `move` event, written without building a `Value`: one is stored for
/// every move. The fields are in alphabetical order, the order of every other payload's keys.
#[derive(Clone, Copy, Serialize)]
struct MovePayload<'a> {
    /// The action; left out of the public `acted` event that stands for a secret one.
    #[serde(skip_serializing_if = "Value::is_null")]
    action: &'a Value,
    clocks_ms: &'a [i64],
    events: &'a [Value],
    /// Set only for a free action, which moves no clock and no revision.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    free: bool,
    leg: usize,
    participant: usize,
    revision: u64,
    seat: u8,
    turn_started_ms: i64,
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

    fn participant_of(&self, seat: Seat) -> usize {
        (seat.index() + self.first_seat_participant) % self.seats().max(1)
    }

    fn seat_of(&self, participant: usize) -> Seat {
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
    fn remaining_ms(&self, seat: Seat, now_ms: i64) -> i64 {
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

    fn status(&self) -> &'static str {
        match &self.ended {
            None => "active",
            Some(end) if end.reason == "timeout" => "timeout",
            Some(end) if end.reason == "stopped" => "stopped",
            Some(_) => "finished",
        }
    }

    /// Each participant's rank in `outcome`.
    fn ranks_by_participant(&self, outcome: &Outcome) -> Vec<u8> {
        let mut ranks = vec![1; self.seats()];
        for (seat, result) in outcome.seats.iter().enumerate().take(self.seats()) {
            ranks[self.participant_of(Seat(u8::try_from(seat).unwrap_or(0)))] = result.rank;
        }
        ranks
    }

    fn scores_by_participant(&self, outcome: &Outcome) -> Vec<i64> {
        let mut scores = vec![0; self.seats()];
        for (seat, result) in outcome.seats.iter().enumerate().take(self.seats()) {
            scores[self.participant_of(Seat(u8::try_from(seat).unwrap_or(0)))] = result.score;
        }
        scores
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
    /// Since when each participant has been gone while another was connected.
    absent_since: Vec<Option<i64>>,
    /// When each participant was last seen gone.
    seen_gone_at: Vec<Option<i64>>,
    /// The invited participants who have accepted the challenge.
    accepted: Participants,
    /// Absence is counted from this time at the earliest: the match's start, or the moment
    /// it was resumed after a restart (when nobody could have been connected).
    pub(crate) watch_from_ms: i64,
    pub(crate) result: Option<Value>,
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

/// A new challenge, with its first event.
pub(crate) fn challenge(setup: &Setup, now_ms: i64) -> Progress {
    let mut progress = Progress {
        status: MatchStatus::Pending,
        expires_ms: now_ms + setup.config.challenge_ttl_ms,
        started_ms: None,
        ended_ms: None,
        legs: Vec::new(),
        first_turn_at: vec![None; setup.seats()],
        moved: vec![false; setup.seats()],
        absent_since: vec![None; setup.seats()],
        seen_gone_at: vec![None; setup.seats()],
        accepted: Participants::NONE,
        watch_from_ms: now_ms,
        result: None,
        seq: 0,
        fresh: Vec::new(),
        row_changed: true,
    };
    let mut payload = json!({
        "bot_a": bot_summary(&setup.bots[0]),
        "bot_b": bot_summary(&setup.bots[1]),
        "game": setup.family.id(),
        "variant": setup.variant,
        "format": setup.format,
        "time_control": setup.time_control,
        "rated": setup.rated,
        "commitment": setup.seed.commitment().as_hex(),
        "expires_ms": progress.expires_ms,
    });
    if setup.seats() > 2 {
        payload["participants"] = participants_json(setup);
    }
    progress.emit(setup, now_ms, Audience::Everyone, "challenge", payload);
    progress
}

fn bot_summary(bot: &Bot) -> Value {
    json!({"id": bot.id, "name": bot.name, "kind": bot.kind})
}

/// Every participant, with its index.
fn participants_json(setup: &Setup) -> Value {
    setup
        .bots
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut s = bot_summary(b);
            s["participant"] = json!(i);
            s
        })
        .collect()
}

/// Accepts a pending challenge for every participant `bot` plays but the challenger, and
/// starts the match once every invited participant has accepted.
///
/// `practice` says that either bot reports practice now: the match is then unrated whatever
/// the challenge asked, because a bot may start practising after it was challenged. The
/// `accepted` event records the change and the match row stores it (replays read `rated` from
/// the row). The caller restores `setup.rated` if this fails or cannot be stored.
pub(crate) fn accept(
    setup: &mut Setup,
    progress: &mut Progress,
    bot: BotId,
    practice: bool,
    now_ms: i64,
) -> Result<(), ArenaError> {
    if progress.status != MatchStatus::Pending {
        return Err(ArenaError::ChallengeNotPending);
    }
    let invited = setup
        .participants_of(bot)
        .iter(setup.seats())
        .filter(|&p| p > 0);
    let invited: Vec<usize> = invited.collect();
    if invited.is_empty() {
        return Err(ArenaError::NotYourChallenge("the challenged bot"));
    }
    let mut payload = if practice && setup.rated {
        setup.rated = false;
        json!({"rated": false, "unrated_because": "practice"})
    } else {
        json!({})
    };
    for &p in &invited {
        progress.accepted = progress.accepted.with(p);
    }
    if setup.seats() > 2 {
        payload["by"] = json!(invited);
    }
    progress.emit(setup, now_ms, Audience::Everyone, "accepted", payload);
    if (1..setup.seats()).all(|p| progress.accepted.contains(p)) {
        start(setup, progress, now_ms)
    } else {
        Ok(())
    }
}

/// Starts the legs: draws the opening from the match seed and sets the clocks.
pub(crate) fn start(setup: &Setup, progress: &mut Progress, now_ms: i64) -> Result<(), ArenaError> {
    let nonce = progress.seq + 1;
    let seats = setup.seats();
    let configs = setup
        .family
        .setup
        .leg_configs(
            &LegRequest {
                variant: &setup.variant,
                seats,
                legs: setup.format.legs(seats),
                opening: setup.opening,
            },
            &mut setup.rng(nonce),
        )
        .map_err(ArenaError::from)?;
    let legs = build_legs(
        setup,
        &configs,
        &mut setup.labelled_rng("legs", nonce),
        setup.first_seat_participant(nonce),
        now_ms,
    )?;
    let payload = json!({
        "started_ms": now_ms,
        "legs": configs.iter().zip(&legs).enumerate().map(|(i, (config, leg))| json!({
            "leg": i,
            "first_seat_participant": leg.first_seat_participant,
            "config": config,
            "clocks_ms": leg.clocks_ms,
        })).collect::<Vec<_>>(),
    });
    progress.legs = legs;
    progress.started_ms = Some(now_ms);
    progress.watch_from_ms = now_ms;
    progress.set_status(MatchStatus::Running);
    note_first_turns(progress, now_ms);
    progress.emit(setup, now_ms, Audience::Everyone, "started", payload);
    Ok(())
}

/// The legs from their configurations, `first` in the first seat of the first leg and the
/// seats swapped in each leg after it.
fn build_legs(
    setup: &Setup,
    configs: &[Value],
    rng: &mut LazyStream<'_>,
    first: usize,
    now_ms: i64,
) -> Result<Vec<Leg>, ArenaError> {
    configs
        .iter()
        .enumerate()
        .map(|(i, config)| {
            let (state, _) = setup
                .family
                .rules
                .start(
                    config,
                    &mut Ctx::new(u64::try_from(now_ms).unwrap_or(0), rng),
                )
                .map_err(|e| ArenaError::InvalidRequest(e.to_string()))?;
            let initial = setup.time_control.initial_ms;
            Ok(Leg {
                state,
                first_seat_participant: (first + i) % setup.seats(),
                clocks_ms: vec![initial; setup.seats()],
                turn_started_ms: now_ms,
                period_revision: 0,
                revision: 0,
                ended: None,
                moves: Vec::new(),
                warned: false,
                score_order: ScoreOrder::HigherIsBetter,
            })
        })
        .collect()
}

fn note_first_turns(progress: &mut Progress, now_ms: i64) {
    let movers: Vec<usize> = progress
        .legs
        .iter()
        .flat_map(|leg| leg.pending().into_iter().map(|(_, p)| p))
        .collect();
    for participant in movers {
        progress.first_turn_at[participant].get_or_insert(now_ms);
    }
}

/// Declines (by the challenged bot) or cancels (by the challenger) a pending challenge.
pub(crate) fn decline(
    setup: &Setup,
    progress: &mut Progress,
    bot: BotId,
    cancel: bool,
    now_ms: i64,
) -> Result<(), ArenaError> {
    if progress.status != MatchStatus::Pending {
        return Err(ArenaError::ChallengeNotPending);
    }
    let kind = if cancel { "cancelled" } else { "rejected" };
    let mine = setup.participants_of(bot);
    let allowed = if cancel {
        mine.contains(0)
    } else {
        mine.iter(setup.seats()).any(|p| p > 0)
    };
    if !allowed {
        return Err(ArenaError::NotYourChallenge(if cancel {
            "the challenger"
        } else {
            "the challenged bot"
        }));
    }
    close(setup, progress, MatchStatus::Rejected, kind, now_ms);
    Ok(())
}

fn close(setup: &Setup, progress: &mut Progress, status: MatchStatus, reason: &str, now_ms: i64) {
    progress.set_status(status);
    progress.ended_ms = Some(now_ms);
    progress.result = Some(json!({"reason": reason}));
    let payload = json!({"reason": reason, "seed": setup.seed.reveal()});
    let kind = match status {
        MatchStatus::Aborted => "aborted",
        MatchStatus::Expired => "expired",
        _ => reason,
    };
    progress.emit(setup, now_ms, Audience::Everyone, kind, payload);
}

/// Plays a move submitted by `bot`. Returns the reply for the client; a repeat of an accepted
/// move returns the original reply and changes nothing.
pub(crate) fn submit(
    setup: &Setup,
    progress: &mut Progress,
    bot: BotId,
    leg_index: u8,
    revision: u64,
    submitted: &Value,
    now_ms: i64,
) -> Result<MoveReply, ArenaError> {
    submit_as(
        setup,
        progress,
        setup.participants_of(bot),
        leg_index,
        revision,
        submitted,
        now_ms,
    )
}

/// Plays a move submitted for one of the participants in `mine`, as [`submit`] does.
pub(crate) fn submit_as(
    setup: &Setup,
    progress: &mut Progress,
    mine: Participants,
    leg_index: u8,
    revision: u64,
    submitted: &Value,
    now_ms: i64,
) -> Result<MoveReply, ArenaError> {
    if mine.is_empty() {
        return Err(ArenaError::NotParticipant);
    }
    if progress.status != MatchStatus::Running {
        return Err(ArenaError::MatchNotRunning);
    }
    let leg = progress
        .legs
        .get(usize::from(leg_index))
        .ok_or(ArenaError::NoSuchLeg(leg_index))?;
    // A repeat of an accepted action gets the original reply: the action accepted at the
    // revision it names, or, in a simultaneous phase, where several seats act on the same
    // announced revision, any later one of its seats' in that phase.
    if let Some(since) = usize::try_from(revision)
        .ok()
        .and_then(|r| leg.moves.get(r..))
        .filter(|since| !since.is_empty())
        && let Ok(action) = setup.family.codec.parse(leg.state.as_ref(), submitted)
    {
        let repeated = since
            .iter()
            .enumerate()
            .take_while(|(i, m)| *i == 0 || m.simultaneous)
            .find(|(_, m)| mine.contains(m.participant) && *m.action == action);
        if let Some((_, earlier)) = repeated {
            return Ok(earlier.reply);
        }
    }
    if leg.ended.is_some() {
        return Err(ArenaError::LegFinished(leg_index));
    }
    let action = setup.family.codec.parse(leg.state.as_ref(), submitted)?;
    if leg.state.is_free(&action) {
        // A free action (chat, a claim) is taken from any seat of the bot's, whoever must
        // decide now, and moves no clock, deadline or revision.
        let mover = mine.iter(setup.seats()).next().unwrap_or(0);
        let seat = leg.seat_of(mover);
        return play_free(
            setup,
            progress,
            usize::from(leg_index),
            seat,
            mover,
            action,
            now_ms,
        );
    }
    let (seat, mover) = match leg.state.to_act() {
        ToAct::Turn { seat } => {
            if revision != leg.revision {
                return Err(ArenaError::StaleRevision {
                    given: revision,
                    current: leg.revision,
                });
            }
            (seat, leg.participant_of(seat))
        }
        // In a simultaneous phase every pending seat may act, in any order, so the leg's
        // revision moves under them; the action names its phase, and the rules refuse input
        // for another phase.
        ToAct::Simultaneous { pending, .. } => {
            let mover = mine
                .iter(setup.seats())
                .find(|&p| pending.contains(leg.seat_of(p)))
                .ok_or(ArenaError::NotYourTurn)?;
            (leg.seat_of(mover), mover)
        }
        ToAct::Nobody => return Err(ArenaError::LegFinished(leg_index)),
    };
    if !mine.contains(mover) {
        return Err(ArenaError::NotYourTurn);
    }
    let reply = play(
        setup,
        progress,
        usize::from(leg_index),
        seat,
        mover,
        action,
        now_ms,
    )?;
    if setup.has_human() {
        play_forced_passes(setup, progress, usize::from(leg_index), now_ms)?;
    }
    Ok(reply)
}

/// Passes for whoever is to move in the leg while a pass is all they can do (in a match with
/// a person, the server passes, as a game room does). Each pass is an ordinary stored move,
/// so replays need no rule of their own.
fn play_forced_passes(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    now_ms: i64,
) -> Result<(), ArenaError> {
    // A pass hands the move over; two in a row end an Othello game, so this stops at once.
    for _ in 0..4 {
        let leg = &progress.legs[leg_index];
        let Some((seat, mover)) = leg.mover().filter(|_| leg.ended.is_none()) else {
            return Ok(());
        };
        let Some(pass) = setup.family.codec.forced_action(leg.state.as_ref(), seat) else {
            return Ok(());
        };
        play(setup, progress, leg_index, seat, mover, pass, now_ms)?;
    }
    Ok(())
}

/// Applies a checked move.
fn play(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    seat: Seat,
    mover: usize,
    action: Value,
    now_ms: i64,
) -> Result<MoveReply, ArenaError> {
    let nonce = progress.seq + 1;
    let leg = &mut progress.legs[leg_index];
    let before = leg.state.to_act();
    let mut rng = setup.rng(nonce);
    // The rules change nothing when they refuse an action, so the state is changed in place.
    let game_events = leg
        .state
        .apply(
            seat,
            &action,
            &mut Ctx::new(u64::try_from(now_ms).unwrap_or(0), &mut rng),
        )
        .map_err(|e| rule_error(e, leg_index))?;
    let after = leg.state.to_act();
    // Chess clocks run in turns: a clock period ends with each action, or under a per-turn
    // clock only when the turn passes. A simultaneous phase runs on the rules' own deadline,
    // and its decisions began when the phase did.
    let period_goes_on = match (before, after) {
        (ToAct::Turn { seat: a }, ToAct::Turn { seat: b }) => {
            a == b && setup.family.clock == ClockPolicy::PerTurn
        }
        (ToAct::Simultaneous { phase: a, .. }, ToAct::Simultaneous { phase: b, .. }) => a == b,
        _ => false,
    };
    if matches!(before, ToAct::Turn { .. }) && !period_goes_on {
        let elapsed = now_ms - leg.turn_started_ms;
        leg.clocks_ms[seat.index()] += setup.time_control.increment_ms - elapsed;
    }
    leg.revision += 1;
    if !period_goes_on {
        leg.turn_started_ms = now_ms;
        leg.period_revision = leg.revision;
        leg.warned = false;
    }
    let revision = leg.revision;
    let clocks = leg.clocks_ms.clone();
    let first_seat_participant = leg.first_seat_participant;
    let seats = leg.seats();
    progress.moved[mover] = true;
    note_first_turns(progress, now_ms);
    let (public, private) = split_events(game_events, first_seat_participant, seats);
    let payload = MovePayload {
        action: &action,
        clocks_ms: &clocks,
        events: &public,
        free: false,
        leg: leg_index,
        participant: mover,
        revision,
        seat: seat.0,
        turn_started_ms: now_ms,
    };
    let secret = !matches!(before, ToAct::Turn { .. });
    let seq = emit_move(setup, progress, now_ms, payload, secret);
    emit_private(setup, progress, now_ms, leg_index, private);
    finish_leg_if_over(setup, progress, leg_index, now_ms);
    let leg = &mut progress.legs[leg_index];
    let reply = MoveReply {
        match_id: setup.id,
        leg: leg_index,
        revision,
        seq,
        leg_status: leg.status(),
        status: progress.status,
    };
    leg.moves.push(Accepted {
        participant: mover,
        simultaneous: secret,
        action: Arc::new(action),
        at_ms: now_ms,
        reply,
    });
    Ok(reply)
}

/// Applies a free action: stored and published like a move, but it moves no clock, no
/// deadline and no revision, so every pending decision stays as it was.
fn play_free(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    seat: Seat,
    mover: usize,
    action: Value,
    now_ms: i64,
) -> Result<MoveReply, ArenaError> {
    let nonce = progress.seq + 1;
    let leg = &mut progress.legs[leg_index];
    let mut rng = setup.rng(nonce);
    let game_events = leg
        .state
        .apply(
            seat,
            &action,
            &mut Ctx::new(u64::try_from(now_ms).unwrap_or(0), &mut rng),
        )
        .map_err(|e| rule_error(e, leg_index))?;
    let (public, private) = split_events(game_events, leg.first_seat_participant, leg.seats());
    let revision = leg.revision;
    let clocks = leg.clocks_ms.clone();
    let payload = MovePayload {
        action: &action,
        clocks_ms: &clocks,
        events: &public,
        free: true,
        leg: leg_index,
        participant: mover,
        revision,
        seat: seat.0,
        turn_started_ms: leg.turn_started_ms,
    };
    let seq = emit_move(setup, progress, now_ms, payload, true);
    emit_private(setup, progress, now_ms, leg_index, private);
    finish_leg_if_over(setup, progress, leg_index, now_ms);
    Ok(MoveReply {
        match_id: setup.id,
        leg: leg_index,
        revision,
        seq,
        leg_status: progress.legs[leg_index].status(),
        status: progress.status,
    })
}

/// Stores an accepted action. An action taken in a turn is public, as every board game shows
/// its moves. An action taken in a simultaneous phase, or a free one, may be a secret (a bid,
/// a night action, a whisper): its `move` event is for its participant alone, and everyone
/// else gets an `acted` event with the same fields but the action, carrying only the rules'
/// public events — the same shape whatever was chosen. Returns the `move` event's seq.
fn emit_move(
    setup: &Setup,
    progress: &mut Progress,
    now_ms: i64,
    payload: MovePayload<'_>,
    secret: bool,
) -> i64 {
    if !secret {
        return progress.emit(setup, now_ms, Audience::Everyone, "move", payload);
    }
    let participant = u8::try_from(payload.participant).unwrap_or(u8::MAX);
    let seq = progress.emit(
        setup,
        now_ms,
        Audience::Participant(participant),
        "move",
        payload,
    );
    let acted = MovePayload {
        action: &Value::Null,
        ..payload
    };
    progress.emit(setup, now_ms, Audience::Everyone, "acted", acted);
    seq
}

/// The arena's error for the rules' refusal.
fn rule_error(error: GameError, leg_index: usize) -> ArenaError {
    match error {
        GameError::Rule(RuleError::Illegal(text)) => ArenaError::IllegalMove(text),
        GameError::Rule(RuleError::NotYourTurn) => ArenaError::NotYourTurn,
        GameError::Rule(RuleError::GameOver) => {
            ArenaError::LegFinished(u8::try_from(leg_index).unwrap_or(u8::MAX))
        }
        GameError::MalformedAction(text) => ArenaError::MalformedAction(text),
        other => ArenaError::IllegalMove(other.to_string()),
    }
}

/// Public game events, and private ones addressed to participants.
/// Logs each game event meant for one seat as a `private` event that only its participant
/// reads.
fn emit_private(
    setup: &Setup,
    progress: &mut Progress,
    at_ms: i64,
    leg: usize,
    private: Vec<(u8, Value)>,
) {
    for (participant, event) in private {
        progress.emit(
            setup,
            at_ms,
            Audience::Participant(participant),
            "private",
            json!({"leg": leg, "event": event}),
        );
    }
}

fn split_events(
    events: Vec<Emitted<Value>>,
    first_seat_participant: usize,
    seat_count: usize,
) -> (Vec<Value>, Vec<(u8, Value)>) {
    let mut public = Vec::new();
    let mut private = Vec::new();
    for emitted in events {
        match emitted.visibility {
            Visibility::Everyone => public.push(emitted.event),
            Visibility::Seats(seats) => {
                for seat in seats.iter() {
                    let participant = (seat.index() + first_seat_participant) % seat_count.max(1);
                    private.push((
                        u8::try_from(participant).unwrap_or(0),
                        emitted.event.clone(),
                    ));
                }
            }
        }
    }
    (public, private)
}

fn finish_leg_if_over(setup: &Setup, progress: &mut Progress, leg_index: usize, now_ms: i64) {
    let leg = &progress.legs[leg_index];
    let Some(outcome) = leg.state.outcome() else {
        return;
    };
    end_leg(
        setup,
        progress,
        leg_index,
        &outcome.reason,
        &outcome,
        now_ms,
    );
}

fn end_leg(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    reason: &str,
    outcome: &Outcome,
    now_ms: i64,
) {
    let leg = &mut progress.legs[leg_index];
    let scores = leg.scores_by_participant(outcome);
    let payload = json!({"leg": leg_index, "reason": reason, "scores": scores});
    leg.ended = Some(LegEnd {
        reason: reason.to_owned(),
        scores,
        ranks: leg.ranks_by_participant(outcome),
        at_ms: now_ms,
    });
    leg.score_order = outcome.score_order;
    progress.emit(setup, now_ms, Audience::Everyone, "leg_finished", payload);
    if progress.legs.iter().all(|l| l.ended.is_some()) {
        let timeouts = progress
            .legs
            .iter()
            .filter(|l| l.ended.as_ref().is_some_and(|e| e.reason == "timeout"))
            .count();
        let reason = match timeouts {
            0 => progress.legs[0]
                .ended
                .as_ref()
                .map_or("finished".to_owned(), |e| e.reason.clone()),
            1 => "timeout".to_owned(),
            _ => "double_timeout".to_owned(),
        };
        finish(setup, progress, &reason, None, now_ms);
    }
}

/// Ends a running match with a result. `loser` forfeits every unfinished leg and ranks last;
/// the others are ranked by their scores summed over the legs.
fn finish(setup: &Setup, progress: &mut Progress, reason: &str, loser: Option<usize>, now_ms: i64) {
    let mut order = ScoreOrder::HigherIsBetter;
    let mut totals = vec![0i64; setup.seats()];
    for leg in &mut progress.legs {
        if leg.ended.is_none() {
            let seat = leg.seat_of(loser.unwrap_or(0));
            let forfeit = leg.state.forfeit(seat);
            leg.score_order = forfeit.score_order;
            leg.ended = Some(LegEnd {
                reason: "stopped".to_owned(),
                scores: leg.scores_by_participant(&forfeit),
                ranks: leg.ranks_by_participant(&forfeit),
                at_ms: now_ms,
            });
        }
        order = leg.score_order;
        if let Some(end) = &leg.ended {
            for (total, score) in totals.iter_mut().zip(&end.scores) {
                *total += score;
            }
        }
    }
    // One leg is ranked as the rules ranked it (a forfeit, teams); several are ranked by
    // their summed scores, which is how paired legs are compared.
    let ranks: Vec<u8> = match (loser, progress.legs.as_slice()) {
        (Some(loser), _) => {
            let loser = Seat(u8::try_from(loser).unwrap_or(0));
            Outcome::forfeit(&totals, loser, order)
                .seats
                .iter()
                .map(|s| s.rank)
                .collect()
        }
        (None, [leg]) => leg
            .ended
            .as_ref()
            .map_or_else(Vec::new, |end| end.ranks.clone()),
        (None, _) => Outcome::from_scores(&totals, order, reason)
            .seats
            .iter()
            .map(|s| s.rank)
            .collect(),
    };
    let winners: Vec<usize> = (0..ranks.len()).filter(|&p| ranks[p] == 1).collect();
    let winner = match winners.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let mut result =
        json!({"reason": reason, "winner": winner, "totals": totals, "rated": setup.rated});
    if setup.seats() > 2 {
        result["ranks"] = json!(ranks);
    }
    progress.result = Some(result.clone());
    progress.ended_ms = Some(now_ms);
    progress.set_status(MatchStatus::Finished);
    let mut payload = result;
    payload["seed"] = json!(setup.seed.reveal());
    progress.emit(setup, now_ms, Audience::Everyone, "finished", payload);
}

/// Records a finished match's rating change (see `ratings`): in its result, and as a `rated`
/// event that replay folds back into the result.
pub(crate) fn note_ratings(setup: &Setup, progress: &mut Progress, change: &Value, now_ms: i64) {
    if let Some(result) = progress.result.as_mut() {
        merge_ratings(result, change);
    }
    progress.row_changed = true;
    progress.emit(setup, now_ms, Audience::Everyone, "rated", change);
}

fn merge_ratings(result: &mut Value, change: &Value) {
    result["rating_applied"] = json!(true);
    result["rating_before"] = change["rating_before"].clone();
    result["rating_after"] = change["rating_after"].clone();
}

/// `bot` resigns: it loses the match.
pub(crate) fn resign(
    setup: &Setup,
    progress: &mut Progress,
    bot: BotId,
    now_ms: i64,
) -> Result<(), ArenaError> {
    let mine = setup.participants_of(bot);
    let Some(loser) = mine.iter(setup.seats()).next() else {
        return Err(ArenaError::NotParticipant);
    };
    if progress.status != MatchStatus::Running {
        return Err(ArenaError::MatchNotRunning);
    }
    finish(setup, progress, "resign", Some(loser), now_ms);
    Ok(())
}

/// Something the clock can make happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Happening {
    Expire,
    Flag { leg: usize },
    TurnWarning { leg: usize },
    TurnTimeout { leg: usize },
    RulesDeadline { leg: usize },
    NoFirstMove,
    Disconnect { participant: usize },
    Recheck,
}

/// Presence as seen by the rules of play: house bots are always there.
fn presence_of(
    setup: &Setup,
    participant: usize,
    presence: &dyn Fn(BotId) -> Presence,
) -> Presence {
    if setup.is_house(participant) || setup.is_human(participant) {
        Presence::Online { until_ms: None }
    } else {
        presence(setup.bots[participant].id)
    }
}

fn due(
    setup: &Setup,
    progress: &Progress,
    presence: &dyn Fn(BotId) -> Presence,
) -> Vec<(i64, Happening)> {
    let mut due = Vec::new();
    match progress.status {
        MatchStatus::Pending => due.push((progress.expires_ms, Happening::Expire)),
        MatchStatus::Running => {
            for (i, leg) in progress.legs.iter().enumerate() {
                if let Some((seat, _)) = leg.mover() {
                    due.push((
                        leg.turn_started_ms + leg.clocks_ms[seat.index()],
                        Happening::Flag { leg: i },
                    ));
                    if let Some(per_turn) = setup.time_control.per_turn_ms {
                        if !leg.warned {
                            due.push((
                                leg.turn_started_ms + per_turn / 2,
                                Happening::TurnWarning { leg: i },
                            ));
                        }
                        due.push((
                            leg.turn_started_ms + per_turn,
                            Happening::TurnTimeout { leg: i },
                        ));
                    }
                } else if leg.ended.is_none()
                    && let Some(at) = leg.state.deadline()
                {
                    due.push((
                        i64::try_from(at).unwrap_or(i64::MAX),
                        Happening::RulesDeadline { leg: i },
                    ));
                }
            }
            for participant in (0..setup.seats()).filter(|&p| !setup.is_human(p)) {
                if let (Some(at), false) = (
                    progress.first_turn_at[participant],
                    progress.moved[participant],
                ) {
                    due.push((at + setup.config.first_move_ms, Happening::NoFirstMove));
                }
            }
            if !setup.self_play() {
                for participant in 0..setup.seats() {
                    if let Some(since) = progress.absent_since[participant] {
                        due.push((
                            since + setup.config.disconnect_ms,
                            Happening::Disconnect { participant },
                        ));
                    }
                    if let Presence::Online {
                        until_ms: Some(until),
                    } = presence_of(setup, participant, presence)
                    {
                        due.push((until + 1, Happening::Recheck));
                    }
                }
            }
        }
        _ => {}
    }
    due
}

/// The next time something may happen without a request, if anything can.
pub(crate) fn next_deadline(
    setup: &Setup,
    progress: &Progress,
    presence: &dyn Fn(BotId) -> Presence,
) -> Option<i64> {
    due(setup, progress, presence)
        .into_iter()
        .map(|(at, _)| at)
        .min()
}

/// Brings the match up to `now_ms`: expiry, flag falls, turn warnings and timeouts, phase
/// deadlines, missing first moves and disconnections, in the order they fell due.
pub(crate) fn tick(
    setup: &Setup,
    progress: &mut Progress,
    now_ms: i64,
    presence: &dyn Fn(BotId) -> Presence,
) {
    update_absence(setup, progress, now_ms, presence);
    // Each happening changes what is due next; the bound only guards against a game whose
    // phase deadline never moves on.
    for _ in 0..10_000 {
        let Some((at, happening)) = due(setup, progress, presence)
            .into_iter()
            .filter(|(at, _)| *at <= now_ms)
            .min_by_key(|(at, _)| *at)
        else {
            return;
        };
        match happening {
            Happening::Expire => close(setup, progress, MatchStatus::Expired, "expired", at),
            Happening::Flag { leg } | Happening::TurnTimeout { leg } => {
                time_out(setup, progress, leg, at)
            }
            Happening::TurnWarning { leg } => {
                let l = &mut progress.legs[leg];
                l.warned = true;
                if let Some((seat, participant)) = l.mover() {
                    let left = l
                        .remaining_ms(seat, at)
                        .min(setup.time_control.per_turn_ms.unwrap_or(0) / 2);
                    let payload = json!({"leg": leg, "participant": participant, "seconds_left": left / 1_000});
                    progress.emit(setup, at, Audience::Everyone, "turn_warning", payload);
                }
            }
            Happening::RulesDeadline { leg } => {
                let nonce = progress.seq + 1;
                let mut rng = setup.rng(nonce);
                let l = &mut progress.legs[leg];
                let events = l
                    .state
                    .on_deadline(&mut Ctx::new(u64::try_from(at).unwrap_or(0), &mut rng));
                l.revision += 1;
                l.turn_started_ms = at;
                l.period_revision = l.revision;
                let (public, private) = split_events(events, l.first_seat_participant, l.seats());
                progress.emit(
                    setup,
                    at,
                    Audience::Everyone,
                    "deadline",
                    json!({"leg": leg, "events": public}),
                );
                emit_private(setup, progress, at, leg, private);
                finish_leg_if_over(setup, progress, leg, at);
            }
            Happening::NoFirstMove => {
                close(setup, progress, MatchStatus::Aborted, "no_first_move", at)
            }
            Happening::Disconnect { participant } => {
                finish(setup, progress, "disconnect", Some(participant), at)
            }
            Happening::Recheck => update_absence(setup, progress, at, presence),
        }
        if !progress.is_open() {
            return;
        }
    }
}

/// A flag fell, or a turn ran out: the mover forfeits the leg; the other leg plays on.
fn time_out(setup: &Setup, progress: &mut Progress, leg_index: usize, at_ms: i64) {
    let leg = &progress.legs[leg_index];
    let Some((seat, _)) = leg.mover() else { return };
    let forfeit = leg.state.forfeit(seat);
    let leg = &mut progress.legs[leg_index];
    leg.clocks_ms[seat.index()] = leg.remaining_ms(seat, at_ms).max(0);
    end_leg(setup, progress, leg_index, "timeout", &forfeit, at_ms);
}

/// Tracks since when each participant has been gone while the other was connected.
fn update_absence(
    setup: &Setup,
    progress: &mut Progress,
    now_ms: i64,
    presence: &dyn Fn(BotId) -> Presence,
) {
    if progress.status != MatchStatus::Running || setup.self_play() {
        return;
    }
    let states = presence_states(setup, presence);
    for (participant, state) in states.iter().enumerate() {
        if matches!(state, Presence::Offline { .. }) {
            progress.seen_gone_at[participant] = Some(now_ms);
        }
    }
    for participant in 0..setup.seats() {
        let others_online: Vec<usize> = (0..setup.seats())
            .filter(|&q| {
                setup.bots[q].id != setup.bots[participant].id
                    && matches!(states[q], Presence::Online { .. })
            })
            .collect();
        match states[participant] {
            Presence::Offline { since_ms } if !others_online.is_empty() => {
                if progress.absent_since[participant].is_none() {
                    // Absence counts from when another participant was last seen back.
                    let others_back = others_online
                        .iter()
                        .filter_map(|&q| progress.seen_gone_at[q])
                        .max()
                        .unwrap_or(i64::MIN);
                    progress.absent_since[participant] =
                        Some(since_ms.max(others_back).max(progress.watch_from_ms));
                }
            }
            _ => progress.absent_since[participant] = None,
        }
    }
}

/// Every participant's presence, in participant order.
fn presence_states(setup: &Setup, presence: &dyn Fn(BotId) -> Presence) -> Vec<Presence> {
    (0..setup.seats())
        .map(|p| presence_of(setup, p, presence))
        .collect()
}

/// A decision a bot has to make now.
#[derive(Clone, Debug)]
pub(crate) struct Turn {
    pub(crate) participant: usize,
    pub(crate) leg: usize,
    pub(crate) revision: u64,
    /// The complete engine request as compact JSON text.
    pub(crate) request: String,
}

impl Turn {
    /// The engine request as a `Value`.
    pub(crate) fn request_json(&self) -> Value {
        serde_json::from_str(&self.request).unwrap_or_default()
    }

    pub(crate) fn to_json(&self, match_id: MatchId) -> Value {
        json!({"match_id": match_id, "leg": self.leg, "revision": self.revision, "participant": self.participant, "request": self.request_json()})
    }

    /// The stream line announcing the decision, built without an intermediate `Value`.
    pub(crate) fn to_line(&self, match_id: MatchId) -> String {
        use std::fmt::Write as _;
        // Sized up front: the request is most of the line, two kilobytes in mid-game.
        let mut line = String::with_capacity(self.request.len() + 96);
        let _ = write!(
            line,
            "{{\"type\":\"turn\",\"match_id\":{match_id},\"leg\":{},\"revision\":{},\"participant\":{},\"request\":",
            self.leg, self.revision, self.participant
        );
        line.push_str(&self.request);
        line.push_str("}\n");
        line
    }
}

/// The decisions pending for the participants selected by `who`: one per pending seat, each
/// built from that seat's view, in legs and at revisions `wanted` accepts (building a
/// request costs, so callers skip what they have sent).
pub(crate) fn turns(
    setup: &Setup,
    progress: &Progress,
    who: Participants,
    now_ms: i64,
    wanted: &dyn Fn(usize, u64, usize) -> bool,
) -> Vec<Turn> {
    if progress.status != MatchStatus::Running {
        return Vec::new();
    }
    let mut turns = Vec::new();
    for (i, leg) in progress.legs.iter().enumerate() {
        let revision = leg.decision_revision();
        for (seat, participant) in leg.pending() {
            if !who.contains(participant) || !wanted(i, revision, participant) {
                continue;
            }
            turns.push(Turn {
                participant,
                leg: i,
                revision,
                request: decision_request(setup, leg, i, seat, participant, now_ms),
            });
        }
    }
    turns
}

/// The request `seat` receives for its pending decision in leg `i`, from its view alone.
fn decision_request(
    setup: &Setup,
    leg: &Leg,
    i: usize,
    seat: Seat,
    participant: usize,
    now_ms: i64,
) -> String {
    let phase = leg.phase();
    // In a turn the mover's clock runs; in a simultaneous phase the rules' deadline bounds
    // every pending seat.
    let remaining = leg.time_left(seat, now_ms);
    let deadline_ms = match (phase, leg.state.deadline()) {
        (None, _) => Some(now_ms + remaining),
        (Some(_), deadline) => deadline.and_then(|at| i64::try_from(at).ok()),
    };
    // A match with a person is a room to FlipSight's engines: a negative id, a round and the
    // room's creation time.
    let person = setup.has_human();
    let created = person.then(|| crate::clock::utc_datetime(setup.created_ms));
    let by_seat: Vec<u8> = (0..leg.seats())
        .map(|s| u8::try_from(leg.participant_of(Seat(u8::try_from(s).unwrap_or(0)))).unwrap_or(0))
        .collect();
    let clocks: Vec<i64> = (0..leg.seats())
        .map(|s| {
            if s == seat.index() {
                remaining
            } else {
                leg.clocks_ms[s]
            }
        })
        .collect();
    let move_times: Vec<i64> = leg.moves.iter().map(|m| m.at_ms).collect();
    let context = DecisionContext {
        variant: &setup.variant,
        match_id: if person { -setup.id } else { setup.id },
        leg: u8::try_from(i).unwrap_or(0),
        participant: u8::try_from(participant).unwrap_or(0),
        participants_by_seat: &by_seat,
        phase,
        revision: leg.decision_revision(),
        clocks_ms: &clocks,
        remaining_ms: remaining,
        budget_ms: setup.config.default_budget_ms.min(remaining - 750).max(0),
        deadline_ms,
        move_times_ms: &move_times,
        room: created
            .as_deref()
            .map(|created| (crate::ROOM_ROUND, created)),
    };
    setup
        .family
        .decisions
        .request(&SeatView::new(leg.state.as_ref(), seat), &context)
}

/// The house participants' pending decisions: (leg, revision, seat, participant).
pub(crate) fn house_turns(setup: &Setup, progress: &Progress) -> Vec<(usize, u64, Seat, usize)> {
    if progress.status != MatchStatus::Running {
        return Vec::new();
    }
    progress
        .legs
        .iter()
        .enumerate()
        .flat_map(|(i, leg)| {
            leg.pending()
                .into_iter()
                .filter(|(_, p)| setup.is_house(*p))
                .map(move |(seat, p)| (i, leg.revision, seat, p))
        })
        .collect()
}

/// The participants with a decision pending in a leg: `to_move` in a turn, and in a
/// simultaneous phase every pending seat's participant under `pending`.
fn pending_json(leg: &Leg) -> (Option<usize>, Option<Vec<usize>>) {
    match leg.phase() {
        None => (leg.mover().map(|(_, p)| p), None),
        Some(_) => (
            None,
            Some(leg.pending().into_iter().map(|(_, p)| p).collect()),
        ),
    }
}

/// A compact summary for streams and lists.
pub(crate) fn summary(setup: &Setup, progress: &Progress, now_ms: i64) -> Value {
    let mut summary = json!({
        "id": setup.id,
        "status": progress.status,
        "game": setup.family.id(),
        "variant": setup.variant,
        "format": setup.format,
        "rated": setup.rated,
        "bot_a": bot_summary(&setup.bots[0]),
        "bot_b": bot_summary(&setup.bots[1]),
        "time_control": setup.time_control,
        "expires_ms": (progress.status == MatchStatus::Pending).then_some(progress.expires_ms),
        "legs": progress.legs.iter().enumerate().map(|(i, leg)| {
            let (to_move, pending) = pending_json(leg);
            let mut summary = json!({
                "leg": i,
                "status": leg.status(),
                "revision": leg.revision,
                "to_move": to_move,
                "clocks_ms": leg.clocks_ms,
                "turn_started_ms": leg.turn_started_ms,
            });
            if let Some(pending) = pending {
                summary["pending"] = json!(pending);
            }
            summary
        }).collect::<Vec<_>>(),
        "result": progress.result,
        "server_now_ms": now_ms,
    });
    if setup.seats() > 2 {
        summary["participants"] = participants_json(setup);
    }
    summary
}

/// The full state for one reader.
pub(crate) fn snapshot(setup: &Setup, progress: &Progress, reader: Reader, now_ms: i64) -> Value {
    let ended = !progress.is_open();
    let legs: Vec<Value> = progress
        .legs
        .iter()
        .enumerate()
        .map(|(i, leg)| {
            let viewer = if ended || reader.omniscient {
                Viewer::Omniscient
            } else if let Some(p) = reader.participants.iter(setup.seats()).next() {
                Viewer::Seat(leg.seat_of(p))
            } else {
                Viewer::Spectator
            };
            let mover = leg.mover();
            let (to_move, pending) = pending_json(leg);
            let mut snapshot = json!({
                "leg": i,
                "status": leg.status(),
                "first_seat_participant": leg.first_seat_participant,
                "revision": leg.revision,
                "to_move": to_move,
                "clocks_ms": leg.clocks_ms,
                "turn_started_ms": leg.turn_started_ms,
                "remaining_ms": mover.map(|(seat, _)| leg.remaining_ms(seat, now_ms).max(0)),
                "end": leg.ended.as_ref().map(|e| json!({"reason": e.reason, "scores": e.scores, "at_ms": e.at_ms})),
                // When each accepted move arrived, in the order the rules' history lists them.
                "moves_at_ms": leg.moves.iter().map(|m| m.at_ms).collect::<Vec<_>>(),
                "view": leg.state.view(viewer),
            });
            if let Some(pending) = pending {
                snapshot["pending"] = json!(pending);
            }
            snapshot
        })
        .collect();
    let mut snapshot = json!({
        "id": setup.id,
        "status": progress.status,
        "game": setup.family.id(),
        "variant": setup.variant,
        "format": setup.format,
        "rated": setup.rated,
        "auto": setup.auto,
        "self_play": setup.self_play(),
        "time_control": setup.time_control,
        "participants": participants_json(setup),
        "created_ms": setup.created_ms,
        "expires_ms": (progress.status == MatchStatus::Pending).then_some(progress.expires_ms),
        "started_ms": progress.started_ms,
        "ended_ms": progress.ended_ms,
        "commitment": setup.seed.commitment().as_hex(),
        "seed": ended.then(|| setup.seed.reveal()),
        "legs": legs,
        "result": progress.result,
        "seq": progress.seq,
        "server_now_ms": now_ms,
    });
    if !reader.participants.is_empty() && !reader.omniscient {
        let you: Vec<usize> = reader.participants.iter(setup.seats()).collect();
        snapshot["you"] = json!(you);
        snapshot["turns"] = json!(
            turns(setup, progress, reader.participants, now_ms, &|_, _, _| {
                true
            })
            .iter()
            .map(|t| t.to_json(setup.id))
            .collect::<Vec<_>>()
        );
    }
    snapshot
}

/// Rebuilds a match from its stored status and events.
pub(crate) fn replay(
    setup: &Setup,
    status: MatchStatus,
    events: &[EventRecord],
) -> Result<Progress, ArenaError> {
    replay_observed(setup, status, events, |_, _| {})
}

/// Rebuilds a match like [`replay`], showing `observe` the match once its legs are set up
/// (`None`) and after each move (the leg moved in).
pub(crate) fn replay_observed(
    setup: &Setup,
    status: MatchStatus,
    events: &[EventRecord],
    mut observe: impl FnMut(&Progress, Option<usize>),
) -> Result<Progress, ArenaError> {
    let corrupt = |what: &str| {
        ArenaError::Unavailable(format!("match {} cannot be rebuilt: {what}", setup.id))
    };
    // The leg an event names, which must exist.
    let leg_of = |p: &Value, progress: &Progress| {
        p["leg"]
            .as_u64()
            .and_then(|l| usize::try_from(l).ok())
            .filter(|&l| l < progress.legs.len())
            .ok_or_else(|| corrupt("leg"))
    };
    let mut progress = challenge(setup, setup.created_ms);
    progress.fresh.clear();
    for event in events {
        let p = &event.payload_value();
        match event.kind.as_str() {
            "challenge" => {
                progress.expires_ms = p["expires_ms"].as_i64().unwrap_or(progress.expires_ms);
            }
            "accepted" => {
                // Two participants accept once, which starts the match; with more, each
                // acceptance names who accepted.
                for by in p["by"].as_array().into_iter().flatten() {
                    if let Some(by) = by.as_u64().and_then(|by| usize::try_from(by).ok()) {
                        progress.accepted = progress.accepted.with(by);
                    }
                }
            }
            "started" => {
                let configs: Vec<Value> = p["legs"]
                    .as_array()
                    .ok_or_else(|| corrupt("legs"))?
                    .iter()
                    .map(|l| l["config"].clone())
                    .collect();
                let mut rng = setup.labelled_rng("legs", event.seq);
                let first = setup.first_seat_participant(event.seq);
                progress.legs = build_legs(setup, &configs, &mut rng, first, event.at_ms)?;
                progress.started_ms = Some(event.at_ms);
                progress.status = MatchStatus::Running;
                note_first_turns(&mut progress, event.at_ms);
                observe(&progress, None);
            }
            "move" if p["free"] == true => {
                let leg_index = leg_of(p, &progress)?;
                let seat = Seat(u8::try_from(p["seat"].as_u64().unwrap_or(0)).unwrap_or(0));
                let mover = progress.legs[leg_index].participant_of(seat);
                progress.seq = event.seq - 1;
                play_free(
                    setup,
                    &mut progress,
                    leg_index,
                    seat,
                    mover,
                    p["action"].clone(),
                    event.at_ms,
                )?;
            }
            "move" => {
                let leg_index = leg_of(p, &progress)?;
                let seat = Seat(u8::try_from(p["seat"].as_u64().unwrap_or(0)).unwrap_or(0));
                let mover = progress.legs[leg_index].participant_of(seat);
                progress.seq = event.seq - 1;
                play(
                    setup,
                    &mut progress,
                    leg_index,
                    seat,
                    mover,
                    p["action"].clone(),
                    event.at_ms,
                )?;
                let leg = &mut progress.legs[leg_index];
                if let Some(clocks) = p["clocks_ms"].as_array() {
                    for (slot, value) in leg.clocks_ms.iter_mut().zip(clocks) {
                        *slot = value.as_i64().unwrap_or(*slot);
                    }
                }
                observe(&progress, Some(leg_index));
            }
            "deadline" => {
                let leg_index = leg_of(p, &progress)?;
                let leg = &mut progress.legs[leg_index];
                let mut rng = setup.rng(event.seq);
                leg.state.on_deadline(&mut Ctx::new(
                    u64::try_from(event.at_ms).unwrap_or(0),
                    &mut rng,
                ));
                leg.revision += 1;
                leg.turn_started_ms = event.at_ms;
                leg.period_revision = leg.revision;
                progress.seq = event.seq;
                finish_leg_if_over(setup, &mut progress, leg_index, event.at_ms);
            }
            "turn_warning" => {
                if let Some(leg) = p["leg"].as_u64().and_then(|l| {
                    progress
                        .legs
                        .get_mut(usize::try_from(l).unwrap_or(usize::MAX))
                }) {
                    leg.warned = true;
                }
            }
            "leg_finished" if p["reason"] == "timeout" => {
                let leg_index = leg_of(p, &progress)?;
                progress.seq = event.seq - 1;
                time_out(setup, &mut progress, leg_index, event.at_ms);
            }
            "finished" | "aborted" | "expired" | "rejected" | "cancelled" => {
                progress.result = Some(p.clone());
                progress.ended_ms = Some(event.at_ms);
            }
            "rated" => {
                if let Some(result) = progress.result.as_mut() {
                    merge_ratings(result, p);
                }
            }
            _ => {}
        }
        progress.seq = event.seq;
    }
    progress.status = status;
    progress.fresh.clear();
    progress.row_changed = false;
    Ok(progress)
}

/// Shifts every running clock by `ms` (time the server was down is charged to nobody) and
/// every deadline with it.
pub(crate) fn shift_time(progress: &mut Progress, ms: i64) {
    progress.expires_ms += ms;
    for leg in &mut progress.legs {
        if leg.ended.is_none() {
            leg.turn_started_ms += ms;
        }
    }
    for at in progress.first_turn_at.iter_mut().flatten() {
        *at += ms;
    }
    progress.absent_since.fill(None);
    progress.seen_gone_at.fill(None);
}

/// Starts counting absences afresh from `now_ms` (after a restart).
pub(crate) fn watch_from(progress: &mut Progress, now_ms: i64) {
    progress.watch_from_ms = now_ms;
    progress.absent_since.fill(None);
    progress.seen_gone_at.fill(None);
}

/// Whether the absence bookkeeping agrees with the bots' presence now, so that a wake-up
/// with nothing due may skip the full update.
pub(crate) fn presence_settled(
    setup: &Setup,
    progress: &Progress,
    presence: &dyn Fn(BotId) -> Presence,
) -> bool {
    if progress.status != MatchStatus::Running || setup.self_play() {
        return true;
    }
    let states = presence_states(setup, presence);
    (0..setup.seats()).all(|p| {
        let counting = matches!(states[p], Presence::Offline { .. })
            && (0..setup.seats()).any(|q| {
                setup.bots[q].id != setup.bots[p].id && matches!(states[q], Presence::Online { .. })
            });
        counting == progress.absent_since[p].is_some()
    })
}

/// Ends a running or pending match after a long outage.
pub(crate) fn abort_technical(setup: &Setup, progress: &mut Progress, now_ms: i64) {
    close(setup, progress, MatchStatus::Aborted, "technical", now_ms);
}

#[cfg(test)]
mod clock_tests;
#[cfg(test)]
mod seats_tests;
#[cfg(test)]
mod tests;
