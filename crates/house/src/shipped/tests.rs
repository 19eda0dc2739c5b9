use arbiter_othello::{Position, Variant};
use arbiter_othello_eval::Weights;

use super::{move_time_ms, shipped_weights};
use crate::endgame;
use crate::tests::random_game;

/// The image of `bits` (bit `8 * row + column`) under the board symmetry `g`: bit 0 mirrors
/// left and right, bit 1 top and bottom, bit 2 swaps rows and columns.
fn image(bits: u64, g: u8) -> u64 {
    let mut out = 0;
    for sq in 0..64u32 {
        if bits >> sq & 1 == 0 {
            continue;
        }
        let (mut row, mut column) = (sq / 8, sq % 8);
        if g & 1 != 0 {
            column = 7 - column;
        }
        if g & 2 != 0 {
            row = 7 - row;
        }
        if g & 4 != 0 {
            (row, column) = (column, row);
        }
        out |= 1 << (8 * row + column);
    }
    out
}

#[test]
fn the_shipped_weights_load_for_the_8x8_boards_only() {
    let std = shipped_weights(Variant::Std).expect("standard Othello's weights read");
    let anti = shipped_weights(Variant::Anti).expect("anti-Othello's weights read");
    assert!(std::ptr::eq(
        std,
        shipped_weights(Variant::Reversi).expect("Reversi's weights")
    ));
    assert!(shipped_weights(Variant::Grand).is_none());
    assert!(shipped_weights(Variant::Octagon).is_none());
    // Compared as booleans: a failure would otherwise print megabytes of weights.
    assert!(
        std.to_bytes() != anti.to_bytes(),
        "each goal has its own weights"
    );
    for weights in [std, anti] {
        let untrained = Weights::zero_with_stages(weights.stage_count());
        assert!(
            weights.to_bytes() != untrained.to_bytes(),
            "the weights are trained"
        );
    }
}

#[test]
fn the_shipped_weights_score_the_eight_symmetries_of_a_position_alike() {
    for variant in [Variant::Std, Variant::Anti] {
        let weights = shipped_weights(variant).expect("weights");
        for seed in 0..20 {
            for position in random_game(variant, seed).iter().step_by(3) {
                let (p, o) = position.sides();
                let (p, o) = (p as u64, o as u64);
                let score = weights.evaluate(p, o);
                for g in 1..8 {
                    assert_eq!(
                        weights.evaluate(image(p, g), image(o, g)),
                        score,
                        "{variant:?}, seed {seed}, symmetry {g}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_game_never_runs_out_of_time_even_if_every_move_takes_all_it_may() {
    for clock in [1_000, 60_000, 600_000] {
        for seed in 0..10 {
            let positions = random_game(Variant::Std, seed);
            let mut left = clock;
            // One side's moves: every other position, from the first.
            for position in positions.iter().step_by(2).filter(|p| !p.is_over()) {
                let spend = move_time_ms(position, left);
                assert!((0..=left / 3).contains(&spend), "{spend} of {left}");
                left -= spend;
            }
            assert!(left > 0, "the clock lasts the game");
            // Moves are not starved either: the clock is spent, not hoarded.
            assert!(
                left < clock / 3,
                "seed {seed}: {left} of {clock} ms left unused"
            );
        }
    }
}

#[test]
fn the_midgame_gets_the_most_time_and_the_solver_keeps_a_reserve() {
    // One side of a game whose searches spend half their time, as they do at least on
    // average (they start no iteration past half of it), and whose solved moves cost nothing.
    let clock = 60_000;
    let solve_at = endgame::ENDGAME_EMPTIES;
    for seed in 0..5 {
        let mut left = clock;
        let mut budgets: Vec<(u32, i64)> = Vec::new();
        for position in random_game(Variant::Std, seed)
            .iter()
            .step_by(2)
            .filter(|p| !p.is_over())
        {
            let empties = endgame::empties(position);
            let budget = move_time_ms(position, left);
            if empties > solve_at {
                left -= budget / 2;
            }
            budgets.push((empties, budget));
        }
        let most = |range: std::ops::RangeInclusive<u32>| {
            budgets
                .iter()
                .filter(|(empties, _)| range.contains(empties))
                .map(|&(_, budget)| budget)
                .max()
                .unwrap_or(0)
        };
        let (opening, midgame) = (most(51..=60), most(solve_at + 1..=50));
        let solving = most(solve_at - 3..=solve_at);
        assert!(opening < midgame, "seed {seed}: {budgets:?}");
        assert!(solving < midgame, "seed {seed}: {budgets:?}");
        // A second and a half of a minute: several times what a typical 20-empty solve takes
        // from nothing, and far more than one the midgame's searches have prepared.
        assert!(solving > clock / 40, "seed {seed}: {budgets:?}");
        assert!(
            left > clock / 10,
            "seed {seed}: {left} ms left for the endgame"
        );
    }
    // A 10x10 board has no solver: its moves share the clock by the opening and the rest.
    assert!(move_time_ms(&Position::start(Variant::Grand), 96_000) > 0);
    assert_eq!(move_time_ms(&Position::start(Variant::Std), 0), 0);
}
