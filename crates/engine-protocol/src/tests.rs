use arbiter_othello::{Opening, Othello, OthelloConfig, Position};
use arbiter_rules::{Ctx, Game, Seat, ToAct};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::*;

/// The deterministic opening FlipSight used for its documented examples: at each ply the
/// legal square nearest the board's centre in Manhattan distance, the lowest index among
/// equals.
fn central_opening(variant: Variant) -> Vec<Move> {
    let size = i32::from(variant.size());
    let mut position = Position::start(variant);
    let mut moves = Vec::new();
    for _ in 0..variant.opening_plies() {
        let legal = position.legal_moves();
        let distance =
            |sq: i32| (2 * (sq / size) - (size - 1)).abs() + (2 * (sq % size) - (size - 1)).abs();
        let best = (0..size * size)
            .filter(|&sq| legal >> sq & 1 != 0)
            .min_by_key(|&sq| (distance(sq), sq));
        let mv = Move::Place(best.expect("openings never pass") as u8);
        position.play(mv).expect("legal");
        moves.push(mv);
    }
    moves
}

fn request(variant: Variant, opening: Opening, context: &MatchContext) -> EngineRequest {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let config = OthelloConfig { variant, opening };
    let (state, _) = Othello::start(&config, &mut Ctx::new(0, &mut rng)).expect("valid opening");
    EngineRequest::new(&state, context)
}

fn first_request(variant: Variant, opening: Opening) -> String {
    let context = MatchContext {
        match_id: 123,
        remaining_ms: 60_000,
        budget_ms: 10_000,
        ..MatchContext::default()
    };
    request(variant, opening, &context).to_line()
}

// The expected lines below are FlipSight's documented engine requests, verbatim.

