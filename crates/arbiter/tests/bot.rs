//! `arbiter bot` as a user runs it: real connector processes against a real server process.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Server, call, start};

/// The longest a test waits for a process or a match; reaching it fails the test.
const PATIENCE: Duration = Duration::from_secs(90);

/// A connector process and what it has written on standard error so far.
struct Bot {
    child: Child,
    log: Arc<Mutex<String>>,
    /// The thread copying standard error into `log`; it ends when the pipe closes.
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Bot {
    /// Starts `arbiter bot` against `server` with `token` in `ARBITER_TOKEN` (or in
    /// `variable`) and `args`.
    fn start(server: &Server, token: Option<(&str, &str)>, args: &[&str]) -> Bot {
        Bot::start_with(server, token, &[], args)
    }

    /// Like [`Bot::start`], with more environment variables.
    fn start_with(
        server: &Server,
        token: Option<(&str, &str)>,
        environment: &[(&str, &str)],
        args: &[&str],
    ) -> Bot {
        let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
        command
            .arg("bot")
            .args(["--server", server.base.trim_end_matches("/api/v1")])
            .args(args)
            .env_remove("ARBITER_TOKEN")
            .env_remove("FS_BOT_TOKEN")
            .env_remove("RUST_LOG")
            .env_remove("RUST_BACKTRACE")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some((variable, token)) = token {
            command.env(variable, token);
        }
        command.envs(environment.iter().copied());
        let mut child = command.spawn().expect("the connector starts");
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("stderr");
        let kept = log.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = kept.lock().expect("log");
                log.push_str(&line);
                log.push('\n');
            }
        });
        Bot {
            child,
            log,
            reader: Some(reader),
        }
    }

    /// Waits for the process to exit by itself.
    fn exit(mut self) -> (ExitStatus, String) {
        let (done, waited) = std::sync::mpsc::channel();
        let mut child =
            std::mem::replace(&mut self.child, Command::new("true").spawn().expect("true"));
        std::thread::spawn(move || {
            let _ = done.send(child.wait());
        });
        let status = waited
            .recv_timeout(PATIENCE)
            .expect("the connector exits in time")
            .expect("exit status");
        // The reader thread sees the pipe close once the process is gone; the lines it has not
        // copied yet are wanted.
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the log reader");
        }
        let log = self.log.lock().expect("log").clone();
        (status, log)
    }

    /// Asks it to stop as Ctrl-C would, and waits.
    fn interrupt(self) -> (ExitStatus, String) {
        let pid = rustix::process::Pid::from_raw(i32::try_from(self.child.id()).expect("pid"))
            .expect("a pid");
        rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
        self.exit()
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `python3` is installed; the tests that run Python engines are skipped (with a
/// notice) where it is not.
fn have_python() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        eprintln!("python3 is not installed: skipping a test that runs a Python engine");
    }
    found
}

fn server() -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    (start(&dir.path().join("arbiter.db")), dir)
}

