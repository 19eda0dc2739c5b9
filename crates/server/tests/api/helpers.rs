//! The test harness: a real server on port 0 with a fresh database and an injected clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arbiter_arena::{Arena, ArenaConfig, ManualClock};
use arbiter_store::{
    BotRecord, EventRecord, MatchId, MatchRecord, MaxIds, Store, StoreError, StoreFuture, Write,
};
use arbiter_store_sqlite::SqliteStore;
use futures::StreamExt;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// The administrator token of test servers.
pub(crate) const ADMIN: &str = "test-admin-token";
/// The clock's reading when a test starts (2026-11-29).
pub(crate) const T0: i64 = 1_795_900_000_000;

/// A running test server.
pub(crate) struct TestApp {
    pub(crate) base: String,
    pub(crate) clock: ManualClock,
    pub(crate) client: Client,
    pub(crate) arena: Arena,
    pub(crate) dir: tempfile::TempDir,
    server: tokio::task::JoinHandle<()>,
}

/// A response: status, JSON body (`Null` when the body is not JSON) and the raw text.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) body: Value,
    pub(crate) text: String,
    pub(crate) headers: reqwest::header::HeaderMap,
}

impl Reply {
    /// Reads `response` whole.
    pub(crate) async fn read(response: reqwest::Response) -> Reply {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        Reply {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
            headers,
        }
    }

    /// Asserts a status and returns the body.
    #[track_caller]
    pub(crate) fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        self.body
    }

    /// Asserts an error status and code.
    #[track_caller]
    pub(crate) fn expect_error(self, status: u16, code: &str) -> Value {
        let body = self.expect(status);
        assert_eq!(body["error"], code, "body: {body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "an error explains itself: {body}"
        );
        body
    }
}

pub(crate) async fn spawn_app() -> TestApp {
    spawn_app_with(ArenaConfig::default()).await
}

pub(crate) async fn spawn_app_with(config: ArenaConfig) -> TestApp {
    spawn_running(config, games(), dialects).await
}

/// A server on a fresh database with the clock at [`T0`], running `games` and speaking the
/// dialects `dialects` gives for them.
pub(crate) async fn spawn_running(
    config: ArenaConfig,
    games: arbiter_arena::Games,
    dialects: fn(&arbiter_arena::Games) -> arbiter_server::Dialects,
) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open_store(&dir).await;
    start_running(dir, ManualClock::new(T0), config, store, games, dialects).await
}

/// Starts a server on the database in `dir` with `clock`.
pub(crate) async fn start_on(
    dir: tempfile::TempDir,
    clock: ManualClock,
    config: ArenaConfig,
) -> TestApp {
    let store = open_store(&dir).await;
    start_with_store(dir, clock, config, store).await
}

/// The SQLite database in `dir`, created if it is not there yet.
async fn open_store(dir: &tempfile::TempDir) -> Arc<dyn Store> {
    let store = SqliteStore::open(&dir.path().join("arbiter.db"))
        .await
        .expect("store");
    Arc::new(store)
}

/// Starts a server on `store`, whose files (if any) are in `dir`.
pub(crate) async fn start_with_store(
    dir: tempfile::TempDir,
    clock: ManualClock,
    config: ArenaConfig,
    store: Arc<dyn Store>,
) -> TestApp {
    start_running(dir, clock, config, store, games(), dialects).await
}

/// Starts a server on `store` running `games` and speaking the dialects `dialects` gives for
/// them.
pub(crate) async fn start_running(
    dir: tempfile::TempDir,
    clock: ManualClock,
    config: ArenaConfig,
    store: Arc<dyn Store>,
    games: arbiter_arena::Games,
    dialects: fn(&arbiter_arena::Games) -> arbiter_server::Dialects,
) -> TestApp {
    let arena = Arena::start(config, games, Arc::new(clock.clone()), store, Some(ADMIN))
        .await
        .expect("arena");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let base = format!("http://{}/api/v1", listener.local_addr().expect("address"));
    let served = arena.clone();
    let dialects = dialects(arena.games());
    let server = tokio::spawn(async move {
        arbiter_server::serve(listener, served, dialects, std::future::pending())
            .await
            .expect("serve");
    });
    TestApp {
        base,
        clock,
        client: arbiter_http_client::client(),
        arena,
        dir,
        server,
    }
}

impl TestApp {
    /// Stops this server and its arena; returns what a restart needs.
    pub(crate) async fn stop(self) -> (tempfile::TempDir, ManualClock) {
        self.arena.shutdown().await;
        self.server.abort();
        (self.dir, self.clock)
    }

