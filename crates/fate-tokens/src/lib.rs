//! Fate Tokens (운명의 패): a hidden-role party game for 4 to 8 players, as
//! `docs/rules/fate-tokens.md` specifies it (`rules_version: 2`). Comments and tests cite that
//! rulebook's rule numbers (rule 8.4) and decisions (D5).
//!
//! - [`setup`]: roles, tokens, bags, the setup table and the deal (sections 3, 4 and 7);
//! - [`config`]: the player count and the durations (rules 5.5, 5.8);
//! - [`rules`]: the [`FateTokens`] game: the round's phases, chat, win checks, the ending;
//! - [`claims`]: claims and honesty verdicts (section 17);
//! - [`night`]: the night form and its resolution (sections 11 to 13);
//! - [`view`]: what each viewer may see (section 22);
//! - [`odds`]: the probability model of each player's role (seed 003 §05);
//! - [`bots`]: rule bots for every role, judging with that model (seed 003 §10);
//! - [`selfplay`]: the balance simulator: whole games played by bots, win rates per player count;
//! - [`board`]: the board the web pages draw: the table during the game, the end screen after;
//! - [`family`]: the [`FAMILY`] the binary registers: the variants, the actions' notation and
//!   the house player.

pub mod board;
pub mod bots;
pub mod claims;
pub mod config;
pub mod family;
pub mod night;
pub mod odds;
pub mod rules;
pub mod selfplay;
pub mod setup;
pub mod state;
mod table;
pub mod talk;
pub mod view;

pub use config::{Durations, FateConfig};
pub use family::FAMILY;
pub use night::{Fate, GhostAction, Helper, NightForm, NightResult};
pub use rules::{FateAction, FateEvent, FateTokens};
pub use setup::{Bag, Dealt, MAX_PLAYERS, MIN_PLAYERS, Role, SetupRow, Token};
pub use state::{
    Accusation, Channel, ChatLine, Claim, FateState, Finish, JudgedClaim, Life, PhaseKind, Side,
    Slot, Trial, Verdict, WinReason,
};
pub use view::FateView;
