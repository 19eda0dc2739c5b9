//! Gomoku through the whole stack with a Gomocup brain (`tests/engines/gomocup_engine.py`)
//! against a connector running the practice engine, which plays the first legal point (the
//! top row from the left). The brain's stones are fixed (column 7 from the centre down), so
//! every game is known in advance; what the brain read is written to a file, and the tests
//! check that transcript against the protocol. The `--challenge` tests play a house bot
//! instead, and check the match's game and variant.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_connector::{Challenge, ConnectorError, EngineSpec, Exit, Options};
use serde_json::{Value, json};

use crate::harness::*;

/// The memory the brains are told they may use, in MiB.
const MEMORY_MB: u64 = 64;

/// A connector's options for `token` with the test brain started with `options`, logging to
/// `log`.
fn brain_options(server: &Server, token: &str, python: &str, log: &Path, options: &str) -> Options {
    let script = engine_file("tests/engines/gomocup_engine.py");
    let command = format!("{python} {script} --log {} {options}", log.display());
    Connector::options(
        server,
        token,
        EngineSpec::Gomocup {
            command,
            max_memory_mb: MEMORY_MB,
        },
    )
}

/// A connector for `token` with the test brain started with `options`, logging to `log`.
fn brain(server: &Server, token: &str, python: &str, log: &Path, options: &str) -> Connector {
    Connector::start(brain_options(server, token, python, log, options))
}

/// `options`, challenging the house bot `house-easy` to `game` and `variant` (the connector's
/// defaults where `None`), as `--challenge` does.
fn challenging_the_house(
    mut options: Options,
    game: Option<&str>,
    variant: Option<&str>,
    single: bool,
) -> Options {
    options.challenge = Some(Challenge {
        opponent: "house-easy".to_owned(),
        game: game.map(str::to_owned),
        variant: variant.map(str::to_owned),
        single,
    });
    options
}

/// A connector for `token` playing Gomoku with the practice engine.
fn practice(server: &Server, token: &str) -> Connector {
    let mut options = Connector::options(server, token, EngineSpec::Practice);
    options.games = "gomoku".parse().expect("games");
    Connector::start(options)
}

/// Two bots, a brain's and the practice engine's, connected; returns their tokens and the
/// brain bot's name.
async fn bots(server: &Server) -> (String, String, String) {
    let brain_token = server.mint("brain").await;
    let practice_token = server.mint("practice").await;
    let name = server.me(&brain_token).await["name"]
        .as_str()
        .expect("name")
        .to_owned();
    (brain_token, practice_token, name)
}

/// A server with two bots connected: one whose connector runs the test brain, which writes
/// what it reads to `log`, and one running the practice engine.
struct Duel {
    server: Server,
    log: PathBuf,
    /// The folder of `log`, which must live as long as the brain writes there.
    _dir: tempfile::TempDir,
    brain_token: String,
    practice_token: String,
    /// The brain bot's name, as challenges name it.
    name: String,
    connectors: Connectors,
}

/// The two connectors of a [`Duel`].
struct Connectors {
    brain: Connector,
    practice: Connector,
}

impl Duel {
    /// Starts a server, its two bots and their connectors, the brain with `options`, and
    /// waits until both are connected.
    async fn start(python: &str, options: &str) -> Duel {
        let server = Server::start().await;
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let (brain_token, practice_token, name) = bots(&server).await;
        let connectors = Connectors {
            brain: brain(&server, &brain_token, python, &log, options),
            practice: practice(&server, &practice_token),
        };
        server.connected(&brain_token).await;
        server.connected(&practice_token).await;
        Duel {
            server,
            log,
            _dir: dir,
            brain_token,
            practice_token,
            name,
            connectors,
        }
    }

    /// The practice bot challenges the brain's bot with `body`; returns the match's id.
    async fn challenge(&self, body: Value) -> i64 {
        self.server
            .challenge(&self.practice_token, &self.name, body)
            .await
    }

    /// The practice bot challenges the brain's bot to Gomoku's `variant` in `format`; returns
    /// the finished match's snapshot.
    async fn play(&self, variant: &str, format: &str) -> Value {
        let id = self
            .challenge(json!({"game": "gomoku", "variant": variant, "format": format}))
            .await;
        let end = self.server.ended(id).await;
        assert_eq!(end["status"], "finished", "{end}");
        assert!(end["result"].is_object(), "{end}");
        end
    }
}

