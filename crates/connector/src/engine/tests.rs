//! The adapters against small engines written here as shell scripts (well-behaved, one-shot,
//! crashing, hanging, garbage-printing and illegal-move engines, and an Egaroucid that loads
//! slowly), and against the test NBoard engine in its Edax mode, which ignores the clock and
//! starts slowly without an opening book.

use super::*;

/// Black's first request from the standard 8x8 start.
pub(crate) const START: &str = r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,1,0,0,0,0,0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":1,"legal_moves":[19,26,37,44],"game_mode":"std","board_size":8,"blocked_squares":[],"placed":{"1":0,"2":0},"remaining_ms":60000,"match_id":123,"leg":0,"revision":0,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#;

fn start() -> EngineRequest {
    serde_json::from_str(START).expect("the start request")
}

fn json_engine(script: &str) -> Engine {
    Engine::new(&EngineSpec::Json {
        command: script.to_owned(),
    })
}

async fn decide(engine: &mut Engine, budget_ms: u64) -> Result<Answered, Failure> {
    engine
        .decide(&start(), Some(Duration::from_millis(budget_ms)))
        .await
}

#[tokio::test]
async fn a_running_engine_answers_every_decision() {
    let mut engine = json_engine(r#"while read -r line; do echo '{"move": 19}'; done"#);
    for _ in 0..3 {
        assert_eq!(
            decide(&mut engine, 5_000).await.expect("a move").mv,
            Move::Place(19)
        );
    }
    engine.restart().await;
}

#[tokio::test]
async fn a_one_shot_engine_is_started_again_for_each_decision() {
    let mut engine = json_engine(r#"read -r line; echo '{"move": "D3"}'"#);
    for _ in 0..3 {
        assert_eq!(
            decide(&mut engine, 5_000).await.expect("a move").mv,
            Move::Place(19)
        );
    }
}

#[tokio::test]
async fn broken_engines_fail_with_the_reason() {
    type Expected = fn(&Failure) -> bool;
    let table: [(&str, Expected, &str); 6] = [
        (
            r#"read -r line; echo 'dying now' >&2; exit 3"#,
            |f| matches!(f, Failure::Exited(why) if why.contains("dying now") && why.contains('3')),
            "a crash",
        ),
        (
            r#"read -r line; echo 'hello'"#,
            |f| matches!(f, Failure::Answer(AnswerError::NotJson(_))),
            "garbage",
        ),
        (
            r#"read -r line; echo ''"#,
            |f| matches!(f, Failure::Answer(AnswerError::Empty)),
            "an empty answer",
        ),
        (
            r#"read -r line; echo '{"move": 0}'"#,
            |f| matches!(f, Failure::Answer(AnswerError::Illegal(mv)) if mv == "a1"),
            "an illegal move",
        ),
        (
            r#"read -r line; echo '{"move": "z9"}'"#,
            |f| matches!(f, Failure::Answer(AnswerError::Coordinate(_))),
            "no such square",
        ),
        (
            // Gone before the request is written, or just after: either way it is reported.
            "exec /nonexistent/engine",
            |f| matches!(f, Failure::Exited(_) | Failure::Write(_)),
            "a command that does not exist",
        ),
    ];
    for (script, expected, what) in table {
        let mut engine = json_engine(script);
        let failure = decide(&mut engine, 5_000).await.expect_err(what);
        assert!(expected(&failure), "{what}: {failure}");
        assert!(
            !failure.is_permanent(),
            "{what}: a fresh engine may do better"
        );
        engine.restart().await;
    }
}

#[tokio::test]
async fn a_hanging_engine_is_stopped_at_the_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pid");
    let mut engine = json_engine(&format!(
        "echo $$ > {}; read -r line; sleep 30",
        pid_file.display()
    ));
    let failure = decide(&mut engine, 200).await.expect_err("no answer");
    assert!(matches!(failure, Failure::Timeout(200)), "{failure}");
    let pid = std::fs::read_to_string(&pid_file).expect("pid written");
    // The engine was stopped, not left thinking: its process is gone.
    assert!(
        !std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
            || process_is_zombie(pid.trim())
    );
}

fn process_is_zombie(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
}

#[tokio::test]
async fn nboard_replies_are_read_after_the_pong_in_any_spelling() {
    // Stray output before the handshake, a stale `===` before the pong, Edax's space form.
    let script = r#"echo 'NBoard test engine 1.0'; echo '=== A1'
        while read -r cmd arg rest; do
          case "$cmd" in
            ping) echo "status thinking"; echo "pong $arg";;
            go) echo "search D3 0.5 0 4"; echo "=== d3 -1.00 0.0";;
          esac
        done"#;
    let mut engine = Engine::new(&EngineSpec::Nboard {
        command: script.to_owned(),
        depth: 4,
    });
    for _ in 0..2 {
        assert_eq!(
            decide(&mut engine, 5_000).await.expect("a move").mv,
            Move::Place(19)
        );
    }
    engine.restart().await;
}

