//! A match rebuilt from its stored events, as the same functions of time built it.

use super::*;

/// Rebuilds a match from its stored status and events.
pub(crate) fn replay(
    setup: &Setup,
    status: MatchStatus,
    events: &[EventRecord],
) -> Result<Progress, ArenaError> {
    replay_observed(setup, status, events, |_, _| {})
}

/// Rebuilds a match like [`replay`], showing `observe` the match once its legs are set up
/// (`None`) and after each move that is not a free action (the leg moved in).
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
                progress.legs = build_legs(setup, &configs, &mut rng, first, event.at_ms)?
                    .into_iter()
                    .map(|(leg, _)| leg)
                    .collect();
                progress.started_ms = Some(event.at_ms);
                progress.status = MatchStatus::Running;
                note_first_turns(&mut progress, event.at_ms);
                observe(&progress, None);
            }
            "move" => {
                let leg_index = leg_of(p, &progress)?;
                let seat = Seat(u8::try_from(p["seat"].as_u64().unwrap_or(0)).unwrap_or(0));
                let mover = progress.legs[leg_index].participant_of(seat);
                progress.seq = event.seq - 1;
                // A free action moved no clock; it is applied again the way it was.
                let apply = if p["free"] == true {
                    play_free
                } else {
                    apply_move
                };
                apply(
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
                // A free action (a draw offer, a chat line) leaves the position where it was.
                if p["free"] != true {
                    observe(&progress, Some(leg_index));
                }
            }
            "deadline" => {
                let leg_index = leg_of(p, &progress)?;
                progress.seq = event.seq - 1;
                rules_deadline(setup, &mut progress, leg_index, event.at_ms);
            }
            "resumed" => shift_time(&mut progress, p["downtime_ms"].as_i64().unwrap_or(0)),
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
                progress.result =
                    Some(serde_json::from_value(p.clone()).map_err(|_| corrupt("result"))?);
                progress.ended_ms = Some(event.at_ms);
            }
            "left" => {
                let participant = p["participant"]
                    .as_u64()
                    .and_then(|p| usize::try_from(p).ok())
                    .filter(|&p| p < setup.seats())
                    .ok_or_else(|| corrupt("participant"))?;
                leave_legs(setup, &mut progress, participant, event.seq, event.at_ms)
                    .ok_or_else(|| corrupt("a leave the rules refuse"))?;
                // A seat that left on time has its clock as it stood when its flag fell.
                for left in p["legs"].as_array().into_iter().flatten() {
                    let leg = left["leg"].as_u64().and_then(|l| usize::try_from(l).ok());
                    if let (Some(leg), Some(clocks)) = (
                        leg.and_then(|l| progress.legs.get_mut(l)),
                        left["clocks_ms"].as_array(),
                    ) {
                        for (slot, value) in leg.clocks_ms.iter_mut().zip(clocks) {
                            *slot = value.as_i64().unwrap_or(*slot);
                        }
                    }
                }
                progress.gone = progress.gone.with(participant);
                progress.seq = event.seq;
                for leg in 0..progress.legs.len() {
                    finish_leg_if_over(setup, &mut progress, leg, event.at_ms);
                }
            }
            "rated" => {
                let change: RatingChange =
                    serde_json::from_value(p.clone()).map_err(|_| corrupt("rating change"))?;
                if let Some(result) = progress.result.as_mut() {
                    merge_ratings(result, &change);
                }
            }
            // A line in the players' room is stored once per listener; the everyone's copy
            // or the speaker's own counts it.
            "chat" => {
                let speaker = p["participant"]
                    .as_u64()
                    .and_then(|s| usize::try_from(s).ok());
                let counted = match event.audience {
                    Audience::Everyone => true,
                    Audience::Participant(listener) => Some(usize::from(listener)) == speaker,
                };
                if let (Some(speaker), true) = (speaker, counted) {
                    count_chat_line(&mut progress, speaker);
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
