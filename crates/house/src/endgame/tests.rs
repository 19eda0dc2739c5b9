//! Tests of the endgame solver: a table of positions with scores found by brute force (see
//! [`regenerate_the_table`]), live brute-force checks, best moves that keep their score, window
//! bounds, and limits that stop a solve without a wrong answer.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Instant;

use arbiter_othello::variant::REVERSI_DISCS_PER_COLOUR;
use arbiter_othello::{Color, Kernels, Move, Position, Variant};

use super::*;
use crate::tests::{node_limit, random_game, rng};
use crate::{Level, WIN_SCORE, choose};

/// The table: one position a line, `board side variant black_placed white_placed score
/// flags`. The board lists a1, b1, ..., h8 with `X` for Black, `O` for White and `-` for an
/// empty square; the side to move is `X` or `O`; the score is the exact final margin for the
/// mover (negated in anti-Othello); the flags say what the game tree from the position holds
/// (`pass`: a side passes; `early`: a game ends with empty squares; `limit`: a Reversi
/// colour's 32-disc limit stops it from moving), `-` for none.
const TABLE: &str = include_str!("table.txt");
/// The table's path, for its generator.
const TABLE_PATH: &str = "src/endgame/table.txt";

/// What the brute force met in a game tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flags {
    pass: bool,
    early: bool,
    limit: bool,
}

