//! Dice Chess turn counting: every (position, roll) pair of middlegame positions and the 56
//! rolls of three dice, the work an expectimax player does at each chance node.

use std::hint::black_box;

use arbiter_chess::{DiceBoard, DiceRules, DiceSet, count_turns};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Middlegame positions of real games (they are Dice Chess positions too).
const MIDDLEGAMES: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp3ppp/2nbpn2/3p4/3P4/1PN1PN2/1BP1BPPP/R2Q1RK1 b - - 2 10",
    "r4rk1/p4ppp/1q2p3/2n1P3/2p5/3bRNP1/1P3PBP/R2Q2K1 b - - 0 24",
    "2r3k1/1b4bp/1p2p1p1/3pNp2/3P1P1q/PB1Q3P/1P4P1/4R1K1 w - - 2 36",
    "4rrk1/1b4bp/p1p1p1p1/3pN3/1P3q2/PQN3P1/2P1RP1P/3R2K1 b - - 0 24",
    "rnbq1rk1/ppp1bppp/4p3/3pP1n1/2PP3P/5PP1/PP4B1/RNBQK1NR b KQ - 0 8",
    "r4k1r/ppq2ppp/4bB2/8/2p5/4P3/P3BPPP/1R1Q1RK1 b - - 0 17",
    "rnbqk1nr/1p3ppp/p3p3/2bp4/4P3/5N2/PPPN1PPP/R1BQKB1R w KQkq - 0 6",
    "r2q1rk1/1p1b1p1p/p5p1/3QP3/8/5N2/PP3PPP/2KR3R b - - 0 20",
];

fn turns(c: &mut Criterion) {
    let boards: Vec<DiceBoard> = MIDDLEGAMES
        .iter()
        .map(|fen| DiceBoard::from_dfen(fen).expect("a position").0)
        .collect();
    let rolls: Vec<DiceSet> = DiceSet::all_rolls().into_iter().map(|(d, _)| d).collect();
    let rules = DiceRules::default();
    let mut group = c.benchmark_group("dice");
    group.throughput(Throughput::Elements((boards.len() * rolls.len()) as u64));
    group.bench_function("count_turns_middlegames_x56", |b| {
        b.iter(|| {
            let mut total = 0u64;
            for board in &boards {
                for &dice in &rolls {
                    total += count_turns(black_box(board), black_box(dice), &rules).turns;
                }
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, turns);
criterion_main!(benches);
