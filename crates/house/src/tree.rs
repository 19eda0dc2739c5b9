//! What the two searches (the built-in evaluation's, `search.rs`, and the trained weights',
//! `midgame.rs`) share: the transposition table, the bookkeeping of their limits, and the
//! sort of their move lists.

use std::time::Instant;

use crate::Limits;

/// How often (in nodes, a power of two) a search reads the clock.
const CLOCK_INTERVAL: u64 = 1024;
/// Marks an entry without a best move.
pub(crate) const NO_MOVE: u8 = u8::MAX;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The value is exactly the score.
    Exact,
    /// The value is at least the score (a beta cut-off).
    Lower,
    /// The value is at most the score (every move failed low).
    Upper,
}

impl Bound {
    /// What `score`, the best of a node searched within `(alpha, beta)`, says.
    pub(crate) fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score <= alpha {
            Bound::Upper
        } else if score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// One transposition-table slot.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The full hash, to tell the position apart from others sharing the slot.
    key: u64,
    /// The score, from the mover's point of view.
    score: i32,
    /// The remaining depth the score was searched to.
    depth: u8,
    /// The search that stored it.
    generation: u8,
    /// What the score bounds.
    bound: Bound,
    /// The best or refuting move's square, or [`NO_MOVE`].
    best: u8,
}

// The tables' memory budgets assume this size.
const _: () = assert!(size_of::<Entry>() == 16);

/// An empty slot: depth 0 never answers a probe and [`NO_MOVE`] suggests nothing.
const EMPTY: Entry = Entry {
    key: 0,
    score: 0,
    depth: 0,
    generation: 0,
    bound: Bound::Upper,
    best: NO_MOVE,
};

/// What a probe of the table found for a position.
pub(crate) struct Probe {
    /// The stored best move, if it is legal here.
    pub(crate) hint: Option<u8>,
    /// The stored score, if it settles the node at this depth and window.
    pub(crate) cut: Option<i32>,
}

/// A transposition table: a power-of-two vector indexed by the position's hash, and the
/// generation of the search using it.
pub(crate) struct Table {
    entries: Vec<Entry>,
    generation: u8,
}

impl Table {
    /// A table of `entries` slots (a power of two).
    pub(crate) fn with_entries(entries: usize) -> Table {
        Table {
            entries: vec![EMPTY; entries],
            generation: 0,
        }
    }

    /// Marks the start of a search: the entries of earlier ones give way to its own.
    pub(crate) fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 1)
    }

    /// What the table knows of the position `key` with legal moves `moves`, searched
    /// `depth` plies within `(alpha, beta)`.
    pub(crate) fn probe(&self, key: u64, moves: u128, depth: u32, alpha: i32, beta: i32) -> Probe {
        let entry = self.entries.get(self.slot(key)).copied().unwrap_or(EMPTY);
        if entry.key != key {
            return Probe {
                hint: None,
                cut: None,
            };
        }
        let hint = (entry.best != NO_MOVE && moves >> entry.best & 1 != 0).then_some(entry.best);
        let settles = u32::from(entry.depth) >= depth
            && match entry.bound {
                Bound::Exact => true,
                Bound::Lower => entry.score >= beta,
                Bound::Upper => entry.score <= alpha,
            };
        Probe {
            hint,
            cut: settles.then_some(entry.score),
        }
    }

    /// Stores what a search of the position `key` to `depth` found. Depth-preferred: another
    /// position's entry of the same search gives way only to one at least as deep, so the
    /// expensive results near the root survive the flood of shallow ones; an older search's
    /// entry always gives way, so a table kept between moves never fills with stale results.
    pub(crate) fn store(&mut self, key: u64, depth: u32, score: i32, bound: Bound, best: u8) {
        let generation = self.generation;
        let slot = self.slot(key);
        if let Some(slot) = self.entries.get_mut(slot)
            && (slot.key == key || slot.generation != generation || u32::from(slot.depth) <= depth)
        {
            *slot = Entry {
                key,
                score,
                depth: depth.min(u32::from(u8::MAX)) as u8,
                generation,
                bound,
                best,
            };
        }
    }
}

/// The finaliser of SplitMix64: a cheap, well-mixing bijection on 64 bits.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Sorts `(key, square)` pairs by key, highest first. Few moves: an insertion sort is
/// fastest, and it is stable, so equal keys keep square order and searches stay
/// deterministic.
pub(crate) fn sort_best_first(list: &mut [(i32, u8)]) {
    for i in 1..list.len() {
        let mut j = i;
        while j > 0 && list[j - 1].0 < list[j].0 {
            list.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// A search that its [`Meter`] can stop.
pub(crate) trait Stoppable {
    /// Whether a limit stopped the search: every score since is meaningless.
    fn aborted(&self) -> bool;
}

/// The score of one child in a principal-variation search, from the parent's side. The
/// first child is searched with the whole window `(alpha, beta)`. Each later one is searched
/// first with a null window at `alpha`, which proves it no better cheaply, and again with the
/// whole window only when it proved better and below `beta`, unless the search was stopped
/// meanwhile. `search(searcher, alpha, beta)` searches the child within a window given from
/// the parent's side.
pub(crate) fn pvs_child<S: Stoppable>(
    searcher: &mut S,
    first: bool,
    alpha: i32,
    beta: i32,
    mut search: impl FnMut(&mut S, i32, i32) -> i32,
) -> i32 {
    if first {
        return search(searcher, alpha, beta);
    }
    let probe = search(searcher, alpha, alpha + 1);
    if probe > alpha && probe < beta && !searcher.aborted() {
        search(searcher, alpha, beta)
    } else {
        probe
    }
}

/// A search's count of nodes against its [`Limits`].
pub(crate) struct Meter<'a> {
    limits: &'a Limits,
    /// Nodes visited.
    pub(crate) nodes: u64,
    /// Whether the limits apply yet: a search's first iteration always completes.
    pub(crate) enforce: bool,
    /// Set once a limit is hit; every caller then unwinds and the iteration is discarded.
    pub(crate) aborted: bool,
}

impl Meter<'_> {
    /// A meter of nothing yet, not yet enforcing `limits`.
    pub(crate) fn new(limits: &Limits) -> Meter<'_> {
        Meter {
            limits,
            nodes: 0,
            enforce: false,
            aborted: false,
        }
    }

    /// Whether the deadline, if any, has passed.
    fn past_deadline(&self) -> bool {
        self.limits
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// Whether an iteration begun now would probably be abandoned, in a search begun at
    /// `started`: once the deadline has passed, or half the time to it is spent. Each
    /// iteration takes a few times as long as the one before, so one begun past half the
    /// time would rarely finish, and its time is better kept on the clock for later moves.
    pub(crate) fn too_late_to_deepen(&self, started: Instant) -> bool {
        self.limits.deadline.is_some_and(|deadline| {
            let allowed = deadline.saturating_duration_since(started);
            self.past_deadline() || started.elapsed() * 2 > allowed
        })
    }

    /// Counts a node and reports whether the search must stop: the node limit is checked at
    /// every node, the clock every [`CLOCK_INTERVAL`].
    #[inline]
    pub(crate) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if !self.enforce {
            return false;
        }
        if self.aborted
            || self.limits.max_nodes.is_some_and(|max| self.nodes > max)
            || (self.nodes.is_multiple_of(CLOCK_INTERVAL) && self.past_deadline())
        {
            self.aborted = true;
        }
        self.aborted
    }
}

#[cfg(test)]
mod tests;
