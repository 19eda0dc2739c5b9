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
#[ignore = "about ten seconds on two cores; run with --ignored"]
fn deep_tables() {
    check(Variant::Std, &STD, 12..=12, 2);
    check(Variant::Grand, &GRAND, 10..=11, 2);
    check(Variant::Octagon, &OCTAGON, 10..=11, 2);
}

/// A second, deliberately simple implementation: plain recursion over the square-by-square
/// reference flips, sharing no code with the bitboard kernels or the perft driver.
mod reference {
    use crate::{Variant, naive};

    #[derive(Clone, Copy)]
    pub(super) struct Board {
        size: i32,
        /// Discs of the side to move and of its opponent.
        sides: [u128; 2],
        /// Discs placed by the side to move and by its opponent.
        placed: [u32; 2],
        blocked: u128,
        reversi: bool,
    }

    impl Board {
        pub(super) fn start(variant: Variant) -> Board {
            let size = i32::from(variant.size());
            let at = |r: i32, c: i32| 1u128 << (r * size + c);
            let h = size / 2;
            let sides = if variant.is_reversi() {
                [0, 0]
            } else {
                [at(h, h - 1) | at(h - 1, h), at(h, h) | at(h - 1, h - 1)]
            };
            Board {
                size,
                sides,
                placed: [0, 0],
                blocked: variant.blocked_mask(),
                reversi: variant.is_reversi(),
            }
        }

        /// Each legal square with the discs it flips.
        fn moves(&self) -> Vec<(u32, u128)> {
            let empty = |sq: u32| (self.sides[0] | self.sides[1] | self.blocked) >> sq & 1 == 0;
            let centre: Vec<u32> = [27, 28, 35, 36]
                .into_iter()
                .filter(|&sq| self.reversi && empty(sq))
                .collect();
            if !centre.is_empty() {
                return centre.into_iter().map(|sq| (sq, 0)).collect();
            }
            if self.reversi && self.placed[0] >= 32 {
                return Vec::new();
            }
            (0..(self.size * self.size) as u32)
                .map(|sq| {
                    (
                        sq,
                        naive::flips(self.size, self.sides[0], self.sides[1], self.blocked, sq),
                    )
                })
                .filter(|&(_, flips)| flips != 0)
                .collect()
        }

        pub(super) fn perft(&self, depth: u32, passed: bool) -> u64 {
            if depth == 0 {
                return 1;
            }
            let moves = self.moves();
            if moves.is_empty() {
                let passed_board = Board {
                    sides: [self.sides[1], self.sides[0]],
                    placed: [self.placed[1], self.placed[0]],
                    ..*self
                };
                return if passed {
                    1
                } else {
                    passed_board.perft(depth - 1, true)
                };
            }
            moves
                .into_iter()
                .map(|(sq, flips)| {
                    let mover = self.sides[0] | flips | 1 << sq;
                    let next = Board {
                        sides: [self.sides[1] & !flips, mover],
                        placed: [self.placed[1], self.placed[0] + 1],
                        ..*self
                    };
                    next.perft(depth - 1, false)
                })
                .sum()
        }
    }
}

#[test]
fn the_bitboards_agree_with_an_independent_implementation() {
    let depths = [
        (Variant::Std, 7),
        (Variant::Grand, 6),
        (Variant::Octagon, 7),
        (Variant::Reversi, 9),
    ];
    for (variant, max_depth) in depths {
        let board = reference::Board::start(variant);
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
fn the_reversi_disc_limit_makes_a_colour_pass() {
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
