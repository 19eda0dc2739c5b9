//! Direct links between nodes: messages addressed to one node carried to it on a TCP
//! connection of their own, beside any other bus.
//!
//! A subject `{prefix}.{node}.…` is addressed to the node `node`, and only that node
//! subscribes to it. [`LinkedBus`] wraps another bus (NATS) and carries publications and
//! requests on such subjects straight to their node, rather than through the broker: a
//! message crosses one process boundary instead of two, and the broker does no work for it.
//! Every other subject goes through the wrapped bus unchanged.
//!
//! A node learns another's link address by asking it on the wrapped bus
//! (`{prefix}.{node}._link`), and presents the secret it was told there when it connects: the
//! links are open to whoever may use the wrapped bus, and to no one else. A node sends to
//! each other node on one connection, one whole frame at a time, so that messages from one
//! node to another arrive in the order they were sent; answers to requests come back on the
//! answering node's own connection, and a request whose link closes fails at once. When a
//! link cannot be made, or breaks, messages go through the wrapped bus instead, where the
//! addressee listens too: nothing is lost that the wrapped bus would not lose, though a
//! message sent just after a link broke may overtake one sent just before.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use rand::TryRng;
use subtle::ConstantTimeEq;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};

use crate::{
    Bus, BusError, BusFuture, LinkCounts, Message, Registry, SUBSCRIPTION_QUEUE, Subscription,
};

/// The first line a connecting node writes, before its name and the secret.
const GREETING: &str = "arbiter-link/1";

/// How long making a link may take: asking for the address, connecting, being let in.
const DIAL_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a node that could not be linked to is reached through the wrapped bus before it
/// is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// How long one frame may wait to be written to a node that is not reading before the link is
/// given up (and the frame sent through the wrapped bus).
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

/// The largest frame read from a link (a forwarded request with its body, with room).
const MAX_FRAME: usize = 64 << 20;

/// A frame carrying a message.
const KIND_MESSAGE: u8 = 0;
/// A frame saying that no one on the node listens on the subject of a request; its subject is
/// the request's reply subject.
const KIND_NO_ANSWER: u8 = 1;

/// A [`Bus`] that carries messages addressed to one node on direct links, and everything else
/// on the bus it wraps.
#[derive(Clone, Debug)]
pub struct LinkedBus {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    inner: Arc<dyn Bus>,
    /// `{prefix}.`: what every node-addressed subject starts with.
    prefix: String,
    /// `{prefix}.{node}.`: what the subjects addressed to this node start with.
    own: String,
    node: String,
    /// The secret a node must present to link to this one.
    secret: String,
    /// The address other nodes reach this one's links at.
    advertised: SocketAddr,
    /// This node's own subscriptions to subjects addressed to it.
    local: Registry,
    links: Mutex<HashMap<String, Arc<Slot>>>,
    /// Requests sent on links and waiting for their answers, by number.
    pending: Mutex<HashMap<u64, Pending>>,
    next_request: AtomicU64,
    /// Messages written on links.
    sent: AtomicU64,
    /// Messages addressed to another node sent through the wrapped bus for want of a link.
    fallbacks: AtomicU64,
    /// Itself, for the tasks it starts.
    me: Weak<Shared>,
    /// Dropped with the bus: its links and listener close, as when a process ends.
    closing: watch::Sender<()>,
}

/// A request sent on a link, waiting for its answer.
#[derive(Debug)]
struct Pending {
    /// The node it was sent to: if its link closes, no answer will come.
    node: String,
    answer: oneshot::Sender<Result<Bytes, BusError>>,
}

/// The link to one other node, made when first needed.
#[derive(Debug, Default)]
struct Slot {
    /// The link, while it is up.
    link: Mutex<Option<Arc<Link>>>,
    /// Held while the link is being made, with when the last try failed.
    dialing: tokio::sync::Mutex<Option<Instant>>,
}

impl Slot {
    fn current(&self) -> Option<Arc<Link>> {
        let link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
        link.as_ref().filter(|link| !link.is_down()).cloned()
    }
}

