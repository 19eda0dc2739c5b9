//! Bots the server plays for itself: it holds each one's stream in-process and answers what
//! comes on it as `arbiter bot` would, each kind of bot deciding in its own way (a call to
//! its URL, a run of its module). Challenges are accepted or declined by the bot's settings,
//! since it has no stream of its own to answer them on.
//!
//! Among servers sharing a store, the one holding a kind's duty drives every bot of that
//! kind; the others drive none.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arbiter_arena::{Announcement, Arena, ArenaError, Bot, Decision, MatchSummary, StreamEvent};
use futures::future::BoxFuture;
use serde_json::Value;

/// How often the server looks for bots to drive, or to stop driving.
const SCAN_MS: i64 = 1_000;

/// The shortest initial clock, in milliseconds, of a challenge accepted on a hosted bot's
/// behalf by default: every decision costs it a round trip or a run.
pub const DEFAULT_MIN_INITIAL_MS: i64 = 10_000;

/// The shortest initial clock an owner asked for, checked, or the default.
pub(crate) fn min_initial_ms(asked: Option<i64>) -> Result<i64, ArenaError> {
    let ms = asked.unwrap_or(DEFAULT_MIN_INITIAL_MS);
    if (1_000..=86_400_000).contains(&ms) {
        Ok(ms)
    } else {
        Err(ArenaError::InvalidRequest(
            "the shortest initial clock accepted is 1 second to 1 day (min_initial_ms 1,000 to 86,400,000)".to_owned(),
        ))
    }
}

/// Which challenges are accepted on a hosted bot's behalf.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// Whether any are.
    pub(crate) accept_challenges: bool,
    /// The shortest initial clock of one accepted, in milliseconds.
    pub(crate) min_initial_ms: i64,
}

impl Policy {
    fn accepts(self, summary: &MatchSummary) -> bool {
        self.accept_challenges && summary.time_control.initial_ms >= self.min_initial_ms
    }
}

/// One kind of hosted bot.
pub(crate) trait Kind: Send + Sync + 'static {
    /// The duty whose holder drives this kind's bots.
    fn duty(&self) -> &'static str;

    /// What a bot of this kind is driven as, or `None` for a bot not of this kind (or not to
    /// be driven now). A driver whose bot's version changes is started again.
    fn version(&self, bot: &Bot) -> Option<String>;

    /// The player for one bot, once its stream is open; `None` leaves the bot undriven until
    /// the next look.
    fn player(
        self: Arc<Self>,
        arena: Arena,
        bot: Bot,
    ) -> BoxFuture<'static, Option<Arc<dyn Player>>>;
}

/// Plays for one hosted bot.
pub(crate) trait Player: Send + Sync + 'static {
    /// The bot's challenge policy as its settings say now, or `None` once it is no longer
    /// this player's to drive.
    fn policy(&self, bot: &Bot) -> Option<Policy>;

    /// Answers one decision (in a task of its own).
    fn decide(self: Arc<Self>, bot: Bot, decision: Arc<Decision>) -> BoxFuture<'static, ()>;

    /// A match of the bot's ended.
    fn finished(self: Arc<Self>, _bot: Bot, _summary: Arc<MatchSummary>) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// Starts driving the bots of `kind` until the arena stops.
