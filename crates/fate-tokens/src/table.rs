//! Fate Tokens' interactive table for people on the web pages, beside the board's drawing
//! (`board.rs`): the actions composed in forms (the night form, the same for every role;
//! claims; chat), the prompt saying what to do now, the phase's deadline, and the chat and
//! announcements as lines.
//!
//! Everything is read from the viewer's own view, so a form, a prompt or a line can hold
//! nothing the viewer may not see; labels and prompts are fixed text and seat numbers.

use arbiter_plugin::{ActionForm, Choice, EventLine, FieldKind, FormField};
use arbiter_rules::Seat;
use serde_json::{Value, json};

use crate::board::{phase_name, reason_name, token_name};
use crate::rules::MAX_CHAT_CHARS;
use crate::setup::Token;
use crate::state::{Life, PhaseKind, Side, WinReason};
use crate::view::{FateView, OwnView};

/// A seat as the pages name it, numbered from 1.
fn seat_label(seat: Seat) -> String {
    format!("Seat {}", u32::from(seat.0) + 1)
}

/// The seats a choice may name: every seat of `view` that `keep` keeps, as choices of their
/// numbers.
fn seat_choices(view: &FateView, keep: impl Fn(Seat, Life) -> bool) -> Vec<Choice> {
    view.seats
        .iter()
        .filter(|s| keep(s.seat, s.life))
        .map(|s| Choice::new(seat_label(s.seat), json!(s.seat.0)))
        .collect()
}

/// The viewer's own part, where the viewer is seated.
fn own(view: &FateView) -> Option<&OwnView> {
    view.own.as_ref()
}

/// Whether the viewer's seat owes a decision now.
fn owes(view: &FateView, own: &OwnView) -> bool {
    view.pending.contains(&own.seat) && view.finish.is_none()
}

fn life_of(view: &FateView, seat: Seat) -> Option<Life> {
    view.seats.iter().find(|s| s.seat == seat).map(|s| s.life)
}

/// The forms the viewer may use now: the night form while they owe it, a claim while a
/// claim is open to them, and chat while they may write.
pub(crate) fn forms(view: &FateView) -> Vec<ActionForm> {
    let Some(own) = own(view) else {
        return Vec::new();
    };
    let mut forms = Vec::new();
    if view.phase == PhaseKind::Night && owes(view, own) && own.night_form.is_none() {
        forms.push(night_form(view, own));
    }
    if let Some(claim) = claim_form(view, own) {
        forms.push(claim);
    }
    if let Some(chat) = chat_form(view, own) {
        forms.push(chat);
    }
    forms
}

