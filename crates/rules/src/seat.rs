//! Seats, sets of seats, viewers and the visibility of events.

use serde::{Deserialize, Serialize};

/// The largest number of seats a game may have.
///
/// Fate Tokens needs eight; sixteen leaves room and keeps [`SeatSet`] one `u16`.
pub const MAX_SEATS: usize = 16;

/// A seat at the table, numbered from zero in the order the game defines
/// (for Othello seat 0 is Black and seat 1 is White).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat number as an index into per-seat arrays.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A set of seats, stored as a bit mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SeatSet(u16);

impl SeatSet {
    /// The empty set.
    pub const EMPTY: SeatSet = SeatSet(0);

    /// The set of the first `count` seats.
    pub fn first(count: usize) -> SeatSet {
        debug_assert!(count <= MAX_SEATS);
        if count >= MAX_SEATS {
            SeatSet(u16::MAX)
        } else {
            SeatSet((1u16 << count) - 1)
        }
    }

    /// The set holding one seat.
    pub fn only(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    /// Whether `seat` is in the set.
    pub fn contains(self, seat: Seat) -> bool {
        usize::from(seat.0) < MAX_SEATS && self.0 & (1 << seat.0) != 0
    }

    /// The set with `seat` added.
    #[must_use]
    pub fn with(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 | 1 << seat.0)
    }

    /// The set with `seat` removed.
    #[must_use]
    pub fn without(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 & !(1 << seat.0))
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of seats in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The seats in ascending order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..MAX_SEATS as u8)
            .map(Seat)
            .filter(move |&s| self.contains(s))
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Self {
        iter.into_iter().fold(SeatSet::EMPTY, SeatSet::with)
    }
}

/// Who is looking at a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "seat")]
pub enum Viewer {
    /// A player, who may see their own secrets and nothing else hidden.
    Seat(Seat),
    /// Anyone without a seat: sees only public information.
    Spectator,
    /// Sees everything: replays and exports after the game has ended, and audits.
    /// The arena must never hand this view out while a game is running.
    Omniscient,
}

/// Who may see an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "seats")]
pub enum Visibility {
    /// Every player and every spectator.
    Everyone,
    /// Only these seats (and omniscient viewers).
    Seats(SeatSet),
}

impl Visibility {
    /// The visibility of an event meant for one seat only.
    pub fn only(seat: Seat) -> Visibility {
        Visibility::Seats(SeatSet::only(seat))
    }

    /// Whether `viewer` may see an event with this visibility.
    pub fn allows(self, viewer: Viewer) -> bool {
        match (self, viewer) {
            (_, Viewer::Omniscient) | (Visibility::Everyone, _) => true,
            (Visibility::Seats(seats), Viewer::Seat(seat)) => seats.contains(seat),
            (Visibility::Seats(_), Viewer::Spectator) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_set_operations() {
        let set = SeatSet::first(3).without(Seat(1));
        assert!(set.contains(Seat(0)) && !set.contains(Seat(1)) && set.contains(Seat(2)));
        assert_eq!(set.len(), 2);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![Seat(0), Seat(2)]);
        assert_eq!([Seat(0), Seat(2)].into_iter().collect::<SeatSet>(), set);
        assert!(SeatSet::EMPTY.is_empty());
        assert_eq!(SeatSet::first(MAX_SEATS).len(), MAX_SEATS);
        assert!(!set.contains(Seat(200)));
    }

    #[test]
    fn visibility_rules() {
        let mine = Visibility::only(Seat(1));
        let cases = [
            (Visibility::Everyone, Viewer::Spectator, true),
            (Visibility::Everyone, Viewer::Seat(Seat(0)), true),
            (mine, Viewer::Seat(Seat(1)), true),
            (mine, Viewer::Seat(Seat(0)), false),
            (mine, Viewer::Spectator, false),
            (mine, Viewer::Omniscient, true),
        ];
        for (visibility, viewer, expected) in cases {
            assert_eq!(
                visibility.allows(viewer),
                expected,
                "{visibility:?} {viewer:?}"
            );
        }
    }
}
