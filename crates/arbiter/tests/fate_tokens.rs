//! A six-seat Fate Tokens match over HTTP, to its end: two `arbiter bot` processes running
//! the example engine, a bot answering its turns on long-polls inside the test, and three
//! house bots, on a server in this process whose clock is the test's. The test moves the
//! clock on to the rules' next deadline (a lock, the claim/counter minimum, the ending)
//! whenever nobody owes a decision, so no phase waits for real time; then it checks the export
//! as `arbiter verify` does, and what the long-poll bot was told.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use arbiter_arena::{Arena, ArenaConfig, Clock, Games, ManualClock, MatchExport};
use arbiter_store_sqlite::SqliteStore;
use reqwest::Method;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// The longest a test waits for something that should take seconds; reaching it fails the
/// test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(180);

/// The server's clock at the start.
const T0: i64 = 1_795_900_000_000;

/// The role names as a seat's view spells them.
const ROLES: [&str; 3] = ["common_fortune", "great_fortune", "great_misfortune"];

/// Whether `python3` is installed. Where it is not, the test is skipped with a notice, except
/// on CI, which must run it.
fn have_python() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must run the Fate Tokens match: python3 is not installed"
        );
        eprintln!("python3 is not installed: skipping a test that runs a Python engine");
    }
    found
}

/// The families the server runs.
fn games() -> Games {
    Games::new().with(&arbiter_fate_tokens::FAMILY)
}

/// A server in this process, on port 0, with a fresh database and the test's clock.
struct Server {
    /// The API's base URL (`…/api/v1`).
    base: String,
    clock: ManualClock,
    client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
}

