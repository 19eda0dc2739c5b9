//! Request signatures: `X-Arbiter-Signature: v1=<hex>` where the hex is
//! HMAC-SHA256(secret, "{timestamp}.{body}") and `X-Arbiter-Timestamp` is the timestamp, in
//! seconds since the Unix epoch. A receiver recomputes it over the bytes it received and
//! refuses a timestamp further than [`REPLAY_WINDOW_S`] from its own clock, so that a request
//! seen once cannot be sent again later.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "X-Arbiter-Signature";
/// The header that carries the timestamp the signature covers.
pub const TIMESTAMP_HEADER: &str = "X-Arbiter-Timestamp";
/// How far a request's timestamp may be from the receiver's clock, in seconds.
pub const REPLAY_WINDOW_S: i64 = 300;
/// The signature scheme's version prefix.
const VERSION: &str = "v1=";

/// Why a request's signature was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// A header is missing or is not what a signature or a timestamp looks like.
    #[error("the signature or timestamp header is malformed")]
    Malformed,
    /// The timestamp is outside the replay window.
    #[error("the timestamp is {skew_s} s from now, more than the {REPLAY_WINDOW_S} s allowed")]
    Stale {
        /// How far it is from the receiver's clock, in seconds.
        skew_s: i64,
    },
    /// The signature is not the one the secret gives for this timestamp and body.
    #[error("the signature does not match the body")]
    Mismatch,
}

fn mac(secret: &[u8], timestamp_s: i64, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length; this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(timestamp_s.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The signature header's value for `body` sent at `timestamp_s`.
pub fn sign(secret: &[u8], timestamp_s: i64, body: &[u8]) -> String {
    let digest = mac(secret, timestamp_s, body).finalize().into_bytes();
    let mut text = String::with_capacity(VERSION.len() + 64);
    text.push_str(VERSION);
    for byte in digest {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// Checks a received request: its timestamp header within the replay window of `now_s`, and
/// its signature header over the timestamp and `body`, compared in constant time.
pub fn verify(
    secret: &[u8],
    timestamp: &str,
    body: &[u8],
    signature: &str,
    now_s: i64,
) -> Result<(), SignatureError> {
    let timestamp_s: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| SignatureError::Malformed)?;
    let skew_s = now_s.saturating_sub(timestamp_s);
    if skew_s.abs() > REPLAY_WINDOW_S {
        return Err(SignatureError::Stale { skew_s });
    }
    let hex = signature
        .trim()
        .strip_prefix(VERSION)
        .ok_or(SignatureError::Malformed)?;
    let expected = decode_hex(hex).ok_or(SignatureError::Malformed)?;
    mac(secret, timestamp_s, body)
        .verify_slice(&expected)
        .map_err(|_| SignatureError::Mismatch)
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_example";
    const BODY: &[u8] = br#"{"match_id":7,"leg":0}"#;

    #[test]
    fn the_signature_is_the_published_construction() {
        // Computed independently with Python's hmac module:
        // hmac.new(b"whsec_example", b'1700000000.{"match_id":7,"leg":0}', "sha256").hexdigest()
        assert_eq!(
            sign(SECRET, 1_700_000_000, BODY),
            "v1=6902ad8cc664632a117f13de90c804ea8540f5c82e84ff70fa6a9b2d9034d29e"
        );
    }

    #[test]
    fn a_request_is_accepted_only_as_signed_and_recent() {
        let at = 1_700_000_000;
        let signed = sign(SECRET, at, BODY);
        /// A case: its name, the secret, the body, the signature, the receiver's time and the
        /// verdict.
        type Case<'a> = (
            &'a str,
            &'a [u8],
            &'a [u8],
            String,
            i64,
            Result<(), SignatureError>,
        );
        let cases: [Case; 7] = [
            ("as sent", SECRET, BODY, signed.clone(), at + 10, Ok(())),
            (
                "another body",
                SECRET,
                br#"{"match_id":8,"leg":0}"#,
                signed.clone(),
                at,
                Err(SignatureError::Mismatch),
            ),
            (
                "another secret",
                b"whsec_other",
                BODY,
                signed.clone(),
                at,
                Err(SignatureError::Mismatch),
            ),
            (
                "too old",
                SECRET,
                BODY,
                signed.clone(),
                at + REPLAY_WINDOW_S + 1,
                Err(SignatureError::Stale {
                    skew_s: REPLAY_WINDOW_S + 1,
                }),
            ),
            (
                "from the future",
                SECRET,
                BODY,
                signed.clone(),
                at - REPLAY_WINDOW_S - 1,
                Err(SignatureError::Stale {
                    skew_s: -REPLAY_WINDOW_S - 1,
                }),
            ),
            (
                "no version",
                SECRET,
                BODY,
                signed.trim_start_matches("v1=").to_owned(),
                at,
                Err(SignatureError::Malformed),
            ),
            (
                "short",
                SECRET,
                BODY,
                "v1=abcd".to_owned(),
                at,
                Err(SignatureError::Malformed),
            ),
        ];
        for (name, secret, body, signature, now, expected) in cases {
            assert_eq!(
                verify(secret, &at.to_string(), body, &signature, now),
                expected,
                "{name}"
            );
        }
        assert_eq!(
            verify(SECRET, "yesterday", BODY, &signed, at),
            Err(SignatureError::Malformed)
        );
    }
}
