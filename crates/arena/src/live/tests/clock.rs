//! Per-turn clocks and free actions, with a small game made for them: each turn is a fixed
//! number of steps by one seat, and anyone may chat at any time.

use arbiter_plugin::{
    ClockPolicy, GenericDecisions, JsonCodec, LegRequest, MatchSetup, SetupError, VariantSpec,
};
use arbiter_rules::{
    ConfigError, Ctx, Emitted, Events, Game, Outcome, RuleError, ScoreOrder, Seat, Started, ToAct,
    Viewer,
};
use serde::{Deserialize, Serialize};

use super::*;

/// Two seats; each turn is `steps` steps by the seat to move; the game ends after `turns`
/// turns. Chat is free.
struct Steps;

#[derive(Clone, Debug, Serialize, Deserialize)]
struct StepsConfig {
    steps: u8,
    turns: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct StepsState {
    config: StepsConfig,
    to_move: u8,
    taken: u8,
    turns_done: u32,
    chat: Vec<(u8, String)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum StepsAction {
    Step,
    Chat(String),
}

impl Game for Steps {
    const ID: &'static str = "steps";
    const RULES_VERSION: u32 = 1;
    type Config = StepsConfig;
    type State = StepsState;
    type Action = StepsAction;
    type Event = StepsAction;
    type View = StepsState;

    fn seat_count(_config: &StepsConfig) -> Result<usize, ConfigError> {
        Ok(2)
    }

    fn start(
        config: &StepsConfig,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Started<StepsState, StepsAction>, ConfigError> {
        let state = StepsState {
            config: config.clone(),
            to_move: 0,
            taken: 0,
            turns_done: 0,
            chat: Vec::new(),
        };
        Ok((state, Vec::new()))
    }

    fn to_act(state: &StepsState) -> ToAct {
        if state.turns_done >= state.config.turns {
            ToAct::Nobody
        } else {
            ToAct::Turn {
                seat: Seat(state.to_move),
            }
        }
    }

    fn legal_actions(state: &StepsState, seat: Seat) -> Vec<StepsAction> {
        match Steps::to_act(state) {
            ToAct::Turn { seat: mover } if mover == seat => vec![StepsAction::Step],
            _ => Vec::new(),
        }
    }

    fn apply(
        state: &mut StepsState,
        seat: Seat,
        action: &StepsAction,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Events<StepsAction>, RuleError> {
        match action {
            StepsAction::Chat(text) => state.chat.push((seat.0, text.clone())),
            StepsAction::Step => {
                if Steps::to_act(state) != (ToAct::Turn { seat }) {
                    return Err(RuleError::NotYourTurn);
                }
                state.taken += 1;
                if state.taken == state.config.steps {
                    state.taken = 0;
                    state.to_move = 1 - state.to_move;
                    state.turns_done += 1;
                }
            }
        }
        Ok(vec![Emitted::public(action.clone())])
    }

    fn view(state: &StepsState, _viewer: Viewer) -> StepsState {
        state.clone()
    }

    fn outcome(state: &StepsState) -> Option<Outcome> {
        (Steps::to_act(state) == ToAct::Nobody)
            .then(|| Outcome::from_scores(&[0, 0], ScoreOrder::HigherIsBetter, "done"))
    }

    fn forfeit(_state: &StepsState, seat: Seat) -> Outcome {
        Outcome::forfeit(&[0, 0], seat, ScoreOrder::HigherIsBetter)
    }

    fn is_free(action: &StepsAction) -> bool {
        matches!(action, StepsAction::Chat(_))
    }
}

struct StepsSetup;

impl MatchSetup for StepsSetup {
    fn variants(&self) -> &'static [VariantSpec] {
        &[VariantSpec {
            name: "two",
            min_seats: 2,
            max_seats: 2,
            summary: "Two steps a turn.",
        }]
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        _rng: &mut dyn arbiter_rules::Random,
    ) -> Result<Vec<Value>, SetupError> {
        Ok(vec![json!({"steps": 2, "turns": 4}); request.legs])
    }
}

static STEPS_RULES: arbiter_rules::Erased<Steps> = arbiter_rules::Erased::new();

static STEPS: Family = Family {
    rules: &STEPS_RULES,
    setup: &StepsSetup,
    codec: &JsonCodec,
    decisions: &GenericDecisions,
    clock: ClockPolicy::PerTurn,
    house: None,
    board: None,
    points: None,
    line: None,
    talk: None,
    record: None,
};

fn steps_match() -> (Setup, Progress) {
    let mut setup = Setup {
        family: &STEPS,
        variant: "two".to_owned(),
        ..setup(
            Format::Single,
            TimeControl {
                initial_ms: 10_000,
                increment_ms: 1_000,
                per_turn_ms: None,
            },
        )
    };
    let mut progress = challenge(&setup, T0);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    (setup, progress)
}

fn step(setup: &Setup, progress: &mut Progress, bot: BotId, at: i64) -> MoveReply {
    let revision = progress.legs[0].revision;
    submit(setup, progress, bot, 0, revision, &json!("step"), at).expect("a step")
}

#[test]
fn a_turn_of_several_actions_is_one_clock_period_with_one_increment() {
    let (setup, mut progress) = steps_match();
    // Participant 0 (bot 1) has the first seat. Its first step does not stop its clock.
    step(&setup, &mut progress, 1, T0 + 1_000);
    let leg = &progress.legs[0];
    assert_eq!(leg.clocks_ms, [10_000, 10_000], "nothing charged mid-turn");
    assert_eq!(
        leg.turn_started_ms, T0,
        "the period runs from the turn's start"
    );
    assert_eq!(leg.remaining_ms(Seat(0), T0 + 2_000), 8_000);
    let request: Value = serde_json::from_str(
        &turns(
            &setup,
            &progress,
            Participants::ALL,
            T0 + 2_000,
            &|_, _, _| true,
        )[0]
        .request,
    )
    .expect("JSON");
    assert_eq!(
        request["remaining_ms"], 8_000,
        "the decision shows the running period"
    );
    // The second step ends the turn: 3 s spent, one increment.
    step(&setup, &mut progress, 1, T0 + 3_000);
    let leg = &progress.legs[0];
    assert_eq!(leg.clocks_ms, [10_000 + 1_000 - 3_000, 10_000]);
    assert_eq!(leg.turn_started_ms, T0 + 3_000);
    // Participant 1 takes one step, then its flag falls in the middle of its turn.
    step(&setup, &mut progress, 2, T0 + 3_500);
    assert_eq!(
        next_deadline(&setup, &progress, &online),
        Some(T0 + 3_000 + 10_000),
        "the flag falls a whole clock after the turn began, whatever was played in it"
    );
    tick(&setup, &mut progress, T0 + 13_000, &online);
    assert_eq!(progress.status, MatchStatus::Finished);
    let result = json!(progress.result.clone().expect("result"));
    assert_eq!(
        (&result["reason"], &result["winner"]),
        (&json!("timeout"), &json!(0))
    );
    let rebuilt = replay(&setup, MatchStatus::Finished, &progress.fresh).expect("replay");
    assert_eq!(rebuilt.legs[0].clocks_ms, progress.legs[0].clocks_ms);
}

#[test]
fn free_actions_come_from_any_seat_and_move_no_clock_or_deadline() {
    let (setup, mut progress) = steps_match();
    step(&setup, &mut progress, 1, T0 + 1_000);
    let before = (
        progress.legs[0].revision,
        progress.legs[0].turn_started_ms,
        progress.legs[0].clocks_ms.clone(),
        next_deadline(&setup, &progress, &online),
    );
    // Participant 1 is not to move, and quotes a stale revision: a free action needs neither.
    let reply = submit(
        &setup,
        &mut progress,
        2,
        0,
        0,
        &json!({"chat": "good luck"}),
        T0 + 2_000,
    )
    .expect("chat is free");
    assert_eq!(reply.revision, before.0, "no revision is used up");
    let after = (
        progress.legs[0].revision,
        progress.legs[0].turn_started_ms,
        progress.legs[0].clocks_ms.clone(),
        next_deadline(&setup, &progress, &online),
    );
    assert_eq!(after, before, "clocks, turn and deadline untouched");
    // The pending decision is still the one announced before the chat.
    let pending = turns(
        &setup,
        &progress,
        Participants::ALL,
        T0 + 2_000,
        &|_, _, _| true,
    );
    assert_eq!(
        (pending.len(), pending[0].participant, pending[0].revision),
        (1, 0, before.0)
    );
    // A step from the seat that is not to move is still refused.
    assert_eq!(
        submit(
            &setup,
            &mut progress,
            2,
            0,
            before.0,
            &json!("step"),
            T0 + 2_100
        ),
        Err(ArenaError::NotYourTurn)
    );
    let chat = progress
        .fresh
        .iter()
        .rev()
        .find(|e| e.kind == "move")
        .expect("stored");
    assert_eq!(chat.payload_value()["free"], true);
    let rebuilt = replay(&setup, MatchStatus::Running, &progress.fresh).expect("replay");
    assert_eq!(
        rebuilt.legs[0].state.view(Viewer::Omniscient)["chat"],
        json!([[1, "good luck"]]),
        "replay applies the chat again"
    );
    assert_eq!(rebuilt.legs[0].revision, before.0);
}
