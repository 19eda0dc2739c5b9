//! Checking a finished match from its export alone: the revealed seed against its
//! commitment, then every event of the log recomputed and compared with the recorded one.
//!
//! The verifier trusts nothing in the export but the choices only a participant or the
//! server's clock could make: which action a participant took and when, a resignation, a
//! door's notes. Everything else is recomputed by the same functions that played the match —
//! every random draw from the revealed seed and the client seeds (a public roll of dice, a
//! random opening, the first seat), every action's legality and effect through the game's
//! rules, every clock from the events' times, every leg's end and the result — and must equal
//! what the log recorded, field for field. So a changed roll, a changed move, a wrong seed,
//! a missing or reordered event or a doctored result is found, and named.
//!
//! What it cannot recompute it reports as taken on trust: rating changes (they depend on
//! every other match of the bots) and a disconnection forfeit (presence is not logged).

use arbiter_fair::ServerSeed;
use arbiter_plugin::{Format, Games};
use arbiter_store::{BotId, BotKind, EventRecord, MatchStatus};
use serde_json::Value;

use crate::config::{ArenaConfig, TimeControl};
use crate::directory::{Bot, BotProfile};
use crate::live::{self, Progress, SeatChoice, Setup, TableTerms};
use crate::log::Participants;
use crate::snapshot::{ExportedEvent, MatchExport};

/// What [`verify`] concluded about an export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every check passed; `checked` says what was checked, a line each.
    Verified {
        /// The checks, in the order they ran.
        checked: Vec<String>,
    },
    /// One item does not check out: the first found, with the checks that passed before it.
    Failed {
        /// The item: `seed`, or `event N (kind)`, with the field where there is one.
        item: String,
        /// What is wrong with it.
        reason: String,
        /// The checks that passed before it.
        checked: Vec<String>,
    },
    /// The export cannot be checked: the match has not ended (its seed is still secret), or
    /// it is of a game this server does not know.
    Unverifiable(String),
}

impl Verdict {
    /// Whether the match was verified.
    pub fn is_verified(&self) -> bool {
        matches!(self, Verdict::Verified { .. })
    }

    /// One line for people: `verified: …`, `FAILED: …` or `not verifiable: …`.
    pub fn summary(&self) -> String {
        match self {
            Verdict::Verified { checked } => format!(
                "verified: {}",
                checked.last().map_or("nothing to check", String::as_str)
            ),
            Verdict::Failed { item, reason, .. } => format!("FAILED at {item}: {reason}"),
            Verdict::Unverifiable(why) => format!("not verifiable: {why}"),
        }
    }
}

/// Why the verifier stopped early.
enum Stop {
    Failed { item: String, reason: String },
    Unverifiable(String),
}

fn failed(item: impl Into<String>, reason: impl Into<String>) -> Stop {
    Stop::Failed {
        item: item.into(),
        reason: reason.into(),
    }
}

/// Checks an exported match against `games`' rules.
pub fn verify(games: &Games, export: &MatchExport) -> Verdict {
    let mut checked = Vec::new();
    match run(games, export, &mut checked) {
        Ok(()) => Verdict::Verified { checked },
        Err(Stop::Failed { item, reason }) => Verdict::Failed {
            item,
            reason,
            checked,
        },
        Err(Stop::Unverifiable(why)) => Verdict::Unverifiable(why),
    }
}

