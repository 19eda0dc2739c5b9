//! Tournaments on the pages: the list of tournaments with the form a signed-in person
//! organises one with, and a tournament's page (its terms, entrants, standings, crosstable
//! and rounds, with each round's commitment and, once it has ended, its seed). Its organiser
//! starts, pauses and resumes it and enters house bots there; a signed-in person enters and
//! withdraws where the organiser lets people play. A running tournament's standings and
//! rounds are fetched again as a fragment, like the lobby's list.

use arbiter_arena::{
    ArenaError, BotKind, GameEnd, Organiser, TimeControl, Tournament, TournamentAction,
    TournamentFormat, TournamentRequest, TournamentStatus,
};
use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use serde::Deserialize;

use super::tables::clock_text;
use super::{CsrfForm, Page, page, render, render_with};
use crate::WebState;
use crate::error::{WebError, status_of};
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::{VariantChoice, date_text};

/// A tournament in the list.
pub(crate) struct TournamentRow {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) game: String,
    pub(crate) variant: String,
    /// The format in words (`Swiss, 5 rounds`).
    pub(crate) format: String,
    pub(crate) status: &'static str,
    pub(crate) entrants: usize,
    pub(crate) rated: bool,
    /// When it was created, in words (`2026-11-29 09:46 UTC`).
    pub(crate) created: String,
}

impl TournamentRow {
    fn of(tournament: &Tournament) -> TournamentRow {
        TournamentRow {
            id: tournament.id,
            name: tournament.name.clone(),
            game: tournament.game.clone(),
            variant: tournament.variant.clone(),
            format: tournament.format.describe(),
            status: tournament.status.as_str(),
            entrants: tournament.entrants.len(),
            rated: tournament.rated,
            created: date_text(tournament.created_ms),
        }
    }
}

/// A mode a tournament may be played in: any registered variant (those two cannot play only
/// at tables).
pub(crate) struct TournamentMode {
    /// What the form sends (see [`VariantChoice::key`]).
    pub(crate) key: String,
    /// `game variant`.
    pub(crate) label: String,
}

/// The form that creates a tournament. Every field is text, so that a field left empty or
/// mistyped is answered with a sentence on the page rather than the framework's refusal;
/// the page shows it again as it was sent when it is refused.
#[derive(Clone, Deserialize)]
pub(crate) struct CreateForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    pub(crate) name: String,
    /// The mode's key.
    #[serde(default)]
    pub(crate) mode: String,
    /// `round_robin`, `swiss`, `arena` or `tables`.
    #[serde(default)]
    pub(crate) kind: String,
    /// A round robin's cycles.
    #[serde(default)]
    pub(crate) cycles: String,
    /// A Swiss tournament's rounds, or one at tables.
    #[serde(default)]
    pub(crate) rounds: String,
    /// The most seats at a table.
    #[serde(default)]
    pub(crate) seats: String,
    /// An arena's length in minutes.
    #[serde(default)]
    pub(crate) minutes: String,
    /// Each side's clock at the start of a game, in seconds.
    #[serde(default)]
    pub(crate) initial: String,
    /// The seconds added after each action.
    #[serde(default)]
    pub(crate) increment: String,
    /// Present (`true`) when the games are to be rated.
    #[serde(default)]
    pub(crate) rated: bool,
    /// Present (`true`) when people may enter.
    #[serde(default)]
    pub(crate) people: bool,
}

impl Default for CreateForm {
    fn default() -> CreateForm {
        let clock = TimeControl::default();
        CreateForm {
            csrf: String::new(),
            name: String::new(),
            mode: String::new(),
            kind: "round_robin".to_owned(),
            cycles: "1".to_owned(),
            rounds: "3".to_owned(),
            minutes: "30".to_owned(),
            seats: "4".to_owned(),
            initial: (clock.initial_ms / 1000).to_string(),
            increment: (clock.increment_ms / 1000).to_string(),
            rated: false,
            people: false,
        }
    }
}

/// The formats the form offers, as (value, label).
const KINDS: [(&str, &str); 4] = [
    ("round_robin", "Round robin"),
    ("swiss", "Swiss"),
    ("arena", "Arena"),
    ("tables", "Rounds at tables (games for more than two)"),
];