impl Flags {
    fn text(self) -> String {
        let names: Vec<&str> = [
            (self.pass, "pass"),
            (self.early, "early"),
            (self.limit, "limit"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect();
        if names.is_empty() {
            "-".to_owned()
        } else {
            names.join(",")
        }
    }

    fn parse(text: &str) -> Flags {
        let has = |name: &str| text.split(',').any(|flag| flag == name);
        Flags {
            pass: has("pass"),
            early: has("early"),
            limit: has("limit"),
        }
    }
}

/// Exact values by plain minimax over the checked `Position` API: every move of every
/// position, no pruning, no bitboards of our own. Positions met twice are looked up rather
/// than searched again, which changes no value; a tree with more than `capacity` distinct
/// positions is given up.
struct BruteForce {
    memo: HashMap<(u64, u64, u32), i32>,
    capacity: usize,
    flags: Flags,
}

impl BruteForce {
    /// The value of a position and what its tree holds (a fresh brute force for each
    /// position, so that the flags describe that tree alone), or `None` past `capacity`.
    fn value_of(position: &Position, capacity: usize) -> Option<(i32, Flags)> {
        let mut brute = BruteForce {
            memo: HashMap::new(),
            capacity,
            flags: Flags::default(),
        };
        let value = brute.value(position)?;
        Some((value, brute.flags))
    }

    /// What decides a position's value: the discs, the side to move and, in Reversi, the
    /// discs each colour has placed.
    fn key(position: &Position) -> (u64, u64, u32) {
        let mut meta = u32::from(position.to_move() == Color::White);
        if position.variant().is_reversi() {
            let [black, white] = position.placed();
            meta |= u32::from(black) << 1 | u32::from(white) << 9;
        }
        (
            position.discs_of(Color::Black) as u64,
            position.discs_of(Color::White) as u64,
            meta,
        )
    }

    /// The final margin for the mover under best play (negated in anti-Othello).
    fn value(&mut self, position: &Position) -> Option<i32> {
        let key = BruteForce::key(position);
        if let Some(&value) = self.memo.get(&key) {
            return Some(value);
        }
        if self.memo.len() >= self.capacity {
            return None;
        }
        let (me, them) = position.sides();
        if position.variant().is_reversi() {
            // A colour that has placed its 32 discs but could otherwise flip something.
            let [mine, theirs] = position.placed_by_sides();
            let kernels = Kernels::scalar();
            let stopped = |placed: u16, p: u128, o: u128| {
                placed >= REVERSI_DISCS_PER_COLOUR && kernels.moves8(p as u64, o as u64) != 0
            };
            if stopped(mine, me, them) || stopped(theirs, them, me) {
                self.flags.limit = true;
            }
        }
        let moves = position.legal_move_list();
        let value = if moves == [Move::Pass] && position.is_over() {
            if empties(position) > 0 {
                self.flags.early = true;
            }
            let margin = me.count_ones() as i32 - them.count_ones() as i32;
            if position.variant().fewer_wins() {
                -margin
            } else {
                margin
            }
        } else {
            if moves == [Move::Pass] {
                self.flags.pass = true;
            }
            let mut best = i32::MIN;
            for mv in moves {
                let mut child = *position;
                child.play(mv).expect("a legal move");
                best = best.max(-self.value(&child)?);
            }
            best
        };
        self.memo.insert(key, value);
        Some(value)
    }
}

/// One row of the table.
#[derive(Clone, Debug)]
struct Row {
    position: Position,
    score: i32,
    flags: Flags,
}

/// A board as the table writes it.
fn board_text(position: &Position) -> String {
    (0..64)
        .map(|sq| {
            let bit = 1u128 << sq;
            if position.discs_of(Color::Black) & bit != 0 {
                'X'
            } else if position.discs_of(Color::White) & bit != 0 {
                'O'
            } else {
                '-'
            }
        })
        .collect()
}

/// A row as the table writes it.
fn row_text(row: &Row) -> String {
    let position = &row.position;
    let side = if position.to_move() == Color::Black {
        'X'
    } else {
        'O'
    };
    let [black, white] = position.placed();
    format!(
        "{} {side} {} {black} {white} {} {}",
        board_text(position),
        position.variant(),
        row.score,
        row.flags.text()
    )
}

/// Reads one row of the table.
fn parse_row(line: &str) -> Row {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [board, side, variant, black, white, score, flags] = fields[..] else {
        panic!("a table row has seven fields: {line}");
    };
    let (mut black_discs, mut white_discs) = (0u128, 0u128);
    assert_eq!(board.len(), 64, "{line}");
    for (sq, cell) in board.chars().enumerate() {
        match cell {
            'X' => black_discs |= 1 << sq,
            'O' => white_discs |= 1 << sq,
            '-' => {}
            other => panic!("unknown cell {other:?} in {line}"),
        }
    }
    let to_move = match side {
        "X" => Color::Black,
        "O" => Color::White,
        other => panic!("unknown side {other:?} in {line}"),
    };
    let variant: Variant = variant.parse().expect("a variant");
    let placed = [
        black.parse().expect("a count"),
        white.parse().expect("a count"),
    ];
    Row {
        position: Position::from_parts(variant, black_discs, white_discs, to_move, placed)
            .expect("a valid position"),
        score: score.parse().expect("a score"),
        flags: Flags::parse(flags),
    }
}

/// The table's rows.
fn table() -> Vec<Row> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(parse_row)
        .collect()
}

/// The position of the table for `variant` and `seed`: from a seeded random game, the first
/// position with at most 4 to 14 empty squares (by the seed); every eighth seed the first
/// position in that range where the mover must pass, if there is one, and every twelfth the
/// finished game. Where the brute force would need more than [`TABLE_CAPACITY`] positions,
/// the game's next position is taken instead, and so on: the table holds positions of up to
/// 14 empties whose trees are small enough (many passes, early ends), and most of them have
/// at most 12.
fn table_row(variant: Variant, seed: u64) -> Row {
    let game = random_game(variant, 7_000 + seed);
    let target = 4 + (seed % 11) as u32;
    let first = game.iter().position(|position| empties(position) <= target);
    let pass = game.iter().position(|position| {
        empties(position) <= target && position.legal_moves() == 0 && !position.is_over()
    });
    let start = match seed {
        s if s % 12 == 5 => Some(game.len() - 1),
        s if s % 8 == 3 => pass.or(first),
        _ => first,
    };
    let start = start.expect("a game reaches its end");
    game[start..]
        .iter()
        .find_map(|&position| {
            let (score, flags) = BruteForce::value_of(&position, TABLE_CAPACITY)?;
            Some(Row {
                position,
                score,
                flags,
            })
        })
        .expect("a finished game needs no search")
}

/// The most distinct positions the table's brute force may keep (a few hundred megabytes).
const TABLE_CAPACITY: usize = 6_000_000;

/// How many table positions each variant has.
const TABLE_ROWS: [(Variant, u64); 3] = [
    (Variant::Std, 72),
    (Variant::Anti, 48),
    (Variant::Reversi, 48),
];

/// The table's text as the generator writes it.
fn generate_table() -> String {
    let mut text = String::from(
        "# Exact endgame scores for the solver's tests, found by brute force (plain minimax\n\
         # over the checked Position API). Made by the ignored test\n\
         # `endgame::tests::regenerate_the_table`; see `src/endgame/tests.rs` for the format.\n",
    );
    for (variant, rows) in TABLE_ROWS {
        for seed in 0..rows {
            let row = table_row(variant, seed);
            // Progress, for whoever regenerates the table with `--nocapture`.
            println!("{variant} {seed}: {}", row_text(&row));
            writeln!(text, "{}", row_text(&row)).expect("writing to a string");
        }
    }
    text
}

/// Recreates the table and checks it against the stored one; with
/// `ARBITER_WRITE_ENDGAME_TABLE=1` it writes the table instead. Takes about two minutes in
/// release: `cargo test --release -p arbiter-house -- --ignored regenerate_the_table`.
#[test]
#[ignore = "brute-forces every row: run in release"]
fn regenerate_the_table() {
    let text = generate_table();
    if std::env::var_os("ARBITER_WRITE_ENDGAME_TABLE").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(TABLE_PATH);
        std::fs::write(path, &text).expect("writing the table");
    } else {
        assert_eq!(text, TABLE, "the stored table differs from a fresh one");
    }
}

