//! Tests of the family's part of the talk seam: remarks, cadence and the chat action.

use arbiter_plugin::{Persona, TableTalk};
use arbiter_rules::Seat;

mod prompts;

use super::choose::tests::{base_view, rng};
use super::*;
use crate::ChatLine;

fn chat(seat: u8, round: u32, text: &str) -> ChatLine {
    ChatLine {
        seat: Some(Seat(seat)),
        round,
        text: text.to_owned(),
    }
}

#[test]
fn a_remark_carries_the_recent_public_chat_and_the_seats_own_lines() {
    let mut view = base_view(5);
    for i in 0..20 {
        // Last round's lines: this round's would hold the bot to its cap of lines.
        view.everyone_chat
            .push(chat(i % 5, 1, &format!("line {i}")));
    }
    view.everyone_chat.push(ChatLine {
        seat: None,
        round: 2,
        text: "announcement".to_owned(),
    });
    view.everyone_chat
        .push(chat(1, 2, "Minsu, what did you keep in your pile?"));
    let names: Vec<String> = ["Minsu", "Bora", "Chulsoo", "Dana", "Jiwoo"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let table = TalkTable {
        names: &names,
        bots: &[true, false, false, false, false],
        language: Language::English,
        persona: Persona::Calm,
        now_ms: 0,
        tick: false,
    };
    let Ok(remark) = remark(&view, &table, &mut rng(1)) else {
        panic!("an answer is owed");
    };
    assert_eq!(remark.kind, "private_answer");
    assert_eq!(remark.recent.len(), RECENT_LIMIT);
    assert!(remark.recent.iter().all(|e| e.text != "announcement"));
    let last = remark
        .recent
        .last()
        .map(|e| (e.speaker.as_str(), e.text.as_str()));
    assert_eq!(
        last,
        Some(("Bora", "Minsu, what did you keep in your pile?"))
    );
    let own: Vec<&str> = remark.own.iter().map(String::as_str).collect();
    assert_eq!(own, ["line 0", "line 5", "line 10", "line 15"]);
}

#[test]
fn the_cadence_follows_the_phase_window() {
    let mut view = base_view(5);
    view.opens_at_ms = 1_000;
    view.deadline_ms = Some(10_000);
    let cases = [
        (0, Some(1_000)),
        (1_000, Some(1_000 + TALK_TICK_MS)),
        (5_000, Some(5_000 + TALK_TICK_MS)),
        (6_000, None),
    ];
    for (now, next) in cases {
        assert_eq!(next_talk_at(&view, now), next, "at {now} ms");
    }
    view.phase = PhaseKind::Night;
    assert_eq!(next_talk_at(&view, 2_000), None);
}

#[test]
fn the_chat_action_is_a_line_to_everyone() {
    let action = Talk.chat_action("hello");
    let parsed: Result<FateAction, _> = serde_json::from_value(action);
    assert!(matches!(
        parsed,
        Ok(FateAction::Chat { channel: Channel::Everyone, ref text }) if text == "hello"
    ));
    for language in Language::ALL {
        let examples = Talk.examples(language);
        assert_eq!(examples.pairs.len(), 10);
        assert_eq!(examples.names.len(), 4);
    }
}
