//! The dialect's JSON shapes, rendered from the arena's typed snapshots and summaries:
//! users, challenges, the game events of the event stream, and the game stream's `gameFull`
//! and `gameState`.

use arbiter_arena::{
    Bot, BotKind, MatchSnapshot, MatchStatus, MatchSummary, ParticipantSummary, SeatChoice,
    TimeControl,
};
use arbiter_plugin::{LineEnd, MoveLine};
use serde_json::{Map, Value, json};

use super::{LineGame, Served};
use crate::AppState;

/// The rating shown for a bot that has none in a mode yet.
const UNRATED: i64 = 1500;

/// A user's id: its name in lower case, as the reference server's ids are.
pub(crate) fn user_id(name: &str) -> String {
    name.to_lowercase()
}

/// The title a participant carries: every bot is a bot; people have none.
fn title(kind: BotKind) -> Value {
    match kind {
        BotKind::Human => Value::Null,
        _ => json!("BOT"),
    }
}

/// A bot's rating in a mode, rounded.
pub(crate) async fn rating(state: &AppState, bot: i64, game: &str, variant: &str) -> i64 {
    let ratings = state.arena.ratings_of(bot).await;
    ratings[format!("{game}:{variant}")]["rating"]
        .as_f64()
        .map_or(UNRATED, |r| r.round() as i64)
}

/// A participant as a game's `white` or `black`, or a challenge's `challenger`.
pub(crate) async fn player(
    state: &AppState,
    who: &ParticipantSummary,
    game: &str,
    variant: &str,
) -> Value {
    json!({
        "id": user_id(&who.name),
        "name": who.name,
        "title": title(who.kind),
        "rating": rating(state, who.id, game, variant).await,
        "online": state.arena.is_online(who.id),
    })
}

/// A bot's public profile (`/api/account`, `/api/user/{name}`, the online bots): its
/// ratings in every mode the dialect serves, as `perfs` by variant key.
pub(crate) async fn profile(state: &AppState, served: &Served, bot: &Bot) -> Value {
    let ratings = state.arena.ratings_of(bot.id).await;
    let mut perfs = Map::new();
    for family in served.families.iter() {
        let Some(line) = family.line else { continue };
        for variant in family.setup.variants() {
            let (Some(key), Some(rating)) = (
                line.variant_key(variant.name),
                ratings[format!("{}:{}", family.id(), variant.name)].as_object(),
            ) else {
                continue;
            };
            perfs.insert(
                key.key.to_owned(),
                json!({
                    "games": rating.get("games").cloned().unwrap_or(json!(0)),
                    "rating": rating.get("rating").and_then(Value::as_f64).map_or(UNRATED, |r| r.round() as i64),
                    "rd": rating.get("deviation").and_then(Value::as_f64).map_or(350, |r| r.round() as i64),
                    "prov": rating.get("provisional").cloned().unwrap_or(json!(true)),
                }),
            );
        }
    }
    json!({
        "id": user_id(&bot.name),
        "username": bot.name,
        "title": title(bot.kind),
        "online": state.arena.is_online(bot.id),
        "perfs": perfs,
        "createdAt": bot.created_ms,
        "url": format!("{}/bots/{}", super::base_url(state), bot.name),
    })
}

/// A game's speed, from its clock as the reference server estimates it: the initial time
/// plus forty increments.
pub(crate) fn speed(clock: &TimeControl) -> &'static str {
    let estimate_s = (clock.initial_ms + 40 * clock.increment_ms) / 1000;
    match estimate_s {
        ..30 => "ultraBullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    }
}

/// The name of a game's rating category: its variant's for a variant, else its speed's.
pub(crate) fn perf_name(game: &LineGame, speed: &str) -> String {
    if game.key.key != "standard" {
        return game.key.name.to_owned();
    }
    let mut name = speed.to_owned();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    name
}

