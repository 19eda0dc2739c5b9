use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::json;

use super::*;
use arbiter_rules::{DynGame, Erased, GameError, SeatResult};

fn config(players: u8, cards: u8) -> GoofspielConfig {
    GoofspielConfig {
        players,
        cards,
        bid_ms: 1_000,
    }
}

fn start(config: &GoofspielConfig, seed: u64) -> GoofspielState {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Goofspiel::start(config, &mut Ctx::new(0, &mut rng))
        .expect("valid config")
        .0
}

fn bid(
    state: &mut GoofspielState,
    seat: u8,
    card: u8,
) -> Result<Vec<Emitted<GoofspielEvent>>, RuleError> {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let round = state.round;
    Goofspiel::apply(
        state,
        Seat(seat),
        &Bid { round, card },
        &mut Ctx::new(500, &mut rng),
    )
}

#[test]
fn a_scripted_game_scores_unique_highest_bids_and_discards_ties() {
    let mut state = start(&config(2, 3), 11);
    let mut prizes = Vec::new();
    // Seat 0 bids high to low, seat 1 low to high: seat 0 takes round 1, round 2 ties, seat 1
    // takes round 3.
    for (high, low) in [(3, 1), (2, 2), (1, 3)] {
        prizes.push(state.prize.expect("game running"));
        bid(&mut state, 0, high).expect("legal");
        bid(&mut state, 1, low).expect("legal");
    }
    assert_eq!(Goofspiel::to_act(&state), ToAct::Nobody);
    assert_eq!(
        state.scores,
        vec![u32::from(prizes[0]), u32::from(prizes[2])]
    );
    let winners: Vec<_> = state.history.iter().map(|r| r.winner).collect();
    assert_eq!(winners, vec![Some(Seat(0)), None, Some(Seat(1))]);
    let outcome = Goofspiel::outcome(&state).expect("finished");
    let expected = if prizes[0] > prizes[2] {
        [SeatResult::Win, SeatResult::Loss]
    } else {
        [SeatResult::Loss, SeatResult::Win]
    };
    assert_eq!([outcome.seats[0].result, outcome.seats[1].result], expected);
}

#[test]
fn the_deadline_bids_the_lowest_card_for_seats_that_did_not_bid() {
    let mut state = start(&config(2, 4), 3);
    bid(&mut state, 0, 3).expect("legal");
    assert_eq!(Goofspiel::deadline(&state), Some(1_000));
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let events = Goofspiel::on_deadline(&mut state, &mut Ctx::new(1_000, &mut rng));
    let revealed = &state.history[0];
    assert_eq!(revealed.bids, vec![3, 1]);
    assert_eq!(revealed.winner, Some(Seat(0)));
    assert_eq!(revealed.defaulted, SeatSet::only(Seat(1)));
    assert_eq!(
        Goofspiel::deadline(&state),
        Some(2_000),
        "the next round gets a fresh deadline"
    );
    assert!(matches!(events[0].event, GoofspielEvent::Revealed(_)));
    assert!(matches!(
        events[1].event,
        GoofspielEvent::Prize { round: 2, .. }
    ));
}

#[test]
fn refused_actions_change_nothing() {
    let mut state = start(&config(3, 5), 5);
    bid(&mut state, 1, 4).expect("legal");
    let cases: [(u8, Bid, RuleError); 4] = [
        (1, Bid { round: 1, card: 2 }, RuleError::AlreadyActed),
        (
            0,
            Bid { round: 2, card: 2 },
            RuleError::StalePhase { got: 2, current: 1 },
        ),
        (
            0,
            Bid { round: 1, card: 9 },
            RuleError::Illegal("card 9 is not in your hand".to_owned()),
        ),
        (7, Bid { round: 1, card: 2 }, RuleError::NoSuchSeat(7)),
    ];
    for (seat, action, expected) in cases {
        let before = state.clone();
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let result = Goofspiel::apply(&mut state, Seat(seat), &action, &mut Ctx::new(10, &mut rng));
        assert_eq!(result, Err(expected));
        assert_eq!(state, before);
    }
}

#[test]
fn who_acts_and_what_they_may_do() {
    let mut state = start(&config(3, 4), 8);
    assert_eq!(
        Goofspiel::to_act(&state),
        ToAct::Simultaneous {
            phase: 1,
            pending: SeatSet::first(3)
        }
    );
    bid(&mut state, 2, 4).expect("legal");
    assert_eq!(
        Goofspiel::to_act(&state),
        ToAct::Simultaneous {
            phase: 1,
            pending: SeatSet::first(2)
        }
    );
    assert!(Goofspiel::legal_actions(&state, Seat(2)).is_empty());
    assert_eq!(Goofspiel::legal_actions(&state, Seat(0)).len(), 4);
}

