//! Fate Tokens as the arena runs it: the [`FAMILY`] the binary registers.
//!
//! Actions are spelled as the rules serialize them (`{"type": "vote", "phase": 12, "yes":
//! false}`), decisions use the generic engine protocol, the clock is charged per phase (every
//! phase has the rules' own deadline), and pages show the public view generically. Its house
//! player decides from its own seat's view only.

use std::time::Instant;

use arbiter_plugin::{
    ActionCodec, ClockPolicy, CodecError, Family, Format, GenericDecisions, HouseLevel,
    HousePlayer, JsonCodec, LegRequest, MatchSetup, SeatView, SetupError, VariantSpec,
};
use arbiter_rules::random::below;
use arbiter_rules::{DynState, Erased, Random};
use serde_json::Value;

use crate::config::{Durations, FateConfig};
use crate::rules::{FateAction, FateTokens};
use crate::setup::{MAX_PLAYERS, MIN_PLAYERS};
use crate::view::FateView;

/// The rules, type-erased, for families built on them (a test's smaller setup).
pub static RULES: Erased<FateTokens> = Erased::new();

/// Fate Tokens, as the arena runs it.
pub static FAMILY: Family = Family {
    rules: &RULES,
    setup: &Setup,
    codec: &Codec,
    decisions: &GenericDecisions,
    clock: ClockPolicy::PerPhase,
    house: Some(&House),
    board: Some(&crate::board::Board),
    points: None,
    line: None,
    talk: Some(&crate::talk::Talk),
    record: None,
};

/// The variants: the rulebook's game, and the same game on short durations for bots.
const VARIANTS: &[VariantSpec] = &[
    VariantSpec {
        name: "standard",
        min_seats: MIN_PLAYERS,
        max_seats: MAX_PLAYERS,
        summary: "The rulebook's durations: a 7-minute discussion, 30 s to 60 s a decision.",
    },
    VariantSpec {
        name: "quick",
        min_seats: MIN_PLAYERS,
        max_seats: MAX_PLAYERS,
        summary: "Short durations for bots: 10 s a decision, 20 s discussions and trials.",
    },
];

/// The `quick` variant's durations: every decision in 10 s, discussions and trials in 20 s,
/// and locks of about a second, so that bots play a whole game in a few minutes. The
/// claim/counter phase keeps rule 15.5's shape: its deadline is the random wait's upper
/// bound, its minimum the lower bound.
fn quick_durations() -> Durations {
    Durations {
        draw_ms: 10_000,
        discussion_ms: 20_000,
        accusation_ms: 10_000,
        night_ms: 10_000,
        trial_ms: 20_000,
        vote_ms: 10_000,
        counter_deadline_ms: 5_000,
        counter_min_ms: 2_000,
        ending_ms: 5_000,
        draw_lock_ms: 1_000,
        night_lock_ms: 1_000,
        night_lock_item_ms: 1_000,
        night_lock_max_ms: 5_000,
        vote_lock_ms: 1_000,
        exile_lock_ms: 1_000,
    }
}

struct Setup;

impl MatchSetup for Setup {
    fn variants(&self) -> &'static [VariantSpec] {
        VARIANTS
    }

    /// One game a match (see `leg_configs`).
    fn default_format(&self) -> Format {
        Format::Single
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        _rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError> {
        let durations = match request.variant {
            "standard" => Durations::default(),
            "quick" => quick_durations(),
            other => {
                return Err(SetupError::UnknownVariant(format!(
                    "fate-tokens has no variant {other:?}"
                )));
            }
        };
        let players = u8::try_from(request.seats)
            .ok()
            .filter(|p| (MIN_PLAYERS..=MAX_PLAYERS).contains(p))
            .ok_or_else(|| {
                SetupError::Unsupported(format!(
                    "fate-tokens is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {}",
                    request.seats
                ))
            })?;
        // Paired legs replay one start with the seats rotated; in a hidden-role game the
        // second leg would be played by players who learnt every role at the end of the
        // first, so a match is one game.
        if request.legs != 1 {
            return Err(SetupError::Unsupported(
                "fate-tokens is a hidden-role game: a match is a single game, not paired legs"
                    .to_owned(),
            ));
        }
        // Roles, bags and awakening rounds are dealt by the rules when the leg starts, from
        // the match's fair random source, so the configuration itself holds nothing random.
        let config = FateConfig { players, durations };
        let value =
            serde_json::to_value(&config).map_err(|e| SetupError::Unsupported(e.to_string()))?;
        Ok(vec![value])
    }
}

/// Actions are sent as the rules spell them; logs and pages write them short. A notation
/// never carries a secret, whoever reads it later: chat is written `chat` (the Ghosts channel
/// is private) and a night form `night` (forms stay secret even once the game is over, in the
/// notation at least).
pub(crate) struct Codec;

impl ActionCodec for Codec {
    fn parse(&self, state: &dyn DynState, submitted: &Value) -> Result<Value, CodecError> {
        JsonCodec.parse(state, submitted)
    }

