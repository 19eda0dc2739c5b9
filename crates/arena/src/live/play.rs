//! Challenges, acceptance, open tables and the start of a match, and actions: checked,
//! applied, timed by the family's clock policy and stored with the right audience.

use super::*;

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

/// A new challenge, with its first event.
pub(crate) fn challenge(setup: &Setup, now_ms: i64) -> Progress {
    let mut progress = Progress {
        status: MatchStatus::Pending,
        expires_ms: now_ms + setup.terms.wait_ms.unwrap_or(setup.config.challenge_ttl_ms),
        started_ms: None,
        ended_ms: None,
        legs: Vec::new(),
        first_turn_at: vec![None; setup.seats()],
        moved: vec![false; setup.seats()],
        chat_lines: vec![0; setup.seats()],
        absent_since: vec![None; setup.seats()],
        seen_gone_at: vec![None; setup.seats()],
        // House bots and the challenger itself accept at once; every other bot is asked.
        accepted: (1..setup.bots.len())
            .filter(|&p| setup.is_house(p) || setup.bots[p].id == setup.bots[0].id)
            .fold(Participants::NONE, Participants::with),
        gone: Participants::NONE,
        watch_from_ms: now_ms,
        result: None,
        seq: 0,
        fresh: Vec::new(),
        row_changed: true,
    };
    let mut payload = json!({
        "bot_a": bot_summary(&setup.bots[0]),
        "bot_b": setup.bots.get(1).map(bot_summary),
        "game": setup.family.id(),
        "variant": setup.variant,
        "format": setup.format,
        "time_control": setup.time_control,
        "rated": setup.rated,
        "commitment": setup.seed.commitment().as_hex(),
        "expires_ms": progress.expires_ms,
    });
    if setup.seats() > 2 || setup.table {
        payload["participants"] = json!(participant_list(setup));
    }
    if setup.table {
        payload["table"] = json!(true);
        payload["seats"] = json!(setup.seat_count);
    }
    if let Some(seed) = setup.client_seeds.first().filter(|seed| !seed.is_empty()) {
        payload["client_seed"] = json!(seed);
    }
    progress.emit(setup, now_ms, Audience::Everyone, "challenge", payload);
    progress
}

/// `bot` takes a free seat at an open table (one seat per bot); the match starts when the
/// last seat is taken.
pub(crate) fn join(
    setup: &mut Setup,
    progress: &mut Progress,
    bot: Bot,
    client_seed: String,
    now_ms: i64,
) -> Result<(), ArenaError> {
    if progress.status != MatchStatus::Pending || setup.seats_free() == 0 {
        return Err(ArenaError::ChallengeNotPending);
    }
    if setup.bots.iter().any(|b| b.id == bot.id) {
        return Err(ArenaError::InvalidRequest(format!(
            "{} already has a seat at this table",
            bot.name
        )));
    }
    take_seat(setup, progress, bot, client_seed, now_ms)
}

/// `by`, the person who opened the table, has `house` take every free seat, which starts
/// the match. Each seat is taken as a join takes it (a `joined` event each), so that a
/// replay rebuilds it like any table.
pub(crate) fn fill(
    setup: &mut Setup,
    progress: &mut Progress,
    by: BotId,
    house: &Bot,
    now_ms: i64,
) -> Result<(), ArenaError> {
    if progress.status != MatchStatus::Pending || setup.seats_free() == 0 || !setup.table {
        return Err(ArenaError::ChallengeNotPending);
    }
    let opener = setup.bots.first();
    if opener.is_none_or(|opener| opener.id != by || opener.kind != BotKind::Human) {
        return Err(ArenaError::InvalidRequest(
            "only the person who opened a table fills it with house bots".to_owned(),
        ));
    }
    while setup.seats_free() > 0 {
        take_seat(setup, progress, house.clone(), String::new(), now_ms)?;
    }
    Ok(())
}

