//! The match pages: a live match with its legs side by side (refreshed by the script as
//! events arrive), and a replay that steps through a finished leg move by move. A game is
//! drawn by its family's board where it has one, else by the generic rendering
//! (`generic.rs`).
//!
//! A person who plays in a match reads it as their own participant: their seat's view (their
//! secrets and nobody else's) and their own pending decisions, whose legal actions become
//! buttons. Everyone else reads it as a spectator.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use serde::Deserialize;
use serde_json::{Value, json};

use arbiter_arena::snapshot::{EventView, LegSnapshot, LegStatus};
use arbiter_arena::{Family, MatchSnapshot, MatchStatus, Reader, TournamentGame, Verdict};
use arbiter_plugin::{ActionForm, BoardOptions, BoardRenderer, EventLine, FieldKind};

use crate::WebState;
use crate::comments::{self, Comment};
use crate::error::{WebError, status_of};
use crate::generic::{self, Field};
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
    pub(crate) status: &'static str,
    /// The seats, in seat order.
    pub(crate) sides: Vec<SideView>,
    /// The board as SVG, for families that draw one.
    pub(crate) svg: Option<String>,
    /// The actions played so far, in the family's notation (games with a board).
    pub(crate) moves: Vec<String>,
    /// The view's fields (games without a board).
    pub(crate) fields: Vec<Field>,
    /// The leg's public events, one line each (games without a board, and boards that
    /// list them beside the table), a line of chat with its speaker.
    pub(crate) events: Vec<EventLine>,
    /// What the movers said about their moves, as the page's reader may read it.
    pub(crate) comments: Vec<Comment>,
    /// `"leg revision"` when it is the visitor's turn here, for the script to send with a move.
    pub(crate) play: Option<String>,
    /// The visitor's legal actions in this leg, as buttons, when they have a decision to make
    /// here and the family's requests list them; empty otherwise.
    pub(crate) actions: Vec<ActionButton>,
    /// The revision the visitor's decision here was asked at, which the buttons send.
    pub(crate) act_revision: u64,
    /// The actions the visitor composes in forms here (the board's [`ActionForm`]s): free
    /// actions while the leg runs, and a decision's form while they have it to make.
    pub(crate) forms: Vec<FormView>,
    /// What the visitor is to do now, in the board's words.
    pub(crate) prompt: Option<String>,
    /// The time left in the phase under way, for a game whose phases have deadlines.
    pub(crate) phase_clock: Option<ClockView>,
}

/// An [`ActionForm`] as the page draws it: every value as JSON text, which the script
/// composes into the action it posts.
pub(crate) struct FormView {
    pub(crate) key: &'static str,
    pub(crate) title: String,
    pub(crate) submit: String,
    pub(crate) free: bool,
    /// The action with every field at its default, as JSON text.
    pub(crate) template: String,
    /// The revision the form posts: the decision's, or the leg's for a free action.
    pub(crate) revision: u64,
    pub(crate) fields: Vec<FieldView>,
}

/// One field of a [`FormView`].
pub(crate) struct FieldView {
    pub(crate) pointer: String,
    pub(crate) label: String,
    /// `choice`, `pick`, `check` or `text`.
    pub(crate) kind: &'static str,
    pub(crate) choices: Vec<ChoiceView>,
    /// How many a `pick` takes.
    pub(crate) count: usize,
    /// The longest `text`.
    pub(crate) max_chars: usize,
    pub(crate) usable: bool,
}

/// One choice of a [`FieldView`].
pub(crate) struct ChoiceView {
    pub(crate) label: String,
    /// The value as JSON text.
    pub(crate) value: String,
    pub(crate) usable: bool,
}

