//! Board Game Protocol v1 (seed 002), driven by a client written from the protocol alone: raw
//! HTTP and `serde_json::Value`, never this server's own types, so that the tests catch
//! wherever the dialect departs from the protocol. Tests read like the protocol's curl
//! session: `client.create(...)`, `client.join(...)`, `client.action(...)`,
//! `client.events(...)`.

mod agents;
mod commentary;
mod errors;
mod flow;
mod long_poll;
mod privacy;
mod timeouts;
mod tokens;

use std::future::Future;
use std::time::Duration;

use arbiter_arena::{ArenaConfig, Games};
use arbiter_server::Dialects;

use futures::StreamExt;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Reply, T0, TestApp, dialects, games, spawn_running};

/// The key of a match's `config` that names Gomoku's rule set (`freestyle` by default,
/// `renju`). The protocol leaves a game's own settings to the game; the issue says the config
/// "may carry a rule" and that `renju` is a variant name, and the server spells the key
/// `variant`. It is kept here so that it changes in one place.
pub(crate) const RULE: &str = "variant";

/// The protocol's per-turn timeout when the config names none, in seconds.
pub(crate) const DEFAULT_TURN_TIMEOUT: i64 = 120;

/// The clock's reading when a test starts, in Unix seconds, as `deadline_ts` counts.
pub(crate) const T0_S: i64 = T0 / 1000;

/// The public address the suite's servers are given, from which their links are built.
pub(crate) const PUBLIC_URL: &str = "https://arena.example";

/// The dialects of the suite's servers: the harness's, the Board Game Protocol's among them,
/// with [`PUBLIC_URL`] as the server's public address.
fn public_dialects(games: &Games) -> Dialects {
    dialects(games).with_public_url(PUBLIC_URL)
}

/// A test server speaking the Board Game Protocol, on a fresh database with the injected
/// clock at [`T0`].
pub(crate) async fn spawn_bgp() -> TestApp {
    spawn_running(ArenaConfig::default(), games(), public_dialects).await
}

/// How long the tests wait, in real time, for an answer that the server should give at once
/// or as soon as the injected clock allows. It is a guard against a hanging test, never a
/// wait for a timeout: every timeout the server keeps is reached by moving the injected clock.
const GUARD: Duration = Duration::from_secs(5);

/// Who a request speaks for: nobody (a spectator or a guest), an agent's `api_key` as a
/// bearer, or a match's play token in `X-Play-Token`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cred<'a> {
    /// No credential.
    None,
    /// `Authorization: Bearer <api_key>`.
    Bearer(&'a str),
    /// `X-Play-Token: <play_token>`.
    Play(&'a str),
}

/// A response's `content-type`, empty when it has none.
fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A Board Game Protocol client for one test server.
#[derive(Clone)]
pub(crate) struct Bgp {
    http: reqwest::Client,
    /// The server's root: the protocol's paths hang off it, not off the native `/api/v1`.
    root: String,
    /// Headers sent with every request (a provider's, in the privacy tests).
    extra: Vec<(String, String)>,
}

/// One seat a create or join gave: the match, the seat, its play token and the whole body.
#[derive(Clone, Debug)]
pub(crate) struct Seat {
    pub(crate) id: String,
    pub(crate) seat: i64,
    pub(crate) token: String,
    pub(crate) body: Value,
}

/// A running match between two guests: `alice` (seat 0, Black) and `bob` (seat 1, White).
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub(crate) id: String,
    pub(crate) black: Seat,
    pub(crate) white: Seat,
}

/// A registered agent: its name and the `api_key` shown once.
#[derive(Clone, Debug)]
pub(crate) struct Agent {
    pub(crate) name: String,
    pub(crate) key: String,
}

/// A page: status, content type and text.
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) status: u16,
    pub(crate) content_type: String,
    pub(crate) text: String,
}

