//! `arbiter match`: local engines played against each other with no server, for engine
//! authors testing a change before they connect, in every game Arbiter hosts.
//!
//! Engines run behind the connector's adapters ([`arbiter_connector::EnginePlayer`]), so an
//! engine that plays here plays on a server the same way. Every request is written by the
//! game's family exactly as a server writes it. Games come in pairs: each opening (a seed,
//! from which the family draws its start and the rules their dice) is played twice, the
//! engines' seats swapped, so that the opening's bias cancels out; in a round robin every
//! pairing meets the same openings. Results are counted as cutechess-cli and fastchess count
//! them ([`stats`]), and an optional SPRT stops the match once a bound is crossed.

mod game;
pub mod stats;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_connector::{EnginePlayer, EngineSpec};
use arbiter_fair::ServerSeed;
use arbiter_plugin::{Family, HouseLevel, LegRequest, Opening, RecordFormat, RecordedGame};
use arbiter_rules::SeatResult;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use game::{Contender, GamePlan};
use stats::{Pentanomial, Score, Sprt, SprtVerdict, Tally};

/// One engine taking part, with the name the results use.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Its name, unique among the entrants.
    pub name: String,
    /// What plays for it.
    pub player: Player,
}

/// What plays for an entrant.
#[derive(Clone, Debug, PartialEq)]
pub enum Player {
    /// A local engine, behind the connector's adapters.
    Engine(EngineSpec),
    /// The game's own house player at a level, in this process. It is given the time a server
    /// gives it: the family's share of its clock ([`arbiter_plugin::HousePlayer::think_ms`]),
    /// within the level's [`HouseLevel::max_think_ms`].
    House(HouseLevel),
}

/// Each engine's clock in a game: a base time and an increment added after each of its turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TimeControl {
    /// The clock at the start, in milliseconds.
    pub base_ms: u64,
    /// Added after each turn, in milliseconds.
    pub increment_ms: u64,
}

/// Why a time control is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a time control: write seconds and an increment in seconds, such as 10+0.1 or 60"
)]
pub struct TimeControlError(String);

impl std::str::FromStr for TimeControl {
    type Err = TimeControlError;

    /// `base+increment` in seconds (`10+0.1`), or `base` alone.
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let refuse = || TimeControlError(text.to_owned());
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let millis = |part: &str| -> Result<u64, TimeControlError> {
            let seconds: f64 = part.trim().parse().map_err(|_| refuse())?;
            if !(0.0..=86_400.0).contains(&seconds) {
                return Err(refuse());
            }
            // Whole milliseconds; a non-negative value below a day fits.
            Ok((seconds * 1000.0).round() as u64)
        };
        let control = TimeControl {
            base_ms: millis(base)?,
            increment_ms: millis(increment)?,
        };
        if control.base_ms == 0 {
            return Err(refuse());
        }
        Ok(control)
    }
}

/// Where a match's games start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Openings {
    /// Drawn by the family from each pair's seed: a random opening, the rules' start, or one
    /// from the family's balanced list.
    Drawn(Opening),
    /// The lines of an opening book, in the game's own notation (see
    /// [`arbiter_plugin::MatchSetup::listed_opening`]), one per pair, in order, starting over
    /// once every line is used.
    Book(Vec<String>),
}

/// What a match is.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// The game.
    pub family: &'static Family,
    /// Its variant.
    pub variant: String,
    /// The engines: two for a match, more for a round robin of every pairing.
    pub entrants: Vec<Entrant>,
    /// Games per pairing, a pair per opening (an odd number is rounded up).
    pub games: u32,
    /// Games played at once.
    pub concurrency: usize,
    /// Each engine's clock.
    pub time_control: TimeControl,
    /// Where games start.
    pub openings: Openings,
    /// The seed every opening is drawn from: the same seed plays the same openings.
    pub seed: String,
    /// A test that stops a match of two engines once a bound is crossed.
    pub sprt: Option<Sprt>,
}

