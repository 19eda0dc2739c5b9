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
    points: Some(&crate::points::Points),
    line: Some(&crate::line::Line),
    talk: None,
    record: None,
};

/// One variant: its line for people and the rules it is played by.
struct Variant {
    spec: VariantSpec,
    size: u8,
    rule: RuleSet,
    opening: OpeningRule,
    foul: FoulPolicy,
}

/// The variants, in the order people see them.
const VARIANTS: &[Variant] = &[
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
    Variant {
        foul: FoulPolicy::Loss,
        ..variant(
            "renju-foul",
            15,
            RuleSet::Renju,
            OpeningRule::Free,
            "15x15 Renju as in tournaments: a forbidden stone by Black loses the game.",
        )
    },
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

/// A variant of two seats whose forbidden stones, under Renju, are refused.
const fn variant(
    name: &'static str,
    size: u8,
    rule: RuleSet,
    opening: OpeningRule,
    summary: &'static str,
) -> Variant {
    let spec = VariantSpec {
        name,
        min_seats: 2,
        max_seats: 2,
        summary,
    };
    Variant {
        spec,
        size,
        rule,
        opening,
        foul: FoulPolicy::Illegal,
    }
}

/// The variants' specs, in order.
static SPECS: [VariantSpec; VARIANTS.len()] = {
    let mut specs = [VARIANTS[0].spec; VARIANTS.len()];
    let mut i = 0;
    while i < VARIANTS.len() {
        specs[i] = VARIANTS[i].spec;
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
        rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError> {
        let variant = VARIANTS
            .iter()
            .find(|variant| variant.spec.name == request.variant)
            .ok_or_else(|| {
                SetupError::UnknownVariant(format!("gomoku has no variant {:?}", request.variant))
            })?;
        if request.seats != 2 {
            return Err(SetupError::Unsupported(format!(
                "gomoku is played by 2, not {}",
                request.seats
            )));
        }
        // A balanced match starts from one of Renju's three-stone openings, drawn once so
        // that the paired legs share it; any other starts from an empty board. Either way the
        // paired legs swap who moves first.
        let stones = match request.opening {
            arbiter_plugin::Opening::Random | arbiter_plugin::Opening::Start => Vec::new(),
            arbiter_plugin::Opening::Balanced if variant.opening == OpeningRule::Swap2 => {
                return Err(SetupError::Unsupported(format!(
                    "{} makes its own opening by swap2; balanced openings are for the other \
                     variants",
                    variant.spec.name
                )));
            }
            arbiter_plugin::Opening::Balanced => {
                let list = crate::openings::openings();
                let count = u32::try_from(list.len()).unwrap_or(u32::MAX);
                let index = arbiter_rules::random::below(rng, count);
                let opening = list
                    .get(usize::try_from(index).unwrap_or(0))
                    .ok_or_else(|| {
                        SetupError::Unsupported("no balanced opening is available".to_owned())
                    })?;
                crate::openings::placed(opening, variant.size)
            }
        };
        let config = GomokuConfig {
            size: variant.size,
            rule: variant.rule,
            foul: variant.foul,
            opening: variant.opening,
            stones,
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

    /// The legs' configurations of a paired match of `variant` from `opening`, drawn with
    /// the seed `seed`.
    fn configs_from(
        variant: &str,
        opening: Opening,
        seed: u64,
    ) -> Result<Vec<GomokuConfig>, SetupError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let request = LegRequest {
            variant,
            seats: 2,
            legs: 2,
            opening,
        };
        let configs = FAMILY.setup.leg_configs(&request, &mut rng)?;
        Ok(configs
            .into_iter()
            .map(|config| serde_json::from_value(config).expect("a config"))
            .collect())
    }

    #[test]
    fn variants_set_the_board_the_rules_and_the_foul() {
        // Variant, side, rule set, opening rule and what a forbidden stone does.
        let cases = [
            (
                "freestyle",
                15,
                RuleSet::Freestyle,
                OpeningRule::Free,
                FoulPolicy::Illegal,
            ),
            (
                "renju",
                15,
                RuleSet::Renju,
                OpeningRule::Free,
                FoulPolicy::Illegal,
            ),
            (
                "renju-foul",
                15,
                RuleSet::Renju,
                OpeningRule::Free,
                FoulPolicy::Loss,
            ),
            (
                "renju-swap2",
                15,
                RuleSet::Renju,
                OpeningRule::Swap2,
                FoulPolicy::Illegal,
            ),
            (
                "freestyle-20",
                20,
                RuleSet::Freestyle,
                OpeningRule::Free,
                FoulPolicy::Illegal,
            ),
        ];
        for (variant, size, rule, opening, foul) in cases {
            let config = &configs_from(variant, Opening::Start, 1).expect(variant)[0];
            assert_eq!(
                (config.size, config.rule, config.opening, config.foul),
                (size, rule, opening, foul),
                "{variant}"
            );
            assert!(config.stones.is_empty(), "{variant}");
        }
    }

    #[test]
    fn a_balanced_match_draws_one_renju_opening_for_both_legs() {
        let list = crate::openings::openings();
        let mut drawn = std::collections::BTreeSet::new();
        for seed in 0..40 {
            for variant in [
                "renju",
                "renju-foul",
                "freestyle",
                "standard",
                "freestyle-19",
            ] {
                let configs = configs_from(variant, Opening::Balanced, seed).expect(variant);
                assert_eq!(configs[0], configs[1], "both legs start alike: {variant}");
                let size = configs[0].size;
                assert!(
                    list.iter()
                        .any(|o| crate::openings::placed(o, size) == configs[0].stones),
                    "{variant}: {:?}",
                    configs[0].stones
                );
                if variant == "renju" {
                    drawn.insert(configs[0].stones.clone());
                }
            }
        }
        assert!(
            drawn.len() > 10,
            "the seed chooses among the openings: {drawn:?}"
        );
        for variant in ["swap2", "renju-swap2"] {
            assert!(
                matches!(
                    configs_from(variant, Opening::Balanced, 1),
                    Err(SetupError::Unsupported(_))
                ),
                "{variant}"
            );
        }
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
