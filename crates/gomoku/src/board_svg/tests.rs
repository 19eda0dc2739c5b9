use arbiter_rules::{Ctx, Game, Seat, Viewer};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::json;

use super::*;
use crate::board::RuleSet;
use crate::rules::{FoulPolicy, Gomoku, GomokuConfig, GomokuState, OpeningRule};

/// A game of `config` after `stones`, each placed by the seat to move.
fn state_after(config: GomokuConfig, stones: &[(u8, u8)]) -> GomokuState {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (mut state, _) = Gomoku::start(&config, &mut Ctx::new(0, &mut rng)).expect("a game");
    for &(x, y) in stones {
        let arbiter_rules::ToAct::Turn { seat } = Gomoku::to_act(&state) else {
            panic!("nobody to move");
        };
        Gomoku::apply(
            &mut state,
            seat,
            &GomokuAction::Place { x, y },
            &mut Ctx::new(0, &mut rng),
        )
        .expect("a legal stone");
    }
    state
}

/// The view of a game of `config` after `stones`, as a spectator reads it.
fn view_after(config: GomokuConfig, stones: &[(u8, u8)]) -> Value {
    let state = state_after(config, stones);
    serde_json::to_value(Gomoku::view(&state, Viewer::Spectator)).expect("a view")
}

fn renju() -> GomokuConfig {
    GomokuConfig {
        rule: RuleSet::Renju,
        foul: FoulPolicy::Illegal,
        ..GomokuConfig::default()
    }
}

/// Black's two open threes meeting at (7, 7), White far away; Black to move.
const DOUBLE_THREE: [(u8, u8); 8] = [
    (5, 7),
    (0, 0),
    (6, 7),
    (0, 2),
    (7, 8),
    (0, 4),
    (7, 9),
    (0, 6),
];

const LIVE: BoardOptions = BoardOptions {
    hints: true,
    playable: false,
    seat: None,
};
const TO_PLAY: BoardOptions = BoardOptions {
    hints: true,
    playable: true,
    seat: None,
};
const REPLAY: BoardOptions = BoardOptions {
    hints: false,
    playable: false,
    seat: None,
};

#[test]
fn stones_the_last_move_and_buttons_are_drawn() {
    let view = view_after(GomokuConfig::default(), &[(7, 7), (8, 7), (6, 6)]);
    let svg = Board.svg(&view, TO_PLAY);
    assert!(svg.starts_with("<svg class=\"board\" viewBox=\"0 0 160 166\""));
    assert!(svg.ends_with("</svg>"));
    assert_eq!(svg.matches("class=\"stone black\"").count(), 2, "{svg}");
    assert_eq!(svg.matches("class=\"stone white\"").count(), 1, "{svg}");
    assert!(svg.contains("aria-label=\"Board 15x15: 2 black, 1 white\""));
    // The ring on the last stone, (6, 6), drawn at 8 + 5 + 6 * 10.
    assert!(
        svg.contains("<circle cx=\"73\" cy=\"73\" r=\"5\" fill=\"none\" stroke=\"#e53935\""),
        "{svg}"
    );
    assert_eq!(svg.matches("class=\"last\"").count(), 1);
    // Every empty point is a button carrying the rules' action as JSON text.
    assert_eq!(svg.matches("class=\"play\"").count(), 225 - 3);
    assert!(
        svg.contains(
            "class=\"play\" data-action=\"{&quot;x&quot;:0,&quot;y&quot;:14}\" tabindex=\"0\" \
             role=\"button\" aria-label=\"Play 0,14\""
        ),
        "{svg}"
    );
    assert!(!svg.contains("data-action=\"{&quot;x&quot;:7,&quot;y&quot;:7}\""));
    assert_eq!(
        svg.matches("class=\"coord\"").count(),
        30,
        "15 columns and 15 rows are numbered"
    );
    // The five star points of a 15x15 board.
    assert_eq!(svg.matches("r=\"1.1\"").count(), 5);
    assert!(
        svg.contains("class=\"coord legend\"></text>"),
        "no legend: {svg}"
    );
    // The coordinates size themselves, for pages without the site's style sheet (the Board
    // Game Protocol's claim page).
    assert_eq!(
        svg.matches("font-size=\"3.4\" fill=\"#666\" text-anchor=\"middle\" class=\"coord\">")
            .count(),
        2 * 15
    );
}

