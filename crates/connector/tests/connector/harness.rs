//! A server on port 0 with a fresh database and a manual clock (match clocks never run out
//! here, so a slow machine cannot flag a leg), and connectors running in this process.

use std::sync::Arc;
use std::time::Duration;

use arbiter_arena::{Arena, ArenaConfig, ManualClock};
use arbiter_connector::{EngineSpec, Exit, Options};
use arbiter_store_sqlite::SqliteStore;
use reqwest::Client;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The longest a test waits for something that should take seconds; reaching it fails the test
/// instead of hanging it.
pub(crate) const PATIENCE: Duration = Duration::from_secs(90);

/// The examples and test engines, relative to this crate.
pub(crate) fn engine_file(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `python3`, or `None` (with a notice) where it is not installed: the tests that run Python
/// engines are then skipped, so that the suite still passes on a machine without Python.
pub(crate) fn python() -> Option<&'static str> {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        eprintln!("python3 is not installed: skipping a test that runs a Python engine");
    }
    found.then_some("python3")
}

/// The families the test server runs.
fn games() -> arbiter_arena::Games {
    arbiter_arena::Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY)
        .with(&arbiter_gomoku::FAMILY)
        .with(&arbiter_chess::FAMILY)
}

pub(crate) struct Server {
    pub(crate) url: String,
    pub(crate) dir: tempfile::TempDir,
    clock: ManualClock,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
    client: Client,
}

