//! What may be read of matches: snapshots, event long-polls, a bot's turns, exports, a
//! closed leg's positions, and lists of open, running, recently closed and closed matches.
//! A match no longer in memory is read from the store.

use arbiter_fair::ServerSeed;
use arbiter_store::{BotId, MatchId, MatchStatus};
use serde_json::Value;

use super::{Matches, participants};
use crate::ArenaError;
use crate::actor::Command;
use crate::directory::Bot;
use crate::live;
use crate::log::{self, MatchLog, Participants, Reader};
use crate::snapshot::{
    ClosedMatch, DecisionPage, EventPage, EventView, ExportedEvent, MatchExport, MatchSnapshot,
    MatchSummary, ParticipantSummary,
};

impl Matches {
    /// Who a bot is in a match: the participants it plays.
    pub(crate) fn reader_for(&self, id: MatchId, bot: Option<&Bot>) -> Reader {
        let bots = self.registry.handle(id).map(|(_, _, bots)| bots);
        match (bot, bots) {
            (Some(bot), Some(bots)) => Reader {
                participants: Participants::of(&bots, &bot.id),
                omniscient: false,
            },
            _ => Reader::SPECTATOR,
        }
    }

    /// A match's state as `reader` may see it.
    pub(crate) async fn snapshot(
        &self,
        id: MatchId,
        reader: Reader,
        turns: bool,
    ) -> Result<MatchSnapshot, ArenaError> {
        match self
            .ask(id, |reply| Command::Snapshot {
                reader,
                turns,
                reply,
            })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.rebuild(id).await,
            other => other,
        }
    }

    /// A match's summary: whose move it is in each leg, at which revision, without any
    /// view. A match no longer in memory is refused (`MatchNotRunning`) once closed.
    pub(crate) async fn summary(&self, id: MatchId) -> Result<MatchSummary, ArenaError> {
        match self.ask(id, |reply| Command::Summary { reply }).await {
            Err(ArenaError::MatchNotFound(_)) => self.closed_or_missing(id).await,
            other => other,
        }
    }

    /// A closed match's final state, rebuilt from the store.
    async fn rebuild(&self, id: MatchId) -> Result<MatchSnapshot, ArenaError> {
        let record = self.stored_match(id).await?;
        let events = self.context.store.events(id, 0, u32::MAX).await?;
        let setup = self.setup_from(&record)?;
        let progress = live::replay(&setup, record.status, &events)?;
        let mut snapshot = live::snapshot(&setup, &progress, Reader::OMNISCIENT, self.now());
        snapshot.result = serde_json::from_value(record.details["result"].clone())
            .map_err(|e| ArenaError::Unavailable(format!("match {id}'s stored result: {e}")))?;
        Ok(snapshot)
    }

    /// The events after `since` that `reader` may see; waits up to `wait_ms` for one.
    pub(crate) async fn events(
        &self,
        id: MatchId,
        reader: Reader,
        since: i64,
        wait_ms: i64,
    ) -> Result<EventPage, ArenaError> {
        let limit = self.context.config.events_per_page;
        let Some((_, log, _)) = self.registry.handle(id) else {
            // A match no longer in memory: everything is in the store and nothing will change.
            let record = self.stored_match(id).await?;
            let log = MatchLog::new(self.context.store.events(id, 0, u32::MAX).await?);
            return Ok(event_page(
                id,
                since,
                log.page(since, reader, limit),
                record.status,
            ));
        };
        let deadline = self.now() + wait_ms.clamp(0, self.context.config.max_wait_ms);
        let mut changes = log.subscribe();
        loop {
            // Asking the match first brings it up to date with the clock.
            let status = self.status_of(id).await;
            let page = log.page(since, reader, limit);
            if !page.events.is_empty() || self.now() >= deadline {
                return Ok(event_page(id, since, page, status));
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { continue },
                () = self.context.clock.sleep_until(deadline) => {}
                () = self.context.stopped() => return Err(ArenaError::ShuttingDown),
            }
        }
    }

    /// A match's status, after bringing it up to date with the clock.
    async fn status_of(&self, id: MatchId) -> MatchStatus {
        self.ask(id, |reply| Command::Status { reply })
            .await
            .unwrap_or(MatchStatus::Running)
    }

    /// The decisions `bot` has to make in a match; waits up to `wait_ms` for one.
    pub(crate) async fn turns(
        &self,
        bot: &Bot,
        id: MatchId,
        wait_ms: i64,
    ) -> Result<DecisionPage, ArenaError> {
        let reader = self.reader_for(id, Some(bot));
        if reader.participants.is_empty() {
            return match self.registry.handle(id) {
                Some(_) => Err(ArenaError::NotParticipant),
                None => {
                    let record = self.stored_match(id).await?;
                    if record.participants.contains(&bot.id) {
                        Ok(DecisionPage {
                            match_id: id,
                            status: record.status,
                            turns: Vec::new(),
                            server_now_ms: self.now(),
                        })
                    } else {
                        Err(ArenaError::NotParticipant)
                    }
                }
            };
        }
        let (_, log, _) = self
            .registry
            .handle(id)
            .ok_or(ArenaError::MatchNotFound(id))?;
        let deadline = self.now() + wait_ms.clamp(0, self.context.config.max_wait_ms);
        let mut changes = log.subscribe();
        loop {
            let (status, turns) = self
                .ask(id, |reply| Command::Turns {
                    who: reader.participants,
                    reply,
                })
                .await?;
            if !turns.is_empty() || !status.is_open() || self.now() >= deadline {
                return Ok(DecisionPage {
                    match_id: id,
                    status,
                    turns,
                    server_now_ms: self.now(),
                });
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { continue },
                () = self.context.clock.sleep_until(deadline) => {}
                () = self.context.stopped() => return Err(ArenaError::ShuttingDown),
            }
        }
    }

    /// A match's whole event log, with the revealed seed once it has ended.
    pub(crate) async fn export(&self, id: MatchId) -> Result<MatchExport, ArenaError> {
        let record = self.stored_match(id).await?;
        let events = self.context.store.events(id, 0, u32::MAX).await?;
        let seed_shown = !record.status.is_open() && live::TableTerms::seed_shown(&record.details);
        let bots = participants(&record)?.to_vec();
        Ok(MatchExport {
            id,
            game: record.game,
            status: record.status,
            bot_a: bots[0],
            bot_b: bots.get(1).copied(),
            commitment: ServerSeed::from_revealed(&record.seed)
                .commitment()
                .as_hex()
                .to_owned(),
            seed: seed_shown.then_some(record.seed),
            participants: bots,
            // Seat keys are secrets' hashes, for the arena alone.
            details: {
                let mut details = record.details;
                if let Some(details) = details.as_object_mut() {
                    details.remove("seat_keys");
                }
                details
            },
            events: events
                .iter()
                .map(|e| ExportedEvent {
                    seq: e.seq,
                    at_ms: e.at_ms,
                    kind: e.kind.clone(),
                    audience: match e.audience {
                        arbiter_store::Audience::Everyone => None,
                        arbiter_store::Audience::Participant(p) => Some(usize::from(p)),
                    },
                    data: e.payload.clone(),
                })
                .collect(),
        })
    }

    /// Every position of one leg of a closed match, from its start to its end, as anyone may
    /// see it; for replays.
    pub(crate) async fn positions(
        &self,
        id: MatchId,
        leg: usize,
    ) -> Result<Vec<Value>, ArenaError> {
        let record = self.stored_match(id).await?;
        if record.status.is_open() {
            return Err(ArenaError::InvalidRequest(
                "the match is still open; watch it live".to_owned(),
            ));
        }
        let events = self.context.store.events(id, 0, u32::MAX).await?;
        let setup = self.setup_from(&record)?;
        let mut positions = Vec::new();
        live::replay_observed(&setup, record.status, &events, |progress, moved| {
            if let Some(state) = progress.legs.get(leg).map(|l| &l.state)
                && moved.is_none_or(|m| m == leg)
            {
                positions.push(state.view(arbiter_rules::Viewer::Omniscient));
            }
        })?;
        if positions.is_empty() {
            return Err(ArenaError::NoSuchLeg(u8::try_from(leg).unwrap_or(u8::MAX)));
        }
        Ok(positions)
    }

    /// The challenges and matches a bot is in that are still open.
    pub(crate) async fn open_matches_of(&self, bot: BotId) -> Vec<MatchSnapshot> {
        let mut ids = self.registry.open_of(bot);
        // Among servers sharing the store, the bot's other matches run elsewhere: the store
        // knows them, and a snapshot of one is read from it.
        if self.context.config.bus.is_shared() {
            match self.context.store.open_matches_of(bot).await {
                Ok(stored) => {
                    let local = ids.clone();
                    ids.extend(stored.into_iter().filter(|id| !local.contains(id)));
                }
                Err(error) => {
                    tracing::warn!(bot, %error, "cannot list the bot's matches on other servers");
                }
            }
        }
        let mut out = Vec::new();
        for id in ids {
            if let Ok(snapshot) = self.snapshot(id, Reader::SPECTATOR, false).await {
                out.push(snapshot);
            }
        }
        out.sort_by_key(|s| s.id);
        out
    }

    /// The bot's matches that have ended and are still held in memory (up to ten minutes),
    /// most recent first: what a poll shows so that a bot sees how its last matches ended.
    pub(crate) fn recently_closed_of(&self, bot: BotId) -> Vec<MatchId> {
        self.registry.recently_closed_of(bot)
    }

    /// Closed matches, newest first (all, or those of `bot`), at most `limit`, each with its
    /// participants as the directory names them and its stored result.
    pub(crate) async fn closed_matches(
        &self,
        bot: Option<BotId>,
        limit: u32,
    ) -> Result<Vec<ClosedMatch>, ArenaError> {
        let records = self.context.store.closed_matches(bot, limit).await?;
        let mut out = Vec::with_capacity(records.len());
        for m in &records {
            let d = &m.details;
            let listed: Option<Vec<ParticipantSummary>> = participants(m)?
                .iter()
                .enumerate()
                .map(|(i, &id)| {
                    let bot = self.identities.directory.get(id)?;
                    Some(ParticipantSummary {
                        participant: Some(i),
                        ..live::bot_summary(&bot)
                    })
                })
                .collect();
            // The directory holds every bot ever stored, deleted ones too; a match naming one
            // it lacks is left out rather than failing the whole list.
            let Some(listed) = listed else {
                tracing::warn!(match_id = m.id, "closed match of a bot the directory lacks");
                continue;
            };
            out.push(ClosedMatch {
                id: m.id,
                status: m.status,
                game: m.game.clone(),
                variant: d["variant"].as_str().unwrap_or_default().to_owned(),
                rated: d["rated"].as_bool().unwrap_or(false),
                participants: listed,
                created_ms: m.created_ms,
                ended_ms: d["ended_ms"].as_i64(),
                // A result stored in a form this release cannot read should not hide the
                // rest of the list: the match is listed without it.
                result: serde_json::from_value(d["result"].clone()).unwrap_or(None),
            });
        }
        Ok(out)
    }

    /// Every running match as a spectator sees it, newest first, at most `limit`.
    pub(crate) async fn running_matches(&self, limit: usize) -> Vec<MatchSnapshot> {
        let mut out = Vec::new();
        for id in self.registry.running().into_iter().take(limit) {
            if let Ok(snapshot) = self.snapshot(id, Reader::SPECTATOR, false).await {
                out.push(snapshot);
            }
        }
        out
    }
}

fn event_page(id: MatchId, since: i64, page: log::Page, status: MatchStatus) -> EventPage {
    EventPage {
        match_id: id,
        since,
        next_since: page.next_since,
        status,
        events: page
            .events
            .iter()
            .map(|e| EventView {
                seq: e.seq,
                at_ms: e.at_ms,
                kind: e.kind.clone(),
                data: e.payload.clone(),
            })
            .collect(),
    }
}
