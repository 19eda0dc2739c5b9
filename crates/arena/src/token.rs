//! Bot tokens: random, recognisable by their prefix, stored only as a SHA-256 hash and a short
//! display prefix, compared in constant time.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::TryRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The prefix of a registered bot's token.
pub const REGISTERED_PREFIX: &str = "arbb_";
/// The prefix of an anonymous bot's token.
pub const ANONYMOUS_PREFIX: &str = "arba_";
/// The prefix of a guest's cookie, which names the participant a person plays as.
pub const GUEST_PREFIX: &str = "arbg_";

/// The token prefix for a kind of principal.
pub fn prefix_of(kind: arbiter_store::BotKind) -> &'static str {
    match kind {
        arbiter_store::BotKind::Anonymous => ANONYMOUS_PREFIX,
        arbiter_store::BotKind::Human => GUEST_PREFIX,
        arbiter_store::BotKind::Registered | arbiter_store::BotKind::House => REGISTERED_PREFIX,
    }
}

/// How many characters of a token may be shown (the kind prefix and a few random ones).
pub const DISPLAY_CHARS: usize = 12;

/// The longest prefix a token may be spelled with: shorter than [`DISPLAY_CHARS`], so that
/// the part of a token that may be shown always has a random character to tell tokens apart.
pub const SPELLING_MAX: usize = DISPLAY_CHARS - 1;

/// The prefix a token is spelled with. Each kind of principal has its own ([`prefix_of`]);
/// a door that hands out tokens in a protocol of its own may spell them its protocol's way
/// instead. The spelling is only how the secret reads: a token is found by the hash of the
/// whole secret, so a token works through every door whatever its prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling(&'static str);

impl Spelling {
    /// A spelling with `prefix`: 1 to [`SPELLING_MAX`] ASCII letters, digits or `_`, so that
    /// a token reads as one word and never needs escaping in a header. `None` for any other.
    pub const fn new(prefix: &'static str) -> Option<Spelling> {
        let bytes = prefix.as_bytes();
        if bytes.is_empty() || bytes.len() > SPELLING_MAX {
            return None;
        }
        let mut i = 0;
        while i < bytes.len() {
            if !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                return None;
            }
            i += 1;
        }
        Some(Spelling(prefix))
    }

    /// The usual spelling of a kind of principal's tokens.
    pub fn of(kind: arbiter_store::BotKind) -> Spelling {
        Spelling(prefix_of(kind))
    }

    /// The prefix.
    pub fn prefix(self) -> &'static str {
        self.0
    }
}

/// A freshly generated token; the only time the secret exists in the clear.
pub struct NewToken {
    /// The secret, to show its owner once.
    pub secret: String,
    /// Its SHA-256 in hex, to store.
    pub hash: String,
    /// Its first characters, to show later.
    pub display: String,
}

impl std::fmt::Debug for NewToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewToken")
            .field("display", &self.display)
            .finish_non_exhaustive()
    }
}

/// The operating system could not provide random bytes.
#[derive(Debug, thiserror::Error)]
#[error("no randomness for a token: {0}")]
pub struct TokenError(String);

/// A new token with the given kind prefix: 32 random bytes in base64url.
pub fn generate(prefix: &str) -> Result<NewToken, TokenError> {
    let mut bytes = [0u8; 32];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| TokenError(e.to_string()))?;
    let secret = format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes));
    let display = secret.chars().take(DISPLAY_CHARS).collect();
    Ok(NewToken {
        hash: hash(&secret),
        secret,
        display,
    })
}

/// The SHA-256 of a presented token, in hex.
pub fn hash(secret: &str) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(secret.as_bytes()) {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    hex
}

/// Compares two hashes without revealing, through timing, how much of them matched.
pub fn hashes_match(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_prefixed_random_and_hashed() {
        let a = generate(REGISTERED_PREFIX).expect("entropy");
        let b = generate(REGISTERED_PREFIX).expect("entropy");
        assert!(a.secret.starts_with("arbb_") && a.secret.len() == 5 + 43);
        assert_ne!(a.secret, b.secret);
        assert_eq!(a.hash, hash(&a.secret));
        assert_eq!(a.hash.len(), 64);
        assert!(a.secret.starts_with(&a.display) && a.display.len() == 12);
        assert!(
            !format!("{a:?}").contains(&a.secret),
            "Debug never shows the secret"
        );
        assert!(hashes_match(&a.hash, &hash(&a.secret)));
        assert!(!hashes_match(&a.hash, &b.hash));
        assert!(!hashes_match(&a.hash, "short"));
    }

    #[test]
    fn spellings_are_short_words() {
        for (prefix, valid) in [
            ("ck_live_", true),
            ("arbb_", true),
            ("x", true),
            ("abcdefghijk", true),
            ("", false),
            ("abcdefghijkl", false),
            ("ck-live", false),
            ("ck live", false),
            ("ключ_", false),
        ] {
            assert_eq!(Spelling::new(prefix).is_some(), valid, "{prefix:?}");
        }
    }

    #[test]
    fn a_spelled_token_shows_a_random_character() {
        let spelling = Spelling::new("abcdefghijk").expect("valid");
        let a = generate(spelling.prefix()).expect("entropy");
        assert_eq!(a.display.len(), DISPLAY_CHARS);
        assert!(a.display.starts_with("abcdefghijk"));
        assert_eq!(a.secret.len(), 11 + 43);
    }
}
