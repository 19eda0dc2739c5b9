//! Multi-ProbCut's statistics: how far the trained evaluation's search at one depth strays
//! from a shallower one at the same node, by depth and by the game's stage.
//!
//! In Othello a deep search's score is well predicted by a shallow one's: over many
//! positions the difference is close to normally distributed around a small mean. So where a
//! shallow search lies several standard deviations beyond the window, the deep one almost
//! surely does too and need not run. The table holds the mean and the standard deviation of
//! `deep − shallow` for each deep depth and stage; `fit_probcut` in `midgame/tests.rs` makes
//! it from games of the house search over the shipped standard-Othello weights, and prints
//! the table below:
//!
//! ```text
//! cargo test --release -p arbiter-house fit_probcut -- --ignored --nocapture
//! ```
//!
//! Anti-Othello's search uses the same table, fitted to standard Othello only: its weights
//! are fitted the same way, to the margin it plays for, so its scores should stray alike,
//! and a cut is a guess bounded by the confidence either way. A fit of its own is still to
//! be made.

use arbiter_othello_eval::SCALE;

/// How many standard deviations beyond the window a shallow score must lie for a cut, in
/// tenths: at 1.5 a cut is wrong about once in fifteen times, if the differences are normal,
/// and a wrong cut still only misjudges one node of a search that goes deeper for it.
const CONFIDENCE_TENTHS: i32 = 15;
/// Scores beyond this are never tested: no shallow score reaches a whole board's margin.
pub(crate) const BOUND: i32 = 64 * SCALE;
/// The shallowest depth whose nodes are cut.
pub(crate) const MIN_DEPTH: u32 = 3;
/// The empties of the stages' boundaries: stage `i` holds nodes with fewer than
/// `STAGE_EMPTIES[i]` empties and at least the previous boundary's.
const STAGE_EMPTIES: [u32; STAGES] = [20, 30, 40, 50, 61];
const STAGES: usize = 5;

/// The stages' upper bounds, for the fit.
#[cfg(test)]
pub(crate) fn stage_bounds() -> [u32; STAGES] {
    STAGE_EMPTIES
}

/// The deep depths of the table, from [`MIN_DEPTH`]; a deeper search uses the last row.
const ROWS: usize = 10;

/// `(mean, standard deviation)` of `deep − shallow` in the evaluation's unit (1/128 of a
/// disc), one row a deep depth from [`MIN_DEPTH`], one column a stage: fitted to 304
/// positions of 24 games (48 to 93 a stage but for the opening's 24), the deviations 2 to 6
/// discs.
#[rustfmt::skip]
const TABLE: [[(i16, i16); STAGES]; ROWS] = [
    // depth 3, shallow 1
    [(-134, 535), (-173, 578), (-23, 704), (-168, 766), (223, 823)],
    // depth 4, shallow 2
    [(-102, 488), (-101, 646), (-94, 596), (-45, 375), (29, 826)],
    // depth 5, shallow 3
    [(-3, 431), (21, 423), (47, 378), (24, 368), (-151, 252)],
    // depth 6, shallow 2
    [(-69, 603), (-39, 701), (-53, 702), (-31, 526), (74, 822)],
    // depth 7, shallow 3
    [(-3, 653), (61, 570), (39, 429), (47, 443), (-72, 312)],
    // depth 8, shallow 4
    [(95, 442), (65, 499), (28, 402), (27, 472), (63, 257)],
    // depth 9, shallow 5
    [(39, 463), (25, 476), (13, 330), (37, 360), (13, 214)],
    // depth 10, shallow 4
    [(176, 549), (55, 612), (82, 511), (20, 541), (4, 286)],
    // depth 11, shallow 5
    [(40, 538), (7, 586), (4, 447), (33, 425), (67, 226)],
    // depth 12, shallow 6
    [(251, 476), (-28, 641), (65, 418), (14, 381), (-33, 269)],
];

/// A cut test for one node: the shallow depth, and the prediction of the deep score from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    /// The depth of the shallow search.
    pub(crate) shallow: u32,
    /// The mean of `deep − shallow`.
    pub(crate) mean: i32,
    /// Its standard deviation.
    pub(crate) sigma: i32,
}

impl Cut {
    /// How far beyond the window the predicted deep score must lie for a cut.
    pub(crate) fn margin(&self) -> i32 {
        self.sigma * CONFIDENCE_TENTHS / 10
    }
}

impl Cut {
    /// The test for a node searched `depth` plies with `empties` empty squares; `None` where
    /// nodes are not cut.
    pub(crate) fn at(depth: u32, empties: u32) -> Option<Cut> {
        if depth < MIN_DEPTH {
            return None;
        }
        let row = usize::try_from(depth - MIN_DEPTH)
            .unwrap_or(usize::MAX)
            .min(ROWS - 1);
        let stage = STAGE_EMPTIES
            .iter()
            .position(|&bound| empties < bound)
            .unwrap_or(STAGES - 1);
        let (mean, sigma) = TABLE[row][stage];
        Some(Cut {
            shallow: shallow_depth(depth),
            mean: i32::from(mean),
            sigma: i32::from(sigma),
        })
    }
}

/// The shallow depth tested for a deep one: about a quarter, of the same parity, so that
/// both end on the same side's move (an evaluation favours the side that moved last).
pub(crate) fn shallow_depth(depth: u32) -> u32 {
    2 * (depth / 4) + (depth & 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shallow_search_is_shallower_and_ends_on_the_same_side() {
        for depth in MIN_DEPTH..=60 {
            let cut = Cut::at(depth, 61).expect("a cut from the least depth");
            assert!(cut.shallow < depth, "{depth}: {cut:?}");
            assert_eq!(cut.shallow % 2, depth % 2, "{depth}: {cut:?}");
        }
    }

    #[test]
    fn shallow_depths_are_never_cut_and_every_deviation_is_positive() {
        for depth in 0..MIN_DEPTH {
            assert_eq!(Cut::at(depth, 40), None);
        }
        for depth in MIN_DEPTH..MIN_DEPTH + ROWS as u32 + 2 {
            for empties in 1..=60 {
                let cut = Cut::at(depth, empties).expect("a cut");
                assert!(cut.sigma > 0, "{depth} plies, {empties} empties: {cut:?}");
                assert!(cut.mean.abs() < cut.sigma * 4, "{cut:?}");
            }
        }
    }
}
