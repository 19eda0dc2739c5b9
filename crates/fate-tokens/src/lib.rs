//! Fate Tokens (운명의 패): a hidden-role party game for 4 to 8 players, as
//! `docs/rules/fate-tokens.md` specifies it (`rules_version: 1`). Comments and tests cite that
//! rulebook's rule numbers (rule 8.4) and decisions (D5).
//!
//! This crate is a rules library only: the arena's family for it is a later step.

pub mod setup;

pub use setup::{Bag, Dealt, MAX_PLAYERS, MIN_PLAYERS, Role, SetupRow, Token};
