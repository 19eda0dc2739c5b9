//! The game through the `Game` trait and its erased JSON face: views and events as
//! docs/chess.md shows them, draw offers, forfeits, Dice Chess rolls and passes, refusals that
//! change nothing, and stored states.

use arbiter_rules::{Ctx, Dice, DynGame, Emitted, Game, RuleError, Seat, SeatResult, ToAct};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::{Value, json};

use crate::{
    Chess, ChessAction, ChessConfig, ChessEvent, ChessState, EndReason, GameResult, RULES, Side,
    Variant,
};

/// Dice that roll the faces listed by nonce, and `[3, 5, 6]` (bishop, queen, king) after.
struct Script(Vec<[u8; 3]>);

impl Dice for Script {
    fn roll(&self, nonce: u64, _sides: u8, count: usize) -> Vec<u8> {
        let faces = self.0.get(nonce as usize).copied().unwrap_or([3, 5, 6]);
        faces.iter().copied().take(count).collect()
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn events(emitted: Vec<Emitted<ChessEvent>>) -> Vec<Value> {
    emitted
        .into_iter()
        .map(|e| serde_json::to_value(e.event).expect("an event"))
        .collect()
}

/// A game of `config`, with scripted dice.
fn start(config: &ChessConfig, dice: &Script) -> (ChessState, Vec<Value>) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ctx = Ctx::new(0, &mut rng).with_dice(dice);
    let (state, emitted) = Chess::start(config, &mut ctx).expect("a game");
    (state, events(emitted))
}

fn play(
    state: &mut ChessState,
    seat: u8,
    action: ChessAction,
    dice: &Script,
) -> Result<Vec<Value>, RuleError> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ctx = Ctx::new(0, &mut rng).with_dice(dice);
    Chess::apply(state, Seat(seat), &action, &mut ctx).map(events)
}

fn mv(text: &str) -> ChessAction {
    ChessAction::Move(text.to_owned())
}

const OFFER: ChessAction = ChessAction::Draw { draw: true };
const REFUSE: ChessAction = ChessAction::Draw { draw: false };

fn dice_config(fen: Option<&str>) -> ChessConfig {
    ChessConfig {
        fen: fen.map(str::to_owned),
        ..ChessConfig::of(Variant::Dice)
    }
}

#[test]
fn the_dice_view_is_the_documented_one() {
    let dice = Script(vec![[1, 4, 2]]);
    let (mut state, started) = start(&dice_config(None), &dice);
    assert_eq!(
        started,
        [json!({"type": "roll", "side": "white", "nonce": 0, "faces": [1, 4, 2], "dice": "PNR"})]
    );
    let played = play(&mut state, 0, mv("a2a3"), &dice).expect("legal");
    assert_eq!(
        played,
        [json!({"type": "move", "side": "white", "uci": "a2a3", "san": "a3"})]
    );
    let view = serde_json::to_value(Chess::view(&state, arbiter_rules::Viewer::Spectator))
        .expect("a view");
    assert_eq!(
        view,
        json!({
            "variant": "dice",
            "initial_fen": START,
            "fen": "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR w KQkq - 0 1",
            "dfen": "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR w KQkq - 0 1 NR",
            "to_move": "white",
            "moves": ["a2a3"],
            "san": ["a3"],
            "last_move": "a2a3",
            "legal_moves": ["a1a2", "b1c3", "g1f3", "g1h3"],
            "check": false,
            "dice": {"nonce": 0, "rolled": [1, 4, 2], "unused": [2, 4], "target": 3, "played": ["a2a3"]},
            "halfmove_clock": 0,
            "fullmove": 1,
            "draw_offer": null,
            "result": null
        })
    );
}

#[test]
fn a_dice_turn_ends_and_the_other_side_rolls_the_next_nonce() {
    // White: pawn, rook, knight; Black: knight, knight, pawn.
    let dice = Script(vec![[1, 4, 2], [2, 2, 1]]);
    let (mut state, _) = start(&dice_config(None), &dice);
    for uci in ["a2a3", "a1a2"] {
        play(&mut state, 0, mv(uci), &dice).expect(uci);
        assert_eq!(Chess::to_act(&state), ToAct::Turn { seat: Seat(0) });
    }
    assert_eq!(
        play(&mut state, 1, mv("e7e5"), &dice),
        Err(RuleError::NotYourTurn)
    );
    let last = play(&mut state, 0, mv("g1f3"), &dice).expect("legal");
    assert_eq!(
        last,
        [
            json!({"type": "move", "side": "white", "uci": "g1f3", "san": "Nf3"}),
            json!({"type": "roll", "side": "black", "nonce": 1, "faces": [2, 2, 1], "dice": "PNN"}),
        ]
    );
    assert_eq!(Chess::to_act(&state), ToAct::Turn { seat: Seat(1) });
    let view = state.view();
    assert_eq!(
        view.dfen.as_deref(),
        Some("rnbqkbnr/pppppppp/8/8/8/P4N2/RPPPPPPP/1NBQKB1R b Kkq - 2 1 pnn")
    );
}

