//! The README's shell bot (`examples/shell-bot.sh`) against a real server process: it plays a
//! match to the end, and it stops with the server's message when it is refused or the server
//! is gone, instead of spinning.

// Only the server is needed here, not the API helpers beside it.
#[allow(dead_code)]
mod support;

use std::process::{Command, Output};

/// The script, as the README shows it and as `examples/` ships it.
const SCRIPT: &str = include_str!("../../../examples/shell-bot.sh");
const README: &str = include_str!("../../../README.md");

/// Whether `curl` is installed; the script needs it, so these tests skip themselves without.
fn have_curl() -> bool {
    let found = Command::new("curl").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: curl is not installed");
    }
    found
}

/// Runs the script against the API at `api`.
fn run(api: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(SCRIPT)
        .env("API", api)
        .output()
        .expect("bash runs")
}

#[test]
fn the_readme_shows_the_script_that_ships() {
    let body = SCRIPT
        .lines()
        .skip_while(|line| line.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        README.contains(&body),
        "README.md shows examples/shell-bot.sh below its comments, unchanged"
    );
}

#[test]
fn the_shell_bot_plays_a_match_to_the_end() {
    if !have_curl() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(&dir.path().join("arbiter.db"));
    let output = run(&server.base);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("end finished "), "{stdout}");
}

#[test]
fn the_shell_bot_stops_with_the_error_when_refused_or_the_server_is_gone() {
    if !have_curl() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(&dir.path().join("arbiter.db"));
    // Five anonymous bots an hour from one address: the script's own mint is the sixth.
    for _ in 0..5 {
        let minted = Command::new("curl")
            .args(["-sS", "--fail", "-o", "/dev/null", "-d", "{}"])
            .arg(format!("{}/bots/anon", server.base))
            .status()
            .expect("curl runs");
        assert!(minted.success());
    }
    let refused = run(&server.base);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("\"error\""),
        "the server's message: {stderr}"
    );

    let gone = run(&format!("http://127.0.0.1:{}/api/v1", closed_port()));
    assert_eq!(gone.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&gone.stderr).contains("connect"),
        "curl says why"
    );
}

/// A local port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port 0");
    listener.local_addr().expect("address").port()
}
