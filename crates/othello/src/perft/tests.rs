use super::*;
use crate::Variant;

/// Published and cross-checked perft counts (see the module documentation of
/// `crate::perft`): 8x8 from Aart Bik; 10x10 and octagon computed independently by two
/// implementations; classic Reversi from one implementation, checked here against a second.
const STD: [u64; 12] = [
    4,
    12,
    56,
    244,
    1_396,
    8_200,
    55_092,
    390_216,
    3_005_288,
    24_571_284,
    212_258_800,
    1_939_886_636,
];
const GRAND: [u64; 11] = [
    4,
    12,
    56,
    244,
    1_396,
    8_200,
    55_180,
    392_268,
    3_045_812,
    25_168_320,
    221_261_132,
];
const OCTAGON: [u64; 11] = [
    4,
    12,
    56,
    244,
    1_396,
    8_200,
    55_136,
    391_920,
    3_035_364,
    25_059_868,
    219_337_072,
];
const REVERSI: [u64; 11] = [
    4, 12, 24, 24, 96, 320, 1_536, 6_624, 38_208, 220_736, 1_477_440,
];

fn check(variant: Variant, table: &[u64], depths: std::ops::RangeInclusive<u32>, threads: usize) {
    let start = Position::start(variant);
    for depth in depths {
        let expected = table[depth as usize - 1];
        for kernels in Kernels::all_supported() {
            let got = perft(&start, depth, threads, kernels);
            assert_eq!(
                got,
                expected,
                "{variant} perft({depth}) with {} on {threads} threads",
                kernels.level()
            );
        }
    }
}

#[test]
fn depth_zero_is_one_leaf() {
    assert_eq!(
        perft(&Position::start(Variant::Std), 0, 1, Kernels::scalar()),
        1
    );
}

#[test]
fn std_and_anti_match_the_published_table() {
    check(Variant::Std, &STD, 1..=11, 1);
    check(Variant::Anti, &STD, 1..=9, 1);
}

#[test]
fn ten_by_ten_and_octagon_match_the_cross_checked_tables() {
    check(Variant::Grand, &GRAND, 1..=9, 1);
    check(Variant::Octagon, &OCTAGON, 1..=9, 1);
}

#[test]
fn reversi_matches_its_table() {
    check(Variant::Reversi, &REVERSI, 1..=11, 1);
}

#[test]
fn threads_do_not_change_the_count() {
    for threads in [2, 3, 8] {
        check(Variant::Std, &STD, 4..=10, threads);
        check(Variant::Octagon, &OCTAGON, 8..=8, threads);
        check(Variant::Reversi, &REVERSI, 9..=9, threads);
    }
}

#[test]
#[ignore = "minutes in a debug build; run with --ignored --release"]
fn deep_tables() {
    check(Variant::Std, &STD, 12..=12, 2);
    check(Variant::Grand, &GRAND, 10..=11, 2);
    check(Variant::Octagon, &OCTAGON, 10..=11, 2);
}

/// A second, deliberately simple implementation: a mailbox board walked square by square,
/// sharing no code with the bitboard kernels.
mod mailbox {
    use crate::Variant;

    const DIRECTIONS: [(i32, i32); 8] = [
        (0, 1),
        (1, 0),
        (1, 1),
        (1, -1),
        (0, -1),
        (-1, 0),
        (-1, -1),
        (-1, 1),
    ];

    #[derive(Clone)]
    pub(super) struct Board {
        size: i32,
        /// 0 empty, 1 black, 2 white, 3 blocked.
        cells: Vec<u8>,
        to_move: u8,
        placed: [u32; 2],
        reversi: bool,
    }

    impl Board {
        pub(super) fn start(variant: Variant) -> Board {
            let size = i32::from(variant.size());
            let mut cells = vec![0u8; (size * size) as usize];
            for &sq in variant.blocked_squares() {
                cells[usize::from(sq)] = 3;
            }
            if !variant.is_reversi() {
                let h = size / 2;
                cells[(h * size + h - 1) as usize] = 1;
                cells[((h - 1) * size + h) as usize] = 1;
                cells[(h * size + h) as usize] = 2;
                cells[((h - 1) * size + h - 1) as usize] = 2;
            }
            Board {
                size,
                cells,
                to_move: 1,
                placed: [0, 0],
                reversi: variant.is_reversi(),
            }
        }

