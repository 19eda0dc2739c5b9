//! Tests every bus passes, run by each implementation's own tests.

use std::sync::Arc;
use std::time::Duration;

use crate::{Bus, BusError, Bytes, Subscription};

/// Runs every check, on subjects under a prefix of the run's own, so that other users of a
/// shared server never interfere.
pub async fn check_all(bus: Arc<dyn Bus>) {
    let prefix = format!(
        "conformance{}x{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    publications_reach_every_matching_subscription(bus.as_ref(), &prefix).await;
    requests_are_answered(bus.clone(), &prefix).await;
}

async fn publications_reach_every_matching_subscription(bus: &dyn Bus, prefix: &str) {
    let mut exact = bus
        .subscribe(format!("{prefix}.match.7"))
        .await
        .expect("subscribe");
    let mut one = bus
        .subscribe(format!("{prefix}.match.*"))
        .await
        .expect("subscribe");
    let mut rest = bus
        .subscribe(format!("{prefix}.>"))
        .await
        .expect("subscribe");
    for (subject, payload) in [("match.7", "a"), ("match.8", "b"), ("bot.3.feed", "c")] {
        bus.publish(format!("{prefix}.{subject}"), Bytes::from(payload))
            .await
            .expect("publish");
    }
    let next = async |subscription: &mut crate::Subscription| {
        let message = tokio::time::timeout(Duration::from_secs(5), subscription.next())
            .await
            .expect("a message in time")
            .expect("open");
        (message.subject, message.payload)
    };
    let heard = |subject: &str, payload: &'static str| {
        (format!("{prefix}.{subject}"), Bytes::from(payload))
    };
    assert_eq!(next(&mut exact).await, heard("match.7", "a"));
    assert_eq!(next(&mut one).await, heard("match.7", "a"));
    assert_eq!(next(&mut one).await, heard("match.8", "b"));
    assert_eq!(next(&mut rest).await, heard("match.7", "a"));
    assert_eq!(next(&mut rest).await, heard("match.8", "b"));
    assert_eq!(next(&mut rest).await, heard("bot.3.feed", "c"));
    // Nothing else came: a marker published now is the next message each one hears.
    bus.publish(format!("{prefix}.match.7"), Bytes::from("end"))
        .await
        .expect("publish");
    assert_eq!(next(&mut exact).await, heard("match.7", "end"));
}

/// Answers every request `calls` hears with `re: ` and its payload, until the subscription
/// ends or the task is aborted.
pub fn answer_every_call(
    bus: Arc<dyn Bus>,
    mut calls: Subscription,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(call) = calls.next().await {
            let mut answer = b"re: ".to_vec();
            answer.extend_from_slice(&call.payload);
            if let Some(reply) = call.reply {
                bus.publish(reply, Bytes::from(answer))
                    .await
                    .expect("answer");
            }
        }
    })
}

async fn requests_are_answered(bus: Arc<dyn Bus>, prefix: &str) {
    let subject = format!("{prefix}.node.a.call");
    let calls = bus.subscribe(subject.clone()).await.expect("subscribe");
    let responder = answer_every_call(bus.clone(), calls);
    for n in 0..3 {
        let answer = bus
            .request(
                subject.clone(),
                Bytes::from(format!("hello {n}")),
                Duration::from_secs(5),
            )
            .await
            .expect("answered");
        assert_eq!(answer, Bytes::from(format!("re: hello {n}")));
    }
    // A subject no one listens on is no answer, and soon.
    let unheard = bus
        .request(
            format!("{prefix}.node.gone.call"),
            Bytes::from("anyone?"),
            Duration::from_millis(500),
        )
        .await;
    assert!(matches!(unheard, Err(BusError::NoAnswer(_))), "{unheard:?}");
    responder.abort();
}
