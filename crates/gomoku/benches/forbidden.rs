//! Renju's forbidden-point check on positions of random games, one check per empty point.

use std::hint::black_box;

use arbiter_gomoku::{Board, Cell, Color};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Boards of random games with stones clustered near the centre, as real games keep them:
/// each after 10 to 60 stones.
fn boards() -> Vec<Board> {
    let mut boards = Vec::new();
    for seed in 0..20 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut board = Board::new(15);
        let mut color = Color::Black;
        while board.stones() < 60 {
            let x = 3 + arbiter_rules::random::below(&mut rng, 9) as usize;
            let y = 3 + arbiter_rules::random::below(&mut rng, 9) as usize;
            if board.get(x, y) != Some(Cell::Empty)
                || board.makes_five(x, y, color, arbiter_gomoku::RuleSet::Renju)
            {
                continue;
            }
            board.place(x, y, color);
            color = color.other();
            if board.stones().is_multiple_of(10) {
                boards.push(board.clone());
            }
        }
    }
    boards
}

fn forbidden(c: &mut Criterion) {
    let boards = boards();
    let checks: usize = boards.iter().map(|b| 225 - b.stones()).sum();
    let mut group = c.benchmark_group("renju");
    group.throughput(Throughput::Elements(checks as u64));
    group.bench_function("forbidden_point_checks", |b| {
        let mut boards = boards.clone();
        b.iter(|| {
            let mut fouls = 0usize;
            for board in &mut boards {
                for y in 0..15 {
                    for x in 0..15 {
                        fouls += usize::from(board.forbidden(black_box(x), black_box(y)).is_some());
                    }
                }
            }
            fouls
        });
    });
    group.finish();
}

criterion_group!(benches, forbidden);
criterion_main!(benches);
