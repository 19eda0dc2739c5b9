use super::*;

/// A 15×15 board drawn around its centre: `rows` are the middle rows (any number, centred
/// vertically), each centred horizontally; `?` marks the point asked about.
fn position(rows: &[&str]) -> (Board, (usize, usize)) {
    let size = 15;
    let mut board = Board::new(size);
    let mut asked = None;
    let top = (size - rows.len()) / 2;
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        let left = (size - cells.len()) / 2;
        for (j, c) in cells.into_iter().enumerate() {
            let (x, y) = (left + j, top + i);
            match c {
                'X' => board.set(x, y, Cell::Black),
                'O' => board.set(x, y, Cell::White),
                '?' => asked = Some((x, y)),
                _ => {}
            }
        }
    }
    (board, asked.expect("a point marked ?"))
}

/// Renju's forbidden points: each position asks about its `?` for Black.
#[test]
fn forbidden_points_of_black() {
    let cases: &[(&str, &[&str], Option<Foul>)] = &[
        (
            "two open threes",
            &[
                ". . . . . . .",
                ". . . . . . .",
                ". X X ? . . .",
                ". . . X . . .",
                ". . . X . . .",
                ". . . . . . .",
                ". . . . . . .",
            ],
            Some(Foul::DoubleThree),
        ),
        (
            "two threes on diagonals",
            &[
                ". . . . . . .",
                ". X . . . X .",
                ". . X . X . .",
                ". . . ? . . .",
                ". . . . . . .",
                ". . . . . . .",
                ". . . . . . .",
            ],
            Some(Foul::DoubleThree),
        ),
        (
            "a split three and an open three",
            &[
                ". . . . . . . .",
                ". . . . . . . .",
                ". X . X ? . . .",
                ". . . . X . . .",
                ". . . . X . . .",
                ". . . . . . . .",
                ". . . . . . . .",
            ],
            Some(Foul::DoubleThree),
        ),
        (
            "one three is shut by White: no double three",
            &[
                ". . . . . . .",
                ". . . . . . .",
                "O X X ? . O .",
                ". . . X . . .",
                ". . . X . . .",
                ". . . . . . .",
                ". . . . . . .",
            ],
            None,
        ),
        (
            "one three can only become a four beside an overline: no double three",
            &[
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . X X ? . X . .",
                ". . . . X . . . .",
                ". . . . X . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
            ],
            None,
        ),
        (
            "four and three is allowed",
            &[
                ". . . . . . . .",
                ". . . . . . . .",
                "O X X X ? . . .",
                ". . . . X . . .",
                ". . . . X . . .",
                ". . . . . . . .",
                ". . . . . . . .",
            ],
            None,
        ),
        (
            "two fours on two lines",
            &[
                ". . . . . . . .",
                ". . . . O . . .",
                ". . . . X . . .",
                ". . . . X . . .",
                "O X X X ? . . .",
                ". . . . X . . .",
                ". . . . . . . .",
                ". . . . . . . .",
            ],
            Some(Foul::DoubleFour),
        ),
        (
            "two fours on one line",
            &["X . X ? X . X"],
            Some(Foul::DoubleFour),
        ),
        ("a straight four is one four", &[". . X X ? X . . ."], None),
        ("an overline", &["X X X ? X X"], Some(Foul::Overline)),
        (
            "an exact five wins even through a double four",
            &[
                ". . . . . . . . .",
                ". . . . O . . . .",
                ". . . . X . . . .",
                ". . . . X . . . .",
                ". X X X ? X . . .",
                ". . . . X . . . .",
                ". . . . . . . . .",
            ],
            None,
        ),
        ("a lone stone", &["X . ?"], None),
    ];
    for (name, rows, expected) in cases {
        let (mut board, (x, y)) = position(rows);
        assert_eq!(board.forbidden(x, y), *expected, "{name}");
        assert_eq!(
            board.get(x, y),
            Some(Cell::Empty),
            "{name}: the check leaves the board as it was"
        );
    }
}

/// A three whose every straight-four point is itself forbidden is not a real three, so
/// playing it with another three is allowed; without the stones that make those points
/// forbidden, the same two threes are a double three.
#[test]
fn a_three_is_false_when_its_four_points_are_forbidden() {
    let mut board = Board::new(15);
    let black = [(6, 7), (8, 7), (7, 8), (7, 9)];
    for (x, y) in black {
        board.set(x, y, Cell::Black);
    }
    assert_eq!(board.forbidden(7, 7), Some(Foul::DoubleThree));
    // Each end of the horizontal three, (5, 7) and (9, 7), gets a vertical four shut by
    // White below it: playing there would make a double four.
    for x in [5, 9] {
        for y in 8..=10 {
            board.set(x, y, Cell::Black);
        }
        board.set(x, 11, Cell::White);
    }
    board.set(7, 7, Cell::Black);
    assert_eq!(board.forbidden(5, 7), Some(Foul::DoubleFour));
    assert_eq!(board.forbidden(9, 7), Some(Foul::DoubleFour));
    board.set(7, 7, Cell::Empty);
    assert_eq!(board.forbidden(7, 7), None, "the horizontal three is false");
}

#[test]
fn fives_win_as_each_rule_set_says() {
    let row = |stones: usize| {
        let mut board = Board::new(15);
        for x in 0..stones {
            board.set(x + 2, 7, Cell::Black);
        }
        board
    };
    let cases = [
        (5, Color::Black, RuleSet::Freestyle, true),
        (6, Color::Black, RuleSet::Freestyle, true),
        (5, Color::White, RuleSet::Standard, true),
        (6, Color::White, RuleSet::Standard, false),
        (5, Color::Black, RuleSet::Renju, true),
        (6, Color::Black, RuleSet::Renju, false),
        (6, Color::White, RuleSet::Renju, true),
        (4, Color::White, RuleSet::Freestyle, false),
    ];
    for (stones, color, rules, wins) in cases {
        let mut board = row(stones);
        if color == Color::White {
            for x in 0..stones {
                board.set(x + 2, 7, Cell::White);
            }
        }
        assert_eq!(
            board.makes_five(2, 7, color, rules),
            wins,
            "{stones} {color:?} {rules:?}"
        );
    }
}

#[test]
fn boards_count_their_stones() {
    let mut board = Board::from_rows(&["X . O", ". X .", ". . O"]);
    assert_eq!(board.size(), 5, "sides are at least five");
    assert_eq!(board.stones(), 4);
    board.set(0, 0, Cell::Empty);
    board.place(4, 4, Color::White);
    assert_eq!((board.stones(), board.get(4, 4)), (4, Some(Cell::White)));
    assert_eq!(board.get(5, 0), None);
    assert!(!board.is_full());
}