pub(crate) fn start(arena: Arena, kind: Arc<dyn Kind>) {
    tokio::spawn(async move {
        let mut driving: HashMap<i64, (String, tokio::task::JoinHandle<()>)> = HashMap::new();
        loop {
            let wanted: Vec<(Bot, String)> = if arena.takes_duty(kind.duty()).await {
                arena
                    .list_bots()
                    .into_iter()
                    .filter(|(bot, _)| bot.active())
                    .filter_map(|(bot, _)| kind.version(&bot).map(|version| (bot, version)))
                    .collect()
            } else {
                Vec::new()
            };
            // A bot no longer of this kind, or of another version, or whose driver ended, is
            // dropped: its stream closes with its task.
            driving.retain(|id, (version, task)| {
                let keep = !task.is_finished()
                    && wanted.iter().any(|(bot, v)| bot.id == *id && v == version);
                if !keep {
                    task.abort();
                }
                keep
            });
            for (bot, version) in wanted {
                driving.entry(bot.id).or_insert_with(|| {
                    let task = tokio::spawn(hold(arena.clone(), kind.clone(), bot));
                    (version, task)
                });
            }
            let next = arena.now_ms() + SCAN_MS;
            tokio::select! {
                () = arena.sleep_until(next) => {}
                () = arena.stopped() => break,
            }
        }
        for (_, task) in driving.into_values() {
            task.abort();
        }
    });
}

/// Holds one bot's stream and answers what comes on it.
async fn hold(arena: Arena, kind: Arc<dyn Kind>, bot: Bot) {
    let mut stream = match arena.open_stream(&bot, false).await {
        Ok(stream) => stream,
        Err(error) => {
            tracing::warn!(bot = bot.id, %error, "cannot open a hosted bot's stream");
            return;
        }
    };
    let Some(player) = kind.player(arena.clone(), bot.clone()).await else {
        return;
    };
    // Only one answer per decision: the stream may announce a decision again (a new
    // stream's announcements, a relayed copy).
    let asked: Arc<Mutex<HashMap<(i64, usize), u64>>> = Arc::default();
    while let Some(event) = stream.next_event().await {
        // The settings are read again at each event, so that new ones apply at once.
        let Ok(current) = arena.find_bot(&bot.id.to_string()) else {
            return;
        };
        let Some(policy) = player.policy(&current) else {
            return;
        };
        match event {
            StreamEvent::Decision { decision, .. } => {
                let key = (decision.match_id, decision.leg);
                let fresh = {
                    let mut asked = asked.lock().unwrap_or_else(|e| e.into_inner());
                    let fresh = asked.get(&key) != Some(&decision.revision);
                    asked.insert(key, decision.revision);
                    fresh
                };
                if fresh {
                    tokio::spawn(player.clone().decide(current, decision));
                }
            }
            StreamEvent::Match {
                about: Announcement::Finished,
                summary,
                ..
            } => {
                asked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|(id, _), _| *id != summary.id);
                tokio::spawn(player.clone().finished(current, summary));
            }
            StreamEvent::Match {
                about: Announcement::Challenge,
                summary,
                ..
            } => {
                if summary.bot_a.id == current.id {
                    continue;
                }
                let outcome = if policy.accepts(&summary) {
                    arena.accept(&current, summary.id, None).await.map(drop)
                } else {
                    arena.decline(&current, summary.id, false).await.map(drop)
                };
                if let Err(error) = outcome {
                    tracing::info!(bot = current.id, match_id = summary.id, %error, "a hosted bot's challenge was not answered");
                }
            }
            _ => {}
        }
    }
}

/// Plays a hosted bot's answer: `{"action": …}` (or `{"move": …}`, as engines answer).
/// Returns why it was not played, if it was not.
pub(crate) async fn play(
    arena: &Arena,
    bot: &Bot,
    decision: &Decision,
    answer: &[u8],
) -> Result<(), String> {
    let parsed: Option<Value> = serde_json::from_slice::<Value>(answer)
        .ok()
        .and_then(|value| value.get("action").or_else(|| value.get("move")).cloned());
    let Some(action) = parsed else {
        return Err("the answer has no action".to_owned());
    };
    let leg = u8::try_from(decision.leg).unwrap_or(u8::MAX);
    match arena
        .submit(bot, decision.match_id, leg, decision.revision, action)
        .await
    {
        Ok(_) | Err(ArenaError::StaleRevision { .. }) => Ok(()),
        Err(error) => Err(format!("the action was refused: {error}")),
    }
}
