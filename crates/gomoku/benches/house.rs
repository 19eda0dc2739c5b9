//! The house player's time per decision at each level, on mid-game 15×15 positions of
//! freestyle and Renju games, and the slowest `Hard` decision beside its 1.5 s budget.

use std::hint::black_box;
use std::time::{Duration, Instant};

use arbiter_gomoku::{FAMILY, GomokuConfig, RULES, RuleSet};
use arbiter_plugin::{HouseLevel, HousePlayer, SeatView};
use arbiter_rules::{Ctx, DynGame, DynState, Seat, ToAct};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// The positions each level is timed on, per rule set.
const POSITIONS: usize = 3;

fn house() -> &'static dyn HousePlayer {
    FAMILY.house.expect("Gomoku has a house player")
}

fn seat_to_move(state: &dyn DynState) -> Option<Seat> {
    match state.to_act() {
        ToAct::Turn { seat } => Some(seat),
        _ => None,
    }
}

/// Positions of Greedy-against-Greedy games, each taken once 20 stones are down: the kind
/// of crowded middle game where threats and blocks are to be found.
fn positions(rule: RuleSet) -> Vec<Box<dyn DynState>> {
    let config = GomokuConfig {
        rule,
        ..GomokuConfig::default()
    };
    let config = serde_json::to_value(&config).expect("a config");
    let mut positions = Vec::new();
    for seed in 0.. {
        if positions.len() == POSITIONS {
            break;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut state, _) = RULES
            .start(&config, &mut Ctx::new(0, &mut rng))
            .expect("a game");
        for stones in 0..20 {
            let Some(seat) = seat_to_move(state.as_ref()) else {
                break;
            };
            let view = SeatView::new(state.as_ref(), seat);
            let chosen = house().choose(&view, HouseLevel::Greedy, Instant::now(), &mut rng);
            state
                .apply(seat, &chosen, &mut Ctx::new(stones, &mut rng))
                .expect("a legal stone");
        }
        if seat_to_move(state.as_ref()).is_some() {
            positions.push(state);
        }
    }
    positions
}

fn decisions(c: &mut Criterion) {
    for (name, rule) in [("freestyle", RuleSet::Freestyle), ("renju", RuleSet::Renju)] {
        let positions = positions(rule);
        let mut group = c.benchmark_group(format!("house_{name}"));
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.sample_size(10);
        for level in HouseLevel::ALL {
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            group.bench_function(level.name(), |b| {
                b.iter(|| {
                    for state in &positions {
                        let seat = seat_to_move(state.as_ref()).expect("a seat to move");
                        let view = SeatView::new(state.as_ref(), seat);
                        // A far deadline: the level's own thinking time bounds it.
                        let deadline = Instant::now() + Duration::from_secs(10);
                        black_box(house().choose(&view, level, deadline, &mut rng));
                    }
                });
            });
        }
        group.finish();
        // Criterion gives the mean; the budget is about the slowest decision.
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let slowest = positions
            .iter()
            .map(|state| {
                let seat = seat_to_move(state.as_ref()).expect("a seat to move");
                let view = SeatView::new(state.as_ref(), seat);
                let start = Instant::now();
                let deadline = start + Duration::from_secs(10);
                black_box(house().choose(&view, HouseLevel::Hard, deadline, &mut rng));
                start.elapsed()
            })
            .max()
            .unwrap_or_default();
        println!(
            "house_{name}: slowest Hard decision {slowest:?} (budget {} ms)",
            HouseLevel::Hard.max_think_ms()
        );
    }
}

criterion_group!(benches, decisions);
criterion_main!(benches);
