//! How a finished game ended for each seat.

use serde::{Deserialize, Serialize};

use crate::Seat;

/// A seat's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatResult {
    /// The seat won (alone or with its team).
    Win,
    /// The seat lost.
    Loss,
    /// The seat shared the best result with another seat that is not on its team.
    Draw,
}

/// Whether a higher or a lower score is better, so that scores of several games (the two legs
/// of a paired Othello match) can be summed and compared without knowing the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreOrder {
    /// More is better (Othello discs, Goofspiel points).
    HigherIsBetter,
    /// Less is better (anti-Othello discs).
    LowerIsBetter,
}

impl ScoreOrder {
    /// Whether score `a` is strictly better than score `b`.
    pub fn better(self, a: i64, b: i64) -> bool {
        match self {
            ScoreOrder::HigherIsBetter => a > b,
            ScoreOrder::LowerIsBetter => a < b,
        }
    }
}

/// One seat's part of an [`Outcome`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatOutcome {
    /// Win, loss or draw.
    pub result: SeatResult,
    /// The game's score for this seat (discs, points); compare with [`Outcome::score_order`].
    pub score: i64,
    /// 1 for the best place; seats that tie share a rank, and the next rank skips accordingly.
    pub rank: u8,
    /// The seat's team in team games (Fate Tokens), `None` where every seat plays for itself.
    pub team: Option<u8>,
}

/// How a finished game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Per seat, in seat order.
    pub seats: Vec<SeatOutcome>,
    /// How scores compare.
    pub score_order: ScoreOrder,
    /// A short snake_case reason chosen by the game (`discs`, `score`, `forfeit`, …).
    pub reason: String,
}

impl Outcome {
    /// Ranks seats by score: the best score wins; several seats sharing the best score draw;
    /// everyone else loses.
    pub fn from_scores(scores: &[i64], score_order: ScoreOrder, reason: &str) -> Outcome {
        let ranks: Vec<u8> = scores
            .iter()
            .map(|&mine| {
                let better = scores
                    .iter()
                    .filter(|&&other| score_order.better(other, mine))
                    .count();
                u8::try_from(better + 1).unwrap_or(u8::MAX)
            })
            .collect();
        let winners = ranks.iter().filter(|&&rank| rank == 1).count();
        let seats = scores
            .iter()
            .zip(&ranks)
            .map(|(&score, &rank)| SeatOutcome {
                result: match (rank, winners) {
                    (1, 1) => SeatResult::Win,
                    (1, _) => SeatResult::Draw,
                    _ => SeatResult::Loss,
                },
                score,
                rank,
                team: None,
            })
            .collect();
        Outcome {
            seats,
            score_order,
            reason: reason.to_owned(),
        }
    }

    /// The outcome when `loser` forfeits: it loses and ranks last; the other seats keep their
    /// scores and are ranked among themselves (`scores` gives every seat's score, the loser's
    /// included, which the game may already have replaced by a forfeit score).
    pub fn forfeit(scores: &[i64], loser: Seat, score_order: ScoreOrder) -> Outcome {
        let others: Vec<i64> = scores
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != loser.index())
            .map(|(_, &s)| s)
            .collect();
        let ranked_others = Outcome::from_scores(&others, score_order, "forfeit");
        let mut rest = ranked_others.seats.into_iter();
        let seats = scores
            .iter()
            .enumerate()
            .map(|(i, &score)| {
                if i == loser.index() {
                    SeatOutcome {
                        result: SeatResult::Loss,
                        score,
                        rank: u8::try_from(scores.len()).unwrap_or(u8::MAX),
                        team: None,
                    }
                } else {
                    // `rest` has exactly one entry per other seat, in order.
                    rest.next().unwrap_or(SeatOutcome {
                        result: SeatResult::Loss,
                        score,
                        rank: 1,
                        team: None,
                    })
                }
            })
            .collect();
        Outcome {
            seats,
            score_order,
            reason: "forfeit".to_owned(),
        }
    }

    /// The winning seat of a two-seat game, `None` for a draw.
    pub fn winner(&self) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| s.result == SeatResult::Win)
            .and_then(|i| u8::try_from(i).ok())
            .map(Seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SeatResult::*;

    fn results(outcome: &Outcome) -> Vec<(SeatResult, u8)> {
        outcome.seats.iter().map(|s| (s.result, s.rank)).collect()
    }

    #[test]
    fn ranking_by_scores() {
        type Case<'a> = (&'a [i64], ScoreOrder, &'a [(SeatResult, u8)]);
        let cases: &[Case] = &[
            (
                &[40, 24],
                ScoreOrder::HigherIsBetter,
                &[(Win, 1), (Loss, 2)],
            ),
            (&[40, 24], ScoreOrder::LowerIsBetter, &[(Loss, 2), (Win, 1)]),
            (
                &[32, 32],
                ScoreOrder::HigherIsBetter,
                &[(Draw, 1), (Draw, 1)],
            ),
            (
                &[5, 9, 9, 1],
                ScoreOrder::HigherIsBetter,
                &[(Loss, 3), (Draw, 1), (Draw, 1), (Loss, 4)],
            ),
            (
                &[5, 9, 7],
                ScoreOrder::HigherIsBetter,
                &[(Loss, 3), (Win, 1), (Loss, 2)],
            ),
        ];
        for (scores, order, expected) in cases {
            assert_eq!(
                results(&Outcome::from_scores(scores, *order, "score")),
                *expected,
                "{scores:?}"
            );
        }
    }

    #[test]
    fn forfeit_puts_the_loser_last() {
        let outcome = Outcome::forfeit(&[50, 3, 10], Seat(0), ScoreOrder::HigherIsBetter);
        assert_eq!(results(&outcome), vec![(Loss, 3), (Loss, 2), (Win, 1)]);
        assert_eq!(outcome.reason, "forfeit");
        let two = Outcome::forfeit(&[0, 64], Seat(0), ScoreOrder::HigherIsBetter);
        assert_eq!(two.winner(), Some(Seat(1)));
    }
}
