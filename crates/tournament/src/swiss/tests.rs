use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::Outcome;

fn game(round: u32, first: Entrant, second: Entrant, outcome: Outcome) -> Played {
    Played {
        round,
        pairing: Pairing::Game { first, second },
        outcome: Some(outcome),
    }
}

/// The pairings as sorted pairs (a bye as the entrant with itself), whatever the seats.
fn pairs(pairings: &[Pairing]) -> Vec<(Entrant, Entrant)> {
    let mut pairs: Vec<(Entrant, Entrant)> = pairings
        .iter()
        .map(|p| match *p {
            Pairing::Game { first, second } => (first.min(second), first.max(second)),
            Pairing::Bye { entrant } => (entrant, entrant),
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

#[test]
fn rounds_pair_top_halves_against_bottom_halves_without_repeats() {
    let won = Outcome::FirstWon;
    // (case, entrants, played so far, the round's pairs)
    type Case = (&'static str, usize, Vec<Played>, Vec<(Entrant, Entrant)>);
    let table: [Case; 5] = [
        (
            "round 1 of 8: the top half meets the bottom half",
            8,
            vec![],
            vec![(0, 4), (1, 5), (2, 6), (3, 7)],
        ),
        (
            "round 2 of 4: winners meet winners, losers losers",
            4,
            vec![game(0, 0, 2, won), game(0, 1, 3, won)],
            vec![(0, 1), (2, 3)],
        ),
        (
            "round 3 of 4: the leader has met the next two and floats to the last",
            4,
            vec![
                game(0, 0, 2, won),
                game(0, 1, 3, won),
                game(1, 0, 1, won),
                game(1, 2, 3, won),
            ],
            vec![(0, 3), (1, 2)],
        ),
        (
            "round 1 of 5: the lowest seed sits out",
            5,
            vec![],
            vec![(0, 2), (1, 3), (4, 4)],
        ),
        (
            "round 2 of 5: the lowest ranked without a bye sits out",
            5,
            vec![
                game(0, 0, 2, won),
                game(0, 1, 3, Outcome::SecondWon),
                Played {
                    round: 0,
                    pairing: Pairing::Bye { entrant: 4 },
                    outcome: None,
                },
            ],
            // Points: 0, 3 and 4 one each; 1 and 2 none. 2 is lowest ranked and has had no
            // bye. The leaders' group {0, 3, 4} is odd: its top half is 0 alone, who meets
            // 3, the first of the bottom half; 4 floats down to 1.
            vec![(0, 3), (1, 4), (2, 2)],
        ),
    ];
    for (case, entrants, played, expected) in table {
        let round = played.iter().map(|p| p.round + 1).max().unwrap_or(0);
        let paired = pair(entrants, round, &played).expect(case);
        assert_eq!(pairs(&paired), expected, "{case}");
    }
}

#[test]
fn the_first_seat_goes_to_whoever_needs_it() {
    let won = Outcome::FirstWon;
    // (history, a, b, who plays first)
    let table: [(&str, Vec<Played>, Entrant, Entrant, Entrant); 4] = [
        ("no history: the higher ranked", vec![], 0, 1, 0),
        (
            "fewer first seats",
            vec![game(0, 0, 2, won), game(0, 3, 1, won)],
            0,
            1,
            1,
        ),
        (
            "even, but a played its last game first",
            vec![
                game(0, 0, 2, won),
                game(0, 3, 1, won),
                game(1, 4, 0, won),
                game(1, 1, 5, won),
            ],
            0,
            1,
            0,
        ),
        (
            "even and alike: the higher ranked alternates",
            vec![game(0, 0, 2, won), game(0, 1, 3, won)],
            0,
            1,
            1,
        ),
    ];
    for (case, played, a, b, first) in table {
        match seats(a, b, &played) {
            Pairing::Game { first: got, .. } => assert_eq!(got, first, "{case}"),
            Pairing::Bye { .. } => panic!("{case}: a bye"),
        }
    }
}

#[test]
fn a_field_that_cannot_be_paired_is_refused() {
    // Two entrants who have met cannot be paired again.
    let played = [game(0, 0, 1, Outcome::Draw)];
    assert_eq!(pair(2, 1, &played), Err(PairingError::NoNewOpponents(1)));
    assert_eq!(pair(1, 0, &[]), Err(PairingError::TooFewEntrants));
}

proptest! {
    #[test]
    fn swiss_rounds_never_repeat_and_share_seats_and_byes(
        entrants in 3usize..=12,
        outcomes in proptest::collection::vec(0u8..3, 64),
    ) {
        let rounds = (entrants / 2) as u32;
        let mut played: Vec<Played> = Vec::new();
        let mut next = outcomes.into_iter().cycle();
        for round in 0..rounds {
            let pairings = pair(entrants, round, &played).expect("a pairing");
            let mut seen = HashSet::new();
            for pairing in &pairings {
                match *pairing {
                    Pairing::Game { first, second } => {
                        prop_assert!(seen.insert(first) && seen.insert(second));
                        prop_assert!(!have_met(&played, first, second), "a repeat");
                    }
                    Pairing::Bye { entrant } => prop_assert!(seen.insert(entrant)),
                }
            }
            prop_assert_eq!(seen.len(), entrants);
            for pairing in pairings {
                let outcome = match pairing {
                    Pairing::Bye { .. } => None,
                    Pairing::Game { .. } => Some(match next.next().unwrap_or(1) {
                        0 => Outcome::FirstWon,
                        1 => Outcome::Draw,
                        _ => Outcome::SecondWon,
                    }),
                };
                played.push(Played { round, pairing, outcome });
            }
        }
        for entrant in 0..entrants {
            let byes = played.iter().filter(|p| p.pairing == Pairing::Bye { entrant }).count();
            prop_assert!(byes <= 1, "{} byes for {}", byes, entrant);
            let balance = seat_history(entrant, &played).balance;
            prop_assert!(balance.abs() <= 2, "seats of {}: {}", entrant, balance);
            let seats: Vec<bool> = played
                .iter()
                .filter_map(|p| match p.pairing {
                    Pairing::Game { first, second } if first == entrant || second == entrant => {
                        Some(first == entrant)
                    }
                    _ => None,
                })
                .collect();
            prop_assert!(
                seats.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                "{} sat in one seat three times running: {:?}", entrant, seats
            );
        }
    }
}