impl FormView {
    fn of(form: ActionForm, revision: u64) -> FormView {
        let fields = form
            .fields
            .into_iter()
            .map(|field| {
                let (kind, choices, count, max_chars) = match field.kind {
                    FieldKind::Choice(choices) => ("choice", choices, 1, 0),
                    FieldKind::Pick { choices, count } => ("pick", choices, count, 0),
                    FieldKind::Check => ("check", Vec::new(), 0, 0),
                    FieldKind::Text { max_chars } => ("text", Vec::new(), 0, max_chars),
                };
                FieldView {
                    pointer: field.pointer,
                    label: field.label,
                    kind,
                    choices: choices
                        .into_iter()
                        .map(|c| ChoiceView {
                            label: c.label,
                            value: c.value.to_string(),
                            usable: c.usable && field.usable,
                        })
                        .collect(),
                    count,
                    max_chars,
                    usable: field.usable,
                }
            })
            .collect();
        FormView {
            key: form.key,
            title: form.title,
            submit: form.submit,
            free: form.free,
            template: form.template.to_string(),
            revision,
            fields,
        }
    }

    /// Whether a pick field's choice is among the template's values at its pointer, or a
    /// choice field's is the template's value: what the page checks or selects first.
    pub(crate) fn preset(&self, field: &FieldView, choice: &ChoiceView) -> bool {
        let Ok(template) = serde_json::from_str::<Value>(&self.template) else {
            return false;
        };
        let Ok(value) = serde_json::from_str::<Value>(&choice.value) else {
            return false;
        };
        match template.pointer(&field.pointer) {
            Some(Value::Array(list)) if field.kind == "pick" => list.contains(&value),
            Some(current) => *current == value,
            None => false,
        }
    }
}

/// Each participant's name in a leg, a name that several seats share (one house bot filling
/// several seats of a table) told apart by its seat there (`house-hard (seat 3)`).
fn distinct_names(names: &[String], by_seat: &[usize]) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(participant, name)| {
            let shared = names.iter().filter(|n| *n == name).count() > 1;
            match by_seat.iter().position(|&p| p == participant) {
                Some(seat) if shared => format!("{name} (seat {})", seat + 1),
                _ => name.clone(),
            }
        })
        .collect()
}

/// One legal action of the visitor's, as a button that posts it.
pub(crate) struct ActionButton {
    /// The action as the rules' JSON text (`19`, `{"card":3,"round":2}`), which the form
    /// posts as it is.
    pub(crate) action: String,
    /// The action in the family's notation.
    pub(crate) label: String,
}

/// The visitor's pending decision in leg `index`, from the `turns` of a snapshot read as
/// their participant (nobody else's decisions are in it): the revision it was asked at and
/// its legal actions, each labelled in the family's notation (the board's where the family
/// draws one, else its codec's), but for those its board takes. A request that lists no `legal_actions` (a protocol of the
/// family's own) gives no buttons; a board then takes the visitor's moves.
fn decision_in(
    snapshot: &MatchSnapshot,
    index: usize,
    family: Option<&Family>,
) -> Option<(u64, Vec<ActionButton>)> {
    /// What the page reads of a request: the family writes the rest, which may be anything.
    #[derive(Deserialize)]
    struct Request {
        #[serde(default)]
        legal_actions: Vec<Value>,
    }
    let turn = snapshot
        .turns
        .as_ref()?
        .iter()
        .find(|turn| turn.leg == index)?;
    let view = &snapshot.legs.get(index)?.view;
    let label = |action: &Value| notation(family, view, action);
    let legal_actions = serde_json::from_str::<Request>(&turn.request)
        .map(|request| request.legal_actions)
        .unwrap_or_default();
    let on_board = |action: &Value| {
        family
            .and_then(|family| family.board)
            .is_some_and(|board| board.played_on_board(action))
    };
    let actions = legal_actions
        .iter()
        .filter(|action| !on_board(action))
        .map(|action| ActionButton {
            action: action.to_string(),
            label: label(action),
        })
        .collect();
    Some((turn.revision, actions))
}

/// `action` in the family's notation: its board's where it draws one (which may read the
/// leg's `view`), else its codec's; a plain description for a game no family serves.
fn notation(family: Option<&Family>, view: &Value, action: &Value) -> String {
    match family {
        Some(family) => match family.board {
            Some(board) => board.notation(view, action),
            None => family.codec.notation(action),
        },
        None => generic::describe(action),
    }
}

