//! The message bus between the server nodes that share one store.
//!
//! Nodes tell each other what changed (a bot's token, a match's events) and ask each other to
//! act (a command for a match another node runs) through a [`Bus`]: subjects in NATS's
//! syntax (tokens separated by dots, `*` for one token and `>` for the rest in
//! subscriptions), publications heard by every subscriber at the moment they are sent and by
//! no one later, and requests answered by one subscriber. Nothing on the bus is durable: the
//! store is the record, and the bus only says where to look and whom to ask.
//!
//! [`LocalBus`] is the bus of a node alone (and of tests that run several arenas in one
//! process); `arbiter-bus-nats` carries the same trait over NATS. [`LinkedBus`] wraps a
//! shared bus and carries what is addressed to one node straight to it, on a TCP connection
//! of its own.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use bytes::Bytes;
use tokio::sync::mpsc;

pub mod conformance;
mod links;

pub use links::LinkedBus;

/// Messages a subscription holds before the newest are dropped (a subscriber that falls this
/// far behind has stopped reading).
pub const SUBSCRIPTION_QUEUE: usize = 4_096;

/// One message heard on the bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The subject it was published on.
    pub subject: String,
    /// Its bytes.
    pub payload: Bytes,
    /// Where to send the answer, for a request.
    pub reply: Option<String>,
}

/// Why the bus failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BusError {
    /// No one answered a request in time, or no one listens on its subject.
    #[error("no answer on {0}")]
    NoAnswer(String),
    /// The bus cannot be reached.
    #[error("the message bus is unavailable: {0}")]
    Unavailable(String),
}

/// The future every [`Bus`] method returns.
pub type BusFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, BusError>> + Send + 'a>>;

/// The messages a subscription hears, in the order they were published.
pub struct Subscription {
    source: Source,
}

/// Where a subscription's messages come from.
enum Source {
    Channel(mpsc::Receiver<Message>),
    /// Read straight from the implementation's own subscription, with no task in between:
    /// every message crossing servers saves a wake-up.
    Polled(Box<dyn MessageSource>),
}

/// A source of messages a bus implementation reads from its own subscription; dropping it
/// unsubscribes.
pub trait MessageSource: Send {
    /// The next message, or `None` once the subscription has ended.
    fn next_message(&mut self) -> Pin<Box<dyn Future<Output = Option<Message>> + Send + '_>>;
}

impl Subscription {
    /// A subscription fed through `receiver`, for bus implementations.
    pub fn new(receiver: mpsc::Receiver<Message>) -> Subscription {
        Subscription {
            source: Source::Channel(receiver),
        }
    }

    /// A subscription read from `source`, for bus implementations with subscriptions of
    /// their own.
    pub fn from_source(source: impl MessageSource + 'static) -> Subscription {
        Subscription {
            source: Source::Polled(Box::new(source)),
        }
    }

    /// The next message, or `None` once the bus has closed the subscription.
    pub async fn next(&mut self) -> Option<Message> {
        match &mut self.source {
            Source::Channel(receiver) => receiver.recv().await,
            Source::Polled(source) => source.next_message().await,
        }
    }
}

/// A message bus between nodes.
pub trait Bus: std::fmt::Debug + Send + Sync + 'static {
    /// Sends `payload` to every subscription whose pattern matches `subject`, on every node.
    fn publish(&self, subject: String, payload: Bytes) -> BusFuture<'_, ()>;

    /// Listens to the subjects `pattern` matches (`*` one token, `>` the rest), from now on.
    fn subscribe(&self, pattern: String) -> BusFuture<'_, Subscription>;

    /// Sends `payload` to one subscriber of `subject` and waits up to `timeout` for its
    /// answer, which it publishes on the message's [`Message::reply`] subject.
    fn request(&self, subject: String, payload: Bytes, timeout: Duration) -> BusFuture<'_, Bytes>;

    /// Whether other processes hear this bus: false for a [`LocalBus`], whose node is alone
    /// with its store (so that nothing needs to be said at all).
    fn is_shared(&self) -> bool;

    /// What this bus carried on direct links to other nodes, for the metrics; `None` for a
    /// bus without links.
    fn link_counts(&self) -> Option<LinkCounts> {
        None
    }
}

/// What a bus with direct links ([`LinkedBus`]) carried since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounts {
    /// Messages addressed to one node written on the link to it.
    pub sent: u64,
    /// Messages addressed to one node sent through the wrapped bus instead, because no link
    /// to it could be had: many of these mean the nodes cannot reach each other's links.
    pub fallbacks: u64,
}

