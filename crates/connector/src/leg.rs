//! One leg of one match: its engine, its decisions and the moves sent for them.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::MoveTiming;
use crate::api::{Api, ApiError};
use crate::engine::gomocup::BrainPool;
use crate::engine::uci::UciPool;
use crate::engine::{Action, Decision, LegEngine};

/// Time kept off the clock for the trip to the server: a budget never reaches past the
/// remaining clock less this.
pub(crate) const CLOCK_MARGIN_MS: u64 = 750;
/// The longest pause between two engine attempts at one decision: a failing engine is tried
/// again (restarted) while the clock allows, but not in a tight loop.
const RETRY_PAUSE_MAX: Duration = Duration::from_secs(1);
/// Sends of one move when the server cannot be reached (re-sending is idempotent).
const POST_ATTEMPTS: u32 = 6;

/// A decision to make, in Othello or any other game: every game's turns flow through the same
/// leg task, which differs only in the request handed to the engine and the action sent back.
#[derive(Clone, Debug)]
pub(crate) struct Turn {
    pub(crate) match_id: i64,
    pub(crate) leg: u8,
    pub(crate) revision: u64,
    pub(crate) request: Decision,
    /// When it reached the connector (the request's clock was read then).
    pub(crate) received: Instant,
}

impl Turn {
    /// A `turn` line of the stream, or an entry of the turns endpoint.
    pub(crate) fn from_json(value: &Value) -> Option<Turn> {
        Some(Turn {
            match_id: value["match_id"].as_i64()?,
            leg: u8::try_from(value["leg"].as_u64()?).ok()?,
            revision: value["revision"].as_u64()?,
            request: Decision::from_json(&value["request"])?,
            received: Instant::now(),
        })
    }

    /// Which of the match's leg tasks plays this decision. Othello's turns alternate, so one
    /// task per leg plays them all, both colours of a self-play match included, as it always
    /// has. In a simultaneous phase of another game several seats decide at the same revision,
    /// and a bot may hold more than one of them (self-play): each participant's decisions get
    /// a task, and an engine, of their own, so that one seat's decision never replaces
    /// another's.
    pub(crate) fn task(&self) -> (u8, Option<u64>) {
        let participant = match &self.request {
            Decision::Othello(_) => None,
            Decision::Generic(request) => request.participant(),
        };
        (self.leg, participant)
    }
}

/// What every leg shares.
#[derive(Clone)]
pub(crate) struct LegContext {
    pub(crate) api: Api,
    pub(crate) engine: crate::EngineSpec,
    pub(crate) max_think: Option<Duration>,
    pub(crate) timings: Option<mpsc::UnboundedSender<MoveTiming>>,
    /// Fired when the server no longer accepts the token.
    pub(crate) revoked: CancellationToken,
    /// Gomocup brains whose leg ended, kept for the next legs.
    pub(crate) brains: BrainPool,
    /// UCI engines idle between legs (the start-up probe's, or those of ended legs).
    pub(crate) uci: UciPool,
}

/// The budget for a decision: the per-move cap, but never past the clock less the margin.
/// With less than the margin left the leg is all but lost; the engine gets half of what is left
/// rather than nothing.
pub(crate) fn budget(remaining_ms: u64, max_think: Option<Duration>) -> Duration {
    let left = match remaining_ms.saturating_sub(CLOCK_MARGIN_MS) {
        0 => remaining_ms / 2,
        left => left,
    };
    let left = Duration::from_millis(left);
    max_think.map_or(left, |cap| cap.min(left))
}

/// Plays the leg's latest decision whenever it changes, until the sender is gone or `stop`
/// fires; its engine process is stopped on the way out. Only the latest decision matters: one
/// that arrives while an earlier one is being played replaces it, since the position has moved
/// on (a re-sent copy of the decision being played changes nothing).
pub(crate) async fn run(
    context: LegContext,
    mut turns: watch::Receiver<Option<Turn>>,
    stop: CancellationToken,
) {
    let mut leg = Leg {
        engine: LegEngine::new(&context.engine, &context.brains, &context.uci),
        context,
        refused: HashSet::new(),
        done: None,
        failures: Failures::default(),
    };
    loop {
        let latest = turns.borrow_and_update().clone();
        if let Some(turn) = latest.filter(|t| leg.done.is_none_or(|done| t.revision > done)) {
            let (id, number, revision) = (turn.match_id, turn.leg, turn.revision);
            let outcome = tokio::select! {
                () = stop.cancelled() => None,
                outcome = leg.play(turn, &mut turns) => Some(outcome),
            };
            let outcome = outcome.unwrap_or(Outcome::Stopped);
            std::mem::take(&mut leg.failures).report(id, number, revision, outcome);
            if outcome == Outcome::Stopped {
                break;
            }
            if outcome.settled() {
                leg.done = Some(revision);
            } else {
                // Tried again only when the server sends the decision again.
                tokio::select! {
                    () = stop.cancelled() => break,
                    changed = turns.changed() => if changed.is_err() { break },
                }
            }
            continue;
        }
        tokio::select! {
            () = stop.cancelled() => break,
            changed = turns.changed() => if changed.is_err() { break },
        }
    }
    leg.engine.stop().await;
}

