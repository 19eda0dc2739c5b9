//! Scoring of a single leg and of FlipSight's paired legs.

use crate::{Color, Variant};

/// The score of a leg lost on time, `[black, white]`: the side that timed out gets nothing and
/// the other side every playable square (std and reversi 0:64, grand 0:100, octagon 0:88);
/// in anti-Othello, where fewer discs wins, the side that timed out gets them all (64:0).
pub fn result_discs(variant: Variant, timed_out: Color) -> [u32; 2] {
    let full = variant.playable_squares();
    let (loser, winner) = if variant.fewer_wins() {
        (full, 0)
    } else {
        (0, full)
    };
    match timed_out {
        Color::Black => [loser, winner],
        Color::White => [winner, loser],
    }
}

/// The result of a paired match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairedResult {
    /// Per participant: the sum of its scores over both legs.
    pub totals: [u32; 2],
    /// The winning participant, `None` for a draw.
    pub winner: Option<usize>,
}

/// Scores a paired match. `legs[i]` is leg `i`'s score `[black, white]`: its disc counts
/// (empty squares go to nobody), or its [`result_discs`] if it was lost on time.
/// Participant 0 is Black in leg 0 and White in leg 1. More total discs wins, fewer in
/// anti-Othello; equal totals draw.
pub fn paired_result(variant: Variant, legs: [[u32; 2]; 2]) -> PairedResult {
    let totals = [legs[0][0] + legs[1][1], legs[0][1] + legs[1][0]];
    let winner = match totals[0].cmp(&totals[1]) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Greater => Some(if variant.fewer_wins() { 1 } else { 0 }),
        std::cmp::Ordering::Less => Some(if variant.fewer_wins() { 0 } else { 1 }),
    };
    PairedResult { totals, winner }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_scores() {
        let cases = [
            (Variant::Std, Color::Black, [0, 64]),
            (Variant::Reversi, Color::White, [64, 0]),
            (Variant::Grand, Color::Black, [0, 100]),
            (Variant::Octagon, Color::White, [88, 0]),
            (Variant::Anti, Color::Black, [64, 0]),
            (Variant::Anti, Color::White, [0, 64]),
        ];
        for (variant, timed_out, expected) in cases {
            assert_eq!(
                result_discs(variant, timed_out),
                expected,
                "{variant} {timed_out:?}"
            );
        }
    }

    #[test]
    fn paired_totals_swap_colours_between_legs() {
        let cases = [
            // Participant 0: 40 (black, leg 0) + 30 (white, leg 1) = 70; participant 1: 24 + 34 = 58.
            (Variant::Std, [[40, 24], [34, 30]], [70, 58], Some(0)),
            (Variant::Anti, [[40, 24], [34, 30]], [70, 58], Some(1)),
            (Variant::Std, [[33, 31], [33, 31]], [64, 64], None),
            // Empty squares count for nobody.
            (Variant::Std, [[10, 5], [20, 0]], [10, 25], Some(1)),
            // A leg lost on time by participant 1 (white in leg 0), the other played out.
            (
                Variant::Std,
                [result_discs(Variant::Std, Color::White), [50, 14]],
                [78, 50],
                Some(0),
            ),
        ];
        for (variant, legs, totals, winner) in cases {
            assert_eq!(
                paired_result(variant, legs),
                PairedResult { totals, winner },
                "{variant} {legs:?}"
            );
        }
    }
}
