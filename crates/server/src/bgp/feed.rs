//! A match's events in the protocol's words, translated once from the arena's log and kept
//! for every reader: `seq` counts the protocol's events from 1 without a gap, the same for
//! every request and after a restart (the translation of the same log is the same).
//!
//! Each open match that someone reads has one [`Feed`]: one task waits on the arena's log
//! and translates what it appends, then wakes every waiting reader through a watch channel,
//! so a thousand spectators cost one arena long-poll and one translation per event. Each
//! event is written as JSON text once, when it is translated; a page is those texts joined.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use arbiter_arena::{Arena, ArenaError, Family, MatchStatus, Reader, utc_datetime};
use arbiter_plugin::{Point, PointBoard};
use arbiter_store::MatchId;
use serde_json::{Value, json};
use tokio::sync::watch;

/// The most events one response carries.
pub(crate) const PAGE_LIMIT: usize = 100;

/// One event of the protocol, as every reader receives it, with what only its seat's
/// owner may read besides.
#[derive(Debug)]
pub(crate) struct BgpEvent {
    /// Its `seq`.
    pub(crate) seq: i64,
    /// When it happened, on the arena's clock.
    pub(crate) at_ms: i64,
    /// The event as everyone reads it.
    pub(crate) value: Value,
    /// The same, as JSON text.
    pub(crate) text: String,
    /// The mover's private analysis of a stone, for the seat's owner alone: the seat and
    /// the analysis.
    pub(crate) private: Option<(usize, Value)>,
}

impl BgpEvent {
    /// The event's `type`.
    pub(crate) fn kind(&self) -> &str {
        self.value["type"].as_str().unwrap_or_default()
    }

    /// The event as JSON text for a reader who owns `owned` seats.
    pub(crate) fn text_for(&self, owned: &[usize]) -> std::borrow::Cow<'_, str> {
        match &self.private {
            Some((seat, analysis)) if owned.contains(seat) => {
                let mut value = self.value.clone();
                value["analysis"] = analysis.clone();
                std::borrow::Cow::Owned(value.to_string())
            }
            _ => std::borrow::Cow::Borrowed(&self.text),
        }
    }
}

/// What every reader of a feed shares.
#[derive(Default)]
struct Published {
    events: Vec<Arc<BgpEvent>>,
    /// The protocol's status: `waiting`, `in_progress`, `finished` or `cancelled`.
    status: &'static str,
}

/// The translation's own state, which only one task changes at a time.
struct Translator {
    family: &'static Family,
    points: &'static dyn PointBoard,
    /// The last arena event translated.
    arena_seq: i64,
    size: u32,
    per_turn_ms: i64,
    /// Each seat's name, as the protocol shows it.
    names: Vec<String>,
    /// The seat to move, while the match runs.
    to_move: Option<usize>,
    moves: u32,
    /// The stone or pass each arena move event became, by the arena's seq.
    moves_by_arena_seq: HashMap<i64, usize>,
    /// A turn that begins after a move, written once the move's notes are in.
    pending_turn: Option<(usize, i64)>,
    drafts: Vec<Draft>,
    next_seq: i64,
    status: &'static str,
}

/// An event being written: it may still get a note's analysis.
struct Draft {
    seq: i64,
    at_ms: i64,
    value: Value,
    private: Option<(usize, Value)>,
}

/// One match's feed.
pub(crate) struct Feed {
    id: MatchId,
    translator: tokio::sync::Mutex<Translator>,
    published: RwLock<Published>,
    /// The number of events published, for waiters.
    count: watch::Sender<usize>,
}

/// How many feeds of closed matches are kept, for readers who come after the end.
const CLOSED_KEPT: usize = 256;

/// The feeds of the open matches someone reads, and of the last matches that closed.
#[derive(Default)]
pub(crate) struct Feeds {
    open: Mutex<HashMap<MatchId, Arc<Feed>>>,
    /// The most recently closed, newest last.
    closed: Mutex<std::collections::VecDeque<Arc<Feed>>>,
}

