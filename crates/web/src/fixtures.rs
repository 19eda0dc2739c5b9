//! Typed matches for the unit tests, with every field a test does not care about at a plain
//! default.

use arbiter_arena::snapshot::{ClosedMatch, LegSnapshot, LegStatus, ParticipantSummary};
use arbiter_arena::{BotKind, Format, MatchResult, MatchSnapshot, MatchStatus, TimeControl};
use serde_json::Value;

/// Participants named `names`, with ids from 1, as registered bots.
pub(crate) fn participants(names: &[&str]) -> Vec<ParticipantSummary> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| ParticipantSummary {
            id: i as i64 + 1,
            name: (*name).to_owned(),
            kind: BotKind::Registered,
            participant: Some(i),
        })
        .collect()
}

/// A running match of `participants` with `legs`.
pub(crate) fn snapshot(
    participants: Vec<ParticipantSummary>,
    legs: Vec<LegSnapshot>,
) -> MatchSnapshot {
    MatchSnapshot {
        id: 1,
        status: MatchStatus::Running,
        game: "cards",
        variant: "std".to_owned(),
        format: Format::Single,
        rated: false,
        auto: false,
        self_play: false,
        time_control: TimeControl::default(),
        participants,
        created_ms: 0,
        expires_ms: None,
        started_ms: None,
        ended_ms: None,
        commitment: String::new(),
        seed: None,
        tournament: None,
        legs,
        result: None,
        seq: 0,
        server_now_ms: 0,
        table: None,
        you: None,
        turns: None,
    }
}

/// An active leg whose first seat is `first`'s, with `clocks_ms` and `view`.
pub(crate) fn leg(first: usize, clocks_ms: Vec<i64>, view: Value) -> LegSnapshot {
    LegSnapshot {
        leg: 0,
        status: LegStatus::Active,
        first_seat_participant: first,
        revision: 0,
        to_move: None,
        clocks_ms,
        turn_started_ms: 0,
        remaining_ms: None,
        end: None,
        moves_at_ms: Vec::new(),
        view,
        pending: None,
    }
}

/// A finished match of `participants` in `game`'s `variant`, with `result`.
pub(crate) fn closed(
    participants: Vec<ParticipantSummary>,
    game: &str,
    variant: &str,
    result: Option<MatchResult>,
) -> ClosedMatch {
    ClosedMatch {
        id: 1,
        status: MatchStatus::Finished,
        game: game.to_owned(),
        variant: variant.to_owned(),
        rated: false,
        participants,
        created_ms: 0,
        ended_ms: None,
        result,
    }
}
