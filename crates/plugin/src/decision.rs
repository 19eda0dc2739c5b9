//! The request a seat receives for a decision, built from what that seat may see.

use std::any::Any;

use arbiter_rules::{DynState, Seat, ToAct, Viewer};
use serde::Serialize;
use serde_json::Value;

/// What one seat may see of a game, and nothing else: the only access decision writers and
/// house players have to a running game, so that nothing they produce can carry another
/// seat's secrets.
#[derive(Clone, Copy)]
pub struct SeatView<'a> {
    state: &'a dyn DynState,
    seat: Seat,
}

impl<'a> SeatView<'a> {
    /// `seat`'s view of `state`.
    pub fn new(state: &'a dyn DynState, seat: Seat) -> SeatView<'a> {
        SeatView { state, seat }
    }

    /// The seat.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The game's identifier.
    pub fn game(&self) -> &'static str {
        self.state.game_id()
    }

    /// Who must act now (public in every game).
    pub fn to_act(&self) -> ToAct {
        self.state.to_act()
    }

    /// The seat's view as JSON.
    pub fn json(&self) -> Value {
        self.state.view(Viewer::Seat(self.seat))
    }

    /// The seat's view as the game's own view type, for code that knows the game
    /// (`typed().downcast::<OthelloView>()`), which saves a round trip through JSON.
    pub fn typed(&self) -> Box<dyn Any + Send> {
        self.state.typed_view(Viewer::Seat(self.seat))
    }

    /// Every action the seat may take now.
    pub fn legal_actions(&self) -> Vec<Value> {
        self.state.legal_actions(self.seat)
    }
}

/// What the arena knows about a decision beyond the seat's view.
#[derive(Clone, Debug, Default)]
pub struct DecisionContext<'a> {
    /// The variant.
    pub variant: &'a str,
    /// The match.
    pub match_id: i64,
    /// The leg.
    pub leg: u8,
    /// The participant deciding.
    pub participant: u8,
    /// The participant in each seat of this leg, in seat order.
    pub participants_by_seat: &'a [u8],
    /// The simultaneous phase the decision belongs to, `None` in a turn.
    pub phase: Option<u32>,
    /// The leg's revision.
    pub revision: u64,
    /// Every seat's remaining clock now, in seat order.
    pub clocks_ms: &'a [i64],
    /// The deciding seat's remaining clock now.
    pub remaining_ms: i64,
    /// How long the bot should take at most.
    pub budget_ms: i64,
    /// When the action must have arrived, in milliseconds since the Unix epoch, if anything
    /// (a clock or a phase deadline) bounds it.
    pub deadline_ms: Option<i64>,
    /// When each action of the leg so far arrived.
    pub move_times_ms: &'a [i64],
    /// For a match with a person in it, which some protocols show as a game room (FlipSight
    /// numbers rooms apart from bot matches): its round and creation time.
    pub room: Option<(i64, &'a str)>,
}

/// Writes the request a seat receives for one decision.
pub trait DecisionWriter: Send + Sync {
    /// The request as compact JSON text. It goes out as it is, to streams and long-polls, many
    /// times a second, so a family may write it without building a `Value`.
    fn request(&self, view: &SeatView<'_>, context: &DecisionContext<'_>) -> String;
}

/// The version of the generic engine protocol [`GenericDecisions`] writes.
pub const GENERIC_PROTOCOL: u32 = 1;

/// The generic engine protocol (`docs/engine-protocol.md`): the seat's view and legal actions
/// as the rules serialize them, and the clocks. Every family without a protocol of its own
/// uses it.
pub struct GenericDecisions;

/// The request, in the field order the documentation gives.
#[derive(Serialize)]
struct GenericRequest<'a> {
    protocol: u32,
    game: &'static str,
    variant: &'a str,
    match_id: i64,
    leg: u8,
    seats: usize,
    seat: u8,
    participant: u8,
    phase: Option<u32>,
    revision: u64,
    view: Value,
    legal_actions: Vec<Value>,
    action_grammar: Option<&'a str>,
    clocks_ms: &'a [i64],
    remaining_ms: i64,
    budget_ms: i64,
    deadline_ms: Option<i64>,
}

impl DecisionWriter for GenericDecisions {
    fn request(&self, view: &SeatView<'_>, context: &DecisionContext<'_>) -> String {
        let request = GenericRequest {
            protocol: GENERIC_PROTOCOL,
            game: view.game(),
            variant: context.variant,
            match_id: context.match_id,
            leg: context.leg,
            seats: context.participants_by_seat.len(),
            seat: view.seat().0,
            participant: context.participant,
            phase: context.phase,
            revision: context.revision,
            view: view.json(),
            legal_actions: view.legal_actions(),
            action_grammar: None,
            clocks_ms: context.clocks_ms,
            remaining_ms: context.remaining_ms,
            budget_ms: context.budget_ms,
            deadline_ms: context.deadline_ms,
        };
        // The request holds only numbers, strings and the rules' own JSON, which always
        // serialize.
        serde_json::to_string(&request).unwrap_or_else(|_| "null".to_owned())
    }
}
