//! The house players of chess, Chess960 and Dice Chess, which decide from the seat's view
//! alone.
//!
//! - `orthodox.rs`: standard chess and Chess960 — a random move, the greedy capture, or the
//!   alpha-beta search of `search.rs`, scored by `eval.rs`.
//! - `dice.rs`: Dice Chess — one micro-move at a time, from a plan of the whole rest of the
//!   turn: the greedy turn, or an expectimax search over the next rolls.
//! - `budget.rs`: the nodes and time a search may use.
//!
//! Each level plays as well as its thinking time allows (`HouseLevel::max_think_ms`); tests
//! fix a node budget instead, which makes every choice the same on any machine.

mod dice;
mod eval;
mod orthodox;
mod search;

#[cfg(test)]
mod strength;
#[cfg(test)]
mod tests;

use std::time::Instant;

use arbiter_plugin::{HouseLevel, HousePlayer, SeatView};
use arbiter_rules::Random;
use serde_json::Value;

use crate::game::{ChessView, Variant};

/// The house player of chess, at every level and in every variant.
#[derive(Clone, Copy, Debug, Default)]
pub struct House;

/// The bounds of one decision: the deadline, and for tests and reproducible games a node
/// budget that makes the choice independent of the machine's speed.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// When the decision must be made.
    pub deadline: Instant,
    /// At most this many search nodes, if any limit.
    pub max_nodes: Option<u64>,
}

impl HousePlayer for House {
    fn choose(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value {
        // The arena's deadline already keeps within the level's thinking time and the clock.
        // A searcher reads the clock every few hundred nodes and then unwinds, so it stops
        // a little after its deadline: a fiftieth of the thinking time is kept for that.
        let think = deadline.saturating_duration_since(Instant::now());
        let limits = Limits {
            deadline: deadline.checked_sub(think / 50).unwrap_or(deadline),
            max_nodes: None,
        };
        choose_with_limits(view, level, limits, rng)
    }

    fn decisions_left(&self, view: &SeatView<'_>) -> i64 {
        match view.typed().downcast::<ChessView>() {
            Ok(game) => decisions_left(&game),
            Err(_) => 20,
        }
    }
}

/// How many decisions the side to move probably still has: some 40 moves a game, and at
/// least 10 more however long it has run. A Dice Chess turn is up to three micro-moves,
/// each a decision, less those of the turn already played.
fn decisions_left(game: &ChessView) -> i64 {
    match game.variant {
        Variant::Standard | Variant::Chess960 => {
            let played = i64::try_from(game.moves.len()).unwrap_or(i64::MAX) / 2;
            (40 - played).max(10)
        }
        Variant::Dice => {
            let turns = (40 - i64::from(game.fullmove.saturating_sub(1))).max(10);
            let played = game
                .dice
                .as_ref()
                .map_or(0, |d| i64::try_from(d.played.len()).unwrap_or(0));
            (turns * 3 - played).max(1)
        }
    }
}

/// [`HousePlayer::choose`] within `limits`: the level's action for the view's seat, always
/// one of its legal actions (`Value::Null` when it has none).
pub fn choose_with_limits(
    view: &SeatView<'_>,
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Value {
    let legal = view.legal_actions();
    let Some(first) = legal.first() else {
        return Value::Null;
    };
    if level == HouseLevel::Random {
        return arbiter_rules::random::choose(rng, &legal)
            .unwrap_or(first)
            .clone();
    }
    let Ok(game) = view.typed().downcast::<ChessView>() else {
        return first.clone();
    };
    let chosen = match game.variant {
        Variant::Standard | Variant::Chess960 => orthodox::choose(&game, level, limits, rng),
        Variant::Dice => dice::choose(&game, level, limits, rng),
    };
    // The rules' list is the last word: a choice not on it (which would be a bug here) is
    // replaced by a legal action rather than sent.
    chosen
        .map(Value::String)
        .filter(|action| legal.contains(action))
        .unwrap_or_else(|| first.clone())
}
