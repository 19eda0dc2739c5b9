//! The throttles (seed 003 §06, "도배 방지"): when a bot may speak at all.
//!
//! Everything here is a pure function of the chat lines of a view, the round, the phase's
//! window and a clock reading the caller passes in, so that tests can run the rules on any
//! clock without waiting. The rules:
//!
//! - at most [`LINES_PER_ROUND`] lines of a bot's own per round, answers included;
//! - a bot opening a topic pauses while one of its own lines is among the last
//!   [`PAUSE_AFTER_OWN`] lines of the chat;
//! - after an opinion, other seats must say [`OTHERS_BETWEEN_OPINIONS`] lines before the
//!   bot's next opinion (its answers to people are not opinions and do not count). While
//!   both numbers are 2 the pause implies this rule; it is checked on its own so that
//!   either can change alone;
//! - a bot opens a topic with probability [`OPEN_DISCUSSION`] per mille in the discussion
//!   and [`OPEN_TRIAL`] per mille (a stance for or against) in the trial;
//! - an answer to a person is given at once: it skips the pause, the gap and the roll, and
//!   only the per-round cap holds it back;
//! - nothing is said while the table is locked (before the phase opens) or once the phase's
//!   deadline has passed.

use crate::{ChatLine, FateView, PhaseKind};
use arbiter_rules::random::below;
use arbiter_rules::{Random, Seat};

use arbiter_plugin::Silence;

/// The most lines a bot says in one round.
pub const LINES_PER_ROUND: usize = 4;

/// A bot opening a topic waits while its own line is among this many last lines.
pub const PAUSE_AFTER_OWN: usize = 2;

/// Lines other seats must say between two opinions of a bot.
pub const OTHERS_BETWEEN_OPINIONS: usize = 2;

/// The chance, per mille, that a bot opens a topic in the discussion when it may.
pub const OPEN_DISCUSSION: u32 = 150;

/// The chance, per mille, that a bot states a stance in the trial when it may.
pub const OPEN_TRIAL: u32 = 300;

/// Why a bot wants to speak, which decides the throttles that apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Urge {
    /// An answer to a person who spoke to the bot: given at once.
    Answer,
    /// An opinion of the bot's own: throttled by every rule.
    Opinion,
}

/// Whether `now_ms` is inside `view`'s phase: after its lock and before its deadline.
pub fn in_window(view: &FateView, now_ms: u64) -> bool {
    now_ms >= view.opens_at_ms && view.deadline_ms.is_none_or(|d| now_ms < d)
}

/// Whether `me` may speak with `urge` given `chat`, in `round`. `is_answer` tells which of
/// `chat`'s lines (by index) were answers of the bot's own, which are not opinions.
pub fn allows(
    chat: &[ChatLine],
    me: Seat,
    round: u32,
    urge: Urge,
    is_answer: &dyn Fn(usize) -> bool,
) -> Result<(), Silence> {
    let mine_this_round = chat
        .iter()
        .filter(|l| l.seat == Some(me) && l.round == round)
        .count();
    if mine_this_round >= LINES_PER_ROUND {
        return Err(Silence::Throttled);
    }
    if urge == Urge::Answer {
        return Ok(());
    }
    // System announcements are not talk: only seated lines count for the pause and the gap.
    let seated: Vec<(usize, &ChatLine)> = chat
        .iter()
        .enumerate()
        .filter(|(_, l)| l.seat.is_some())
        .collect();
    if seated
        .iter()
        .rev()
        .take(PAUSE_AFTER_OWN)
        .any(|(_, l)| l.seat == Some(me))
    {
        return Err(Silence::Throttled);
    }
    let last_opinion = seated
        .iter()
        .rposition(|&(i, l)| l.seat == Some(me) && !is_answer(i));
    if let Some(at) = last_opinion {
        let others = seated[at + 1..]
            .iter()
            .filter(|(_, l)| l.seat != Some(me))
            .count();
        if others < OTHERS_BETWEEN_OPINIONS {
            return Err(Silence::Throttled);
        }
    }
    Ok(())
}

