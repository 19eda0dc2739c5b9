//! A house player's free actions (`HousePlayer::free_actions`) are played with its decision:
//! before it, through the path a bot's free actions take, each checked by the rules, one the
//! rules refuse dropped without losing the others or the decision; stored, exported and
//! verified like any other move.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Instant;

use arbiter_arena::{
    Arena, ArenaConfig, ChallengeRequest, Format, Games, ManualClock, MatchStatus, Opening, Reader,
    TimeControl,
};
use arbiter_plugin::{
    ClockPolicy, Family, GenericDecisions, HouseLevel, HousePlayer, JsonCodec, LegRequest,
    MatchSetup, SeatView, SetupError, VariantSpec,
};
use arbiter_rules::{
    ConfigError, Ctx, Emitted, Erased, Events, Game, Outcome, Random, RuleError, ScoreOrder, Seat,
    SeatSet, Started, ToAct, Viewer,
};
use arbiter_store_sqlite::SqliteStore;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Every seat steps once a round, for `ROUNDS` rounds: in turn, seat by seat, or, `together`,
/// all at once in a simultaneous phase. Anyone may write a note at any time, a free action,
/// but an empty note is refused.
struct Notes;

const ROUNDS: u32 = 3;

#[derive(Clone, Debug, Serialize, Deserialize)]
struct NotesConfig {
    seats: usize,
    together: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct NotesState {
    together: bool,
    round: u32,
    stepped: Vec<bool>,
    notes: Vec<(u8, String)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum NotesAction {
    Step,
    Note(String),
}

fn seat(index: usize) -> Seat {
    Seat(u8::try_from(index).expect("a seat"))
}

impl Game for Notes {
    const ID: &'static str = "notes";
    const RULES_VERSION: u32 = 1;
    type Config = NotesConfig;
    type State = NotesState;
    type Action = NotesAction;
    type Event = NotesAction;
    type View = NotesState;

    fn seat_count(config: &NotesConfig) -> Result<usize, ConfigError> {
        Ok(config.seats)
    }

    fn start(
        config: &NotesConfig,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Started<NotesState, NotesAction>, ConfigError> {
        Ok((
            NotesState {
                together: config.together,
                round: 1,
                stepped: vec![false; config.seats],
                notes: Vec::new(),
            },
            Vec::new(),
        ))
    }

    fn to_act(state: &NotesState) -> ToAct {
        let waiting = (0..state.stepped.len()).filter(|&i| !state.stepped[i]);
        if state.round > ROUNDS {
            ToAct::Nobody
        } else if state.together {
            ToAct::Simultaneous {
                phase: state.round,
                pending: waiting.map(seat).fold(SeatSet::EMPTY, SeatSet::with),
            }
        } else {
            waiting
                .map(|i| ToAct::Turn { seat: seat(i) })
                .next()
                .unwrap_or(ToAct::Nobody)
        }
    }

    fn legal_actions(state: &NotesState, seat: Seat) -> Vec<NotesAction> {
        match Notes::to_act(state) {
            ToAct::Turn { seat: mover } if mover == seat => vec![NotesAction::Step],
            ToAct::Simultaneous { pending, .. } if pending.contains(seat) => {
                vec![NotesAction::Step]
            }
            _ => Vec::new(),
        }
    }

    fn apply(
        state: &mut NotesState,
        seat: Seat,
        action: &NotesAction,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Events<NotesAction>, RuleError> {
        match action {
            NotesAction::Note(text) if text.is_empty() => {
                return Err(RuleError::Illegal("an empty note".to_owned()));
            }
            NotesAction::Note(text) => state.notes.push((seat.0, text.clone())),
            NotesAction::Step => {
                if Notes::legal_actions(state, seat).is_empty() {
                    return Err(RuleError::NotYourTurn);
                }
                state.stepped[seat.index()] = true;
                if state.stepped.iter().all(|&s| s) {
                    state.round += 1;
                    state.stepped.fill(false);
                }
            }
        }
        Ok(vec![Emitted::public(action.clone())])
    }

    fn view(state: &NotesState, _viewer: Viewer) -> NotesState {
        state.clone()
    }

    fn outcome(state: &NotesState) -> Option<Outcome> {
        let scores = vec![0; state.stepped.len()];
        (Notes::to_act(state) == ToAct::Nobody)
            .then(|| Outcome::from_scores(&scores, ScoreOrder::HigherIsBetter, "done"))
    }

    fn forfeit(state: &NotesState, seat: Seat) -> Outcome {
        Outcome::forfeit(
            &vec![0; state.stepped.len()],
            seat,
            ScoreOrder::HigherIsBetter,
        )
    }

    fn is_free(action: &NotesAction) -> bool {
        matches!(action, NotesAction::Note(_))
    }
}

struct NotesSetup;

impl MatchSetup for NotesSetup {
    fn variants(&self) -> &'static [VariantSpec] {
        &[
            VariantSpec {
                name: "turns",
                min_seats: 2,
                max_seats: 3,
                summary: "Seat by seat.",
            },
            VariantSpec {
                name: "together",
                min_seats: 2,
                max_seats: 3,
                summary: "All at once.",
            },
        ]
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        _rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError> {
        let together = request.variant == "together";
        Ok(vec![
            json!({"seats": request.seats, "together": together});
            request.legs
        ])
    }
}

/// Steps, and before each step writes an empty note (refused) and a note naming the round,
/// from its own view.
struct NotesHouse;

impl HousePlayer for NotesHouse {
    fn choose(
        &self,
        _view: &SeatView<'_>,
        _level: HouseLevel,
        _deadline: Instant,
        _rng: &mut dyn Random,
    ) -> Value {
        json!("step")
    }

    fn decisions_left(&self, _view: &SeatView<'_>) -> i64 {
        1
    }

    fn free_actions(
        &self,
        view: &SeatView<'_>,
        _level: HouseLevel,
        _rng: &mut dyn Random,
    ) -> Vec<Value> {
        let round = view.json()["round"].as_u64().unwrap_or(0);
        vec![
            json!({"note": ""}),
            json!({"note": format!("round {round}")}),
        ]
    }
}

static RULES: Erased<Notes> = Erased::new();

static NOTES: Family = Family {
    rules: &RULES,
    setup: &NotesSetup,
    codec: &JsonCodec,
    decisions: &GenericDecisions,
    clock: ClockPolicy::PerAction,
    house: Some(&NotesHouse),
    board: None,
    points: None,
    line: None,
    talk: None,
    record: None,
};

/// An arena running the notes game, on a manual clock that never moves: nothing here waits
/// for time.
async fn arena(dir: &std::path::Path) -> Arena {
    let store = SqliteStore::open(&dir.join("arbiter.sqlite"))
        .await
        .expect("store");
    Arena::start(
        ArenaConfig::default(),
        Games::new().with(&NOTES),
        Arc::new(ManualClock::new(1_795_900_000_000)),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts")
}

/// Plays a match of `variant` between a bot, which steps whenever asked, and the house bots
/// `houses`, to its end; checks that each house bot wrote one note a round, just before its
/// step, and that the match verifies.
async fn play(variant: &str, houses: &[&str]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let arena = arena(dir.path()).await;
    let (bot, _) = arena
        .mint_anonymous(IpAddr::V4(Ipv4Addr::LOCALHOST), Some("stepper"), None)
        .await
        .expect("a bot");
    let more: Vec<String> = houses[1..].iter().map(|h| (*h).to_owned()).collect();
    let request = ChallengeRequest {
        opponent: houses[0].to_owned(),
        game: "notes".to_owned(),
        variant: Some(variant.to_owned()),
        format: Format::Single,
        time_control: TimeControl::default(),
        rated: false,
        auto: false,
        opening: Opening::Start,
        client_seed: None,
    };
    let id = arena
        .challenge_several(&bot, request, &more)
        .await
        .expect("the house plays it")
        .id;
    let played = async {
        loop {
            let page = arena.turns(&bot, id, 60_000).await.expect("turns");
            if !page.status.is_open() {
                return page.status;
            }
            for turn in page.turns {
                arena
                    .submit(&bot, id, 0, turn.revision, json!("step"))
                    .await
                    .expect("a step");
            }
        }
    };
    let status = tokio::time::timeout(std::time::Duration::from_secs(60), played)
        .await
        .expect("the match ends");
    assert_eq!(status, MatchStatus::Finished, "{variant}");

    // The house bots are participants 1 and on, in the seats of the same numbers.
    let end = serde_json::to_value(
        arena
            .snapshot(id, Reader::OMNISCIENT)
            .await
            .expect("snapshot"),
    )
    .expect("JSON");
    let export = arena.export(id).await.expect("export");
    for participant in 1..=houses.len() {
        let notes: Vec<&Value> = end["legs"][0]["view"]["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .filter(|note| note[0] == participant)
            .map(|note| &note[1])
            .collect();
        assert_eq!(
            notes,
            [&json!("round 1"), &json!("round 2"), &json!("round 3")],
            "{variant}, participant {participant}: one note a round, empty ones refused: {end}"
        );
        let moves: Vec<Value> = export
            .events
            .iter()
            .filter(|e| e.kind == "move" && e.audience.is_none_or(|p| p == participant))
            .map(|e| serde_json::from_str::<Value>(e.data.get()).expect("JSON"))
            .filter(|m| m["participant"] == participant)
            .map(|m| m["action"].clone())
            .collect();
        let expected: Vec<Value> = (1..=ROUNDS)
            .flat_map(|round| [json!({"note": format!("round {round}")}), json!("step")])
            .collect();
        assert_eq!(
            moves, expected,
            "{variant}, participant {participant}: each note right before its step"
        );
    }
    let verdict = arena.verify(id).await.expect("verified");
    assert!(verdict.is_verified(), "{variant}: {verdict:#?}");
    arena.shutdown().await;
}

#[tokio::test]
async fn a_house_player_s_free_actions_are_played_before_its_decision() {
    play("turns", &["house-greedy"]).await;
}

/// In a simultaneous phase each action of another seat moves the leg's revision, and the
/// house players still pending must not be asked about the same decision again, which would
/// play their free actions twice.
#[tokio::test]
async fn house_players_deciding_together_take_their_free_actions_once() {
    play("together", &["house-greedy", "house-easy"]).await;
}
