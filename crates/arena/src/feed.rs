//! Per-bot feeds: the events each open stream of a bot receives.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use arbiter_store::BotId;
use tokio::sync::mpsc;

use crate::snapshot::StreamEvent;

/// Events a stream may have queued before it is considered stuck and closed (the client then
/// reconnects and is sent the current state).
const QUEUE: usize = 256;

/// The receiving end of one stream.
pub struct Subscription {
    /// The bot.
    pub bot: BotId,
    /// This stream's id among the bot's streams.
    pub id: u64,
    /// The events.
    pub events: mpsc::Receiver<StreamEvent>,
}

/// One open stream.
struct Open {
    id: u64,
    /// Whether it wants, with each event about a match, the match as the bot sees it.
    snapshots: bool,
    sender: mpsc::Sender<StreamEvent>,
}

#[derive(Default)]
struct Inner {
    streams: HashMap<BotId, Vec<Open>>,
    next: u64,
}

/// Every open stream, by bot.
#[derive(Default)]
pub struct Feeds {
    inner: Mutex<Inner>,
    /// How many open streams asked for snapshots: while there are none, which is the usual
    /// case, asking whether a bot wants them takes no lock on the hot path.
    snapshot_streams: AtomicUsize,
}

impl Feeds {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens a stream for `bot`. A stream that asks for `snapshots` receives with each event
    /// about a match the match as the bot sees it at that moment, for dialects whose clients
    /// are sent the whole match on every change; building one costs, so other streams do
    /// without.
    pub fn subscribe(
        &self,
        bot: BotId,
        snapshots: bool,
    ) -> (Subscription, mpsc::Sender<StreamEvent>) {
        let (sender, events) = mpsc::channel(QUEUE);
        if snapshots {
            self.snapshot_streams.fetch_add(1, Ordering::Relaxed);
        }
        let mut inner = self.lock();
        inner.next += 1;
        let id = inner.next;
        inner.streams.entry(bot).or_default().push(Open {
            id,
            snapshots,
            sender: sender.clone(),
        });
        (Subscription { bot, id, events }, sender)
    }

    /// Closes a stream.
    pub fn unsubscribe(&self, bot: BotId, id: u64) {
        let mut inner = self.lock();
        if let Some(list) = inner.streams.get_mut(&bot) {
            list.retain(|open| self.keep(open, open.id != id));
            if list.is_empty() {
                inner.streams.remove(&bot);
            }
        }
    }

    /// Sends an event to every stream of `bot`. A stream whose queue is full is dropped,
    /// which ends it; its client reconnects and receives the current state again.
    pub fn send(&self, bot: BotId, event: &StreamEvent) {
        let mut inner = self.lock();
        if let Some(list) = inner.streams.get_mut(&bot) {
            list.retain(|open| self.keep(open, open.sender.try_send(event.clone()).is_ok()));
            if list.is_empty() {
                inner.streams.remove(&bot);
            }
        }
    }

    /// Ends every stream of `bot` (its credentials changed: they must connect again).
    pub fn close(&self, bot: BotId) {
        let closed = self.lock().streams.remove(&bot);
        for open in closed.iter().flatten() {
            self.keep(open, false);
        }
    }

    /// Whether `open` stays, as `kept` says; a stream that asked for snapshots and goes is
    /// no longer counted.
    fn keep(&self, open: &Open, kept: bool) -> bool {
        if !kept && open.snapshots {
            self.snapshot_streams.fetch_sub(1, Ordering::Relaxed);
        }
        kept
    }

    /// Whether one of `bot`'s streams asked for snapshots.
    pub fn wants_snapshots(&self, bot: BotId) -> bool {
        if self.snapshot_streams.load(Ordering::Relaxed) == 0 {
            return false;
        }
        self.lock()
            .streams
            .get(&bot)
            .is_some_and(|list| list.iter().any(|open| open.snapshots))
    }

    /// How many streams are open, of every bot.
    pub fn open_count(&self) -> usize {
        self.lock().streams.values().map(Vec::len).sum()
    }

    /// Whether `bot` has a stream open.
    pub fn has_stream(&self, bot: BotId) -> bool {
        self.lock().streams.contains_key(&bot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(bot: BotId) -> StreamEvent {
        StreamEvent::Hello {
            bot,
            name: "x".to_owned(),
            server_now_ms: 0,
        }
    }

    fn greeted(event: Option<StreamEvent>) -> Option<BotId> {
        match event {
            Some(StreamEvent::Hello { bot, .. }) => Some(bot),
            _ => None,
        }
    }

    #[tokio::test]
    async fn events_reach_every_stream_of_the_bot_and_stuck_streams_are_dropped() {
        let feeds = Feeds::default();
        let (mut a, _) = feeds.subscribe(1, false);
        let (mut b, _) = feeds.subscribe(1, true);
        let (mut other, _) = feeds.subscribe(2, false);
        assert!(feeds.wants_snapshots(1));
        assert!(!feeds.wants_snapshots(2));
        feeds.send(1, &hello(1));
        assert_eq!(greeted(a.events.recv().await), Some(1));
        assert_eq!(greeted(b.events.recv().await), Some(1));
        assert!(other.events.try_recv().is_err());
        for _ in 0..=QUEUE {
            feeds.send(2, &hello(2));
        }
        assert!(!feeds.has_stream(2), "a stream that never reads is dropped");
        feeds.unsubscribe(1, b.id);
        assert!(!feeds.wants_snapshots(1), "the stream that asked has gone");
        assert_eq!(feeds.snapshot_streams.load(Ordering::Relaxed), 0);
        let (_, _) = feeds.subscribe(3, true);
        assert!(feeds.wants_snapshots(3));
        feeds.close(3);
        assert_eq!(
            feeds.snapshot_streams.load(Ordering::Relaxed),
            0,
            "closed streams go"
        );
        feeds.unsubscribe(1, a.id);
        assert!(!feeds.has_stream(1));
    }
}
