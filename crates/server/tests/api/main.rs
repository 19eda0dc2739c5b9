//! The native API over real HTTP: a server on port 0, a fresh database per test and an
//! injected clock, so every timeout is reached by moving the clock, never by sleeping.

mod automatch;
mod bgp;
mod bgp_agents;
mod bgp_dialect;
mod cluster;
mod environment;
mod errors;
mod fairness;
mod flipsight;
mod gomoku;
mod helpers;
mod identity;
mod lichess;
mod lifecycle;
mod matches;
mod operations;
mod ratings;
mod registry;
mod restart;
mod sandboxed;
mod slow_clients;
mod streams;
mod talk;
mod tournaments;
mod webhooks;
