use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::*;
use crate::LocalBus;

/// A shared bus that counts what goes through it, to tell messages carried on links from
/// messages carried by the broker.
#[derive(Debug)]
struct Counted {
    bus: LocalBus,
    publications: AtomicUsize,
    requests: AtomicUsize,
}

impl Counted {
    fn new() -> Arc<Counted> {
        Arc::new(Counted {
            bus: LocalBus::shared(),
            publications: AtomicUsize::new(0),
            requests: AtomicUsize::new(0),
        })
    }

    fn publications(&self) -> usize {
        self.publications.load(Ordering::SeqCst)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl Bus for Counted {
    fn publish(&self, subject: String, payload: Bytes) -> BusFuture<'_, ()> {
        // The answers to link addresses are the broker's own business: not counted.
        if !subject.starts_with("_INBOX") {
            self.publications.fetch_add(1, Ordering::SeqCst);
        }
        self.bus.publish(subject, payload)
    }

    fn subscribe(&self, pattern: String) -> BusFuture<'_, Subscription> {
        self.bus.subscribe(pattern)
    }

    fn request(&self, subject: String, payload: Bytes, timeout: Duration) -> BusFuture<'_, Bytes> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        self.bus.request(subject, payload, timeout)
    }

    fn is_shared(&self) -> bool {
        true
    }
}

async fn node(inner: &Arc<Counted>, name: &str) -> LinkedBus {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let advertised = listener.local_addr().expect("address");
    LinkedBus::start(inner.clone(), "n", name, listener, advertised)
        .await
        .expect("start")
}

async fn next(subscription: &mut Subscription) -> Message {
    tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("a message in time")
        .expect("open")
}

#[tokio::test]
async fn a_linked_bus_passes_the_conformance_suite() {
    let inner = Counted::new();
    crate::conformance::check_all(Arc::new(node(&inner, "a").await)).await;
}

#[tokio::test]
async fn messages_to_a_node_go_on_its_link_in_order() {
    let inner = Counted::new();
    let (a, b) = (node(&inner, "a").await, node(&inner, "b").await);
    let mut feed = b.subscribe("n.b.feed".into()).await.expect("subscribe");
    for n in 0..1_000 {
        a.publish("n.b.feed".into(), Bytes::from(format!("{n}")))
            .await
            .expect("publish");
    }
    for n in 0..1_000 {
        let message = next(&mut feed).await;
        assert_eq!(message.subject, "n.b.feed");
        assert_eq!(message.payload, Bytes::from(format!("{n}")));
    }
    // One request found b's link; nothing went through the broker.
    assert_eq!((inner.requests(), inner.publications()), (1, 0));
    let counts = LinkCounts {
        sent: 1_000,
        fallbacks: 0,
    };
    assert_eq!(a.link_counts(), Some(counts));
}

#[tokio::test]
async fn requests_to_a_node_are_answered_on_the_links() {
    let inner = Counted::new();
    let (a, b) = (node(&inner, "a").await, node(&inner, "b").await);
    let calls = b.subscribe("n.b.call".into()).await.expect("subscribe");
    crate::conformance::answer_every_call(Arc::new(b.clone()), calls);
    for n in 0..20 {
        let answer = a
            .request(
                "n.b.call".into(),
                Bytes::from(format!("hello {n}")),
                Duration::from_secs(5),
            )
            .await
            .expect("answered");
        assert_eq!(answer, Bytes::from(format!("re: hello {n}")));
    }
    // Two requests found the links, one each way; the calls and answers took them.
    assert_eq!((inner.requests(), inner.publications()), (2, 0));
}