/// A new anonymous bot: its token and id.
async fn mint(server: &Server, name: &str) -> (String, i64) {
    let client = arbiter_http_client::client();
    let url = format!("{}/bots/anon", server.base);
    let (status, body) = call(
        &client,
        reqwest::Method::POST,
        url,
        "",
        json!({"name": name}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    (
        body["token"].as_str().expect("token").to_owned(),
        body["bot"]["id"].as_i64().expect("id"),
    )
}

async fn challenge(server: &Server, token: &str, body: Value) -> i64 {
    let client = arbiter_http_client::client();
    let url = format!("{}/challenges", server.base);
    let (status, body) = call(&client, reqwest::Method::POST, url, token, body).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_i64().expect("id")
}

/// Long-polls the match's events until it has ended, checks it with `arbiter verify`, and
/// returns its snapshot.
async fn ended(server: &Server, id: i64) -> Value {
    let snapshot = closed(server, id).await;
    verified(server, id);
    snapshot
}

/// Long-polls the match's events until it has ended; returns its snapshot.
async fn closed(server: &Server, id: i64) -> Value {
    let client = arbiter_http_client::client();
    let wait = async {
        let mut since = 0;
        loop {
            let url = format!("{}/matches/{id}/events?since={since}&wait=30", server.base);
            let (_, page) = call(&client, reqwest::Method::GET, url, "", Value::Null).await;
            since = page["next_since"].as_i64().unwrap_or(since);
            if !matches!(page["status"].as_str(), Some("pending" | "running")) {
                let url = format!("{}/matches/{id}", server.base);
                return call(&client, reqwest::Method::GET, url, "", Value::Null)
                    .await
                    .1;
            }
        }
    };
    tokio::time::timeout(PATIENCE, wait)
        .await
        .expect("the match ends in time")
}

#[tokio::test]
async fn token_problems_end_the_connector_with_exit_code_2() {
    let (server, _dir) = server();
    let (status, log) = Bot::start(&server, None, &["--practice"]).exit();
    assert_eq!(status.code(), Some(2), "{log}");
    assert!(log.contains("ARBITER_TOKEN is missing or invalid"), "{log}");

    let rejected = Some(("ARBITER_TOKEN", "arba_this-is-not-a-token"));
    let (status, log) = Bot::start(&server, rejected, &["--practice"]).exit();
    assert_eq!(status.code(), Some(2), "{log}");
    assert!(log.contains("Bot credential rejected"), "{log}");
}

#[tokio::test]
async fn max_runtime_stops_the_connector_with_exit_code_3() {
    let (server, _dir) = server();
    let (token, _) = mint(&server, "brief").await;
    // FlipSight's variable name works too.
    let (status, log) = Bot::start(
        &server,
        Some(("FS_BOT_TOKEN", &token)),
        &["--practice", "--max-runtime", "0.5"],
    )
    .exit();
    assert_eq!(status.code(), Some(3), "{log}");
    assert!(log.contains("Connected to"), "{log}");
    assert!(!log.contains(&token), "the token is never printed: {log}");
}

#[tokio::test]
async fn two_connector_processes_play_a_paired_match_and_stop_on_ctrl_c() {
    if !have_python() {
        return;
    }
    let (server, _dir) = server();
    let (practice, _) = mint(&server, "practice").await;
    let (python, python_id) = mint(&server, "python").await;
    let a = Bot::start(&server, Some(("ARBITER_TOKEN", &practice)), &["--practice"]);
    let b = Bot::start(
        &server,
        Some(("ARBITER_TOKEN", &python)),
        &["--engine", "python3 ../../examples/engine.py"],
    );
    online(&server, python_id).await;
    let id = challenge(&server, &practice, json!({"opponent": python_id})).await;
    let end = ended(&server, id).await;
    assert_eq!(end["status"], "finished", "{end}");
    for (bot, who) in [(a, "practice"), (b, "python")] {
        let (status, log) = bot.interrupt();
        assert_eq!(status.code(), Some(0), "{who}: {log}");
        assert!(
            log.contains(&format!("Match {id} finished")),
            "{who}: {log}"
        );
    }
}

#[tokio::test]
async fn a_decisions_engine_failures_are_reported_on_one_line_and_play_goes_on() {
    if !have_python() {
        return;
    }
    let (server, dir) = server();
    let (token, _) = mint(&server, "flaky").await;
    let count = dir.path().join("decisions");
    let engine = format!(
        "python3 ../connector/tests/engines/misbehaving_engine.py {}",
        count.display()
    );
    let bot = Bot::start(
        &server,
        Some(("ARBITER_TOKEN", &token)),
        // The cap leaves a fresh Python process time to start on a busy machine: one killed
        // before it records its attempt would repeat the same failure.
        &["--engine", &engine, "--max-think-seconds", "2"],
    );
    let id = challenge(
        &server,
        &token,
        json!({"opponent": "house-random", "format": "single"}),
    )
    .await;
    let end = ended(&server, id).await;
    assert_eq!(end["status"], "finished", "{end}");
    let (status, log) = bot.interrupt();
    assert_eq!(status.code(), Some(0), "{log}");
    let failures: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(&format!("Engine failed for match {id} (leg 0)")))
        .collect();
    // The engine fails five times in a row at its first decision, each time differently, and
    // then plays: one line says so, not one line per attempt.
    assert_eq!(failures.len(), 1, "one line per decision:\n{log}");
    let line = failures[0];
    let expected = [
        "exited without answering",
        "crashing on purpose",
        "no answer within 2000 ms",
        "not JSON",
        "not a legal move",
        "answer is empty",
        "[5 failed attempts, then a move was sent]",
    ];
    for part in expected {
        assert!(
            line.contains(part),
            "the line does not say {part:?}:\n{log}"
        );
    }
}

#[tokio::test]
async fn user_errors_print_their_message_without_a_backtrace() {
    let (server, dir) = server();
    let (token, _) = mint(&server, "mistaken").await;
    let missing = dir.path().join("no-such-ca.pem");
    let missing = missing.to_str().expect("a UTF-8 path");
    let table: [(&[&str], &str); 5] = [
        (
            &["--practice", "--max-think-seconds", "400"],
            "Error: --max-think-seconds must be between 0 and 300, not 400",
        ),
        (
            &["--nboard", "engine", "--games", "othello,goofspiel"],
            "Error: --games: NBoard engines play Othello only; to play goofspiel",
        ),
        (
            &["--practice", "--games", "othello:chess"],
            "othello has no variant \"chess\"",
        ),
        (
            &["--practice", "--ca-file", missing],
            "Error: cannot use the certificate file",
        ),
        (
            &["--practice", "--edax-eval", "eval.dat"],
            "Error: --edax-eval only goes with --edax",
        ),
    ];
    for (args, message) in table {
        let bot = Bot::start_with(
            &server,
            Some(("ARBITER_TOKEN", &token)),
            &[("RUST_BACKTRACE", "1")],
            args,
        );
        let (status, log) = bot.exit();
        assert_eq!(status.code(), Some(1), "{args:?}: {log}");
        assert!(log.contains(message), "{args:?}: {log}");
        assert!(
            !log.to_lowercase().contains("backtrace"),
            "{args:?}: no backtrace for a user error: {log}"
        );
    }
}

#[tokio::test]
async fn challenge_plays_one_match_against_the_named_bot_and_exits() {
    let (server, _dir) = server();
    let (token, _) = mint(&server, "newcomer").await;
    let bot = Bot::start(
        &server,
        Some(("ARBITER_TOKEN", &token)),
        &[
            "--practice",
            "--challenge",
            "house-easy",
            "--variant",
            "anti",
        ],
    );
    let (status, log) = bot.exit();
    assert_eq!(status.code(), Some(0), "{log}");
    let id: i64 = log
        .split("Challenged house-easy (match ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the challenge is reported: {log}"));
    assert!(log.contains(&format!("Match {id} finished")), "{log}");
    let client = arbiter_http_client::client();
    let url = format!("{}/matches/{id}", server.base);
    let (_, snapshot) = call(&client, reqwest::Method::GET, url, "", Value::Null).await;
    assert_eq!(snapshot["status"], "finished", "{snapshot}");
    assert_eq!(snapshot["variant"], "anti", "{snapshot}");

    let refused = Bot::start(
        &server,
        Some(("ARBITER_TOKEN", &token)),
        &["--practice", "--challenge", "nobody-of-that-name"],
    );
    let (status, log) = refused.exit();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains("Error: the challenge to nobody-of-that-name was refused"),
        "{log}"
    );
}