/// Rolls the chance of opening a topic in `phase`: true to speak.
pub fn opens(phase: PhaseKind, rng: &mut dyn Random) -> bool {
    let chance = match phase {
        PhaseKind::Trial => OPEN_TRIAL,
        PhaseKind::Discussion => OPEN_DISCUSSION,
        _ => 0,
    };
    below(rng, 1000) < chance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(seat: Option<u8>, round: u32) -> ChatLine {
        ChatLine {
            seat: seat.map(Seat),
            round,
            text: "hi".into(),
        }
    }

    const ME: Seat = Seat(0);

    fn check(chat: &[ChatLine], urge: Urge) -> Result<(), Silence> {
        allows(chat, ME, 3, urge, &|_| false)
    }

    #[test]
    fn each_rule_holds_a_bot_back() {
        let cases: Vec<(&str, Vec<ChatLine>, Urge, bool)> = vec![
            ("empty chat", vec![], Urge::Opinion, true),
            (
                "four own lines this round",
                vec![
                    line(Some(0), 3),
                    line(Some(1), 3),
                    line(Some(2), 3),
                    line(Some(0), 3),
                    line(Some(1), 3),
                    line(Some(2), 3),
                    line(Some(0), 3),
                    line(Some(1), 3),
                    line(Some(2), 3),
                    line(Some(0), 3),
                    line(Some(1), 3),
                    line(Some(2), 3),
                ],
                Urge::Answer,
                false,
            ),
            (
                "four own lines, an earlier round",
                vec![
                    line(Some(0), 2),
                    line(Some(0), 2),
                    line(Some(0), 2),
                    line(Some(0), 2),
                    line(Some(1), 3),
                    line(Some(2), 3),
                ],
                Urge::Opinion,
                true,
            ),
            (
                "own line last",
                vec![line(Some(1), 3), line(Some(0), 3)],
                Urge::Opinion,
                false,
            ),
            (
                "own line second last",
                vec![line(Some(0), 3), line(Some(1), 3)],
                Urge::Opinion,
                false,
            ),
            (
                "system lines do not end the pause",
                vec![line(Some(0), 3), line(None, 3), line(None, 3)],
                Urge::Opinion,
                false,
            ),
            (
                "two others since",
                vec![line(Some(0), 3), line(Some(1), 3), line(Some(2), 3)],
                Urge::Opinion,
                true,
            ),
            (
                "an answer skips the pause",
                vec![line(Some(1), 3), line(Some(0), 3)],
                Urge::Answer,
                true,
            ),
        ];
        for (name, chat, urge, ok) in cases {
            assert_eq!(check(&chat, urge).is_ok(), ok, "{name}");
        }
    }

    #[test]
    fn answers_do_not_count_as_opinions() {
        // Opinion at 0, two others, an answer at 3, two others: the answer does not restart
        // the gap, so the bot may give an opinion.
        let chat = vec![
            line(Some(0), 3),
            line(Some(1), 3),
            line(Some(2), 3),
            line(Some(0), 3),
            line(Some(1), 3),
            line(Some(2), 3),
        ];
        assert!(allows(&chat, ME, 3, Urge::Opinion, &|i| i == 3).is_ok());
        // Had it been an opinion, two others after it still allow the next one.
        assert!(allows(&chat, ME, 3, Urge::Opinion, &|_| false).is_ok());
    }

    #[test]
    fn the_window_follows_the_injected_clock() {
        let mut view = super::super::choose::tests::base_view(5);
        view.opens_at_ms = 1_000;
        view.deadline_ms = Some(5_000);
        let cases = [(999, false), (1_000, true), (4_999, true), (5_000, false)];
        for (now, ok) in cases {
            assert_eq!(in_window(&view, now), ok, "at {now} ms");
        }
    }

    #[test]
    fn the_open_rolls_keep_their_rates() {
        let mut rng = super::super::choose::tests::rng(7);
        for (phase, rate) in [(PhaseKind::Discussion, 150), (PhaseKind::Trial, 300)] {
            let n = 20_000;
            let hits = (0..n).filter(|_| opens(phase, &mut rng)).count();
            let per_mille = hits * 1000 / n;
            assert!(per_mille.abs_diff(rate) < 20, "{phase:?}: {per_mille}");
        }
        assert!(!opens(PhaseKind::Night, &mut rng));
    }
}