    pub(crate) async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        Reply::read(request.send().await.expect("request sent")).await
    }

    /// The server's root, where the paths of dialects other than the native API hang.
    pub(crate) fn root(&self) -> &str {
        self.base.trim_end_matches("/api/v1")
    }

    /// A request to `path` off the server's [root](TestApp::root) with `headers` and a JSON
    /// `body`.
    pub(crate) async fn call_root(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Reply {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.root()));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        Reply::read(request.send().await.expect("request sent")).await
    }

    pub(crate) async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.call(Method::GET, path, token, None).await
    }

    pub(crate) async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Reply {
        self.call(Method::POST, path, token, Some(body)).await
    }

    /// Registers a bot with the administrator token; returns (id, token).
    pub(crate) async fn register(&self, name: &str) -> (i64, String) {
        let body = self.post("/admin/bots", Some(ADMIN), json!({"name": name, "supported_variants": ["std", "anti", "grand", "octagon", "reversi"]})).await.expect(201);
        (
            body["bot"]["id"].as_i64().expect("id"),
            body["token"].as_str().expect("token").to_owned(),
        )
    }

    /// Mints an anonymous bot; returns (id, token).
    pub(crate) async fn anonymous(&self) -> (i64, String) {
        let body = self.post("/bots/anon", None, json!({})).await.expect(201);
        (
            body["bot"]["id"].as_i64().expect("id"),
            body["token"].as_str().expect("token").to_owned(),
        )
    }

    /// `challenger` challenges `opponent`; returns the match id.
    pub(crate) async fn challenge(&self, challenger: &str, opponent: &str, extra: Value) -> i64 {
        let mut body = json!({"opponent": opponent});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        self.post("/challenges", Some(challenger), body)
            .await
            .expect(201)["id"]
            .as_i64()
            .expect("match id")
    }

    /// Registers two bots and starts a paired std match between them.
    pub(crate) async fn running_match(&self) -> (i64, String, String) {
        let (_, a) = self.register("Alpha").await;
        let (_, b) = self.register("Beta").await;
        let id = self.challenge(&a, "Beta", json!({})).await;
        self.post(&format!("/challenges/{id}/accept"), Some(&b), json!({}))
            .await
            .expect(200);
        (id, a, b)
    }

    /// The pending decisions of a bot in a match, returned at once.
    pub(crate) async fn turns(&self, id: i64, token: &str) -> Vec<Value> {
        let body = self
            .get(&format!("/matches/{id}/turns"), Some(token))
            .await
            .expect(200);
        body["turns"].as_array().cloned().unwrap_or_default()
    }

    /// Plays the first legal move (or action) of each pending decision of `token` in match
    /// `id`.
    pub(crate) async fn play_first_moves(&self, id: i64, token: &str) -> Vec<Value> {
        let mut replies = Vec::new();
        for turn in self.turns(id, token).await {
            // Othello's requests list `legal_moves`; every game's list `legal_actions`.
            let request = &turn["request"];
            let mv = request["legal_moves"]
                .get(0)
                .or_else(|| request["legal_actions"].get(0))
                .cloned()
                .unwrap_or(json!(-1));
            let body = json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv});
            replies.push(
                self.post(&format!("/matches/{id}/moves"), Some(token), body)
                    .await
                    .expect(200),
            );
        }
        replies
    }

    /// Moves the clock and lets woken tasks run.
    pub(crate) async fn advance(&self, ms: i64) {
        self.clock.advance(ms);
        settle().await;
    }

    /// The match, as a spectator sees it.
    pub(crate) async fn snapshot(&self, id: i64) -> Value {
        self.get(&format!("/matches/{id}"), None).await.expect(200)
    }

    /// The match's snapshot once it is neither pending nor running, as bots the server plays
    /// for itself (house, webhook and sandboxed bots) play it out.
    pub(crate) async fn until_closed(&self, id: i64) -> Value {
        for _ in 0..2_000 {
            let snapshot = self.snapshot(id).await;
            if snapshot["status"] != "running" && snapshot["status"] != "pending" {
                return snapshot;
            }
            settle().await;
        }
        panic!("match {id} never ended");
    }

    /// Opens the bot's event stream.
    pub(crate) async fn stream(&self, token: &str) -> Lines {
        self.stream_with(token, "").await
    }

    /// Opens the bot's event stream with `query` (`?lobby=true`).
    pub(crate) async fn stream_with(&self, token: &str, query: &str) -> Lines {
        let response = self
            .client
            .get(format!("{}/stream{query}", self.base))
            .bearer_auth(token)
            .send()
            .await
            .expect("stream");
        assert_eq!(response.status(), 200, "stream refused");
        assert_eq!(response.headers()["content-type"], "application/x-ndjson");
        Lines::from_response(response)
    }
}