#[tokio::test]
async fn a_system_without_root_certificates_still_gets_a_working_client() {
    let (server, dir) = server();
    let (token, _) = mint(&server, "bare").await;
    // Pointed at no certificates at all, the platform's verifier finds none, as on a minimal
    // container without a certificate bundle.
    let empty = dir.path().join("no-certificates");
    std::fs::create_dir(&empty).expect("an empty folder");
    let empty = empty.to_str().expect("a UTF-8 path");
    let missing = dir.path().join("no-bundle.pem");
    let missing = missing.to_str().expect("a UTF-8 path");
    let bot = Bot::start_with(
        &server,
        Some(("ARBITER_TOKEN", &token)),
        &[("SSL_CERT_FILE", missing), ("SSL_CERT_DIR", empty)],
        &["--practice", "--max-runtime", "0.5"],
    );
    let (status, log) = bot.exit();
    assert_eq!(status.code(), Some(3), "{log}");
    assert!(log.contains("Connected to"), "{log}");
}

/// Waits until the bot `id` is online.
async fn online(server: &Server, id: i64) {
    let client = arbiter_http_client::client();
    let online = async {
        loop {
            let url = format!("{}/bots/{id}", server.base);
            if call(&client, reqwest::Method::GET, url, "", Value::Null)
                .await
                .1["online"]
                == true
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(PATIENCE, online)
        .await
        .expect("the connector comes online");
}

/// The id of the match a connector's `--challenge` reports in its log.
fn challenged(log: &str) -> i64 {
    log.split("(match ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the challenge is reported: {log}"))
}

/// Checks a match with `arbiter verify`, from its export's address.
fn verified(server: &Server, id: i64) {
    let output = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", &format!("{}/matches/{id}/export", server.base)])
        .output()
        .expect("arbiter verify runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && out.contains("verified"),
        "match {id}: {out}"
    );
}

/// The example Dice Chess engine, for `--engine`, with the games it plays.
const DICE_ENGINE: [&str; 4] = [
    "--engine",
    "python3 ../../examples/dice_chess_engine.py",
    "--games",
    "chess",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_connector_processes_play_dice_chess_with_the_example_engine() {
    if !have_python() {
        return;
    }
    let (server, _dir) = server();
    let (host, host_id) = mint(&server, "dice-host").await;
    let (guest, _) = mint(&server, "dice-guest").await;
    let waiting = Bot::start(&server, Some(("ARBITER_TOKEN", &host)), &DICE_ENGINE);
    online(&server, host_id).await;
    let opponent = host_id.to_string();
    let mut args = DICE_ENGINE.to_vec();
    args.extend([
        "--challenge",
        &opponent,
        "--game",
        "chess",
        "--variant",
        "dice",
    ]);
    let (status, log) = Bot::start(&server, Some(("ARBITER_TOKEN", &guest)), &args).exit();
    assert_eq!(status.code(), Some(0), "{log}");
    let id = challenged(&log);
    let end = ended(&server, id).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(end["variant"], "dice", "{end}");
    for leg in end["legs"].as_array().expect("legs") {
        assert!(
            leg["view"]["result"]["reason"].is_string(),
            "every leg was played to its end: {leg}"
        );
    }
    // Both connectors added entropy of their own to the dice.
    let client = arbiter_http_client::client();
    let url = format!("{}/matches/{id}/export", server.base);
    let (_, export) = call(&client, reqwest::Method::GET, url, "", Value::Null).await;
    let seeds = export["details"]["client_seeds"].as_array().expect("seeds");
    assert!(
        seeds.len() == 2
            && seeds
                .iter()
                .all(|s| s.as_str().is_some_and(|s| s.len() == 32)),
        "{seeds:?}"
    );
    let (status, log) = waiting.interrupt();
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(log.contains(&format!("Match {id} finished")), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_engine_plays_dice_chess_against_every_house_player() {
    if !have_python() {
        return;
    }
    let (server, _dir) = server();
    let client = arbiter_http_client::client();
    let (status, body) = call(
        &client,
        reqwest::Method::POST,
        format!("{}/admin/bots", server.base),
        support::ADMIN,
        json!({"name": "dicer", "supported_variants": ["chess"], "concurrency": 2}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let token = body["token"].as_str().expect("token").to_owned();
    let id = body["bot"]["id"].as_i64().expect("id");
    let bot = Bot::start(&server, Some(("ARBITER_TOKEN", &token)), &DICE_ENGINE);
    online(&server, id).await;
    // The house bots play two matches of a variant at once; short clocks keep them quick.
    for pair in ["random", "greedy", "easy", "medium", "hard"].chunks(2) {
        let mut matches = Vec::new();
        for level in pair {
            let body = json!({"opponent": format!("house-{level}"), "game": "chess",
                "variant": "dice", "format": "single", "time_control": {"initial_ms": 10_000}});
            matches.push((*level, challenge(&server, &token, body).await));
        }
        for (level, id) in matches {
            let end = ended(&server, id).await;
            assert_eq!(end["status"], "finished", "house-{level}: {end}");
            assert!(
                end["legs"][0]["view"]["moves"]
                    .as_array()
                    .is_some_and(|moves| !moves.is_empty()),
                "house-{level}: {end}"
            );
        }
    }
    let (status, log) = bot.interrupt();
    assert_eq!(status.code(), Some(0), "{log}");
}
