//! Per-bot feeds: the events each open stream of a bot receives, on this server and, through
//! the relay, on the other servers sharing the store.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use arbiter_store::BotId;
use tokio::sync::mpsc;

use crate::relay::Outgoing;
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

/// Another server's streams of one bot, as it last reported them.
struct Remote {
    node: Arc<str>,
    /// Whether one of them asked for snapshots.
    snapshots: bool,
    /// When the report lapses unless renewed (the arena's clock).
    until_ms: i64,
}

#[derive(Default)]
struct Inner {
    streams: HashMap<BotId, Vec<Open>>,
    /// The servers holding a stream of a bot, other than this one.
    remote: HashMap<BotId, Vec<Remote>>,
    next: u64,
}

/// Every open stream, by bot.
#[derive(Default)]
pub struct Feeds {
    inner: Mutex<Inner>,
    /// How many open streams, here or on another server, asked for snapshots: while there are
    /// none, which is the usual case, asking whether a bot wants them takes no lock on the hot
    /// path.
    snapshot_streams: AtomicUsize,
    /// Where events for other servers' streams, and news of this server's streams, go; unset
    /// while no other server shares the bus.
    relay: OnceLock<mpsc::Sender<Outgoing>>,
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
        self.report(&inner, bot, Some(id));
        (Subscription { bot, id, events }, sender)
    }

    /// Hands the relay the channel to the other servers.
    pub(crate) fn connect(&self, relay: mpsc::Sender<Outgoing>) {
        let _ = self.relay.set(relay);
    }

    /// Tells the other servers how many streams `bot` now holds here; `announce` names a new
    /// stream that the servers running the bot's matches are to send those matches again.
    fn report(&self, inner: &Inner, bot: BotId, announce: Option<u64>) {
        let Some(relay) = self.relay.get() else {
            return;
        };
        let list = inner.streams.get(&bot);
        let report = Outgoing::Streams {
            bot,
            streams: list.map_or(0, Vec::len),
            snapshots: list.is_some_and(|list| list.iter().any(|open| open.snapshots)),
            announce,
        };
        if relay.try_send(report).is_err() {
            // The periodic roll call repairs what a full queue loses.
            tracing::warn!(
                bot,
                "the relay to other servers is behind; a stream's news waits"
            );
        }
    }

    /// Closes a stream.
    pub fn unsubscribe(&self, bot: BotId, id: u64) {
        let mut inner = self.lock();
        if let Some(list) = inner.streams.get_mut(&bot) {
            list.retain(|open| self.keep(open, open.id != id));
            if list.is_empty() {
                inner.streams.remove(&bot);
            }
            self.report(&inner, bot, None);
        }
    }

    /// Sends an event to every stream of `bot`, here and on the other servers. A stream whose
    /// queue is full is dropped, which ends it; its client reconnects and receives the current
    /// state again.
    pub fn send(&self, bot: BotId, event: &StreamEvent) {
        let mut inner = self.lock();
        self.send_here(&mut inner, bot, None, event);
        if let (Some(relay), Some(remote)) = (self.relay.get(), inner.remote.get(&bot)) {
            for remote in remote {
                let event = if remote.snapshots {
                    event.clone()
                } else {
                    event.without_snapshot()
                };
                let out = Outgoing::Feed {
                    node: remote.node.clone(),
                    bot,
                    stream: None,
                    event,
                };
                if relay.try_send(out).is_err() {
                    tracing::warn!(
                        bot,
                        "the relay to other servers is behind; an event is lost"
                    );
                }
            }
        }
    }

    /// Sends an event that came from another server to `bot`'s streams here: to all of them,
    /// or only to `stream`.
    pub(crate) fn send_relayed(&self, bot: BotId, stream: Option<u64>, event: &StreamEvent) {
        let mut inner = self.lock();
        self.send_here(&mut inner, bot, stream, event);
    }

    fn send_here(&self, inner: &mut Inner, bot: BotId, only: Option<u64>, event: &StreamEvent) {
        let Some(list) = inner.streams.get_mut(&bot) else {
            return;
        };
        let before = list.len();
        list.retain(|open| {
            let sent =
                only.is_some_and(|id| id != open.id) || open.sender.try_send(event.clone()).is_ok();
            self.keep(open, sent)
        });
        if list.is_empty() {
            inner.streams.remove(&bot);
        }
        if inner.streams.get(&bot).map_or(0, Vec::len) != before {
            self.report(inner, bot, None);
        }
    }

    /// Ends every stream of `bot` (its credentials changed: they must connect again).
    pub fn close(&self, bot: BotId) {
        let mut inner = self.lock();
        let closed = inner.streams.remove(&bot);
        for open in closed.iter().flatten() {
            self.keep(open, false);
        }
        if closed.is_some() {
            self.report(&inner, bot, None);
        }
    }

    /// Notes what server `node` reports of `bot`'s streams there, valid until `until_ms`.
    /// Returns whether the bot went from having no stream on another server to having one,
    /// or back.
    pub(crate) fn note_remote(
        &self,
        node: &str,
        bot: BotId,
        streams: usize,
        snapshots: bool,
        until_ms: i64,
    ) -> bool {
        let mut inner = self.lock();
        let list = inner.remote.entry(bot).or_default();
        let before = !list.is_empty();
        list.retain(|remote| {
            let kept = &*remote.node != node;
            if !kept && remote.snapshots {
                self.snapshot_streams.fetch_sub(1, Ordering::Relaxed);
            }
            kept
        });
        if streams > 0 {
            if snapshots {
                self.snapshot_streams.fetch_add(1, Ordering::Relaxed);
            }
            list.push(Remote {
                node: Arc::from(node),
                snapshots,
                until_ms,
            });
        }
        let after = !list.is_empty();
        if !after {
            inner.remote.remove(&bot);
        }
        before != after
    }

    /// Forgets every report that lapsed before `now_ms` (its server stopped reporting: it is
    /// gone, or cut off), and the reports of `node` about bots not in `listed` when `node` is
    /// given (its roll call). Returns the bots that no longer have a stream elsewhere.
    pub(crate) fn forget_remote(&self, now_ms: i64, roll: Option<(&str, &[BotId])>) -> Vec<BotId> {
        let mut inner = self.lock();
        let mut gone = Vec::new();
        inner.remote.retain(|&bot, list| {
            list.retain(|remote| {
                let lapsed = remote.until_ms < now_ms
                    || roll.is_some_and(|(node, listed)| {
                        *remote.node == *node && !listed.contains(&bot)
                    });
                if lapsed && remote.snapshots {
                    self.snapshot_streams.fetch_sub(1, Ordering::Relaxed);
                }
                !lapsed
            });
            if list.is_empty() {
                gone.push(bot);
            }
            !list.is_empty()
        });
        gone
    }

    /// Every bot with a stream here: how many, and whether one asked for snapshots.
    pub(crate) fn local_streams(&self) -> Vec<(BotId, usize, bool)> {
        self.lock()
            .streams
            .iter()
            .map(|(&bot, list)| (bot, list.len(), list.iter().any(|open| open.snapshots)))
            .collect()
    }

    /// Whether `open` stays, as `kept` says; a stream that asked for snapshots and goes is
    /// no longer counted.
    fn keep(&self, open: &Open, kept: bool) -> bool {
        if !kept && open.snapshots {
            self.snapshot_streams.fetch_sub(1, Ordering::Relaxed);
        }
        kept
    }

    /// Whether one of `bot`'s streams, here or elsewhere, asked for snapshots.
    pub fn wants_snapshots(&self, bot: BotId) -> bool {
        if self.snapshot_streams.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let inner = self.lock();
        inner
            .streams
            .get(&bot)
            .is_some_and(|list| list.iter().any(|open| open.snapshots))
            || inner
                .remote
                .get(&bot)
                .is_some_and(|list| list.iter().any(|remote| remote.snapshots))
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

    #[test]
    fn other_servers_streams_count_until_they_lapse_or_leave_the_roll() {
        let feeds = Feeds::default();
        assert!(
            feeds.note_remote("b", 1, 1, false, 100),
            "bot 1 now streams elsewhere"
        );
        assert!(
            !feeds.note_remote("c", 1, 2, true, 100),
            "still elsewhere: no change"
        );
        assert!(feeds.wants_snapshots(1), "c's stream asked for snapshots");
        assert!(feeds.note_remote("b", 2, 1, false, 50));
        // c's roll call no longer lists bot 1; b's report of bot 2 lapsed.
        assert_eq!(feeds.forget_remote(60, Some(("c", &[]))), vec![2]);
        assert!(!feeds.wants_snapshots(1), "c's stream is forgotten");
        assert_eq!(feeds.snapshot_streams.load(Ordering::Relaxed), 0);
        assert!(
            feeds.note_remote("b", 1, 0, false, 100),
            "b's last stream of bot 1 closed"
        );
        assert!(feeds.forget_remote(0, None).is_empty());
    }
}
