//! The trained evaluation weights the house players ship with, embedded in the build, and how
//! a house player shares its clock over a game.
//!
//! The weights come from `arbiter train othello` (see `docs/training.md`); `weights/README.md`
//! records the command, its seed and the commit each file was made at, with the SHA-256 of
//! its bytes, so that anyone can make them again and compare.

use std::sync::OnceLock;

use arbiter_othello::{Position, Variant};
use arbiter_othello_eval::Weights;

use crate::endgame;

/// Standard Othello's weights, also classic Reversi's: once its centre is placed, a Reversi
/// game is standard Othello's but for the 32-disc rule, which binds only in the last empties
/// that the endgame solver plays.
const STD: &[u8] = include_bytes!("../weights/std.aoew");
/// Anti-Othello's weights, trained on the negated margin (fewer discs wins).
const ANTI: &[u8] = include_bytes!("../weights/anti.aoew");

/// The shipped weights for `variant`'s boards, read once; `None` for the 10x10 boards, which
/// the pattern set does not fit (and, were an embedded file ever unreadable, for its
/// variants, which then keep the built-in evaluation; a test checks that both read).
pub fn shipped_weights(variant: Variant) -> Option<&'static Weights> {
    static STD_WEIGHTS: OnceLock<Option<Weights>> = OnceLock::new();
    static ANTI_WEIGHTS: OnceLock<Option<Weights>> = OnceLock::new();
    let (cell, bytes) = match variant {
        Variant::Std | Variant::Reversi => (&STD_WEIGHTS, STD),
        Variant::Anti => (&ANTI_WEIGHTS, ANTI),
        Variant::Grand | Variant::Octagon => return None,
    };
    cell.get_or_init(|| Weights::from_bytes(bytes).ok())
        .as_ref()
}

/// The worth of a move made with `empties` empty squares, in tenths of an ordinary move's,
/// when the exact solver takes over at `solve_at` empties. The opening's, where evaluations
/// differ least, is a little less than the midgame's. The first moves the solver plays are
/// worth half an ordinary one: by then the midgame's searches have usually reached the end
/// of the game already (from 30 empties on they search 20 plies and more), so a solve mostly
/// reads the transposition table and takes a fraction of a second; the half is a reserve for
/// one that does not. Those after it find their lines in the table and are worth least. Time
/// kept for the endgame and not spent there would be lost with the game, so the midgame,
/// where it decides the most, gets it.
fn worth(empties: u32, solve_at: u32) -> i64 {
    if empties > solve_at + 30 {
        8
    } else if empties > solve_at {
        10
    } else if empties + 4 > solve_at {
        5
    } else {
        1
    }
}

/// How many milliseconds the mover of `position` may spend on this move when its clock shows
/// `clock_ms` for the rest of the game: twice its share of the clock, and never more than a
/// third of the clock at once. Its share is the clock (less a twentieth kept for the
/// moves' travel and the searches' unwinding) shared among the mover's moves still to come,
/// each by its worth. Twice, because the search starts no iteration past half its time
/// (one begun later would rarely finish), so it spends about its share on average.
pub fn move_time_ms(position: &Position, clock_ms: i64) -> i64 {
    let clock_ms = clock_ms.max(0);
    let empties = endgame::empties(position);
    let solve_at = if endgame::solvable(position) {
        endgame::solve_threshold(position.variant())
    } else {
        0
    };
    // The mover plays at these empties, if nobody passes: now, two plies later, and so on.
    let total: i64 = (1..=empties.max(1))
        .rev()
        .step_by(2)
        .map(|e| worth(e, solve_at))
        .sum();
    let usable = clock_ms - clock_ms / 20;
    let share = usable * worth(empties, solve_at) / total.max(1);
    (2 * share).min(clock_ms / 3)
}

#[cfg(test)]
mod tests;