/// `bot` takes the next free seat; the match starts when it was the last.
fn take_seat(
    setup: &mut Setup,
    progress: &mut Progress,
    bot: Bot,
    client_seed: String,
    now_ms: i64,
) -> Result<(), ArenaError> {
    let participant = setup.bots.len();
    let mut payload = json!({"participant": participant, "bot": bot_summary(&bot)});
    if !client_seed.is_empty() {
        payload["client_seed"] = json!(client_seed);
        setup.set_client_seed(participant, client_seed);
    }
    setup.bots.push(bot);
    progress.accepted = progress.accepted.with(participant);
    // The match row lists its participants.
    progress.row_changed = true;
    progress.emit(setup, now_ms, Audience::Everyone, "joined", payload);
    if setup.seats_free() == 0 {
        let ids: Vec<BotId> = setup.bots.iter().map(|b| b.id).collect();
        let distinct = ids.iter().enumerate().all(|(i, id)| !ids[..i].contains(id));
        if setup.terms.rated && distinct && setup.bots.iter().all(|b| b.kind == BotKind::Registered)
        {
            setup.rated = true;
        }
        start(setup, progress, now_ms)
    } else {
        Ok(())
    }
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
    client_seed: String,
    now_ms: i64,
) -> Result<(), ArenaError> {
    if progress.status != MatchStatus::Pending {
        return Err(ArenaError::ChallengeNotPending);
    }
    if setup.table {
        return Err(ArenaError::InvalidRequest(
            "a table starts when its seats are taken: join it instead".to_owned(),
        ));
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
    if !client_seed.is_empty() {
        // The seed is the bot's, whichever of its seats it accepted for; the match row
        // keeps every participant's.
        for &p in &invited {
            setup.set_client_seed(p, client_seed.clone());
        }
        payload["client_seed"] = json!(client_seed);
        progress.row_changed = true;
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
    let mut private = Vec::new();
    progress.legs.clear();
    let legs_payload: Vec<Value> = configs
        .iter()
        .zip(legs)
        .enumerate()
        .map(|(i, (config, (leg, events)))| {
            let (public, secret) = split_events(events, leg.first_seat_participant, seats);
            private.push((i, secret));
            let mut entry = json!({
                "leg": i,
                "first_seat_participant": leg.first_seat_participant,
                "config": config,
                "clocks_ms": leg.clocks_ms,
            });
            // What the rules did to set the leg up (a roll, a deal), for everyone to see.
            if !public.is_empty() {
                entry["events"] = json!(public);
            }
            progress.legs.push(leg);
            entry
        })
        .collect();
    let payload = json!({
        "started_ms": now_ms,
        "client_seed": joined_client_seed(&setup.client_seeds),
        "legs": legs_payload,
    });
    progress.started_ms = Some(now_ms);
    progress.watch_from_ms = now_ms;
    progress.set_status(MatchStatus::Running);
    note_first_turns(progress, now_ms);
    progress.emit(setup, now_ms, Audience::Everyone, "started", payload);
    for (leg, secret) in private {
        emit_private(setup, progress, now_ms, leg, secret);
    }
    Ok(())
}

/// A leg as the rules set it up, with the events they set it up with.
pub(super) type StartedLeg = (Leg, Vec<Emitted<Value>>);

/// The legs from their configurations, `first` in the first seat of the first leg and the
/// seats swapped in each leg after it, each with the events the rules set it up with.
pub(super) fn build_legs(
    setup: &Setup,
    configs: &[Value],
    rng: &mut LazyStream<'_>,
    first: usize,
    now_ms: i64,
) -> Result<Vec<StartedLeg>, ArenaError> {
    configs
        .iter()
        .enumerate()
        .map(|(i, config)| {
            let (state, events) = setup
                .family
                .rules
                .start(config, &mut setup.ctx(now_ms, rng))
                .map_err(|e| ArenaError::InvalidRequest(e.to_string()))?;
            let initial = setup.time_control.initial_ms;
            let leg = Leg {
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
            };
            Ok((leg, events))
        })
        .collect()
}

pub(super) fn note_first_turns(progress: &mut Progress, now_ms: i64) {
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
    let reply = apply_move(
        setup,
        progress,
        usize::from(leg_index),
        seat,
        mover,
        action,
        now_ms,
    )?;
    if setup.has_human() {
        play_forced_actions(setup, progress, usize::from(leg_index), now_ms)?;
    }
    Ok(reply)
}

/// Plays the forced action (a pass) for whoever is to move in the leg while it is all they
/// can do (in a match with a person, the server does, as a game room does). Each is an
/// ordinary stored move, so replays need no rule of their own.
fn play_forced_actions(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    now_ms: i64,
) -> Result<(), ArenaError> {
    // A forced action (a pass) hands the decision on, and a game rarely forces many in a
    // row; the bound only guards against one that would force actions forever.
    for _ in 0..16 {
        let leg = &progress.legs[leg_index];
        let Some((seat, mover)) = leg.mover().filter(|_| leg.ended.is_none()) else {
            return Ok(());
        };
        let Some(pass) = setup.family.codec.forced_action(leg.state.as_ref(), seat) else {
            return Ok(());
        };
        apply_move(setup, progress, leg_index, seat, mover, pass, now_ms)?;
    }
    Ok(())
}

/// Applies a checked move.
pub(super) fn apply_move(
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
    let (before, turn_before) = (leg.state.to_act(), leg.state.turn_number());
    let game_events = apply_rules(setup, leg, leg_index, seat, &action, nonce, now_ms)?;
    let after = leg.state.to_act();
    // Game clocks run in turns: a clock period ends with each action, or under a per-turn
    // clock only when the turn passes (to another seat, or to the same one again where the
    // rules number their turns). A simultaneous phase runs on the rules' own deadline, and
    // its decisions began when the phase did.
    let period_goes_on = match (before, after) {
        (ToAct::Turn { seat: a }, ToAct::Turn { seat: b }) => {
            a == b
                && setup.family.clock == ClockPolicy::PerTurn
                && leg.state.turn_number() == turn_before
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
pub(super) fn play_free(
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
    let game_events = apply_rules(setup, leg, leg_index, seat, &action, nonce, now_ms)?;
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

/// Hands `seat`'s action to the rules of `leg`, with the match's random stream for the command
/// producing event `nonce`. The rules change nothing when they refuse an action, so the
/// state is changed in place.
fn apply_rules(
    setup: &Setup,
    leg: &mut Leg,
    leg_index: usize,
    seat: Seat,
    action: &Value,
    nonce: i64,
    now_ms: i64,
) -> Result<Vec<Emitted<Value>>, ArenaError> {
    let mut rng = setup.rng(nonce);
    leg.state
        .apply(seat, action, &mut setup.ctx(now_ms, &mut rng))
        .map_err(|e| rule_error(e, leg_index))
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
pub(super) fn emit_private(
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

pub(super) fn split_events(
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

/// What a mover says about its move, stored with it: a part everyone may read and a part
/// for the mover alone (a player's own analysis, say). Each is the door's JSON, opaque here.
///
/// The pages rely on one convention: a `comment` string in a note's public part is the
/// mover's own words about the move, which the match pages show (escaped) with the mover's
/// name and the move, to every reader the note reaches. Everything else in a note is the
/// door's, free-form, and the pages ignore it, so a door may put an analysis there without
/// its ever reaching a page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveNote {
    /// For everyone.
    pub public: Option<Value>,
    /// For the mover's participant alone.
    pub private: Option<Value>,
}

/// Stores `note` about the move `reply` acknowledged, as `note` events right after it, in
/// the same write: one for everyone when it has a public part, and always one for the mover
/// alone (its private part, or `null`), so that whether a mover kept something private never
/// shows in what others read of the log, not even as a gap in its sequence numbers. A
/// repeated move, answered with its earlier reply, gets no second note.
pub(crate) fn note_move(
    setup: &Setup,
    progress: &mut Progress,
    bot: BotId,
    reply: &MoveReply,
    note: &MoveNote,
    now_ms: i64,
) {
    if !progress.fresh.iter().any(|event| event.seq == reply.seq) {
        return;
    }
    let mover = progress
        .legs
        .get(reply.leg)
        .and_then(|leg| leg.moves.iter().rev().find(|m| m.reply.seq == reply.seq))
        .map(|m| m.participant)
        .or_else(|| setup.participants_of(bot).iter(setup.seats()).next());
    let Some(mover) = mover else { return };
    let parts = [
        (Audience::Everyone, &note.public),
        (
            Audience::Participant(u8::try_from(mover).unwrap_or(u8::MAX)),
            &note.private,
        ),
    ];
    for (audience, part) in parts {
        if part.is_none() && audience == Audience::Everyone {
            continue;
        }
        let payload = json!({
            "leg": reply.leg,
            "move_seq": reply.seq,
            "note": part,
            "participant": mover,
        });
        progress.emit(setup, now_ms, audience, "note", payload);
    }
}
