//! The search depth for an engine that ignores the clock (Edax in its NBoard mode), chosen move
//! by move from what is left on the clock and how long the engine took at each depth.
//!
//! Each move is allowed its share of the clock: what is left, less the margin kept for the trip
//! to the server, over the moves the mover still has to make, and never more than the per-move
//! budget. After each search the time it took is compared with that share. The depth goes up
//! by one when a search one ply deeper is expected to fit (the time taken times the growth per
//! ply), and down by as many plies as it takes when the search took longer than the share. The
//! growth per ply is measured between searches at successive depths. A search stopped at the
//! per-move budget lowers the depth as if it had taken the whole budget.

use std::time::Duration;

use arbiter_engine_protocol::EngineRequest;

/// The first search's depth, before anything is measured: quick for any engine.
const START_DEPTH: u8 = 4;
/// The shallowest and the deepest searches asked for.
const MIN_DEPTH: u8 = 1;
const MAX_DEPTH: u8 = 60;
/// The growth per ply assumed until it is measured, and the range a measurement is held to,
/// so that one odd search does not swing it.
const START_GROWTH: f64 = 3.0;
const GROWTH_RANGE: (f64, f64) = (1.5, 10.0);
/// Searches quicker than this say little about growth: pipes and scheduling dominate them.
const MEASURABLE: Duration = Duration::from_millis(5);

/// The depth of the next search and what has been learned so far.
#[derive(Clone, Debug)]
pub(crate) struct DepthControl {
    depth: u8,
    growth: f64,
    /// The last search's depth and time.
    last: Option<(u8, Duration)>,
}

impl Default for DepthControl {
    fn default() -> DepthControl {
        DepthControl {
            depth: START_DEPTH,
            growth: START_GROWTH,
            last: None,
        }
    }
}

impl DepthControl {
    /// The depth to search next.
    pub(crate) fn depth(&self) -> u8 {
        self.depth
    }

    /// The share of the clock this move may take: the remaining clock less the margin, over
    /// the mover's remaining moves (half the empty squares, plus one), at most the budget.
    pub(crate) fn share(request: &EngineRequest, budget: Option<Duration>) -> Duration {
        let left = Duration::from_millis(
            request
                .remaining_ms
                .saturating_sub(crate::leg::CLOCK_MARGIN_MS),
        );
        let share = left / super::moves_left(request);
        budget.map_or(share, |budget| share.min(budget))
    }

    /// Learns from a search at the current depth that took `took`, when the move's share was
    /// `share`, and sets the next depth.
    pub(crate) fn searched(&mut self, took: Duration, share: Duration) {
        if let Some((depth, before)) = self.last
            && depth + 1 == self.depth
            && before >= MEASURABLE
        {
            let ratio = took.as_secs_f64() / before.as_secs_f64();
            let (low, high) = GROWTH_RANGE;
            self.growth = ((self.growth + ratio) / 2.0).clamp(low, high);
        }
        self.last = Some((self.depth, took));
        if took.mul_f64(self.growth) <= share {
            self.depth = (self.depth + 1).min(MAX_DEPTH);
        } else {
            self.lower(took, share);
        }
    }

    /// A search at the current depth was stopped at the budget: the next one is shallower by as
    /// many plies as it takes to fit the share, had the search taken the whole budget, and by
    /// one more, since it would have taken longer still.
    pub(crate) fn stopped(&mut self, budget: Duration, share: Duration) {
        self.last = None;
        self.lower(budget, share);
        self.depth = self.depth.saturating_sub(1).max(MIN_DEPTH);
    }

    fn lower(&mut self, mut took: Duration, share: Duration) {
        while took > share && self.depth > MIN_DEPTH {
            took = took.div_f64(self.growth);
            self.depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Searches that take `2^depth` ms, times `slowness`.
    fn time_at(depth: u8, slowness: u64) -> Duration {
        ms((1u64 << depth) * slowness)
    }

    #[test]
    fn the_depth_rises_one_ply_a_move_while_the_next_ply_fits_the_share() {
        let mut control = DepthControl::default();
        let mut depths = Vec::new();
        for _ in 0..8 {
            depths.push(control.depth());
            control.searched(time_at(control.depth(), 1), ms(200));
        }
        // 2^7 = 128 ms fits 200 ms; 2^8 would not, and the growth of 2 has been measured.
        assert_eq!(depths, [4, 5, 6, 7, 7, 7, 7, 7]);
    }

    #[test]
    fn a_slow_search_lowers_the_depth_by_as_many_plies_as_it_overran() {
        let mut control = DepthControl::default();
        for _ in 0..6 {
            control.searched(time_at(control.depth(), 1), ms(200));
        }
        assert_eq!(control.depth(), 7);
        // The engine becomes 16 times slower (a harder position): 2 048 ms against 200 ms is
        // four plies too deep at a growth of 2.
        control.searched(time_at(7, 16), ms(200));
        assert_eq!(control.depth(), 3);
        assert!(time_at(3, 16) <= ms(200));
    }

    #[test]
    fn a_search_stopped_at_the_budget_lowers_the_depth_by_at_least_one_ply() {
        let mut control = DepthControl::default();
        control.searched(ms(1), ms(1_000));
        assert_eq!(control.depth(), 5);
        control.stopped(ms(1_000), ms(1_000));
        assert_eq!(control.depth(), 4, "a search that did not end took longer");
        control.stopped(ms(1_000), ms(100));
        // 1 000 ms is 100 ms times 3^2.1: three plies, and one more.
        assert_eq!(control.depth(), 1);
        control.depth = 20;
        for _ in 0..10 {
            control.stopped(ms(1_000), ms(10));
        }
        assert_eq!(control.depth(), MIN_DEPTH, "never below one ply");
    }

    #[test]
    fn the_share_divides_the_clock_over_the_movers_moves_within_the_budget() {
        let mut request: EngineRequest =
            serde_json::from_str(super::super::tests::START).expect("request");
        request.remaining_ms = 31_750;
        // 60 empties: 31 moves left for the mover; 31 s over 31 moves.
        assert_eq!(DepthControl::share(&request, None), ms(1_000));
        assert_eq!(DepthControl::share(&request, Some(ms(400))), ms(400));
        request.remaining_ms = 500;
        assert_eq!(DepthControl::share(&request, None), Duration::ZERO);
    }
}