/// A connection to another node, written by whoever sends on it: one frame at a time, in the
/// order the senders took the lock, each written whole with no task in between.
#[derive(Debug)]
struct Link {
    write: tokio::sync::Mutex<tokio::net::tcp::OwnedWriteHalf>,
    /// Set when the other node closed the connection or a write failed.
    down: Arc<std::sync::atomic::AtomicBool>,
}

impl Link {
    fn is_down(&self) -> bool {
        self.down.load(Ordering::Acquire)
    }

    /// Writes `frame`; false, with the link down, when it cannot be written whole in time.
    async fn send(&self, frame: &[u8]) -> bool {
        let mut write = self.write.lock().await;
        if self.is_down() {
            return false;
        }
        let written = tokio::time::timeout(WRITE_TIMEOUT, write.write_all(frame)).await;
        if matches!(written, Ok(Ok(()))) {
            return true;
        }
        // A frame may have been cut short: nothing more can be written on this connection.
        self.down.store(true, Ordering::Release);
        let _ = write.shutdown().await;
        false
    }
}

impl LinkedBus {
    /// Wraps `inner` for the node `node`, whose links are accepted on `listener` and reached by
    /// other nodes at `advertised`; subjects `{prefix}.{node}.…` are addressed to `node`.
    pub async fn start(
        inner: Arc<dyn Bus>,
        prefix: &str,
        node: &str,
        listener: TcpListener,
        advertised: SocketAddr,
    ) -> Result<LinkedBus, BusError> {
        let mut secret = [0u8; 16];
        rand::rngs::SysRng
            .try_fill_bytes(&mut secret)
            .map_err(|error| BusError::Unavailable(format!("no randomness: {error}")))?;
        let shared = Arc::new_cyclic(|me| Shared {
            inner: inner.clone(),
            prefix: format!("{prefix}."),
            own: format!("{prefix}.{node}."),
            node: node.to_owned(),
            secret: secret.iter().map(|b| format!("{b:02x}")).collect(),
            advertised,
            local: Registry::default(),
            links: Mutex::default(),
            pending: Mutex::default(),
            next_request: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            me: me.clone(),
            closing: watch::channel(()).0,
        });
        // Answers that came back through the wrapped bus, from a node that could not link to
        // this one.
        let mut answers = inner.subscribe(format!("{}_reply.>", shared.own)).await?;
        let weak = Arc::downgrade(&shared);
        tokio::spawn(async move {
            while let Some(answer) = answers.next().await {
                let Some(shared) = weak.upgrade() else { break };
                shared.answered(&answer.subject, Ok(answer.payload));
            }
        });
        let mut asked = inner.subscribe(format!("{}_link", shared.own)).await?;
        let weak = Arc::downgrade(&shared);
        tokio::spawn(async move {
            while let Some(ask) = asked.next().await {
                let Some(shared) = weak.upgrade() else { break };
                if let Some(reply) = ask.reply {
                    let address = format!("{} {}", shared.advertised, shared.secret);
                    let _ = shared.inner.publish(reply, Bytes::from(address)).await;
                }
            }
        });
        tokio::spawn(accept(
            Arc::downgrade(&shared),
            shared.closing.subscribe(),
            listener,
        ));
        Ok(LinkedBus { shared })
    }

    /// The address other nodes reach this node's links at.
    pub fn advertised(&self) -> SocketAddr {
        self.shared.advertised
    }
}

