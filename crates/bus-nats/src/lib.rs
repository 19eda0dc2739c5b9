//! The message bus over NATS (core NATS: publications and requests, nothing kept; the store
//! is the record).
//!
//! Tests that need a NATS server find it through the environment variable [`URL_VARIABLE`]
//! and skip, with a notice, without it.

use std::time::Duration;

use std::future::Future;
use std::pin::Pin;

use arbiter_bus::{Bus, BusError, BusFuture, Bytes, Message, MessageSource, Subscription};
use futures::StreamExt;

/// The environment variable that names the NATS server tests use (`nats://127.0.0.1:4222`).
pub const URL_VARIABLE: &str = "ARBITER_TEST_NATS_URL";

/// A [`Bus`] over a connection to a NATS server, which reconnects by itself.
#[derive(Debug)]
pub struct NatsBus {
    client: async_nats::Client,
}

fn unavailable(error: impl std::fmt::Display) -> BusError {
    BusError::Unavailable(error.to_string())
}

/// NATS addresses (several separated by commas) without the credentials any of them carries
/// (`nats://user:password@host` or `nats://token@host`), for logs and messages.
pub fn shown(urls: &str) -> String {
    urls.split(',')
        .map(|url| {
            let (scheme, rest) = url.trim().split_once("://").unwrap_or(("nats", url));
            match rest.rsplit_once('@') {
                Some((_, host)) => format!("{scheme}://***@{host}"),
                None => format!("{scheme}://{rest}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

impl NatsBus {
    /// Connects to the NATS server at `url` (`nats://host:4222`, several separated by
    /// commas, each with a user and password or a token before the host where the server asks
    /// for one), naming the connection after `node` for the server's monitoring.
    pub async fn connect(url: &str, node: &str) -> Result<NatsBus, BusError> {
        let client = async_nats::ConnectOptions::new()
            .name(format!("arbiter {node}"))
            .connection_timeout(Duration::from_secs(5))
            // Keep trying for ever once connected; the first connection must succeed.
            .retry_on_initial_connect()
            .connect(url)
            .await
            .map_err(unavailable)?;
        // With retries on, connect returns at once: make sure the server is there now.
        tokio::time::timeout(Duration::from_secs(5), client.flush())
            .await
            .map_err(|_| {
                BusError::Unavailable(format!("no NATS server answers at {}", shown(url)))
            })?
            .map_err(unavailable)?;
        Ok(NatsBus { client })
    }
}

/// A NATS subscription read as the bus's messages; dropping it unsubscribes.
struct Heard(async_nats::Subscriber);

impl MessageSource for Heard {
    fn next_message(&mut self) -> Pin<Box<dyn Future<Output = Option<Message>> + Send + '_>> {
        Box::pin(async move {
            let message = self.0.next().await?;
            Some(Message {
                subject: message.subject.to_string(),
                payload: message.payload,
                reply: message.reply.map(|reply| reply.to_string()),
            })
        })
    }
}

impl Bus for NatsBus {
    fn publish(&self, subject: String, payload: Bytes) -> BusFuture<'_, ()> {
        Box::pin(async move {
            self.client
                .publish(subject, payload)
                .await
                .map_err(unavailable)
        })
    }

    fn subscribe(&self, pattern: String) -> BusFuture<'_, Subscription> {
        Box::pin(async move {
            let subscriber = self.client.subscribe(pattern).await.map_err(unavailable)?;
            // The subscription is registered once the server has seen it: a publication
            // made after this returns is heard.
            self.client.flush().await.map_err(unavailable)?;
            Ok(Subscription::from_source(Heard(subscriber)))
        })
    }

    fn request(&self, subject: String, payload: Bytes, timeout: Duration) -> BusFuture<'_, Bytes> {
        Box::pin(async move {
            let request = async_nats::Request::new()
                .payload(payload)
                .timeout(Some(timeout));
            match self.client.send_request(subject.clone(), request).await {
                Ok(answer) => Ok(answer.payload),
                Err(error) => match error.kind() {
                    async_nats::RequestErrorKind::TimedOut
                    | async_nats::RequestErrorKind::NoResponders => {
                        Err(BusError::NoAnswer(subject))
                    }
                    _ => Err(unavailable(error)),
                },
            }
        })
    }

    fn is_shared(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn passes_the_bus_conformance_suite() {
        let Ok(url) = std::env::var(URL_VARIABLE) else {
            eprintln!("skipped: set {URL_VARIABLE} to run this test against NATS");
            return;
        };
        let bus = NatsBus::connect(&url, "test").await.expect("connect");
        arbiter_bus::conformance::check_all(Arc::new(bus)).await;
    }

    #[tokio::test]
    async fn an_unreachable_server_is_a_clear_error() {
        let error = NatsBus::connect("nats://127.0.0.1:1", "test")
            .await
            .expect_err("cannot connect");
        assert!(matches!(error, BusError::Unavailable(_)), "{error}");
    }

    #[test]
    fn credentials_never_show() {
        let cases = [
            ("nats://127.0.0.1:4222", "nats://127.0.0.1:4222"),
            ("nats://arbiter:s3cret@nats:4222", "nats://***@nats:4222"),
            (
                "nats://t0ken@a:4222, tls://u:p@b:4222",
                "nats://***@a:4222,tls://***@b:4222",
            ),
        ];
        for (url, shown_as) in cases {
            assert_eq!(shown(url), shown_as);
        }
    }
}