#[derive(Template)]
#[template(path = "tournaments.html")]
struct TournamentsPage {
    page: Page,
    tournaments: Vec<TournamentRow>,
    /// Whether the visitor is signed in, and so may organise one.
    signed_in: bool,
    modes: Vec<TournamentMode>,
    kinds: [(&'static str, &'static str); 4],
    /// What the form shows: the defaults, or what a refused form sent.
    form: CreateForm,
    /// The bounds the form's fields take.
    max_cycles: u8,
    max_rounds: u32,
    max_minutes: u32,
    /// Why the form was refused, when it was.
    message: Option<String>,
}

/// The modes a tournament may be played in: every registered variant (one two cannot play
/// only at tables, which the arena checks).
fn tournament_modes(state: &WebState) -> Vec<TournamentMode> {
    VariantChoice::all(state.arena.games())
        .into_iter()
        .map(|choice| TournamentMode {
            label: format!("{} {}", choice.game, choice.variant),
            key: choice.key,
        })
        .collect()
}

/// The list of tournaments as `visitor` sees it, with the create form showing `form` and
/// `message` when it was refused.
async fn list_page(
    state: &WebState,
    visitor: &Visitor,
    form: CreateForm,
    message: Option<String>,
) -> Result<TournamentsPage, WebError> {
    let tournaments = state.arena.tournaments().await?;
    Ok(TournamentsPage {
        page: page(visitor, "Tournaments"),
        tournaments: tournaments.iter().map(TournamentRow::of).collect(),
        signed_in: visitor.account.is_some(),
        modes: tournament_modes(state),
        kinds: KINDS,
        form,
        max_cycles: TournamentFormat::MAX_CYCLES,
        max_rounds: TournamentFormat::MAX_ROUNDS,
        max_minutes: TournamentFormat::MAX_MINUTES,
        message,
    })
}