#[test]
fn the_documented_std_request() {
    insta::assert_snapshot!(first_request(Variant::Std, Opening::Start), @r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,1,0,0,0,0,0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[19,26,37,44],"game_mode":"std","board_size":8,"blocked_squares":[],"placed":{"1":0,"2":0},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#);
}

#[test]
fn the_documented_anti_request() {
    insta::assert_snapshot!(first_request(Variant::Anti, Opening::Moves(central_opening(Variant::Anti))), @r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,2,2,0,0,0,0,0,1,2,2,1,0,0,0,0,2,2,2,2,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[2,3,12,25,42,44,45],"game_mode":"anti","board_size":8,"blocked_squares":[],"placed":{"1":4,"2":4},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#);
}

#[test]
fn the_documented_grand_request() {
    insta::assert_snapshot!(first_request(Variant::Grand, Opening::Moves(central_opening(Variant::Grand))), @r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,2,2,0,0,0,0,0,0,0,1,2,2,1,0,0,0,0,0,0,2,2,2,2,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[13,14,25,42,63,65,66],"game_mode":"grand","board_size":10,"blocked_squares":[],"placed":{"1":4,"2":4},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#);
}

#[test]
fn the_documented_octagon_request() {
    insta::assert_snapshot!(first_request(Variant::Octagon, Opening::Moves(central_opening(Variant::Octagon))), @r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,2,2,0,0,0,0,0,0,0,1,2,2,1,0,0,0,0,0,0,2,2,2,2,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[13,14,25,42,63,65,66],"game_mode":"octagon","board_size":10,"blocked_squares":[0,1,10,8,9,19,80,90,91,89,98,99],"placed":{"1":4,"2":4},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#);
}

#[test]
fn the_documented_reversi_request() {
    insta::assert_snapshot!(first_request(Variant::Reversi, Opening::Moves(central_opening(Variant::Reversi))), @r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,1,1,0,0,0,0,0,2,2,1,1,0,0,0,0,2,2,1,1,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[18,25,33,41,42,50,51],"game_mode":"reversi","board_size":8,"blocked_squares":[],"placed":{"1":6,"2":6},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#);
}

#[test]
fn the_documented_second_leg_request() {
    let context = MatchContext {
        match_id: 123,
        leg: 1,
        black_participant: 1,
        remaining_ms: 40_000,
        budget_ms: 10_000,
        ..MatchContext::default()
    };
    let line = request(
        Variant::Std,
        Opening::Moves(central_opening(Variant::Std)),
        &context,
    )
    .to_line();
    insta::assert_snapshot!(line, @r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,2,2,0,0,0,0,0,1,2,2,1,0,0,0,0,2,2,2,2,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[2,3,12,25,42,44,45],"game_mode":"std","board_size":8,"blocked_squares":[],"placed":{"1":4,"2":4},"remaining_ms":40000,"match_id":123,"leg":1,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#);
}

#[test]
fn the_documented_match_opening_is_the_central_one() {
    // FlipSight's example match lists its opening moves; they are the central ones.
    let indices: Vec<i16> = central_opening(Variant::Std)
        .into_iter()
        .map(Move::index)
        .collect();
    assert_eq!(indices, vec![19, 20, 29, 34, 26, 11, 43, 37]);
}

#[test]
fn history_names_participants_and_times() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let config = OthelloConfig {
        variant: Variant::Std,
        opening: Opening::Start,
    };
    let (mut state, _) = Othello::start(&config, &mut Ctx::new(0, &mut rng)).expect("valid");
    Othello::apply(
        &mut state,
        Seat(0),
        &Move::Place(19),
        &mut Ctx::new(0, &mut rng),
    )
    .expect("legal");
    let context = MatchContext {
        black_participant: 1,
        move_times_ms: vec![1_799_999_984_200],
        ..MatchContext::default()
    };
    let request = EngineRequest::new(&state, &context);
    assert_eq!(request.revision, 1);
    assert_eq!(request.color, Color::White);
    insta::assert_snapshot!(serde_json::to_string(&request.history).expect("json"), @r#"[{"color":1,"participant":1,"move":19,"at_ms":1799999984200}]"#);
}

#[test]
fn answers() {
    use arbiter_othello::coord::CoordErrorKind;
    let cases: &[(&str, Variant, Result<Move, &str>)] = &[
        (r#"{"move":19}"#, Variant::Std, Ok(Move::Place(19))),
        (r#"{"move":"d3"}"#, Variant::Std, Ok(Move::Place(19))),
        (r#"{"move":"D3"}"#, Variant::Grand, Ok(Move::Place(23))),
        (r#"{"move":"J0"}"#, Variant::Grand, Ok(Move::Place(99))),
        (r#"{"move":-1}"#, Variant::Std, Ok(Move::Pass)),
        (r#"{"move":"pass"}"#, Variant::Std, Ok(Move::Pass)),
        (r#"{"move":"PS"}"#, Variant::Std, Ok(Move::Pass)),
        (
            "  {\"move\": 37, \"eval\": 1.5}\r\n",
            Variant::Std,
            Ok(Move::Place(37)),
        ),
        ("", Variant::Std, Err("empty")),
        ("d3", Variant::Std, Err("not json")),
        ("[19]", Variant::Std, Err("not an object")),
        (r#"{"mv":19}"#, Variant::Std, Err("missing")),
        (r#"{"move":19.5}"#, Variant::Std, Err("wrong type")),
        (r#"{"move":true}"#, Variant::Std, Err("wrong type")),
        (r#"{"move":64}"#, Variant::Std, Err("outside")),
        (r#"{"move":"z9"}"#, Variant::Std, Err("outside")),
        (r#"{"move":"d-3"}"#, Variant::Std, Err("invalid")),
    ];
    for (line, variant, expected) in cases {
        let got = parse_answer(line, *variant).map_err(|e| match e {
            AnswerError::Empty => "empty",
            AnswerError::NotJson(_) => "not json",
            AnswerError::NotAnObject => "not an object",
            AnswerError::MissingMove => "missing",
            AnswerError::WrongType(_) => "wrong type",
            AnswerError::Coordinate(c) if c.kind() == CoordErrorKind::OutsideBoard => "outside",
            AnswerError::Coordinate(_) => "invalid",
            AnswerError::Illegal(_) => "illegal",
        });
        assert_eq!(&got, expected, "{line:?}");
    }
}

#[test]
fn answers_must_be_legal_moves() {
    let std = request(Variant::Std, Opening::Start, &MatchContext::default());
    assert_eq!(std.check(Move::Place(19)), Ok(Move::Place(19)));
    assert_eq!(
        std.check(Move::Place(0)),
        Err(AnswerError::Illegal("a1".into()))
    );
    assert_eq!(
        std.check(Move::Pass).map_err(|e| e.to_string()),
        Err("the engine chose pass, which is not a legal move here".into())
    );
    let mut must_pass = std.clone();
    must_pass.legal_moves.clear();
    assert_eq!(must_pass.check(Move::Pass), Ok(Move::Pass));
}

/// `to_line` writes the request by hand; at every ply of random games in every variant, with
/// and without times, round and room, it must be exactly what `serde_json` writes.
#[test]
fn the_hand_written_line_is_what_serde_writes() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for variant in Variant::ALL {
        for game in 0..4_i64 {
            let config = OthelloConfig {
                variant,
                opening: Opening::Start,
            };
            let (mut state, _) =
                Othello::start(&config, &mut Ctx::new(0, &mut rng)).expect("valid opening");
            let mut times = Vec::new();
            loop {
                let context = MatchContext {
                    match_id: -game,
                    leg: u8::from(game % 2 == 1),
                    black_participant: u8::from(game % 2 == 1),
                    remaining_ms: u64::from(arbiter_rules::random::below(&mut rng, 100_000)),
                    budget_ms: 10_000,
                    move_times_ms: if game < 2 { times.clone() } else { Vec::new() },
                    round_no: (game == 3).then_some(7),
                    room_created_at: (game == 3).then(|| "2026-11-29 \"T\"\n\\".to_owned()),
                };
                let request = EngineRequest::new(&state, &context);
                assert_eq!(
                    request.to_line(),
                    serde_json::to_string(&request).expect("json"),
                    "{variant:?}, ply {}",
                    state.history().len()
                );
                let ToAct::Turn { seat } = Othello::to_act(&state) else {
                    break;
                };
                let moves = Othello::legal_actions(&state, seat);
                let mv = moves[arbiter_rules::random::below(
                    &mut rng,
                    u32::try_from(moves.len()).expect("few"),
                ) as usize];
                Othello::apply(&mut state, seat, &mv, &mut Ctx::new(0, &mut rng)).expect("legal");
                times.push(1_800_000_000_000 + i64::try_from(times.len()).expect("small"));
            }
        }
    }
}

#[test]
fn integers_are_written_as_rust_formats_them() {
    for value in [0, 7, -1, 10, -10, 1_799_999_984_200, i64::MAX, i64::MIN] {
        let mut out = String::new();
        push_int(&mut out, value);
        assert_eq!(out, value.to_string());
    }
    let mut out = String::new();
    push_uint(&mut out, u64::MAX);
    assert_eq!(out, u64::MAX.to_string());
}
