use arbiter_rules::{DynGame, Erased, GameError, SeatResult};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::json;

use super::*;

fn start(variant: Variant, opening: Opening, seed: u64) -> OthelloState {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Othello::start(
        &OthelloConfig { variant, opening },
        &mut Ctx::new(0, &mut rng),
    )
    .expect("valid config")
    .0
}

fn play(state: &mut OthelloState, seat: u8, mv: Move) -> Result<Events<OthelloEvent>, RuleError> {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    Othello::apply(state, Seat(seat), &mv, &mut Ctx::new(0, &mut rng))
}

#[test]
fn moves_alternate_and_refusals_change_nothing() {
    let mut state = start(Variant::Std, Opening::Start, 0);
    assert_eq!(Othello::to_act(&state), ToAct::Turn { seat: Seat(0) });
    let events = play(&mut state, 0, Move::Place(19)).expect("d3 is legal");
    assert_eq!(
        events,
        vec![Emitted::public(OthelloEvent::Played {
            color: Color::Black,
            mv: Move::Place(19),
            flipped: vec![27]
        })]
    );
    assert_eq!(Othello::to_act(&state), ToAct::Turn { seat: Seat(1) });
    assert_eq!(state.revision(), 1);

    let cases = [
        (0, Move::Place(18), RuleError::NotYourTurn),
        (
            1,
            Move::Place(0),
            RuleError::Illegal("a1 flips no disc".into()),
        ),
        (
            1,
            Move::Pass,
            RuleError::Illegal("pass is only legal when no move is".into()),
        ),
        (
            1,
            Move::Place(19),
            RuleError::Illegal("d3 is already occupied".into()),
        ),
        (2, Move::Place(18), RuleError::NoSuchSeat(2)),
    ];
    for (seat, mv, expected) in cases {
        let before = state.clone();
        assert_eq!(play(&mut state, seat, mv), Err(expected));
        assert_eq!(state, before);
    }
}

#[test]
fn an_explicit_pass_then_the_end() {
    // Black a1, white b1, White to move: White has no move and must pass; Black then takes c1,
    // which leaves no white disc and ends the game.
    let position = Position::from_parts(Variant::Std, 1, 2, Color::White, [1, 1]).expect("valid");
    let mut state = OthelloState::new(position, Vec::new());
    assert_eq!(Othello::legal_actions(&state, Seat(1)), vec![Move::Pass]);
    assert!(Othello::legal_actions(&state, Seat(0)).is_empty());
    assert_eq!(
        play(&mut state, 1, Move::Pass).expect("forced pass").len(),
        1
    );
    let events = play(&mut state, 0, Move::Place(2)).expect("c1");
    assert_eq!(events[1].event, OthelloEvent::Finished { discs: [3, 0] });
    assert_eq!(Othello::to_act(&state), ToAct::Nobody);
    assert_eq!(play(&mut state, 1, Move::Pass), Err(RuleError::GameOver));
    assert_eq!(
        Othello::outcome(&state).expect("over").winner(),
        Some(Seat(0))
    );
    assert!(Othello::view(&state, Viewer::Spectator).to_move.is_none());
}

#[test]
fn outcomes_and_forfeits_follow_the_variant() {
    let position =
        Position::from_parts(Variant::Anti, 0b111, 0, Color::White, [3, 0]).expect("valid");
    let anti = OthelloState::new(position, Vec::new());
    let outcome = Othello::outcome(&anti).expect("over");
    assert_eq!(outcome.winner(), Some(Seat(1)), "fewer discs wins anti");

    let cases = [
        (Variant::Std, Seat(0), [0, 64]),
        (Variant::Anti, Seat(0), [64, 0]),
        (Variant::Octagon, Seat(1), [88, 0]),
    ];
    for (variant, loser, scores) in cases {
        let state = start(variant, Opening::Start, 0);
        let outcome = Othello::forfeit(&state, loser);
        assert_eq!(
            outcome.seats.iter().map(|s| s.score).collect::<Vec<_>>(),
            scores.map(i64::from).to_vec()
        );
        assert_eq!(
            outcome.seats[loser.index()].result,
            SeatResult::Loss,
            "{variant}"
        );
    }
}

