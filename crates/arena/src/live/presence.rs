//! Presence as the rules of play see it: since when each participant has been gone while
//! another was connected.

use super::*;

/// Presence as seen by the rules of play: house bots are always there.
pub(super) fn presence_of(
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

/// Tracks since when each participant has been gone while the other was connected.
pub(super) fn update_absence(
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
