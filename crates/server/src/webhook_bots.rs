//! Bots that answer over HTTP, one kind of hosted bot (see `hosted`): each decision is POSTed,
//! signed, to the bot's URL, and the action it answers is played.
//!
//! A bot's signing secret is never stored: it is HMAC-SHA256 of the bot's id and secret
//! version under the server's webhook key, so it can be shown to the bot's owner when it is
//! made and recomputed for each call, and rotating it (a new version) makes the old one sign
//! nothing. Among servers sharing a store, the one holding the duty `webhooks` (and so the
//! same key on every server) drives every webhook bot.
//!
//! A call that fails in a way that may pass (no connection, a timeout, a 5xx or 429 status)
//! is tried again with back-off; a bot that stays unreachable, answers garbage or an illegal
//! action simply does not move, and its clock decides, as for any bot.

use std::sync::Arc;
use std::time::Duration;

use arbiter_arena::{Arena, ArenaError, Bot, BotKind, Decision, Webhook};
use arbiter_web::{Hosting, WebhookRequest, WebhookSet};
use arbiter_webhook::{CallError, Lookup, SystemLookup, TargetError, TargetPolicy, WebhookClient};
use futures::future::BoxFuture;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::hosted::{self, Player, Policy};

/// How many times a decision's call is tried when it fails in a way that may pass.
const ATTEMPTS: u32 = 4;
/// The wait before the second attempt, doubled before each further one.
const FIRST_RETRY: Duration = Duration::from_millis(250);
/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What the server needs to call webhook bots: its key and the client under the operator's
/// target policy.
pub struct Webhooks {
    key: Vec<u8>,
    client: WebhookClient,
}

impl std::fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Webhooks")
            .field("policy", self.client.policy())
            .finish_non_exhaustive()
    }
}

impl Webhooks {
    /// Webhooks signed under `key`, calling only what `policy` allows, with names resolved by
    /// the system.
    pub fn new(key: &[u8], policy: TargetPolicy) -> Result<Webhooks, CallError> {
        Webhooks::with_lookup(key, policy, Arc::new(SystemLookup))
    }

    /// The same with names resolved by `lookup` (a table, in tests).
    pub fn with_lookup(
        key: &[u8],
        policy: TargetPolicy,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Webhooks, CallError> {
        Ok(Webhooks {
            key: key.to_vec(),
            client: WebhookClient::new(policy, lookup)?,
        })
    }

    /// The signing secret of version `version` of `bot`'s.
    pub fn secret(&self, bot: i64, version: u32) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
        mac.update(format!("arbiter-webhook-secret:{bot}:{version}").as_bytes());
        let digest = mac.finalize().into_bytes();
        let mut secret = String::from("whsec_");
        for byte in digest {
            secret.push_str(&format!("{byte:02x}"));
        }
        secret
    }

    /// Checks a URL a bot asks to be called at.
    pub fn check_url(&self, url: &str) -> Result<String, TargetError> {
        Ok(self.client.policy().check_url(url)?.to_string())
    }

    /// Makes `bot` answer over HTTP as `request` says, for the API and the bot's page alike:
    /// the URL is checked against the policy, and a first webhook, or a rotation, makes a new
    /// signing secret.
    pub(crate) async fn configure(
        &self,
        arena: &Arena,
        bot: &Bot,
        request: WebhookRequest,
    ) -> Result<WebhookSet, ArenaError> {
        if bot.kind != BotKind::Registered {
            return Err(ArenaError::InvalidRequest(
                "only registered bots may answer over HTTP".to_owned(),
            ));
        }
        let url = self
            .check_url(&request.url)
            .map_err(|e| ArenaError::InvalidRequest(e.to_string()))?;
        let min_initial_ms = hosted::min_initial_ms(request.min_initial_ms)?;
        let previous = bot.profile.webhook.as_ref();
        let new_secret = previous.is_none() || request.rotate_secret;
        let secret_version = match previous {
            Some(webhook) => webhook.secret_version + u32::from(request.rotate_secret),
            None => 0,
        };
        let webhook = Webhook {
            url,
            secret_version,
            accept_challenges: request.accept_challenges,
            min_initial_ms,
        };
        arena.set_webhook(bot.id, Some(webhook.clone())).await?;
        Ok(WebhookSet {
            webhook,
            secret: new_secret.then(|| self.secret(bot.id, secret_version)),
        })
    }
}

