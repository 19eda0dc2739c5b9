//! A strength check of the levels against each other, run by hand (it is slow, and its
//! numbers are reported, not asserted):
//!
//! ```text
//! cargo test -p arbiter-chess --release house::strength -- --ignored --nocapture
//! ```
//!
//! Each pairing plays ten games through the rules' erased API, colours alternating, every
//! decision with a fixed node budget, so the results are the same on any machine; every
//! action must be legal. Standard games start after four random plies, so that the games
//! differ; Dice Chess games differ by their dice.

use std::time::{Duration, Instant};

use arbiter_plugin::{HouseLevel, SeatView};
use arbiter_rules::{Ctx, DynGame};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::tests::seat_to_move;
use super::{Limits, choose_with_limits};
use crate::game::{ChessConfig, ChessView, Variant};
use crate::{RULES, Side};

/// A player: its level and the nodes it may search per decision.
type Player = (HouseLevel, u64);

/// Plies (micro-moves in Dice Chess) after which an unfinished game counts as a draw.
const CAP: usize = 400;

/// Plays one game; the winner, `None` for a draw.
fn play(variant: Variant, white: Player, black: Player, seed: u64) -> Option<Side> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = serde_json::to_value(ChessConfig::of(variant)).expect("a config");
    let (mut state, _) = RULES
        .start(&config, &mut Ctx::new(0, &mut rng))
        .expect("a game");
    for ply in 0..CAP {
        let Some(seat) = seat_to_move(state.as_ref()) else {
            break;
        };
        let (level, nodes) = if seat.0 == 0 { white } else { black };
        let legal = state.legal_actions(seat);
        let level = if variant != Variant::Dice && ply < 4 {
            HouseLevel::Random
        } else {
            level
        };
        let limits = Limits {
            deadline: Instant::now() + Duration::from_secs(600),
            max_nodes: Some(nodes),
        };
        let mut choice_rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(1_000) + ply as u64);
        let view = SeatView::new(state.as_ref(), seat);
        let action = choose_with_limits(&view, level, limits, &mut choice_rng);
        assert!(legal.contains(&action), "{action} is not legal");
        state
            .apply(seat, &action, &mut Ctx::new(ply as u64, &mut rng))
            .expect("a legal action");
    }
    let view = *state
        .typed_view(arbiter_rules::Viewer::Spectator)
        .downcast::<ChessView>()
        .expect("a chess view");
    view.result.and_then(|r| r.winner)
}

/// `games` games of `first` against `second`, colours alternating: `first`'s wins, draws
/// and losses.
fn match_of(variant: Variant, first: Player, second: Player, games: u64) -> (u32, u32, u32) {
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for game in 0..games {
        let first_white = game % 2 == 0;
        let (white, black) = if first_white {
            (first, second)
        } else {
            (second, first)
        };
        let first_side = if first_white {
            Side::White
        } else {
            Side::Black
        };
        match play(variant, white, black, 100 + game) {
            Some(side) if side == first_side => wins += 1,
            Some(_) => losses += 1,
            None => draws += 1,
        }
    }
    (wins, draws, losses)
}

#[test]
#[ignore = "a strength report, run by hand"]
fn report_strength() {
    let chess: [(Player, Player); 3] = [
        ((HouseLevel::Hard, 100_000), (HouseLevel::Easy, 20_000)),
        ((HouseLevel::Medium, 30_000), (HouseLevel::Greedy, 0)),
        ((HouseLevel::Greedy, 0), (HouseLevel::Random, 0)),
    ];
    let dice: [(Player, Player); 3] = [
        ((HouseLevel::Hard, 2_000_000), (HouseLevel::Easy, 200_000)),
        ((HouseLevel::Medium, 1_000_000), (HouseLevel::Greedy, 0)),
        ((HouseLevel::Greedy, 0), (HouseLevel::Random, 0)),
    ];
    for (variant, pairings) in [(Variant::Standard, chess), (Variant::Dice, dice)] {
        for (first, second) in pairings {
            let start = Instant::now();
            let (w, d, l) = match_of(variant, first, second, 10);
            println!(
                "{:>8}: {} ({} nodes) vs {} ({} nodes): +{w} ={d} -{l} ({:.0} s)",
                variant.as_str(),
                first.0.name(),
                first.1,
                second.0.name(),
                second.1,
                start.elapsed().as_secs_f64()
            );
        }
    }
}

/// One pairing named by `HOUSE_MATCH`, `variant:level:nodes:level:nodes:games`
/// (`dice:medium:300000:greedy:0:40`), for sizing the levels by hand.
#[test]
#[ignore = "a strength report, run by hand"]
fn report_one_pairing() {
    let Ok(spec) = std::env::var("HOUSE_MATCH") else {
        return;
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let variant = match parts.first().copied() {
        Some("dice") => Variant::Dice,
        Some("chess960") => Variant::Chess960,
        _ => Variant::Standard,
    };
    let level = |i: usize| HouseLevel::parse(parts.get(i).copied().unwrap_or("")).expect("a level");
    let number = |i: usize| parts.get(i).and_then(|n| n.parse().ok()).expect("a number");
    let first = (level(1), number(2));
    let second = (level(3), number(4));
    let start = Instant::now();
    let (w, d, l) = match_of(variant, first, second, number(5));
    println!(
        "{spec}: +{w} ={d} -{l} ({:.0} s)",
        start.elapsed().as_secs_f64()
    );
}
