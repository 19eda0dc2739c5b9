//! The web pages in a real headless Chromium, driven by scripts in `tests/browser`
//! (playwright-core) against a real `arbiter serve` process: `walkthrough.mjs`, with a real
//! `arbiter bot` connector, the whole newcomer walkthrough, a person playing a house bot by
//! clicking, a quick match in a chosen colour followed live on the home page, and the pages'
//! refusals; `fate_table.mjs`, a guest playing a six-seat Fate Tokens table with five house
//! bots to its end through the match page's table, forms and prompts.
//!
//! It needs Node.js, `npm ci` in `tests/browser` and Debian's `chromium`. Without them it is
//! skipped with a notice, unless `ARBITER_BROWSER_TESTS=1` (as CI sets it) makes their absence
//! a failure.

// The browser drives the API itself; the helper for calling it is not needed here.
#[allow(dead_code)]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the browser test needs that is missing, if anything.
fn missing(root: &Path, chromium: &Path) -> Option<String> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Some("Node.js (node) is not installed".to_owned());
    }
    if !root.join("node_modules/playwright-core").is_dir() {
        return Some(format!(
            "playwright-core is not installed; run `npm ci` in {}",
            root.display()
        ));
    }
    if !chromium.is_file() {
        return Some(format!(
            "no Chromium at {} (set CHROMIUM)",
            chromium.display()
        ));
    }
    None
}

/// Runs `script` in `tests/browser` against a fresh real server, or skips it with a notice
/// where the browser is missing and the browser tests are not required.
fn run_script(script: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/browser");
    let chromium = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if let Some(reason) = missing(&root, &chromium) {
        assert!(
            std::env::var("ARBITER_BROWSER_TESTS").as_deref() != Ok("1"),
            "browser tests are required here, but {reason}"
        );
        eprintln!("skipping the browser test {script}: {reason}");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(&dir.path().join("arbiter.db"));
    let origin = server.base.trim_end_matches("/api/v1").to_owned();
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-shots");
    let status = Command::new("node")
        .arg(root.join(script))
        .current_dir(&root)
        .env("BASE_URL", &origin)
        .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
        .env("CHROMIUM", &chromium)
        .env("SHOTS", &shots)
        .status()
        .expect("node runs");
    assert!(
        status.success(),
        "the browser script {script} failed: {status}"
    );
}

#[test]
fn the_web_walkthrough_works_in_a_real_browser() {
    run_script("walkthrough.mjs");
}

#[test]
fn a_guest_plays_a_fate_tokens_table_with_house_bots_in_a_real_browser() {
    run_script("fate_table.mjs");
}