/// Completes once a decision later than `revision` arrives (or the match is gone).
async fn superseded(turns: &mut watch::Receiver<Option<Turn>>, revision: u64) {
    loop {
        if turns.changed().await.is_err() {
            return;
        }
        if turns
            .borrow()
            .as_ref()
            .is_some_and(|t| t.revision > revision)
        {
            return;
        }
    }
}

struct Leg {
    context: LegContext,
    engine: LegEngine,
    /// Moves refused as illegal, by revision and the move's JSON: never sent twice.
    refused: HashSet<(u64, String)>,
    /// The last revision handled.
    done: Option<u64>,
    /// The failed attempts at the decision being played.
    failures: Failures,
}

/// How the connector's attempts at one decision ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// A move was sent, or none is owed any more since the token was revoked (the connector
    /// then stops).
    Sent,
    /// The clock ran out before the engine gave a usable move; nothing was sent.
    ClockRanOut,
    /// A move was chosen but the server could not be reached to take it.
    NotSent,
    /// A later decision replaced this one.
    MovedOn,
    /// The engine cannot play this game at all; nothing was sent.
    Unplayable,
    /// The match ended or the connector stopped while the engine was at work.
    Stopped,
}

impl Outcome {
    /// Whether the decision is owed no more; one that is still owed is tried again if the
    /// server sends it again, as it does after a reconnection.
    fn settled(self) -> bool {
        !matches!(self, Outcome::ClockRanOut | Outcome::NotSent)
    }

    /// How the one line about a decision's failures ends.
    fn describe(self) -> &'static str {
        match self {
            Outcome::Sent => "then a move was sent",
            Outcome::ClockRanOut => "then the clock ran out and no move was sent",
            Outcome::NotSent => "then the move could not be sent",
            Outcome::MovedOn => "then the position moved on",
            Outcome::Unplayable => "no move was sent",
            Outcome::Stopped => "then the match ended or the connector stopped",
        }
    }
}

/// The failed attempts at one decision. A failing engine is tried again and again while the
/// clock allows (a missing engine fails about twice a second), so failures are gathered and
/// printed on one line once the decision is over, each distinct reason once with its count.
#[derive(Default)]
struct Failures {
    /// Each distinct reason, in the order first seen, and how often it happened.
    reasons: Vec<(String, u32)>,
    attempts: u32,
}

impl Failures {
    fn add(&mut self, id: i64, leg: u8, why: String) {
        self.attempts += 1;
        tracing::debug!(
            "match {id} leg {leg}: attempt {} failed: {why}",
            self.attempts
        );
        match self.reasons.iter_mut().find(|(reason, _)| *reason == why) {
            Some((_, count)) => *count += 1,
            None => self.reasons.push((why, 1)),
        }
    }

    /// Prints the one line about this decision's failures, if it had any.
    fn report(self, id: i64, leg: u8, revision: u64, outcome: Outcome) {
        if let Some(line) = self.line(id, leg, revision, outcome) {
            tracing::warn!("{line}");
        }
    }

    /// The one line about this decision's failures, if it had any.
    fn line(self, id: i64, leg: u8, revision: u64, outcome: Outcome) -> Option<String> {
        if self.attempts == 0 {
            return None;
        }
        let reasons: Vec<String> = self
            .reasons
            .into_iter()
            .map(|(reason, count)| match count {
                1 => reason,
                n => format!("{reason} (×{n})"),
            })
            .collect();
        let attempts = match self.attempts {
            1 => "1 failed attempt".to_owned(),
            n => format!("{n} failed attempts"),
        };
        Some(format!(
            "Engine failed for match {id} (leg {leg}) at revision {revision}: {} [{attempts}, {}]",
            reasons.join(" | "),
            outcome.describe()
        ))
    }
}

