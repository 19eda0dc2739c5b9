//! Bots submitted as WebAssembly modules: uploaded, validated against a house bot, then
//! played by the server itself; modules that misbehave are stopped and lose on time, without
//! holding up anyone else.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::*;

/// Plays Othello: answers each request with the first of its `legal_moves` (or a pass),
/// found by scanning the request line for the key.
const FIRST_LEGAL_MOVE: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 0) "\00\10\00\00\00\f0\00\00")
  (data (i32.const 512) "\"legal_moves\":[")
  (data (i32.const 600) "{\"move\":")
  (func $matches (param $at i32) (result i32)
    (local $i i32)
    (loop $l
      (if (i32.ne (i32.load8_u (i32.add (local.get $at) (local.get $i)))
                  (i32.load8_u (i32.add (i32.const 512) (local.get $i))))
        (then (return (i32.const 0))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 15))))
    (i32.const 1))
  (func (export "_start")
    (local $n i32) (local $at i32) (local $out i32) (local $c i32)
    (loop $next
      (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $n (i32.load (i32.const 8)))
      (if (i32.eqz (local.get $n)) (then (return)))
      PLAY
      (local.set $at (i32.const 4096))
      (block $found
        (loop $scan
          (br_if $found (call $matches (local.get $at)))
          (local.set $at (i32.add (local.get $at) (i32.const 1)))
          (br_if $scan (i32.lt_u (local.get $at) (i32.add (i32.const 4096) (local.get $n))))))
      (local.set $at (i32.add (local.get $at) (i32.const 15)))
      (local.set $out (i32.const 608))
      (if (i32.eq (i32.load8_u (local.get $at)) (i32.const 93))
        (then
          (i32.store8 (local.get $out) (i32.const 45))
          (i32.store8 (i32.add (local.get $out) (i32.const 1)) (i32.const 49))
          (local.set $out (i32.add (local.get $out) (i32.const 2))))
        (else
          (block $end
            (loop $copy
              (local.set $c (i32.load8_u (local.get $at)))
              (br_if $end (i32.eq (local.get $c) (i32.const 44)))
              (br_if $end (i32.eq (local.get $c) (i32.const 93)))
              (i32.store8 (local.get $out) (local.get $c))
              (local.set $out (i32.add (local.get $out) (i32.const 1)))
              (local.set $at (i32.add (local.get $at) (i32.const 1)))
              (br $copy)))))
      (i32.store8 (local.get $out) (i32.const 125))
      (i32.store8 (i32.add (local.get $out) (i32.const 1)) (i32.const 10))
      (i32.store (i32.const 16) (i32.const 600))
      (i32.store (i32.const 20) (i32.sub (i32.add (local.get $out) (i32.const 2)) (i32.const 600)))
      (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24)))
      (br $next))))"#;

/// The Othello player, doing `misbehaviour` on every request after its first (so that its
/// first move is made and its clock, not the first-move rule, decides its match).
fn module(misbehaviour: &str) -> Vec<u8> {
    let after_the_first = format!(
        "(if (i32.load (i32.const 300)) (then {misbehaviour}))
         (i32.store (i32.const 300) (i32.const 1))"
    );
    wat::parse_str(FIRST_LEGAL_MOVE.replace("PLAY", &after_the_first)).expect("valid text")
}

const LOOP: &str = "(loop $spin (br $spin))";

/// A small sandbox with one worker thread, so that modules must share it, and decisions of
/// up to a minute.
fn one_worker(games: &arbiter_arena::Games) -> arbiter_server::Dialects {
    let limits = arbiter_server::SandboxLimits {
        workers: 1,
        instances: 8,
        fuel_per_decision: 50_000_000,
        max_decision: Duration::from_secs(60),
        memory_bytes: 16 << 20,
        ..Default::default()
    };
    dialects(games).with_sandboxes(arbiter_server::Sandboxes::new(limits).expect("a sandbox"))
}

