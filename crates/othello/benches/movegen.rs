//! Move generation and flips on positions from real games, per SIMD level.

use std::hint::black_box;

use arbiter_othello::opening::random_opening;
use arbiter_othello::{Kernels, Position, Variant};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Positions met in games: every position of a few random games, as (player, opponent).
fn game_positions() -> Vec<(u64, u64)> {
    let mut positions = Vec::new();
    for seed in 0..40 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut position = Position::start(Variant::Std);
        for mv in random_opening(Variant::Std, &mut rng).expect("opening") {
            position.play(mv).expect("legal");
        }
        while !position.is_over() {
            let (p, o) = position.sides();
            positions.push((p as u64, o as u64));
            let moves = position.legal_move_list();
            let pick = arbiter_rules::random::below(&mut rng, moves.len() as u32) as usize;
            position.play(moves[pick]).expect("legal");
        }
    }
    positions
}

fn movegen(c: &mut Criterion) {
    let positions = game_positions();
    let mut group = c.benchmark_group("moves8");
    group.throughput(Throughput::Elements(positions.len() as u64));
    for kernels in Kernels::all_supported() {
        group.bench_function(kernels.level().name(), |b| {
            b.iter(|| {
                positions.iter().fold(0u64, |acc, &(p, o)| {
                    acc ^ kernels.moves8(black_box(p), black_box(o))
                })
            })
        });
    }
    group.finish();

    // Every legal move of every position: the flips of one move each.
    let moves: Vec<(u64, u64, u32)> = positions
        .iter()
        .flat_map(|&(p, o)| {
            let legal = Kernels::scalar().moves8(p, o);
            (0..64)
                .filter(move |sq| legal >> sq & 1 != 0)
                .map(move |sq| (p, o, sq))
        })
        .collect();
    let mut group = c.benchmark_group("flips8");
    group.throughput(Throughput::Elements(moves.len() as u64));
    for kernels in Kernels::all_supported() {
        group.bench_function(kernels.level().name(), |b| {
            b.iter(|| {
                moves.iter().fold(0u64, |acc, &(p, o, sq)| {
                    acc ^ kernels.flips8(black_box(p), black_box(o), sq)
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, movegen);
criterion_main!(benches);