impl Shared {
    /// The node a subject is addressed to, if it is addressed to one.
    fn addressee<'s>(&self, subject: &'s str) -> Option<&'s str> {
        let rest = subject.strip_prefix(self.prefix.as_str())?;
        let (node, tail) = rest.split_once('.')?;
        (!tail.is_empty()).then_some(node)
    }

    /// Resolves the request whose reply subject is `subject`, if it is one of this node's.
    fn answered(&self, subject: &str, answer: Result<Bytes, BusError>) -> bool {
        let Some(id) = subject
            .strip_prefix(self.own.as_str())
            .and_then(|rest| rest.strip_prefix("_reply."))
            .and_then(|id| id.parse::<u64>().ok())
        else {
            return false;
        };
        let waiting = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        if let Some(waiting) = waiting {
            let _ = waiting.answer.send(answer);
        }
        true
    }

    /// Fails at once the requests waiting on `node`, whose link closed: no answer will come.
    fn link_lost(&self, node: &str) {
        let lost: Vec<Pending> = {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            let ids: Vec<u64> = pending
                .iter()
                .filter(|(_, waiting)| waiting.node == node)
                .map(|(&id, _)| id)
                .collect();
            ids.iter().filter_map(|id| pending.remove(id)).collect()
        };
        for waiting in lost {
            let why = format!("the link to {node} closed before it answered");
            let _ = waiting.answer.send(Err(BusError::Unavailable(why)));
        }
    }

    /// Hands a message addressed to this node to its subscriptions; a request no one here
    /// listens to is told so, for its sender to give up at once.
    async fn deliver(&self, message: Message) {
        if self.answered(&message.subject, Ok(message.payload.clone())) {
            return;
        }
        let subject = message.subject.clone();
        let reply = message.reply.clone();
        if !self.local.deliver(message)
            && let Some(reply) = reply
            && let Some(node) = self.addressee(&reply)
        {
            let frame = frame(KIND_NO_ANSWER, &reply, None, &[]);
            if !self.send_direct(node, frame).await {
                tracing::debug!(%subject, "a request no one here listens to");
            }
        }
    }

    /// Writes `frame` on the link to `node`, making the link first if need be; false when
    /// there is no link to be had or it broke.
    async fn send_direct(&self, node: &str, frame: Bytes) -> bool {
        let sent = match self.link_to(node).await {
            Some(link) => link.send(&frame).await,
            None => false,
        };
        if sent {
            self.sent.fetch_add(1, Ordering::Relaxed);
        }
        sent
    }

    /// Counts a message addressed to another node sent through the wrapped bus.
    fn fell_back(&self) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
    }

    /// The link to `node`, made now if there is none.
    async fn link_to(&self, node: &str) -> Option<Arc<Link>> {
        let slot = {
            let mut links = self.links.lock().unwrap_or_else(PoisonError::into_inner);
            links.entry(node.to_owned()).or_default().clone()
        };
        if let Some(link) = slot.current() {
            return Some(link);
        }
        let mut failed = slot.dialing.lock().await;
        if let Some(link) = slot.current() {
            return Some(link);
        }
        if failed.is_some_and(|at| at.elapsed() < RETRY_AFTER) {
            return None;
        }
        match tokio::time::timeout(DIAL_TIMEOUT, self.dial(node)).await {
            Ok(Ok(link)) => {
                *failed = None;
                *slot.link.lock().unwrap_or_else(PoisonError::into_inner) = Some(link.clone());
                Some(link)
            }
            Ok(Err(error)) => {
                tracing::warn!(%node, %error, "no direct link; using the message bus");
                *failed = Some(Instant::now());
                None
            }
            Err(_) => {
                tracing::warn!(%node, "no direct link in time; using the message bus");
                *failed = Some(Instant::now());
                None
            }
        }
    }

    /// Asks `node` for its link address and secret, connects, and starts the task that
    /// notices when the other node closes it.
    async fn dial(&self, node: &str) -> Result<Arc<Link>, BusError> {
        let subject = format!("{}{node}._link", self.prefix);
        let answer = self
            .inner
            .request(subject, Bytes::new(), DIAL_TIMEOUT)
            .await?;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let broken = || BusError::Unavailable(format!("link: an unreadable address from {node}"));
        let (address, secret) = answer.split_once(' ').ok_or_else(broken)?;
        let address: SocketAddr = address.parse().map_err(|_| broken())?;
        let unavailable = |error: std::io::Error| {
            BusError::Unavailable(format!("link to {node} at {address}: {error}"))
        };
        let stream = TcpStream::connect(address).await.map_err(unavailable)?;
        stream.set_nodelay(true).map_err(unavailable)?;
        let (read, mut write) = stream.into_split();
        write
            .write_all(format!("{GREETING} {} {secret}\n", self.node).as_bytes())
            .await
            .map_err(unavailable)?;
        let mut read = BufReader::new(read);
        let mut welcome = String::new();
        (&mut read)
            .take(64)
            .read_line(&mut welcome)
            .await
            .map_err(unavailable)?;
        if welcome.trim_end() != "ok" {
            return Err(BusError::Unavailable(format!(
                "link to {node} at {address}: refused"
            )));
        }
        let link = Arc::new(Link {
            write: tokio::sync::Mutex::new(write),
            down: Arc::default(),
        });
        let (down, me, node) = (link.down.clone(), self.me.clone(), node.to_owned());
        let mut closing = self.closing.subscribe();
        tokio::spawn(async move {
            // The other node never writes after its welcome: a read ends only when it closes.
            let mut scratch = [0u8; 64];
            let closed = async { while matches!(read.read(&mut scratch).await, Ok(n) if n > 0) {} };
            tokio::select! {
                () = closed => {}
                _ = closing.changed() => {}
            }
            down.store(true, Ordering::Release);
            if let Some(shared) = me.upgrade() {
                shared.link_lost(&node);
            }
        });
        Ok(link)
    }
}