impl Connectors {
    /// Stops both connectors, checking that each ends normally.
    async fn stop(self) {
        assert_eq!(self.brain.stop().await, Exit::Normal);
        assert_eq!(self.practice.stop().await, Exit::Normal);
    }
}

/// Each leg's stones, in order, as `(x, y, black)`.
fn legs(end: &Value) -> Vec<Vec<(u64, u64, bool)>> {
    end["legs"]
        .as_array()
        .expect("legs")
        .iter()
        .map(|leg| {
            leg["view"]["history"]
                .as_array()
                .expect("history")
                .iter()
                .map(|s| {
                    let x = s["x"].as_u64().expect("x");
                    let y = s["y"].as_u64().expect("y");
                    (x, y, s["color"] == "black")
                })
                .collect()
        })
        .collect()
}

/// The commands each brain process read, by process, in order.
fn transcripts(log: &Path) -> HashMap<String, Vec<String>> {
    let mut by_process: HashMap<String, Vec<String>> = HashMap::new();
    for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
        if let Some((pid, command)) = line.split_once(' ') {
            by_process
                .entry(pid.to_owned())
                .or_default()
                .push(command.to_owned());
        }
    }
    by_process
}

/// The transcripts of the brains that played, without the start-up probe's (the only one
/// asked `ABOUT`).
fn players(log: &Path) -> HashMap<String, Vec<String>> {
    let mut all = transcripts(log);
    let probes: Vec<String> = all
        .iter()
        .filter(|(_, commands)| commands.iter().any(|c| c == "ABOUT"))
        .map(|(pid, _)| pid.clone())
        .collect();
    assert_eq!(probes.len(), 1, "one probe: {all:?}");
    all.remove(&probes[0]);
    all
}

/// Checks that every position command is preceded by the five INFO settings, with sane values.
fn check_info(commands: &[String], rule: u64) {
    for (at, command) in commands.iter().enumerate() {
        let position = command == "BEGIN" || command.starts_with("TURN ") || command == "BOARD";
        if !position {
            continue;
        }
        assert!(at >= 5, "INFO before {command}: {commands:?}");
        let info: HashMap<&str, i64> = commands[at - 5..at]
            .iter()
            .map(|line| {
                let mut words = line.split_whitespace();
                assert_eq!(words.next(), Some("INFO"), "{line} before {command}");
                let key = words.next().expect("a key");
                let value = words.next().expect("a value").parse().expect("a number");
                (key, value)
            })
            .collect();
        let turn = info["timeout_turn"];
        assert!(
            (1..=10_000).contains(&turn),
            "the per-move cap at most: {info:?}"
        );
        assert!(info["time_left"] > 0, "{info:?}");
        assert!(info["timeout_match"] >= info["time_left"], "{info:?}");
        assert_eq!(info["max_memory"], (MEMORY_MB * 1024 * 1024) as i64);
        assert_eq!(info["rule"], rule as i64, "{info:?}");
    }
}

