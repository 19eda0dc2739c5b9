//! Fate Tokens' board for the web pages, drawn as SVG from the viewer's view alone.
//!
//! During the game it is the table: a card per seat with its number, its life state, its
//! revealed row, its private pile as face-down slots (face up where the viewer may see the
//! kind: the threshold's reveals of other seats, every slot of the viewer's own pile), its
//! suspicion marks, "not the Great Fortune" when declared, and, above the cards, the round,
//! the phase, the threshold and the guard's shield. Once the game is decided the view holds
//! everything (rule 22.6), so the same table shows every role and every pile, and the end
//! screen follows: the public probability graph of [`crate::odds::public_graph`] (each seat's
//! odds of being a Great Misfortune after each round, coloured by its true role, with markers
//! for awakenings, exiles, ghosts and pathfinders) and the helper-night log of claims with
//! their honesty verdicts, false claims in red and marked "cracked".
//!
//! The view is read into [`FateView`] and only its numbers and enums are drawn: chat and every
//! other string stay out of the drawing, which the pages put into the page as it is.

use std::fmt::Write;

use arbiter_plugin::{ActionCodec, ActionForm, BoardOptions, BoardRenderer, EventLine};
use arbiter_rules::Seat;
use serde_json::Value;

use crate::family::Codec;
use crate::night::Fate;
use crate::odds::{History, public_graph};
use crate::rules::FateAction;
use crate::setup::{Role, Token};
use crate::state::{Claim, Life, PhaseKind, Side, Verdict, WinReason};
use crate::table;
use crate::view::FateView;

/// Fate Tokens' board for the web pages.
pub struct Board;

/// The seats' names: seats are numbered from 1 on the pages, as on the board.
const SEAT_NAMES: [&str; 8] = [
    "Seat 1", "Seat 2", "Seat 3", "Seat 4", "Seat 5", "Seat 6", "Seat 7", "Seat 8",
];

impl BoardRenderer for Board {
    fn svg(&self, view: &Value, options: BoardOptions) -> String {
        match parse(view) {
            Some(fate) => draw(&fate, options),
            None => empty(),
        }
    }

    /// The number of Good tokens in each seat's revealed row: the luck everyone at the table
    /// has seen, which only grows, so a page beside the names shows at a glance who looks
    /// fortunate. (Good minus Bad would say more, but a tally is unsigned.)
    fn tallies(&self, view: &Value) -> Vec<u64> {
        let Some(fate) = parse(view) else {
            return Vec::new();
        };
        fate.seats
            .iter()
            .map(|s| {
                let good = s.revealed.iter().filter(|&&t| t == Token::Good).count();
                u64::try_from(good).unwrap_or(u64::MAX)
            })
            .collect()
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &SEAT_NAMES
    }

    /// The table is drawn, but not what was said at it: the pages list the chat and the
    /// announcements beside it.
    fn lists_events(&self) -> bool {
        true
    }

    fn seat_names_in(&self, view: &Value) -> Vec<&'static str> {
        let seats = parse(view).map_or(SEAT_NAMES.len(), |fate| fate.seats.len());
        SEAT_NAMES.iter().copied().take(seats).collect()
    }

    /// The public actions the view records, round by round: each accusation that proceeded
    /// and each claim, in words, seats numbered from 1 as on the table. Reveals, votes and night forms are not in the
    /// view one by one, and would tell nothing the table above does not.
    fn history(&self, view: &Value) -> Vec<String> {
        let Some(fate) = parse(view) else {
            return Vec::new();
        };
        let mut lines: Vec<(u32, u8, String)> = Vec::new();
        for t in &fate.trials {
            lines.push((
                t.round,
                0,
                format!("Round {}: Seat {} on trial", t.round, number(t.accused)),
            ));
        }
        for c in &fate.claims {
            // A claim about night k is made in its window, from round k's claim/counter phase
            // on, so it follows that round's trial.
            lines.push((
                c.round,
                1,
                format!(
                    "Night {}: Seat {} claims {} Bad in Seat {} and Seat {}",
                    c.round,
                    number(c.claimant),
                    c.bad,
                    number(c.pair[0]),
                    number(c.pair[1])
                ),
            ));
        }
        lines.sort_by_key(|(round, order, _)| (*round, *order));
        lines.into_iter().map(|(_, _, line)| line).collect()
    }

    /// Actions in words, seats numbered from 1 as on the table (`Accuse Seat 3`, `Vote
    /// yes`); the codec's short notation for anything else.
    fn notation(&self, _view: &Value, action: &Value) -> String {
        let Ok(parsed) = serde_json::from_value::<FateAction>(action.clone()) else {
            return Codec.notation(action);
        };
        match parsed {
            FateAction::Ready { .. } => "Ready".to_owned(),
            FateAction::Accuse {
                target: Some(target),
                ..
            } => format!("Accuse Seat {}", number(target)),
            FateAction::Accuse { target: None, .. } => "Pass".to_owned(),
            FateAction::Vote { yes: true, .. } => "Vote yes: exile".to_owned(),
            FateAction::Vote { yes: false, .. } => "Vote no".to_owned(),
            FateAction::Counter {
                name: Some(name), ..
            } => format!("Name Seat {} as the Great Fortune", number(name)),
            FateAction::Counter { name: None, .. } => "Decline".to_owned(),
            _ => Codec.notation(action),
        }
    }

    /// The draw's two tokens, an accusation of a seat and the night form are played on the
    /// table and in its form; passing, ready, votes and the counter keep their buttons.
    fn played_on_board(&self, action: &Value) -> bool {
        matches!(
            serde_json::from_value::<FateAction>(action.clone()),
            Ok(FateAction::Reveal { .. }
                | FateAction::Night { .. }
                | FateAction::Accuse {
                    target: Some(_),
                    ..
                })
        )
    }

    fn forms(&self, view: &Value) -> Vec<ActionForm> {
        parse(view)
            .map(|fate| table::forms(&fate))
            .unwrap_or_default()
    }

    fn prompt(&self, view: &Value) -> Option<String> {
        parse(view).and_then(|fate| table::prompt(&fate))
    }

    fn deadline_ms(&self, view: &Value) -> Option<i64> {
        parse(view).and_then(|fate| table::deadline_ms(&fate))
    }

    fn event_line(&self, event: &Value, names: &[String]) -> Option<Option<EventLine>> {
        table::event_line(event, names)
    }
}