fn run(games: &Games, export: &MatchExport, checked: &mut Vec<String>) -> Result<(), Stop> {
    let Some(seed) = export.seed.as_deref() else {
        return Err(Stop::Unverifiable(
            "the match has not ended: its seed is revealed when it ends".to_owned(),
        ));
    };
    let seed = ServerSeed::from_revealed(seed);
    let commitment = arbiter_fair::Commitment::from_hex(&export.commitment);
    commitment
        .verify(&seed)
        .map_err(|error| failed("seed", error.to_string()))?;
    checked.push(format!(
        "the revealed seed hashes to the commitment {commitment}"
    ));
    let events = recorded_events(export)?;
    let family = games.get(&export.game).ok_or_else(|| {
        Stop::Unverifiable(format!(
            "this server does not know the game {:?}",
            export.game
        ))
    })?;
    let first = events
        .first()
        .filter(|event| event.kind == "challenge")
        .ok_or_else(|| failed("event 1", "the log does not start with the challenge"))?;
    if first.payload_value()["commitment"] != commitment.as_hex() {
        return Err(failed(
            "event 1 (challenge).commitment",
            "the challenge did not publish the commitment the export gives",
        ));
    }
    let mut setup = setup_of(family, export, first, seed)?;
    let mut progress = live::challenge(&setup, first.at_ms);
    let mut at = compare(&events, 0, &mut progress)?;
    let mut actions = 0usize;
    let mut trusted = Vec::new();
    while let Some(event) = events.get(at) {
        progress.seq = event.seq - 1;
        let name = item(event);
        let p = event.payload_value();
        let now = event.at_ms;
        let step = match event.kind.as_str() {
            // What a door, the players or the ratings added beside the play is not the
            // rules'.
            "note" | "chat" | "rated" => {
                if event.kind == "rated" {
                    trusted.push("rating changes".to_owned());
                }
                at += 1;
                continue;
            }
            "started" => live::start(&setup, &mut progress, now),
            "accepted" => {
                let by = accepting_participant(&setup, &p);
                let bot = setup.bots.get(by).map(|bot| bot.id).unwrap_or_default();
                let practice = p["unrated_because"] == "practice";
                let seed = text(&p["client_seed"]);
                live::accept(&mut setup, &mut progress, bot, practice, seed, now)
            }
            "joined" => {
                let bot = bot_of(&p["bot"]).ok_or_else(|| failed(&name, "no bot"))?;
                let seed = text(&p["client_seed"]);
                live::join(&mut setup, &mut progress, bot, seed, now)
            }
            "move" => {
                actions += 1;
                replay_move(&setup, &mut progress, &p, now).map_err(|e| failed(&name, e))?;
                Ok(())
            }
            "leg_finished" if p["reason"] == "timeout" => {
                let leg = index(&p["leg"], progress.legs.len()).ok_or_else(|| bad(&name))?;
                check_flag(&setup, &progress, leg, now).map_err(|e| failed(&name, e))?;
                live::time_out(&setup, &mut progress, leg, now);
                Ok(())
            }
            "left" if p["reason"] == "timeout" => {
                let participant =
                    index(&p["participant"], setup.seats()).ok_or_else(|| bad(&name))?;
                let leg = (0..progress.legs.len())
                    .find(|&l| {
                        progress.legs[l]
                            .mover()
                            .is_some_and(|(_, p)| p == participant)
                    })
                    .ok_or_else(|| failed(&name, "the participant was not to move"))?;
                check_flag(&setup, &progress, leg, now).map_err(|e| failed(&name, e))?;
                live::time_out(&setup, &mut progress, leg, now);
                Ok(())
            }
            "left" => {
                let participant =
                    index(&p["participant"], setup.seats()).ok_or_else(|| bad(&name))?;
                if p["reason"] == "disconnect" {
                    trusted.push(format!("participant {participant}'s disconnection"));
                }
                live::leave(&setup, &mut progress, participant, &text(&p["reason"]), now);
                Ok(())
            }
            "finished" => {
                let reason = text(&p["reason"]);
                if reason == "disconnect" {
                    trusted.push("a disconnection forfeit".to_owned());
                }
                progress = forfeited(&setup, &progress, &events[at], &reason)
                    .ok_or_else(|| failed(&name, "no participant's forfeit gives this result"))?;
                at += 1;
                continue;
            }
            "turn_warning" => {
                let leg = index(&p["leg"], progress.legs.len()).ok_or_else(|| bad(&name))?;
                live::warn_turn(&setup, &mut progress, leg, now);
                Ok(())
            }
            "deadline" => {
                let leg = index(&p["leg"], progress.legs.len()).ok_or_else(|| bad(&name))?;
                let due = progress.legs[leg].state.deadline();
                if due.is_none_or(|due| i64::try_from(due).unwrap_or(i64::MAX) > now) {
                    return Err(failed(name, "the rules had no deadline due then"));
                }
                live::rules_deadline(&setup, &mut progress, leg, now);
                Ok(())
            }
            "resumed" => {
                let downtime = p["downtime_ms"].as_i64().ok_or_else(|| bad(&name))?;
                live::resume_after(&setup, &mut progress, downtime, now);
                Ok(())
            }
            kind @ ("aborted" | "expired" | "rejected" | "cancelled") => {
                let status = match kind {
                    "aborted" => MatchStatus::Aborted,
                    "expired" => MatchStatus::Expired,
                    _ => MatchStatus::Rejected,
                };
                let reason = if kind == "aborted" {
                    text(&p["reason"])
                } else {
                    kind.to_owned()
                };
                live::close(&setup, &mut progress, status, &reason, now);
                Ok(())
            }
            other => {
                return Err(failed(
                    name,
                    format!("an event of kind {other:?} cannot come here"),
                ));
            }
        };
        step.map_err(|error| failed(item(event), error.to_string()))?;
        at = compare(&events, at, &mut progress)?;
    }
    checked.push(format!(
        "{} events recomputed from the seed and the rules and found equal, {actions} of them \
         actions",
        events.len()
    ));
    if progress.status != export.status {
        return Err(failed(
            "status",
            format!(
                "the log ends the match {:?}, but the export says {:?}",
                progress.status, export.status
            ),
        ));
    }
    if !trusted.is_empty() {
        trusted.dedup();
        checked.push(format!("taken as recorded: {}", trusted.join(", ")));
    }
    checked.push(format!(
        "match {} of {} {}: {}",
        export.id,
        export.game,
        setup.variant,
        progress
            .result
            .as_ref()
            .map_or("no result".to_owned(), |result| result.reason.clone())
    ));
    Ok(())
}

