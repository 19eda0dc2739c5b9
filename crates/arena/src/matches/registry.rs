//! The matches this process holds in memory: each one's command queue, log and participants;
//! which are open for each bot and in what status; the running variant games against house
//! bots; and the retirement of closed matches, which are served from the store from then on.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, RwLock};

use arbiter_store::{BotId, MatchId, MatchStatus};
use tokio::sync::mpsc;

use crate::actor::Command;
use crate::context::{Context, lock};
use crate::log::MatchLog;

/// The channels of one match, for the arena's bookkeeping.
struct Handle {
    commands: mpsc::Sender<Command>,
    log: Arc<MatchLog>,
    /// The participants' bots, in participant order.
    bots: Arc<[BotId]>,
    /// Whether the match has closed (it is then in [`Registry::closed`]).
    closed: bool,
}

/// A match's command queue, log and participants' bots, as [`Registry::handle`] gives them.
pub(crate) type MatchChannels = (mpsc::Sender<Command>, Arc<MatchLog>, Arc<[BotId]>);

/// The matches in memory and the bookkeeping their actors report to.
pub(crate) struct Registry {
    context: Arc<Context>,
    matches: RwLock<HashMap<MatchId, Handle>>,
    /// Closed matches still in memory, with when they closed, longest closed first.
    closed: Mutex<VecDeque<(i64, MatchId)>>,
    /// Each bot's open matches and their status.
    open: Mutex<HashMap<BotId, HashMap<MatchId, MatchStatus>>>,
    /// Running variant matches against house bots.
    house_variants: Mutex<HashSet<MatchId>>,
    /// The lobby's revision: it moves whenever a match is added, gains a participant or
    /// changes status, so that whoever lists open tables or live matches knows when to look
    /// again.
    lobby: tokio::sync::watch::Sender<u64>,
}

impl Registry {
    /// An empty registry.
    pub(crate) fn new(context: Arc<Context>) -> Registry {
        Registry {
            context,
            matches: RwLock::new(HashMap::new()),
            closed: Mutex::new(VecDeque::new()),
            open: Mutex::new(HashMap::new()),
            house_variants: Mutex::new(HashSet::new()),
            lobby: tokio::sync::watch::Sender::new(0),
        }
    }

    /// The lobby's revision, to wait for its next change.
    pub(crate) fn lobby(&self) -> tokio::sync::watch::Receiver<u64> {
        self.lobby.subscribe()
    }

    fn lobby_changed(&self) {
        self.lobby.send_modify(|revision| *revision += 1);
    }