/// The night form (rule 11.2): the same fields for every living player and every ghost
/// (rule 22.4), those the viewer may not use tonight unusable (rule 11.3).
fn night_form(view: &FateView, own: &OwnView) -> ActionForm {
    let me = own.seat;
    let a = &own.form;
    let others = seat_choices(view, |s, life| s != me && life == Life::Living);
    let living = seat_choices(view, |_, life| life == Life::Living);
    let with_none = |choices: &[Choice]| {
        let mut all = vec![Choice::new("Nobody", Value::Null)];
        all.extend(choices.iter().cloned());
        all
    };
    let first_two: Vec<Value> = others.iter().take(2).map(|c| c.value.clone()).collect();
    let helper = if a.helper {
        json!({"targets": first_two, "good": false, "neutral": false})
    } else {
        Value::Null
    };
    let any_fate = a.peek || a.bless || a.curse || a.pathfinder;
    let any_ghost = a.ghost_eye || a.ghost_curse;
    let fate = vec![
        Choice::new("None", Value::Null),
        Choice::new("Peek", json!({"kind": "peek"})).usable(a.peek),
        Choice::new("Bless", json!({"kind": "bless"})).usable(a.bless),
        Choice::new("Curse", json!({"kind": "curse"})).usable(a.curse),
        Choice::new("Pathfinder", json!({"kind": "pathfinder"})).usable(a.pathfinder),
    ];
    let ghost = vec![
        Choice::new("None", Value::Null),
        Choice::new("Ghost's Eye", json!({"kind": "eye"})).usable(a.ghost_eye),
        Choice::new("Ghost's Curse", json!({"kind": "curse"})).usable(a.ghost_curse),
    ];
    let field = |pointer: &str, label: &str, kind: FieldKind, usable: bool| FormField {
        pointer: pointer.to_owned(),
        label: label.to_owned(),
        kind,
        usable,
    };
    ActionForm {
        key: "night",
        title: if a.helper {
            "Night form: tonight is a helper night".to_owned()
        } else {
            "Night form".to_owned()
        },
        submit: "Send the night form".to_owned(),
        free: false,
        template: json!({
            "type": "night",
            "phase": view.phase_number,
            "form": {
                "mark": null,
                "talisman": false,
                "guard": null,
                "fate": null,
                "helper": helper,
                "ghost": null,
            },
        }),
        fields: vec![
            field(
                "/form/mark",
                "Suspicion mark",
                FieldKind::Choice(with_none(&others)),
                a.mark,
            ),
            field(
                "/form/talisman",
                "Use the talisman",
                FieldKind::Check,
                a.talisman,
            ),
            field(
                "/form/guard",
                "Guard",
                FieldKind::Choice(with_none(&others)),
                a.guard,
            ),
            field(
                "/form/fate",
                "Fate action",
                FieldKind::Choice(fate),
                any_fate,
            ),
            field(
                "/form/fate/target",
                "Fate action on",
                FieldKind::Choice(others.clone()),
                any_fate,
            ),
            field(
                "/form/helper/targets",
                "Helper: two players",
                FieldKind::Pick {
                    choices: others,
                    count: 2,
                },
                a.helper,
            ),
            field(
                "/form/helper/good",
                "Helper: add the Good count",
                FieldKind::Check,
                a.helper,
            ),
            field(
                "/form/helper/neutral",
                "Helper: add the Neutral count",
                FieldKind::Check,
                a.helper,
            ),
            field(
                "/form/ghost",
                "Ghost action",
                FieldKind::Choice(ghost),
                any_ghost,
            ),
            field(
                "/form/ghost/target",
                "Ghost action on",
                FieldKind::Choice(living),
                any_ghost,
            ),
        ],
    }
}

/// A claim (section 17), while one is open to the viewer: a CF names their helper pair, a GF
/// or GM any two other players who were living that night (those the view shows were: living
/// or exiled now, or exiled by a vote since), and a number up to the pair's pile sizes then.
fn claim_form(view: &FateView, own: &OwnView) -> Option<ActionForm> {
    let right = own.claim?;
    let night = right.round;
    let pile_then = |seat: Seat| {
        view.seats.iter().find(|s| s.seat == seat).map_or(0, |s| {
            u32::try_from(s.pile_size).unwrap_or(u32::MAX).min(night)
        })
    };
    let (pair_field, template_pair, max) = match right.pair {
        Some(pair) => (
            None,
            json!([pair[0].0, pair[1].0]),
            pile_then(pair[0]) + pile_then(pair[1]),
        ),
        None => {
            let exiled_since = |seat: Seat| {
                view.trials
                    .iter()
                    .any(|t| t.accused == seat && t.round >= night && t.exiled == Some(true))
            };
            let eligible: Vec<Seat> = view
                .seats
                .iter()
                .filter(|s| {
                    s.seat != own.seat
                        && (matches!(s.life, Life::Living | Life::Exiled) || exiled_since(s.seat))
                })
                .map(|s| s.seat)
                .collect();
            if eligible.len() < 2 {
                return None;
            }
            let mut piles: Vec<u32> = eligible.iter().map(|&s| pile_then(s)).collect();
            piles.sort_unstable_by(|a, b| b.cmp(a));
            let choices = eligible
                .iter()
                .map(|&s| Choice::new(seat_label(s), json!(s.0)))
                .collect();
            (
                Some(FormField {
                    pointer: "/pair".to_owned(),
                    label: "Two players".to_owned(),
                    kind: FieldKind::Pick { choices, count: 2 },
                    usable: true,
                }),
                json!([eligible[0].0, eligible[1].0]),
                piles[0] + piles[1],
            )
        }
    };
    let numbers = (0..=max)
        .map(|n| Choice::new(n.to_string(), json!(n)))
        .collect();
    let mut fields: Vec<FormField> = pair_field.into_iter().collect();
    fields.push(FormField {
        pointer: "/bad".to_owned(),
        label: "Bad tokens found".to_owned(),
        kind: FieldKind::Choice(numbers),
        usable: true,
    });
    let title = match right.pair {
        Some(pair) => format!(
            "Claim your helper's count for night {night}: {} and {}",
            seat_label(pair[0]),
            seat_label(pair[1])
        ),
        None => format!("Claim a helper's count for night {night}"),
    };
    Some(ActionForm {
        key: "claim",
        title,
        submit: "Claim".to_owned(),
        free: true,
        template: json!({"type": "claim", "pair": template_pair, "bad": 0}),
        fields,
    })
}

