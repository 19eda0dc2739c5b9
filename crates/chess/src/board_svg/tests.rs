use arbiter_rules::{Ctx, Dice as RulesDice, Game, Seat};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::json;

use super::*;
use crate::{Chess, ChessAction, ChessConfig, ChessState, Variant};

/// Dice that roll the faces listed by nonce, and `[3, 5, 6]` (bishop, queen, king) after.
struct Script(Vec<[u8; 3]>);

impl RulesDice for Script {
    fn roll(&self, nonce: u64, _sides: u8, count: usize) -> Vec<u8> {
        let faces = self.0.get(nonce as usize).copied().unwrap_or([3, 5, 6]);
        faces.iter().copied().take(count).collect()
    }
}

/// The view of a game of `config` after `moves`, each played by the side to move, with the
/// scripted `dice`.
fn view_after(config: &ChessConfig, dice: &[[u8; 3]], moves: &[&str]) -> Value {
    let dice = Script(dice.to_vec());
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut state, _): (ChessState, _) =
        Chess::start(config, &mut Ctx::new(0, &mut rng).with_dice(&dice)).expect("a game");
    for &uci in moves {
        let seat = Seat(state.side_to_move().seat());
        Chess::apply(
            &mut state,
            seat,
            &ChessAction::Move(uci.to_owned()),
            &mut Ctx::new(0, &mut rng).with_dice(&dice),
        )
        .expect(uci);
    }
    serde_json::to_value(state.view()).expect("a view")
}

fn standard(moves: &[&str]) -> Value {
    view_after(&ChessConfig::default(), &[], moves)
}

fn from_fen(variant: Variant, fen: &str, dice: &[[u8; 3]], moves: &[&str]) -> Value {
    let config = ChessConfig {
        fen: Some(fen.to_owned()),
        ..ChessConfig::of(variant)
    };
    view_after(&config, dice, moves)
}

const STILL: BoardOptions = BoardOptions {
    hints: false,
    playable: false,
    seat: None,
};
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

fn svg(view: &Value, options: BoardOptions) -> String {
    BoardSvg.svg(view, options)
}