/// The view, if it is one.
fn parse(view: &Value) -> Option<FateView> {
    // Read from the value in place: a view holds the whole chat, and a page reads it a few
    // times for every visitor's fetch.
    let fate: FateView = serde::Deserialize::deserialize(view).ok()?;
    // The layout has room for the rulebook's 4 to 8 players.
    (1..=SEAT_NAMES.len())
        .contains(&fate.seats.len())
        .then_some(fate)
}

/// The drawing's width in user units: a phone's width at 1:1, scaled up on a desktop.
const WIDTH: u32 = 360;
/// The header lines' height.
const HEADER: u32 = 40;
/// The draw's band, where the viewer draws.
const DRAW_H: u32 = 78;
/// A seat card's size and the gap between cards. The text a phone must read is at least
/// 12 units high: the drawing is about a phone's width, so at least 11.5 pixels there.
const CARD_W: u32 = 174;
const CARD_H: u32 = 106;
/// Once every role is revealed, a card's extra row for its awakening.
const AWAKENING_H: u32 = 14;
const GAP: u32 = 4;
/// The graph's height, axes and labels included.
const GRAPH_H: u32 = 170;
/// A claim row's height in the log.
const ROW_H: u32 = 14;

/// What a drawing of a view that is not Fate Tokens' says.
fn empty() -> String {
    format!(
        r##"<svg class="board fate-tokens" viewBox="0 0 {WIDTH} 40" role="img" aria-label="Fate Tokens"><text x="{x}" y="24" font-size="10" text-anchor="middle" fill="#666">No table to show</text></svg>"##,
        x = WIDTH / 2
    )
}

/// A role's colour in the table and the graph.
fn role_colour(role: Role) -> &'static str {
    match role {
        Role::CommonFortune => "#1e88e5",
        Role::GreatFortune => "#f9a825",
        Role::GreatMisfortune => "#6a1b9a",
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::CommonFortune => "Common Fortune",
        Role::GreatFortune => "Great Fortune",
        Role::GreatMisfortune => "Great Misfortune",
    }
}

fn role_class(role: Role) -> &'static str {
    match role {
        Role::CommonFortune => "common-fortune",
        Role::GreatFortune => "great-fortune",
        Role::GreatMisfortune => "great-misfortune",
    }
}

fn token_colour(token: Token) -> &'static str {
    match token {
        Token::Good => "#2e7d32",
        Token::Neutral => "#9e9e9e",
        Token::Bad => "#212121",
    }
}

fn token_class(token: Token) -> &'static str {
    match token {
        Token::Good => "good",
        Token::Neutral => "neutral",
        Token::Bad => "bad",
    }
}

fn life_name(life: Life) -> &'static str {
    match life {
        Life::Living => "living",
        Life::Ghost => "ghost",
        Life::Out => "out",
        Life::Exiled => "exiled",
    }
}

pub(crate) fn phase_name(phase: PhaseKind) -> &'static str {
    match phase {
        PhaseKind::Draw => "draw",
        PhaseKind::Discussion => "discussion",
        PhaseKind::Accusation => "accusation",
        PhaseKind::Night => "night",
        PhaseKind::Trial => "trial",
        PhaseKind::Vote => "vote",
        PhaseKind::ClaimCounter => "claims and counter",
        PhaseKind::Ending => "ending",
        PhaseKind::Over => "over",
    }
}

pub(crate) fn reason_name(reason: WinReason) -> &'static str {
    match reason {
        WinReason::NoGreatMisfortune => "no Great Misfortune is living",
        WinReason::Pathfinder => "a pathfinder named the Great Fortune",
        WinReason::Counter => "a counter named the Great Fortune",
        WinReason::Parity => "the Great Misfortunes reached parity",
        WinReason::RoundCap => "a Great Misfortune lived to the round cap",
    }
}

/// A seat's number on the pages, from 1.
fn number(seat: Seat) -> u32 {
    u32::from(seat.0) + 1
}

