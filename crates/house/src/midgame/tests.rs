use arbiter_othello::{Kernels, Position, Variant};
use arbiter_othello_eval::{FORMAT_VERSION, MAGIC, PATTERN_SET, SCALE, WEIGHTS_PER_STAGE, Weights};
use rand::RngExt;

use super::{Found, TABLE_ENTRIES, search, search_in};
use crate::Limits;
use crate::tests::{random_game, rng};
use crate::tree::Table;

/// Weights of one stage drawn at random, so that leaves score unevenly and every part of the
/// search (ordering, the table, the aspiration windows) matters.
fn random_weights(seed: u64) -> Weights {
    let mut bytes = Vec::with_capacity(10 + 2 * WEIGHTS_PER_STAGE);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&PATTERN_SET.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    let mut draw = rng(seed);
    for _ in 0..WEIGHTS_PER_STAGE {
        let weight: i16 = draw.random_range(-200..=200);
        bytes.extend_from_slice(&weight.to_le_bytes());
    }
    Weights::from_bytes(&bytes).expect("valid weights")
}

const UNLIMITED: Limits = Limits {
    deadline: None,
    max_nodes: None,
    selective: false,
};

fn sides(position: &Position) -> (u64, u64) {
    let (p, o) = position.sides();
    (p as u64, o as u64)
}

/// Plain minimax to `depth` plies over the same leaves, passes costing no depth: what the
/// search must find with all its pruning.
fn minimax(kernels: Kernels, weights: &Weights, goal: i32, p: u64, o: u64, depth: u32) -> i32 {
    let moves = kernels.moves8(p, o);
    if moves == 0 {
        if kernels.moves8(o, p) == 0 {
            return goal * (p.count_ones() as i32 - o.count_ones() as i32) * SCALE;
        }
        return -minimax(kernels, weights, goal, o, p, depth);
    }
    if depth == 0 {
        return weights.evaluate(p, o);
    }
    let mut best = i32::MIN;
    let mut rest = moves;
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let flips = kernels.flips8(p, o, sq);
        let score = -minimax(
            kernels,
            weights,
            goal,
            o & !flips,
            p | flips | 1 << sq,
            depth - 1,
        );
        best = best.max(score);
    }
    best
}

/// Positions of random games with between `fewest` and `most` empties and a legal move.
fn positions(
    variant: Variant,
    seeds: std::ops::Range<u64>,
    fewest: u32,
    most: u32,
) -> Vec<Position> {
    seeds
        .flat_map(|seed| random_game(variant, seed))
        .filter(|position| {
            let empties = crate::endgame::empties(position);
            (fewest..=most).contains(&empties) && position.legal_moves() != 0
        })
        .collect()
}

#[test]
fn the_search_scores_as_plain_minimax_does() {
    let kernels = Kernels::best();
    let weights = random_weights(7);
    for (variant, goal) in [(Variant::Std, 1), (Variant::Anti, -1)] {
        for position in positions(variant, 0..6, 24, 40).into_iter().step_by(5) {
            let (p, o) = sides(&position);
            for depth in 1..=5 {
                // A fresh table each time: a deeper search's entries would answer for
                // shallower ones.
                let found = search_in(
                    &mut Table::with_entries(TABLE_ENTRIES),
                    kernels,
                    &weights,
                    goal < 0,
                    (p, o),
                    depth,
                    &UNLIMITED,
                )
                .expect("a move");
                assert_eq!(
                    found.score,
                    minimax(kernels, &weights, goal, p, o, depth),
                    "{variant:?} depth {depth}: {position:?}"
                );
                let (np, no) = {
                    let flips = kernels.flips8(p, o, u32::from(found.square));
                    (o & !flips, p | flips | 1 << found.square)
                };
                assert_eq!(
                    -minimax(kernels, &weights, goal, np, no, depth - 1),
                    found.score,
                    "the move reaches the score"
                );
            }
        }
    }
}

#[test]
fn searched_to_the_end_the_score_is_the_exact_margin() {
    let kernels = Kernels::best();
    let weights = random_weights(3);
    for variant in [Variant::Std, Variant::Anti] {
        for position in positions(variant, 10..16, 6, 11).into_iter().step_by(3) {
            let (p, o) = sides(&position);
            let found = search(
                kernels,
                &weights,
                variant == Variant::Anti,
                (p, o),
                60,
                &UNLIMITED,
            )
            .expect("a move");
            let exact = crate::solve(&position, &UNLIMITED).expect("solved");
            assert_eq!(
                found.score,
                exact.score * SCALE,
                "{variant:?}: {position:?}"
            );
        }
    }
}

