//! What the arena needs to know about a game beyond the rules core's erased interface: its
//! variants, how the legs of a match are set up, how clients spell moves, the engine request
//! a bot receives for a decision, and how the house bots play it.

use std::time::Instant;

use arbiter_engine_protocol::{EngineRequest, MatchContext};
use arbiter_othello::coord::{CoordError, Move, move_from_index};
use arbiter_othello::opening::random_opening;
use arbiter_othello::{
    Opening as OthelloOpening, Othello, OthelloConfig, OthelloState, Variant, parse_move,
};
use arbiter_rules::{DynGame, DynState, Erased, Random, Seat};
use serde_json::{Value, json};

use crate::ArenaError;
use crate::live::Opening;

/// A house bot's playing strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HouseLevel {
    /// A uniformly random legal move.
    Random,
    /// The move that wins the most material now.
    Greedy,
    /// A shallow search.
    Easy,
    /// A search of up to 0.3 s a move.
    Medium,
    /// A search of up to 1.5 s a move.
    Hard,
}

impl HouseLevel {
    /// Every level, weakest first.
    pub const ALL: [HouseLevel; 5] = [
        HouseLevel::Random,
        HouseLevel::Greedy,
        HouseLevel::Easy,
        HouseLevel::Medium,
        HouseLevel::Hard,
    ];

    /// The level's name, also the suffix of its house bot's name.
    pub fn name(self) -> &'static str {
        match self {
            HouseLevel::Random => "random",
            HouseLevel::Greedy => "greedy",
            HouseLevel::Easy => "easy",
            HouseLevel::Medium => "medium",
            HouseLevel::Hard => "hard",
        }
    }

    /// Parses a level name.
    pub fn parse(name: &str) -> Option<HouseLevel> {
        HouseLevel::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The longest a move may take at this level, in milliseconds.
    pub fn max_think_ms(self) -> i64 {
        match self {
            HouseLevel::Random | HouseLevel::Greedy => 0,
            HouseLevel::Easy => 50,
            HouseLevel::Medium => 300,
            HouseLevel::Hard => 1_500,
        }
    }
}

/// What the arena knows about a decision when it asks for an engine request.
#[derive(Clone, Debug, Default)]
pub struct TurnContext {
    /// The match.
    pub match_id: i64,
    /// The leg.
    pub leg: u8,
    /// The participant playing the first seat (Black) in this leg.
    pub first_seat_participant: u8,
    /// The mover's remaining clock.
    pub remaining_ms: i64,
    /// How long the mover should be given to answer.
    pub budget_ms: i64,
    /// When each move of the leg was received.
    pub move_times_ms: Vec<i64>,
    /// For a match with a person, seen as a room: its round and creation time.
    pub room: Option<(i64, String)>,
}

/// A game as the arena drives it.
pub trait GameKit: Send + Sync + 'static {
    /// The game's identifier.
    fn id(&self) -> &'static str;
    /// The rules, type-erased.
    fn game(&self) -> &'static dyn DynGame;
    /// The variants on offer; the first is the default.
    fn variants(&self) -> &'static [&'static str];
    /// The rules config of each leg. Paired legs start from the same position.
    fn leg_configs(
        &self,
        variant: &str,
        legs: usize,
        opening: Opening,
        rng: &mut dyn Random,
    ) -> Result<Vec<Value>, ArenaError>;
    /// The pass `seat` must play when passing is all it can do, or `None` when it has a choice
    /// (or the game has no passes).
    fn forced_pass(&self, state: &dyn DynState, seat: Seat) -> Option<Value>;
    /// Turns a move as a client sent it into the rules' action JSON.
    fn parse_action(&self, state: &dyn DynState, submitted: &Value) -> Result<Value, ArenaError>;
    /// The engine request for the side to move as compact JSON text: it goes out as it is,
    /// many times a second, so it is never built as a `Value`.
    fn engine_request(&self, state: &dyn DynState, turn: &TurnContext) -> String;
    /// A house bot's move for the side to move, within `deadline`.
    fn house_action(
        &self,
        state: &dyn DynState,
        level: HouseLevel,
        deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value;
    /// How many decisions the side to move probably still has, to share its clock.
    fn moves_left(&self, state: &dyn DynState) -> i64;
}

static OTHELLO_GAME: Erased<Othello> = Erased::new();

/// The Othello family.
pub struct OthelloKit;

fn othello_state(state: &dyn DynState) -> Option<&OthelloState> {
    state.as_any().downcast_ref::<OthelloState>()
}

fn coordinate_error(error: CoordError) -> ArenaError {
    match error {
        CoordError::Invalid(text) => ArenaError::InvalidCoordinate(text),
        CoordError::OutsideBoard(text) => ArenaError::OutsideBoard(text),
    }
}

