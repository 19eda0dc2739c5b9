//! What a series of games says about two engines: the score, the Elo difference with its 95 %
//! interval and the likelihood of superiority as cutechess-cli computes them, the pentanomial
//! count of game pairs as fastchess counts them, and the sequential probability ratio test.

use serde::Serialize;

/// The quantile of the normal distribution that bounds a two-sided 95 % interval.
const Z_95: f64 = 1.959_963_984_540_054;

/// The Elo difference whose expected score is `score` (between 0 and 1, exclusive).
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of a player `elo` points stronger, under the logistic model.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// One engine's games against another, from the first's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// An Elo difference measured from games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// The difference: positive when the first engine is the stronger.
    pub elo: f64,
    /// Half the width of its 95 % interval.
    pub margin: f64,
}

impl Tally {
    /// Adds one game's score for the first engine (1, ½ or 0).
    pub fn add(&mut self, score: Score) {
        match score {
            Score::Win => self.wins += 1,
            Score::Draw => self.draws += 1,
            Score::Loss => self.losses += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points scored: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// The score per game, or `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / f64::from(self.games()))
    }

    /// The share of games drawn.
    pub fn draw_ratio(&self) -> Option<f64> {
        (self.games() > 0).then(|| f64::from(self.draws) / f64::from(self.games()))
    }

    /// The Elo difference with its 95 % interval from the games alone (cutechess-cli's
    /// formula: the normal approximation of the mean score's distribution, carried through
    /// the logistic curve); `None` while the score is 0 or 1, where it is unbounded.
    pub fn elo(&self) -> Option<EloEstimate> {
        let n = f64::from(self.games());
        let outcomes = [
            (f64::from(self.wins), 1.0),
            (f64::from(self.draws), 0.5),
            (f64::from(self.losses), 0.0),
        ];
        estimate(&outcomes, n)
    }

    /// The likelihood of superiority: how sure the games make us that the first engine is the
    /// stronger, draws aside; `None` before a decisive game.
    pub fn los(&self) -> Option<f64> {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        (w + l > 0.0).then(|| 0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt())))
    }
}

/// One game's result for the first engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    /// It won.
    Win,
    /// Neither won.
    Draw,
    /// It lost.
    Loss,
}

impl Score {
    /// The points it is worth, in halves (2, 1 or 0).
    pub fn halves(self) -> usize {
        match self {
            Score::Win => 2,
            Score::Draw => 1,
            Score::Loss => 0,
        }
    }

    /// The same game from the other engine's side.
    pub fn reversed(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }
}

/// Game pairs (one opening played in both colours) counted by the first engine's points in
/// the pair: `[0, ½, 1, 1½, 2]`, as fastchess's `Ptnml(0-2)` counts them. Pairs cancel the
/// opening's bias, so their statistics are the sharper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Adds a pair of games.
    pub fn add(&mut self, first: Score, second: Score) {
        self.0[first.halves() + second.halves()] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// The pairs as outcomes: a count and a score per game between 0 and 1.
    fn outcomes(&self) -> [(f64, f64); 5] {
        let mut outcomes = [(0.0, 0.0); 5];
        for (i, &count) in self.0.iter().enumerate() {
            // Points in halves over two games, i.e. quarters of a pair's two points.
            outcomes[i] = (f64::from(count), i as f64 / 4.0);
        }
        outcomes
    }

    /// The Elo difference with its 95 % interval, measured per pair.
    pub fn elo(&self) -> Option<EloEstimate> {
        estimate(&self.outcomes(), f64::from(self.pairs()))
    }
}

/// The mean score and its variance per trial from outcomes given as (count, score).
fn mean_and_variance(outcomes: &[(f64, f64)], n: f64) -> Option<(f64, f64)> {
    if n <= 0.0 {
        return None;
    }
    let mean = outcomes.iter().map(|(count, x)| count * x).sum::<f64>() / n;
    let variance = outcomes
        .iter()
        .map(|(count, x)| count * (x - mean).powi(2))
        .sum::<f64>()
        / n;
    Some((mean, variance))
}

