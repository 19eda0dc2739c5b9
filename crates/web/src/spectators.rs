//! The legs fragment as spectators read it, rendered once for all of them.
//!
//! After each of a match's events every open page of it fetches `/matches/{id}/legs` at once,
//! and every spectator's fragment is the same but for the visitor's CSRF value: a spectator
//! reads the match as [`Reader::SPECTATOR`], with no seat, form or decision of its own. So the
//! fragment is rendered once per match and position, with a marker where the CSRF value goes,
//! and each spectator is served it with their own value put in; those arriving while it is
//! rendered wait for it rather than render it again.
//!
//! A cached fragment is served only while the match's log has nothing after the event it was
//! rendered at (checked on every fetch, so a new event invalidates it) and for at most
//! [`MAX_AGE_MS`], since its clocks count from the moment it was rendered. It is never a seat's:
//! only spectators' fetches read or fill it, and a visitor whose person plays in the match
//! (who would read their own seat, "You play …", or a table's "Start with bots") is answered
//! apart. It holds at most one fragment per match, and entries older than [`MAX_AGE_MS`] are
//! dropped whenever one is added.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

/// A participant's id (the arena's bot ids).
type BotId = i64;

/// How long a rendered fragment may be served, in milliseconds of the arena's clock: the
/// clocks it shows count from its rendering.
pub(crate) const MAX_AGE_MS: i64 = 1_000;

/// What stands for the CSRF value in a fragment rendered for every spectator: a control
/// character that the templates do not escape, so that it reaches the HTML as it is.
pub(crate) const CSRF_MARKER: &str = "\u{1}csrf\u{1}";

/// A spectator's fragment at one position of a match.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The seq of the match's last event when it was rendered.
    pub(crate) seq: i64,
    /// The HTML before the CSRF value, and after it.
    before: String,
    after: String,
    /// The match's participants, whose people are never served it.
    participants: Vec<BotId>,
}

impl Shared {
    /// A fragment rendered with [`CSRF_MARKER`] as its CSRF value; `None` unless the marker is
    /// there exactly once (a chat line that held it would make the fragment unsafe to share).
    pub(crate) fn of(seq: i64, html: &str, participants: Vec<BotId>) -> Option<Shared> {
        let (before, after) = html.split_once(CSRF_MARKER)?;
        if after.contains(CSRF_MARKER) {
            return None;
        }
        Some(Shared {
            seq,
            before: before.to_owned(),
            after: after.to_owned(),
            participants,
        })
    }

    /// The fragment for a visitor whose person is `person` and CSRF value `csrf`, unless that
    /// person plays in the match.
    pub(crate) fn serve(&self, person: Option<BotId>, csrf: &str) -> Option<String> {
        if person.is_some_and(|person| self.participants.contains(&person)) {
            return None;
        }
        let csrf = escape(csrf);
        let mut html = String::with_capacity(self.before.len() + csrf.len() + self.after.len());
        html.push_str(&self.before);
        html.push_str(&csrf);
        html.push_str(&self.after);
        Some(html)
    }
}

/// Text as an HTML attribute's value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One rendering of a match's spectator fragment, done once by whoever asks first; `None`
/// once done means the fragment could not be shared and each spectator renders their own.
#[derive(Debug)]
pub(crate) struct Slot {
    /// When it was made, on the arena's clock.
    made_ms: i64,
    pub(crate) fragment: OnceCell<Option<Shared>>,
}

impl Slot {
    fn new(now_ms: i64) -> Slot {
        Slot {
            made_ms: now_ms,
            fragment: OnceCell::new(),
        }
    }

    /// Whether the slot may still be served at `now_ms` (a clock set back counts as old).
    fn fresh(&self, now_ms: i64) -> bool {
        (self.made_ms..self.made_ms.saturating_add(MAX_AGE_MS)).contains(&now_ms)
    }
}

/// The spectators' fragment of each match being watched: one slot per match.
#[derive(Debug, Default)]
pub(crate) struct SpectatorFragments {
    slots: Mutex<HashMap<i64, Arc<Slot>>>,
}

impl SpectatorFragments {
    /// Match `id`'s current slot, a new one where there is none, or where it is older than
    /// [`MAX_AGE_MS`] or is `stale` (a slot the caller found behind the match's log).
    pub(crate) fn slot(&self, id: i64, stale: Option<&Arc<Slot>>, now_ms: i64) -> Arc<Slot> {
        let mut slots = crate::lock(&self.slots);
        if let Some(slot) = slots.get(&id) {
            let superseded = stale.is_some_and(|stale| Arc::ptr_eq(stale, slot));
            if slot.fresh(now_ms) && !superseded {
                return slot.clone();
            }
        }
        slots.retain(|_, slot| slot.fresh(now_ms));
        let slot = Arc::new(Slot::new(now_ms));
        slots.insert(id, slot.clone());
        slot
    }

    /// How many matches have a slot.
    #[cfg(test)]
    fn len(&self) -> usize {
        crate::lock(&self.slots).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(id: i64) -> BotId {
        id
    }

    #[test]
    fn each_spectator_gets_their_own_csrf_value_and_no_player_gets_the_shared_fragment() {
        let html = format!(r#"<div data-csrf="{CSRF_MARKER}"><p>line</p></div>"#);
        let shared = Shared::of(7, &html, vec![bot(1), bot(2)]).expect("one marker");
        assert_eq!(
            shared.serve(None, "abc").as_deref(),
            Some(r#"<div data-csrf="abc"><p>line</p></div>"#)
        );
        assert_eq!(
            shared.serve(Some(bot(3)), "a\"b").as_deref(),
            Some(r#"<div data-csrf="a&#34;b"><p>line</p></div>"#)
        );
        // A seat's person reads its own seat, never the spectators' fragment.
        assert_eq!(shared.serve(Some(bot(2)), "abc"), None);
    }

    #[test]
    fn a_fragment_is_shared_only_with_exactly_one_marker() {
        assert!(Shared::of(1, "<div></div>", Vec::new()).is_none());
        let twice = format!("<div data-csrf=\"{CSRF_MARKER}\">{CSRF_MARKER}</div>");
        assert!(Shared::of(1, &twice, Vec::new()).is_none());
    }

    #[test]
    fn a_slot_is_shared_until_it_is_stale_or_too_old() {
        let fragments = SpectatorFragments::default();
        let now = 5_000;
        let first = fragments.slot(1, None, now);
        assert!(Arc::ptr_eq(&first, &fragments.slot(1, None, now)));
        // Another match has its own.
        assert!(!Arc::ptr_eq(&first, &fragments.slot(2, None, now)));
        // Found behind the log (a new event): replaced once, and the new one is shared.
        let second = fragments.slot(1, Some(&first), now);
        assert!(!Arc::ptr_eq(&first, &second));
        assert!(Arc::ptr_eq(&second, &fragments.slot(1, Some(&first), now)));
        // Too old: replaced, and other matches' old slots are dropped.
        let later = now + MAX_AGE_MS;
        let third = fragments.slot(1, None, later);
        assert!(!Arc::ptr_eq(&second, &third));
        assert_eq!(fragments.len(), 1);
    }
}