#[tokio::test]
async fn freestyle_is_played_by_a_brain_restarted_between_matches_or_replaced() {
    let Some(python) = python() else { return };
    // (brain options, whether RESTART is answered OK)
    let table = [("--crlf", true), ("--no-restart --unknown --cr", false)];
    for (options, restarts) in table {
        let duel = Duel::start(python, options).await;
        let environment = &duel.server.me(&duel.brain_token).await["environment"];
        assert_eq!(environment["engine"], "pytest-brain 1.0", "from ABOUT");

        let paired = duel.play("freestyle", "paired").await;
        for stones in legs(&paired) {
            // Whoever plays Black makes five with its fifth stone, the ninth of the game.
            assert_eq!(stones.len(), 9, "{stones:?}");
            let brain_black = stones[0] == (7, 7, true);
            let expected: Vec<(u64, u64)> = if brain_black {
                (7..12).map(|y| (7, y)).collect()
            } else {
                (0..5).map(|x| (x, 0)).collect()
            };
            let black: Vec<(u64, u64)> = stones
                .iter()
                .filter(|s| s.2)
                .map(|&(x, y, _)| (x, y))
                .collect();
            assert_eq!(black, expected, "{options}: {stones:?}");
        }
        duel.play("freestyle", "single").await;
        duel.connectors.stop().await;

        let players = players(&duel.log);
        // Two legs at once, then one leg in one of those brains, or in a third.
        assert_eq!(players.len(), if restarts { 2 } else { 3 }, "{players:?}");
        let restarted: Vec<&Vec<String>> = players
            .values()
            .filter(|commands| commands.iter().any(|c| c == "RESTART"))
            .collect();
        assert_eq!(restarted.len(), 1, "one RESTART: {players:?}");
        for commands in players.values() {
            assert_eq!(commands[..2], ["started", "START 15"], "{commands:?}");
            assert_eq!(
                commands.iter().filter(|c| c.starts_with("START")).count(),
                1,
                "START once: {commands:?}"
            );
            assert_eq!(
                commands.last().map(String::as_str),
                Some("END"),
                "{commands:?}"
            );
            check_info(commands, 0);
            let unknown = commands
                .iter()
                .filter(|c| !c.starts_with("INFO") && !c.starts_with("TURN "));
            for command in unknown {
                assert!(
                    ["started", "START 15", "BEGIN", "RESTART", "END"].contains(&command.as_str()),
                    "{options}: nothing but the game's own commands: {commands:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn renju_positions_reach_a_restarted_brain_whole_and_in_move_order() {
    let Some(python) = python() else { return };
    // The brain exits after every second stone: the next decision starts a fresh one.
    let duel = Duel::start(python, "--die-after 2").await;
    let end = duel.play("renju", "paired").await;
    duel.connectors.stop().await;
    let legs = legs(&end);
    assert!(legs.iter().all(|stones| stones.len() == 9), "{legs:?}");

    let mut boards = 0;
    for commands in players(&duel.log).values() {
        check_info(commands, 4);
        let mut lines = commands.iter();
        while let Some(command) = lines.next() {
            if command != "BOARD" {
                continue;
            }
            boards += 1;
            let sent: Vec<(u64, u64, u64)> = lines
                .by_ref()
                .take_while(|line| *line != "DONE")
                .map(|line| {
                    let v: Vec<u64> = line.split(',').map(|n| n.parse().expect("n")).collect();
                    (v[0], v[1], v[2])
                })
                .collect();
            // The stones so far of one of the legs, in the order played; the brain's own (1)
            // are those of the colour to move.
            let black_to_move = sent.len().is_multiple_of(2);
            let matches_a_leg = legs.iter().any(|stones| {
                sent.len() < stones.len()
                    && sent
                        .iter()
                        .zip(stones)
                        .all(|(&(x, y, field), &(sx, sy, black))| {
                            (x, y) == (sx, sy) && (field == 1) == (black == black_to_move)
                        })
            });
            assert!(
                matches_a_leg,
                "BOARD {sent:?} is no leg's opening: {legs:?}"
            );
        }
    }
    assert!(boards >= 2, "restarted brains were sent the board");
}

#[tokio::test]
async fn a_brain_answering_swap2board_plays_swap2_openings() {
    let Some(python) = python() else { return };
    let duel = Duel::start(python, "--swap2").await;
    let variants = &duel.server.me(&duel.brain_token).await["environment"]["variants"];
    assert_eq!(variants, &json!(["gomoku"]), "every variant, swap2 too");
    let end = duel.play("swap2", "paired").await;
    duel.connectors.stop().await;
    let legs = legs(&end);
    // Where the brain opened, its three stones; where the practice engine did (the top row),
    // the brain placed two more and handed the choice back.
    let opened: Vec<&Vec<(u64, u64, bool)>> = legs
        .iter()
        .filter(|stones| stones[0] == (7, 7, true))
        .collect();
    assert_eq!(opened.len(), 1, "{legs:?}");
    assert_eq!(opened[0][..3], [(7, 7, true), (8, 7, false), (9, 9, true)]);
    let answered: Vec<&Vec<(u64, u64, bool)>> = legs
        .iter()
        .filter(|stones| stones[0] == (0, 0, true))
        .collect();
    assert_eq!(answered.len(), 1, "{legs:?}");
    assert_eq!(answered[0][3..5], [(14, 14, false), (13, 14, true)]);
    let swap2_boards = players(&duel.log)
        .values()
        .flatten()
        .filter(|c| *c == "SWAP2BOARD")
        .count();
    assert_eq!(swap2_boards, 2, "one per leg: the opening, and the choice");
}

#[tokio::test]
async fn swap2_challenges_are_declined_for_a_brain_without_swap2board() {
    let Some(python) = python() else { return };
    let server = Server::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let (brain_token, practice_token, name) = bots(&server).await;
    // Challenges sent before the connector reports what its brain plays reach it pending.
    let mut pending = Vec::new();
    for variant in ["swap2", "renju-swap2"] {
        let body = json!({"game": "gomoku", "variant": variant, "format": "single"});
        pending.push(server.challenge(&practice_token, &name, body).await);
    }
    let brain_connector = brain(&server, &brain_token, python, &log, "");
    for id in pending {
        let end = server.ended(id).await;
        assert_eq!(end["status"], "rejected", "{end}");
    }
    server.connected(&brain_token).await;
    let variants = server.me(&brain_token).await["environment"]["variants"].clone();
    let variants: Vec<&str> = variants
        .as_array()
        .expect("variants")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(variants.contains(&"gomoku:renju"), "{variants:?}");
    assert!(
        !variants
            .iter()
            .any(|v| *v == "gomoku" || v.contains("swap2")),
        "{variants:?}"
    );
    // Once it has, the server refuses them itself.
    let body = json!({"opponent": name, "game": "gomoku", "variant": "swap2"});
    let (status, refusal) = server
        .call(
            reqwest::Method::POST,
            "/challenges",
            &practice_token,
            Some(body),
        )
        .await;
    assert_eq!(status, 409, "{refusal}");
    assert_eq!(brain_connector.stop().await, Exit::Normal);
    assert!(players(&log).is_empty(), "no brain started to play");
}

#[tokio::test]
async fn a_brain_refusing_the_board_size_sends_no_stone_and_is_not_asked_again() {
    let Some(python) = python() else { return };
    let duel = Duel::start(python, "--max-size 15").await;
    let id = duel
        .challenge(json!({"game": "gomoku", "variant": "freestyle-19", "format": "single"}))
        .await;
    let refused = async {
        while !players(&duel.log)
            .values()
            .flatten()
            .any(|c| c == "START 19")
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(PATIENCE, refused)
        .await
        .expect("the brain is asked to start a 19x19 board");
    // Its first stone never comes: on the duel.server's clock, the match is called off.
    duel.server.advance(3_600_000);
    let end = duel.server.ended(id).await;
    assert_eq!(end["status"], "aborted", "{end}");
    assert_eq!(end["result"]["reason"], "no_first_move", "{end}");
    let stones = legs(&end);
    assert_eq!(
        stones[0].len(),
        1,
        "the practice engine's stone only: {end}"
    );
    duel.connectors.stop().await;
    let starts = players(&duel.log)
        .values()
        .flatten()
        .filter(|c| c.starts_with("START"))
        .count();
    assert_eq!(
        starts, 1,
        "a refusal is final: the brain is not started again"
    );
}

#[tokio::test]
async fn a_balanced_openings_stones_reach_the_brain_first_in_its_first_board() {
    let Some(python) = python() else { return };
    let duel = Duel::start(python, "").await;
    let id = duel
        .challenge(json!({"game": "gomoku", "variant": "renju", "opening": "balanced"}))
        .await;
    let end = duel.server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    duel.connectors.stop().await;

    // The opening both legs started from, checked against the board: black, white, black.
    let view = &end["legs"][0]["view"];
    let opening: Vec<(u64, u64)> = view["opening"]
        .as_array()
        .expect("the view lists the opening")
        .iter()
        .map(|point| (point[0].as_u64().expect("x"), point[1].as_u64().expect("y")))
        .collect();
    assert_eq!(opening.len(), 3, "{view}");
    assert_eq!(end["legs"][1]["view"]["opening"], view["opening"], "{end}");
    for (&(x, y), stone) in opening.iter().zip(['X', 'O', 'X']) {
        let row = view["board"][y as usize].as_str().expect("a row");
        assert_eq!(row.chars().nth(x as usize), Some(stone), "{view}");
    }

    let players = players(&duel.log);
    assert_eq!(players.len(), 2, "one brain per leg: {players:?}");
    let mut first_boards = Vec::new();
    for commands in players.values() {
        check_info(commands, 4);
        let positions: Vec<usize> = (0..commands.len())
            .filter(|&at| {
                let command = &commands[at];
                command == "BEGIN" || command == "BOARD" || command.starts_with("TURN ")
            })
            .collect();
        let (&first, later) = positions.split_first().expect("a position");
        assert_eq!(commands[first], "BOARD", "never BEGIN: {commands:?}");
        assert!(
            later.iter().all(|&at| commands[at].starts_with("TURN ")),
            "a brain that saw the board gets only the opponent's stones: {commands:?}"
        );
        let sent: Vec<(u64, u64, u64)> = commands[first + 1..]
            .iter()
            .take_while(|line| *line != "DONE")
            .map(|line| {
                let v: Vec<u64> = line.split(',').map(|n| n.parse().expect("n")).collect();
                (v[0], v[1], v[2])
            })
            .collect();
        // Field 1 marks the stones of the colour to move, which the count of stones tells.
        let own = if sent.len().is_multiple_of(2) { 0 } else { 1 };
        let expected: Vec<(u64, u64, u64)> = opening
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| (x, y, if i % 2 == own { 1 } else { 2 }))
            .collect();
        assert_eq!(sent[..3], expected[..], "{commands:?}");
        first_boards.push(sent.len());
    }
    first_boards.sort_unstable();
    assert_eq!(
        first_boards,
        [3, 4],
        "White moves first, after the opening; Black after White's stone"
    );
}

#[tokio::test]
async fn challenge_plays_gomoku_against_a_house_bot_in_the_variant_named_or_the_default() {
    let Some(python) = python() else { return };
    // (--game, --variant, --single, the variant played)
    let table = [
        (Some("gomoku"), Some("renju"), false, "renju"),
        (None, Some("standard"), true, "standard"),
        (None, None, false, "freestyle"),
    ];
    for (game, variant, single, played) in table {
        let server = Server::start().await;
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let token = server.mint("brain").await;
        let brain = brain_options(&server, &token, python, &log, "");
        let mut options = challenging_the_house(brain, game, variant, single);
        let (timings, mut sent) = tokio::sync::mpsc::unbounded_channel();
        options.timings = Some(timings);
        let connector = Connector::start(options);
        assert_eq!(connector.exit().await, Exit::Normal, "the match ended");
        let first = sent.recv().await.expect("the brain's stones were sent");
        let end = server.snapshot(first.match_id).await;
        assert_eq!(end["status"], "finished", "{end}");
        assert_eq!(
            (&end["game"], &end["variant"]),
            (&json!("gomoku"), &json!(played)),
            "--game {game:?} --variant {variant:?}: {end}"
        );
        assert_eq!(end["participants"][1]["name"], "house-easy", "{end}");
        let format = if single { "single" } else { "paired" };
        assert_eq!(end["format"], format, "{end}");
        let rule = if played == "renju" {
            4
        } else {
            u64::from(played == "standard")
        };
        for commands in players(&log).values() {
            check_info(commands, rule);
        }
    }
}

#[tokio::test]
async fn challenge_to_a_match_the_brain_would_not_play_is_not_sent() {
    let Some(python) = python() else { return };
    let server = Server::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let token = server.mint("brain").await;
    // (--game, --variant): a game a Gomocup brain does not play, and swap2 for a brain that
    // does not answer SWAP2BOARD.
    let table = [(Some("othello"), None), (None, Some("swap2"))];
    for (game, variant) in table {
        let log = dir.path().join("log");
        let brain = brain_options(&server, &token, python, &log, "");
        let options = challenging_the_house(brain, game, variant, false);
        let refused = tokio::time::timeout(
            PATIENCE,
            arbiter_connector::run(options, std::future::pending()),
        )
        .await
        .expect("the connector stops at once");
        match refused {
            Err(error @ ConnectorError::ChallengeNotPlayed { .. }) => {
                assert!(
                    error
                        .to_string()
                        .starts_with("cannot challenge house-easy: "),
                    "{error}"
                );
            }
            other => panic!("--game {game:?} --variant {variant:?}: {other:?}"),
        }
    }
    // A challenge to a house bot would have started a match, still open.
    let (status, open) = server
        .call(reqwest::Method::GET, "/matches", &token, None)
        .await;
    assert_eq!((status, open), (200, json!([])), "no challenge was sent");
}
