//! Calls to bots that answer over HTTP rather than holding a stream: a cloud function, or any
//! web server a bot's owner runs.
//!
//! - [`signature`]: every request is signed with HMAC-SHA256 over its timestamp and body with
//!   a secret per bot, so that the bot can tell the server's requests from anyone else's and
//!   refuse a replayed one.
//! - [`target`]: which addresses the server may call. A bot's URL is the bot's owner's to
//!   choose, so without a guard it would let anyone make the server call its own loopback,
//!   private network or cloud metadata service (server-side request forgery). Loopback,
//!   private, link-local, multicast and unspecified addresses are refused, in every spelling
//!   (decimal or hexadecimal IPv4, IPv4 inside IPv6), unless the operator allows a range.
//! - [`client`]: the HTTP client that applies the guard to the addresses a name resolves to,
//!   connects to exactly those (so a name cannot resolve to a public address when checked and
//!   to a private one when connected), follows no redirect and reads at most so many bytes of
//!   an answer.
//!
//! This crate knows no game and no arena: it signs, checks and sends bytes.

pub mod client;
pub mod signature;
pub mod target;

pub use client::{CallError, Lookup, SystemLookup, WebhookClient};
pub use signature::{SIGNATURE_HEADER, SignatureError, TIMESTAMP_HEADER, sign, verify};
pub use target::{Range, TargetError, TargetPolicy};
