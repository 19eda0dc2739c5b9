use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::*;

fn started(config: GomokuConfig) -> GomokuState {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut ctx = Ctx::new(0, &mut rng);
    Gomoku::start(&config, &mut ctx).expect("a valid config").0
}

fn play(state: &mut GomokuState, seat: u8, action: GomokuAction) -> Result<(), RuleError> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut ctx = Ctx::new(0, &mut rng);
    Gomoku::apply(state, Seat(seat), &action, &mut ctx).map(|_| ())
}

fn at(x: u8, y: u8) -> GomokuAction {
    GomokuAction::Place { x, y }
}

fn swap2(swap2: Swap2Choice) -> GomokuAction {
    GomokuAction::Swap2 { swap2 }
}

fn renju(foul: FoulPolicy) -> GomokuConfig {
    GomokuConfig {
        rule: RuleSet::Renju,
        foul,
        ..GomokuConfig::default()
    }
}

/// Plays alternating stones from seat 0, each of `moves`.
fn moves(state: &mut GomokuState, moves: &[(u8, u8)]) {
    for (i, &(x, y)) in moves.iter().enumerate() {
        let seat = u8::try_from(i % 2).expect("a seat");
        play(state, seat, at(x, y)).expect("a legal stone");
    }
}

#[test]
fn five_in_a_row_wins_and_ends_the_game() {
    let mut state = started(GomokuConfig::default());
    moves(
        &mut state,
        &[
            (3, 7),
            (3, 8),
            (4, 7),
            (4, 8),
            (5, 7),
            (5, 8),
            (6, 7),
            (6, 8),
        ],
    );
    assert!(Gomoku::outcome(&state).is_none());
    play(&mut state, 0, at(7, 7)).expect("the fifth stone");
    let outcome = Gomoku::outcome(&state).expect("over");
    assert_eq!(
        (outcome.winner(), outcome.reason.as_str()),
        (Some(Seat(0)), "five")
    );
    assert_eq!(play(&mut state, 1, at(0, 0)), Err(RuleError::GameOver));
    assert!(Gomoku::legal_actions(&state, Seat(1)).is_empty());
}

#[test]
fn stones_go_on_empty_points_of_the_board_in_turn() {
    let mut state = started(GomokuConfig::default());
    assert_eq!(Gomoku::legal_actions(&state, Seat(0)).len(), 225);
    assert_eq!(play(&mut state, 1, at(7, 7)), Err(RuleError::NotYourTurn));
    play(&mut state, 0, at(7, 7)).expect("the first stone");
    let errors = [
        (at(7, 7), "occupied"),
        (at(15, 0), "outside the 15x15 board"),
        (swap2(Swap2Choice::Black), "no swap2 choice"),
    ];
    for (action, says) in errors {
        match play(&mut state, 1, action) {
            Err(RuleError::Illegal(text)) => assert!(text.contains(says), "{text}"),
            other => panic!("{action:?}: {other:?}"),
        }
    }
    assert_eq!(Gomoku::legal_actions(&state, Seat(1)).len(), 224);
}

/// A double three for Black at (7, 7): two open threes meet there.
const DOUBLE_THREE: &[(u8, u8)] = &[
    (5, 7),
    (0, 0),
    (6, 7),
    (0, 2),
    (7, 8),
    (0, 4),
    (7, 9),
    (0, 6),
];

#[test]
fn a_forbidden_point_is_refused_or_lost_as_the_config_says() {
    let mut refused = started(renju(FoulPolicy::Illegal));
    moves(&mut refused, DOUBLE_THREE);
    let view = Gomoku::view(&refused, Viewer::Spectator);
    assert!(view.forbidden.contains(&(7, 7)), "{:?}", view.forbidden);
    match play(&mut refused, 0, at(7, 7)) {
        Err(RuleError::Illegal(text)) => assert!(text.contains("double three"), "{text}"),
        other => panic!("{other:?}"),
    }
    assert!(!Gomoku::legal_actions(&refused, Seat(0)).contains(&at(7, 7)));

    let mut lost = started(renju(FoulPolicy::Loss));
    moves(&mut lost, DOUBLE_THREE);
    play(&mut lost, 0, at(7, 7)).expect("played, and lost");
    let outcome = Gomoku::outcome(&lost).expect("over");
    assert_eq!(
        (outcome.winner(), outcome.reason.as_str()),
        (Some(Seat(1)), "foul")
    );

    // White is never restricted, and its overline wins.
    let mut white = started(renju(FoulPolicy::Illegal));
    moves(
        &mut white,
        &[
            (14, 0),
            (0, 7),
            (14, 2),
            (1, 7),
            (14, 4),
            (2, 7),
            (14, 6),
            (4, 7),
            (14, 8),
            (5, 7),
            (14, 10),
        ],
    );
    play(&mut white, 1, at(3, 7)).expect("White's overline");
    assert_eq!(
        Gomoku::outcome(&white).and_then(|o| o.winner()),
        Some(Seat(1))
    );
}

