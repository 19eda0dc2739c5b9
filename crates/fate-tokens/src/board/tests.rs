use arbiter_plugin::{BoardOptions, BoardRenderer};
use arbiter_rules::{Seat, Viewer};
use serde_json::{Value, json};

use super::Board;
use crate::selfplay::{RuleBots, play_observed};
use crate::setup::Token;
use crate::state::{ChatLine, FateState, Life, PhaseKind, Verdict};
use crate::view;

/// A game the rule bots played: a state in round 3's discussion, if it got there, and the
/// state of the game once over.
struct Played {
    middle: Option<FateState>,
    end: FateState,
}

fn play(players: u8, seed: u64) -> Played {
    let mut middle = None;
    let mut end = None;
    let mut observe = |state: &FateState| {
        if middle.is_none() && state.round() == 3 && state.phase_kind() == PhaseKind::Discussion {
            middle = Some(state.clone());
        }
        end = Some(state.clone());
    };
    play_observed(players, seed, &RuleBots, &[], &mut observe).expect("a game");
    Played {
        middle,
        end: end.expect("a state"),
    }
}

/// A handful of games of several sizes.
fn games() -> Vec<Played> {
    [(4, 1), (5, 2), (6, 3), (7, 4), (8, 5), (6, 11)]
        .into_iter()
        .map(|(players, seed)| play(players, seed))
        .collect()
}

/// Every viewer of a state: each seat, a spectator and the omniscient viewer.
fn viewers(state: &FateState) -> Vec<Viewer> {
    let seats = state.players.len();
    (0..seats)
        .filter_map(|s| u8::try_from(s).ok())
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator, Viewer::Omniscient])
        .collect()
}

fn view_json(state: &FateState, viewer: Viewer) -> Value {
    serde_json::to_value(view::build(state, viewer)).expect("JSON")
}

fn svg(state: &FateState, viewer: Viewer) -> String {
    Board.svg(&view_json(state, viewer), BoardOptions::default())
}

/// Checks that `svg` is one `<svg>` element whose tags all close in order, and that no text
/// or attribute holds a stray `<` or `>`.
fn assert_well_formed(svg: &str) {
    assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"), "{svg}");
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').expect("a closed tag") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "{tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "{svg}");
        } else {
            let name = tag.split([' ', '/']).next().expect("a name");
            if stack.is_empty() {
                roots += 1;
                assert_eq!(name, "svg");
            }
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        rest = &rest[close + 1..];
        let text_end = rest.find('<').unwrap_or(rest.len());
        assert!(!rest[..text_end].contains('>'), "{svg}");
    }
    assert!(stack.is_empty(), "{stack:?}");
    assert_eq!(roots, 1);
}

/// The text between tags, every piece of it.
fn texts(svg: &str) -> Vec<&str> {
    svg.split('>')
        .filter_map(|piece| piece.split('<').next())
        .filter(|text| !text.is_empty())
        .collect()
}

#[test]
fn every_view_of_every_game_draws_well_formed_svg() {
    for played in games() {
        for state in played.middle.iter().chain([&played.end]) {
            for viewer in viewers(state) {
                let drawing = svg(state, viewer);
                assert_well_formed(&drawing);
                // The end screen is drawn once the game is decided, for every viewer alike.
                let over = state.finish().is_some();
                assert_eq!(drawing.contains("<polyline"), over, "{viewer:?}");
            }
        }
    }
    for not_a_view in [Value::Null, json!({"board": ["X"]}), json!({"seats": []})] {
        let drawing = Board.svg(&not_a_view, BoardOptions::default());
        assert_well_formed(&drawing);
        assert!(Board.tallies(&not_a_view).is_empty());
        assert!(Board.history(&not_a_view).is_empty());
    }
}

