//! Bots submitted as WebAssembly modules, one kind of hosted bot (see `hosted`): the server
//! runs each one's module in the sandbox, one instance per leg of a match, and plays the
//! actions it answers.
//!
//! An uploaded module is checked and compiled at once, then validated: it plays a paired,
//! unrated match against the weakest house bot, and becomes ready if none of its decisions
//! failed and it lost no leg on time; otherwise it is rejected with the reason, and plays
//! nothing more until a new module is uploaded. Only a ready module accepts challenges, is
//! auto-matched and plays in tournaments; for every kind of match it is driven the same way.
//!
//! A module whose decision fails (out of fuel, past its deadline or memory, a trap, an
//! exit) is finished for the rest of its leg, so its clock decides, as for any bot that stops
//! answering.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_arena::{
    Arena, Bot, ChallengeRequest, Decision, Format, MatchSummary, ModuleStatus, Sandboxed,
};
use arbiter_sandbox::{DecideError, Instance, Limits, ModuleError, Program, Sandbox, SetupError};
use futures::future::BoxFuture;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::hosted::{self, Player, Policy};

/// The house bot a module's validation match is played against.
const VALIDATION_OPPONENT: &str = "house-random";
/// What a module keeps back of its clock for the server's own work, in milliseconds.
const MARGIN_MS: u64 = 100;

/// What the server needs to run submitted modules: the sandbox, and the modules it has
/// compiled, by SHA-256.
pub struct Sandboxes {
    sandbox: Sandbox,
    programs: Mutex<HashMap<String, Program>>,
    /// Each bot's last failed decision, for its owner (kept in memory only).
    failures: Mutex<HashMap<i64, String>>,
}

impl std::fmt::Debug for Sandboxes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandboxes")
            .field("sandbox", &self.sandbox)
            .finish_non_exhaustive()
    }
}

impl Sandboxes {
    /// A sandbox with `limits`.
    pub fn new(limits: Limits) -> Result<Sandboxes, SetupError> {
        Ok(Sandboxes {
            sandbox: Sandbox::new(limits)?,
            programs: Mutex::default(),
            failures: Mutex::default(),
        })
    }

    /// The sandbox's limits.
    pub fn limits(&self) -> &Limits {
        self.sandbox.limits()
    }

    /// Why the bot's module last failed to answer, since it was uploaded (on this server).
    pub(crate) fn last_failure(&self, bot: i64) -> Option<String> {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&bot)
            .cloned()
    }

    /// Forgets a bot's failures, when it gets a new module.
    pub(crate) fn forget_failures(&self, bot: i64) {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&bot);
    }

    /// Checks and compiles an uploaded module, keeping it for the bot's matches.
    pub(crate) async fn check(&self, wasm: Vec<u8>) -> Result<Program, ModuleError> {
        let program = self.sandbox.load(wasm).await?;
        self.programs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(program.sha256(), program.clone());
        Ok(program)
    }

    /// The compiled module of `bot`, compiled now from the store if this server has not yet.
    async fn program(&self, arena: &Arena, bot: &Bot, sha256: &str) -> Option<Program> {
        if let Some(program) = self
            .programs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(sha256)
        {
            return Some(program.clone());
        }
        let wasm = match arena.module(bot.id).await {
            Ok(Some(wasm)) => wasm,
            Ok(None) => return None,
            Err(error) => {
                tracing::warn!(bot = bot.id, %error, "cannot read a bot's module");
                return None;
            }
        };
        match self.check(wasm).await {
            Ok(program) if program.sha256() == sha256 => Some(program),
            Ok(_) => None,
            Err(error) => {
                let status = ModuleStatus::Rejected {
                    reason: error.to_string(),
                };
                let _ = arena.set_module_status(bot.id, sha256, status).await;
                None
            }
        }
    }
}

/// Submitted modules as one kind of hosted bot.
pub(crate) struct SandboxedKind(pub(crate) Arc<Sandboxes>);