/// `GET /tournaments`: every tournament, newest first, and the form to organise one.
pub(crate) async fn tournaments(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Html<String>, WebError> {
    render(&list_page(&state, &visitor, CreateForm::default(), None).await?)
}

/// A whole number from a form's field, within `range`, or a sentence that says what the
/// field takes.
fn number<T>(text: &str, what: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match text.trim().parse::<T>() {
        Ok(value) if range.contains(&value) => Ok(value),
        _ => Err(format!(
            "{what} must be a whole number from {} to {}",
            range.start(),
            range.end()
        )),
    }
}

/// The tournament the create form asks for, checked against the registry, or why it cannot
/// be. The arena checks the rest (the name, the bounds of the format and the clock) again.
fn tournament_request(state: &WebState, form: &CreateForm) -> Result<TournamentRequest, String> {
    let mode = state
        .arena
        .games()
        .mode_of_key(&form.mode)
        .map_err(|e| e.to_string())?;
    let format = match form.kind.as_str() {
        "round_robin" => TournamentFormat::RoundRobin {
            cycles: number(
                &form.cycles,
                "A round robin's cycles",
                1..=TournamentFormat::MAX_CYCLES,
            )?,
        },
        "swiss" => TournamentFormat::Swiss {
            rounds: number(
                &form.rounds,
                "A Swiss tournament's rounds",
                1..=TournamentFormat::MAX_ROUNDS,
            )?,
        },
        "arena" => TournamentFormat::Arena {
            minutes: number(
                &form.minutes,
                "An arena's minutes",
                1..=TournamentFormat::MAX_MINUTES,
            )?,
        },
        "tables" => TournamentFormat::Tables {
            rounds: number(
                &form.rounds,
                "The rounds at tables",
                1..=TournamentFormat::MAX_ROUNDS,
            )?,
            seats: number(&form.seats, "The seats at a table", 2..=8)?,
        },
        _ => return Err("choose one of the formats offered".to_owned()),
    };
    let initial: i64 = number(&form.initial, "The initial clock in seconds", 1..=86_400)?;
    let increment: i64 = number(&form.increment, "The increment in seconds", 0..=3_600)?;
    Ok(TournamentRequest {
        name: form.name.clone(),
        game: mode.game.to_owned(),
        variant: Some(mode.variant.to_owned()),
        format,
        time_control: TimeControl {
            initial_ms: initial * 1_000,
            increment_ms: increment * 1_000,
            per_turn_ms: None,
        },
        rated: form.rated,
        people: form.people,
    })
}

/// `POST /tournaments`: a signed-in person organises a tournament and is taken to its page.
pub(crate) async fn create_tournament(
    State(state): State<WebState>,
    visitor: Visitor,
    Form(form): Form<CreateForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let (status, message) = match tournament_request(&state, &form) {
        Ok(request) => {
            let organiser = Organiser::Account { id: account.id };
            match state.arena.create_tournament(organiser, request).await {
                Ok(created) => return Ok(to_tournament(created.id)),
                Err(error) => (status_of(&error), error.to_string()),
            }
        }
        Err(message) => (StatusCode::BAD_REQUEST, message),
    };
    let page = list_page(&state, &visitor, form, Some(message)).await?;
    Ok(render_with(status, &page))
}

/// The way back to a tournament's page after a form.
fn to_tournament(id: i64) -> Response {
    Redirect::to(&format!("/tournaments/{id}")).into_response()
}

/// One entrant as the tournament's page lists it, in seeding order.
pub(crate) struct EntrantView {
    pub(crate) name: String,
    /// Whether it is a bot with a page (people have none).
    pub(crate) bot: bool,
    /// The bot's id, which the organiser's withdraw form sends (a name may change).
    pub(crate) id: i64,
    pub(crate) kind: &'static str,
    pub(crate) withdrawn: bool,
}

/// One line of the standings.
pub(crate) struct StandingView {
    pub(crate) rank: usize,
    pub(crate) name: String,
    pub(crate) bot: bool,
    pub(crate) points: String,
    pub(crate) games: u32,
    pub(crate) wins: u32,
    pub(crate) draws: u32,
    pub(crate) losses: u32,
    pub(crate) byes: u32,
    /// Buchholz and Sonneborn–Berger, where the format has them.
    pub(crate) buchholz: Option<String>,
    pub(crate) sonneborn_berger: Option<String>,
    /// In an arena, whether its wins score double now.
    pub(crate) on_fire: bool,
    pub(crate) withdrawn: bool,
}

/// One row of the crosstable: an entrant, and its scores against each entrant in seeding
/// order.
pub(crate) struct CrossRow {
    pub(crate) number: usize,
    pub(crate) name: String,
    /// Each opponent's cell: the scores of their games from this row's side (`1 ½`), or
    /// `None` on the diagonal.
    pub(crate) cells: Vec<Option<String>>,
}

/// One game of a round.
pub(crate) struct GameView {
    pub(crate) first: String,
    pub(crate) first_bot: bool,
    pub(crate) second: String,
    pub(crate) second_bot: bool,
    pub(crate) match_id: i64,
    /// The result (`1–0`, `½–½`, `void`), or `None` while it is played.
    pub(crate) result: Option<String>,
}

/// One round as the page shows it.
pub(crate) struct RoundView {
    /// Its number, from 1.
    pub(crate) number: u32,
    pub(crate) games: Vec<GameView>,
    /// Its tables, in a tournament of games for more than two.
    pub(crate) tables: Vec<TableView>,
    /// The entrants who sit it out with a bye.
    pub(crate) byes: Vec<String>,
    pub(crate) commitment: String,
    /// The seed, once the round has ended.
    pub(crate) seed: Option<String>,
    pub(crate) ended: bool,
}

/// One table's game of a round: its seats in order, each with its place once it has ended.
pub(crate) struct TableView {
    /// Each seat's entrant's name, and its place (`1st`, `2nd`, …) once the game has ended.
    pub(crate) seats: Vec<(String, Option<String>)>,
    pub(crate) match_id: i64,
    /// Whether the game has ended.
    pub(crate) ended: bool,
}

/// A place as an ordinal (`1st`, `2nd`, `3rd`, `4th`, …).
fn ordinal(place: u8) -> String {
    let suffix = match (place % 10, place % 100) {
        (1, p) if p != 11 => "st",
        (2, p) if p != 12 => "nd",
        (3, p) if p != 13 => "rd",
        _ => "th",
    };
    format!("{place}{suffix}")
}

/// What the page refreshes while the tournament runs: its status, standings, crosstable and
/// rounds. It names nobody's secrets and holds no form, so that every visitor gets the same.
#[derive(Template)]
#[template(path = "tournament_live.html")]
pub(crate) struct LiveView {
    pub(crate) id: i64,
    /// Whether the page's script fetches it again: while games may still be paired or played.
    pub(crate) refresh: bool,
    /// What tells one state of the tournament from another (see [`signature`]).
    pub(crate) signature: String,
    pub(crate) status: &'static str,
    /// Whether it has started, so that its standings mean something.
    pub(crate) started: bool,
    /// Whether it is an arena: points with streaks rather than tie-breaks and byes.
    pub(crate) arena: bool,
    pub(crate) standings: Vec<StandingView>,
    pub(crate) crosstable: Vec<CrossRow>,
    /// The rounds, the latest first.
    pub(crate) rounds: Vec<RoundView>,
}

/// A number of points as chess players write them: `2½`, `½`, `3`; anything finer than a
/// half (a Sonneborn–Berger of quarters) with two decimals.
pub(crate) fn points_text(points: f64) -> String {
    let halves = (points * 2.0).round();
    if (points * 2.0 - halves).abs() > 1e-9 || !halves.is_finite() {
        return format!("{points:.2}");
    }
    // Points are small, so the rounded count of halves is exact as an integer.
    let halves = halves as i64;
    let (whole, half) = (halves.div_euclid(2), halves.rem_euclid(2) == 1);
    match (whole, half) {
        (0, true) => "½".to_owned(),
        (whole, true) => format!("{whole}½"),
        (whole, false) => whole.to_string(),
    }
}

/// A game's score for one side, from its halves of a point.
fn half_text(halves: u32) -> &'static str {
    match halves {
        0 => "0",
        1 => "½",
        _ => "1",
    }
}