#[test]
fn openings_from_config() {
    let random = start(Variant::Grand, Opening::Random, 7);
    assert_eq!(random.position().disc_counts().iter().sum::<u32>(), 12);
    let repeated = start(
        Variant::Grand,
        Opening::Moves(random.opening().to_vec()),
        99,
    );
    assert_eq!(
        repeated.position(),
        random.position(),
        "a second leg repeats the first leg's opening"
    );

    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let bad = OthelloConfig {
        variant: Variant::Std,
        opening: Opening::Moves(vec![Move::Place(19), Move::Place(0)]),
    };
    let error = Othello::start(&bad, &mut Ctx::new(0, &mut rng)).expect_err("illegal opening");
    assert_eq!(error.0, "opening move 2 (a1) is illegal: a1 flips no disc");
}

static OTHELLO: Erased<Othello> = Erased::new();

#[test]
fn the_erased_interface_and_stored_states() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let config = json!({"variant": "octagon", "opening": "start"});
    let (mut game, events) = OTHELLO
        .start(&config, &mut Ctx::new(0, &mut rng))
        .expect("valid");
    assert_eq!(events[0].event["type"], "started");
    assert_eq!(
        game.legal_actions(Seat(0)),
        vec![json!(34), json!(43), json!(56), json!(65)]
    );
    game.apply(Seat(0), &json!(34), &mut Ctx::new(0, &mut rng))
        .expect("legal");
    assert!(matches!(
        game.apply(Seat(1), &json!("d3"), &mut Ctx::new(0, &mut rng)),
        Err(GameError::MalformedAction(_))
    ));
    assert!(matches!(
        game.apply(Seat(1), &json!(0), &mut Ctx::new(0, &mut rng)),
        Err(GameError::Rule(RuleError::Illegal(_)))
    ));

    let saved = game.save();
    assert_eq!(saved["state"]["board"].as_array().map(Vec::len), Some(100));
    let restored = OTHELLO.restore(&saved).expect("restorable");
    assert_eq!(
        restored.view(Viewer::Spectator),
        game.view(Viewer::Spectator)
    );

    let mut corrupt = saved.clone();
    corrupt["state"]["board"][0] = json!(1);
    assert!(
        matches!(OTHELLO.restore(&corrupt), Err(GameError::Restore(_))),
        "a disc on a blocked square"
    );
    let mut short = saved;
    short["state"]["board"] = json!([0, 1]);
    assert!(matches!(
        OTHELLO.restore(&short),
        Err(GameError::Restore(_))
    ));
}

fn variant_strategy() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

proptest! {
    /// Random games of every variant: legal moves always apply, disc counts stay consistent,
    /// a pass is legal exactly when no placement is, and the game ends exactly when neither
    /// side can move.
    #[test]
    fn random_games_keep_the_invariants(variant in variant_strategy(), seed in any::<u64>(), picks in prop::collection::vec(any::<u16>(), 130)) {
        let mut state = start(variant, Opening::Random, seed);
        for pick in picks {
            let position = *state.position();
            let over = position.moves_for(Color::Black) == 0 && position.moves_for(Color::White) == 0;
            prop_assert_eq!(Othello::to_act(&state) == ToAct::Nobody, over);
            prop_assert_eq!(Othello::outcome(&state).is_some(), over);
            if over {
                break;
            }
            prop_assert_eq!(position.check(Move::Pass).is_ok(), position.legal_moves() == 0);
            let mover = position.to_move();
            let legal = Othello::legal_actions(&state, seat_of(mover));
            let mv = legal[usize::from(pick) % legal.len()];
            let before = position.disc_counts();
            let events = play(&mut state, mover.number() - 1, mv).expect("a legal move applies");
            let OthelloEvent::Played { flipped, .. } = &events[0].event else { panic!("first event is the move") };
            let after = state.position().disc_counts();
            let flips = flipped.len() as u32;
            match mv {
                Move::Pass => prop_assert_eq!(after, before),
                Move::Place(_) => {
                    prop_assert_eq!(after[mover.index()], before[mover.index()] + 1 + flips);
                    prop_assert_eq!(after[mover.other().index()], before[mover.other().index()] - flips);
                    let placement_phase = variant == Variant::Reversi && before.iter().sum::<u32>() < 4;
                    prop_assert_eq!(flips == 0, placement_phase);
                }
            }
            prop_assert!(after.iter().sum::<u32>() <= variant.playable_squares());
        }
        let saved = serde_json::to_value(&state).expect("serializable");
        prop_assert_eq!(serde_json::from_value::<OthelloState>(saved).expect("restorable"), state);
    }
}
