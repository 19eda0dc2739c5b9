//! A bot's event stream: opening it (a `hello`, then its open matches announced again, each
//! by its own actor) and closing it, either of which may change the bot's presence.

use std::sync::Arc;

use arbiter_store::BotKind;
use serde_json::json;

use super::{Matches, Registry};
use crate::actor::Command;
use crate::directory::Bot;
use crate::feed::{Line, Subscription};
use crate::identities::Identities;
use crate::{ArenaError, Clock};

/// One open event stream of a bot. Dropping it closes the stream.
pub struct BotStream {
    subscription: Subscription,
    identities: Arc<Identities>,
    registry: Arc<Registry>,
    clock: Arc<dyn Clock>,
}

impl BotStream {
    /// The next line, `None` once the stream has been dropped for falling behind.
    pub async fn next_line(&mut self) -> Option<Line> {
        self.subscription.lines.recv().await
    }
}

impl Drop for BotStream {
    fn drop(&mut self) {
        let bot = self.subscription.bot;
        self.identities.feeds.unsubscribe(bot, self.subscription.id);
        self.identities
            .directory
            .close_stream(bot, self.clock.now_ms());
        self.registry.presence_changed(bot);
    }
}

impl Matches {
    /// Opens an event stream for a bot; the first lines re-send its pending challenges and
    /// running matches (with any pending turns).
    pub(crate) async fn open_stream(&self, bot: &Bot) -> Result<BotStream, ArenaError> {
        let config = &self.context.config;
        let max = if bot.kind == BotKind::Anonymous {
            config.max_anonymous_streams
        } else {
            config.max_streams
        };
        let came_online = self
            .identities
            .directory
            .open_stream(bot.id, max, self.now())?;
        let (subscription, sender) = self.identities.feeds.subscribe(bot.id);
        let stream = BotStream {
            subscription,
            identities: self.identities.clone(),
            registry: self.registry.clone(),
            clock: self.context.clock.clone(),
        };
        let hello = json!({"type": "hello", "bot": {"id": bot.id, "name": bot.name}, "server_now_ms": self.now()});
        let _ = sender.try_send(Line::from(format!("{hello}\n")));
        for id in self.registry.open_of(bot.id) {
            if let Some((commands, _, _)) = self.registry.handle(id) {
                let _ = commands
                    .send(Command::Announce {
                        bot: bot.id,
                        stream: sender.clone(),
                    })
                    .await;
            }
        }
        if came_online {
            self.registry.presence_changed(bot.id);
        }
        Ok(stream)
    }
}
