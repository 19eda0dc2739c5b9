//! Chess as the arena runs it: its variants, legs from the usual start or a Chess960 position
//! drawn from the match seed, moves as clients spell them, the generic engine protocol, and a
//! clock per turn (a Dice Chess turn is several micro-moves).

use arbiter_plugin::{
    ActionCodec, ClockPolicy, CodecError, Family, GenericDecisions, LegRequest, MatchSetup,
    Opening, SetupError, VariantSpec,
};
use arbiter_rules::{DynState, Erased, Random};
use serde_json::Value;

use crate::game::{Chess, ChessConfig, Variant};

/// The rules, type-erased.
pub static RULES: Erased<Chess> = Erased::new();

/// Chess, as the arena runs it.
pub static FAMILY: Family = Family {
    rules: &RULES,
    setup: &Setup,
    codec: &Codec,
    decisions: &GenericDecisions,
    clock: ClockPolicy::PerTurn,
    house: Some(&crate::house::House),
    board: Some(&crate::board_svg::BoardSvg),
    points: None,
    line: Some(&crate::line::Line),
    talk: None,
    record: Some(&crate::pgn::Pgn),
};

/// The variants, in the order people see them.
const VARIANTS: &[VariantSpec] = &[
    VariantSpec {
        name: "standard",
        min_seats: 2,
        max_seats: 2,
        summary: "Orthodox chess from the usual start position.",
    },
    VariantSpec {
        name: "chess960",
        min_seats: 2,
        max_seats: 2,
        summary: "Fischer random chess: one of 960 start positions, the same in both legs.",
    },
    VariantSpec {
        name: "dice",
        min_seats: 2,
        max_seats: 2,
        summary: "Dice Chess: three dice name the pieces that move, up to three moves a turn; \
                  capture the king to win.",
    },
];

/// The Scharnagl number of the usual start position.
const STANDARD_960: u32 = 518;

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
        let variant = variant_named(request.variant)?;
        if request.seats != 2 {
            return Err(SetupError::Unsupported(format!(
                "chess is played by 2, not {}",
                request.seats
            )));
        }
        if request.opening == Opening::Balanced {
            return Err(SetupError::Unsupported(
                "chess has no list of balanced openings; play from the start or a random \
                 Chess960 position"
                    .to_owned(),
            ));
        }
        let mut config = ChessConfig::of(variant);
        if variant == Variant::Chess960 {
            // Drawn once, so that the paired legs share the position.
            config.chess960_position = Some(match request.opening {
                Opening::Random => arbiter_rules::random::below(rng, 960),
                Opening::Start | Opening::Balanced => STANDARD_960,
            });
        }
        let value =
            serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))?;
        Ok(vec![value; request.legs])
    }

    /// A FEN (or, in Dice Chess, a DFEN), or an EPD line, whose operations after the four
    /// position fields are dropped and whose move counters are then `0 1`, as opening books
    /// for engine matches list positions.
    fn listed_opening(&self, variant: &str, opening: &str) -> Result<Value, SetupError> {
        let variant = variant_named(variant)?;
        let fields: Vec<&str> = opening.split_whitespace().collect();
        if fields.len() < 4 {
            return Err(SetupError::Unsupported(format!(
                "{opening:?} is not a FEN or EPD position"
            )));
        }
        let counters = |i: usize| fields.get(i).is_some_and(|f| f.parse::<u32>().is_ok());
        let fen = if counters(4) && counters(5) {
            fields[..6].join(" ")
        } else {
            format!("{} 0 1", fields[..4].join(" "))
        };
        let config = ChessConfig {
            fen: Some(fen),
            ..ChessConfig::of(variant)
        };
        serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))
    }
}

/// The variant called `name`.
fn variant_named(name: &str) -> Result<Variant, SetupError> {
    match name {
        "standard" => Ok(Variant::Standard),
        "chess960" => Ok(Variant::Chess960),
        "dice" => Ok(Variant::Dice),
        other => Err(SetupError::UnknownVariant(format!(
            "chess has no variant {other:?}"
        ))),
    }
}

/// Moves are UCI strings, read without regard to case or surrounding spaces; draw offers
/// are `{"draw": bool}`. Logs write moves as they are and draw words as `draw` and `no draw`.
struct Codec;

impl ActionCodec for Codec {
    fn parse(&self, _state: &dyn DynState, submitted: &Value) -> Result<Value, CodecError> {
        match submitted {
            Value::String(text) => Ok(Value::String(text.trim().to_ascii_lowercase())),
            Value::Object(map)
                if map.len() == 1 && map.get("draw").is_some_and(Value::is_boolean) =>
            {
                Ok(submitted.clone())
            }
            Value::Null => Err(CodecError::Malformed("no action was given".to_owned())),
            other => Err(CodecError::Malformed(format!(
                "a move is a UCI string such as \"e2e4\", or {{\"draw\": true}}; not {other}"
            ))),
        }
    }