    fn notation(&self, action: &Value) -> String {
        let Ok(action) = serde_json::from_value::<FateAction>(action.clone()) else {
            return action.to_string();
        };
        match action {
            FateAction::Reveal { index, .. } => format!("reveal {index}"),
            FateAction::Ready { .. } => "ready".to_owned(),
            FateAction::Accuse {
                target: Some(target),
                ..
            } => format!("accuse {}", target.0),
            FateAction::Accuse { target: None, .. } => "pass".to_owned(),
            FateAction::Night { .. } => "night".to_owned(),
            FateAction::Vote { yes: true, .. } => "vote yes".to_owned(),
            FateAction::Vote { yes: false, .. } => "vote no".to_owned(),
            FateAction::Counter {
                name: Some(name), ..
            } => format!("counter {}", name.0),
            FateAction::Counter { name: None, .. } => "decline".to_owned(),
            FateAction::Claim { pair, bad } => format!("claim {},{}:{bad}", pair[0].0, pair[1].0),
            FateAction::Chat { .. } => "chat".to_owned(),
        }
    }
}

/// The house player: the rule bots of [`crate::bots`] at every level but `random`, which
/// plays a uniformly random legal action; either way from its own seat's view alone.
struct House;

/// The house player's decision from the seat's view, `None` to leave it to a random legal
/// action.
fn house_decision(view: &FateView, level: HouseLevel, rng: &mut dyn Random) -> Option<FateAction> {
    match level {
        HouseLevel::Random => None,
        _ => crate::bots::decide(view, rng),
    }
}

/// The claims the house player makes along with its decision: the rule bots' (rule 17).
fn house_claims(view: &FateView, level: HouseLevel, rng: &mut dyn Random) -> Vec<FateAction> {
    match level {
        HouseLevel::Random => Vec::new(),
        _ => crate::bots::claims(view, rng),
    }
}

/// A uniformly random action of `legal`, or `Value::Null` when there is none.
fn random_action(legal: &[Value], rng: &mut dyn Random) -> Value {
    let Some(count) = u32::try_from(legal.len()).ok().filter(|&n| n > 0) else {
        return Value::Null;
    };
    let index = usize::try_from(below(rng, count)).unwrap_or(0);
    legal.get(index).cloned().unwrap_or(Value::Null)
}

