//! The client that calls bots' URLs: every address a name resolves to is checked against the
//! [`TargetPolicy`] and connected to as checked, with no redirect followed, no proxy, a
//! deadline and a bound on the answer's size.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};

use crate::signature::{SIGNATURE_HEADER, TIMESTAMP_HEADER, sign};
use crate::target::{TargetError, TargetPolicy};

/// Why a call to a bot failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The URL, or an address its name resolves to, may not be called; nothing was sent.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The bot could not be reached (its name did not resolve, the connection failed).
    #[error("the bot could not be reached: {0}")]
    Unreachable(String),
    /// The bot did not answer in time.
    #[error("the bot did not answer in time")]
    TimedOut,
    /// The bot answered with a redirect, which is never followed.
    #[error("the bot answered with a redirect ({0}), which is not followed")]
    Redirect(u16),
    /// The bot answered with an error status.
    #[error("the bot answered with status {0}")]
    Status(u16),
    /// The bot's answer is larger than the server reads.
    #[error("the bot's answer is larger than {0} bytes")]
    TooLarge(usize),
    /// The client could not be built.
    #[error("the HTTP client cannot be built: {0}")]
    Client(String),
}

impl CallError {
    /// Whether calling again may succeed: a bot that could not be reached, was slow or failed
    /// on its side; never a target refused, a redirect or an answer too large.
    pub fn is_transient(&self) -> bool {
        match self {
            CallError::Unreachable(_) | CallError::TimedOut => true,
            CallError::Status(status) => *status >= 500 || *status == 429,
            _ => false,
        }
    }
}

/// The future a [`Lookup`] returns.
pub type Lookups<'a> = Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Resolves host names: the system's resolver, or a table in tests.
pub trait Lookup: Send + Sync + 'static {
    /// The addresses `host` resolves to.
    fn lookup<'a>(&'a self, host: &'a str) -> Lookups<'a>;
}

/// The system's resolver.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> Lookups<'a> {
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host, 0))
                .await?
                .map(|address| address.ip())
                .collect())
        })
    }
}

/// The resolver the client connects through: a name whose addresses are not all allowed is
/// refused, and the client connects only to the addresses checked here.
struct GuardedResolver {
    policy: Arc<TargetPolicy>,
    lookup: Arc<dyn Lookup>,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        let (policy, lookup) = (self.policy.clone(), self.lookup.clone());
        Box::pin(async move {
            let addresses = lookup.lookup(&host).await?;
            if addresses.is_empty() {
                return Err(TargetError::Unresolved(host).into());
            }
            // One refused address refuses the name: a name that resolves to a public address
            // and a private one must not be called at all.
            for address in &addresses {
                policy.check_address(*address)?;
            }
            let addrs: reqwest::dns::Addrs = Box::new(
                addresses
                    .into_iter()
                    .map(|address| SocketAddr::new(address, 0)),
            );
            Ok(addrs)
        })
    }
}

/// Calls bots' URLs under a [`TargetPolicy`].
#[derive(Clone)]
pub struct WebhookClient {
    client: reqwest::Client,
    policy: Arc<TargetPolicy>,
    max_answer: usize,
}

impl WebhookClient {
    /// The most of an answer the server reads by default: a decision's answer is an action.
    pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

    /// A client under `policy`, resolving names with `lookup`.
    pub fn new(policy: TargetPolicy, lookup: Arc<dyn Lookup>) -> Result<WebhookClient, CallError> {
        let policy = Arc::new(policy);
        let client = arbiter_http_client::builder()
            .dns_resolver(Arc::new(GuardedResolver {
                policy: policy.clone(),
                lookup,
            }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| CallError::Client(e.to_string()))?;
        Ok(WebhookClient {
            client,
            policy,
            max_answer: Self::MAX_ANSWER_BYTES,
        })
    }

    /// The same client reading answers of at most `bytes`.
    pub fn with_max_answer(mut self, bytes: usize) -> WebhookClient {
        self.max_answer = bytes;
        self
    }

    /// The policy it calls under.
    pub fn policy(&self) -> &TargetPolicy {
        &self.policy
    }

    /// POSTs the JSON `body` to `url`, signed with `secret` at `timestamp_s`, and returns the
    /// answer's body once it has come whole within `timeout`.
    pub async fn call(
        &self,
        url: &str,
        body: Vec<u8>,
        secret: &[u8],
        timestamp_s: i64,
        timeout: Duration,
    ) -> Result<Bytes, CallError> {
        let url = self.policy.check_url(url)?;
        let signature = sign(secret, timestamp_s, &body);
        let exchange = async {
            let mut response = self
                .client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .header(SIGNATURE_HEADER, signature)
                .header(TIMESTAMP_HEADER, timestamp_s.to_string())
                .body(body)
                .send()
                .await
                .map_err(failure)?;
            let status = response.status();
            if status.is_redirection() {
                return Err(CallError::Redirect(status.as_u16()));
            }
            if !status.is_success() {
                return Err(CallError::Status(status.as_u16()));
            }
            let too_large = CallError::TooLarge(self.max_answer);
            if response
                .content_length()
                .is_some_and(|length| length > self.max_answer as u64)
            {
                return Err(too_large);
            }
            let mut answer = BytesMut::new();
            while let Some(chunk) = response.chunk().await.map_err(failure)? {
                if answer.len() + chunk.len() > self.max_answer {
                    return Err(too_large);
                }
                answer.extend_from_slice(&chunk);
            }
            Ok(answer.freeze())
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| CallError::TimedOut)?
    }
}

/// What a failed request was: a target the resolver refused, a timeout, or a bot out of
/// reach.
fn failure(error: reqwest::Error) -> CallError {
    if error.is_timeout() {
        return CallError::TimedOut;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<TargetError>() {
            return CallError::Target(refused.clone());
        }
        source = cause.source();
    }
    CallError::Unreachable(error.without_url().to_string())
}