/// What a card shows of one seat's pile, slot by slot: the kind where the viewer may see it,
/// and whether the threshold revealed the slot where the viewer may know which one it was.
struct PileSlot {
    kind: Option<Token>,
    exposed: bool,
}

/// The pile as this viewer may see it. The threshold's reveals of another seat are kinds
/// without slots (rule 13.4), drawn first; the owner sees every kind of their own pile but
/// not which slots were revealed; once everything is revealed, each slot shows its kind and
/// the revealed ones are outlined.
fn pile_slots(view: &FateView, index: usize) -> Vec<PileSlot> {
    let seat = &view.seats[index];
    if let Some(secrets) = view.revealed.as_ref().and_then(|r| r.seats.get(index)) {
        return secrets
            .pile
            .iter()
            .enumerate()
            .map(|(i, slot)| PileSlot {
                kind: Some(slot.token),
                exposed: secrets.exposed_slots.contains(&i),
            })
            .collect();
    }
    if let Some(own) = view.own.as_ref().filter(|own| own.seat == seat.seat) {
        return own
            .pile
            .iter()
            .map(|slot| PileSlot {
                kind: Some(slot.token),
                exposed: false,
            })
            .collect();
    }
    let face_down = seat.pile_size.saturating_sub(seat.exposed.len());
    seat.exposed
        .iter()
        .map(|&t| PileSlot {
            kind: Some(t),
            exposed: true,
        })
        .chain((0..face_down).map(|_| PileSlot {
            kind: None,
            exposed: false,
        }))
        .collect()
}

/// The role the viewer may know for a seat: every role once revealed, the viewer's own once
/// told, their fellow Great Misfortunes, and a ghost's or out player's publicly known GM.
fn known_role(view: &FateView, index: usize) -> Option<Role> {
    if let Some(secrets) = view.revealed.as_ref().and_then(|r| r.seats.get(index)) {
        return Some(secrets.role);
    }
    let seat = view.seats[index].seat;
    if let Some(own) = &view.own {
        if own.seat == seat {
            return own.role;
        }
        if own.fellow_great_misfortunes.contains(&seat) {
            return Some(Role::GreatMisfortune);
        }
    }
    (view.seats[index].was_great_misfortune == Some(true)).then_some(Role::GreatMisfortune)
}

/// The whole drawing. `options.playable` makes the viewer's pending draw and accusation
/// playable on the table: the bag and the two drawn tokens, and the other living seats'
/// cards.
fn draw(view: &FateView, options: BoardOptions) -> String {
    let seats = view.seats.len();
    let rows = u32::try_from(seats.div_ceil(2)).unwrap_or(4);
    let drawing = draw_area_of(view);
    let draw_h = if drawing.is_some() { DRAW_H } else { 0 };
    let cards_top = HEADER + draw_h;
    let table_h = cards_top + rows * (card_h(view) + GAP);
    let claims = claim_rows(view);
    let over = view.revealed.is_some() && view.finish.is_some();
    let graph = if over { graph_data(view) } else { None };
    let graph_h = if graph.is_some() { GRAPH_H } else { 0 };
    let log_top = table_h + graph_h;
    let rows_n = u32::try_from(claims.len()).unwrap_or(0);
    let log_h = if claims.is_empty() {
        0
    } else {
        18 + rows_n * ROW_H
    };
    let height = log_top + log_h + 4;
    let mut svg = String::with_capacity(16 * 1024);
    let _ = write!(
        svg,
        r##"<svg class="board fate-tokens" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="Fate Tokens, round {round}" font-family="sans-serif">"##,
        round = view.round,
    );
    header(&mut svg, view);
    if let Some(area) = drawing {
        draw_area(&mut svg, view, &area, options.playable);
    }
    let accusing = options.playable
        && view.phase == PhaseKind::Accusation
        && view.finish.is_none()
        && view
            .own
            .as_ref()
            .is_some_and(|own| view.pending.contains(&own.seat) && own.accused.is_none());
    for index in 0..seats {
        card(&mut svg, view, index, cards_top, accusing);
    }
    if let Some(graph) = &graph {
        draw_graph(&mut svg, view, graph, table_h);
    }
    if !claims.is_empty() {
        draw_log(&mut svg, &claims, log_top);
    }
    svg.push_str("</svg>");
    svg
}

/// The viewer's draw, while it is theirs to make or made this phase: the two tokens in the
/// order drawn, and the one chosen, if chosen.
struct DrawArea {
    tokens: [Token; 2],
    chosen: Option<u8>,
}

fn draw_area_of(view: &FateView) -> Option<DrawArea> {
    if view.phase != PhaseKind::Draw || view.finish.is_some() {
        return None;
    }
    let own = view.own.as_ref()?;
    Some(DrawArea {
        tokens: own.drawn?,
        chosen: own.reveal_choice,
    })
}

/// A token's letter, so that kinds differ by more than colour.
fn token_letter(token: Token) -> &'static str {
    match token {
        Token::Good => "G",
        Token::Neutral => "N",
        Token::Bad => "B",
    }
}

pub(crate) fn token_name(token: Token) -> &'static str {
    match token {
        Token::Good => "Good",
        Token::Neutral => "Neutral",
        Token::Bad => "Bad",
    }
}