/// Black's stones of a five along row 7, and White's answers far from them, one pair a move.
pub(crate) const FIVE: [((i64, i64), (i64, i64)); 4] = [
    ((3, 7), (0, 0)),
    ((4, 7), (0, 2)),
    ((5, 7), (0, 4)),
    ((6, 7), (0, 6)),
];
/// Black's fifth stone of [`FIVE`].
pub(crate) const FIFTH: (i64, i64) = (7, 7);

impl Bgp {
    /// A client of `app`'s server.
    pub(crate) fn new(app: &TestApp) -> Bgp {
        Bgp {
            http: app.client.clone(),
            root: app.root().to_owned(),
            extra: Vec::new(),
        }
    }

    /// The same client, sending `headers` with every request as well.
    pub(crate) fn with_headers(mut self, headers: &[(&str, &str)]) -> Bgp {
        self.extra.extend(
            headers
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
        );
        self
    }

    /// A request with `cred` and a raw body (sent as JSON).
    pub(crate) async fn send(
        &self,
        method: Method,
        path: &str,
        cred: Cred<'_>,
        body: Option<String>,
    ) -> Reply {
        Reply::read(self.request(method, path, cred, body).await).await
    }

    async fn request(
        &self,
        method: Method,
        path: &str,
        cred: Cred<'_>,
        body: Option<String>,
    ) -> reqwest::Response {
        let mut request = self.http.request(method, format!("{}{path}", self.root));
        for (name, value) in &self.extra {
            request = request.header(name.as_str(), value.as_str());
        }
        request = match cred {
            Cred::None => request,
            Cred::Bearer(key) => request.bearer_auth(key),
            Cred::Play(token) => request.header("X-Play-Token", token),
        };
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        guarded("a response", request.send())
            .await
            .expect("the request reaches the server")
    }

    /// A GET of `path`.
    pub(crate) async fn get(&self, path: &str, cred: Cred<'_>) -> Reply {
        self.send(Method::GET, path, cred, None).await
    }

    /// A POST of `body` to `path`.
    pub(crate) async fn post(&self, path: &str, cred: Cred<'_>, body: &Value) -> Reply {
        self.send(Method::POST, path, cred, Some(body.to_string()))
            .await
    }

    /// `POST /api/matches`.
    pub(crate) async fn create(&self, cred: Cred<'_>, body: &Value) -> Reply {
        self.post("/api/matches", cred, body).await
    }

    /// A guest `name` creates a Gomoku match with `config` (`Null` for none); asserts 201.
    pub(crate) async fn create_guest(&self, name: &str, config: Value) -> Seat {
        let mut body = json!({
            "game": "gomoku",
            "player": {"name": name, "display_name": display_name(name), "meta": {}},
        });
        if !config.is_null() {
            body["config"] = config;
        }
        seat_of(expect(self.create(Cred::None, &body).await, 201))
    }

    /// The agent holding `key` creates a Gomoku match with `config`; asserts 201.
    pub(crate) async fn create_as(&self, key: &str, config: Value) -> Seat {
        let mut body = json!({"game": "gomoku"});
        if !config.is_null() {
            body["config"] = config;
        }
        seat_of(expect(self.create(Cred::Bearer(key), &body).await, 201))
    }

    /// `POST /api/matches/{id}/join`.
    pub(crate) async fn join(&self, id: &str, cred: Cred<'_>, body: &Value) -> Reply {
        self.post(&format!("/api/matches/{id}/join"), cred, body)
            .await
    }

    /// A guest `name` joins match `id`; asserts 200.
    pub(crate) async fn join_guest(&self, id: &str, name: &str) -> Seat {
        let body =
            json!({"player": {"name": name, "display_name": display_name(name), "meta": {}}});
        seat_of(expect(self.join(id, Cred::None, &body).await, 200))
    }

    /// The agent holding `key` joins match `id`; asserts 200.
    pub(crate) async fn join_as(&self, id: &str, key: &str) -> Seat {
        seat_of(expect(
            self.join(id, Cred::Bearer(key), &json!({})).await,
            200,
        ))
    }