/// Why a match cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// Fewer than two engines.
    #[error("a match needs at least two engines")]
    TooFewEngines,
    /// Two engines with one name.
    #[error("two engines are named {0:?}; give each its own name")]
    DuplicateName(String),
    /// The variant does not exist or is not played by two.
    #[error("{0}")]
    Variant(String),
    /// A line of the opening book cannot be played.
    #[error("opening {line} of the book cannot be played: {why}")]
    Opening {
        /// Its line number, from 1, among the book's openings.
        line: usize,
        /// Why.
        why: String,
    },
    /// The opening book is empty.
    #[error("the opening book lists no opening")]
    EmptyBook,
    /// An engine's protocol cannot play the game.
    #[error(
        "{engine}'s protocol cannot play {mode}: NBoard engines play standard Othello, Gomocup brains Gomoku and UCI engines chess; other engines speak JSON lines"
    )]
    Unplayable {
        /// The engine's name.
        engine: String,
        /// The game and variant.
        mode: String,
    },
    /// A house entrant in a game whose family has no house player.
    #[error("{engine} is a house player, and {game} has none")]
    NoHousePlayer {
        /// The entrant's name.
        engine: String,
        /// The game.
        game: String,
    },
    /// The SPRT needs exactly two engines.
    #[error("the SPRT compares two engines; a round robin of {0} has no single result to test")]
    SprtNeedsTwo(usize),
    /// A game could not be played (never an engine's fault).
    #[error("game {number} could not be played: {why}")]
    Game {
        /// Its number.
        number: u64,
        /// Why.
        why: String,
    },
}

/// One game as it was played.
#[derive(Clone, Debug, Serialize)]
pub struct GameRecord {
    /// Its number, from 1, in the order games were scheduled.
    pub number: u64,
    /// The opening's number, from 0: both games of a pair share it.
    pub opening: u32,
    /// The opening's seed.
    pub seed: String,
    /// The rules configuration the game started from.
    pub config: Value,
    /// The engines by seat.
    pub seats: [String; 2],
    /// Each seat's result.
    pub scores: [Score; 2],
    /// Why it ended.
    pub reason: String,
    /// The seat whose engine failed or ran out of time, if one did.
    pub failed: Option<usize>,
    /// The actions, in the game's notation.
    pub moves: Vec<String>,
    /// The game as it started, with nothing hidden (the family's record format reads it).
    #[serde(skip)]
    pub start: Value,
    /// The game as it ended, with nothing hidden.
    #[serde(skip)]
    pub end: Value,
    /// How long the game took.
    #[serde(skip)]
    pub elapsed: Duration,
    /// The time from each answer to the next request.
    #[serde(skip)]
    pub overheads: Vec<Duration>,
}

impl GameRecord {
    /// The game in `format` (a family's PGN or GGF), as played at `event` on `date`
    /// (`YYYY-MM-DD`) under `time_control`; `None` where the format cannot hold it.
    pub fn in_format(
        &self,
        format: &dyn RecordFormat,
        event: &str,
        date: &str,
        time_control: TimeControl,
    ) -> Option<String> {
        let results = self.scores.map(|score| match score {
            Score::Win => SeatResult::Win,
            Score::Draw => SeatResult::Draw,
            Score::Loss => SeatResult::Loss,
        });
        format.write(&RecordedGame {
            event,
            site: "local",
            date,
            round: &self.number.to_string(),
            players: &self.seats,
            results: &results,
            reason: &self.reason,
            failed: self.failed.is_some() && self.reason != "time",
            start: &self.start,
            end: &self.end,
            time_control: (time_control.base_ms, time_control.increment_ms),
        })
    }
}

/// The results of one pairing.
#[derive(Clone, Debug, Serialize)]
pub struct PairingResult {
    /// The first engine's name.
    pub first: String,
    /// The second engine's.
    pub second: String,
    /// The games, from the first engine's side.
    pub tally: Tally,
    /// The complete pairs, from the first engine's side.
    pub pairs: Pentanomial,
}

/// Where a match stands: every pairing's results, and the SPRT's ratio and verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    /// Games played so far.
    pub games: u64,
    /// Games scheduled in all.
    pub scheduled: u64,
    /// Each pairing's results, in schedule order.
    pub pairings: Vec<PairingResult>,
    /// The SPRT's log-likelihood ratio over the complete pairs, when one runs.
    pub llr: Option<f64>,
    /// Its verdict.
    pub verdict: Option<SprtVerdict>,
}

/// What a run reports as it goes: each game once it ends, with the standing after it.
#[derive(Clone, Debug)]
pub struct Update {
    /// The game.
    pub game: GameRecord,
    /// The standing once it is counted.
    pub standing: Standing,
}

/// A pairing's place in the schedule: the two entrants.
#[derive(Clone, Copy, Debug)]
struct Pairing {
    first: usize,
    second: usize,
}

