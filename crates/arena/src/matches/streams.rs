//! A bot's event stream: opening it (a `hello`, then its open matches announced again, each
//! by its own actor) and closing it, either of which may change the bot's presence. The
//! stream carries typed events; the server's codecs render them.

use std::sync::Arc;

use arbiter_store::{BotId, BotKind};
use tokio::sync::mpsc;

use super::{Matches, Registry};
use crate::actor::Command;
use crate::directory::Bot;
use crate::feed::Subscription;
use crate::identities::Identities;
use crate::snapshot::StreamEvent;
use crate::{ArenaError, Clock};

/// One open event stream of a bot. Dropping it closes the stream.
pub struct BotStream {
    subscription: Subscription,
    identities: Arc<Identities>,
    registry: Arc<Registry>,
    clock: Arc<dyn Clock>,
}

impl BotStream {
    /// The next event, `None` once the stream has been dropped for falling behind.
    pub async fn next_event(&mut self) -> Option<StreamEvent> {
        self.subscription.events.recv().await
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
    /// Opens an event stream for a bot; the first events re-send its pending challenges and
    /// running matches (with any pending decisions). With `snapshots`, each event about a
    /// match carries the match as the bot sees it (see [`crate::feed::Feeds::subscribe`]).
    pub(crate) async fn open_stream(
        &self,
        bot: &Bot,
        snapshots: bool,
    ) -> Result<BotStream, ArenaError> {
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
        let (subscription, sender) = self.identities.feeds.subscribe(bot.id, snapshots);
        let stream = BotStream {
            subscription,
            identities: self.identities.clone(),
            registry: self.registry.clone(),
            clock: self.context.clock.clone(),
        };
        let _ = sender.try_send(StreamEvent::Hello {
            bot: bot.id,
            name: bot.name.clone(),
            server_now_ms: self.now(),
        });
        self.announce_open(bot.id, &sender, snapshots).await;
        if came_online {
            self.registry.presence_changed(bot.id);
        }
        Ok(stream)
    }

    /// Has each open match of `bot` that this server runs send `stream` where it stands
    /// (with the match as the bot sees it when `snapshots`), and any decision the bot owes.
    pub(crate) async fn announce_open(
        &self,
        bot: BotId,
        stream: &mpsc::Sender<StreamEvent>,
        snapshots: bool,
    ) {
        for id in self.registry.open_of(bot) {
            if let Some((commands, _, _)) = self.registry.handle(id) {
                let _ = commands
                    .send(Command::Announce {
                        bot,
                        stream: stream.clone(),
                        snapshots,
                    })
                    .await;
            }
        }
    }

    /// Notes that another server holds a stream of `bot`, or no longer does.
    pub(crate) fn note_remote_stream(&self, bot: BotId, held: bool) {
        self.identities
            .directory
            .note_remote_stream(bot, held, self.now());
        self.registry.presence_changed(bot);
    }
}