#[test]
fn options_decide_hints_buttons_and_numbers() {
    let view = view_after(renju(), &DOUBLE_THREE);
    // Options, then forbidden marks, buttons and move numbers expected.
    let cases = [
        (REPLAY, 0, 0, 8),
        (LIVE, 1, 0, 0),
        (TO_PLAY, 1, 225 - 8 - 1, 0),
        (
            BoardOptions {
                hints: false,
                playable: true,
                seat: None,
            },
            0,
            0,
            8,
        ),
    ];
    for (options, crosses, buttons, numbers) in cases {
        let svg = Board.svg(&view, options);
        assert_eq!(
            svg.matches("class=\"forbidden\"").count(),
            crosses,
            "{options:?}"
        );
        assert_eq!(
            svg.matches("class=\"play\"").count(),
            buttons,
            "{options:?}"
        );
        assert_eq!(
            svg.matches("class=\"number\"").count(),
            numbers,
            "{options:?}"
        );
    }
    let svg = Board.svg(&view, TO_PLAY);
    // The cross is drawn on (7, 7), which is no button.
    assert!(
        svg.contains("<path d=\"M81 81L85 85M81 85L85 81\" stroke=\"#d32f2f\""),
        "{svg}"
    );
    assert!(!svg.contains("data-action=\"{&quot;x&quot;:7,&quot;y&quot;:7}\""));
    // On a replay, stones are numbered in order, white digits on black stones.
    let replay = Board.svg(&view, REPLAY);
    assert!(
        replay.contains(
            "<text x=\"63\" y=\"84\" font-size=\"4\" fill=\"#fff\" text-anchor=\"middle\" \
             class=\"number\">1</text>"
        ),
        "{replay}"
    );
    assert!(replay.contains("fill=\"#111\" text-anchor=\"middle\" class=\"number\">8</text>"));
}

#[test]
fn white_to_move_under_renju_has_no_forbidden_points() {
    let mut stones = DOUBLE_THREE.to_vec();
    stones.push((14, 14));
    let view = view_after(renju(), &stones);
    let svg = Board.svg(&view, TO_PLAY);
    assert_eq!(svg.matches("class=\"forbidden\"").count(), 0);
    assert!(svg.contains("data-action=\"{&quot;x&quot;:7,&quot;y&quot;:7}\""));
}

#[test]
fn every_board_size_has_its_grid_and_star_points() {
    // Side, star points and the viewBox's width.
    let cases = [(15, 5, 160), (19, 9, 200), (20, 4, 210)];
    for (size, stars, width) in cases {
        let config = GomokuConfig {
            size,
            ..GomokuConfig::default()
        };
        let svg = Board.svg(&view_after(config, &[]), LIVE);
        assert!(
            svg.contains(&format!("viewBox=\"0 0 {width} {}\"", width + 6)),
            "{size}"
        );
        assert_eq!(svg.matches("r=\"1.1\"").count(), stars, "{size}");
        assert_eq!(
            svg.matches("stroke-width=\"0.5\"").count(),
            usize::from(size)
        );
        let last = format!(">{}</text>", size - 1);
        assert_eq!(svg.matches(&last).count(), 2, "{size}");
    }
}

