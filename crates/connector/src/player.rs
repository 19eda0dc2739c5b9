//! An engine asked for decisions directly, with no server in between: how `arbiter match`
//! plays local engines against each other through the same adapters as the connector.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::EngineSpec;
use crate::engine::gomocup::BrainPool;
use crate::engine::uci::UciPool;
use crate::engine::{Decision, LegEngine};

/// One engine, kept from game to game: a JSON-lines engine keeps its process, a Gomocup brain
/// is told `RESTART` and a UCI engine `ucinewgame` at each new game.
pub struct EnginePlayer {
    engine: LegEngine,
}

/// An engine's answer to one decision.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerAnswer {
    /// The action as a client sends it (an Othello square index, `-1` for a pass, or the
    /// generic protocol's action), checked against the request's legal actions.
    pub action: Value,
    /// When the answer was read.
    pub at: Instant,
    /// Set when the adapter played a move of its own instead of the engine's, and why.
    pub substitute: Option<String>,
}

/// Why an engine gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The request is neither FlipSight's engine request nor the generic protocol's.
    #[error("the request is not one the connector's adapters read")]
    UnreadableRequest,
    /// The engine failed: it could not start, timed out, crashed or answered what it may not.
    #[error("{0}")]
    Engine(String),
}

impl EnginePlayer {
    /// The engine `spec` describes; its process starts at its first decision.
    pub fn new(spec: &EngineSpec) -> EnginePlayer {
        EnginePlayer {
            engine: LegEngine::new(spec, &BrainPool::default(), &UciPool::default()),
        }
    }

    /// Asks for the action `request` (a decision's request as the server writes it) calls
    /// for, waiting at most `budget`. An engine that fails is stopped, so that the next
    /// decision starts it afresh.
    pub async fn decide(
        &mut self,
        request: &Value,
        budget: Duration,
    ) -> Result<PlayerAnswer, PlayerError> {
        let decision = Decision::from_json(request).ok_or(PlayerError::UnreadableRequest)?;
        match self.engine.decide(&decision, Some(budget)).await {
            Ok(chosen) => Ok(PlayerAnswer {
                action: chosen.action.wire(),
                at: chosen.at,
                substitute: chosen.substitute,
            }),
            Err(failure) => {
                self.engine.restart().await;
                Err(PlayerError::Engine(failure.to_string()))
            }
        }
    }

    /// The game is over: the next decision belongs to a new game.
    pub async fn new_game(&mut self) {
        self.engine.between_games().await;
    }

    /// Stops every process of the engine.
    pub async fn stop(&mut self) {
        self.engine.stop().await;
    }
}