/// Encodes one frame: its length, kind, subject, reply subject and payload.
fn frame(kind: u8, subject: &str, reply: Option<&str>, payload: &[u8]) -> Bytes {
    let reply = reply.unwrap_or("");
    let length = 1 + 2 + subject.len() + 2 + reply.len() + payload.len();
    let mut bytes = BytesMut::with_capacity(4 + length);
    bytes.put_u32(u32::try_from(length).unwrap_or(u32::MAX));
    bytes.put_u8(kind);
    bytes.put_u16(u16::try_from(subject.len()).unwrap_or(u16::MAX));
    bytes.put_slice(subject.as_bytes());
    bytes.put_u16(u16::try_from(reply.len()).unwrap_or(u16::MAX));
    bytes.put_slice(reply.as_bytes());
    bytes.put_slice(payload);
    bytes.freeze()
}

/// Decodes a frame's body (after its length): its kind and message.
fn unframe(mut body: Bytes) -> Option<(u8, Message)> {
    let text = |body: &mut Bytes| -> Option<String> {
        if body.remaining() < 2 {
            return None;
        }
        let length = usize::from(body.get_u16());
        if body.remaining() < length {
            return None;
        }
        String::from_utf8(body.split_to(length).to_vec()).ok()
    };
    if body.remaining() < 1 {
        return None;
    }
    let kind = body.get_u8();
    let subject = text(&mut body)?;
    let reply = text(&mut body)?;
    Some((
        kind,
        Message {
            subject,
            payload: body,
            reply: (!reply.is_empty()).then_some(reply),
        },
    ))
}

/// Accepts links from other nodes for as long as the bus lives.
async fn accept(shared: Weak<Shared>, mut closing: watch::Receiver<()>, listener: TcpListener) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = closing.changed() => break,
        };
        let Ok((stream, peer)) = accepted else {
            // Out of descriptors, say: try again shortly rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let (shared, mut closed) = (shared.clone(), closing.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = read_link(shared, stream, peer) => {}
                _ = closed.changed() => {}
            }
        });
    }
}

/// Reads one node's link: its greeting, then its frames, until it closes or breaks the
/// protocol.
async fn read_link(shared: Weak<Shared>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut greeting = String::new();
    let greeted =
        tokio::time::timeout(DIAL_TIMEOUT, (&mut read).take(256).read_line(&mut greeting))
            .await
            .is_ok_and(|read| read.is_ok());
    let from = {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let mut words = greeting.split_whitespace();
        let (greeting, from, secret) = (words.next(), words.next(), words.next());
        let admitted = greeted
            && greeting == Some(GREETING)
            && secret.is_some_and(|secret| {
                bool::from(secret.as_bytes().ct_eq(shared.secret.as_bytes()))
            });
        if !admitted {
            tracing::warn!(%peer, "refused a link without the right greeting");
            let _ = write.write_all(b"refused\n").await;
            return;
        }
        from.unwrap_or("").to_owned()
    };
    if write.write_all(b"ok\n").await.is_err() {
        return;
    }
    let mut length = [0u8; 4];
    loop {
        if read.read_exact(&mut length).await.is_err() {
            break;
        }
        let length = u32::from_be_bytes(length) as usize;
        if length > MAX_FRAME {
            tracing::warn!(node = %from, length, "a frame too large on a link; closing it");
            break;
        }
        let mut body = vec![0u8; length];
        if read.read_exact(&mut body).await.is_err() {
            break;
        }
        let Some(shared) = shared.upgrade() else {
            break;
        };
        match unframe(Bytes::from(body)) {
            Some((KIND_MESSAGE, message)) => shared.deliver(message).await,
            Some((KIND_NO_ANSWER, message)) => {
                let no_answer = Err(BusError::NoAnswer(message.subject.clone()));
                shared.answered(&message.subject, no_answer);
            }
            _ => {
                tracing::warn!(node = %from, "an unreadable frame on a link; closing it");
                break;
            }
        }
    }
    // Closing tells the other node that the link is down.
    drop(write);
}