/// The same with no fuel limit to speak of: only the deadline stops a loop.
fn one_worker_unmetered(games: &arbiter_arena::Games) -> arbiter_server::Dialects {
    let limits = arbiter_server::SandboxLimits {
        workers: 1,
        instances: 8,
        fuel_per_decision: u64::MAX,
        max_decision: Duration::from_secs(60),
        ..Default::default()
    };
    dialects(games).with_sandboxes(arbiter_server::Sandboxes::new(limits).expect("a sandbox"))
}

async fn upload(app: &TestApp, token: &str, wasm: Vec<u8>) -> Reply {
    upload_with(app, token, wasm, "").await
}

/// Uploads `wasm` with the settings in `query` (`?accept_challenges=false`).
async fn upload_with(app: &TestApp, token: &str, wasm: Vec<u8>, query: &str) -> Reply {
    let response = app
        .client
        .put(format!("{}/bots/me/module{query}", app.base))
        .bearer_auth(token)
        .header("content-type", "application/wasm")
        .body(wasm)
        .send()
        .await
        .expect("request sent");
    Reply::read(response).await
}

/// Waits until the bot's module is no longer being validated; returns its view.
async fn validated(app: &TestApp, token: &str) -> Value {
    // The server picks up new modules at its next look.
    app.advance(1_000).await;
    for _ in 0..2_000 {
        let module = app.get("/bots/me/module", Some(token)).await.expect(200);
        if module["status"] != "validating" {
            return module;
        }
        settle().await;
    }
    panic!("the module was never validated");
}

/// A registered bot running `wasm`, marked ready without validation; returns its token.
async fn ready_bot(app: &TestApp, name: &str, wasm: Vec<u8>) -> String {
    ready_bot_with(app, name, wasm, "").await
}

/// The same with the settings in `query`.
async fn ready_bot_with(app: &TestApp, name: &str, wasm: Vec<u8>, query: &str) -> String {
    let (id, token) = app.register(name).await;
    let view = upload_with(app, &token, wasm, query).await.expect(200);
    let sha256 = view["sha256"].as_str().expect("a digest");
    app.arena
        .set_module_status(id, sha256, arbiter_arena::ModuleStatus::Ready)
        .await
        .expect("ready");
    app.advance(1_000).await;
    for _ in 0..500 {
        if app.get(&format!("/bots/{name}"), None).await.expect(200)["online"] == true {
            return token;
        }
        settle().await;
    }
    panic!("{name} never came online");
}

#[tokio::test]
async fn a_module_is_validated_then_plays_a_whole_match() {
    let app = spawn_running(Default::default(), games(), one_worker).await;
    let (_, token) = app.register("Wasmy").await;
    let view = upload(&app, &token, module("")).await.expect(200);
    assert_eq!(view["status"], "validating", "{view}");
    assert_eq!(view["sha256"].as_str().map(str::len), Some(64), "{view}");
    let module = validated(&app, &token).await;
    assert_eq!(module["status"], "ready", "{module}");
    let id = app.challenge(&token, "house-greedy", json!({})).await;
    let done = app.until_closed(id).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_ne!(done["result"]["reason"], "timeout", "{done}");
    // Its own profile shows the module; nobody else sees it.
    let own = app.get("/bots/me", Some(&token)).await.expect(200);
    assert_eq!(own["module"]["status"], "ready", "{own}");
    let public = app.get("/bots/Wasmy", None).await.expect(200);
    assert!(public.get("module").is_none(), "{public}");
}