#[tokio::test]
async fn nboard_engines_are_not_asked_about_variants_or_passes() {
    // The command would fail if it were ever started.
    let mut engine = Engine::new(&EngineSpec::Nboard {
        command: "exit 1".to_owned(),
        depth: 0,
    });
    let mut grand = start();
    grand.game_mode = Variant::Grand;
    let failure = engine.decide(&grand, None).await.expect_err("std only");
    assert!(failure.is_permanent(), "{failure}");
    assert!(failure.to_string().contains("grand"), "{failure}");
    let mut pass = start();
    pass.legal_moves.clear();
    assert_eq!(
        engine.decide(&pass, None).await.expect("a pass").mv,
        Move::Pass
    );
}

#[tokio::test]
async fn egaroucid_over_the_cap_is_replaced_by_a_legal_move() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fake = dir.path().join("egaroucid");
    std::fs::write(
        &fake,
        "#!/bin/sh\nwhile read -r cmd rest; do\n  case \"$cmd\" in\n    settime) echo \"$rest\" > settime;;\n    go) if [ -e slow ]; then sleep 30; else echo '> ' >&2; echo 'Egaroucid'; echo 'd3'; fi;;\n  esac\ndone\n",
    )
    .expect("write");
    make_executable(&fake);
    let mut engine = Engine::new(&EngineSpec::Egaroucid { path: fake });
    let answered = decide(&mut engine, 5_000).await.expect("a move");
    assert_eq!(
        (answered.mv, answered.substitute.is_none()),
        (Move::Place(19), true)
    );
    let settime = std::fs::read_to_string(dir.path().join("settime")).expect("settime sent");
    assert_eq!(
        settime.trim(),
        "X 59",
        "Black's clock less the margin, in whole seconds"
    );
    std::fs::write(dir.path().join("slow"), b"").expect("write");
    let answered = decide(&mut engine, 200).await.expect("a substitute move");
    assert_eq!(
        answered.mv,
        Move::Place(19),
        "the lowest-numbered legal square"
    );
    assert!(answered.substitute.is_some_and(|why| why.contains("cap")));
}

fn make_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[tokio::test]
async fn the_practice_engine_plays_the_lowest_legal_square() {
    let mut engine = Engine::new(&EngineSpec::Practice);
    let mut request = start();
    request.legal_moves = vec![44, 26, 37];
    assert_eq!(
        engine.decide(&request, None).await.expect("a move").mv,
        Move::Place(26)
    );
}

/// The test NBoard engine in its Edax mode (it ignores the clock and searches 2^depth ms), in a
/// folder of its own with the `data/eval.dat` the connector looks for, taking `startup` seconds
/// to start while it has no opening book. `None`, with a notice, where Python is missing.
fn fake_edax(startup: f64) -> Option<(tempfile::TempDir, EngineSpec)> {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !python {
        eprintln!("python3 is not installed: skipping a test that runs a Python engine");
        return None;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("data")).expect("data folder");
    let eval = dir.path().join("data/eval.dat");
    std::fs::write(&eval, b"weights").expect("write");
    std::fs::write(dir.path().join("startup"), startup.to_string()).expect("write");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/engines/nboard_engine.py"
    )
    .into();
    let spec = EngineSpec::Edax {
        path,
        eval: Some(eval),
        depth: 0,
    };
    Some((dir, spec))
}

