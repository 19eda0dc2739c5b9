use super::*;

/// How a game between house players of different strengths ends: the lower-numbered (the
/// stronger) wins.
fn stronger_wins(pairing: Pairing) -> Outcome {
    match pairing {
        Pairing::Game { first, second } if first < second => Outcome::FirstWon,
        _ => Outcome::SecondWon,
    }
}

/// Plays `event` to its end, every game going as `result` says; gives the rounds' games.
fn play_out(event: &mut Event, result: fn(Pairing) -> Outcome) -> Vec<Vec<Pairing>> {
    let mut rounds = Vec::new();
    while let Some(games) = event.next_round().expect("a round") {
        for &game in &games {
            event
                .record(game, result(game))
                .expect("a game of the round");
        }
        rounds.push(games);
    }
    rounds
}

#[test]
fn a_round_robin_is_played_to_its_end() {
    let mut event = Event::new(Format::RoundRobin { cycles: 1 }, 5).expect("an event");
    assert_eq!(event.total_rounds(), 5);
    let rounds = play_out(&mut event, stronger_wins);
    assert_eq!(rounds.len(), 5);
    assert_eq!(
        rounds.iter().map(Vec::len).sum::<usize>(),
        10,
        "every pair once"
    );
    assert!(event.is_finished());
    let order: Vec<(Entrant, f64)> = event
        .standings()
        .iter()
        .map(|s| (s.entrant, s.points))
        .collect();
    // Each beats everyone below it; with five, each sits out once (a bye's point).
    assert_eq!(order, [(0, 5.0), (1, 4.0), (2, 3.0), (3, 2.0), (4, 1.0)]);
    assert_eq!(event.next_round(), Ok(None));
}

#[test]
fn a_swiss_is_played_to_its_end_without_repeats() {
    let mut event = Event::new(Format::Swiss { rounds: 3 }, 7).expect("an event");
    let rounds = play_out(&mut event, stronger_wins);
    assert_eq!(rounds.len(), 3);
    let mut met = std::collections::HashSet::new();
    for pairing in rounds.iter().flatten() {
        if let Pairing::Game { first, second } = *pairing {
            assert!(
                met.insert((first.min(second), first.max(second))),
                "a repeat"
            );
        }
    }
    let standings = event.standings();
    assert_eq!(standings[0].entrant, 0, "the strongest wins every round");
    assert_eq!(standings[0].points, 3.0);
    // Everyone played or sat out each round.
    for line in &standings {
        assert_eq!(line.games + line.byes, 3, "{line:?}");
    }
}

#[test]
fn a_withdrawn_entrant_forfeits_the_rest_of_a_round_robin() {
    let mut event = Event::new(Format::RoundRobin { cycles: 1 }, 4).expect("an event");
    let first = event.next_round().expect("round 1").expect("games");
    for &game in &first {
        event.record(game, Outcome::Draw).expect("recorded");
    }
    event.withdraw(3).expect("withdrawn");
    assert_eq!(event.withdraw(3), Err(EventError::NotEntered(3)));
    let mut forfeits = 0;
    while let Some(games) = event.next_round().expect("a round") {
        assert!(
            games.iter().all(|g| !matches!(
                g,
                Pairing::Game { first: 3, .. } | Pairing::Game { second: 3, .. }
            )),
            "3 is never asked to play: {games:?}"
        );
        forfeits += 2 - games.len();
        for &game in &games {
            event.record(game, Outcome::Draw).expect("recorded");
        }
    }
    assert_eq!(forfeits, 2, "3's two later games were forfeited");
    let three = event
        .standings()
        .into_iter()
        .find(|s| s.entrant == 3)
        .expect("listed");
    assert_eq!((three.points, three.losses), (0.5, 2));
}

#[test]
fn a_swiss_pairs_no_one_who_withdrew() {
    let mut event = Event::new(Format::Swiss { rounds: 2 }, 6).expect("an event");
    let first = event.next_round().expect("round 1").expect("games");
    for &game in &first {
        event.record(game, stronger_wins(game)).expect("recorded");
    }
    event.withdraw(5).expect("withdrawn");
    let second = event.next_round().expect("round 2").expect("games");
    assert_eq!(second.len(), 2, "five left: two games and a bye");
    assert!(second.iter().all(|g| !matches!(
        g,
        Pairing::Game { first: 5, .. } | Pairing::Game { second: 5, .. }
    )));
}

#[test]
fn a_void_game_scores_nothing_and_leaves_the_pair_free_to_meet() {
    let mut event = Event::new(Format::Swiss { rounds: 2 }, 4).expect("an event");
    let games = event.next_round().expect("round 1").expect("games");
    event.void(games[0]).expect("voided");
    assert_eq!(event.void(games[0]), Err(EventError::NoSuchGame), "once");
    event.record(games[1], Outcome::FirstWon).expect("recorded");
    assert!(event.waiting().is_empty());
    let standings = event.standings();
    let Pairing::Game { first, second } = games[0] else {
        panic!("a game");
    };
    for entrant in [first, second] {
        let line = standings
            .iter()
            .find(|s| s.entrant == entrant)
            .expect("a line");
        assert_eq!((line.points, line.games), (0.0, 0));
    }
    assert!(!crate::standings::have_met(&event.played, first, second));
}

#[test]
fn a_round_under_way_must_end_before_the_next() {
    let mut event = Event::new(Format::Swiss { rounds: 2 }, 4).expect("an event");
    let games = event.next_round().expect("round 1").expect("games");
    assert_eq!(event.next_round(), Err(EventError::RoundUnderWay(0)));
    let stranger = Pairing::Game {
        first: 0,
        second: 0,
    };
    assert_eq!(
        event.record(stranger, Outcome::Draw),
        Err(EventError::NoSuchGame)
    );
    event.record(games[0], Outcome::Draw).expect("recorded");
    assert_eq!(
        event.record(games[0], Outcome::Draw),
        Err(EventError::NoSuchGame),
        "once"
    );
    assert_eq!(event.waiting(), [games[1]]);
}

#[test]
fn a_tournament_stored_mid_way_carries_on_as_it_would_have() {
    let mut event = Event::new(Format::Swiss { rounds: 4 }, 8).expect("an event");
    let games = event.next_round().expect("round 1").expect("games");
    event.record(games[0], Outcome::FirstWon).expect("recorded");
    // A restart: the tournament as stored, read back.
    let stored = serde_json::to_string(&event).expect("stored");
    let mut resumed: Event = serde_json::from_str(&stored).expect("read back");
    assert_eq!(resumed, event);
    for event in [&mut event, &mut resumed] {
        for &game in &games[1..] {
            event.record(game, Outcome::Draw).expect("recorded");
        }
        play_out(event, stronger_wins);
    }
    assert_eq!(resumed, event);
    assert!(resumed.is_finished());
}