/// Lets spawned tasks (match actors woken by the clock) run to completion of their step.
pub(crate) async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
}

/// An NDJSON stream, read line by line.
pub(crate) struct Lines {
    bytes: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: Vec<u8>,
}

impl Lines {
    /// Reads `response`'s body as NDJSON.
    pub(crate) fn from_response(response: reqwest::Response) -> Lines {
        Lines {
            bytes: Box::pin(response.bytes_stream()),
            buffer: Vec::new(),
        }
    }

    /// The next line that is not empty (a keep-alive), as JSON; fails the test if none
    /// arrives within two seconds.
    pub(crate) async fn next(&mut self) -> Value {
        loop {
            let text = self.next_text().await;
            if !text.is_empty() {
                return serde_json::from_str(&text).expect("each line is one JSON object");
            }
        }
    }

    /// The next line as text, without its newline; fails the test if none arrives within
    /// two seconds.
    pub(crate) async fn next_text(&mut self) -> String {
        loop {
            if let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                return String::from_utf8_lossy(&line[..end]).into_owned();
            }
            let chunk = tokio::time::timeout(Duration::from_secs(2), self.bytes.next())
                .await
                .expect("a line arrives")
                .expect("the stream is open")
                .expect("no transport error");
            self.buffer.extend_from_slice(&chunk);
        }
    }

    /// The next line whose `type` is `kind`, skipping others.
    pub(crate) async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let line = self.next().await;
            if line["type"] == kind {
                return line;
            }
        }
    }

    /// Reads what is left; true when the server ends the stream within two seconds.
    pub(crate) async fn ends(&mut self) -> bool {
        loop {
            match tokio::time::timeout(Duration::from_secs(2), self.bytes.next()).await {
                Err(_) | Ok(Some(Err(_))) => return false,
                Ok(None) => return true,
                Ok(Some(Ok(chunk))) => self.buffer.extend_from_slice(&chunk),
            }
        }
    }

    /// Whether a complete line is already waiting, without waiting for more.
    pub(crate) async fn nothing_pending(&mut self) -> bool {
        if self.buffer.contains(&b'\n') {
            return false;
        }
        match tokio::time::timeout(Duration::from_millis(50), self.bytes.next()).await {
            Err(_) => true,
            Ok(Some(Ok(chunk))) => {
                self.buffer.extend_from_slice(&chunk);
                !self.buffer.contains(&b'\n')
            }
            Ok(_) => false,
        }
    }
}

/// A SQLite store whose writes can be made to fail, as when the disk is full.
pub(crate) struct FlakyStore {
    inner: SqliteStore,
    /// While set, every write fails and stores nothing.
    pub(crate) failing: AtomicBool,
}

impl FlakyStore {
    pub(crate) async fn open(dir: &tempfile::TempDir) -> FlakyStore {
        FlakyStore {
            inner: SqliteStore::open(&dir.path().join("arbiter.db"))
                .await
                .expect("store"),
            failing: AtomicBool::new(false),
        }
    }
}

impl Store for FlakyStore {
    fn write_batch<'a>(&'a self, writes: &'a [Write]) -> StoreFuture<'a, ()> {
        if self.failing.load(Ordering::SeqCst) {
            return Box::pin(async { Err(StoreError::Unavailable("the disk is full".to_owned())) });
        }
        self.inner.write_batch(writes)
    }

