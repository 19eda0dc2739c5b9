//! The match pages: a live match with both legs side by side (refreshed by the script as
//! events arrive), and a replay that steps through a finished leg move by move.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum_extra::extract::Form;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::WebState;
use crate::board::{Board, move_name};
use crate::error::{WebError, status_of};
use crate::pages::{Page, page, render};
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::MatchRow;

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

/// One leg as the match page shows it.
pub(crate) struct LegPanel {
    pub(crate) number: usize,
    pub(crate) black: String,
    pub(crate) white: String,
    pub(crate) status: String,
    pub(crate) svg: String,
    pub(crate) discs: (usize, usize),
    pub(crate) moves: Vec<String>,
    /// Black's clock, then White's.
    pub(crate) clocks: [ClockView; 2],
    /// `"leg revision"` when it is the visitor's turn here, for the script to send with a move.
    pub(crate) play: Option<String>,
}

impl LegPanel {
    fn of(snapshot: &Value, leg: &Value, index: usize, you: Option<u64>) -> LegPanel {
        let name = |p: u64| {
            snapshot["participants"][usize::try_from(p).unwrap_or(0)]["name"]
                .as_str()
                .unwrap_or("?")
                .to_owned()
        };
        let black = leg["first_seat_participant"].as_u64().unwrap_or(0) % 2;
        let view = &leg["view"];
        let active = leg["status"] == "active";
        let mine = active && you.is_some() && leg["to_move"].as_u64() == you;
        let board = Board::of_view(view, active);
        let board = if mine { board.playable() } else { board };
        let size = usize::try_from(view["board_size"].as_u64().unwrap_or(8)).unwrap_or(8);
        let mover = leg["to_move"].as_u64();
        let clock = |seat: u64| {
            let participant = (seat + black) % 2;
            let running = active && mover == Some(participant);
            let ms = if running {
                leg["remaining_ms"].as_i64().unwrap_or(0)
            } else {
                leg["clocks_ms"][usize::try_from(seat).unwrap_or(0)]
                    .as_i64()
                    .unwrap_or(0)
            };
            ClockView {
                ms,
                running,
                text: clock_text(ms),
            }
        };
        LegPanel {
            number: index + 1,
            black: name(black),
            white: name(1 - black),
            status: leg["status"].as_str().unwrap_or("").to_owned(),
            discs: board.discs(),
            svg: board.svg(),
            moves: view["history"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|played| move_name(&played["move"], size))
                .collect(),
            clocks: [clock(0), clock(1)],
            play: mine.then(|| format!("{index} {}", leg["revision"].as_u64().unwrap_or(0))),
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
    /// Which side the visitor plays, if they play in this match.
    pub(crate) you: Option<String>,
}

impl LegsFragment {
    fn of(snapshot: &Value, visitor: &Visitor) -> LegsFragment {
        let you = visitor.person.as_ref().and_then(|person| {
            snapshot["participants"]
                .as_array()?
                .iter()
                .position(|p| p["id"] == person.id)
                .map(|p| p as u64)
        });
        let status = snapshot["status"].as_str().unwrap_or("").to_owned();
        LegsFragment {
            id: snapshot["id"].as_i64().unwrap_or(0),
            open: matches!(status.as_str(), "pending" | "running"),
            seq: snapshot["seq"].as_i64().unwrap_or(0),
            result: MatchRow::of(snapshot).result,
            status,
            legs: snapshot["legs"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, leg)| LegPanel::of(snapshot, leg, i, you))
                .collect(),
            csrf: visitor.csrf.clone(),
            you: you.map(|p| {
                let black = snapshot["legs"][0]["first_seat_participant"].as_u64() == Some(p);
                if black { "Black" } else { "White" }.to_owned()
            }),
        }
    }
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
    pub(crate) fn of(snapshot: &Value) -> MiniBoard {
        let row = MatchRow::of(snapshot);
        MiniBoard {
            open: matches!(row.status.as_str(), "pending" | "running"),
            seq: snapshot["seq"].as_i64().unwrap_or(0),
            leg: snapshot["legs"]
                .get(0)
                .map(|leg| LegPanel::of(snapshot, leg, 0, None)),
            row,
        }
    }
}

/// `GET /matches/{id}/mini`: the match's small board alone, for the script to swap in.
pub(crate) async fn mini_fragment(
    State(state): State<WebState>,
    Path(id): Path<i64>,
) -> Result<Response, WebError> {
    let snapshot = spectate(&state, id).await?;
    let html = render(&MiniBoard::of(&snapshot))?;
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
    render(&MatchPage {
        page: page(&visitor, &format!("Match {id}")),
        row: MatchRow::of(&snapshot),
        fragment: LegsFragment::of(&snapshot, &visitor),
    })
}

/// `GET /matches/{id}/legs`: the legs alone, for the script to swap in.
pub(crate) async fn legs_fragment(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
) -> Result<Response, WebError> {
    let snapshot = spectate(&state, id).await?;
    let html = render(&LegsFragment::of(&snapshot, &visitor))?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

async fn spectate(state: &WebState, id: i64) -> Result<Value, WebError> {
    let reader = arbiter_arena::Reader::SPECTATOR;
    state
        .arena
        .snapshot(id, reader)
        .await
        .map_err(|error| match error {
            arbiter_arena::ArenaError::MatchNotFound(_) => WebError::NotFound,
            other => WebError::Arena(other),
        })
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
    svg: String,
    discs: (usize, usize),
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
    let size = usize::try_from(view["board_size"].as_u64().unwrap_or(8)).unwrap_or(8);
    let board = Board::of_view(view, false);
    let moves = positions[last]["history"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, played)| ReplayMove {
            ply: i + 1,
            name: move_name(&played["move"], size),
        })
        .collect();
    render(&ReplayPage {
        page: page(&visitor, &format!("Replay of match {id}")),
        row: MatchRow::of(&snapshot),
        leg,
        legs,
        ply,
        last,
        discs: board.discs(),
        svg: board.svg(),
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
}
