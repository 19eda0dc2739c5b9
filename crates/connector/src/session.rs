//! The connector's life: sign in, follow the bot's events, answer challenges, run the legs.
//!
//! Events come from one source task: the NDJSON stream (re-opened with back-off from 1 s to
//! 30 s when it drops, polling meanwhile) or, with `--no-stream`, polling alone (every second
//! while a match runs, every five seconds otherwise). Both feed the same [`Event`]s, and the
//! session treats a re-sent event as a no-op, so a reconnection simply replays the current state.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio_util::codec::{FramedRead, LinesCodec};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::api::{Api, ApiError};
use crate::leg::{self, LegContext, Turn};
use crate::{ConnectorError, Exit, Games, Options, environment};

/// The longest stream line (a turn line is a few kilobytes).
const MAX_STREAM_LINE: usize = 1 << 20;
/// The stream pings every 10 s; this long without a line means it is dead.
const STREAM_SILENCE: Duration = Duration::from_secs(35);
/// Reconnection back-off.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_LAST: Duration = Duration::from_secs(30);
/// Polls while idle are this many times further apart than during a match.
const IDLE_FACTOR: u32 = 5;

/// What the source tells the session.
#[derive(Debug)]
enum Event {
    /// A pending challenge (a match summary or snapshot).
    Challenge(Value),
    /// A match changed.
    Match(Value),
    /// A decision to make.
    Turn(Turn),
    /// A match or challenge ended.
    Finished(Value),
    /// A poll saw exactly these matches open.
    Open(Vec<i64>),
    /// The stream is connected.
    StreamUp,
    /// The stream is gone; the source polls until it is back.
    StreamDown { why: String, retry_in: Duration },
    /// The server no longer accepts the token.
    Unauthorized(String),
}

