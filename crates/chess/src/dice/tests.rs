//! Dice Chess: the reference's worked examples, castling, en passant, king captures, DFEN,
//! and turn counts checked against a slow reference written here without bitboards.

use std::collections::BTreeSet;

use cozy_chess::{Color, Piece};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::*;

/// The position and dice of a DFEN.
fn position(dfen: &str) -> (DiceBoard, DiceSet) {
    let (board, dice) = DiceBoard::from_dfen(dfen).expect("a valid DFEN");
    (board, dice.unwrap_or(DiceSet::EMPTY))
}

/// The turn that starts in a DFEN with its dice.
fn turn(dfen: &str, rules: &DiceRules) -> Turn {
    let (board, dice) = position(dfen);
    Turn::start(board, dice, rules)
}

fn uci_set(moves: &[MicroMove]) -> BTreeSet<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// Finds and checks a micro-move written in UCI notation.
fn try_move(turn: &Turn, uci: &str, rules: &DiceRules) -> Result<MicroMove, MicroError> {
    let from = uci[0..2].parse().expect("from");
    let to = uci[2..4].parse().expect("to");
    let promotion = uci.get(4..5).map(|p| p.parse().expect("promotion"));
    let mv = turn.find(from, to, promotion, rules)?;
    turn.check(mv, rules)?;
    Ok(mv)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn the_reference_examples_hold() {
    let rules = DiceRules::default();
    // Start position, dice pawn, rook, knight. The reference says e2-e3 is illegal, for it
    // would leave the rooks shut in; but a knight die frees a rook's neighbouring square
    // (Nb1-c3, then Ra1-b1), so under the rules as stated every first move completes a turn
    // of three, e2-e3 included, and the turn tree says so.
    let start = turn(&format!("{START} PNR"), &rules);
    assert_eq!(start.required, 3);
    assert!(try_move(&start, "a2a3", &rules).is_ok());
    assert!(try_move(&start, "e2e3", &rules).is_ok());
    assert_eq!(start.legal_moves(&rules).len(), 20);
    let mut after = start;
    after.play(try_move(&start, "e2e3", &rules).expect("legal"));
    assert_eq!(
        uci_set(&after.legal_moves(&rules)),
        ["b1a3", "b1c3", "g1e2", "g1f3", "g1h3"]
            .map(str::to_owned)
            .into(),
        "after e2-e3 only a knight move that frees a rook completes the turn"
    );
    // The example's point holds with pawn, rook, rook: only a rook's pawn lets a rook out
    // (and the second rook die moves it again), so e2-e3 leaves one die of three usable.
    let rooks = turn(&format!("{START} PRR"), &rules);
    assert_eq!(rooks.required, 3);
    assert_eq!(
        try_move(&rooks, "e2e3", &rules),
        Err(MicroError::TooShort {
            usable: 1,
            required: 3
        })
    );
    assert!(try_move(&rooks, "a2a3", &rules).is_ok());
    assert_eq!(
        uci_set(&rooks.legal_moves(&rules)),
        ["a2a3", "a2a4", "h2h3", "h2h4"].map(str::to_owned).into()
    );
    // Dice pawn, pawn, knight and no knight on the board: only the knight promotion keeps
    // the knight die usable.
    let promote = turn("k7/4P3/8/8/8/8/8/4K3 w - - 0 1 PPN", &rules);
    assert_eq!(promote.required, 2);
    assert_eq!(
        uci_set(&promote.legal_moves(&rules)),
        ["e7e8n".to_owned()].into()
    );
    assert_eq!(count_turns(&promote.board, promote.dice, &rules).turns, 4);
    // With a second pawn, every sequence of three needs the knight promotion somewhere.
    let two = turn("k7/4P3/8/8/8/8/3P4/4K3 w - - 0 1 PPN", &rules);
    assert_eq!(two.required, 3);
    assert_eq!(
        uci_set(&two.legal_moves(&rules)),
        ["d2d3", "d2d4", "e7e8n"].map(str::to_owned).into()
    );
}

#[test]
fn a_micro_move_is_judged_on_the_whole_tree() {
    let rules = DiceRules::default();
    // After the first micro-move, the legal continuations are those that still complete
    // the turn, not the moves that would have been legal first.
    let mut start = turn(&format!("{START} PNR"), &rules);
    let mv = try_move(&start, "a2a3", &rules).expect("legal");
    assert_eq!(start.play(mv), Step::Continues);
    assert_eq!(start.required, 2);
    let legal = uci_set(&start.legal_moves(&rules));
    assert!(legal.contains("a1a2"));
    // The knight first is fine too: the rook still follows.
    assert!(legal.contains("g1f3"));
    // a3-a4 uses the pawn die, which is already spent.
    assert!(!legal.contains("a3a4"));
    let mv = try_move(&start, "a1a2", &rules).expect("legal");
    assert_eq!(start.play(mv), Step::Continues);
    let last = uci_set(&start.legal_moves(&rules));
    assert_eq!(
        last,
        ["b1c3", "g1f3", "g1h3"].map(str::to_owned).into(),
        "the knight die alone is left"
    );
    let mv = try_move(&start, "g1f3", &rules).expect("legal");
    assert_eq!(start.play(mv), Step::Complete);
    assert!(start.legal_moves(&rules).is_empty());
}

#[test]
fn castling_needs_and_uses_a_king_die_and_a_rook_die() {
    let rules = DiceRules::default();
    let castle = turn("r3k2r/pppppppp/8/8/8/8/8/R3K2R w KQkq - 0 1 RRK", &rules);
    assert_eq!(castle.required, 3);
    let mut after = castle;
    let mv = try_move(&castle, "e1g1", &rules).expect("castling");
    assert_eq!(mv.cost(), 2);
    assert_eq!(after.play(mv), Step::Continues);
    assert_eq!(after.dice, DiceSet::from_pieces(&[Piece::Rook]));
    assert_eq!(after.required, 1);
    assert_eq!(
        after.board.fen(),
        "r3k2r/pppppppp/8/8/8/8/8/R4RK1 w kq - 1 1"
    );
    assert!(try_move(&castle, "e1c1", &rules).is_ok());
    // Without a rook die there is no castling, only king moves.
    let no_rook = turn("r3k2r/pppppppp/8/8/8/8/8/R3K2R w KQkq - 0 1 NK", &rules);
    assert_eq!(
        try_move(&no_rook, "e1g1", &rules),
        Err(MicroError::NoDie { piece: Piece::King })
    );
    // With king and rook dice only, castling uses both: a turn of one micro-move.
    let only = turn("r3k2r/pppppppp/8/8/8/8/8/R3K2R w KQkq - 0 1 RK", &rules);
    assert_eq!(only.required, 2);
    let mut done = only;
    let mv = try_move(&only, "e1g1", &rules).expect("castling");
    assert_eq!(done.play(mv), Step::Complete);
    // A right lost (the rook moved) or a square between occupied forbids it.
    for dfen in [
        "r3k2r/pppppppp/8/8/8/8/8/R3K2R w Qkq - 0 1 RK",
        "r3k2r/pppppppp/8/8/8/8/8/R3KB1R w KQkq - 0 1 RK",
    ] {
        let t = turn(dfen, &rules);
        assert!(
            matches!(
                try_move(&t, "e1g1", &rules),
                Err(MicroError::NotAMove { .. })
            ),
            "{dfen}"
        );
    }
}

#[test]
fn castling_through_attack_is_an_option() {
    // The black rook on f2 attacks f1, which the king passes on its way to g1; c1 and d1
    // are safe, and so is e1.
    let dfen = "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1 RRK";
    let through = DiceRules {
        castle_through_attack: true,
    };
    let classical = DiceRules {
        castle_through_attack: false,
    };
    assert!(try_move(&turn(dfen, &through), "e1g1", &through).is_ok());
    assert!(matches!(
        try_move(&turn(dfen, &classical), "e1g1", &classical),
        Err(MicroError::NotAMove { .. })
    ));
    assert!(try_move(&turn(dfen, &classical), "e1c1", &classical).is_ok());
    // A king in attack may not castle at all under the classical rule.
    let checked = "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1 RRK";
    assert!(try_move(&turn(checked, &through), "e1c1", &through).is_ok());
    assert!(try_move(&turn(checked, &classical), "e1c1", &classical).is_err());
}

#[test]
fn en_passant_targets_stand_for_the_whole_next_turn() {
    let rules = DiceRules::default();
    // Black pushed d7-d5 and f7-f5 last turn; White moves a knight first, then takes both
    // pawns en passant on its second and third micro-moves.
    let dfen = "4k3/8/8/3pPpP1/8/8/8/1N2K3 w - d6f6 0 1 PPN";
    let mut t = turn(dfen, &rules);
    for (uci, fen) in [
        ("b1c3", "4k3/8/8/3pPpP1/8/2N5/8/4K3 w - d6f6 1 1"),
        ("e5d6", "4k3/8/3P4/5pP1/8/2N5/8/4K3 w - f6 0 1"),
        ("g5f6", "4k3/8/3P1P2/8/8/2N5/8/4K3 w - - 0 1"),
    ] {
        let mv = try_move(&t, uci, &rules).expect(uci);
        t.play(mv);
        assert_eq!(t.board.fen(), fen, "after {uci}");
    }
    assert!(t.is_complete());
    // The chances expire when the turn ends.
    let (mut board, _) = position(dfen);
    board.end_turn();
    assert_eq!(board.ep_targets(), cozy_chess::BitBoard::EMPTY);
    assert_eq!(board.fen(), "4k3/8/8/3pPpP1/8/8/8/1N2K3 b - - 0 1");
}

#[test]
fn double_pushes_become_the_opponents_targets() {
    let rules = DiceRules::default();
    // Two double pushes, and a third pawn that moves on after its push: only the pawns
    // still where their push left them give targets.
    let mut t = turn(&format!("{START} PPP"), &rules);
    for uci in ["a2a4", "c2c4", "c4c5"] {
        let mv = try_move(&t, uci, &rules).expect(uci);
        t.play(mv);
    }
    assert_eq!(
        t.board.fen(),
        "rnbqkbnr/pppppppp/8/2P5/P7/8/1P1PPPPP/RNBQKBNR w KQkq a3 0 1"
    );
    t.board.end_turn();
    assert_eq!(
        t.board.fen(),
        "rnbqkbnr/pppppppp/8/2P5/P7/8/1P1PPPPP/RNBQKBNR b KQkq a3 0 1"
    );
    let mut t = turn(&format!("{START} PPP"), &rules);
    for uci in ["a2a4", "c2c4", "e2e4"] {
        let mv = try_move(&t, uci, &rules).expect(uci);
        t.play(mv);
    }
    t.board.end_turn();
    assert_eq!(
        t.board.fen(),
        "rnbqkbnr/pppppppp/8/8/P1P1P3/8/1P1P1PPP/RNBQKBNR b KQkq a3c3e3 0 1"
    );
}

#[test]
fn capturing_the_king_ends_the_turn_early() {
    let rules = DiceRules::default();
    // Three dice, sequences of three exist, but the rook takes the king at once.
    let dfen = "4k3/8/8/8/8/8/8/1N2R1K1 w - - 0 1 NRK";
    let mut t = turn(dfen, &rules);
    assert_eq!(t.required, 3);
    let mv = try_move(&t, "e1e8", &rules).expect("the king capture");
    assert_eq!(t.play(mv), Step::KingCaptured);
    assert!(t.is_complete());
    assert_eq!(t.board.king(Color::Black), None);
    // A king taken on its home square takes its castling rights with it: the final position
    // is written and read back like any other.
    let dfen = "r3k3/8/8/8/8/8/8/1N2R1K1 w q - 0 1 NRK";
    let mut t = turn(dfen, &rules);
    let mv = try_move(&t, "e1e8", &rules).expect("the king capture");
    assert_eq!(t.play(mv), Step::KingCaptured);
    assert!(!t.board.can_castle_long(Color::Black));
    let after = t.board.dfen(None);
    assert!(DiceBoard::from_dfen(&after).is_ok(), "{after}");
    // A king capture that takes two micro-moves (the rook must first step aside) is legal
    // although it uses fewer dice than L*.
    let dfen = "4k3/8/8/8/8/8/4N3/1N2R1K1 w - - 0 1 NRK";
    let t = turn(dfen, &rules);
    assert_eq!(t.required, 3);
    let mut after = t;
    let mv = try_move(&t, "e2c3", &rules).expect("the knight steps aside");
    after.play(mv);
    let mv = try_move(&after, "e1e8", &rules).expect("the capture");
    assert_eq!(after.play(mv), Step::KingCaptured);
    // The counts include the short capturing sequences.
    let count = count_turns(&t.board, t.dice, &rules);
    assert_eq!(count, reference::count(&t.board, t.dice, &rules));
}

#[test]
fn a_pass_is_forced_exactly_when_no_die_is_usable() {
    let rules = DiceRules::default();
    let cases = [
        (format!("{START} BQK"), 0),
        (format!("{START} BBB"), 0),
        (format!("{START} NBQ"), 1),
        (format!("{START} RRK"), 0),
        (
            "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 RK".to_owned(),
            2,
        ),
    ];
    for (dfen, target) in cases {
        let t = turn(&dfen, &rules);
        assert_eq!(t.required, target, "{dfen}");
        let count = count_turns(&t.board, t.dice, &rules);
        assert_eq!(count.target, target, "{dfen}");
        if target == 0 {
            assert_eq!(count.turns, 1, "a pass is the one empty turn: {dfen}");
        }
    }
}

#[test]
fn dfen_round_trips() {
    let cases = [
        format!("{START} PNR"),
        format!("{START} -"),
        "rnbqkbnr/pppppppp/8/8/P1P1P3/8/1P1P1PPP/RNBQKBNR b KQkq a3c3e3 0 1 nnq".to_owned(),
        "4k3/8/8/3pPpP1/8/8/8/1N2K3 w - d6f6 0 1 PPN".to_owned(),
        // Between micro-moves: White's own push (a3) and Black's targets for White (d6).
        "4k3/8/8/3pP3/P7/8/8/4K3 w - a3d6 3 12 P".to_owned(),
        "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 99 40 k".to_owned(),
        // A finished game: the black king was captured.
        "8/8/8/8/8/8/8/4K2R b - - 0 30 -".to_owned(),
    ];
    for dfen in cases {
        let (board, dice) = DiceBoard::from_dfen(&dfen).expect(&dfen);
        assert_eq!(board.dfen(dice), dfen);
    }
    // Six fields read as a position before its roll.
    let (board, dice) = DiceBoard::from_dfen(START).expect("fen");
    assert_eq!(dice, None);
    assert_eq!(board, DiceBoard::startpos());
    assert_eq!(board.fen(), START);
    for bad in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 PNRK",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 pnr",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 RNP",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
        "Pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
        "",
    ] {
        assert!(DiceBoard::from_dfen(bad).is_err(), "{bad:?}");
    }
}

