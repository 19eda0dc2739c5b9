//! The match pages: a live match with its legs side by side (refreshed by the script as
//! events arrive), and a replay that steps through a finished leg move by move. A game is
//! drawn by its family's board where it has one, else by the generic rendering
//! (`generic.rs`).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum_extra::extract::Form;
use serde::Deserialize;
use serde_json::{Value, json};

use arbiter_plugin::{BoardOptions, BoardRenderer};

use crate::WebState;
use crate::error::{WebError, status_of};
use crate::generic::{self, Field};
use crate::pages::{Page, page, render};
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::{MatchRow, participants};

/// A side's clock: what is left, whether it is running, and the text to show first.
pub(crate) struct ClockView {
    pub(crate) ms: i64,
    pub(crate) running: bool,
    pub(crate) text: String,
}

/// `m:ss`, or `h:mm:ss` for long clocks.
pub(crate) fn clock_text(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// One seat of a leg: who sits there, what they have on the board, their clock.
pub(crate) struct SideView {
    /// The participant's name.
    pub(crate) name: String,
    /// The seat's name (`Black`), or its number where the game draws no board.
    pub(crate) seat: String,
    /// The style class of the seat's marker (`black`), or empty for none.
    pub(crate) marker: String,
    /// What the seat has on the board (Othello: discs), for games with a board.
    pub(crate) tally: Option<u64>,
    pub(crate) clock: ClockView,
}

/// One leg as the match page shows it: a board where the family draws one, else the
/// viewer's view as a list of fields and the leg's public events.
pub(crate) struct LegPanel {
    pub(crate) number: usize,
    pub(crate) status: String,
    /// The seats, in seat order.
    pub(crate) sides: Vec<SideView>,
    /// The board as SVG, for families that draw one.
    pub(crate) svg: Option<String>,
    /// The actions played so far, in the family's notation (games with a board).
    pub(crate) moves: Vec<String>,
    /// The view's fields (games without a board).
    pub(crate) fields: Vec<Field>,
    /// The leg's public events, one line each (games without a board).
    pub(crate) events: Vec<String>,
    /// `"leg revision"` when it is the visitor's turn here, for the script to send with a move.
    pub(crate) play: Option<String>,
}

/// The participants' names, in participant order.
fn participant_names(snapshot: &Value) -> Vec<String> {
    participants(snapshot)
        .iter()
        .map(|p| p["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The participant in each seat of `leg`: the leg's own list where the arena gives one,
/// else the seats rotated from the participant in the first seat.
fn seat_participants(leg: &Value, count: usize) -> Vec<usize> {
    if let Some(list) = leg["participants_by_seat"].as_array() {
        return list
            .iter()
            .map(|p| {
                p.as_u64()
                    .and_then(|p| usize::try_from(p).ok())
                    .unwrap_or(0)
            })
            .collect();
    }
    let first = leg["first_seat_participant"]
        .as_u64()
        .and_then(|p| usize::try_from(p).ok())
        .unwrap_or(0);
    (0..count)
        .map(|seat| (seat + first) % count.max(1))
        .collect()
}

impl LegPanel {
    fn of(
        snapshot: &Value,
        leg: &Value,
        index: usize,
        you: Option<u64>,
        board: Option<&dyn BoardRenderer>,
        events: &[Value],
    ) -> LegPanel {
        let names = participant_names(snapshot);
        let by_seat = seat_participants(leg, names.len());
        let view = &leg["view"];
        let active = leg["status"] == "active";
        let mine = active && you.is_some() && leg["to_move"].as_u64() == you;
        let mover = leg["to_move"].as_u64();
        let tallies = board.map(|b| b.tallies(view)).unwrap_or_default();
        let sides = by_seat
            .iter()
            .enumerate()
            .map(|(seat, &participant)| {
                let running = active && mover == u64::try_from(participant).ok();
                let ms = if running {
                    leg["remaining_ms"].as_i64().unwrap_or(0)
                } else {
                    leg["clocks_ms"][seat].as_i64().unwrap_or(0)
                };
                let seat_name = board.and_then(|b| b.seat_names().get(seat).copied());
                SideView {
                    name: names.get(participant).cloned().unwrap_or_default(),
                    seat: seat_name.map_or_else(|| format!("Seat {}", seat + 1), str::to_owned),
                    marker: seat_name.map(str::to_lowercase).unwrap_or_default(),
                    tally: tallies.get(seat).copied(),
                    clock: ClockView {
                        ms,
                        running,
                        text: clock_text(ms),
                    },
                }
            })
            .collect();
        let (svg, moves, fields, events) = match board {
            Some(board) => {
                let options = BoardOptions {
                    hints: active,
                    playable: mine,
                };
                (
                    Some(board.svg(view, options)),
                    board.history(view),
                    Vec::new(),
                    Vec::new(),
                )
            }
            None => {
                let seat_names: Vec<String> = by_seat
                    .iter()
                    .map(|&p| names.get(p).cloned().unwrap_or_default())
                    .collect();
                (
                    None,
                    Vec::new(),
                    generic::fields(view, &seat_names),
                    generic::leg_events(events, index, &names),
                )
            }
        };
        LegPanel {
            number: index + 1,
            status: leg["status"].as_str().unwrap_or("").to_owned(),
            sides,
            svg,
            moves,
            fields,
            events,
            // Only a board takes a person's moves; people play games with boards.
            play: (mine && board.is_some())
                .then(|| format!("{index} {}", leg["revision"].as_u64().unwrap_or(0))),
        }
    }
}

/// The part of the match page the script refreshes.
#[derive(Template)]
#[template(path = "legs.html")]
pub(crate) struct LegsFragment {
    pub(crate) id: i64,
    pub(crate) open: bool,
    pub(crate) seq: i64,
    pub(crate) status: String,
    pub(crate) result: String,
    pub(crate) legs: Vec<LegPanel>,
    /// The visitor's CSRF value, for the moves it sends.
    pub(crate) csrf: String,
    /// Which seat the visitor has in the first leg, if they play in this match.
    pub(crate) you: Option<String>,
}

impl LegsFragment {
    /// The legs of `snapshot` for `visitor`, drawn by the family's board if it has one, else
    /// with the match's public `events`.
    fn of(
        snapshot: &Value,
        visitor: &Visitor,
        board: Option<&dyn BoardRenderer>,
        events: &[Value],
    ) -> LegsFragment {
        let you = visitor.person.as_ref().and_then(|person| {
            participants(snapshot)
                .iter()
                .position(|p| p["id"] == person.id)
                .map(|p| p as u64)
        });
        let status = snapshot["status"].as_str().unwrap_or("").to_owned();
        let legs: Vec<LegPanel> = snapshot["legs"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, leg)| LegPanel::of(snapshot, leg, i, you, board, events))
            .collect();
        let you = you.and_then(|p| {
            let names = participant_names(snapshot);
            let seat = seat_participants(&snapshot["legs"][0], names.len())
                .iter()
                .position(|&q| u64::try_from(q).ok() == Some(p))?;
            legs.first()?.sides.get(seat).map(|side| side.seat.clone())
        });
        LegsFragment {
            id: snapshot["id"].as_i64().unwrap_or(0),
            open: matches!(status.as_str(), "pending" | "running"),
            seq: snapshot["seq"].as_i64().unwrap_or(0),
            result: MatchRow::of(snapshot).result,
            status,
            legs,
            csrf: visitor.csrf.clone(),
            you,
        }
    }
}

/// The family that draws `snapshot`'s game, if it draws a board.
fn board_of(state: &WebState, snapshot: &Value) -> Option<&'static dyn BoardRenderer> {
    state
        .arena
        .games()
        .get(snapshot["game"].as_str().unwrap_or(""))
        .and_then(|family| family.board)
}

/// The match's events as a spectator reads them, for games drawn without a board (whose
/// pages list the events); nothing for games with a board.
async fn public_events(state: &WebState, snapshot: &Value) -> Result<Vec<Value>, WebError> {
    if board_of(state, snapshot).is_some() {
        return Ok(Vec::new());
    }
    let id = snapshot["id"].as_i64().unwrap_or(0);
    let mut events = Vec::new();
    let mut since = 0;
    // The arena answers in pages; a bound keeps a corrupt page from looping for ever.
    for _ in 0..1000 {
        let page = state
            .arena
            .events(id, arbiter_arena::Reader::SPECTATOR, since, 0)
            .await?;
        let batch: Vec<Value> = page.events.iter().map(|e| json!(e)).collect();
        let next = page.next_since;
        if batch.is_empty() || next <= since {
            break;
        }
        events.extend(batch);
        since = next;
    }
    Ok(events)
}

/// A running match as a small live board: its first leg, for the home page. The script
/// follows the match's events and swaps in `/matches/{id}/mini`, as the match page does with
/// its legs.
#[derive(Template)]
#[template(path = "mini.html")]
pub(crate) struct MiniBoard {
    pub(crate) row: MatchRow,
    pub(crate) open: bool,
    pub(crate) seq: i64,
    pub(crate) leg: Option<LegPanel>,
}

impl MiniBoard {
    /// The first leg of `snapshot`, drawn by `board` when the game has one; a game without
    /// a board shows its participants' names alone.
    pub(crate) fn of(snapshot: &Value, board: Option<&dyn BoardRenderer>) -> MiniBoard {
        let row = MatchRow::of(snapshot);
        MiniBoard {
            open: matches!(row.status.as_str(), "pending" | "running"),
            seq: snapshot["seq"].as_i64().unwrap_or(0),
            leg: board.and_then(|board| {
                snapshot["legs"]
                    .get(0)
                    .map(|leg| LegPanel::of(snapshot, leg, 0, None, Some(board), &[]))
            }),
            row,
        }
    }

    /// The small board of `snapshot` with the board its family draws.
    pub(crate) fn of_match(state: &WebState, snapshot: &Value) -> MiniBoard {
        MiniBoard::of(snapshot, board_of(state, snapshot))
    }
}

/// `GET /matches/{id}/mini`: the match's small board alone, for the script to swap in.
pub(crate) async fn mini_fragment(
    State(state): State<WebState>,
    Path(id): Path<i64>,
) -> Result<Response, WebError> {
    let snapshot = spectate(&state, id).await?;
    let html = render(&MiniBoard::of_match(&state, &snapshot))?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

#[derive(Template)]
#[template(path = "match.html")]
struct MatchPage {
    page: Page,
    row: MatchRow,
    fragment: LegsFragment,
}

/// `GET /matches/{id}`: the match, live while it is played.
pub(crate) async fn match_page(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
) -> Result<Html<String>, WebError> {
    let snapshot = spectate(&state, id).await?;
    let events = public_events(&state, &snapshot).await?;
    render(&MatchPage {
        page: page(&visitor, &format!("Match {id}")),
        row: MatchRow::of(&snapshot),
        fragment: LegsFragment::of(&snapshot, &visitor, board_of(&state, &snapshot), &events),
    })
}

/// `GET /matches/{id}/legs`: the legs alone, for the script to swap in.
pub(crate) async fn legs_fragment(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
) -> Result<Response, WebError> {
    let snapshot = spectate(&state, id).await?;
    let events = public_events(&state, &snapshot).await?;
    let board = board_of(&state, &snapshot);
    let html = render(&LegsFragment::of(&snapshot, &visitor, board, &events))?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

async fn spectate(state: &WebState, id: i64) -> Result<Value, WebError> {
    let reader = arbiter_arena::Reader::SPECTATOR;
    let snapshot = state
        .arena
        .snapshot(id, reader)
        .await
        .map_err(|error| match error {
            arbiter_arena::ArenaError::MatchNotFound(_) => WebError::NotFound,
            other => WebError::Arena(other),
        })?;
    Ok(json!(snapshot))
}

/// A move a person plays by clicking a square.
#[derive(Deserialize)]
pub(crate) struct MoveForm {
    #[serde(default)]
    csrf: String,
    leg: u8,
    revision: u64,
    square: i64,
}

/// `POST /matches/{id}/moves`: a person's move. Answers `{"ok": true}` or
/// `{"ok": false, "error"}` with the arena's status, for the script.
pub(crate) async fn play(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<MoveForm>,
) -> Response {
    let answer = |status: StatusCode, error: Option<String>| {
        let body = match error {
            None => json!({"ok": true}),
            Some(error) => json!({"ok": false, "error": error}),
        };
        (status, axum::Json(body)).into_response()
    };
    if visitor.check(&form.csrf).is_err() {
        return answer(StatusCode::FORBIDDEN, Some("invalid csrf".to_owned()));
    }
    let Some(person) = &visitor.person else {
        let error = "you do not play in this match".to_owned();
        return answer(StatusCode::FORBIDDEN, Some(error));
    };
    let square = json!(form.square);
    match state
        .arena
        .submit(person, id, form.leg, form.revision, square)
        .await
    {
        Ok(_) => answer(StatusCode::OK, None),
        Err(error) => answer(status_of(&error), Some(error.to_string())),
    }
}

/// The replay's query: which leg, after how many moves (the last by default).
#[derive(Deserialize)]
pub(crate) struct ReplayQuery {
    leg: Option<usize>,
    ply: Option<usize>,
}

/// One entry of the replay's move list.
pub(crate) struct ReplayMove {
    pub(crate) ply: usize,
    pub(crate) name: String,
}

#[derive(Template)]
#[template(path = "replay.html")]
struct ReplayPage {
    page: Page,
    row: MatchRow,
    leg: usize,
    legs: usize,
    ply: usize,
    last: usize,
    /// The board after `ply` actions, for games with a board.
    svg: Option<String>,
    /// What each seat has on the board then, with the seat's name.
    tallies: Vec<(String, u64)>,
    /// The view's fields then, for games without a board.
    fields: Vec<Field>,
    moves: Vec<ReplayMove>,
}

/// `GET /matches/{id}/replay?leg=0&ply=12`: a finished leg after `ply` moves.
pub(crate) async fn replay(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Query(query): Query<ReplayQuery>,
) -> Result<Html<String>, WebError> {
    let snapshot = spectate(&state, id).await?;
    let legs = snapshot["legs"].as_array().map_or(0, Vec::len);
    let leg = query.leg.unwrap_or(0);
    if leg >= legs {
        return Err(WebError::NotFound);
    }
    let positions = state.arena.positions(id, leg).await?;
    let last = positions.len() - 1;
    let ply = query.ply.unwrap_or(last).min(last);
    let view = &positions[ply];
    let board = board_of(&state, &snapshot);
    let (svg, tallies, fields, names) = match board {
        Some(board) => {
            let tallies = board
                .seat_names()
                .iter()
                .map(|s| (*s).to_owned())
                .zip(board.tallies(view))
                .collect();
            let options = BoardOptions::default();
            let names = board.history(&positions[last]);
            (Some(board.svg(view, options)), tallies, Vec::new(), names)
        }
        None => {
            let participants = participant_names(&snapshot);
            let seats: Vec<String> = seat_participants(&snapshot["legs"][leg], participants.len())
                .iter()
                .map(|&p| participants.get(p).cloned().unwrap_or_default())
                .collect();
            let names = (1..=last).map(|n| format!("position {n}")).collect();
            (None, Vec::new(), generic::fields(view, &seats), names)
        }
    };
    let moves = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| ReplayMove { ply: i + 1, name })
        .collect();
    render(&ReplayPage {
        page: page(&visitor, &format!("Replay of match {id}")),
        row: MatchRow::of(&snapshot),
        leg,
        legs,
        ply,
        last,
        svg,
        tallies,
        fields,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_as_minutes_and_seconds() {
        let cases = [
            (0, "0:00"),
            (59_999, "0:59"),
            (60_000, "1:00"),
            (-5, "0:00"),
            (3_723_000, "1:02:03"),
        ];
        for (ms, text) in cases {
            assert_eq!(clock_text(ms), text);
        }
    }

    #[test]
    fn a_game_without_a_board_is_shown_as_escaped_text() {
        let snapshot = json!({"id": 3, "status": "running", "seq": 9,
            "participants": [{"name": "<i>Ann</i>"}, {"name": "Bob"}, {"name": "Cy"}],
            "legs": [{"status": "active", "first_seat_participant": 1, "clocks_ms": [1000, 2000, 3000],
                "view": {"note": "<script>alert(1)</script>", "scores": [1, 2, 3]}}]});
        let events = [json!({"type": "move", "data": {"leg": 0, "participant": 0,
            "action": {"card": 9}, "events": [{"type": "said", "text": "<b>hi</b>"}]}})];
        let leg = LegPanel::of(&snapshot, &snapshot["legs"][0], 0, None, None, &events);
        let seats: Vec<&str> = leg.sides.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            seats,
            ["Bob", "Cy", "<i>Ann</i>"],
            "seats rotate from the first"
        );
        let fragment = LegsFragment {
            id: 3,
            open: true,
            seq: 9,
            status: "running".to_owned(),
            result: String::new(),
            legs: vec![leg],
            csrf: String::new(),
            you: None,
        };
        let html = fragment.render().expect("render");
        for raw in ["<script>", "<b>", "<i>"] {
            assert!(!html.contains(raw), "{raw}: {html}");
        }
        assert!(html.contains("&#60;script&#62;"), "{html}");
        assert!(
            html.contains("said: text &#60;b&#62;hi&#60;/b&#62;"),
            "{html}"
        );
        assert!(
            !html.contains("card"),
            "a move's action is never shown: {html}"
        );
        assert!(html.contains("<span class=\"label\">Cy</span> 2"), "{html}");
    }
}
