//! Tests of the house players through the plugin seam: positions set up as the rules start
//! them, each level's answer checked with a node budget (never a timed assertion), and
//! random positions of every variant in which every level must answer with a legal action.

use std::time::{Duration, Instant};

use arbiter_plugin::{HouseLevel, SeatView};
use arbiter_rules::{Ctx, Dice, DynGame, DynState, Seat, ToAct};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::{Value, json};

use super::*;
use crate::{ChessConfig, FAMILY, RULES};

/// The searching levels.
pub(super) const SEARCHING: [HouseLevel; 3] =
    [HouseLevel::Easy, HouseLevel::Medium, HouseLevel::Hard];

/// Every level but Random.
pub(super) const ALL_BUT_RANDOM: [HouseLevel; 4] = [
    HouseLevel::Greedy,
    HouseLevel::Easy,
    HouseLevel::Medium,
    HouseLevel::Hard,
];

/// Dice that roll the faces listed by nonce, and pawn, knight, bishop after.
pub(super) struct Script(pub(super) Vec<[u8; 3]>);

impl Dice for Script {
    fn roll(&self, nonce: u64, _sides: u8, count: usize) -> Vec<u8> {
        let faces = self.0.get(nonce as usize).copied().unwrap_or([1, 2, 3]);
        faces.iter().copied().take(count).collect()
    }
}

/// A game of `config` started with scripted dice.
pub(super) fn start(config: &ChessConfig, dice: &Script) -> Box<dyn DynState> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let config = serde_json::to_value(config).expect("a config");
    let mut ctx = Ctx::new(0, &mut rng).with_dice(dice);
    let (state, _) = RULES.start(&config, &mut ctx).expect("a game");
    state
}

/// A game of the variant from `fen`.
pub(super) fn from_fen(variant: Variant, fen: &str, dice: &Script) -> Box<dyn DynState> {
    let config = ChessConfig {
        fen: Some(fen.to_owned()),
        ..ChessConfig::of(variant)
    };
    start(&config, dice)
}

pub(super) fn seat_to_move(state: &dyn DynState) -> Option<Seat> {
    match state.to_act() {
        ToAct::Turn { seat } => Some(seat),
        _ => None,
    }
}

/// The level's choice with a far deadline and `nodes` search nodes.
pub(super) fn decide(state: &dyn DynState, level: HouseLevel, nodes: u64, seed: u64) -> Value {
    let seat = seat_to_move(state).expect("a seat to move");
    let view = SeatView::new(state, seat);
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(600),
        max_nodes: Some(nodes),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    choose_with_limits(&view, level, limits, &mut rng)
}

/// Nodes a test search of standard chess may use: enough for the positions here, and the
/// same on any machine.
const CHESS_NODES: u64 = 200_000;

#[test]
fn the_family_has_its_house_player() {
    assert!(FAMILY.house.is_some());
}

/// A mate in one is found from Easy up, for either colour: the chosen move ends the game
/// by checkmate.
#[test]
fn a_mate_in_one_is_found_from_easy() {
    for fen in [
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1",
        "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1",
        "2kr4/ppp5/8/8/8/8/5q2/7K b - - 0 1",
    ] {
        let state = from_fen(Variant::Standard, fen, &Script(vec![]));
        for level in SEARCHING {
            let chosen = decide(state.as_ref(), level, CHESS_NODES, 1);
            let mut after = state.clone();
            let seat = seat_to_move(state.as_ref()).expect("a seat");
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            after
                .apply(seat, &chosen, &mut Ctx::new(0, &mut rng))
                .expect("a legal move");
            let outcome = after.outcome().map(|o| o.reason);
            assert_eq!(
                outcome.as_deref(),
                Some("checkmate"),
                "{fen} at {}: {chosen}",
                level.name()
            );
        }
    }
}

/// A queen left hanging is taken from Greedy up.
#[test]
fn a_hanging_queen_is_taken_from_greedy() {
    let cases = [
        ("4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1", "c3d5"),
        ("4k3/8/2n5/8/3Q4/8/8/4K3 b - - 0 1", "c6d4"),
    ];
    for (fen, expected) in cases {
        let state = from_fen(Variant::Standard, fen, &Script(vec![]));
        for level in ALL_BUT_RANDOM {
            assert_eq!(
                decide(state.as_ref(), level, CHESS_NODES, 2),
                json!(expected),
                "{fen} at {}",
                level.name()
            );
        }
    }
}

/// Mates in two, one of them with a quiet first move (Morphy's rook sacrifice), are found
/// at Medium within the node budget.
#[test]
fn a_mate_in_two_is_found_at_medium() {
    let cases = [
        ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", "a1a6"),
        ("r5k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1", "e2e8"),
    ];
    for (fen, expected) in cases {
        let state = from_fen(Variant::Standard, fen, &Script(vec![]));
        for level in [HouseLevel::Medium, HouseLevel::Hard] {
            assert_eq!(
                decide(state.as_ref(), level, CHESS_NODES, 3),
                json!(expected),
                "{fen} at {}",
                level.name()
            );
        }
    }
}