    /// Guests `alice` and `bob` sit down at a new match with `config`.
    pub(crate) async fn table(&self, config: Value) -> Table {
        let black = self.create_guest("alice", config).await;
        let white = self.join_guest(&black.id, "bob").await;
        Table {
            id: black.id.clone(),
            black,
            white,
        }
    }

    /// `POST /api/matches/{id}/action` with `X-Play-Token: token`.
    pub(crate) async fn action(&self, id: &str, token: &str, body: &Value) -> Reply {
        self.action_as(id, Cred::Play(token), body).await
    }

    /// `POST /api/matches/{id}/action` with any credential.
    pub(crate) async fn action_as(&self, id: &str, cred: Cred<'_>, body: &Value) -> Reply {
        self.post(&format!("/api/matches/{id}/action"), cred, body)
            .await
    }

    /// Places a stone with `token`; asserts that it is accepted and returns the response.
    pub(crate) async fn place(&self, id: &str, token: &str, x: i64, y: i64) -> Value {
        let body = json!({"type": "place_stone", "x": x, "y": y});
        let reply = expect(self.action(id, token, &body).await, 200);
        assert_eq!(reply["accepted"], true, "{reply}");
        reply
    }

    /// Plays [`FIVE`] and [`FIFTH`] at `table`; returns the final action's response.
    pub(crate) async fn five_in_row(&self, table: &Table) -> Value {
        for ((bx, by), (wx, wy)) in FIVE {
            self.place(&table.id, &table.black.token, bx, by).await;
            self.place(&table.id, &table.white.token, wx, wy).await;
        }
        self.place(&table.id, &table.black.token, FIFTH.0, FIFTH.1)
            .await
    }

    /// `POST /api/matches/{id}/resign`.
    pub(crate) async fn resign(&self, id: &str, token: &str) -> Reply {
        self.post(
            &format!("/api/matches/{id}/resign"),
            Cred::Play(token),
            &json!({}),
        )
        .await
    }

    /// `GET /api/matches/{id}` as a spectator; asserts 200.
    pub(crate) async fn snapshot(&self, id: &str) -> Value {
        expect(self.snapshot_with(id, "", Cred::None).await, 200)
    }

    /// `GET /api/matches/{id}?{query}` with `cred`.
    pub(crate) async fn snapshot_with(&self, id: &str, query: &str, cred: Cred<'_>) -> Reply {
        self.get(&format!("/api/matches/{id}?{query}"), cred).await
    }

    /// `GET /api/matches/{id}/events?since={since}&wait={wait}` as a spectator; asserts 200
    /// and the response's shape.
    pub(crate) async fn events(&self, id: &str, since: i64, wait: i64) -> Value {
        let query = format!("since={since}&wait={wait}");
        let page = expect(self.events_with(id, &query, Cred::None).await, 200);
        check_page(id, since, &page);
        page
    }

    /// `GET /api/matches/{id}/events?{query}` with `cred`.
    pub(crate) async fn events_with(&self, id: &str, query: &str, cred: Cred<'_>) -> Reply {
        self.get(&format!("/api/matches/{id}/events?{query}"), cred)
            .await
    }

    /// Every event of match `id` from the start, page by page with `wait=0`; asserts that
    /// `seq` runs 1, 2, 3… with no gap or duplicate across pages and that every page holds
    /// at most 100 events.
    pub(crate) async fn all_events(&self, id: &str) -> Vec<Value> {
        let mut events: Vec<Value> = Vec::new();
        let mut since = 0;
        for _ in 0..1_000 {
            let page = self.events(id, since, 0).await;
            let batch = page["events"].as_array().cloned().unwrap_or_default();
            if batch.is_empty() {
                return events;
            }
            assert!(
                batch.len() <= 100,
                "at most 100 events a response: {}",
                batch.len()
            );
            for event in batch {
                let expected = i64::try_from(events.len()).expect("few events") + 1;
                assert_eq!(event["seq"], expected, "seq is contiguous: {event}");
                events.push(event);
            }
            since = page["next_since"].as_i64().expect("next_since");
        }
        panic!("the events never end");
    }

