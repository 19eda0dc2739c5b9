//! Games of Othello as GGF, the record Othello programs (NBoard, Edax, WZebra's converters)
//! read: the start position after the random opening (`BO`), then every move. Octagon,
//! Reversi's limit and anti-Othello have no GGF type here, so they have none.

use std::fmt::Write as _;

use arbiter_plugin::{RecordFormat, RecordedGame};
use arbiter_rules::SeatResult;
use serde_json::Value;

/// The GGF format (seat 0 is Black).
pub(crate) struct Ggf;

impl RecordFormat for Ggf {
    fn extension(&self) -> &'static str {
        "ggf"
    }

    fn supports(&self, variant: &str) -> bool {
        matches!(variant, "std" | "grand")
    }

    fn write(&self, game: &RecordedGame<'_>) -> Option<String> {
        if !self.supports(game.end["variant"].as_str()?) {
            return None;
        }
        let size = usize::try_from(game.start["board_size"].as_u64()?).ok()?;
        let board: String = game.start["board"]
            .as_array()?
            .iter()
            .map(|cell| match cell.as_u64() {
                Some(1) => '*',
                Some(2) => 'O',
                _ => '-',
            })
            .collect();
        let to_move = if game.start["to_move"].as_u64() == Some(2) {
            'O'
        } else {
            '*'
        };
        let discs = game.end["discs"].as_array()?;
        let difference = discs.first()?.as_i64()? - discs.get(1)?.as_i64()?;
        let black = *game.results.first()?;
        let result = if game.reason == "time" || game.failed {
            // A forfeit: the winner takes the board, as GGS scores it, marked how.
            let mark = if game.reason == "time" { 't' } else { 'r' };
            let sign = if black == SeatResult::Win { '+' } else { '-' };
            format!("{sign}{}:{mark}", size * size)
        } else {
            format!("{difference:+}")
        };
        let (base, increment) = game.time_control;
        let clock = if increment > 0 {
            format!("{}/{}/", clock(base), clock(increment))
        } else {
            clock(base)
        };
        let mut text = String::new();
        let _ = write!(
            text,
            "(;GM[Othello]PC[{}]DT[{}]PB[{}]PW[{}]RE[{result}]TI[{clock}]TY[{size}]BO[{size} {board} {to_move}]",
            escape(game.site),
            escape(game.date),
            escape(game.players.first()?),
            escape(game.players.get(1)?),
        );
        for played in game.end["history"].as_array()? {
            let colour = if played["color"].as_u64() == Some(2) {
                'W'
            } else {
                'B'
            };
            let name = square(&played["move"], size);
            let _ = write!(text, "{colour}[{name}]");
        }
        text.push_str(";)\n");
        Some(text)
    }
}

/// A move as GGF writes it: `d3`, or `PA` for a pass.
fn square(mv: &Value, size: usize) -> String {
    match mv.as_i64().and_then(|s| usize::try_from(s).ok()) {
        Some(square) => {
            let column = char::from(b'a' + u8::try_from(square % size.max(1)).unwrap_or(0));
            format!("{column}{}", square / size.max(1) + 1)
        }
        None => "PA".to_owned(),
    }
}

/// Milliseconds as GGF's `minutes:seconds`.
fn clock(ms: u64) -> String {
    let seconds = ms / 1000;
    let fraction = ms % 1000;
    if fraction == 0 {
        format!("{}:{:02}", seconds / 60, seconds % 60)
    } else {
        format!("{}:{:02}.{:03}", seconds / 60, seconds % 60, fraction)
    }
}

/// A property value with GGF's closing bracket and backslash escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

#[cfg(test)]
mod tests {
    use arbiter_rules::{Ctx, DynGame, Seat, Viewer};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    use serde_json::json;

    use super::*;
    use crate::RULES;

    #[test]
    fn a_game_from_the_start_is_written_as_ggf() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let config = json!({"variant": "std", "opening": {"moves": []}});
        let (mut state, _) = RULES
            .start(&config, &mut Ctx::new(0, &mut rng))
            .expect("a game");
        let start = state.view(Viewer::Omniscient);
        // d3 (19) by Black, c3 (18) by White.
        for (seat, square) in [(0, 19), (1, 18)] {
            state
                .apply(Seat(seat), &json!(square), &mut Ctx::new(0, &mut rng))
                .expect("legal");
        }
        let end = state.view(Viewer::Omniscient);
        let players = ["new".to_owned(), "old".to_owned()];
        let results = [SeatResult::Win, SeatResult::Loss];
        let game = RecordedGame {
            event: "arbiter match",
            site: "local",
            date: "2026-12-04",
            round: "1",
            players: &players,
            results: &results,
            reason: "discs",
            failed: false,
            start: &start,
            end: &end,
            time_control: (10_000, 100),
        };
        let text = Ggf.write(&game).expect("a record");
        assert_eq!(
            text,
            "(;GM[Othello]PC[local]DT[2026-12-04]PB[new]PW[old]RE[+0]TI[0:10/0:00.100/]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[d3]W[c3];)\n"
        );
        let lost = RecordedGame {
            reason: "time",
            results: &[SeatResult::Loss, SeatResult::Win],
            ..game
        };
        assert!(Ggf.write(&lost).expect("a record").contains("RE[-64:t]"));
        assert!(Ggf.supports("grand") && !Ggf.supports("octagon"));
    }
}