/// The depths the fake Edax searched, in order.
fn depths(dir: &tempfile::TempDir) -> Vec<u8> {
    std::fs::read_to_string(dir.path().join("depths"))
        .expect("the fake Edax logs its searches")
        .lines()
        .map(|depth| depth.parse().expect("a depth"))
        .collect()
}

#[tokio::test]
async fn edax_searches_as_deep_as_its_share_of_the_clock_allows_move_by_move() {
    let Some((dir, spec)) = fake_edax(0.0) else {
        return;
    };
    let mut engine = Engine::new(&spec);
    let mut request = start();
    // 60 empty squares leave Black 31 moves: 200 ms each.
    request.remaining_ms = 200 * 31 + 750;
    let budget = Some(Duration::from_secs(10));
    for _ in 0..6 {
        engine.decide(&request, budget).await.expect("a move");
    }
    // 2^7 = 128 ms fits 200 ms and 2^8 would not: the depth climbs a ply a move to 7 and stays.
    assert_eq!(depths(&dir), [4, 5, 6, 7, 7, 7]);
    // The engine becomes 16 times slower: its next search, at depth 7, takes 2 s, and the one
    // after it is several plies shallower.
    std::fs::write(dir.path().join("slow"), "16").expect("write");
    engine.decide(&request, budget).await.expect("a move");
    engine.decide(&request, budget).await.expect("a move");
    let searched = depths(&dir);
    assert_eq!(searched[6], 7);
    assert!(
        (2..=5).contains(&searched[7]),
        "at least two plies shallower: {searched:?}"
    );
    engine.stop().await;
}

#[tokio::test]
async fn a_slow_starting_edax_is_started_once_ahead_and_told_to_quit_so_it_keeps_its_book() {
    let Some((dir, spec)) = fake_edax(1.0) else {
        return;
    };
    let took = first_answer(&spec)
        .await
        .expect("the start position is answered");
    assert!(
        took >= Duration::from_secs(1),
        "{took:?} includes the start"
    );
    assert!(
        dir.path().join("data/book.dat").exists(),
        "asked to quit, the engine saved its book"
    );
    // With its book it starts at once: a short budget is enough for the first move now.
    let mut engine = Engine::new(&spec);
    engine
        .decide(&start(), Some(Duration::from_millis(900)))
        .await
        .expect("a move without the slow start");
    engine.stop().await;
}

#[tokio::test]
async fn egaroucid_takes_the_move_after_the_cap_from_a_spare_already_loaded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fake = dir.path().join("egaroucid");
    // It takes a second to load its weights, as Egaroucid does.
    std::fs::write(
        &fake,
        "#!/bin/sh\nsleep 1\nwhile read -r cmd rest; do\n  case \"$cmd\" in\n    go) if [ -e slow ]; then sleep 30; else echo 'd3'; fi;;\n  esac\ndone\n",
    )
    .expect("write");
    make_executable(&fake);
    let mut engine = Engine::new(&EngineSpec::Egaroucid { path: fake });
    let answered = decide(&mut engine, 5_000).await.expect("a move");
    assert!(answered.substitute.is_none(), "the first move is its own");
    std::fs::write(dir.path().join("slow"), b"").expect("write");
    let answered = decide(&mut engine, 300).await.expect("a substitute move");
    assert!(answered.substitute.is_some(), "stopped at the cap");
    std::fs::remove_file(dir.path().join("slow")).expect("remove");
    // A fresh process would spend a second loading; the spare has loaded meanwhile.
    let answered = decide(&mut engine, 700).await.expect("a move");
    assert!(
        answered.substitute.is_none(),
        "the spare answered within 700 ms"
    );
    // The spare that took over got a spare of its own, which has been loading since: after
    // another search stopped at a cap of 800 ms, it needs at most 200 ms more.
    std::fs::write(dir.path().join("slow"), b"").expect("write");
    let answered = decide(&mut engine, 800).await.expect("a substitute move");
    assert!(answered.substitute.is_some(), "stopped at the cap again");
    std::fs::remove_file(dir.path().join("slow")).expect("remove");
    let answered = decide(&mut engine, 700).await.expect("a move");
    assert!(
        answered.substitute.is_none(),
        "the next spare answered within 700 ms"
    );
    engine.stop().await;
}