/// Chat (section 20) while the viewer may write: a living player in the Everyone channel, a
/// ghost in the Ghosts channel. The channel is chosen only where the view shows the Ghosts
/// channel (a ghost, or a living awakened GM, who reads it but may not write in it).
fn chat_form(view: &FateView, own: &OwnView) -> Option<ActionForm> {
    if view.phase == PhaseKind::Over {
        return None;
    }
    let channel = match life_of(view, own.seat)? {
        Life::Living => "everyone",
        Life::Ghost => "ghosts",
        Life::Out | Life::Exiled => return None,
    };
    let mut fields = Vec::new();
    if view.ghost_chat.is_some() {
        fields.push(FormField {
            pointer: "/channel".to_owned(),
            label: "Channel".to_owned(),
            kind: FieldKind::Choice(vec![
                Choice::new("Everyone", json!("everyone")).usable(channel == "everyone"),
                Choice::new("Ghosts", json!("ghosts")).usable(channel == "ghosts"),
            ]),
            usable: true,
        });
    }
    fields.push(FormField {
        pointer: "/text".to_owned(),
        label: "Message".to_owned(),
        kind: FieldKind::Text {
            max_chars: MAX_CHAT_CHARS,
        },
        usable: true,
    });
    Some(ActionForm {
        key: "chat",
        title: if channel == "ghosts" {
            "Chat with the ghosts".to_owned()
        } else {
            "Chat".to_owned()
        },
        submit: "Say".to_owned(),
        free: true,
        template: json!({"type": "chat", "channel": channel, "text": ""}),
        fields,
    })
}

/// What the viewer is to do now, in fixed text and seat numbers.
pub(crate) fn prompt(view: &FateView) -> Option<String> {
    let own = own(view)?;
    if view.finish.is_some() {
        return Some("The game is over: every role is revealed.".to_owned());
    }
    let life = life_of(view, own.seat)?;
    if !owes(view, own) {
        if own.claim.is_some() && life == Life::Living {
            return Some("You may claim your helper's count now.".to_owned());
        }
        return match (view.phase, life) {
            (_, Life::Out) => Some("You are out: you watch the rest of the game.".to_owned()),
            (PhaseKind::Discussion | PhaseKind::Trial, Life::Living) => {
                Some("Talk with the table; the others are getting ready.".to_owned())
            }
            _ => Some("Wait for the others.".to_owned()),
        };
    }
    let accused = view.trials.last().filter(|t| t.round == view.round);
    let text = match view.phase {
        PhaseKind::Draw => "Draw two tokens from your bag, then reveal one of them.".to_owned(),
        PhaseKind::Discussion => "Discuss with the table, then press Ready.".to_owned(),
        PhaseKind::Accusation => "Accuse a player by tapping their seat, or pass.".to_owned(),
        PhaseKind::Night if life == Life::Ghost => {
            "Night: as a ghost, use the Eye or the Curse, or nothing.".to_owned()
        }
        PhaseKind::Night if own.form.helper => {
            "Night: fill in your night form. Tonight your helper must name two players.".to_owned()
        }
        PhaseKind::Night => "Night: fill in your night form and send it.".to_owned(),
        PhaseKind::Trial => match accused {
            Some(t) => format!(
                "Trial of {}: discuss, then press Ready.",
                seat_label(t.accused)
            ),
            None => "Trial: discuss, then press Ready.".to_owned(),
        },
        PhaseKind::Vote => match accused {
            Some(t) => format!("Vote in secret: exile {}?", seat_label(t.accused)),
            None => "Vote in secret.".to_owned(),
        },
        PhaseKind::ClaimCounter if own.counter_right == Some(true) => {
            "You hold the counter right: name the Great Fortune, or decline.".to_owned()
        }
        PhaseKind::ClaimCounter => "You were exiled: decline to go on.".to_owned(),
        PhaseKind::Ending | PhaseKind::Over => return None,
    };
    Some(text)
}

