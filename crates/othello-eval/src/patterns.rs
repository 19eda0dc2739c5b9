//! The pattern set: which squares each pattern reads, how its instances are read from bitboards,
//! and how readings that a board symmetry maps onto each other share one weight.
//!
//! Every instance of a pattern is read as the pattern's canonical squares on one of the board's
//! eight images (the identity, the two mirrors, the half turn, and those four after the
//! transposition about the a1–h8 diagonal). A symmetric position therefore reads the same
//! multiset of indices, up to the permutations under which a pattern maps onto itself (a line
//! read backwards, the 3×3 corner transposed); those readings are folded onto one weight.
//! Lines are read as row bytes of the board and of its transposition, and diagonals gathered
//! into a byte by a multiplication, on the board and its mirror: each in an order that is the
//! image of the canonical order or its reverse, which folding makes equivalent.

use std::sync::LazyLock;

use arbiter_othello::Kernels;

/// The number of pattern tables.
pub(crate) const PATTERN_TABLES: usize = 11;
/// The number of weight tables: the patterns, then mover mobility, opponent mobility, parity.
pub(crate) const TABLES: usize = PATTERN_TABLES + 3;
/// The number of pattern instances read from a position.
pub(crate) const INSTANCES: usize = 46;
/// The number of features active in every position: one entry of a table per instance and one
/// per scalar feature.
pub(crate) const FEATURES: usize = INSTANCES + 3;

/// Table numbers, in table order.
pub(crate) const CORNER9: usize = 0;
pub(crate) const CORNER10: usize = 1;
pub(crate) const EDGE_X: usize = 2;
pub(crate) const LINE2: usize = 3;
pub(crate) const LINE3: usize = 4;
pub(crate) const LINE4: usize = 5;
pub(crate) const DIAG8: usize = 6;
pub(crate) const DIAG7: usize = 7;
pub(crate) const DIAG6: usize = 8;
pub(crate) const DIAG5: usize = 9;
pub(crate) const DIAG4: usize = 10;
pub(crate) const MOBILITY_MOVER: usize = 11;
pub(crate) const MOBILITY_OPPONENT: usize = 12;
pub(crate) const PARITY: usize = 13;

/// Mobility counts at or above this share the last entry of a mobility table. Real games rarely
/// offer more than 30 moves; the cap only keeps arbitrary bitboards in range.
pub(crate) const MOBILITY_CAP: usize = 31;

/// How many entries each table has as read: `3^cells` for a pattern.
pub(crate) const TABLE_LEN: [usize; TABLES] = [
    19_683,
    59_049,
    59_049,
    6_561,
    6_561,
    6_561,
    6_561,
    2_187,
    729,
    243,
    81,
    MOBILITY_CAP + 1,
    MOBILITY_CAP + 1,
    2,
];

/// How many distinct weights each table holds once symmetric readings are folded together. A
/// reversible line of `n` cells has `(3^n + 3^ceil(n/2)) / 2` classes; the 3×3 corner, whose
/// transposition fixes three cells and swaps three pairs, `(3^9 + 3^6) / 2`.
pub(crate) const FOLDED_LEN: [usize; TABLES] = [
    10_206,
    59_049,
    29_646,
    3_321,
    3_321,
    3_321,
    3_321,
    1_134,
    378,
    135,
    45,
    MOBILITY_CAP + 1,
    MOBILITY_CAP + 1,
    2,
];

const fn offsets(lens: [usize; TABLES]) -> [usize; TABLES] {
    let mut out = [0; TABLES];
    let mut i = 1;
    while i < TABLES {
        out[i] = out[i - 1] + lens[i - 1];
        i += 1;
    }
    out
}

const fn total(lens: [usize; TABLES]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < TABLES {
        sum += lens[i];
        i += 1;
    }
    sum
}

/// Where each table starts in one stage's expanded weights.
pub(crate) const FULL_OFFSET: [usize; TABLES] = offsets(TABLE_LEN);
/// Entries in one stage's expanded weights, the form evaluation reads.
pub(crate) const FULL_LEN: usize = total(TABLE_LEN);
/// Where each table starts in one stage's folded weights, the form stored and fitted.
pub(crate) const FOLDED_OFFSET: [usize; TABLES] = offsets(FOLDED_LEN);
/// Distinct weights in one stage.
pub(crate) const FOLDED_STAGE_LEN: usize = total(FOLDED_LEN);

