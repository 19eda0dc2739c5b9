use std::time::{Duration, Instant};

use super::{Bound, Meter, NO_MOVE, Stoppable, Table, pvs_child, sort_best_first};
use crate::Limits;

/// A table of one slot, so that every key collides.
fn one_slot() -> Table {
    let mut table = Table::with_entries(1);
    table.new_search();
    table
}

#[test]
fn a_stored_score_settles_only_what_its_bound_and_depth_allow() {
    // (bound, stored score, probe depth, alpha, beta, settles)
    let table = [
        (Bound::Exact, 10, 5, -100, 100, true),
        (Bound::Exact, 10, 6, -100, 100, false),
        (Bound::Lower, 10, 5, -100, 10, true),
        (Bound::Lower, 10, 5, -100, 11, false),
        (Bound::Upper, 10, 5, 10, 100, true),
        (Bound::Upper, 10, 5, 9, 100, false),
    ];
    for (bound, score, depth, alpha, beta, settles) in table {
        let mut tt = one_slot();
        tt.store(7, 5, score, bound, 3);
        let probe = tt.probe(7, 1 << 3, depth, alpha, beta);
        assert_eq!(
            probe.cut.is_some(),
            settles,
            "{bound:?} at depth {depth} in ({alpha}, {beta})"
        );
        assert_eq!(
            probe.hint,
            Some(3),
            "the best move is hinted whenever the key matches"
        );
        // Another position in the same slot learns nothing from it, and an illegal best move
        // is no hint.
        let other = tt.probe(8, 1 << 3, depth, alpha, beta);
        assert!(other.cut.is_none() && other.hint.is_none());
        assert!(tt.probe(7, 1 << 4, 6, alpha, beta).hint.is_none());
    }
}

#[test]
fn deeper_entries_stay_within_a_search_and_give_way_to_a_new_one() {
    let mut tt = one_slot();
    tt.store(1, 8, 5, Bound::Exact, NO_MOVE);
    // A shallower result for another position does not push out the deeper one...
    tt.store(2, 3, 6, Bound::Exact, NO_MOVE);
    assert_eq!(tt.probe(1, 0, 8, -100, 100).cut, Some(5));
    // ...but the same position's newer result does, and so does anything in a later search.
    tt.store(1, 2, 7, Bound::Exact, NO_MOVE);
    assert_eq!(tt.probe(1, 0, 2, -100, 100).cut, Some(7));
    tt.store(1, 9, 5, Bound::Exact, NO_MOVE);
    tt.new_search();
    tt.store(2, 1, 6, Bound::Exact, NO_MOVE);
    assert_eq!(tt.probe(2, 0, 1, -100, 100).cut, Some(6));
    assert!(tt.probe(1, 0, 1, -100, 100).cut.is_none());
}

#[test]
fn bounds_are_read_from_the_window() {
    assert_eq!(Bound::of(-5, -5, 5), Bound::Upper);
    assert_eq!(Bound::of(5, -5, 5), Bound::Lower);
    assert_eq!(Bound::of(0, -5, 5), Bound::Exact);
}

#[test]
fn the_sort_is_best_first_and_stable() {
    let mut list = [(1, 10), (3, 11), (1, 12), (3, 13), (2, 14)];
    sort_best_first(&mut list);
    assert_eq!(list, [(3, 11), (3, 13), (2, 14), (1, 10), (1, 12)]);
}

#[test]
fn no_iteration_starts_past_half_the_time() {
    let now = Instant::now();
    // Ten seconds: the monotonic clock of a machine just started may not go back an hour.
    let unit = Duration::from_secs(10);
    // (time since the search started, time left to the deadline, too late)
    let table = [
        (Duration::ZERO, Some(unit), false),
        (unit, Some(3 * unit), false),
        (unit, Some(unit / 2), true),
        (unit, None, false),
    ];
    for (since, left, too_late) in table {
        let limits = Limits {
            deadline: left.map(|left| now + left),
            max_nodes: None,
            selective: false,
        };
        let started = now.checked_sub(since).expect("an instant ten seconds ago");
        assert_eq!(
            Meter::new(&limits).too_late_to_deepen(started),
            too_late,
            "{since:?} in, {left:?} left"
        );
    }
    // A deadline already past stops it, however recently the search began.
    let past = Limits {
        deadline: now.checked_sub(Duration::from_secs(1)),
        max_nodes: None,
        selective: false,
    };
    assert!(Meter::new(&past).too_late_to_deepen(Instant::now()));
}

#[test]
fn the_node_limit_applies_once_enforced() {
    let limits = Limits {
        deadline: None,
        max_nodes: Some(3),
        selective: false,
    };
    let mut meter = Meter::new(&limits);
    assert!(
        (0..10).all(|_| !meter.tick()),
        "not enforced: the first iteration completes"
    );
    meter.enforce = true;
    assert!(meter.tick(), "past the limit");
    assert!(meter.aborted);
}

/// A child whose true value is `value`, searched with fail-soft bounds: it reports its value
/// clamped to the window's edges, records each window it was asked, and stops the search
/// after `stop_after` searches.
struct Child {
    value: i32,
    windows: Vec<(i32, i32)>,
    stop_after: usize,
}

impl Stoppable for Child {
    fn aborted(&self) -> bool {
        self.windows.len() >= self.stop_after
    }
}

#[test]
fn a_later_child_is_searched_again_only_when_it_proves_better_within_the_window() {
    // (first, child's value, parent's window, stop after, windows asked, score)
    let cases = [
        // The first child: the whole window, once.
        (true, 5, (0, 10), 9, vec![(0, 10)], 5),
        // Not better than alpha: the null window proves it.
        (false, -3, (0, 10), 9, vec![(0, 1)], 0),
        // Better than alpha, below beta: searched again for its exact value.
        (false, 5, (0, 10), 9, vec![(0, 1), (0, 10)], 5),
        (false, 12, (0, 10), 9, vec![(0, 1), (0, 10)], 10),
        // In a null window of the parent's own, the fail-high is all there is to know.
        (false, 5, (0, 1), 9, vec![(0, 1)], 1),
        // Stopped during the null window: no second search.
        (false, 5, (0, 10), 1, vec![(0, 1)], 1),
    ];
    for (first, value, (alpha, beta), stop_after, windows, score) in cases {
        let mut child = Child {
            value,
            windows: Vec::new(),
            stop_after,
        };
        let got = pvs_child(&mut child, first, alpha, beta, |child, alpha, beta| {
            child.windows.push((alpha, beta));
            child.value.clamp(alpha, beta)
        });
        assert_eq!((child.windows, got), (windows, score), "value {value}");
    }
}
