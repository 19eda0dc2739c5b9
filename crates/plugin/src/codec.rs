//! Client spellings of actions.

use arbiter_rules::{DynState, Seat};
use serde_json::Value;

/// Why a client's action could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The text is not a coordinate or action of this game at all.
    #[error("invalid coordinate: {0}")]
    InvalidCoordinate(String),
    /// A well-formed coordinate that is off this board.
    #[error("outside the board: {0}")]
    OutsideBoard(String),
    /// The value does not describe an action of this game.
    #[error("malformed action: {0}")]
    Malformed(String),
}

/// How clients spell a family's actions, and how logs and pages write them.
pub trait ActionCodec: Send + Sync {
    /// The rules' action JSON for what a client sent, read against the leg's state (a board's
    /// size, say). Whether the action is legal is the rules' business, not this.
    fn parse(
        &self,
        state: &dyn arbiter_rules::DynState,
        submitted: &Value,
    ) -> Result<Value, CodecError>;

    /// The action in the notation logs and pages show (`d3`, `pass`, a compact JSON value).
    fn notation(&self, action: &Value) -> String {
        action.to_string()
    }

    /// The action `seat` must take when it has no choice at all (Othello's forced pass), which
    /// a server plays for people as game rooms do; `None` when the seat has a choice or the
    /// family plays no action for anyone.
    fn forced_action(&self, _state: &dyn DynState, _seat: Seat) -> Option<Value> {
        None
    }
}

/// Actions spelled exactly as the rules serialize them: the codec of a family whose clients
/// send the values listed in a decision's `legal_actions`.
pub struct JsonCodec;

impl ActionCodec for JsonCodec {
    fn parse(&self, _state: &dyn DynState, submitted: &Value) -> Result<Value, CodecError> {
        if submitted.is_null() {
            return Err(CodecError::Malformed("no action was given".to_owned()));
        }
        Ok(submitted.clone())
    }
}
