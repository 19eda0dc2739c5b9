//! Tests of the Dice Chess players: hand-made positions and rolls whose right turn is
//! known, and random positions in which every planned turn must be one the rules accept,
//! micro-move by micro-move.

use std::time::{Duration, Instant};

use arbiter_plugin::HouseLevel;
use arbiter_rules::{Ctx, DynState};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::json;

use super::*;
use crate::game::Variant;
use crate::house::tests::{
    ALL_BUT_RANDOM, SEARCHING, Script, decide, from_fen, random_position, seat_to_move,
};

/// Nodes a test plan may use: enough for the positions here, and the same on any machine.
const DICE_NODES: u64 = 300_000;

/// A Dice Chess game from `fen`, its first roll `faces`.
fn dice_game(fen: &str, faces: [u8; 3]) -> Box<dyn DynState> {
    from_fen(Variant::Dice, fen, &Script(vec![faces]))
}

/// The view of the seat to move.
fn view_of(state: &dyn DynState) -> ChessView {
    let seat = seat_to_move(state).expect("a seat to move");
    *arbiter_plugin::SeatView::new(state, seat)
        .typed()
        .downcast::<ChessView>()
        .expect("a chess view")
}

/// The level's plan of the rest of the turn, with `nodes` nodes.
fn plan_of(state: &dyn DynState, level: HouseLevel, nodes: u64, seed: u64) -> Vec<String> {
    let view = view_of(state);
    let turn = view.dice_turn().expect("a turn");
    let legal: Vec<_> = view
        .legal_moves
        .iter()
        .filter_map(|m| squares_of(m))
        .collect();
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(600),
        max_nodes: Some(nodes),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    plan(&turn, &legal, level, limits, &mut rng)
        .expect("a plan")
        .iter()
        .map(MicroMove::to_string)
        .collect()
}

/// Every level but Random takes the king when a turn can, even with fewer dice than the
/// turn could use, and even when the capture needs a micro-move to prepare it.
#[test]
fn the_king_is_taken_whenever_a_turn_can_take_it() {
    let cases = [
        // The knight takes the king at once; the rook could take the queen instead.
        ("4k3/8/3N4/8/8/4K3/8/R6q w - - 0 1", [2, 4, 1], "d6e8"),
        // The pawn opens the bishop's diagonal to the king; the bishop could take the
        // queen instead.
        ("8/6k1/8/8/3P4/q7/1B6/4K3 w - - 0 1", [1, 3, 2], "d4d5"),
    ];
    for (fen, faces, expected) in cases {
        let state = dice_game(fen, faces);
        for level in ALL_BUT_RANDOM {
            assert_eq!(
                decide(state.as_ref(), level, DICE_NODES, 1),
                json!(expected),
                "{fen} at {}",
                level.name()
            );
        }
    }
}

/// Greedy finds the turn that wins the most material, though its first micro-move wins
/// little: the knight takes a pawn and clears the file for the rook to take the queen.
#[test]
fn greedy_plays_the_turn_that_wins_the_most_material() {
    let state = dice_game("q6k/8/8/1p6/8/N3K3/8/R6r w - - 0 1", [2, 4, 3]);
    assert_eq!(
        plan_of(state.as_ref(), HouseLevel::Greedy, DICE_NODES, 1),
        ["a3b5", "a1a8"]
    );
    assert_eq!(
        decide(state.as_ref(), HouseLevel::Greedy, DICE_NODES, 1),
        json!("a3b5")
    );
}

/// With only its king to move, Greedy takes a pawn with it, onto a square the queen and a
/// knight attack (a roll holds a queen or a knight 152 times in 216); the searching levels
/// see the capture coming and keep the king safe.
#[test]
fn the_searching_levels_keep_the_king_out_of_a_likely_capture() {
    let state = dice_game("3q3k/8/8/8/8/1n6/3p4/4K3 w - - 0 1", [6, 3, 3]);
    assert_eq!(
        decide(state.as_ref(), HouseLevel::Greedy, DICE_NODES, 1),
        json!("e1d2")
    );
    for level in SEARCHING {
        let chosen = decide(state.as_ref(), level, DICE_NODES, 1);
        assert_ne!(chosen, json!("e1d2"), "{}", level.name());
    }
}

