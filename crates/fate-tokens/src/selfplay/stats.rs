//! Sums over simulated games: the report per player count and the Wilson score interval.

use super::{Ending, GameReport};

/// The normal quantile of a two-sided 95 % interval: Φ⁻¹(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

/// A confidence interval for a proportion, both ends between 0 and 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The lower end.
    pub low: f64,
    /// The upper end.
    pub high: f64,
}

/// The Wilson score interval for `successes` out of `trials` at the normal quantile `z`
/// ([`Z95`] for 95 %).
///
/// Unlike the plain `p ± z·√(p(1−p)/n)`, it stays inside 0 to 1 and keeps a sensible width
/// when the rate is near 0 or 1 or the games are few, which is where balance runs start.
/// With no trials nothing is known and the interval is the whole of 0 to 1.
pub fn wilson(successes: u32, trials: u32, z: f64) -> Interval {
    if trials == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let n = f64::from(trials);
    let p = f64::from(successes.min(trials)) / n;
    let z2 = z * z;
    let scale = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / scale;
    let half = z / scale * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// How many games ended each way, per [`Ending`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Endings([u32; Ending::ALL.len()]);

impl Endings {
    /// How many games ended with `ending`.
    pub fn count(&self, ending: Ending) -> u32 {
        self.0[ending.index()]
    }

    /// Every ending with its count, in the order of [`Ending::ALL`].
    pub fn iter(&self) -> impl Iterator<Item = (Ending, u32)> + '_ {
        Ending::ALL
            .iter()
            .map(|&ending| (ending, self.count(ending)))
    }

    fn add(&mut self, ending: Ending) {
        self.0[ending.index()] += 1;
    }

    fn merge(&mut self, other: &Endings) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            *mine += theirs;
        }
    }
}

/// The games of one player count, summed up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountReport {
    /// The player count.
    pub players: u8,
    /// Games played.
    pub games: u32,
    /// Games the good side won.
    pub good_wins: u32,
    /// The rounds of every game, added up.
    pub rounds: u64,
    /// How the games ended.
    pub endings: Endings,
    /// Actions the rules refused, over all the games (see [`GameReport::refused`]).
    pub refused: u64,
}

impl CountReport {
    /// A report of no games yet.
    pub fn new(players: u8) -> CountReport {
        CountReport {
            players,
            games: 0,
            good_wins: 0,
            rounds: 0,
            endings: Endings::default(),
            refused: 0,
        }
    }

    /// Counts one more game.
    pub fn add(&mut self, game: &GameReport) {
        self.games += 1;
        self.good_wins += u32::from(game.good_won);
        self.rounds += u64::from(game.rounds);
        self.endings.add(game.ending);
        self.refused += u64::from(game.refused);
    }

    /// Adds the games of `other`, a report of the same player count.
    pub fn merge(&mut self, other: &CountReport) {
        self.games += other.games;
        self.good_wins += other.good_wins;
        self.rounds += other.rounds;
        self.endings.merge(&other.endings);
        self.refused += other.refused;
    }

    /// The share of games the good side won, 0 with no games.
    pub fn win_rate(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        f64::from(self.good_wins) / f64::from(self.games)
    }

    /// The 95 % Wilson interval of the good side's win rate.
    pub fn interval(&self) -> Interval {
        wilson(self.good_wins, self.games, Z95)
    }

    /// The average length of a game in rounds, 0 with no games.
    pub fn average_rounds(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        self.rounds as f64 / f64::from(self.games)
    }
}
