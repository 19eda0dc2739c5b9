//! The reply parser, the swap2 mapping and the position sent, by tables; and the adapter
//! against the test brain (`tests/engines/gomocup_engine.py`) and small shell brains.

use serde_json::json;

use super::*;

/// A Gomoku decision after `stones` (black first, alternating), with every empty point legal
/// but `forbidden`.
fn request(rule: &str, stones: &[(u8, u8)], forbidden: &[(u8, u8)]) -> GenericRequest {
    opened(rule, &[], stones, forbidden)
}

/// A Gomoku decision after a fixed opening's stones `opening` and the stones played then,
/// `stones`, all alternating from Black, with every empty point legal but `forbidden`; seat 0
/// plays Black.
fn opened(
    rule: &str,
    opening: &[(u8, u8)],
    stones: &[(u8, u8)],
    forbidden: &[(u8, u8)],
) -> GenericRequest {
    let size = 15u8;
    let history: Vec<Value> = stones
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| {
            let colour = (opening.len() + i) % 2;
            let color = if colour == 0 { "black" } else { "white" };
            json!({"seat": colour, "color": color, "x": x, "y": y})
        })
        .collect();
    let placed = opening.len() + stones.len();
    let next = if placed.is_multiple_of(2) {
        "black"
    } else {
        "white"
    };
    let mut legal = Vec::new();
    for y in 0..size {
        for x in 0..size {
            let taken = stones.contains(&(x, y)) || opening.contains(&(x, y));
            if !taken && !forbidden.contains(&(x, y)) {
                legal.push(json!({"x": x, "y": y}));
            }
        }
    }
    let value = json!({"protocol": 1, "game": "gomoku", "variant": rule, "match_id": 1, "leg": 0,
        "seats": 2, "seat": placed % 2, "participant": 0, "phase": null, "revision": stones.len(),
        "view": {"size": size, "rule": rule, "board": [], "phase": "play", "to_move": placed % 2,
            "next": next, "black_seat": 0, "history": history, "opening": opening,
            "forbidden": forbidden},
        "legal_actions": legal, "action_grammar": null, "clocks_ms": [60000, 45000],
        "remaining_ms": 45000, "budget_ms": 10000, "deadline_ms": null});
    GenericRequest::from_json(&value).expect("a generic request")
}

#[test]
fn replies_are_read_as_brains_write_them() {
    let stones = |list: &[(u8, u8)]| Ok(Reply::Stones(list.to_vec()));
    let table: [(&str, Result<Reply, GomocupError>); 14] = [
        ("OK", Ok(Reply::Ok)),
        (" ok ", Ok(Reply::Ok)),
        ("UNKNOWN", Ok(Reply::Refused("UNKNOWN".to_owned()))),
        (
            "ERROR Unknown command: FOO",
            Ok(Reply::Refused("ERROR Unknown command: FOO".to_owned())),
        ),
        ("SWAP", Ok(Reply::Swap)),
        ("7,7", stones(&[(7, 7)])),
        (" 7 , 8 ", stones(&[(7, 8)])),
        ("0,14", stones(&[(0, 14)])),
        ("8,5 5,8 6,7", stones(&[(8, 5), (5, 8), (6, 7)])),
        (
            "15,0",
            Err(GomocupError::OffBoard {
                x: 15,
                y: 0,
                size: 15,
            }),
        ),
        (
            "3,300",
            Err(GomocupError::OffBoard {
                x: 3,
                y: 300,
                size: 15,
            }),
        ),
        ("7", Err(GomocupError::NotAReply("7".to_owned()))),
        ("-1,3", Err(GomocupError::NotAReply("-1,3".to_owned()))),
        ("7,7,1", Err(GomocupError::NotAReply("7,7,1".to_owned()))),
    ];
    for (line, expected) in table {
        assert_eq!(parse_reply(line, 15), expected, "{line:?}");
    }
}