/// With a node budget a plan is the same every time.
#[test]
fn plans_repeat_with_a_node_budget() {
    let state = random_position(Variant::Dice, 11, 24);
    for level in SEARCHING {
        let first = plan_of(state.as_ref(), level, 50_000, 5);
        assert_eq!(
            first,
            plan_of(state.as_ref(), level, 50_000, 5),
            "{}",
            level.name()
        );
    }
}

/// Plays the turn under way by asking `level` for each micro-move, as the arena does; every
/// micro-move must be accepted, and the turn must end with the plan.
fn play_turn(state: &mut Box<dyn DynState>, level: HouseLevel, nodes: u64, seed: u64) {
    let seat = seat_to_move(state.as_ref()).expect("a seat to move");
    let planned = plan_of(state.as_ref(), level, nodes, seed);
    assert!(!planned.is_empty() && planned.len() <= 3, "{planned:?}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for (step, text) in planned.iter().enumerate() {
        let mut after = state.clone();
        after
            .apply(seat, &json!(text), &mut Ctx::new(step as u64, &mut rng))
            .unwrap_or_else(|e| panic!("{planned:?} at {}: {e:?}", level.name()));
        let over = after.outcome().is_some();
        let turn_ended = over || seat_to_move(after.as_ref()) != Some(seat) || {
            let view = view_of(after.as_ref());
            view.dice.is_some_and(|d| d.played.is_empty())
        };
        assert_eq!(
            turn_ended,
            step + 1 == planned.len(),
            "{planned:?} at {}, step {step}",
            level.name()
        );
        // What the player answers now is a legal micro-move too.
        if !turn_ended {
            let next = decide(after.as_ref(), level, nodes, seed);
            assert!(after.legal_actions(seat).contains(&next), "{next}");
        }
        *state = after;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Every level's plan is a complete turn the rules accept micro-move by micro-move,
    /// from random positions, and the game goes on from it.
    #[test]
    fn plans_are_turns_the_rules_accept(seed in 0u64..1_000_000, plies in 0usize..90) {
        let mut state = random_position(Variant::Dice, seed, plies);
        for level in ALL_BUT_RANDOM {
            if seat_to_move(state.as_ref()).is_none() {
                break;
            }
            play_turn(&mut state, level, 4_000, seed);
        }
    }
}

/// Times each level's plan on middlegame positions with their real budgets; run by hand
/// with `--ignored --nocapture` to size the levels.
#[test]
#[ignore = "a timing report, not a test"]
fn report_plan_times() {
    for seed in 0..8 {
        let state = random_position(Variant::Dice, seed, 30);
        if seat_to_move(state.as_ref()).is_none() {
            continue;
        }
        let view = view_of(state.as_ref());
        let turn = view.dice_turn().expect("a turn");
        let legal: Vec<_> = view
            .legal_moves
            .iter()
            .filter_map(|m| squares_of(m))
            .collect();
        for level in HouseLevel::ALL {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let start = Instant::now();
            let think = u64::try_from(level.max_think_ms()).unwrap_or(0);
            let limits = Limits {
                deadline: start + Duration::from_millis(think),
                max_nodes: None,
            };
            let planned = plan_with_stats(&turn, &legal, level, limits, &mut rng);
            let (line, stats) = planned.expect("a plan");
            let line: Vec<String> = line.iter().map(MicroMove::to_string).collect();
            println!(
                "seed {seed} {} {:>6}: {line:?} {:>7.1} ms {stats:?}",
                view.dfen.as_deref().unwrap_or(""),
                level.name(),
                start.elapsed().as_secs_f64() * 1e3,
            );
        }
    }
}