/// The protocol's name of a status.
pub(crate) fn status_name(status: MatchStatus) -> &'static str {
    match status {
        MatchStatus::Pending => "waiting",
        MatchStatus::Running => "in_progress",
        MatchStatus::Finished => "finished",
        MatchStatus::Aborted | MatchStatus::Rejected | MatchStatus::Expired => "cancelled",
    }
}

/// A time as the protocol writes it: ISO 8601 in UTC.
pub(crate) fn iso(ms: i64) -> String {
    format!("{}Z", utc_datetime(ms).replacen(' ', "T", 1))
}

/// Unix seconds, as `deadline_ts` counts them.
pub(crate) fn unix_s(ms: i64) -> i64 {
    ms.div_euclid(1000)
}

/// The seat's name as the protocol shows it: a guest's own, else the bot's.
pub(crate) fn player_name(bot_name: &str) -> String {
    arbiter_arena::table_guest_name(bot_name)
        .unwrap_or(bot_name)
        .to_owned()
}

/// Why a match ended, in the protocol's words: `resigned`, `timeout`, `draw`, else the
/// rules' reason as the family spells it for points (`five_in_row`).
pub(crate) fn reason_word(points: &dyn PointBoard, reason: &str, winner: Option<usize>) -> String {
    match reason {
        "resign" => "resigned".to_owned(),
        "timeout" | "double_timeout" => "timeout".to_owned(),
        _ if winner.is_none() => "draw".to_owned(),
        other => points.reason_word(other),
    }
}

/// A result's one-line summary: who won, on which move and why.
pub(crate) fn summary(colours: &[&str], winner: Option<usize>, moves: u32, reason: &str) -> String {
    match winner {
        Some(seat) => format!(
            "{} wins on move {moves} ({reason})",
            colours.get(seat).copied().unwrap_or("seat")
        ),
        None => format!("draw after {moves} moves ({reason})"),
    }
}

impl Feeds {
    /// The feed of match `id`, whose game is `family`'s: the shared one while the match is
    /// open, brought up to date; for a closed match, one made for this request alone.
    pub(crate) async fn feed(
        self: &Arc<Self>,
        arena: &Arena,
        id: MatchId,
        family: &'static Family,
        points: &'static dyn PointBoard,
    ) -> Result<Arc<Feed>, ArenaError> {
        if let Some(feed) = self.kept(id) {
            feed.sync(arena).await?;
            return Ok(feed);
        }
        let feed = Arc::new(Feed::new(id, family, points));
        feed.sync(arena).await?;
        if !feed.is_closed() {
            let shared = {
                let mut open = self.lock();
                match open.get(&id) {
                    Some(other) => other.clone(),
                    None => {
                        open.insert(id, feed.clone());
                        tokio::spawn(pump(arena.clone(), self.clone(), feed.clone()));
                        feed
                    }
                }
            };
            shared.sync(arena).await?;
            return Ok(shared);
        }
        self.keep_closed(feed.clone());
        Ok(feed)
    }

    /// The feed of match `id` if one is kept (the match is open and read, or closed
    /// recently), as it stands.
    pub(crate) fn kept(&self, id: MatchId) -> Option<Arc<Feed>> {
        let open = self.lock().get(&id).cloned();
        open.or_else(|| {
            self.closed_lock()
                .iter()
                .find(|feed| feed.id == id)
                .cloned()
        })
    }

    /// Keeps a closed match's feed among the last [`CLOSED_KEPT`].
    fn keep_closed(&self, feed: Arc<Feed>) {
        let mut closed = self.closed_lock();
        if closed.iter().any(|kept| kept.id == feed.id) {
            return;
        }
        if closed.len() == CLOSED_KEPT {
            closed.pop_front();
        }
        closed.push_back(feed);
    }

