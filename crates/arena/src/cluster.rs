//! What the servers sharing a store tell each other over the bus: each change to a bot is
//! announced, and every other server reads the bot again from the store, so that a token
//! rotated, a bot disabled or a bot registered on one server holds on all of them within
//! moments. On a bus no other server hears ([`arbiter_bus::Bus::is_shared`]), nothing is said.

use arbiter_bus::Bytes;
use arbiter_store::BotId;

use crate::Arena;
use crate::context::Context;

/// The subject a bot's change is announced on, with its id as the payload.
pub(crate) const BOT_CHANGED: &str = "arbiter.bot.changed";

/// Tells the other servers that `bot` changed in the store.
pub(crate) async fn announce_bot(context: &Context, bot: BotId) {
    let bus = &context.config.bus;
    if !bus.is_shared() {
        return;
    }
    if let Err(error) = bus
        .publish(BOT_CHANGED.to_owned(), Bytes::from(bot.to_string()))
        .await
    {
        // The others learn of it when they next read the bot; say so.
        tracing::warn!(bot, %error, "cannot announce a bot's change to the other servers");
    }
}

/// Listens to the other servers' announcements for as long as the arena runs.
pub(crate) async fn listen(arena: &Arena) -> Result<(), crate::ArenaError> {
    let bus = arena.context.config.bus.clone();
    if !bus.is_shared() {
        return Ok(());
    }
    let mut changes = bus
        .subscribe(BOT_CHANGED.to_owned())
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
            let Some(bot) = std::str::from_utf8(&message.payload)
                .ok()
                .and_then(|text| text.parse::<BotId>().ok())
            else {
                continue;
            };
            if let Err(error) = arena.identities.reload(bot).await {
                tracing::warn!(bot, %error, "cannot read a bot another server changed");
            }
        }
    });
    Ok(())
}