/// The comments of leg `index` in `events`, each with its mover's name and its action in
/// the family's notation, read against `view` (the leg's latest position).
fn comments_of(
    snapshot: &MatchSnapshot,
    index: usize,
    view: &Value,
    family: Option<&Family>,
    events: &[EventView],
) -> Vec<Comment> {
    let names = participant_names(snapshot);
    let named = |action: &Value| notation(family, view, action);
    comments::leg_comments(events, index, &names, &named)
}

/// The participants' names, in participant order.
fn participant_names(snapshot: &MatchSnapshot) -> Vec<String> {
    snapshot
        .participants
        .iter()
        .map(|p| p.name.clone())
        .collect()
}

/// The participant in each seat of `leg`, the seats rotated from the participant in the
/// first seat.
fn seat_participants(leg: &LegSnapshot, count: usize) -> Vec<usize> {
    (0..count)
        .map(|seat| (seat + leg.first_seat_participant) % count.max(1))
        .collect()
}

impl LegPanel {
    fn of(
        snapshot: &MatchSnapshot,
        leg: &LegSnapshot,
        index: usize,
        you: Option<usize>,
        board: Option<&dyn BoardRenderer>,
        events: &[EventView],
    ) -> LegPanel {
        let names = participant_names(snapshot);
        let by_seat = seat_participants(leg, names.len());
        let names = distinct_names(&names, &by_seat);
        let view = &leg.view;
        let active = leg.status == LegStatus::Active;
        // The visitor's move: their turn, or a decision of theirs pending in a simultaneous
        // phase.
        let pending = leg
            .pending
            .as_ref()
            .is_some_and(|pending| you.is_some_and(|you| pending.contains(&you)));
        let mine = active && you.is_some() && (leg.to_move == you || pending);
        let my_seat = you.and_then(|you| by_seat.iter().position(|&p| p == you));
        let tallies = board.map(|b| b.tallies(view)).unwrap_or_default();
        let seat_names = board.map(|b| b.seat_names_in(view)).unwrap_or_default();
        let sides = by_seat
            .iter()
            .enumerate()
            .map(|(seat, &participant)| {
                let running = active && leg.to_move == Some(participant);
                let ms = if running {
                    leg.remaining_ms.unwrap_or(0)
                } else {
                    leg.clocks_ms.get(seat).copied().unwrap_or(0)
                };
                let seat_name = seat_names.get(seat).copied();
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
        let seat_names: Vec<String> = by_seat
            .iter()
            .map(|&p| names.get(p).cloned().unwrap_or_default())
            .collect();
        let (svg, moves, fields, events) = match board {
            Some(board) => {
                let options = BoardOptions {
                    hints: active,
                    playable: mine,
                    seat: my_seat.and_then(|seat| u8::try_from(seat).ok()),
                };
                let events = if board.lists_events() {
                    let line = |event: &Value| board.event_line(event, &seat_names);
                    generic::leg_lines(events, index, &names, &line)
                } else {
                    Vec::new()
                };
                (
                    Some(board.svg(view, options)),
                    board.history(view),
                    Vec::new(),
                    events,
                )
            }
            None => (
                None,
                Vec::new(),
                generic::fields(view, &seat_names),
                generic::leg_lines(events, index, &names, &|_| None),
            ),
        };
        // Forms and the prompt are the visitor's own, read from their seat's view.
        let seated = active && my_seat.is_some();
        let forms = board
            .filter(|_| seated)
            .map(|board| {
                board
                    .forms(view)
                    .into_iter()
                    .map(|form| FormView::of(form, leg.revision))
                    .collect()
            })
            .unwrap_or_default();
        let prompt = board
            .filter(|_| seated)
            .and_then(|board| board.prompt(view));
        let phase_clock = board
            .filter(|_| active)
            .and_then(|board| board.deadline_ms(view))
            .map(|deadline| {
                let ms = (deadline - snapshot.server_now_ms).max(0);
                ClockView {
                    ms,
                    running: true,
                    text: clock_text(ms),
                }
            });
        LegPanel {
            number: index + 1,
            status: leg.status.as_str(),
            sides,
            svg,
            moves,
            fields,
            events,
            comments: Vec::new(),
            // A board takes a person's moves by its squares; other games by the buttons
            // `with_decision` adds.
            play: (mine && board.is_some()).then(|| format!("{index} {}", leg.revision)),
            actions: Vec::new(),
            act_revision: 0,
            forms,
            prompt,
            phase_clock,
        }
    }

    /// The panel with the leg's comments.
    fn with_comments(mut self, comments: Vec<Comment>) -> LegPanel {
        self.comments = comments;
        self
    }

    /// The panel with the visitor's pending decision here, if they have one, as buttons
    /// and as the board's decision forms, which post its revision; without one, only the
    /// free actions' forms stay.
    fn with_decision(mut self, decision: Option<(u64, Vec<ActionButton>)>) -> LegPanel {
        match decision {
            Some((revision, actions)) if self.status == LegStatus::Active.as_str() => {
                self.act_revision = revision;
                self.actions = actions;
                for form in self.forms.iter_mut().filter(|form| !form.free) {
                    form.revision = revision;
                }
            }
            _ => self.forms.retain(|form| form.free),
        }
        self
    }
}

/// The part of the match page the script refreshes.
#[derive(Template)]
#[template(path = "legs.html")]
pub(crate) struct LegsFragment {
    pub(crate) id: i64,
    pub(crate) open: bool,
    pub(crate) seq: i64,
    pub(crate) status: &'static str,
    pub(crate) result: String,
    pub(crate) legs: Vec<LegPanel>,
    /// The visitor's CSRF value, for the moves it sends.
    pub(crate) csrf: String,
    /// Which seat the visitor has in the first leg, if they play in this match.
    pub(crate) you: Option<String>,
    /// Whether the game is drawn on a board (whose squares take a person's moves).
    pub(crate) board: bool,
    /// Whether the board says what to do now (its prompt), so that the page need not.
    pub(crate) prompted: bool,
    /// For an open table still waiting for players, how many seats are taken, in words.
    pub(crate) waiting: Option<String>,
    /// Whether the visitor may start the waiting table now with house bots.
    pub(crate) fill: bool,
}

impl LegsFragment {
    /// The legs of `snapshot` for `visitor`, drawn by the family's board if it has one, else
    /// with the match's `events` as the snapshot's reader may see them; with each leg's
    /// comments from those events, and the visitor's pending decisions as buttons where the
    /// snapshot was read as their participant.
    fn of(
        state: &WebState,
        snapshot: &MatchSnapshot,
        visitor: &Visitor,
        family: Option<&Family>,
        events: &[EventView],
    ) -> LegsFragment {
        let board = family.and_then(|family| family.board);
        let you = visitor
            .person
            .as_ref()
            .and_then(|person| snapshot.participants.iter().position(|p| p.id == person.id));
        let legs: Vec<LegPanel> = snapshot
            .legs
            .iter()
            .enumerate()
            .map(|(i, leg)| {
                LegPanel::of(snapshot, leg, i, you, board, events)
                    .with_comments(comments_of(snapshot, i, &leg.view, family, events))
                    .with_decision(decision_in(snapshot, i, family))
            })
            .collect();
        let you = you.and_then(|p| {
            let first = snapshot.legs.first()?;
            let seat = seat_participants(first, snapshot.participants.len())
                .iter()
                .position(|&q| q == p)?;
            legs.first()?.sides.get(seat).map(|side| side.seat.clone())
        });
        let prompted = legs.iter().any(|leg| leg.prompt.is_some());
        LegsFragment {
            id: snapshot.id,
            open: snapshot.status.is_open(),
            seq: snapshot.seq,
            result: MatchRow::of_snapshot(snapshot).result,
            status: snapshot.status.as_str(),
            legs,
            csrf: visitor.csrf.clone(),
            you,
            board: board.is_some(),
            prompted,
            waiting: waiting_for_players(snapshot),
            fill: crate::pages::tables::fillable_by(state, snapshot, visitor),
        }
    }
}

/// For an open table whose match has not started, how many of its seats are taken.
fn waiting_for_players(snapshot: &MatchSnapshot) -> Option<String> {
    let table = snapshot.table.filter(|table| table.table)?;
    if snapshot.status != MatchStatus::Pending {
        return None;
    }
    let taken = snapshot.participants.len();
    let seats = table.seats;
    Some(format!(
        "Waiting for players: {taken} of {seats} seats taken. The game starts when the last \
         seat is taken."
    ))
}

/// The family of `snapshot`'s game.
fn family_of(state: &WebState, snapshot: &MatchSnapshot) -> Option<&'static Family> {
    state.arena.games().get(snapshot.game)
}

/// The family that draws `snapshot`'s game, if it draws a board.
fn board_of(state: &WebState, snapshot: &MatchSnapshot) -> Option<&'static dyn BoardRenderer> {
    family_of(state, snapshot).and_then(|family| family.board)
}

