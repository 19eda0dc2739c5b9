//! The object-safe face of [`Game`], with JSON only at its edge, so the arena can drive any
//! game without knowing which.

use std::fmt::Debug;
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{ConfigError, Ctx, Events, Game, Outcome, RuleError, Seat, Started, ToAct, Viewer};

/// Why an erased call failed.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The rules refused the action; nothing changed.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// The action JSON does not describe an action of this game.
    #[error("malformed action: {0}")]
    MalformedAction(String),
    /// The configuration JSON is malformed or describes an impossible game.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A stored state cannot be resumed.
    #[error("cannot restore the saved state: {0}")]
    Restore(String),
}

/// A game, type-erased: creates and restores [`DynState`]s.
pub trait DynGame: Send + Sync {
    /// The game's stable identifier.
    fn id(&self) -> &'static str;
    /// The game's current rules version.
    fn rules_version(&self) -> u32;
    /// How many seats a game with this configuration has.
    fn seat_count(&self, config: &Value) -> Result<usize, GameError>;
    /// Starts a new game.
    fn start(
        &self,
        config: &Value,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<Box<dyn DynState>, Value>, GameError>;
    /// Resumes a game from what [`DynState::save`] produced.
    fn restore(&self, saved: &Value) -> Result<Box<dyn DynState>, GameError>;
}

/// A running game, type-erased. Mirrors [`Game`] method for method.
pub trait DynState: Send + Sync + Debug {
    /// The game's stable identifier.
    fn game_id(&self) -> &'static str;
    /// Who must act now.
    fn to_act(&self) -> ToAct;
    /// Every action `seat` may take now, as JSON.
    fn legal_actions(&self, seat: Seat) -> Vec<Value>;
    /// Applies an action given as JSON, or refuses it and changes nothing.
    fn apply(
        &mut self,
        seat: Seat,
        action: &Value,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<Value>, GameError>;
    /// The rules-owned deadline on the match clock, if any.
    fn deadline(&self) -> Option<u64>;
    /// Applies the rules' default actions once the deadline has passed.
    fn on_deadline(&mut self, ctx: &mut Ctx<'_>) -> Events<Value>;
    /// What `viewer` may see, as JSON.
    fn view(&self, viewer: Viewer) -> Value;
    /// What `viewer` may see, as the game's own view type (`G::View`), for code that knows
    /// the game and would otherwise parse the JSON back.
    fn typed_view(&self, viewer: Viewer) -> Box<dyn std::any::Any + Send>;
    /// The outcome once the game has ended.
    fn outcome(&self) -> Option<Outcome>;
    /// The outcome if `seat` forfeits now.
    fn forfeit(&self, seat: Seat) -> Outcome;
    /// Lets `seat` leave, if the rules play on without it (see [`Game::leave`]).
    fn leave(&mut self, seat: Seat, ctx: &mut Ctx<'_>) -> Option<Events<Value>>;
    /// Whether the action, given as JSON, is free (see [`Game::is_free`]); a value that is no
    /// action of the game is not.
    fn is_free(&self, action: &Value) -> bool;
    /// The number of the turn under way, where the game numbers its turns.
    fn turn_number(&self) -> Option<u64>;
    /// The whole state as `{"game", "rules_version", "state"}`, for storage.
    fn save(&self) -> Value;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn DynState>;
    /// The typed state, for code that knows the game (`downcast_ref::<G::State>()`), such as a
    /// wire format specific to one game.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl Clone for Box<dyn DynState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Adapts a typed [`Game`] to [`DynGame`]; `static OTHELLO: Erased<Othello> = Erased::new();`.
pub struct Erased<G>(PhantomData<fn() -> G>);

impl<G> Erased<G> {
    /// The adapter (it holds no data).
    pub const fn new() -> Erased<G> {
        Erased(PhantomData)
    }
}

impl<G> Default for Erased<G> {
    fn default() -> Self {
        Erased::new()
    }
}

/// Encodes a value of one of the game's own plain data types. These types hold only numbers,
/// strings, sequences and string-keyed maps, which always serialize.
fn encode<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn encode_events<E: Serialize>(events: Events<E>) -> Events<Value> {
    events
        .into_iter()
        .map(|e| e.map(|event| encode(&event)))
        .collect()
}

fn parse_config<G: Game>(config: &Value) -> Result<G::Config, GameError> {
    serde_json::from_value(config.clone()).map_err(|e| ConfigError(e.to_string()).into())
}

impl<G: Game> DynGame for Erased<G> {
    fn id(&self) -> &'static str {
        G::ID
    }

    fn rules_version(&self) -> u32 {
        G::RULES_VERSION
    }

    fn seat_count(&self, config: &Value) -> Result<usize, GameError> {
        Ok(G::seat_count(&parse_config::<G>(config)?)?)
    }

    fn start(
        &self,
        config: &Value,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<Box<dyn DynState>, Value>, GameError> {
        let (state, events) = G::start(&parse_config::<G>(config)?, ctx)?;
        Ok((Box::new(TypedState::<G>(state)), encode_events(events)))
    }

    fn restore(&self, saved: &Value) -> Result<Box<dyn DynState>, GameError> {
        let game = saved.get("game").and_then(Value::as_str);
        if game != Some(G::ID) {
            return Err(GameError::Restore(format!(
                "the state belongs to {game:?}, not {}",
                G::ID
            )));
        }
        let version = saved.get("rules_version").and_then(Value::as_u64);
        if version != Some(u64::from(G::RULES_VERSION)) {
            return Err(GameError::Restore(format!(
                "the state was saved under rules version {version:?}; these rules are version {}",
                G::RULES_VERSION
            )));
        }
        let state = saved.get("state").cloned().unwrap_or(Value::Null);
        let state = serde_json::from_value(state).map_err(|e| GameError::Restore(e.to_string()))?;
        Ok(Box::new(TypedState::<G>(state)))
    }
}

/// A typed state behind the [`DynState`] interface.
struct TypedState<G: Game>(G::State);

impl<G: Game> Debug for TypedState<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple(G::ID).field(&self.0).finish()
    }
}

impl<G: Game> DynState for TypedState<G> {
    fn game_id(&self) -> &'static str {
        G::ID
    }

    fn to_act(&self) -> ToAct {
        G::to_act(&self.0)
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        G::legal_actions(&self.0, seat).iter().map(encode).collect()
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Value,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<Value>, GameError> {
        let action: G::Action = serde_json::from_value(action.clone())
            .map_err(|e| GameError::MalformedAction(e.to_string()))?;
        Ok(encode_events(G::apply(&mut self.0, seat, &action, ctx)?))
    }

    fn deadline(&self) -> Option<u64> {
        G::deadline(&self.0)
    }

    fn on_deadline(&mut self, ctx: &mut Ctx<'_>) -> Events<Value> {
        encode_events(G::on_deadline(&mut self.0, ctx))
    }

    fn view(&self, viewer: Viewer) -> Value {
        encode(&G::view(&self.0, viewer))
    }

    fn typed_view(&self, viewer: Viewer) -> Box<dyn std::any::Any + Send> {
        Box::new(G::view(&self.0, viewer))
    }

    fn outcome(&self) -> Option<Outcome> {
        G::outcome(&self.0)
    }

    fn forfeit(&self, seat: Seat) -> Outcome {
        G::forfeit(&self.0, seat)
    }

    fn leave(&mut self, seat: Seat, ctx: &mut Ctx<'_>) -> Option<Events<Value>> {
        G::leave(&mut self.0, seat, ctx).map(encode_events)
    }

    fn is_free(&self, action: &Value) -> bool {
        G::Action::deserialize(action).is_ok_and(|action| G::is_free(&action))
    }

    fn turn_number(&self) -> Option<u64> {
        G::turn_number(&self.0)
    }

    fn save(&self) -> Value {
        json!({ "game": G::ID, "rules_version": G::RULES_VERSION, "state": encode(&self.0) })
    }

    fn clone_box(&self) -> Box<dyn DynState> {
        Box::new(TypedState::<G>(self.0.clone()))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        &self.0
    }
}
