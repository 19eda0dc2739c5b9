//! A leg's comment stream: what the movers said about their moves, read from the match's
//! event log as the page's reader may read it.
//!
//! A door stores what a mover says about a move as `note` events right after the move
//! (`{"leg", "move_seq", "note", "participant"}`); the arena has already left out every note
//! the reader may not see. The pages show a note's `comment` string alone, as plain text
//! that the templates escape: everything else in a note (an analysis, say) is the door's,
//! free-form, and never shown.

use std::collections::HashMap;

use arbiter_arena::snapshot::EventView;
use serde_json::Value;

/// One comment on a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Comment {
    /// The mover's name.
    pub(crate) name: String,
    /// The number of the leg's action the comment follows, from 1: also the replay's
    /// position just after it.
    pub(crate) ply: usize,
    /// That action in the family's notation, or `move {ply}` where the reader may not see
    /// the action (a secret of a simultaneous phase).
    pub(crate) after: String,
    /// What the mover said, as the door stored it.
    pub(crate) text: String,
}

/// An action of the leg as the comments refer to it.
struct Action {
    ply: usize,
    after: String,
}

/// The comments of leg `leg` in `events` (a match's log as one reader reads it, in order),
/// each with the name of its participant in `participants` and the action it follows, named
/// by `notation`.
pub(crate) fn leg_comments(
    events: &[EventView],
    leg: usize,
    participants: &[String],
    notation: &dyn Fn(&Value) -> String,
) -> Vec<Comment> {
    // Comments are notes' alone: a log without a note (most of them) has none, and is not
    // read event by event, which every fetch of a long match's page would pay for.
    if !events.iter().any(|event| event.kind == "note") {
        return Vec::new();
    }
    let mut comments = Vec::new();
    // The leg's actions by the sequence number of their `move` event, which a note names,
    // and the latest of each participant's, for a note whose move the reader cannot see.
    let mut by_seq: HashMap<i64, usize> = HashMap::new();
    let mut actions: Vec<Action> = Vec::new();
    let mut latest: HashMap<u64, usize> = HashMap::new();
    // The previous event's sequence number, kind and mover in this leg: a secret action
    // reaches its mover as a `move` followed at once by the `acted` everyone else gets,
    // and it is one action, counted once.
    let mut previous: Option<(i64, &str, u64)> = None;
    for event in events {
        // The data is the arena's or a door's, so it is read here as JSON; data that does
        // not parse says nothing about the leg.
        let Ok(data) = serde_json::from_str::<Value>(event.data.get()) else {
            continue;
        };
        if data["leg"].as_u64().and_then(|l| usize::try_from(l).ok()) != Some(leg) {
            continue;
        }
        let participant = data["participant"].as_u64();
        match (event.kind.as_str(), participant) {
            // A free action (a draw offer, a chat line) moves nothing on, as the replay's
            // positions do not: its comments go with the mover's latest action.
            ("move" | "acted", Some(_)) if data["free"] == true => {}
            ("move" | "acted", Some(mover)) => {
                let repeated = event.kind == "acted"
                    && previous.is_some_and(|(seq, kind, who)| {
                        kind == "move" && who == mover && seq + 1 == event.seq
                    });
                if !repeated {
                    let ply = actions.len() + 1;
                    let after = match &data["action"] {
                        Value::Null => format!("move {ply}"),
                        action => notation(action),
                    };
                    actions.push(Action { ply, after });
                }
                let index = actions.len() - 1;
                by_seq.insert(event.seq, index);
                latest.insert(mover, index);
                previous = Some((event.seq, event.kind.as_str(), mover));
            }
            ("note", Some(mover)) => {
                let Some(text) = data["note"]["comment"].as_str() else {
                    continue;
                };
                let action = data["move_seq"]
                    .as_i64()
                    .and_then(|seq| by_seq.get(&seq))
                    .or_else(|| latest.get(&mover))
                    .and_then(|&index| actions.get(index));
                let Some(action) = action else { continue };
                let name = usize::try_from(mover)
                    .ok()
                    .and_then(|p| participants.get(p))
                    .map_or("?", String::as_str);
                comments.push(Comment {
                    name: name.to_owned(),
                    ply: action.ply,
                    after: action.after.clone(),
                    text: text.to_owned(),
                });
            }
            _ => {}
        }
    }
    comments
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(seq: i64, kind: &str, data: Value) -> EventView {
        EventView {
            seq,
            at_ms: 0,
            kind: kind.to_owned(),
            data: serde_json::value::to_raw_value(&data).expect("raw"),
        }
    }

    fn stone(action: &Value) -> String {
        format!("{},{}", action["x"], action["y"])
    }

    fn note(seq: i64, move_seq: i64, participant: u64, note: Value) -> EventView {
        event(
            seq,
            "note",
            json!({"leg": 0, "move_seq": move_seq, "note": note, "participant": participant}),
        )
    }

    #[test]
    fn comments_name_their_mover_and_move_and_nothing_else_of_a_note() {
        let names = ["Ann".to_owned(), "Bob".to_owned()];
        let moved = |seq, participant, x, y| {
            event(
                seq,
                "move",
                json!({"leg": 0, "participant": participant, "action": {"x": x, "y": y}}),
            )
        };
        let events = [
            event(1, "started", json!({"legs": []})),
            moved(2, 0, 7, 7),
            note(
                3,
                2,
                0,
                json!({"comment": "<b>centre</b>", "analysis": {"eval": 1}}),
            ),
            note(4, 2, 0, json!({"private_analysis": {"eval": 2}})),
            moved(5, 1, 8, 8),
            note(6, 5, 1, json!({"analysis": {"eval": 3}})),
            event(
                7,
                "move",
                json!({"leg": 1, "participant": 0, "action": {"x": 1, "y": 1}}),
            ),
            event(
                8,
                "note",
                json!({"leg": 1, "move_seq": 7, "participant": 0, "note": {"comment": "other leg"}}),
            ),
            event(
                9,
                "move",
                json!({"leg": 0, "participant": 1, "action": {"draw": true}, "free": true}),
            ),
            moved(10, 0, 6, 6),
            note(11, 10, 0, json!({"comment": "again"})),
        ];
        let comment = |name: &str, ply, after: &str, text: &str| Comment {
            name: name.to_owned(),
            ply,
            after: after.to_owned(),
            text: text.to_owned(),
        };
        assert_eq!(
            leg_comments(&events, 0, &names, &stone),
            [
                comment("Ann", 1, "7,7", "<b>centre</b>"),
                comment("Ann", 3, "6,6", "again"),
            ]
        );
        assert_eq!(
            leg_comments(&events, 1, &names, &stone),
            [comment("Ann", 1, "1,1", "other leg")]
        );
    }

    #[test]
    fn a_secret_action_is_counted_once_and_named_only_where_the_reader_sees_it() {
        let names = ["Ann".to_owned(), "Bob".to_owned()];
        let secret = json!({"leg": 0, "participant": 1, "action": {"card": 4}});
        let acted = json!({"leg": 0, "participant": 1, "action": null});
        let first = json!({"leg": 0, "participant": 0, "action": null});
        let card = |action: &Value| format!("card {}", action["card"]);
        // (whose log, its events, the comment's move)
        let cases = [
            (
                "the mover's",
                vec![
                    event(1, "acted", first.clone()),
                    event(2, "move", secret),
                    event(3, "acted", acted.clone()),
                    note(4, 2, 1, json!({"comment": "four"})),
                ],
                (2, "card 4"),
            ),
            (
                "everyone else's",
                vec![
                    event(1, "acted", first),
                    event(3, "acted", acted),
                    note(4, 2, 1, json!({"comment": "four"})),
                ],
                (2, "move 2"),
            ),
        ];
        for (whose, events, (ply, after)) in cases {
            let comments = leg_comments(&events, 0, &names, &card);
            assert_eq!(comments.len(), 1, "{whose}");
            assert_eq!(
                (comments[0].ply, comments[0].after.as_str()),
                (ply, after),
                "{whose}"
            );
            assert_eq!(comments[0].name, "Bob", "{whose}");
        }
    }
}
