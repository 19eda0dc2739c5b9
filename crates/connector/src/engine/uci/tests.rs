//! The position cleaning, king captures, fallbacks and command lines, by tables; and the
//! adapter against the test engine (`tests/engines/uci_engine.py`), which logs what it reads.

use serde_json::json;

use super::*;

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// A chess decision for seat `seat` (0 White) in `variant`, with `fen` the position now and
/// `legal` its legal moves.
fn request(variant: &str, initial_fen: &str, moves: &[&str], fen: &str, legal: &[&str]) -> Value {
    let white = fen.split_whitespace().nth(1) == Some("w");
    let seat = u64::from(!white);
    json!({"protocol": 1, "game": "chess", "variant": variant, "match_id": 3, "leg": 0,
        "seats": 2, "seat": seat, "participant": 0, "phase": null, "revision": moves.len(),
        "view": {"variant": variant, "initial_fen": initial_fen, "fen": fen,
            "to_move": if white { "white" } else { "black" }, "moves": moves,
            "legal_moves": legal, "dice": null, "result": null},
        "legal_actions": legal, "action_grammar": null, "clocks_ms": [60000, 45000],
        "remaining_ms": if white { 60000 } else { 45000 }, "budget_ms": 10000,
        "deadline_ms": null})
}

fn generic(value: &Value) -> GenericRequest {
    GenericRequest::from_json(value).expect("a generic request")
}