#[test]
fn messages_debug_lines_and_empty_lines_are_no_reply() {
    let table = [
        ("MESSAGE thinking", true),
        ("DEBUG depth 3", true),
        ("message lower case", true),
        ("MESSAGE", true),
        ("", true),
        ("   ", true),
        ("7,7", false),
        ("OK", false),
        ("MESSAGES are not a word of the protocol", false),
    ];
    for (line, chatter) in table {
        assert_eq!(is_chatter(line), chatter, "{line:?}");
    }
}

#[test]
fn swap2_answers_map_onto_the_rules_choices_and_planned_stones() {
    let planned = |list: &[(usize, u8, u8)]| -> Vec<Planned> {
        list.iter()
            .map(|&(due, x, y)| Planned { due, x, y })
            .collect()
    };
    let stones = |list: &[(u8, u8)]| Reply::Stones(list.to_vec());
    type Meaning = Result<(Act, Vec<Planned>), &'static str>;
    // (stones on the board, answer, action now, planned stones by the history's length)
    let table: [(usize, Reply, Meaning); 11] = [
        // Swap2's first player places black, white, black over three decisions.
        (
            0,
            stones(&[(8, 5), (5, 8), (6, 7)]),
            Ok((Act::Stone(8, 5), planned(&[(1, 5, 8), (2, 6, 7)]))),
        ),
        (0, Reply::Swap, Err("three stones")),
        (0, stones(&[(7, 7)]), Err("three stones")),
        // After three stones the second player takes Black, stays White with the fourth
        // stone, or places the fourth and fifth and hands the choice back.
        (3, Reply::Swap, Ok((Act::Choose("black"), Vec::new()))),
        (
            3,
            stones(&[(9, 9)]),
            Ok((Act::Choose("white"), planned(&[(3, 9, 9)]))),
        ),
        (
            3,
            stones(&[(9, 9), (10, 10)]),
            Ok((Act::Choose("more"), planned(&[(3, 9, 9), (4, 10, 10)]))),
        ),
        (
            3,
            stones(&[(1, 1), (2, 2), (3, 3)]),
            Err("SWAP, one stone or two stones"),
        ),
        // After five stones the first player takes Black, or stays White with the sixth.
        (5, Reply::Swap, Ok((Act::Choose("black"), Vec::new()))),
        (
            5,
            stones(&[(4, 4)]),
            Ok((Act::Choose("white"), planned(&[(5, 4, 4)]))),
        ),
        (5, stones(&[(4, 4), (5, 5)]), Err("SWAP or one stone")),
        (3, Reply::Ok, Err("SWAP, one stone or two stones")),
    ];
    for (count, reply, expected) in table {
        assert_eq!(
            swap2_meaning(count, &reply),
            expected,
            "{count} stones, {reply:?}"
        );
    }
}

#[test]
fn the_engine_name_comes_from_about() {
    let table = [
        (
            r#"name="Rapfi", version="0.43.02 (x)", author="Rapfi developers", country="China""#,
            Some("Rapfi 0.43.02 (x)"),
        ),
        (r#"name="pbrain", author="me""#, Some("pbrain")),
        (r#"name="", version="1""#, None),
        ("ERROR Unknown command: ABOUT", None),
    ];
    for (line, expected) in table {
        assert_eq!(about_name(line).as_deref(), expected, "{line}");
    }
}

#[test]
fn positions_are_read_from_the_view_and_sent_in_move_order() {
    let renju = request("renju", &[(7, 7), (8, 8), (7, 8), (9, 9)], &[]);
    let position = Position::read(&renju).expect("a position");
    assert_eq!(
        (position.size, position.rule, position.phase),
        (15, 4, Phase::Play)
    );
    assert_eq!(position.next, Colour::Black);
    // Black to move: Black's stones are the brain's own (1), in the order they were played.
    let lines: Vec<String> = position.stone_lines(position.next).collect();
    assert_eq!(lines, ["7,7,1", "8,8,2", "7,8,1", "9,9,2"]);
    // A fixed opening's stones come first, their colours alternating from Black.
    let balanced = opened("renju", &[(7, 7), (7, 6), (8, 8)], &[(0, 0)], &[]);
    let position = Position::read(&balanced).expect("a position");
    assert_eq!(position.next, Colour::Black);
    let lines: Vec<String> = position.stone_lines(position.next).collect();
    assert_eq!(lines, ["7,7,1", "7,6,2", "8,8,1", "0,0,2"]);
    let rules = [("freestyle", 0), ("standard", 1), ("renju", 4)];
    for (rule, number) in rules {
        let position = Position::read(&request(rule, &[], &[])).expect("a position");
        assert_eq!(position.rule, number, "{rule}");
    }
    let mut other = request("freestyle", &[], &[]).with_clock(1, 1);
    other = GenericRequest::from_json(&{
        let mut value: Value = serde_json::from_str(&other.to_line()).expect("JSON");
        value["view"]["rule"] = json!("caro");
        value
    })
    .expect("a generic request");
    assert!(Position::read(&other).is_err_and(|f| f.is_permanent()));
}

fn python() -> bool {
    let present = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !present {
        eprintln!("python3 is not installed: skipping a test that runs a Python engine");
    }
    present
}

/// The test brain with `options`, logging to `log`.
fn brain(log: &std::path::Path, options: &str, pool: &BrainPool) -> GomocupEngine {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/engines/gomocup_engine.py"
    );
    let command = format!("python3 {script} --log {} {options}", log.display());
    GomocupEngine::new(&command, 64, pool.clone())
}

/// The commands the brain read, each with the process that read it.
fn transcript(log: &std::path::Path) -> Vec<(String, String)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(pid, command)| (pid.to_owned(), command.to_owned()))
        .collect()
}

