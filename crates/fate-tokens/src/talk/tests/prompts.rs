//! No hidden information reaches a model: every prompt a house seat's remark would send, over
//! thousands of situations from rule-bot games with people and bots chatting, is built from
//! the seat's view alone, and stays the same when any secret it may not tell changes.
//!
//! For each situation (a state in the discussion or the trial, with chat added) and each
//! living seat as a house seat, the full messages a provider would be sent are computed
//! (the plugin seam's remark, worded by `arbiter_talk::prompt`), then computed again from a
//! state in which every secret the seat does not know has changed (the leak test's `hide`:
//! other seats' roles, piles, bags, peeks, whispers, forms), and from a view in which the
//! seat's own secrets have changed. The first must be identical; the second too, except for
//! the seat's answer to a question about its own pile, the one place its own counts may
//! reach a prompt, and then only as counts whose total is its pile's public size.

use arbiter_plugin::{Language, Persona, TalkTable, Voice};
use arbiter_rules::random::below;
use arbiter_rules::{Game, Random, Seat, Viewer};
use arbiter_talk::prompt::{Message, messages};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::rules::tests::leaks::{Tally, hide};
use crate::selfplay::{RuleBots, play_observed};
use crate::state::FateState;
use crate::talk::choose::tests::disguise;
use crate::talk::{examples, remark};
use crate::{ChatLine, FateTokens, FateView, Life, PhaseKind};

const NAMES: [&str; 8] = [
    "Minsu", "Bora", "Chulsoo", "Dana", "Jiwoo", "Farah", "Gyu", "Hana",
];

/// How many games are played; each gives many situations.
const GAMES: u64 = 300;

/// A generator that always draws `.0`: the opening roll passes and a choice is fixed, so
/// that opinions are spoken, not only rolled.
struct Fixed(u32);

impl Random for Fixed {
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

/// States of a rule-bot game in the discussion and the trial, one per phase and decision.
fn situations(players: u8, seed: u64) -> Vec<FateState> {
    let mut states: Vec<FateState> = Vec::new();
    let mut observe = |state: &FateState| {
        if matches!(state.phase_kind(), PhaseKind::Discussion | PhaseKind::Trial)
            && states.last().is_none_or(|s| {
                s.phase_number() != state.phase_number() || states.len().is_multiple_of(3)
            })
        {
            states.push(state.clone());
        }
    };
    let played = play_observed(players, seed, &RuleBots, &[], &mut observe);
    assert!(played.is_ok(), "{played:?}");
    states
}

/// Adds chat from people and bots, naming anyone, asking about piles and voicing suspicion;
/// returns which seats are bots.
fn chatter(state: &mut FateState, r: &mut ChaCha8Rng) -> Vec<bool> {
    let n = state.seat_count() as u32;
    let bots: Vec<bool> = (0..n).map(|_| below(r, 2) == 0).collect();
    let frames = [
        "{}, what did you keep in your pile?",
        "{} is suspicious",
        "I think {} is the Great Misfortune",
        "hello all",
        "{}님 비공개 더미 알려주세요",
        "{}님 수상해요",
        "{} looks fine to me",
    ];
    let round = state.round();
    for _ in 0..below(r, 6) {
        let seat = below(r, n) as u8;
        let named = NAMES[below(r, n) as usize];
        let frame = frames[below(r, frames.len() as u32) as usize];
        state.everyone_chat.push(ChatLine {
            seat: Some(Seat(seat)),
            round,
            text: frame.replace("{}", named),
        });
    }
    bots
}

/// The messages `seat` would send a model now from `view`, if it has anything to say.
fn prompt(
    view: &FateView,
    names: &[String],
    bots: &[bool],
    language: Language,
    draw: u64,
) -> Option<(String, Vec<u32>, Vec<Message>)> {
    let seat = view.own.as_ref()?.seat;
    let table = TalkTable {
        names,
        bots,
        language,
        persona: Persona::for_seat(seat.index()),
        now_ms: view.opens_at_ms,
        tick: true,
    };
    let said = if draw.is_multiple_of(2) {
        remark(view, &table, &mut Fixed((draw / 2) as u32 % 7))
    } else {
        remark(view, &table, &mut ChaCha8Rng::seed_from_u64(draw))
    };
    let said = said.ok()?;
    let voice = Voice {
        name: &names[seat.index()],
        persona: table.persona,
        language,
    };
    let sent = messages(&said, voice, examples(language));
    Some((said.kind, said.numbers, sent))
}

#[test]
fn no_prompt_carries_what_its_seat_may_not_tell() {
    let mut r = ChaCha8Rng::seed_from_u64(11);
    let mut tally = Tally::default();
    let (mut situations_seen, mut prompts, mut answers) = (0u64, 0u64, 0u64);
    for game in 0..GAMES {
        let players = 4 + (game % 5) as u8;
        for mut state in situations(players, 7_000 + game) {
            let bots = chatter(&mut state, &mut r);
            let names: Vec<String> = NAMES
                .iter()
                .take(state.seat_count())
                .map(|s| s.to_string())
                .collect();
            for s in 0..state.seat_count() {
                let seat = Seat(s as u8);
                let view = FateTokens::view(&state, Viewer::Seat(seat));
                if view.seats[s].life != Life::Living {
                    continue;
                }
                situations_seen += 1;
                let language = [Language::English, Language::Korean][(game % 2) as usize];
                let draw = u64::from(r.next_u32());
                let sent = prompt(&view, &names, &bots, language, draw);

                // Every secret it does not know changes: the prompt does not.
                let hidden = hide(&state, Viewer::Seat(seat), &mut r, &mut tally);
                let elsewhere = FateTokens::view(&hidden, Viewer::Seat(seat));
                let again = prompt(&elsewhere, &names, &bots, language, draw);
                assert_eq!(sent, again, "game {game}, seat {s}: another's secret shows");

                // Its own secrets change: only its answer about its pile may change.
                let masked = disguise(&view, &mut r);
                let own = prompt(&masked, &names, &bots, language, draw);
                match (&sent, &own) {
                    (Some((kind, numbers, _)), Some((kind2, _, _))) if kind == "private_answer" => {
                        answers += 1;
                        assert_eq!(kind2, "private_answer");
                        let size = view.own.as_ref().map_or(0, |o| o.pile.len());
                        if !numbers.is_empty() {
                            assert_eq!(numbers.iter().sum::<u32>() as usize, size);
                        }
                    }
                    _ => assert_eq!(sent, own, "game {game}, seat {s}: its own secret shows"),
                }

                if let Some((_, _, messages)) = &sent {
                    prompts += 1;
                    let request = &messages[messages.len() - 1].content;
                    for secret in [
                        "Great Fortune",
                        "Common Fortune",
                        "대길",
                        "평운",
                        "peek",
                        "whisper",
                    ] {
                        assert!(!request.contains(secret), "{request}");
                    }
                }
            }
        }
    }
    eprintln!("{situations_seen} situations, {prompts} prompts, {answers} pile answers");
    assert!(situations_seen > 10_000, "{situations_seen} situations");
    assert!(prompts > 3_000, "{prompts} prompts");
    assert!(answers > 200, "{answers} pile answers");
}