impl Bus for LinkedBus {
    fn publish(&self, subject: String, payload: Bytes) -> BusFuture<'_, ()> {
        Box::pin(async move {
            let shared = &self.shared;
            match shared.addressee(&subject) {
                Some(node) if node == shared.node => {
                    shared
                        .deliver(Message {
                            subject,
                            payload,
                            reply: None,
                        })
                        .await;
                    Ok(())
                }
                Some(node) => {
                    let frame = frame(KIND_MESSAGE, &subject, None, &payload);
                    if shared.send_direct(node, frame).await {
                        Ok(())
                    } else {
                        shared.fell_back();
                        shared.inner.publish(subject, payload).await
                    }
                }
                None => shared.inner.publish(subject, payload).await,
            }
        })
    }

    fn subscribe(&self, pattern: String) -> BusFuture<'_, Subscription> {
        Box::pin(async move {
            let shared = &self.shared;
            if !pattern.starts_with(shared.own.as_str()) {
                return shared.inner.subscribe(pattern).await;
            }
            // Heard on the links and, from nodes that cannot link here, on the wrapped bus.
            let mut fallback = shared.inner.subscribe(pattern.clone()).await?;
            let (sender, receiver) = mpsc::channel(SUBSCRIPTION_QUEUE);
            shared.local.register(pattern, sender.clone());
            tokio::spawn(async move {
                loop {
                    let message = tokio::select! {
                        message = fallback.next() => message,
                        () = sender.closed() => None,
                    };
                    let Some(message) = message else { break };
                    if sender.send(message).await.is_err() {
                        break;
                    }
                }
            });
            Ok(Subscription::new(receiver))
        })
    }

    fn request(&self, subject: String, payload: Bytes, timeout: Duration) -> BusFuture<'_, Bytes> {
        Box::pin(async move {
            let shared = &self.shared;
            let node = match shared.addressee(&subject) {
                Some(node) if node != shared.node => node,
                _ => return shared.inner.request(subject, payload, timeout).await,
            };
            let id = shared.next_request.fetch_add(1, Ordering::Relaxed);
            let reply = format!("{}_reply.{id}", shared.own);
            let (answer, answered) = oneshot::channel();
            let pending = || {
                shared
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
            };
            let node_name = node.to_owned();
            pending().insert(
                id,
                Pending {
                    node: node_name,
                    answer,
                },
            );
            let frame = frame(KIND_MESSAGE, &subject, Some(&reply), &payload);
            if !shared.send_direct(node, frame).await {
                pending().remove(&id);
                shared.fell_back();
                return shared.inner.request(subject, payload, timeout).await;
            }
            match tokio::time::timeout(timeout, answered).await {
                Ok(Ok(answer)) => answer,
                _ => {
                    pending().remove(&id);
                    Err(BusError::NoAnswer(subject))
                }
            }
        })
    }

    fn is_shared(&self) -> bool {
        self.shared.inner.is_shared()
    }

    fn link_counts(&self) -> Option<LinkCounts> {
        Some(LinkCounts {
            sent: self.shared.sent.load(Ordering::Relaxed),
            fallbacks: self.shared.fallbacks.load(Ordering::Relaxed),
        })
    }
}

#[cfg(test)]
mod tests;
