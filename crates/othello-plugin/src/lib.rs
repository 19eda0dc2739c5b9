//! The Othello family as the arena runs it: the five variants and their openings (random
//! 12-disc openings from the match seed, the start position, or the XOT list), every move
//! spelling FlipSight accepts, FlipSight's engine request for each decision (so that engines
//! written for FlipSight work unchanged), the house players (`arbiter-house`), and the
//! board the web pages draw (`board.rs`).

mod board;
mod ggf;
mod line;
mod points;

use std::time::Instant;

use arbiter_engine_protocol::{EngineRequest, MatchContext};
use arbiter_othello::coord::{CoordError, Move, move_from_index};
use arbiter_othello::opening::random_opening;
use arbiter_othello::{
    Opening as OthelloOpening, Othello, OthelloConfig, OthelloState, OthelloView, Variant,
    parse_move,
};
use arbiter_plugin::{
    ActionCodec, ClockPolicy, CodecError, DecisionContext, DecisionWriter, Family, HouseLevel,
    HousePlayer, LegRequest, MatchSetup, Opening, SeatView, SetupError, VariantSpec,
};
use arbiter_rules::{DynState, Erased, Random, Seat};
use serde_json::{Value, json};

static RULES: Erased<Othello> = Erased::new();

/// Othello, as the arena runs it.
pub static FAMILY: Family = Family {
    rules: &RULES,
    setup: &Setup,
    codec: &Codec,
    decisions: &Decisions,
    clock: ClockPolicy::PerAction,
    house: Some(&House),
    board: Some(&board::Board),
    points: Some(&points::Points),
    line: Some(&line::Line),
    talk: None,
    record: Some(&ggf::Ggf),
};

/// The variants, the default (`std`) first; every one is for two players.
const VARIANTS: &[VariantSpec] = &[
    VariantSpec {
        name: "std",
        min_seats: 2,
        max_seats: 2,
        summary: "Othello on 8×8: the most discs win.",
    },
    VariantSpec {
        name: "anti",
        min_seats: 2,
        max_seats: 2,
        summary: "Anti-Othello on 8×8: the fewest discs win.",
    },
    VariantSpec {
        name: "grand",
        min_seats: 2,
        max_seats: 2,
        summary: "Othello on 10×10.",
    },
    VariantSpec {
        name: "octagon",
        min_seats: 2,
        max_seats: 2,
        summary: "Othello on 10×10 with the corners cut off.",
    },
    VariantSpec {
        name: "reversi",
        min_seats: 2,
        max_seats: 2,
        summary: "Reversi: an empty centre and 32 discs each.",
    },
];

struct Setup;

