//! One whole six-player game played by the rule bots, rules included: the unit of the balance
//! simulator, whose budget is 10,000 six-player games per minute per core (6 ms a game).
//!
//! The driver is the simplest table an arena or simulator would run: it offers claims to
//! every seat once per phase, asks every pending seat for its decision on that seat's own
//! view, and when nobody owes anything runs the clock to the rules' next deadline.

use std::hint::black_box;

use arbiter_fate_tokens::bots::{claims, decide};
use arbiter_fate_tokens::{FateConfig, FateTokens, PhaseKind};
use arbiter_rules::{Ctx, Game, Seat, ToAct, Viewer};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Games per measured iteration, each with its own seed.
const GAMES: u64 = 50;

/// Plays one game; returns the number of bot decisions and claims made.
fn play(players: u8, seed: u64) -> usize {
    let config = FateConfig {
        players,
        ..FateConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bots = ChaCha8Rng::seed_from_u64(!seed);
    let (mut state, _) = FateTokens::start(&config, &mut Ctx::new(0, &mut rng)).expect("valid");
    let mut now = 0;
    let mut offered = 0;
    let mut actions = 0;
    while state.phase_kind() != PhaseKind::Over {
        if state.phase_number() != offered {
            offered = state.phase_number();
            for seat in (0..players).map(Seat) {
                let view = FateTokens::view(&state, Viewer::Seat(seat));
                for claim in claims(&view, &mut bots) {
                    FateTokens::apply(&mut state, seat, &claim, &mut Ctx::new(now, &mut rng))
                        .expect("a legal claim");
                    actions += 1;
                }
            }
        }
        match FateTokens::to_act(&state) {
            ToAct::Simultaneous { phase, pending } if !pending.is_empty() => {
                for seat in pending.iter() {
                    if state.phase_number() != phase {
                        break;
                    }
                    let view = FateTokens::view(&state, Viewer::Seat(seat));
                    let action = decide(&view, &mut bots).expect("a decision");
                    FateTokens::apply(&mut state, seat, &action, &mut Ctx::new(now, &mut rng))
                        .expect("a legal decision");
                    actions += 1;
                }
            }
            _ => {
                now = FateTokens::deadline(&state).expect("a deadline");
                FateTokens::on_deadline(&mut state, &mut Ctx::new(now, &mut rng));
            }
        }
    }
    actions
}

fn games(c: &mut Criterion) {
    let actions: usize = (0..GAMES).map(|seed| play(6, seed)).sum();
    println!(
        "six players: {:.0} bot actions a game on average over {GAMES} games",
        actions as f64 / GAMES as f64
    );
    let mut group = c.benchmark_group("bots");
    group.throughput(Throughput::Elements(GAMES));
    for players in [6u8, 4, 8] {
        group.bench_function(
            format!("{players}-player games, {GAMES} per iteration"),
            |b| {
                b.iter(|| {
                    for seed in 0..GAMES {
                        black_box(play(players, black_box(seed)));
                    }
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, games);
criterion_main!(benches);