impl hosted::Kind for SandboxedKind {
    fn duty(&self) -> &'static str {
        "sandboxed-bots"
    }

    fn version(&self, bot: &Bot) -> Option<String> {
        let sandboxed = bot.profile.sandboxed.as_ref()?;
        match sandboxed.status {
            ModuleStatus::Validating => Some(format!("{}:validating", sandboxed.sha256)),
            ModuleStatus::Ready => Some(format!("{}:ready", sandboxed.sha256)),
            ModuleStatus::Rejected { .. } => None,
        }
    }

    fn player(
        self: Arc<Self>,
        arena: Arena,
        bot: Bot,
    ) -> BoxFuture<'static, Option<Arc<dyn Player>>> {
        Box::pin(async move {
            let settings = bot.profile.sandboxed.clone()?;
            let program = self.0.program(&arena, &bot, &settings.sha256).await?;
            let player = Arc::new(SandboxedPlayer {
                arena: arena.clone(),
                sandboxes: self.0.clone(),
                program,
                settings: settings.clone(),
                instances: Mutex::default(),
                validation: Mutex::default(),
            });
            if settings.status == ModuleStatus::Validating {
                player.validate(&bot).await;
            }
            let player: Arc<dyn Player> = player;
            Some(player)
        })
    }
}

/// One leg's instance, started at the leg's first decision.
type Slot = Arc<tokio::sync::Mutex<Option<Instance>>>;

/// Plays for one submitted bot by running its module.
struct SandboxedPlayer {
    arena: Arena,
    sandboxes: Arc<Sandboxes>,
    program: Program,
    /// The settings it was started with.
    settings: Sandboxed,
    instances: Mutex<HashMap<(i64, usize), Slot>>,
    /// The validation match, and the first failure seen in it.
    validation: Mutex<Option<(i64, Option<String>)>>,
}

impl SandboxedPlayer {
    /// Starts the module's validation match against the house bot, in the default game.
    async fn validate(&self, bot: &Bot) {
        let Some(mode) = self.arena.games().default_mode() else {
            return;
        };
        let request = ChallengeRequest {
            opponent: VALIDATION_OPPONENT.to_owned(),
            game: mode.game.to_owned(),
            variant: Some(mode.variant.to_owned()),
            format: Format::Paired,
            time_control: Default::default(),
            rated: false,
            auto: false,
            opening: Default::default(),
            client_seed: None,
        };
        match self.arena.challenge(bot, request).await {
            Ok(created) => {
                tracing::info!(bot = bot.id, match_id = created.id, "validating a module");
                *self.validation.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some((created.id, None));
            }
            Err(error) => {
                let status = ModuleStatus::Rejected {
                    reason: format!("its validation match could not be started: {error}"),
                };
                let _ = self
                    .arena
                    .set_module_status(bot.id, &self.settings.sha256, status)
                    .await;
            }
        }
    }

    /// Notes a failed decision, which fails a validation match.
    fn failed(&self, bot: &Bot, match_id: i64, why: String) {
        tracing::info!(
            bot = bot.id,
            match_id,
            "a module's decision failed ({why}); its clock runs on"
        );
        self.sandboxes
            .failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(bot.id, format!("match {match_id}: {why}"));
        let mut validation = self.validation.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((id, failure @ None)) = validation.as_mut()
            && *id == match_id
        {
            *failure = Some(why);
        }
    }

    /// The slot of a leg's instance.
    fn slot(&self, match_id: i64, leg: usize) -> Slot {
        self.instances
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((match_id, leg))
            .or_default()
            .clone()
    }

    async fn answer(&self, bot: &Bot, decision: &Decision) -> Result<(), String> {
        let slot = self.slot(decision.match_id, decision.leg);
        // One decision at a time per leg: a module reads its requests in order.
        let mut instance = slot.lock().await;
        if instance.is_none() {
            let seed = seed(bot.id, decision.match_id, decision.leg);
            let started = self.sandboxes.sandbox.start(&self.program, seed).await;
            *instance = Some(started.map_err(|e| e.to_string())?);
        }
        let Some(instance) = instance.as_ref() else {
            return Err(DecideError::Stopped.to_string());
        };
        let (line, wall) = request_line(&decision.request, self.sandboxes.limits());
        let answer = instance
            .decide(&line, wall)
            .await
            .map_err(|e| e.to_string())?;
        hosted::play(&self.arena, bot, decision, answer.as_bytes()).await
    }
}