#[tokio::test]
async fn a_module_that_misbehaves_in_validation_is_rejected_with_the_reason() {
    let app = spawn_running(Default::default(), games(), one_worker).await;
    let cases = [
        ("Looping", LOOP, "fuel"),
        (
            "Hungry",
            "(loop $grow (drop (memory.grow (i32.const 16))) (br $grow))",
            "memory",
        ),
        ("Trapping", "(unreachable)", "trapped"),
    ];
    for (name, misbehaviour, reason) in cases {
        let (_, token) = app.register(name).await;
        upload(&app, &token, module(misbehaviour)).await.expect(200);
        // Its second decision fails, as its owner sees; its clock then runs out.
        app.advance(1_000).await;
        let mut module = Value::Null;
        for _ in 0..2_000 {
            module = app.get("/bots/me/module", Some(&token)).await.expect(200);
            if module.get("last_failure").is_some() {
                break;
            }
            settle().await;
        }
        let failure = module["last_failure"].as_str().unwrap_or_default();
        assert!(failure.contains(reason), "{name}: {module}");
        for _ in 0..2_000 {
            app.advance(61_000).await;
            module = app.get("/bots/me/module", Some(&token)).await.expect(200);
            if module["status"] != "validating" {
                break;
            }
            settle().await;
        }
        assert_eq!(module["status"], "rejected", "{name}: {module}");
        let because = module["rejected_because"].as_str().unwrap_or_default();
        assert!(because.contains(reason), "{name}: {module}");
        // A rejected module plays nothing: once its presence lapses the bot is offline.
        let mut profile = Value::Null;
        for _ in 0..500 {
            app.advance(60_000).await;
            profile = app.get(&format!("/bots/{name}"), None).await.expect(200);
            if profile["online"] == false {
                break;
            }
            settle().await;
        }
        assert_eq!(profile["online"], false, "{name}: {profile}");
    }
}

#[tokio::test]
async fn a_module_that_stops_answering_loses_on_time_without_holding_up_another_match() {
    let app = spawn_running(Default::default(), games(), one_worker_unmetered).await;
    // The looping module computes for its whole minute on the sandbox's only thread.
    let looping = ready_bot(&app, "Spinner", module(LOOP)).await;
    let stuck = app.challenge(&looping, "house-greedy", json!({})).await;
    let playing = ready_bot(&app, "Player", module("")).await;
    let played = app.challenge(&playing, "house-greedy", json!({})).await;
    let done = app.until_closed(played).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_ne!(done["result"]["reason"], "timeout", "{done}");
    let other = app.snapshot(stuck).await;
    assert_eq!(
        other["status"], "running",
        "the other match was played to its end while the loop was still inside its first decision"
    );
    // Its clock decides.
    app.advance(61_000).await;
    let lost = app.until_closed(stuck).await;
    assert_eq!(lost["result"]["winner"], 1, "{lost}");
    let reason = lost["result"]["reason"].as_str().unwrap_or_default();
    assert!(reason.ends_with("timeout"), "{lost}");
}

#[tokio::test]
async fn uploads_are_checked_and_a_module_replaces_a_webhook() {
    let app = spawn_running(Default::default(), games(), one_worker).await;
    let (_, token) = app.register("Checked").await;
    upload(&app, &token, b"not a module".to_vec())
        .await
        .expect_error(400, "invalid_module");
    let foreign = wat::parse_str(
        r#"(module (import "env" "clock" (func)) (memory (export "memory") 1) (func (export "_start")))"#,
    )
    .expect("valid text");
    let refused = upload(&app, &token, foreign)
        .await
        .expect_error(400, "invalid_module");
    assert!(
        refused["message"]
            .as_str()
            .unwrap_or_default()
            .contains("env::clock"),
        "{refused}"
    );
    app.get("/bots/me/module", Some(&token))
        .await
        .expect_error(404, "not_found");
    upload(&app, &token, module("")).await.expect(200);
    let removed = app
        .call(
            reqwest::Method::DELETE,
            "/bots/me/module",
            Some(&token),
            None,
        )
        .await
        .expect(200);
    assert!(removed.get("module").is_none(), "{removed}");
    // A server that runs no modules refuses them.
    let plain = spawn_running(Default::default(), games(), dialects).await;
    let (_, token) = plain.register("Plain").await;
    upload(&plain, &token, module(""))
        .await
        .expect_error(400, "invalid_request");
}

