//! Tests of the house players: positions drawn as text, each level's answer checked, and
//! random-ish games in which every action must be legal.

use std::time::{Duration, Instant};

use arbiter_plugin::{HouseLevel, HousePlayer, SeatView};
use arbiter_rules::{Ctx, DynGame, DynState, Seat, ToAct};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::{Value, json};

use super::*;
use crate::RULES;
use crate::board::RuleSet;
use crate::rules::{FoulPolicy, GomokuConfig, OpeningRule};

/// Every level but Random: those that must find a position's obvious move.
const ALL_BUT_RANDOM: [HouseLevel; 4] = [
    HouseLevel::Greedy,
    HouseLevel::Easy,
    HouseLevel::Medium,
    HouseLevel::Hard,
];
/// The searching levels.
const SEARCHING: [HouseLevel; 3] = [HouseLevel::Easy, HouseLevel::Medium, HouseLevel::Hard];

/// Nodes a test search may use: enough for the positions here, and the same on any machine.
const TEST_NODES: u64 = 6_000;

/// A position drawn on a 15×15 board: `rows` are its middle rows, centred as
/// `board/tests.rs` draws them (`X` black, `O` white); `?` marks the moves expected, `!`
/// a move that must not be played. Play is on, with `next` to move.
struct Drawn {
    state: Box<dyn DynState>,
    expected: Vec<Value>,
    refused: Vec<Value>,
}

fn drawn(rule: RuleSet, foul: FoulPolicy, rows: &[&str], next: Color) -> Drawn {
    let size = 15;
    let mut board = Board::new(size);
    let (mut expected, mut refused) = (Vec::new(), Vec::new());
    let top = (size - rows.len()) / 2;
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        let left = (size - cells.len()) / 2;
        for (j, c) in cells.into_iter().enumerate() {
            let (x, y) = (left + j, top + i);
            match c {
                'X' => board.place(x, y, Color::Black),
                'O' => board.place(x, y, Color::White),
                '?' => expected.push(place_action(x, y)),
                '!' => refused.push(place_action(x, y)),
                _ => {}
            }
        }
    }
    let config = GomokuConfig {
        rule,
        foul,
        ..GomokuConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let config = serde_json::to_value(&config).expect("a config");
    let (state, _) = RULES
        .start(&config, &mut Ctx::new(0, &mut rng))
        .expect("a game");
    // The saved state with the drawn board put in: Black is seat 0.
    let mut saved = state.save();
    saved["state"]["board"] = serde_json::to_value(&board).expect("a board");
    saved["state"]["next"] = serde_json::to_value(next).expect("a colour");
    saved["state"]["to_move"] = json!(u8::from(next == Color::White));
    let state = RULES.restore(&saved).expect("the drawn position");
    Drawn {
        state,
        expected,
        refused,
    }
}

fn seat_to_move(state: &dyn DynState) -> Seat {
    match state.to_act() {
        ToAct::Turn { seat } => seat,
        other => panic!("no seat to move: {other:?}"),
    }
}

/// The level's choice with a far deadline and the test node budget.
fn decide(state: &dyn DynState, level: HouseLevel, seed: u64) -> Value {
    let view = SeatView::new(state, seat_to_move(state));
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(600),
        max_nodes: Some(TEST_NODES),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    choose_with_limits(&view, level, limits, &mut rng)
}

/// A position to solve: its name, rule set, colour to move, the levels that must solve it
/// and its rows.
type Puzzle = (
    &'static str,
    RuleSet,
    Color,
    &'static [HouseLevel],
    &'static [&'static str],
);