/// The exact margin in `choose`'s score scale.
fn win_score(margin: i32) -> i32 {
    margin.signum() * WIN_SCORE + margin
}

#[test]
fn the_table_covers_passes_early_ends_anti_and_the_reversi_limit() {
    let rows = table();
    assert_eq!(
        rows.len() as u64,
        TABLE_ROWS.iter().map(|&(_, n)| n).sum::<u64>()
    );
    let count = |test: &dyn Fn(&Row) -> bool| rows.iter().filter(|row| test(row)).count();
    assert!(count(&|row| row.flags.pass) >= 20);
    assert!(count(&|row| row.flags.early) >= 10);
    assert!(count(&|row| row.flags.limit) >= 3);
    assert!(count(&|row| empties(&row.position) >= 12) >= 25);
    assert!(count(&|row| row.position.legal_moves() == 0 && !row.position.is_over()) >= 5);
    assert!(count(&|row| row.position.is_over()) >= 5);
    for variant in [Variant::Std, Variant::Anti, Variant::Reversi] {
        assert!(count(&|row| row.position.variant() == variant && row.flags.pass) >= 3);
    }
}

#[test]
fn the_solver_matches_every_row_of_the_table() {
    for row in table() {
        let solved = solve(&row.position, &Limits::default()).expect("an unlimited solve");
        assert_eq!(solved.score, row.score, "{}", row_text(&row));
    }
}

#[test]
fn the_solved_move_reaches_the_solved_score() {
    for row in table() {
        let position = &row.position;
        let solved = solve(position, &Limits::default()).expect("an unlimited solve");
        assert!(position.check(solved.mv).is_ok(), "{}", row_text(&row));
        assert_eq!(solved.mv == Move::Pass, position.legal_moves() == 0);
        let mut after = *position;
        after.play(solved.mv).expect("a legal move");
        let rest = solve(&after, &Limits::default()).expect("an unlimited solve");
        assert_eq!(-rest.score, solved.score, "{}", row_text(&row));
    }
}