fn commands(log: &std::path::Path) -> Vec<String> {
    transcript(log).into_iter().map(|(_, c)| c).collect()
}

const BUDGET: Option<Duration> = Some(Duration::from_secs(10));

#[tokio::test]
async fn the_brain_gets_begin_then_turn_and_the_whole_board_when_it_lost_track() {
    if !python() {
        return;
    }
    for endings in ["", "--crlf", "--cr"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let mut engine = brain(&log, endings, &BrainPool::default());
        let (first, _) = engine
            .decide(&request("renju", &[], &[]), BUDGET)
            .await
            .expect("a stone");
        assert_eq!(first, json!({"x": 7, "y": 7}), "{endings}");
        let (second, _) = engine
            .decide(&request("renju", &[(7, 7), (0, 0)], &[]), BUDGET)
            .await
            .expect("a stone");
        assert_eq!(second, json!({"x": 7, "y": 8}));
        // The opponent's reply and the stone before it are news: the whole board is sent.
        let (third, _) = engine
            .decide(
                &request(
                    "renju",
                    &[(7, 7), (0, 0), (7, 8), (1, 0), (7, 9), (2, 0)],
                    &[],
                ),
                BUDGET,
            )
            .await
            .expect("a stone");
        assert_eq!(third, json!({"x": 7, "y": 10}));
        engine.restart().await;
        let info = |budget: u64| {
            [
                format!("INFO timeout_turn {budget}"),
                "INFO timeout_match 60000".to_owned(),
                "INFO time_left 45000".to_owned(),
                format!("INFO max_memory {}", 64 * 1024 * 1024),
                "INFO rule 4".to_owned(),
            ]
        };
        let mut expected = vec!["started".to_owned(), "START 15".to_owned()];
        expected.extend(info(10_000));
        expected.push("BEGIN".to_owned());
        expected.extend(info(10_000));
        expected.push("TURN 0,0".to_owned());
        expected.extend(info(10_000));
        expected.extend(
            [
                "BOARD", "7,7,1", "0,0,2", "7,8,1", "1,0,2", "7,9,1", "2,0,2", "DONE",
            ]
            .map(str::to_owned),
        );
        assert_eq!(commands(&log), expected, "{endings}");
    }
}

