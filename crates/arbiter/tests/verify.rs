//! `arbiter verify` as a user runs it: a match of every game the binary registers is played to
//! its end on a real server, exported, and verified from a file and from its URL; a Dice
//! Chess export tampered with in each way is refused with the failing item named; and the
//! Python lines of `docs/fairness.md` recompute the same dice.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use support::{ADMIN, Server, call, start};

/// Registers a bot that plays every game, a few matches at once; returns its token.
async fn register(server: &Server, name: &str) -> String {
    let (status, body) = call(
        client(),
        reqwest::Method::POST,
        format!("{}/admin/bots", server.base),
        ADMIN,
        json!({"name": name, "concurrency": 8,
            "supported_variants": ["othello", "goofspiel", "gomoku", "chess"]}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    body["token"].as_str().expect("token").to_owned()
}

/// The tests' one HTTP client: making one loads the system's certificates.
fn client() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(arbiter_http_client::client)
}

/// One call to the API, which must succeed; its JSON body.
async fn api(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Value,
) -> Value {
    let (status, reply) = call(
        client(),
        method,
        format!("{}{path}", server.base),
        token,
        body,
    )
    .await;
    assert!((200..300).contains(&status), "{path}: {status} {reply}");
    reply
}

/// Plays every pending decision of each of `tokens` with a legal action picked by a fixed
/// generator, until the match ends (or, past `limit` actions, resigns for the first token).
async fn play_out(server: &Server, id: i64, tokens: &[&str], limit: usize) {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut played = 0;
    loop {
        let snapshot = api(
            server,
            reqwest::Method::GET,
            &format!("/matches/{id}"),
            "",
            json!(null),
        )
        .await;
        if snapshot["status"] != "running" {
            assert_eq!(snapshot["status"], "finished", "{snapshot}");
            return;
        }
        if played > limit {
            api(
                server,
                reqwest::Method::POST,
                &format!("/matches/{id}/resign"),
                tokens[0],
                json!({}),
            )
            .await;
            continue;
        }
        for token in tokens {
            let page = api(
                server,
                reqwest::Method::GET,
                &format!("/matches/{id}/turns"),
                token,
                json!(null),
            )
            .await;
            for turn in page["turns"].as_array().into_iter().flatten() {
                let request = &turn["request"];
                let legal = request["legal_actions"]
                    .as_array()
                    .or_else(|| request["legal_moves"].as_array())
                    .cloned()
                    .unwrap_or_default();
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                // Othello's request lists no move when the only one is the pass.
                let action = match legal.len() {
                    0 => json!(-1),
                    n => legal[usize::try_from(state >> 33).unwrap_or(0) % n].clone(),
                };
                let body =
                    json!({"leg": turn["leg"], "revision": turn["revision"], "move": action});
                let (status, _) = call(
                    client(),
                    reqwest::Method::POST,
                    format!("{}/matches/{id}/moves", server.base),
                    token,
                    body,
                )
                .await;
                played += usize::from(status == 200);
            }
        }
    }
}

/// `arbiter verify` on `source`.
fn verify(source: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", source])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("arbiter verify runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Writes `export` to a file of `dir` and verifies it from there; returns the file.
fn verified_file(dir: &Path, name: &str, export: &Value) -> PathBuf {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, export.to_string()).expect("written");
    let output = verify(path.to_str().expect("path"));
    assert!(
        output.status.success(),
        "{name}: {}{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout(&output).contains("verified"), "{}", stdout(&output));
    path
}

/// The export with `change` applied, written to a file; `arbiter verify` must refuse it and
/// name `item`.
fn refused(dir: &Path, name: &str, export: &Value, item: &str, change: impl FnOnce(&mut Value)) {
    let mut tampered = export.clone();
    change(&mut tampered);
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, tampered.to_string()).expect("written");
    let output = verify(path.to_str().expect("path"));
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{name}: {out}");
    assert!(out.contains(&format!("FAILED at {item}")), "{name}: {out}");
}

/// The `n`-th event (from 0) of an export whose data has a roll among its events, and that
/// roll's index there.
fn roll_event(export: &Value, n: usize) -> (usize, usize) {
    export["events"]
        .as_array()
        .expect("events")
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "move")
        .filter_map(|(i, e)| {
            let events = e["data"]["events"].as_array()?;
            let k = events.iter().position(|g| g["type"] == "roll")?;
            Some((i, k))
        })
        .nth(n)
        .expect("enough rolls")
}

