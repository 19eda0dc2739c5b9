//! Goofspiel for the arena: the rules ([`rules`]) and the [`FAMILY`] the binary registers.
//!
//! Goofspiel needs nothing of its own beyond its rules: actions are spelled as the rules
//! serialize them (`{"round": 3, "card": 7}`), decisions use the generic engine protocol, the
//! clock is charged per phase, and pages show its public view generically. Its house player
//! bids from its own view only.

pub mod rules;

use std::time::Instant;

use arbiter_plugin::{
    ActionCodec, ClockPolicy, CodecError, Family, GenericDecisions, HouseLevel, HousePlayer,
    JsonCodec, LegRequest, MatchSetup, SeatView, SetupError, VariantSpec,
};
use arbiter_rules::{DynState, Erased, Random};
use serde_json::Value;

pub use rules::{Bid, Goofspiel, GoofspielConfig, GoofspielEvent, GoofspielState, GoofspielView};

/// The rules, type-erased, for families built on them (a test's smaller setup).
pub static RULES: Erased<Goofspiel> = Erased::new();

/// Goofspiel, as the arena runs it.
pub static FAMILY: Family = Family {
    rules: &RULES,
    setup: &Setup,
    codec: &Codec,
    decisions: &GenericDecisions,
    clock: ClockPolicy::PerPhase,
    house: Some(&House),
    board: None,
    points: None,
    line: None,
    talk: None,
    record: None,
};

/// The variants: the full thirteen-card game, and a five-card one that ends in five rounds.
const VARIANTS: &[VariantSpec] = &[
    VariantSpec {
        name: "standard",
        min_seats: 2,
        max_seats: 4,
        summary: "Thirteen cards each, thirteen prizes, 30 seconds a bid.",
    },
    VariantSpec {
        name: "short",
        min_seats: 2,
        max_seats: 4,
        summary: "Five cards each, five prizes, 10 seconds a bid.",
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
        _rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError> {
        let (cards, bid_ms) = match request.variant {
            "standard" => (13, 30_000),
            "short" => (5, 10_000),
            other => {
                return Err(SetupError::UnknownVariant(format!(
                    "goofspiel has no variant {other:?}"
                )));
            }
        };
        let players = u8::try_from(request.seats)
            .ok()
            .filter(|&p| (2..=4).contains(&p))
            .ok_or_else(|| {
                SetupError::Unsupported(format!(
                    "goofspiel is played by 2 to 4 players, not {}",
                    request.seats
                ))
            })?;
        // The prizes are shuffled by the rules when each leg starts, from the match's fair
        // random source, so the configuration itself holds nothing random.
        let config = GoofspielConfig {
            players,
            cards,
            bid_ms,
        };
        let value =
            serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))?;
        Ok(vec![value; request.legs])
    }
}

/// Bids are sent as the rules spell them (`{"round": 2, "card": 7}`), and written for people
/// as `bid 7`.
struct Codec;

impl ActionCodec for Codec {
    fn parse(&self, state: &dyn DynState, submitted: &Value) -> Result<Value, CodecError> {
        JsonCodec.parse(state, submitted)
    }

    fn notation(&self, action: &Value) -> String {
        match serde_json::from_value::<Bid>(action.clone()) {
            Ok(bid) => format!("bid {}", bid.card),
            Err(_) => action.to_string(),
        }
    }
}

struct House;