/// The table each feature slot reads, in the order [`features`] fills them.
pub(crate) const SLOT_TABLE: [usize; FEATURES] = [
    CORNER9,
    CORNER9,
    CORNER9,
    CORNER9,
    CORNER10,
    CORNER10,
    CORNER10,
    CORNER10,
    CORNER10,
    CORNER10,
    CORNER10,
    CORNER10,
    EDGE_X,
    EDGE_X,
    EDGE_X,
    EDGE_X,
    LINE2,
    LINE2,
    LINE2,
    LINE2,
    LINE3,
    LINE3,
    LINE3,
    LINE3,
    LINE4,
    LINE4,
    LINE4,
    LINE4,
    DIAG8,
    DIAG8,
    DIAG7,
    DIAG7,
    DIAG7,
    DIAG7,
    DIAG6,
    DIAG6,
    DIAG6,
    DIAG6,
    DIAG5,
    DIAG5,
    DIAG5,
    DIAG5,
    DIAG4,
    DIAG4,
    DIAG4,
    DIAG4,
    MOBILITY_MOVER,
    MOBILITY_OPPONENT,
    PARITY,
];

/// `BASE3[m]` reads the bits of `m` as base-3 digits: the sum of `3^k` over its set bits `k`.
/// A pattern's index is `BASE3[mover's bits] + 2 * BASE3[opponent's bits]`, so that each cell
/// is a digit: 0 empty, 1 the mover's disc, 2 the opponent's.
static BASE3: [u16; 1024] = base3_table();

const fn base3_table() -> [u16; 1024] {
    let mut table = [0u16; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut value = 0u16;
        let mut power = 1u16;
        let mut k = 0;
        while k < 10 {
            if m >> k & 1 != 0 {
                value += power;
            }
            // The last power, 3^10, would overflow u16; it is never used as a digit.
            if k < 9 {
                power *= 3;
            }
            k += 1;
        }
        table[m] = value;
        m += 1;
    }
    table
}

/// The eight images of a bitboard, in the order the instance lists use.
///
/// Image `g` holds at square `(col, row)` what the board holds at:
/// 0 `(col, row)`, 1 `(7-col, row)`, 2 `(col, 7-row)`, 3 `(7-col, 7-row)`,
/// 4 `(row, col)`, 5 `(row, 7-col)`, 6 `(7-row, col)`, 7 `(7-row, 7-col)`.
#[inline(always)]
fn images(x: u64) -> [u64; 8] {
    let t = transpose(x);
    let h = mirror_files(x);
    let th = mirror_files(t);
    [
        x,
        h,
        x.swap_bytes(),
        h.swap_bytes(),
        t,
        th,
        t.swap_bytes(),
        th.swap_bytes(),
    ]
}