/// After 1. e4, Black to move in standard chess.
fn standard() -> Value {
    request(
        "standard",
        START_FEN,
        &["e2e4"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        &["e7e5", "c7c5", "g8f6"],
    )
}

/// A Chess960 start (position 0, `bbqnnrkr`), White to move.
const CHESS960_FEN: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1";

fn chess960() -> Value {
    request(
        "chess960",
        CHESS960_FEN,
        &[],
        CHESS960_FEN,
        &["d1c3", "e1d3", "g2g3"],
    )
}

/// Dice Chess between micro-moves: White has taken on d5 and may go on; a black knight on
/// c6 can be taken, and the black king on e8 cannot.
fn dice() -> Value {
    request(
        "dice",
        START_FEN,
        &["e2e4", "d7d5", "e4d5"],
        "r1bqkbnr/ppp1pppp/2n5/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 3 2",
        &["d5c6", "d5d6", "b1c3"],
    )
}

#[test]
fn dice_positions_are_cleaned_for_an_orthodox_engine() {
    // (FEN, White to move, legal micro-moves, the FEN sent)
    let table: [(&str, bool, &[&str], Option<&str>); 7] = [
        // Several en-passant squares, two of them valid for Black (pawn d4 beside c4 and e4):
        // the one a legal micro-move takes on, else the first.
        (
            "4k3/8/8/8/P1PpP3/8/8/4K3 b - a3c3e3 5 9",
            false,
            &["d4e3", "e8e7"],
            Some("4k3/8/8/8/P1PpP3/8/8/4K3 b - e3 0 9"),
        ),
        (
            "4k3/8/8/8/P1PpP3/8/8/4K3 b - a3c3e3 5 9",
            false,
            &["e8e7"],
            Some("4k3/8/8/8/P1PpP3/8/8/4K3 b - c3 0 9"),
        ),
        // White's own double pushes of this turn, listed between its micro-moves, are no
        // target for White.
        (
            "4k3/8/8/8/P1PpP3/8/8/4K3 w - a3c3e3 0 9",
            true,
            &["e1e2"],
            Some("4k3/8/8/8/P1PpP3/8/8/4K3 w - - 0 9"),
        ),
        // The side to move is the turn's, whatever the field says; castling rights need king
        // and rook at home (the h1 rook has gone).
        (
            "r3k2r/8/8/8/8/8/8/R3K3 b KQkq - 0 1",
            true,
            &["a1a2"],
            Some("r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1"),
        ),
        // A pushed pawn whose passed square is taken is no en-passant target.
        (
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 4",
            true,
            &["e5d6"],
            Some("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 4"),
        ),
        (
            "4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 4",
            true,
            &["e1e2"],
            Some("4k3/3n4/8/3pP3/8/8/8/4K3 w - - 0 4"),
        ),
        // No orthodox engine takes a side without its king.
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", true, &["e1e2"], None),
    ];
    for (fen, white, legal, expected) in table {
        assert_eq!(
            orthodox_fen(fen, white, &strings(legal)).as_deref(),
            expected,
            "{fen}"
        );
    }
}

#[test]
fn malformed_placements_are_no_board() {
    for placement in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR",
        "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    ] {
        assert_eq!(Board::parse(placement), None, "{placement}");
    }
    assert!(Board::parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR").is_some());
}

#[test]
fn a_king_capture_is_found_and_otherwise_a_capture_or_the_first_move_falls_back() {
    // (placement, White to move, legal, the king capture, the fallback)
    type Case = (
        &'static str,
        bool,
        &'static [&'static str],
        Option<&'static str>,
        &'static str,
    );
    let table: [Case; 6] = [
        (
            "4k3/8/8/8/8/8/4R3/4K3",
            true,
            &["e2e3", "e2e8"],
            Some("e2e8"),
            "e2e8",
        ),
        (
            "4k3/8/8/8/8/8/4R3/4K3",
            true,
            &["e2e3", "e1d1"],
            None,
            "e2e3",
        ),
        // Black takes the white king.
        (
            "4k3/8/8/8/8/8/4r3/4K3",
            false,
            &["e2h2", "e2e1"],
            Some("e2e1"),
            "e2e1",
        ),
        // A capture of another piece is preferred as the fallback, never as a king capture.
        (
            "4k3/8/8/8/8/8/3nR3/4K3",
            true,
            &["e2e3", "e1d1", "e1d2"],
            None,
            "e1d2",
        ),
        (
            "4k3/8/8/8/8/8/3nR3/4K3",
            true,
            &["e2e3", "e1f1"],
            None,
            "e2e3",
        ),
        // En passant is a capture onto an empty square.
        (
            "4k3/8/8/3pP3/8/8/8/4K3",
            true,
            &["e1e2", "e5d6"],
            None,
            "e5d6",
        ),
    ];
    for (placement, white, legal, capture, fallen) in table {
        let board = Board::parse(placement).expect("a board");
        let legal = strings(legal);
        assert_eq!(king_capture(&board, white, &legal), capture, "{placement}");
        assert_eq!(
            fallback(Some(&board), white, &legal),
            Some(fallen),
            "{placement}"
        );
    }
    assert_eq!(
        fallback(None, true, &strings(&["a2a3", "b2b3"])),
        Some("a2a3")
    );
}

#[test]
fn positions_are_the_start_and_the_moves_since() {
    let table: [(&str, &[&str], &str); 3] = [
        (START_FEN, &[], "position startpos"),
        (
            START_FEN,
            &["e2e4", "e7e5"],
            "position startpos moves e2e4 e7e5",
        ),
        (
            CHESS960_FEN,
            &["g1f3"],
            "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 moves g1f3",
        ),
    ];
    for (fen, moves, expected) in table {
        assert_eq!(position_line(fen, &strings(moves)), expected);
    }
}

