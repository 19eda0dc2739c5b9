//! Perft throughput per SIMD level and variant (leaves per second as the throughput).

use arbiter_othello::{Kernels, Position, Variant, perft};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion, variant: Variant, depth: u32, threads: usize) {
    let start = Position::start(variant);
    let leaves = perft(&start, depth, threads, Kernels::best());
    let mut group = c.benchmark_group(format!("perft/{variant}/depth{depth}/threads{threads}"));
    group.throughput(Throughput::Elements(leaves));
    group.sample_size(10);
    for kernels in Kernels::all_supported() {
        group.bench_function(kernels.level().name(), |b| {
            b.iter(|| perft(&start, depth, threads, kernels))
        });
    }
    group.finish();
}

fn perft_benches(c: &mut Criterion) {
    bench(c, Variant::Std, 9, 1);
    bench(c, Variant::Std, 10, 2);
    bench(c, Variant::Grand, 8, 1);
    bench(c, Variant::Octagon, 8, 1);
    bench(c, Variant::Reversi, 11, 1);
}

criterion_group!(benches, perft_benches);
criterion_main!(benches);
