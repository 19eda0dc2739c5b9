//! Portable 10x10 bitboard kernels on `u128` (bit `i` = square `i`, 100 squares), used by the
//! `grand` and `octagon` variants. Blocked octagon squares are never opponent discs, so they
//! stop every run and every flip ray without special cases; they only have to be removed from
//! the empty squares.

/// Squares not in column a or j.
pub(crate) const NOT_EDGE_FILES: u128 = {
    let mut mask = 0u128;
    let mut sq = 0;
    while sq < 100 {
        let col = sq % 10;
        if col != 0 && col != 9 {
            mask |= 1 << sq;
        }
        sq += 1;
    }
    mask
};

/// Per-square ray masks: directions +1, +10, +11, +9 (first square lowest) then −1, −10, −11,
/// −9 (first square highest).
pub(crate) struct SquareRays {
    pub(crate) pos: [u128; 4],
    pub(crate) neg: [u128; 4],
}

const fn ray(sq: usize, dr: i32, dc: i32) -> u128 {
    let (mut r, mut c) = ((sq / 10) as i32 + dr, (sq % 10) as i32 + dc);
    let mut mask = 0u128;
    while r >= 0 && r < 10 && c >= 0 && c < 10 {
        mask |= 1 << (r * 10 + c);
        r += dr;
        c += dc;
    }
    mask
}

const fn build_rays() -> [SquareRays; 100] {
    let mut rays = [const {
        SquareRays {
            pos: [0; 4],
            neg: [0; 4],
        }
    }; 100];
    let mut sq = 0;
    while sq < 100 {
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
pub(crate) static RAYS: [SquareRays; 100] = build_rays();

#[inline(always)]
fn fill(p: u128, o: u128, shift: u32) -> u128 {
    let double = 2 * shift;
    let mut flood = o & (p << shift);
    flood |= o & (flood << shift);
    let pairs = o & (o << shift);
    // Up to eight opponent discs fit between two of ours on a 10x10 line.
    flood |= pairs & (flood << double);
    flood |= pairs & (flood << double);
    flood |= pairs & (flood << double);
    let mut back = o & (p >> shift);
    back |= o & (back >> shift);
    let pairs = o & (o >> shift);
    back |= pairs & (back >> double);
    back |= pairs & (back >> double);
    back |= pairs & (back >> double);
    (flood << shift) | (back >> shift)
}

/// The squares in `empty` where the player owning `p` may place a disc against `o`; `empty`
/// must exclude occupied and blocked squares.
#[inline(always)]
pub(crate) fn moves(p: u128, o: u128, empty: u128) -> u128 {
    let inner = o & NOT_EDGE_FILES;
    let found = fill(p, inner, 1) | fill(p, o, 10) | fill(p, inner, 11) | fill(p, inner, 9);
    found & empty
}

/// The discs of `o` a disc placed by `p` on `sq` flips.
#[inline(always)]
pub(crate) fn flips(p: u128, o: u128, sq: u32) -> u128 {
    let rays = &RAYS[(sq as usize).min(99)];
    let mut flipped = 0;
    for &ray in &rays.pos {
        let stop = ray & !o;
        let outflank = stop & stop.wrapping_neg() & p;
        flipped |= outflank.wrapping_sub(u128::from(outflank != 0)) & ray;
    }
    for &ray in &rays.neg {
        let stop = ray & !o;
        // A shift by 128 wraps to bit 127, which is never on the board.
        let outflank = (1u128 << 127).wrapping_shr(stop.leading_zeros()) & p;
        flipped |= outflank.wrapping_neg().wrapping_shl(1) & ray;
    }
    flipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    /// All 100 squares.
    const BOARD: u128 = (1 << 100) - 1;

    #[test]
    fn kernels_match_the_naive_reference() {
        let blocked_masks = [0, crate::Variant::Octagon.blocked_mask()];
        let halves = naive::random_positions(6_000, 2);
        for (i, pair) in halves.chunks(2).enumerate() {
            let blocked = blocked_masks[i % 2];
            let wide = |(a, b): (u64, u64)| u128::from(a) << 36 | u128::from(b);
            let occupied = wide((pair[0].0 | pair[0].1, pair[1].0 | pair[1].1)) & BOARD & !blocked;
            let p = occupied & wide((pair[0].0, pair[1].1));
            let o = occupied & !p;
            let empty = BOARD & !(p | o | blocked);
            assert_eq!(
                moves(p, o, empty),
                naive::moves(10, p, o, blocked),
                "moves p={p:#x} o={o:#x}"
            );
            for sq in (0..100).filter(|&sq| empty >> sq & 1 != 0) {
                assert_eq!(
                    flips(p, o, sq),
                    naive::flips(10, p, o, blocked, sq),
                    "flips sq={sq}"
                );
            }
        }
    }
}