#[test]
fn go_gives_both_clocks_and_movetime_when_the_cap_is_shorter_than_the_clock() {
    let mut no_clocks = standard();
    no_clocks.as_object_mut().map(|o| o.remove("clocks_ms"));
    let mut increment = chess960();
    increment["increment_ms"] = json!(2000);
    // (request, White to move, budget ms, the go line)
    let table = [
        // Black, 45 s left, White 60 s; the 10 s cap binds: movetime is the cap less twice
        // what stop needs.
        (
            standard(),
            false,
            10_000,
            "go wtime 60000 btime 45000 winc 0 binc 0 movetime 9500",
        ),
        // The clock binds (the budget is the clock less the margin): no movetime.
        (
            standard(),
            false,
            44_250,
            "go wtime 60000 btime 45000 winc 0 binc 0",
        ),
        (
            no_clocks,
            false,
            200,
            "go wtime 45000 btime 45000 winc 0 binc 0 movetime 160",
        ),
        (
            increment,
            true,
            1_000,
            "go wtime 60000 btime 45000 winc 2000 binc 2000 movetime 800",
        ),
    ];
    for (value, white, budget, expected) in table {
        let clock = GoClock::of(&generic(&value), white, Duration::from_millis(budget));
        assert_eq!(clock.line(None), expected);
    }
    let clock = GoClock::of(&generic(&dice()), true, Duration::from_millis(59_250));
    assert_eq!(
        clock.line(Some(&strings(&["d5c6", "b1c3"]))),
        "go wtime 60000 btime 45000 winc 0 binc 0 searchmoves d5c6 b1c3"
    );
}

#[test]
fn options_are_name_equals_value_or_a_button() {
    let option = |name: &str, value: Option<&str>| {
        Ok(UciOption {
            name: name.to_owned(),
            value: value.map(str::to_owned),
        })
    };
    let table: [(&str, Result<UciOption, UciOptionError>, &str); 7] = [
        (
            "Hash=64",
            option("Hash", Some("64")),
            "setoption name Hash value 64",
        ),
        (
            " Skill Level = 3 ",
            option("Skill Level", Some("3")),
            "setoption name Skill Level value 3",
        ),
        (
            "EvalFile=/a b/nn=1.nnue",
            option("EvalFile", Some("/a b/nn=1.nnue")),
            "setoption name EvalFile value /a b/nn=1.nnue",
        ),
        (
            "Clear Hash",
            option("Clear Hash", None),
            "setoption name Clear Hash",
        ),
        ("=3", Err(UciOptionError::NoName), ""),
        ("Hash=1\nquit", Err(UciOptionError::LineBreak), ""),
        (
            "My value=3",
            Err(UciOptionError::Keyword("My value".to_owned())),
            "",
        ),
    ];
    for (text, expected, line) in table {
        let parsed = text.parse::<UciOption>();
        assert_eq!(parsed, expected, "{text:?}");
        if let Ok(parsed) = parsed {
            assert_eq!(parsed.line(), line);
        }
    }
}

#[test]
fn the_probe_reads_the_name_and_the_options_listed() {
    let lines = strings(&[
        "Stockfish 15.1 by the Stockfish developers",
        "id name Stockfish 15.1",
        "id author the Stockfish developers",
        "option name Skill Level type spin default 20 min 0 max 20",
        "option name UCI_Chess960 type check default false",
    ]);
    let options = [
        "skill level=3".parse().expect("an option"),
        "Contempt=10".parse().expect("an option"),
    ];
    assert_eq!(
        read_description(&lines, &options),
        Probe {
            name: Some("Stockfish 15.1".to_owned()),
            unknown_options: vec!["Contempt".to_owned()],
            chess960: true,
        }
    );
    assert_eq!(read_description(&[], &[]), Probe::default());
}

#[test]
fn other_games_and_unreadable_views_are_not_played() {
    let mut gomoku = standard();
    gomoku["game"] = json!("gomoku");
    let mut unreadable = standard();
    unreadable["view"]["variant"] = json!("crazyhouse");
    for value in [gomoku, unreadable] {
        let failure = Position::read(&generic(&value)).expect_err("not played");
        assert!(failure.is_permanent(), "{failure}");
    }
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

/// The test engine with `options`, logging to `log`, its idle engines kept in `pool`.
fn engine(log: &std::path::Path, options: &str, uci: &[&str], pool: &UciPool) -> UciEngine {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/uci_engine.py");
    let uci: Vec<UciOption> = uci.iter().map(|o| o.parse().expect("an option")).collect();
    let command = format!("python3 {script} --log {} {options}", log.display());
    UciEngine::new(&command, &uci, pool.clone())
}

/// The lines each engine process read, by process in the order they started.
fn transcripts(log: &std::path::Path) -> Vec<Vec<String>> {
    let mut order: Vec<String> = Vec::new();
    let mut lines: std::collections::HashMap<String, Vec<String>> = Default::default();
    for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
        let Some((pid, text)) = line.split_once(' ') else {
            continue;
        };
        if text == "started" {
            order.push(pid.to_owned());
        } else {
            lines
                .entry(pid.to_owned())
                .or_default()
                .push(text.to_owned());
        }
    }
    order
        .iter()
        .map(|pid| lines.remove(pid).unwrap_or_default())
        .collect()
}