/// The lock's end while the table is locked, else the phase's deadline.
pub(crate) fn deadline_ms(view: &FateView) -> Option<i64> {
    let at = match view.deadline_ms {
        Some(deadline) => deadline.max(view.opens_at_ms),
        None => view.opens_at_ms,
    };
    (view.phase != PhaseKind::Over).then(|| i64::try_from(at).unwrap_or(i64::MAX))
}

/// A chat event as a line with its speaker's name; the game's public announcements in words
/// of their own (and not again as the rules' system lines in the chat). Other events keep the pages' generic description.
pub(crate) fn event_line(event: &Value, names: &[String]) -> Option<Option<EventLine>> {
    if event["type"] != "chat" {
        return announcement(event).map(|text| {
            text.map(|text| EventLine {
                speaker: None,
                text,
            })
        });
    }
    let line = &event["line"];
    // The rules' own announcements in the chat (rule 20.3) each follow the public event they
    // announce, which reads in words above, its seats numbered as on the table.
    if line["seat"].is_null() {
        return Some(None);
    }
    let text = line["text"].as_str()?.to_owned();
    let ghosts = event["channel"] == "ghosts";
    let speaker = match line["seat"].as_u64() {
        Some(seat) => {
            let name = usize::try_from(seat)
                .ok()
                .and_then(|s| names.get(s))
                .cloned()
                .unwrap_or_else(|| format!("Seat {}", seat + 1));
            Some(if ghosts {
                format!("{name} (to the ghosts)")
            } else {
                name
            })
        }
        None => None,
    };
    Some(Some(EventLine { speaker, text }))
}

/// A seat's number in a public event, as the pages name it.
fn seat_in(value: &Value) -> Option<String> {
    let seat = u8::try_from(value.as_u64()?).ok()?;
    Some(seat_label(Seat(seat)))
}

/// A value of one of the rules' enums in a public event, read back.
fn enum_in<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
    serde_json::from_value(value.clone()).ok()
}

/// A number in a public event.
fn count_in(value: &Value) -> Option<u64> {
    value.as_u64()
}