impl GameKit for OthelloKit {
    fn id(&self) -> &'static str {
        "othello"
    }

    fn game(&self) -> &'static dyn DynGame {
        &OTHELLO_GAME
    }

    fn variants(&self) -> &'static [&'static str] {
        &["std", "anti", "grand", "octagon", "reversi"]
    }

    fn leg_configs(
        &self,
        variant: &str,
        legs: usize,
        opening: Opening,
        rng: &mut dyn Random,
    ) -> Result<Vec<Value>, ArenaError> {
        let variant: Variant =
            variant
                .parse()
                .map_err(|e: arbiter_othello::variant::UnknownVariant| {
                    ArenaError::UnsupportedVariant(e.to_string())
                })?;
        let opening = match opening {
            Opening::Random => {
                OthelloOpening::Moves(random_opening(variant, rng).ok_or_else(|| {
                    ArenaError::InvalidRequest(format!("no {variant} opening could be drawn"))
                })?)
            }
            Opening::Start => OthelloOpening::Start,
            Opening::Balanced => {
                let list = arbiter_othello::xot::openings();
                if variant != Variant::Std || list.is_empty() {
                    return Err(ArenaError::UnsupportedVariant(format!(
                        "XOT openings are for {} only",
                        Variant::Std
                    )));
                }
                let count = u32::try_from(list.len()).unwrap_or(u32::MAX);
                let index = arbiter_rules::random::below(rng, count);
                OthelloOpening::Moves(list[usize::try_from(index).unwrap_or(0)].clone())
            }
        };
        let config = OthelloConfig { variant, opening };
        let value =
            serde_json::to_value(&config).map_err(|e| ArenaError::InvalidRequest(e.to_string()))?;
        Ok(vec![value; legs])
    }

    fn forced_pass(&self, state: &dyn DynState, seat: Seat) -> Option<Value> {
        let pass = json!(Move::Pass.index());
        (state.legal_actions(seat) == [pass.clone()]).then_some(pass)
    }

    fn parse_action(&self, state: &dyn DynState, submitted: &Value) -> Result<Value, ArenaError> {
        let variant = othello_state(state).map_or(Variant::Std, |s| s.position().variant());
        let mv = match submitted {
            Value::Number(n) => match n.as_i64() {
                Some(index) => move_from_index(index, variant).map_err(coordinate_error)?,
                None => return Err(ArenaError::InvalidCoordinate(n.to_string())),
            },
            Value::String(text) => parse_move(text, variant).map_err(coordinate_error)?,
            other => return Err(ArenaError::InvalidCoordinate(other.to_string())),
        };
        Ok(json!(mv.index()))
    }

    fn engine_request(&self, state: &dyn DynState, turn: &TurnContext) -> String {
        let Some(state) = othello_state(state) else {
            return "null".to_owned();
        };
        let context = MatchContext {
            match_id: turn.match_id,
            leg: turn.leg,
            black_participant: turn.first_seat_participant,
            remaining_ms: u64::try_from(turn.remaining_ms).unwrap_or(0),
            budget_ms: u64::try_from(turn.budget_ms).unwrap_or(0),
            move_times_ms: turn.move_times_ms.clone(),
            round_no: turn.room.as_ref().map(|(round, _)| *round),
            room_created_at: turn.room.as_ref().map(|(_, created)| created.clone()),
        };
        EngineRequest::new(state, &context).to_line()
    }

    fn house_action(
        &self,
        state: &dyn DynState,
        level: HouseLevel,
        deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value {
        let Some(state) = othello_state(state) else {
            return json!(-1);
        };
        let house_level = match level {
            HouseLevel::Random => arbiter_house::Level::Random,
            HouseLevel::Greedy => arbiter_house::Level::Greedy,
            HouseLevel::Easy => arbiter_house::Level::Search { max_depth: 2 },
            HouseLevel::Medium => arbiter_house::Level::Search { max_depth: 8 },
            HouseLevel::Hard => arbiter_house::Level::Search { max_depth: 60 },
        };
        let limits = arbiter_house::Limits {
            deadline: Some(deadline),
            max_nodes: None,
        };
        let choice = arbiter_house::choose(state.position(), house_level, &limits, rng);
        json!(choice.mv.index())
    }

    fn moves_left(&self, state: &dyn DynState) -> i64 {
        othello_state(state).map_or(30, |s| {
            let position = s.position();
            let empty = i64::from(position.variant().playable_squares())
                - position
                    .disc_counts()
                    .iter()
                    .map(|&d| i64::from(d))
                    .sum::<i64>();
            empty / 2 + 1
        })
    }
}

/// The games this arena offers.
pub fn kits() -> Vec<&'static dyn GameKit> {
    vec![&OthelloKit]
}