/// Fixed positions whose counts the reference checks for every roll: the start, a
/// middlegame with castling rights, one with en-passant targets and promotions, and one
/// where kings can be taken.
const FIXED: &[&str] = &[
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "4k3/1P4P1/8/2pPpP2/8/8/6p1/R3K2R w KQ c6e6 0 1",
    "r3k2r/8/8/8/3Pp3/8/8/R3K2R b KQkq d3 0 1",
    "3k4/8/8/8/3Q4/8/8/3K4 w - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/5PPq/8/PPPPP2P/RNBQKBNR w KQkq - 1 3",
];

#[test]
fn turn_counts_match_the_reference_for_fixed_positions() {
    for rules in [
        DiceRules::default(),
        DiceRules {
            castle_through_attack: false,
        },
    ] {
        for fen in FIXED {
            let (board, _) = position(fen);
            for (dice, _) in DiceSet::all_rolls() {
                assert_eq!(
                    count_turns(&board, dice, &rules),
                    reference::count(&board, dice, &rules),
                    "{fen} with {}",
                    dice.letters(Color::White)
                );
            }
        }
    }
}

/// A position reached from the start by `turns` turns of random play with random rolls,
/// and whether a king fell on the way (then the game stopped before it).
fn random_position(seed: u64, turns: usize, rules: &DiceRules) -> DiceBoard {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rolls = DiceSet::all_rolls();
    let mut board = DiceBoard::startpos();
    for _ in 0..turns {
        let (dice, _) = rolls[arbiter_rules::random::below(&mut rng, 56) as usize];
        let mut t = Turn::start(board, dice, rules);
        loop {
            let legal = t.legal_moves(rules);
            if legal.is_empty() {
                break;
            }
            let mv = legal[arbiter_rules::random::below(&mut rng, legal.len() as u32) as usize];
            match t.play(mv) {
                Step::Continues => {}
                Step::Complete => break,
                Step::KingCaptured => return board,
            }
        }
        board = t.board;
        board.end_turn();
    }
    board
}