#[test]
fn an_overline_does_not_win_under_standard_rules() {
    let config = GomokuConfig {
        rule: RuleSet::Standard,
        ..GomokuConfig::default()
    };
    let mut state = started(config);
    moves(
        &mut state,
        &[
            (0, 7),
            (0, 0),
            (1, 7),
            (0, 2),
            (2, 7),
            (0, 4),
            (4, 7),
            (0, 9),
            (5, 7),
            (0, 11),
        ],
    );
    play(&mut state, 0, at(3, 7)).expect("six in a row");
    assert!(Gomoku::outcome(&state).is_none(), "play goes on");
}

/// Every swap2 path: who plays Black, and who places the next stone.
#[test]
fn swap2_settles_colours_as_each_choice_says() {
    let opening = [(7, 7), (8, 8), (6, 8)];
    let more = [(9, 9), (5, 9)];
    let cases: &[(&[Swap2Choice], u8, u8)] = &[
        (&[Swap2Choice::White], 0, 1),
        (&[Swap2Choice::Black], 1, 0),
        (&[Swap2Choice::More, Swap2Choice::Black], 0, 1),
        (&[Swap2Choice::More, Swap2Choice::White], 1, 0),
    ];
    for (choices, black, next) in cases {
        let config = GomokuConfig {
            opening: OpeningRule::Swap2,
            rule: RuleSet::Renju,
            ..GomokuConfig::default()
        };
        let mut state = started(config);
        for (x, y) in opening {
            assert_eq!(Gomoku::to_act(&state), ToAct::Turn { seat: Seat(0) });
            play(&mut state, 0, at(x, y)).expect("an opening stone");
        }
        assert_eq!(Gomoku::legal_actions(&state, Seat(1)).len(), 3);
        assert!(
            play(&mut state, 1, at(0, 0)).is_err(),
            "a choice comes first"
        );
        play(&mut state, 1, swap2(choices[0])).expect("a choice");
        if choices.len() == 2 {
            for (x, y) in more {
                play(&mut state, 1, at(x, y)).expect("one more stone");
            }
            assert!(
                play(&mut state, 0, swap2(Swap2Choice::More)).is_err(),
                "the first player only takes a colour"
            );
            play(&mut state, 0, swap2(choices[1])).expect("the final choice");
        }
        let view = Gomoku::view(&state, Viewer::Spectator);
        assert_eq!(
            (view.black_seat, view.to_move, view.next, view.phase),
            (Some(*black), Some(*next), Color::White, Phase::Play),
            "{choices:?}"
        );
        let stones = view
            .board
            .iter()
            .map(|r| r.matches(['X', 'O']).count())
            .sum::<usize>();
        assert_eq!(
            stones,
            opening.len() + if choices.len() == 2 { 2 } else { 0 }
        );
    }
}

