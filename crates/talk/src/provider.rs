//! How a [`Remark`] is worded: by the template (the line as it is) or by a language model
//! (Ollama or an OpenAI-compatible server), whose reply is cleaned, checked and asked for
//! again up to [`ATTEMPTS`] times (seed 003 §07–09).
//!
//! A model's API key is read only from the environment, kept out of every `Debug` output and
//! never logged.

use std::fmt;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use arbiter_plugin::{Examples, Remark, Silence, Voice, Worded, Wording};

use crate::prompt::{self, Message};
use crate::validate::{self, Rejection};

/// How many times a model is asked to reword one line before the bot stays silent.
pub const ATTEMPTS: u32 = 3;

/// The environment variable an OpenAI-compatible server's key is read from, unless the
/// configuration names another.
pub const DEFAULT_API_KEY_ENV: &str = "ARBITER_TALK_API_KEY";

/// Which provider words the lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// The line as the rules wrote it; no model at all.
    #[default]
    Template,
    /// An Ollama server's `/api/chat`.
    Ollama,
    /// An OpenAI-compatible server's `/v1/chat/completions`.
    Openai,
}

/// How bot talk is worded (a server setting). A configuration file's misspelt key is refused
/// rather than silently left at its default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TalkConfig {
    /// The kill switch: when false, no bot talks and no provider is called.
    pub enabled: bool,
    /// Which provider words the lines.
    pub provider: ProviderKind,
    /// The model server's base address, such as `http://127.0.0.1:11434`.
    pub url: String,
    /// The model's name on that server.
    pub model: String,
    /// How long one request may take, in milliseconds.
    pub timeout_ms: u64,
    /// The environment variable holding an OpenAI-compatible server's key; the key itself is
    /// never part of the configuration.
    pub api_key_env: String,
}

impl Default for TalkConfig {
    fn default() -> TalkConfig {
        TalkConfig {
            enabled: true,
            provider: ProviderKind::Template,
            url: "http://127.0.0.1:11434".to_owned(),
            model: "qwen3:8b".to_owned(),
            timeout_ms: 8_000,
            api_key_env: DEFAULT_API_KEY_ENV.to_owned(),
        }
    }
}

impl TalkConfig {
    /// How long one request may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Why a speaker could not be set up.
#[derive(Debug, Error)]
pub enum TalkError {
    /// The HTTP client could not be built.
    #[error("the HTTP client could not be built: {0}")]
    Client(#[source] reqwest::Error),
}

/// Why one request to a model gave no reply to check.
#[derive(Debug, Error)]
enum AskError {
    #[error("no reply within {0:?}")]
    Timeout(Duration),
    #[error("the request failed: {0}")]
    Request(#[source] reqwest::Error),
    #[error("the server answered {0}")]
    Status(reqwest::StatusCode),
    #[error("the reply has no message")]
    NoMessage,
}

/// A secret that prints as `[hidden]`, so that no `Debug` of a speaker shows it.
#[derive(Clone)]
struct ApiKey(String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[hidden]")
    }
}

/// Says lines through the configured provider.
#[derive(Clone, Debug)]
pub struct Speaker {
    config: TalkConfig,
    client: reqwest::Client,
    api_key: Option<ApiKey>,
}

#[derive(Serialize)]
struct OllamaRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
    stream: bool,
    think: bool,
    options: OllamaOptions,
}

#[derive(Serialize)]
struct OllamaOptions {
    temperature: f64,
    num_predict: u32,
}

#[derive(Deserialize)]
struct OllamaReply {
    message: Option<ReplyMessage>,
}

#[derive(Serialize)]
struct OpenaiRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
    temperature: f64,
    max_tokens: u32,
}

#[derive(Deserialize)]
struct OpenaiReply {
    #[serde(default)]
    choices: Vec<OpenaiChoice>,
}

#[derive(Deserialize)]
struct OpenaiChoice {
    message: Option<ReplyMessage>,
}

#[derive(Deserialize)]
struct ReplyMessage {
    #[serde(default)]
    content: Option<String>,
}

/// The sampling temperature: high enough that a bot does not say the same words each time.
const TEMPERATURE: f64 = 0.9;

/// The most tokens a reply may have; a line is short, and this cuts off a model that rambles.
const MAX_TOKENS: u32 = 200;

impl Speaker {
    /// A speaker for the configuration, reading an OpenAI-compatible server's key from the
    /// environment variable the configuration names.
    pub fn new(config: TalkConfig) -> Result<Speaker, TalkError> {
        let api_key = match config.provider {
            ProviderKind::Openai => std::env::var(&config.api_key_env).ok().map(ApiKey),
            ProviderKind::Template | ProviderKind::Ollama => None,
        };
        // A local OpenAI-compatible server often needs no key, so a missing one is no error;
        // the log names the variable, never a key, so that a forgotten one is easy to find.
        if config.provider == ProviderKind::Openai && api_key.is_none() {
            tracing::info!(
                variable = %config.api_key_env,
                "no API key in the environment; requests carry none"
            );
        }
        let client = arbiter_http_client::builder()
            .build()
            .map_err(TalkError::Client)?;
        Ok(Speaker {
            config,
            client,
            api_key,
        })
    }

    /// The configuration the speaker was made with.
    pub fn config(&self) -> &TalkConfig {
        &self.config
    }