/// Every complete sequence from a turn, walked with the rules' step-by-step legal moves.
fn walk_legal(t: &Turn, rules: &DiceRules, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let legal = t.legal_moves(rules);
    if legal.is_empty() {
        out.push(prefix.clone());
        return;
    }
    for mv in legal {
        let mut next = *t;
        let step = next.play(mv);
        prefix.push(mv.to_string());
        if step == Step::Continues {
            walk_legal(&next, rules, prefix, out);
        } else {
            out.push(prefix.clone());
        }
        prefix.pop();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Over positions of random games and all 56 rolls, the counts agree with the
    /// reference, and the sequences the rules accept step by step are exactly the
    /// reference's legal turns.
    #[test]
    fn turn_counts_match_the_reference(seed in 0u64..1_000_000, turns in 0usize..40, classical in any::<bool>()) {
        let rules = DiceRules { castle_through_attack: !classical };
        let board = random_position(seed, turns, &rules);
        for (dice, _) in DiceSet::all_rolls() {
            let count = count_turns(&board, dice, &rules);
            let legal = reference::legal_sequences(&board, dice, &rules);
            prop_assert_eq!(count.turns, legal.len() as u64, "{} {}", board, dice.letters(Color::White));
            prop_assert_eq!(count.target, max_dice(&board, dice, &rules));
            let t = Turn::start(board, dice, &rules);
            prop_assert_eq!(t.required, count.target);
            let mut walked = Vec::new();
            walk_legal(&t, &rules, &mut Vec::new(), &mut walked);
            let walked: BTreeSet<Vec<String>> = walked.into_iter().collect();
            prop_assert_eq!(&walked, &legal, "{} {}", board, dice.letters(Color::White));
        }
    }

    /// Every sequence accepted step by step is maximal (it uses L* dice) or ends by
    /// capturing the king, and a forced pass happens exactly when no die can be used.
    #[test]
    fn accepted_sequences_are_maximal_or_capture_the_king(seed in 0u64..1_000_000, turns in 0usize..60) {
        let rules = DiceRules::default();
        let board = random_position(seed, turns, &rules);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        for (dice, _) in DiceSet::all_rolls() {
            let mut t = Turn::start(board, dice, &rules);
            let target = t.required;
            let usable = dice.kinds().any(|piece| {
                for_each_move(&board, piece, dice, &rules, |_| std::ops::ControlFlow::Break(())).is_break()
            });
            prop_assert_eq!(target == 0, !usable);
            let mut used = 0;
            let mut captured = false;
            loop {
                let legal = t.legal_moves(&rules);
                if legal.is_empty() {
                    break;
                }
                let mv = legal[arbiter_rules::random::below(&mut rng, legal.len() as u32) as usize];
                used += mv.cost();
                if t.play(mv) == Step::KingCaptured {
                    captured = true;
                    break;
                }
            }
            prop_assert!(t.is_complete());
            prop_assert!(captured || used == target, "used {} of {}", used, target);
            prop_assert!(used <= target);
        }
    }

    /// DFEN round trips for positions of random games, also between micro-moves.
    #[test]
    fn dfen_round_trips_in_random_games(seed in 0u64..1_000_000, turns in 0usize..40) {
        let rules = DiceRules::default();
        let board = random_position(seed, turns, &rules);
        for (dice, _) in DiceSet::all_rolls().into_iter().step_by(5) {
            let mut t = Turn::start(board, dice, &rules);
            loop {
                let dfen = t.board.dfen(Some(t.dice));
                let read = DiceBoard::from_dfen(&dfen);
                prop_assert_eq!(read, Ok((t.board, Some(t.dice))), "{}", dfen);
                let Some(&mv) = t.legal_moves(&rules).first() else { break };
                if t.play(mv) != Step::Continues {
                    break;
                }
            }
        }
    }
}

/// A slow reference for counting turns: a mailbox board of 64 squares, moves by offsets and
/// rays, en passant judged from the pawns on the board, and every sequence listed.
mod reference {
    use std::collections::BTreeSet;

    use super::{DiceBoard, DiceRules, DiceSet, TurnCount};

    /// A square's content: colour (true for White) and piece letter.
    type Cell = Option<(bool, char)>;

    #[derive(Clone)]
    struct Pos {
        cells: [Cell; 64],
        white: bool,
        /// Rights K, Q, k, q.
        rights: [bool; 4],
        /// En-passant targets the side to move may capture onto.
        targets: Vec<usize>,
    }

    struct Mv {
        from: usize,
        to: usize,
        promotion: Option<char>,
        castle: bool,
        en_passant: bool,
    }

    fn at(file: i32, rank: i32) -> Option<usize> {
        ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| (rank * 8 + file) as usize)
    }

    fn name(square: usize) -> String {
        let file = (b'a' + (square % 8) as u8) as char;
        let rank = (b'1' + (square / 8) as u8) as char;
        format!("{file}{rank}")
    }

    /// Reads the FEN the board writes, independently of the crate's reader.
    fn parse(board: &DiceBoard) -> Pos {
        let fen = board.fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        let mut cells = [None; 64];
        for (row, text) in fields[0].split('/').enumerate() {
            let rank = 7 - row as i32;
            let mut file = 0;
            for c in text.chars() {
                if let Some(skip) = c.to_digit(10) {
                    file += skip as i32;
                } else {
                    cells[at(file, rank).expect("on the board")] =
                        Some((c.is_ascii_uppercase(), c.to_ascii_lowercase()));
                    file += 1;
                }
            }
        }
        let white = fields[1] == "w";
        let rights = ['K', 'Q', 'k', 'q'].map(|c| fields[2].contains(c));
        let mut targets = Vec::new();
        if fields[3] != "-" {
            let bytes = fields[3].as_bytes();
            for pair in bytes.chunks(2) {
                let square = at((pair[0] - b'a') as i32, (pair[1] - b'1') as i32).expect("square");
                // Only targets on the opponent's side matter at a turn's start.
                let their_third = if white { 5 } else { 2 };
                if square / 8 == their_third {
                    targets.push(square);
                }
            }
        }
        Pos {
            cells,
            white,
            rights,
            targets,
        }
    }

    fn attacked(pos: &Pos, square: usize, by_white: bool) -> bool {
        (0..64).any(|from| match pos.cells[from] {
            Some((w, piece)) if w == by_white => {
                if piece == 'p' {
                    let dir = if w { 1 } else { -1 };
                    let (f, r) = ((from % 8) as i32, (from / 8) as i32);
                    [-1, 1].iter().any(|df| at(f + df, r + dir) == Some(square))
                } else {
                    reach(pos, from, piece).contains(&square)
                }
            }
            _ => false,
        })
    }

    /// The squares a knight, bishop, rook, queen or king on `from` reaches, own pieces
    /// included.
    fn reach(pos: &Pos, from: usize, piece: char) -> Vec<usize> {
        let (f, r) = ((from % 8) as i32, (from / 8) as i32);
        let knight = [
            (1, 2),
            (2, 1),
            (2, -1),
            (1, -2),
            (-1, -2),
            (-2, -1),
            (-2, 1),
            (-1, 2),
        ];
        let straight = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let diagonal = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let mut out = Vec::new();
        let steps: Vec<(i32, i32)> = match piece {
            'n' => knight.to_vec(),
            'k' => straight.iter().chain(&diagonal).copied().collect(),
            _ => Vec::new(),
        };
        for (df, dr) in steps {
            if let Some(s) = at(f + df, r + dr) {
                out.push(s);
            }
        }
        let rays: Vec<(i32, i32)> = match piece {
            'b' => diagonal.to_vec(),
            'r' => straight.to_vec(),
            'q' => straight.iter().chain(&diagonal).copied().collect(),
            _ => Vec::new(),
        };
        for (df, dr) in rays {
            let (mut x, mut y) = (f + df, r + dr);
            while let Some(s) = at(x, y) {
                out.push(s);
                if pos.cells[s].is_some() {
                    break;
                }
                x += df;
                y += dr;
            }
        }
        out
    }

    fn moves(pos: &Pos, piece: char, rook_die: bool, rules: &DiceRules) -> Vec<Mv> {
        let mut out = Vec::new();
        let us = pos.white;
        let enemy = |s: usize| matches!(pos.cells[s], Some((w, _)) if w != us);
        for from in 0..64 {
            if pos.cells[from] != Some((us, piece)) {
                continue;
            }
            let (f, r) = ((from % 8) as i32, (from / 8) as i32);
            if piece == 'p' {
                let dir = if us { 1 } else { -1 };
                let start = if us { 1 } else { 6 };
                let last = if us { 7 } else { 0 };
                let mut targets = Vec::new();
                if let Some(one) = at(f, r + dir).filter(|&s| pos.cells[s].is_none()) {
                    targets.push((one, false));
                    if r == start
                        && let Some(two) = at(f, r + 2 * dir).filter(|&s| pos.cells[s].is_none())
                    {
                        targets.push((two, false));
                    }
                }
                for df in [-1, 1] {
                    if let Some(s) = at(f + df, r + dir) {
                        if enemy(s) {
                            targets.push((s, false));
                        } else if pos.cells[s].is_none() && pos.targets.contains(&s) {
                            // The pawn that passed over the target must still stand in front.
                            let behind = at(f + df, r).expect("on the board");
                            if pos.cells[behind] == Some((!us, 'p')) {
                                targets.push((s, true));
                            }
                        }
                    }
                }
                for (to, en_passant) in targets {
                    if (to / 8) as i32 == last {
                        for promotion in ['q', 'r', 'b', 'n'] {
                            out.push(Mv {
                                from,
                                to,
                                promotion: Some(promotion),
                                castle: false,
                                en_passant,
                            });
                        }
                    } else {
                        out.push(Mv {
                            from,
                            to,
                            promotion: None,
                            castle: false,
                            en_passant,
                        });
                    }
                }
                continue;
            }
            for to in reach(pos, from, piece) {
                if !matches!(pos.cells[to], Some((w, _)) if w == us) {
                    out.push(Mv {
                        from,
                        to,
                        promotion: None,
                        castle: false,
                        en_passant: false,
                    });
                }
            }
            if piece == 'k' && rook_die {
                let back = if us { 0 } else { 56 };
                let (short, long) = if us { (0, 1) } else { (2, 3) };
                let sides = [
                    (pos.rights[short], back + 7, vec![5, 6], [4, 5, 6], back + 6),
                    (pos.rights[long], back, vec![1, 2, 3], [4, 3, 2], back + 2),
                ];
                for (right, rook, between, path, to) in sides {
                    let ok = right
                        && from == back + 4
                        && pos.cells[rook] == Some((us, 'r'))
                        && between.iter().all(|&file| pos.cells[back + file].is_none())
                        && (rules.castle_through_attack
                            || path.iter().all(|&file| !attacked(pos, back + file, !us)));
                    if ok {
                        out.push(Mv {
                            from,
                            to,
                            promotion: None,
                            castle: true,
                            en_passant: false,
                        });
                    }
                }
            }
        }
        out
    }

    fn play(pos: &Pos, mv: &Mv) -> Pos {
        let mut next = pos.clone();
        let piece = next.cells[mv.from].take();
        if mv.castle {
            let back = mv.from - 4;
            let (rook_from, rook_to) = if mv.to > mv.from {
                (back + 7, back + 5)
            } else {
                (back, back + 3)
            };
            next.cells[rook_from] = None;
            next.cells[rook_to] = Some((pos.white, 'r'));
        }
        if mv.en_passant {
            let behind = (mv.from / 8) * 8 + mv.to % 8;
            next.cells[behind] = None;
        }
        next.cells[mv.to] = match mv.promotion {
            Some(p) => Some((pos.white, p)),
            None => piece,
        };
        // Rights go with the king and rooks leaving, or rooks taken, on their squares.
        for (i, (king, rook)) in [(4, 7), (4, 0), (60, 63), (60, 56)].into_iter().enumerate() {
            if [mv.from, mv.to].contains(&king) || [mv.from, mv.to].contains(&rook) {
                next.rights[i] = false;
            }
        }
        next
    }

    /// Every terminal sequence: (moves, dice used, whether it took the king).
    fn walk(
        pos: &Pos,
        dice: &[char],
        rules: &DiceRules,
        prefix: &mut Vec<String>,
        used: u8,
        out: &mut Vec<(Vec<String>, u8, bool)>,
    ) {
        let mut any = false;
        let kinds: BTreeSet<char> = dice.iter().copied().collect();
        for piece in kinds {
            for mv in moves(pos, piece, dice.contains(&'r'), rules) {
                any = true;
                let cost = if mv.castle { 2 } else { 1 };
                let mut text = format!("{}{}", name(mv.from), name(mv.to));
                if let Some(p) = mv.promotion {
                    text.push(p);
                }
                prefix.push(text);
                if matches!(pos.cells[mv.to], Some((w, 'k')) if w != pos.white) {
                    out.push((prefix.clone(), used + cost, true));
                } else {
                    let mut rest = dice.to_vec();
                    remove(&mut rest, piece);
                    if mv.castle {
                        remove(&mut rest, 'r');
                    }
                    walk(&play(pos, &mv), &rest, rules, prefix, used + cost, out);
                }
                prefix.pop();
            }
        }
        if !any {
            out.push((prefix.clone(), used, false));
        }
    }

    fn remove(dice: &mut Vec<char>, piece: char) {
        if let Some(i) = dice.iter().position(|&d| d == piece) {
            dice.remove(i);
        }
    }

    /// L*, and every complete turn as it was walked: sequences using L* dice, and shorter
    /// ones that take the king.
    fn complete_turns(
        board: &DiceBoard,
        dice: DiceSet,
        rules: &DiceRules,
    ) -> (u8, Vec<Vec<String>>) {
        let pos = parse(board);
        let letters: Vec<char> = dice
            .letters(cozy_chess::Color::Black)
            .chars()
            .filter(|&c| c != '-')
            .collect();
        let mut all = Vec::new();
        walk(&pos, &letters, rules, &mut Vec::new(), 0, &mut all);
        let target = all.iter().map(|&(_, used, _)| used).max().unwrap_or(0);
        let turns = all
            .into_iter()
            .filter(|(_, used, king)| *king || *used == target)
            .map(|(moves, _, _)| moves)
            .collect();
        (target, turns)
    }

    /// The legal turns: sequences using L* dice, and shorter ones that take the king.
    pub(super) fn legal_sequences(
        board: &DiceBoard,
        dice: DiceSet,
        rules: &DiceRules,
    ) -> BTreeSet<Vec<String>> {
        complete_turns(board, dice, rules).1.into_iter().collect()
    }

    /// The reference's [`TurnCount`].
    pub(super) fn count(board: &DiceBoard, dice: DiceSet, rules: &DiceRules) -> TurnCount {
        let (target, turns) = complete_turns(board, dice, rules);
        let turns = turns.len() as u64;
        TurnCount { target, turns }
    }
}

