//! What the clock makes happen: expiry, flag falls, turn warnings and timeouts, the rules'
//! phase deadlines, missing first moves and disconnections, in the order they fall due.

use super::*;

/// Something the clock can make happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Happening {
    Expire,
    Flag { leg: usize },
    TurnWarning { leg: usize },
    TurnTimeout { leg: usize },
    RulesDeadline { leg: usize },
    NoFirstMove { participant: usize },
    Disconnect { participant: usize },
    Recheck,
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
            // A participant that left is judged no more.
            let judged = |p: &usize| !progress.gone.contains(*p);
            // Players who poll are judged by the clocks alone.
            let judged = |p: &usize| judged(p) && !setup.terms.polled;
            for participant in (0..setup.seats())
                .filter(|&p| !setup.is_human(p))
                .filter(judged)
            {
                if let (Some(at), false) = (
                    progress.first_turn_at[participant],
                    progress.moved[participant],
                ) {
                    due.push((
                        at + setup.config.first_move_ms,
                        Happening::NoFirstMove { participant },
                    ));
                }
            }
            if !setup.self_play() {
                for participant in (0..setup.seats()).filter(judged) {
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
            Happening::TurnWarning { leg } => warn_turn(setup, progress, leg, at),
            Happening::RulesDeadline { leg } => rules_deadline(setup, progress, leg, at),
            Happening::NoFirstMove { participant } => {
                if setup.terms.no_show_forfeits {
                    finish(setup, progress, "no_first_move", Some(participant), at)
                } else {
                    close(setup, progress, MatchStatus::Aborted, "no_first_move", at)
                }
            }
            Happening::Disconnect { participant } => {
                if !leave(setup, progress, participant, "disconnect", at) {
                    finish(setup, progress, "disconnect", Some(participant), at)
                }
            }
            Happening::Recheck => update_absence(setup, progress, at, presence),
        }
        if !progress.is_open() {
            return;
        }
    }
}

/// Warns the mover of `leg` that half its turn's time is gone.
pub(crate) fn warn_turn(setup: &Setup, progress: &mut Progress, leg: usize, at: i64) {
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

/// The rules' own deadline in `leg` has passed: they take their default actions.
pub(crate) fn rules_deadline(setup: &Setup, progress: &mut Progress, leg: usize, at: i64) {
    let nonce = progress.seq + 1;
    let mut rng = setup.rng(nonce);
    let l = &mut progress.legs[leg];
    let events = l.state.on_deadline(&mut setup.ctx(at, &mut rng));
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

/// A flag fell, or a turn ran out: the mover forfeits the leg; the other leg plays on.
///
/// In a game of more than two whose rules play on without a seat, the mover leaves instead
/// (see [`leave`]), and the others play on.
pub(crate) fn time_out(setup: &Setup, progress: &mut Progress, leg_index: usize, at_ms: i64) {
    let leg = &progress.legs[leg_index];
    let Some((seat, participant)) = leg.mover() else {
        return;
    };
    let forfeit = leg.state.forfeit(seat);
    let leg = &mut progress.legs[leg_index];
    leg.clocks_ms[seat.index()] = leg.remaining_ms(seat, at_ms).max(0);
    if !leave(setup, progress, participant, "timeout", at_ms) {
        end_leg(setup, progress, leg_index, "timeout", &forfeit, at_ms);
    }
}

/// The server was down for `downtime_ms` while the match was open: its clocks and deadlines
/// move on by that much, charged to nobody, and a `resumed` event says so, so that a replay
/// and a verifier shift them alike.
pub(crate) fn resume_after(setup: &Setup, progress: &mut Progress, downtime_ms: i64, now_ms: i64) {
    shift_time(progress, downtime_ms);
    progress.emit(
        setup,
        now_ms,
        Audience::Everyone,
        "resumed",
        json!({"downtime_ms": downtime_ms}),
    );
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