/// Every variant of every game the arena runs.
pub fn known_variants() -> Vec<&'static str> {
    kits()
        .iter()
        .flat_map(|kit| kit.variants().iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use arbiter_rules::{Ctx, Seat};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    use super::*;

    #[test]
    fn paired_legs_share_an_opening_and_moves_parse_in_every_spelling() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let configs = OthelloKit
            .leg_configs("octagon", 2, Opening::Random, &mut rng)
            .expect("configs");
        assert_eq!(configs[0], configs[1]);
        assert!(
            OthelloKit
                .leg_configs("chess", 1, Opening::Random, &mut rng)
                .is_err()
        );
        let start = OthelloKit
            .leg_configs("std", 1, Opening::Start, &mut rng)
            .expect("configs");
        let (state, _) = OthelloKit
            .game()
            .start(&start[0], &mut Ctx::new(0, &mut rng))
            .expect("start");
        assert_eq!(
            state.view(arbiter_rules::Viewer::Omniscient)["discs"],
            json!([2, 2])
        );
        let seat = arbiter_rules::Seat(0);
        assert_eq!(
            OthelloKit.forced_pass(state.as_ref(), seat),
            None,
            "Black has moves"
        );
        // A XOT opening comes from the shipped list, and only for std.
        let xot = OthelloKit
            .leg_configs("std", 1, Opening::Balanced, &mut rng)
            .expect("configs");
        let config: OthelloConfig = serde_json::from_value(xot[0].clone()).expect("config");
        let OthelloOpening::Moves(moves) = config.opening else {
            panic!("eight moves, not {:?}", config.opening);
        };
        assert!(arbiter_othello::xot::openings().contains(&moves));
        assert!(
            OthelloKit
                .leg_configs("anti", 1, Opening::Balanced, &mut rng)
                .is_err()
        );
        let (state, _) = OthelloKit
            .game()
            .start(&configs[0], &mut Ctx::new(0, &mut rng))
            .expect("start");
        assert_eq!(
            OthelloKit.parse_action(state.as_ref(), &json!("J0")),
            Ok(json!(99))
        );
        assert_eq!(
            OthelloKit.parse_action(state.as_ref(), &json!("pass")),
            Ok(json!(-1))
        );
        assert_eq!(
            OthelloKit.parse_action(state.as_ref(), &json!(23)),
            Ok(json!(23))
        );
        assert!(matches!(
            OthelloKit.parse_action(state.as_ref(), &json!("k1")),
            Err(ArenaError::OutsideBoard(_))
        ));
        assert!(matches!(
            OthelloKit.parse_action(state.as_ref(), &json!(100)),
            Err(ArenaError::OutsideBoard(_))
        ));
        assert!(matches!(
            OthelloKit.parse_action(state.as_ref(), &json!("xyz")),
            Err(ArenaError::InvalidCoordinate(_))
        ));
        assert!(matches!(
            OthelloKit.parse_action(state.as_ref(), &json!([1])),
            Err(ArenaError::InvalidCoordinate(_))
        ));
    }

    #[test]
    fn house_moves_are_legal_and_engine_requests_complete() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let configs = OthelloKit
            .leg_configs("std", 1, Opening::Random, &mut rng)
            .expect("configs");
        let (mut state, _) = OthelloKit
            .game()
            .start(&configs[0], &mut Ctx::new(0, &mut rng))
            .expect("start");
        let raw = OthelloKit.engine_request(
            state.as_ref(),
            &TurnContext {
                match_id: 5,
                remaining_ms: 60_000,
                budget_ms: 10_000,
                ..TurnContext::default()
            },
        );
        let request: Value = serde_json::from_str(&raw).expect("the request is JSON");
        assert_eq!(request["match_id"], 5);
        assert_eq!(
            request["placed"],
            json!({"1": 4, "2": 4}),
            "eight opening plies"
        );
        for level in HouseLevel::ALL {
            let deadline = Instant::now() + std::time::Duration::from_millis(20);
            let action = OthelloKit.house_action(state.as_ref(), level, deadline, &mut rng);
            let seat = match state.to_act() {
                arbiter_rules::ToAct::Turn { seat } => seat,
                _ => Seat(0),
            };
            let mut probe = state.clone();
            probe
                .apply(seat, &action, &mut Ctx::new(0, &mut rng))
                .expect("house moves are legal");
        }
        state
            .apply(
                Seat(0),
                &OthelloKit
                    .parse_action(state.as_ref(), &json!(request["legal_moves"][0]))
                    .expect("parse"),
                &mut Ctx::new(0, &mut rng),
            )
            .expect("legal");
        assert!(OthelloKit.moves_left(state.as_ref()) > 20);
    }
}
