use proptest::prelude::*;

use super::*;
use crate::test_support::{image, image_square};

/// The squares each instance reads, in the order [`features`] reads them, built square by
/// square from the canonical squares and the images, independently of the bit tricks.
fn instance_squares() -> Vec<(usize, Vec<u8>)> {
    let mapped = |g: usize, squares: &[u8]| -> Vec<u8> {
        squares.iter().map(|&sq| image_square(g, sq)).collect()
    };
    let mut out = Vec::new();
    for g in 0..4 {
        out.push((CORNER9, mapped(g, PATTERNS[CORNER9].squares)));
    }
    for g in 0..8 {
        out.push((CORNER10, mapped(g, PATTERNS[CORNER10].squares)));
    }
    for g in [0, 2, 4, 6] {
        out.push((EDGE_X, mapped(g, PATTERNS[EDGE_X].squares)));
    }
    for (table, r) in [(LINE2, 1u8), (LINE3, 2), (LINE4, 3)] {
        for g in [0, 4] {
            for row in [r, 7 - r] {
                let squares: Vec<u8> = (0..8).map(|c| 8 * row + c).collect();
                out.push((table, mapped(g, &squares)));
            }
        }
    }
    let diagonal: Vec<u8> = (0..8).map(|c| 9 * c).collect();
    for g in [0, 1] {
        out.push((DIAG8, mapped(g, &diagonal)));
    }
    for (table, k) in [(DIAG7, 1u8), (DIAG6, 2), (DIAG5, 3), (DIAG4, 4)] {
        let below: Vec<u8> = (k..8).map(|c| 8 * (c - k) + c).collect();
        let above: Vec<u8> = (0..8 - k).map(|c| 8 * (c + k) + c).collect();
        for g in [0, 1] {
            out.push((table, mapped(g, &below)));
            out.push((table, mapped(g, &above)));
        }
    }
    out
}

/// Legal moves square by square: an empty square from which some direction runs over at least
/// one opponent disc and ends on a mover's disc.
fn slow_mobility(p: u64, o: u64) -> usize {
    let at = |x: u64, c: i32, r: i32| x >> (8 * r + c) & 1 != 0;
    let mut count = 0;
    for sq in 0..64 {
        let (c0, r0) = (sq % 8, sq / 8);
        if at(p | o, c0, r0) {
            continue;
        }
        let legal = [
            (-1, -1),
            (-1, 0),
            (-1, 1),
            (0, -1),
            (0, 1),
            (1, -1),
            (1, 0),
            (1, 1),
        ]
        .iter()
        .any(|&(dc, dr)| {
            let (mut c, mut r, mut run) = (c0 + dc, r0 + dr, 0);
            while (0..8).contains(&c) && (0..8).contains(&r) && at(o, c, r) {
                (c, r, run) = (c + dc, r + dr, run + 1);
            }
            run > 0 && (0..8).contains(&c) && (0..8).contains(&r) && at(p, c, r)
        });
        count += usize::from(legal);
    }
    count
}

/// Every feature read cell by cell.
fn slow_features(p: u64, o: u64) -> Vec<u32> {
    let mut out: Vec<u32> = instance_squares()
        .into_iter()
        .map(|(table, squares)| {
            let local = squares.iter().rev().fold(0u32, |acc, &sq| {
                let digit = if p >> sq & 1 != 0 {
                    1
                } else if o >> sq & 1 != 0 {
                    2
                } else {
                    0
                };
                acc * 3 + digit
            });
            FULL_OFFSET[table] as u32 + local
        })
        .collect();
    out.push((FULL_OFFSET[MOBILITY_MOVER] + slow_mobility(p, o).min(MOBILITY_CAP)) as u32);
    out.push((FULL_OFFSET[MOBILITY_OPPONENT] + slow_mobility(o, p).min(MOBILITY_CAP)) as u32);
    out.push((FULL_OFFSET[PARITY] as u32) + ((p | o).count_ones() & 1));
    out
}

