//! The stored form of a game's state: compact, and checked when it is read back.
//!
//! An orthodox game is stored as its start position and its moves, and read back by replaying
//! them, which rebuilds the repetition history and proves every move legal. A Dice Chess game
//! cannot be replayed without its rolls, so it is stored as the DFEN of its position and the
//! turn's dice and counters.

use serde::{Deserialize, Serialize};

use crate::dice::{DiceBoard, Turn};
use crate::ending::{GameResult, Side};
use crate::game::{ChessConfig, ChessState, DiceGame, Play, Variant};
use crate::standard::{Orthodox, parse_uci};

/// A stored game.
#[derive(Serialize, Deserialize)]
pub(crate) struct Stored {
    config: ChessConfig,
    initial_fen: String,
    moves: Vec<String>,
    san: Vec<String>,
    draw_offer: Option<Side>,
    result: Option<GameResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dice: Option<StoredDice>,
}

/// A Dice Chess game's turn under way.
#[derive(Serialize, Deserialize)]
struct StoredDice {
    dfen: String,
    rolled: Vec<u8>,
    nonce: u64,
    rolls: u64,
    target: u8,
    required: u8,
    played: Vec<String>,
    passes: u32,
}

impl From<ChessState> for Stored {
    fn from(state: ChessState) -> Stored {
        let dice = match state.play {
            Play::Orthodox(_) => None,
            Play::Dice(game) => Some(StoredDice {
                dfen: game.turn.board.dfen(Some(game.turn.dice)),
                rolled: game.rolled,
                nonce: game.nonce,
                rolls: game.rolls,
                target: game.target,
                required: game.turn.required,
                played: game.played,
                passes: game.passes,
            }),
        };
        Stored {
            config: state.config,
            initial_fen: state.initial_fen,
            moves: state.moves,
            san: state.san,
            draw_offer: state.draw_offer,
            result: state.result,
            dice,
        }
    }
}

impl TryFrom<Stored> for ChessState {
    type Error = String;

    fn try_from(stored: Stored) -> Result<ChessState, String> {
        let play = match (stored.config.variant, stored.dice) {
            (Variant::Dice, Some(dice)) => {
                let (board, unused) =
                    DiceBoard::from_dfen(&dice.dfen).map_err(|e| e.to_string())?;
                Play::Dice(DiceGame {
                    turn: Turn {
                        board,
                        dice: unused.unwrap_or_default(),
                        required: dice.required,
                    },
                    rolled: dice.rolled,
                    nonce: dice.nonce,
                    rolls: dice.rolls,
                    target: dice.target,
                    played: dice.played,
                    passes: dice.passes,
                })
            }
            (Variant::Dice, None) => return Err("a Dice Chess game without its dice".to_owned()),
            (variant, _) => {
                let chess960 = variant == Variant::Chess960;
                let board = stored
                    .initial_fen
                    .parse()
                    .map_err(|e| format!("start position: {e}"))?;
                let mut game = Orthodox::new(board, chess960);
                for mv in &stored.moves {
                    let parsed = parse_uci(game.board(), mv, chess960)
                        .ok_or_else(|| format!("the stored move {mv} is not legal"))?;
                    game.play(parsed);
                }
                Play::Orthodox(game)
            }
        };
        if stored.san.len() != stored.moves.len() {
            return Err("the moves and their SAN differ in number".to_owned());
        }
        Ok(ChessState {
            config: stored.config,
            initial_fen: stored.initial_fen,
            moves: stored.moves,
            san: stored.san,
            draw_offer: stored.draw_offer,
            result: stored.result,
            play,
        })
    }
}
