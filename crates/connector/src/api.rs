//! The native API v1 as the connector uses it.

use std::path::Path;
use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// How a call failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    /// 401: the token is wrong, rotated or its bot disabled.
    #[error("Bot credential rejected: {0}")]
    Unauthorized(String),
    /// Any other error reply, in the API's error shape.
    #[error("{code} ({status}): {message}")]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The API's error code.
        code: String,
        /// Its explanation.
        message: String,
    },
    /// The server could not be reached or the reply could not be read.
    #[error("Connection/state error: {0}")]
    Connection(String),
    /// The server's TLS certificate is not trusted; trying again will not change that.
    #[error("the server's certificate is not trusted: {0}")]
    Untrusted(String),
}

impl ApiError {
    /// Whether trying again soon may succeed: the server was unreachable, stopping, or could
    /// not store the change (moves are idempotent, so re-sending one is safe).
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            ApiError::Connection(_) => true,
            ApiError::Refused { status, .. } => *status == 503,
            ApiError::Unauthorized(_) | ApiError::Untrusted(_) => false,
        }
    }

    /// Whether the server refused a move because the position has moved on without it.
    pub(crate) fn moved_on(&self) -> bool {
        matches!(self, ApiError::Refused { code, .. } if matches!(code.as_str(),
            "stale_revision" | "not_your_turn" | "leg_finished" | "match_not_running"))
    }
}

/// A client for one bot.
#[derive(Clone)]
pub(crate) struct Api {
    client: Client,
    /// The server's base URL with `/api/v1`.
    base: String,
    token: String,
}

/// Longest wait for an ordinary reply; long-polls add their own wait.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