#[test]
fn a_roll_with_no_usable_die_passes_at_once() {
    // White rolls bishop, queen, king at the start: nothing can move, so the turn passes
    // and Black rolls the next nonce; Black's turn passes too, then White rolls pawns.
    let dice = Script(vec![[3, 5, 6], [6, 3, 3], [1, 1, 1]]);
    let (state, started) = start(&dice_config(None), &dice);
    assert_eq!(
        started,
        [
            json!({"type": "roll", "side": "white", "nonce": 0, "faces": [3, 5, 6], "dice": "BQK"}),
            json!({"type": "pass", "side": "white"}),
            json!({"type": "roll", "side": "black", "nonce": 1, "faces": [6, 3, 3], "dice": "BBK"}),
            json!({"type": "pass", "side": "black"}),
            json!({"type": "roll", "side": "white", "nonce": 2, "faces": [1, 1, 1], "dice": "PPP"}),
        ]
    );
    let view = state.view();
    assert_eq!(view.fullmove, 2, "Black's passed turn counts as its turn");
    assert_eq!(view.to_move, Some(Side::White));
    // Fifty passes in a row draw the game.
    let (stuck, events) = start(&dice_config(None), &Script(Vec::new()));
    assert_eq!(events.len(), 2 * 50 + 1);
    assert_eq!(
        events.last(),
        Some(&json!({"type": "end", "winner": null, "reason": "passes"}))
    );
    assert_eq!(
        stuck.result(),
        Some(GameResult {
            winner: None,
            reason: EndReason::Passes
        })
    );
    assert_eq!(Chess::to_act(&stuck), ToAct::Nobody);
}

#[test]
fn capturing_the_king_wins_at_once() {
    let dice = Script(vec![[4, 2, 6]]);
    let config = dice_config(Some("4k3/8/8/8/8/8/8/1N2R1K1 w - - 0 1"));
    let (mut state, _) = start(&config, &dice);
    let events = play(&mut state, 0, mv("e1e8"), &dice).expect("the capture");
    assert_eq!(
        events,
        [
            json!({"type": "move", "side": "white", "uci": "e1e8", "san": "Rxe8"}),
            json!({"type": "end", "winner": "white", "reason": "king_captured"}),
        ]
    );
    let outcome = Chess::outcome(&state).expect("over");
    assert_eq!(outcome.reason, "king_captured");
    assert_eq!(outcome.seats[0].result, SeatResult::Win);
    assert_eq!(outcome.seats[0].score, 2);
    assert_eq!(outcome.seats[1].score, 0);
    assert_eq!(
        play(&mut state, 1, mv("e8e7"), &dice),
        Err(RuleError::GameOver)
    );
    // The finished game is stored and restored without its black king.
    let restored: ChessState =
        serde_json::from_value(serde_json::to_value(&state).expect("stored")).expect("restored");
    assert_eq!(restored, state);
}

#[test]
fn the_halfmove_limit_draws_when_a_turn_ends() {
    let dice = Script(vec![[2, 2, 2]]);
    let config = ChessConfig {
        draw_halfmove_limit: 3,
        ..dice_config(Some("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1"))
    };
    let (mut state, _) = start(&config, &dice);
    for uci in ["b1c3", "c3b1"] {
        play(&mut state, 0, mv(uci), &dice).expect(uci);
    }
    assert!(
        state.result().is_none(),
        "the limit is checked at the turn's end"
    );
    let events = play(&mut state, 0, mv("b1c3"), &dice).expect("legal");
    assert_eq!(
        events.last(),
        Some(&json!({"type": "end", "winner": null, "reason": "halfmove_limit"}))
    );
}

