//! Per-bot feeds: the lines each open stream of a bot receives.

use std::collections::HashMap;
use std::sync::Mutex;

use arbiter_store::BotId;
use tokio::sync::mpsc;

/// Lines a stream may have queued before it is considered stuck and closed (the client then
/// reconnects and is sent the current state).
const QUEUE: usize = 256;

/// One NDJSON line, shared by every stream it goes to and handed to the HTTP body as it is,
/// without a copy: a turn line is two kilobytes in mid-game.
pub type Line = bytes::Bytes;

/// The receiving end of one stream.
pub struct Subscription {
    /// The bot.
    pub bot: BotId,
    /// This stream's id among the bot's streams.
    pub id: u64,
    /// The lines.
    pub lines: mpsc::Receiver<Line>,
}

#[derive(Default)]
struct Inner {
    streams: HashMap<BotId, Vec<(u64, mpsc::Sender<Line>)>>,
    next: u64,
}

/// Every open stream, by bot.
#[derive(Default)]
pub struct Feeds {
    inner: Mutex<Inner>,
}

impl Feeds {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens a stream for `bot`.
    pub fn subscribe(&self, bot: BotId) -> (Subscription, mpsc::Sender<Line>) {
        let (sender, lines) = mpsc::channel(QUEUE);
        let mut inner = self.lock();
        inner.next += 1;
        let id = inner.next;
        inner
            .streams
            .entry(bot)
            .or_default()
            .push((id, sender.clone()));
        (Subscription { bot, id, lines }, sender)
    }

    /// Closes a stream.
    pub fn unsubscribe(&self, bot: BotId, id: u64) {
        let mut inner = self.lock();
        if let Some(list) = inner.streams.get_mut(&bot) {
            list.retain(|(i, _)| *i != id);
            if list.is_empty() {
                inner.streams.remove(&bot);
            }
        }
    }

    /// Sends a line to every stream of `bot`. A stream whose queue is full is dropped, which
    /// ends it; its client reconnects and receives the current state again.
    pub fn send(&self, bot: BotId, line: &Line) {
        let mut inner = self.lock();
        if let Some(list) = inner.streams.get_mut(&bot) {
            list.retain(|(_, sender)| sender.try_send(line.clone()).is_ok());
            if list.is_empty() {
                inner.streams.remove(&bot);
            }
        }
    }

    /// Ends every stream of `bot` (its credentials changed: they must connect again).
    pub fn close(&self, bot: BotId) {
        self.lock().streams.remove(&bot);
    }

    /// Whether `bot` has a stream open.
    pub fn has_stream(&self, bot: BotId) -> bool {
        self.lock().streams.contains_key(&bot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_reach_every_stream_of_the_bot_and_stuck_streams_are_dropped() {
        let feeds = Feeds::default();
        let (mut a, _) = feeds.subscribe(1);
        let (mut b, _) = feeds.subscribe(1);
        let (mut other, _) = feeds.subscribe(2);
        feeds.send(1, &Line::from("hello"));
        assert_eq!(a.lines.recv().await.as_deref(), Some(&b"hello"[..]));
        assert_eq!(b.lines.recv().await.as_deref(), Some(&b"hello"[..]));
        assert!(other.lines.try_recv().is_err());
        for _ in 0..=QUEUE {
            feeds.send(2, &Line::from("x"));
        }
        assert!(!feeds.has_stream(2), "a stream that never reads is dropped");
        feeds.unsubscribe(1, a.id);
        feeds.unsubscribe(1, b.id);
        assert!(!feeds.has_stream(1));
    }
}
