//! The typed game interface every game module implements.

use std::fmt::Debug;

use serde::{Serialize, de::DeserializeOwned};

use crate::{Outcome, Random, Seat, SeatSet, Viewer, Visibility};

/// Who must act now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ToAct {
    /// Nobody: the game is over, or it waits for a rules-owned deadline.
    Nobody,
    /// One seat moves (Othello, Gomoku, chess; a dice-chess turn of several sub-moves is still
    /// one seat's turn).
    Turn {
        /// The seat to move.
        seat: Seat,
    },
    /// Several seats choose at the same time (a Goofspiel bid, a Fate Tokens night). Each
    /// pending seat submits once; the phase resolves when all have, or at the deadline.
    Simultaneous {
        /// The phase number, which actions must quote so late input for an earlier phase is
        /// rejected instead of landing in the next one.
        phase: u32,
        /// The seats that still have to act.
        pending: SeatSet,
    },
}

/// What the arena hands to the rules with every call that may change the state.
///
/// The rules read neither a clock nor a global generator: the time and the randomness both
/// come from here, so tests control them and replays reproduce them.
pub struct Ctx<'a> {
    now_ms: u64,
    rng: &'a mut dyn Random,
    dice: Option<&'a dyn Dice>,
}

/// Public rolls that anyone can recompute from the match's revealed seed, one at a time.
///
/// Where [`Random`] is a private stream for whatever a command draws (an opening, a shuffle),
/// a roll is a draw the game shows to everyone as it happens (Dice Chess's three dice), named
/// by its `nonce` so that a verifier recomputes that one roll alone, in any language, from the
/// seed, the players' client seeds and the nonce (`arbiter-fair` says exactly how). Rules
/// choose the nonces, counting their rolls in their own state, so a replay asks for the same
/// ones; legs that count the same way (paired legs) see the same rolls.
pub trait Dice {
    /// `count` values from 1 to `sides`, each equally likely, for roll `nonce`.
    fn roll(&self, nonce: u64, sides: u8, count: usize) -> Vec<u8>;
}

impl<'a> Ctx<'a> {
    /// A context at `now_ms` milliseconds on the match clock, drawing randomness from `rng`.
    ///
    /// The arena derives `rng` from the match seed for each command (see `arbiter-fair`), so
    /// replaying the same commands in order reproduces every draw.
    pub fn new(now_ms: u64, rng: &'a mut dyn Random) -> Ctx<'a> {
        Ctx {
            now_ms,
            rng,
            dice: None,
        }
    }

    /// The same context, rolling its [`Dice`] from `dice`. The arena always gives one; a
    /// context without one (a test, a simulation) rolls from its generator instead.
    pub fn with_dice(self, dice: &'a dyn Dice) -> Ctx<'a> {
        Ctx {
            dice: Some(dice),
            ..self
        }
    }

    /// Roll `nonce`: `count` values from 1 to `sides` (at least 1), from the context's
    /// [`Dice`], or, without them, drawn from its generator by [`random::below`](crate::random::below).
    pub fn roll(&mut self, nonce: u64, sides: u8, count: usize) -> Vec<u8> {
        let sides = sides.max(1);
        match self.dice {
            Some(dice) => dice.roll(nonce, sides, count),
            None => (0..count)
                .map(|_| {
                    // `below` returns less than `sides`, which fits in a u8.
                    u8::try_from(crate::random::below(self.rng, u32::from(sides))).unwrap_or(0) + 1
                })
                .collect(),
        }
    }

    /// The current time on the match clock, in milliseconds. Games use it only to set their
    /// own deadlines (phase timers) relative to now.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The generator for this call.
    pub fn rng(&mut self) -> &mut dyn Random {
        self.rng
    }
}

/// An event together with who may see it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Emitted<E> {
    /// Who may see the event.
    pub visibility: Visibility,
    /// The game's own event payload.
    pub event: E,
}

impl<E> Emitted<E> {
    /// An event everyone may see.
    pub fn public(event: E) -> Emitted<E> {
        Emitted {
            visibility: Visibility::Everyone,
            event,
        }
    }

    /// An event only `seat` (and omniscient viewers) may see.
    pub fn private(seat: Seat, event: E) -> Emitted<E> {
        Emitted {
            visibility: Visibility::only(seat),
            event,
        }
    }