/// The draw (rule 8.2): the viewer's bag, and the two tokens drawn from it. While the draw is
/// the viewer's to make, the tokens start inside the bag (the pages' script takes them out
/// one at a time as the bag is tapped, dragged from or pressed with Enter) and each is a
/// button that reveals it once both are out; once chosen, the chosen one is outlined.
fn draw_area(svg: &mut String, view: &FateView, area: &DrawArea, playable: bool) {
    let top = HEADER;
    let open = playable && area.chosen.is_none();
    let _ = write!(
        svg,
        r##"<g class="draw-area{state}" data-draw="{phase}">"##,
        state = if open { " open" } else { " done" },
        phase = view.phase_number,
    );
    let (bx, by) = (14, top + 8);
    let _ = write!(
        svg,
        r##"<g class="bag"{attrs}><path d="M{x1} {y1}q-12 10 -12 30q0 20 30 20q30 0 30 -20q0 -20 -12 -30z" fill="#8d6e63" stroke="#4e342e" stroke-width="1.5"/><path d="M{x1} {y1}h12" stroke="#4e342e" stroke-width="3"/><text x="{tx}" y="{ty}" font-size="12" fill="#fff" text-anchor="middle">Bag</text></g>"##,
        attrs = if open {
            r#" data-bag="" tabindex="0" role="button" aria-label="Draw a token from your bag""#
        } else {
            ""
        },
        x1 = bx + 12,
        y1 = by,
        tx = bx + 18,
        ty = by + 36,
    );
    for (i, token) in area.tokens.iter().enumerate() {
        let index = u8::try_from(i).unwrap_or(0);
        let cx = 110 + u32::from(index) * 70;
        let cy = top + 30;
        let chosen = area.chosen == Some(index);
        let (open_tag, close_tag) = if open {
            (
                format!(
                    r##"<g class="drawn play" data-index="{index}" data-action="{{&quot;type&quot;:&quot;reveal&quot;,&quot;phase&quot;:{phase},&quot;index&quot;:{index}}}" tabindex="0" role="button" aria-label="Reveal the {which} token">"##,
                    phase = view.phase_number,
                    which = if index == 0 { "first" } else { "second" },
                ),
                "</g>",
            )
        } else {
            (
                format!(
                    r##"<g class="drawn out{chosen_cls}" data-index="{index}">"##,
                    chosen_cls = if chosen { " chosen" } else { "" },
                ),
                "</g>",
            )
        };
        svg.push_str(&open_tag);
        let _ = write!(
            svg,
            r##"<circle class="token {cls}" cx="{cx}" cy="{cy}" r="16" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/><text x="{cx}" y="{ly}" font-size="14" font-weight="bold" fill="#fff" text-anchor="middle">{letter}</text><text x="{cx}" y="{ny}" font-size="12" fill="#222" text-anchor="middle">{name}</text>"##,
            cls = token_class(*token),
            fill = token_colour(*token),
            stroke = if chosen { "#ff6f00" } else { "#fff" },
            sw = if chosen { 3 } else { 1 },
            ly = cy + 5,
            ny = cy + 31,
            letter = token_letter(*token),
            name = token_name(*token),
        );
        svg.push_str(close_tag);
    }
    let hint = match (open, area.chosen) {
        (true, _) => ["Tap the bag twice,", "then tap the token", "to reveal"],
        (false, Some(_)) => ["Shown to the", "table when the", "draw ends"],
        (false, None) => ["Your two", "tokens", ""],
    };
    svg.push_str(r##"<text class="draw-hint" font-size="11" fill="#555">"##);
    for (i, line) in (0u32..).zip(hint) {
        let _ = write!(
            svg,
            r##"<tspan x="226" y="{ty}">{line}</tspan>"##,
            ty = top + 20 + i * 14,
        );
    }
    svg.push_str("</text></g>");
}

/// The header: round, phase, threshold, the shield, and the result once decided.
fn header(svg: &mut String, view: &FateView) {
    let _ = write!(
        svg,
        r##"<text x="4" y="15" font-size="14" font-weight="bold" fill="#222" class="round">Round {round} of {cap} · {phase}</text><text x="4" y="33" font-size="12" fill="#555" class="threshold">Threshold {threshold}</text>"##,
        round = view.round,
        cap = view.setup.round_cap,
        phase = phase_name(view.phase),
        threshold = view.threshold,
    );
    // The guard's shield (rule 3.6): whole, or split once the guard has been spent.
    let (x, y) = (WIDTH - 24, 6);
    if view.shield_whole {
        let _ = write!(
            svg,
            r##"<path class="shield whole" d="M{x} {y}h18v11q0 11-9 16q-9-5-9-16z" fill="#90a4ae" stroke="#37474f" stroke-width="1"><title>Shield whole</title></path>"##
        );
    } else {
        let _ = write!(
            svg,
            r##"<g class="shield broken"><title>Shield broken</title><path d="M{x} {y}h7l-2 12l4 6l-2 9q-7-5-7-16z" fill="#cfd8dc" stroke="#37474f" stroke-width="1"/><path d="M{x10} {y}h8v11q0 11-8 16l2-9l-4-6z" fill="#cfd8dc" stroke="#37474f" stroke-width="1"/></g>"##,
            x10 = x + 10,
        );
    }
    if let Some(finish) = &view.finish {
        let (winner, colour) = match finish.winner {
            Side::Good => ("Good wins", "#2e7d32"),
            Side::Misfortune => ("Misfortune wins", "#6a1b9a"),
        };
        let _ = write!(
            svg,
            r##"<text x="{x}" y="15" font-size="14" font-weight="bold" fill="{colour}" text-anchor="end" class="winner">{winner}</text><text x="{x}" y="33" font-size="10" fill="#555" text-anchor="end" class="reason">{reason}</text>"##,
            x = WIDTH - 30,
            reason = reason_name(finish.reason),
        );
    }
}

/// A card's height: once every role is revealed, with a row for the seat's awakening.
fn card_h(view: &FateView) -> u32 {
    if view.revealed.is_some() {
        CARD_H + AWAKENING_H
    } else {
        CARD_H
    }
}

/// One seat's card, in rows `top` and down; a button that accuses the seat where the viewer
/// accuses now and the seat is another living player.
fn card(svg: &mut String, view: &FateView, index: usize, top: u32, accusing: bool) {
    let seat = &view.seats[index];
    let column = u32::try_from(index % 2).unwrap_or(0);
    let row = u32::try_from(index / 2).unwrap_or(0);
    let card_h = card_h(view);
    let (x, y) = (4 + column * (CARD_W + GAP), top + row * (card_h + GAP));
    let role = known_role(view, index);
    let (stroke, role_cls) =
        role.map_or(("#bdbdbd", "unknown"), |r| (role_colour(r), role_class(r)));
    let you = view.own.as_ref().is_some_and(|own| own.seat == seat.seat);
    let fill = match seat.life {
        Life::Living => "#fafafa",
        Life::Ghost | Life::Exiled => "#eceff1",
        Life::Out => "#e0e0e0",
    };
    let _ = write!(
        svg,
        r##"<g class="seat {role_cls} {life}{you_cls}"><rect x="{x}" y="{y}" width="{CARD_W}" height="{card_h}" rx="5" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/><text x="{tx}" y="{ty}" font-size="14" font-weight="bold" fill="#222">Seat {n}</text><text x="{lx}" y="{ty}" font-size="12" fill="#555" text-anchor="end" class="life">{life}{you_txt}</text>"##,
        life = life_name(seat.life),
        you_cls = if you { " you" } else { "" },
        you_txt = if you { " · you" } else { "" },
        sw = if role.is_some() || you { 2 } else { 1 },
        tx = x + 6,
        ty = y + 16,
        lx = x + CARD_W - 6,
        n = number(seat.seat),
    );
    if let Some(role) = role {
        let _ = write!(
            svg,
            r##"<text x="{rx}" y="{ry}" font-size="12" fill="{colour}" class="role">{name}</text>"##,
            rx = x + 6,
            ry = y + 32,
            colour = role_colour(role),
            name = role_name(role),
        );
    }
    // The revealed row (rule 3.3): one disc per round drawn.
    for (k, &token) in seat.revealed.iter().enumerate() {
        let k = u32::try_from(k).unwrap_or(0);
        let _ = write!(
            svg,
            r##"<circle class="token {cls}" cx="{cx}" cy="{cy}" r="6" fill="{colour}"><title>{name}</title></circle>"##,
            cls = token_class(token),
            cx = x + 12 + k * 15,
            cy = y + 45,
            colour = token_colour(token),
            name = token_name(token),
        );
    }
    // The private pile (rule 3.4).
    for (k, slot) in pile_slots(view, index).iter().enumerate() {
        let k = u32::try_from(k).unwrap_or(0);
        let (sx, sy) = (x + 6 + k * 15, y + 56);
        let (fill, cls) = slot
            .kind
            .map_or(("#8d6e63", "hidden"), |t| (token_colour(t), token_class(t)));
        let (outline, width) = if slot.exposed {
            ("#ff6f00", "1.8")
        } else {
            ("#5d4037", "0.8")
        };
        let _ = write!(
            svg,
            r##"<rect class="slot {cls}{exp}" x="{sx}" y="{sy}" width="12" height="12" rx="2" fill="{fill}" stroke="{outline}" stroke-width="{width}"/>"##,
            exp = if slot.exposed { " exposed" } else { "" },
        );
    }
    if you && view.revealed.is_none() && seat.exposed_count > 0 {
        // The owner is told how many of their tokens the threshold revealed, never which.
        let _ = write!(
            svg,
            r##"<text x="{tx}" y="{ty}" font-size="10" fill="#777" text-anchor="end" class="exposed-count">{count} shown</text>"##,
            tx = x + CARD_W - 6,
            ty = y + 66,
            count = seat.exposed_count,
        );
    }
    // Marks (rule 3.5), as a count and as pins.
    let _ = write!(
        svg,
        r##"<text x="{tx}" y="{ty}" font-size="12" fill="#333" class="marks">Marks {marks}</text>"##,
        tx = x + 6,
        ty = y + 86,
        marks = seat.marks,
    );
    for m in 0..seat.marks.min(8) {
        let _ = write!(
            svg,
            r##"<path class="mark-pin" d="M{px} {py}l4 -8h-8z" fill="#c62828"/>"##,
            px = x + 66 + m * 9,
            py = y + 86,
        );
    }
    let mut status = Vec::new();
    if seat.not_great_fortune {
        status.push("not the Great Fortune");
    }
    if seat.was_great_misfortune == Some(true) {
        status.push("was a Great Misfortune");
    }
    if !status.is_empty() {
        let _ = write!(
            svg,
            r##"<text x="{tx}" y="{ty}" font-size="10" fill="#333" class="status">{status}</text>"##,
            tx = x + 6,
            ty = y + 100,
            status = status.join(" · "),
        );
    }
    if seat.not_great_fortune {
        let _ = write!(
            svg,
            r##"<circle class="not-great-fortune" cx="{cx}" cy="{cy}" r="4" fill="none" stroke="#f9a825" stroke-width="1.5"/>"##,
            cx = x + CARD_W - 10,
            cy = y + 82,
        );
    }
    if let Some(secrets) = view.revealed.as_ref().and_then(|r| r.seats.get(index)) {
        let awoke = if secrets.awakened {
            format!("Awoke in round {}", secrets.awakening_round)
        } else {
            format!("Would wake in round {}", secrets.awakening_round)
        };
        let _ = write!(
            svg,
            r##"<text x="{tx}" y="{ty}" font-size="10" fill="#555" class="awakening">{awoke}</text>"##,
            tx = x + 6,
            ty = y + CARD_H + 8,
        );
    }
    if accusing && seat.life == Life::Living && !you {
        let _ = write!(
            svg,
            r##"<rect x="{x}" y="{y}" width="{CARD_W}" height="{card_h}" rx="5" fill="transparent" stroke="#c62828" stroke-width="2" stroke-dasharray="5 3" class="play accuse" data-action="{{&quot;type&quot;:&quot;accuse&quot;,&quot;phase&quot;:{phase},&quot;target&quot;:{target}}}" tabindex="0" role="button" aria-label="Accuse Seat {n}"/>"##,
            phase = view.phase_number,
            target = seat.seat.0,
            n = number(seat.seat),
        );
    }
    svg.push_str("</g>");
}

/// A claim to list, with its verdict once the game is decided.
struct ClaimRow {
    claim: Claim,
    verdict: Option<(Verdict, u32)>,
}

/// The claims: judged once everything is revealed, as made before.
fn claim_rows(view: &FateView) -> Vec<ClaimRow> {
    match &view.revealed {
        Some(revealed) if view.finish.is_some() => revealed
            .verdicts
            .iter()
            .map(|j| ClaimRow {
                claim: j.claim,
                verdict: Some((j.verdict, j.true_bad)),
            })
            .collect(),
        _ => view
            .claims
            .iter()
            .map(|&claim| ClaimRow {
                claim,
                verdict: None,
            })
            .collect(),
    }
}

/// The helper-night log: each claim's night, claimant, pair and count; once judged, the true
/// count and the verdict, false claims (a wrong number, or no helper at all) red and cracked.
fn draw_log(svg: &mut String, rows: &[ClaimRow], top: u32) {
    let _ = write!(
        svg,
        r##"<g class="claims"><text x="4" y="{ty}" font-size="8" font-weight="bold" fill="#222">Helper-night claims</text>"##,
        ty = top + 12,
    );
    for (i, row) in rows.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(0);
        let y = top + 18 + i * ROW_H;
        let c = &row.claim;
        let false_claim = row
            .verdict
            .is_some_and(|(verdict, _)| verdict != Verdict::Honest);
        let (colour, cls) = match row.verdict {
            None => ("#333", "claim"),
            Some(_) if false_claim => ("#d32f2f", "claim false"),
            Some(_) => ("#2e7d32", "claim honest"),
        };
        let _ = write!(
            svg,
            r##"<g class="{cls}"><rect x="4" y="{y}" width="{w}" height="{h}" fill="{bg}"/><text x="8" y="{ty}" font-size="7" fill="{colour}">Night {night}: Seat {claimant} says Seat {a} and Seat {b} hold {bad} Bad</text>"##,
            w = WIDTH - 8,
            h = ROW_H - 2,
            bg = if false_claim { "#ffebee" } else { "#f5f5f5" },
            ty = y + 9,
            night = c.round,
            claimant = number(c.claimant),
            a = number(c.pair[0]),
            b = number(c.pair[1]),
            bad = c.bad,
        );
        if let Some((verdict, true_bad)) = row.verdict {
            let word = match verdict {
                Verdict::Honest => "honest",
                Verdict::WrongNumber => "cracked: wrong number",
                Verdict::NoHelper => "cracked: no helper",
            };
            let _ = write!(
                svg,
                r##"<text x="{x}" y="{ty}" font-size="7" fill="{colour}" text-anchor="end">true {true_bad} · {word}</text>"##,
                x = WIDTH - 8,
                ty = y + 9,
            );
            if false_claim {
                // The crack: a jagged red line across the row.
                let _ = write!(
                    svg,
                    r##"<path class="cracked" d="M{x0} {y0}l3 4l-2 2l4 5" fill="none" stroke="#d32f2f" stroke-width="1.2"/>"##,
                    x0 = WIDTH - 160,
                    y0 = y,
                );
            }
        }
        svg.push_str("</g>");
    }
    svg.push_str("</g>");
}

