//! One game between two local engines: the rules run here, each decision's request is written
//! by the family as a server writes it, and each engine answers through the connector's
//! adapters under its own clock.

use std::time::{Duration, Instant};

use arbiter_connector::EnginePlayer;
use arbiter_fair::ServerSeed;
use arbiter_plugin::{DecisionContext, Family, HouseLevel, HousePlayer, SeatView};
use arbiter_rules::{Ctx, Dice, DynState, Outcome, Seat, SeatResult, ToAct, Viewer};
use serde_json::Value;

use crate::TimeControl;
use crate::stats::Score;

/// The public rolls of a game: the published construction over its opening's seed, so that
/// both games of a pair (whose rules count their rolls alike) see the same dice.
struct SeedDice<'a>(&'a ServerSeed);

impl Dice for SeedDice<'_> {
    fn roll(&self, nonce: u64, sides: u8, count: usize) -> Vec<u8> {
        self.0.roll("", nonce, sides, count)
    }
}

/// What plays for an entrant in a worker: an engine, whose processes the worker keeps from
/// game to game, or the family's house player at a level.
pub(crate) enum Contender {
    Engine(Box<EnginePlayer>),
    House(HouseLevel),
}

/// The reason of a game lost on time.
pub(crate) const TIME: &str = "time";

/// What a game is played from.
pub(crate) struct GamePlan<'a> {
    pub(crate) family: &'static Family,
    pub(crate) variant: &'a str,
    /// The rules configuration of this game (its leg of the pair).
    pub(crate) config: &'a Value,
    /// The opening's seed, which both games of the pair share.
    pub(crate) seed: &'a ServerSeed,
    /// The game's number, shown to engines as the match id.
    pub(crate) number: u64,
    /// Which game of its pair it is (0 or 1), shown to engines as the leg.
    pub(crate) leg: u8,
    /// For each seat, the engine's place among the players handed to [`play`].
    pub(crate) players_by_seat: [usize; 2],
    pub(crate) time_control: TimeControl,
}

/// How a game ended.
#[derive(Debug)]
pub(crate) struct Played {
    /// Each seat's result.
    pub(crate) scores: [Score; 2],
    /// Why it ended: the rules' reason, `time`, or what the failing engine did.
    pub(crate) reason: String,
    /// The seat whose engine failed or lost on time, if one did.
    pub(crate) failed: Option<usize>,
    /// The actions in the family's notation.
    pub(crate) moves: Vec<String>,
    /// For every action after the first, the time from the previous answer to this request:
    /// what the arena itself took.
    pub(crate) overheads: Vec<Duration>,
    /// The game as it started and as it ended, with nothing hidden, for its record.
    pub(crate) start: Value,
    pub(crate) end: Value,
}

/// Why a game could not be played at all (never an engine's fault).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct GameError(pub(crate) String);