/// Positions whose answer every level but Random must find: a five to make, a five to
/// stop, Renju's overline for White, a win by fours, and a four-four Black may not play.
#[test]
fn levels_find_the_move_the_position_demands() {
    let cases: &[Puzzle] = &[
        (
            "a five to make",
            RuleSet::Freestyle,
            Color::Black,
            &ALL_BUT_RANDOM,
            &[
                ". . . . . . . . .",
                ". . O O O O . . .",
                ". . . . . . . . .",
                "? X X X X ? . . .",
                ". . . . . . . . .",
            ],
        ),
        (
            "a four to stop",
            RuleSet::Standard,
            Color::White,
            &ALL_BUT_RANDOM,
            &[
                ". . . . . . . . .",
                ". . O . . . . . .",
                ". . . O . . . . .",
                ". O X X X X ? . .",
                ". . . . . . . . .",
            ],
        ),
        (
            "White wins with an overline under Renju",
            RuleSet::Renju,
            Color::White,
            &ALL_BUT_RANDOM,
            &[
                ". . . . . . . . .",
                ". O O O ? O O . .",
                ". . . . . . . . .",
                "O X X X X ! . . .",
                ". . . . . . . . .",
            ],
        ),
        (
            "an overline wins nothing under standard rules: block the four",
            RuleSet::Standard,
            Color::White,
            &ALL_BUT_RANDOM,
            &[
                ". . . . . . . . .",
                ". O O O ! O O . .",
                ". . . . . . . . .",
                "? X X X X ? . . .",
                ". . . . . . . . .",
            ],
        ),
        (
            "a win by continuous fours: a four, then four-four (or four-three)",
            RuleSet::Freestyle,
            Color::Black,
            &SEARCHING,
            &[
                ". . . . . . . . . . . . . . .",
                ". . . . . . . . O . . . . . .",
                ". . . . . . . . X . . . . . .",
                ". . . . . . . . X . . . . . .",
                ". . . . O X X X ? ? . . . . .",
                ". . . . . . . . ? X X X O . .",
                ". . . . . . . . . . . . . . .",
                ". . . . . . . . . . . . . . .",
                ". . . . . . . . . . . . . . .",
            ],
        ),
        (
            "Renju: the four-four is forbidden, the straight four is not",
            RuleSet::Renju,
            Color::Black,
            &ALL_BUT_RANDOM,
            &[
                ". . . . . . . . . .",
                ". . . . . . O . . .",
                ". . . . . . X . . .",
                ". . . . . . X . . .",
                ". . . . . . X . . .",
                ". . ? X X X ! . . .",
                ". . . . . . . . . .",
                ". . . . . . . . . .",
            ],
        ),
    ];
    for &(name, rule, next, levels, rows) in cases {
        let position = drawn(rule, FoulPolicy::Loss, rows, next);
        assert!(!position.expected.is_empty(), "{name}: no move marked");
        for &level in levels {
            let chosen = decide(position.state.as_ref(), level, 3);
            assert!(
                position.expected.contains(&chosen),
                "{name}, {level:?}: played {chosen}, expected one of {:?}",
                position.expected
            );
            assert!(!position.refused.contains(&chosen), "{name}, {level:?}");
        }
    }
}

/// Under Renju, with fouls lost rather than refused, a point forbidden to Black is legal but
/// loses: no level plays it, even where it looks like the only win.
#[test]
fn black_never_plays_a_forbidden_point() {
    let cases: &[(&str, &[&str])] = &[
        (
            "a four-four",
            &[
                ". . . . . . . . .",
                ". . . . . O . . .",
                ". . . . . X . . .",
                ". . . . . X . . .",
                ". . . . . X . . .",
                ". O X X X ! . . .",
                ". . . . . . . . .",
            ],
        ),
        (
            "a double three",
            &[
                ". . . . . . .",
                ". . . . . . .",
                ". X X ! . . .",
                ". . . X . . .",
                ". . . X . . .",
                ". . . . . . .",
                ". . . . . . .",
            ],
        ),
        (
            "an overline",
            &[
                ". . . . . . . . .",
                ". . . . . . . . .",
                "X X X ! X X . . .",
                ". . . . . . . . .",
            ],
        ),
    ];
    for &(name, rows) in cases {
        let position = drawn(RuleSet::Renju, FoulPolicy::Loss, rows, Color::Black);
        let legal = SeatView::new(position.state.as_ref(), Seat(0)).legal_actions();
        for refused in &position.refused {
            assert!(
                legal.contains(refused),
                "{name}: the foul is legal, and loses"
            );
        }
        for level in HouseLevel::ALL.into_iter().skip(1) {
            for seed in 0..3 {
                let chosen = decide(position.state.as_ref(), level, seed);
                assert!(legal.contains(&chosen), "{name}, {level:?}: {chosen}");
                assert!(
                    !position.refused.contains(&chosen),
                    "{name}, {level:?} played the forbidden {chosen}"
                );
            }
        }
    }
}

