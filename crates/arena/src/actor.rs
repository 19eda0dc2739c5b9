//! The task that owns one match: it applies commands in order, persists what they produce,
//! then publishes and replies; it also wakes itself for the match's deadlines.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_store::{BotId, EventRecord, MatchRecord, MatchStatus, Write};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::ArenaError;
use crate::directory::Bot;
use crate::live::{self, MoveReply, Progress, Setup, UndoPoint};
use crate::log::{MatchLog, Participants, Reader};
use crate::matches::MatchContext;
use crate::snapshot::{Announcement, Decision, MatchSnapshot, MatchSummary, StreamEvent};

mod talk;

/// A request to a match.
pub(crate) enum Command {
    /// A bot takes a seat at an open table.
    /// The opener of a table fills its free seats with a house bot and starts it.
    Fill {
        /// Who asks: only the person who opened the table may.
        by: BotId,
        /// The house bot taking every free seat.
        house: Box<Bot>,
        reply: oneshot::Sender<Result<MatchSummary, ArenaError>>,
    },
    Join {
        /// Boxed: a bot is large, and every other command is small.
        bot: Box<Bot>,
        /// The SHA-256 (hex) of the key that claims the seat, if the door gave one.
        seat_key: Option<String>,
        /// The bot's client seed, checked; empty when it gave none.
        client_seed: String,
        reply: oneshot::Sender<Result<MatchSummary, ArenaError>>,
    },
    Accept {
        bot: BotId,
        /// Whether either bot reports practice now, which makes the match unrated.
        practice: bool,
        /// The bot's client seed, checked; empty when it gave none.
        client_seed: String,
        reply: oneshot::Sender<Result<MatchSummary, ArenaError>>,
    },
    Decline {
        bot: BotId,
        cancel: bool,
        reply: oneshot::Sender<Result<MatchSummary, ArenaError>>,
    },
    Submit {
        bot: BotId,
        leg: u8,
        revision: u64,
        submitted: Value,
        /// What the mover says about the move, stored with it.
        note: Option<Box<live::MoveNote>>,
        reply: oneshot::Sender<Result<MoveReply, ArenaError>>,
    },
    HouseMove {
        leg: usize,
        revision: u64,
        participant: usize,
        /// Free actions the house player takes along with its decision, played first.
        free: Vec<Value>,
        action: Value,
    },
    Resign {
        bot: BotId,
        reply: oneshot::Sender<Result<MatchSummary, ArenaError>>,
    },
    Abort {
        bot: BotId,
        reply: oneshot::Sender<Result<MatchSummary, ArenaError>>,
    },
    Say {
        bot: BotId,
        room: live::ChatRoom,
        text: String,
        reply: oneshot::Sender<Result<(), ArenaError>>,
    },
    /// A participant's presence may have changed.
    Presence,
    Snapshot {
        reader: Reader,
        /// Whether the reader's pending decisions come with it.
        turns: bool,
        reply: oneshot::Sender<MatchSnapshot>,
    },
    /// The participant whose seat key hashes to `hash`, if any.
    SeatHolder {
        hash: String,
        reply: oneshot::Sender<Option<usize>>,
    },
    /// The status, after bringing the match up to date with the clock.
    Status { reply: oneshot::Sender<MatchStatus> },
    /// The summary, after bringing the match up to date with the clock.
    Summary {
        reply: oneshot::Sender<MatchSummary>,
    },
    Turns {
        who: Participants,
        reply: oneshot::Sender<(MatchStatus, Vec<Decision>)>,
    },
    /// Sends the match's current state to one newly opened stream of `bot`.
    Announce {
        bot: BotId,
        stream: mpsc::Sender<StreamEvent>,
        /// Whether the stream asked for the match as the bot sees it with each event.
        snapshots: bool,
    },
    /// A house seat's talk pass is over: a line to play, or a silence to log.
    Talked(Box<talk::Talked>),
    /// Stop serving (the match has been closed long enough).
    Retire,
}

