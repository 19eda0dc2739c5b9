//! Perft tables from the published results, notation, and the automatic draws.

use cozy_chess::{Board, Color, Move};

use super::*;

/// Published perft results: the Chess Programming Wiki's "Perft Results" page (the start
/// position, Kiwipete and positions 3 to 6), at depths a test build runs in a few seconds.
const PERFT: &[(&str, &str, &[u64])] = &[
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[1, 20, 400, 8_902, 197_281, 4_865_609],
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[1, 48, 2_039, 97_862, 4_085_603],
    ),
    (
        "position 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[1, 14, 191, 2_812, 43_238, 674_624, 11_030_083],
    ),
    (
        "position 4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[1, 6, 264, 9_467, 422_333, 15_833_292],
    ),
    (
        "position 4, mirrored",
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        &[1, 6, 264, 9_467, 422_333],
    ),
    (
        "position 5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[1, 44, 1_486, 62_379, 2_103_487],
    ),
    (
        "position 6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[1, 46, 2_079, 89_890, 3_894_594],
    ),
];

/// Published Chess960 perft results (the Chess Programming Wiki's "Chess960 Perft Results").
const PERFT_960: &[(&str, &[u64])] = &[
    (
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        &[1, 21, 528, 12_189, 326_672],
    ),
    (
        "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
        &[1, 21, 807, 18_002, 667_366],
    ),
    (
        "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",
        &[1, 29, 502, 14_569, 287_739],
    ),
    (
        "rbbqn1kr/pp2p1pp/6n1/2pp1p2/2P4P/P7/BP1PPPP1/R1BQNNKR w HAha - 0 9",
        &[1, 27, 916, 25_798, 890_435],
    ),
    (
        "rkb2bnr/pp2pppp/2p1n3/3p4/q2P4/5NP1/PPP1PP1P/RKBNQBR1 w Aha - 0 9",
        &[1, 29, 861, 24_504, 763_454],
    ),
];

fn board(fen: &str) -> Board {
    fen.parse().expect("a valid FEN")
}

#[test]
fn perft_matches_the_published_tables() {
    for &(name, fen, counts) in PERFT {
        let board = board(fen);
        for (depth, &expected) in counts.iter().enumerate() {
            assert_eq!(
                perft(&board, depth as u32),
                expected,
                "{name}, depth {depth}"
            );
        }
    }
}

#[test]
fn chess960_perft_matches_the_published_tables() {
    for &(fen, counts) in PERFT_960 {
        let board = board(fen);
        for (depth, &expected) in counts.iter().enumerate() {
            assert_eq!(
                perft(&board, depth as u32),
                expected,
                "{fen}, depth {depth}"
            );
        }
    }
}

#[test]
fn chess960_start_positions_by_scharnagl_number() {
    let cases = [
        (
            0,
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
        ),
        (
            518,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
        ),
        (
            959,
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1",
        ),
    ];
    for (number, fen) in cases {
        let start = chess960_start(number).expect("a position");
        assert_eq!(format!("{start:#}"), fen, "{number}");
    }
    assert!(chess960_start(960).is_none());
}

#[test]
fn castling_is_written_as_each_variant_writes_it() {
    let board = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    // Standard chess: the king's two-square move; Chess960: king takes rook.
    let cases = [
        (false, "e1g1", Some("e1h1")),
        (false, "e1c1", Some("e1a1")),
        (false, "e1h1", None),
        (true, "e1h1", Some("e1h1")),
        (true, "e1a1", Some("e1a1")),
        (true, "e1g1", None),
        (false, "e1f1", Some("e1f1")),
        (false, "e1e1", None),
        (false, "a1a9", None),
    ];
    for (chess960, text, internal) in cases {
        let parsed = parse_uci(&board, text, chess960);
        assert_eq!(
            parsed,
            internal.map(|m| m.parse::<Move>().expect("a move")),
            "{text}, chess960 {chess960}"
        );
        if let Some(mv) = parsed {
            assert_eq!(uci(&board, mv, chess960), text);
        }
    }
    let promotion = Board::from_fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", false).expect("fen");
    assert!(parse_uci(&promotion, "a7a8q", false).is_some());
    assert!(parse_uci(&promotion, "a7a8", false).is_none());
    assert!(parse_uci(&promotion, "a7a8k", false).is_none());
}

