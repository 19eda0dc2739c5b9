//! Tournaments of games for more than two: each round seats the entrants at tables, the
//! leaders together (as a Swiss round pairs equal scores), and a table's game scores each
//! seat by its place, 1 for first down to 0 for last, so that a two-seat table scores as a
//! game of chess does.

use serde::{Deserialize, Serialize};

use crate::Entrant;

/// One table's game: its seats in order and, once it has ended, each seat's place (1 for
/// first; seats level share a place). A table of one is an entrant sitting the round out,
/// which scores [`SIT_OUT_POINTS`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableGame {
    /// The round, from 0.
    pub round: u32,
    /// The entrants in seat order.
    pub seats: Vec<Entrant>,
    /// Each seat's place, once the game has ended.
    pub places: Option<Vec<u8>>,
}

impl TableGame {
    /// Whether this is an entrant sitting the round out.
    pub fn is_sit_out(&self) -> bool {
        self.seats.len() == 1
    }
}

/// What sitting a round out scores: an average place.
pub const SIT_OUT_POINTS: f64 = 0.5;

/// The points each seat's place scores: from 1 for first to 0 for last, evenly spaced, seats
/// sharing a place sharing the points of the positions they span.
pub fn place_points(places: &[u8]) -> Vec<f64> {
    let n = places.len();
    if n < 2 {
        return vec![SIT_OUT_POINTS; n];
    }
    let step = 1.0 / (n - 1) as f64;
    places
        .iter()
        .map(|&place| {
            // Seats ahead and seats level, this one included.
            let ahead = places.iter().filter(|&&p| p < place).count();
            let level = places.iter().filter(|&&p| p == place).count();
            // Positions ahead .. ahead + level - 1 (from 0), whose points are averaged.
            let first = 1.0 - ahead as f64 * step;
            let last = 1.0 - (ahead + level - 1) as f64 * step;
            (first + last) / 2.0
        })
        .collect()
}

/// Each entrant's points after `played` (games under way count nothing).
pub fn points(entrants: usize, played: &[TableGame]) -> Vec<f64> {
    let mut points = vec![0.0; entrants];
    for game in played {
        let Some(places) = &game.places else {
            continue;
        };
        for (&entrant, scored) in game.seats.iter().zip(place_points(places)) {
            if let Some(total) = points.get_mut(entrant) {
                *total += scored;
            }
        }
    }
    points
}

/// A round's seating: the tables in order (the leaders' first), each in seat order, and who
/// sits the round out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seating {
    /// The tables.
    pub tables: Vec<Vec<Entrant>>,
    /// The entrants who sit it out.
    pub sitting_out: Vec<Entrant>,
}