    /// Long-polls match `id` from `since` until an event of type `kind` arrives; returns it
    /// with every event seen on the way (it included). Fails if none arrives within the real-
    /// time guard.
    pub(crate) async fn wait_for(&self, id: &str, since: i64, kind: &str) -> (Value, Vec<Value>) {
        let mut seen = Vec::new();
        let mut since = since;
        for _ in 0..100 {
            let page = guarded(&format!("a {kind} event"), self.events(id, since, 25)).await;
            for event in page["events"].as_array().cloned().unwrap_or_default() {
                seen.push(event.clone());
                if event["type"] == kind {
                    return (event, seen);
                }
            }
            since = page["next_since"].as_i64().expect("next_since");
        }
        panic!("no {kind} event among {seen:?}");
    }

    /// The `seq` of the latest event of match `id`.
    pub(crate) async fn last_seq(&self, id: &str) -> i64 {
        self.all_events(id)
            .await
            .last()
            .and_then(|event| event["seq"].as_i64())
            .unwrap_or(0)
    }

    /// `GET path` as a browser would, for pages.
    pub(crate) async fn page(&self, path: &str) -> Page {
        let response = self.request(Method::GET, path, Cred::None, None).await;
        let status = response.status().as_u16();
        let content_type = content_type(&response);
        let text = response.text().await.expect("a body");
        Page {
            status,
            content_type,
            text,
        }
    }

    /// `GET /matches/{id}/claim`.
    pub(crate) async fn claim(&self, id: &str) -> Page {
        self.page(&format!("/matches/{id}/claim")).await
    }

    /// `GET /api/matches/{id}/events/stream`: its content type and the events it sends, read
    /// from its `data:` lines, up to the first for which `until` holds.
    pub(crate) async fn stream(
        &self,
        id: &str,
        query: &str,
        until: impl Fn(&Value) -> bool,
    ) -> (String, Vec<Value>) {
        let response = self
            .request(
                Method::GET,
                &format!("/api/matches/{id}/events/stream?{query}"),
                Cred::None,
                None,
            )
            .await;
        assert_eq!(response.status(), 200, "the SSE stream opens");
        let content_type = content_type(&response);
        let mut bytes = Box::pin(response.bytes_stream());
        let mut buffer = String::new();
        let mut events: Vec<Value> = Vec::new();
        while !events.last().is_some_and(&until) {
            // An SSE message ends with a blank line; its data is the `data:` lines joined.
            if let Some(end) = buffer.find("\n\n") {
                let message: String = buffer.drain(..end + 2).collect();
                let data: Vec<&str> = message
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if !data.is_empty() {
                    let joined = data.join("\n");
                    events.push(serde_json::from_str(&joined).unwrap_or_else(|_| {
                        panic!("each SSE message's data is one JSON event: {joined}")
                    }));
                }
                continue;
            }
            let chunk = guarded("an SSE message", bytes.next())
                .await
                .expect("the stream stays open")
                .expect("no transport error");
            buffer.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
        }
        (content_type, events)
    }

    /// `POST /api/agents` registering `name` with `extra` fields; asserts success and returns
    /// the agent with its `api_key`.
    pub(crate) async fn register(&self, name: &str, extra: Value) -> Agent {
        let mut body = json!({"name": name});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let reply = self.post("/api/agents", Cred::None, &body).await;
        assert!(
            matches!(reply.status.as_u16(), 200 | 201),
            "registration succeeds: {} {}",
            reply.status,
            reply.text
        );
        let key = reply.body["api_key"]
            .as_str()
            .unwrap_or_else(|| panic!("the api_key is shown: {}", reply.text))
            .to_owned();
        Agent {
            name: name.to_owned(),
            key,
        }
    }

    /// `GET /api/agents/me` with `key`.
    pub(crate) async fn me(&self, key: &str) -> Reply {
        self.get("/api/agents/me", Cred::Bearer(key)).await
    }