/// One game to play.
#[derive(Clone, Copy, Debug)]
struct Job {
    number: u64,
    pairing: usize,
    opening: u32,
    leg: u8,
}

/// Every game of the match, pairs played one after the other and pairings taking turns, so that
/// the pairs of a round robin progress together and each pair completes soon after it starts.
fn schedule(pairings: usize, games: u32) -> Vec<Job> {
    let openings = games.div_ceil(2);
    let mut jobs = Vec::new();
    for opening in 0..openings {
        for pairing in 0..pairings {
            for leg in 0..2 {
                jobs.push(Job {
                    number: jobs.len() as u64 + 1,
                    pairing,
                    opening,
                    leg,
                });
            }
        }
    }
    jobs
}

/// The seed of opening `opening`.
fn opening_seed(seed: &str, opening: u32) -> ServerSeed {
    ServerSeed::from_revealed(&format!("{seed}:{opening}"))
}

/// Checks the options and the pairings they make.
fn pairings(options: &MatchOptions) -> Result<Vec<Pairing>, MatchError> {
    let entrants = &options.entrants;
    if entrants.len() < 2 {
        return Err(MatchError::TooFewEngines);
    }
    for (i, entrant) in entrants.iter().enumerate() {
        if entrants[..i].iter().any(|e| e.name == entrant.name) {
            return Err(MatchError::DuplicateName(entrant.name.clone()));
        }
    }
    let family = options.family;
    let variant = family.variant(&options.variant).ok_or_else(|| {
        let known: Vec<&str> = family.setup.variants().iter().map(|v| v.name).collect();
        MatchError::Variant(format!(
            "{} has no variant {:?}; it has {}",
            family.id(),
            options.variant,
            known.join(", ")
        ))
    })?;
    if !variant.seats_allowed(2) {
        return Err(MatchError::Variant(format!(
            "{}:{} is not played by two, and a match pits two engines at a time",
            family.id(),
            variant.name
        )));
    }
    for entrant in entrants {
        check_engine(entrant, family, family.id(), variant.name)?;
    }
    if let Openings::Book(lines) = &options.openings {
        check_book(family, variant.name, lines)?;
    }
    if options.sprt.is_some() && entrants.len() != 2 {
        return Err(MatchError::SprtNeedsTwo(entrants.len()));
    }
    let mut pairings = Vec::new();
    for first in 0..entrants.len() {
        for second in first + 1..entrants.len() {
            pairings.push(Pairing { first, second });
        }
    }
    Ok(pairings)
}

/// Checks that every line of an opening book makes a game the rules can start.
fn check_book(family: &Family, variant: &str, lines: &[String]) -> Result<(), MatchError> {
    if lines.is_empty() {
        return Err(MatchError::EmptyBook);
    }
    let seed = ServerSeed::from_revealed("book");
    for (i, line) in lines.iter().enumerate() {
        let refused = |why: String| MatchError::Opening { line: i + 1, why };
        let config = family
            .setup
            .listed_opening(variant, line)
            .map_err(|e| refused(e.to_string()))?;
        let mut rng = seed.stream("check", 0);
        family
            .rules
            .start(&config, &mut arbiter_rules::Ctx::new(0, &mut rng))
            .map_err(|e| refused(e.to_string()))?;
    }
    Ok(())
}

/// Checks that `entrant`'s adapter can play `game`'s `variant` at all, so that a match that
/// could only be lost by forfeit is refused before it starts.
fn check_engine(
    entrant: &Entrant,
    family: &Family,
    game: &str,
    variant: &str,
) -> Result<(), MatchError> {
    let plays = match &entrant.player {
        Player::House(_) if family.house.is_none() => {
            return Err(MatchError::NoHousePlayer {
                engine: entrant.name.clone(),
                game: game.to_owned(),
            });
        }
        Player::House(_) => true,
        Player::Engine(EngineSpec::Json { .. } | EngineSpec::Practice) => true,
        Player::Engine(
            engine @ (EngineSpec::Nboard { .. }
            | EngineSpec::Edax { .. }
            | EngineSpec::Egaroucid { .. }),
        ) => game == arbiter_connector::OTHELLO && engine.variants().contains(&variant),
        Player::Engine(EngineSpec::Gomocup { .. }) => game == arbiter_connector::GOMOKU,
        Player::Engine(EngineSpec::Uci { .. }) => game == arbiter_connector::CHESS,
    };
    if plays {
        Ok(())
    } else {
        Err(MatchError::Unplayable {
            engine: entrant.name.clone(),
            mode: format!("{game}:{variant}"),
        })
    }
}