/// The searching levels do not give a piece away: not for a pawn a pawn defends (which
/// Greedy takes), nor by leaving a knight where a pawn takes it.
#[test]
fn the_searching_levels_do_not_blunder_a_piece() {
    let bait = from_fen(
        Variant::Standard,
        "4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1",
        &Script(vec![]),
    );
    assert_eq!(
        decide(bait.as_ref(), HouseLevel::Greedy, CHESS_NODES, 4),
        json!("e3d5")
    );
    let attacked = from_fen(
        Variant::Standard,
        "4k3/8/8/4p3/3N4/8/8/4K3 w - - 0 1",
        &Script(vec![]),
    );
    for level in SEARCHING {
        let chosen = decide(bait.as_ref(), level, CHESS_NODES, 4);
        assert_ne!(chosen, json!("e3d5"), "{}", level.name());
        let chosen = decide(attacked.as_ref(), level, CHESS_NODES, 4);
        let text = chosen.as_str().expect("a move");
        assert!(
            text.starts_with("d4"),
            "{} left the knight: {text}",
            level.name()
        );
    }
}

/// In Chess960 castling is written as the king taking its own rook, and the players write it
/// so; with a node budget, each choice is the same every time.
#[test]
fn chess960_moves_are_legal_and_choices_repeat() {
    let config = ChessConfig {
        chess960_position: Some(0),
        ..ChessConfig::of(Variant::Chess960)
    };
    let state = start(&config, &Script(vec![]));
    for level in HouseLevel::ALL {
        let first = decide(state.as_ref(), level, 20_000, 9);
        let again = decide(state.as_ref(), level, 20_000, 9);
        assert_eq!(first, again, "{}", level.name());
        let seat = seat_to_move(state.as_ref()).expect("a seat");
        assert!(state.legal_actions(seat).contains(&first), "{first}");
    }
}

#[test]
fn decisions_left_shrinks_with_the_game_and_stays_above_ten() {
    let house = FAMILY.house.expect("a house player");
    let state = start(&ChessConfig::of(Variant::Standard), &Script(vec![]));
    let view = SeatView::new(state.as_ref(), Seat(0));
    assert_eq!(house.decisions_left(&view), 40);
    let late = from_fen(
        Variant::Standard,
        "4k3/8/8/8/8/8/8/4K2R w - - 0 90",
        &Script(vec![]),
    );
    let view = SeatView::new(late.as_ref(), Seat(0));
    assert!(house.decisions_left(&view) >= 10);
    let dice = start(&ChessConfig::of(Variant::Dice), &Script(vec![[1, 2, 4]]));
    let view = SeatView::new(dice.as_ref(), Seat(0));
    assert_eq!(house.decisions_left(&view), 120);
}

/// A position `plies` random moves into a game of `variant`.
pub(super) fn random_position(variant: Variant, seed: u64, plies: usize) -> Box<dyn DynState> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut config = ChessConfig::of(variant);
    if variant == Variant::Chess960 {
        config.chess960_position = Some((seed % 960) as u32);
    }
    let config = serde_json::to_value(&config).expect("a config");
    let (mut state, _) = RULES
        .start(&config, &mut Ctx::new(0, &mut rng))
        .expect("a game");
    for ply in 0..plies {
        let Some(seat) = seat_to_move(state.as_ref()) else {
            break;
        };
        let legal = state.legal_actions(seat);
        let Some(action) = arbiter_rules::random::choose(&mut rng, &legal).cloned() else {
            break;
        };
        let mut after = state.clone();
        after
            .apply(seat, &action, &mut Ctx::new(ply as u64, &mut rng))
            .expect("a legal action");
        if seat_to_move(after.as_ref()).is_none() {
            // Keep a position with a decision to make.
            break;
        }
        state = after;
    }
    state
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every level answers every variant's random positions with a legal action.
    #[test]
    fn every_level_plays_a_legal_action(seed in 0u64..1_000_000, plies in 0usize..80) {
        for variant in [Variant::Standard, Variant::Chess960, Variant::Dice] {
            let state = random_position(variant, seed, plies);
            let Some(seat) = seat_to_move(state.as_ref()) else { continue };
            let legal = state.legal_actions(seat);
            for level in HouseLevel::ALL {
                let chosen = decide(state.as_ref(), level, 3_000, seed);
                prop_assert!(legal.contains(&chosen), "{} {:?}: {chosen}", level.name(), variant);
            }
        }
    }
}

/// The depth and nodes each searching level reaches in its thinking time on middlegame
/// positions; run by hand with `--ignored --nocapture`.
#[test]
#[ignore = "a timing report, not a test"]
fn report_search_depths() {
    use cozy_chess::Board;

    use super::search::Searcher;
    use crate::standard::legal_moves;
    use arbiter_plugin::Budget;

    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "r1bq1rk1/pp3ppp/2nbpn2/3p4/3P4/1PN1PN2/1BP1BPPP/R2Q1RK1 b - - 2 10",
    ] {
        let board: Board = fen.parse().expect("a position");
        for level in SEARCHING {
            let settings = orthodox::settings(level).expect("a searching level");
            let start = Instant::now();
            let think = u64::try_from(level.max_think_ms()).unwrap_or(0);
            let budget = Budget::new(start + Duration::from_millis(think), u64::MAX);
            let mut searcher = Searcher::new(budget, settings, vec![board.hash()]);
            let found = searcher.search(&board, &legal_moves(&board), settings.max_depth);
            println!(
                "{fen} {:>6}: {found:?} in {:.0} ms",
                level.name(),
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}