    fn bots(&self) -> StoreFuture<'_, Vec<BotRecord>> {
        self.inner.bots()
    }

    fn bot(&self, id: i64) -> StoreFuture<'_, Option<BotRecord>> {
        self.inner.bot(id)
    }

    fn match_by_id(&self, id: MatchId) -> StoreFuture<'_, Option<MatchRecord>> {
        self.inner.match_by_id(id)
    }

    fn open_matches(&self) -> StoreFuture<'_, Vec<MatchRecord>> {
        self.inner.open_matches()
    }

    fn matches_after(&self, after: MatchId, limit: u32) -> StoreFuture<'_, Vec<MatchRecord>> {
        self.inner.matches_after(after, limit)
    }

    fn events(&self, id: MatchId, since: i64, limit: u32) -> StoreFuture<'_, Vec<EventRecord>> {
        self.inner.events(id, since, limit)
    }

    fn max_ids(&self) -> StoreFuture<'_, MaxIds> {
        self.inner.max_ids()
    }

    fn claim_matches<'a>(
        &'a self,
        node: &'a str,
        ids: &'a [MatchId],
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, Vec<arbiter_store::Claim>> {
        self.inner.claim_matches(node, ids, now_ms, until_ms)
    }

    fn renew_leases<'a>(
        &'a self,
        node: &'a str,
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, Vec<MatchId>> {
        self.inner.renew_leases(node, now_ms, until_ms)
    }

    fn unleased_matches(&self, now_ms: i64) -> StoreFuture<'_, Vec<MatchId>> {
        self.inner.unleased_matches(now_ms)
    }

    fn lease(&self, id: MatchId) -> StoreFuture<'_, Option<arbiter_store::LeaseRecord>> {
        self.inner.lease(id)
    }

    fn hold_duty<'a>(
        &'a self,
        name: &'a str,
        node: &'a str,
        now_ms: i64,
        until_ms: i64,
    ) -> StoreFuture<'a, bool> {
        self.inner.hold_duty(name, node, now_ms, until_ms)
    }

    fn reserve_ids(&self, kind: arbiter_store::IdKind, count: u32) -> StoreFuture<'_, i64> {
        if self.failing.load(Ordering::SeqCst) {
            return Box::pin(async { Err(StoreError::Unavailable("the disk is full".to_owned())) });
        }
        self.inner.reserve_ids(kind, count)
    }

    fn last_heartbeat(&self) -> StoreFuture<'_, Option<i64>> {
        self.inner.last_heartbeat()
    }

    fn ratings(&self) -> StoreFuture<'_, Vec<arbiter_store::RatingRecord>> {
        self.inner.ratings()
    }

    fn closed_matches(&self, bot: Option<i64>, limit: u32) -> StoreFuture<'_, Vec<MatchRecord>> {
        self.inner.closed_matches(bot, limit)
    }

    fn accounts(&self) -> StoreFuture<'_, Vec<arbiter_store::AccountRecord>> {
        self.inner.accounts()
    }

    fn sessions(&self, now_ms: i64) -> StoreFuture<'_, Vec<arbiter_store::SessionRecord>> {
        self.inner.sessions(now_ms)
    }

    fn account(&self, id: i64) -> StoreFuture<'_, Option<arbiter_store::AccountRecord>> {
        self.inner.account(id)
    }

    fn sessions_of(
        &self,
        account: i64,
        now_ms: i64,
    ) -> StoreFuture<'_, Vec<arbiter_store::SessionRecord>> {
        self.inner.sessions_of(account, now_ms)
    }

    fn photo(&self, bot: i64) -> StoreFuture<'_, Option<arbiter_store::PhotoRecord>> {
        self.inner.photo(bot)
    }

    fn module(&self, bot: i64) -> StoreFuture<'_, Option<arbiter_store::ModuleRecord>> {
        self.inner.module(bot)
    }

    fn notes(&self, id: MatchId) -> StoreFuture<'_, Vec<arbiter_store::NoteRecord>> {
        self.inner.notes(id)
    }

    fn tournaments(&self) -> StoreFuture<'_, Vec<arbiter_store::TournamentRecord>> {
        self.inner.tournaments()
    }

    fn tournament(
        &self,
        id: arbiter_store::TournamentId,
    ) -> StoreFuture<'_, Option<arbiter_store::TournamentRecord>> {
        self.inner.tournament(id)
    }
}

/// The game families the tests' servers run, as the binary registers them.
pub(crate) fn games() -> arbiter_arena::Games {
    arbiter_arena::Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY)
        .with(&arbiter_gomoku::FAMILY)
}

/// The dialects test servers speak, as the binary sets them: FlipSight's serves Othello, and
/// the Board Game Protocol serves the games played on a board's points, Gomoku when a request
/// names none.
pub(crate) fn dialects(games: &arbiter_arena::Games) -> arbiter_server::Dialects {
    arbiter_server::Dialects::none()
        .with_flipsight(games, "othello")
        .and_then(|dialects| dialects.with_bgp(games, "gomoku"))
        .expect("the test servers run Othello and Gomoku")
}