impl Server {
    pub(crate) async fn start() -> Server {
        // What the connector and the server say is shown for a failing test.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                "arbiter_connector=debug,arbiter_arena=info",
            ))
            .with_test_writer()
            .try_init();
        let dir = tempfile::tempdir().expect("temp dir");
        Server::start_on(dir, ManualClock::new(1_795_900_000_000), "127.0.0.1:0").await
    }

    /// Starts on the database in `dir`, listening on `address`.
    pub(crate) async fn start_on(
        dir: tempfile::TempDir,
        clock: ManualClock,
        address: &str,
    ) -> Server {
        let store = SqliteStore::open(&dir.path().join("arbiter.db"))
            .await
            .expect("store");
        let config = ArenaConfig {
            anonymous_mints_per_window: 1_000,
            ..ArenaConfig::default()
        };
        let arena = Arena::start(
            config,
            games(),
            Arc::new(clock.clone()),
            Arc::new(store),
            None,
        )
        .await
        .expect("arena");
        // FlipSight's dialect serves Othello, as the binary sets it.
        let dialects = arbiter_server::Dialects::none()
            .with_flipsight(arena.games(), "othello")
            .expect("Othello is registered");
        let listener = tokio::net::TcpListener::bind(address).await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let (stop, stopped) = oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let task = tokio::spawn(async move {
            arbiter_server::serve(listener, arena, dialects, shutdown)
                .await
                .expect("serve");
        });
        Server {
            url,
            dir,
            clock,
            stop,
            task,
            client: arbiter_http_client::client(),
        }
    }

    /// Stops the server as a process exit would (every connection closed), keeping its
    /// database, and starts it again on the same address.
    pub(crate) async fn restart(self) -> Server {
        let _ = self.stop.send(());
        tokio::time::timeout(PATIENCE, self.task)
            .await
            .expect("the server stops")
            .expect("serve task");
        let address = self.url.trim_start_matches("http://").to_owned();
        Server::start_on(self.dir, self.clock, &address).await
    }

    pub(crate) async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self
            .client
            .request(method, format!("{}/api/v1{path}", self.url))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or_default())
    }

    /// A new anonymous bot's token.
    pub(crate) async fn mint(&self, name: &str) -> String {
        let (status, body) = self
            .call(
                reqwest::Method::POST,
                "/bots/anon",
                "",
                Some(json!({"name": name})),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        body["token"].as_str().expect("token").to_owned()
    }

    /// Challenges `opponent`; returns the match id.
    pub(crate) async fn challenge(&self, token: &str, opponent: &str, extra: Value) -> i64 {
        let mut body = json!({"opponent": opponent});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let (status, body) = self
            .call(reqwest::Method::POST, "/challenges", token, Some(body))
            .await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_i64().expect("id")
    }

    /// Waits until the bot's connector has reported its environment, which it does once it
    /// is following the bot's events.
    pub(crate) async fn connected(&self, token: &str) {
        let reported = async {
            while self.me(token).await["environment"].is_null() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(PATIENCE, reported)
            .await
            .expect("the connector reports its environment");
    }

    /// Moves the server's clock on.
    pub(crate) fn advance(&self, ms: i64) {
        self.clock.advance(ms);
    }

    pub(crate) async fn snapshot(&self, id: i64) -> Value {
        self.call(reqwest::Method::GET, &format!("/matches/{id}"), "", None)
            .await
            .1
    }

    pub(crate) async fn me(&self, token: &str) -> Value {
        self.call(reqwest::Method::GET, "/bots/me", token, None)
            .await
            .1
    }

    /// Waits for the match to end (long-polling its events), checks its export as
    /// `arbiter verify` would, and returns its snapshot.
    pub(crate) async fn ended(&self, id: i64) -> Value {
        let snapshot = self.closed(id).await;
        let (status, export) = self
            .call(
                reqwest::Method::GET,
                &format!("/matches/{id}/export"),
                "",
                None,
            )
            .await;
        assert_eq!(status, 200, "{export}");
        let export = serde_json::from_value(export).expect("an export");
        let verdict = arbiter_arena::verify::verify(&games(), &export);
        assert!(verdict.is_verified(), "match {id}: {verdict:#?}");
        snapshot
    }

    /// Waits for the match to end (long-polling its events) and returns its snapshot.
    async fn closed(&self, id: i64) -> Value {
        let wait = async {
            let mut since = 0;
            loop {
                let (_, page) = self
                    .call(
                        reqwest::Method::GET,
                        &format!("/matches/{id}/events?since={since}&wait=30"),
                        "",
                        None,
                    )
                    .await;
                since = page["next_since"].as_i64().unwrap_or(since);
                if matches!(page["status"].as_str(), Some(s) if s != "pending" && s != "running") {
                    return self.snapshot(id).await;
                }
            }
        };
        tokio::time::timeout(PATIENCE, wait)
            .await
            .expect("the match ends in time")
    }

    /// Plays the first legal move of every decision `token` has in match `id`, until it ends.
    pub(crate) async fn play_until_end(
        &self,
        id: i64,
        token: &str,
        stop_after: Option<usize>,
    ) -> usize {
        let play = async {
            let mut moves = 0;
            loop {
                let (status, turns) = self
                    .call(
                        reqwest::Method::GET,
                        &format!("/matches/{id}/turns?wait=30"),
                        token,
                        None,
                    )
                    .await;
                assert_eq!(status, 200, "{turns}");
                if !matches!(turns["status"].as_str(), Some("pending" | "running")) {
                    return moves;
                }
                for turn in turns["turns"].as_array().into_iter().flatten() {
                    let mv = turn["request"]["legal_moves"]
                        .get(0)
                        .cloned()
                        .unwrap_or(json!(-1));
                    let body =
                        json!({"leg": turn["leg"], "revision": turn["revision"], "move": mv});
                    let (status, reply) = self
                        .call(
                            reqwest::Method::POST,
                            &format!("/matches/{id}/moves"),
                            token,
                            Some(body),
                        )
                        .await;
                    assert!(status == 200 || status == 409, "{reply}");
                    moves += 1;
                    if stop_after.is_some_and(|n| moves >= n) {
                        return moves;
                    }
                }
            }
        };
        tokio::time::timeout(PATIENCE, play)
            .await
            .expect("the opponent's turns keep coming")
    }
}

/// A connector running in this process.
pub(crate) struct Connector {
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<Exit, arbiter_connector::ConnectorError>>,
}

impl Connector {
    pub(crate) fn start(options: Options) -> Connector {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(arbiter_connector::run(options, async move {
            let _ = stopped.await;
        }));
        Connector {
            stop: Some(stop),
            task,
        }
    }

    /// Options for `server` with `token` and `engine`.
    pub(crate) fn options(server: &Server, token: &str, engine: EngineSpec) -> Options {
        Options::new(server.url.clone(), token, engine)
    }

    /// Asks it to stop and returns how it ended.
    pub(crate) async fn stop(mut self) -> Exit {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.exit().await
    }

    /// Waits for it to end by itself.
    pub(crate) async fn exit(self) -> Exit {
        tokio::time::timeout(PATIENCE, self.task)
            .await
            .expect("the connector stops in time")
            .expect("the connector does not panic")
            .expect("the connector runs")
    }
}

/// The number of moves played in both legs of a finished match.
pub(crate) fn moves_played(snapshot: &Value) -> usize {
    snapshot["legs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|leg| leg["view"]["history"].as_array().map_or(0, Vec::len))
        .sum()
}