/// The counts a run keeps.
struct Counts {
    pairings: Vec<PairingResult>,
    /// First games of pairs whose second has not ended, by pairing and opening.
    halves: HashMap<(usize, u32), Score>,
    games: u64,
    scheduled: u64,
    sprt: Option<Sprt>,
}

impl Counts {
    /// Counts a game whose first seat was played by the pairing's first engine when `leg` is
    /// 0, its second when 1.
    fn add(&mut self, job: &Job, scores: [Score; 2]) {
        let score = scores[usize::from(job.leg)];
        let result = &mut self.pairings[job.pairing];
        result.tally.add(score);
        match self.halves.remove(&(job.pairing, job.opening)) {
            Some(other) => result.pairs.add(other, score),
            None => {
                self.halves.insert((job.pairing, job.opening), score);
            }
        }
        self.games += 1;
    }

    fn standing(&self) -> Standing {
        let llr = self
            .sprt
            .as_ref()
            .zip(self.pairings.first())
            .map(|(sprt, result)| sprt.llr(&result.pairs));
        Standing {
            games: self.games,
            scheduled: self.scheduled,
            pairings: self.pairings.clone(),
            llr,
            verdict: self.sprt.as_ref().zip(llr).map(|(s, llr)| s.verdict(llr)),
        }
    }
}

/// The end of a run: the standing, and the arena's own time per move.
#[derive(Clone, Debug)]
pub struct Report {
    /// The results when the run ended.
    pub standing: Standing,
    /// Whether it ended early: the SPRT decided or the run was stopped.
    pub stopped_early: bool,
    /// Every move's overhead (the time from an engine's answer to the next request), sorted.
    pub overheads: Vec<Duration>,
    /// How long the run took.
    pub elapsed: Duration,
}

impl Report {
    /// The overhead at quantile `q` (0.5 for the median, 0.99), or `None` without moves.
    pub fn overhead_quantile(&self, q: f64) -> Option<Duration> {
        if self.overheads.is_empty() {
            return None;
        }
        let last = self.overheads.len() - 1;
        let index = ((last as f64) * q.clamp(0.0, 1.0)).round() as usize;
        self.overheads.get(index.min(last)).copied()
    }
}

/// Plays the match: `concurrency` games at once, each reported on `updates` as it ends, until
/// every game is played, the SPRT decides (games under way then are not counted), or `stop`
/// is set (games under way are finished and counted). Every engine process is stopped before
/// it returns.
pub async fn run(
    options: MatchOptions,
    updates: mpsc::UnboundedSender<Update>,
    stop: Arc<AtomicBool>,
) -> Result<Report, MatchError> {
    let started = Instant::now();
    let pairings = pairings(&options)?;
    let jobs = Arc::new(schedule(pairings.len(), options.games));
    let counts = Counts {
        pairings: pairings
            .iter()
            .map(|p| PairingResult {
                first: options.entrants[p.first].name.clone(),
                second: options.entrants[p.second].name.clone(),
                tally: Tally::default(),
                pairs: Pentanomial::default(),
            })
            .collect(),
        halves: HashMap::new(),
        games: 0,
        scheduled: jobs.len() as u64,
        sprt: options.sprt,
    };
    let shared = Arc::new(Shared {
        options,
        pairings,
        jobs,
        next: AtomicUsize::new(0),
        stop,
        counts: Mutex::new(counts),
        stopped_early: AtomicBool::new(false),
        overheads: Mutex::new(Vec::new()),
        updates,
    });
    let workers = shared.options.concurrency.max(1);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..workers {
        tasks.spawn(work(Arc::clone(&shared)));
    }
    let mut failure = None;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                shared.stop.store(true, Ordering::SeqCst);
                failure.get_or_insert(error);
            }
            Err(join) => {
                shared.stop.store(true, Ordering::SeqCst);
                failure.get_or_insert(MatchError::Game {
                    number: 0,
                    why: join.to_string(),
                });
            }
        }
    }
    if let Some(error) = failure {
        return Err(error);
    }
    let standing = lock(&shared.counts).standing();
    let mut overheads = std::mem::take(&mut *lock(&shared.overheads));
    overheads.sort_unstable();
    Ok(Report {
        stopped_early: shared.stopped_early.load(Ordering::SeqCst)
            || standing.games < standing.scheduled,
        standing,
        overheads,
        elapsed: started.elapsed(),
    })
}

