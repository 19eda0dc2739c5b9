//! The balance simulator: whole games played through the typed rules API, many at a time,
//! and the good side's win rate per player count.
//!
//! [`play`] drives one game from [`FateTokens::start`] to the end of the ending (section 19)
//! exactly as an arena would: it asks every pending seat for its decision, from that seat's
//! [`FateView`] alone, offers it its claims along with each decision, and lets the clock run to the
//! rules' deadline whenever nobody has anything left to do (rules 5.4 and 5.5). Who plays the
//! seats is a [`Players`]; [`RandomPlayers`] picks uniformly among the legal decisions.
//!
//! [`simulate`] plays `games` games for each player count on several threads and sums them up
//! in a [`CountReport`] per count: the good side's win rate with its 95 % Wilson interval, the
//! average length in rounds and how the games ended ([`Ending`]); [`svg`] draws the win rates.
//!
//! Everything is deterministic per seed: the rules draw from one ChaCha8 stream of the game's
//! seed and each seat decides from a stream of its own, so a game depends on nothing but its
//! seed and the players, and game `i` of player count `p` gets the seed [`game_seed`]`(seed,
//! p, i)`, so the totals do not depend on the number of threads or on their scheduling.

mod chart;
mod random;
mod stats;
#[cfg(test)]
mod tests;

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use arbiter_rules::{Ctx, Game, Random, Seat, SeatSet, ToAct, Viewer};

use crate::config::FateConfig;
use crate::rules::{FateAction, FateTokens};
use crate::state::{FateState, PhaseKind, Side, WinReason};
use crate::view::FateView;

pub use chart::svg;
pub use random::{RandomPlayers, decisions};
pub use stats::{CountReport, Endings, Interval, Z95, wilson};

/// Who plays the seats of a simulated game.
///
/// Every call gets the view of one seat, [`FateTokens::view`] with [`Viewer::Seat`], and
/// nothing else: whatever a player decides comes from what that seat may see (section 22).
/// `rng` is the seat's own stream, so a player's randomness never depends on another seat's.
///
/// [`RuleBots`] are the rule bots of [`crate::bots`]; [`RandomPlayers`] are the baseline.
pub trait Players: Sync {
    /// The decision `view`'s seat owes now, or None.
    fn decide(&self, view: &FateView, rng: &mut dyn Random) -> Option<FateAction>;
    /// Claims the seat makes now (free actions).
    fn claims(&self, view: &FateView, rng: &mut dyn Random) -> Vec<FateAction>;
}

/// The rule bots of [`crate::bots`] in every seat: the players balance is measured with.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleBots;

impl Players for RuleBots {
    fn decide(&self, view: &FateView, rng: &mut dyn Random) -> Option<FateAction> {
        crate::bots::decide(view, rng)
    }

    fn claims(&self, view: &FateView, rng: &mut dyn Random) -> Vec<FateAction> {
        crate::bots::claims(view, rng)
    }
}

/// How a game was won: the rules' [`WinReason`], one category each (rule 18.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    /// Misfortune (a): a pathfinder named the Great Fortune (rule 11.11, check W1).
    Pathfinder,
    /// Misfortune (b): an exiled GM's counter right named the Great Fortune (rule 16.2,
    /// check W3).
    Counter,
    /// Good: no Great Misfortune is living, every one exiled by vote or turned into a ghost by
    /// a failed pathfinder (checks W2, W4, W5).
    NoGreatMisfortune,
    /// Misfortune (c): the living GMs were at least as many as the living good-side players.
    Parity,
    /// Misfortune (d): a GM was still living at the end of the round cap (rule 18.4).
    RoundCap,
}

impl Ending {
    /// Every ending, in the order reports list them.
    pub const ALL: [Ending; 5] = [
        Ending::Pathfinder,
        Ending::Counter,
        Ending::NoGreatMisfortune,
        Ending::Parity,
        Ending::RoundCap,
    ];

