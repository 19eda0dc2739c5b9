//! The rendering of games whose family draws no board: a leg's view as a list of its fields,
//! and the leg's public events as lines of text.
//!
//! Everything here is plain text that the templates escape; nothing is written as HTML.

use arbiter_arena::snapshot::EventView;
use arbiter_plugin::EventLine;
use serde::Deserialize;
use serde_json::Value;

/// One top-level field of a view.
pub(crate) struct Field {
    /// The field's name, in words (`prizes left`).
    pub(crate) name: String,
    /// A value that fits on one line; `None` when it is shown as `items`.
    pub(crate) text: Option<String>,
    /// The entries of a list or an object, each labelled: by a participant's name for a
    /// list with one entry per seat, by its position or key otherwise.
    pub(crate) items: Vec<(String, String)>,
}

/// The fields of `view`, by name (JSON objects here keep no other order). `seats` names the
/// participant in each seat, so that a list with one entry per seat is labelled by name.
pub(crate) fn fields(view: &Value, seats: &[String]) -> Vec<Field> {
    let Some(object) = view.as_object() else {
        return vec![Field {
            name: "view".to_owned(),
            text: Some(describe(view)),
            items: Vec::new(),
        }];
    };
    object
        .iter()
        .map(|(key, value)| {
            let name = key.replace('_', " ");
            match value {
                Value::Array(list) if !list.is_empty() => {
                    let per_seat = seats.len() >= 2
                        && list.len() == seats.len()
                        && list.iter().all(|v| !v.is_object());
                    let items = list
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let label = if per_seat {
                                seats[i].clone()
                            } else {
                                (i + 1).to_string()
                            };
                            (label, describe(v))
                        })
                        .collect();
                    Field {
                        name,
                        text: None,
                        items,
                    }
                }
                Value::Object(entries) if !entries.is_empty() => Field {
                    name,
                    text: None,
                    items: entries
                        .iter()
                        .map(|(k, v)| (k.replace('_', " "), describe(v)))
                        .collect(),
                },
                other => Field {
                    name,
                    text: Some(describe(other)),
                    items: Vec::new(),
                },
            }
        })
        .collect()
}

/// A value on one line: numbers and text as they are, `yes`/`no`, `—` for nothing, lists in
/// brackets, and objects as `key value` pairs, a `type` first as a word of its own.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "—".to_owned(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(list) => format!(
            "[{}]",
            list.iter().map(describe).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(entries) => {
            let kind = entries.get("type").and_then(Value::as_str);
            let rest = entries
                .iter()
                .filter(|(k, _)| kind.is_none() || k.as_str() != "type")
                .map(|(k, v)| format!("{} {}", k.replace('_', " "), describe(v)))
                .collect::<Vec<_>>()
                .join(", ");
            match kind {
                Some(kind) if rest.is_empty() => kind.replace('_', " "),
                Some(kind) => format!("{}: {rest}", kind.replace('_', " ")),
                None => rest,
            }
        }
    }
}

/// The public events of leg `leg`, from a match's event log as a spectator reads it (the
/// arena's events pages), one line each.
///
/// A move is shown by the game events it made public, never by its action: in a
/// simultaneous phase an action is a secret until the rules reveal it, and the arena logs it
/// for everyone else as an `acted` event without the action.
#[cfg(test)]
pub(crate) fn leg_events(events: &[EventView], leg: usize, participants: &[String]) -> Vec<String> {
    leg_lines(events, leg, participants, &|_| None)
        .into_iter()
        .map(|line| line.text)
        .collect()
}