/// The match's events as `reader` reads them: the events a game without a board lists, and
/// the comments of every game.
async fn leg_log(
    state: &WebState,
    snapshot: &MatchSnapshot,
    reader: Reader,
) -> Result<Vec<EventView>, WebError> {
    let mut events = Vec::new();
    let mut since = 0;
    // The arena answers in pages; a bound keeps a corrupt page from looping for ever.
    for _ in 0..1000 {
        let page = state.arena.events(snapshot.id, reader, since, 0).await?;
        let next = page.next_since;
        if page.events.is_empty() || next <= since {
            break;
        }
        events.extend(page.events);
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
    pub(crate) fn of(snapshot: &MatchSnapshot, board: Option<&dyn BoardRenderer>) -> MiniBoard {
        MiniBoard {
            row: MatchRow::of_snapshot(snapshot),
            open: snapshot.status.is_open(),
            seq: snapshot.seq,
            leg: board.and_then(|board| {
                snapshot
                    .legs
                    .first()
                    .map(|leg| LegPanel::of(snapshot, leg, 0, None, Some(board), &[]))
            }),
        }
    }

    /// The small board of `snapshot` with the board its family draws.
    pub(crate) fn of_match(state: &WebState, snapshot: &MatchSnapshot) -> MiniBoard {
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
    /// Who words what the house bots say, when the game's house players talk and the match
    /// has one ("Bots talk through ollama · qwen3:8b", "Bot talk is off").
    talk: Option<String>,
    /// The tournament the match is a game of, if it is one.
    tournament: Option<TournamentLink>,
}

/// The tournament a match is a game of, as a line that links to it.
pub(crate) struct TournamentLink {
    /// The tournament.
    pub(crate) id: i64,
    /// `Round 2 of Club night`, or `Tournament #3, round 2` where its name cannot be read.
    pub(crate) text: String,
}

impl TournamentLink {
    /// Round `game.round` of tournament `game.tournament`, in words: `name` is the
    /// tournament's name where it could be read.
    fn of(game: TournamentGame, name: Option<String>) -> TournamentLink {
        let round = u64::from(game.round) + 1;
        TournamentLink {
            id: game.tournament,
            text: match name {
                Some(name) => format!("Round {round} of {name}"),
                None => format!("Tournament #{}, round {round}", game.tournament),
            },
        }
    }
}

/// The tournament the snapshot's match is a game of, if it is one, named as the arena has it
/// now.
async fn tournament_of(state: &WebState, snapshot: &MatchSnapshot) -> Option<TournamentLink> {
    let game = snapshot.tournament?;
    // The line is an aside: a tournament that cannot be read now is linked by its number.
    let name = state
        .arena
        .tournament(game.tournament)
        .await
        .ok()
        .map(|tournament| tournament.name);
    Some(TournamentLink::of(game, name))
}

/// The sentence that says who words what the house bots of `snapshot` say, if its family
/// talks and a house bot plays in it.
fn talk_of(state: &WebState, snapshot: &MatchSnapshot) -> Option<String> {
    let talks = family_of(state, snapshot).is_some_and(|family| family.talk.is_some());
    let house = snapshot
        .participants
        .iter()
        .any(|p| p.kind == arbiter_arena::BotKind::House);
    if !(talks && house) {
        return None;
    }
    Some(if state.arena.talk_enabled() {
        format!("Bots talk through {}", state.arena.talk_provider())
    } else {
        "Bot talk is off".to_owned()
    })
}

/// `GET /matches/{id}`: the match, live while it is played.
pub(crate) async fn match_page(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
) -> Result<Html<String>, WebError> {
    let reader = reader_of(&state, &visitor, id);
    let snapshot = read(&state, id, reader).await?;
    let events = leg_log(&state, &snapshot, reader).await?;
    render(&MatchPage {
        page: page(&visitor, &format!("Match {id}")),
        row: MatchRow::of_snapshot(&snapshot),
        fragment: LegsFragment::of(
            &state,
            &snapshot,
            &visitor,
            family_of(&state, &snapshot),
            &events,
        ),
        talk: talk_of(&state, &snapshot),
        tournament: tournament_of(&state, &snapshot).await,
    })
}

/// `GET /matches/{id}/legs`: the legs alone, for the script to swap in.
pub(crate) async fn legs_fragment(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
) -> Result<Response, WebError> {
    let reader = reader_of(&state, &visitor, id);
    let shared = if reader == Reader::SPECTATOR {
        spectators_fragment(&state, &visitor, id).await?
    } else {
        None
    };
    let html = match shared {
        Some(html) => Html(html),
        None => {
            let snapshot = read(&state, id, reader).await?;
            let events = leg_log(&state, &snapshot, reader).await?;
            let family = family_of(&state, &snapshot);
            render(&LegsFragment::of(
                &state, &snapshot, &visitor, family, &events,
            ))?
        }
    };
    Ok(([(axum::http::header::CACHE_CONTROL, "no-store")], html).into_response())
}

/// The legs fragment of match `id` as every spectator reads it, rendered once per position
/// of the match for all of them (see [`crate::spectators`]), with `visitor`'s CSRF value;
/// `None` where it cannot be shared with `visitor`, who is then answered apart.
async fn spectators_fragment(
    state: &WebState,
    visitor: &Visitor,
    id: i64,
) -> Result<Option<String>, WebError> {
    let person = visitor.person.as_ref().map(|person| person.id);
    let mut stale = None;
    // A few tries: a fragment found behind the log is rendered again by whoever comes first.
    for _ in 0..3 {
        let slot = state
            .spectators
            .slot(id, stale.as_ref(), state.arena.now_ms());
        let shared = slot
            .fragment
            .get_or_try_init(|| render_for_spectators(state, id))
            .await?;
        let Some(shared) = shared else {
            return Ok(None);
        };
        // Nothing a spectator may see came after it, and nothing else either: a new event
        // of any kind makes it stale.
        let page = state
            .arena
            .events(id, Reader::SPECTATOR, shared.seq, 0)
            .await?;
        if page.events.is_empty() && page.next_since == shared.seq {
            return Ok(shared.serve(person, &visitor.csrf));
        }
        stale = Some(slot);
    }
    Ok(None)
}

/// Match `id`'s legs fragment as a spectator without a person reads it, with
/// [`crate::spectators::CSRF_MARKER`] for its CSRF value; `None` for a table still waiting
/// for players, whose fragment depends on who visits it.
async fn render_for_spectators(
    state: &WebState,
    id: i64,
) -> Result<Option<crate::spectators::Shared>, WebError> {
    let snapshot = spectate(state, id).await?;
    if snapshot.status == MatchStatus::Pending {
        return Ok(None);
    }
    let events = leg_log(state, &snapshot, Reader::SPECTATOR).await?;
    let nobody = Visitor {
        account: None,
        csrf: crate::spectators::CSRF_MARKER.to_owned(),
        session: None,
        secure: false,
        person: None,
        origin: String::new(),
    };
    let family = family_of(state, &snapshot);
    let Html(html) = render(&LegsFragment::of(
        state, &snapshot, &nobody, family, &events,
    ))?;
    let participants = snapshot.participants.iter().map(|p| p.id).collect();
    Ok(crate::spectators::Shared::of(
        snapshot.seq,
        &html,
        participants,
    ))
}

/// How `visitor` reads match `id`: as their participant when they play in it (their seat's
/// view and decisions, never another seat's), else as a spectator.
fn reader_of(state: &WebState, visitor: &Visitor, id: i64) -> Reader {
    match &visitor.person {
        Some(person) => state.arena.reader_for(id, Some(person)),
        None => Reader::SPECTATOR,
    }
}

/// Match `id` as a spectator sees it.
async fn spectate(state: &WebState, id: i64) -> Result<MatchSnapshot, WebError> {
    read(state, id, Reader::SPECTATOR).await
}

/// Match `id` as `reader` sees it.
async fn read(state: &WebState, id: i64, reader: Reader) -> Result<MatchSnapshot, WebError> {
    state
        .arena
        .snapshot(id, reader)
        .await
        .map_err(|error| match error {
            arbiter_arena::ArenaError::MatchNotFound(_) => WebError::NotFound,
            other => WebError::Arena(other),
        })
}

/// A move a person plays: a square clicked on a board, or an action's button.
#[derive(Deserialize)]
pub(crate) struct MoveForm {
    #[serde(default)]
    csrf: String,
    leg: u8,
    revision: u64,
    /// The action as JSON text: the rules' own value as the page listed it (`19`,
    /// `{"card":3,"round":2}`), or any spelling the family's codec reads.
    action: String,
}

/// Whether a request is a browser's form submission, which wants a page back, rather than
/// the script's, which asks for JSON.
fn wants_page(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// `POST /matches/{id}/moves`: a person's move. A browser's form (no script) is sent back to
/// the match page, or shown the refusal as a page; the script gets `{"ok": true}` or
/// `{"ok": false, "error"}` with the arena's status.
pub(crate) async fn play(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    headers: HeaderMap,
    Form(form): Form<MoveForm>,
) -> Response {
    let outcome = submit_move(&state, &visitor, id, form).await;
    if wants_page(&headers) {
        return match outcome {
            Ok(()) => Redirect::to(&format!("/matches/{id}")).into_response(),
            Err(error) => error.into_response(),
        };
    }
    let answer = |status: StatusCode, error: Option<String>| {
        let body = match error {
            None => json!({"ok": true}),
            Some(error) => json!({"ok": false, "error": error}),
        };
        (status, axum::Json(body)).into_response()
    };
    match outcome {
        Ok(()) => answer(StatusCode::OK, None),
        Err(WebError::Csrf) => answer(StatusCode::FORBIDDEN, Some("invalid csrf".to_owned())),
        Err(WebError::Arena(error)) => answer(status_of(&error), Some(error.to_string())),
        Err(WebError::BadRequest(error)) => answer(StatusCode::BAD_REQUEST, Some(error)),
        Err(WebError::Refused(status, error)) => answer(status, Some(error)),
        Err(_) => answer(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some("the move could not be sent".to_owned()),
        ),
    }
}

/// Checks a person's move and hands it to the arena.
async fn submit_move(
    state: &WebState,
    visitor: &Visitor,
    id: i64,
    form: MoveForm,
) -> Result<(), WebError> {
    visitor.check(&form.csrf)?;
    let Some(person) = &visitor.person else {
        return Err(WebError::Refused(
            StatusCode::FORBIDDEN,
            "you do not play in this match".to_owned(),
        ));
    };
    let action: Value = serde_json::from_str(&form.action)
        .map_err(|error| WebError::BadRequest(format!("the action is not JSON text: {error}")))?;
    state
        .arena
        .submit(person, id, form.leg, form.revision, action)
        .await?;
    Ok(())
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
    /// The comments on the leg's moves up to `ply`, each linking to the position after its
    /// move.
    comments: Vec<Comment>,
    /// The leg the comments' links step to.
    replay_leg: Option<usize>,
    /// The commitment to the match's seed, published before it started.
    commitment: String,
    /// The seed, revealed once the match ended (a tournament game's, once its round ended).
    seed: Option<String>,
    /// The verifier's verdict on the match's export, computed as `arbiter verify` computes it.
    verdict: Verdict,
    /// The tournament the match is a game of, if it is one.
    tournament: Option<TournamentLink>,
}

/// `GET /matches/{id}/replay?leg=0&ply=12`: a finished leg after `ply` moves.
pub(crate) async fn replay(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(id): Path<i64>,
    Query(query): Query<ReplayQuery>,
) -> Result<Html<String>, WebError> {
    let snapshot = spectate(&state, id).await?;
    let reader = reader_of(&state, &visitor, id);
    let events = leg_log(&state, &snapshot, reader).await?;
    let legs = snapshot.legs.len();
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
                .seat_names_in(view)
                .into_iter()
                .map(str::to_owned)
                .zip(board.tallies(view))
                .collect();
            let options = BoardOptions::default();
            let names = board.history(&positions[last]);
            (Some(board.svg(view, options)), tallies, Vec::new(), names)
        }
        None => {
            let participants = participant_names(&snapshot);
            let seats: Vec<String> = seat_participants(&snapshot.legs[leg], participants.len())
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
    let mut comments = comments_of(
        &snapshot,
        leg,
        &positions[last],
        family_of(&state, &snapshot),
        &events,
    );
    comments.retain(|comment| comment.ply <= ply);
    // The export is read once, for the verdict and for the tournament the match belongs to.
    let export = state.arena.export(id).await?;
    let verdict = arbiter_arena::verify::verify(state.arena.games(), &export);
    let tournament = tournament_of(&state, &snapshot).await;
    render(&ReplayPage {
        page: page(&visitor, &format!("Replay of match {id}")),
        row: MatchRow::of_snapshot(&snapshot),
        leg,
        legs,
        ply,
        last,
        svg,
        tallies,
        fields,
        moves,
        comments,
        replay_leg: Some(leg),
        commitment: snapshot.commitment.clone(),
        // A tournament game's snapshot never carries its seed, which other games of its round
        // share; its export does once the round has ended and the seed is revealed.
        seed: export.seed.clone(),
        verdict,
        tournament,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn a_tournament_game_links_to_its_round_counted_from_one() {
        let game = TournamentGame {
            tournament: 3,
            round: 1,
        };
        let named = TournamentLink::of(game, Some("Club <night>".to_owned()));
        assert_eq!(
            (named.id, named.text.as_str()),
            (3, "Round 2 of Club <night>")
        );
        let unnamed = TournamentLink::of(game, None);
        assert_eq!(unnamed.text, "Tournament #3, round 2");
    }

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
        let view = json!({"note": "<script>alert(1)</script>", "scores": [1, 2, 3]});
        let mut snapshot = fixtures::snapshot(
            fixtures::participants(&["<i>Ann</i>", "Bob", "Cy"]),
            vec![fixtures::leg(1, vec![1000, 2000, 3000], view)],
        );
        snapshot.id = 3;
        snapshot.seq = 9;
        let events = [EventView {
            seq: 1,
            at_ms: 0,
            kind: "move".to_owned(),
            data: serde_json::value::to_raw_value(&json!({"leg": 0, "participant": 0,
                "action": {"card": 9}, "events": [{"type": "said", "text": "<b>hi</b>"}]}))
            .expect("raw"),
        }];
        let leg = LegPanel::of(&snapshot, &snapshot.legs[0], 0, None, None, &events);
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
            status: "running",
            result: String::new(),
            legs: vec![leg],
            csrf: String::new(),
            fill: false,
            you: None,
            board: false,
            prompted: false,
            waiting: None,
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
