//! The connector against a real server on port 0 with a fresh database: engines of every kind
//! play whole matches, and the connector survives a server restart.

mod generic_engine;
mod gomocup;
mod goofspiel;
mod harness;
mod play;
mod resilience;
mod tls;
mod uci;
