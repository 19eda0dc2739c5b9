//! Exact endgame solves of 20-empty positions on one core: the FFO endgame test position #40,
//! whose exact score is published, and eight positions reached by seeded self-play of the
//! house search (random 8-move openings, then `Level::Search { max_depth: 8 }` at 20,000 nodes
//! a move until 20 empties), written out so that a change to the search does not change them.
//! Each solve's score is checked before it is timed.
//!
//! `ARBITER_BENCH_FFO_HARD=1` adds FFO #41 to #44 (22 and 23 empties), which take seconds each.

use std::hint::black_box;

use arbiter_house::{Limits, endgame, solve};
use arbiter_othello::{Color, Position, Variant};
use criterion::{Criterion, criterion_group, criterion_main};

/// A position to solve: its name, board (a1, b1, ..., h8: `X` Black, `O` White, `-` empty), the
/// side to move and its exact score for that side.
type Case = (&'static str, &'static str, Color, i32);

/// FFO endgame test positions #40 to #44 with their published exact scores. The published
/// scores would give the empty squares of a game ending early to its winner, where this
/// solver gives them to nobody; for these five positions the two agree.
const FFO: [Case; 5] = [
    (
        "ffo40",
        "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X--------",
        Color::Black,
        38,
    ),
    (
        "ffo41",
        "-OOOOO----OOOOX--OOOOOO-XXXXXOO--XXOOX--OOXOXX----OXXO---OOO--O-",
        Color::Black,
        0,
    ),
    (
        "ffo42",
        "--OOO-------XX-OOOOOOXOO-OOOOXOOX-OOOXXO---OOXOO---OOOXO--OOOO--",
        Color::Black,
        6,
    ),
    (
        "ffo43",
        "--XXXXX---XXXX---OOOXX---OOXXXX--OOXXXO-OOOOXOO----XOX----XXXXX-",
        Color::White,
        -12,
    ),
    (
        "ffo44",
        "--O-X-O---O-XO-O-OOXXXOOOOOOXXXOOOOOXX--XXOOXO----XXXX-----XXX--",
        Color::White,
        -14,
    ),
];

/// Self-play positions with 20 empties, and their scores as this solver found them.
const SELF_PLAY: [Case; 8] = [
    (
        "self-play-1",
        "-OOOOO----OOXX--OOOOOXO--OOOOOOO-OOXXXO-OOXXXO--O-XXXO-----XXXX-",
        Color::Black,
        6,
    ),
    (
        "self-play-2",
        "--XOOX----XXXX--XXOXXXOOXXXXXXO-XXOXOO--XOOOOO--OOOOOX--XO--O---",
        Color::Black,
        14,
    ),
    (
        "self-play-3",
        "-O--XO----OXXO---OXOOOOO-XXXOOO---XOXOOX--XOXXXX--OXXXXX-OOOOOO-",
        Color::Black,
        -6,
    ),
    (
        "self-play-4",
        "XXO--XXXXXXOOOX-XXOOOOO-XXOXXOO-XOXXXXO-XXXXXXOOX-X-------------",
        Color::Black,
        22,
    ),
    (
        "self-play-5",
        "--X-----OOXX-----OOOXOO-XXXOOXOXXXXOOOXXXXXOOXXX--XOOO-X--XXXX--",
        Color::Black,
        -6,
    ),
    (
        "self-play-6",
        "----XXX----XXX----X-XXXX--OOOXXX-OOOXOXX--OXOXXX--XOXXXXOOOOOOOX",
        Color::Black,
        -6,
    ),
    (
        "self-play-7",
        "---XX-----XXXX--XOOOXXOO-OOXXXO-OOXOOXO-OOOOOXOO--OOOO----OOOOO-",
        Color::Black,
        18,
    ),
    (
        "self-play-8",
        "--OOO----XXOO---OOXXOO--OOOXXO--OOOOXOO-OOXOOOO-O-OOXXO--XXXX-O-",
        Color::Black,
        14,
    ),
];

/// The position a board string describes.
fn board(cells: &str, to_move: Color) -> Position {
    let (mut black, mut white) = (0u128, 0u128);
    for (sq, cell) in cells.chars().enumerate() {
        match cell {
            'X' => black |= 1 << sq,
            'O' => white |= 1 << sq,
            _ => {}
        }
    }
    Position::from_parts(Variant::Std, black, white, to_move, [0, 0]).expect("valid board")
}

fn endgame_solves(c: &mut Criterion) {
    let hard = std::env::var_os("ARBITER_BENCH_FFO_HARD").is_some();
    let cases = FFO
        .iter()
        .filter(|(name, ..)| hard || *name == "ffo40")
        .chain(&SELF_PLAY);
    let mut group = c.benchmark_group("endgame");
    group.sample_size(10);
    for &(name, cells, to_move, score) in cases {
        let position = board(cells, to_move);
        let solved = solve(&position, &Limits::default()).expect("an unlimited solve");
        assert_eq!(solved.score, score, "{name}");
        println!(
            "{name}: {} empties, score {:+}, move {}, {} nodes",
            endgame::empties(&position),
            solved.score,
            solved.mv.name(8),
            solved.nodes
        );
        group.bench_function(name, |b| {
            b.iter(|| solve(black_box(&position), &Limits::default()))
        });
    }
    group.finish();
}

criterion_group!(benches, endgame_solves);
criterion_main!(benches);