    fn closed_lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Arc<Feed>>> {
        self.closed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<MatchId, Arc<Feed>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Translates what the arena appends to an open match's log as it appends it, until the
/// match has closed (or the arena stops); then the feed is no longer shared.
async fn pump(arena: Arena, feeds: Arc<Feeds>, feed: Arc<Feed>) {
    loop {
        let since = feed.translator.lock().await.arena_seq;
        let waited = arena
            .events(
                feed.id,
                Reader::OMNISCIENT,
                since,
                arena.config().max_wait_ms,
            )
            .await;
        if waited.is_err() || feed.sync(&arena).await.is_err() || feed.is_closed() {
            break;
        }
    }
    feeds.lock().remove(&feed.id);
    if feed.is_closed() {
        feeds.keep_closed(feed);
    }
}

impl Feed {
    fn new(id: MatchId, family: &'static Family, points: &'static dyn PointBoard) -> Feed {
        Feed {
            id,
            translator: tokio::sync::Mutex::new(Translator {
                family,
                points,
                arena_seq: 0,
                size: 0,
                per_turn_ms: 0,
                names: Vec::new(),
                to_move: None,
                moves: 0,
                moves_by_arena_seq: HashMap::new(),
                pending_turn: None,
                drafts: Vec::new(),
                next_seq: 1,
                status: "waiting",
            }),
            published: RwLock::new(Published {
                events: Vec::new(),
                status: "waiting",
            }),
            count: watch::channel(0).0,
        }
    }

    /// The match.
    pub(crate) fn id(&self) -> MatchId {
        self.id
    }

    /// Translates whatever the arena's log holds beyond what was translated, and publishes it.
    pub(crate) async fn sync(&self, arena: &Arena) -> Result<(), ArenaError> {
        let mut translator = self.translator.lock().await;
        loop {
            let page = arena
                .events(self.id, Reader::OMNISCIENT, translator.arena_seq, 0)
                .await?;
            if page.events.is_empty() {
                break;
            }
            for event in &page.events {
                if event.seq > translator.arena_seq {
                    let data: Value = serde_json::from_str(event.data.get()).unwrap_or(Value::Null);
                    translator.translate(event.seq, event.at_ms, &event.kind, &data);
                    translator.arena_seq = event.seq;
                }
            }
            if page.next_since <= translator.arena_seq && page.events.len() < PAGE_LIMIT {
                break;
            }
            translator.arena_seq = translator.arena_seq.max(page.next_since);
        }
        // Every note of a move is in the same write as the move, so the turn after it can
        // be written now.
        translator.flush_turn();
        let drafts = std::mem::take(&mut translator.drafts);
        let status = translator.status;
        drop(translator);
        let mut published = self
            .published
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        published.status = status;
        if drafts.is_empty() {
            return Ok(());
        }
        published.events.extend(drafts.into_iter().map(|draft| {
            Arc::new(BgpEvent {
                seq: draft.seq,
                at_ms: draft.at_ms,
                text: draft.value.to_string(),
                value: draft.value,
                private: draft.private,
            })
        }));
        let count = published.events.len();
        drop(published);
        self.count.send_replace(count);
        Ok(())
    }

    /// The published events after `since`, at most [`PAGE_LIMIT`], and the status.
    pub(crate) fn page(&self, since: i64) -> (Vec<Arc<BgpEvent>>, &'static str) {
        let published = self
            .published
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let start = usize::try_from(since.max(0))
            .unwrap_or(usize::MAX)
            .min(published.events.len());
        let end = (start + PAGE_LIMIT).min(published.events.len());
        (published.events[start..end].to_vec(), published.status)
    }

    /// Every published event.
    pub(crate) fn all(&self) -> Vec<Arc<BgpEvent>> {
        self.published
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .events
            .clone()
    }

    /// How many events there are.
    pub(crate) fn total(&self) -> i64 {
        i64::try_from(*self.count.borrow()).unwrap_or(i64::MAX)
    }

    /// The `seq` of the stone or pass that the arena's move event `arena_seq` became.
    pub(crate) async fn seq_of_move(&self, arena_seq: i64) -> Option<i64> {
        let translator = self.translator.lock().await;
        let index = *translator.moves_by_arena_seq.get(&arena_seq)?;
        Some(i64::try_from(index).ok()? + 1)
    }

    /// Whether the match has closed.
    pub(crate) fn is_closed(&self) -> bool {
        matches!(
            self.published
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .status,
            "finished" | "cancelled"
        )
    }

    /// Waits until there are events after `since`, the arena's clock reaches `deadline_ms`,
    /// or the arena stops; not at all once the match has closed, when nothing more comes.
    pub(crate) async fn wait_beyond(&self, arena: &Arena, since: i64, deadline_ms: i64) {
        let mut changes = self.count.subscribe();
        loop {
            if self.total() > since || arena.now_ms() >= deadline_ms || self.is_closed() {
                return;
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return },
                () = arena.sleep_until(deadline_ms) => return,
                () = arena.stopped() => return,
            }
        }
    }
}

impl Translator {
    fn push(&mut self, at_ms: i64, mut value: Value) -> usize {
        let seq = self.next_seq;
        self.next_seq += 1;
        value["seq"] = json!(seq);
        value["ts"] = json!(iso(at_ms));
        self.drafts.push(Draft {
            seq,
            at_ms,
            value,
            private: None,
        });
        usize::try_from(seq - 1).unwrap_or(0)
    }