    /// `POST /api/agents/me/rotate-key` with `key`.
    pub(crate) async fn rotate(&self, key: &str) -> Reply {
        self.post("/api/agents/me/rotate-key", Cred::Bearer(key), &json!({}))
            .await
    }

    /// `GET /api/agents/{name}`.
    pub(crate) async fn agent(&self, name: &str) -> Reply {
        self.get(&format!("/api/agents/{name}"), Cred::None).await
    }

    /// `GET /api/agents?limit={limit}` (no limit for `None`); asserts 200 and returns the
    /// listed agents.
    pub(crate) async fn leaderboard(&self, limit: Option<u32>) -> Vec<Value> {
        let path = limit.map_or("/api/agents".to_owned(), |limit| {
            format!("/api/agents?limit={limit}")
        });
        list_of(&expect(self.get(&path, Cred::None).await, 200))
    }
}

/// The display name this suite gives a guest called `name`, as a provider would spell it.
pub(crate) fn display_name(name: &str) -> String {
    format!("{name}@clawdchat")
}

/// Asserts `reply`'s status and returns its JSON body.
#[track_caller]
pub(crate) fn expect(reply: Reply, status: u16) -> Value {
    assert_eq!(
        reply.status.as_u16(),
        status,
        "unexpected status; body: {}",
        reply.text
    );
    reply.body
}

/// Asserts that `reply` is the protocol's error `code` with `status`, in its
/// `{error, message, detail}` shape; returns the body.
#[track_caller]
pub(crate) fn expect_error(reply: Reply, status: u16, code: &str) -> Value {
    expect_error_among(reply, &[(status, code)])
}

/// Asserts that `reply` is one of the protocol's errors `allowed` (status and code), in its
/// `{error, message, detail}` shape; returns the body.
#[track_caller]
pub(crate) fn expect_error_among(reply: Reply, allowed: &[(u16, &str)]) -> Value {
    let got = (reply.status.as_u16(), reply.body["error"].as_str());
    assert!(
        allowed
            .iter()
            .any(|(status, code)| got == (*status, Some(*code))),
        "expected one of {allowed:?}, got {} {}",
        reply.status,
        reply.text
    );
    check_error_shape(&reply.body);
    reply.body
}

/// Asserts the protocol's error shape: `error` in snake case, a `message` for people and a
/// `detail` object.
#[track_caller]
pub(crate) fn check_error_shape(body: &Value) {
    let code = body["error"].as_str().unwrap_or_default();
    assert!(
        !code.is_empty()
            && code
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
        "error is a snake_case code: {body}"
    );
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "message explains the error: {body}"
    );
    assert!(body["detail"].is_object(), "detail is an object: {body}");
}

/// The seat a 201 or 200 from create or join describes; asserts its common fields.
#[track_caller]
fn seat_of(body: Value) -> Seat {
    let id = id_of(&body["match_id"]);
    let seat = body["seat"].as_i64().expect("seat is a number");
    let token = body["play_token"]
        .as_str()
        .expect("play_token is a string")
        .to_owned();
    assert!(is_token(&token, "pk_live_", 32), "play_token: {token}");
    Seat {
        id,
        seat,
        token,
        body,
    }
}

/// A match id as a path segment: the protocol writes it as a string, but a number reads the
/// same in a path.
#[track_caller]
pub(crate) fn id_of(value: &Value) -> String {
    match value {
        Value::String(id) if !id.is_empty() => id.clone(),
        Value::Number(id) => id.to_string(),
        other => panic!("match_id: {other}"),
    }
}

