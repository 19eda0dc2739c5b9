use arbiter_plugin::{ActionForm, FieldKind};
use arbiter_rules::{Ctx, Game, Seat, Viewer};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::{Value, json};

use super::{event_line, forms, prompt};
use crate::rules::{FateAction, FateTokens};
use crate::selfplay::{RuleBots, play_observed};
use crate::setup::Token;
use crate::state::{FateState, Life, PhaseKind};
use crate::view::{self, FateView};

/// Every state seen while the rule bots play games of every size, where a form may be shown:
/// nights, claim windows and the phases around them, once per phase number.
fn states() -> Vec<FateState> {
    let mut states = Vec::new();
    for (players, seed) in [(4, 1), (5, 2), (6, 3), (7, 4), (8, 5), (6, 11)] {
        let mut last = (0, false, 0);
        let mut observe = |state: &FateState| {
            let key = (state.phase_number(), state.locked, state.claims.len());
            if key != last {
                last = key;
                states.push(state.clone());
            }
        };
        play_observed(players, seed, &RuleBots, &[], &mut observe).expect("a game");
    }
    states
}

fn view_of(state: &FateState, seat: Seat) -> FateView {
    view::build(state, Viewer::Seat(seat))
}

/// Whether the rules accept `action` from `seat` now.
fn accepted(state: &FateState, seat: Seat, action: &Value) -> Result<(), String> {
    let action: FateAction =
        serde_json::from_value(action.clone()).map_err(|e| format!("not an action: {e}"))?;
    let mut state = state.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let now = state.opens_at_ms;
    FateTokens::apply(&mut state, seat, &action, &mut Ctx::new(now, &mut rng))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A field's default in the tests: the first usable choice with a value (so that a field
/// depending on it is used too), the first picks, unchecked, a word.
fn default_value(kind: &FieldKind) -> Option<Value> {
    match kind {
        FieldKind::Choice(choices) => choices
            .iter()
            .filter(|c| c.usable)
            .find(|c| !c.value.is_null())
            .or_else(|| choices.iter().find(|c| c.usable))
            .map(|c| c.value.clone()),
        FieldKind::Pick { choices, count } => Some(Value::Array(
            choices
                .iter()
                .filter(|c| c.usable)
                .take(*count)
                .map(|c| c.value.clone())
                .collect(),
        )),
        FieldKind::Check => Some(json!(false)),
        FieldKind::Text { .. } => Some(json!("hello")),
    }
}

/// Every value a field may take, each with whether it is usable.
fn values(kind: &FieldKind) -> Vec<(Value, bool)> {
    match kind {
        FieldKind::Choice(choices) => choices
            .iter()
            .map(|c| (c.value.clone(), c.usable))
            .collect(),
        FieldKind::Pick { choices, count } => {
            let usable: Vec<&Value> = choices
                .iter()
                .filter(|c| c.usable)
                .map(|c| &c.value)
                .collect();
            // Each pair (or run of `count`) of neighbours.
            usable
                .windows(*count)
                .map(|w| (Value::Array(w.iter().map(|v| (*v).clone()).collect()), true))
                .collect()
        }
        FieldKind::Check => vec![(json!(false), true), (json!(true), true)],
        FieldKind::Text { max_chars } => vec![
            (json!("x"), true),
            (json!("y".repeat(*max_chars)), true),
            (json!("z".repeat(*max_chars + 1)), false),
        ],
    }
}

/// The claim's pair whose piles allow the largest number, from the view.
fn widest_pair(view: &FateView, form: &ActionForm) -> Option<Value> {
    let field = form.fields.iter().find(|f| f.pointer == "/pair")?;
    let FieldKind::Pick { choices, .. } = &field.kind else {
        return None;
    };
    let night = view.own.as_ref()?.claim?.round;
    let mut seats: Vec<(u32, Value)> = choices
        .iter()
        .map(|c| {
            let seat = c.value.as_u64().unwrap_or(0);
            let pile = view
                .seats
                .iter()
                .find(|s| u64::from(s.seat.0) == seat)
                .map_or(0, |s| u32::try_from(s.pile_size).unwrap_or(0).min(night));
            (pile, c.value.clone())
        })
        .collect();
    seats.sort_by_key(|s| std::cmp::Reverse(s.0));
    Some(json!([seats[0].1, seats[1].1]))
}

#[test]
fn every_form_s_choices_are_accepted_by_the_rules_or_greyed() {
    let (mut tried, mut greyed) = (0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for state in states() {
        for s in 0..state.players.len() {
            let seat = Seat(u8::try_from(s).expect("a seat"));
            let view = view_of(&state, seat);
            for form in forms(&view) {
                seen.insert(form.key);
                let defaults: Vec<Option<Value>> = form
                    .fields
                    .iter()
                    .map(|f| default_value(&f.kind).filter(|_| f.usable))
                    .collect();
                let base = form.compose(&defaults);
                let base_ok = accepted(&state, seat, &base);
                assert!(base_ok.is_ok(), "{}: {base} {base_ok:?}", form.key);
                for (i, field) in form.fields.iter().enumerate() {
                    for (value, usable) in values(&field.kind) {
                        let mut chosen = defaults.clone();
                        chosen[i] = Some(value.clone());
                        if field.pointer == "/bad"
                            && let Some(pair) = widest_pair(&view, &form)
                        {
                            chosen[0] = Some(pair);
                        }
                        let mut forced = form.clone();
                        for f in &mut forced.fields {
                            f.usable = true;
                        }
                        let action = forced.compose(&chosen);
                        if field.usable && usable {
                            tried += 1;
                            let result = accepted(&state, seat, &action);
                            assert!(result.is_ok(), "{}: {action} {result:?}", form.key);
                        } else if action != forced.compose(&defaults) {
                            greyed += 1;
                            assert!(
                                accepted(&state, seat, &action).is_err(),
                                "{} greyed but accepted: {action}",
                                form.key
                            );
                        }
                    }
                }
            }
        }
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        ["chat", "claim", "night"],
        "every form was offered"
    );
    assert!(
        tried > 1000 && greyed > 100,
        "{tried} tried, {greyed} greyed"
    );
}

#[test]
fn the_night_form_has_the_same_fields_for_every_role() {
    for state in states()
        .iter()
        .filter(|s| s.phase_kind() == PhaseKind::Night && !s.locked)
    {
        let shapes: Vec<Vec<(String, String)>> = (0..state.players.len())
            .filter_map(|s| {
                let view = view_of(state, Seat(u8::try_from(s).ok()?));
                let night = forms(&view).into_iter().find(|f| f.key == "night")?;
                Some(
                    night
                        .fields
                        .iter()
                        .map(|f| (f.pointer.clone(), f.label.clone()))
                        .collect(),
                )
            })
            .collect();
        assert!(!shapes.is_empty());
        assert!(shapes.windows(2).all(|w| w[0] == w[1]), "{shapes:?}");
    }
}

#[test]
fn a_seat_s_forms_and_prompt_do_not_move_when_another_seat_s_secrets_do() {
    let mut checked = 0;
    for state in states().iter().step_by(3) {
        for other in 0..state.players.len() {
            let mut changed = state.clone();
            let p = &mut changed.players[other];
            for (i, slot) in p.pile.iter_mut().enumerate() {
                if !p.exposed_slots.contains(&i) {
                    slot.token = match slot.token {
                        Token::Good => Token::Bad,
                        Token::Neutral => Token::Good,
                        Token::Bad => Token::Neutral,
                    };
                }
            }
            p.bag = p.bag.with_added(Token::Bad);
            if !p.awakened {
                p.awakening_round += 1;
            }
            for s in (0..state.players.len()).filter(|&s| s != other) {
                let seat = Seat(u8::try_from(s).expect("a seat"));
                let (before, after) = (view_of(state, seat), view_of(&changed, seat));
                assert_eq!(forms(&before), forms(&after), "seat {s}, other {other}");
                assert_eq!(prompt(&before), prompt(&after));
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn spectators_get_no_form_and_no_prompt() {
    for state in states().iter().step_by(5) {
        let view = view::build(state, Viewer::Spectator);
        assert!(forms(&view).is_empty());
        assert_eq!(prompt(&view), None);
    }
}

#[test]
fn the_prompt_says_what_a_pending_seat_is_to_do() {
    let mut seen = std::collections::BTreeMap::new();
    for state in states() {
        for s in 0..state.players.len() {
            let seat = Seat(u8::try_from(s).expect("a seat"));
            let view = view_of(&state, seat);
            if view.pending.contains(&seat) && view.finish.is_none() {
                let text = prompt(&view).expect("a prompt");
                assert!(
                    text.chars()
                        .all(|c| c.is_ascii_alphanumeric() || " .,:?'".contains(c)),
                    "{text}"
                );
                seen.entry(format!("{:?}", view.phase)).or_insert(text);
            }
        }
    }
    let cases = [
        ("Draw", "Draw two tokens"),
        ("Discussion", "press Ready"),
        ("Accusation", "Accuse a player"),
        ("Night", "Night"),
        ("Vote", "Vote in secret"),
    ];
    for (phase, words) in cases {
        let text = seen
            .get(phase)
            .unwrap_or_else(|| panic!("{phase}: {seen:?}"));
        assert!(text.contains(words), "{phase}: {text}");
    }
}

#[test]
fn chat_reads_as_a_line_with_its_speaker() {
    let names = ["Ann".to_owned(), "<b>Bo</b>".to_owned()];
    let cases = [
        (
            json!({"type": "chat", "channel": "everyone", "line": {"seat": 1, "round": 1, "text": "hi"}}),
            Some(Some(("<b>Bo</b>", "hi"))),
        ),
        (
            json!({"type": "chat", "channel": "ghosts", "line": {"seat": 0, "round": 2, "text": "boo"}}),
            Some(Some(("Ann (to the ghosts)", "boo"))),
        ),
        (
            json!({"type": "chat", "channel": "everyone", "line": {"seat": null, "round": 2, "text": "Seat 1 was exiled"}}),
            Some(None),
        ),
        (
            json!({"type": "ready", "seat": 1}),
            Some(Some(("", "Seat 2 is ready."))),
        ),
        // A private event keeps the pages' generic description.
        (
            json!({"type": "drew", "phase": 1, "tokens": ["good", "bad"]}),
            None,
        ),
    ];
    for (event, expected) in cases {
        let line = event_line(&event, &names);
        let got = line.as_ref().map(|l| {
            l.as_ref()
                .map(|l| (l.speaker.as_deref().unwrap_or(""), l.text.as_str()))
        });
        assert_eq!(got, expected, "{event}");
    }
}

#[test]
fn a_ghost_chats_with_the_ghosts_and_the_living_with_everyone() {
    let mut channels = std::collections::BTreeSet::new();
    for state in states() {
        for s in 0..state.players.len() {
            let seat = Seat(u8::try_from(s).expect("a seat"));
            let view = view_of(&state, seat);
            let life = view.seats[s].life;
            let chat = forms(&view).into_iter().find(|f| f.key == "chat");
            match life {
                Life::Living | Life::Ghost if state.phase_kind() != PhaseKind::Over => {
                    let chat = chat.expect("a chat form");
                    channels.insert(chat.template["channel"].to_string());
                    // The channel is chosen only where the view shows the Ghosts channel.
                    assert_eq!(
                        chat.fields.iter().any(|f| f.pointer == "/channel"),
                        view.ghost_chat.is_some()
                    );
                }
                _ => assert!(chat.is_none(), "{life:?}"),
            }
        }
    }
    assert_eq!(channels.len(), 2, "{channels:?}");
}

#[test]
fn public_announcements_read_as_words_with_seats_numbered_from_1() {
    let names = ["Ann".to_owned(), "Bo".to_owned(), "Cy".to_owned()];
    let cases = [
        (
            json!({"type": "round_started", "round": 2}),
            "Round 2 begins.",
        ),
        (
            json!({"type": "phase_opened", "phase": 3, "kind": "discussion", "round": 1,
                "opens_at_ms": 5, "deadline_ms": 9, "owed": [0, 1, 2]}),
            "Round 1: the discussion begins.",
        ),
        (
            json!({"type": "draw_resolved", "round": 1, "revealed": ["good", null, "bad"]}),
            "Round 1's draw shows: Seat 1 Good, Seat 3 Bad.",
        ),
        (
            json!({"type": "night_resolved", "round": 3, "failed_pathfinders": [[2, 0]],
                "guard_used": true, "marks": [0, 2, 1], "reveals": [[1, 2]],
                "accusation": {"accuser": 0, "accused": 1, "price": "neutral"}, "lock_ms": 9000}),
            "Night 3: Seat 3's pathfinder named Seat 1, who is not the Great Fortune, and Seat 3 \
             is a ghost now; the guard was used; Seat 2 passed the threshold and shows 2 of their \
             tokens; marks: Seat 2 2, Seat 3 1; Seat 1 accuses Seat 2, at the price of a Neutral \
             token.",
        ),
        (
            json!({"type": "night_resolved", "round": 1, "failed_pathfinders": [],
                "guard_used": false, "marks": [0, 0, 0], "reveals": [], "accusation": null,
                "lock_ms": 3000}),
            "Night 1 passes quietly.",
        ),
        (
            json!({"type": "vote_resolved", "accused": 2, "yes": 3, "no": 1, "exiled": true}),
            "The vote on Seat 3: 3 yes, 1 no; exiled.",
        ),
        (
            json!({"type": "exile_resolved", "seat": 2, "was_great_misfortune": true,
                "counter": 1}),
            "Seat 3 was a Great Misfortune, and struck back, naming Seat 2.",
        ),
        (
            json!({"type": "exile_resolved", "seat": 2, "was_great_misfortune": true,
                "counter": null}),
            "Seat 3 was a Great Misfortune, and did not strike back.",
        ),
        (
            json!({"type": "exile_resolved", "seat": 0, "was_great_misfortune": false,
                "counter": null}),
            "Seat 1 was not a Great Misfortune, and is a ghost now.",
        ),
        (
            json!({"type": "claimed", "round": 2, "claimant": 1, "pair": [0, 2], "bad": 1}),
            "Seat 2 claims that on night 2 their helper found 1 Bad in Seat 1 and Seat 3.",
        ),
        (
            json!({"type": "decided", "winner": "good", "reason": "no_great_misfortune",
                "sides": ["good", "misfortune", "good"]}),
            "The Good side wins: no Great Misfortune is living.",
        ),
        (json!({"type": "over"}), "The game is over."),
    ];
    for (event, text) in cases {
        let line = event_line(&event, &names).expect("known").expect("shown");
        assert_eq!(line.speaker, None, "{event}");
        assert_eq!(line.text, text, "{event}");
    }
    // The end of a lock (the phase clock shows it) and a seat's submission (one of many a
    // phase) are not worth a line.
    for event in [
        json!({"type": "unlocked", "phase": 2}),
        json!({"type": "submitted", "phase": 1, "seat": 0}),
    ] {
        assert_eq!(event_line(&event, &names), Some(None), "{event}");
    }
    // An event whose numbers do not read keeps the generic description.
    assert_eq!(
        event_line(&json!({"type": "ready", "seat": "Ann"}), &names),
        None
    );
}
