//! Swiss pairings: each round pairs entrants of equal or near scores who have not met, the
//! top half of a score group against its bottom half as the Dutch system does, a lower group's
//! best floating up where a group cannot be paired among itself; an odd entrant out gets a bye,
//! the lowest ranked who has not had one; and seats go first to whoever has played fewer games
//! in the first seat. As in the Dutch system's absolute colour rules, a pairing that would give
//! someone two games more in one seat than in the other, or one seat three times running, is
//! made only when no pairing of the round avoids it.

use crate::standings::{halves, have_met};
use crate::{Entrant, Pairing, PairingError, Played};

/// The most pairing attempts a round may take before it is declared impossible; far more
/// than any real field needs, and a bound on a field that cannot be paired.
const SEARCH_LIMIT: u32 = 200_000;

/// The pairings of round `round` (from 0) of a Swiss of `entrants`, seeded in their order (the
/// first is the top seed), after `played`.
pub fn pair(entrants: usize, round: u32, played: &[Played]) -> Result<Vec<Pairing>, PairingError> {
    let everyone: Vec<Entrant> = (0..entrants).collect();
    pair_among(entrants, &everyone, round, played)
}

/// The pairings of round `round` among the `active` ones of `entrants` (those who have not
/// withdrawn), after `played`.
pub fn pair_among(
    entrants: usize,
    active: &[Entrant],
    round: u32,
    played: &[Played],
) -> Result<Vec<Pairing>, PairingError> {
    if active.len() < 2 {
        return Err(PairingError::TooFewEntrants);
    }
    let scores = halves(entrants, played);
    // Rank: more points first, then the seeding.
    let mut ranked: Vec<Entrant> = active.iter().copied().filter(|&e| e < entrants).collect();
    ranked.sort_by(|&a, &b| scores[b].cmp(&scores[a]).then(a.cmp(&b)));
    let had_bye = |entrant: Entrant| {
        played
            .iter()
            .any(|game| game.pairing == Pairing::Bye { entrant })
    };
    // The bye candidates, lowest ranked first: those without a bye, then (a field smaller than
    // the rounds) everyone.
    let candidates: Vec<Option<Entrant>> = if ranked.len().is_multiple_of(2) {
        vec![None]
    } else {
        let fresh: Vec<Option<Entrant>> = ranked
            .iter()
            .rev()
            .filter(|&&e| !had_bye(e))
            .map(|&e| Some(e))
            .collect();
        if fresh.is_empty() {
            ranked.iter().rev().map(|&e| Some(e)).collect()
        } else {
            fresh
        }
    };
    for strict in [true, false] {
        if let Some(pairings) = pair_with(&ranked, &candidates, &scores, played, strict) {
            return Ok(pairings);
        }
    }
    Err(PairingError::NoNewOpponents(round))
}

/// The round's pairings with the first bye candidate that lets the rest be paired, keeping the
/// seat rules when `strict`; `None` if there are none.
fn pair_with(
    ranked: &[Entrant],
    candidates: &[Option<Entrant>],
    scores: &[u32],
    played: &[Played],
    strict: bool,
) -> Option<Vec<Pairing>> {
    let mut budget = SEARCH_LIMIT;
    for &bye in candidates {
        let field: Vec<Entrant> = ranked.iter().copied().filter(|&e| Some(e) != bye).collect();
        let mut pairs = Vec::with_capacity(field.len() / 2);
        let mut search = Search {
            scores,
            played,
            strict,
            budget: &mut budget,
        };
        if search.pair_field(&field, &mut pairs) {
            let mut pairings: Vec<Pairing> = pairs
                .into_iter()
                .map(|(a, b)| seats(a, b, played))
                .collect();
            if let Some(entrant) = bye {
                pairings.push(Pairing::Bye { entrant });
            }
            return Some(pairings);
        }
    }
    None
}

/// A search for a round's pairs.
struct Search<'a> {
    scores: &'a [u32],
    played: &'a [Played],
    /// Whether the seat rules hold (see [`keeps_seat_rules`]).
    strict: bool,
    /// Attempts left.
    budget: &'a mut u32,
}