#[test]
fn swap2_draws_no_buttons_while_a_choice_is_pending() {
    let config = GomokuConfig {
        opening: OpeningRule::Swap2,
        ..GomokuConfig::default()
    };
    let placing = view_after(config.clone(), &[(7, 7)]);
    assert_eq!(
        Board
            .svg(&placing, TO_PLAY)
            .matches("class=\"play\"")
            .count(),
        224
    );
    assert!(
        Board
            .svg(&placing, TO_PLAY)
            .contains("Swap2: the colours are chosen after the opening stones")
    );
    let choosing = view_after(config.clone(), &[(7, 7), (8, 8), (6, 6)]);
    assert_eq!(
        Board
            .svg(&choosing, TO_PLAY)
            .matches("class=\"play\"")
            .count(),
        0
    );
    let state = state_after(config, &[(7, 7), (8, 8), (6, 6)]);
    let labels: Vec<String> = Gomoku::legal_actions(&state, Seat(1))
        .iter()
        .map(|action| Board.notation(&choosing, &serde_json::to_value(action).expect("json")))
        .collect();
    assert_eq!(
        labels,
        ["Take Black", "Take White", "Place two more stones"]
    );
    // The choices keep the pages' buttons; stones are played on the board alone.
    let cases = [
        (json!({"swap2": "more"}), false),
        (json!({"x": 7, "y": 7}), true),
        (json!("7,7"), false),
    ];
    for (action, on_board) in cases {
        assert_eq!(Board.played_on_board(&action), on_board, "{action}");
    }
}

#[test]
fn tallies_follow_the_colours_and_history_is_in_notation() {
    let view = view_after(GomokuConfig::default(), &[(7, 7), (8, 7), (6, 6)]);
    assert_eq!(Board.tallies(&view), [2, 1]);
    assert_eq!(Board.history(&view), ["7,7", "8,7", "6,6"]);
    assert_eq!(Board.notation(&view, &json!({"x": 3, "y": 12})), "3,12");
    assert_eq!(Board.notation(&view, &json!("<b>")), "?");
    assert_eq!(Board.seat_names(), ["Black", "White"]);
    assert_eq!(Board.seat_names_in(&view), ["Black", "White"]);
    // After a swap the second seat plays Black, and its tally is Black's.
    let mut swapped = view.clone();
    swapped["black_seat"] = json!(1);
    assert_eq!(Board.tallies(&swapped), [1, 2]);
    assert_eq!(Board.seat_names_in(&swapped), ["White", "Black"]);
    assert!(
        Board
            .svg(&swapped, LIVE)
            .contains("Colours swapped by swap2: the second seat plays Black")
    );
}

#[test]
fn no_string_from_the_view_reaches_the_drawing() {
    let hostile = "<script>alert(1)</script>\"'&";
    let view = json!({
        "size": hostile,
        "rule": hostile,
        "board": [hostile, "X<O>&\"", hostile],
        "phase": hostile,
        "to_move": hostile,
        "next": hostile,
        "black_seat": hostile,
        "history": [{"x": hostile, "y": 1}, {"x": 1, "y": 1, "color": hostile}],
        "forbidden": [[hostile, 2], [3, 3]],
        hostile: hostile,
    });
    for options in [REPLAY, LIVE, TO_PLAY] {
        let svg = Board.svg(&view, options);
        for fragment in ["<script", "alert", "'", "&\"", "\"&", "X<"] {
            assert!(!svg.contains(fragment), "{fragment}: {svg}");
        }
        // Only the drawing's own elements appear.
        let tags: std::collections::BTreeSet<&str> = svg
            .split('<')
            .skip(1)
            .filter_map(|tag| tag.split([' ', '>', '/']).next())
            .filter(|name| !name.is_empty())
            .collect();
        let allowed = ["circle", "path", "rect", "svg", "text", "title"];
        assert!(tags.iter().all(|t| allowed.contains(t)), "{tags:?}");
    }
    // The stone read from a row is still drawn; the rest of the row is ignored.
    assert_eq!(Board.tallies(&view), [1, 1]);
    assert_eq!(Board.history(&view), ["1,1"]);
}
