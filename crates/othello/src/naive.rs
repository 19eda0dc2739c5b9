//! Square-by-square reference implementations for the tests, sharing no code with the
//! bitboard kernels.

/// The discs of `o` that a disc of `p` on `sq` flips on a `size`×`size` board; nothing when
/// `sq` is occupied or blocked.
pub(crate) fn flips(size: i32, p: u128, o: u128, blocked: u128, sq: u32) -> u128 {
    if (p | o | blocked) >> sq & 1 != 0 {
        return 0;
    }
    let (r0, c0) = (sq as i32 / size, sq as i32 % size);
    let mut flipped = 0;
    for (dr, dc) in [
        (0, 1),
        (1, 0),
        (1, 1),
        (1, -1),
        (0, -1),
        (-1, 0),
        (-1, -1),
        (-1, 1),
    ] {
        let (mut r, mut c, mut run) = (r0 + dr, c0 + dc, 0u128);
        while (0..size).contains(&r) && (0..size).contains(&c) {
            let bit = 1u128 << (r * size + c);
            if o & bit != 0 {
                run |= bit;
            } else {
                if p & bit != 0 {
                    flipped |= run;
                }
                break;
            }
            r += dr;
            c += dc;
        }
    }
    flipped
}

/// The squares where `p` may place a disc.
pub(crate) fn moves(size: i32, p: u128, o: u128, blocked: u128) -> u128 {
    (0..(size * size) as u32)
        .filter(|&sq| flips(size, p, o, blocked, sq) != 0)
        .fold(0, |m, sq| m | 1 << sq)
}

/// The 8x8 reference flips.
pub(crate) fn flips8(p: u64, o: u64, sq: u32) -> u64 {
    flips(8, u128::from(p), u128::from(o), 0, sq) as u64
}

/// The 8x8 reference moves.
pub(crate) fn moves8(p: u64, o: u64) -> u64 {
    moves(8, u128::from(p), u128::from(o), 0) as u64
}

/// Random 8x8 positions with disjoint discs and varied density, from a fixed seed.
pub(crate) fn random_positions(count: usize, seed: u64) -> Vec<(u64, u64)> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..count)
        .map(|i| {
            let occupied = match i % 3 {
                0 => next() | next(),
                1 => next(),
                _ => next() & next(),
            };
            let p = occupied & next();
            (p, occupied & !p)
        })
        .collect()
}