/// How a game ended, from the first seat's side, or `None` while it is played.
fn result_text(end: Option<GameEnd>) -> Option<String> {
    match end? {
        GameEnd::Played(outcome) => {
            let (first, second) = outcome.halves();
            Some(format!("{}–{}", half_text(first), half_text(second)))
        }
        GameEnd::Void => Some("void".to_owned()),
    }
}

/// What tells one state of a tournament from another, for the script to swap in a fragment
/// only when something it shows changed: the status, the entrants and withdrawals, and each
/// round's games ended.
fn signature(tournament: &Tournament) -> String {
    let withdrawn = tournament.entrants.iter().filter(|e| e.withdrawn).count();
    let mut signature = format!(
        "{} {}/{withdrawn}",
        tournament.status.as_str(),
        tournament.entrants.len()
    );
    for round in &tournament.rounds {
        let ended = round.games.iter().filter(|g| g.end.is_some()).count()
            + round.tables.iter().filter(|t| t.ended).count();
        signature.push_str(&format!(" {}:{ended}:{}", round.number, round.ended));
    }
    signature
}

impl LiveView {
    /// `tournament`'s status, standings, crosstable and rounds.
    pub(crate) fn of(tournament: &Tournament) -> LiveView {
        let entrants = &tournament.entrants;
        let is_bot = |entrant: usize| {
            entrants
                .get(entrant)
                .is_some_and(|e| e.kind != BotKind::Human)
        };
        let name_of = |entrant: usize| {
            entrants
                .get(entrant)
                .map_or_else(|| format!("entrant {}", entrant + 1), |e| e.name.clone())
        };
        let standings = tournament
            .standings()
            .into_iter()
            .map(|s| StandingView {
                rank: s.rank,
                bot: is_bot(s.entrant),
                name: s.name,
                points: points_text(s.points),
                games: s.games,
                wins: s.wins,
                draws: s.draws,
                losses: s.losses,
                byes: s.byes,
                buchholz: s.buchholz.map(points_text),
                sonneborn_berger: s.sonneborn_berger.map(points_text),
                on_fire: s.on_fire.unwrap_or(false),
                withdrawn: s.withdrawn,
            })
            .collect();
        let crosstable = tournament
            .crosstable()
            .iter()
            .enumerate()
            .map(|(row, opponents)| CrossRow {
                number: row + 1,
                name: name_of(row),
                cells: opponents
                    .iter()
                    .enumerate()
                    .map(|(column, halves)| {
                        (column != row).then(|| {
                            halves
                                .iter()
                                .map(|&h| half_text(h))
                                .collect::<Vec<_>>()
                                .join(" ")
                        })
                    })
                    .collect(),
            })
            .collect();
        let rounds = tournament
            .rounds
            .iter()
            .rev()
            .map(|round| RoundView {
                number: round.number + 1,
                games: round
                    .games
                    .iter()
                    .map(|game| GameView {
                        first: name_of(game.first),
                        first_bot: is_bot(game.first),
                        second: name_of(game.second),
                        second_bot: is_bot(game.second),
                        match_id: game.match_id,
                        result: result_text(game.end),
                    })
                    .collect(),
                tables: round
                    .tables
                    .iter()
                    .map(|table| TableView {
                        seats: table
                            .seats
                            .iter()
                            .enumerate()
                            .map(|(seat, &entrant)| {
                                let place = table.places.as_ref().and_then(|p| p.get(seat));
                                (name_of(entrant), place.map(|&p| ordinal(p)))
                            })
                            .collect(),
                        match_id: table.match_id,
                        ended: table.ended,
                    })
                    .collect(),
                byes: round.byes.iter().map(|&e| name_of(e)).collect(),
                commitment: round.commitment.clone(),
                // The arena leaves out the seed of a round under way; this holds even for a
                // tournament read some other way.
                seed: round.seed.clone().filter(|_| round.ended),
                ended: round.ended,
            })
            .collect();
        LiveView {
            id: tournament.id,
            refresh: matches!(
                tournament.status,
                TournamentStatus::Running | TournamentStatus::Paused
            ),
            signature: signature(tournament),
            status: tournament.status.as_str(),
            started: tournament.status != TournamentStatus::Open,
            arena: matches!(tournament.format, TournamentFormat::Arena { .. }),
            standings,
            crosstable,
            rounds,
        }
    }
}

