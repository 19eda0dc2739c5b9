//! How entrants rank: points, then Buchholz, then Sonneborn–Berger, then the order of entry;
//! and the crosstable of who scored what against whom.

use serde::Serialize;

use crate::{Entrant, Outcome, Pairing, Played};

/// The points of a bye, in halves: a whole point, as most Swiss events give it.
pub const BYE_HALVES: u32 = 2;

/// One entrant's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// The place, from 1; entrants equal on every tie-break share it.
    pub rank: usize,
    /// The entrant.
    pub entrant: Entrant,
    /// Points: 1 a win, ½ a draw, 1 a bye.
    pub points: f64,
    /// Games played (byes not counted).
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Byes received.
    pub byes: u32,
    /// The sum of the points of every opponent met (a bye adds nothing).
    pub buchholz: f64,
    /// The points of every opponent beaten plus half those of every opponent drawn with.
    pub sonneborn_berger: f64,
}

/// Each entrant's points in halves, from `played`.
pub fn halves(entrants: usize, played: &[Played]) -> Vec<u32> {
    let mut halves = vec![0; entrants];
    for game in played {
        match (game.pairing, game.outcome) {
            (Pairing::Bye { entrant }, _) => {
                if let Some(h) = halves.get_mut(entrant) {
                    *h += BYE_HALVES;
                }
            }
            (Pairing::Game { first, second }, Some(outcome)) => {
                let (a, b) = outcome.halves();
                if first < entrants && second < entrants {
                    halves[first] += a;
                    halves[second] += b;
                }
            }
            (Pairing::Game { .. }, None) => {}
        }
    }
    halves
}

/// The standings of `entrants` after `played`, best first.
pub fn standings(entrants: usize, played: &[Played]) -> Vec<Standing> {
    let points: Vec<f64> = halves(entrants, played)
        .into_iter()
        .map(|h| f64::from(h) / 2.0)
        .collect();
    let mut lines: Vec<Standing> = (0..entrants)
        .map(|entrant| Standing {
            rank: 0,
            entrant,
            points: points[entrant],
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            byes: 0,
            buchholz: 0.0,
            sonneborn_berger: 0.0,
        })
        .collect();
    for game in played {
        match (game.pairing, game.outcome) {
            (Pairing::Bye { entrant }, _) if entrant < entrants => lines[entrant].byes += 1,
            (Pairing::Game { first, second }, Some(outcome))
                if first < entrants && second < entrants =>
            {
                for (me, other, mine) in [
                    (first, second, outcome.halves().0),
                    (second, first, outcome.halves().1),
                ] {
                    let line = &mut lines[me];
                    line.games += 1;
                    line.buchholz += points[other];
                    match mine {
                        2 => {
                            line.wins += 1;
                            line.sonneborn_berger += points[other];
                        }
                        1 => {
                            line.draws += 1;
                            line.sonneborn_berger += points[other] / 2.0;
                        }
                        _ => line.losses += 1,
                    }
                }
            }
            _ => {}
        }
    }
    let key = |s: &Standing| (s.points, s.buchholz, s.sonneborn_berger);
    lines.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0)
            .then(kb.1.total_cmp(&ka.1))
            .then(kb.2.total_cmp(&ka.2))
            .then(a.entrant.cmp(&b.entrant))
    });
    for i in 0..lines.len() {
        lines[i].rank = if i > 0 && key(&lines[i]) == key(&lines[i - 1]) {
            lines[i - 1].rank
        } else {
            i + 1
        };
    }
    lines
}

/// The crosstable: for each entrant, against each other, the points it scored in each of their
/// games, in the order played (in halves: 2 a win, 1 a draw, 0 a loss).
pub fn crosstable(entrants: usize, played: &[Played]) -> Vec<Vec<Vec<u32>>> {
    let mut table = vec![vec![Vec::new(); entrants]; entrants];
    for game in played {
        if let (Pairing::Game { first, second }, Some(outcome)) = (game.pairing, game.outcome)
            && first < entrants
            && second < entrants
        {
            let (a, b) = outcome.halves();
            table[first][second].push(a);
            table[second][first].push(b);
        }
    }
    table
}

/// Whether `a` and `b` have met in `played`.
pub fn have_met(played: &[Played], a: Entrant, b: Entrant) -> bool {
    played.iter().any(|game| match game.pairing {
        Pairing::Game { first, second } => {
            (first == a && second == b) || (first == b && second == a)
        }
        Pairing::Bye { .. } => false,
    })
}

/// How `outcome` reads for `entrant`, who played `pairing`: `Some(2)` a win, `Some(1)` a
/// draw, `Some(0)` a loss, `None` if it did not play the game.
pub fn halves_for(pairing: Pairing, outcome: Outcome, entrant: Entrant) -> Option<u32> {
    match pairing {
        Pairing::Game { first, .. } if first == entrant => Some(outcome.halves().0),
        Pairing::Game { second, .. } if second == entrant => Some(outcome.halves().1),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