/// Whether the subscription pattern `pattern` matches `subject`.
pub fn matches(pattern: &str, subject: &str) -> bool {
    let mut subject_tokens = subject.split('.');
    for token in pattern.split('.') {
        match (token, subject_tokens.next()) {
            (">", Some(_)) => return true,
            ("*", Some(_)) => {}
            (token, Some(s)) if token == s => {}
            _ => return false,
        }
    }
    subject_tokens.next().is_none()
}

/// Subscriptions held in this process, and the messages handed to those that match.
#[derive(Debug, Default)]
struct Registry {
    subscriptions: Mutex<Vec<(String, mpsc::Sender<Message>)>>,
}

impl Registry {
    fn register(&self, pattern: String, sender: mpsc::Sender<Message>) {
        self.subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((pattern, sender));
    }

    /// Hands `message` to every open subscription whose pattern matches its subject; whether
    /// there was one.
    fn deliver(&self, message: Message) -> bool {
        let mut heard = false;
        let mut subscriptions = self
            .subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A closed subscription is forgotten; a full one misses the message, as a slow
        // consumer on NATS does.
        subscriptions.retain(|(pattern, sender)| {
            if matches(pattern, &message.subject) {
                let open = !matches!(
                    sender.try_send(message.clone()),
                    Err(mpsc::error::TrySendError::Closed(_))
                );
                heard |= open;
                open
            } else {
                !sender.is_closed()
            }
        });
        heard
    }

    /// Whether an open subscription's pattern matches `subject`.
    fn listens(&self, subject: &str) -> bool {
        self.subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .any(|(pattern, sender)| !sender.is_closed() && matches(pattern, subject))
    }
}

/// The bus of the arenas of one process: a node alone, or the nodes of a test.
#[derive(Clone, Debug, Default)]
pub struct LocalBus {
    inner: Arc<LocalInner>,
}

#[derive(Debug, Default)]
struct LocalInner {
    registry: Registry,
    inboxes: AtomicU64,
    /// Whether it stands for a bus shared between nodes (a test's several arenas).
    shared: bool,
}

impl LocalBus {
    /// The bus of a node alone: [`Bus::is_shared`] is false, so the node says nothing on it.
    pub fn new() -> LocalBus {
        LocalBus::default()
    }

    /// A bus that several arenas of one process share as if they were nodes on NATS.
    pub fn shared() -> LocalBus {
        LocalBus {
            inner: Arc::new(LocalInner {
                shared: true,
                ..LocalInner::default()
            }),
        }
    }

    fn listen(&self, pattern: String) -> Subscription {
        let (sender, receiver) = mpsc::channel(SUBSCRIPTION_QUEUE);
        self.inner.registry.register(pattern, sender);
        Subscription::new(receiver)
    }
}

impl Bus for LocalBus {
    fn publish(&self, subject: String, payload: Bytes) -> BusFuture<'_, ()> {
        self.inner.registry.deliver(Message {
            subject,
            payload,
            reply: None,
        });
        Box::pin(std::future::ready(Ok(())))
    }

    fn subscribe(&self, pattern: String) -> BusFuture<'_, Subscription> {
        let subscription = self.listen(pattern);
        Box::pin(std::future::ready(Ok(subscription)))
    }

    fn request(&self, subject: String, payload: Bytes, timeout: Duration) -> BusFuture<'_, Bytes> {
        Box::pin(async move {
            let inbox = format!(
                "_INBOX.local.{}",
                self.inner.inboxes.fetch_add(1, Ordering::Relaxed)
            );
            let mut answers = self.listen(inbox.clone());
            if !self.inner.registry.listens(&subject) {
                return Err(BusError::NoAnswer(subject));
            }
            self.inner.registry.deliver(Message {
                subject: subject.clone(),
                payload,
                reply: Some(inbox),
            });
            match tokio::time::timeout(timeout, answers.next()).await {
                Ok(Some(answer)) => Ok(answer.payload),
                _ => Err(BusError::NoAnswer(subject)),
            }
        })
    }

    fn is_shared(&self) -> bool {
        self.inner.shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_nats_does() {
        let cases = [
            ("a.b.c", "a.b.c", true),
            ("a.b.c", "a.b", false),
            ("a.b", "a.b.c", false),
            ("a.*.c", "a.x.c", true),
            ("a.*", "a.x.c", false),
            ("a.>", "a.x.c", true),
            ("a.>", "a", false),
            (">", "anything.at.all", true),
        ];
        for (pattern, subject, expected) in cases {
            assert_eq!(matches(pattern, subject), expected, "{pattern} ~ {subject}");
        }
    }

    #[tokio::test]
    async fn the_local_bus_passes_the_conformance_suite() {
        conformance::check_all(Arc::new(LocalBus::shared())).await;
        assert!(!LocalBus::new().is_shared());
    }
}