#[test]
fn no_text_of_the_view_reaches_the_drawing() {
    let chat = "<script>alert('Seat 2 is the Great Fortune')</script>";
    for played in games() {
        for state in played.middle.iter().chain([&played.end]) {
            let mut state = state.clone();
            for seat in [None, Some(Seat(0)), Some(Seat(1))] {
                let line = ChatLine {
                    seat,
                    round: state.round,
                    text: chat.to_owned(),
                };
                state.everyone_chat.push(line.clone());
                state.ghost_chat.push(line);
            }
            for viewer in viewers(&state) {
                let drawing = svg(&state, viewer);
                assert_well_formed(&drawing);
                for word in ["script", "alert", "'"] {
                    assert!(!drawing.contains(word), "{word} in {drawing}");
                }
                // Every text is fixed words and numbers.
                for text in texts(&drawing) {
                    assert!(
                        text.chars()
                            .all(|c| c.is_ascii_alphanumeric() || " .,:%'·-".contains(c)),
                        "{text}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_seat_s_drawing_does_not_move_when_another_seat_s_secrets_do() {
    let mut checked = 0;
    for played in games() {
        let Some(state) = &played.middle else {
            continue;
        };
        let seats = state.players.len();
        for other in 0..seats {
            let mut changed = state.clone();
            let p = &mut changed.players[other];
            // Every slot the threshold has not revealed changes kind, and the bag grows.
            let mut moved = false;
            for (i, slot) in p.pile.iter_mut().enumerate() {
                if !p.exposed_slots.contains(&i) {
                    slot.token = match slot.token {
                        Token::Good => Token::Bad,
                        Token::Neutral => Token::Good,
                        Token::Bad => Token::Neutral,
                    };
                    moved = true;
                }
            }
            p.bag = p.bag.with_added(Token::Bad);
            if !p.awakened {
                p.awakening_round += 1;
            }
            for viewer in viewers(state) {
                let mine = matches!(viewer, Viewer::Seat(s) if s.index() == other);
                if mine || viewer == Viewer::Omniscient {
                    continue;
                }
                assert_eq!(
                    svg(state, viewer),
                    svg(&changed, viewer),
                    "{viewer:?}, seat {other}"
                );
                checked += 1;
            }
            if moved {
                // The change is one the drawing would show to whoever may see it.
                assert_ne!(
                    svg(state, Viewer::Omniscient),
                    svg(&changed, Viewer::Omniscient)
                );
            }
        }
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn the_end_screen_draws_a_line_per_seat_and_cracks_exactly_the_false_claims() {
    let (mut claims, mut false_claims) = (0, 0);
    for played in games() {
        let state = &played.end;
        let seats = state.players.len();
        let verdicts = state.verdicts();
        let wrong = verdicts
            .iter()
            .filter(|j| j.verdict != Verdict::Honest)
            .count();
        claims += verdicts.len();
        false_claims += wrong;
        for viewer in viewers(state) {
            let drawing = svg(state, viewer);
            assert_eq!(drawing.matches("<polyline").count(), seats, "{viewer:?}");
            for seat in 1..=seats {
                assert!(drawing.contains(&format!(r#"data-seat="{seat}" points="#)));
            }
            assert_eq!(drawing.matches(r#"<g class="claim false">"#).count(), wrong);
            assert_eq!(drawing.matches(r#"class="cracked""#).count(), wrong);
            assert_eq!(
                drawing.matches(r#"<g class="claim honest">"#).count(),
                verdicts.len() - wrong
            );
            // Every role is shown, and every pile slot face up.
            assert_eq!(drawing.matches(r#"class="role""#).count(), seats);
            assert!(!drawing.contains("slot hidden"));
        }
        // During the game the claims are listed without a verdict.
        if let Some(middle) = &played.middle {
            let drawing = svg(middle, Viewer::Spectator);
            assert!(!drawing.contains("cracked") && !drawing.contains("honest"));
            assert_eq!(
                drawing.matches(r#"<g class="claim">"#).count(),
                middle.claims.len()
            );
        }
    }
    assert!(
        claims > 0 && false_claims > 0,
        "{claims} claims, {false_claims} false"
    );
}

/// The first game the rule bots play, among a few sizes and seeds, with an exile and a
/// failed pathfinder.
fn game_with_an_exile_and_a_failed_pathfinder() -> FateState {
    for seed in 0..200 {
        let players = 4 + u8::try_from(seed % 5).expect("small");
        let end = play(players, seed).end;
        let exiled = end.trials.iter().any(|t| t.exiled);
        let failed = end.nights.iter().any(|night| {
            night.forms.iter().flatten().any(|form| {
                matches!(form.fate, Some(crate::night::Fate::Pathfinder(t))
                    if end.players[t.index()].role != crate::setup::Role::GreatFortune)
            })
        });
        if exiled && failed {
            return end;
        }
    }
    panic!("no game with an exile and a failed pathfinder");
}

#[test]
fn markers_show_awakenings_exiles_ghosts_and_pathfinders() {
    let end = game_with_an_exile_and_a_failed_pathfinder();
    let drawing = svg(&end, Viewer::Spectator);
    assert_well_formed(&drawing);
    let exiles = end.trials.iter().filter(|t| t.exiled).count();
    assert_eq!(drawing.matches("marker exile").count(), exiles);
    assert!(drawing.contains("marker pathfinder failed"));
    assert!(drawing.contains("marker ghost"));
    let awakened = end.players.iter().filter(|p| p.awakened).count();
    assert_eq!(drawing.matches("marker awakening").count(), awakened);
    // A ghost's card says so.
    let ghosts = end.players.iter().filter(|p| p.life == Life::Ghost).count();
    assert_eq!(
        drawing.matches("<g class=\"seat ").count(),
        end.players.len()
    );
    assert_eq!(
        drawing.matches(" ghost\"><rect").count() + drawing.matches(" ghost you\"><rect").count(),
        ghosts
    );
}

#[test]
fn the_table_shows_the_viewer_s_own_pile_and_others_reveals_only() {
    let played = play(6, 3);
    let state = played.middle.expect("round 3");
    for seat in 0..6u8 {
        let drawing = svg(&state, Viewer::Seat(Seat(seat)));
        let others_hidden: usize = state
            .players
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != usize::from(seat))
            .map(|(_, p)| p.pile.len() - p.exposed_slots.len())
            .sum();
        assert_eq!(drawing.matches("slot hidden").count(), others_hidden);
        assert!(drawing.contains(" you\"><rect"));
        let exposed = state.players[usize::from(seat)].exposed_slots.len();
        assert_eq!(
            drawing.matches("exposed-count").count(),
            usize::from(exposed > 0)
        );
    }
    let spectator = svg(&state, Viewer::Spectator);
    let hidden: usize = state
        .players
        .iter()
        .map(|p| p.pile.len() - p.exposed_slots.len())
        .sum();
    assert_eq!(spectator.matches("slot hidden").count(), hidden);
    assert!(!spectator.contains(" you\""));
    assert!(!spectator.contains("class=\"role\""));
}

#[test]
fn tallies_names_history_and_notation() {
    let played = play(6, 3);
    let state = &played.end;
    let view = view_json(state, Viewer::Spectator);
    let tallies = Board.tallies(&view);
    let good: Vec<u64> = state
        .players
        .iter()
        .map(|p| {
            let n = p.revealed.iter().filter(|&&t| t == Token::Good).count();
            u64::try_from(n).expect("small")
        })
        .collect();
    assert_eq!(tallies, good);
    assert_eq!(Board.seat_names().len(), 8);
    assert_eq!(Board.seat_names()[0], "Seat 1");
    assert_eq!(Board.seat_names_in(&view), &Board.seat_names()[..6]);
    let history = Board.history(&view);
    assert_eq!(history.len(), state.trials.len() + state.claims.len());
    assert!(
        history
            .iter()
            .all(|line| line.starts_with("Round ") || line.starts_with("Night "))
    );
    let cases = [
        (
            json!({"type": "night", "phase": 4, "form": {"mark": 2}}),
            "night",
        ),
        (
            json!({"type": "chat", "channel": "everyone", "text": "<script>"}),
            "chat",
        ),
        (
            json!({"type": "vote", "phase": 12, "yes": true}),
            "Vote yes: exile",
        ),
        (
            json!({"type": "claim", "pair": [2, 4], "bad": 1}),
            "claim 2,4:1",
        ),
    ];
    for (action, written) in cases {
        assert_eq!(Board.notation(&view, &action), written);
    }
}

#[test]
fn a_person_draws_and_accuses_on_the_table() {
    let (mut draws, mut accusations) = (0, 0);
    let mut observe = |state: &FateState| {
        if state.locked || state.finish().is_some() {
            return;
        }
        for seat in state.pending().iter() {
            let view = view_json(state, Viewer::Seat(seat));
            let playable = BoardOptions {
                hints: true,
                playable: true,
                seat: Some(seat.0),
            };
            let drawing = Board.svg(&view, playable);
            assert_well_formed(&drawing);
            let still = Board.svg(&view, BoardOptions::default());
            assert!(!still.contains("class=\"play") && !still.contains("data-bag"));
            match state.phase_kind() {
                PhaseKind::Draw => {
                    draws += 1;
                    assert!(drawing.contains("data-bag"), "{drawing}");
                    for index in 0..2 {
                        let action = format!(
                            "data-action=\"{{&quot;type&quot;:&quot;reveal&quot;,&quot;phase&quot;:{},&quot;index&quot;:{index}}}\"",
                            state.phase_number()
                        );
                        assert!(drawing.contains(&action), "{drawing}");
                    }
                }
                PhaseKind::Accusation => {
                    accusations += 1;
                    let others = state
                        .players
                        .iter()
                        .enumerate()
                        .filter(|&(i, p)| i != seat.index() && p.life == Life::Living)
                        .count();
                    assert_eq!(drawing.matches("class=\"play accuse\"").count(), others);
                }
                _ => assert!(!drawing.contains("class=\"play")),
            }
        }
    };
    play_observed(6, 3, &RuleBots, &[], &mut observe).expect("a game");
    assert!(draws > 0 && accusations > 0, "{draws} {accusations}");
}