impl Api {
    /// A client for `server` (`http://` or `https://`), trusting the certificates in the PEM
    /// file `ca_file` as well as the platform's.
    pub(crate) fn new(
        server: &str,
        token: &str,
        ca_file: Option<&Path>,
    ) -> Result<Api, crate::ConnectorError> {
        let server = server.trim_end_matches('/');
        if !(server.starts_with("http://") || server.starts_with("https://")) {
            return Err(crate::ConnectorError::BadServer(server.to_owned()));
        }
        let mut builder = arbiter_http_client::builder();
        if let Some(path) = ca_file {
            builder = builder.tls_certs_merge(certificates(path)?);
        }
        let client = builder
            .connect_timeout(Duration::from_secs(10))
            .tcp_nodelay(true)
            .user_agent(concat!("arbiter-bot/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| crate::ConnectorError::Client(chain(&e)))?;
        Ok(Api {
            client,
            base: format!("{server}/api/v1"),
            token: token.to_owned(),
        })
    }

    /// The server's base URL as shown to the user.
    pub(crate) fn server(&self) -> &str {
        self.base.trim_end_matches("/api/v1")
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, ApiError> {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(REQUEST_TIMEOUT);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let response = request.send().await.map_err(connection)?;
        let status = response.status();
        let body: Value = response
            .json()
            .await
            .map_err(|e| ApiError::Connection(format!("unreadable reply from the server: {e}")))?;
        if status.is_success() {
            return Ok(body);
        }
        let message = body["message"]
            .as_str()
            .unwrap_or("no explanation")
            .to_owned();
        if status == StatusCode::UNAUTHORIZED {
            return Err(ApiError::Unauthorized(message));
        }
        Err(ApiError::Refused {
            status: status.as_u16(),
            code: body["error"].as_str().unwrap_or("unknown").to_owned(),
            message,
        })
    }

    /// The bot itself.
    pub(crate) async fn me(&self) -> Result<Value, ApiError> {
        self.call(Method::GET, "/bots/me", None).await
    }

    /// Reports the bot's environment.
    pub(crate) async fn report_environment(&self, environment: &Value) -> Result<(), ApiError> {
        self.call(
            Method::POST,
            "/bots/me/environment",
            Some(environment.clone()),
        )
        .await
        .map(drop)
    }

    /// Opens the bot's event stream.
    pub(crate) async fn stream(&self) -> Result<reqwest::Response, ApiError> {
        let response = self
            .client
            .get(format!("{}/stream", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(connection)?;
        match response.status() {
            status if status.is_success() => Ok(response),
            StatusCode::UNAUTHORIZED => Err(ApiError::Unauthorized(
                "the stream refused the token".into(),
            )),
            status => {
                let body: Value = response.json().await.unwrap_or_default();
                Err(ApiError::Refused {
                    status: status.as_u16(),
                    code: body["error"].as_str().unwrap_or("unknown").to_owned(),
                    message: body["message"]
                        .as_str()
                        .unwrap_or("no explanation")
                        .to_owned(),
                })
            }
        }
    }

    /// The bot's pending challenges and running matches.
    pub(crate) async fn open_matches(&self) -> Result<Vec<Value>, ApiError> {
        match self.call(Method::GET, "/matches", None).await? {
            Value::Array(list) => Ok(list),
            other => Err(ApiError::Connection(format!(
                "expected a list of matches, got {other}"
            ))),
        }
    }

    /// One match as the bot sees it.
    pub(crate) async fn snapshot(&self, id: i64) -> Result<Value, ApiError> {
        self.call(Method::GET, &format!("/matches/{id}"), None)
            .await
    }

    /// The bot's pending decisions in a match.
    pub(crate) async fn turns(&self, id: i64) -> Result<Value, ApiError> {
        self.call(Method::GET, &format!("/matches/{id}/turns"), None)
            .await
    }

    /// Challenges `opponent` to `game` (in `variant`, else the game's default; one game when
    /// `single`, else a paired match); returns the match id.
    pub(crate) async fn challenge(
        &self,
        opponent: &str,
        game: &str,
        variant: Option<&str>,
        single: bool,
    ) -> Result<i64, ApiError> {
        let mut body = json!({"opponent": opponent, "game": game, "client_seed": client_seed()});
        if single {
            body["format"] = json!("single");
        }
        if let Some(variant) = variant {
            body["variant"] = json!(variant);
        }
        let created = self.call(Method::POST, "/challenges", Some(body)).await?;
        created["id"].as_i64().ok_or_else(|| {
            ApiError::Connection(format!("the server's reply has no match id: {created}"))
        })
    }

    /// Accepts a challenge, adding a client seed of the connector's own to the match's
    /// randomness.
    pub(crate) async fn accept(&self, id: i64) -> Result<Value, ApiError> {
        let body = json!({"client_seed": client_seed()});
        self.call(
            Method::POST,
            &format!("/challenges/{id}/accept"),
            Some(body),
        )
        .await
    }

    /// Declines a challenge.
    pub(crate) async fn reject(&self, id: i64) -> Result<Value, ApiError> {
        self.call(Method::POST, &format!("/challenges/{id}/reject"), None)
            .await
    }

    /// Submits a move: an Othello square index (-1 to pass), or a generic action as the engine
    /// gave it.
    pub(crate) async fn play(
        &self,
        id: i64,
        leg: u8,
        revision: u64,
        mv: &Value,
    ) -> Result<Value, ApiError> {
        let body = json!({"leg": leg, "revision": revision, "move": mv});
        self.call(Method::POST, &format!("/matches/{id}/moves"), Some(body))
            .await
    }
}

/// The certificates of a PEM file given with `--ca-file`.
fn certificates(path: &Path) -> Result<Vec<reqwest::Certificate>, crate::ConnectorError> {
    let unusable = |why: String| crate::ConnectorError::CaFile {
        path: path.to_path_buf(),
        why,
    };
    let pem = std::fs::read(path).map_err(|e| unusable(e.to_string()))?;
    let certificates =
        reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| unusable(e.to_string()))?;
    if certificates.is_empty() {
        return Err(unusable("it holds no PEM certificate".to_owned()));
    }
    Ok(certificates)
}

fn connection(error: reqwest::Error) -> ApiError {
    if arbiter_http_client::is_untrusted_certificate(&error) {
        return ApiError::Untrusted(chain(&error));
    }
    ApiError::Connection(chain(&error))
}

fn chain(error: &reqwest::Error) -> String {
    // The error's chain holds the useful part ("connection refused"); its top line is generic.
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A fresh client seed: 16 random bytes from the operating system, in hex, which the
/// server mixes into the match's randomness with its committed seed, so that no draw is the
/// server's alone. `None`, leaving the server's seed alone, if the system cannot give any.
fn client_seed() -> Option<String> {
    use rand::TryRng;
    let mut bytes = [0u8; 16];
    rand::rngs::SysRng.try_fill_bytes(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