#[test]
fn insufficient_material_is_recognised() {
    let cases = [
        ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", true),
        ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true),
        ("8/8/4kb2/8/8/3K4/8/8 w - - 0 1", true),
        // Bishops all on light squares (c8, e2, f1), of either side.
        ("2b5/8/4k3/8/8/3K4/4B3/5B2 w - - 0 1", true),
        ("2b5/8/4k3/8/8/3K4/8/5B2 w - - 0 1", true),
        ("2b5/8/4k3/8/8/3K4/8/2B5 w - - 0 1", false),
        ("8/8/4kn2/8/8/3KN3/8/8 w - - 0 1", false),
        ("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", false),
        ("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1", false),
        ("8/8/4k3/8/8/3K4/R7/8 w - - 0 1", false),
    ];
    for (fen, expected) in cases {
        assert_eq!(insufficient_material(&board(fen)), expected, "{fen}");
    }
}

/// Plays `moves` (UCI, standard castling) from `fen` and returns the game.
fn played(fen: &str, moves: &[&str]) -> Orthodox {
    let mut game = Orthodox::new(board(fen), false);
    for text in moves {
        let mv = parse_uci(game.board(), text, false).expect(text);
        assert!(game.status().is_none(), "the game ended before {text}");
        game.play(mv);
    }
    game
}

#[test]
fn games_end_as_the_rules_say() {
    use crate::ending::{EndReason::*, Side};
    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let cases: &[(&str, &[&str], Option<Side>, EndReason)] = &[
        (
            START,
            &["f2f3", "e7e5", "g2g4", "d8h4"],
            Some(Side::Black),
            Checkmate,
        ),
        (
            START,
            &[
                "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
            ],
            None,
            ThreefoldRepetition,
        ),
        (
            "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
            &["f7f8"],
            Some(Side::White),
            Checkmate,
        ),
        ("7k/8/6K1/5Q2/8/8/8/8 w - - 0 1", &["f5f7"], None, Stalemate),
        (
            "7k/8/8/8/8/8/5r2/6K1 w - - 0 1",
            &["g1f2"],
            None,
            InsufficientMaterial,
        ),
        (
            "7k/8/6K1/8/8/8/8/R7 w - - 98 80",
            &["a1a2", "h8g8"],
            None,
            FiftyMoves,
        ),
        // A mate on the hundredth half-move stands.
        (
            "7k/8/6K1/8/8/8/8/R7 w - - 99 80",
            &["a1a8"],
            Some(Side::White),
            Checkmate,
        ),
    ];
    for &(fen, moves, winner, reason) in cases {
        let game = played(fen, moves);
        assert_eq!(
            game.status(),
            Some(GameResult { winner, reason }),
            "{fen} {moves:?}"
        );
    }
}

#[test]
fn repetitions_count_only_positions_with_the_same_rights() {
    // The kings go back and forth, but the first return loses the castling rights, so the
    // start position is not repeated: only the later ones count.
    let game = played(
        "4k2r/8/8/8/8/8/8/4K2R w Kk - 0 1",
        &[
            "e1f1", "e8f8", "f1e1", "f8e8", "e1f1", "e8f8", "f1e1", "f8e8",
        ],
    );
    assert_eq!(game.repetitions(), 2);
    assert!(game.status().is_none());
    // An en-passant chance that cannot be taken does not make a position different.
    let a = board("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1");
    let b = board("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
    assert_eq!(repetition_key(&a), repetition_key(&b));
    let c = board("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    let d = board("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1");
    assert_ne!(repetition_key(&c), repetition_key(&d));
    assert!(only_king(&a, Color::Black));
    assert!(!only_king(&a, Color::White));
}