const BUDGET: Option<Duration> = Some(Duration::from_secs(5));

#[tokio::test]
async fn the_engine_gets_the_handshake_the_leg_start_and_each_position() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let pool = UciPool::default();
    let mut uci = engine(&log, "--move e7e5", &["Skill Level=3", "Clear Hash"], &pool);
    let answer = uci
        .decide(&generic(&standard()), BUDGET)
        .await
        .expect("a move");
    assert_eq!(answer.action, json!("e7e5"));
    assert_eq!(answer.substitute, None);
    let mut later = standard();
    later["view"]["moves"] = json!(["e2e4", "e7e5", "g1f3"]);
    later["legal_actions"] = json!(["b8c6", "e7e5", "g8f6"]);
    uci.decide(&generic(&later), BUDGET).await.expect("a move");
    uci.retire().await;
    // The next leg, Chess960, takes the idle engine from the pool.
    let mut next = engine(&log, "--move g2g3", &["Skill Level=3", "Clear Hash"], &pool);
    let answer = next
        .decide(&generic(&chess960()), BUDGET)
        .await
        .expect("a move");
    // The pooled engine, started with --move e7e5, played that, which is illegal here: the
    // first legal move is played in its place, and reported.
    assert_eq!(answer.action, json!("d1c3"));
    assert!(
        answer
            .substitute
            .as_deref()
            .is_some_and(|why| why.contains("e7e5")),
        "{:?}",
        answer.substitute
    );
    next.retire().await;
    pool.close().await;
    let transcripts = transcripts(&log);
    assert_eq!(
        transcripts.len(),
        1,
        "one process for both legs: {transcripts:?}"
    );
    let go = "go wtime 60000 btime 45000 winc 0 binc 0 movetime 4500";
    assert_eq!(
        transcripts[0],
        [
            "uci",
            "setoption name Skill Level value 3",
            "setoption name Clear Hash",
            "isready",
            "ucinewgame",
            "isready",
            "position startpos moves e2e4",
            go,
            "position startpos moves e2e4 e7e5 g1f3",
            go,
            "setoption name UCI_Chess960 value true",
            "ucinewgame",
            "isready",
            &format!("position fen {CHESS960_FEN}"),
            go,
            "quit",
        ]
    );
}

#[tokio::test]
async fn a_dice_micro_move_is_searched_among_the_legal_ones_from_the_position_now() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let pool = UciPool::default();
    let mut uci = engine(&log, "", &[], &pool);
    let mut reordered = dice();
    reordered["legal_actions"] = json!(["d5d6", "d5c6", "b1c3"]);
    let answer = uci
        .decide(&generic(&reordered), BUDGET)
        .await
        .expect("a move");
    assert_eq!(answer.action, json!("d5d6"), "the engine's choice");
    // A king capture is played without asking, and so is a single legal micro-move.
    let mut king = dice();
    king["view"]["fen"] = json!("4k3/8/8/8/8/8/4R3/4K3 w - - 0 30");
    king["legal_actions"] = json!(["e2e3", "e2e8"]);
    let answer = uci.decide(&generic(&king), BUDGET).await.expect("a move");
    assert_eq!(answer.action, json!("e2e8"));
    let mut single = dice();
    single["legal_actions"] = json!(["b1c3"]);
    let answer = uci.decide(&generic(&single), BUDGET).await.expect("a move");
    assert_eq!(answer.action, json!("b1c3"));
    uci.restart().await;
    let transcripts = transcripts(&log);
    assert_eq!(
        transcripts,
        [[
            "uci",
            "isready",
            "ucinewgame",
            "isready",
            "position fen r1bqkbnr/ppp1pppp/2n5/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "go wtime 60000 btime 45000 winc 0 binc 0 movetime 4500 searchmoves d5d6 d5c6 b1c3",
        ]]
    );
}