/// A mid-game position, for the tests that need one.
fn middle_game(rule: RuleSet) -> Drawn {
    drawn(
        rule,
        FoulPolicy::Illegal,
        &[
            ". . . . . . . .",
            ". . . O . . . .",
            ". . X X O . . .",
            ". . O X X . . .",
            ". . . O X . . .",
            ". . . . O . . .",
            ". . . . . . . .",
        ],
        Color::Black,
    )
}

#[test]
fn a_search_is_the_same_for_the_same_rng_and_node_budget() {
    for rule in [RuleSet::Freestyle, RuleSet::Renju] {
        let position = middle_game(rule);
        for level in SEARCHING {
            let first = decide(position.state.as_ref(), level, 9);
            let again = decide(position.state.as_ref(), level, 9);
            assert_eq!(first, again, "{rule:?}, {level:?}");
        }
    }
}

#[test]
fn a_passed_deadline_still_gets_a_legal_action() {
    let position = middle_game(RuleSet::Renju);
    let view = SeatView::new(position.state.as_ref(), Seat(0));
    let legal = view.legal_actions();
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for level in HouseLevel::ALL {
        let passed = Instant::now();
        let chosen = House.choose(&view, level, passed, &mut rng);
        assert!(legal.contains(&chosen), "{level:?}: {chosen}");
    }
}

#[test]
fn decisions_left_shrinks_as_stones_are_played() {
    let empty = drawn(
        RuleSet::Freestyle,
        FoulPolicy::Illegal,
        &["."],
        Color::Black,
    );
    let cases = [
        (empty.state, 30),
        (middle_game(RuleSet::Freestyle).state, 25),
    ];
    for (state, left) in cases {
        let view = SeatView::new(state.as_ref(), seat_to_move(state.as_ref()));
        assert_eq!(House.decisions_left(&view), left);
    }
}

/// How a game played out: its winner, if it ended with one, and whether it ended.
struct PlayedOut {
    winner: Option<Seat>,
    ended: bool,
    actions: usize,
}

/// A game from its config, each seat played by a level, to the end or `limit` actions:
/// every action chosen must be legal. It stops early where the seat to move has no legal
/// action (Black under Renju, with every empty point forbidden).
fn play_out(
    config: &GomokuConfig,
    levels: [HouseLevel; 2],
    limits: impl Fn(HouseLevel) -> Limits,
    seed: u64,
    limit: usize,
) -> PlayedOut {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = serde_json::to_value(config).expect("a config");
    let (mut state, _) = RULES
        .start(&config, &mut Ctx::new(0, &mut rng))
        .expect("a game");
    let mut actions = 0;
    for turn in 0..limit {
        let ToAct::Turn { seat } = state.to_act() else {
            break;
        };
        let view = SeatView::new(state.as_ref(), seat);
        let legal = view.legal_actions();
        if legal.is_empty() {
            break;
        }
        actions += 1;
        let level = levels[seat.index()];
        let chosen = choose_with_limits(&view, level, limits(level), &mut rng);
        assert!(legal.contains(&chosen), "turn {turn}, {level:?}: {chosen}");
        let time = u64::try_from(turn).unwrap_or(0);
        state
            .apply(seat, &chosen, &mut Ctx::new(time, &mut rng))
            .expect("a legal action applies");
    }
    let outcome = state.outcome();
    PlayedOut {
        winner: outcome.as_ref().and_then(|outcome| outcome.winner()),
        ended: outcome.is_some(),
        actions,
    }
}