impl MatchSetup for Setup {
    fn variants(&self) -> &'static [VariantSpec] {
        VARIANTS
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError> {
        let variant: Variant =
            request
                .variant
                .parse()
                .map_err(|e: arbiter_othello::variant::UnknownVariant| {
                    SetupError::UnknownVariant(e.to_string())
                })?;
        let opening = match request.opening {
            Opening::Random => {
                OthelloOpening::Moves(random_opening(variant, rng).ok_or_else(|| {
                    SetupError::Unsupported(format!("no {variant} opening could be drawn"))
                })?)
            }
            Opening::Start => OthelloOpening::Start,
            Opening::Balanced => {
                let list = arbiter_othello::xot::openings();
                if variant != Variant::Std || list.is_empty() {
                    return Err(SetupError::Unsupported(format!(
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
            serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))?;
        Ok(vec![value; request.legs])
    }

    /// Moves from the usual start, written together (`f5d6c3`) or apart (`f5 d6 c3`), as
    /// opening books of XOT and of engine matches list them.
    fn listed_opening(&self, variant: &str, opening: &str) -> Result<Value, SetupError> {
        let variant: Variant =
            variant
                .parse()
                .map_err(|e: arbiter_othello::variant::UnknownVariant| {
                    SetupError::UnknownVariant(e.to_string())
                })?;
        if !opening.is_ascii() {
            return Err(SetupError::Unsupported(format!(
                "{opening:?} is not a line of moves"
            )));
        }
        let letters: String = opening.split_whitespace().collect();
        let mut moves = Vec::new();
        let mut rest = letters.as_str();
        while !rest.is_empty() {
            // A square is a letter and one or two digits (10x10 boards have a 10th row).
            let digits = rest[1..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(rest.len(), |end| end + 1);
            let (square, tail) = rest.split_at(digits.max(1).min(rest.len()));
            let mv = arbiter_othello::parse_move(square, variant).map_err(|e| {
                SetupError::Unsupported(format!("{opening:?} is not a line of moves: {e}"))
            })?;
            moves.push(mv);
            rest = tail;
        }
        let config = OthelloConfig {
            variant,
            opening: OthelloOpening::Moves(moves),
        };
        serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))
    }
}

fn othello_state(state: &dyn DynState) -> Option<&OthelloState> {
    state.as_any().downcast_ref::<OthelloState>()
}

fn codec_error(error: CoordError) -> CodecError {
    match error {
        CoordError::Invalid(text) => CodecError::InvalidCoordinate(text),
        CoordError::OutsideBoard(text) => CodecError::OutsideBoard(text),
    }
}

struct Codec;

impl ActionCodec for Codec {
    fn parse(&self, state: &dyn DynState, submitted: &Value) -> Result<Value, CodecError> {
        let variant = othello_state(state).map_or(Variant::Std, |s| s.position().variant());
        let mv = match submitted {
            Value::Number(n) => match n.as_i64() {
                Some(index) => move_from_index(index, variant).map_err(codec_error)?,
                None => return Err(CodecError::InvalidCoordinate(n.to_string())),
            },
            Value::String(text) => parse_move(text, variant).map_err(codec_error)?,
            other => return Err(CodecError::InvalidCoordinate(other.to_string())),
        };
        Ok(json!(mv.index()))
    }

    fn forced_action(&self, state: &dyn DynState, seat: Seat) -> Option<Value> {
        let pass = json!(Move::Pass.index());
        (state.legal_actions(seat) == [pass.clone()]).then_some(pass)
    }
}

struct Decisions;

impl DecisionWriter for Decisions {
    fn request(&self, view: &SeatView<'_>, context: &DecisionContext<'_>) -> String {
        let Ok(othello) = view.typed().downcast::<OthelloView>() else {
            return "null".to_owned();
        };
        let context = MatchContext {
            // FlipSight shows a match with a person as a room, under minus its number.
            match_id: if context.room.is_some() {
                -context.match_id
            } else {
                context.match_id
            },
            leg: context.leg,
            black_participant: context.participants_by_seat.first().copied().unwrap_or(0),
            remaining_ms: u64::try_from(context.remaining_ms).unwrap_or(0),
            budget_ms: u64::try_from(context.budget_ms).unwrap_or(0),
            move_times_ms: context.move_times_ms.to_vec(),
            round_no: context.room.map(|(round, _)| round),
            room_created_at: context.room.map(|(_, created)| created.to_owned()),
        };
        EngineRequest::from_view(*othello, &context).to_line()
    }
}

/// The house player of every Othello variant. Its searching levels score positions with the
/// shipped trained weights on 8x8 boards (`arbiter_house::shipped_weights`) and with the
/// built-in evaluation on 10x10 ones.
struct House;

/// How deep each searching level may search: easy and medium by depth, so that a faster
/// machine does not make them much stronger; hard and max as deep as their time allows.
fn max_depth(level: HouseLevel) -> u32 {
    match level {
        HouseLevel::Random | HouseLevel::Greedy => 0,
        HouseLevel::Easy => 2,
        HouseLevel::Medium => 6,
        HouseLevel::Hard | HouseLevel::Max => 60,
    }
}

/// Whether a level's search prunes by Multi-ProbCut: the levels that search as deep as their
/// time allows, which it takes further; easy and medium keep their exact fixed depths.
fn selective(level: HouseLevel) -> bool {
    matches!(level, HouseLevel::Hard | HouseLevel::Max)
}

impl HousePlayer for House {
    fn choose(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value {
        let Ok(othello) = view.typed().downcast::<OthelloView>() else {
            return json!(Move::Pass.index());
        };
        let position = &othello.position;
        let limits = arbiter_house::Limits {
            deadline: Some(deadline),
            max_nodes: None,
            selective: selective(level),
        };
        let choice = match (level, arbiter_house::shipped_weights(position.variant())) {
            (HouseLevel::Random, _) => {
                arbiter_house::choose(position, arbiter_house::Level::Random, &limits, rng)
            }
            (HouseLevel::Greedy, _) => {
                arbiter_house::choose(position, arbiter_house::Level::Greedy, &limits, rng)
            }
            (level, Some(weights)) => {
                arbiter_house::choose_with_weights(position, weights, max_depth(level), &limits)
            }
            (level, None) => {
                let level = arbiter_house::Level::Search {
                    max_depth: max_depth(level),
                };
                arbiter_house::choose(position, level, &limits, rng)
            }
        };
        json!(choice.mv.index())
    }

    fn decisions_left(&self, view: &SeatView<'_>) -> i64 {
        view.typed()
            .downcast::<OthelloView>()
            .map_or(30, |othello| {
                i64::from(arbiter_house::endgame::empties(&othello.position)) / 2 + 1
            })
    }

    /// Hard and max share their clock by the game's phase, most where the exact solver takes
    /// over; the lower levels, which think briefly, evenly.
    fn think_ms(&self, view: &SeatView<'_>, level: HouseLevel, clock_ms: i64) -> i64 {
        match (level, view.typed().downcast::<OthelloView>()) {
            (HouseLevel::Hard | HouseLevel::Max, Ok(othello)) => {
                arbiter_house::move_time_ms(&othello.position, clock_ms)
            }
            _ => clock_ms / self.decisions_left(view).max(1),
        }
    }
}

#[cfg(test)]
mod tests;