    /// The provider as pages name it: `template`, or the provider and the model
    /// (`ollama · qwen3:8b`), never its address or key; `off` when switched off.
    pub fn describe(&self) -> String {
        if !self.config.enabled {
            return "off".to_owned();
        }
        match self.config.provider {
            ProviderKind::Template => "template".to_owned(),
            ProviderKind::Ollama => format!("ollama · {}", self.config.model),
            ProviderKind::Openai => format!("openai · {}", self.config.model),
        }
    }

    /// The words `voice` says for `remark`, or why it stays silent.
    ///
    /// The template provider says the line as it is. A model is asked to reword it; a reply
    /// that fails [`validate::check`] is asked for again, up to [`ATTEMPTS`] times in all. A
    /// request that fails or times out ends the attempts at once: a server that is down or
    /// overloaded would only make the table wait several times as long for the same silence.
    pub async fn say(
        &self,
        remark: &Remark,
        voice: Voice<'_>,
        examples: Examples,
    ) -> Result<String, Silence> {
        let line = remark;
        if !self.config.enabled {
            tracing::info!(kind = %line.kind, silence = "disabled", "bot talk is switched off");
            return Err(Silence::Disabled);
        }
        if self.config.provider == ProviderKind::Template {
            tracing::info!(kind = %line.kind, said = %line.text, "template line");
            return Ok(line.text.clone());
        }
        let messages = prompt::messages(remark, voice, examples);
        for attempt in 1..=ATTEMPTS {
            let started = Instant::now();
            let raw = match self.ask(&messages).await {
                Ok(raw) => raw,
                Err(error) => {
                    tracing::warn!(
                        kind = %line.kind,
                        attempt,
                        elapsed_ms = started.elapsed().as_millis() as u64,
                        %error,
                        silence = "ai-failed",
                        "the model gave no reply"
                    );
                    return Err(Silence::AiFailed);
                }
            };
            let cleaned = validate::clean(&raw);
            let elapsed_ms = started.elapsed().as_millis() as u64;
            match validate::check(&cleaned, remark, voice.language, examples) {
                Ok(()) => {
                    tracing::info!(
                        kind = %line.kind,
                        attempt,
                        elapsed_ms,
                        raw = %raw,
                        cleaned = %cleaned,
                        "the model's line passed"
                    );
                    return Ok(cleaned);
                }
                Err(rejection) => {
                    log_rejection(line, attempt, elapsed_ms, &raw, &cleaned, &rejection)
                }
            }
        }
        tracing::warn!(
            kind = %line.kind,
            attempts = ATTEMPTS,
            silence = "ai-failed",
            "no reply passed the checks"
        );
        Err(Silence::AiFailed)
    }

    /// One request to the model, within the configured timeout.
    async fn ask(&self, messages: &[Message]) -> Result<String, AskError> {
        let timeout = self.config.timeout();
        tokio::time::timeout(timeout, self.request(messages))
            .await
            .map_err(|_| AskError::Timeout(timeout))?
    }

    async fn request(&self, messages: &[Message]) -> Result<String, AskError> {
        let base = self.config.url.trim_end_matches('/');
        let response = match self.config.provider {
            ProviderKind::Ollama => {
                let body = OllamaRequest {
                    model: &self.config.model,
                    messages,
                    stream: false,
                    think: false,
                    options: OllamaOptions {
                        temperature: TEMPERATURE,
                        num_predict: MAX_TOKENS,
                    },
                };
                self.client
                    .post(format!("{base}/api/chat"))
                    .json(&body)
                    .send()
                    .await
            }
            // The template provider never reaches a request, since `say` answers it first;
            // it shares the OpenAI arm only so that the match needs no arm that cannot run.
            ProviderKind::Openai | ProviderKind::Template => {
                let body = OpenaiRequest {
                    model: &self.config.model,
                    messages,
                    temperature: TEMPERATURE,
                    max_tokens: MAX_TOKENS,
                };
                let mut request = self
                    .client
                    .post(format!("{base}/v1/chat/completions"))
                    .json(&body);
                if let Some(ApiKey(key)) = &self.api_key {
                    request = request.bearer_auth(key);
                }
                request.send().await
            }
        }
        .map_err(AskError::Request)?;
        let status = response.status();
        if !status.is_success() {
            return Err(AskError::Status(status));
        }
        let content = match self.config.provider {
            ProviderKind::Ollama => response
                .json::<OllamaReply>()
                .await
                .map_err(AskError::Request)?
                .message
                .and_then(|m| m.content),
            ProviderKind::Openai | ProviderKind::Template => response
                .json::<OpenaiReply>()
                .await
                .map_err(AskError::Request)?
                .choices
                .into_iter()
                .next()
                .and_then(|c| c.message)
                .and_then(|m| m.content),
        };
        content.ok_or(AskError::NoMessage)
    }
}

impl Wording for Speaker {
    fn word<'a>(&'a self, remark: &'a Remark, voice: Voice<'a>, examples: Examples) -> Worded<'a> {
        Box::pin(self.say(remark, voice, examples))
    }

    fn describe(&self) -> String {
        Speaker::describe(self)
    }

    fn enabled(&self) -> bool {
        self.config.enabled
    }
}

fn log_rejection(
    line: &Remark,
    attempt: u32,
    elapsed_ms: u64,
    raw: &str,
    cleaned: &str,
    rejection: &Rejection,
) {
    tracing::info!(
        kind = %line.kind,
        attempt,
        elapsed_ms,
        raw = %raw,
        cleaned = %cleaned,
        %rejection,
        "the model's line was rejected"
    );
}
