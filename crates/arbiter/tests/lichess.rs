//! The Lichess-compatible Bot API with real clients against a real `arbiter serve`: the
//! Python scripts of `tests/lichess` play games through berserk, the Lichess client library
//! (`berserk_games.py`), and check the transport rules chunk by chunk over raw sockets
//! (`framing.py`).
//!
//! They run with the Python of a virtual environment that has berserk installed, named by
//! `ARBITER_LICHESS_PYTHON` (CI makes one, see `.ci/run`). Without it the test is skipped
//! with a notice, so that `cargo test` passes where no such environment exists.

// The scripts make every call themselves; the helper for calling the API is not needed here.
#[allow(dead_code)]
mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use support::{ADMIN, start};

/// The scripts, each run once against the same server.
const SCRIPTS: [&str; 2] = ["framing.py", "berserk_games.py"];

#[test]
fn lichess_clients_play_and_the_streams_keep_the_transport_rules() {
    let Some(python) = std::env::var_os("ARBITER_LICHESS_PYTHON") else {
        // CI makes the environment (.ci/run): there, its absence is a failure, never a skip.
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must run the Lichess clients: ARBITER_LICHESS_PYTHON is not set"
        );
        eprintln!(
            "skipping the Lichess client test: ARBITER_LICHESS_PYTHON does not name the Python \
             of a virtual environment with berserk installed"
        );
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let server = start(&dir.path().join("arbiter.db"));
    let root = server.base.trim_end_matches("/api/v1").to_owned();
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/lichess");
    // Both run at once: they register bots of their own, and most of the framing script's
    // time is an idle wait on its own streams that the other's games do not disturb. Each
    // script ends itself at its own time limit, so waiting for them cannot hang.
    let children: Vec<_> = SCRIPTS
        .iter()
        .map(|script| {
            let child = Command::new(&python)
                .arg(scripts.join(script))
                .env("ARBITER_BASE", &root)
                .env("ARBITER_ADMIN", ADMIN)
                .env("PYTHONUNBUFFERED", "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("{script} does not start with {python:?}: {e}"));
            (script, child)
        })
        .collect();
    let mut failures = Vec::new();
    for (script, child) in children {
        let Output {
            status,
            stdout,
            stderr,
        } = child.wait_with_output().expect("the script's output");
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        );
        // Shown also on success, for `--nocapture`: each line is a step and its duration.
        eprintln!("--- {script} ({status})\n{shown}");
        if !status.success() {
            failures.push(format!("{script} failed ({status}):\n{shown}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
