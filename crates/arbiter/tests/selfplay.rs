//! `arbiter selfplay fate-tokens` as a user runs it: the table, the chart, and the same table
//! again from the same seed.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `arbiter` with `args`.
fn arbiter(args: &[&str], svg: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    command.args(args);
    if let Some(svg) = svg {
        command.arg("--svg").arg(svg);
    }
    command.output().expect("arbiter runs")
}

/// Twenty games each of 4 and 5 players from seed 7 on two threads; the standard output.
fn selfplay(svg: &Path) -> String {
    let output = arbiter(
        &[
            "selfplay",
            "fate-tokens",
            "--players",
            "4..5",
            "--games",
            "20",
            "--seed",
            "7",
            "--threads",
            "2",
        ],
        Some(svg),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The table: its header line and the lines below it up to the first blank one.
fn table(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("players"))
        .take_while(|line| !line.trim().is_empty())
        .collect()
}

#[test]
fn selfplay_prints_the_table_and_draws_the_chart() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let chart = dir.path().join("rates.svg");
    let stdout = selfplay(&chart);
    let version = <arbiter_fate_tokens::FateTokens as arbiter_rules::Game>::RULES_VERSION;
    assert!(
        stdout.contains(&format!("rules_version {version}: rule bots")),
        "{stdout}"
    );
    assert!(stdout.contains("refused actions: 0"), "{stdout}");
    assert!(stdout.contains("games/s per thread"), "{stdout}");

    let rows = table(&stdout);
    assert_eq!(rows.len(), 3, "{stdout}");
    for label in [
        "win rate",
        "95 % CI",
        "avg rounds",
        "pathfinder",
        "round cap",
    ] {
        assert!(rows[0].contains(label), "{label} missing: {stdout}");
    }
    let svg = std::fs::read_to_string(&chart).expect("the chart was written");
    assert!(svg.starts_with("<svg "), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    assert_eq!(svg.matches("<svg").count(), 1);
    assert_eq!(svg.matches(r#"class="bar""#).count(), 2, "{svg}");
    for (row, players) in rows[1..].iter().zip([4, 5]) {
        // players, games, good wins, rate, %, [low, high], %, avg rounds, five endings
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells.len(), 14, "{row}");
        assert_eq!(cells[0], players.to_string(), "{row}");
        assert_eq!(cells[1], "20", "{row}");
        let wins: u32 = cells[2].parse().expect("good wins");
        assert!(wins <= 20, "{row}");
        let rate = format!("{:.1}", f64::from(wins) * 100.0 / 20.0);
        assert_eq!(cells[3], rate, "{row}");
        let rounds: f64 = cells[8].parse().expect("average rounds");
        assert!((1.0..=f64::from(players + 1)).contains(&rounds), "{row}");
        let endings: u32 = cells[9..]
            .iter()
            .map(|c| c.parse::<u32>().expect("an ending count"))
            .sum();
        assert_eq!(endings, 20, "{row}");
        assert!(svg.contains(&format!(">{rate} %<")), "{rate} not in {svg}");
        assert!(svg.contains(&format!(">{players} players<")), "{svg}");
    }

    let again = dir.path().join("again.svg");
    let second = selfplay(&again);
    assert_eq!(table(&second), rows, "the same seed, another table");
    assert_eq!(std::fs::read_to_string(&again).expect("a chart"), svg);
}

#[test]
fn selfplay_refuses_player_counts_outside_the_rules() {
    for players in ["3..8", "4..9", "7..5", "x"] {
        let output = arbiter(
            &[
                "selfplay",
                "fate-tokens",
                "--players",
                players,
                "--games",
                "1",
            ],
            None,
        );
        assert!(!output.status.success(), "{players} was accepted");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--players"), "{stderr}");
    }
}
