//! The match configuration: player count and the durations of rule 5.8 and locks of rule 5.5.

use serde::{Deserialize, Serialize};

/// Options of a Fate Tokens game. Every duration is in milliseconds; the defaults are the
/// rulebook's (rules 5.5 and 5.8), which a server may change per match without a new rules
/// version (rule 24.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FateConfig {
    /// Number of players, 4 to 8 (rule 1.1).
    pub players: u8,
    /// The phase durations.
    pub durations: Durations,
}

impl Default for FateConfig {
    fn default() -> Self {
        FateConfig {
            players: 6,
            durations: Durations::default(),
        }
    }
}

/// Phase durations (rule 5.8) and presentation locks (rule 5.5), in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Durations {
    /// Draw phase (D32): 30 s.
    pub draw_ms: u64,
    /// Discussion phase: 420 s.
    pub discussion_ms: u64,
    /// Accusation phase (D32): 30 s.
    pub accusation_ms: u64,
    /// Night phase (D32): 60 s.
    pub night_ms: u64,
    /// Trial: 180 s.
    pub trial_ms: u64,
    /// Vote: 20 s.
    pub vote_ms: u64,
    /// Claim/counter: the counter deadline, also the upper bound of the random wait (D12): 10 s.
    pub counter_deadline_ms: u64,
    /// Claim/counter: the minimum length, also the lower bound of the random wait (D12): 4 s.
    pub counter_min_ms: u64,
    /// Ending (D39): 10 s.
    pub ending_ms: u64,
    /// Lock after draw resolution: 3 s.
    pub draw_lock_ms: u64,
    /// Base lock after night resolution: 3 s.
    pub night_lock_ms: u64,
    /// Added to the night lock for each item presented: 2 s.
    pub night_lock_item_ms: u64,
    /// The longest night lock: 15 s.
    pub night_lock_max_ms: u64,
    /// Lock after vote resolution: 4 s.
    pub vote_lock_ms: u64,
    /// Lock after an exile: 4 s.
    pub exile_lock_ms: u64,
}

impl Default for Durations {
    fn default() -> Self {
        Durations {
            draw_ms: 30_000,
            discussion_ms: 420_000,
            accusation_ms: 30_000,
            night_ms: 60_000,
            trial_ms: 180_000,
            vote_ms: 20_000,
            counter_deadline_ms: 10_000,
            counter_min_ms: 4_000,
            ending_ms: 10_000,
            draw_lock_ms: 3_000,
            night_lock_ms: 3_000,
            night_lock_item_ms: 2_000,
            night_lock_max_ms: 15_000,
            vote_lock_ms: 4_000,
            exile_lock_ms: 4_000,
        }
    }
}

impl Durations {
    /// Why these durations cannot be played with, if they cannot.
    pub(crate) fn problem(&self) -> Option<String> {
        let phases = [
            ("draw_ms", self.draw_ms),
            ("discussion_ms", self.discussion_ms),
            ("accusation_ms", self.accusation_ms),
            ("night_ms", self.night_ms),
            ("trial_ms", self.trial_ms),
            ("vote_ms", self.vote_ms),
            ("counter_deadline_ms", self.counter_deadline_ms),
            ("ending_ms", self.ending_ms),
        ];
        if let Some((name, _)) = phases.iter().find(|(_, ms)| *ms == 0) {
            return Some(format!("{name} must be positive"));
        }
        // Rule 5.8: the random wait runs from the minimum to the counter deadline.
        if self.counter_min_ms > self.counter_deadline_ms {
            return Some("counter_min_ms must not exceed counter_deadline_ms".to_owned());
        }
        if self.night_lock_ms > self.night_lock_max_ms {
            return Some("night_lock_ms must not exceed night_lock_max_ms".to_owned());
        }
        None
    }
}
