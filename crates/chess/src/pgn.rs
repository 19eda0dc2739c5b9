//! Games of orthodox chess and Chess960 as PGN, the record every chess program reads. Dice
//! Chess has no PGN of its own (its turns are several moves), so it has none here.

use arbiter_plugin::{BoardRenderer, RecordFormat, RecordedGame};
use arbiter_rules::SeatResult;

use crate::board_svg::BoardSvg;

/// The usual start position: a game from it carries no `FEN` tag.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The PGN format (seat 0 is White).
pub(crate) struct Pgn;

impl RecordFormat for Pgn {
    fn extension(&self) -> &'static str {
        "pgn"
    }

    fn supports(&self, variant: &str) -> bool {
        matches!(variant, "standard" | "chess960")
    }

    fn write(&self, game: &RecordedGame<'_>) -> Option<String> {
        let variant = game.end["variant"].as_str()?;
        if !self.supports(variant) {
            return None;
        }
        let result = match game.results.first()? {
            SeatResult::Win => "1-0",
            SeatResult::Loss => "0-1",
            SeatResult::Draw => "1/2-1/2",
        };
        let termination = if game.reason == "time" {
            "time forfeit"
        } else if game.failed {
            "rules infraction"
        } else {
            "normal"
        };
        let (base, increment) = game.time_control;
        let mut tags: Vec<(&str, String)> = vec![
            ("Event", game.event.to_owned()),
            ("Site", game.site.to_owned()),
            ("Date", game.date.replace('-', ".")),
            ("Round", game.round.to_owned()),
            ("White", game.players.first()?.clone()),
            ("Black", game.players.get(1)?.clone()),
            ("Result", result.to_owned()),
        ];
        let initial = game.start["initial_fen"].as_str().unwrap_or(START_FEN);
        if variant == "chess960" {
            tags.push(("Variant", "Chess960".to_owned()));
        }
        if initial != START_FEN {
            tags.push(("SetUp", "1".to_owned()));
            tags.push(("FEN", initial.to_owned()));
        }
        tags.push((
            "TimeControl",
            format!("{}+{}", seconds(base), seconds(increment)),
        ));
        tags.push(("Termination", termination.to_owned()));
        let mut text = String::new();
        for (tag, value) in tags {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            text.push_str(&format!("[{tag} \"{value}\"]\n"));
        }
        text.push('\n');
        text.push_str(&movetext(&BoardSvg.history(game.end), initial, result));
        text.push_str("\n\n");
        Some(text)
    }
}

/// Milliseconds as PGN's seconds: whole where they are, else with their fraction.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

/// The moves numbered from the start position's move number and side, then the result, in
/// lines of at most 80 characters.
fn movetext(moves: &[String], initial_fen: &str, result: &str) -> String {
    let fields: Vec<&str> = initial_fen.split(' ').collect();
    let black_first = fields.get(1) == Some(&"b");
    let mut number: u32 = fields.get(5).and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut tokens: Vec<String> = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    for (i, mv) in moves.iter().enumerate() {
        let white = (i % 2 == 0) != black_first;
        if white {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(mv.clone());
        if !white {
            number += 1;
        }
    }
    tokens.push(result.to_owned());
    let mut text = String::new();
    let mut line_len = 0;
    for token in tokens {
        if line_len > 0 && line_len + 1 + token.len() > 80 {
            text.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            text.push(' ');
            line_len += 1;
        }
        line_len += token.len();
        text.push_str(&token);
    }
    text
}

#[cfg(test)]
mod tests {
    use arbiter_rules::{Ctx, DynGame, Viewer};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    use serde_json::Value;
    use serde_json::json;

    use super::*;
    use crate::family::RULES;

    /// Plays `moves` (UCI) from `config`'s start and gives the start and end views.
    fn played(config: Value, moves: &[&str]) -> (Value, Value) {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (mut state, _) = RULES
            .start(&config, &mut Ctx::new(0, &mut rng))
            .expect("a game");
        let start = state.view(Viewer::Omniscient);
        for (i, mv) in moves.iter().enumerate() {
            let seat = arbiter_rules::Seat((i % 2) as u8);
            state
                .apply(seat, &json!(mv), &mut Ctx::new(0, &mut rng))
                .expect("a legal move");
        }
        (start, state.view(Viewer::Omniscient))
    }

    fn record<'a>(
        players: &'a [String],
        start: &'a Value,
        end: &'a Value,
        results: &'a [SeatResult],
    ) -> RecordedGame<'a> {
        RecordedGame {
            event: "arbiter match",
            site: "local",
            date: "2026-12-04",
            round: "3",
            players,
            results,
            reason: "checkmate",
            failed: false,
            start,
            end,
            time_control: (10_000, 100),
        }
    }

    #[test]
    fn a_mate_is_written_as_pgn() {
        let players = ["new".to_owned(), "old".to_owned()];
        let (start, end) = played(
            json!({"variant": "standard"}),
            &["f2f3", "e7e5", "g2g4", "d8h4"],
        );
        let results = [SeatResult::Loss, SeatResult::Win];
        let game = record(&players, &start, &end, &results);
        let text = Pgn.write(&game).expect("a record");
        assert_eq!(
            text,
            "[Event \"arbiter match\"]\n[Site \"local\"]\n[Date \"2026.12.04\"]\n[Round \"3\"]\n[White \"new\"]\n[Black \"old\"]\n[Result \"0-1\"]\n[TimeControl \"10+0.1\"]\n[Termination \"normal\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"
        );
    }

    #[test]
    fn a_chess960_game_carries_its_start_and_dice_chess_has_no_pgn() {
        let players = ["a".to_owned(), "b".to_owned()];
        let (start, end) = played(json!({"variant": "chess960", "chess960_position": 0}), &[]);
        let results = [SeatResult::Draw, SeatResult::Draw];
        let game = record(&players, &start, &end, &results);
        let text = Pgn.write(&game).expect("a record");
        assert!(text.contains("[Variant \"Chess960\"]"), "{text}");
        assert!(
            text.contains(
                "[SetUp \"1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]"
            ),
            "{text}"
        );
        assert!(text.ends_with("\n\n1/2-1/2\n\n"), "{text}");
        assert!(!Pgn.supports("dice") && Pgn.supports("standard"));
    }

    #[test]
    fn long_games_wrap_and_a_start_with_black_to_move_is_numbered_so() {
        let moves: Vec<String> = (0..40).map(|i| format!("Nf{}", i % 8 + 1)).collect();
        let text = movetext(&moves, START_FEN, "*");
        assert!(text.lines().all(|line| line.len() <= 80), "{text}");
        assert!(text.starts_with("1. Nf1 Nf2 2. Nf3"));
        let black = movetext(
            &["e5".to_owned(), "Nf3".to_owned()],
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "*",
        );
        assert_eq!(black, "1... e5 2. Nf3 *");
    }
}