/// Seats round `round` of the `active` entrants (of `entrants` in all) at tables of at most
/// `size` and at least `min` seats, after `played`: entrants ranked by points, then seeding;
/// as many tables as the entrants fill to `min`, as even in size as can be, the leaders
/// together; those left over (when even the fewest tables cannot take everyone) sit out,
/// the lowest ranked among those who sat out least. Within a table the seats turn each round,
/// so that nobody keeps the first seat.
pub fn seat(
    entrants: usize,
    active: &[Entrant],
    round: u32,
    size: usize,
    min: usize,
    played: &[TableGame],
) -> Seating {
    let size = size.max(1);
    let min = min.clamp(1, size);
    let scores = points(entrants, played);
    let mut ranked: Vec<Entrant> = active.to_vec();
    ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let n = ranked.len();
    let mut tables = n.div_ceil(size);
    while tables > 0 && n < tables * min {
        tables -= 1;
    }
    let seated = n.min(tables * size);
    let mut sitting_out = Vec::new();
    if seated < n {
        let sat_out = |entrant: Entrant| {
            played
                .iter()
                .filter(|game| game.is_sit_out() && game.seats[0] == entrant)
                .count()
        };
        // The lowest ranked among those who sat out least.
        let mut candidates: Vec<(usize, usize, Entrant)> = ranked
            .iter()
            .enumerate()
            .map(|(rank, &entrant)| (sat_out(entrant), usize::MAX - rank, entrant))
            .collect();
        candidates.sort_unstable();
        sitting_out = candidates
            .iter()
            .take(n - seated)
            .map(|&(_, _, entrant)| entrant)
            .collect();
        ranked.retain(|entrant| !sitting_out.contains(entrant));
    }
    let mut seatings = Vec::with_capacity(tables);
    let mut rest = ranked.as_slice();
    for table in 0..tables {
        // Sizes as even as can be: the first tables take one more where it does not divide.
        let left = tables - table;
        let take = rest.len().div_ceil(left);
        let (here, after) = rest.split_at(take);
        let turn = usize::try_from(round).unwrap_or(0) % here.len().max(1);
        let mut seats = here.to_vec();
        seats.rotate_left(turn);
        seatings.push(seats);
        rest = after;
    }
    sitting_out.sort_unstable();
    Seating {
        tables: seatings,
        sitting_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_score_from_one_to_nothing_with_shared_places_averaged() {
        let table: [(&[u8], &[f64]); 6] = [
            (&[1, 2], &[1.0, 0.0]),
            (&[1, 1], &[0.5, 0.5]),
            (&[2, 1, 3, 4], &[2.0 / 3.0, 1.0, 1.0 / 3.0, 0.0]),
            (&[1, 2, 2, 4], &[1.0, 0.5, 0.5, 0.0]),
            (&[1, 1, 1], &[0.5, 0.5, 0.5]),
            (&[1], &[SIT_OUT_POINTS]),
        ];
        for (places, expected) in table {
            let got = place_points(places);
            assert_eq!(got.len(), expected.len());
            for (g, e) in got.iter().zip(expected) {
                assert!((g - e).abs() < 1e-9, "{places:?}: {got:?}");
            }
        }
    }

    #[test]
    fn tables_are_as_even_as_can_be_and_the_leaders_sit_together() {
        // Ten entrants at tables of four to eight: two tables of five.
        let active: Vec<Entrant> = (0..10).collect();
        let seating = seat(10, &active, 0, 8, 4, &[]);
        assert_eq!(
            seating.tables,
            vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]
        );
        assert!(seating.sitting_out.is_empty());
        // After a round, the winners of both tables sit together.
        let played = vec![
            TableGame {
                round: 0,
                seats: vec![0, 1, 2, 3, 4],
                places: Some(vec![5, 4, 3, 2, 1]),
            },
            TableGame {
                round: 0,
                seats: vec![5, 6, 7, 8, 9],
                places: Some(vec![1, 2, 3, 4, 5]),
            },
        ];
        let next = seat(10, &active, 1, 8, 4, &played);
        let mut top = next.tables[0].clone();
        top.sort_unstable();
        assert_eq!(
            top,
            vec![2, 3, 4, 5, 6],
            "the level ones by seeding: {next:?}"
        );
        assert_eq!(next.tables[0][0], 5, "the seats turn by one: {next:?}");
    }

    #[test]
    fn who_cannot_be_seated_sits_out_in_turn() {
        // Nine entrants at tables of exactly four: two tables, one sits out each round, never
        // the same one twice running while another has not sat out.
        let active: Vec<Entrant> = (0..9).collect();
        let mut played = Vec::new();
        let mut sat_out = Vec::new();
        for round in 0..9 {
            let seating = seat(9, &active, round, 4, 4, &played);
            assert_eq!(seating.tables.len(), 2);
            assert!(seating.tables.iter().all(|table| table.len() == 4));
            assert_eq!(seating.sitting_out.len(), 1);
            sat_out.push(seating.sitting_out[0]);
            for table in seating.tables {
                let places = (1..=4).collect();
                played.push(TableGame {
                    round,
                    seats: table,
                    places: Some(places),
                });
            }
            played.push(TableGame {
                round,
                seats: seating.sitting_out.clone(),
                places: Some(vec![1]),
            });
        }
        sat_out.sort_unstable();
        assert_eq!(sat_out, (0..9).collect::<Vec<_>>(), "each sat out once");
    }

    #[test]
    fn too_few_for_a_table_seats_nobody() {
        let seating = seat(3, &[0, 1, 2], 0, 8, 4, &[]);
        assert!(seating.tables.is_empty());
        assert_eq!(seating.sitting_out, vec![0, 1, 2]);
    }
}
