//! What the arena's integration tests of several stores share: the start time, a Goofspiel
//! challenge, and play by first legal actions.

use arbiter_arena::{Arena, Bot, ChallengeRequest, Format, ManualClock, TimeControl};
use serde_json::Value;

/// The clock's start in every test.
pub(crate) const T0: i64 = 1_795_900_000_000;

/// A single Goofspiel game against `opponent` with `initial_ms` on each clock.
pub(crate) fn goofspiel(opponent: &Bot, initial_ms: i64, rated: bool) -> ChallengeRequest {
    ChallengeRequest {
        opponent: opponent.name.clone(),
        game: "goofspiel".to_owned(),
        variant: None,
        format: Format::Single,
        time_control: TimeControl {
            initial_ms,
            increment_ms: 0,
            per_turn_ms: None,
        },
        rated,
        auto: false,
        opening: Default::default(),
        client_seed: None,
    }
}

/// `players[0]` challenges `players[1]` to `request` on `arena`, which accepts; the match.
pub(crate) async fn challenge_accepted(
    arena: &Arena,
    players: &[Bot],
    request: ChallengeRequest,
) -> i64 {
    let id = arena
        .challenge(&players[0], request)
        .await
        .expect("challenge")
        .id;
    arena.accept(&players[1], id, None).await.expect("accept");
    id
}

/// Plays up to `actions` of the players' first legal actions on `arena`, a second apart;
/// returns how many it played.
pub(crate) async fn play(
    arena: &Arena,
    clock: &ManualClock,
    players: &[Bot],
    id: i64,
    actions: usize,
) -> usize {
    let mut played = 0;
    while played < actions {
        let mut acted = false;
        for bot in players {
            let page = arena.turns(bot, id, 0).await.expect("turns");
            let Some(turn) = page.turns.first() else {
                continue;
            };
            let request: Value = serde_json::from_str(&turn.request).expect("json");
            clock.advance(1_000);
            let leg = u8::try_from(turn.leg).expect("leg");
            let action = request["legal_actions"][0].clone();
            arena
                .submit(bot, id, leg, turn.revision, action)
                .await
                .expect("a legal action");
            played += 1;
            acted = true;
            if played == actions {
                break;
            }
        }
        if !acted {
            break;
        }
    }
    played
}