impl Server {
    async fn start(dir: &Path) -> Server {
        let store = SqliteStore::open(&dir.join("arbiter.db"))
            .await
            .expect("store");
        let config = ArenaConfig {
            // The clock jumps from deadline to deadline as fast as the match moves, ahead of
            // a long-poll bot's next request: a bot heard from within the match is present.
            presence_ms: 24 * 3_600_000,
            ..ArenaConfig::default()
        };
        let clock = ManualClock::new(T0);
        let arena = Arena::start(
            config,
            games(),
            Arc::new(clock.clone()),
            Arc::new(store),
            None,
        )
        .await
        .expect("the arena starts");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!(
            "http://{}/api/v1",
            listener.local_addr().expect("an address")
        );
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            arbiter_server::serve(listener, arena, arbiter_server::Dialects::none(), shutdown)
                .await
                .expect("serve");
        });
        Server {
            base,
            clock,
            client: arbiter_http_client::client(),
            stop: Some(stop),
        }
    }

    /// One API call: the status and the JSON body.
    async fn call(&self, method: Method, path: &str, token: &str, body: Value) -> (u16, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token);
        if !body.is_null() {
            request = request.body(body.to_string());
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// A new anonymous bot's token and name.
    async fn mint(&self, name: &str) -> (String, String) {
        let (status, body) = self
            .call(Method::POST, "/bots/anon", "", json!({"name": name}))
            .await;
        assert_eq!(status, 201, "{body}");
        let token = body["token"].as_str().expect("a token").to_owned();
        let (_, me) = self
            .call(Method::GET, "/bots/me", &token, Value::Null)
            .await;
        (token, me["name"].as_str().expect("a name").to_owned())
    }

    /// Waits until the bot has reported its environment, which its connector does once it
    /// follows the bot's events.
    async fn connected(&self, token: &str) {
        let reported = async {
            while self
                .call(Method::GET, "/bots/me", token, Value::Null)
                .await
                .1["environment"]
                .is_null()
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(PATIENCE, reported)
            .await
            .expect("the connector reports its environment");
    }

    async fn snapshot(&self, id: i64) -> Value {
        self.call(Method::GET, &format!("/matches/{id}"), "", Value::Null)
            .await
            .1
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// An `arbiter bot` process running the example engine, its standard error in a file.
struct Connector {
    child: Child,
    log: PathBuf,
}

impl Connector {
    fn start(server: &Server, token: &str, log: PathBuf) -> Connector {
        let root = server.base.trim_end_matches("/api/v1");
        let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .arg("bot")
            .args(["--server", root])
            .args([
                "--engine",
                "python3 ../../examples/fate_tokens_engine.py",
                "--games",
                "fate-tokens",
            ])
            .env("ARBITER_TOKEN", token)
            .env_remove("FS_BOT_TOKEN")
            .env("RUST_LOG", "warn,arbiter_connector=info")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("a log file"))
            .spawn()
            .expect("the connector starts");
        Connector { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Connector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A small deterministic random source (xorshift), so that the long-poll bot's choices are
/// the same from run to run.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % u64::try_from(n.max(1)).expect("small")).expect("small")
    }
}

/// What the long-poll bot saw: its seat and the role its requests told it, if any.
#[derive(Default)]
struct Seen {
    answered: usize,
    seat: Option<u64>,
    role: Option<String>,
}

/// Checks that a request tells its seat nothing of another seat's secrets: no revealed game,
/// the seat's own part only, and no role named anywhere but the seat's own.
fn check_request(request: &Value, seen: &mut Seen) {
    let view = &request["view"];
    assert!(view["revealed"].is_null(), "{request}");
    assert_eq!(view["own"]["seat"], request["seat"], "{request}");
    let seat = request["seat"].as_u64().expect("a seat");
    assert!(seen.seat.is_none_or(|s| s == seat), "one seat: {request}");
    seen.seat = Some(seat);
    if let Some(role) = view["own"]["role"].as_str() {
        assert!(seen.role.as_deref().is_none_or(|r| r == role), "{request}");
        seen.role = Some(role.to_owned());
    }
    let mut others = request.clone();
    others["view"]["own"]["role"] = Value::Null;
    let text = others.to_string();
    for role in ROLES {
        assert!(!text.contains(&format!("\"{role}\"")), "{role}: {request}");
    }
}

/// The long-poll bot: it answers every decision it is asked for with a legal action drawn at
/// random, checking each request, until the match is over.
async fn long_poll_bot(server: &Server, token: &str, id: i64) -> Seen {
    let mut seen = Seen::default();
    let mut random = Xorshift(0x5eed_f00d_cafe_d00d);
    loop {
        let (status, body) = server
            .call(
                Method::GET,
                &format!("/matches/{id}/turns?wait=60000"),
                token,
                Value::Null,
            )
            .await;
        assert_eq!(status, 200, "{body}");
        if !matches!(body["status"].as_str(), Some("running" | "pending")) {
            return seen;
        }
        for turn in body["turns"].as_array().into_iter().flatten() {
            let request = &turn["request"];
            check_request(request, &mut seen);
            let legal = request["legal_actions"].as_array().expect("legal actions");
            let action = &legal[random.below(legal.len())];
            let (status, answer) = server
                .call(
                    Method::POST,
                    &format!("/matches/{id}/moves"),
                    token,
                    json!({"leg": turn["leg"], "revision": turn["revision"], "move": action}),
                )
                .await;
            // Nothing moves the match on while this bot owes a decision but its answer.
            assert_eq!(status, 200, "{action}: {answer}");
            seen.answered += 1;
        }
    }
}

/// Moves the match on: whenever nobody owes a decision, the clock goes to the rules' next
/// deadline (a lock's end, the claim/counter phase's end, the ending's); otherwise it waits
/// for the match's next event. Returns once the match is over.
async fn drive(server: &Server, id: i64) -> Value {
    loop {
        let snapshot = server.snapshot(id).await;
        match snapshot["status"].as_str() {
            Some("pending") => {}
            Some("running") => {
                let leg = &snapshot["legs"][0];
                let nobody = leg["pending"].as_array().is_none_or(Vec::is_empty);
                if nobody {
                    let view = &leg["view"];
                    let now = server.clock.now_ms();
                    let opens = view["opens_at_ms"].as_i64().unwrap_or(0);
                    let at = if opens > now {
                        Some(opens)
                    } else {
                        view["deadline_ms"].as_i64()
                    };
                    let at =
                        at.unwrap_or_else(|| panic!("nobody acts and nothing is due: {snapshot}"));
                    if at > now {
                        server.clock.advance(at - now);
                    }
                }
            }
            _ => return snapshot,
        }
        // Wait for what comes next: the match's next event.
        let seq = snapshot["seq"].as_i64().unwrap_or(0);
        server
            .call(
                Method::GET,
                &format!("/matches/{id}/events?since={seq}&wait=60000"),
                "",
                Value::Null,
            )
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_seats_play_fate_tokens_over_http_to_the_end() {
    if !have_python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::start(dir.path()).await;
    let (poller, _) = server.mint("fate-poller").await;
    let mut connectors = Vec::new();
    let mut names = Vec::new();
    for label in ["fate-engine-a", "fate-engine-b"] {
        let (token, name) = server.mint(label).await;
        connectors.push(Connector::start(
            &server,
            &token,
            dir.path().join(format!("{label}.log")),
        ));
        server.connected(&token).await;
        names.push(name);
    }
    let opponents = [
        names[0].as_str(),
        names[1].as_str(),
        "house-random",
        "house-greedy",
        "house-easy",
    ];
    let (status, challenge) = server
        .call(
            Method::POST,
            "/challenges",
            &poller,
            json!({"opponent": opponents, "game": "fate-tokens", "variant": "quick",
                "format": "single"}),
        )
        .await;
    assert_eq!(status, 201, "{challenge}");
    let id = challenge["id"].as_i64().expect("an id");

    let played = async { tokio::join!(long_poll_bot(&server, &poller, id), drive(&server, id)) };
    let Ok((seen, end)) = tokio::time::timeout(PATIENCE, played).await else {
        let logs: Vec<String> = connectors.iter().map(Connector::log).collect();
        panic!(
            "the match did not end: {}\nconnectors:\n{}",
            server.snapshot(id).await,
            logs.join("\n---\n")
        );
    };

    // The match was played to its end, and one side won it.
    assert_eq!(end["status"], "finished", "{end}");
    let result = &end["result"];
    let finish = &end["legs"][0]["view"]["finish"];
    let winner = match finish["winner"].as_str() {
        Some("good") => 0,
        Some("misfortune") => 1,
        _ => panic!("no winning side: {end}"),
    };
    let teams = result["teams"].as_array().expect("teams");
    let ranks = result["ranks"].as_array().expect("ranks");
    assert_eq!((teams.len(), ranks.len()), (6, 6), "{result}");
    for (team, rank) in teams.iter().zip(ranks) {
        assert_eq!(
            rank == 1,
            *team == winner,
            "the winning team ranks first: {result}"
        );
    }
    assert!(teams.contains(&json!(winner)), "{result}");

    // The long-poll bot played, and the role its requests told it was its own.
    assert!(seen.answered > 0, "the long-poll bot was asked");
    let seat = usize::try_from(seen.seat.expect("a seat")).expect("small");
    if let Some(role) = &seen.role {
        assert_eq!(
            end["legs"][0]["view"]["revealed"]["seats"][seat]["role"], *role,
            "{end}"
        );
    }

    // The export holds every participant's moves and verifies, in this process and with
    // `arbiter verify` on the exported file.
    let text = server
        .client
        .get(format!("{}/matches/{id}/export", server.base))
        .send()
        .await
        .expect("the export")
        .text()
        .await
        .expect("its text");
    let export: MatchExport = serde_json::from_str(&text).expect("an export");
    for participant in 0..6 {
        assert!(
            export.events.iter().any(|e| e.kind == "move"
                && e.audience == Some(participant)
                && serde_json::from_str::<Value>(e.data.get())
                    .is_ok_and(|m| m["participant"] == participant)),
            "participant {participant} played"
        );
    }
    let verdict = arbiter_arena::verify::verify(&games(), &export);
    assert!(verdict.is_verified(), "{verdict:#?}");
    let file = dir.path().join("export.json");
    std::fs::write(&file, &text).expect("the export is written");
    let output = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("verify")
        .arg(&file)
        .output()
        .expect("arbiter verify runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && printed.contains("verified"),
        "{printed}"
    );
    drop(connectors);
}
