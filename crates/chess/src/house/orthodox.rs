//! The house players of standard chess and Chess960.
//!
//! `Random` plays any legal move; `Greedy` the move that wins the most material at once
//! (a mate before anything, then the most valuable piece taken, by the least valuable
//! piece, then the better square); `Easy`, `Medium` and `Hard` search with alpha-beta, Easy
//! only two plies deep (and its captures), the others as deep as their time allows.

use arbiter_plugin::HouseLevel;
use arbiter_rules::Random;
use cozy_chess::{Board, Move, Piece};

use super::Limits;
use super::eval::{phase_of, square_bonus, value};
use super::search::{Searcher, Settings, victim};
use crate::game::{ChessView, Variant};
use crate::standard::{legal_moves, parse_uci, uci};
use arbiter_plugin::Budget;

/// How each searching level searches; `None` for the levels that do not.
pub(super) fn settings(level: HouseLevel) -> Option<Settings> {
    match level {
        HouseLevel::Random | HouseLevel::Greedy => None,
        HouseLevel::Easy => Some(Settings {
            max_depth: 2,
            table_bits: 14,
        }),
        HouseLevel::Medium => Some(Settings {
            max_depth: 64,
            table_bits: 18,
        }),
        HouseLevel::Hard | HouseLevel::Max => Some(Settings {
            max_depth: 64,
            table_bits: 20,
        }),
    }
}

/// The move the level plays in the view's position, in the game's UCI notation; `None` if
/// the view has no position or no legal move.
pub(super) fn choose(
    view: &ChessView,
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Option<String> {
    let board = view.board()?;
    let chess960 = view.variant == Variant::Chess960;
    let mv = choose_move(&board, &history(view, &board), level, limits, rng)?;
    Some(uci(&board, mv, chess960))
}

/// The move the level plays on `board`, with `keys` the game's positions since the last
/// irreversible move (the current one last).
pub(super) fn choose_move(
    board: &Board,
    keys: &[u64],
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Option<Move> {
    let mut moves = legal_moves(board);
    if moves.is_empty() {
        return None;
    }
    let Some(settings) = settings(level) else {
        return Some(match level {
            HouseLevel::Random => *arbiter_rules::random::choose(rng, &moves)?,
            _ => greedy(board, &moves, rng)?,
        });
    };
    arbiter_rules::random::shuffle(rng, &mut moves);
    let budget = Budget::new(limits.deadline, limits.max_nodes.unwrap_or(u64::MAX));
    let mut searcher = Searcher::new(budget, settings, keys.to_vec());
    match searcher.search(board, &moves, settings.max_depth) {
        Some(found) => Some(found.best),
        None => greedy(board, &moves, rng),
    }
}

/// The keys of the game's positions since its last capture or pawn move, replayed from the
/// view's start position and moves; just the current position's if the replay fails.
fn history(view: &ChessView, board: &Board) -> Vec<u64> {
    let chess960 = view.variant == Variant::Chess960;
    let replayed = (|| {
        let mut replay: Board = view.initial_fen.parse().ok()?;
        let mut keys = vec![replay.hash()];
        for text in &view.moves {
            let mv = parse_uci(&replay, text, chess960)?;
            replay.play_unchecked(mv);
            if replay.halfmove_clock() == 0 {
                keys.clear();
            }
            keys.push(replay.hash());
        }
        (replay.hash() == board.hash()).then_some(keys)
    })();
    replayed.unwrap_or_else(|| vec![board.hash()])
}

/// Greedy's move: a mate if there is one; else the most material won at once (the value
/// taken and promoted to), by the least valuable piece, to the best square; the rng breaks
/// what ties remain. `None` only without moves.
pub(super) fn greedy(board: &Board, moves: &[Move], rng: &mut dyn Random) -> Option<Move> {
    let us = board.side_to_move();
    let phase = phase_of(board);
    let mut best: Vec<Move> = Vec::new();
    let mut best_key = (i32::MIN, i32::MIN, i32::MIN);
    for &mv in moves {
        let mut child = board.clone();
        child.play_unchecked(mv);
        if !child.checkers().is_empty() && !child.generate_moves(|_| true) {
            return Some(mv);
        }
        let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
        let after = mv.promotion.unwrap_or(piece);
        let material = victim(board, mv).map_or(0, value) + value(after) - value(piece);
        let squares =
            square_bonus(after, us, mv.to, phase) - square_bonus(piece, us, mv.from, phase);
        let key = (material, -(piece as i32), squares);
        if key > best_key {
            best_key = key;
            best.clear();
        }
        if key == best_key {
            best.push(mv);
        }
    }
    arbiter_rules::random::choose(rng, &best).copied()
}