/// What the organiser may do to the tournament's course now, as (form value, button label).
fn controls(status: TournamentStatus) -> Vec<(&'static str, &'static str)> {
    match status {
        TournamentStatus::Open => vec![("start", "Start")],
        TournamentStatus::Running => vec![("pause", "Pause")],
        TournamentStatus::Paused => vec![("resume", "Resume")],
        TournamentStatus::Finished => Vec::new(),
    }
}

/// What the signed-in visitor may do with their own person in a tournament open to people.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PersonChoice {
    /// Nothing: the tournament is for bots, or there is nothing to do now.
    None,
    /// Sign in first to enter.
    SignIn,
    /// Enter it.
    Enter,
    /// Withdraw from it.
    Withdraw,
}

#[derive(Template)]
#[template(path = "tournament.html")]
struct TournamentPage {
    page: Page,
    id: i64,
    name: String,
    game: String,
    variant: String,
    format: String,
    clock: String,
    rated: bool,
    people: bool,
    status: &'static str,
    /// Who runs it: `the administrator`, the account's name, or `a member`.
    organiser: String,
    created: String,
    started: Option<String>,
    ended: Option<String>,
    entrants: Vec<EntrantView>,
    /// Whether the visitor is its organiser.
    organising: bool,
    /// The organiser's buttons: (form value, label).
    controls: Vec<(&'static str, &'static str)>,
    /// Whether entries are taken now.
    entries_open: bool,
    /// Whether entrants may still be withdrawn.
    withdrawals_open: bool,
    /// The house bots the organiser may enter now.
    house: Vec<String>,
    person: PersonChoice,
    /// Why a form was refused, when one was.
    message: Option<String>,
    live: LiveView,
}