impl Hosting for Webhooks {
    fn set_webhook<'a>(
        &'a self,
        arena: &'a Arena,
        bot: &'a Bot,
        request: WebhookRequest,
    ) -> BoxFuture<'a, Result<WebhookSet, ArenaError>> {
        Box::pin(self.configure(arena, bot, request))
    }
}

/// Webhook bots as one kind of hosted bot.
pub(crate) struct WebhookKind(pub(crate) Arc<Webhooks>);

impl hosted::Kind for WebhookKind {
    fn duty(&self) -> &'static str {
        "webhooks"
    }

    fn version(&self, bot: &Bot) -> Option<String> {
        bot.profile.webhook.as_ref().map(|_| String::new())
    }

    fn player(
        self: Arc<Self>,
        arena: Arena,
        _bot: Bot,
    ) -> BoxFuture<'static, Option<Arc<dyn Player>>> {
        let player: Arc<dyn Player> = Arc::new(WebhookPlayer {
            arena,
            webhooks: self.0.clone(),
        });
        Box::pin(async move { Some(player) })
    }
}

/// Plays for one webhook bot by calling it.
struct WebhookPlayer {
    arena: Arena,
    webhooks: Arc<Webhooks>,
}

impl Player for WebhookPlayer {
    fn policy(&self, bot: &Bot) -> Option<Policy> {
        bot.profile.webhook.as_ref().map(|webhook| Policy {
            accept_challenges: webhook.accept_challenges,
            min_initial_ms: webhook.min_initial_ms,
        })
    }

    fn decide(self: Arc<Self>, bot: Bot, decision: Arc<Decision>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            if let Some(webhook) = bot.profile.webhook.clone() {
                answer(&self.arena, &self.webhooks, &bot, &webhook, &decision).await;
            }
        })
    }
}

/// Calls the bot for one decision and plays its answer.
async fn answer(
    arena: &Arena,
    webhooks: &Webhooks,
    bot: &Bot,
    webhook: &Webhook,
    decision: &Decision,
) {
    // A decision serialises as the call's body, its request written in as the arena made it
    // rather than parsed and written again.
    let body = match serde_json::to_vec(decision) {
        Ok(body) => body,
        Err(error) => {
            tracing::error!(bot = bot.id, match_id = decision.match_id, %error, "a decision could not be written as a webhook call");
            return;
        }
    };
    let secret = webhooks.secret(bot.id, webhook.secret_version);
    let mut wait = FIRST_RETRY;
    for attempt in 1..=ATTEMPTS {
        let now_s = arena.now_ms().div_euclid(1_000);
        let called = webhooks
            .client
            .call(
                &webhook.url,
                body.clone(),
                secret.as_bytes(),
                now_s,
                CALL_TIMEOUT,
            )
            .await;
        match called {
            Ok(answer) => {
                if let Err(why) = hosted::play(arena, bot, decision, &answer).await {
                    tracing::warn!(
                        bot = bot.id,
                        match_id = decision.match_id,
                        "a webhook bot's answer was not played ({why}); its clock runs on"
                    );
                }
                return;
            }
            Err(error) if error.is_transient() && attempt < ATTEMPTS => {
                tracing::info!(bot = bot.id, match_id = decision.match_id, attempt, %error, "a webhook call failed; trying again");
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            Err(error) => {
                tracing::warn!(bot = bot.id, match_id = decision.match_id, %error, "a webhook bot gave no answer; its clock runs on");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_differ_by_bot_version_and_key_and_never_repeat() {
        let policy = TargetPolicy::default();
        let one = Webhooks::new(b"server key", policy.clone()).expect("webhooks");
        let other = Webhooks::new(b"another key", policy).expect("webhooks");
        let secrets = [
            one.secret(1, 0),
            one.secret(1, 1),
            one.secret(2, 0),
            other.secret(1, 0),
        ];
        for (i, secret) in secrets.iter().enumerate() {
            assert!(
                secret.starts_with("whsec_") && secret.len() == 70,
                "{secret}"
            );
            assert!(secrets[..i].iter().all(|earlier| earlier != secret));
        }
        assert_eq!(one.secret(1, 0), secrets[0], "recomputed the same");
    }
}
