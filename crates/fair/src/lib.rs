//! Provably fair randomness.
//!
//! Every random element of a match (openings, dice, shuffles, house-bot choices) comes from
//! streams derived from one secret **server seed** per match:
//!
//! 1. When the match is created the server draws a seed (32 random bytes, written as 64
//!    lower-case hex digits) and publishes its **commitment** `sha256(seed)`, the SHA-256 of
//!    the seed's text, in hex.
//! 2. Players may contribute **client seeds**; they are joined in seat order with `:` into one
//!    client seed string (empty when nobody contributed).
//! 3. Stream `nonce` is ChaCha8 (the `rand` crate's portable `ChaCha8Rng`) seeded with
//!    `HMAC-SHA256(key = seed, message = "{client_seed}:{nonce}:0")`. The arena uses a fresh
//!    nonce for every command that may draw randomness, so streams are independent and each
//!    one can be recomputed on its own.
//! 4. When the match ends the server reveals the seed; anyone can check it against the
//!    commitment ([`Commitment::verify`]) and replay the match.
//!
//! The message format `"{client_seed}:{nonce}:{round}"` is the widely used commit-reveal
//! construction, so the published test vectors for it check this crate directly; `round`
//! numbers further 32-byte blocks when raw bytes are needed ([`ServerSeed::dice`]).

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use rand::rngs::ChaCha8Rng;
use rand::{SeedableRng, TryRng};
use sha2::{Digest, Sha256};

/// A stream of random numbers derived from a seed, a client seed and a nonce.
pub type Stream = ChaCha8Rng;

/// The secret seed of one match. Its `Debug` output hides it; only [`reveal`](Self::reveal)
/// gives it out.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerSeed(String);

/// The operating system could not provide random bytes.
#[derive(Debug, thiserror::Error)]
#[error("the operating system's random source failed: {0}")]
pub struct EntropyError(String);

impl ServerSeed {
    /// Draws a new seed from the operating system's random source.
    pub fn generate() -> Result<ServerSeed, EntropyError> {
        let mut bytes = [0u8; 32];
        rand::rngs::SysRng
            .try_fill_bytes(&mut bytes)
            .map_err(|e| EntropyError(e.to_string()))?;
        Ok(ServerSeed(to_hex(&bytes)))
    }

    /// A seed that has been revealed (or stored), to recompute its streams.
    pub fn from_revealed(seed: &str) -> ServerSeed {
        ServerSeed(seed.to_owned())
    }

    /// The seed itself, to publish once the match has ended.
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// The commitment published before the first random draw.
    pub fn commitment(&self) -> Commitment {
        Commitment(to_hex(&Sha256::digest(self.0.as_bytes())))
    }

    /// `HMAC-SHA256(key = seed, message = "{client_seed}:{nonce}:{round}")`.
    pub fn block(&self, client_seed: &str, nonce: u64, round: u64) -> [u8; 32] {
        // HMAC accepts keys of any length, so this cannot fail.
        let mut mac =
            Hmac::<Sha256>::new_from_slice(self.0.as_bytes()).unwrap_or_else(|_| unreachable!());
        mac.update(format!("{client_seed}:{nonce}:{round}").as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// The stream for `nonce`: ChaCha8 seeded with block 0.
    pub fn stream(&self, client_seed: &str, nonce: u64) -> Stream {
        ChaCha8Rng::from_seed(self.block(client_seed, nonce, 0))
    }

    /// `count` fair six-sided dice for `nonce`: [`roll`](Self::roll) with six sides, whose
    /// rejection threshold, 252, is the published construction's.
    pub fn dice(&self, client_seed: &str, nonce: u64, count: usize) -> Vec<u8> {
        self.roll(client_seed, nonce, 6, count)
    }

    /// `count` values from 1 to `sides` for roll `nonce`, each exactly equally likely, by
    /// rejection sampling on single bytes: walk the bytes of blocks 0, 1, 2, … in order, skip
    /// every byte at or above the largest multiple of `sides` not above 256, and map each
    /// other byte `b` to `b mod sides + 1`. `sides` of 0 counts as 1.
    pub fn roll(&self, client_seed: &str, nonce: u64, sides: u8, count: usize) -> Vec<u8> {
        let sides = u16::from(sides.max(1));
        let limit = 256 - 256 % sides;
        let mut values = Vec::with_capacity(count);
        let mut round = 0;
        while values.len() < count {
            let block = self.block(client_seed, nonce, round);
            values.extend(
                block
                    .iter()
                    .map(|&b| u16::from(b))
                    .filter(|&b| b < limit)
                    // Below `sides`, itself at most 255, so the value fits.
                    .map(|b| u8::try_from(b % sides + 1).unwrap_or(1))
                    .take(count - values.len()),
            );
            round += 1;
        }
        values
    }
}

impl fmt::Debug for ServerSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerSeed(hidden)")
    }
}

/// Joins the players' client seeds, in seat order, into the client seed string.
pub fn client_seed(seeds: &[&str]) -> String {
    seeds.join(":")
}

/// The published SHA-256 of a server seed, in lower-case hex.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Commitment(String);

/// Why a revealed seed does not match its commitment.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("the revealed seed hashes to {actual}, but the commitment was {committed}")]
pub struct VerifyError {
    /// The published commitment.
    pub committed: String,
    /// The hash of the revealed seed.
    pub actual: String,
}

impl Commitment {
    /// A commitment as published (hex; either case).
    pub fn from_hex(hex: &str) -> Commitment {
        Commitment(hex.trim().to_ascii_lowercase())
    }

    /// The commitment in hex.
    pub fn as_hex(&self) -> &str {
        &self.0
    }

    /// Checks a revealed seed against this commitment.
    pub fn verify(&self, revealed: &ServerSeed) -> Result<(), VerifyError> {
        let actual = revealed.commitment();
        if actual == *self {
            Ok(())
        } else {
            Err(VerifyError {
                committed: self.0.clone(),
                actual: actual.0,
            })
        }
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|&b| [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]])
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests;