/// The Python lines of `docs/fairness.md`, run on an export file.
fn python_check(export: &Path) -> Option<Output> {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/fairness.md"
    ))
    .expect("the document");
    let begin = doc
        .find("<!-- fairness-check: begin -->")
        .expect("begin marker");
    let end = doc
        .find("<!-- fairness-check: end -->")
        .expect("end marker");
    let block = &doc[begin..end];
    let code = block
        .split_once("```python\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(code, _)| code)
        .expect("a python block");
    assert!(code.lines().count() <= 25, "the check stays short");
    let script = export.with_file_name("check.py");
    std::fs::write(&script, code).expect("written");
    match Command::new("python3").arg(&script).arg(export).output() {
        Ok(output) => Some(output),
        Err(_) => {
            eprintln!("python3 is not installed: skipping the Python check of the dice");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_verifies_and_tampering_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = start(&dir.path().join("arbiter.db"));
    let solo = register(&server, "Solo").await;
    let others = [
        register(&server, "Two").await,
        register(&server, "Three").await,
    ];

    // Self-play matches of two seats in every game, and a table of three; games that random
    // play drags on are resigned after a while (a resignation is verified too).
    let modes = [
        ("othello", "std", "paired", 200),
        ("gomoku", "freestyle", "single", 120),
        ("chess", "standard", "single", 600),
        ("chess", "chess960", "paired", 400),
        ("chess", "dice", "paired", 600),
    ];
    let mut exports = Vec::new();
    for (game, variant, format, limit) in modes {
        let created = api(
            &server,
            reqwest::Method::POST,
            "/challenges",
            &solo,
            json!({"opponent": "Solo", "game": game, "variant": variant, "format": format,
                "client_seed": "solo-seed", "time_control": {"initial_ms": 3_600_000}}),
        )
        .await;
        let id = created["id"].as_i64().expect("id");
        play_out(&server, id, &[&solo], limit).await;
        exports.push((format!("{game}-{variant}"), id));
    }
    let table = api(
        &server,
        reqwest::Method::POST,
        "/tables",
        &solo,
        json!({"game": "goofspiel", "variant": "short", "seats": 3}),
    )
    .await["id"]
        .as_i64()
        .expect("a table");
    for token in &others {
        api(
            &server,
            reqwest::Method::POST,
            &format!("/tables/{table}/join"),
            token,
            json!({"client_seed": "late"}),
        )
        .await;
    }
    play_out(&server, table, &[&solo, &others[0], &others[1]], 1_000).await;
    exports.push(("goofspiel-short".to_owned(), table));

    let mut dice = None;
    for (name, id) in &exports {
        let export = api(
            &server,
            reqwest::Method::GET,
            &format!("/matches/{id}/export"),
            "",
            json!(null),
        )
        .await;
        let path = verified_file(dir.path(), name, &export);
        if name == "chess-dice" {
            dice = Some((export, path));
        }
    }
    // From its address, as a spectator would.
    let (_, id) = &exports[0];
    let output = verify(&format!("{}/matches/{id}/export", server.base));
    assert!(output.status.success(), "{}", stdout(&output));

    let (export, path) = dice.expect("a Dice Chess match");
    let (at, k) = roll_event(&export, 1);
    let seq = export["events"][at]["seq"].clone();
    refused(
        dir.path(),
        "roll",
        &export,
        &format!("event {seq} (move).events[{k}].faces[0]"),
        |e| {
            let face = e["events"][at]["data"]["events"][k]["faces"][0]
                .as_u64()
                .expect("a face");
            e["events"][at]["data"]["events"][k]["faces"][0] = json!(face % 6 + 1);
        },
    );
    let (first_move, _) = roll_event(&export, 0);
    let first_move = first_move + 1;
    let seq = export["events"][first_move]["seq"].clone();
    refused(
        dir.path(),
        "move",
        &export,
        &format!("event {seq} (move)"),
        |e| {
            e["events"][first_move]["data"]["action"] = json!("a1a8");
        },
    );
    refused(dir.path(), "seed", &export, "seed", |e| {
        e["seed"] = json!("f".repeat(64));
    });
    refused(dir.path(), "order", &export, "event 5", |e| {
        e["events"].as_array_mut().expect("events").swap(4, 5);
    });

    // The documented Python lines recompute the same dice, and catch a changed one.
    let Some(output) = python_check(&path) else {
        return;
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let said = stdout(&output);
    let rolls: usize = said
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!(
        rolls > 2 && said.contains("rolls match the committed seed"),
        "{said}"
    );
    let tampered = dir.path().join("roll.json");
    let output = python_check(&tampered).expect("python3");
    assert!(!output.status.success(), "a changed roll is caught");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("roll"),
        "{output:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_verifies_round_by_round_from_its_address() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = start(&dir.path().join("arbiter.db"));
    // Two house players that answer at once, meeting twice (seats swapped).
    let created = api(
        &server,
        reqwest::Method::POST,
        "/tournaments",
        ADMIN,
        json!({"name": "Verified cup", "game": "othello", "variant": "std",
            "format": {"kind": "round_robin", "cycles": 2}}),
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    for bot in ["house-random", "house-greedy"] {
        api(
            &server,
            reqwest::Method::POST,
            &format!("/tournaments/{id}/entrants"),
            ADMIN,
            json!({ "bot": bot }),
        )
        .await;
    }
    api(
        &server,
        reqwest::Method::POST,
        &format!("/tournaments/{id}/start"),
        ADMIN,
        json!({}),
    )
    .await;
    // The server drives it each second; this waits for real play, at most a minute.
    let mut finished = json!(null);
    for _ in 0..600 {
        finished = api(
            &server,
            reqwest::Method::GET,
            &format!("/tournaments/{id}"),
            "",
            json!(null),
        )
        .await;
        if finished["status"] == "finished" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(finished["status"], "finished", "{finished}");
    let output = verify(&format!("{}/tournaments/{id}", server.base));
    let out = stdout(&output);
    assert!(output.status.success(), "{out}");
    assert_eq!(
        out.matches("plays from the round's seed, verified").count(),
        2,
        "{out}"
    );
    assert!(out.contains("verified: 2 games of Verified cup"), "{out}");
}