/// A marker on the graph: at a round, on a seat's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    /// The seat awakened (rule 7).
    Awakening,
    /// The vote exiled the seat (rule 14.5).
    Exile,
    /// The seat became a ghost (rules 11.11, 16.3).
    Ghost,
    /// The seat's pathfinder named the Great Fortune (rule 11.11).
    PathfinderHit,
    /// The seat's pathfinder named someone else and failed.
    PathfinderFailed,
}

/// What the graph draws: the odds per round (entry `r − 1` for round `r`) and the markers.
struct GraphData {
    odds: Vec<Vec<u32>>,
    markers: Vec<(u32, Seat, Marker)>,
}

/// The graph's data from a view that shows everything, `None` where the model cannot answer.
///
/// The public history is [`History::public_from_view`]'s, which dates a failed pathfinder's
/// "was a Great Misfortune" and the named player's "not the Great Fortune" to the view's
/// round; the revealed nights say when the pathfinder was sent, so those two are moved back to
/// that night. Threshold reveals stay dated to the last round: the view does not say when
/// they happened.
fn graph_data(view: &FateView) -> Option<GraphData> {
    let revealed = view.revealed.as_ref()?;
    let roles: Vec<Role> = revealed.seats.iter().map(|s| s.role).collect();
    let mut markers = Vec::new();
    for (i, secrets) in revealed.seats.iter().enumerate() {
        if secrets.awakened {
            markers.push((
                secrets.awakening_round,
                view.seats.get(i)?.seat,
                Marker::Awakening,
            ));
        }
    }
    for t in &view.trials {
        if t.exiled == Some(true) {
            markers.push((t.round, t.accused, Marker::Exile));
            if roles.get(t.accused.index()) != Some(&Role::GreatMisfortune) {
                markers.push((t.round, t.accused, Marker::Ghost));
            }
        }
    }
    let mut failed_pathfinders = Vec::new();
    for night in &revealed.nights {
        for (i, form) in night.forms.iter().enumerate() {
            let Some(Fate::Pathfinder(target)) = form.as_ref().and_then(|f| f.fate) else {
                continue;
            };
            let seat = view.seats.get(i)?.seat;
            if roles.get(target.index()) == Some(&Role::GreatFortune) {
                markers.push((night.round, seat, Marker::PathfinderHit));
            } else {
                markers.push((night.round, seat, Marker::PathfinderFailed));
                markers.push((night.round, seat, Marker::Ghost));
                failed_pathfinders.push((night.round, seat, target));
            }
        }
    }
    let mut history = History::public_from_view(view);
    for observation in &mut history.observations {
        if observation.round != view.round {
            continue;
        }
        for &(round, pathfinder, target) in &failed_pathfinders {
            let moved = match observation.evidence {
                crate::odds::Evidence::Is(Role::GreatMisfortune) => observation.seat == pathfinder,
                crate::odds::Evidence::IsNot(Role::GreatFortune) => observation.seat == target,
                _ => false,
            };
            if moved {
                observation.round = round;
            }
        }
    }
    let graph = public_graph(&history).ok()?;
    let odds = graph
        .iter()
        .map(|round| round.iter().map(|o| o.great_misfortune).collect())
        .collect();
    Some(GraphData { odds, markers })
}