/// Who organises `tournament`, in words.
fn organiser_name(state: &WebState, tournament: &Tournament) -> String {
    match tournament.organiser {
        Organiser::Administrator => "the administrator".to_owned(),
        // The accounts are in memory; a deleted account's tournament keeps running.
        Organiser::Account { id } => state
            .arena
            .account(id)
            .map_or_else(|| "a member".to_owned(), |account| account.name),
    }
}

/// Whether `tournament` takes entries now: before it starts, or until an arena ends.
fn entries_open(tournament: &Tournament) -> bool {
    match tournament.status {
        TournamentStatus::Open => true,
        TournamentStatus::Finished => false,
        _ => matches!(tournament.format, TournamentFormat::Arena { .. }),
    }
}

/// The tournament's page as `visitor` sees it, with `message` when a form was refused.
async fn tournament_page(
    state: &WebState,
    visitor: &Visitor,
    id: i64,
    message: Option<String>,
) -> Result<TournamentPage, WebError> {
    let tournament = state.arena.tournament(id).await.map_err(not_found)?;
    let organising = visitor
        .account
        .as_ref()
        .is_some_and(|account| tournament.organiser == Organiser::Account { id: account.id });
    let open = entries_open(&tournament);
    let withdrawals_open = tournament.status != TournamentStatus::Finished;
    let house = if organising && open {
        house_bots(state, &tournament)
    } else {
        Vec::new()
    };
    let entered = visitor
        .person
        .as_ref()
        .and_then(|person| tournament.entrant_of(person.id))
        .and_then(|entrant| tournament.entrants.get(entrant));
    let person = match (tournament.people, &visitor.account, entered) {
        (false, _, _) => PersonChoice::None,
        (true, None, _) if open => PersonChoice::SignIn,
        (true, Some(_), None) if open => PersonChoice::Enter,
        (true, Some(_), Some(entrant)) if !entrant.withdrawn && withdrawals_open => {
            PersonChoice::Withdraw
        }
        _ => PersonChoice::None,
    };
    let entrants = tournament
        .entrants
        .iter()
        .map(|entrant| EntrantView {
            name: entrant.name.clone(),
            bot: entrant.kind != BotKind::Human,
            id: entrant.bot,
            kind: entrant.kind.as_str(),
            withdrawn: entrant.withdrawn,
        })
        .collect();
    Ok(TournamentPage {
        page: page(visitor, &tournament.name),
        id: tournament.id,
        name: tournament.name.clone(),
        game: tournament.game.clone(),
        variant: tournament.variant.clone(),
        format: tournament.format.describe(),
        clock: clock_text(&tournament.time_control),
        rated: tournament.rated,
        people: tournament.people,
        status: tournament.status.as_str(),
        organiser: organiser_name(state, &tournament),
        created: date_text(tournament.created_ms),
        started: tournament.started_ms.map(date_text),
        ended: tournament.ended_ms.map(date_text),
        entrants,
        organising,
        controls: if organising {
            controls(tournament.status)
        } else {
            Vec::new()
        },
        entries_open: open,
        withdrawals_open,
        house,
        person,
        message,
        live: LiveView::of(&tournament),
    })
}

/// The house bots that may enter `tournament`: those of its game's family, if it has house
/// players, that can play and have not entered.
fn house_bots(state: &WebState, tournament: &Tournament) -> Vec<String> {
    let has_house = state
        .arena
        .games()
        .get(&tournament.game)
        .is_some_and(|family| family.house.is_some());
    if !has_house {
        return Vec::new();
    }
    state
        .arena
        .list_bots()
        .into_iter()
        .filter(|(bot, _)| bot.kind == BotKind::House && bot.active())
        .filter(|(bot, _)| tournament.entrant_of(bot.id).is_none())
        .map(|(bot, _)| bot.name)
        .collect()
}

/// A tournament that is not there is a page that is not there.
fn not_found(error: ArenaError) -> WebError {
    match error {
        ArenaError::TournamentNotFound(_) => WebError::NotFound,
        other => WebError::Arena(other),
    }
}