#[tokio::test]
async fn an_openings_stones_reach_the_brain_in_board_before_the_stones_played() {
    if !python() {
        return;
    }
    let opening = [(7, 7), (7, 6), (8, 8)];
    let board = |fields: [u8; 3]| -> Vec<String> {
        std::iter::once("BOARD".to_owned())
            .chain(
                opening
                    .iter()
                    .zip(fields)
                    .map(|(&(x, y), field)| format!("{x},{y},{field}")),
            )
            .collect()
    };
    // (the stones played before the brain's first decision, the position sent then, the
    // position sent at its second decision)
    type Case = (&'static [(u8, u8)], Vec<String>, &'static str);
    let table: [Case; 2] = [
        // White to move first: Black's two stones are the opponent's, White's its own.
        (
            &[],
            [board([2, 1, 2]), vec!["DONE".to_owned()]].concat(),
            "TURN 0,0",
        ),
        // Black, after White's first move: every stone, the opening's first.
        (
            &[(0, 0)],
            [
                board([1, 2, 1]),
                vec!["0,0,2".to_owned(), "DONE".to_owned()],
            ]
            .concat(),
            "TURN 1,0",
        ),
    ];
    for (played, first_position, second_position) in table {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let mut engine = brain(&log, "", &BrainPool::default());
        let (first, _) = engine
            .decide(&opened("renju", &opening, played, &[]), BUDGET)
            .await
            .expect("a stone");
        // The centre is Black's: the test brain's first choice is the point below it.
        assert_eq!(first, json!({"x": 7, "y": 8}), "{played:?}");
        let mut after = played.to_vec();
        after.push((7, 8));
        after.push(if played.is_empty() { (0, 0) } else { (1, 0) });
        engine
            .decide(&opened("renju", &opening, &after, &[]), BUDGET)
            .await
            .expect("a stone");
        engine.restart().await;
        let sent: Vec<String> = commands(&log)
            .into_iter()
            .filter(|c| !c.starts_with("INFO"))
            .collect();
        let expected: Vec<String> = ["started", "START 15"]
            .map(str::to_owned)
            .into_iter()
            .chain(first_position)
            .chain(std::iter::once(second_position.to_owned()))
            .collect();
        assert_eq!(sent, expected, "never BEGIN on a board with stones");
    }
}

#[tokio::test]
async fn a_stone_the_rules_forbid_is_not_taken() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let mut engine = brain(&log, "", &BrainPool::default());
    // The brain always opens at 7,7; here the request does not list it.
    let failure = engine
        .decide(&request("renju", &[], &[(7, 7)]), BUDGET)
        .await
        .expect_err("a forbidden point");
    assert!(
        matches!(&failure, Failure::Gomocup(GomocupError::Illegal(stone)) if stone == r#"{"x":7,"y":7}"#),
        "{failure}"
    );
    assert!(!failure.is_permanent(), "a fresh brain may do better");
    engine.restart().await;
}

#[tokio::test]
async fn a_brain_refusing_the_board_size_fails_the_leg_for_good() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let mut engine = brain(&log, "--max-size 12", &BrainPool::default());
    let failure = engine
        .decide(&request("freestyle", &[], &[]), BUDGET)
        .await
        .expect_err("15x15 refused");
    assert!(failure.is_permanent(), "{failure}");
    assert_eq!(
        failure.to_string(),
        "the Gomocup engine refused START 15 (ERROR Unsupported board size!): it cannot play on a 15x15 board, so this leg is not played"
    );
    engine.restart().await;
}

#[tokio::test]
async fn a_brain_is_restarted_for_the_next_leg_or_replaced_when_it_cannot_be() {
    if !python() {
        return;
    }
    // (options, whether the second leg runs in the first leg's process)
    for (options, reused) in [
        ("", true),
        ("--no-restart", false),
        ("--unknown --no-restart", false),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let pool = BrainPool::default();
        for _ in 0..2 {
            let mut engine = brain(&log, options, &pool);
            engine
                .decide(&request("freestyle", &[], &[]), BUDGET)
                .await
                .expect("a stone");
            engine.retire().await;
        }
        pool.close().await;
        let transcript = transcript(&log);
        let first = transcript[0].0.clone();
        let pids: std::collections::HashSet<&String> = transcript.iter().map(|(p, _)| p).collect();
        assert_eq!(
            pids.len(),
            if reused { 1 } else { 2 },
            "{options}: {transcript:?}"
        );
        let restarts: Vec<&(String, String)> =
            transcript.iter().filter(|(_, c)| c == "RESTART").collect();
        assert_eq!(restarts.len(), 1, "{options}: {transcript:?}");
        assert_eq!(
            restarts[0].0, first,
            "{options}: RESTART goes to the idle brain"
        );
        for pid in pids {
            let own: Vec<&String> = transcript
                .iter()
                .filter(|(p, _)| p == pid)
                .map(|(_, c)| c)
                .collect();
            assert_eq!(
                own.last().map(|c| c.as_str()),
                Some("END"),
                "{options}: {own:?}"
            );
        }
    }
}

