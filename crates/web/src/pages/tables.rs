//! Open tables on the pages: the list of tables with a free seat, sitting down at one, and
//! opening one. People sit at tables as bots do, through the same arena functions; a table's
//! match starts when its last seat is taken, and the match page follows it from then on.

use arbiter_arena::{
    ArenaError, Format, Language, MatchSnapshot, MatchSummary, TableRequest, TimeControl,
};
use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use serde::Deserialize;

use super::play::person_for;
use super::{Page, page, render, render_with};
use crate::WebState;
use crate::error::{WebError, status_of};
use crate::session::{ClientAddress, Visitor};
use crate::view::VariantChoice;

/// How many open tables the page lists.
const TABLES_SHOWN: usize = 50;

/// The clocks a table may be opened with: each seat's minutes and the seconds added after
/// each of its actions, as the form's value (`5+0`) names them.
const CLOCKS: [(&str, i64, i64); 5] = [
    ("1+0", 1, 0),
    ("3+2", 3, 2),
    ("5+0", 5, 0),
    ("10+5", 10, 5),
    ("30+0", 30, 0),
];

/// The clock preset the form shows first.
const DEFAULT_CLOCK: &str = "5+0";

/// One open table as the list shows it.
pub(crate) struct TableRow {
    pub(crate) id: i64,
    pub(crate) game: String,
    pub(crate) variant: String,
    /// How many seats are taken, and how many the table has.
    pub(crate) taken: usize,
    pub(crate) seats: usize,
    /// Who is seated, in seat order of arrival.
    pub(crate) names: Vec<String>,
    /// The clocks, as `5 min + 2 s`.
    pub(crate) clock: String,
    /// Whether its result will be rated.
    pub(crate) rated: bool,
    /// Whether the visitor already has a seat here.
    pub(crate) seated: bool,
    /// Whether the visitor opened the table and may start it now with house bots in its
    /// free seats (the game has a house player).
    pub(crate) fillable: bool,
}

impl TableRow {
    /// A table from the arena's snapshot of it, for `visitor`.
    fn of(state: &WebState, table: &MatchSnapshot, visitor: &Visitor) -> TableRow {
        let seated = &table.participants;
        let you = visitor.person.as_ref().map(|person| person.id);
        TableRow {
            id: table.id,
            game: table.game.to_owned(),
            variant: table.variant.clone(),
            taken: seated.len(),
            seats: table.table.map_or(seated.len(), |t| t.seats),
            names: seated.iter().map(|p| p.name.clone()).collect(),
            clock: clock_text(&table.time_control),
            rated: table.rated,
            seated: you.is_some_and(|you| seated.iter().any(|p| p.id == you)),
            fillable: fillable_by(state, table, visitor),
        }
    }
}

/// Whether `visitor` may start `table` now with house bots in its free seats: they opened
/// it (a table's first participant is its opener), it still waits, and its game has house
/// bots ([`arbiter_arena::Arena::fill_table_with_house`] is the judge).
pub(crate) fn fillable_by(state: &WebState, table: &MatchSnapshot, visitor: &Visitor) -> bool {
    let opener = table.participants.first().map(|p| p.id);
    table.table.is_some_and(|t| t.table)
        && table.status == arbiter_arena::MatchStatus::Pending
        && opener.is_some()
        && visitor.person.as_ref().map(|p| p.id) == opener
        && state
            .arena
            .games()
            .get(table.game)
            .is_some_and(|family| family.house.is_some())
}

/// A time control in words: `5 min + 2 s`, with a limit per turn where there is one.
pub(crate) fn clock_text(time_control: &TimeControl) -> String {
    let initial = time_control.initial_ms / 1000;
    let mut text = if initial % 60 == 0 {
        format!("{} min", initial / 60)
    } else {
        format!("{initial} s")
    };
    let increment = time_control.increment_ms / 1000;
    if increment > 0 {
        text.push_str(&format!(" + {increment} s"));
    }
    if let Some(turn) = time_control.per_turn_ms {
        text.push_str(&format!(", {} s a turn", turn / 1000));
    }
    text
}

/// A mode a table may be opened in, with its seat range.
pub(crate) struct TableMode {
    /// What the form sends (see [`VariantChoice::key`]).
    pub(crate) key: String,
    /// `game variant (2–4 seats)`.
    pub(crate) label: String,
}