/// `GET /tournaments/{id}`: the tournament, with its organiser's and entrants' forms.
pub(crate) async fn tournament(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
) -> Result<Html<String>, WebError> {
    render(&tournament_page(&state, &visitor, id, None).await?)
}

/// `GET /tournaments/{id}/live`: the standings and rounds alone, for the page to swap in
/// when they change.
pub(crate) async fn live_fragment(
    State(state): State<WebState>,
    Path(id): Path<i64>,
) -> Result<Response, WebError> {
    let tournament = state.arena.tournament(id).await.map_err(not_found)?;
    let html = render(&LiveView::of(&tournament))?;
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

/// After a form on tournament `id`'s page: back to the page, or the page again with the
/// arena's refusal under its status.
async fn answer(
    state: &WebState,
    visitor: &Visitor,
    id: i64,
    done: Result<Tournament, ArenaError>,
) -> Result<Response, WebError> {
    match done {
        Ok(_) => Ok(to_tournament(id)),
        Err(ArenaError::TournamentNotFound(_)) => Err(WebError::NotFound),
        Err(error) => {
            let page = tournament_page(state, visitor, id, Some(error.to_string())).await?;
            Ok(render_with(status_of(&error), &page))
        }
    }
}

/// The organiser's start, pause and resume buttons.
#[derive(Deserialize)]
pub(crate) struct ControlForm {
    #[serde(default)]
    csrf: String,
    /// `start`, `pause` or `resume`.
    #[serde(default)]
    action: String,
}

/// `POST /tournaments/{id}/control`: the organiser starts, pauses or resumes the tournament.
pub(crate) async fn control(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<ControlForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let action = match form.action.as_str() {
        "start" => TournamentAction::Start,
        "pause" => TournamentAction::Pause,
        "resume" => TournamentAction::Resume,
        _ => {
            return Err(WebError::BadRequest(
                "choose start, pause or resume".to_owned(),
            ));
        }
    };
    let organiser = Organiser::Account { id: account.id };
    let done = state.arena.control_tournament(organiser, id, action).await;
    answer(&state, &visitor, id, done).await
}

/// The organiser's forms about one entrant: a house bot's name to enter, or an entrant's
/// bot id to withdraw.
#[derive(Deserialize)]
pub(crate) struct EntrantForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    bot: String,
}

/// `POST /tournaments/{id}/house`: the organiser enters a house bot.
pub(crate) async fn enter_house_bot(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<EntrantForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let organiser = Organiser::Account { id: account.id };
    let done = state.arena.enter_house_bot(organiser, id, &form.bot).await;
    answer(&state, &visitor, id, done).await
}

/// `POST /tournaments/{id}/remove`: the organiser withdraws an entrant.
pub(crate) async fn withdraw_entrant(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<EntrantForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let organiser = Organiser::Account { id: account.id };
    let done = state.arena.withdraw_entrant(organiser, id, &form.bot).await;
    answer(&state, &visitor, id, done).await
}

/// `POST /tournaments/{id}/join`: the signed-in visitor enters as their person, where the
/// organiser lets people play. Guests do not: a tournament lasts longer than a guest's
/// cookie may, and its standings name who played.
pub(crate) async fn join(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let person = state.arena.person_of(account).await?;
    let done = state.arena.enter_tournament(&person, id).await;
    answer(&state, &visitor, id, done).await
}