    fn notation(&self, action: &Value) -> String {
        match action {
            Value::String(text) => text.clone(),
            Value::Object(map) => match map.get("draw").and_then(Value::as_bool) {
                Some(true) => "draw".to_owned(),
                Some(false) => "no draw".to_owned(),
                None => action.to_string(),
            },
            _ => action.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use arbiter_rules::{Ctx, Seat, ToAct};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    use serde_json::json;

    use super::*;

    fn configs(variant: &str, opening: Opening, seed: u64) -> Result<Vec<Value>, SetupError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        FAMILY.setup.leg_configs(
            &LegRequest {
                variant,
                seats: 2,
                legs: 2,
                opening,
            },
            &mut rng,
        )
    }

    #[test]
    fn every_variant_starts_a_game_of_two() {
        for spec in FAMILY.setup.variants() {
            let legs = configs(spec.name, Opening::Random, 1).expect(spec.name);
            assert_eq!(legs.len(), 2);
            assert_eq!(legs[0], legs[1], "{}: the legs start alike", spec.name);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let (state, _) = FAMILY
                .rules
                .start(&legs[0], &mut Ctx::new(0, &mut rng))
                .expect(spec.name);
            // White moves first, unless (in Dice Chess) its first roll passed.
            let ToAct::Turn { seat } = state.to_act() else {
                panic!("{}: nobody to move", spec.name);
            };
            assert!(!state.legal_actions(seat).is_empty(), "{}", spec.name);
            assert!(
                state.legal_actions(Seat(1 - seat.0)).is_empty(),
                "{}",
                spec.name
            );
        }
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let three = FAMILY.setup.leg_configs(
            &LegRequest {
                variant: "standard",
                seats: 3,
                legs: 1,
                opening: Opening::Random,
            },
            &mut rng,
        );
        assert!(matches!(three, Err(SetupError::Unsupported(_))));
        assert!(matches!(
            configs("shogi", Opening::Random, 1),
            Err(SetupError::UnknownVariant(_))
        ));
        for variant in ["standard", "chess960", "dice"] {
            assert!(
                matches!(
                    configs(variant, Opening::Balanced, 1),
                    Err(SetupError::Unsupported(_))
                ),
                "{variant}"
            );
        }
    }

    #[test]
    fn chess960_draws_its_position_from_the_seed() {
        let mut drawn = std::collections::BTreeSet::new();
        for seed in 0..30 {
            let legs = configs("chess960", Opening::Random, seed).expect("configs");
            let config: ChessConfig = serde_json::from_value(legs[0].clone()).expect("config");
            let number = config.chess960_position.expect("a position");
            assert!(number < 960);
            drawn.insert(number);
        }
        assert!(drawn.len() > 20, "{drawn:?}");
        let start = configs("chess960", Opening::Start, 3).expect("configs");
        assert_eq!(start[0]["chess960_position"], json!(518));
        let standard = configs("standard", Opening::Random, 3).expect("configs");
        assert_eq!(standard[0]["chess960_position"], Value::Null);
    }

    #[test]
    fn moves_are_read_and_written() {
        let legs = configs("standard", Opening::Start, 1).expect("configs");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (state, _) = FAMILY
            .rules
            .start(&legs[0], &mut Ctx::new(0, &mut rng))
            .expect("a game");
        let state = state.as_ref();
        let cases = [
            (json!(" E2E4 "), Ok(json!("e2e4"))),
            (json!({"draw": true}), Ok(json!({"draw": true}))),
            (json!({"draw": false}), Ok(json!({"draw": false}))),
        ];
        for (submitted, parsed) in cases {
            assert_eq!(FAMILY.codec.parse(state, &submitted), parsed);
        }
        for bad in [
            json!(null),
            json!(42),
            json!({"draw": "yes"}),
            json!(["e2", "e4"]),
        ] {
            assert!(
                matches!(
                    FAMILY.codec.parse(state, &bad),
                    Err(CodecError::Malformed(_))
                ),
                "{bad}"
            );
        }
        assert_eq!(FAMILY.codec.notation(&json!("e7e8q")), "e7e8q");
        assert_eq!(FAMILY.codec.notation(&json!({"draw": true})), "draw");
        assert_eq!(FAMILY.codec.notation(&json!({"draw": false})), "no draw");
        assert_eq!(FAMILY.clock, ClockPolicy::PerTurn);
        assert_eq!(FAMILY.id(), "chess");
    }
}
