//! How a game's clock is charged.

use serde::{Deserialize, Serialize};

/// How a family's matches charge their clocks. Whatever the policy, a clock runs only while
/// its seat has a decision pending, and a seat whose clock runs out forfeits as the rules say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockPolicy {
    /// Every action is a clock period: the mover's clock runs from the moment it may act until
    /// its action, then the increment is added (Othello, Gomoku).
    PerAction,
    /// A turn of several actions is one clock period: the clock runs from the turn's start
    /// until the turn passes (to another seat, or, where the rules number their turns with
    /// `Game::turn_number`, to a new turn of the same seat), and the increment is added once
    /// per turn (Dice Chess's micro-moves).
    PerTurn,
    /// In a simultaneous phase every pending seat's clock runs from the phase's start until
    /// that seat acts; a phase deadline set by the rules closes the phase, and seats that
    /// have not acted get the rules' defaults (Goofspiel, Fate Tokens).
    PerPhase,
}