impl Search<'_> {
    /// Pairs `field` (ranked) without a repeat into `pairs`, by backtracking: the top entrant
    /// left takes the first opponent in its order of preference that lets the rest be paired.
    fn pair_field(&mut self, field: &[Entrant], pairs: &mut Vec<(Entrant, Entrant)>) -> bool {
        let Some((&top, rest)) = field.split_first() else {
            return true;
        };
        for opponent in preference(top, rest, self.scores) {
            if *self.budget == 0 {
                return false;
            }
            *self.budget -= 1;
            if have_met(self.played, top, opponent)
                || (self.strict && !keeps_seat_rules(top, opponent, self.played))
            {
                continue;
            }
            let remaining: Vec<Entrant> = rest.iter().copied().filter(|&e| e != opponent).collect();
            pairs.push((top, opponent));
            if self.pair_field(&remaining, pairs) {
                return true;
            }
            pairs.pop();
        }
        false
    }
}

/// Whether pairing `a` with `b` (seated by [`seats`]) leaves neither two games more in one
/// seat than in the other, nor in one seat three times running.
fn keeps_seat_rules(a: Entrant, b: Entrant, played: &[Played]) -> bool {
    let Pairing::Game { first, second } = seats(a, b, played) else {
        return true;
    };
    [(first, true), (second, false)]
        .into_iter()
        .all(|(entrant, seat)| {
            let history = seat_history(entrant, played);
            let balance = history.balance + if seat { 1 } else { -1 };
            balance.abs() <= 2 && history.last_two != [Some(seat), Some(seat)]
        })
}

/// The order in which `top` (the highest ranked left) would rather meet the others, `rest`
/// (ranked): first its own score group's bottom half, from its middle down (the Dutch system's
/// top half against bottom half), then the rest of its group, then lower groups in rank order.
fn preference(top: Entrant, rest: &[Entrant], scores: &[u32]) -> Vec<Entrant> {
    let group: Vec<Entrant> = rest
        .iter()
        .copied()
        .filter(|&e| scores[e] == scores[top])
        .collect();
    // `top` and its group make `group.len() + 1` entrants; the bottom half starts at the
    // middle of that count, which is `half - 1` in `group`, where `top` is not.
    let half = group.len().div_ceil(2);
    let start = half.saturating_sub(1).min(group.len());
    let mut order: Vec<Entrant> = group[start..].to_vec();
    order.extend_from_slice(&group[..start]);
    order.extend(rest.iter().copied().filter(|&e| scores[e] != scores[top]));
    order
}

/// Who of `a` (ranked higher) and `b` takes the first seat: the one with fewer games in the
/// first seat than in the second; if they are even on that, the one who played its last game
/// in the second seat while the other played in the first; else the higher ranked takes the
/// seat it did not have last, or the first seat in its first game.
pub fn seats(a: Entrant, b: Entrant, played: &[Played]) -> Pairing {
    let (history_a, history_b) = (seat_history(a, played), seat_history(b, played));
    let (balance_a, last_a) = (history_a.balance, history_a.last_two[1]);
    let (balance_b, last_b) = (history_b.balance, history_b.last_two[1]);
    let a_first = match balance_a.cmp(&balance_b) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => match (last_a, last_b) {
            (Some(false), Some(true)) => true,
            (Some(true), Some(false)) => false,
            (Some(last), _) => !last,
            (None, _) => true,
        },
    };
    if a_first {
        Pairing::Game {
            first: a,
            second: b,
        }
    } else {
        Pairing::Game {
            first: b,
            second: a,
        }
    }
}

/// Where an entrant has sat.
struct SeatHistory {
    /// Games in the first seat less those in the second.
    balance: i64,
    /// Whether each of its last two games (the last one last) was in the first seat.
    last_two: [Option<bool>; 2],
}

/// Where `entrant` has sat in `played`.
fn seat_history(entrant: Entrant, played: &[Played]) -> SeatHistory {
    let mut history = SeatHistory {
        balance: 0,
        last_two: [None, None],
    };
    for game in played {
        if let Pairing::Game { first, second } = game.pairing {
            let seat = if first == entrant {
                true
            } else if second == entrant {
                false
            } else {
                continue;
            };
            history.balance += if seat { 1 } else { -1 };
            history.last_two = [history.last_two[1], Some(seat)];
        }
    }
    history
}

#[cfg(test)]
mod tests;