/// `POST /tournaments/{id}/withdraw`: the signed-in visitor's person withdraws; a game of
/// theirs under way is resigned.
pub(crate) async fn withdraw(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let person = state.arena.person_of(account).await?;
    let done = state.arena.withdraw_from_tournament(&person, id).await;
    answer(&state, &visitor, id, done).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn places_read_as_ordinals() {
        let table = [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (11, "11th"),
            (12, "12th"),
            (21, "21st"),
        ];
        for (place, text) in table {
            assert_eq!(super::ordinal(place), text);
        }
    }

    use super::*;
    use serde_json::json;

    /// A running Swiss tournament of three entrants (the second a person) whose first round
    /// has ended (the first entrant beat the second, the third had a bye) and whose second is
    /// under way, as stored.
    fn tournament(name: &str) -> Tournament {
        let entrant = |bot: i64, name: &str, kind: &str| json!({"bot": bot, "name": name, "kind": kind, "withdrawn": false});
        serde_json::from_value(json!({
            "id": 4, "name": name, "game": "goofspiel", "variant": "short",
            "format": {"kind": "swiss", "rounds": 2},
            "time_control": {"initial_ms": 60000, "increment_ms": 0, "per_turn_ms": null},
            "rated": false, "people": true, "organiser": {"kind": "administrator"},
            "status": "running", "created_ms": 0, "started_ms": 0, "ended_ms": null,
            "entrants": [entrant(1, "<b>Ann</b>", "registered"), entrant(2, "@bo", "human"),
                entrant(3, "house-easy", "house")],
            "event": {"format": {"kind": "swiss", "rounds": 2}, "entrants": 3, "withdrawn": [],
                "rounds": 2, "played": [
                    {"round": 0, "pairing": {"kind": "game", "first": 0, "second": 1},
                     "outcome": "first_won"},
                    {"round": 0, "pairing": {"kind": "bye", "entrant": 2}, "outcome": null},
                    {"round": 1, "pairing": {"kind": "game", "first": 2, "second": 0},
                     "outcome": null},
                    {"round": 1, "pairing": {"kind": "bye", "entrant": 1}, "outcome": null}]},
            "rounds": [
                {"number": 0, "paired_ms": 0, "commitment": "c0", "seed": "seed-of-round-1",
                 "games": [{"first": 0, "second": 1, "match_id": 7, "end": {"played": "first_won"}}],
                 "byes": [2], "ended": true},
                {"number": 1, "paired_ms": 0, "commitment": "c1", "seed": "seed-of-round-2",
                 "games": [{"first": 2, "second": 0, "match_id": 8, "end": null}],
                 "byes": [1], "ended": false}
            ]
        }))
        .expect("a stored tournament")
    }

    #[test]
    fn points_read_as_halves() {
        let cases = [
            (0.0, "0"),
            (0.5, "½"),
            (1.0, "1"),
            (2.5, "2½"),
            (1.25, "1.25"),
        ];
        for (points, text) in cases {
            assert_eq!(points_text(points), text, "{points}");
        }
    }

    #[test]
    fn the_live_view_shows_results_from_each_side_and_hides_a_seed_under_way() {
        let live = LiveView::of(&tournament("Club night"));
        assert_eq!(live.rounds[0].number, 2, "the latest round first");
        assert_eq!(live.rounds[0].seed, None, "under way");
        assert_eq!(live.rounds[0].games[0].result, None);
        assert_eq!(live.rounds[1].seed.as_deref(), Some("seed-of-round-1"));
        assert_eq!(live.rounds[1].games[0].result.as_deref(), Some("1–0"));
        assert_eq!(live.rounds[1].byes, ["house-easy"]);
        assert!(!live.rounds[1].games[0].second_bot, "a person has no page");
        let cells: Vec<Vec<Option<String>>> = live
            .crosstable
            .iter()
            .map(|row| row.cells.clone())
            .collect();
        let cell = |text: &str| Some(text.to_owned());
        assert_eq!(
            cells,
            [
                vec![None, cell("1"), cell("")],
                vec![cell("0"), None, cell("")],
                vec![cell(""), cell(""), None],
            ]
        );
        assert!(live.refresh);
        let mut later = tournament("Club night");
        later.rounds[1].games[0].end = Some(GameEnd::Void);
        assert_ne!(signature(&later), live.signature, "a game ended");
    }

    #[test]
    fn names_are_escaped_on_the_live_view() {
        let html = LiveView::of(&tournament("Club night"))
            .render()
            .expect("render");
        assert!(!html.contains("<b>Ann"), "{html}");
        assert!(html.contains("&#60;b&#62;Ann&#60;/b&#62;"), "{html}");
        assert!(html.contains("href=\"/matches/8\""), "{html}");
        assert!(html.contains("<code>c1</code>"), "{html}");
        assert!(
            !html.contains("seed-of-round-2"),
            "the seed under way is not shown: {html}"
        );
    }
}