#[tokio::test]
async fn unusable_answers_fall_back_to_a_legal_move_and_failures_are_reported() {
    if !python() {
        return;
    }
    // (engine options, variant's request, the move played or None for a failure, whether it
    // is reported as a substitute)
    let table: [(&str, Value, Option<&str>, bool); 8] = [
        ("--answer none", dice(), Some("d5c6"), false),
        ("--answer illegal", dice(), Some("d5c6"), false),
        ("--answer die", dice(), Some("d5c6"), false),
        ("--answer deaf", dice(), Some("d5c6"), false),
        ("--answer hang", dice(), Some("d5c6"), false),
        ("--answer illegal", standard(), Some("e7e5"), true),
        ("--answer hang --move c7c5", standard(), Some("c7c5"), false),
        ("--answer die", standard(), None, false),
    ];
    for (options, value, expected, substitute) in table {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("log");
        let mut uci = engine(&log, options, &[], &UciPool::default());
        // A short budget, for the engines that wait for stop.
        let decided = uci
            .decide(&generic(&value), Some(Duration::from_millis(300)))
            .await;
        match expected {
            Some(mv) => {
                let answer = decided.expect(options);
                assert_eq!(answer.action, json!(mv), "{options}");
                assert_eq!(answer.substitute.is_some(), substitute, "{options}");
            }
            None => {
                let failure = decided.err().expect(options);
                assert!(
                    matches!(failure, Failure::Exited(_)),
                    "{options}: {failure}"
                );
                assert!(!failure.is_permanent());
            }
        }
        uci.restart().await;
        let sent = transcripts(&log).concat();
        let stopped = sent.iter().any(|line| line == "stop");
        assert_eq!(
            stopped,
            options.contains("hang") || options.contains("deaf"),
            "{options}: {sent:?}"
        );
    }
}

#[tokio::test]
async fn an_engine_that_never_answers_stop_fails_in_standard_chess() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let mut uci = engine(&log, "--answer deaf", &[], &UciPool::default());
    let started = Instant::now();
    let failure = uci
        .decide(&generic(&standard()), Some(Duration::from_millis(300)))
        .await
        .err()
        .expect("no move");
    assert!(
        matches!(failure, Failure::Uci(UciError::NoBestmove(_))),
        "{failure}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "within the budget, start-up aside"
    );
}

#[tokio::test]
async fn the_probe_names_the_engine_and_leaves_it_ready_for_the_first_leg() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/uci_engine.py");
    let command = format!("python3 {script} --log {} --no-chess960", log.display());
    let options = [
        "Hash=32".parse().expect("an option"),
        "Ponder=false".parse().expect("an option"),
    ];
    let pool = UciPool::default();
    let probe = probe(&command, &options, &pool).await.expect("a probe");
    assert_eq!(
        probe,
        Probe {
            name: Some("Fake UCI 1.0".to_owned()),
            unknown_options: vec!["Ponder".to_owned()],
            chess960: false,
        }
    );
    let mut uci = UciEngine::new(&command, &options, pool.clone());
    uci.decide(&generic(&standard()), BUDGET)
        .await
        .expect("a move");
    uci.retire().await;
    pool.close().await;
    let transcripts = transcripts(&log);
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    assert_eq!(
        transcripts[0][..6],
        [
            "uci",
            "setoption name Hash value 32",
            "setoption name Ponder value false",
            "isready",
            "ucinewgame",
            "isready"
        ]
    );
}