pub(crate) struct Actor {
    pub(crate) shared: Arc<MatchContext>,
    pub(crate) setup: Setup,
    pub(crate) progress: Progress,
    pub(crate) log: Arc<MatchLog>,
    pub(crate) commands: mpsc::Receiver<Command>,
    pub(crate) myself: mpsc::Sender<Command>,
    /// The decisions announced to streams: (leg, revision, participant).
    announced: HashSet<(usize, u64, usize)>,
    /// The house decisions being thought about: (leg, revision, participant).
    thinking: HashSet<(usize, u64, usize)>,
    /// The house seats with a line in flight: (leg, participant).
    talking: HashSet<(usize, usize)>,
    /// The house seats with a line in flight to ask again when it is back, since the table
    /// changed meanwhile.
    talk_again: HashSet<(usize, usize)>,
    /// Talk passes started, which number their random streams.
    talk_passes: u64,
    /// When the next talk pass is due, if the family asked for one.
    next_talk: Option<i64>,
}

impl Actor {
    pub(crate) fn new(
        shared: Arc<MatchContext>,
        setup: Setup,
        progress: Progress,
        log: Arc<MatchLog>,
        commands: mpsc::Receiver<Command>,
        myself: mpsc::Sender<Command>,
    ) -> Actor {
        Actor {
            shared,
            setup,
            progress,
            log,
            commands,
            myself,
            announced: HashSet::new(),
            thinking: HashSet::new(),
            talking: HashSet::new(),
            talk_again: HashSet::new(),
            talk_passes: 0,
            next_talk: None,
        }
    }

    fn now(&self) -> i64 {
        self.shared.clock.now_ms()
    }

    /// Runs the match until it is retired. `stored` are events the creator has already
    /// stored but not yet published (a new challenge's first events).
    pub(crate) async fn run(mut self, stored: Vec<Arc<EventRecord>>) {
        self.publish(&stored, true);
        // A restart leaves changes to store (shifted clocks, or a technical abort).
        if (self.progress.row_changed || !self.progress.fresh.is_empty())
            && let Err(error) = {
                let undo = self.progress.undo_point();
                self.commit(undo).await
            }
        {
            tracing::error!(match_id = self.setup.id, %error, "cannot store the resumed match");
        }
        let mut stopping = self.shared.stopping.subscribe();
        loop {
            if *stopping.borrow() {
                break;
            }
            self.advance().await;
            if self.next_talk.is_some_and(|at| at <= self.now()) {
                self.start_talk(self.now(), true);
            }
            let deadline = if self.progress.is_open() {
                let now = self.now();
                let due = live::next_deadline(&self.setup, &self.progress, &|bot| {
                    self.shared.directory.presence(bot, now)
                });
                match (due, self.next_talk) {
                    (Some(due), Some(talk)) => Some(due.min(talk)),
                    (due, talk) => due.or(talk),
                }
            } else {
                None
            };
            let sleep = match deadline {
                Some(at) => self.shared.clock.sleep_until(at),
                None => Box::pin(std::future::pending()),
            };
            tokio::select! {
                command = self.commands.recv() => match command {
                    Some(Command::Retire) | None => break,
                    Some(command) => self.handle(command).await,
                },
                () = sleep => {}
                _ = stopping.changed() => {}
            }
        }
    }

    /// Applies whatever the clock has made happen, and stores it.
    async fn advance(&mut self) {
        self.advance_with(false).await;
    }