#[test]
fn live_brute_force_agrees_with_the_solver() {
    let mut checked = 0;
    for variant in [Variant::Std, Variant::Anti, Variant::Reversi] {
        for seed in 0..3 {
            let game = random_game(variant, 9_100 + seed);
            let target = 8 + seed as u32;
            let position = game
                .iter()
                .find(|position| empties(position) <= target)
                .expect("a game reaches its end");
            let (value, _) = BruteForce::value_of(position, usize::MAX).expect("no capacity");
            let solved = solve(position, &Limits::default()).expect("an unlimited solve");
            assert_eq!(solved.score, value, "{variant}\n{position}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
}

#[test]
fn windows_bound_the_exact_score() {
    for (i, row) in table().into_iter().enumerate().step_by(3) {
        let exact = row.score;
        let wld = solve_window(&row.position, &Limits::default(), -1, 1).expect("solved");
        assert_eq!(wld.score.signum(), exact.signum(), "{}", row_text(&row));
        let alpha = (i as i32 * 7) % 40 - 20;
        let beta = alpha + 1 + (i as i32 % 5) * 3;
        let found = solve_window(&row.position, &Limits::default(), alpha, beta)
            .expect("solved")
            .score;
        if found <= alpha {
            assert!(exact <= found, "{alpha} {beta}: {found} {}", row_text(&row));
        } else if found >= beta {
            assert!(exact >= found, "{alpha} {beta}: {found} {}", row_text(&row));
        } else {
            assert_eq!(exact, found, "{alpha} {beta}: {}", row_text(&row));
        }
    }
}

#[test]
fn a_node_limit_stops_the_solve_without_a_wrong_score() {
    for row in table()
        .into_iter()
        .filter(|row| empties(&row.position) >= 10)
        .take(6)
    {
        let full = solve(&row.position, &Limits::default()).expect("an unlimited solve");
        // The limit is exact: the nodes the full solve took suffice, one fewer does not.
        let enough = solve(&row.position, &node_limit(full.nodes)).expect("enough nodes");
        assert_eq!(enough, full);
        assert_eq!(solve(&row.position, &node_limit(full.nodes - 1)), None);
        for max_nodes in [0, 1, 2, 10, full.nodes / 10, full.nodes / 2] {
            assert_eq!(solve(&row.position, &node_limit(max_nodes)), None);
        }
    }
}

#[test]
fn an_expired_deadline_stops_the_solve_at_once() {
    let limits = Limits {
        deadline: Some(Instant::now()),
        max_nodes: None,
        selective: false,
    };
    for row in table().into_iter().take(10) {
        assert_eq!(solve(&row.position, &limits), None);
    }
}

#[test]
fn only_eight_by_eight_positions_past_the_placements_are_solved() {
    for variant in [Variant::Grand, Variant::Octagon] {
        let position = *random_game(variant, 1).last().expect("a position");
        assert!(!solvable(&position));
        assert_eq!(solve(&position, &Limits::default()), None);
    }
    let start = Position::start(Variant::Reversi);
    assert!(!solvable(&start));
    assert_eq!(solve(&start, &Limits::default()), None);
    assert!(solvable(&Position::start(Variant::Std)));
}

#[test]
fn choose_plays_the_solved_move_at_the_hard_level() {
    for row in table()
        .into_iter()
        .filter(|row| row.position.legal_moves().count_ones() >= 2)
        .take(20)
    {
        let position = &row.position;
        let choice = choose(position, Level::hard(), &Limits::default(), &mut rng(0));
        assert_eq!(
            choice.score,
            Some(win_score(row.score)),
            "{}",
            row_text(&row)
        );
        assert_eq!(choice.depth, empties(position));
        let mut after = *position;
        after.play(choice.mv).expect("a legal move");
        let rest = solve(&after, &Limits::default()).expect("solved");
        assert_eq!(-rest.score, row.score);
    }
}

#[test]
fn a_shallow_level_does_not_solve_deeper_than_it_searches() {
    let row = table()
        .into_iter()
        .find(|row| empties(&row.position) >= 12 && row.position.legal_moves().count_ones() >= 2)
        .expect("a deep row");
    let choice = choose(
        &row.position,
        Level::Search { max_depth: 3 },
        &Limits::default(),
        &mut rng(0),
    );
    assert_eq!(choice.depth, 3);
}

#[test]
fn a_solve_that_runs_out_leaves_the_search_the_rest_of_the_nodes() {
    // FFO endgame test position #40 (20 empties, Black to move) needs millions of nodes.
    let cells = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X--------";
    let (mut black, mut white) = (0u128, 0u128);
    for (sq, cell) in cells.chars().enumerate() {
        match cell {
            'X' => black |= 1 << sq,
            'O' => white |= 1 << sq,
            _ => {}
        }
    }
    let position =
        Position::from_parts(Variant::Std, black, white, Color::Black, [0, 0]).expect("valid");
    let max_nodes = 20_000;
    let choice = choose(
        &position,
        Level::hard(),
        &node_limit(max_nodes),
        &mut rng(0),
    );
    assert!(position.check(choice.mv).is_ok());
    assert!(choice.nodes <= max_nodes + 1, "{choice:?}");
    assert!(choice.depth >= 2 && choice.depth < 20, "{choice:?}");
}

#[test]
fn stable_discs_grow_from_the_corners() {
    // A full board: every disc is stable.
    let full = full_lines(u64::MAX);
    assert_eq!(
        stable_discs(0x0F0F_0F0F_0F0F_0F0F, full),
        0x0F0F_0F0F_0F0F_0F0F
    );
    // a1, b1 and a2 held with the rest empty: the corner and the edge discs next to it.
    let mine = 1 | 1 << 1 | 1 << 8;
    assert_eq!(stable_discs(mine, full_lines(mine)), mine);
    // b2 next to the corner can still be flipped along its row, its column and the a3-c1
    // diagonal.
    let mine = 1 | 1 << 9;
    assert_eq!(stable_discs(mine, full_lines(mine)), 1);
    // No corner, no stable disc.
    assert_eq!(
        stable_discs(1 << 1 | 1 << 2, full_lines(1 << 1 | 1 << 2)),
        0
    );
}

#[test]
fn table_entries_pack_into_one_word() {
    let unknown = Entry::unknown(Quota { mine: 0, theirs: 0 }, 0);
    assert_eq!(unknown.pack(), 0);
    assert_eq!(Entry::unpack(0), unknown);
    for (lower, upper, best) in [(-64, 64, NO_MOVE), (-3, 17, 0), (64, 64, 63), (-64, -64, 9)] {
        let entry = Entry {
            quota: 0x1F20,
            lower,
            upper,
            best,
            empties: 20,
        };
        assert_eq!(Entry::unpack(entry.pack()), entry);
    }
}

#[test]
fn parity_marks_the_odd_quadrants() {
    // One empty square in the a1 quadrant, two in the h8 quadrant.
    let free = 1 | 1 << 63 | 1 << 54;
    assert_eq!(parity_of(free), 0b0001);
    assert_eq!(ODD_SQUARES[1] & free, 1);
    assert_eq!(NEIGHBOURS[0], 1 << 1 | 1 << 8 | 1 << 9);
}
