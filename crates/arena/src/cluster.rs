//! What the servers sharing a store tell each other over the bus: each change to a bot, to
//! an account or its sessions, or to a bot's ratings, is announced, and every other server reads it again from the
//! store, so that a token rotated, a bot disabled or registered, a sign-in or a sign-out on
//! one server holds on all of them within moments. On a bus no other server hears
//! ([`arbiter_bus::Bus::is_shared`]), nothing is said.

use arbiter_bus::Bytes;
use arbiter_store::{AccountId, BotId};

use crate::Arena;
use crate::context::Context;

/// What the subjects addressed to one server start with: `arbiter.node.{node}.…` is heard by
/// the server `node` alone, so a bus may carry it straight there
/// ([`arbiter_bus::LinkedBus`]).
pub const NODE_SUBJECTS: &str = "arbiter.node";

/// The subject `rest` (`feed`, `http`, …) addressed to the server `node`.
pub fn node_subject(node: &str, rest: &str) -> String {
    format!("{NODE_SUBJECTS}.{node}.{rest}")
}

/// The subject a bot's change is announced on, with the announcing server's name and the
/// bot's id, separated by a space, as the payload.
const BOT_CHANGED: &str = "arbiter.bot.changed";

/// The subject a change to an account or its sessions is announced on, with the announcing
/// server's name and the account's id.
const ACCOUNT_CHANGED: &str = "arbiter.account.changed";

/// The subject a change to a bot's ratings is announced on, with the announcing server's
/// name and the bot's id.
const RATING_CHANGED: &str = "arbiter.rating.changed";

/// Every announcement.
const CHANGES: &str = "arbiter.*.changed";

/// Tells the other servers that `bot` changed in the store.
pub(crate) async fn announce_bot(context: &Context, bot: BotId) {
    announce(context, BOT_CHANGED, bot).await;
}

/// Tells the other servers that `account`, or its sessions, changed in the store.
pub(crate) async fn announce_account(context: &Context, account: AccountId) {
    announce(context, ACCOUNT_CHANGED, account).await;
}

/// Tells the other servers that `bot`'s ratings changed in the store.
pub(crate) async fn announce_rating(context: &Context, bot: BotId) {
    announce(context, RATING_CHANGED, bot).await;
}

async fn announce(context: &Context, subject: &str, id: i64) {
    let bus = &context.config.bus;
    if !bus.is_shared() {
        return;
    }
    // The node's name goes with the id: a server does not read again what it just wrote
    // (doing so could put back what it changed meanwhile).
    let payload = format!("{} {id}", context.config.node_id);
    if let Err(error) = bus.publish(subject.to_owned(), Bytes::from(payload)).await {
        // The others learn of it only when they next start; say so.
        tracing::warn!(subject, id, %error, "cannot announce a change to the other servers");
    }
}

/// Listens to the other servers' announcements for as long as the arena runs.
pub(crate) async fn listen(arena: &Arena) -> Result<(), crate::ArenaError> {
    let bus = arena.context.config.bus.clone();
    if !bus.is_shared() {
        return Ok(());
    }
    let mut changes = bus
        .subscribe(CHANGES.to_owned())
        .await
        .map_err(|e| crate::ArenaError::Unavailable(e.to_string()))?;
    let arena = arena.clone();
    tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                message = changes.next() => message,
                () = arena.context.stopped() => None,
            };
            let Some(message) = message else { break };
            let Some((node, id)) = std::str::from_utf8(&message.payload)
                .ok()
                .and_then(|text| text.rsplit_once(' '))
                .and_then(|(node, id)| Some((node, id.parse::<i64>().ok()?)))
            else {
                continue;
            };
            if node == arena.context.config.node_id {
                continue;
            }
            let reloaded = match message.subject.as_str() {
                BOT_CHANGED => arena.identities.reload(id).await,
                ACCOUNT_CHANGED => arena.accounts.reload(id).await,
                RATING_CHANGED => arena.ratings.reload(id).await,
                _ => Ok(()),
            };
            if let Err(error) = reloaded {
                tracing::warn!(subject = message.subject, id, %error, "cannot read what another server changed");
            }
        }
    });
    Ok(())
}