#[test]
fn illegal_micro_moves_say_which_rule() {
    let dice = Script(vec![[1, 4, 4]]);
    let (mut state, _) = start(&dice_config(None), &dice);
    let before = state.clone();
    let cases = [
        (
            "e2e3",
            "e2e3 is not legal: it leaves only 1 of the 3 dice usable, and a sequence using 3 \
             exists",
        ),
        (
            "g1f3",
            "g1f3 is not legal: it needs a knight die, and the unused dice are PRR",
        ),
        ("e3e4", "e3e4 is not legal: there is no white piece on e3"),
        (
            "e2e5",
            "e2e5 is not legal: the pawn on e2 cannot move to e5",
        ),
        (
            "e1g1",
            "e1g1 is not legal: the king on e1 cannot move to g1",
        ),
        (
            "e2",
            "\"e2\" is not a move in UCI notation (such as e2e4, or e7e8q for a promotion)",
        ),
    ];
    for (uci, message) in cases {
        assert_eq!(
            play(&mut state, 0, mv(uci), &dice),
            Err(RuleError::Illegal(message.to_owned())),
            "{uci}"
        );
        assert_eq!(state, before, "{uci} changed the state");
    }
    // Case and spaces do not matter.
    assert!(play(&mut state, 0, mv(" A2A3 "), &dice).is_ok());
    let castle = Script(vec![[1, 2, 4]]);
    let config = dice_config(Some("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"));
    let (mut state, _) = start(&config, &castle);
    assert_eq!(
        play(&mut state, 0, mv("e1g1"), &castle),
        Err(RuleError::Illegal(
            "e1g1 is not legal: it needs a king die and a rook die, and the unused dice are PNR"
                .to_owned()
        ))
    );
    let promote = Script(vec![[1, 1, 2]]);
    let config = dice_config(Some("k7/4P3/8/8/8/8/8/4K3 w - - 0 1"));
    let (mut state, _) = start(&config, &promote);
    assert_eq!(
        play(&mut state, 0, mv("e7e8"), &promote),
        Err(RuleError::Illegal(
            "e7e8 is not legal: a pawn reaching the last rank must promote: add q, r, b or n"
                .to_owned()
        ))
    );
    assert!(matches!(
        play(&mut state, 0, mv("e7e8q"), &promote),
        Err(RuleError::Illegal(text)) if text.contains("leaves only 1 of the 3 dice usable, and a sequence using 2")
    ));
    assert!(play(&mut state, 0, mv("e7e8n"), &promote).is_ok());
}

#[test]
fn standard_moves_events_and_endings() {
    let dice = Script(Vec::new());
    let (mut state, started) = start(&ChessConfig::default(), &dice);
    assert!(started.is_empty());
    assert_eq!(Chess::legal_actions(&state, Seat(0)).len(), 20);
    assert!(Chess::legal_actions(&state, Seat(1)).is_empty());
    for (seat, uci) in [(0, "f2f3"), (1, "e7e5"), (0, "g2g4")] {
        play(&mut state, seat, mv(uci), &dice).expect(uci);
    }
    let events = play(&mut state, 1, mv("d8h4"), &dice).expect("mate");
    assert_eq!(
        events,
        [
            json!({"type": "move", "side": "black", "uci": "d8h4", "san": "Qh4#"}),
            json!({"type": "end", "winner": "black", "reason": "checkmate"}),
        ]
    );
    let view = state.view();
    assert_eq!(view.to_move, None);
    assert!(view.check);
    assert!(view.legal_moves.is_empty());
    assert_eq!(view.dice, None);
    assert_eq!(view.dfen, None);
    assert_eq!(view.san, ["f3", "e5", "g4", "Qh4#"]);
    let outcome = Chess::outcome(&state).expect("over");
    assert_eq!(outcome.winner(), Some(Seat(1)));
    assert_eq!(outcome.reason, "checkmate");
}

#[test]
fn standard_refusals_change_nothing() {
    let dice = Script(Vec::new());
    let config = ChessConfig {
        fen: Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".to_owned()),
        ..ChessConfig::default()
    };
    let (mut state, _) = start(&config, &dice);
    let before = state.clone();
    for (seat, uci) in [
        (0, "e1h1"),
        (0, "e2e4"),
        (0, "a1a9"),
        (1, "e8g8"),
        (2, "e1g1"),
    ] {
        assert!(play(&mut state, seat, mv(uci), &dice).is_err(), "{uci}");
        assert_eq!(state, before);
    }
    assert_eq!(
        play(&mut state, 0, mv("e2e4"), &dice),
        Err(RuleError::Illegal(
            "e2e4 is not legal: there is no white piece on e2".to_owned()
        ))
    );
    assert_eq!(
        play(&mut state, 2, OFFER, &dice),
        Err(RuleError::NoSuchSeat(2))
    );
    let events = play(&mut state, 0, mv("e1g1"), &dice).expect("castling");
    assert_eq!(
        events,
        [json!({"type": "move", "side": "white", "uci": "e1g1", "san": "O-O"})]
    );
    // Chess960 writes castling as king takes rook, and its FEN in Shredder letters.
    let config = ChessConfig {
        chess960_position: Some(518),
        ..ChessConfig::of(Variant::Chess960)
    };
    let (state, _) = start(&config, &dice);
    assert_eq!(
        state.view().initial_fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    );
    let config = ChessConfig {
        fen: Some("4k3/8/8/8/8/8/8/4K2R w H - 0 1".to_owned()),
        ..ChessConfig::of(Variant::Chess960)
    };
    let (mut state, _) = start(&config, &dice);
    assert!(Chess::legal_actions(&state, Seat(0)).contains(&mv("e1h1")));
    assert!(play(&mut state, 0, mv("e1g1"), &dice).is_err());
    assert!(play(&mut state, 0, mv("e1h1"), &dice).is_ok());
}

