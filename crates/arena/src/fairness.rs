//! The players' share of a match's randomness: their client seeds, and how a match's random
//! streams and public rolls are derived from the server seed and those seeds.
//!
//! A match's server seed is committed when the match is created, before any player can add a
//! client seed, and revealed when it ends; the client seeds are public. So the server cannot
//! choose a seed to suit the players' seeds, and no player can predict a draw.
//!
//! Two kinds of draw come from the seed (see `arbiter-fair` for the HMAC construction):
//! - **Rolls** ([`arbiter_rules::Dice`]), which games show to everyone as they happen: roll
//!   `n` is `HMAC-SHA256(seed, "{client_seed}:{n}:{round}")` read by rejection sampling, where
//!   `client_seed` is every participant's seed joined with `:` in participant order (each
//!   empty when not given). That is the published commit-reveal construction with the
//!   players' seeds as its client seed, so anyone can recompute a roll in a few lines.
//! - **Streams** (ChaCha8), for everything else a command draws (an opening, a shuffle, the
//!   first seat), keyed by a label and the command's event number: their client part is the
//!   label alone while no participant has given a seed (as in every match before client
//!   seeds existed, which must replay as they were played), and `"{client_seed}/{label}"`
//!   once one has. Client seeds hold neither `:` nor `/`, so a stream's message can never be
//!   a roll's.

use arbiter_fair::ServerSeed;

use crate::ArenaError;

/// The most characters a client seed may have.
pub(crate) const CLIENT_SEED_MAX_CHARS: usize = 64;

/// A client seed as a player gave it, checked: 1 to 64 ASCII letters, digits, `.`, `_` or
/// `-`. `None` and the empty string both mean that the player gave none.
pub(crate) fn checked_client_seed(seed: Option<&str>) -> Result<String, ArenaError> {
    let seed = seed.unwrap_or_default();
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if seed.len() > CLIENT_SEED_MAX_CHARS || !seed.chars().all(allowed) {
        return Err(ArenaError::InvalidRequest(format!(
            "a client_seed is at most {CLIENT_SEED_MAX_CHARS} ASCII letters, digits, '.', '_' \
             or '-'"
        )));
    }
    Ok(seed.to_owned())
}

/// The client seed of a match's rolls: every participant's seed, joined with `:` in
/// participant order.
pub(crate) fn joined_client_seed(seeds: &[String]) -> String {
    seeds.join(":")
}

/// The client part of the message that keys a match's stream for `label`.
pub(crate) fn stream_client_part(seeds: &[String], label: &str) -> String {
    if seeds.iter().all(String::is_empty) {
        label.to_owned()
    } else {
        format!("{}/{label}", joined_client_seed(seeds))
    }
}

/// Roll `nonce` of a match with server seed `seed` and participants' seeds `client_seeds`.
pub(crate) fn roll(
    seed: &ServerSeed,
    client_seeds: &[String],
    nonce: u64,
    sides: u8,
    count: usize,
) -> Vec<u8> {
    seed.roll(&joined_client_seed(client_seeds), nonce, sides, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_seeds_are_checked() {
        let table: &[(Option<&str>, Option<&str>)] = &[
            (None, Some("")),
            (Some(""), Some("")),
            (Some("lucky-7.x_y"), Some("lucky-7.x_y")),
            (Some("a:b"), None),
            (Some("a/b"), None),
            (Some("ünï"), None),
            (Some("with space"), None),
        ];
        for &(given, expected) in table {
            assert_eq!(
                checked_client_seed(given).ok().as_deref(),
                expected,
                "{given:?}"
            );
        }
        let long = "x".repeat(CLIENT_SEED_MAX_CHARS);
        assert!(checked_client_seed(Some(&long)).is_ok());
        assert!(checked_client_seed(Some(&format!("{long}x"))).is_err());
    }

    #[test]
    fn rolls_use_the_published_construction_with_the_joined_seeds() {
        let seed = ServerSeed::from_revealed("server-seed-example");
        // One participant's seed alone is the published vector's client seed.
        let one = ["client-seed-example".to_owned()];
        assert_eq!(roll(&seed, &one, 0, 6, 3), vec![3, 5, 1]);
        assert_eq!(roll(&seed, &one, 2, 6, 3), vec![3, 4, 5]);
        let two = ["alice".to_owned(), String::new()];
        assert_eq!(roll(&seed, &two, 5, 6, 3), seed.dice("alice:", 5, 3));
    }

    #[test]
    fn streams_keep_their_old_keys_until_a_seed_is_given() {
        let none = [String::new(), String::new()];
        assert_eq!(stream_client_part(&none, "legs"), "legs");
        assert_eq!(stream_client_part(&none, ""), "");
        let some = ["a".to_owned(), String::new()];
        assert_eq!(stream_client_part(&some, "legs"), "a:/legs");
        assert_eq!(stream_client_part(&some, ""), "a:/");
    }
}