/// The open tables alone, which the tables page fetches again every few seconds.
#[derive(Template)]
#[template(path = "table_list.html")]
struct TableList {
    page: Page,
    tables: Vec<TableRow>,
    signature: String,
}

/// What tells one list of open tables from another: each table and its seats taken.
fn signature(tables: &[TableRow]) -> String {
    tables
        .iter()
        .map(|t| format!("{}:{}", t.id, t.taken))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The open tables as `visitor` sees them.
async fn table_rows(state: &WebState, visitor: &Visitor) -> Vec<TableRow> {
    state
        .arena
        .open_tables(TABLES_SHOWN)
        .await
        .iter()
        .map(|table| TableRow::of(state, table, visitor))
        .collect()
}

#[derive(Template)]
#[template(path = "tables.html")]
struct TablesPage {
    page: Page,
    tables: Vec<TableRow>,
    /// See [`signature`].
    signature: String,
    modes: Vec<TableMode>,
    /// The most seats any mode has, for the seat field's bound.
    max_seats: u8,
    /// The clock presets' values, and which the form shows first.
    clocks: Vec<&'static str>,
    default_clock: &'static str,
    /// The languages a room may talk in, the default first.
    languages: [Language; 2],
    /// Why a form was refused, when one was.
    message: Option<String>,
}

/// The tables page as `visitor` sees it, with `message` when a form was refused.
async fn tables_page(state: &WebState, visitor: &Visitor, message: Option<String>) -> TablesPage {
    let games = state.arena.games();
    let mut max_seats = 2;
    let modes = VariantChoice::all(games)
        .into_iter()
        .filter_map(|choice| {
            let spec = games.get(choice.game)?.variant(choice.variant)?;
            max_seats = max_seats.max(spec.max_seats);
            let seats = if spec.min_seats == spec.max_seats {
                format!("{} seats", spec.min_seats)
            } else {
                format!("{}–{} seats", spec.min_seats, spec.max_seats)
            };
            Some(TableMode {
                label: format!("{} {} ({seats})", choice.game, choice.variant),
                key: choice.key,
            })
        })
        .collect();
    let tables = table_rows(state, visitor).await;
    TablesPage {
        page: page(visitor, "Open tables"),
        signature: signature(&tables),
        tables,
        modes,
        max_seats,
        clocks: CLOCKS.iter().map(|(name, _, _)| *name).collect(),
        default_clock: DEFAULT_CLOCK,
        languages: Language::ALL,
        message,
    }
}

/// The tables page again with why a form was refused, under `status`.
async fn refused(
    state: &WebState,
    visitor: &Visitor,
    status: StatusCode,
    message: String,
) -> Response {
    render_with(status, &tables_page(state, visitor, Some(message)).await)
}

/// The status and the sentence for an arena's refusal of a table form. A seat that cannot be
/// taken because the table's match has started (or the table closed) is said so plainly.
fn refusal(error: &ArenaError) -> (StatusCode, String) {
    let message = match error {
        ArenaError::ChallengeNotPending => "That table is full or no longer open.".to_owned(),
        other => other.to_string(),
    };
    (status_of(error), message)
}

/// `GET /tables/list`: the open tables alone, for the tables page to swap in when they change.
pub(crate) async fn table_list(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Response, WebError> {
    let tables = table_rows(&state, &visitor).await;
    let html = render(&TableList {
        page: page(&visitor, "Open tables"),
        signature: signature(&tables),
        tables,
    })?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

/// `GET /tables`: the open tables with a free seat, and the form to open one.
pub(crate) async fn tables(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Html<String>, WebError> {
    render(&tables_page(&state, &visitor, None).await)
}

/// The form to open a table.
#[derive(Deserialize)]
pub(crate) struct OpenForm {
    #[serde(default)]
    csrf: String,
    /// The mode's key.
    #[serde(default)]
    mode: String,
    #[serde(default)]
    seats: usize,
    /// One of the clock presets (`5+0`).
    #[serde(default)]
    clock: String,
    /// The room's language code (`en`, `ko`); English when absent.
    #[serde(default)]
    language: String,
}

/// The table the open form asks for, checked against the registry and the presets (the
/// arena checks the seats against the variant), or why it cannot be.
fn table_request(state: &WebState, form: &OpenForm) -> Result<TableRequest, String> {
    let mode = state
        .arena
        .games()
        .mode_of_key(&form.mode)
        .map_err(|e| e.to_string())?;
    let (_, minutes, increment) = CLOCKS
        .iter()
        .find(|(name, _, _)| *name == form.clock)
        .ok_or_else(|| "choose one of the clocks offered".to_owned())?;
    Ok(TableRequest {
        game: mode.game.to_owned(),
        variant: Some(mode.variant.to_owned()),
        seats: form.seats,
        // People play one leg, as in their challenges.
        format: Format::Single,
        time_control: TimeControl {
            initial_ms: minutes * 60_000,
            increment_ms: increment * 1_000,
            per_turn_ms: None,
        },
        client_seed: None,
        language: match form.language.as_str() {
            "" => Language::default(),
            code => Language::parse(code)
                .ok_or_else(|| "choose one of the languages offered".to_owned())?,
        },
    })
}

/// `POST /tables`: the visitor (signed in, or as a guest) opens a table, takes its first
/// seat, and is taken to its match page, where it starts once the table is full.
pub(crate) async fn open_table(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<OpenForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let request = match table_request(&state, &form) {
        Ok(request) => request,
        Err(message) => {
            return Ok(refused(&state, &visitor, StatusCode::BAD_REQUEST, message).await);
        }
    };
    let (person, jar) = person_for(&state, &visitor, client).await?;
    match state.arena.open_table(&person, request).await {
        Ok(created) => Ok((jar, to_match(&created)).into_response()),
        Err(error) => {
            let (status, message) = refusal(&error);
            Ok((jar, refused(&state, &visitor, status, message).await).into_response())
        }
    }
}

/// `POST /tables/{id}/join`: the visitor (signed in, or as a guest) sits down at table `id`
/// and is taken to its match page.
pub(crate) async fn join_table(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Path(id): Path<i64>,
    Form(form): Form<super::CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let (person, jar) = person_for(&state, &visitor, client).await?;
    match state.arena.join_table(&person, id, None).await {
        Ok(_) => Ok((jar, Redirect::to(&format!("/matches/{id}"))).into_response()),
        Err(ArenaError::MatchNotFound(_)) => Err(WebError::NotFound),
        Err(error) => {
            let (status, message) = refusal(&error);
            Ok((jar, refused(&state, &visitor, status, message).await).into_response())
        }
    }
}

/// `POST /tables/{id}/fill`: the person who opened table `id` starts it now, house bots
/// taking its free seats, and is taken to its match page.
pub(crate) async fn fill_table(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<super::CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let Some(person) = &visitor.person else {
        return Ok(refused(
            &state,
            &visitor,
            StatusCode::FORBIDDEN,
            "only the person who opened a table starts it with house bots".to_owned(),
        )
        .await);
    };
    match state.arena.fill_table_with_house(person, id).await {
        Ok(_) => Ok(Redirect::to(&format!("/matches/{id}")).into_response()),
        Err(ArenaError::MatchNotFound(_)) => Err(WebError::NotFound),
        Err(error) => {
            let (status, message) = refusal(&error);
            Ok(refused(&state, &visitor, status, message).await)
        }
    }
}

/// The way to a match the arena just created.
fn to_match(created: &MatchSummary) -> Response {
    Redirect::to(&format!("/matches/{}", created.id)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_as_words() {
        let clock = |initial_ms, increment_ms, per_turn_ms| TimeControl {
            initial_ms,
            increment_ms,
            per_turn_ms,
        };
        let cases = [
            (clock(300_000, 0, None), "5 min"),
            (clock(180_000, 2_000, None), "3 min + 2 s"),
            (clock(30_000, 0, Some(5_000)), "30 s, 5 s a turn"),
        ];
        for (time_control, text) in cases {
            assert_eq!(clock_text(&time_control), text);
        }
    }

    #[test]
    fn every_clock_preset_is_a_valid_time_control() {
        for (name, minutes, increment) in CLOCKS {
            let time_control = TimeControl {
                initial_ms: minutes * 60_000,
                increment_ms: increment * 1_000,
                per_turn_ms: None,
            };
            assert!(time_control.validate().is_ok(), "{name}");
        }
        assert!(CLOCKS.iter().any(|(name, _, _)| *name == DEFAULT_CLOCK));
    }
}
