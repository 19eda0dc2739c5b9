//! GGF game records, as NBoard's `set game` carries them.

use std::fmt::Write as _;
use std::time::Duration;

use arbiter_engine_protocol::EngineRequest;
use arbiter_othello::Color;

/// A record of the position in `request` with `clock` on the mover's side: the current board
/// as the start (`BO`) with the side to move and no moves, which is all an engine needs. The
/// match's opening and earlier moves are not part of an engine request, and a record that
/// started from the standard position would have to invent them.
pub(crate) fn record(request: &EngineRequest, clock: Duration) -> String {
    let mut board = String::with_capacity(request.board.len());
    for &cell in &request.board {
        board.push(match cell {
            1 => '*',
            2 => 'O',
            _ => '-',
        });
    }
    let side = match request.color {
        Color::Black => '*',
        Color::White => 'O',
    };
    let mut out = String::with_capacity(board.len() + 120);
    let _ = write!(
        out,
        "(;GM[Othello]PC[Arbiter]PB[black]PW[white]RE[?]TI[{}]TY[8]BO[8 {board} {side}];)",
        clock_text(clock)
    );
    out
}

/// A GGF clock, `minutes:seconds`, at least one second.
fn clock_text(clock: Duration) -> String {
    let seconds = clock.as_secs().max(1);
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_holds_the_board_and_the_side_to_move() {
        let request: EngineRequest = serde_json::from_str(
            r#"{"board":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,1,0,0,0,0,0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"color":2,"legal_moves":[20,29,34,43],"game_mode":"std","board_size":8,"blocked_squares":[],"placed":{"1":0,"2":0},"remaining_ms":60000,"match_id":1,"leg":0,"revision":1,"history":[],"round_no":null,"room_created_at":null,"budget_ms":10000}"#,
        )
        .expect("a request");
        assert_eq!(
            record(&request, Duration::from_millis(75_500)),
            "(;GM[Othello]PC[Arbiter]PB[black]PW[white]RE[?]TI[1:15]TY[8]BO[8 ---------------------------O*------*O--------------------------- O];)"
        );
        assert!(record(&request, Duration::ZERO).contains("TI[0:01]"));
    }
}