#[tokio::test]
async fn the_probe_reads_the_name_and_whether_swap2_is_played() {
    if !python() {
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/engines/gomocup_engine.py"
    );
    for (options, swap2) in [("--swap2", true), ("", false), ("--unknown", false)] {
        let probe = probe(&format!("python3 {script} {options}"), 64)
            .await
            .expect("the brain answers");
        assert_eq!(
            probe,
            Probe {
                name: Some("pytest-brain 1.0".to_owned()),
                swap2
            },
            "{options}"
        );
    }
}

#[tokio::test]
async fn swap2_decisions_go_to_swap2board_and_its_stones_are_played_in_turn() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let mut engine = brain(&log, "--swap2", &BrainPool::default());
    let swap2 = |phase: &str, stones: &[(u8, u8)], legal: Value| {
        let mut value: Value =
            serde_json::from_str(&request("freestyle", stones, &[]).to_line()).expect("JSON");
        value["view"]["phase"] = json!(phase);
        if !legal.is_null() {
            value["legal_actions"] = legal;
        }
        GenericRequest::from_json(&value).expect("a generic request")
    };
    let mut played = Vec::new();
    for count in 0..3 {
        let stones = &played[..count];
        let (action, _) = engine
            .decide(&swap2("swap2_place", stones, Value::Null), BUDGET)
            .await
            .expect("an opening stone");
        let x = u8::try_from(action["x"].as_u64().expect("x")).expect("x");
        let y = u8::try_from(action["y"].as_u64().expect("y")).expect("y");
        played.push((x, y));
    }
    assert_eq!(played, [(7, 7), (8, 7), (9, 9)]);
    let choices = json!([{"swap2": "black"}, {"swap2": "white"}, {"swap2": "more"}]);
    let (choice, _) = engine
        .decide(&swap2("swap2_choose", &played, choices), BUDGET)
        .await
        .expect("a choice");
    assert_eq!(choice, json!({"swap2": "more"}));
    for count in 3..5 {
        let (action, _) = engine
            .decide(&swap2("swap2_more", &played[..count], Value::Null), BUDGET)
            .await
            .expect("a stone");
        let x = u8::try_from(action["x"].as_u64().expect("x")).expect("x");
        let y = u8::try_from(action["y"].as_u64().expect("y")).expect("y");
        played.push((x, y));
    }
    assert_eq!(
        &played[3..],
        [(14, 14), (13, 14)],
        "the two stones it answered"
    );
    engine.restart().await;
    let swap2_boards: Vec<String> = commands(&log)
        .into_iter()
        .filter(|c| !c.starts_with("INFO"))
        .collect();
    assert_eq!(
        swap2_boards,
        [
            "started",
            "START 15",
            "SWAP2BOARD",
            "DONE",
            "SWAP2BOARD",
            "7,7,2",
            "8,7,1",
            "9,9,2",
            "DONE"
        ],
        "one SWAP2BOARD per answer, White's stones the brain's own"
    );
}

#[tokio::test]
async fn swap2_is_unplayable_for_a_brain_that_does_not_answer_it() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let mut engine = brain(&log, "", &BrainPool::default());
    let mut value: Value =
        serde_json::from_str(&request("freestyle", &[], &[]).to_line()).expect("JSON");
    value["view"]["phase"] = json!("swap2_place");
    let request = GenericRequest::from_json(&value).expect("a generic request");
    let failure = engine.decide(&request, BUDGET).await.expect_err("no swap2");
    assert!(failure.is_permanent(), "{failure}");
    assert!(failure.to_string().contains("SWAP2BOARD"), "{failure}");
    engine.restart().await;
}