/// The export's events as stored records, checked to run from 1 without a gap or a swap.
fn recorded_events(export: &MatchExport) -> Result<Vec<EventRecord>, Stop> {
    export
        .events
        .iter()
        .enumerate()
        .map(|(i, event)| {
            let expected = i64::try_from(i).unwrap_or(i64::MAX) + 1;
            if event.seq != expected {
                return Err(failed(
                    format!("event {expected}"),
                    format!(
                        "the log has event {} where event {expected} belongs: events are \
                         missing or out of order",
                        event.seq
                    ),
                ));
            }
            Ok(record_of(export, event))
        })
        .collect()
}

fn record_of(export: &MatchExport, event: &ExportedEvent) -> EventRecord {
    EventRecord {
        match_id: export.id,
        seq: event.seq,
        at_ms: event.at_ms,
        audience: match event.audience {
            None => arbiter_store::Audience::Everyone,
            Some(p) => arbiter_store::Audience::Participant(u8::try_from(p).unwrap_or(u8::MAX)),
        },
        kind: event.kind.clone(),
        payload: event.data.clone(),
    }
}

/// The match as it was created: its terms from the export's details, its participants from
/// the challenge.
fn setup_of(
    family: &'static arbiter_plugin::Family,
    export: &MatchExport,
    challenge: &EventRecord,
    seed: ServerSeed,
) -> Result<Setup, Stop> {
    let details = &export.details;
    let p = challenge.payload_value();
    let field = |name: &str| failed(format!("details.{name}"), "missing or malformed");
    let bots: Vec<Bot> = match p["participants"].as_array() {
        Some(list) => list.iter().filter_map(bot_of).collect(),
        None => [&p["bot_a"], &p["bot_b"]]
            .into_iter()
            .filter_map(bot_of)
            .collect(),
    };
    let seat_count = details["seats"]
        .as_u64()
        .and_then(|seats| usize::try_from(seats).ok())
        .unwrap_or(bots.len());
    if bots.is_empty() || seat_count < 2 {
        return Err(failed(
            "event 1 (challenge)",
            "the challenge names no participants",
        ));
    }
    let variant: String =
        serde_json::from_value(details["variant"].clone()).map_err(|_| field("variant"))?;
    let format: Format =
        serde_json::from_value(details["format"].clone()).map_err(|_| field("format"))?;
    let time_control: TimeControl = serde_json::from_value(details["time_control"].clone())
        .map_err(|_| field("time_control"))?;
    let wait_ms = details["wait_ms"].as_i64();
    let mut config = ArenaConfig::default();
    if let Some(expires) = p["expires_ms"].as_i64() {
        config.challenge_ttl_ms = expires - challenge.at_ms;
    }
    let mut client_seeds = vec![String::new(); seat_count];
    client_seeds[0] = text(&p["client_seed"]);
    Ok(Setup {
        id: export.id,
        bots,
        seat_count,
        table: details["table"].as_bool().unwrap_or(false),
        family,
        variant,
        format,
        time_control,
        rated: p["rated"].as_bool().unwrap_or(false),
        auto: details["auto"].as_bool().unwrap_or(false),
        opening: serde_json::from_value(details["opening"].clone()).unwrap_or_default(),
        seat: serde_json::from_value::<SeatChoice>(details["seat"].clone()).unwrap_or_default(),
        created_ms: challenge.at_ms,
        seed,
        client_seeds,
        config,
        terms: TableTerms {
            wait_ms,
            polled: details["polled"].as_bool().unwrap_or(false),
            opening: None,
            rated: details["rated_if_registered"].as_bool().unwrap_or(false),
            seat_keys: Vec::new(),
            language: serde_json::from_value(details["language"].clone()).unwrap_or_default(),
            ..TableTerms::sealed_from(details)
        },
    })
}

/// A participant as the challenge or a seat's event names it.
fn bot_of(summary: &Value) -> Option<Bot> {
    Some(Bot {
        id: BotId::try_from(summary["id"].as_i64()?).ok()?,
        name: summary["name"].as_str()?.to_owned(),
        kind: serde_json::from_value::<BotKind>(summary["kind"].clone()).ok()?,
        created_ms: 0,
        disabled: false,
        deleted: false,
        token_prefix: None,
        profile: BotProfile::default(),
        environment: None,
        default_variant: "",
    })
}