#[test]
fn a_node_limited_search_is_deterministic_and_plays_a_legal_move() {
    let kernels = Kernels::best();
    let weights = random_weights(11);
    let limits = Limits {
        deadline: None,
        max_nodes: Some(5_000),
        selective: false,
    };
    for position in positions(Variant::Std, 20..24, 30, 50)
        .into_iter()
        .step_by(7)
    {
        let (p, o) = sides(&position);
        let fresh = || {
            search_in(
                &mut Table::with_entries(TABLE_ENTRIES),
                kernels,
                &weights,
                false,
                (p, o),
                60,
                &limits,
            )
            .expect("a move")
        };
        let first: Found = fresh();
        assert_eq!(fresh(), first);
        assert!(kernels.moves8(p, o) >> first.square & 1 == 1);
        assert!(first.depth >= 2, "{first:?}");
        // A table kept from an earlier search of the position lets the next go at least as
        // deep.
        let mut kept = Table::with_entries(TABLE_ENTRIES);
        let before = search_in(&mut kept, kernels, &weights, false, (p, o), 60, &limits);
        let after = search_in(&mut kept, kernels, &weights, false, (p, o), 60, &limits);
        assert!(after.expect("a move").depth >= before.expect("a move").depth);
    }
}

#[test]
fn choosing_with_weights_is_deterministic_and_solves_the_end() {
    let weights = random_weights(5);
    let limits = Limits {
        deadline: None,
        max_nodes: Some(20_000),
        selective: false,
    };
    for variant in [Variant::Std, Variant::Anti] {
        for position in positions(variant, 30..33, 8, 40).into_iter().step_by(4) {
            let choice = crate::choose_with_weights(&position, &weights, 60, &limits);
            assert!(position.check(choice.mv).is_ok(), "{position:?}");
            assert_eq!(
                crate::choose_with_weights(&position, &weights, 60, &limits),
                choice,
                "node-limited choices repeat"
            );
            let empties = crate::endgame::empties(&position);
            if empties <= 10 && position.legal_moves().count_ones() > 1 {
                let exact = crate::solve(&position, &UNLIMITED).expect("solved");
                let solved = crate::choose_with_weights(&position, &weights, 60, &UNLIMITED);
                let score = solved.score.expect("a score");
                assert_eq!(solved.depth, empties);
                assert_eq!(score.signum() * crate::WIN_SCORE + exact.score, score);
            }
        }
    }
}

/// Positions of standard-Othello games between node-limited house searches over the shipped
/// weights, from random openings, one move in eight random for variety: every third one
/// with between 14 and 56 empties.
fn played_positions(games: std::ops::Range<u64>, nodes: u64) -> Vec<Position> {
    let weights = crate::shipped_weights(Variant::Std).expect("shipped weights");
    let limits = crate::tests::node_limit(nodes);
    let mut sampled = Vec::new();
    for seed in games {
        let mut position = random_game(Variant::Std, seed)[0];
        let mut draw = rng(seed ^ 0x5eed);
        let mut ply = 0;
        while !position.is_over() {
            let empties = crate::endgame::empties(&position);
            if ply % 3 == 0 && (14..=56).contains(&empties) && position.legal_moves() != 0 {
                sampled.push(position);
            }
            let legal = position.legal_move_list();
            let mv = if draw.random_range(0..8) == 0 {
                legal[draw.random_range(0..legal.len())]
            } else {
                crate::choose_with_weights(&position, weights, 60, &limits).mv
            };
            position.play(mv).expect("legal move");
            ply += 1;
        }
    }
    sampled
}

/// The exact (unpruned) scores of a position at depths `0..=deepest`, each from a fresh
/// table, since a deeper search's entries would answer for shallower ones.
fn scores_by_depth(weights: &Weights, (p, o): (u64, u64), deepest: u32) -> Vec<i32> {
    (0..=deepest)
        .map(|depth| {
            let mut table = Table::with_entries(TABLE_ENTRIES);
            let mut searcher = super::Searcher {
                kernels: Kernels::best(),
                weights,
                goal: 1,
                table: &mut table,
                meter: crate::tree::Meter::new(&UNLIMITED),
                selective: false,
            };
            searcher.negamax(p, o, depth, -super::INFINITY, super::INFINITY)
        })
        .collect()
}

/// Fits Multi-ProbCut's table (`probcut.rs`) and prints it: for each deep depth and stage,
/// the mean and standard deviation of the deep score less the shallow one over positions of
/// played games. Deterministic; several minutes on two cores.
#[test]
#[ignore = "a fit that takes minutes: cargo test --release -p arbiter-house fit_probcut -- \
            --ignored --nocapture"]