/// Mirrors the files (a ↔ h) by swapping bits within each byte.
#[inline(always)]
pub(crate) fn mirror_files(mut x: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    x = ((x >> 1) & K1) | ((x & K1) << 1);
    x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

/// Transposes about the a1–h8 diagonal (square `8 * row + col` goes to `8 * col + row`) by
/// three delta swaps of growing blocks.
#[inline(always)]
pub(crate) fn transpose(mut x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0F0F_0F0F_0000_0000;
    let mut t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = K1 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

/// a1 b1 c1 a2 b2 c2 a3 b3 c3, as bits 0 to 8.
#[inline(always)]
fn corner9(b: u64) -> u64 {
    (b & 0x7) | ((b >> 5) & 0x38) | ((b >> 10) & 0x1C0)
}

/// a1 b1 c1 d1 e1 a2 b2 c2 d2 e2, as bits 0 to 9.
#[inline(always)]
fn corner10(b: u64) -> u64 {
    (b & 0x1F) | ((b >> 3) & 0x3E0)
}

/// b2 a1 b1 c1 d1 e1 f1 g1 h1 g2, as bits 0 to 9: the order the mirror reverses.
#[inline(always)]
fn edge_x(b: u64) -> u64 {
    ((b >> 9) & 1) | ((b & 0xFF) << 1) | ((b >> 5) & 0x200)
}

/// Row `r` (0-based), a to h.
#[inline(always)]
fn row(b: u64, r: u32) -> u64 {
    (b >> (8 * r)) & 0xFF
}

/// The a1–h8 diagonal.
const DIAGONAL: u64 = 0x8040_2010_0804_0201;
/// One bit per row: multiplying a set of squares in distinct files by it adds every row into the
/// top byte without carries, so the top byte holds the squares by file.
const ROWS_TO_TOP: u64 = 0x0101_0101_0101_0101;

/// The diagonal below a1–h8 that starts on file `k` of the first row, by file.
#[inline(always)]
fn diagonal_below(b: u64, k: u32) -> u64 {
    let mask = (DIAGONAL << k) & (u64::MAX >> (8 * k));
    ((b & mask).wrapping_mul(ROWS_TO_TOP)) >> (56 + k)
}

/// The diagonal above a1–h8 that starts on row `k` of the first file, by file.
#[inline(always)]
fn diagonal_above(b: u64, k: u32) -> u64 {
    ((b & (DIAGONAL << (8 * k))).wrapping_mul(ROWS_TO_TOP)) >> 56
}

/// The index of one reading: the mover's and the opponent's bits of the same cells.
#[inline(always)]
fn index(table: usize, pm: u64, om: u64) -> u32 {
    (FULL_OFFSET[table] as u32)
        + u32::from(BASE3[(pm & 0x3FF) as usize])
        + 2 * u32::from(BASE3[(om & 0x3FF) as usize])
}

/// Every feature of a position, as indices into one stage's expanded weights, in the order of
/// [`SLOT_TABLE`]. `p` and `o` must not overlap.
pub(crate) fn features(p: u64, o: u64, kernels: Kernels) -> [u32; FEATURES] {
    let mut f = [0u32; FEATURES];
    for_each_feature(p, o, kernels, |slot, index| f[slot] = index);
    f
}

/// Calls `sink` with each feature's slot and index into one stage's expanded weights, in slot
/// order. Evaluation sums weights as the indices come, which keeps them in registers rather
/// than in an array on the stack. `p` and `o` must not overlap.
#[inline(always)]
pub(crate) fn for_each_feature(p: u64, o: u64, kernels: Kernels, mut sink: impl FnMut(usize, u32)) {
    let ip = images(p);
    let io = images(o);
    let mut slot = 0;
    let mut emit = |index: u32| {
        sink(slot, index);
        slot += 1;
    };
    // Every reading is spelt out with constant images, rows and shifts: loops over them would
    // leave variable shifts and indexing in the hottest function of a search.
    macro_rules! read {
        ($table:expr, $extract:ident($g:expr $(, $arg:expr)?)) => {
            emit(index($table, $extract(ip[$g] $(, $arg)?), $extract(io[$g] $(, $arg)?)))
        };
    }
    read!(CORNER9, corner9(0));
    read!(CORNER9, corner9(1));
    read!(CORNER9, corner9(2));
    read!(CORNER9, corner9(3));
    read!(CORNER10, corner10(0));
    read!(CORNER10, corner10(1));
    read!(CORNER10, corner10(2));
    read!(CORNER10, corner10(3));
    read!(CORNER10, corner10(4));
    read!(CORNER10, corner10(5));
    read!(CORNER10, corner10(6));
    read!(CORNER10, corner10(7));
    read!(EDGE_X, edge_x(0));
    read!(EDGE_X, edge_x(2));
    read!(EDGE_X, edge_x(4));
    read!(EDGE_X, edge_x(6));
    read!(LINE2, row(0, 1));
    read!(LINE2, row(0, 6));
    read!(LINE2, row(4, 1));
    read!(LINE2, row(4, 6));
    read!(LINE3, row(0, 2));
    read!(LINE3, row(0, 5));
    read!(LINE3, row(4, 2));
    read!(LINE3, row(4, 5));
    read!(LINE4, row(0, 3));
    read!(LINE4, row(0, 4));
    read!(LINE4, row(4, 3));
    read!(LINE4, row(4, 4));
    read!(DIAG8, diagonal_below(0, 0));
    read!(DIAG8, diagonal_below(1, 0));
    read!(DIAG7, diagonal_below(0, 1));
    read!(DIAG7, diagonal_above(0, 1));
    read!(DIAG7, diagonal_below(1, 1));
    read!(DIAG7, diagonal_above(1, 1));
    read!(DIAG6, diagonal_below(0, 2));
    read!(DIAG6, diagonal_above(0, 2));
    read!(DIAG6, diagonal_below(1, 2));
    read!(DIAG6, diagonal_above(1, 2));
    read!(DIAG5, diagonal_below(0, 3));
    read!(DIAG5, diagonal_above(0, 3));
    read!(DIAG5, diagonal_below(1, 3));
    read!(DIAG5, diagonal_above(1, 3));
    read!(DIAG4, diagonal_below(0, 4));
    read!(DIAG4, diagonal_above(0, 4));
    read!(DIAG4, diagonal_below(1, 4));
    read!(DIAG4, diagonal_above(1, 4));
    let mover_moves = (kernels.moves8(p, o).count_ones() as usize).min(MOBILITY_CAP);
    let opponent_moves = (kernels.moves8(o, p).count_ones() as usize).min(MOBILITY_CAP);
    emit((FULL_OFFSET[MOBILITY_MOVER] + mover_moves) as u32);
    emit((FULL_OFFSET[MOBILITY_OPPONENT] + opponent_moves) as u32);
    emit((FULL_OFFSET[PARITY] + ((p | o).count_ones() & 1) as usize) as u32);
}

/// One table of the set: a pattern, or a scalar feature (which has no squares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// A short name.
    pub name: &'static str,
    /// The squares of its canonical instance (`8 * row + col`, a1 = 0), least significant
    /// base-3 digit first; empty for a scalar feature.
    pub squares: &'static [u8],
    /// How many instances a position reads: its images under the board's symmetries.
    pub instances: usize,
    /// Entries as read: `3^squares` for a pattern, the values of a scalar feature.
    pub entries: usize,
    /// Distinct weights once readings that a symmetry maps onto each other are folded.
    pub weights: usize,
}

/// The pattern set [`crate::PATTERN_SET`], in the order of a stage's weights.
pub const PATTERNS: [Pattern; TABLES] = {
    const NAMES: [&str; TABLES] = [
        "corner 3x3",
        "corner 2x5",
        "edge + 2X",
        "line 2",
        "line 3",
        "line 4",
        "diagonal 8",
        "diagonal 7",
        "diagonal 6",
        "diagonal 5",
        "diagonal 4",
        "mobility (mover)",
        "mobility (opponent)",
        "parity",
    ];
    const SQUARES: [&[u8]; TABLES] = [
        &[0, 1, 2, 8, 9, 10, 16, 17, 18],
        &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
        &[9, 0, 1, 2, 3, 4, 5, 6, 7, 14],
        &[8, 9, 10, 11, 12, 13, 14, 15],
        &[16, 17, 18, 19, 20, 21, 22, 23],
        &[24, 25, 26, 27, 28, 29, 30, 31],
        &[0, 9, 18, 27, 36, 45, 54, 63],
        &[1, 10, 19, 28, 37, 46, 55],
        &[2, 11, 20, 29, 38, 47],
        &[3, 12, 21, 30, 39],
        &[4, 13, 22, 31],
        &[],
        &[],
        &[],
    ];
    let mut out = [Pattern {
        name: "",
        squares: &[],
        instances: 0,
        entries: 0,
        weights: 0,
    }; TABLES];
    let mut t = 0;
    while t < TABLES {
        let mut instances = 0;
        let mut k = 0;
        while k < FEATURES {
            if SLOT_TABLE[k] == t {
                instances += 1;
            }
            k += 1;
        }
        out[t] = Pattern {
            name: NAMES[t],
            squares: SQUARES[t],
            instances,
            entries: TABLE_LEN[t],
            weights: FOLDED_LEN[t],
        };
        t += 1;
    }
    out
};

/// The permutation of digit positions under which a table's pattern maps onto itself, if any
/// besides the identity: reading position `i` of the image reads position `perm[i]`.
fn self_symmetry(table: usize) -> Option<Vec<usize>> {
    match table {
        // Transposing the 3×3 corner swaps b1↔a2, c1↔a3 and c2↔b3.
        CORNER9 => Some(vec![0, 3, 6, 1, 4, 7, 2, 5, 8]),
        // The mirror reverses an edge with its X squares, and a line or diagonal.
        EDGE_X | LINE2 | LINE3 | LINE4 | DIAG8 | DIAG7 | DIAG6 | DIAG5 | DIAG4 => {
            let n = PATTERNS[table].squares.len();
            Some((0..n).rev().collect())
        }
        _ => None,
    }
}

/// Maps between the expanded weights evaluation reads and the folded weights stored and fitted.
pub(crate) struct Folding {
    /// For each expanded entry of a stage, its folded entry.
    pub(crate) folded_of: Vec<u32>,
    /// For each folded entry of a stage, the smallest expanded entry folded onto it.
    pub(crate) representative: Vec<u32>,
}

/// The folding, built once.
pub(crate) static FOLDING: LazyLock<Folding> = LazyLock::new(build_folding);

fn build_folding() -> Folding {
    let mut folded_of = Vec::with_capacity(FULL_LEN);
    let mut representative = Vec::with_capacity(FOLDED_STAGE_LEN);
    for table in 0..TABLES {
        let len = TABLE_LEN[table];
        let mut local = vec![0u32; len];
        let mut classes = 0u32;
        let perm = self_symmetry(table);
        for index in 0..len {
            let image = perm.as_ref().map_or(index, |perm| permute(index, perm));
            // Classes are numbered in the order of their smallest index, so the folded layout
            // depends only on the pattern set.
            if image < index {
                local[index] = local[image];
            } else {
                local[index] = classes;
                representative.push((FULL_OFFSET[table] + index) as u32);
                classes += 1;
            }
        }
        debug_assert_eq!(classes as usize, FOLDED_LEN[table]);
        folded_of.extend(local.iter().map(|c| FOLDED_OFFSET[table] as u32 + c));
    }
    Folding {
        folded_of,
        representative,
    }
}

/// The index read when the digits of `index` are permuted by `perm`.
pub(crate) fn permute(index: usize, perm: &[usize]) -> usize {
    let mut digits = [0usize; 10];
    let mut rest = index;
    for digit in digits.iter_mut().take(perm.len()) {
        *digit = rest % 3;
        rest /= 3;
    }
    perm.iter()
        .rev()
        .fold(0, |acc, &from| acc * 3 + digits[from])
}

#[cfg(test)]
mod tests;