    /// The draft of published-or-not event `index`, if it is still a draft.
    fn draft_mut(&mut self, index: usize) -> Option<&mut Draft> {
        let seq = i64::try_from(index).ok()? + 1;
        self.drafts.iter_mut().find(|draft| draft.seq == seq)
    }

    fn flush_turn(&mut self) {
        if let Some((seat, at_ms)) = self.pending_turn.take() {
            let deadline = unix_s(at_ms + self.per_turn_ms);
            self.push(
                at_ms,
                json!({"type": "turn_started", "seat": seat, "deadline_ts": deadline}),
            );
        }
    }

    fn name(&self, seat: usize) -> String {
        self.names.get(seat).cloned().unwrap_or_default()
    }

    fn translate(&mut self, arena_seq: i64, at_ms: i64, kind: &str, data: &Value) {
        let participant = data["participant"]
            .as_u64()
            .and_then(|p| usize::try_from(p).ok());
        match kind {
            // A move's notes belong before the turn that follows it.
            "note" => {}
            "leg_finished" | "finished" | "expired" | "aborted" | "rejected" | "cancelled" => {
                self.pending_turn = None;
            }
            _ => self.flush_turn(),
        }
        match kind {
            "challenge" => {
                let variant = data["variant"].as_str().unwrap_or_default();
                self.size = self.points.size_of_variant(variant).unwrap_or(0);
                self.per_turn_ms = data["time_control"]["per_turn_ms"].as_i64().unwrap_or(0);
                let name = player_name(data["bot_a"]["name"].as_str().unwrap_or_default());
                self.names = vec![name.clone()];
                let config = json!({
                    "board_size": self.size,
                    "turn_timeout": self.per_turn_ms / 1000,
                    "variant": variant,
                });
                self.push(
                    at_ms,
                    json!({
                        "type": "match_created",
                        "game": self.family.id(),
                        "players": [{"seat": 0, "name": name}],
                        "config": config,
                    }),
                );
            }
            "joined" => {
                let seat = participant.unwrap_or(self.names.len());
                let name = player_name(data["bot"]["name"].as_str().unwrap_or_default());
                self.names.resize(seat, String::new());
                self.names.push(name.clone());
                self.push(
                    at_ms,
                    json!({"type": "player_joined", "seat": seat, "name": name}),
                );
            }
            "started" => {
                self.status = "in_progress";
                self.to_move = Some(0);
                let deadline = unix_s(at_ms + self.per_turn_ms);
                self.push(
                    at_ms,
                    json!({"type": "match_started", "first_seat": 0, "deadline_ts": deadline}),
                );
                self.pending_turn = Some((0, at_ms));
            }
            "move" => {
                let seat = participant.unwrap_or(0);
                let colour_seat = data["seat"]
                    .as_u64()
                    .and_then(|s| usize::try_from(s).ok())
                    .unwrap_or(seat);
                let colour = self
                    .points
                    .colours()
                    .get(colour_seat)
                    .copied()
                    .unwrap_or("");
                self.moves += 1;
                let event = match self.points.point_of(self.size, &data["action"]) {
                    Some(Point { x, y }) => json!({
                        "type": "stone_placed",
                        "seat": seat,
                        "x": x,
                        "y": y,
                        "color": colour,
                        "move_number": self.moves,
                    }),
                    None => json!({
                        "type": "passed",
                        "seat": seat,
                        "color": colour,
                        "move_number": self.moves,
                    }),
                };
                let index = self.push(at_ms, event);
                self.moves_by_arena_seq.insert(arena_seq, index);
                // Turns alternate between the two seats, a pass being a move.
                let next = 1 - seat.min(1);
                self.to_move = Some(next);
                self.pending_turn = Some((next, at_ms));
            }
            "note" => self.note(at_ms, participant.unwrap_or(0), data),
            "turn_warning" => {
                let seat = participant.unwrap_or(0);
                self.push(
                    at_ms,
                    json!({
                        "type": "turn_warning",
                        "seat": seat,
                        "seconds_left": data["seconds_left"],
                    }),
                );
            }
            "leg_finished" if data["reason"] == "timeout" => {
                let seat = self.to_move.unwrap_or(0);
                self.push(
                    at_ms,
                    json!({"type": "turn_forfeit", "seat": seat, "winner_seat": 1 - seat.min(1)}),
                );
            }
            "finished" => {
                self.status = "finished";
                self.to_move = None;
                let winner = data["winner"]
                    .as_u64()
                    .and_then(|w| usize::try_from(w).ok());
                let reason = reason_word(
                    self.points,
                    data["reason"].as_str().unwrap_or_default(),
                    winner,
                );
                let summary = summary(self.points.colours(), winner, self.moves, &reason);
                self.push(
                    at_ms,
                    json!({
                        "type": "match_finished",
                        "winner_seat": winner,
                        "reason": reason,
                        "summary": summary,
                    }),
                );
            }
            "expired" | "aborted" | "rejected" | "cancelled" => {
                self.status = "cancelled";
                self.to_move = None;
                let reason = match kind {
                    "expired" => "nobody_joined".to_owned(),
                    _ => data["reason"].as_str().unwrap_or(kind).to_owned(),
                };
                self.push(at_ms, json!({"type": "match_cancelled", "reason": reason}));
            }
            _ => {}
        }
    }

    /// A move's note: its public analysis goes out with the stone, its comment as a
    /// `comment_posted` event, its private analysis with the stone to the seat's owner.
    fn note(&mut self, at_ms: i64, seat: usize, data: &Value) {
        let Some(index) = data["move_seq"]
            .as_i64()
            .and_then(|seq| self.moves_by_arena_seq.get(&seq).copied())
        else {
            return;
        };
        let note = &data["note"];
        if let Some(analysis) = note.get("private_analysis") {
            if let Some(draft) = self.draft_mut(index) {
                draft.private = Some((seat, analysis.clone()));
            }
            return;
        }
        if let Some(analysis) = note.get("analysis")
            && let Some(draft) = self.draft_mut(index)
        {
            draft.value["analysis"] = analysis.clone();
        }
        if let Some(text) = note.get("comment").and_then(Value::as_str) {
            let name = self.name(seat);
            self.push(
                at_ms,
                json!({"type": "comment_posted", "seat": seat, "name": name, "text": text}),
            );
        }
    }
}