impl HousePlayer for House {
    fn choose(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        _deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value {
        let decided = view
            .typed()
            .downcast::<FateView>()
            .ok()
            .and_then(|fate| house_decision(&fate, level, rng))
            .and_then(|action| serde_json::to_value(action).ok());
        decided.unwrap_or_else(|| random_action(&view.legal_actions(), rng))
    }

    /// About six decisions a round from round 3 (draw, discussion, accusation, night, trial,
    /// vote), three before (draw, discussion, night), for every round to the cap.
    fn decisions_left(&self, view: &SeatView<'_>) -> i64 {
        let Ok(fate) = view.typed().downcast::<FateView>() else {
            return 1;
        };
        let rounds = fate.round..=fate.setup.round_cap;
        let left: u32 = rounds.map(|round| if round >= 3 { 6 } else { 3 }).sum();
        i64::from(left.max(1))
    }

    fn free_actions(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        rng: &mut dyn Random,
    ) -> Vec<Value> {
        let Ok(fate) = view.typed().downcast::<FateView>() else {
            return Vec::new();
        };
        house_claims(&fate, level, rng)
            .into_iter()
            .filter_map(|claim| serde_json::to_value(claim).ok())
            .collect()
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

    fn legs(variant: &str, seats: usize, format: Format) -> Result<Vec<Value>, SetupError> {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        FAMILY.setup.leg_configs(
            &LegRequest {
                variant,
                seats,
                legs: format.legs(seats),
                opening: Opening::Random,
            },
            &mut rng,
        )
    }

    #[test]
    fn both_variants_seat_four_to_eight_in_one_game() {
        let names: Vec<&str> = FAMILY.setup.variants().iter().map(|v| v.name).collect();
        assert_eq!(names, ["standard", "quick"]);
        for variant in FAMILY.setup.variants() {
            for seats in 0..=10 {
                assert_eq!(
                    variant.seats_allowed(seats),
                    (4..=8).contains(&seats),
                    "{} {seats}",
                    variant.name
                );
                let configs = legs(variant.name, seats, Format::Single);
                if !(4..=8).contains(&seats) {
                    assert!(
                        matches!(configs, Err(SetupError::Unsupported(_))),
                        "{seats}"
                    );
                    continue;
                }
                let configs = configs.expect("a game");
                assert_eq!(configs.len(), 1);
                let config: FateConfig =
                    serde_json::from_value(configs[0].clone()).expect("a configuration");
                assert_eq!(usize::from(config.players), seats);
                // The rules accept it as it is.
                assert_eq!(FAMILY.rules.seat_count(&configs[0]).ok(), Some(seats));
            }
        }
        assert!(matches!(
            legs("long", 6, Format::Single),
            Err(SetupError::UnknownVariant(_))
        ));
    }

    #[test]
    fn standard_keeps_the_rulebook_s_durations_and_quick_shortens_them() {
        let config = |variant| -> FateConfig {
            let configs = legs(variant, 6, Format::Single).expect("a game");
            serde_json::from_value(configs[0].clone()).expect("a configuration")
        };
        assert_eq!(config("standard").durations, Durations::default());
        let quick = config("quick").durations;
        assert_eq!(quick.problem(), None);
        assert_eq!(
            (quick.draw_ms, quick.discussion_ms, quick.trial_ms),
            (10_000, 20_000, 20_000)
        );
        assert!(quick.counter_min_ms <= quick.counter_deadline_ms);
        assert!(quick.discussion_ms < Durations::default().discussion_ms);
    }

    #[test]
    fn paired_matches_are_refused_with_a_reason() {
        let refused = legs("quick", 6, Format::Paired);
        assert!(
            matches!(&refused, Err(SetupError::Unsupported(why)) if why.contains("single game")),
            "{refused:?}"
        );
    }

    #[test]
    fn notation_is_short_and_never_tells_a_secret() {
        let cases = [
            (
                json!({"type": "reveal", "phase": 1, "index": 1}),
                "reveal 1",
            ),
            (json!({"type": "ready", "phase": 2}), "ready"),
            (
                json!({"type": "accuse", "phase": 9, "target": 3}),
                "accuse 3",
            ),
            (
                json!({"type": "accuse", "phase": 9, "target": null}),
                "pass",
            ),
            (
                json!({"type": "night", "phase": 4, "form": {"mark": 2, "fate": {"kind": "peek", "target": 5}}}),
                "night",
            ),
            (
                json!({"type": "vote", "phase": 12, "yes": true}),
                "vote yes",
            ),
            (
                json!({"type": "vote", "phase": 12, "yes": false}),
                "vote no",
            ),
            (
                json!({"type": "counter", "phase": 13, "name": 4}),
                "counter 4",
            ),
            (
                json!({"type": "counter", "phase": 13, "name": null}),
                "decline",
            ),
            (
                json!({"type": "claim", "pair": [2, 4], "bad": 1}),
                "claim 2,4:1",
            ),
            (
                json!({"type": "chat", "channel": "ghosts", "text": "seat 2 is the Great Fortune"}),
                "chat",
            ),
            (json!({"say": "hi"}), r#"{"say":"hi"}"#),
        ];
        for (action, written) in cases {
            assert_eq!(FAMILY.codec.notation(&action), written, "{action}");
        }
        let (state, _) = started(6);
        assert!(FAMILY.codec.parse(state.as_ref(), &Value::Null).is_err());
    }

    /// A `quick` game of `players` just started, with the random source that started it.
    fn started(players: usize) -> (Box<dyn DynState>, ChaCha8Rng) {
        let configs = legs("quick", players, Format::Single).expect("a game");
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (state, _) = FAMILY
            .rules
            .start(&configs[0], &mut Ctx::new(0, &mut rng))
            .expect("start");
        (state, rng)
    }

    #[test]
    fn house_decisions_are_legal_and_requests_show_only_the_seat_s_view() {
        let (state, mut rng) = started(6);
        for seat in 0..6 {
            let view = SeatView::new(state.as_ref(), Seat(seat));
            for level in HouseLevel::ALL {
                let action = House.choose(&view, level, Instant::now(), &mut rng);
                assert!(
                    view.legal_actions().contains(&action),
                    "{level:?}: {action}"
                );
                assert!(House.free_actions(&view, level, &mut rng).is_empty());
            }
            // Round 1 of 7: three decisions in rounds 1 and 2, six in rounds 3 to 7.
            assert_eq!(House.decisions_left(&view), 3 + 3 + 5 * 6);
        }
        let view = SeatView::new(state.as_ref(), Seat(2));
        let request: Value = serde_json::from_str(&FAMILY.decisions.request(
            &view,
            &DecisionContext {
                variant: "quick",
                participants_by_seat: &[0, 1, 2, 3, 4, 5],
                clocks_ms: &[60_000; 6],
                phase: Some(1),
                ..DecisionContext::default()
            },
        ))
        .expect("JSON");
        assert_eq!(request["game"], "fate-tokens");
        assert_eq!(
            (&request["seats"], &request["seat"]),
            (&json!(6), &json!(2))
        );
        assert_eq!(request["view"]["own"]["seat"], 2);
        assert_eq!(request["view"]["revealed"], Value::Null);
        // Nobody has awakened in round 1: not even the seat's own role is known yet.
        assert_eq!(request["view"]["own"]["role"], Value::Null);
        for role in ["common_fortune", "great_fortune", "great_misfortune"] {
            assert!(
                !request.to_string().contains(&format!("\"{role}\"")),
                "{role}"
            );
        }
        assert_eq!(
            request["legal_actions"],
            json!([{"type": "reveal", "phase": 1, "index": 0},
                   {"type": "reveal", "phase": 1, "index": 1}])
        );
    }
}