impl HousePlayer for House {
    fn choose(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        _deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value {
        let legal = view.legal_actions();
        let Some(first) = legal.first() else {
            return Value::Null;
        };
        let bids: Vec<Bid> = legal
            .iter()
            .filter_map(|a| serde_json::from_value(a.clone()).ok())
            .collect();
        let chosen = match level {
            HouseLevel::Random => {
                let count = u32::try_from(legal.len()).unwrap_or(u32::MAX);
                let index = arbiter_rules::random::below(rng, count);
                return legal[usize::try_from(index).unwrap_or(0)].clone();
            }
            // Every stronger level bids the card nearest the prize's value, from above: a
            // card worth the prize tends to win it without overpaying.
            _ => {
                let prize = view
                    .typed()
                    .downcast::<GoofspielView>()
                    .ok()
                    .and_then(|v| v.prize)
                    .unwrap_or(1);
                bids.iter()
                    .filter(|b| b.card >= prize)
                    .min_by_key(|b| b.card)
                    .or_else(|| bids.iter().min_by_key(|b| b.card))
            }
        };
        chosen
            .and_then(|bid| serde_json::to_value(bid).ok())
            .unwrap_or_else(|| first.clone())
    }

    fn decisions_left(&self, view: &SeatView<'_>) -> i64 {
        view.typed()
            .downcast::<GoofspielView>()
            .ok()
            .and_then(|v| v.hands.get(view.seat().index()).map(Vec::len))
            .map_or(1, |n| i64::try_from(n).unwrap_or(1))
    }
}

#[cfg(test)]
mod tests {
    use arbiter_plugin::{DecisionContext, Format, Opening};
    use arbiter_rules::{Ctx, Seat};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    use serde_json::json;

    use super::*;

    #[test]
    fn bids_are_written_as_bids_and_anything_else_as_it_is() {
        let cases = [
            (json!({"round": 2, "card": 7}), "bid 7"),
            (json!({"say": "hi"}), r#"{"say":"hi"}"#),
        ];
        for (action, written) in cases {
            assert_eq!(FAMILY.codec.notation(&action), written);
        }
    }

    fn leg(variant: &str, seats: usize) -> Result<Vec<Value>, SetupError> {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        FAMILY.setup.leg_configs(
            &LegRequest {
                variant,
                seats,
                legs: Format::Paired.legs(seats),
                opening: Opening::Random,
            },
            &mut rng,
        )
    }

    #[test]
    fn legs_follow_the_variant_and_the_seats() {
        let configs = leg("short", 3).expect("three players");
        assert_eq!(configs.len(), 3, "one leg per seat when paired");
        assert_eq!(
            configs[0],
            json!({"players": 3, "cards": 5, "bid_ms": 10_000})
        );
        assert!(matches!(leg("short", 5), Err(SetupError::Unsupported(_))));
        assert!(matches!(leg("long", 2), Err(SetupError::UnknownVariant(_))));
    }

    #[test]
    fn house_bids_are_legal_and_requests_show_only_the_seat_s_view() {
        let configs = leg("short", 2).expect("two players");
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut state, _) = FAMILY
            .rules
            .start(&configs[0], &mut Ctx::new(0, &mut rng))
            .expect("start");
        // Seat 0 bids its highest card; seat 1's request must not tell which.
        state
            .apply(
                Seat(0),
                &json!({"round": 1, "card": 5}),
                &mut Ctx::new(1, &mut rng),
            )
            .expect("a legal bid");
        let view = SeatView::new(state.as_ref(), Seat(1));
        for level in HouseLevel::ALL {
            let bid = House.choose(&view, level, Instant::now(), &mut rng);
            assert!(view.legal_actions().contains(&bid), "{level:?}: {bid}");
        }
        assert_eq!(House.decisions_left(&view), 5);
        let request: Value = serde_json::from_str(&FAMILY.decisions.request(
            &view,
            &DecisionContext {
                variant: "short",
                participants_by_seat: &[0, 1],
                clocks_ms: &[1_000, 1_000],
                phase: Some(1),
                ..DecisionContext::default()
            },
        ))
        .expect("JSON");
        assert_eq!(request["game"], "goofspiel");
        assert_eq!(request["seats"], 2);
        assert_eq!(request["seat"], 1);
        assert_eq!(request["legal_actions"].as_array().map(Vec::len), Some(5));
        assert_eq!(request["view"]["own_bid"], Value::Null);
        assert_eq!(request["view"]["committed"], json!([true, false]));
        assert!(
            !request.to_string().contains("secrets"),
            "the hidden deck and bids stay hidden"
        );
    }
}
