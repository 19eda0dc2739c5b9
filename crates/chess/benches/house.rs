//! The house players' time per decision at each level, on middlegame positions of standard
//! chess and of Dice Chess (the same positions, with a few rolls), and the slowest `Hard`
//! decision of each beside its 1.5 s budget.

use std::hint::black_box;
use std::time::{Duration, Instant};

use arbiter_chess::{ChessConfig, FAMILY, RULES, Variant};
use arbiter_plugin::{HouseLevel, HousePlayer, SeatView};
use arbiter_rules::{Ctx, Dice, DynGame, DynState, Seat, ToAct};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Middlegame positions of real games (Dice Chess positions too).
const MIDDLEGAMES: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp3ppp/2nbpn2/3p4/3P4/1PN1PN2/1BP1BPPP/R2Q1RK1 b - - 2 10",
];

/// The first roll of each Dice Chess position: pawn, knight and queen; bishop, rook and
/// king; two knights and a rook.
const ROLLS: &[[u8; 3]] = &[[1, 2, 5], [3, 4, 6], [2, 2, 4]];

/// Dice that roll the faces given.
struct Fixed([u8; 3]);

impl Dice for Fixed {
    fn roll(&self, _nonce: u64, _sides: u8, count: usize) -> Vec<u8> {
        self.0.iter().copied().take(count).collect()
    }
}

fn house() -> &'static dyn HousePlayer {
    FAMILY.house.expect("chess has a house player")
}

fn seat_to_move(state: &dyn DynState) -> Option<Seat> {
    match state.to_act() {
        ToAct::Turn { seat } => Some(seat),
        _ => None,
    }
}

/// The positions of `variant`, as games started from them.
fn positions(variant: Variant) -> Vec<Box<dyn DynState>> {
    MIDDLEGAMES
        .iter()
        .zip(ROLLS)
        .map(|(fen, &faces)| {
            let config = ChessConfig {
                fen: Some((*fen).to_owned()),
                ..ChessConfig::of(variant)
            };
            let config = serde_json::to_value(&config).expect("a config");
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let dice = Fixed(faces);
            let mut ctx = Ctx::new(0, &mut rng).with_dice(&dice);
            RULES.start(&config, &mut ctx).expect("a game").0
        })
        .collect()
}

fn decisions(c: &mut Criterion) {
    for variant in [Variant::Standard, Variant::Dice] {
        let positions = positions(variant);
        let mut group = c.benchmark_group(format!("house_{}", variant.as_str()));
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
            "house_{}: slowest Hard decision {slowest:?} (budget {} ms)",
            variant.as_str(),
            HouseLevel::Hard.max_think_ms()
        );
    }
}

criterion_group!(benches, decisions);
criterion_main!(benches);