#[test]
fn draw_offers_stand_until_answered() {
    let dice = Script(Vec::new());
    let (mut state, _) = start(&ChessConfig::default(), &dice);
    assert!(Chess::is_free(&OFFER));
    assert!(!Chess::is_free(&mv("e2e4")));
    // Black offers while White is to move; White declines.
    assert_eq!(
        play(&mut state, 1, OFFER, &dice).expect("offer"),
        [json!({"type": "draw_offer", "side": "black"})]
    );
    assert_eq!(state.view().draw_offer, Some(Side::Black));
    assert!(
        play(&mut state, 1, OFFER, &dice).is_err(),
        "already standing"
    );
    assert_eq!(
        play(&mut state, 0, REFUSE, &dice).expect("decline"),
        [json!({"type": "draw_declined", "side": "white"})]
    );
    assert_eq!(state.view().draw_offer, None);
    assert!(
        play(&mut state, 0, REFUSE, &dice).is_err(),
        "nothing to decline"
    );
    // An offer is withdrawn by its maker.
    play(&mut state, 0, OFFER, &dice).expect("offer");
    assert_eq!(
        play(&mut state, 0, REFUSE, &dice).expect("withdraw"),
        [json!({"type": "draw_withdrawn", "side": "white"})]
    );
    // The offerer's own move keeps it standing; the other side's move declines it.
    play(&mut state, 0, OFFER, &dice).expect("offer");
    play(&mut state, 0, mv("e2e4"), &dice).expect("move");
    assert_eq!(state.view().draw_offer, Some(Side::White));
    assert_eq!(
        play(&mut state, 1, mv("e7e5"), &dice).expect("move"),
        [
            json!({"type": "draw_declined", "side": "black"}),
            json!({"type": "move", "side": "black", "uci": "e7e5", "san": "e5"}),
        ]
    );
    assert_eq!(state.view().draw_offer, None);
    // A refused move declines nothing.
    play(&mut state, 1, OFFER, &dice).expect("offer");
    assert!(play(&mut state, 0, mv("e4e5"), &dice).is_err());
    assert_eq!(state.view().draw_offer, Some(Side::Black));
    // Accepting ends the game.
    assert_eq!(
        play(&mut state, 0, OFFER, &dice).expect("accept"),
        [json!({"type": "end", "winner": null, "reason": "agreement"})]
    );
    let outcome = Chess::outcome(&state).expect("over");
    assert_eq!(outcome.reason, "agreement");
    assert!(
        outcome
            .seats
            .iter()
            .all(|s| s.result == SeatResult::Draw && s.score == 1)
    );
    assert_eq!(play(&mut state, 1, OFFER, &dice), Err(RuleError::GameOver));
}

#[test]
fn dice_draw_offers_are_declined_by_a_micro_move() {
    let dice = Script(vec![[1, 1, 1], [1, 1, 1]]);
    let (mut state, _) = start(&dice_config(None), &dice);
    play(&mut state, 1, OFFER, &dice).expect("offer");
    let events = play(&mut state, 0, mv("e2e4"), &dice).expect("move");
    assert_eq!(events[0], json!({"type": "draw_declined", "side": "white"}));
    assert_eq!(state.view().draw_offer, None);
}