        fn flips(&self, sq: i32) -> Vec<usize> {
            let (r0, c0) = (sq / self.size, sq % self.size);
            let them = 3 - self.to_move;
            let mut all = Vec::new();
            for (dr, dc) in DIRECTIONS {
                let (mut r, mut c, mut run) = (r0 + dr, c0 + dc, Vec::new());
                while r >= 0 && r < self.size && c >= 0 && c < self.size {
                    let i = (r * self.size + c) as usize;
                    if self.cells[i] == them {
                        run.push(i);
                    } else {
                        if self.cells[i] == self.to_move {
                            all.extend(run);
                        }
                        break;
                    }
                    r += dr;
                    c += dc;
                }
            }
            all
        }

        /// Each legal move with the discs it flips.
        fn moves(&self) -> Vec<(usize, Vec<usize>)> {
            let centre: Vec<usize> = [27, 28, 35, 36]
                .into_iter()
                .filter(|&i| self.reversi && self.cells[i] == 0)
                .collect();
            if !centre.is_empty() {
                return centre.into_iter().map(|i| (i, Vec::new())).collect();
            }
            if self.reversi && self.placed[usize::from(self.to_move - 1)] >= 32 {
                return Vec::new();
            }
            (0..self.size * self.size)
                .filter(|&sq| self.cells[sq as usize] == 0)
                .map(|sq| (sq as usize, self.flips(sq)))
                .filter(|(_, flips)| !flips.is_empty())
                .collect()
        }

        pub(super) fn perft(&self, depth: u32, passed: bool) -> u64 {
            if depth == 0 {
                return 1;
            }
            let moves = self.moves();
            if moves.is_empty() {
                if passed {
                    return 1;
                }
                let mut next = self.clone();
                next.to_move = 3 - self.to_move;
                return next.perft(depth - 1, true);
            }
            moves
                .into_iter()
                .map(|(sq, flips)| {
                    let mut next = self.clone();
                    next.cells[sq] = self.to_move;
                    for i in flips {
                        next.cells[i] = self.to_move;
                    }
                    next.placed[usize::from(self.to_move - 1)] += 1;
                    next.to_move = 3 - self.to_move;
                    next.perft(depth - 1, false)
                })
                .sum()
        }
    }
}

#[test]
fn the_bitboards_agree_with_an_independent_mailbox_implementation() {
    let depths = [
        (Variant::Std, 7),
        (Variant::Grand, 6),
        (Variant::Octagon, 7),
        (Variant::Reversi, 9),
    ];
    for (variant, max_depth) in depths {
        let board = mailbox::Board::start(variant);
        for depth in 1..=max_depth {
            let expected = board.perft(depth, false);
            assert_eq!(
                perft(&Position::start(variant), depth, 1, Kernels::best()),
                expected,
                "{variant} perft({depth})"
            );
        }
    }
}

/// A Reversi colour that has placed 32 discs passes while the other plays on.
#[test]
fn reversi_disc_limit_agrees_with_the_mailbox() {
    // With 31 of Black's discs already placed, Black has one disc left: after its next
    // placement it can only pass while White plays on.
    let black = 1u128 << 28 | 1 << 35;
    let white = 1u128 << 27 | 1 << 36;
    let position =
        Position::from_parts(Variant::Reversi, black, white, crate::Color::Black, [31, 2])
            .expect("valid");
    let counts: Vec<u64> = (1..=6)
        .map(|d| perft(&position, d, 1, Kernels::scalar()))
        .collect();
    let unlimited = Position::from_parts(Variant::Std, black, white, crate::Color::Black, [0, 0])
        .expect("valid");
    let std_counts: Vec<u64> = (1..=6)
        .map(|d| perft(&unlimited, d, 1, Kernels::scalar()))
        .collect();
    assert_eq!(
        counts[..2],
        std_counts[..2],
        "the limit does not bind in the first two plies"
    );
    assert!(
        counts[2] < std_counts[2],
        "black's second move is gone: {counts:?} vs {std_counts:?}"
    );
    assert_eq!(
        counts[2], std_counts[1],
        "after black's last disc, black passes at ply 3"
    );
}