/// Complete turns for fixed positions and dice, pinned: found by `count_turns` and by the
/// slow reference alike when they were recorded, so that both cannot drift together. A turn
/// is a sequence of L* micro-moves, or a shorter one that takes the king; with no usable die
/// the forced pass is the one turn.
const PINNED: &[(&str, &str, u8, u64)] = &[
    (START, "PNR", 3, 234),
    (START, "PRR", 3, 24),
    (START, "PPP", 3, 3_376),
    (START, "NNN", 3, 174),
    (START, "PPN", 3, 2_540),
    (START, "KRN", 2, 4),
    (START, "KKK", 0, 1),
    (START, "BBQ", 0, 1),
    (KIWIPETE, "PNR", 3, 2_795),
    (KIWIPETE, "PPP", 3, 366),
    (KIWIPETE, "KKK", 3, 7),
    (KIWIPETE, "QQQ", 3, 850),
    (KIWIPETE, "KRN", 3, 577),
    (KIWIPETE, "BBQ", 3, 3_604),
    (QUEEN, "KKK", 3, 226),
    (QUEEN, "QQQ", 3, 12_543),
    (QUEEN, "KRN", 1, 5),
    (QUEEN, "BBQ", 1, 26),
    (QUEEN, "PNR", 0, 1),
];
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const QUEEN: &str = "3k4/8/8/8/3Q4/8/8/3K4 w - - 0 1";

#[test]
fn turn_counts_of_fixed_positions_and_dice() {
    let rules = DiceRules::default();
    for &(fen, letters, target, turns) in PINNED {
        let (board, _) = position(fen);
        let dice = DiceSet::parse_letters(letters).expect("dice");
        assert_eq!(
            count_turns(&board, dice, &rules),
            TurnCount { target, turns },
            "{fen} with {letters}"
        );
    }
}