fn estimate(outcomes: &[(f64, f64)], n: f64) -> Option<EloEstimate> {
    let (mean, variance) = mean_and_variance(outcomes, n)?;
    if mean <= 0.0 || mean >= 1.0 {
        return None;
    }
    let deviation = (variance / n).sqrt();
    let (low, high) = (mean - Z_95 * deviation, mean + Z_95 * deviation);
    // A bound beyond 0 or 1 has no Elo: the margin is then measured on the side that has one.
    let margin = match (low > 0.0, high < 1.0) {
        (true, true) => (elo_of_score(high) - elo_of_score(low)) / 2.0,
        (true, false) => elo_of_score(mean) - elo_of_score(low),
        (false, true) => elo_of_score(high) - elo_of_score(mean),
        (false, false) => f64::INFINITY,
    };
    Some(EloEstimate {
        elo: elo_of_score(mean),
        margin,
    })
}

/// The error function, by Abramowitz and Stegun's 7.1.26 (error below 1.5 × 10⁻⁷), which is
/// more than the likelihood of superiority's percentages need.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let value = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -value } else { value }
}

/// A sequential probability ratio test between two hypotheses about the Elo difference
/// (`elo0`, the null, and `elo1`), with the error rates `alpha` (accepting `elo1` when `elo0`
/// holds) and `beta` (the converse), as fishtest and fastchess run it on logistic Elo.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// The null hypothesis's Elo difference.
    pub elo0: f64,
    /// The alternative's.
    pub elo1: f64,
    /// The false positive rate.
    pub alpha: f64,
    /// The false negative rate.
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtVerdict {
    /// Neither bound is crossed: play on.
    Continue,
    /// The lower bound is crossed: `elo0` is accepted.
    H0,
    /// The upper bound is crossed: `elo1` is accepted.
    H1,
}

/// Why a test's parameters are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SprtError {
    /// `elo1` must be above `elo0`.
    #[error("elo1 ({elo1}) must be greater than elo0 ({elo0})")]
    Order {
        /// The null hypothesis's difference.
        elo0: String,
        /// The alternative's.
        elo1: String,
    },
    /// An error rate outside (0, 1).
    #[error("{0} must lie strictly between 0 and 1")]
    Rate(&'static str),
}

impl Sprt {
    /// A test, checked.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if elo1.partial_cmp(&elo0) != Some(std::cmp::Ordering::Greater) {
            return Err(SprtError::Order {
                elo0: elo0.to_string(),
                elo1: elo1.to_string(),
            });
        }
        for (name, rate) in [("alpha", alpha), ("beta", beta)] {
            if !(rate > 0.0 && rate < 1.0) {
                return Err(SprtError::Rate(name));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The bounds of the log-likelihood ratio: `ln(β / (1 − α))` and `ln((1 − β) / α)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of pairs of games (the generalised SPRT's normal
    /// approximation: `(s₁ − s₀)(2s̄ − s₀ − s₁) / (2σ²/N)` over the pairs' mean score `s̄`
    /// and its variance σ²); 0 until the pairs differ at all.
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        self.llr_of(&pairs.outcomes(), f64::from(pairs.pairs()))
    }

    /// The same ratio from single games, for results that do not come in pairs.
    pub fn llr_of_games(&self, tally: &Tally) -> f64 {
        let outcomes = [
            (f64::from(tally.wins), 1.0),
            (f64::from(tally.draws), 0.5),
            (f64::from(tally.losses), 0.0),
        ];
        self.llr_of(&outcomes, f64::from(tally.games()))
    }

    fn llr_of(&self, outcomes: &[(f64, f64)], n: f64) -> f64 {
        let Some((mean, variance)) = mean_and_variance(outcomes, n) else {
            return 0.0;
        };
        if variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance / n)
    }

    /// Whether `llr` crosses a bound.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::H1
        } else if llr <= lower {
            SprtVerdict::H0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests;
