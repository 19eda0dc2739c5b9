//! Helpers shared by the tests: a small seeded generator, slow board symmetries, random
//! weights and positions from random games.

use arbiter_othello::Kernels;

use crate::Weights;
use crate::weights::WEIGHTS_PER_STAGE;

/// SplitMix64: a tiny seeded generator, so tests need no generator crate.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The square that image `g` of a board holds at `sq`, as documented on the images in
/// `patterns.rs`: image `g` holds at `sq` what the board holds at the returned square.
pub(crate) fn image_square(g: usize, sq: u8) -> u8 {
    let (c, r) = (sq % 8, sq / 8);
    let (c, r) = match g {
        0 => (c, r),
        1 => (7 - c, r),
        2 => (c, 7 - r),
        3 => (7 - c, 7 - r),
        4 => (r, c),
        5 => (r, 7 - c),
        6 => (7 - r, c),
        _ => (7 - r, 7 - c),
    };
    8 * r + c
}

/// Image `g` of a bitboard, square by square.
pub(crate) fn image(x: u64, g: usize) -> u64 {
    (0..64u8)
        .filter(|&sq| x >> image_square(g, sq) & 1 != 0)
        .fold(0, |acc, sq| acc | 1 << sq)
}

/// Weights of `stages` stages whose every folded weight is drawn from `-range..=range`.
pub(crate) fn random_weights(stages: usize, seed: u64, range: i16) -> Weights {
    let mut rng = SplitMix(seed);
    let span = 2 * range as u64 + 1;
    let folded: Vec<i16> = (0..stages * WEIGHTS_PER_STAGE)
        .map(|_| (rng.below(span) as i64 - i64::from(range)) as i16)
        .collect();
    Weights::from_folded(stages, &folded)
}

/// Every position of `games` random games from the start, as (mover, opponent).
pub(crate) fn game_positions(seed: u64, games: usize) -> Vec<(u64, u64)> {
    let kernels = Kernels::best();
    let mut rng = SplitMix(seed);
    let mut positions = Vec::new();
    for _ in 0..games {
        let (mut p, mut o) = (0x0000_0008_1000_0000_u64, 0x0000_0010_0800_0000_u64);
        loop {
            let moves = kernels.moves8(p, o);
            if moves == 0 {
                if kernels.moves8(o, p) == 0 {
                    break;
                }
                (p, o) = (o, p);
                continue;
            }
            positions.push((p, o));
            let pick = rng.below(u64::from(moves.count_ones()));
            let mut rest = moves;
            for _ in 0..pick {
                rest &= rest - 1;
            }
            let sq = rest.trailing_zeros();
            let flips = kernels.flips8(p, o, sq);
            (p, o) = (o & !flips, p | flips | 1 << sq);
        }
    }
    positions
}