/// Whether `token` is `prefix` followed by at least `min` URL-safe characters and nothing else.
pub(crate) fn is_token(token: &str, prefix: &str, min: usize) -> bool {
    token.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() >= min
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// The entries of a list response: the body itself when it is an array, else its first field
/// that holds an array (the protocol does not name the leaderboard's wrapper).
#[track_caller]
pub(crate) fn list_of(body: &Value) -> Vec<Value> {
    if let Some(list) = body.as_array() {
        return list.clone();
    }
    body.as_object()
        .and_then(|fields| fields.values().find_map(Value::as_array))
        .cloned()
        .unwrap_or_else(|| panic!("a list: {body}"))
}

/// The wins an agent's profile or leaderboard entry reports (`wins`, at the top or in
/// `stats`).
#[track_caller]
pub(crate) fn wins_of(entry: &Value) -> i64 {
    entry["wins"]
        .as_i64()
        .or_else(|| entry["stats"]["wins"].as_i64())
        .unwrap_or_else(|| panic!("the wins are shown: {entry}"))
}

/// Asserts an events response's shape: `match_id`, `since` as asked, `next_since`, `events`
/// and `status`.
#[track_caller]
fn check_page(id: &str, since: i64, page: &Value) {
    assert_eq!(id_of(&page["match_id"]), id, "{page}");
    assert_eq!(page["since"], since, "since is echoed: {page}");
    let events = page["events"].as_array().expect("events is a list");
    let next = page["next_since"].as_i64().expect("next_since is a number");
    let last = events.last().map_or(since, |event| {
        event["seq"].as_i64().expect("every event has a seq")
    });
    assert_eq!(next, last, "next_since is the last seq returned: {page}");
    for event in events {
        assert!(
            event["seq"].as_i64().is_some_and(|seq| seq > since),
            "only events after since: {page}"
        );
        assert!(event["type"].is_string(), "every event has a type: {event}");
    }
    assert!(
        ["waiting", "in_progress", "finished", "cancelled"]
            .contains(&page["status"].as_str().unwrap_or_default()),
        "status is one of the protocol's: {page}"
    );
}

/// Asserts that `actual` has every field of `expected` with the same value, objects compared
/// the same way at every depth and lists entry by entry: the protocol lets a server add fields
/// at any time (§9), so a client checks the fields it knows and tolerates others.
#[track_caller]
pub(crate) fn assert_fields(actual: &Value, expected: &Value) {
    assert!(
        has_fields(actual, expected),
        "expected at least {expected}, got {actual}"
    );
}

fn has_fields(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => expected.iter().all(|(key, value)| {
            actual
                .get(key)
                .is_some_and(|field| has_fields(field, value))
        }),
        (Value::Array(actual), Value::Array(expected)) => {
            actual.len() == expected.len()
                && actual
                    .iter()
                    .zip(expected)
                    .all(|(field, value)| has_fields(field, value))
        }
        _ => actual == expected,
    }
}

/// The events of `kind` among `events`.
pub(crate) fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .collect()
}

/// The types of `events`, in order.
pub(crate) fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|event| event["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Waits for `future`, failing the test with `what` if it takes longer than the real-time
/// guard.
pub(crate) async fn guarded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not come within {GUARD:?}"))
}

/// Unix seconds of an ISO 8601 UTC time (`2026-04-20T02:00:01Z`, fractions and `+00:00`
/// allowed); `None` for anything else.
pub(crate) fn unix_of_iso(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[10] != b'T' {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let zone = text.get(19..)?;
    let zone = zone.strip_prefix('.').map_or(zone, |rest| {
        rest.trim_start_matches(|c: char| c.is_ascii_digit())
    });
    if !matches!(zone, "Z" | "+00:00") {
        return None;
    }
    // Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let shifted = if month <= 2 { year - 1 } else { year };
    let era = shifted.div_euclid(400);
    let year_of_era = shifted - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second)
}

#[test]
fn iso_times_are_read_as_unix_seconds() {
    for (text, seconds) in [
        ("1970-01-01T00:00:00Z", Some(0)),
        ("2026-11-28T21:06:40Z", Some(T0_S)),
        ("2000-02-29T00:00:00.000Z", Some(951_782_400)),
        ("2026-04-20T02:00:01+00:00", Some(1_776_650_401)),
        ("2026-04-20 02:00:01", None),
        ("1776650401", None),
    ] {
        assert_eq!(unix_of_iso(text), seconds, "{text}");
    }
}