#[tokio::test]
async fn a_request_no_one_hears_fails_at_once() {
    let inner = Counted::new();
    let (a, _b) = (node(&inner, "a").await, node(&inner, "b").await);
    let started = Instant::now();
    let unheard = a
        .request("n.b.nobody".into(), Bytes::new(), Duration::from_secs(30))
        .await;
    assert!(matches!(unheard, Err(BusError::NoAnswer(_))), "{unheard:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "not at once");
}

#[tokio::test]
async fn a_request_to_a_node_that_goes_away_fails_at_once() {
    let inner = Counted::new();
    let (a, b) = (node(&inner, "a").await, node(&inner, "b").await);
    let mut calls = b.subscribe("n.b.slow".into()).await.expect("subscribe");
    let started = Instant::now();
    let asked = tokio::spawn(async move {
        a.request("n.b.slow".into(), Bytes::new(), Duration::from_secs(60))
            .await
    });
    // b has the request in hand, and goes away without answering.
    next(&mut calls).await;
    drop((calls, b));
    let failed = tokio::time::timeout(Duration::from_secs(10), asked)
        .await
        .expect("failed before its timeout")
        .expect("joined");
    assert!(
        matches!(failed, Err(BusError::Unavailable(_))),
        "{failed:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn a_node_without_links_is_reached_through_the_wrapped_bus() {
    let inner = Counted::new();
    let a = node(&inner, "a").await;
    // c listens on the broker only, and answers no one's question about its links.
    let mut feed = inner.subscribe("n.c.feed".into()).await.expect("subscribe");
    let mut calls = inner.subscribe("n.c.call".into()).await.expect("subscribe");
    let broker = inner.clone();
    tokio::spawn(async move {
        while let Some(call) = calls.next().await {
            if let Some(reply) = call.reply {
                let _ = broker.publish(reply, call.payload).await;
            }
        }
    });
    a.publish("n.c.feed".into(), Bytes::from("one"))
        .await
        .expect("publish");
    assert_eq!(next(&mut feed).await.payload, Bytes::from("one"));
    // Within the wait before a new try, nothing more is asked of c.
    a.publish("n.c.feed".into(), Bytes::from("two"))
        .await
        .expect("publish");
    assert_eq!(next(&mut feed).await.payload, Bytes::from("two"));
    let answer = a
        .request(
            "n.c.call".into(),
            Bytes::from("ping"),
            Duration::from_secs(5),
        )
        .await
        .expect("answered");
    assert_eq!(answer, Bytes::from("ping"));
    assert_eq!(inner.publications(), 2);
    let counts = LinkCounts {
        sent: 0,
        fallbacks: 3,
    };
    assert_eq!(a.link_counts(), Some(counts));
}

#[tokio::test]
async fn a_node_hears_its_subjects_from_the_wrapped_bus_too() {
    let inner = Counted::new();
    let b = node(&inner, "b").await;
    let mut feed = b.subscribe("n.b.feed".into()).await.expect("subscribe");
    inner
        .publish("n.b.feed".into(), Bytes::from("by the broker"))
        .await
        .expect("publish");
    assert_eq!(next(&mut feed).await.payload, Bytes::from("by the broker"));
}

#[tokio::test]
async fn a_link_is_refused_without_the_secret() {
    let inner = Counted::new();
    let b = node(&inner, "b").await;
    for greeting in [
        "arbiter-link/1 a 00000000000000000000000000000000\n",
        "arbiter-link/1 a\n",
        "GET / HTTP/1.1\n",
    ] {
        let mut stream = TcpStream::connect(b.advertised()).await.expect("connect");
        stream.write_all(greeting.as_bytes()).await.expect("greet");
        let mut answer = String::new();
        BufReader::new(stream)
            .read_line(&mut answer)
            .await
            .expect("an answer");
        assert_eq!(answer, "refused\n", "{greeting:?}");
    }
}

#[tokio::test]
async fn a_link_to_a_node_that_restarted_is_made_again() {
    let inner = Counted::new();
    let a = node(&inner, "a").await;
    let b = node(&inner, "b").await;
    let mut feed = b.subscribe("n.b.feed".into()).await.expect("subscribe");
    a.publish("n.b.feed".into(), Bytes::from("before"))
        .await
        .expect("publish");
    assert_eq!(next(&mut feed).await.payload, Bytes::from("before"));
    // b goes away with its link, and comes back elsewhere under the same name.
    drop((feed, b));
    let b = node(&inner, "b").await;
    let mut feed = b.subscribe("n.b.feed".into()).await.expect("subscribe");
    // The old link closed with the old bus; messages sent meanwhile may be lost, as on any
    // bus, and the next ones arrive.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        a.publish("n.b.feed".into(), Bytes::from("after"))
            .await
            .expect("publish");
        match tokio::time::timeout(Duration::from_millis(200), feed.next()).await {
            Ok(Some(message)) => {
                assert_eq!(message.payload, Bytes::from("after"));
                break;
            }
            _ => assert!(Instant::now() < deadline, "never heard after the restart"),
        }
    }
}

#[test]
fn frames_read_back_as_written() {
    let cases = [
        (KIND_MESSAGE, "n.b.feed", None, &b"payload"[..]),
        (KIND_MESSAGE, "n.b.http", Some("n.a._reply.7"), &b""[..]),
        (KIND_NO_ANSWER, "n.a._reply.9", None, &b"\n\0\xff"[..]),
    ];
    for (kind, subject, reply, payload) in cases {
        let mut bytes = frame(kind, subject, reply, payload);
        let length = bytes.get_u32() as usize;
        assert_eq!(length, bytes.len());
        let (read_kind, message) = unframe(bytes).expect("readable");
        assert_eq!(read_kind, kind);
        assert_eq!(message.subject, subject);
        assert_eq!(message.reply.as_deref(), reply);
        assert_eq!(&message.payload[..], payload);
    }
    for broken in [
        &b""[..],
        &b"\0"[..],
        &b"\0\0\x09n.b"[..],
        &b"\0\0\x01\xff\0\0"[..],
    ] {
        assert!(
            unframe(Bytes::copy_from_slice(broken)).is_none(),
            "{broken:?}"
        );
    }
}
