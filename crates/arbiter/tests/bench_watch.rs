//! `arbiter bench-watch --room fate-tokens` end to end, with small numbers: people sit down
//! at a Fate Tokens table through the pages, say chat lines in turn, and every other seat's
//! page and every spectator's page must show each line. Only the counts are checked; speed is
//! the benchmark's to report, never a test's to assert.

use std::process::Command;

/// The number before `of` and the one after it in `line`'s part that follows `label`
/// (`seats 9 of 9` → (9, 9)).
fn counts_after(line: &str, label: &str) -> Option<(u64, u64)> {
    let rest = &line[line.find(label)? + label.len()..];
    let mut words = rest.split_whitespace();
    let got = words.next()?.parse().ok()?;
    (words.next()? == "of").then_some(())?;
    let wanted = words.next()?.parse().ok()?;
    Some((got, wanted))
}

#[test]
fn every_other_seat_and_every_spectator_sees_every_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "bench-watch",
            "--room",
            "fate-tokens",
            "--seats",
            "4",
            "--spectators",
            "3",
            "--actions",
            "5",
            "--pause-ms",
            "0",
        ])
        .output()
        .expect("the benchmark runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let line = stdout
        .lines()
        .find(|line| line.starts_with("updated:"))
        .unwrap_or_else(|| panic!("no count of the pages updated: {stdout}"));
    // Four seats: each line is awaited by the three others; the speaker's own page is not
    // counted.
    assert_eq!(counts_after(line, "seats"), Some((15, 15)), "{stdout}");
    assert_eq!(counts_after(line, "spectators"), Some((15, 15)), "{stdout}");
    assert!(stdout.contains("spectators : line POST"), "{stdout}");
}
