//! Portable 8x8 bitboard kernels: legal moves by Kogge-Stone fills, flips from per-square
//! ray masks with bit scans.
//!
//! Bit `i` is square `i` (`a1` = bit 0, row-major). These functions are `#[inline(always)]`
//! so that each dispatch level in [`crate::simd`] compiles them with its own CPU features.

/// Squares not on the a- or h-file: masks opponent discs for the horizontal and diagonal
/// directions so that runs never wrap from one row into the next.
pub(crate) const NOT_EDGE_FILES: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// The squares from one square to the edge in each direction, excluding the square itself.
/// `pos` holds the directions towards higher indices (+1, +8, +9, +7), whose first square is
/// the lowest bit; `neg` the opposite ones (−1, −8, −9, −7), whose first square is the highest.
/// One cache line per square.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct SquareRays {
    pub(crate) pos: [u64; 4],
    pub(crate) neg: [u64; 4],
}

const fn ray(sq: usize, dr: i32, dc: i32) -> u64 {
    let (mut r, mut c) = ((sq / 8) as i32 + dr, (sq % 8) as i32 + dc);
    let mut mask = 0u64;
    while r >= 0 && r < 8 && c >= 0 && c < 8 {
        mask |= 1 << (r * 8 + c);
        r += dr;
        c += dc;
    }
    mask
}

const fn build_rays() -> [SquareRays; 64] {
    let mut rays = [SquareRays {
        pos: [0; 4],
        neg: [0; 4],
    }; 64];
    let mut sq = 0;
    while sq < 64 {
        rays[sq].pos = [ray(sq, 0, 1), ray(sq, 1, 0), ray(sq, 1, 1), ray(sq, 1, -1)];
        rays[sq].neg = [
            ray(sq, 0, -1),
            ray(sq, -1, 0),
            ray(sq, -1, -1),
            ray(sq, -1, 1),
        ];
        sq += 1;
    }
    rays
}

/// Ray masks for every square.
pub(crate) static RAYS: [SquareRays; 64] = build_rays();

/// Moves along one direction: squares reached by shifting `p` over a run of `o`.
#[inline(always)]
fn fill(p: u64, o: u64, shift: u32) -> u64 {
    let double = 2 * shift;
    let mut flood = o & (p << shift);
    flood |= o & (flood << shift);
    let pairs = o & (o << shift);
    flood |= pairs & (flood << double);
    flood |= pairs & (flood << double);
    let mut back = o & (p >> shift);
    back |= o & (back >> shift);
    let pairs = o & (o >> shift);
    back |= pairs & (back >> double);
    back |= pairs & (back >> double);
    (flood << shift) | (back >> shift)
}

/// The squares where the player owning `p` may place a disc against `o`.
#[inline(always)]
pub(crate) fn moves(p: u64, o: u64) -> u64 {
    let inner = o & NOT_EDGE_FILES;
    let found = fill(p, inner, 1) | fill(p, o, 8) | fill(p, inner, 9) | fill(p, inner, 7);
    found & !(p | o)
}

/// The discs of `o` a disc placed by `p` on `sq` flips.
#[inline(always)]
pub(crate) fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let rays = &RAYS[sq as usize & 63];
    let mut flipped = 0;
    for &ray in &rays.pos {
        // The first non-opponent square along the ray; the run before it flips when it is ours.
        let stop = ray & !o;
        let outflank = stop & stop.wrapping_neg() & p;
        flipped |= outflank.wrapping_sub(u64::from(outflank != 0)) & ray;
    }
    for &ray in &rays.neg {
        let stop = ray & !o;
        // With no stop square the shift is by 64, which wraps to bit 63; bit 63 is never on a
        // ray towards lower indices, so the mask below removes it.
        let outflank = (1u64 << 63).wrapping_shr(stop.leading_zeros()) & p;
        flipped |= outflank.wrapping_neg().wrapping_shl(1) & ray;
    }
    flipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    #[test]
    fn kernels_match_the_naive_reference() {
        for (p, o) in naive::random_positions(20_000, 1) {
            assert_eq!(moves(p, o), naive::moves8(p, o), "moves p={p:#x} o={o:#x}");
            for sq in (0..64).filter(|sq| (p | o) >> sq & 1 == 0) {
                assert_eq!(
                    flips(p, o, sq),
                    naive::flips8(p, o, sq),
                    "flips p={p:#x} o={o:#x} sq={sq}"
                );
            }
        }
    }

    #[test]
    fn start_position_moves() {
        // White d4 (27), e5 (36); black e4 (28), d5 (35); black to move: d3 c4 f5 e6.
        let black = 1 << 28 | 1 << 35;
        let white = 1 << 27 | 1 << 36;
        assert_eq!(moves(black, white), 1 << 19 | 1 << 26 | 1 << 37 | 1 << 44);
        assert_eq!(flips(black, white, 19), 1 << 27);
    }
}