    /// The ending of a game the rules decided for `reason`.
    pub fn of(reason: WinReason) -> Ending {
        match reason {
            WinReason::Pathfinder => Ending::Pathfinder,
            WinReason::Counter => Ending::Counter,
            WinReason::NoGreatMisfortune => Ending::NoGreatMisfortune,
            WinReason::Parity => Ending::Parity,
            WinReason::RoundCap => Ending::RoundCap,
        }
    }

    /// A short name for tables and charts.
    pub fn label(self) -> &'static str {
        match self {
            Ending::Pathfinder => "pathfinder",
            Ending::Counter => "counter",
            Ending::NoGreatMisfortune => "no GM left",
            Ending::Parity => "parity",
            Ending::RoundCap => "round cap",
        }
    }

    /// Whether the good side wins with this ending (rule 18.1).
    pub fn good_wins(self) -> bool {
        self == Ending::NoGreatMisfortune
    }

    /// The position of this ending in [`Ending::ALL`].
    pub(crate) fn index(self) -> usize {
        match self {
            Ending::Pathfinder => 0,
            Ending::Counter => 1,
            Ending::NoGreatMisfortune => 2,
            Ending::Parity => 3,
            Ending::RoundCap => 4,
        }
    }
}

/// What one simulated game came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameReport {
    /// Whether the good side won.
    pub good_won: bool,
    /// The round in which the game was decided.
    pub rounds: u32,
    /// How it was decided.
    pub ending: Ending,
    /// Actions the rules refused: decisions and claims alike. Players choose from their view,
    /// so a refusal is a bug, in the players or in the rules; the seat then waits for the
    /// deadline's default.
    pub refused: u32,
}

/// The most steps [`play`] takes before it gives a game up. A step asks every pending seat
/// once or lets the clock run to one deadline; a game of the longest kind (8 players, 9
/// rounds of 7 phases with their locks) takes a few hundred.
pub const STEP_CAP: u32 = 10_000;

/// Why a game could not be played to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The rules refused the configuration (rule 1.1: 4 to 8 players).
    #[error("cannot start a game: {0}")]
    Config(String),
    /// The game had not ended after [`STEP_CAP`] steps.
    #[error("the game had not ended after {STEP_CAP} steps (round {round})")]
    StepCap {
        /// The round it was in.
        round: u32,
    },
    /// Nobody could act and the rules gave no deadline, so the game could never move on.
    #[error("the game is stuck in phase {phase}: nobody may act and there is no deadline")]
    Stuck {
        /// The phase number it was in.
        phase: u32,
    },
    /// The rules asked for a single seat's turn, which Fate Tokens never does.
    #[error("the rules asked for a turn, which Fate Tokens never does")]
    Turn,
    /// The game was over without a fixed result.
    #[error("the game was over without a result")]
    NoResult,
}

/// The stream number the rules draw from; seat `s` decides from stream `s + 1`.
const RULES_STREAM: u64 = 0;

