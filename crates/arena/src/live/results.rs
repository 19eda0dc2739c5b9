//! How legs and matches end: a leg's end with the rules' ranks, the match's result (one leg
//! ranked as the rules ranked it, several by their summed scores, a forfeiting participant
//! last), resignation, closing a challenge, and a finished match's rating change.

use super::*;

pub(crate) fn close(
    setup: &Setup,
    progress: &mut Progress,
    status: MatchStatus,
    reason: &str,
    now_ms: i64,
) {
    progress.set_status(status);
    progress.ended_ms = Some(now_ms);
    progress.result = Some(MatchResult::closed(reason));
    let mut payload = json!({"reason": reason});
    reveal_seed(setup, &mut payload);
    let kind = match status {
        MatchStatus::Aborted => "aborted",
        MatchStatus::Expired => "expired",
        _ => reason,
    };
    progress.emit(setup, now_ms, Audience::Everyone, kind, payload);
}

/// Puts the seed in the payload of the event that ends the match, unless the match is
/// sealed: then another match still playing from the same seed could read it.
fn reveal_seed(setup: &Setup, payload: &mut Value) {
    if !setup.terms.sealed {
        payload["seed"] = json!(setup.seed.reveal());
    }
}

pub(super) fn finish_leg_if_over(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    now_ms: i64,
) {
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

pub(super) fn end_leg(
    setup: &Setup,
    progress: &mut Progress,
    leg_index: usize,
    reason: &str,
    outcome: &Outcome,
    now_ms: i64,
) {
    let leg = &mut progress.legs[leg_index];
    let end = leg.end(reason, outcome, now_ms);
    let payload = json!({"leg": leg_index, "reason": reason, "scores": end.scores});
    leg.ended = Some(end);
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
pub(crate) fn finish(
    setup: &Setup,
    progress: &mut Progress,
    reason: &str,
    loser: Option<usize>,
    now_ms: i64,
) {
    let mut order = ScoreOrder::HigherIsBetter;
    let mut totals = vec![0i64; setup.seats()];
    for leg in &mut progress.legs {
        if leg.ended.is_none() {
            let seat = leg.seat_of(loser.unwrap_or(0));
            let forfeit = leg.state.forfeit(seat);
            leg.score_order = forfeit.score_order;
            leg.ended = Some(leg.end("stopped", &forfeit, now_ms));
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
    // A team game's teams, as the rules gave them, where one leg decides the match.
    let teams = match (loser, progress.legs.as_slice()) {
        (None, [leg]) => leg
            .ended
            .as_ref()
            .filter(|end| end.teams.iter().any(Option::is_some))
            .map(|end| end.teams.clone()),
        _ => None,
    };
    let result = MatchResult {
        reason: reason.to_owned(),
        ranking: Some(Ranking {
            winner,
            totals,
            rated: setup.rated,
            ranks: (setup.seats() > 2).then_some(ranks),
            teams,
        }),
        ratings: None,
    };
    let mut payload = json!(result);
    reveal_seed(setup, &mut payload);
    progress.result = Some(result);
    progress.ended_ms = Some(now_ms);
    progress.set_status(MatchStatus::Finished);
    progress.emit(setup, now_ms, Audience::Everyone, "finished", payload);
}

/// Records a finished match's rating change (see `ratings`): in its result, and as a `rated`
/// event that replay folds back into the result.
pub(crate) fn note_ratings(
    setup: &Setup,
    progress: &mut Progress,
    change: &RatingChange,
    now_ms: i64,
) {
    if let Some(result) = progress.result.as_mut() {
        merge_ratings(result, change);
    }
    progress.row_changed = true;
    progress.emit(setup, now_ms, Audience::Everyone, "rated", json!(change));
}

pub(super) fn merge_ratings(result: &mut MatchResult, change: &RatingChange) {
    result.ratings = Some(ResultRatings {
        rating_applied: true,
        rating_before: change.rating_before.clone(),
        rating_after: change.rating_after.clone(),
    });
}

/// `bot` resigns: it loses the match, or, in a game of more than two whose rules play on
/// without it, it leaves (see [`leave`]).
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
    // A participant that has left has nothing more to give up.
    if !progress.gone.contains(loser) && !leave(setup, progress, loser, "resign", now_ms) {
        finish(setup, progress, "resign", Some(loser), now_ms);
    }
    Ok(())
}

/// `bot` aborts a running match: no result and no rating, as if it had not been played.
/// A match may be aborted only until every participant has moved in it, so that a bot whose
/// opponent never shows up can leave, but no one can undo a game once both sides are in it.
pub(crate) fn abort(
    setup: &Setup,
    progress: &mut Progress,
    bot: BotId,
    now_ms: i64,
) -> Result<(), ArenaError> {
    if setup
        .participants_of(bot)
        .iter(setup.seats())
        .next()
        .is_none()
    {
        return Err(ArenaError::NotParticipant);
    }
    if progress.status != MatchStatus::Running {
        return Err(ArenaError::MatchNotRunning);
    }
    if progress.moved.iter().all(|&moved| moved) {
        return Err(ArenaError::InvalidRequest(
            "the match can no longer be aborted: every player has moved".to_owned(),
        ));
    }
    close(setup, progress, MatchStatus::Aborted, "aborted", now_ms);
    Ok(())
}

/// A participant of a match of more than two leaves it (`reason`: it resigned or its bot is
/// gone) if the rules of every unfinished leg play on without it, taking its decisions with
/// their defaults; returns whether it left. Otherwise nothing changes, and the caller ends
/// the match with the participant last.
pub(crate) fn leave(
    setup: &Setup,
    progress: &mut Progress,
    participant: usize,
    reason: &str,
    now_ms: i64,
) -> bool {
    if setup.seats() <= 2 || setup.self_play() || progress.gone.contains(participant) {
        return false;
    }
    let nonce = progress.seq + 1;
    let Some(left) = leave_legs(setup, progress, participant, nonce, now_ms) else {
        return false;
    };
    progress.gone = progress.gone.with(participant);
    let mut legs = Vec::new();
    let mut private = Vec::new();
    for (leg, events) in left {
        let l = &progress.legs[leg];
        let (public, mine) = split_events(events, l.first_seat_participant, l.seats());
        legs.push(json!({"leg": leg, "events": public, "clocks_ms": l.clocks_ms}));
        private.push((leg, mine));
    }
    let payload = json!({"participant": participant, "reason": reason, "legs": legs});
    progress.emit(setup, now_ms, Audience::Everyone, "left", payload);
    for (leg, events) in private {
        emit_private(setup, progress, now_ms, leg, events);
    }
    for leg in 0..progress.legs.len() {
        finish_leg_if_over(setup, progress, leg, now_ms);
    }
    true
}

/// Lets `participant` leave every unfinished leg, all or none: the legs' states change only if
/// the rules of each play on without it. Returns each changed leg's events.
pub(super) fn leave_legs(
    setup: &Setup,
    progress: &mut Progress,
    participant: usize,
    nonce: i64,
    now_ms: i64,
) -> Option<Vec<(usize, Vec<Emitted<Value>>)>> {
    let mut states = Vec::new();
    for (i, leg) in progress.legs.iter().enumerate() {
        if leg.ended.is_some() {
            continue;
        }
        let mut state = leg.state.clone();
        let mut rng = setup.rng(nonce);
        let ctx = &mut setup.ctx(now_ms, &mut rng);
        let events = state.leave(leg.seat_of(participant), ctx)?;
        states.push((i, state, events));
    }
    let mut left = Vec::new();
    for (i, state, events) in states {
        let leg = &mut progress.legs[i];
        let before = leg.phase();
        leg.state = state;
        leg.revision += 1;
        // The others' pending decisions stay as announced while their phase goes on.
        if before.is_none() || leg.phase() != before {
            leg.turn_started_ms = now_ms;
            leg.period_revision = leg.revision;
        }
        left.push((i, events));
    }
    Some(left)
}

/// Ends a running or pending match after a long outage.
pub(crate) fn abort_technical(setup: &Setup, progress: &mut Progress, now_ms: i64) {
    close(setup, progress, MatchStatus::Aborted, "technical", now_ms);
}