    /// Like [`Actor::advance`]; `presence_changed` re-evaluates presence even when no
    /// deadline is due.
    async fn advance_with(&mut self, presence_changed: bool) {
        if !self.progress.is_open() {
            return;
        }
        let now = self.now();
        if !presence_changed {
            // The common case, on every move: nothing is due, so nothing needs copying.
            let presence = |bot| self.shared.directory.presence(bot, now);
            let due = live::next_deadline(&self.setup, &self.progress, &presence);
            if due.is_none_or(|at| at > now)
                && live::presence_settled(&self.setup, &self.progress, &presence)
            {
                return;
            }
        }
        let undo = self.progress.undo_point();
        live::tick(&self.setup, &mut self.progress, now, &|bot| {
            self.shared.directory.presence(bot, now)
        });
        if self.progress.fresh.is_empty() && !self.progress.row_changed {
            return;
        }
        if let Err(error) = self.commit(undo).await {
            // Nothing was kept; the same happenings fall due again on the next wake.
            tracing::warn!(match_id = self.setup.id, %error, "cannot store a timed event; retrying");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs one state change, stores it, and keeps it only if the store succeeded.
    async fn step<R>(
        &mut self,
        change: impl FnOnce(&Setup, &mut Progress, i64) -> Result<R, ArenaError>,
    ) -> Result<R, ArenaError> {
        self.advance().await;
        let now = self.now();
        let undo = self.progress.undo_point();
        match change(&self.setup, &mut self.progress, now) {
            Ok(result) => {
                self.commit(undo).await?;
                Ok(result)
            }
            Err(error) => {
                self.progress.undo(undo);
                Err(error)
            }
        }
    }

    /// Accepts the challenge like [`Actor::step`] runs a change, except that acceptance may
    /// also make the match unrated (see [`live::accept`]), so the setup's `rated` is restored
    /// along with the progress when the acceptance is refused or cannot be stored.
    async fn accept(
        &mut self,
        bot: BotId,
        practice: bool,
        client_seed: String,
    ) -> Result<(), ArenaError> {
        self.advance().await;
        let now = self.now();
        let undo = self.progress.undo_point();
        let (rated, seeds) = (self.setup.rated, self.setup.client_seeds.clone());
        let result = match live::accept(
            &mut self.setup,
            &mut self.progress,
            bot,
            practice,
            client_seed,
            now,
        ) {
            // A failed commit has already gone back to `undo`.
            Ok(()) => self.commit(undo).await,
            Err(error) => {
                self.progress.undo(undo);
                Err(error)
            }
        };
        if result.is_err() {
            self.setup.rated = rated;
            self.setup.client_seeds = seeds;
        }
        result
    }

    /// Seats `bot` at the open table like [`Actor::step`] runs a change; the seat is given
    /// back when it cannot be stored.
    async fn join(
        &mut self,
        bot: Bot,
        seat_key: Option<String>,
        client_seed: String,
    ) -> Result<(), ArenaError> {
        self.advance().await;
        let now = self.now();
        let undo = self.progress.undo_point();
        let seated = self.setup.bots.len();
        let (rated, keys) = (self.setup.rated, self.setup.terms.seat_keys.clone());
        let seeds = self.setup.client_seeds.clone();
        if seat_key.is_some() {
            self.setup.terms.seat_keys.resize(seated, None);
            self.setup.terms.seat_keys.push(seat_key);
        }
        let result = match live::join(&mut self.setup, &mut self.progress, bot, client_seed, now) {
            // A failed commit has already gone back to `undo`.
            Ok(()) => self.commit(undo).await,
            Err(error) => {
                self.progress.undo(undo);
                Err(error)
            }
        };
        if result.is_err() {
            self.setup.bots.truncate(seated);
            self.setup.rated = rated;
            self.setup.terms.seat_keys = keys;
            self.setup.client_seeds = seeds;
        } else {
            let bots: Vec<BotId> = self.setup.bots.iter().map(|bot| bot.id).collect();
            self.shared
                .note_participants(self.setup.id, &bots, self.progress.status);
        }
        result
    }

    /// Fills the table's free seats with `house` for `by`, its opener, and starts the match.
    async fn fill(&mut self, by: BotId, house: Bot) -> Result<(), ArenaError> {
        self.advance().await;
        let now = self.now();
        let undo = self.progress.undo_point();
        let seated = self.setup.bots.len();
        let seeds = self.setup.client_seeds.clone();
        let result = match live::fill(&mut self.setup, &mut self.progress, by, &house, now) {
            Ok(()) => self.commit(undo).await,
            Err(error) => {
                self.progress.undo(undo);
                Err(error)
            }
        };
        if result.is_err() {
            self.setup.bots.truncate(seated);
            self.setup.client_seeds = seeds;
        } else {
            let bots: Vec<BotId> = self.setup.bots.iter().map(|bot| bot.id).collect();
            self.shared
                .note_participants(self.setup.id, &bots, self.progress.status);
        }
        result
    }

    /// Stores the changes made since `undo` and publishes them; if the store refuses them,
    /// goes back to `undo`, so that nothing unstored is ever kept or shown. A change that
    /// finishes a rated match also rates it, in the same write.
    async fn commit(&mut self, undo: UndoPoint) -> Result<(), ArenaError> {
        let finishes_rated = self.setup.rated
            && self.progress.status == MatchStatus::Finished
            && undo.status() != MatchStatus::Finished;
        if !finishes_rated {
            return self.store(undo, Vec::new()).await;
        }
        let Some(ranking) = self
            .progress
            .result
            .as_ref()
            .and_then(|r| r.ranking.clone())
        else {
            return self.store(undo, Vec::new()).await;
        };
        let shared = self.shared.clone();
        let bots: Vec<BotId> = self.setup.bots.iter().map(|bot| bot.id).collect();
        let mode = format!("{}:{}", self.setup.family.id(), self.setup.variant);
        let now = self.now();
        shared
            .ratings
            .apply(&bots, &mode, &ranking, now, async |change| {
                live::note_ratings(&self.setup, &mut self.progress, &change.summary, now);
                self.store(undo, change.writes).await
            })
            .await
    }

    /// Writes the changes made since `undo`, with `extra` writes in the same batch.
    async fn store(&mut self, undo: UndoPoint, extra: Vec<Write>) -> Result<(), ArenaError> {
        let events: Vec<Arc<EventRecord>> = std::mem::take(&mut self.progress.fresh)
            .into_iter()
            .map(Arc::new)
            .collect();
        let row_changed = std::mem::replace(&mut self.progress.row_changed, false);
        if !events.is_empty() || row_changed {
            let mut writes: Vec<Write> = Vec::with_capacity(events.len() + 1 + extra.len());
            if row_changed {
                writes.push(Write::PutMatch(self.record(&self.progress)));
            }
            writes.extend(events.iter().cloned().map(Write::AppendEvent));
            writes.extend(extra);
            if let Err(error) = self.shared.writer.write(writes).await {
                self.progress.undo(undo);
                return Err(error.into());
            }
        }
        let status_changed = self.progress.status != undo.status() || row_changed;
        self.publish(&events, status_changed);
        Ok(())
    }

    fn record(&self, progress: &Progress) -> MatchRecord {
        MatchRecord {
            id: self.setup.id,
            participants: self.setup.bots.iter().map(|bot| bot.id).collect(),
            game: self.setup.family.id().to_owned(),
            status: progress.status,
            created_ms: self.setup.created_ms,
            seed: self.setup.seed.reveal().to_owned(),
            details: self.setup.details(progress),
        }
    }

    /// Every bot playing in the match, each once.
    fn bots(&self) -> Vec<BotId> {
        let mut bots: Vec<BotId> = Vec::new();
        for bot in &self.setup.bots {
            if !bots.contains(&bot.id) {
                bots.push(bot.id);
            }
        }
        bots
    }

    /// Hands committed events to long-polls and streams, announces new turns, and starts the
    /// house bots thinking.
    fn publish(&mut self, events: &[Arc<EventRecord>], status_changed: bool) {
        self.log.append(events);
        let now = self.now();
        if status_changed {
            self.shared.note_status(
                self.setup.id,
                &self.bots(),
                self.progress.status,
                &self.setup.variant,
                self.has_house(),
            );
        }
        // What each bot's streams are sent, built once per bot and only for bots with a
        // stream that asked for the match as the bot sees it.
        let mut seen: Vec<(BotId, Option<Arc<MatchSnapshot>>)> = Vec::new();
        let mut summary: Option<Arc<MatchSummary>> = None;
        for event in events {
            let Some(about) = self.announcement(&event.kind) else {
                continue;
            };
            let summary = summary
                .get_or_insert_with(|| Arc::new(live::summary(&self.setup, &self.progress, now)))
                .clone();
            for bot in self.bots() {
                let snapshot = self.seen_by(bot, now, &mut seen);
                let event = StreamEvent::Match {
                    about,
                    summary: summary.clone(),
                    snapshot,
                };
                self.shared.feeds.send(bot, &event);
            }
        }
        let players = (0..self.setup.seats())
            .filter(|&p| !self.is_house(p))
            .fold(Participants::NONE, Participants::with);
        let announced = &self.announced;
        let fresh = |leg: usize, revision: u64, participant: usize| {
            !announced.contains(&(leg, revision, participant))
        };
        for decision in live::turns(&self.setup, &self.progress, players, now, &fresh) {
            if self
                .announced
                .insert((decision.leg, decision.revision, decision.participant))
            {
                let bot = self.setup.bots[decision.participant].id;
                let snapshot = self.seen_by(bot, now, &mut seen);
                let event = StreamEvent::Decision {
                    decision: Arc::new(decision),
                    snapshot,
                };
                self.shared.feeds.send(bot, &event);
            }
        }
        self.start_house_moves(now);
        // After every change, so that an answer to a person comes at once.
        self.start_talk(now, false);
    }

    /// What a stored event announces on the streams of the match's bots, if anything: an open
    /// table is announced as a table until it is full and starts.
    fn announcement(&self, kind: &str) -> Option<Announcement> {
        Some(match kind {
            "challenge" | "joined" if self.setup.table => Announcement::Table,
            "challenge" => Announcement::Challenge,
            "accepted" | "started" | "leg_finished" | "turn_warning" => Announcement::Match,
            "finished" | "aborted" | "expired" | "rejected" | "cancelled" => Announcement::Finished,
            _ => return None,
        })
    }

    /// The match as `bot` sees it now, if one of its streams asked for it; built once per
    /// bot in `seen`.
    fn seen_by(
        &self,
        bot: BotId,
        now: i64,
        seen: &mut Vec<(BotId, Option<Arc<MatchSnapshot>>)>,
    ) -> Option<Arc<MatchSnapshot>> {
        if let Some((_, snapshot)) = seen.iter().find(|(b, _)| *b == bot) {
            return snapshot.clone();
        }
        let snapshot = self
            .shared
            .feeds
            .wants_snapshots(bot)
            .then(|| Arc::new(self.snapshot_for(bot, now)));
        seen.push((bot, snapshot.clone()));
        snapshot
    }

    /// The match as `bot`, one of its participants, sees it.
    fn snapshot_for(&self, bot: BotId, now: i64) -> MatchSnapshot {
        let reader = Reader {
            participants: self.setup.participants_of(bot),
            omniscient: false,
        };
        live::snapshot(&self.setup, &self.progress, reader, now)
    }

    fn is_house(&self, participant: usize) -> bool {
        self.setup.is_house(participant)
    }

    fn has_house(&self) -> bool {
        (0..self.setup.seats()).any(|p| self.is_house(p))
    }

    /// Computes the house bots' moves off the async runtime; each arrives as a command.
    fn start_house_moves(&mut self, now: i64) {
        for (leg, revision, seat, participant) in live::house_turns(&self.setup, &self.progress) {
            if !self.thinking.insert((leg, revision, participant)) {
                continue;
            }
            let Some(house) = self.setup.family.house else {
                continue;
            };
            let l = &self.progress.legs[leg];
            let state = l.state.clone();
            let level = self.setup.bots[participant]
                .house_level()
                .unwrap_or(arbiter_plugin::HouseLevel::Greedy);
            let view = arbiter_plugin::SeatView::new(state.as_ref(), seat);
            let share = l.decision_share_ms(seat, now, |left| house.think_ms(&view, level, left));
            let budget_ms = level.budget_ms(share);
            let deadline =
                Instant::now() + Duration::from_millis(u64::try_from(budget_ms).unwrap_or(1));
            let nonce = (1u64 << 40)
                | (u64::from(seat.0) << 44)
                | (u64::try_from(leg).unwrap_or(0) << 32)
                | revision;
            let mut rng = self.setup.seed.stream("house", nonce);
            let myself = self.myself.clone();
            tokio::task::spawn_blocking(move || {
                let view = arbiter_plugin::SeatView::new(state.as_ref(), seat);
                let free = house.free_actions(&view, level, &mut rng);
                let action = house.choose(&view, level, deadline, &mut rng);
                let _ = myself.blocking_send(Command::HouseMove {
                    leg,
                    revision,
                    participant,
                    free,
                    action,
                });
            });
        }
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Fill { by, house, reply } => {
                let result = self.fill(by, *house).await;
                let _ = reply.send(result.map(|()| self.summary()));
            }
            Command::Join {
                bot,
                seat_key,
                client_seed,
                reply,
            } => {
                let result = self.join(*bot, seat_key, client_seed).await;
                let _ = reply.send(result.map(|()| self.summary()));
            }
            Command::Accept {
                bot,
                practice,
                client_seed,
                reply,
            } => {
                let result = self.accept(bot, practice, client_seed).await;
                let _ = reply.send(result.map(|()| self.summary()));
            }
            Command::Decline { bot, cancel, reply } => {
                let result = self
                    .step(|setup, progress, now| live::decline(setup, progress, bot, cancel, now))
                    .await;
                let _ = reply.send(result.map(|()| self.summary()));
            }
            Command::Submit {
                bot,
                leg,
                revision,
                submitted,
                note,
                reply,
            } => {
                let result = self
                    .step(|setup, progress, now| {
                        let reply =
                            live::submit(setup, progress, bot, leg, revision, &submitted, now)?;
                        if let Some(note) = &note {
                            live::note_move(setup, progress, bot, &reply, note, now);
                        }
                        Ok(reply)
                    })
                    .await;
                if result.is_ok() {
                    self.shared.metrics.moves.inc();
                }
                let _ = reply.send(result);
            }
            Command::HouseMove {
                leg,
                revision,
                participant,
                free,
                action,
            } => {
                self.house_move(leg, revision, participant, free, action)
                    .await;
            }
            Command::Resign { bot, reply } => {
                let result = self
                    .step(|setup, progress, now| live::resign(setup, progress, bot, now))
                    .await;
                let _ = reply.send(result.map(|()| self.summary()));
            }
            Command::Abort { bot, reply } => {
                let result = self
                    .step(|setup, progress, now| live::abort(setup, progress, bot, now))
                    .await;
                let _ = reply.send(result.map(|()| self.summary()));
            }
            Command::Say {
                bot,
                room,
                text,
                reply,
            } => {
                let result = self
                    .step(|setup, progress, now| live::say(setup, progress, bot, room, &text, now))
                    .await;
                let _ = reply.send(result);
            }
            Command::Presence => self.advance_with(true).await,
            Command::Snapshot {
                reader,
                turns,
                reply,
            } => {
                self.advance().await;
                let _ = reply.send(live::snapshot_with(
                    &self.setup,
                    &self.progress,
                    reader,
                    self.now(),
                    turns,
                ));
            }
            Command::SeatHolder { hash, reply } => {
                let _ = reply.send(self.setup.terms.holder(&hash));
            }
            Command::Status { reply } => {
                self.advance().await;
                let _ = reply.send(self.progress.status);
            }
            Command::Summary { reply } => {
                self.advance().await;
                let _ = reply.send(self.summary());
            }
            Command::Turns { who, reply } => {
                self.advance().await;
                let turns =
                    live::turns(&self.setup, &self.progress, who, self.now(), &|_, _, _| {
                        true
                    });
                let _ = reply.send((self.progress.status, turns));
            }
            Command::Announce {
                bot,
                stream,
                snapshots,
            } => {
                let now = self.now();
                let snapshot = snapshots.then(|| Arc::new(self.snapshot_for(bot, now)));
                let about = match self.progress.status {
                    MatchStatus::Pending if self.setup.table => Announcement::Table,
                    MatchStatus::Pending => Announcement::Challenge,
                    _ => Announcement::Match,
                };
                let _ = stream.try_send(StreamEvent::Match {
                    about,
                    summary: Arc::new(live::summary(&self.setup, &self.progress, now)),
                    snapshot: snapshot.clone(),
                });
                for decision in live::turns(
                    &self.setup,
                    &self.progress,
                    self.setup.participants_of(bot),
                    now,
                    &|_, _, _| true,
                ) {
                    let _ = stream.try_send(StreamEvent::Decision {
                        decision: Arc::new(decision),
                        snapshot: snapshot.clone(),
                    });
                }
            }
            Command::Talked(talked) => self.talked(*talked).await,
            Command::Retire => {}
        }
    }

    fn summary(&self) -> MatchSummary {
        live::summary(&self.setup, &self.progress, self.now())
    }

    /// Plays what a house player chose for `participant`: its free actions, each stored as a
    /// bot's free action is, then its decision. A free action the rules refuse is dropped and
    /// the rest still played. The decision stays marked as being thought about while its free
    /// actions are played, since they move no revision: the house player must not be asked
    /// about the same decision again in between, which would play its free actions twice.
    async fn house_move(
        &mut self,
        leg: usize,
        revision: u64,
        participant: usize,
        free: Vec<Value>,
        action: Value,
    ) {
        let leg_byte = u8::try_from(leg).unwrap_or(u8::MAX);
        let mine = Participants::only(participant);
        for (index, submitted) in free.iter().chain(std::iter::once(&action)).enumerate() {
            if index == free.len() {
                // The decision itself: once it is played, whatever the seat owes next is a
                // new decision to think about.
                self.thinking.remove(&(leg, revision, participant));
            }
            let result = self
                .step(|setup, progress, now| {
                    live::submit_as(setup, progress, mine, leg_byte, revision, submitted, now)
                })
                .await;
            if result.is_ok() {
                self.shared.metrics.moves.inc();
            }
            if let Err(error) = result {
                if matches!(error, ArenaError::Unavailable(_) | ArenaError::ShuttingDown) {
                    // Think again once storage is back.
                    self.announced.clear();
                }
                tracing::debug!(match_id = self.setup.id, %error, "house move not played");
            }
        }
    }
}
