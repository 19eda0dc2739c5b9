//! Perft: counting the leaves of the game tree, to test move generation and measure its speed.
//!
//! Convention (Aart Bik's, used by every published Othello table): a pass is a ply, and a
//! finished game counts as one leaf at whatever depth it ends.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{Kernels, Move, Position};

/// A subtree still to count.
#[derive(Clone, Copy, Debug)]
struct Subtree {
    position: Position,
    depth: u32,
    passed: bool,
}

impl Subtree {
    /// Counts the subtree with the level's kernels.
    fn count(&self, kernels: Kernels) -> u64 {
        if self.depth == 0 {
            return 1;
        }
        let (p, o) = self.position.sides();
        let variant = self.position.variant();
        if variant.is_reversi() {
            kernels.perft_reversi(
                p as u64,
                o as u64,
                self.position.placed_by_sides(),
                self.depth,
                self.passed,
            )
        } else if variant.size() == 8 {
            kernels.perft8(p as u64, o as u64, self.depth, self.passed)
        } else {
            kernels.perft10(p, o, variant.playable_mask(), self.depth, self.passed)
        }
    }

    /// The subtrees one ply down, and the leaves of games that ended here.
    fn split(&self, into: &mut Vec<Subtree>) -> u64 {
        let moves = self.position.legal_move_list();
        if moves == [Move::Pass] && self.passed {
            return 1;
        }
        for mv in moves {
            let mut position = self.position;
            if position.play(mv).is_ok() {
                into.push(Subtree {
                    position,
                    depth: self.depth - 1,
                    passed: mv == Move::Pass,
                });
            }
        }
        0
    }
}

/// The number of leaves `depth` plies below `position` (the side to move has not just
/// passed), counted on `threads` threads with `kernels`.
pub fn perft(position: &Position, depth: u32, threads: usize, kernels: Kernels) -> u64 {
    let root = Subtree {
        position: *position,
        depth,
        passed: false,
    };
    if threads <= 1 || depth < 4 {
        return root.count(kernels);
    }
    // Split the top of the tree into many more subtrees than threads, so that threads which
    // draw small subtrees pick up more work and all finish together.
    let wanted = threads * 24;
    let mut subtrees = vec![root];
    let mut leaves = 0;
    while subtrees.len() < wanted && subtrees.iter().all(|s| s.depth > 3) {
        let mut next = Vec::with_capacity(subtrees.len() * 10);
        for subtree in &subtrees {
            leaves += subtree.split(&mut next);
        }
        subtrees = next;
    }
    let cursor = AtomicUsize::new(0);
    let counted: u64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = 0;
                    while let Some(subtree) = subtrees.get(cursor.fetch_add(1, Ordering::Relaxed)) {
                        sum += subtree.count(kernels);
                    }
                    sum
                })
            })
            .collect();
        // A worker only panics on a bug; pass the panic on rather than report a wrong count.
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .sum()
    });
    leaves + counted
}

#[cfg(test)]
mod tests;
