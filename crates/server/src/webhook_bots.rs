//! Bots that answer over HTTP: the server holds each one's stream itself, in-process, and
//! plays for it as `arbiter bot` would: each decision is POSTed, signed, to the bot's URL, and
//! the action it answers is played; challenges are accepted or declined by the bot's
//! settings, since it has no stream to answer them on.
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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_arena::{Announcement, Arena, ArenaError, Bot, Decision, StreamEvent, Webhook};
use arbiter_webhook::{CallError, Lookup, SystemLookup, TargetError, TargetPolicy, WebhookClient};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// How often the server looks for webhook bots to drive, or to stop driving.
const SCAN_MS: i64 = 1_000;
/// How many times a decision's call is tried when it fails in a way that may pass.
const ATTEMPTS: u32 = 4;
/// The wait before the second attempt, doubled before each further one.
const FIRST_RETRY: Duration = Duration::from_millis(250);
/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The shortest initial clock of a challenge accepted for a webhook bot by default.
pub const DEFAULT_MIN_INITIAL_MS: i64 = 10_000;

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
}

/// Starts driving the webhook bots of `arena` until it stops.
pub(crate) fn start(arena: Arena, webhooks: Arc<Webhooks>) {
    tokio::spawn(async move {
        let mut driving: HashMap<i64, tokio::task::JoinHandle<()>> = HashMap::new();
        loop {
            let wanted: Vec<Bot> = if arena.takes_duty("webhooks").await {
                arena
                    .list_bots()
                    .into_iter()
                    .map(|(bot, _)| bot)
                    .filter(|bot| bot.active() && bot.profile.webhook.is_some())
                    .collect()
            } else {
                Vec::new()
            };
            // A bot whose webhook was removed, or whose driver ended, is dropped: its stream
            // closes with its task.
            driving.retain(|id, task| {
                let keep = !task.is_finished() && wanted.iter().any(|bot| bot.id == *id);
                if !keep {
                    task.abort();
                }
                keep
            });
            for bot in wanted {
                driving
                    .entry(bot.id)
                    .or_insert_with(|| tokio::spawn(drive(arena.clone(), webhooks.clone(), bot)));
            }
            let next = arena.now_ms() + SCAN_MS;
            tokio::select! {
                () = arena.sleep_until(next) => {}
                () = arena.stopped() => break,
            }
        }
        for task in driving.into_values() {
            task.abort();
        }
    });
}

/// Holds one webhook bot's stream and answers what comes on it.
async fn drive(arena: Arena, webhooks: Arc<Webhooks>, bot: Bot) {
    let mut stream = match arena.open_stream(&bot, false).await {
        Ok(stream) => stream,
        Err(error) => {
            tracing::warn!(bot = bot.id, %error, "cannot open a webhook bot's stream");
            return;
        }
    };
    // Only one call per decision: the stream may announce a decision again (a new stream's
    // announcements, a relayed copy).
    let asked: Arc<Mutex<HashMap<(i64, usize), u64>>> = Arc::default();
    while let Some(event) = stream.next_event().await {
        // The settings are read again at each event, so that a new URL or secret applies at
        // once.
        let Ok(current) = arena.find_bot(&bot.id.to_string()) else {
            return;
        };
        let Some(webhook) = current.profile.webhook.clone() else {
            return;
        };
        match event {
            StreamEvent::Decision { decision, .. } => {
                let key = (decision.match_id, decision.leg);
                let fresh = {
                    let mut asked = asked.lock().unwrap_or_else(|e| e.into_inner());
                    let fresh = asked.get(&key) != Some(&decision.revision);
                    asked.insert(key, decision.revision);
                    fresh
                };
                if fresh {
                    tokio::spawn(answer(
                        arena.clone(),
                        webhooks.clone(),
                        current,
                        webhook,
                        decision,
                    ));
                }
            }
            StreamEvent::Match {
                about: Announcement::Finished,
                summary,
                ..
            } => {
                asked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|(id, _), _| *id != summary.id);
            }
            StreamEvent::Match {
                about: Announcement::Challenge,
                summary,
                ..
            } => {
                if summary.bot_a.id == current.id {
                    continue;
                }
                let acceptable = webhook.accept_challenges
                    && summary.time_control.initial_ms >= webhook.min_initial_ms;
                let outcome = if acceptable {
                    arena.accept(&current, summary.id, None).await.map(drop)
                } else {
                    arena.decline(&current, summary.id, false).await.map(drop)
                };
                if let Err(error) = outcome {
                    tracing::info!(bot = current.id, match_id = summary.id, %error, "a webhook bot's challenge was not answered");
                }
            }
            _ => {}
        }
    }
}

/// Calls the bot for one decision and plays its answer.
async fn answer(
    arena: Arena,
    webhooks: Arc<Webhooks>,
    bot: Bot,
    webhook: Webhook,
    decision: Arc<Decision>,
) {
    let request: Value = serde_json::from_str(&decision.request).unwrap_or(Value::Null);
    let body = json!({
        "match_id": decision.match_id,
        "leg": decision.leg,
        "revision": decision.revision,
        "participant": decision.participant,
        "request": request,
    })
    .to_string()
    .into_bytes();
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
                play(&arena, &bot, &decision, &answer).await;
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

/// Plays a bot's answer: `{"action": …}` (or `{"move": …}`, as engines answer).
async fn play(arena: &Arena, bot: &Bot, decision: &Decision, answer: &[u8]) {
    let parsed: Option<Value> = serde_json::from_slice::<Value>(answer)
        .ok()
        .and_then(|value| value.get("action").or_else(|| value.get("move")).cloned());
    let Some(action) = parsed else {
        tracing::warn!(
            bot = bot.id,
            match_id = decision.match_id,
            "a webhook bot answered without an action; its clock runs on"
        );
        return;
    };
    let leg = u8::try_from(decision.leg).unwrap_or(u8::MAX);
    match arena
        .submit(bot, decision.match_id, leg, decision.revision, action)
        .await
    {
        Ok(_) | Err(ArenaError::StaleRevision { .. }) => {}
        Err(error) => {
            tracing::warn!(bot = bot.id, match_id = decision.match_id, %error, "a webhook bot's action was refused; its clock runs on");
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
