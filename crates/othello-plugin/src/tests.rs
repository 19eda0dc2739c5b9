use arbiter_plugin::Format;
use arbiter_rules::{Ctx, ToAct, Viewer};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::*;

fn legs(variant: &str, format: Format, opening: Opening) -> Result<Vec<Value>, SetupError> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    FAMILY.setup.leg_configs(
        &LegRequest {
            variant,
            seats: 2,
            legs: format.legs(2),
            opening,
        },
        &mut rng,
    )
}

fn start(config: &Value) -> Box<dyn DynState> {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    FAMILY
        .rules
        .start(config, &mut Ctx::new(0, &mut rng))
        .expect("start")
        .0
}

#[test]
fn paired_legs_share_an_opening_and_xot_is_for_std_only() {
    let configs = legs("octagon", Format::Paired, Opening::Random).expect("configs");
    assert_eq!(configs.len(), 2);
    assert_eq!(configs[0], configs[1]);
    assert!(matches!(
        legs("chess", Format::Single, Opening::Random),
        Err(SetupError::UnknownVariant(_))
    ));
    let start_position = legs("std", Format::Single, Opening::Start).expect("configs");
    let state = start(&start_position[0]);
    assert_eq!(state.view(Viewer::Omniscient)["discs"], json!([2, 2]));
    assert_eq!(FAMILY.codec.forced_action(state.as_ref(), Seat(0)), None);
    let xot = legs("std", Format::Single, Opening::Balanced).expect("configs");
    let config: OthelloConfig = serde_json::from_value(xot[0].clone()).expect("config");
    let OthelloOpening::Moves(moves) = config.opening else {
        panic!("eight moves, not {:?}", config.opening);
    };
    assert!(arbiter_othello::xot::openings().contains(&moves));
    assert!(matches!(
        legs("anti", Format::Single, Opening::Balanced),
        Err(SetupError::Unsupported(_))
    ));
}

#[test]
fn moves_parse_in_every_spelling() {
    let configs = legs("octagon", Format::Single, Opening::Random).expect("configs");
    let state = start(&configs[0]);
    let parse = |v: Value| FAMILY.codec.parse(state.as_ref(), &v);
    type Expected = Result<Value, fn(&CodecError) -> bool>;
    let cases: &[(Value, Expected)] = &[
        (json!("J0"), Ok(json!(99))),
        (json!("pass"), Ok(json!(-1))),
        (json!(23), Ok(json!(23))),
        (
            json!("k1"),
            Err(|e| matches!(e, CodecError::OutsideBoard(_))),
        ),
        (
            json!(100),
            Err(|e| matches!(e, CodecError::OutsideBoard(_))),
        ),
        (
            json!("xyz"),
            Err(|e| matches!(e, CodecError::InvalidCoordinate(_))),
        ),
        (
            json!([1]),
            Err(|e| matches!(e, CodecError::InvalidCoordinate(_))),
        ),
    ];
    for (submitted, expected) in cases {
        match (parse(submitted.clone()), expected) {
            (Ok(got), Ok(want)) => assert_eq!(&got, want, "{submitted}"),
            (Err(got), Err(check)) => assert!(check(&got), "{submitted}: {got:?}"),
            (got, _) => panic!("{submitted}: unexpected {got:?}"),
        }
    }
}

#[test]
fn house_moves_are_legal_and_engine_requests_are_flipsight_s() {
    let configs = legs("std", Format::Single, Opening::Random).expect("configs");
    let mut state = start(&configs[0]);
    let ToAct::Turn { seat } = state.to_act() else {
        panic!("a turn");
    };
    let view = SeatView::new(state.as_ref(), seat);
    let raw = FAMILY.decisions.request(
        &view,
        &DecisionContext {
            variant: "std",
            match_id: 5,
            participants_by_seat: &[1, 0],
            remaining_ms: 60_000,
            budget_ms: 10_000,
            ..DecisionContext::default()
        },
    );
    let request: Value = serde_json::from_str(&raw).expect("the request is JSON");
    assert_eq!(request["match_id"], 5);
    assert_eq!(
        request["placed"],
        json!({"1": 4, "2": 4}),
        "eight opening plies"
    );
    assert_eq!(
        request,
        serde_json::to_value(EngineRequest::new(
            arbiter_othello_state(state.as_ref()),
            &MatchContext {
                match_id: 5,
                black_participant: 1,
                remaining_ms: 60_000,
                budget_ms: 10_000,
                ..MatchContext::default()
            }
        ))
        .expect("JSON"),
        "the same request as one built from the state"
    );
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for level in HouseLevel::ALL {
        let deadline = Instant::now() + std::time::Duration::from_millis(20);
        let action = FAMILY
            .house
            .expect("a house player")
            .choose(&view, level, deadline, &mut rng);
        assert!(
            view.legal_actions().contains(&action),
            "{level:?}: {action}"
        );
    }
    let first = FAMILY
        .codec
        .parse(state.as_ref(), &request["legal_moves"][0])
        .expect("parse");
    state
        .apply(seat, &first, &mut Ctx::new(0, &mut rng))
        .expect("legal");
    let view = SeatView::new(state.as_ref(), seat);
    assert!(House.decisions_left(&view) > 20);
    // Hard and max share the clock by the game's phase, the lower levels evenly.
    let position = *othello_state(state.as_ref()).expect("Othello").position();
    let (even, by_phase) = (
        60_000 / House.decisions_left(&view),
        arbiter_house::move_time_ms(&position, 60_000),
    );
    assert_ne!(even, by_phase);
    for (level, share) in [
        (HouseLevel::Easy, even),
        (HouseLevel::Medium, even),
        (HouseLevel::Hard, by_phase),
        (HouseLevel::Max, by_phase),
    ] {
        assert_eq!(House.think_ms(&view, level, 60_000), share, "{level:?}");
    }
}

fn arbiter_othello_state(state: &dyn DynState) -> &OthelloState {
    othello_state(state).expect("an Othello state")
}

#[test]
fn an_opening_book_line_is_read_as_moves_from_the_start() {
    let setup = crate::FAMILY.setup;
    // (line, the moves read, as square indices) — None for a line that is refused.
    let table: [(&str, Option<Vec<i64>>); 5] = [
        ("f5d6c3", Some(vec![37, 43, 18])),
        ("f5 d6 C3", Some(vec![37, 43, 18])),
        ("", Some(vec![])),
        ("f5z9", None),
        ("f5é", None),
    ];
    for (line, moves) in table {
        let read = setup.listed_opening("std", line).ok().map(|config| {
            config["opening"]["moves"]
                .as_array()
                .map(|m| m.iter().filter_map(Value::as_i64).collect::<Vec<i64>>())
                .unwrap_or_default()
        });
        assert_eq!(read, moves, "{line:?}");
    }
    // 10x10 squares have two-digit rows.
    let grand = setup.listed_opening("grand", "e10").expect("a line");
    assert_eq!(grand["opening"]["moves"], json!([94]));
}