/// A variant as clients read it.
pub(crate) fn variant(game: &LineGame) -> Value {
    json!({"key": game.key.key, "name": game.key.name, "short": game.key.short})
}

/// The colour a seat plays.
pub(crate) fn colour(line: &dyn MoveLine, seat: usize) -> &'static str {
    if line.white_seat().index() == seat {
        "white"
    } else {
        "black"
    }
}

/// The seat of the colour named.
pub(crate) fn seat_of_colour(line: &dyn MoveLine, colour: &str) -> usize {
    let white = line.white_seat().index();
    if colour == "white" { white } else { 1 - white }
}

/// The participant who plays `colour` in a match's first leg (the challenger, participant
/// 0, takes the first seat unless its leg says otherwise).
pub(crate) fn participant_of_colour(
    line: &dyn MoveLine,
    snapshot: &MatchSnapshot,
    colour: &str,
) -> usize {
    let first = snapshot
        .legs
        .first()
        .map_or(0, |leg| leg.first_seat_participant);
    (seat_of_colour(line, colour) + first) % 2
}

/// `colour`'s clock in a match's last leg now, in milliseconds: the mover's runs, as the
/// reference server counts it, so that a stream opened in the middle of a turn does not give
/// back the time already spent; the other stands where its last turn left it.
fn clock_now_ms(line: &dyn MoveLine, snapshot: &MatchSnapshot, colour: &str) -> i64 {
    let seat = seat_of_colour(line, colour);
    snapshot
        .legs
        .last()
        .and_then(|leg| {
            let moving = leg.to_move == Some((seat + leg.first_seat_participant) % 2);
            match leg.remaining_ms {
                Some(left) if moving => Some(left),
                _ => leg.clocks_ms.get(seat).copied(),
            }
        })
        .unwrap_or(snapshot.time_control.initial_ms)
        .max(0)
}

/// The colour `bot` plays in a match (White for a bot playing itself).
pub(crate) fn colour_of_bot(
    line: &dyn MoveLine,
    snapshot: &MatchSnapshot,
    bot: i64,
) -> &'static str {
    let white = participant_of_colour(line, snapshot, "white");
    let plays_white = snapshot
        .participants
        .get(white)
        .is_some_and(|p| p.id == bot);
    if plays_white { "white" } else { "black" }
}

/// The colour the challenger of a match asked for: `random` where the arena draws it when
/// the match starts.
pub(crate) fn challenger_colour(line: &dyn MoveLine, summary: &MatchSummary) -> &'static str {
    match summary.challenger_seat {
        SeatChoice::First => colour(line, 0),
        SeatChoice::Second => colour(line, 1),
        SeatChoice::Random => "random",
    }
}

/// A clock as a challenge's `timeControl` (seconds).
pub(crate) fn time_control(clock: &TimeControl) -> Value {
    let limit_s = clock.initial_ms / 1000;
    let increment_s = clock.increment_ms / 1000;
    let minutes = match limit_s {
        15 => "¼".to_owned(),
        30 => "½".to_owned(),
        45 => "¾".to_owned(),
        90 => "1.5".to_owned(),
        s if s % 60 == 0 => (s / 60).to_string(),
        s => format!("{:.1}", s as f64 / 60.0),
    };
    json!({
        "type": "clock",
        "limit": limit_s,
        "increment": increment_s,
        "show": format!("{minutes}+{increment_s}"),
    })
}

/// A challenge's status word.
fn challenge_status(summary: &MatchSummary, declined: bool) -> &'static str {
    match summary.status {
        MatchStatus::Pending => "created",
        MatchStatus::Rejected if declined => "declined",
        MatchStatus::Rejected | MatchStatus::Expired => "canceled",
        _ => "accepted",
    }
}