impl Player for SandboxedPlayer {
    fn policy(&self, bot: &Bot) -> Option<Policy> {
        let sandboxed = bot.profile.sandboxed.as_ref()?;
        (sandboxed.sha256 == self.settings.sha256).then_some(Policy {
            accept_challenges: sandboxed.accept_challenges
                && sandboxed.status == ModuleStatus::Ready,
            min_initial_ms: sandboxed.min_initial_ms,
        })
    }

    fn decide(self: Arc<Self>, bot: Bot, decision: Arc<Decision>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            if let Err(why) = self.answer(&bot, &decision).await {
                self.failed(&bot, decision.match_id, why);
            }
        })
    }

    fn finished(self: Arc<Self>, bot: Bot, summary: Arc<MatchSummary>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            // Dropping a leg's instance closes its input, which ends the module.
            self.instances
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(id, _), _| *id != summary.id);
            let validated = {
                let mut validation = self.validation.lock().unwrap_or_else(|e| e.into_inner());
                match validation.take() {
                    Some((id, failure)) if id == summary.id => Some(failure),
                    other => {
                        *validation = other;
                        None
                    }
                }
            };
            let Some(failure) = validated else {
                return;
            };
            let reason = summary.result.as_ref().map(|r| r.reason.as_str());
            let status = match (failure, reason) {
                (Some(why), _) => ModuleStatus::Rejected {
                    reason: format!("a decision of its validation match failed: {why}"),
                },
                (None, Some(reason)) if reason.contains("timeout") => ModuleStatus::Rejected {
                    reason: "it lost its validation match on time".to_owned(),
                },
                (None, _) => ModuleStatus::Ready,
            };
            tracing::info!(
                bot = bot.id,
                match_id = summary.id,
                ?status,
                "a module's validation ended"
            );
            if let Err(error) = self
                .arena
                .set_module_status(bot.id, &self.settings.sha256, status)
                .await
            {
                tracing::warn!(bot = bot.id, %error, "cannot record a module's validation");
            }
        })
    }
}

/// The randomness of one leg's instance: fixed by the bot, the match and the leg, so that a
/// replayed leg draws the same.
fn seed(bot: i64, match_id: i64, leg: usize) -> [u8; 32] {
    Sha256::digest(format!("arbiter-sandbox-seed:{bot}:{match_id}:{leg}")).into()
}

/// The request line a module reads, with the time it has to answer (`budget_ms`, as the
/// connector sets it: the clock less a margin, at most the sandbox's longest decision), and
/// that time.
fn request_line(request: &str, limits: &Limits) -> (String, Duration) {
    let longest = u64::try_from(limits.max_decision.as_millis()).unwrap_or(u64::MAX);
    let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(request) else {
        return (request.to_owned(), limits.max_decision);
    };
    let budget = match fields.get("remaining_ms").and_then(Value::as_u64) {
        Some(remaining) if remaining > 2 * MARGIN_MS => remaining - MARGIN_MS,
        Some(remaining) => remaining / 2,
        None => longest,
    }
    .clamp(1, longest);
    fields.insert("budget_ms".to_owned(), Value::from(budget));
    (
        Value::Object(fields).to_string(),
        Duration::from_millis(budget),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_the_clock_less_a_margin_but_never_past_the_longest_decision() {
        let limits = Limits {
            max_decision: Duration::from_secs(10),
            ..Limits::default()
        };
        let cases = [
            (r#"{"remaining_ms":60000}"#, 10_000),
            (r#"{"remaining_ms":5000}"#, 4_900),
            (r#"{"remaining_ms":150}"#, 75),
            (r#"{"remaining_ms":0}"#, 1),
            (r#"{"game":"any"}"#, 10_000),
        ];
        for (request, budget) in cases {
            let (line, wall) = request_line(request, &limits);
            assert_eq!(wall, Duration::from_millis(budget), "{request}");
            let sent: Value = serde_json::from_str(&line).expect("json");
            assert_eq!(sent["budget_ms"], budget, "{request}");
        }
    }
}
