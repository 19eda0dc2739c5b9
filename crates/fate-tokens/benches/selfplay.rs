//! One whole six-player game of random players, from the deal to the end of the ending: the
//! unit of work of the balance simulator (`arbiter selfplay fate-tokens`).
//!
//! Each iteration plays the next seed, so the time is an average over many different games;
//! games per minute per core is 60 / the time per iteration in seconds.

use std::hint::black_box;

use arbiter_fate_tokens::selfplay::{RandomPlayers, play};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn selfplay(c: &mut Criterion) {
    let mut group = c.benchmark_group("selfplay");
    group.throughput(Throughput::Elements(1));
    group.bench_function("random_6_players", |b| {
        let mut seed = 0u64;
        b.iter(|| {
            seed += 1;
            play(6, black_box(seed), &RandomPlayers).expect("a game that ends")
        });
    });
    group.finish();
}

criterion_group!(benches, selfplay);
criterion_main!(benches);