#[test]
fn losing_on_time_against_a_bare_king_draws() {
    let dice = Script(Vec::new());
    let bare = ChessConfig {
        fen: Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1".to_owned()),
        ..ChessConfig::default()
    };
    let (state, _) = start(&bare, &dice);
    // White's flag falls, Black has only its king: a draw.
    let white_flag = Chess::forfeit(&state, Seat(0));
    assert!(
        white_flag
            .seats
            .iter()
            .all(|s| s.result == SeatResult::Draw)
    );
    // Black's flag falls, White has a rook: White wins.
    let black_flag = Chess::forfeit(&state, Seat(1));
    assert_eq!(black_flag.winner(), Some(Seat(0)));
    assert_eq!(black_flag.seats[0].score, 2);
    // In Dice Chess a bare king can still take the other king, so the flag always loses.
    let dice_bare = dice_config(Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"));
    let (state, _) = start(&dice_bare, &Script(vec![[4, 4, 4]]));
    assert_eq!(Chess::forfeit(&state, Seat(0)).winner(), Some(Seat(1)));
}

#[test]
fn configurations_are_checked() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut ctx = Ctx::new(0, &mut rng);
    let bad = [
        json!({"variant": "standard", "chess960_position": 3}),
        json!({"variant": "chess960", "chess960_position": 960}),
        json!({"variant": "standard", "fen": "not a fen"}),
        json!({"variant": "dice", "fen": "8/8/8/8/8/8/8/4K3 w - - 0 1"}),
        json!({"variant": "dice", "draw_halfmove_limit": 0}),
        json!({"variant": "go"}),
        json!({"variant": "standard", "colour": "white"}),
    ];
    for config in bad {
        assert!(RULES.start(&config, &mut ctx).is_err(), "{config}");
    }
    assert_eq!(RULES.id(), "chess");
    assert_eq!(RULES.rules_version(), 1);
    assert_eq!(RULES.seat_count(&json!({})).expect("seats"), 2);
}

/// A random JSON value: strings that look like moves or not, draw words, and junk.
fn any_action() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-h][1-8][a-h][1-8][qrbnk]?".prop_map(Value::from),
        "[ -~]{0,8}".prop_map(Value::from),
        any::<bool>().prop_map(|draw| json!({"draw": draw})),
        any::<i64>().prop_map(Value::from),
        Just(json!({"draw": "yes"})),
        Just(json!(null)),
        Just(json!(["e2e4"])),
        Just(json!({"move": "e2e4"})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random play in every variant with random legal moves and random junk: apply never
    /// panics, a refusal changes nothing, and the stored state and the view round-trip.
    #[test]
    fn random_play_keeps_the_state_consistent(
        variant in prop_oneof![Just("standard"), Just("chess960"), Just("dice")],
        seed in any::<u64>(),
        junk in proptest::collection::vec((any_action(), 0u8..3), 0..40),
        picks in proptest::collection::vec(any::<u32>(), 1..120),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let config = match variant {
            "chess960" => json!({"variant": "chess960", "chess960_position": seed % 960}),
            other => json!({"variant": other}),
        };
        let (mut state, _) = RULES.start(&config, &mut Ctx::new(0, &mut rng)).expect("a game");
        let mut junk = junk.into_iter();
        for pick in picks {
            if let Some((action, seat)) = junk.next() {
                let before = state.save();
                if RULES
                    .restore(&before)
                    .expect("restores")
                    .apply(Seat(seat), &action, &mut Ctx::new(0, &mut rng))
                    .is_err()
                {
                    // The copy refused it; the original must refuse it too, unchanged.
                    prop_assert!(state.apply(Seat(seat), &action, &mut Ctx::new(0, &mut rng)).is_err());
                    prop_assert_eq!(state.save(), before);
                } else {
                    let _ = state.apply(Seat(seat), &action, &mut Ctx::new(0, &mut rng));
                }
            }
            let ToAct::Turn { seat } = state.to_act() else { break };
            let legal = state.legal_actions(seat);
            prop_assert!(!legal.is_empty());
            let action = &legal[pick as usize % legal.len()];
            state.apply(seat, action, &mut Ctx::new(0, &mut rng)).expect("a legal action");
            let saved = state.save();
            let restored = RULES.restore(&saved).expect("restores");
            prop_assert_eq!(restored.save(), saved);
            prop_assert_eq!(restored.view(arbiter_rules::Viewer::Spectator), state.view(arbiter_rules::Viewer::Spectator));
            let view = state.view(arbiter_rules::Viewer::Seat(Seat(0)));
            let typed: crate::ChessView = serde_json::from_value(view.clone()).expect("a view");
            prop_assert_eq!(serde_json::to_value(&typed).expect("json"), view);
            if let Some(turn) = typed.dice_turn() {
                let legal_now: Vec<String> = {
                    let mut moves: Vec<String> = turn
                        .legal_moves(&crate::DiceRules::default())
                        .iter()
                        .map(ToString::to_string)
                        .collect();
                    moves.sort();
                    moves
                };
                prop_assert_eq!(legal_now, typed.legal_moves.clone());
            }
        }
    }
}
