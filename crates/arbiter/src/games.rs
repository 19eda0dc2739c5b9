//! The game families this server runs, and the games its dialects serve: the one place that
//! names them.

use arbiter_arena::Games;
use arbiter_server::{Dialects, UnknownGame};

/// Every family, the server's default (Othello, whose `std` auto-matching plays) first.
pub(crate) fn games() -> Games {
    Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY)
        .with(&arbiter_gomoku::FAMILY)
        .with(&arbiter_chess::FAMILY)
        .with(&arbiter_fate_tokens::FAMILY)
}

/// The dialects the server speaks besides its native API, each with the game it serves:
/// FlipSight's dialect is Othello's; the Board Game Protocol serves every game played on a
/// board's points, Gomoku when a request names none; the Lichess dialect serves every game
/// told as a line of moves, Chess when a challenge names no variant.
pub(crate) fn dialects(games: &Games) -> Result<Dialects, UnknownGame> {
    Dialects::none()
        .with_flipsight(games, arbiter_othello_plugin::FAMILY.id())?
        .with_bgp(games, arbiter_gomoku::FAMILY.id())?
        .with_lichess(games, arbiter_chess::FAMILY.id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_told_as_a_move_line_has_variant_keys_of_its_own() {
        let mut keys = Vec::new();
        for family in games().families() {
            let Some(line) = family.line else { continue };
            for variant in family.setup.variants() {
                if let Some(key) = line.variant_key(variant.name) {
                    assert!(!keys.contains(&key.key), "{} is given twice", key.key);
                    keys.push(key.key);
                }
            }
        }
        assert!(
            keys.contains(&"standard") && keys.contains(&"diceChess"),
            "{keys:?}"
        );
        assert!(dialects(&games()).is_ok());
    }
}