fn fit_probcut() {
    const DEEPEST: u32 = 12;
    let weights = crate::shipped_weights(Variant::Std).expect("shipped weights");
    let positions = played_positions(0..24, 3_000);
    let halves = positions.split_at(positions.len() / 2);
    let scored: Vec<(u32, Vec<i32>)> = std::thread::scope(|scope| {
        let work = |part: &[Position]| {
            part.iter()
                .map(|position| {
                    let empties = crate::endgame::empties(position);
                    (empties, scores_by_depth(weights, sides(position), DEEPEST))
                })
                .collect::<Vec<_>>()
        };
        let first = scope.spawn(move || work(halves.0));
        let mut all = work(halves.1);
        all.extend(first.join().expect("the first half"));
        all
    });
    println!("{} positions", scored.len());
    let stages = super::probcut::stage_bounds();
    for deep in super::probcut::MIN_DEPTH..=DEEPEST {
        let shallow = super::probcut::shallow_depth(deep);
        let (mut row, mut counts) = (Vec::new(), Vec::new());
        for stage in 0..stages.len() {
            let low = if stage == 0 { 0 } else { stages[stage - 1] };
            let diffs: Vec<f64> = scored
                .iter()
                .filter(|(empties, _)| (low..stages[stage]).contains(empties))
                .filter(|(empties, _)| deep < *empties)
                .map(|(_, s)| f64::from(s[deep as usize] - s[shallow as usize]))
                .collect();
            let n = diffs.len().max(1) as f64;
            let mean = diffs.iter().sum::<f64>() / n;
            let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n;
            row.push(format!("({mean:.0}, {:.0})", var.sqrt()));
            counts.push(diffs.len().to_string());
        }
        println!(
            "    // depth {deep}, shallow {shallow}, positions {}\n    [{}],",
            counts.join(", "),
            row.join(", ")
        );
    }
    assert!(!scored.is_empty());
}

#[test]
fn a_selective_search_reaches_deeper_with_the_same_nodes() {
    let weights = crate::shipped_weights(Variant::Std).expect("shipped weights");
    let limits = |selective| Limits {
        max_nodes: Some(100_000),
        selective,
        ..Limits::default()
    };
    let (mut exact_depths, mut selective_depths) = (0, 0);
    for position in played_positions(0..2, 500).into_iter().step_by(3) {
        let search = |selective| {
            search(
                Kernels::best(),
                weights,
                false,
                sides(&position),
                60,
                &limits(selective),
            )
            .expect("a move")
        };
        let (exact, selective) = (search(false), search(true));
        assert_eq!(search(true), selective, "deterministic under a node limit");
        assert!(position.legal_moves() >> selective.square & 1 == 1);
        exact_depths += exact.depth;
        selective_depths += selective.depth;
    }
    assert!(
        selective_depths > exact_depths,
        "selective {selective_depths} plies against {exact_depths}"
    );
}

#[test]
fn a_stopped_iteration_plays_a_move_only_once_it_proved_better() {
    let weights = crate::shipped_weights(Variant::Std).expect("shipped weights");
    let kernels = Kernels::best();
    let exact_after = |(p, o): (u64, u64), square: u8, depth: u32| {
        let flips = kernels.flips8(p, o, u32::from(square));
        -scores_by_depth(weights, (o & !flips, p | flips | 1 << square), depth)[depth as usize]
    };
    let mut switched = 0;
    for position in played_positions(0..2, 500).into_iter().step_by(4) {
        let sides = sides(&position);
        for nodes in (2_000..=20_000).step_by(2_000) {
            let limits = Limits {
                max_nodes: Some(nodes),
                ..UNLIMITED
            };
            let found = search(kernels, weights, false, sides, 60, &limits).expect("a move");
            // The same search without the node limit, stopped after the depth that limit
            // completed: its table is as large, so its iterations are the same.
            let entries = usize::try_from(nodes).expect("small").next_power_of_two();
            let completed = search_in(
                &mut Table::with_entries(entries.clamp(1 << 10, TABLE_ENTRIES)),
                kernels,
                weights,
                false,
                sides,
                found.depth,
                &UNLIMITED,
            )
            .expect("a move");
            if found.square == completed.square {
                continue;
            }
            // The next depth's exact scores of both moves: the move played is better.
            switched += 1;
            let next = found.depth;
            assert!(
                exact_after(sides, found.square, next) > exact_after(sides, completed.square, next),
                "{nodes} nodes: {found:?} against {completed:?} in {position:?}"
            );
        }
    }
    assert!(switched > 0, "no stopped iteration changed the move");
}