    /// Holds a new match's channels.
    pub(crate) fn insert(
        &self,
        id: MatchId,
        commands: mpsc::Sender<Command>,
        log: Arc<MatchLog>,
        bots: Arc<[BotId]>,
    ) {
        self.matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                id,
                Handle {
                    commands,
                    log,
                    bots,
                    closed: false,
                },
            );
        self.lobby_changed();
    }

    /// Forgets every match and gives back their command queues, for shutting down.
    pub(crate) fn drain(&self) -> Vec<mpsc::Sender<Command>> {
        self.matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
            .map(|(_, h)| h.commands)
            .collect()
    }

    /// How many matches are held: the open ones and the recently closed ones.
    pub(crate) fn len(&self) -> usize {
        self.matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    /// Records the participants of a match that gained one (an open table): its handle and
    /// each bot's open matches list them.
    pub(crate) fn note_participants(&self, id: MatchId, bots: &[BotId], status: MatchStatus) {
        if let Some(handle) = self
            .matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_mut(&id)
        {
            handle.bots = bots.iter().copied().collect();
        }
        if status.is_open() {
            let mut open = lock(&self.open);
            for bot in bots {
                open.entry(*bot).or_default().insert(id, status);
            }
        }
        self.lobby_changed();
    }

    /// Called by a match actor whenever its status changes.
    pub(crate) fn note_status(
        &self,
        id: MatchId,
        bots: &[BotId],
        status: MatchStatus,
        variant: &str,
        house: bool,
    ) {
        {
            let mut open = lock(&self.open);
            for bot in bots {
                let entry = open.entry(*bot).or_default();
                if status.is_open() {
                    entry.insert(id, status);
                } else {
                    entry.remove(&id);
                }
            }
        }
        if !status.is_open() {
            let newly_closed = self
                .matches
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get_mut(&id)
                .is_some_and(|handle| !std::mem::replace(&mut handle.closed, true));
            if newly_closed {
                let now = self.context.now();
                lock(&self.closed).push_back((now, id));
                self.retire_closed(now);
            }
        }
        {
            let mut house_variants = lock(&self.house_variants);
            let default_variant = self.context.default_mode().map_or("", |mode| mode.variant);
            if house && variant != default_variant && status == MatchStatus::Running {
                house_variants.insert(id);
            } else {
                house_variants.remove(&id);
            }
        }
        self.lobby_changed();
    }

    /// Retires closed matches from memory, longest closed first, while there are more than
    /// the configured number or they closed longer ago than the retention; they are served
    /// from the store from then on.
    pub(crate) fn retire_closed(&self, now: i64) {
        let config = &self.context.config;
        let retired: Vec<MatchId> = {
            let mut closed = lock(&self.closed);
            let mut retired = Vec::new();
            while let Some(&(closed_ms, id)) = closed.front() {
                if closed.len() <= config.closed_in_memory
                    && now - closed_ms < config.closed_retention_ms
                {
                    break;
                }
                closed.pop_front();
                retired.push(id);
            }
            retired
        };
        self.retire(retired);
    }

    /// Retires from memory every closed match `bot` played, so that they are served from the
    /// store from then on, with the bot as it now is.
    pub(crate) fn retire_closed_of(&self, bot: BotId) {
        let played: Vec<MatchId> = self
            .matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(_, handle)| handle.closed && handle.bots.contains(&bot))
            .map(|(id, _)| *id)
            .collect();
        lock(&self.closed).retain(|(_, id)| !played.contains(id));
        self.retire(played);
    }

    /// Stops the actors of closed matches and forgets them.
    fn retire(&self, ids: Vec<MatchId>) {
        for id in ids {
            let handle = self
                .matches
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&id);
            if let Some(handle) = handle {
                let _ = handle.commands.try_send(Command::Retire);
            }
        }
    }

    /// The open matches held, in no particular order.
    pub(crate) fn open_ids(&self) -> Vec<MatchId> {
        self.matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(_, handle)| !handle.closed)
            .map(|(id, _)| *id)
            .collect()
    }

    /// Stops an open match's actor and forgets the match, which another server now runs.
    pub(crate) fn surrender(&self, id: MatchId) {
        let handle = self
            .matches
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&id);
        let Some(handle) = handle else { return };
        let mut open = lock(&self.open);
        for bot in handle.bots.iter() {
            if let Some(matches) = open.get_mut(bot) {
                matches.remove(&id);
                if matches.is_empty() {
                    open.remove(bot);
                }
            }
        }
        drop(open);
        lock(&self.house_variants).remove(&id);
        let _ = handle.commands.try_send(Command::Retire);
    }

    /// How many of the bot's matches are running.
    pub(crate) fn running_count(&self, bot: BotId) -> usize {
        self.count_of(bot, MatchStatus::Running)
    }

    /// How many of the bot's challenges are pending.
    pub(crate) fn pending_sent(&self, bot: BotId) -> usize {
        self.count_of(bot, MatchStatus::Pending)
    }

    fn count_of(&self, bot: BotId, status: MatchStatus) -> usize {
        lock(&self.open)
            .get(&bot)
            .map_or(0, |m| m.values().filter(|s| **s == status).count())
    }

    /// The bot's open challenges and matches.
    pub(crate) fn open_of(&self, bot: BotId) -> Vec<MatchId> {
        lock(&self.open)
            .get(&bot)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Whether the bot has a pending or running match.
    pub(crate) fn is_busy(&self, bot: BotId) -> bool {
        lock(&self.open)
            .get(&bot)
            .is_some_and(|matches| !matches.is_empty())
    }

    /// Whether `id` is among the bot's open matches.
    pub(crate) fn is_open_for(&self, bot: BotId, id: MatchId) -> bool {
        lock(&self.open)
            .get(&bot)
            .is_some_and(|matches| matches.contains_key(&id))
    }

    /// Every bot's open matches and their status, as they are now.
    pub(crate) fn open_by_bot(&self) -> HashMap<BotId, HashMap<MatchId, MatchStatus>> {
        lock(&self.open).clone()
    }

    /// Every running match, once each, newest first.
    pub(crate) fn running(&self) -> Vec<MatchId> {
        let mut ids: Vec<MatchId> = lock(&self.open)
            .values()
            .flat_map(|m| m.iter())
            .filter(|(_, status)| **status == MatchStatus::Running)
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.dedup();
        ids
    }

    /// How many variant games against house bots are running.
    pub(crate) fn house_variants(&self) -> usize {
        lock(&self.house_variants).len()
    }

    /// The bot's closed matches still in memory, most recently closed first.
    pub(crate) fn recently_closed_of(&self, bot: BotId) -> Vec<MatchId> {
        let closed: Vec<MatchId> = lock(&self.closed).iter().map(|(_, id)| *id).collect();
        closed
            .into_iter()
            .rev()
            .filter(|id| {
                self.handle(*id)
                    .is_some_and(|(_, _, bots)| bots.contains(&bot))
            })
            .collect()
    }

    /// A match's channels, while it is in memory.
    pub(crate) fn handle(&self, id: MatchId) -> Option<MatchChannels> {
        let matches = self
            .matches
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        matches
            .get(&id)
            .map(|h| (h.commands.clone(), h.log.clone(), h.bots.clone()))
    }

    /// Tells the matches of `bot` that its presence changed.
    pub(crate) fn presence_changed(&self, bot: BotId) {
        for id in self.open_of(bot) {
            if let Some((commands, _, _)) = self.handle(id) {
                let _ = commands.try_send(Command::Presence);
            }
        }
    }
}