#[test]
fn the_shuffle_is_seeded() {
    let config = config(2, 13);
    assert_eq!(start(&config, 42).deck, start(&config, 42).deck);
    let firsts: std::collections::BTreeSet<_> =
        (0..20).map(|seed| start(&config, seed).prize).collect();
    assert!(
        firsts.len() > 3,
        "twenty seeds should not all turn up the same few prizes"
    );
}

#[test]
fn bids_are_private_until_revealed() {
    let mut state = start(&config(2, 5), 1);
    let events = bid(&mut state, 0, 5).expect("legal");
    for viewer in [Viewer::Seat(Seat(1)), Viewer::Spectator] {
        let seen: Vec<_> = events
            .iter()
            .filter(|e| e.visibility.allows(viewer))
            .collect();
        assert_eq!(seen.len(), 1);
        assert_eq!(
            seen[0].event,
            GoofspielEvent::Committed {
                round: 1,
                seat: Seat(0)
            }
        );
    }
    assert!(
        events
            .iter()
            .any(|e| e.visibility.allows(Viewer::Seat(Seat(0)))
                && e.event == GoofspielEvent::OwnBid { round: 1, card: 5 })
    );
    assert_eq!(
        Goofspiel::view(&state, Viewer::Seat(Seat(0))).own_bid,
        Some(5)
    );
    assert_eq!(Goofspiel::view(&state, Viewer::Seat(Seat(1))).own_bid, None);
    let omniscient = Goofspiel::view(&state, Viewer::Omniscient);
    assert_eq!(
        omniscient.secrets.expect("omniscient sees secrets").bids,
        vec![Some(5), None]
    );
}

/// Plays `choices` (seat, index into that seat's legal bids) as far as they go while keeping
/// the game running.
fn play_prefix(state: &mut GoofspielState, choices: &[(u8, u8)]) {
    for &(seat, pick) in choices {
        let seat = Seat(seat % state.config.players);
        let legal = Goofspiel::legal_actions(state, seat);
        if legal.is_empty() {
            continue;
        }
        let action = legal[usize::from(pick) % legal.len()].clone();
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut probe = state.clone();
        Goofspiel::apply(&mut probe, seat, &action, &mut Ctx::new(0, &mut rng)).expect("legal bid");
        if Goofspiel::outcome(&probe).is_some() {
            return;
        }
        *state = probe;
    }
}

fn observers(players: u8, except: Seat) -> Vec<Viewer> {
    (0..players)
        .map(Seat)
        .filter(|&s| s != except)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
        .collect()
}

proptest! {
    /// Whatever a seat bids, everyone else sees exactly the same views and events, as long as
    /// the round has not been revealed.
    #[test]
    fn another_seats_pending_bid_is_invisible(
        seed in any::<u64>(),
        players in 2u8..=4,
        choices in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..30),
        bidder in any::<u8>(),
        picks in (any::<u8>(), any::<u8>()),
    ) {
        let mut state = start(&config(players, 6), seed);
        play_prefix(&mut state, &choices);
        let ToAct::Simultaneous { pending, .. } = Goofspiel::to_act(&state) else { return Ok(()) };
        prop_assume!(pending.len() >= 2);
        let seat = pending.iter().nth(usize::from(bidder) % pending.len()).expect("in range");
        let legal = Goofspiel::legal_actions(&state, seat);
        prop_assume!(legal.len() >= 2);
        let first = &legal[usize::from(picks.0) % legal.len()];
        let second = &legal[(usize::from(picks.0) + 1 + usize::from(picks.1) % (legal.len() - 1)) % legal.len()];
        prop_assert_ne!(first, second);

        let (mut a, mut b) = (state.clone(), state.clone());
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let events_a = Goofspiel::apply(&mut a, seat, first, &mut Ctx::new(0, &mut rng)).expect("legal");
        let events_b = Goofspiel::apply(&mut b, seat, second, &mut Ctx::new(0, &mut rng)).expect("legal");
        for viewer in observers(players, seat) {
            prop_assert_eq!(Goofspiel::view(&a, viewer), Goofspiel::view(&b, viewer));
            let seen_a: Vec<_> = events_a.iter().filter(|e| e.visibility.allows(viewer)).collect();
            let seen_b: Vec<_> = events_b.iter().filter(|e| e.visibility.allows(viewer)).collect();
            prop_assert_eq!(seen_a, seen_b);
        }
        // The bidder does see the difference, so the comparison above can fail.
        prop_assert_ne!(Goofspiel::view(&a, Viewer::Seat(seat)), Goofspiel::view(&b, Viewer::Seat(seat)));
    }

    /// The order of the face-down prizes shows in no player's or spectator's view.
    #[test]
    fn the_deck_order_is_invisible(seed in any::<u64>(), choices in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..12)) {
        let mut state = start(&config(3, 8), seed);
        play_prefix(&mut state, &choices);
        prop_assume!(state.deck.len() >= 2);
        let mut reordered = state.clone();
        reordered.deck.reverse();
        prop_assert_ne!(&reordered.deck, &state.deck);
        for viewer in observers(3, Seat(99)) {
            prop_assert_eq!(Goofspiel::view(&state, viewer), Goofspiel::view(&reordered, viewer));
        }
        prop_assert_ne!(Goofspiel::view(&state, Viewer::Omniscient), Goofspiel::view(&reordered, Viewer::Omniscient));
    }
}