/// The values of attribute `name` in `svg`, in order.
fn attributes(svg: &str, name: &str) -> Vec<String> {
    svg.split(&format!(" {name}=\""))
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_start_position_has_its_thirty_two_pieces_and_coordinates() {
    let drawn = svg(&standard(&[]), STILL);
    assert!(drawn.starts_with("<svg class=\"board\" viewBox=\"0 0 86 86\""));
    assert!(drawn.contains("aria-label=\"Chess board, White to move\""));
    assert_eq!(drawn.matches("class=\"piece white\"").count(), 16);
    assert_eq!(drawn.matches("class=\"piece black\"").count(), 16);
    assert_eq!(drawn.matches("<rect ").count(), 64, "the squares alone");
    assert_eq!(drawn.matches("class=\"coord\"").count(), 16);
    let squares = attributes(&drawn, "data-square");
    assert_eq!(squares.len(), 32);
    for square in ["a1", "e1", "h2", "d8", "a7", "h8"] {
        assert!(squares.iter().any(|s| s == square), "{square}");
    }
    // The kings: White's is the filled glyph in white under the outlined one.
    assert!(drawn.contains(
        "data-square=\"e1\"><text x=\"51\" y=\"78\" fill=\"#fff\">\u{265A}</text><text x=\"51\" \
         y=\"78\" fill=\"#1b1f24\">\u{2654}</text>"
    ));
    assert!(drawn.contains("data-square=\"e8\"><text x=\"51\" y=\"8\" fill=\"#1b1f24\">\u{265A}"));
    // Sizes are set in the drawing itself, for pages without the site's style sheet.
    assert!(
        drawn.contains("font-size=\"3.4\" fill=\"#666\" text-anchor=\"middle\" class=\"coord\">a<")
    );
    for absent in [
        "class=\"last\"",
        "class=\"check\"",
        "class=\"die",
        "class=\"legend\"",
    ] {
        assert!(!drawn.contains(absent), "{absent}");
    }
}

#[test]
fn the_last_move_check_and_mate_are_marked() {
    let drawn = svg(&standard(&["e2e4"]), STILL);
    assert_eq!(drawn.matches("class=\"last\"").count(), 2);
    // e2's and e4's corners.
    assert!(drawn.contains("<rect x=\"46\" y=\"60\" width=\"10\" height=\"10\" fill=\"#9bc700\""));
    assert!(drawn.contains("<rect x=\"46\" y=\"40\" width=\"10\" height=\"10\" fill=\"#9bc700\""));
    assert!(drawn.contains("Black to move"));

    let check = standard(&["e2e4", "e7e5", "f1c4", "d7d6", "c4f7"]);
    let drawn = svg(&check, LIVE);
    assert_eq!(drawn.matches("class=\"check\"").count(), 1);
    assert!(
        drawn.contains("<circle cx=\"51\" cy=\"5\" r=\"5\""),
        "on e8"
    );
    assert!(!drawn.contains("class=\"legend\""), "nothing to say yet");

    let mate = standard(&["f2f3", "e7e5", "g2g4", "d8h4"]);
    let drawn = svg(&mate, LIVE);
    assert!(
        drawn.contains("<circle cx=\"51\" cy=\"75\" r=\"5\""),
        "on e1"
    );
    assert!(drawn.contains(">Checkmate: Black wins</text>"));
    assert!(drawn.contains("viewBox=\"0 0 86 93\""), "room for the line");
    assert!(drawn.contains("aria-label=\"Chess board\""));
    assert!(!drawn.contains("data-pick"), "nothing to play");
}

#[test]
fn a_person_to_play_picks_a_piece_then_one_of_its_squares() {
    let view = standard(&[]);
    let drawn = svg(&view, TO_PLAY);
    let picks = attributes(&drawn, "data-pick");
    assert_eq!(
        picks,
        ["b1", "g1", "a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"],
        "the pieces with a move, by square"
    );
    let froms = attributes(&drawn, "data-from");
    let actions = attributes(&drawn, "data-action");
    assert_eq!((froms.len(), actions.len()), (20, 20));
    assert!(drawn.contains(
        "<g class=\"play\" data-from=\"e2\" data-action=\"&quot;e2e4&quot;\" tabindex=\"0\" \
         role=\"button\" aria-label=\"e2 to e4\"><rect x=\"46\" y=\"40\""
    ));
    assert!(drawn.contains(
        "class=\"pick\" data-pick=\"g1\" tabindex=\"0\" role=\"button\" aria-label=\"Move the \
         knight on g1\""
    ));
    // Each action is the rules' value as JSON text, and one the view lists.
    for action in &actions {
        let value: Value = serde_json::from_str(&action.replace("&quot;", "\"")).expect("JSON");
        assert!(
            view["legal_moves"]
                .as_array()
                .expect("moves")
                .contains(&value)
        );
    }
    // Nothing to click for spectators, nor without hints (a replay).
    for options in [
        LIVE,
        STILL,
        BoardOptions {
            hints: false,
            playable: true,
            seat: None,
        },
    ] {
        let drawn = svg(&view, options);
        for attribute in ["data-pick", "data-from", "data-action", "class=\"play\""] {
            assert!(!drawn.contains(attribute), "{options:?}: {attribute}");
        }
    }
}

#[test]
fn promotions_to_a_queen_are_on_the_board_and_the_others_are_buttons() {
    let view = from_fen(
        Variant::Standard,
        "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1",
        &[],
        &[],
    );
    let drawn = svg(&view, TO_PLAY);
    let actions = attributes(&drawn, "data-action");
    for queen in ["&quot;e7e8q&quot;", "&quot;e7d8q&quot;"] {
        assert!(actions.iter().any(|a| a == queen), "{queen}: {actions:?}");
    }
    assert!(
        actions
            .iter()
            .all(|a| !a.ends_with("r&quot;") && !a.ends_with("n&quot;")),
        "{actions:?}"
    );
    // The capture on d8 is ringed, the push to e8 dotted.
    assert!(drawn.contains("<circle cx=\"41\" cy=\"5\" r=\"4.3\" fill=\"none\""));
    assert!(drawn.contains("<circle cx=\"51\" cy=\"5\" r=\"1.8\""));
    let board = BoardSvg;
    let cases = [
        (json!("e2e4"), true),
        (json!("e7e8q"), true),
        (json!("e7e8r"), false),
        (json!("e7d8b"), false),
        (json!("e7e8n"), false),
        (json!({"draw": true}), false),
        (json!({"draw": false}), false),
        (json!("e7e8k"), false),
        (json!("E2E4"), false),
        (json!(12), false),
    ];
    for (action, on_board) in cases {
        assert_eq!(board.played_on_board(&action), on_board, "{action}");
    }
    // The buttons under the board are labelled in algebraic notation.
    assert_eq!(board.notation(&view, &json!("e7d8n")), "exd8=N");
    assert_eq!(board.notation(&view, &json!("e7e8r")), "e8=R+");
}

#[test]
fn chess960_castling_targets_the_rook_over_its_piece() {
    let view = from_fen(
        Variant::Chess960,
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        &[],
        &[],
    );
    let drawn = svg(&view, TO_PLAY);
    let castle = drawn
        .find("data-action=\"&quot;e1h1&quot;\"")
        .expect("castling is a target");
    let rook = drawn.find("data-pick=\"h1\"").expect("the rook moves too");
    assert!(rook < castle, "the target is drawn over the rook's pick");
    assert!(drawn.contains("<circle cx=\"81\" cy=\"75\" r=\"4.3\" fill=\"none\""));
    assert_eq!(BoardSvg.notation(&view, &json!("e1h1")), "O-O");
}

#[test]
fn dice_chess_draws_the_turns_dice_and_its_micro_moves() {
    let config = ChessConfig::of(Variant::Dice);
    // Pawn, rook and knight: a2a3 uses the pawn die.
    let view = view_after(&config, &[[1, 4, 2]], &["a2a3"]);
    let drawn = svg(&view, LIVE);
    assert!(
        drawn.contains("viewBox=\"0 0 86 103\""),
        "room for the dice"
    );
    assert_eq!(drawn.matches("class=\"die\"").count(), 2);
    assert_eq!(drawn.matches("class=\"die used\"").count(), 1);
    // The dice in the order rolled, each with its glyph and number; the pawn's is used.
    let dice: Vec<usize> = [
        "used\" opacity=\"0.3\"><rect x=\"6\"",
        "die\" opacity=\"1\"><rect x=\"20\"",
        "die\" opacity=\"1\"><rect x=\"34\"",
    ]
    .iter()
    .map(|d| drawn.find(d).unwrap_or_else(|| panic!("{d}")))
    .collect();
    assert!(dice.windows(2).all(|w| w[0] < w[1]));
    for (glyph, face) in [("\u{2659}", 1), ("\u{2656}", 4), ("\u{2658}", 2)] {
        assert!(drawn.contains(&format!("{glyph}</text><text")), "{glyph}");
        assert!(
            drawn.contains(&format!("text-anchor=\"middle\">{face}</text>")),
            "{face}"
        );
    }
    assert!(
        drawn.contains("\u{2659}</tspan>a2-a3<tspan"),
        "the micro-move played"
    );
    assert!(drawn.contains(">1 of 3 dice used</text>"));
    assert_eq!(drawn.matches("class=\"last\"").count(), 2);

    // The knight moves twice: both micro-moves are the knight's.
    let view = view_after(&config, &[[2, 2, 1]], &["b1c3", "c3e4"]);
    let drawn = svg(&view, TO_PLAY);
    assert!(drawn.contains("\u{2658}</tspan>b1-c3<"));
    assert!(drawn.contains("\u{2658}</tspan>c3-e4<"));
    assert_eq!(drawn.matches("class=\"die used\"").count(), 2);
    // Only the pawn die is left: the pawns are the pieces to pick.
    let picks = attributes(&drawn, "data-pick");
    assert!(!picks.is_empty());
    for pick in &picks {
        assert!(pick.ends_with('2'), "{picks:?}");
    }
    assert_eq!(BoardSvg.notation(&view, &json!("d2d4")), "d4");

    // Black's dice are drawn with Black's glyphs once White's turn ended.
    let view = view_after(&config, &[[1, 1, 1], [2, 5, 6]], &["a2a3", "b2b3", "c2c3"]);
    let drawn = svg(&view, LIVE);
    assert_eq!(drawn.matches("class=\"die\"").count(), 3);
    assert!(drawn.contains(">\u{265E}</text>") && drawn.contains(">\u{265B}</text>"));
    assert!(!drawn.contains("</tspan>"), "nothing played yet");
    assert!(drawn.contains(">0 of 1 die used</text>"));
}

#[test]
fn a_captured_king_is_absent_and_the_result_said() {
    let view = from_fen(
        Variant::Dice,
        "4k3/8/8/8/8/8/8/1N2R1K1 w - - 0 1",
        &[[4, 2, 6]],
        &["e1e8"],
    );
    let drawn = svg(&view, LIVE);
    assert_eq!(drawn.matches("class=\"piece black\"").count(), 0);
    assert_eq!(drawn.matches("class=\"piece white\"").count(), 3);
    assert!(drawn.contains(">King captured: White wins</text>"));
    assert!(
        drawn.contains("<circle cx=\"51\" cy=\"5\" r=\"4.6\" fill=\"none\" stroke=\"#d32f2f\"")
    );
    assert!(!drawn.contains("dice used"), "the game is over");
    assert_eq!(BoardSvg.tallies(&view), [8, 0]);
    assert_eq!(BoardSvg.history(&view), ["Rxe8"]);
}

#[test]
fn tallies_count_material_and_seats_are_named_by_colour() {
    let board = BoardSvg;
    assert_eq!(board.tallies(&standard(&[])), [39, 39]);
    let view = standard(&["e2e4", "d7d5", "e4d5", "d8d5"]);
    assert_eq!(board.tallies(&view), [38, 38]);
    let view = from_fen(
        Variant::Standard,
        "4k3/8/8/8/8/8/P7/RNBQK3 w - - 0 1",
        &[],
        &[],
    );
    assert_eq!(board.tallies(&view), [21, 0]);
    assert_eq!(board.seat_names(), ["White", "Black"]);
    assert_eq!(board.tallies(&json!({})), [0, 0]);
}

#[test]
fn moves_are_named_in_algebraic_notation() {
    let board = BoardSvg;
    let view = standard(&["e2e4", "e7e5", "g1f3"]);
    assert_eq!(board.history(&view), ["e4", "e5", "Nf3"]);
    let cases = [
        (json!("b8c6"), "Nc6"),
        (json!("d8h4"), "Qh4"),
        // The move that led here is named as the view recorded it.
        (json!("g1f3"), "Nf3"),
        // A move that is not legal now is written as it is, checked.
        (json!("e2e4"), "e2e4"),
        (json!("a7a8q"), "a7a8q"),
        (json!({"draw": true}), "draw offer"),
        (json!({"draw": false}), "draw decline"),
        (json!({"draw": 1}), "?"),
        (json!("<b>e2e4</b>"), "?"),
        (json!("e2e9"), "?"),
        (json!(null), "?"),
        (json!(["e2", "e4"]), "?"),
    ];
    for (action, name) in cases {
        assert_eq!(board.notation(&view, &action), name, "{action}");
    }
    let castle = standard(&["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]);
    assert_eq!(board.notation(&castle, &json!("e1g1")), "O-O");
    // A Dice Chess micro-move carries no check mark.
    let dice = from_fen(
        Variant::Dice,
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        &[[4, 4, 4]],
        &[],
    );
    assert_eq!(board.notation(&dice, &json!("a1a8")), "Ra8");
}

#[test]
fn nothing_the_view_spells_is_echoed() {
    let hostile = "<script>alert(1)</script>";
    let view = json!({
        "variant": hostile,
        "fen": format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR {hostile} KQkq - 0 1"),
        "dfen": hostile,
        "to_move": hostile,
        "moves": ["e2e4", hostile, "e7e5\"onload=\"x"],
        "san": [hostile, "Nf3\" onclick=\"x", "e5"],
        "last_move": hostile,
        "legal_moves": ["e2e4", hostile, "e2e4\"><script>", "a1a2 "],
        "check": hostile,
        "dice": {"nonce": hostile, "rolled": [1, hostile, 9, 4], "unused": [hostile],
                 "target": hostile, "played": [hostile, "e2e4"]},
        "draw_offer": hostile,
        "result": {"winner": hostile, "reason": hostile},
    });
    let board = BoardSvg;
    for options in [STILL, LIVE, TO_PLAY] {
        let drawn = svg(&view, options);
        for bad in ["<script", "alert", "onload", "onclick", "&lt;", "a1a2 "] {
            assert!(!drawn.contains(bad), "{options:?}: {bad} in {drawn}");
        }
        assert_eq!(drawn.matches("class=\"piece ").count(), 32);
    }
    let drawn = svg(&view, TO_PLAY);
    assert_eq!(attributes(&drawn, "data-action"), ["&quot;e2e4&quot;"]);
    assert_eq!(drawn.matches("class=\"die").count(), 2, "the faces 1 and 4");
    assert!(
        drawn.contains(">A draw</text>"),
        "an unknown result is a draw"
    );
    let history = board.history(&view);
    assert_eq!(history, ["e2e4", "?", "e5"]);
    assert!(history.iter().all(|m| !m.contains('<') && !m.contains('"')));
    for action in [json!(hostile), json!({"draw": hostile})] {
        assert_eq!(board.notation(&view, &action), "?");
    }
    assert_eq!(
        board.notation(&view, &json!("e2e4")),
        "e2e4",
        "no position to read"
    );
    assert_eq!(board.tallies(&view), [39, 39]);
}

#[test]
fn san_is_shown_only_when_made_of_its_own_characters() {
    let cases = [
        ("e4", true),
        ("Nbxd7", true),
        ("O-O-O", true),
        ("0-0", true),
        ("e8=Q+", true),
        ("Qh4#", true),
        ("", false),
        ("e9", false),
        ("Ke1<", false),
        ("ei", false),
        ("Nf3 ", false),
        ("Rxe8xxxxxxx", false),
    ];
    for (text, plain) in cases {
        assert_eq!(plain_san(text), plain, "{text:?}");
    }
}

/// The height at which the piece on `square` is drawn.
fn piece_height(svg: &str, square: &str) -> u32 {
    svg.split(&format!("data-square=\"{square}\"><text x=\""))
        .nth(1)
        .and_then(|rest| rest.split("y=\"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .and_then(|y| y.parse().ok())
        .expect("the piece is drawn")
}

#[test]
fn a_person_playing_black_sees_the_board_from_black_s_side() {
    let view = standard(&[]);
    for (seat, white_at_bottom) in [(None, true), (Some(0), true), (Some(1), false)] {
        let svg = BoardSvg.svg(
            &view,
            BoardOptions {
                seat,
                ..BoardOptions::default()
            },
        );
        let (white_king, black_king) = (piece_height(&svg, "e1"), piece_height(&svg, "e8"));
        assert_eq!(white_king > black_king, white_at_bottom, "seat {seat:?}");
        // The files run the other way too: the white king stands right of the queen from
        // White's side and left of it from Black's.
        let x = |square: &str| -> u32 {
            svg.split(&format!("data-square=\"{square}\"><text x=\""))
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .and_then(|x| x.parse().ok())
                .expect("drawn")
        };
        assert_eq!(x("e1") > x("d1"), white_at_bottom, "seat {seat:?}");
    }
}