/// A challenge as clients read it, from the side of `viewer` (`direction`).
pub(crate) async fn challenge(
    state: &AppState,
    game: &LineGame,
    summary: &MatchSummary,
    viewer: i64,
    challenger_colour: &str,
    declined: bool,
) -> Value {
    let speed = speed(&summary.time_control);
    let challenger = player(state, &summary.bot_a, summary.game, &summary.variant).await;
    let dest = match &summary.bot_b {
        Some(dest) => player(state, dest, summary.game, &summary.variant).await,
        None => Value::Null,
    };
    let url = format!("{}/matches/{}", super::base_url(state), summary.id);
    json!({
        "id": summary.id.to_string(),
        "url": url,
        "status": challenge_status(summary, declined),
        "challenger": challenger,
        "destUser": dest,
        "variant": variant(game),
        "rated": summary.rated,
        "speed": speed,
        "timeControl": time_control(&summary.time_control),
        "color": challenger_colour,
        "finalColor": challenger_colour,
        "perf": {"icon": "", "name": perf_name(game, speed)},
        "direction": if summary.bot_a.id == viewer { "out" } else { "in" },
        "initialFen": "startpos",
    })
}

/// A game as the event stream's `gameStart` and `gameFinish` and the playing list show it,
/// for `bot`.
pub(crate) async fn game_info(
    state: &AppState,
    game: &LineGame,
    snapshot: &MatchSnapshot,
    bot: i64,
) -> Value {
    let line = game.line;
    let colour = colour_of_bot(line, snapshot, bot);
    let me = participant_of_colour(line, snapshot, colour);
    let opponent = snapshot.participants.get(1 - me.min(1));
    let leg = snapshot.legs.last();
    let view = leg.map(|leg| &leg.view).unwrap_or(&Value::Null);
    let to_move = leg.and_then(|leg| leg.to_move);
    let my_turn = snapshot.status == MatchStatus::Running
        && to_move.is_some_and(|p| snapshot.participants.get(p).is_some_and(|p| p.id == bot));
    let clock_ms = clock_now_ms(line, snapshot, colour);
    let speed = speed(&snapshot.time_control);
    let (status, winner) = status(line, snapshot);
    let mut info = json!({
        "id": snapshot.id.to_string(),
        "gameId": snapshot.id.to_string(),
        "fullId": snapshot.id.to_string(),
        "color": colour,
        "fen": if leg.is_some() { line.position(view) } else { "startpos".to_owned() },
        "lastMove": line.moves(view).last().cloned().unwrap_or_default(),
        "source": "friend",
        "status": {"id": status_id(status), "name": status},
        "variant": {"key": game.key.key, "name": game.key.name},
        "speed": speed,
        "perf": speed,
        "rated": snapshot.rated,
        "hasMoved": leg.is_some_and(|leg| !leg.moves_at_ms.is_empty()),
        "isMyTurn": my_turn,
        "secondsLeft": clock_ms / 1000,
        "compat": {"bot": true, "board": false},
    });
    if let Some(opponent) = opponent {
        info["opponent"] = json!({
            "id": user_id(&opponent.name),
            "username": opponent.name,
            "rating": rating(state, opponent.id, snapshot.game, &snapshot.variant).await,
        });
    }
    if let Some(winner) = winner {
        info["winner"] = json!(winner);
    }
    info
}

/// The numbers the reference server gives its status names.
fn status_id(name: &str) -> u32 {
    match name {
        "created" => 10,
        "started" => 20,
        "aborted" => 25,
        "mate" => 30,
        "resign" => 31,
        "stalemate" => 32,
        "timeout" => 33,
        "draw" => 34,
        "outoftime" => 35,
        "noStart" => 37,
        _ => 60,
    }
}