/// The example engine in `examples/wasm-engine`, built for `wasm32-wasip1` if that target is
/// installed (`rustup target add wasm32-wasip1`); `None`, with a notice, if it is not.
fn example_engine() -> Option<Vec<u8>> {
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_owned();
    if !std::path::Path::new(&sysroot)
        .join("lib/rustlib/wasm32-wasip1")
        .exists()
    {
        println!("skipped: the wasm32-wasip1 target is not installed");
        return None;
    }
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/wasm-engine");
    let built = std::process::Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip1",
            "--manifest-path",
        ])
        .arg(example.join("Cargo.toml"))
        .status()
        .expect("cargo runs");
    assert!(built.success(), "the example engine builds");
    let path = example.join("target/wasm32-wasip1/release/arbiter-wasm-engine.wasm");
    Some(std::fs::read(path).expect("the built module"))
}

#[tokio::test]
async fn the_example_engine_in_rust_is_validated_and_plays() {
    let Some(wasm) = example_engine() else {
        return;
    };
    let app = spawn_running(Default::default(), games(), one_worker_unmetered).await;
    let (_, token) = app.register("Rusty").await;
    upload(&app, &token, wasm).await.expect(200);
    let module = validated(&app, &token).await;
    assert_eq!(module["status"], "ready", "{module}");
    for game in [json!({}), json!({"variant": "octagon"})] {
        let id = app.challenge(&token, "house-greedy", game.clone()).await;
        let done = app.until_closed(id).await;
        assert_eq!(done["status"], "finished", "{game}: {done}");
        assert_ne!(done["result"]["reason"], "timeout", "{game}: {done}");
    }
    let module = app.get("/bots/me/module", Some(&token)).await.expect(200);
    assert!(module.get("last_failure").is_none(), "{module}");
}

/// The matches of the bot called `name` that are pending or running.
async fn open_matches_of(app: &TestApp, name: &str) -> Vec<i64> {
    let bot = app.arena.find_bot(name).expect("a bot");
    app.arena
        .open_matches_of(bot.id)
        .await
        .iter()
        .map(|snapshot| snapshot.id)
        .collect()
}

#[tokio::test]
async fn a_module_is_auto_matched_only_as_its_settings_allow() {
    let app = spawn_running(Default::default(), games(), one_worker).await;
    ready_bot_with(&app, "Shy", module(""), "?accept_challenges=false").await;
    ready_bot(&app, "Keen", module("")).await;
    // One round of auto-matching: a house bot's offer to the keen one, which its settings
    // accept, and none to the shy one, which would decline it.
    app.advance(5_000).await;
    settle().await;
    assert!(open_matches_of(&app, "Shy").await.is_empty());
    let offered = open_matches_of(&app, "Keen").await;
    assert_eq!(offered.len(), 1, "{offered:?}");
    let done = app.until_closed(offered[0]).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_eq!(done["rated"], true, "{done}");
    assert_ne!(done["result"]["reason"], "timeout", "{done}");
}

#[tokio::test]
async fn a_module_plays_its_tournament_game() {
    let app = spawn_running(Default::default(), games(), one_worker).await;
    let token = ready_bot(&app, "Wasmy", module("")).await;
    let created = app
        .post(
            "/tournaments",
            Some(ADMIN),
            json!({"name": "Sandbox cup", "format": {"kind": "round_robin"}}),
        )
        .await
        .expect(201);
    let id = created["id"].as_i64().expect("id");
    app.post(
        &format!("/tournaments/{id}/entrants"),
        Some(ADMIN),
        json!({"bot": "house-greedy"}),
    )
    .await
    .expect(200);
    app.post(&format!("/tournaments/{id}/join"), Some(&token), json!({}))
        .await
        .expect(200);
    let started = app
        .post(&format!("/tournaments/{id}/start"), Some(ADMIN), json!({}))
        .await
        .expect(200);
    let game = started["rounds"][0]["games"][0]["match_id"]
        .as_i64()
        .expect("a game");
    let done = app.until_closed(game).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_ne!(done["result"]["reason"], "timeout", "{done}");
    app.arena.drive_tournaments().await;
    let standings = app
        .get(&format!("/tournaments/{id}"), None)
        .await
        .expect(200);
    assert_eq!(standings["status"], "finished", "{standings}");
}