#[test]
fn the_instance_lists_match_the_slot_tables() {
    let instances = instance_squares();
    assert_eq!(instances.len(), INSTANCES);
    for (k, (table, squares)) in instances.iter().enumerate() {
        assert_eq!(SLOT_TABLE[k], *table);
        assert_eq!(squares.len(), PATTERNS[*table].squares.len());
        let mut sorted = squares.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), squares.len(), "instance {k} repeats a square");
    }
    // Each pattern's instances are exactly the distinct images of its canonical squares.
    for (table, pattern) in PATTERNS.iter().enumerate().take(PATTERN_TABLES) {
        let mut read: Vec<Vec<u8>> = instances
            .iter()
            .filter(|(t, _)| *t == table)
            .map(|(_, squares)| {
                let mut s = squares.clone();
                s.sort_unstable();
                s
            })
            .collect();
        let mut images: Vec<Vec<u8>> = (0..8)
            .map(|g| {
                let mut s: Vec<u8> = pattern
                    .squares
                    .iter()
                    .map(|&sq| image_square(g, sq))
                    .collect();
                s.sort_unstable();
                s
            })
            .collect();
        read.sort();
        images.sort();
        images.dedup();
        assert_eq!(read, images, "{}", pattern.name);
    }
    assert_eq!(
        PATTERNS.iter().map(|p| p.instances).sum::<usize>(),
        FEATURES
    );
}

#[test]
fn the_folded_sizes_are_the_documented_ones() {
    let folding = &*FOLDING;
    assert_eq!(folding.folded_of.len(), FULL_LEN);
    assert_eq!(folding.representative.len(), FOLDED_STAGE_LEN);
    assert_eq!(FOLDED_STAGE_LEN, 113_943);
    assert_eq!(FULL_LEN, 167_331);
    for table in 0..TABLES {
        let classes: std::collections::BTreeSet<u32> = (FULL_OFFSET[table]
            ..FULL_OFFSET[table] + TABLE_LEN[table])
            .map(|i| folding.folded_of[i])
            .collect();
        assert_eq!(classes.len(), FOLDED_LEN[table], "{}", PATTERNS[table].name);
        if let Some(perm) = self_symmetry(table) {
            for index in 0..TABLE_LEN[table] {
                let image = permute(index, &perm);
                assert_eq!(
                    folding.folded_of[FULL_OFFSET[table] + index],
                    folding.folded_of[FULL_OFFSET[table] + image]
                );
            }
        }
    }
    for (class, &rep) in folding.representative.iter().enumerate() {
        assert_eq!(folding.folded_of[rep as usize] as usize, class);
    }
}

#[test]
fn base3_reads_bits_as_digits() {
    assert_eq!(BASE3[0], 0);
    assert_eq!(BASE3[0b1], 1);
    assert_eq!(BASE3[0b101], 10);
    assert_eq!(BASE3[0x3FF], 29_524);
}

proptest! {
    #[test]
    fn bit_tricks_match_square_by_square_images(x in any::<u64>()) {
        prop_assert_eq!(images(x).to_vec(), (0..8).map(|g| image(x, g)).collect::<Vec<_>>());
        prop_assert_eq!(transpose(x), image(x, 4));
        prop_assert_eq!(mirror_files(x), image(x, 1));
    }

    #[test]
    fn features_match_a_cell_by_cell_reading(p in any::<u64>(), o in any::<u64>()) {
        let o = o & !p;
        for kernels in Kernels::all_supported() {
            prop_assert_eq!(features(p, o, kernels).to_vec(), slow_features(p, o));
        }
    }

    #[test]
    fn features_match_on_sparse_boards(p in any::<u64>(), o in any::<u64>(), q in any::<u64>()) {
        // Random boards are half full; these are about a quarter full, as in openings.
        let (p, o) = (p & q, o & !q & !p);
        prop_assert_eq!(features(p, o, Kernels::best()).to_vec(), slow_features(p, o));
    }
}
