//! Perft from the start position with bulk counting at the leaves: legal move generation and
//! make-move speed, in nodes per second.

use std::hint::black_box;

use arbiter_chess::cozy_chess::Board;
use arbiter_chess::perft;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn start_position(c: &mut Criterion) {
    let board = Board::startpos();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.throughput(Throughput::Elements(4_865_609));
    group.bench_function("start_depth_5", |b| {
        b.iter(|| perft(black_box(&board), black_box(5)));
    });
    let kiwipete: Board = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
        .parse()
        .expect("kiwipete");
    group.throughput(Throughput::Elements(4_085_603));
    group.bench_function("kiwipete_depth_4", |b| {
        b.iter(|| perft(black_box(&kiwipete), black_box(4)));
    });
    group.finish();
}

criterion_group!(benches, start_position);
criterion_main!(benches);