/// Plays one game to its end. An engine that fails, answers what the rules refuse or runs out
/// of time loses the game; the engine is left to start afresh at its next decision.
pub(crate) async fn play(
    plan: &GamePlan<'_>,
    players: &mut [Contender],
) -> Result<Played, GameError> {
    let family = plan.family;
    let dice = SeedDice(plan.seed);
    // Both games of a pair draw from the same stream, so the same commands draw alike.
    let mut rng = plan.seed.stream("play", 0);
    let mut now_ms: u64 = 0;
    let (mut state, _) = family
        .rules
        .start(
            plan.config,
            &mut Ctx::new(now_ms, &mut rng).with_dice(&dice),
        )
        .map_err(|e| GameError(format!("the rules refused the game's setup: {e}")))?;
    let base = i64::try_from(plan.time_control.base_ms).unwrap_or(i64::MAX);
    let increment = i64::try_from(plan.time_control.increment_ms).unwrap_or(0);
    let mut clocks_ms = [base, base];
    let participants: [u8; 2] = [plan.leg % 2, (plan.leg + 1) % 2];
    let mut game = Game {
        moves: Vec::new(),
        overheads: Vec::new(),
        start: state.view(Viewer::Omniscient),
    };
    let mut last_answer: Option<Instant> = None;
    let mut revision: u64 = 0;
    loop {
        if let Some(outcome) = state.outcome() {
            return Ok(game.ended(&*state, &outcome, None));
        }
        let (seat, phase) = match state.to_act() {
            ToAct::Turn { seat } => (seat, None),
            ToAct::Simultaneous { phase, pending } => match pending.iter().next() {
                Some(seat) => (seat, Some(phase)),
                None => return Err(GameError("a phase waits for nobody".to_owned())),
            },
            ToAct::Nobody => {
                let Some(deadline) = state.deadline() else {
                    return Err(GameError(
                        "the game waits for nobody and has no deadline".to_owned(),
                    ));
                };
                now_ms = now_ms.max(deadline);
                state.on_deadline(&mut Ctx::new(now_ms, &mut rng).with_dice(&dice));
                continue;
            }
        };
        let index = seat.index();
        let Some(&player) = plan.players_by_seat.get(index) else {
            return Err(GameError(format!("the rules ask seat {index} of two")));
        };
        let context = DecisionContext {
            variant: plan.variant,
            match_id: i64::try_from(plan.number).unwrap_or(i64::MAX),
            leg: plan.leg,
            participant: participants[index],
            participants_by_seat: &participants,
            phase,
            revision,
            clocks_ms: &clocks_ms,
            remaining_ms: clocks_ms[index],
            budget_ms: clocks_ms[index],
            deadline_ms: None,
            move_times_ms: &[],
            room: None,
        };
        let asked = Instant::now();
        if let Some(answered) = last_answer {
            game.overheads
                .push(asked.saturating_duration_since(answered));
        }
        let answer = match &mut players[player] {
            Contender::Engine(engine) => {
                let text = family
                    .decisions
                    .request(&SeatView::new(&*state, seat), &context);
                let request: Value = serde_json::from_str(&text).map_err(|e| {
                    GameError(format!("the family wrote a request that is not JSON: {e}"))
                })?;
                let budget =
                    Duration::from_millis(u64::try_from(clocks_ms[index]).unwrap_or(0).max(1));
                engine
                    .decide(&request, budget)
                    .await
                    .map(|answer| (answer.action, answer.at))
                    .map_err(|error| error.to_string())
            }
            Contender::House(level) => {
                let Some(house) = family.house else {
                    return Err(GameError(format!("{} has no house player", family.id())));
                };
                let rng = plan.seed.stream("house", revision);
                let decided = house_decision(
                    house,
                    *level,
                    state.clone_box(),
                    seat,
                    clocks_ms[index],
                    rng,
                );
                tokio::task::spawn_blocking(decided)
                    .await
                    .map(|action| (action, Instant::now()))
                    .map_err(|_| "the house player failed".to_owned())
            }
        };
        let spent = asked.elapsed();
        let spent_ms = i64::try_from(spent.as_millis()).unwrap_or(i64::MAX);
        clocks_ms[index] = clocks_ms[index].saturating_sub(spent_ms);
        now_ms += u64::try_from(spent_ms).unwrap_or(0);
        // An engine stopped at the end of its budget, which is its whole clock, has lost on
        // time, not failed; so has one whose answer came after its clock ran out.
        let out_of_time = match &answer {
            Ok(_) => clocks_ms[index] < 0,
            Err(_) => clocks_ms[index] <= 0,
        };
        if out_of_time {
            return Ok(game.forfeited(&*state, seat, TIME.to_owned()));
        }
        let (answer, at) = match answer {
            Ok(answer) => answer,
            Err(error) => return Ok(game.forfeited(&*state, seat, error)),
        };
        last_answer = Some(at);
        let action = match family.codec.parse(&*state, &answer) {
            Ok(action) => action,
            Err(error) => return Ok(game.forfeited(&*state, seat, error.to_string())),
        };
        // The board's notation (`d3`, `e2e4`) where the family draws one, read from the
        // mover's view before the move.
        let notation = match family.board {
            Some(board) => board.notation(&state.view(Viewer::Seat(seat)), &action),
            None => family.codec.notation(&action),
        };
        let applied = state.apply(
            seat,
            &action,
            &mut Ctx::new(now_ms, &mut rng).with_dice(&dice),
        );
        if let Err(error) = applied {
            let why = format!("illegal action {notation}: {error}");
            return Ok(game.forfeited(&*state, seat, why));
        }
        game.moves.push(notation);
        revision += 1;
        // The increment comes once a seat's turn is over, whatever number of actions it took.
        if !matches!(state.to_act(), ToAct::Turn { seat: next } if next == seat) {
            clocks_ms[index] = clocks_ms[index].saturating_add(increment);
        }
    }
}

/// The house player's decision for `seat` of `state`, to run off the async runtime: it is
/// given the time a server gives it, the family's share of the seat's `clock_ms` within the
/// level's thinking time.
fn house_decision(
    house: &'static dyn HousePlayer,
    level: HouseLevel,
    state: Box<dyn DynState>,
    seat: Seat,
    clock_ms: i64,
    mut rng: impl arbiter_rules::Random + Send + 'static,
) -> impl FnOnce() -> Value + Send + 'static {
    move || {
        let view = SeatView::new(&*state, seat);
        let share = house.think_ms(&view, level, clock_ms).clamp(0, clock_ms);
        let budget_ms = level.budget_ms(share);
        let deadline =
            Instant::now() + Duration::from_millis(u64::try_from(budget_ms).unwrap_or(1));
        house.choose(&view, level, deadline, &mut rng)
    }
}

/// A game's record so far.
struct Game {
    moves: Vec<String>,
    overheads: Vec<Duration>,
    start: Value,
}

impl Game {
    fn ended(self, state: &dyn DynState, outcome: &Outcome, failed: Option<usize>) -> Played {
        let score = |seat: usize| match outcome.seats.get(seat).map(|s| s.result) {
            Some(SeatResult::Win) => Score::Win,
            Some(SeatResult::Draw) => Score::Draw,
            Some(SeatResult::Loss) | None => Score::Loss,
        };
        Played {
            scores: [score(0), score(1)],
            reason: outcome.reason.clone(),
            failed,
            moves: self.moves,
            overheads: self.overheads,
            start: self.start,
            end: state.view(Viewer::Omniscient),
        }
    }

    fn forfeited(self, state: &dyn DynState, seat: Seat, why: String) -> Played {
        let mut played = self.ended(state, &state.forfeit(seat), Some(seat.index()));
        played.reason = why;
        played
    }
}