/// The graph's plot area.
const PLOT_LEFT: u32 = 30;
const PLOT_RIGHT: u32 = WIDTH - 24;
const PLOT_TOP: u32 = 22;
const PLOT_H: u32 = 120;

/// The graph: one polyline per seat, its odds of being a Great Misfortune after each round,
/// coloured by its true role and labelled with its number at the right end; markers on the
/// lines; a legend under the axis.
fn draw_graph(svg: &mut String, view: &FateView, graph: &GraphData, top: u32) {
    let rounds = u32::try_from(graph.odds.len()).unwrap_or(0);
    let span = f64::from(PLOT_RIGHT - PLOT_LEFT) / f64::from(rounds.saturating_sub(1).max(1));
    let px = |round: u32| f64::from(PLOT_LEFT) + f64::from(round.saturating_sub(1)) * span;
    let y0 = top + PLOT_TOP;
    let py =
        |pm: u32| f64::from(y0 + PLOT_H) - f64::from(pm.min(1000)) * f64::from(PLOT_H) / 1000.0;
    let _ = write!(
        svg,
        r##"<g class="graph"><text x="4" y="{ty}" font-size="8" font-weight="bold" fill="#222">Odds of being a Great Misfortune, per round</text><rect x="{PLOT_LEFT}" y="{y0}" width="{w}" height="{PLOT_H}" fill="#fafafa" stroke="#bdbdbd" stroke-width="0.5"/>"##,
        ty = top + 12,
        w = PLOT_RIGHT - PLOT_LEFT,
    );
    for pm in [0, 500, 1000] {
        let _ = write!(
            svg,
            r##"<text x="{x}" y="{y:.1}" font-size="6" fill="#777" text-anchor="end">{pct}%</text>"##,
            x = PLOT_LEFT - 3,
            y = py(pm) + 2.0,
            pct = pm / 10,
        );
    }
    for round in 1..=rounds {
        let _ = write!(
            svg,
            r##"<text x="{x:.1}" y="{y}" font-size="6" fill="#777" text-anchor="middle">{round}</text>"##,
            x = px(round),
            y = y0 + PLOT_H + 8,
        );
    }
    let revealed = view.revealed.as_ref();
    for (i, seat) in view.seats.iter().enumerate() {
        let role = revealed
            .and_then(|r| r.seats.get(i))
            .map_or(Role::CommonFortune, |s| s.role);
        let mut points = String::new();
        for (r, odds) in graph.odds.iter().enumerate() {
            let round = u32::try_from(r + 1).unwrap_or(0);
            let pm = odds.get(i).copied().unwrap_or(0);
            let _ = write!(points, "{:.1},{:.1} ", px(round), py(pm));
        }
        let last = graph
            .odds
            .last()
            .and_then(|odds| odds.get(i))
            .copied()
            .unwrap_or(0);
        let _ = write!(
            svg,
            r##"<polyline class="odds {cls}" data-seat="{n}" points="{points}" fill="none" stroke="{colour}" stroke-width="1.4"/><text x="{lx}" y="{ly:.1}" font-size="6" fill="{colour}">{n}</text>"##,
            points = points.trim_end(),
            cls = role_class(role),
            colour = role_colour(role),
            n = number(seat.seat),
            lx = PLOT_RIGHT + 3 + (u32::from(seat.seat.0) % 2) * 8,
            ly = py(last) + 2.0,
        );
    }
    for &(round, seat, marker) in &graph.markers {
        if round == 0 || round > rounds {
            continue;
        }
        let pm = graph
            .odds
            .get(usize::try_from(round - 1).unwrap_or(0))
            .and_then(|odds| odds.get(seat.index()))
            .copied()
            .unwrap_or(0);
        let (x, y) = (px(round), py(pm));
        let n = number(seat);
        let _ = match marker {
            Marker::Awakening => write!(
                svg,
                r##"<circle class="marker awakening" data-seat="{n}" cx="{x:.1}" cy="{y:.1}" r="2.2" fill="#fff" stroke="#222" stroke-width="0.8"><title>Seat {n} awakens in round {round}</title></circle>"##
            ),
            Marker::Exile => write!(
                svg,
                r##"<path class="marker exile" data-seat="{n}" d="M{a:.1} {c:.1}L{b:.1} {d:.1}M{a:.1} {d:.1}L{b:.1} {c:.1}" stroke="#c62828" stroke-width="1.2"><title>Seat {n} exiled in round {round}</title></path>"##,
                a = x - 2.5,
                b = x + 2.5,
                c = y - 2.5,
                d = y + 2.5,
            ),
            Marker::Ghost => write!(
                svg,
                r##"<circle class="marker ghost" data-seat="{n}" cx="{x:.1}" cy="{y:.1}" r="4" fill="none" stroke="#78909c" stroke-width="0.8" stroke-dasharray="1 1"><title>Seat {n} a ghost from round {round}</title></circle>"##
            ),
            Marker::PathfinderHit | Marker::PathfinderFailed => {
                let (cls, fill, word) = if marker == Marker::PathfinderHit {
                    ("pathfinder hit", "#6a1b9a", "finds the Great Fortune")
                } else {
                    ("pathfinder failed", "#fff", "misses the Great Fortune")
                };
                write!(
                    svg,
                    r##"<path class="marker {cls}" data-seat="{n}" d="M{x:.1} {t:.1}l3 5h-6z" fill="{fill}" stroke="#6a1b9a" stroke-width="0.8"><title>Seat {n}: pathfinder {word} in round {round}</title></path>"##,
                    t = y - 6.0,
                )
            }
        };
    }
    // The legend: the roles' colours and the markers' shapes.
    let ly = y0 + PLOT_H + 20;
    let _ = write!(
        svg,
        r##"<g class="legend" font-size="6" fill="#555"><rect x="4" y="{r}" width="8" height="3" fill="#1e88e5"/><text x="14" y="{t}">Common Fortune</text><rect x="66" y="{r}" width="8" height="3" fill="#f9a825"/><text x="76" y="{t}">Great Fortune</text><rect x="124" y="{r}" width="8" height="3" fill="#6a1b9a"/><text x="134" y="{t}">Great Misfortune</text><circle cx="196" cy="{c}" r="2" fill="#fff" stroke="#222" stroke-width="0.8"/><text x="200" y="{t}">awakening</text><path d="M234 {a}l4 4m0 -4l-4 4" stroke="#c62828" stroke-width="1"/><text x="240" y="{t}">exile</text><circle cx="262" cy="{c}" r="3" fill="none" stroke="#78909c" stroke-dasharray="1 1"/><text x="267" y="{t}">ghost</text><path d="M292 {a}l3 5h-6z" fill="#fff" stroke="#6a1b9a" stroke-width="0.8"/><text x="298" y="{t}">pathfinder</text></g></g>"##,
        r = ly - 3,
        t = ly,
        c = ly - 2,
        a = ly - 4,
    );
}

#[cfg(test)]
mod tests;