fn config_of(rule: RuleSet, opening: OpeningRule) -> GomokuConfig {
    GomokuConfig {
        rule,
        opening,
        ..GomokuConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Random and Greedy play whole games in every rule set, swap2 openings included, and
    /// every action they choose is legal.
    #[test]
    fn house_games_stay_legal(
        seed in any::<u64>(),
        rule in prop_oneof![
            Just(RuleSet::Freestyle),
            Just(RuleSet::Standard),
            Just(RuleSet::Renju),
        ],
        opening in prop_oneof![Just(OpeningRule::Free), Just(OpeningRule::Swap2)],
        levels in prop_oneof![
            Just([HouseLevel::Random, HouseLevel::Greedy]),
            Just([HouseLevel::Greedy, HouseLevel::Random]),
            Just([HouseLevel::Greedy, HouseLevel::Greedy]),
        ],
    ) {
        let far = |_| Limits {
            deadline: Instant::now() + Duration::from_secs(600),
            max_nodes: Some(TEST_NODES),
        };
        let played = play_out(&config_of(rule, opening), levels, far, seed, 225);
        prop_assert!(played.actions > 0);
    }
}

/// Each searching level plays the swap2 opening's decisions with legal actions of the
/// phase's kind, and a few stones after it.
#[test]
fn searching_levels_play_swap2_openings() {
    for (i, level) in SEARCHING.into_iter().enumerate() {
        let config = config_of(RuleSet::Renju, OpeningRule::Swap2);
        let limits = |_| Limits {
            deadline: Instant::now() + Duration::from_secs(600),
            max_nodes: Some(1_000),
        };
        let played = play_out(&config, [level, level], limits, i as u64, 10);
        assert_eq!(played.actions, 10, "{level:?}");
    }
}

/// Strength by self-play at real thinking times: run with
/// `cargo test -p arbiter-gomoku --release -- --ignored --nocapture self_play`.
#[test]
#[ignore = "a measurement taking minutes, not a check"]
fn self_play_strength() {
    let pairs = [
        (HouseLevel::Hard, HouseLevel::Easy),
        (HouseLevel::Medium, HouseLevel::Greedy),
        (HouseLevel::Greedy, HouseLevel::Random),
    ];
    let games: u64 = std::env::var("GOMOKU_SELF_PLAY_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    // `GOMOKU_SELF_PLAY_PAIRS=medium-greedy,greedy-random` plays only those pairs.
    let only = std::env::var("GOMOKU_SELF_PLAY_PAIRS").ok();
    for (strong, weak) in pairs {
        let pair = format!("{}-{}", strong.name(), weak.name());
        if only
            .as_ref()
            .is_some_and(|only| !only.split(',').any(|p| p == pair))
        {
            continue;
        }
        for rule in [RuleSet::Freestyle, RuleSet::Renju] {
            let (mut wins, mut losses, mut draws, mut unfinished) = (0, 0, 0, 0);
            let mut as_black = 0;
            for game in 0..games {
                // The stronger level alternates colours: seat 0 plays Black.
                let strong_seat = usize::try_from(game % 2).unwrap_or(0);
                let mut levels = [weak, weak];
                levels[strong_seat] = strong;
                let thinking = |level: HouseLevel| Limits {
                    deadline: Instant::now()
                        + Duration::from_millis(u64::try_from(level.max_think_ms()).unwrap_or(0)),
                    max_nodes: None,
                };
                let config = config_of(rule, OpeningRule::Free);
                let played = play_out(&config, levels, thinking, game, 225);
                match (played.winner, played.ended) {
                    (Some(seat), _) if seat.index() == strong_seat => {
                        wins += 1;
                        as_black += usize::from(strong_seat == 0);
                    }
                    (Some(_), _) => losses += 1,
                    (None, true) => draws += 1,
                    (None, false) => unfinished += 1,
                }
                println!(
                    "  {strong:?} as {}: {:?} after {} actions",
                    if strong_seat == 0 { "Black" } else { "White" },
                    played.winner.map(|seat| seat.index() == strong_seat),
                    played.actions
                );
            }
            println!(
                "{strong:?} vs {weak:?}, {rule:?}: {wins} won ({as_black} as Black), {losses} lost, \
                 {draws} drawn, {unfinished} unfinished of {games}; every action legal"
            );
        }
    }
}
