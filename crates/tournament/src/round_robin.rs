//! Round robins by the Berger tables: every entrant meets every other once a cycle, the one
//! left over in a round of an odd number sitting out, and the second cycle of a double round
//! robin repeating the first with the seats swapped.

use crate::{Entrant, Pairing, PairingError};

/// Every round of a round robin of `entrants` in `cycles` cycles (1 or 2), in order.
///
/// The circle method: the last position stays while the others turn one place each round;
/// position `i` meets position `len − 1 − i`. The entrant in the fixed position alternates
/// seats from round to round, and in every other pair the entrant in the first half of the
/// circle takes the first seat when `i` is even and the second when it is odd: as everyone
/// moves one place a round, each one's seats alternate, never the same seat three times in a
/// row and never more than one game more in one seat than in the other.
pub fn rounds(entrants: usize, cycles: u8) -> Result<Vec<Vec<Pairing>>, PairingError> {
    if entrants < 2 {
        return Err(PairingError::TooFewEntrants);
    }
    // `None` stands for the bye in an odd number.
    let mut circle: Vec<Option<Entrant>> = (0..entrants).map(Some).collect();
    if !entrants.is_multiple_of(2) {
        circle.push(None);
    }
    let size = circle.len();
    let mut cycle = Vec::with_capacity(size - 1);
    for round in 0..size - 1 {
        let mut pairings = Vec::with_capacity(size / 2);
        for i in 0..size / 2 {
            let (a, b) = (circle[i], circle[size - 1 - i]);
            let swap = if i == 0 { round % 2 == 1 } else { i % 2 == 1 };
            let (first, second) = if swap { (b, a) } else { (a, b) };
            pairings.push(match (first, second) {
                (Some(first), Some(second)) => Pairing::Game { first, second },
                (Some(entrant), None) | (None, Some(entrant)) => Pairing::Bye { entrant },
                (None, None) => continue,
            });
        }
        cycle.push(pairings);
        // Turn every position but the last one place.
        circle[..size - 1].rotate_right(1);
    }
    let mut all = cycle.clone();
    for _ in 1..cycles.max(1) {
        all.extend(cycle.iter().map(|round| {
            round
                .iter()
                .map(|pairing| match *pairing {
                    Pairing::Game { first, second } => Pairing::Game {
                        first: second,
                        second: first,
                    },
                    bye => bye,
                })
                .collect()
        }));
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn everyone_meets_everyone_once_a_cycle_and_plays_once_a_round() {
        for entrants in 2..=12 {
            for cycles in [1, 2] {
                let rounds = rounds(entrants, cycles).expect("rounds");
                let per_cycle = if entrants % 2 == 0 {
                    entrants - 1
                } else {
                    entrants
                };
                assert_eq!(rounds.len(), per_cycle * usize::from(cycles), "{entrants}");
                let mut met: HashSet<(Entrant, Entrant, bool)> = HashSet::new();
                let mut byes = vec![0; entrants];
                for round in &rounds {
                    let mut seen = HashSet::new();
                    for pairing in round {
                        match *pairing {
                            Pairing::Game { first, second } => {
                                assert!(seen.insert(first) && seen.insert(second));
                                let key = (first.min(second), first.max(second), first < second);
                                assert!(met.insert(key), "{entrants}: {key:?} twice");
                            }
                            Pairing::Bye { entrant } => {
                                assert!(seen.insert(entrant));
                                byes[entrant] += 1;
                            }
                        }
                    }
                    assert_eq!(seen.len(), entrants, "everyone plays or sits out");
                }
                let pairs = entrants * (entrants - 1) / 2;
                assert_eq!(met.len(), pairs * usize::from(cycles));
                if cycles == 2 {
                    // The second cycle swaps every pair's seats.
                    let firsts: HashSet<_> = met.iter().filter(|k| k.2).collect();
                    assert_eq!(firsts.len(), pairs);
                }
                let expected_byes = usize::from(entrants % 2 == 1) * usize::from(cycles);
                assert!(byes.iter().all(|&b| b == expected_byes), "{byes:?}");
            }
        }
    }

    #[test]
    fn seats_alternate_and_even_out() {
        for entrants in 2..=14 {
            let rounds = rounds(entrants, 1).expect("rounds");
            let mut seats: Vec<Vec<bool>> = vec![Vec::new(); entrants];
            for pairing in rounds.iter().flatten() {
                if let Pairing::Game { first, second } = *pairing {
                    seats[first].push(true);
                    seats[second].push(false);
                }
            }
            for (entrant, seats) in seats.iter().enumerate() {
                let firsts = seats.iter().filter(|&&first| first).count() as i64;
                let balance = 2 * firsts - seats.len() as i64;
                assert!(balance.abs() <= 1, "{entrants}: {entrant} {seats:?}");
                assert!(
                    seats.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                    "{entrants}: {entrant} has one seat three times running: {seats:?}"
                );
            }
        }
    }

    #[test]
    fn one_entrant_is_no_tournament() {
        assert_eq!(rounds(1, 1), Err(PairingError::TooFewEntrants));
    }
}