static GOOFSPIEL: Erased<Goofspiel> = Erased::new();

#[test]
fn the_erased_interface_round_trips_through_json() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let (mut game, events) = GOOFSPIEL
        .start(
            &json!({"players": 3, "unknown": true}),
            &mut Ctx::new(0, &mut rng),
        )
        .expect("valid");
    assert_eq!(events[0].event["type"], "prize");
    assert_eq!(
        GOOFSPIEL.seat_count(&json!({"players": 3})).expect("valid"),
        3
    );

    let events = game
        .apply(
            Seat(1),
            &json!({"round": 1, "card": 13}),
            &mut Ctx::new(5, &mut rng),
        )
        .expect("legal");
    assert_eq!(events.len(), 2);
    let malformed = game.apply(
        Seat(0),
        &json!({"round": 1, "card": "x"}),
        &mut Ctx::new(5, &mut rng),
    );
    assert!(matches!(malformed, Err(GameError::MalformedAction(_))));
    let illegal = game.apply(
        Seat(1),
        &json!({"round": 1, "card": 12}),
        &mut Ctx::new(5, &mut rng),
    );
    assert!(matches!(
        illegal,
        Err(GameError::Rule(RuleError::AlreadyActed))
    ));

    let saved = game.save();
    assert_eq!(saved["rules_version"], 1);
    let restored = GOOFSPIEL.restore(&saved).expect("restorable");
    assert_eq!(restored.save(), saved);
    let typed = restored
        .as_any()
        .downcast_ref::<GoofspielState>()
        .expect("a Goofspiel state");
    assert_eq!(typed.bids[1], Some(13));
    assert_eq!(restored.view(Viewer::Seat(Seat(1)))["own_bid"], 13);
    assert_eq!(
        restored.view(Viewer::Seat(Seat(0)))["own_bid"],
        serde_json::Value::Null
    );

    let mut newer = saved.clone();
    newer["rules_version"] = json!(99);
    assert!(matches!(
        GOOFSPIEL.restore(&newer),
        Err(GameError::Restore(_))
    ));
    let mut foreign = saved.clone();
    foreign["game"] = json!("chess");
    assert!(matches!(
        GOOFSPIEL.restore(&foreign),
        Err(GameError::Restore(_))
    ));
    assert!(matches!(
        GOOFSPIEL.seat_count(&json!({"players": 9})),
        Err(GameError::Config(_))
    ));
}

#[test]
fn a_seat_that_leaves_bids_its_lowest_card_from_then_on() {
    let mut state = start(&config(3, 4), 9);
    bid(&mut state, 0, 4).expect("seat 0 bids");
    bid(&mut state, 1, 3).expect("seat 1 bids");
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let events = Goofspiel::leave(&mut state, Seat(2), &mut Ctx::new(5, &mut rng))
        .expect("the game plays on without it");
    assert!(
        events
            .iter()
            .any(|e| matches!(e.event, GoofspielEvent::Revealed(ref r) if r.bids == [4, 3, 1])),
        "its lowest card completes the round: {events:?}"
    );
    // The next rounds need only the others.
    for round in 2..=4u8 {
        let hand = |seat: usize| cards_in(state.hands[seat]);
        let (a, b) = (hand(0)[0], hand(1)[0]);
        bid(&mut state, 0, a).expect("seat 0 bids");
        bid(&mut state, 1, b).expect("seat 1 bids");
        assert_eq!(
            state.history.len(),
            usize::from(round),
            "round {round} resolved"
        );
    }
    assert!(Goofspiel::outcome(&state).is_some(), "the game ends");
    assert!(
        Goofspiel::leave(&mut state, Seat(7), &mut Ctx::new(5, &mut rng)).is_none(),
        "no such seat"
    );
}
