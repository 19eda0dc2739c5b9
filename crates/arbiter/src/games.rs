//! The game families this server runs: the one place that names them.

use arbiter_arena::Games;

/// Every family, the server's default (Othello, whose `std` auto-matching plays) first.
pub(crate) fn games() -> Games {
    Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY)
}