/// The ChaCha8 generator of `seed`, on stream `stream`. Stream 0 is the generator
/// `ChaCha8Rng::seed_from_u64(seed)` itself.
fn stream(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Plays one game of `players` players from `seed` with `who` in every seat.
pub fn play(players: u8, seed: u64, who: &dyn Players) -> Result<GameReport, PlayError> {
    play_observed(players, seed, who, &[], &mut |_: &FateState| {})
}

/// What [`play_observed`] shows a test of the game it plays, so that the test can check what
/// the players were shown and what they did against the full state.
pub(crate) trait Observer {
    /// The state before every step and before every decision asked for; last, the state of
    /// the game that is over.
    fn state(&mut self, state: &FateState);

    /// An action `seat` takes from `view`, a claim or a decision, before `state` gets it.
    fn action(&mut self, state: &FateState, seat: Seat, view: &FateView, action: &FateAction) {
        let _ = (state, seat, view, action);
    }
}

impl<F: FnMut(&FateState)> Observer for F {
    fn state(&mut self, state: &FateState) {
        self(state);
    }
}

/// [`play`], showing `observe` the game as it goes, with the seats of `leaves` leaving the
/// table ([`FateTokens::leave`]), each once its round has come: `(round, seat)`.
pub(crate) fn play_observed(
    players: u8,
    seed: u64,
    who: &dyn Players,
    leaves: &[(u32, Seat)],
    observe: &mut dyn Observer,
) -> Result<GameReport, PlayError> {
    let config = FateConfig {
        players,
        ..FateConfig::default()
    };
    let mut rules_rng = stream(seed, RULES_STREAM);
    let mut now = 0;
    let (mut state, _) = FateTokens::start(&config, &mut Ctx::new(now, &mut rules_rng))
        .map_err(|error| PlayError::Config(error.0))?;
    let seats: Vec<Seat> = (0..players).map(Seat).collect();
    let mut seat_rngs: Vec<ChaCha8Rng> = seats
        .iter()
        .map(|seat| stream(seed, u64::from(seat.0) + 1))
        .collect();
    let mut refused = 0;
    // The seats that wait for this phase's deadline: they answered None or had their
    // decision refused.
    let mut waiting = (0, SeatSet::EMPTY);
    for _ in 0..STEP_CAP {
        observe.state(&state);
        if state.phase_kind() == PhaseKind::Over {
            return report(&state, refused);
        }
        for &(round, seat) in leaves {
            if state.round() >= round && !state.gone.contains(seat) && state.finish().is_none() {
                FateTokens::leave(&mut state, seat, &mut Ctx::new(now, &mut rules_rng));
            }
        }
        let phase = state.phase_number();
        if waiting.0 != phase {
            waiting = (phase, SeatSet::EMPTY);
        }
        let mut accepted = false;
        match FateTokens::to_act(&state) {
            ToAct::Simultaneous { phase, pending } => {
                let asked = pending.iter().filter(|&s| !waiting.1.contains(s));
                for seat in asked.collect::<Vec<_>>() {
                    observe.state(&state);
                    let mut view = FateTokens::view(&state, Viewer::Seat(seat));
                    let rng = &mut seat_rngs[seat.index()];
                    // Claims are free actions (rule 5.6), offered with each decision as an
                    // arena offers them to its house players: they never end a phase or move
                    // a deadline, so making them first changes nothing for the decision.
                    let claims = who.claims(&view, rng);
                    if !claims.is_empty() {
                        for claim in claims {
                            observe.action(&state, seat, &view, &claim);
                            let mut ctx = Ctx::new(now, &mut rules_rng);
                            if FateTokens::apply(&mut state, seat, &claim, &mut ctx).is_err() {
                                refused += 1;
                            }
                        }
                        view = FateTokens::view(&state, Viewer::Seat(seat));
                    }
                    let Some(action) = who.decide(&view, rng) else {
                        waiting.1 = waiting.1.with(seat);
                        continue;
                    };
                    observe.action(&state, seat, &view, &action);
                    let mut ctx = Ctx::new(now, &mut rules_rng);
                    if FateTokens::apply(&mut state, seat, &action, &mut ctx).is_ok() {
                        accepted = true;
                    } else {
                        refused += 1;
                        waiting.1 = waiting.1.with(seat);
                    }
                    // The last decision owed resolves the phase at once (rule 5.3); the seats
                    // after it owe nothing more in this one.
                    if state.phase_number() != phase {
                        break;
                    }
                }
            }
            ToAct::Nobody => {}
            ToAct::Turn { .. } => return Err(PlayError::Turn),
        }
        if !accepted {
            // Nobody has anything left to do: the clock runs to the rules' next deadline, the
            // end of a lock or of a phase (rules 5.4, 5.5).
            let deadline = FateTokens::deadline(&state).ok_or(PlayError::Stuck {
                phase: state.phase_number(),
            })?;
            now = now.max(deadline);
            FateTokens::on_deadline(&mut state, &mut Ctx::new(now, &mut rules_rng));
        }
    }
    Err(PlayError::StepCap {
        round: state.round(),
    })
}

/// The report of a game that is over.
fn report(state: &FateState, refused: u32) -> Result<GameReport, PlayError> {
    let finish = state.finish().ok_or(PlayError::NoResult)?;
    Ok(GameReport {
        good_won: finish.winner == Side::Good,
        rounds: state.round(),
        ending: Ending::of(finish.reason),
        refused,
    })
}

/// The seed of game `index` of player count `players` in a simulation seeded with `seed`.
///
/// Three rounds of SplitMix64's mixing function over the seed, the player count and the
/// index: nearby inputs give unrelated seeds, and the seed depends on nothing else, so the
/// same game is played whichever thread plays it.
pub fn game_seed(seed: u64, players: u8, index: u32) -> u64 {
    mix(mix(mix(seed) ^ u64::from(players)) ^ u64::from(index))
}

/// SplitMix64's step: add the golden-ratio increment, then mix the bits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A game [`simulate`] could not play to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {index} of {players} players (seed {seed}): {error}")]
pub struct SimulateError {
    /// The player count.
    pub players: u8,
    /// The game's index among that count's games.
    pub index: u32,
    /// The game's seed, for [`play`] to replay it.
    pub seed: u64,
    /// What went wrong.
    #[source]
    pub error: PlayError,
}

/// Plays `games` games for each player count of `players` on `threads` threads and returns a
/// report per count, in order.
///
/// Game `i` of count `p` is [`play`]`(p, `[`game_seed`]`(seed, p, i), who)`, so the reports
/// are the same for every number of threads. `progress` is told, after each game, how many
/// more games have finished (the total is the number of counts times `games`).
///
/// A game that cannot be played to its end stops the simulation: the threads take no new
/// games and the error of the first such game (by count, then index) among those played is
/// returned.
pub fn simulate(
    players: RangeInclusive<u8>,
    games: u32,
    seed: u64,
    threads: usize,
    who: &dyn Players,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<CountReport>, SimulateError> {
    let counts: Vec<u8> = players.collect();
    let total = u64::try_from(counts.len()).unwrap_or(u64::MAX) * u64::from(games);
    let next = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<SimulateError>> = Mutex::new(None);
    let work = || {
        let mut reports: Vec<CountReport> = counts.iter().map(|&p| CountReport::new(p)).collect();
        while !failed.load(Ordering::Relaxed) {
            let job = next.fetch_add(1, Ordering::Relaxed);
            if job >= total {
                break;
            }
            // `job` counts games count by count: `games` of the first count, then the next.
            let slot = usize::try_from(job / u64::from(games)).unwrap_or(usize::MAX);
            let index = u32::try_from(job % u64::from(games)).unwrap_or(u32::MAX);
            let (Some(&p), Some(report)) = (counts.get(slot), reports.get_mut(slot)) else {
                break;
            };
            let game = game_seed(seed, p, index);
            match play(p, game, who) {
                Ok(game) => report.add(&game),
                Err(error) => {
                    failed.store(true, Ordering::Relaxed);
                    let error = SimulateError {
                        players: p,
                        index,
                        seed: game,
                        error,
                    };
                    let mut first = first_error.lock().unwrap_or_else(PoisonError::into_inner);
                    if first
                        .as_ref()
                        .is_none_or(|e| (error.players, error.index) < (e.players, e.index))
                    {
                        *first = Some(error);
                    }
                }
            }
            progress(1);
        }
        reports
    };
    let partials: Vec<Vec<CountReport>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1)).map(|_| scope.spawn(work)).collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    if let Some(error) = first_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(error);
    }
    // Sums of counts do not depend on which thread played which game.
    let mut totals: Vec<CountReport> = counts.iter().map(|&p| CountReport::new(p)).collect();
    for partial in &partials {
        for (total, part) in totals.iter_mut().zip(partial) {
            total.merge(part);
        }
    }
    Ok(totals)
}