/// The participant whose acceptance an `accepted` event records: those it names, else the
/// second (a challenge of two).
fn accepting_participant(setup: &Setup, p: &Value) -> usize {
    p["by"]
        .as_array()
        .and_then(|by| by.first())
        .and_then(|by| index(by, setup.seats()))
        .unwrap_or(1)
}

/// Plays a recorded action again, as the participant it names submitted it.
fn replay_move(setup: &Setup, progress: &mut Progress, p: &Value, now: i64) -> Result<(), String> {
    let participant = index(&p["participant"], setup.seats()).ok_or("no participant")?;
    let leg = p["leg"]
        .as_u64()
        .and_then(|leg| u8::try_from(leg).ok())
        .ok_or("no leg")?;
    let revision = progress
        .legs
        .get(usize::from(leg))
        .map(|l| l.revision)
        .ok_or("no such leg")?;
    live::submit_as(
        setup,
        progress,
        Participants::only(participant),
        leg,
        revision,
        &p["action"],
        now,
    )
    .map(|_| ())
    .map_err(|error| format!("the rules refuse {}: {error}", p["action"]))
}

/// Checks that the mover's flag in `leg` had fallen, or its turn run out, at `now`.
fn check_flag(setup: &Setup, progress: &Progress, leg: usize, now: i64) -> Result<(), String> {
    let l = &progress.legs[leg];
    let (seat, _) = l.mover().ok_or("nobody was to move")?;
    let turn_over = setup
        .time_control
        .per_turn_ms
        .is_some_and(|per_turn| now >= l.turn_started_ms + per_turn);
    if l.remaining_ms(seat, now) > 0 && !turn_over {
        return Err(format!(
            "the mover still had {} ms on its clock",
            l.remaining_ms(seat, now)
        ));
    }
    Ok(())
}

/// The match after the forfeit a `finished` event records (a resignation, a disconnection):
/// the result must be one that some participant's forfeit gives.
fn forfeited(
    setup: &Setup,
    progress: &Progress,
    event: &EventRecord,
    reason: &str,
) -> Option<Progress> {
    (0..setup.seats())
        .map(Some)
        .chain([None])
        .find_map(|loser| {
            let mut trial = progress.clone();
            live::finish(setup, &mut trial, reason, loser, event.at_ms);
            let produced = trial.fresh.first()?;
            (produced.kind == event.kind && produced.payload_value() == event.payload_value()).then(
                || {
                    trial.fresh.clear();
                    trial
                },
            )
        })
}

/// Compares the events the last step produced with the log from `at` on; returns where the
/// log goes on.
fn compare(events: &[EventRecord], at: usize, progress: &mut Progress) -> Result<usize, Stop> {
    let produced = std::mem::take(&mut progress.fresh);
    for (offset, made) in produced.iter().enumerate() {
        let Some(recorded) = events.get(at + offset) else {
            return Err(failed(
                format!("event {}", made.seq),
                format!("the log ends where a {} event is due", made.kind),
            ));
        };
        let name = item(recorded);
        if recorded.kind != made.kind {
            return Err(failed(name, format!("a {} event is due here", made.kind)));
        }
        if recorded.audience != made.audience {
            return Err(failed(name, "recorded for the wrong reader"));
        }
        if recorded.at_ms != made.at_ms {
            return Err(failed(name, "recorded at another time than it happened"));
        }
        if let Some((path, want, got)) =
            difference(&made.payload_value(), &recorded.payload_value())
        {
            return Err(failed(
                format!("{name}{path}"),
                format!("recorded {got}, but recomputed {want}"),
            ));
        }
    }
    Ok(at + produced.len())
}

/// The first place where `got` differs from `want`, as a path (`.events[1].faces`) with both
/// values there.
fn difference(want: &Value, got: &Value) -> Option<(String, String, String)> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            let mut keys: Vec<&String> = w.keys().chain(g.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|key| {
                let (a, b) = (
                    w.get(key).unwrap_or(&Value::Null),
                    g.get(key).unwrap_or(&Value::Null),
                );
                difference(a, b).map(|(path, x, y)| (format!(".{key}{path}"), x, y))
            })
        }
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            w.iter().zip(g).enumerate().find_map(|(i, (a, b))| {
                difference(a, b).map(|(path, x, y)| (format!("[{i}]{path}"), x, y))
            })
        }
        _ if want == got => None,
        _ => Some((String::new(), want.to_string(), got.to_string())),
    }
}

fn item(event: &EventRecord) -> String {
    format!("event {} ({})", event.seq, event.kind)
}

fn bad(name: &str) -> Stop {
    failed(name, "malformed")
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

fn index(value: &Value, below: usize) -> Option<usize> {
    value
        .as_u64()
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&v| v < below)
}

#[cfg(test)]
mod tests;
