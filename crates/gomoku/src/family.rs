//! Gomoku as the arena runs it: its variants, the actions as clients spell them, the generic
//! engine protocol and a clock per stone.

use arbiter_plugin::{
    ActionCodec, ClockPolicy, CodecError, Family, GenericDecisions, JsonCodec, LegRequest,
    MatchSetup, SetupError, VariantSpec,
};
use arbiter_rules::{DynState, Erased, Random};
use serde_json::Value;

use crate::board::RuleSet;
use crate::rules::{FoulPolicy, Gomoku, GomokuAction, GomokuConfig, OpeningRule, Swap2Choice};

/// The rules, type-erased.
pub static RULES: Erased<Gomoku> = Erased::new();

/// Gomoku, as the arena runs it.
pub static FAMILY: Family = Family {
    rules: &RULES,
    setup: &Setup,
    codec: &Codec,
    decisions: &GenericDecisions,
    clock: ClockPolicy::PerAction,
    house: Some(&crate::house::House),
    board: Some(&crate::board_svg::Board),
    points: None,
};

/// Each variant: its name, board side, rule set and opening, and its line for people.
const VARIANTS: &[(VariantSpec, u8, RuleSet, OpeningRule)] = &[
    variant(
        "freestyle",
        15,
        RuleSet::Freestyle,
        OpeningRule::Free,
        "15x15, five or more wins.",
    ),
    variant(
        "standard",
        15,
        RuleSet::Standard,
        OpeningRule::Free,
        "15x15, exactly five wins.",
    ),
    variant(
        "renju",
        15,
        RuleSet::Renju,
        OpeningRule::Free,
        "15x15, Renju: Black may not make an overline, a double four or a double three.",
    ),
    variant(
        "swap2",
        15,
        RuleSet::Freestyle,
        OpeningRule::Swap2,
        "15x15 freestyle from a swap2 opening.",
    ),
    variant(
        "renju-swap2",
        15,
        RuleSet::Renju,
        OpeningRule::Swap2,
        "15x15 Renju from a swap2 opening.",
    ),
    variant(
        "freestyle-19",
        19,
        RuleSet::Freestyle,
        OpeningRule::Free,
        "19x19, five or more wins.",
    ),
    variant(
        "freestyle-20",
        20,
        RuleSet::Freestyle,
        OpeningRule::Free,
        "20x20, five or more wins.",
    ),
];

const fn variant(
    name: &'static str,
    size: u8,
    rule: RuleSet,
    opening: OpeningRule,
    summary: &'static str,
) -> (VariantSpec, u8, RuleSet, OpeningRule) {
    let spec = VariantSpec {
        name,
        min_seats: 2,
        max_seats: 2,
        summary,
    };
    (spec, size, rule, opening)
}

/// The variants' specs, in order.
static SPECS: [VariantSpec; VARIANTS.len()] = {
    let mut specs = [VARIANTS[0].0; VARIANTS.len()];
    let mut i = 0;
    while i < VARIANTS.len() {
        specs[i] = VARIANTS[i].0;
        i += 1;
    }
    specs
};

struct Setup;

impl MatchSetup for Setup {
    fn variants(&self) -> &'static [VariantSpec] {
        &SPECS
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        _rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError> {
        let &(_, size, rule, opening) = VARIANTS
            .iter()
            .find(|(spec, ..)| spec.name == request.variant)
            .ok_or_else(|| {
                SetupError::UnknownVariant(format!("gomoku has no variant {:?}", request.variant))
            })?;
        if request.seats != 2 {
            return Err(SetupError::Unsupported(format!(
                "gomoku is played by 2, not {}",
                request.seats
            )));
        }
        // A forbidden stone is refused, as most servers do; every leg starts empty, and the
        // paired legs swap who moves first.
        let config = GomokuConfig {
            size,
            rule,
            foul: FoulPolicy::Illegal,
            opening,
            stones: Vec::new(),
        };
        let value =
            serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))?;
        Ok(vec![value; request.legs])
    }
}

/// Stones are sent as the rules spell them (`{"x": 7, "y": 7}`) or as `[7, 7]`, swap2
/// choices as `{"swap2": "black"}`; pages write them `7,7` and `swap2 black`.
struct Codec;

impl ActionCodec for Codec {
    fn parse(&self, state: &dyn DynState, submitted: &Value) -> Result<Value, CodecError> {
        if let Some([x, y]) = submitted.as_array().map(Vec::as_slice) {
            return match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => Ok(serde_json::json!({"x": x, "y": y})),
                _ => Err(CodecError::InvalidCoordinate(submitted.to_string())),
            };
        }
        JsonCodec.parse(state, submitted)
    }

    fn notation(&self, action: &Value) -> String {
        match serde_json::from_value::<GomokuAction>(action.clone()) {
            Ok(GomokuAction::Place { x, y }) => format!("{x},{y}"),
            Ok(GomokuAction::Swap2 { swap2 }) => format!(
                "swap2 {}",
                match swap2 {
                    Swap2Choice::Black => "black",
                    Swap2Choice::White => "white",
                    Swap2Choice::More => "more",
                }
            ),
            Err(_) => action.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use arbiter_plugin::Opening;
    use arbiter_rules::{Ctx, Seat};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    use serde_json::json;

    use super::*;

    fn legs(variant: &str, seats: usize) -> Result<Vec<Value>, SetupError> {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        FAMILY.setup.leg_configs(
            &LegRequest {
                variant,
                seats,
                legs: 2,
                opening: Opening::Random,
            },
            &mut rng,
        )
    }

    #[test]
    fn every_variant_starts_a_game_of_two() {
        for spec in FAMILY.setup.variants() {
            let configs = legs(spec.name, 2).expect(spec.name);
            assert_eq!(configs.len(), 2);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let (state, _) = FAMILY
                .rules
                .start(&configs[0], &mut Ctx::new(0, &mut rng))
                .expect(spec.name);
            assert!(!state.legal_actions(Seat(0)).is_empty(), "{}", spec.name);
        }
        assert!(matches!(legs("renju", 3), Err(SetupError::Unsupported(_))));
        assert!(matches!(legs("go", 2), Err(SetupError::UnknownVariant(_))));
    }

    #[test]
    fn stones_and_choices_are_read_and_written() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let configs = legs("freestyle", 2).expect("configs");
        let (state, _) = FAMILY
            .rules
            .start(&configs[0], &mut Ctx::new(0, &mut rng))
            .expect("a game");
        let cases = [
            (json!([7, 8]), Ok(json!({"x": 7, "y": 8}))),
            (json!({"x": 7, "y": 8}), Ok(json!({"x": 7, "y": 8}))),
            (json!({"swap2": "more"}), Ok(json!({"swap2": "more"}))),
            (
                json!(["h", 8]),
                Err(CodecError::InvalidCoordinate(r#"["h",8]"#.to_owned())),
            ),
        ];
        for (submitted, parsed) in cases {
            assert_eq!(FAMILY.codec.parse(state.as_ref(), &submitted), parsed);
        }
        assert_eq!(FAMILY.codec.notation(&json!({"x": 7, "y": 8})), "7,8");
        assert_eq!(
            FAMILY.codec.notation(&json!({"swap2": "black"})),
            "swap2 black"
        );
    }
}
