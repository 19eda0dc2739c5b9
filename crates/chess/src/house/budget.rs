//! How much a search may do: nodes and time, whichever runs out first.
//!
//! A node budget makes a search's result independent of the machine's speed, which is what
//! tests rely on; play uses the deadline, with no node limit.

use std::time::Instant;

/// The nodes and time a search may still use.
#[derive(Debug)]
pub(crate) struct Budget {
    deadline: Instant,
    max_nodes: u64,
    nodes: u64,
    stopped: bool,
}

impl Budget {
    /// Up to `max_nodes` nodes, until `deadline`.
    pub(crate) fn new(deadline: Instant, max_nodes: u64) -> Budget {
        Budget {
            deadline,
            max_nodes,
            nodes: 0,
            stopped: false,
        }
    }

    /// Counts a node; true once the budget is spent. The clock is read at the first node
    /// and every 256 after, a small fraction of a millisecond apart, because reading it at
    /// every node would cost more than the node.
    #[inline]
    pub(crate) fn tick(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.max_nodes
            || (self.nodes % 256 == 1 && Instant::now() >= self.deadline)
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Whether the budget is spent.
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// The nodes counted so far.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }
}
