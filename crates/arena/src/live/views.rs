//! What readers receive: the pending decisions (each built from its seat's view), house
//! players' decisions, summaries and snapshots.

use super::*;

pub(crate) fn bot_summary(bot: &Bot) -> ParticipantSummary {
    ParticipantSummary {
        id: bot.id,
        name: bot.name.clone(),
        kind: bot.kind,
        participant: None,
    }
}

/// Every participant, with its index.
pub(super) fn participant_list(setup: &Setup) -> Vec<ParticipantSummary> {
    setup
        .bots
        .iter()
        .enumerate()
        .map(|(i, b)| ParticipantSummary {
            participant: Some(i),
            ..bot_summary(b)
        })
        .collect()
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
) -> Vec<Decision> {
    if progress.status != MatchStatus::Running {
        return Vec::new();
    }
    let mut turns = Vec::new();
    for (i, leg) in progress.legs.iter().enumerate() {
        let revision = leg.decision_revision();
        for (seat, participant) in leg.pending() {
            if !who.contains(participant)
                || progress.gone.contains(participant)
                || !wanted(i, revision, participant)
            {
                continue;
            }
            turns.push(Decision {
                match_id: setup.id,
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
    // A match with a person is a room to some protocols: it has a round and a creation time.
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
        match_id: setup.id,
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

/// The house participants' pending decisions: (leg, revision, seat, participant), each at the
/// revision its decision was announced at: in a simultaneous phase the phase's, so that
/// another seat's action in the phase does not make the same decision a new one.
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
                .map(move |(seat, p)| (i, leg.decision_revision(), seat, p))
        })
        .collect()
}

/// The participants with a decision pending in a leg: `to_move` in a turn, and in a
/// simultaneous phase every pending seat's participant under `pending`.
fn pending_of(leg: &Leg) -> (Option<usize>, Option<Vec<usize>>) {
    match leg.phase() {
        None => (leg.mover().map(|(_, p)| p), None),
        Some(_) => (
            None,
            Some(leg.pending().into_iter().map(|(_, p)| p).collect()),
        ),
    }
}

/// A compact summary for streams and lists.
pub(crate) fn summary(setup: &Setup, progress: &Progress, now_ms: i64) -> MatchSummary {
    let many = setup.seats() > 2 || setup.table;
    MatchSummary {
        id: setup.id,
        status: progress.status,
        game: setup.family.id(),
        variant: setup.variant.clone(),
        format: setup.format,
        rated: setup.rated,
        bot_a: bot_summary(&setup.bots[0]),
        bot_b: setup.bots.get(1).map(bot_summary),
        time_control: setup.time_control,
        expires_ms: (progress.status == MatchStatus::Pending).then_some(progress.expires_ms),
        legs: progress
            .legs
            .iter()
            .enumerate()
            .map(|(i, leg)| {
                let (to_move, pending) = pending_of(leg);
                LegSummary {
                    leg: i,
                    status: leg.status(),
                    revision: leg.revision,
                    to_move,
                    clocks_ms: leg.clocks_ms.clone(),
                    turn_started_ms: leg.turn_started_ms,
                    pending,
                }
            })
            .collect(),
        result: progress.result.clone(),
        server_now_ms: now_ms,
        participants: many.then(|| participant_list(setup)),
        table: table_seats(setup),
        challenger_seat: setup.seat,
    }
}

/// An open table's seats.
fn table_seats(setup: &Setup) -> Option<TableSeats> {
    setup.table.then_some(TableSeats {
        table: true,
        seats: setup.seat_count,
    })
}

/// The full state for one reader.
pub(crate) fn snapshot(
    setup: &Setup,
    progress: &Progress,
    reader: Reader,
    now_ms: i64,
) -> MatchSnapshot {
    snapshot_with(setup, progress, reader, now_ms, true)
}

/// A match as `reader` may see it, with its pending decisions only `with_turns`: building
/// them is most of a snapshot's cost, and readers that know whose turn it is from the legs
/// do without.
pub(crate) fn snapshot_with(
    setup: &Setup,
    progress: &Progress,
    reader: Reader,
    now_ms: i64,
    with_turns: bool,
) -> MatchSnapshot {
    let ended = !progress.is_open();
    let legs = progress
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
            let (to_move, pending) = pending_of(leg);
            LegSnapshot {
                leg: i,
                status: leg.status(),
                first_seat_participant: leg.first_seat_participant,
                revision: leg.revision,
                to_move,
                clocks_ms: leg.clocks_ms.clone(),
                turn_started_ms: leg.turn_started_ms,
                remaining_ms: leg
                    .mover()
                    .map(|(seat, _)| leg.remaining_ms(seat, now_ms).max(0)),
                end: leg.ended.as_ref().map(|e| LegEndSummary {
                    reason: e.reason.clone(),
                    scores: e.scores.clone(),
                    at_ms: e.at_ms,
                }),
                moves_at_ms: leg.moves.iter().map(|m| m.at_ms).collect(),
                view: leg.state.view(viewer),
                pending,
            }
        })
        .collect();
    let seated = !reader.participants.is_empty() && !reader.omniscient;
    MatchSnapshot {
        id: setup.id,
        status: progress.status,
        game: setup.family.id(),
        variant: setup.variant.clone(),
        format: setup.format,
        rated: setup.rated,
        auto: setup.auto,
        self_play: setup.self_play(),
        time_control: setup.time_control,
        participants: participant_list(setup),
        created_ms: setup.created_ms,
        expires_ms: (progress.status == MatchStatus::Pending).then_some(progress.expires_ms),
        started_ms: progress.started_ms,
        ended_ms: progress.ended_ms,
        commitment: setup.seed.commitment().as_hex().to_owned(),
        seed: (ended && !setup.terms.sealed).then(|| setup.seed.reveal().to_owned()),
        tournament: setup.terms.tournament,
        legs,
        result: progress.result.clone(),
        seq: progress.seq,
        server_now_ms: now_ms,
        table: table_seats(setup),
        you: seated.then(|| reader.participants.iter(setup.seats()).collect()),
        turns: (seated && with_turns).then(|| {
            turns(setup, progress, reader.participants, now_ms, &|_, _, _| {
                true
            })
        }),
    }
}