/// How a match stands in the dialect's status words, and the winner's colour.
pub(crate) fn status(
    line: &dyn MoveLine,
    snapshot: &MatchSnapshot,
) -> (&'static str, Option<&'static str>) {
    let winner = snapshot
        .result
        .as_ref()
        .and_then(|result| result.winner())
        .map(|p| {
            let first = snapshot
                .legs
                .first()
                .map_or(0, |leg| leg.first_seat_participant);
            colour(line, (p + 2 - first % 2) % 2)
        });
    let status = match snapshot.status {
        MatchStatus::Pending => "created",
        MatchStatus::Running => "started",
        MatchStatus::Rejected | MatchStatus::Expired => "aborted",
        MatchStatus::Aborted => match snapshot.result.as_ref().map(|r| r.reason.as_str()) {
            Some("no_first_move") => "noStart",
            _ => "aborted",
        },
        MatchStatus::Finished => {
            let reason = snapshot.result.as_ref().map_or("", |r| r.reason.as_str());
            match reason {
                "resign" => "resign",
                "timeout" => "outoftime",
                "disconnect" => "timeout",
                _ => {
                    let rules_reason = snapshot
                        .legs
                        .last()
                        .and_then(|leg| leg.end.as_ref())
                        .map_or(reason, |end| end.reason.as_str());
                    match rules_reason {
                        "timeout" => "outoftime",
                        _ => match line.end(rules_reason, winner.is_some()) {
                            LineEnd::Mate => "mate",
                            LineEnd::Stalemate => "stalemate",
                            LineEnd::Draw => "draw",
                            LineEnd::VariantEnd => "variantEnd",
                        },
                    }
                }
            }
        }
    };
    (status, winner)
}

/// A game's `gameState`: its moves, both clocks in milliseconds, its status and any draw
/// offers, and what the family adds (the dice of the turn).
pub(crate) fn game_state(game: &LineGame, snapshot: &MatchSnapshot) -> Value {
    let line = game.line;
    let leg = snapshot.legs.last();
    let view = leg.map(|leg| &leg.view).unwrap_or(&Value::Null);
    let clock = |colour: &str| clock_now_ms(line, snapshot, colour);
    let (status, winner) = status(line, snapshot);
    let offer = line.draw_offer(view).map(|seat| colour(line, seat.index()));
    let mut state = json!({
        "type": "gameState",
        "moves": line.moves(view).join(" "),
        "wtime": clock("white"),
        "btime": clock("black"),
        "winc": snapshot.time_control.increment_ms,
        "binc": snapshot.time_control.increment_ms,
        "status": status,
    });
    if let Some(winner) = winner {
        state["winner"] = json!(winner);
    }
    if offer.is_some() {
        state["wdraw"] = json!(offer == Some("white"));
        state["bdraw"] = json!(offer == Some("black"));
    }
    if let Value::Object(fields) = &mut state {
        fields.extend(line.extra(view));
    }
    state
}

/// A game's `gameFull`: what never changes, and its state now.
pub(crate) async fn game_full(
    state: &AppState,
    game: &LineGame,
    snapshot: &MatchSnapshot,
) -> Value {
    let line = game.line;
    let speed = speed(&snapshot.time_control);
    let mut players = Vec::new();
    for colour in ["white", "black"] {
        let who = snapshot
            .participants
            .get(participant_of_colour(line, snapshot, colour));
        players.push(match who {
            Some(who) => player(state, who, snapshot.game, &snapshot.variant).await,
            None => Value::Null,
        });
    }
    let view = snapshot
        .legs
        .first()
        .map(|leg| &leg.view)
        .unwrap_or(&Value::Null);
    json!({
        "type": "gameFull",
        "id": snapshot.id.to_string(),
        "variant": variant(game),
        "clock": {
            "initial": snapshot.time_control.initial_ms,
            "increment": snapshot.time_control.increment_ms,
        },
        "speed": speed,
        "perf": {"name": perf_name(game, speed)},
        "rated": snapshot.rated,
        "createdAt": snapshot.created_ms,
        "white": players[0],
        "black": players[1],
        "initialFen": line.initial_position(view),
        "state": game_state(game, snapshot),
    })
}