/// The game's public announcements in words, from the event's numbers and enums alone (never
/// a string of it): `None` for an event this does not know, which the pages describe
/// generically; `Some(None)` for one not worth a line (the end of a lock, which the phase
/// clock shows; a seat's submission, one of many a phase).
fn announcement(event: &Value) -> Option<Option<String>> {
    let text = match event["type"].as_str()? {
        "started" => "The game begins: every player gets a secret role and a bag.".to_owned(),
        "unlocked" => return Some(None),
        "round_started" => format!("Round {} begins.", count_in(&event["round"])?),
        "phase_opened" => {
            let kind: PhaseKind = enum_in(&event["kind"])?;
            let round = count_in(&event["round"])?;
            match kind {
                PhaseKind::Ending => "The game is decided: every role is revealed.".to_owned(),
                PhaseKind::Over => "The game is over.".to_owned(),
                kind => format!("Round {round}: the {} begins.", phase_name(kind)),
            }
        }
        // A line for every seat's every decision would drown the table talk.
        "submitted" => return Some(None),
        "ready" => format!("{} is ready.", seat_in(&event["seat"])?),
        "draw_resolved" => {
            let shown: Vec<String> = event["revealed"]
                .as_array()?
                .iter()
                .enumerate()
                .filter_map(|(seat, token)| {
                    let token: Token = enum_in(token)?;
                    let seat = u8::try_from(seat).ok()?;
                    Some(format!("{} {}", seat_label(Seat(seat)), token_name(token)))
                })
                .collect();
            format!(
                "Round {}'s draw shows: {}.",
                count_in(&event["round"])?,
                shown.join(", ")
            )
        }
        "night_resolved" => night_words(event)?,
        "vote_resolved" => format!(
            "The vote on {}: {} yes, {} no; {}.",
            seat_in(&event["accused"])?,
            count_in(&event["yes"])?,
            count_in(&event["no"])?,
            if event["exiled"].as_bool()? {
                "exiled"
            } else {
                "not exiled"
            }
        ),
        "exile_resolved" => {
            let seat = seat_in(&event["seat"])?;
            if event["was_great_misfortune"].as_bool()? {
                let counter = match &event["counter"] {
                    Value::Null => "did not strike back".to_owned(),
                    named => format!("struck back, naming {}", seat_in(named)?),
                };
                format!("{seat} was a Great Misfortune, and {counter}.")
            } else {
                format!("{seat} was not a Great Misfortune, and is a ghost now.")
            }
        }
        "claimed" => {
            let pair = event["pair"].as_array()?;
            format!(
                "{} claims that on night {} their helper found {} Bad in {} and {}.",
                seat_in(&event["claimant"])?,
                count_in(&event["round"])?,
                count_in(&event["bad"])?,
                seat_in(pair.first()?)?,
                seat_in(pair.get(1)?)?
            )
        }
        "left" => format!(
            "{} left the table; their decisions take their defaults.",
            seat_in(&event["seat"])?
        ),
        "decided" => {
            let winner: Side = enum_in(&event["winner"])?;
            let reason: WinReason = enum_in(&event["reason"])?;
            format!(
                "{} wins: {}.",
                match winner {
                    Side::Good => "The Good side",
                    Side::Misfortune => "The Misfortune side",
                },
                reason_name(reason)
            )
        }
        "over" => "The game is over.".to_owned(),
        _ => return None,
    };
    Some(Some(text))
}

/// The night's public announcements (step N7) in words.
fn night_words(event: &Value) -> Option<String> {
    let mut parts = Vec::new();
    for failed in event["failed_pathfinders"].as_array()? {
        parts.push(format!(
            "{}'s pathfinder named {}, who is not the Great Fortune, and {} is a ghost now",
            seat_in(&failed[0])?,
            seat_in(&failed[1])?,
            seat_in(&failed[0])?
        ));
    }
    if event["guard_used"].as_bool()? {
        parts.push("the guard was used".to_owned());
    }
    for reveal in event["reveals"].as_array()? {
        parts.push(format!(
            "{} passed the threshold and shows {} of their tokens",
            seat_in(&reveal[0])?,
            count_in(&reveal[1])?
        ));
    }
    let marks: Vec<String> = event["marks"]
        .as_array()?
        .iter()
        .enumerate()
        .filter_map(|(seat, marks)| {
            let marks = count_in(marks)?;
            let seat = u8::try_from(seat).ok()?;
            (marks > 0).then(|| format!("{} {marks}", seat_label(Seat(seat))))
        })
        .collect();
    if !marks.is_empty() {
        parts.push(format!("marks: {}", marks.join(", ")));
    }
    let accusation = &event["accusation"];
    if !accusation.is_null() {
        let price: Token = enum_in(&accusation["price"])?;
        parts.push(format!(
            "{} accuses {}, at the price of a {} token",
            seat_in(&accusation["accuser"])?,
            seat_in(&accusation["accused"])?,
            token_name(price)
        ));
    }
    let round = count_in(&event["round"])?;
    Some(if parts.is_empty() {
        format!("Night {round} passes quietly.")
    } else {
        format!("Night {round}: {}.", parts.join("; "))
    })
}

#[cfg(test)]
mod tests;