#[test]
fn the_view_lists_the_openings_stones_apart_from_the_moves() {
    // (the config's stones, the colour to move after them, the seat to move)
    type Case = (&'static [(u8, u8)], Color, u8);
    let table: [Case; 3] = [
        (&[], Color::Black, 0),
        (&[(7, 7)], Color::White, 1),
        (&[(7, 7), (7, 6), (8, 8)], Color::White, 1),
    ];
    for (stones, next, seat) in table {
        let mut state = started(GomokuConfig {
            stones: stones.to_vec(),
            rule: RuleSet::Renju,
            ..GomokuConfig::default()
        });
        let view = Gomoku::view(&state, Viewer::Spectator);
        assert_eq!(view.opening, stones, "in the order placed");
        assert!(view.history.is_empty(), "{stones:?}");
        assert_eq!((view.next, view.to_move), (next, Some(seat)), "{stones:?}");
        let on_board: usize = view
            .board
            .iter()
            .map(|row| row.matches(['X', 'O']).count())
            .sum();
        assert_eq!(on_board, stones.len(), "{stones:?}");
        play(&mut state, seat, at(0, 0)).expect("a stone");
        let view = Gomoku::view(&state, Viewer::Spectator);
        assert_eq!(view.opening, stones, "the opening stays as it was");
        assert_eq!(
            view.history,
            [Played {
                seat,
                color: next,
                x: 0,
                y: 0
            }]
        );
    }
}

#[test]
fn a_full_board_is_a_draw() {
    // A pattern with no three in a row anywhere, minus one point for the last stone.
    let color = |x: u8, y: u8| {
        if ((x + 2 * y) / 2).is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    };
    let points: Vec<(u8, u8)> = (0..15).flat_map(|y| (0..15).map(move |x| (x, y))).collect();
    let (mut black, mut white): (Vec<_>, Vec<_>) = points
        .iter()
        .partition(|&&(x, y)| color(x, y) == Color::Black);
    let last = if black.len() > white.len() {
        black.pop()
    } else {
        white.pop()
    };
    let stones: Vec<(u8, u8)> = black
        .iter()
        .zip(&white)
        .flat_map(|(&b, &w)| [b, w])
        .collect();
    assert_eq!(stones.len(), 224);
    let mut state = started(GomokuConfig {
        stones,
        ..GomokuConfig::default()
    });
    let (x, y) = last.expect("a point left");
    play(&mut state, 0, at(x, y)).expect("the last point");
    let outcome = Gomoku::outcome(&state).expect("over");
    assert_eq!(
        (outcome.winner(), outcome.reason.as_str()),
        (None, "full_board")
    );
}

#[test]
fn black_left_with_only_forbidden_points_ends_the_game_drawn() {
    // Every point holds a stone of a pattern with no three in a row, but for two: (14, 14),
    // where White plays last, and (3, 0), between Black's three and two on the top row, an
    // overline and so forbidden to Black.
    let mut board = Board::new(15);
    for y in 0..15 {
        for x in 0..15 {
            let color = match (x, y) {
                (0..=2 | 4 | 5, 0) => Some(Color::Black),
                (3, 0) | (14, 14) => None,
                _ if (x / 2 + y) % 2 == 0 => Some(Color::Black),
                _ => Some(Color::White),
            };
            if let Some(color) = color {
                board.place(x, y, color);
            }
        }
    }
    assert_eq!(board.forbidden(3, 0), Some(Foul::Overline));
    let mut state = GomokuState {
        config: renju(FoulPolicy::Illegal),
        board,
        phase: Phase::Play,
        to_move: 1,
        next: Color::White,
        black: Some(0),
        history: Vec::new(),
        end: None,
    };
    play(&mut state, 1, at(14, 14)).expect("White's last point");
    let outcome = Gomoku::outcome(&state).expect("over");
    assert_eq!(
        (outcome.winner(), outcome.reason.as_str()),
        (None, "no_legal_move")
    );
    // Where a foul loses instead, the forbidden point stays playable and the game goes on.
    let mut state = GomokuState {
        config: renju(FoulPolicy::Loss),
        end: None,
        ..state
    };
    state.phase = Phase::Play;
    state.board.set(14, 14, Cell::Empty);
    state.to_move = 1;
    state.next = Color::White;
    play(&mut state, 1, at(14, 14)).expect("White's last point");
    assert!(Gomoku::outcome(&state).is_none());
}

#[test]
fn configs_are_checked() {
    let bad = [
        GomokuConfig {
            size: 13,
            ..GomokuConfig::default()
        },
        GomokuConfig {
            opening: OpeningRule::Swap2,
            stones: vec![(7, 7)],
            ..GomokuConfig::default()
        },
        GomokuConfig {
            stones: vec![(7, 7), (7, 7)],
            ..GomokuConfig::default()
        },
    ];
    for config in bad {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut ctx = Ctx::new(0, &mut rng);
        assert!(Gomoku::start(&config, &mut ctx).is_err(), "{config:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Random Renju games near the centre: the points the view says are forbidden are never
    /// among Black's legal stones, every legal stone is accepted, and a game that ends was
    /// won by an exact five, never by a foul.
    #[test]
    fn renju_games_keep_their_rules(picks in proptest::collection::vec(0..10_000usize, 1..80)) {
        let mut state = started(renju(FoulPolicy::Illegal));
        for pick in picks {
            if Gomoku::outcome(&state).is_some() {
                break;
            }
            let seat = state.to_move;
            let legal: Vec<GomokuAction> = Gomoku::legal_actions(&state, Seat(seat))
                .into_iter()
                .filter(|a| matches!(a, GomokuAction::Place { x, y } if (4..11).contains(x) && (4..11).contains(y)))
                .collect();
            let view = Gomoku::view(&state, Viewer::Spectator);
            for &(x, y) in &view.forbidden {
                proptest::prop_assert!(!legal.contains(&at(x, y)));
            }
            let Some(&action) = legal.get(pick % legal.len().max(1)) else { break };
            proptest::prop_assert!(play(&mut state, seat, action).is_ok());
        }
        if let Some(outcome) = Gomoku::outcome(&state) {
            proptest::prop_assert_ne!(outcome.reason.as_str(), "foul");
        }
    }
}