pub(crate) async fn run(
    mut options: Options,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<Exit, ConnectorError> {
    options.games.check(&options.engine)?;
    let api = Api::new(&options.server, &options.token, options.ca_file.as_deref())?;
    let runtime_over = async {
        match options.max_runtime {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(shutdown, runtime_over);

    // Who am I? Retried while the server cannot be reached.
    let signed_in = async {
        let mut wait = BACKOFF_FIRST;
        loop {
            match api.me().await {
                Ok(me) => return Ok(Ok(me)),
                Err(ApiError::Unauthorized(why)) => return Ok(Err(why)),
                Err(ApiError::Untrusted(why)) => return Err(ConnectorError::Untrusted(why)),
                Err(error) => {
                    tracing::warn!(
                        "{error}; cannot reach {}, retrying in {} s",
                        api.server(),
                        wait.as_secs()
                    );
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(BACKOFF_LAST);
                }
            }
        }
    };
    let me = tokio::select! {
        () = &mut shutdown => return Ok(Exit::Normal),
        () = &mut runtime_over => return Ok(Exit::MaxRuntime),
        me = signed_in => match me? {
            Ok(me) => me,
            Err(why) => {
                tracing::error!("Bot credential rejected by {}: {why}. Check the token (a rotated token stops working at once).", api.server());
                return Ok(Exit::TokenRejected);
            }
        },
    };
    // A UCI engine checked at start-up is kept there, ready, for the first leg.
    let uci = crate::engine::uci::UciPool::default();
    // Stopping during the check (it may take a minute) drops it, and with it the engine.
    tokio::select! {
        () = &mut shutdown => return Ok(Exit::Normal),
        () = &mut runtime_over => return Ok(Exit::MaxRuntime),
        checked = check_engine(&options, &uci) => {
            // A Gomocup brain names itself in ABOUT, and plays swap2 only if it says so; a
            // UCI engine names itself in `id name`.
            if options.engine_name.is_none() {
                options.engine_name = checked.name;
            }
            if let Some(swap2) = checked.swap2 {
                options.games = options.games.clone().with_swap2(swap2);
            }
        }
    }
    let my_id = me["id"].as_i64().unwrap_or_default();
    let my_name = me["name"].as_str().unwrap_or("?").to_owned();
    // Reported before anything is accepted, so that a practice bot's first match is already
    // unrated and an 8x8-only engine is never offered a variant.
    let report = environment::report(&options);
    report_environment(&api, &report).await;
    tracing::info!(
        "Connected to {} as {my_name} (bot {my_id}); engine plays {}",
        api.server(),
        options.games.describe(&options.engine)
    );

    let mut once_pending = None;
    let mut once = options.once_match;
    if let Some(challenge) = &options.challenge {
        // Checked once the probe has said whether a Gomocup brain plays swap2 openings.
        let (game, variant) = options
            .games
            .challenge_mode(
                &options.engine,
                challenge.game.as_deref(),
                challenge.variant.as_deref(),
            )
            .map_err(|why| ConnectorError::ChallengeNotPlayed {
                opponent: challenge.opponent.clone(),
                why,
            })?;
        let id = api
            .challenge(
                &challenge.opponent,
                &game,
                variant.as_deref(),
                challenge.single,
            )
            .await
            .map_err(|error| ConnectorError::ChallengeRefused {
                opponent: challenge.opponent.clone(),
                why: error.to_string(),
            })?;
        tracing::info!("Challenged {} (match {id})", challenge.opponent);
        once = Some(id);
    }
    if let Some(id) = options.once_match {
        match api.snapshot(id).await {
            // Anyone may watch a match; only the bot's own can be played.
            Ok(snapshot) if !participants(&snapshot).iter().any(|p| p.id == my_id) => {
                return Err(ConnectorError::NoSuchMatch(id));
            }
            Ok(snapshot) if !is_open(&snapshot) => {
                let status = snapshot["status"].as_str().unwrap_or("?");
                tracing::info!("Match {id} has already ended ({status})");
                return Ok(Exit::Normal);
            }
            // A challenge waiting for this bot is answered at once, not at the first poll.
            Ok(snapshot) => once_pending = (snapshot["status"] == "pending").then_some(snapshot),
            Err(ApiError::Refused {
                status: 403 | 404, ..
            }) => {
                return Err(ConnectorError::NoSuchMatch(id));
            }
            Err(error) => tracing::warn!("{error}"),
        }
    }

    let (events, mut inbox) = mpsc::channel(256);
    let source_stop = CancellationToken::new();
    let source = tokio::spawn(source(
        api.clone(),
        report,
        options.no_stream,
        options.poll_every,
        events,
        source_stop.clone(),
    ));
    let mut session = Session {
        context: LegContext {
            api: api.clone(),
            engine: options.engine.clone(),
            max_think: options.max_think,
            timings: options.timings.clone(),
            revoked: CancellationToken::new(),
            brains: crate::engine::gomocup::BrainPool::default(),
            uci,
        },
        me: my_id,
        games: options.games.clone(),
        once,
        matches: HashMap::new(),
        answered: HashSet::new(),
        legs: TaskTracker::new(),
        stream_was_up: false,
    };
    if let Some(challenge) = once_pending {
        session.challenge(&challenge).await;
    }
    let revoked = session.context.revoked.clone();
    let exit = loop {
        let event = tokio::select! {
            () = &mut shutdown => break Exit::Normal,
            () = revoked.cancelled() => {
                tracing::error!("Bot credential rejected by {}: the token was replaced, or the bot disabled or deleted", api.server());
                break Exit::TokenRejected;
            }
            () = &mut runtime_over => {
                tracing::info!("--max-runtime reached; stopping");
                break Exit::MaxRuntime;
            }
            event = inbox.recv() => event,
        };
        let Some(event) = event else {
            break Exit::Normal;
        };
        if let Some(exit) = session.handle(event).await {
            break exit;
        }
    };
    source_stop.cancel();
    let _ = source.await;
    session.stop_all().await;
    Ok(exit)
}

/// Starts an engine that keeps its process running once before anything is accepted, so that
/// its first start (Edax builds an opening book when it has none) does not eat a match's clock,
/// and says how it went. JSON engines are not checked: they may be one-shot programs, started
/// for every decision anyway. A Gomocup brain is asked its name and whether it plays swap2
/// openings instead, and a UCI engine its name and options (it is then kept in `uci`, ready
/// for the first leg); what they say is returned.
async fn check_engine(options: &Options, uci: &crate::engine::uci::UciPool) -> Checked {
    let name = options
        .engine_name
        .as_deref()
        .or(options.engine.default_name())
        .unwrap_or("the engine");
    if let crate::EngineSpec::Gomocup {
        command,
        max_memory_mb,
    } = &options.engine
    {
        let probe = match crate::engine::gomocup::probe(command, *max_memory_mb).await {
            Ok(probe) => probe,
            Err(failure) => {
                tracing::warn!(
                    "The Gomocup engine did not answer ABOUT, START 15 and SWAP2BOARD ({failure}); matches are accepted anyway, but not swap2 openings, and a failing engine is restarted at every decision"
                );
                crate::engine::gomocup::Probe::default()
            }
        };
        let name = options
            .engine_name
            .as_deref()
            .or(probe.name.as_deref())
            .unwrap_or("the Gomocup engine");
        if probe.swap2 {
            tracing::info!("{name} is ready, and answers SWAP2BOARD: it plays swap2 openings");
        } else {
            tracing::info!(
                "{name} is ready; it does not answer SWAP2BOARD, so swap2 openings are declined"
            );
        }
        return Checked {
            name: probe.name,
            swap2: Some(probe.swap2),
        };
    }
    if let crate::EngineSpec::Uci {
        command,
        options: uci_options,
    } = &options.engine
    {
        return check_uci(options, command, uci_options, uci).await;
    }
    if !options.engine.keeps_running() {
        return Checked::default();
    }
    tracing::info!(
        "Starting {name} once before accepting matches, to check that it answers (Edax without an opening book builds one first, which can take a minute)"
    );
    match crate::engine::first_answer(&options.engine).await {
        Ok(took) => tracing::info!(
            "{name} is ready: it answered the start position in {:.1} s",
            took.as_secs_f64()
        ),
        Err(failure) => tracing::warn!(
            "{name} did not answer the start position ({failure}); matches are accepted anyway, and a failing engine is restarted at every decision"
        ),
    }
    Checked::default()
}

/// What the start-up check learnt about the engine.
#[derive(Default)]
struct Checked {
    /// The engine's own name (a Gomocup brain's `ABOUT`, a UCI engine's `id name`).
    name: Option<String>,
    /// Whether a Gomocup brain plays swap2 openings; `None` for other engines.
    swap2: Option<bool>,
}

/// Starts a UCI engine once (`uci`, the options, `isready`), says what it found, and keeps it
/// in `pool` for the first leg.
async fn check_uci(
    options: &Options,
    command: &str,
    uci_options: &[crate::UciOption],
    pool: &crate::engine::uci::UciPool,
) -> Checked {
    let probe = match crate::engine::uci::probe(command, uci_options, pool).await {
        Ok(probe) => probe,
        Err(failure) => {
            tracing::warn!(
                "The UCI engine did not answer uci and isready ({failure}); matches are accepted anyway, and a failing engine is restarted at every decision"
            );
            return Checked::default();
        }
    };
    let name = options
        .engine_name
        .as_deref()
        .or(probe.name.as_deref())
        .unwrap_or("the UCI engine");
    for unknown in &probe.unknown_options {
        tracing::warn!(
            "{name} lists no option {unknown:?}; --uci-option {unknown}=… is sent anyway, and the engine may ignore it"
        );
    }
    if !probe.chess960
        && options
            .games
            .plays(&options.engine, crate::CHESS, "chess960")
    {
        tracing::warn!(
            "{name} lists no UCI_Chess960 option, so it may not play Chess960 (castling as the king taking its rook); leave it out with --games chess:standard,chess:dice"
        );
    }
    tracing::info!("{name} is ready");
    Checked {
        name: probe.name,
        swap2: None,
    }
}

/// A match being played.
#[derive(Default)]
struct Playing {
    /// Each leg task's latest decision, watched by the task, by [`Turn::task`].
    legs: HashMap<(u8, Option<u64>), watch::Sender<Option<Turn>>>,
    stop: CancellationToken,
    /// The match's leg tasks, waited for when it ends.
    tasks: TaskTracker,
}

struct Session {
    context: LegContext,
    me: i64,
    /// The games the engine plays (`--games`).
    games: Games,
    once: Option<i64>,
    matches: HashMap<i64, Playing>,
    /// Challenges already accepted or declined.
    answered: HashSet<i64>,
    legs: TaskTracker,
    stream_was_up: bool,
}

impl Session {
    async fn handle(&mut self, event: Event) -> Option<Exit> {
        match event {
            Event::Challenge(challenge) => self.challenge(&challenge).await,
            Event::Match(summary) => {
                if is_open(&summary) {
                    if summary["status"] == "running" {
                        self.playing(&summary);
                    }
                } else {
                    return self.ended(&summary).await;
                }
            }
            Event::Turn(turn) => self.turn(turn),
            Event::Finished(summary) => return self.ended(&summary).await,
            Event::Open(ids) => {
                // Matches being played, and the --once-match one even while it is only a
                // challenge, that the poll no longer lists have ended.
                let gone: Vec<i64> = self
                    .matches
                    .keys()
                    .copied()
                    .chain(self.once)
                    .filter(|id| !ids.contains(id))
                    .collect::<HashSet<_>>()
                    .into_iter()
                    .collect();
                for id in gone {
                    match self.context.api.snapshot(id).await {
                        Ok(snapshot) if !is_open(&snapshot) => {
                            if let Some(exit) = self.ended(&snapshot).await {
                                return Some(exit);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Event::StreamUp => {
                if self.stream_was_up {
                    tracing::info!("Event stream reconnected");
                }
                self.stream_was_up = true;
            }
            Event::StreamDown { why, retry_in } => {
                tracing::warn!(
                    "Connection/state error: the event stream is down ({why}); reconnecting in {} s, polling meanwhile",
                    retry_in.as_secs()
                );
            }
            Event::Unauthorized(why) => {
                tracing::error!("Bot credential rejected: {why}");
                return Some(Exit::TokenRejected);
            }
        }
        None
    }

    /// Accepts a challenge to this bot for a game its engine plays; declines the others.
    async fn challenge(&mut self, challenge: &Value) {
        let Some(id) = challenge["id"].as_i64() else {
            return;
        };
        if self.answered.contains(&id) || self.once.is_some_and(|once| once != id) {
            return;
        }
        let Some(reply) = reply_to(challenge, self.me, &self.games, &self.context.engine) else {
            return;
        };
        self.answered.insert(id);
        let challenger = participants(challenge)
            .into_iter()
            .next()
            .map_or_else(|| "?".to_owned(), |p| p.name);
        let variant = challenge["variant"].as_str().unwrap_or("std");
        let game = challenge["game"].as_str().unwrap_or(crate::OTHELLO);
        if let Reply::Decline(why) = reply {
            tracing::info!("Declining challenge {id} from {challenger}: {why}");
            if let Err(error) = self.context.api.reject(id).await {
                tracing::warn!("Could not decline challenge {id}: {error}");
            }
            return;
        }
        match self.context.api.accept(id).await {
            Ok(started) => {
                let what = match game {
                    crate::OTHELLO => variant.to_owned(),
                    game => format!("{game} {variant}"),
                };
                tracing::info!("Accepted challenge {id} from {challenger} ({what})");
                if started["status"] == "running" {
                    self.playing(&started);
                }
            }
            Err(ApiError::Unauthorized(_)) => self.context.revoked.cancel(),
            Err(error) => {
                tracing::warn!("Could not accept challenge {id} from {challenger}: {error}");
            }
        }
    }

    /// Notes a running match, once.
    fn playing(&mut self, summary: &Value) -> Option<&mut Playing> {
        let id = summary["id"].as_i64()?;
        if self.once.is_some_and(|once| once != id) {
            return None;
        }
        if !self.matches.contains_key(&id) {
            let opponents: Vec<String> = participants(summary)
                .into_iter()
                .filter(|p| p.id != self.me)
                .map(|p| p.name)
                .collect();
            let game = match summary["game"].as_str() {
                Some(game) if game != crate::OTHELLO => format!("{game} "),
                _ => String::new(),
            };
            tracing::info!(
                "Match {id} started: {game}{} {} against {}",
                summary["variant"].as_str().unwrap_or("std"),
                summary["format"].as_str().unwrap_or(""),
                opponents.join(", ")
            );
            self.matches.insert(id, Playing::default());
        }
        self.matches.get_mut(&id)
    }

    /// Hands a decision to its leg, starting the leg (and its engine) on first use. It never
    /// waits for the leg, which may be busy with an engine for a while.
    fn turn(&mut self, turn: Turn) {
        let id = turn.match_id;
        if self.once.is_some_and(|once| once != id) {
            return;
        }
        let context = self.context.clone();
        let legs = self.legs.clone();
        let playing = self.matches.entry(id).or_default();
        let sender = playing.legs.entry(turn.task()).or_insert_with(|| {
            let (sender, receiver) = watch::channel(None);
            let leg = leg::run(context, receiver, playing.stop.child_token());
            legs.spawn(playing.tasks.track_future(leg));
            sender
        });
        sender.send_replace(Some(turn));
    }

    /// A match or challenge ended: stop its legs and say how it went. Its legs are waited
    /// for (they stop their engines at once, or keep an idle Gomocup brain for the next leg),
    /// so that the next match finds the engines this one left.
    async fn ended(&mut self, summary: &Value) -> Option<Exit> {
        let id = summary["id"].as_i64()?;
        let playing = self.matches.remove(&id);
        let was_playing = playing.is_some();
        if let Some(playing) = playing {
            playing.stop.cancel();
            playing.tasks.close();
            playing.tasks.wait().await;
        }
        let mine = participants(summary).iter().any(|p| p.id == self.me);
        if was_playing || (mine && self.once == Some(id)) {
            tracing::info!("{}", describe_end(summary, self.me));
        }
        (self.once == Some(id)).then_some(Exit::Normal)
    }

    /// Stops every leg and waits for their engines to be gone.
    async fn stop_all(self) {
        for playing in self.matches.values() {
            playing.stop.cancel();
        }
        drop(self.matches);
        self.legs.close();
        self.legs.wait().await;
        self.context.brains.close().await;
        self.context.uci.close().await;
    }
}

/// How the connector answers a challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reply {
    Accept,
    /// Declined, and why.
    Decline(String),
}

/// The reply a pending challenge to this bot (`me`) gets: accepted when `games` lists its game
/// and variant and `engine` can play them, declined otherwise; `None` for a challenge that is
/// not this bot's to answer (not pending, sent by this bot, or not naming it). Participant 0
/// sent the challenge; the bot may be any of the others.
fn reply_to(
    challenge: &Value,
    me: i64,
    games: &Games,
    engine: &crate::EngineSpec,
) -> Option<Reply> {
    let seats = participants(challenge);
    let (challenger, invited) = seats.split_first()?;
    if challenge["status"] != "pending"
        || challenger.id == me
        || !invited.iter().any(|p| p.id == me)
    {
        return None;
    }
    let variant = challenge["variant"].as_str().unwrap_or("std");
    let game = challenge["game"].as_str().unwrap_or(crate::OTHELLO);
    Some(match games.refusal(engine, game, variant) {
        None => Reply::Accept,
        Some(why) => Reply::Decline(why),
    })
}

/// Whether a match is pending or running.
fn is_open(summary: &Value) -> bool {
    matches!(summary["status"].as_str(), Some("pending" | "running"))
}

/// One participant of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Participant {
    id: i64,
    name: String,
}

/// The participants' ids and names in participant order (0, the challenger, first): from
/// `participants` when the summary or snapshot has it (every match with more than two seats
/// does), else from a two-seat summary's `bot_a` and `bot_b`.
fn participants(summary: &Value) -> Vec<Participant> {
    let read = |bot: &Value| Participant {
        id: bot["id"].as_i64().unwrap_or_default(),
        name: bot["name"].as_str().unwrap_or("?").to_owned(),
    };
    match summary["participants"].as_array() {
        Some(list) => {
            let mut list: Vec<&Value> = list.iter().collect();
            // Listed in participant order; sorted by `participant` when that is given, so that
            // the order never rests on the list's.
            list.sort_by_key(|p| p["participant"].as_u64().unwrap_or(u64::MAX));
            list.into_iter().map(read).collect()
        }
        None => vec![read(&summary["bot_a"]), read(&summary["bot_b"])],
    }
}

/// One line on how a match ended, from this bot's side.
fn describe_end(summary: &Value, me: i64) -> String {
    let id = summary["id"].as_i64().unwrap_or_default();
    let status = summary["status"].as_str().unwrap_or("ended");
    let result = &summary["result"];
    let reason = result["reason"].as_str().unwrap_or("");
    let seats = participants(summary);
    let seat = seats.iter().position(|p| p.id == me).unwrap_or_default();
    let mut line = format!("Match {id} {status}");
    if !reason.is_empty() {
        line.push_str(&format!(" ({reason})"));
    }
    // Disc totals are Othello's; another game's result is told by its winner alone.
    let othello = summary["game"]
        .as_str()
        .is_none_or(|game| game == crate::OTHELLO);
    if othello
        && seats.len() == 2
        && let (Some(mine), Some(theirs)) = (
            result["totals"][seat].as_i64(),
            result["totals"][1 - seat].as_i64(),
        )
    {
        line.push_str(&format!(": {mine}-{theirs} in discs"));
    }
    match result["winner"].as_u64() {
        Some(w) if w as usize == seat => line.push_str(", won"),
        Some(_) => line.push_str(", lost"),
        None if status == "finished" => line.push_str(", drawn"),
        None => {}
    }
    line
}

/// Feeds the session: the stream while it is up, polls while it is not (or always, with
/// `--no-stream`). The environment is reported at every (re)connection, since the server
/// keeps only the last report and may have restarted.
async fn source(
    api: Api,
    report: Value,
    no_stream: bool,
    poll_every: Duration,
    events: mpsc::Sender<Event>,
    stop: CancellationToken,
) {
    let pause = |playing: bool| {
        if playing {
            poll_every
        } else {
            poll_every * IDLE_FACTOR
        }
    };
    let work = async {
        if no_stream {
            // Reported at start-up; again once the server answers after it could not be
            // reached, since it may have restarted and forgotten the report.
            let mut report_due = false;
            loop {
                if report_due {
                    report_environment(&api, &report).await;
                }
                let polled = poll(&api, &events).await;
                report_due = !polled.reached;
                tokio::time::sleep(pause(polled.playing)).await;
            }
        }
        let mut wait = BACKOFF_FIRST;
        loop {
            let why = match api.stream().await {
                Ok(response) => {
                    report_environment(&api, &report).await;
                    let _ = events.send(Event::StreamUp).await;
                    wait = BACKOFF_FIRST;
                    follow(response, &events).await
                }
                Err(ApiError::Unauthorized(why)) => {
                    let _ = events.send(Event::Unauthorized(why)).await;
                    return;
                }
                Err(error) => error.to_string(),
            };
            let _ = events
                .send(Event::StreamDown {
                    why,
                    retry_in: wait,
                })
                .await;
            let until = tokio::time::Instant::now() + wait;
            while tokio::time::Instant::now() < until {
                let playing = poll(&api, &events).await.playing;
                tokio::time::sleep_until(until.min(tokio::time::Instant::now() + pause(playing)))
                    .await;
            }
            wait = (wait * 2).min(BACKOFF_LAST);
        }
    };
    tokio::select! {
        () = stop.cancelled() => {}
        () = work => {}
    }
}

async fn report_environment(api: &Api, report: &Value) {
    if let Err(error) = api.report_environment(report).await {
        tracing::debug!("the environment report was not taken: {error}");
    }
}

/// Reads stream lines into events until the stream ends; returns why it ended.
async fn follow(response: reqwest::Response, events: &mpsc::Sender<Event>) -> String {
    let body = response
        .bytes_stream()
        .map(|chunk| chunk.map_err(std::io::Error::other));
    let mut lines = FramedRead::new(
        tokio_util::io::StreamReader::new(body),
        LinesCodec::new_with_max_length(MAX_STREAM_LINE),
    );
    loop {
        let line = match tokio::time::timeout(STREAM_SILENCE, lines.next()).await {
            Err(_) => return format!("nothing received for {} s", STREAM_SILENCE.as_secs()),
            Ok(None) => return "the server closed it".to_owned(),
            Ok(Some(Err(error))) => return error.to_string(),
            Ok(Some(Ok(line))) => line,
        };
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            tracing::debug!("unreadable stream line skipped: {line}");
            continue;
        };
        let event = match value["type"].as_str() {
            Some("challenge") => Event::Challenge(value["challenge"].clone()),
            Some("match") => Event::Match(value["match"].clone()),
            Some("finished") => Event::Finished(value["match"].clone()),
            Some("turn") => match Turn::from_json(&value) {
                Some(turn) => Event::Turn(turn),
                None => {
                    tracing::warn!("a turn line the connector cannot read was skipped: {line}");
                    continue;
                }
            },
            _ => continue, // hello, ping, and whatever newer servers add
        };
        if events.send(event).await.is_err() {
            return "the connector is stopping".to_owned();
        }
    }
}

/// What a poll found.
struct Polled {
    /// A match is running.
    playing: bool,
    /// The server answered.
    reached: bool,
}

/// One poll: the bot's open matches, and the decisions pending in the running ones.
async fn poll(api: &Api, events: &mpsc::Sender<Event>) -> Polled {
    let failed = Polled {
        playing: false,
        reached: false,
    };
    let open = match api.open_matches().await {
        Ok(open) => open,
        Err(ApiError::Unauthorized(why)) => {
            let _ = events.send(Event::Unauthorized(why)).await;
            return failed;
        }
        Err(error) => {
            tracing::debug!("poll failed: {error}");
            return failed;
        }
    };
    let mut playing = false;
    let ids = open.iter().filter_map(|m| m["id"].as_i64()).collect();
    for summary in open {
        if summary["status"] == "pending" {
            let _ = events.send(Event::Challenge(summary)).await;
            continue;
        }
        playing = true;
        let Some(id) = summary["id"].as_i64() else {
            continue;
        };
        let _ = events.send(Event::Match(summary)).await;
        if let Ok(pending) = api.turns(id).await {
            for turn in pending["turns"].as_array().into_iter().flatten() {
                if let Some(turn) = Turn::from_json(turn) {
                    let _ = events.send(Event::Turn(turn)).await;
                }
            }
        }
    }
    let _ = events.send(Event::Open(ids)).await;
    Polled {
        playing,
        reached: true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn challenges_are_answered_by_game_and_variant_when_they_are_this_bots() {
        let json = crate::EngineSpec::Json {
            command: "engine".to_owned(),
        };
        let gomocup = crate::EngineSpec::Gomocup {
            command: "brain".to_owned(),
            max_memory_mb: 350,
        };
        let two = |game: &str, variant: &str| {
            json!({"id": 1, "status": "pending", "game": game, "variant": variant,
                "bot_a": {"id": 1, "name": "a"}, "bot_b": {"id": 2, "name": "me"}})
        };
        let three = json!({"id": 2, "status": "pending", "game": "goofspiel", "variant": "standard",
            "participants": [{"id": 1, "participant": 0}, {"id": 3, "participant": 1}, {"id": 2, "participant": 2}]});
        let mut running = two("goofspiel", "standard");
        running["status"] = json!("running");
        let mine = json!({"id": 3, "status": "pending", "game": "othello", "variant": "std",
            "bot_a": {"id": 2}, "bot_b": {"id": 1}});
        let legacy = json!({"id": 4, "status": "pending", "variant": "anti",
            "bot_a": {"id": 1}, "bot_b": {"id": 2}});
        let declined = |why: &str| Some(Reply::Decline(why.to_owned()));
        let no_swap2 = "this Gomocup engine does not answer SWAP2BOARD, so it cannot play gomoku renju-swap2, which opens with swap2";
        // (--games, engine, whether a Gomocup brain answers SWAP2BOARD, challenge, reply)
        let table = [
            (
                "othello",
                &json,
                true,
                two("othello", "std"),
                Some(Reply::Accept),
            ),
            (
                "othello",
                &json,
                true,
                two("goofspiel", "standard"),
                declined("this engine does not play goofspiel standard"),
            ),
            ("othello", &json, true, legacy.clone(), Some(Reply::Accept)),
            (
                "goofspiel",
                &json,
                true,
                legacy,
                declined("this engine does not play othello anti"),
            ),
            (
                "goofspiel",
                &json,
                true,
                two("goofspiel", "standard"),
                Some(Reply::Accept),
            ),
            (
                "goofspiel:standard",
                &json,
                true,
                two("goofspiel", "three"),
                declined("this engine does not play goofspiel three"),
            ),
            ("othello,goofspiel", &json, true, three, Some(Reply::Accept)),
            ("goofspiel", &json, true, running, None),
            ("othello", &json, true, mine, None),
            // A Gomocup brain plays swap2 openings only if it answers SWAP2BOARD.
            (
                "gomoku",
                &gomocup,
                true,
                two("gomoku", "renju-swap2"),
                Some(Reply::Accept),
            ),
            (
                "gomoku",
                &gomocup,
                false,
                two("gomoku", "renju-swap2"),
                declined(no_swap2),
            ),
            (
                "gomoku",
                &gomocup,
                false,
                two("gomoku", "renju"),
                Some(Reply::Accept),
            ),
            (
                "gomoku",
                &json,
                false,
                two("gomoku", "swap2"),
                Some(Reply::Accept),
            ),
        ];
        for (games, engine, swap2, challenge, expected) in table {
            let games: Games = games.parse().expect("a valid list");
            let games = games.with_swap2(swap2);
            assert_eq!(
                reply_to(&challenge, 2, &games, engine),
                expected,
                "--games {games:?}: {challenge}"
            );
        }
    }

    #[test]
    fn participants_come_from_the_list_when_there_is_one() {
        let ids =
            |summary: Value| -> Vec<i64> { participants(&summary).iter().map(|p| p.id).collect() };
        let table = [
            (json!({"bot_a": {"id": 1}, "bot_b": {"id": 2}}), vec![1, 2]),
            (
                json!({"bot_a": {"id": 1}, "bot_b": {"id": 2},
                    "participants": [{"id": 2, "participant": 1}, {"id": 1, "participant": 0}]}),
                vec![1, 2],
            ),
            (
                json!({"participants": [{"id": 5, "name": "c", "kind": "bot", "participant": 2},
                    {"id": 3, "participant": 0}, {"id": 4, "participant": 1}]}),
                vec![3, 4, 5],
            ),
            (json!({"participants": [{"id": 8}, {"id": 9}]}), vec![8, 9]),
        ];
        for (summary, expected) in table {
            assert_eq!(ids(summary.clone()), expected, "{summary}");
        }
    }

    #[test]
    fn the_end_of_a_match_is_told_from_the_bots_side() {
        let finished = json!({"id": 7, "status": "finished", "bot_a": {"id": 1, "name": "a"}, "bot_b": {"id": 2, "name": "b"},
            "result": {"reason": "score", "winner": 1, "totals": [24, 40]}});
        assert_eq!(
            describe_end(&finished, 2),
            "Match 7 finished (score): 40-24 in discs, won"
        );
        assert_eq!(
            describe_end(&finished, 1),
            "Match 7 finished (score): 24-40 in discs, lost"
        );
        let aborted = json!({"id": 8, "status": "aborted", "participants": [{"id": 1}, {"id": 2}], "result": {"reason": "no_first_move"}});
        assert_eq!(describe_end(&aborted, 1), "Match 8 aborted (no_first_move)");
        let drawn = json!({"id": 9, "status": "finished", "bot_a": {"id": 1}, "bot_b": {"id": 2}, "result": {"reason": "score", "winner": null, "totals": [32, 32]}});
        assert_eq!(
            describe_end(&drawn, 1),
            "Match 9 finished (score): 32-32 in discs, drawn"
        );
        let goofspiel = json!({"id": 10, "status": "finished", "game": "goofspiel",
            "participants": [{"id": 1, "participant": 0}, {"id": 2, "participant": 1}, {"id": 3, "participant": 2}],
            "result": {"reason": "score", "winner": 2}});
        assert_eq!(
            describe_end(&goofspiel, 3),
            "Match 10 finished (score), won"
        );
        assert_eq!(
            describe_end(&goofspiel, 2),
            "Match 10 finished (score), lost"
        );
    }
}
