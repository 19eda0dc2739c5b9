//! The seam through which a bot's owner sets, from the bot's page, how the server hosts it.
//!
//! A webhook's URL is checked against the operator's target policy and its signing secret is
//! made under the server's key; neither is the arena's, so the pages cannot do it over the
//! arena alone. The server hands the pages an implementation of [`Hosting`], the same code its
//! API runs, and the pages offer the webhook form only where it does.

use std::future::Future;
use std::pin::Pin;

use arbiter_arena::{Arena, ArenaError, Bot, Webhook};

/// A boxed future that may move between threads, as a trait object's async method returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A webhook as a bot's owner asks for it.
#[derive(Clone, Debug)]
pub struct WebhookRequest {
    /// The URL each decision is to be POSTed to, as typed.
    pub url: String,
    /// Whether challenges are accepted on the bot's behalf.
    pub accept_challenges: bool,
    /// The shortest initial clock, in milliseconds, of a challenge accepted on its behalf;
    /// the server's default where `None`.
    pub min_initial_ms: Option<i64>,
    /// Whether to make a new signing secret, so that the old one signs nothing.
    pub rotate_secret: bool,
}

/// A webhook as it was set.
#[derive(Clone, Debug)]
pub struct WebhookSet {
    /// The webhook the bot now has.
    pub webhook: Webhook,
    /// The signing secret, when a new one was made: it is shown this once.
    pub secret: Option<String>,
}

/// What the server does for the pages about the bots it hosts.
pub trait Hosting: Send + Sync {
    /// Makes `bot` answer over HTTP as `request` says, or says why it may not.
    fn set_webhook<'a>(
        &'a self,
        arena: &'a Arena,
        bot: &'a Bot,
        request: WebhookRequest,
    ) -> BoxFuture<'a, Result<WebhookSet, ArenaError>>;
}
