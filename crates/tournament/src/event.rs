//! A round robin or Swiss tournament as it goes: its rounds paired one after the other, each
//! game's result recorded, entrants withdrawing, and the standings. The arena stores it, plays
//! its games and hands in their results; this decides everything else.

use serde::{Deserialize, Serialize};

use crate::standings::{Standing, standings};
use crate::{Entrant, Outcome, Pairing, PairingError, Played, round_robin, swiss};

/// A tournament's format, by rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Format {
    /// Everyone meets everyone once a cycle (2: twice, seats swapped).
    RoundRobin {
        /// Cycles, 1 or 2.
        cycles: u8,
    },
    /// A fixed number of Swiss rounds.
    Swiss {
        /// Rounds.
        rounds: u32,
    },
}

/// Why a tournament refuses what it is asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// The round could not be paired.
    #[error(transparent)]
    Pairing(#[from] PairingError),
    /// A round is under way: its games must end first.
    #[error("round {0} is still being played")]
    RoundUnderWay(u32),
    /// No game of the round under way is this one, or it has its result already.
    #[error("no game of the round under way waits for that result")]
    NoSuchGame,
    /// The entrant is unknown or has already withdrawn.
    #[error("entrant {0} is not in the tournament")]
    NotEntered(Entrant),
}

/// A tournament in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Its format.
    pub format: Format,
    /// How many entered.
    pub entrants: usize,
    /// Who withdrew, in the order they did.
    pub withdrawn: Vec<Entrant>,
    /// The rounds paired so far, numbered from 0.
    pub rounds: u32,
    /// Every pairing paired so far with its result, `None` while its game is played (a bye
    /// has none).
    pub played: Vec<Played>,
}

impl Event {
    /// A tournament of `entrants`, seeded in their order, before its first round.
    pub fn new(format: Format, entrants: usize) -> Result<Event, EventError> {
        if entrants < 2 {
            return Err(PairingError::TooFewEntrants.into());
        }
        Ok(Event {
            format,
            entrants,
            withdrawn: Vec::new(),
            rounds: 0,
            played: Vec::new(),
        })
    }

    /// The games of the round under way still waiting for their result.
    pub fn waiting(&self) -> Vec<Pairing> {
        self.current()
            .filter(|game| game.outcome.is_none() && matches!(game.pairing, Pairing::Game { .. }))
            .map(|game| game.pairing)
            .collect()
    }

    fn current(&self) -> impl Iterator<Item = &Played> {
        let round = self.rounds.checked_sub(1);
        self.played
            .iter()
            .filter(move |game| Some(game.round) == round)
    }

    /// Whether every round is paired and played.
    pub fn is_finished(&self) -> bool {
        self.waiting().is_empty() && self.rounds >= self.total_rounds()
    }

    /// How many rounds the format has.
    pub fn total_rounds(&self) -> u32 {
        match self.format {
            Format::RoundRobin { cycles } => {
                let per_cycle = if self.entrants.is_multiple_of(2) {
                    self.entrants - 1
                } else {
                    self.entrants
                };
                u32::try_from(per_cycle * usize::from(cycles.max(1))).unwrap_or(u32::MAX)
            }
            Format::Swiss { rounds } => rounds,
        }
    }

    /// Pairs the next round and gives its games to play (its byes, and its games against
    /// entrants who withdrew, are scored at once: a withdrawn entrant loses by forfeit);
    /// `None` once every round has been paired.
    pub fn next_round(&mut self) -> Result<Option<Vec<Pairing>>, EventError> {
        if !self.waiting().is_empty() {
            return Err(EventError::RoundUnderWay(self.rounds - 1));
        }
        if self.rounds >= self.total_rounds() {
            return Ok(None);
        }
        let round = self.rounds;
        let pairings = match self.format {
            Format::RoundRobin { cycles } => round_robin::rounds(self.entrants, cycles)?
                .into_iter()
                .nth(usize::try_from(round).unwrap_or(usize::MAX))
                .ok_or(PairingError::NoMoreRounds)?,
            Format::Swiss { .. } => {
                let active: Vec<Entrant> = (0..self.entrants)
                    .filter(|e| !self.withdrawn.contains(e))
                    .collect();
                swiss::pair_among(self.entrants, &active, round, &self.played)?
            }
        };
        self.rounds += 1;
        let mut to_play = Vec::new();
        for pairing in pairings {
            let outcome = match pairing {
                Pairing::Bye { .. } => None,
                Pairing::Game { first, second } => {
                    match (
                        self.withdrawn.contains(&first),
                        self.withdrawn.contains(&second),
                    ) {
                        (false, false) => {
                            to_play.push(pairing);
                            None
                        }
                        (true, false) => Some(Outcome::SecondWon),
                        (false, true) => Some(Outcome::FirstWon),
                        // Neither turns up: a loss for both would score as a draw here, so the
                        // game is dropped from the record.
                        (true, true) => continue,
                    }
                }
            };
            self.played.push(Played {
                round,
                pairing,
                outcome,
            });
        }
        Ok(Some(to_play))
    }

    /// Records how a game of the round under way ended.
    pub fn record(&mut self, pairing: Pairing, outcome: Outcome) -> Result<(), EventError> {
        let round = self.rounds.checked_sub(1).ok_or(EventError::NoSuchGame)?;
        let game = self
            .played
            .iter_mut()
            .find(|game| game.round == round && game.pairing == pairing && game.outcome.is_none())
            .filter(|game| matches!(game.pairing, Pairing::Game { .. }))
            .ok_or(EventError::NoSuchGame)?;
        game.outcome = Some(outcome);
        Ok(())
    }

    /// Drops a game of the round under way that was not played to a result (both entrants
    /// absent, the match aborted): it scores nothing for either, like a game between two
    /// entrants who withdrew, and they have not met.
    pub fn void(&mut self, pairing: Pairing) -> Result<(), EventError> {
        let round = self.rounds.checked_sub(1).ok_or(EventError::NoSuchGame)?;
        let index = self
            .played
            .iter()
            .position(|game| {
                game.round == round
                    && game.pairing == pairing
                    && game.outcome.is_none()
                    && matches!(game.pairing, Pairing::Game { .. })
            })
            .ok_or(EventError::NoSuchGame)?;
        self.played.remove(index);
        Ok(())
    }

    /// `entrant` withdraws: it is paired no more in a Swiss, and forfeits its games of later
    /// rounds in a round robin (a game of the round under way is the arena's to end, by
    /// resignation, and then recorded as any other).
    pub fn withdraw(&mut self, entrant: Entrant) -> Result<(), EventError> {
        if entrant >= self.entrants || self.withdrawn.contains(&entrant) {
            return Err(EventError::NotEntered(entrant));
        }
        self.withdrawn.push(entrant);
        Ok(())
    }

    /// The standings after the games recorded so far.
    pub fn standings(&self) -> Vec<Standing> {
        standings(self.entrants, &self.played)
    }
}

#[cfg(test)]
mod tests;
