//! A match's event log in memory, for long-polls and snapshots, filtered per viewer.

use std::sync::{Arc, RwLock};

use arbiter_store::{Audience, EventRecord};
use tokio::sync::watch;

/// A set of a match's participants, by index (a match has at most eight).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Participants(u8);

impl Participants {
    /// Nobody.
    pub const NONE: Participants = Participants(0);
    /// Every participant there can be.
    pub const ALL: Participants = Participants(u8::MAX);

    /// Only participant `p`.
    pub fn only(p: usize) -> Participants {
        Participants::NONE.with(p)
    }

    /// The participants `bot` plays among `bots` (several for a bot that plays itself).
    pub fn of<T: PartialEq>(bots: &[T], bot: &T) -> Participants {
        bots.iter()
            .enumerate()
            .filter(|(_, b)| *b == bot)
            .fold(Participants::NONE, |set, (p, _)| set.with(p))
    }

    /// This set and participant `p`.
    pub fn with(self, p: usize) -> Participants {
        match u32::try_from(p).ok().and_then(|p| 1u8.checked_shl(p)) {
            Some(bit) => Participants(self.0 | bit),
            None => self,
        }
    }

    /// Whether participant `p` is in the set.
    pub fn contains(self, p: usize) -> bool {
        p < 8 && self.0 >> p & 1 == 1
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The participants in the set below `count`, in order.
    pub fn iter(self, count: usize) -> impl Iterator<Item = usize> {
        (0..count.min(8)).filter(move |&p| self.contains(p))
    }
}

/// Who is reading a match's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reader {
    /// The participants the reader plays (several for a bot playing itself, none for a
    /// spectator).
    pub participants: Participants,
    /// Reads everything (finished matches, exports).
    pub omniscient: bool,
}

impl Reader {
    /// Someone without a seat.
    pub const SPECTATOR: Reader = Reader {
        participants: Participants::NONE,
        omniscient: false,
    };
    /// Sees every event.
    pub const OMNISCIENT: Reader = Reader {
        participants: Participants::ALL,
        omniscient: true,
    };

    /// Whether the reader may see an event for `audience`.
    pub fn sees(&self, audience: Audience) -> bool {
        match audience {
            Audience::Everyone => true,
            Audience::Participant(p) => {
                self.omniscient || self.participants.contains(usize::from(p))
            }
        }
    }
}

/// One page of a match's log for one reader.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    /// The visible events after `since`, in order.
    pub events: Vec<Arc<EventRecord>>,
    /// The `since` to ask with next: the last seq this page covered.
    pub next_since: i64,
}

/// A match's events, appended in order, with a signal for waiters.
pub struct MatchLog {
    events: RwLock<Vec<Arc<EventRecord>>>,
    latest: watch::Sender<i64>,
}

impl MatchLog {
    /// A log holding `events` (seq 1, 2, … in order).
    pub fn new(events: Vec<EventRecord>) -> MatchLog {
        let latest = events.last().map_or(0, |e| e.seq);
        MatchLog {
            events: RwLock::new(events.into_iter().map(Arc::new).collect()),
            latest: watch::channel(latest).0,
        }
    }

    /// Appends committed events and wakes waiters.
    pub fn append(&self, new: &[Arc<EventRecord>]) {
        let Some(last) = new.last() else { return };
        self.events
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(new);
        self.latest.send_replace(last.seq);
    }

    /// The last seq.
    pub fn latest(&self) -> i64 {
        *self.latest.borrow()
    }

    /// A receiver that changes whenever events are appended.
    pub fn subscribe(&self) -> watch::Receiver<i64> {
        self.latest.subscribe()
    }

    /// The events after `since` that `reader` may see, at most `limit`.
    pub fn page(&self, since: i64, reader: Reader, limit: usize) -> Page {
        let events = self
            .events
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let start = usize::try_from(since.max(0))
            .unwrap_or(usize::MAX)
            .min(events.len());
        let mut page = Vec::new();
        let mut next_since = since.max(events.last().map_or(0, |e| e.seq));
        for event in &events[start..] {
            if page.len() == limit {
                next_since = page.last().map_or(since, |e: &Arc<EventRecord>| e.seq);
                break;
            }
            if reader.sees(event.audience) {
                page.push(event.clone());
            }
        }
        Page {
            events: page,
            next_since,
        }
    }

    /// Every event, for exports.
    pub fn all(&self) -> Vec<Arc<EventRecord>> {
        self.events
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(seq: i64, audience: Audience) -> EventRecord {
        EventRecord {
            match_id: 1,
            seq,
            at_ms: seq,
            audience,
            kind: "x".into(),
            payload: EventRecord::payload_of(&json!(seq)),
        }
    }

    #[test]
    fn pages_filter_by_reader_and_respect_the_limit() {
        let log = MatchLog::new(vec![event(1, Audience::Everyone)]);
        log.append(
            &[
                event(2, Audience::Participant(0)),
                event(3, Audience::Participant(1)),
                event(4, Audience::Everyone),
            ]
            .map(Arc::new),
        );
        assert_eq!(log.latest(), 4);
        let seqs = |page: Page| {
            (
                page.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
                page.next_since,
            )
        };
        assert_eq!(seqs(log.page(0, Reader::SPECTATOR, 100)), (vec![1, 4], 4));
        let p0 = Reader {
            participants: Participants::only(0),
            omniscient: false,
        };
        assert_eq!(
            Participants::of(&[3, 5, 3], &3),
            Participants::only(0).with(2)
        );
        assert_eq!(Participants::only(2).iter(4).collect::<Vec<_>>(), [2]);
        assert!(
            Participants::only(9).is_empty(),
            "at most eight participants"
        );
        assert_eq!(seqs(log.page(1, p0, 100)), (vec![2, 4], 4));
        assert_eq!(seqs(log.page(0, Reader::OMNISCIENT, 2)), (vec![1, 2], 2));
        assert_eq!(seqs(log.page(2, Reader::OMNISCIENT, 2)), (vec![3, 4], 4));
        assert_eq!(seqs(log.page(4, Reader::SPECTATOR, 100)), (vec![], 4));
        assert_eq!(seqs(log.page(99, Reader::SPECTATOR, 100)), (vec![], 99));
    }
}
