//! A fake model server for the provider tests: it answers Ollama's `/api/chat` and an
//! OpenAI-compatible `/v1/chat/completions` with scripted replies, and records every request.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

/// What the fake server does with one request.
#[derive(Clone, Debug)]
pub(crate) enum Script {
    /// Answers with this content.
    Reply(String),
    /// Never answers.
    Hang,
}

/// One request the fake server received.
#[derive(Clone, Debug)]
pub(crate) struct Received {
    /// The `Authorization` header, if any.
    pub(crate) authorization: Option<String>,
    /// The JSON body.
    pub(crate) body: Value,
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Script>>,
    received: Mutex<Vec<Received>>,
}

/// A running fake server.
pub(crate) struct FakeServer {
    /// Its base address, such as `http://127.0.0.1:40123`.
    pub(crate) url: String,
    shared: Arc<Shared>,
}

impl FakeServer {
    /// Starts a server on a free local port that answers with `script`, in order.
    pub(crate) async fn start(script: Vec<Script>) -> FakeServer {
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into()),
            received: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/api/chat", post(ollama))
            .route("/v1/chat/completions", post(openai))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("a free local port");
        let address = listener.local_addr().expect("the bound address");
        tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("the fake server runs");
        });
        FakeServer {
            url: format!("http://{address}"),
            shared,
        }
    }

    /// Every request received so far.
    pub(crate) fn received(&self) -> Vec<Received> {
        self.shared
            .received
            .lock()
            .expect("no poisoned lock")
            .clone()
    }
}

/// Records the request and takes the next scripted step, hanging forever on [`Script::Hang`].
async fn next(shared: &Shared, headers: &HeaderMap, body: Value) -> String {
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    shared
        .received
        .lock()
        .expect("no poisoned lock")
        .push(Received {
            authorization,
            body,
        });
    let step = shared.script.lock().expect("no poisoned lock").pop_front();
    match step {
        Some(Script::Reply(content)) => content,
        Some(Script::Hang) => std::future::pending().await,
        None => "the script ran out".to_owned(),
    }
}

async fn ollama(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    let content = next(&shared, &headers, body).await;
    Json(json!({
        "model": "fake",
        "message": { "role": "assistant", "content": content },
        "done": true,
    }))
}

async fn openai(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    let content = next(&shared, &headers, body).await;
    Json(json!({
        "id": "fake",
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": content } }],
    }))
}

/// The keys of a JSON object, sorted.
pub(crate) fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}