    /// The same visibility around a transformed payload.
    pub fn map<F, T>(self, f: F) -> Emitted<T>
    where
        F: FnOnce(E) -> T,
    {
        Emitted {
            visibility: self.visibility,
            event: f(self.event),
        }
    }
}

/// The events one call produced, in order.
pub type Events<E> = Vec<Emitted<E>>;

/// A new game: its state and the events that set it up.
pub type Started<S, E> = (S, Events<E>);

/// Why the rules refused an action. The state is unchanged whenever one of these is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game has already ended.
    #[error("the game is over")]
    GameOver,
    /// Another seat must act now.
    #[error("it is not this seat's turn")]
    NotYourTurn,
    /// The action names a phase other than the current one.
    #[error("the action is for phase {got}, but phase {current} is under way")]
    StalePhase {
        /// The phase the action named.
        got: u32,
        /// The phase under way.
        current: u32,
    },
    /// The seat has already acted in this simultaneous phase.
    #[error("this seat has already acted in this phase")]
    AlreadyActed,
    /// The seat does not exist in this game.
    #[error("there is no seat {0} in this game")]
    NoSuchSeat(u8),
    /// The action is well-formed but the rules forbid it; the text says which rule.
    #[error("illegal action: {0}")]
    Illegal(String),
}

/// A configuration the game cannot be started with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid game configuration: {0}")]
pub struct ConfigError(pub String);

/// A game's rules, as pure functions over its own typed state.
///
/// Implementations never do I/O, never read a clock and never use a global generator; the
/// [`Ctx`] provides time and randomness. [`apply`](Game::apply) either changes the state and
/// returns the events that describe the change, or returns a [`RuleError`] and leaves the
/// state exactly as it was.
///
/// The arena drives games through the object-safe [`DynGame`](crate::DynGame) built on top of
/// this trait; hot paths (perft, house-bot search, balance simulation) use the typed API
/// directly and never touch JSON.
pub trait Game: 'static {
    /// Stable identifier used in stored states and configs (`othello`, `goofspiel`).
    const ID: &'static str;
    /// Bumped whenever the rules or the shape of the state change, so that a stored state is
    /// never resumed under different rules.
    const RULES_VERSION: u32;

    /// Variant and options chosen when a match is created.
    type Config: Clone + Debug + Serialize + DeserializeOwned + Send + Sync;
    /// Everything the rules need to continue the game, secrets included.
    type State: Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// One decision by one seat.
    type Action: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// What happened, for logs, streams and replays.
    type Event: Clone + Debug + Serialize + Send + Sync;
    /// What one viewer may see of the state.
    type View: Serialize + Send + 'static;

    /// How many seats a game with this configuration has.
    fn seat_count(config: &Self::Config) -> Result<usize, ConfigError>;

    /// Sets up a new game; random setup (openings, shuffles, deals) draws from `ctx`.
    fn start(
        config: &Self::Config,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<Self::State, Self::Event>, ConfigError>;

    /// Who must act now.
    fn to_act(state: &Self::State) -> ToAct;

    /// Every action `seat` may take now (empty when it may not act).
    fn legal_actions(state: &Self::State, seat: Seat) -> Vec<Self::Action>;

    /// Applies `seat`'s action, or refuses it and changes nothing.
    fn apply(
        state: &mut Self::State,
        seat: Seat,
        action: &Self::Action,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<Self::Event>, RuleError>;

    /// The time on the match clock at which the rules themselves act (a phase timer), if any.
    /// Chess clocks and per-turn timeouts are the arena's business, not this.
    fn deadline(_state: &Self::State) -> Option<u64> {
        None
    }

    /// Called by the arena once the [`deadline`](Game::deadline) has passed: the rules apply
    /// their default actions and move on.
    fn on_deadline(_state: &mut Self::State, _ctx: &mut Ctx<'_>) -> Events<Self::Event> {
        Vec::new()
    }

    /// What `viewer` may see. A seat's view depends only on public information and that seat's
    /// own secrets, in its values and in its shape.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// The outcome once the game has ended, `None` while it runs.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// The outcome if `seat` forfeits now (flag fall, disconnect, resignation).
    fn forfeit(state: &Self::State, seat: Seat) -> Outcome;

    /// A seat leaves a game of more than two (it resigned, or its bot is gone): rules that can
    /// play on without it take its decisions with their defaults from now on and return the
    /// events of its leaving; `None`, the default, leaves the state as it was, and the game
    /// ends as [`forfeit`](Game::forfeit) says.
    fn leave(
        _state: &mut Self::State,
        _seat: Seat,
        _ctx: &mut Ctx<'_>,
    ) -> Option<Events<Self::Event>> {
        None
    }

    /// Whether `action` is free: accepted from any seat at any time (chat, a claim), without
    /// touching clocks, deadlines or whose decision is pending. `apply` still judges it.
    fn is_free(_action: &Self::Action) -> bool {
        false
    }

    /// The number of the turn under way, for games whose turns may follow one another with
    /// the same seat to move (a turn passed back because the other seat could not move): a
    /// clock charged per turn starts a new period whenever it changes. `None`, the default,
    /// means that a turn ends exactly when the seat to move changes.
    fn turn_number(_state: &Self::State) -> Option<u64> {
        None
    }
}
