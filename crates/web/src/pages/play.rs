//! Starting matches from the pages: a bot's challenge by one of the visitor's bots, the visitor
//! playing a bot themselves, and quick matches.

use arbiter_arena::{ArenaError, MatchSummary};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use serde::Deserialize;

use super::bots::bot_page_for;
use super::render_with;
use crate::WebState;
use crate::error::{WebError, status_of};
use crate::session::{ClientAddress, GUEST_COOKIE, GUEST_MS, Visitor, cookie};

/// The challenge form: one of the visitor's bots and a variant both play, as
/// `"name variant"` (the variant's key: `std`, or `game:variant` where several games have a
/// variant of that name).
#[derive(Deserialize)]
pub(crate) struct ChallengeForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    pair: String,
}

/// `POST /bots/{name}/challenge`: one of the visitor's bots challenges this one to a rated
/// paired match; the visitor is taken to the match.
pub(crate) async fn challenge(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
    Form(form): Form<ChallengeForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let (mine, variant) = form
        .pair
        .split_once(' ')
        .ok_or_else(|| WebError::BadRequest("choose one of your bots and a game".to_owned()))?;
    let challenger = state.arena.owned_bot(account, mine)?;
    let mode = state
        .arena
        .games()
        .mode_of_key(variant)
        .map_err(|e| WebError::BadRequest(e.to_string()))?;
    let request = arbiter_arena::ChallengeRequest {
        opponent: name.clone(),
        game: mode.game.to_owned(),
        variant: Some(mode.variant.to_owned()),
        format: arbiter_arena::Format::Paired,
        time_control: Default::default(),
        rated: true,
        auto: false,
        opening: Default::default(),
        client_seed: None,
    };
    let created = state.arena.challenge(&challenger, request).await;
    to_the_match(&state, &visitor, &name, created).await
}

/// The way to a match the arena just created.
fn to_match(created: &MatchSummary) -> Response {
    Redirect::to(&format!("/matches/{}", created.id)).into_response()
}

/// The way to a new match, or the bot's page again with why the match was refused.
async fn to_the_match(
    state: &WebState,
    visitor: &Visitor,
    bot: &str,
    created: Result<MatchSummary, ArenaError>,
) -> Result<Response, WebError> {
    match created {
        Ok(created) => Ok(to_match(&created)),
        Err(error) => {
            let page = bot_page_for(state, visitor, bot, Some(error.to_string())).await?;
            Ok(render_with(status_of(&error), &page))
        }
    }
}

/// The form to play a bot oneself.
#[derive(Deserialize)]
pub(crate) struct PlayForm {
    #[serde(default)]
    csrf: String,
    /// The mode's key (`std`, or `game:variant` where several games have a variant of that
    /// name); the default mode when empty.
    #[serde(default)]
    variant: String,
    #[serde(default)]
    minutes: u32,
    #[serde(default)]
    increment: u32,
    /// `start`, or `xot` for a balanced 8-move opening (the default mode only).
    #[serde(default)]
    opening: String,
    /// `first`, `second` or `random` (or the older `black` and `white`, Othello's colours of
    /// the first and second seats); the first seat when the form has no choice.
    #[serde(default)]
    colour: String,
}

/// The seat a person asked for: the first mover's, the second's, or one drawn from the
/// match seed. Games name their first seat differently (Black in Othello, White in chess), so
/// the form speaks of moving first.
fn seat_of(colour: &str) -> Result<arbiter_arena::SeatChoice, WebError> {
    match colour {
        "" | "first" | "black" => Ok(arbiter_arena::SeatChoice::First),
        "second" | "white" => Ok(arbiter_arena::SeatChoice::Second),
        "random" => Ok(arbiter_arena::SeatChoice::Random),
        _ => Err(WebError::BadRequest(
            "choose to move first, second, or a random seat".to_owned(),
        )),
    }
}

/// The game a person asked for on a play form: the clocks, the start and their colour.
fn play_terms(
    form: &PlayForm,
) -> Result<
    (
        arbiter_arena::TimeControl,
        arbiter_arena::Opening,
        arbiter_arena::SeatChoice,
    ),
    WebError,
> {
    if !(1..=60).contains(&form.minutes) || form.increment > 60 {
        return Err(WebError::BadRequest(
            "choose 1 to 60 minutes and an increment of at most 60 seconds".to_owned(),
        ));
    }
    let time_control = arbiter_arena::TimeControl {
        initial_ms: i64::from(form.minutes) * 60_000,
        increment_ms: i64::from(form.increment) * 1_000,
        per_turn_ms: None,
    };
    let opening = if form.opening == "xot" {
        arbiter_arena::Opening::Balanced
    } else {
        arbiter_arena::Opening::Start
    };
    Ok((time_control, opening, seat_of(&form.colour)?))
}

/// The participant the visitor plays as: the account's (made the first time), the guest its
/// cookie names, or a new guest, with the cookie that will name it.
pub(crate) async fn person_for(
    state: &WebState,
    visitor: &Visitor,
    client: std::net::IpAddr,
) -> Result<(arbiter_arena::Bot, CookieJar), WebError> {
    match (&visitor.account, &visitor.person) {
        (_, Some(person)) => Ok((person.clone(), CookieJar::new())),
        (Some(account), None) => Ok((state.arena.person_of(account).await?, CookieJar::new())),
        (None, None) => {
            let (guest, secret) = state.arena.new_guest(client).await?;
            let jar = CookieJar::new().add(cookie(GUEST_COOKIE, secret, visitor.secure, GUEST_MS));
            Ok((guest, jar))
        }
    }
}

/// `POST /bots/{name}/play`: the visitor (signed in, or as a guest) plays the bot one
/// unrated game of any mode it plays, and is taken to it.
pub(crate) async fn play_bot(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Path(name): Path<String>,
    Form(form): Form<PlayForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let (time_control, opening, seat) = play_terms(&form)?;
    let (game, variant) = if form.variant.is_empty() {
        (None, None)
    } else {
        let mode = state
            .arena
            .games()
            .mode_of_key(&form.variant)
            .map_err(|e| WebError::BadRequest(e.to_string()))?;
        (Some(mode.game.to_owned()), Some(mode.variant.to_owned()))
    };
    let (person, jar) = person_for(&state, &visitor, client).await?;
    let challenge = arbiter_arena::PersonChallenge {
        opponent: name.clone(),
        game,
        variant,
        time_control,
        opening,
        seat,
    };
    let created = state.arena.challenge_as_person(&person, challenge).await;
    Ok((jar, to_the_match(&state, &visitor, &name, created).await?).into_response())
}

/// `POST /play/quick`: the visitor plays one unrated game of the default mode (from the start or an XOT
/// opening) against the bot quick matching finds for them (see `Arena::quick_opponent`).
pub(crate) async fn quick_play(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<PlayForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let (time_control, opening, seat) = play_terms(&form)?;
    let (person, jar) = person_for(&state, &visitor, client).await?;
    let quick = arbiter_arena::QuickMatch {
        time_control,
        opening,
        seat,
    };
    let created = state.arena.quick_match(&person, quick).await?;
    Ok((jar, to_match(&created)).into_response())
}