impl Leg {
    /// Plays one decision, gathering its failed attempts in `self.failures`.
    async fn play(&mut self, turn: Turn, turns: &mut watch::Receiver<Option<Turn>>) -> Outcome {
        let (id, leg, revision) = (turn.match_id, turn.leg, turn.revision);
        let max_think = self.context.max_think;
        let mut pause = Duration::ZERO;
        loop {
            let engine = &mut self.engine;
            let retry = !pause.is_zero();
            let thinking = async {
                tokio::time::sleep(pause).await;
                let spent = u64::try_from(turn.received.elapsed().as_millis()).unwrap_or(u64::MAX);
                let remaining = turn.request.remaining_ms().saturating_sub(spent);
                if retry && remaining <= CLOCK_MARGIN_MS {
                    return None;
                }
                let budget = budget(remaining, max_think);
                let budget_ms = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX);
                let request = turn.request.with_clock(remaining, budget_ms);
                Some(engine.decide(&request, Some(budget)).await)
            };
            // A later decision for this leg means the position moved on (a flag fell, the
            // opponent resigned): this one is dropped, even mid-thought.
            let outcome = tokio::select! {
                outcome = thinking => Some(outcome),
                () = superseded(turns, revision) => None,
            };
            pause = (pause * 2).clamp(Duration::from_millis(100), RETRY_PAUSE_MAX);
            let result = match outcome {
                Some(Some(done)) => done,
                Some(None) => return Outcome::ClockRanOut,
                None => {
                    // The engine may be half-way through an answer: it starts afresh.
                    self.engine.restart().await;
                    return Outcome::MovedOn;
                }
            };
            let answered = match result {
                Ok(answered) => answered,
                Err(failure) => {
                    self.failures.add(id, leg, failure.to_string());
                    self.engine.restart().await;
                    if failure.is_permanent() {
                        return Outcome::Unplayable;
                    }
                    continue;
                }
            };
            if let Some(note) = &answered.substitute {
                self.failures.add(id, leg, note.clone());
                self.engine.restart().await;
            }
            let action = answered.action;
            let name = action.name();
            let key = (revision, action.wire().to_string());
            if self.refused.contains(&key) {
                self.failures.add(
                    id,
                    leg,
                    format!(
                        "the engine chose {name} again, which the server refused as illegal; it is not sent twice"
                    ),
                );
                self.engine.restart().await;
                continue;
            }
            if let Some(timings) = &self.context.timings {
                let _ = timings.send(MoveTiming {
                    match_id: id,
                    leg,
                    revision,
                    answered: answered.at,
                    posting: Instant::now(),
                });
            }
            match self.post(id, leg, revision, &action).await {
                Ok(()) => {
                    tracing::debug!("match {id} leg {leg}: played {name} at revision {revision}");
                    return Outcome::Sent;
                }
                Err(ApiError::Refused { code, message, .. }) if code == "illegal_move" => {
                    self.refused.insert(key);
                    self.failures.add(
                        id,
                        leg,
                        format!("the server refused {name} as illegal ({message})"),
                    );
                    self.engine.restart().await;
                }
                Err(error) if error.moved_on() => {
                    // The opponent's flag fell, the match ended, or another connector of this
                    // bot answered first: nothing is owed any more.
                    tracing::debug!("match {id} leg {leg}: move {name} not needed: {error}");
                    return Outcome::MovedOn;
                }
                Err(ApiError::Unauthorized(_)) => {
                    self.context.revoked.cancel();
                    return Outcome::Sent;
                }
                Err(error) => {
                    tracing::warn!("Match {id} leg {leg}: could not send {name}: {error}");
                    return Outcome::NotSent;
                }
            }
        }
    }

    /// Sends a move, again while the server cannot be reached: the server answers an
    /// identical re-send for the same revision with the original reply.
    async fn post(&self, id: i64, leg: u8, revision: u64, action: &Action) -> Result<(), ApiError> {
        let mv = action.wire();
        let mut wait = Duration::from_millis(100);
        let mut attempt = 1;
        loop {
            match self.context.api.play(id, leg, revision, &mv).await {
                Ok(_) => return Ok(()),
                Err(error) if error.is_transient() && attempt < POST_ATTEMPTS => {
                    tracing::warn!(
                        "Connection/state error: sending the move for match {id} leg {leg} failed ({error}); retrying"
                    );
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(2));
                    attempt += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generic turn line, as the stream and the turns endpoint send it.
    #[cfg(unix)]
    fn goofspiel_turn() -> Value {
        serde_json::json!({"type":"turn","match_id":42,"leg":0,"revision":9,"participant":1,
            "request":{"protocol":1,"game":"goofspiel","variant":"standard","match_id":42,"leg":0,
                "seats":2,"seat":1,"participant":1,"phase":3,"revision":9,
                "view":{"round":3,"prize":7},
                "legal_actions":[{"round":3,"card":1},{"round":3,"card":12}],"action_grammar":null,
                "clocks_ms":[30000,29000],"remaining_ms":29000,"budget_ms":10000,"deadline_ms":null}})
    }

    #[cfg(unix)]
    #[test]
    fn turn_lines_are_read_in_the_protocol_of_their_game() {
        let othello: Value = serde_json::from_str(&format!(
            r#"{{"type":"turn","match_id":7,"leg":1,"revision":0,"request":{}}}"#,
            crate::engine::tests::START
        ))
        .expect("JSON");
        let turn = Turn::from_json(&othello).expect("an Othello turn");
        assert!(matches!(turn.request, Decision::Othello(_)));
        assert_eq!((turn.match_id, turn.leg, turn.revision), (7, 1, 0));
        assert_eq!(turn.task(), (1, None), "one task per Othello leg");
        let turn = Turn::from_json(&goofspiel_turn()).expect("a generic turn");
        assert!(matches!(turn.request, Decision::Generic(_)));
        assert_eq!(turn.request.remaining_ms(), 29_000);
        assert_eq!(
            turn.task(),
            (0, Some(1)),
            "one task per participant and leg"
        );
        let mut unreadable = othello.clone();
        unreadable["request"]["board"] = Value::Null;
        assert!(Turn::from_json(&unreadable).is_none());
    }

    /// A generic turn goes through the leg task like an Othello one: the engine is asked with
    /// the budget from the clock, and the action it chose is posted as the move.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_generic_turn_is_played_by_the_leg_and_its_action_posted_as_the_move() {
        use axum::routing::post;
        let (posted, mut moves) = mpsc::unbounded_channel::<Value>();
        let app = axum::Router::new().route(
            "/api/v1/matches/{id}/moves",
            post(move |axum::Json(body): axum::Json<Value>| {
                let posted = posted.clone();
                async move {
                    let _ = posted.send(body);
                    axum::Json(serde_json::json!({"ok": true}))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let address = listener.local_addr().expect("address");
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        let dir = tempfile::tempdir().expect("temp dir");
        let seen = dir.path().join("seen");
        let context = LegContext {
            api: Api::new(&format!("http://{address}"), "token", None).expect("a client"),
            engine: crate::EngineSpec::Json {
                command: format!(
                    r#"read -r line; printf '%s\n' "$line" > {}; echo '{{"action":{{"round":3,"card":12}}}}'"#,
                    seen.display()
                ),
            },
            max_think: Some(Duration::from_secs(10)),
            timings: None,
            revoked: CancellationToken::new(),
            brains: BrainPool::default(),
            uci: UciPool::default(),
        };
        let turn = Turn::from_json(&goofspiel_turn()).expect("a generic turn");
        let (_turns, receiver) = watch::channel(Some(turn));
        let stop = CancellationToken::new();
        let leg = tokio::spawn(run(context, receiver, stop.clone()));
        let body = moves.recv().await.expect("a move was posted");
        assert_eq!(
            body,
            serde_json::json!({"leg":0,"revision":9,"move":{"round":3,"card":12}})
        );
        stop.cancel();
        leg.await.expect("the leg ends");
        server.abort();
        let asked: Value =
            serde_json::from_str(&std::fs::read_to_string(&seen).expect("the engine was asked"))
                .expect("one line of JSON");
        assert_eq!(asked["budget_ms"], 10_000, "the cap, within the clock");
        let remaining = asked["remaining_ms"].as_u64().expect("remaining_ms");
        assert!(
            (20_000..=29_000).contains(&remaining),
            "the clock less the time since the turn arrived: {remaining}"
        );
        assert_eq!(asked["view"], goofspiel_turn()["request"]["view"]);
    }

    #[test]
    fn a_decisions_failures_make_one_line_with_each_reason_once_and_its_count() {
        assert_eq!(
            Failures::default().line(1, 0, 0, Outcome::Sent),
            None,
            "no failure, no line"
        );
        let mut failures = Failures::default();
        for why in ["cannot start", "no answer", "cannot start", "cannot start"] {
            failures.add(7, 1, why.to_owned());
        }
        assert_eq!(
            failures.line(7, 1, 12, Outcome::ClockRanOut).as_deref(),
            Some(
                "Engine failed for match 7 (leg 1) at revision 12: cannot start (×3) | no answer [4 failed attempts, then the clock ran out and no move was sent]"
            )
        );
    }

    #[test]
    fn the_budget_is_the_cap_but_never_past_the_clock_less_the_margin() {
        let cap = Some(Duration::from_secs(10));
        let table = [
            (60_000, cap, 10_000),
            (5_000, cap, 4_250),
            (60_000, None, 59_250),
            (750, cap, 375),
            (0, cap, 0),
            (60_000, Some(Duration::from_millis(300)), 300),
        ];
        for (remaining, cap, expected) in table {
            assert_eq!(
                budget(remaining, cap),
                Duration::from_millis(expected),
                "{remaining} ms left, cap {cap:?}"
            );
        }
    }
}