/// What the workers share.
struct Shared {
    options: MatchOptions,
    pairings: Vec<Pairing>,
    jobs: Arc<Vec<Job>>,
    next: AtomicUsize,
    stop: Arc<AtomicBool>,
    counts: Mutex<Counts>,
    stopped_early: AtomicBool,
    overheads: Mutex<Vec<Duration>>,
    updates: mpsc::UnboundedSender<Update>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One worker: plays the next game while there is one, with its own process of each engine,
/// kept from game to game.
async fn work(shared: Arc<Shared>) -> Result<(), MatchError> {
    let options = &shared.options;
    let mut players: Vec<Contender> = options
        .entrants
        .iter()
        .map(|entrant| match &entrant.player {
            Player::Engine(spec) => Contender::Engine(Box::new(EnginePlayer::new(spec))),
            Player::House(level) => Contender::House(*level),
        })
        .collect();
    let result = async {
        loop {
            if shared.stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            let Some(&job) = shared.jobs.get(shared.next.fetch_add(1, Ordering::SeqCst)) else {
                return Ok(());
            };
            let record = play_job(&shared, &job, &mut players).await?;
            let standing = {
                let mut counts = lock(&shared.counts);
                // Once the test has decided, the match is over: a game that was under way
                // then is not counted, as cutechess-cli abandons it.
                if shared.stopped_early.load(Ordering::SeqCst) {
                    return Ok(());
                }
                counts.add(&job, record.scores);
                let standing = counts.standing();
                if standing
                    .verdict
                    .is_some_and(|verdict| verdict != SprtVerdict::Continue)
                {
                    shared.stopped_early.store(true, Ordering::SeqCst);
                    shared.stop.store(true, Ordering::SeqCst);
                }
                standing
            };
            lock(&shared.overheads).extend_from_slice(&record.overheads);
            // A caller that stopped listening still gets the report.
            let _ = shared.updates.send(Update {
                game: record,
                standing,
            });
        }
    }
    .await;
    for player in &mut players {
        if let Contender::Engine(engine) = player {
            engine.stop().await;
        }
    }
    result
}

/// Plays one game of the schedule.
async fn play_job(
    shared: &Shared,
    job: &Job,
    players: &mut [Contender],
) -> Result<GameRecord, MatchError> {
    let options = &shared.options;
    let pairing = shared.pairings[job.pairing];
    let seed = opening_seed(&options.seed, job.opening);
    let refused = |why: String| MatchError::Game {
        number: job.number,
        why,
    };
    let setup = options.family.setup;
    let configs = match &options.openings {
        Openings::Drawn(opening) => setup.leg_configs(
            &LegRequest {
                variant: &options.variant,
                seats: 2,
                legs: 2,
                opening: *opening,
            },
            &mut seed.stream("setup", 0),
        ),
        Openings::Book(lines) => {
            let line = &lines[job.opening as usize % lines.len().max(1)];
            setup
                .listed_opening(&options.variant, line)
                .map(|config| vec![config.clone(), config])
        }
    }
    .map_err(|e| refused(e.to_string()))?;
    let config = configs
        .get(usize::from(job.leg))
        .ok_or_else(|| refused("the family set up fewer than two games".to_owned()))?;
    // The pair's first game seats the pairing's first engine first; the second swaps them.
    let players_by_seat = if job.leg == 0 {
        [pairing.first, pairing.second]
    } else {
        [pairing.second, pairing.first]
    };
    let plan = GamePlan {
        family: options.family,
        variant: &options.variant,
        config,
        seed: &seed,
        number: job.number,
        leg: job.leg,
        players_by_seat,
        time_control: options.time_control,
    };
    let started = Instant::now();
    let played = game::play(&plan, players)
        .await
        .map_err(|e| refused(e.to_string()))?;
    for &player in &players_by_seat {
        if let Contender::Engine(engine) = &mut players[player] {
            engine.new_game().await;
        }
    }
    let name = |i: usize| options.entrants[i].name.clone();
    Ok(GameRecord {
        number: job.number,
        opening: job.opening,
        seed: seed.reveal().to_owned(),
        config: config.clone(),
        seats: [name(players_by_seat[0]), name(players_by_seat[1])],
        scores: played.scores,
        reason: played.reason,
        failed: played.failed,
        moves: played.moves,
        start: played.start,
        end: played.end,
        elapsed: started.elapsed(),
        overheads: played.overheads,
    })
}

#[cfg(test)]
mod tests;