/// The public events of leg `leg` as [`leg_events`] reads them, each game event written by
/// `game_line` where it says how (a family's [`arbiter_plugin::BoardRenderer::event_line`]:
/// `Some(None)` leaves the event out), else described generically.
pub(crate) fn leg_lines(
    events: &[EventView],
    leg: usize,
    participants: &[String],
    game_line: &dyn Fn(&Value) -> Option<Option<EventLine>>,
) -> Vec<EventLine> {
    let plain = |text: String| EventLine {
        speaker: None,
        text,
    };
    let line_of = |event: &Value| match game_line(event) {
        Some(line) => line,
        None => Some(plain(describe(event))),
    };
    /// The fields of an event's data that the lines show; the rest (a move's action and
    /// clocks) is skipped unread, since every fetch of a page reads the whole log.
    #[derive(Deserialize)]
    struct Data {
        #[serde(default)]
        leg: Value,
        #[serde(default)]
        participant: Value,
        #[serde(default)]
        revision: Value,
        #[serde(default)]
        events: Value,
        #[serde(default)]
        reason: Value,
    }
    let mut lines = Vec::new();
    // The participant of a secret or free action reads its own `move` and, right after it,
    // the `acted` everyone else reads of the same action: the copy says nothing new.
    let mut last_move: Option<(Value, Value)> = None;
    for event in events {
        if !matches!(
            event.kind.as_str(),
            "move" | "acted" | "deadline" | "leg_finished"
        ) {
            continue;
        }
        // The data is the arena's or the game's, so it is read here as JSON; data that does
        // not parse says nothing about the leg.
        let Ok(data) = serde_json::from_str::<Data>(event.data.get()) else {
            continue;
        };
        if data.leg.as_u64().and_then(|l| usize::try_from(l).ok()) != Some(leg) {
            continue;
        }
        let this_move = (data.participant.clone(), data.revision.clone());
        let copy = event.kind == "acted" && last_move.as_ref() == Some(&this_move);
        last_move = (event.kind == "move").then_some(this_move);
        if copy {
            continue;
        }
        match event.kind.as_str() {
            "move" | "acted" => {
                let public = data.events.as_array().map_or(&[][..], Vec::as_slice);
                if public.is_empty() {
                    let who = data
                        .participant
                        .as_u64()
                        .and_then(|p| participants.get(usize::try_from(p).ok()?))
                        .map_or("?", String::as_str);
                    lines.push(plain(format!("{who} acted")));
                }
                lines.extend(public.iter().filter_map(line_of));
            }
            "deadline" => {
                lines.extend(
                    data.events
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(line_of),
                );
            }
            "leg_finished" => {
                let reason = data.reason.as_str().unwrap_or("").replace('_', " ");
                lines.push(plain(
                    format!("leg finished: {reason}")
                        .trim_end_matches(": ")
                        .to_owned(),
                ));
            }
            // Private events are not in a spectator's log; other kinds are the match's,
            // not the leg's.
            _ => {}
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_read_as_one_line_of_words() {
        let cases = [
            (json!(null), "—"),
            (json!(true), "yes"),
            (json!(3), "3"),
            (json!("a<b"), "a<b"),
            (json!([1, [2, 3]]), "[1, [2, 3]]"),
            (
                json!({"type": "prize", "round": 1, "prize": 4}),
                "prize: prize 4, round 1",
            ),
            (json!({"type": "game_over"}), "game over"),
            (json!({"own_bid": null}), "own bid —"),
        ];
        for (value, text) in cases {
            assert_eq!(describe(&value), text, "{value}");
        }
    }

    #[test]
    fn lists_with_one_entry_per_seat_are_labelled_by_name() {
        let view = json!({"round": 2, "scores": [3, 5], "hands": [[1, 2], [2, 4]],
            "history": [{"round": 1, "bids": [3, 5]}], "prize": null});
        let seats = ["Ann".to_owned(), "Bob".to_owned()];
        let fields = fields(&view, &seats);
        let by_name = |name: &str| fields.iter().find(|f| f.name == name).expect(name);
        assert_eq!(by_name("round").text.as_deref(), Some("2"));
        assert_eq!(by_name("prize").text.as_deref(), Some("—"));
        let labels = |name: &str| -> Vec<(String, String)> { by_name(name).items.clone() };
        assert_eq!(
            labels("scores"),
            [
                ("Ann".to_owned(), "3".to_owned()),
                ("Bob".to_owned(), "5".to_owned())
            ]
        );
        assert_eq!(labels("hands")[1], ("Bob".to_owned(), "[2, 4]".to_owned()));
        // A list of rounds is not per seat, even with as many entries as seats.
        assert_eq!(
            labels("history"),
            [("1".to_owned(), "bids [3, 5], round 1".to_owned())]
        );
    }

    #[test]
    fn a_leg_s_events_show_what_the_rules_made_public_and_never_an_action() {
        let names = ["Ann".to_owned(), "Bob".to_owned()];
        let event = |kind: &str, data: Value| EventView {
            seq: 0,
            at_ms: 0,
            kind: kind.to_owned(),
            data: serde_json::value::to_raw_value(&data).expect("raw"),
        };
        let events = [
            event("started", json!({"legs": []})),
            event(
                "move",
                json!({"leg": 0, "participant": 0, "action": {"round": 1, "card": 5},
                "events": [{"type": "committed", "round": 1, "seat": 0}]}),
            ),
            event(
                "move",
                json!({"leg": 1, "participant": 1, "action": 7, "events": []}),
            ),
            event(
                "move",
                json!({"leg": 0, "participant": 1, "action": 19, "events": []}),
            ),
            event(
                "deadline",
                json!({"leg": 0, "events": [{"type": "revealed", "bids": [5, 2]}]}),
            ),
            event("leg_finished", json!({"leg": 0, "reason": "completed"})),
        ];
        assert_eq!(
            leg_events(&events, 0, &names),
            [
                "committed: round 1, seat 0",
                "Bob acted",
                "revealed: bids [5, 2]",
                "leg finished: completed"
            ]
        );
        assert_eq!(leg_events(&events, 1, &names), ["Bob acted"]);
    }

    #[test]
    fn a_participant_reads_its_own_secret_action_once() {
        let names = ["Ann".to_owned(), "Bob".to_owned()];
        let event = |kind: &str, data: Value| EventView {
            seq: 0,
            at_ms: 0,
            kind: kind.to_owned(),
            data: serde_json::value::to_raw_value(&data).expect("raw"),
        };
        let said = json!([{"type": "said", "seat": 0}]);
        let shown = |participant: u8, revision: u8, action: Value| {
            json!({"leg": 0, "participant": participant, "revision": revision,
                "action": action, "events": said})
        };
        // Ann's own log: her move and its public copy, then Bob's copy of his at the same
        // revision, then hers again at another revision.
        let events = [
            event("move", shown(0, 3, json!("hi"))),
            event("acted", shown(0, 3, Value::Null)),
            event("acted", shown(1, 3, Value::Null)),
            event("move", shown(0, 4, json!("hi"))),
            event("acted", shown(0, 4, Value::Null)),
        ];
        assert_eq!(leg_events(&events, 0, &names), ["said: seat 0"; 3]);
        // Everyone else reads each action once, from its copy.
        assert_eq!(leg_events(&events[1..3], 0, &names), ["said: seat 0"; 2]);
    }
}
