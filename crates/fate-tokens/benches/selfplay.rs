//! Whole games, from the deal to the end of the ending: the unit of work of the balance
//! simulator (`arbiter selfplay fate-tokens`), whose goal is 10,000 six-player games of rule
//! bots per minute per core (6 ms a game).
//!
//! Each iteration plays the next seed, so the time is an average over many different games;
//! games per minute per core is 60 / the time per iteration in seconds. Rule bots are timed
//! at 4, 6 and 8 players (games grow with the table), random players at 6 as the cost of the
//! rules alone.

use std::hint::black_box;

use arbiter_fate_tokens::selfplay::{Players, RandomPlayers, RuleBots, play};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn selfplay(c: &mut Criterion) {
    let mut group = c.benchmark_group("selfplay");
    group.throughput(Throughput::Elements(1));
    let cases: [(&str, u8, &dyn Players); 4] = [
        ("rule_bots_4_players", 4, &RuleBots),
        ("rule_bots_6_players", 6, &RuleBots),
        ("rule_bots_8_players", 8, &RuleBots),
        ("random_6_players", 6, &RandomPlayers),
    ];
    for (name, players, who) in cases {
        group.bench_function(name, |b| {
            let mut seed = 0u64;
            b.iter(|| {
                seed += 1;
                play(players, black_box(seed), who).expect("a game that ends")
            });
        });
    }
    group.finish();
}

criterion_group!(benches, selfplay);
criterion_main!(benches);
