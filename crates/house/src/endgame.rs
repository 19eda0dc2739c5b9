//! The exact endgame solver for 8x8 boards: standard Othello, anti-Othello and classic
//! Reversi once its four centre placements are over.
//!
//! The solver works on `u64` bitboards (the mover's discs and the opponent's) through
//! [`Kernels`], and finds the exact final margin (mover's discs minus opponent's, empty squares
//! counting for nobody, negated in anti-Othello) by negamax alpha-beta:
//!
//! - with more than six empty squares, a principal-variation search: the first move with the
//!   full window, the others with a null window and a re-search when they beat it. Moves go
//!   fastest first: those leaving the opponent the fewest replies (corners counted twice)
//!   lead, and the square's worth (corners good, the squares next to an empty corner bad),
//!   the empty squares the opponent may later reach, the discs anchored to corners and the
//!   region parity break ties; the transposition-table move goes before them all. The table
//!   keeps a lower and an upper bound and the best move per position; the scores being
//!   exact, an entry holds whatever the path to its position. From ten empties on, the
//!   children are looked up before any is searched (enhanced transposition cut-off).
//! - with six or fewer, null-window searches only, with no move generation and no table:
//!   each empty square with an opponent disc next to it is tried, odd regions (quadrants with
//!   an odd number of empties) first, because playing last in a region tends to gain its
//!   discs. The last two empty squares are written out, and the last one is scored by
//!   counting its flips for the mover, or else for the opponent, without generating moves.
//! - from four empties on, stability bounds the score: the discs that count against the mover
//!   (the opponent's, or in anti-Othello its own) and can never change colour cap what it can
//!   reach, and cut the node when that cap is at or below the window.
//!
//! A side without a legal move passes; when neither side has one the game is over, and the
//! margin is counted. Reversi's rule that a colour which has placed all its 32 discs must pass
//! is kept by counting each side's discs left.
//!
//! The solver counts every position it visits. It never visits more than the node limit and
//! reads the clock at its first node and every [`CLOCK_INTERVAL`] nodes after; a stopped
//! search returns `None`, never a partial score. The table's size depends on the number of
//! empties alone, so a solve given at least the nodes an unlimited one takes finds the same.

use std::time::Instant;

use arbiter_othello::variant::REVERSI_DISCS_PER_COLOUR;
use arbiter_othello::{Kernels, Move, Position, Variant};

use crate::Limits;

/// The most empty squares at which [`crate::choose`] tries an exact solve before searching, in
/// standard Othello and classic Reversi.
///
/// A typical 20-empty position takes a few tenths of a second on one core, and each further
/// empty square about twice as much (see the `endgame` bench).
pub const ENDGAME_EMPTIES: u32 = 20;

/// [`ENDGAME_EMPTIES`] for anti-Othello, whose endgames take several times as long to solve
/// at the same number of empties (fastest-first ordering and stability help less there).
pub const ANTI_ENDGAME_EMPTIES: u32 = 18;

/// The most empty squares at which [`crate::choose`] tries an exact solve of a `variant`
/// position: [`ENDGAME_EMPTIES`], [`ANTI_ENDGAME_EMPTIES`], or 0 for the 10x10 variants.
pub fn solve_threshold(variant: Variant) -> u32 {
    match variant {
        Variant::Std | Variant::Reversi => ENDGAME_EMPTIES,
        Variant::Anti => ANTI_ENDGAME_EMPTIES,
        Variant::Grand | Variant::Octagon => 0,
    }
}

/// The largest margin a game can end with.
pub const MAX_MARGIN: i32 = 64;

/// Above every score: a window bound that no search result reaches.
const INFINITY: i32 = MAX_MARGIN + 1;
/// At most this many empty squares are searched without move generation or ordering.
const SHALLOW_EMPTIES: u32 = 6;
/// From this many empty squares on, positions are stored in the transposition table.
const TABLE_EMPTIES: u32 = 7;
/// From this many empty squares on, the children are looked up in the table before any is
/// searched.
const ETC_EMPTIES: u32 = 10;
/// From this many empty squares on, stability may cut a shallow node.
const SHALLOW_STABILITY: u32 = 4;
/// From this many empty squares on, stability may cut a node.
const STABILITY_EMPTIES: u32 = 7;
/// How often (in nodes) the solver reads the clock.
pub const CLOCK_INTERVAL: u64 = 1024;
/// The largest transposition table, as a power of two (24 bytes each: 12 MiB).
const MAX_TABLE_BITS: u32 = 19;
/// The smallest transposition table, as a power of two.
const MIN_TABLE_BITS: u32 = 10;
/// Marks a table entry without a best move.
const NO_MOVE: u8 = u8::MAX;
/// A side's quota in variants without a disc limit: it never runs out.
const UNLIMITED: u8 = u8::MAX;
/// Room for every legal move: one per square, beyond any position's count (reachable ones
/// have at most 33), so that no move is ever left out.
const MAX_MOVES: usize = 64;

/// The four corners.
const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The squares on the board's border.
const BORDER: u64 = 0xFF81_8181_8181_81FF;
/// Every square but those on the a-file.
const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
/// Every square but those on the h-file.
const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// The a- and h-files.
const FILES_AH: u64 = !(NOT_A & NOT_H);
/// The first and last rows.
const ROWS_18: u64 = 0xFF00_0000_0000_00FF;

/// An exact solve: the best move and the final margin it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// A move reaching `score` against any defence; [`Move::Pass`] when the mover has no
    /// placement.
    pub mv: Move,
    /// The final margin for the mover under best play by both sides: the mover's discs minus
    /// the opponent's at the end of the game (empty squares count for nobody), negated in
    /// anti-Othello, where fewer discs wins. Between `-64` and `64`. For [`solve_window`]
    /// outside the window, a bound (see there).
    pub score: i32,
    /// Positions visited.
    pub nodes: u64,
}

/// Solves an 8x8 position exactly within `limits`.
///
/// Returns `None` when the limits ran out first (never a partial or wrong score), and when
/// the position is not one the solver plays: not 8x8 (grand and octagon are 10x10), or a
/// Reversi game still in its centre placements (see [`solvable`]).
pub fn solve(position: &Position, limits: &Limits) -> Option<Solved> {
    solve_window(position, limits, -INFINITY, INFINITY)
}

/// Solves within the window `(alpha, beta)` (exclusive), which is much faster when the
/// window is narrow: `(-1, 1)` only tells a win, a draw and a loss apart.
///
/// A score strictly inside the window is exact, and the move reaches it. A score at or
/// above `beta` is a lower bound on the exact one, and the move reaches at least it. A score
/// at or below `alpha` is an upper bound: no move does better (the move is then only the one
/// with the best bound). A window with `beta <= alpha` is taken as `(alpha, alpha + 1)`.
/// Returns `None` as [`solve`] does.
pub fn solve_window(position: &Position, limits: &Limits, alpha: i32, beta: i32) -> Option<Solved> {
    attempt(position, limits, alpha, beta).ok()
}

/// [`solve_window`], telling how many nodes a stopped solve visited (none for a position the
/// solver does not play).
pub(crate) fn attempt(
    position: &Position,
    limits: &Limits,
    alpha: i32,
    beta: i32,
) -> Result<Solved, u64> {
    if !solvable(position) {
        return Err(0);
    }
    let (p, o) = position.sides();
    let (p, o) = (p as u64, o as u64);
    let quota = if position.variant().is_reversi() {
        let [mine, theirs] = position
            .placed_by_sides()
            .map(|placed| REVERSI_DISCS_PER_COLOUR.saturating_sub(placed).min(63) as u8);
        Quota { mine, theirs }
    } else {
        Quota {
            mine: UNLIMITED,
            theirs: UNLIMITED,
        }
    };
    let sign = if position.variant().fewer_wins() {
        -1
    } else {
        1
    };
    let alpha = alpha.clamp(-INFINITY, INFINITY - 1);
    let beta = beta.clamp(alpha + 1, INFINITY);
    // The first node reads the clock, so an expired deadline stops the solve at once.
    let mut solver = Solver::new(sign, limits, (!(p | o)).count_ones());
    match solver.root(p, o, alpha, beta, quota) {
        Some((mv, score)) => Ok(Solved {
            mv,
            score,
            nodes: solver.nodes,
        }),
        None => Err(solver.nodes),
    }
}

/// Whether [`solve`] plays `position`: an 8x8 board whose remaining play follows the
/// Othello rules (in Reversi, once the four centre squares are filled).
pub fn solvable(position: &Position) -> bool {
    let variant = position.variant();
    if variant.size() != 8 {
        return false;
    }
    let (p, o) = position.sides();
    let centre = arbiter_othello::variant::CENTRE_8X8
        .iter()
        .fold(0u128, |mask, &sq| mask | 1 << sq);
    !variant.is_reversi() || (p | o) & centre == centre
}

/// The number of empty (playable) squares of a position.
pub fn empties(position: &Position) -> u32 {
    let [black, white] = position.disc_counts();
    position
        .variant()
        .playable_squares()
        .saturating_sub(black + white)
}

/// How many more discs each side may place: Reversi's 32-disc rule. [`UNLIMITED`] in the
/// other variants, where it never decreases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Quota {
    /// The mover's discs left.
    mine: u8,
    /// The opponent's discs left.
    theirs: u8,
}

impl Quota {
    /// The quota seen from the opponent after a pass.
    fn passed(self) -> Quota {
        Quota {
            mine: self.theirs,
            theirs: self.mine,
        }
    }

    /// The quota seen from the opponent after the mover placed a disc.
    fn placed(self) -> Quota {
        Quota {
            mine: self.theirs,
            theirs: if self.mine == UNLIMITED {
                UNLIMITED
            } else {
                self.mine.saturating_sub(1)
            },
        }
    }

    /// The quotas as part of a table key (constant in the variants without a limit).
    fn key(self) -> u16 {
        u16::from(self.mine) << 8 | u16::from(self.theirs)
    }
}

/// The squares next to each square.
const NEIGHBOURS: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let bit = 1u64 << sq;
        let sides = (bit << 1 & NOT_A) | (bit >> 1 & NOT_H);
        let row = bit | sides;
        table[sq] = (row | row << 8 | row >> 8) & !bit;
        sq += 1;
    }
    table
};

/// Each square's quadrant as one bit of a four-bit parity set.
const QUADRANT_BIT: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let (row, col) = (sq / 8, sq % 8);
        table[sq] = 1 << ((row / 4) * 2 + col / 4);
        sq += 1;
    }
    table
};

/// For each parity set (bit `q` set: quadrant `q` has an odd number of empties), the squares
/// of the odd quadrants.
const ODD_SQUARES: [u64; 16] = {
    let quadrants = [
        0x0000_0000_0F0F_0F0F_u64,
        0x0000_0000_F0F0_F0F0,
        0x0F0F_0F0F_0000_0000,
        0xF0F0_F0F0_0000_0000,
    ];
    let mut table = [0u64; 16];
    let mut set = 0;
    while set < 16 {
        let mut q = 0;
        while q < 4 {
            if set >> q & 1 != 0 {
                table[set] |= quadrants[q];
            }
            q += 1;
        }
        set += 1;
    }
    table
};

/// The quadrant parity of the empty squares `free`.
fn parity_of(free: u64) -> u8 {
    let mut parity = 0;
    let mut rest = free;
    while rest != 0 {
        parity ^= QUADRANT_BIT[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    parity
}

/// Every line of the board (rows, columns, both diagonals of two squares or more), grouped by
/// direction: a disc on a full line cannot be flipped along it.
struct Lines {
    rows: [u64; 8],
    columns: [u64; 8],
    /// Diagonals along a1-h8.
    rising: [u64; 13],
    /// Diagonals along h1-a8.
    falling: [u64; 13],
}

const LINES: Lines = {
    let mut lines = Lines {
        rows: [0; 8],
        columns: [0; 8],
        rising: [0; 13],
        falling: [0; 13],
    };
    let mut i = 0;
    while i < 8 {
        lines.rows[i] = 0xFF << (8 * i);
        lines.columns[i] = 0x0101_0101_0101_0101 << i;
        i += 1;
    }
    // Diagonal `d` of each family holds the squares with `col - row == d - 6` (rising) or
    // `col + row == d + 1` (falling); the lone corners are left out: they are stable anyway.
    let mut sq = 0;
    while sq < 64 {
        let (row, col) = (sq / 8, sq % 8);
        let rising = col - row + 6;
        if rising >= 0 && rising < 13 {
            lines.rising[rising as usize] |= 1 << sq;
        }
        let falling = col + row - 1;
        if falling >= 0 && falling < 13 {
            lines.falling[falling as usize] |= 1 << sq;
        }
        sq += 1;
    }
    lines
};

/// The squares on full lines of `occupied`, per direction: horizontal, vertical, a1-h8, h1-a8.
fn full_lines(occupied: u64) -> [u64; 4] {
    let full = |lines: &[u64]| {
        lines
            .iter()
            .filter(|&&line| occupied & line == line)
            .fold(0, |acc, &line| acc | line)
    };
    [
        full(&LINES.rows),
        full(&LINES.columns),
        full(&LINES.rising),
        full(&LINES.falling),
    ]
}

/// The discs of `mine` that can never be flipped: in every direction the disc's line is
/// full, or it touches the border, or its neighbour along it is another such disc.
fn stable_discs(mine: u64, full: [u64; 4]) -> u64 {
    let [horizontal, vertical, rising, falling] = full;
    let mut stable = 0;
    loop {
        let h = horizontal | FILES_AH | (stable << 1 & NOT_A) | (stable >> 1 & NOT_H);
        let v = vertical | ROWS_18 | stable << 8 | stable >> 8;
        let r = rising | BORDER | (stable << 9 & NOT_A) | (stable >> 9 & NOT_H);
        let f = falling | BORDER | (stable << 7 & NOT_H) | (stable >> 7 & NOT_A);
        let next = stable | (mine & h & v & r & f);
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

/// The ordering bonus of taking a corner, for a side that wants discs (see [`square_bonus`]).
const CORNER_BONUS: i32 = 24;
/// The ordering penalty of an X square (diagonally inside an empty corner).
const X_PENALTY: i32 = 12;
/// The ordering penalty of a C square (on the edge next to an empty corner).
const C_PENALTY: i32 = 4;
/// The ordering weight of one opponent reply left after a move: large enough that the
/// fewest replies always go first (measured: the other terms only break ties well).
const MOBILITY_WEIGHT: i32 = 64;
/// The ordering bonus of a move in an odd region.
const PARITY_BONUS: i32 = 4;

/// The ordering weight of one empty square next to the mover's discs after a move: each
/// is a reply the opponent may get later.
const POTENTIAL_WEIGHT: i32 = 4;
/// The ordering weight of one disc anchored to a corner after a move (a cost in
/// anti-Othello).
const ANCHORED_WEIGHT: i32 = 8;

/// The squares next to any square of `set`.
fn around(set: u64) -> u64 {
    let sides = (set << 1 & NOT_A) | (set >> 1 & NOT_H);
    let row = set | sides;
    (row | row << 8 | row >> 8) & !set
}

/// The discs of `mine` anchored to a corner it holds: the corner and the edge squares next
/// to it that `mine` also holds. A cheap part of [`stable_discs`] for move ordering.
fn corner_stable(mine: u64) -> u64 {
    let corners = mine & CORNERS;
    let spread = (corners << 1 & NOT_A) | (corners >> 1 & NOT_H) | corners << 8 | corners >> 8;
    corners | (spread & mine & BORDER)
}

/// For each corner: its bit, its X square and its C squares.
const CORNER_ZONES: [(u64, u64, u64); 4] = [
    (1 << 0, 1 << 9, 1 << 1 | 1 << 8),
    (1 << 7, 1 << 14, 1 << 6 | 1 << 15),
    (1 << 56, 1 << 49, 1 << 48 | 1 << 57),
    (1 << 63, 1 << 54, 1 << 55 | 1 << 62),
];

/// The ordering worth of playing `bit` with the empty squares `free`, for a side that wants
/// discs (`sign` 1) or does not (`sign` -1).
fn square_bonus(bit: u64, free: u64, sign: i32) -> i32 {
    let mut bonus = 0;
    for (corner, x, c) in CORNER_ZONES {
        if bit == corner {
            bonus += CORNER_BONUS;
        } else if corner & free != 0 {
            if bit & x != 0 {
                bonus -= X_PENALTY;
            } else if bit & c != 0 {
                bonus -= C_PENALTY;
            }
        }
    }
    bonus * sign
}

/// One transposition-table slot: the mover's discs, the opponent's discs and the packed
/// [`Entry`]. An all-zero slot is empty (no searched position lacks discs), so the table is
/// allocated zeroed, which costs nothing until a page is first touched.
type Slot = [u64; 3];

/// What the table knows of a position: bounds on its exact score, its best move, and how big
/// its subtree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    /// The sides' quotas ([`Quota::key`]).
    quota: u16,
    /// The exact score is at least this.
    lower: i32,
    /// The exact score is at most this.
    upper: i32,
    /// The best or refuting move, or [`NO_MOVE`].
    best: u8,
    /// The position's empty squares: entries of larger subtrees are kept over smaller ones.
    empties: u32,
}

impl Entry {
    /// A position not searched yet: bounds that say nothing.
    fn unknown(quota: Quota, empties: u32) -> Entry {
        Entry {
            quota: quota.key(),
            lower: -MAX_MARGIN,
            upper: MAX_MARGIN,
            best: NO_MOVE,
            empties,
        }
    }

    /// The entry as a slot's third word, laid out so that all zeros is [`Entry::unknown`]
    /// with no quota and no empties: the bounds' distances from their extremes, the move plus
    /// one (with [`NO_MOVE`] wrapping to zero).
    fn pack(self) -> u64 {
        u64::from(self.quota)
            | ((self.lower + MAX_MARGIN) as u64 & 0xFF) << 16
            | ((MAX_MARGIN - self.upper) as u64 & 0xFF) << 24
            | u64::from(self.best.wrapping_add(1)) << 32
            | u64::from(self.empties & 0xFF) << 40
    }

    /// The entry of a slot's third word.
    fn unpack(word: u64) -> Entry {
        Entry {
            quota: word as u16,
            lower: (word >> 16 & 0xFF) as i32 - MAX_MARGIN,
            upper: MAX_MARGIN - (word >> 24 & 0xFF) as i32,
            best: ((word >> 32) as u8).wrapping_sub(1),
            empties: (word >> 40 & 0xFF) as u32,
        }
    }
}

/// A legal move with its flips, the opponent's replies and its ordering key.
#[derive(Clone, Copy, Debug, Default)]
struct Candidate {
    key: i32,
    sq: u8,
    flips: u64,
    /// The opponent's moves after this one, by the kernel.
    replies: u64,
}

impl Candidate {
    /// The position after the move, from the opponent's side.
    #[inline]
    fn child(&self, p: u64, o: u64) -> (u64, u64) {
        (o ^ self.flips, p ^ self.flips ^ 1 << self.sq)
    }
}

/// One solve's state.
struct Solver {
    kernels: Kernels,
    /// 1 where more discs win, -1 in anti-Othello: final margins are multiplied by it.
    sign: i32,
    table: Vec<Slot>,
    nodes: u64,
    /// The node count at which [`Solver::stop`] next checks the limits.
    check_at: u64,
    max_nodes: u64,
    deadline: Option<Instant>,
    /// Set once a limit is hit; every caller then unwinds and nothing more is stored.
    aborted: bool,
}

impl Solver {
    /// A solver for a position with `empties` empty squares.
    fn new(sign: i32, limits: &Limits, empties: u32) -> Solver {
        // Small solves need small tables. The size depends on the position alone, never on
        // the limits, so that a solve given enough nodes finds exactly what an unlimited one
        // finds, in as many nodes.
        let bits = empties
            .saturating_sub(1)
            .clamp(MIN_TABLE_BITS, MAX_TABLE_BITS);
        Solver {
            kernels: Kernels::best(),
            sign,
            table: vec![[0; 3]; 1 << bits],
            nodes: 0,
            check_at: 0,
            max_nodes: limits.max_nodes.unwrap_or(u64::MAX),
            deadline: limits.deadline,
            aborted: false,
        }
    }

    /// Whether the deadline, if any, has passed.
    fn past_deadline(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// Counts a visited node, or reports that the search must stop: the node limit would be
    /// passed, or the clock (read every [`CLOCK_INTERVAL`] nodes) is past the deadline.
    #[inline]
    fn stop(&mut self) -> bool {
        // One comparison on the hot path: `check_at` is the next node count at which the
        // limits need a look (zero once stopped).
        if self.nodes >= self.check_at {
            return self.check_limits();
        }
        self.nodes += 1;
        false
    }

    /// The slow part of [`Solver::stop`]: the limits themselves.
    #[cold]
    fn check_limits(&mut self) -> bool {
        if self.aborted || self.nodes >= self.max_nodes || self.past_deadline() {
            self.aborted = true;
            self.check_at = 0;
            return true;
        }
        self.nodes += 1;
        self.check_at = (self.nodes + CLOCK_INTERVAL).min(self.max_nodes);
        false
    }

    /// The exact score of a finished game.
    #[inline]
    fn final_score(&self, p: u64, o: u64) -> i32 {
        self.sign * (p.count_ones() as i32 - o.count_ones() as i32)
    }

    /// The discs `sq` flips for `p` against `o`, skipping the kernel when no opponent disc is
    /// next to the square.
    #[inline]
    fn flips(&self, p: u64, o: u64, sq: u32) -> u64 {
        if NEIGHBOURS[sq as usize] & o == 0 {
            0
        } else {
            self.kernels.flips8(p, o, sq)
        }
    }

    /// The legal moves of a side with `quota` discs left.
    #[inline]
    fn moves(&self, p: u64, o: u64, quota: u8) -> u64 {
        if quota == 0 {
            0
        } else {
            self.kernels.moves8(p, o)
        }
    }

    /// The root: the best move and its score within `(alpha, beta)`, or `None` if a limit
    /// stopped the search.
    fn root(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: i32,
        beta: i32,
        quota: Quota,
    ) -> Option<(Move, i32)> {
        let free = !(p | o);
        let empties = free.count_ones();
        let parity = parity_of(free);
        let moves = self.moves(p, o, quota.mine);
        if moves == 0 {
            // The mover passes: the position's score is the opponent's, negated, or the
            // final margin when the opponent cannot move either; `deep` finds both.
            let score = self.deep(p, o, alpha, beta, empties, parity, quota, 0);
            return (!self.aborted).then_some((Move::Pass, score));
        }
        if self.stop() {
            return None;
        }
        let mut list = [Candidate::default(); MAX_MOVES];
        let count = self.order(p, o, moves, NO_MOVE, parity, &mut list);
        let mut best: Option<(u8, i32)> = None;
        for candidate in &list[..count] {
            let score = if best.is_none() {
                self.child(p, o, candidate, alpha, beta, empties, parity, quota)
            } else {
                let probe = self.child(p, o, candidate, alpha, alpha + 1, empties, parity, quota);
                if probe > alpha && probe < beta && !self.aborted {
                    self.child(p, o, candidate, probe, beta, empties, parity, quota)
                } else {
                    probe
                }
            };
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((candidate.sq, score));
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best.map(|(sq, score)| (Move::Place(sq), score))
    }

    /// The score for the mover of playing `candidate` in a position with `empties` empty
    /// squares, searched within `(alpha, beta)`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child(
        &mut self,
        p: u64,
        o: u64,
        candidate: &Candidate,
        alpha: i32,
        beta: i32,
        empties: u32,
        parity: u8,
        quota: Quota,
    ) -> i32 {
        let (np, no) = candidate.child(p, o);
        -self.deep(
            np,
            no,
            -beta,
            -alpha,
            empties - 1,
            parity ^ QUADRANT_BIT[usize::from(candidate.sq)],
            quota.placed(),
            candidate.replies,
        )
    }

    /// Writes the legal `moves` into `out` best first and returns how many there are: the
    /// `hint` first, then fastest first (see the module documentation).
    fn order(
        &self,
        p: u64,
        o: u64,
        moves: u64,
        hint: u8,
        parity: u8,
        out: &mut [Candidate; MAX_MOVES],
    ) -> usize {
        let free = !(p | o);
        let odd = ODD_SQUARES[usize::from(parity)];
        let mut count = 0;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let Some(slot) = out.get_mut(count) else {
                break;
            };
            let bit = 1u64 << sq;
            let flips = self.kernels.flips8(p, o, sq);
            let mine = p ^ flips ^ bit;
            let replies = self.kernels.moves8(o ^ flips, mine);
            let key = if sq == u32::from(hint) {
                i32::MAX
            } else {
                let mobility = (replies.count_ones() + (replies & CORNERS).count_ones()) as i32;
                let parity_bonus = if bit & odd != 0 { PARITY_BONUS } else { 0 };
                let potential = (around(mine) & free & !bit).count_ones() as i32;
                let anchored = corner_stable(mine).count_ones() as i32;
                square_bonus(bit, free, self.sign) + parity_bonus
                    - MOBILITY_WEIGHT * mobility
                    - POTENTIAL_WEIGHT * potential
                    + ANCHORED_WEIGHT * anchored * self.sign
            };
            *slot = Candidate {
                key,
                sq: sq as u8,
                flips,
                replies,
            };
            count += 1;
        }
        // Few moves: an insertion sort is fastest, and it is stable, so the search stays
        // deterministic.
        let list = &mut out[..count];
        for i in 1..list.len() {
            let mut j = i;
            while j > 0 && list[j - 1].key < list[j].key {
                list.swap(j - 1, j);
                j -= 1;
            }
        }
        count
    }

    /// The table slot of a position.
    #[inline]
    fn slot(&self, p: u64, o: u64, quota: Quota) -> usize {
        let h = (p ^ u64::from(quota.key()) << 48).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let h = h ^ h >> 29;
        (h as usize) & (self.table.len() - 1)
    }

    /// The stored bounds of a position and its best move, if the table holds it.
    #[inline]
    fn probe(&self, p: u64, o: u64, quota: Quota) -> Option<(i32, i32, u8)> {
        let &[sp, so, word] = self.table.get(self.slot(p, o, quota))?;
        let entry = Entry::unpack(word);
        (sp == p && so == o && entry.quota == quota.key()).then_some((
            entry.lower,
            entry.upper,
            entry.best,
        ))
    }

    /// Stores what a search of a position found: `score` is a lower bound when it reached
    /// `beta`, an upper bound when it stayed at or below `alpha`, else exact.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        p: u64,
        o: u64,
        quota: Quota,
        empties: u32,
        (alpha, beta): (i32, i32),
        score: i32,
        best: u8,
    ) {
        let index = self.slot(p, o, quota);
        let Some(slot) = self.table.get_mut(index) else {
            return;
        };
        let mut entry = Entry::unpack(slot[2]);
        if slot[0] != p || slot[1] != o || entry.quota != quota.key() {
            // Larger subtrees cost more to search again: a smaller one does not evict them.
            if entry.empties > empties {
                return;
            }
            entry = Entry::unknown(quota, empties);
        }
        let score = score.clamp(-MAX_MARGIN, MAX_MARGIN);
        if score > alpha {
            entry.lower = entry.lower.max(score);
        }
        if score < beta {
            entry.upper = entry.upper.min(score);
        }
        entry.best = best;
        *slot = [p, o, entry.pack()];
    }

    /// The exact score within `(alpha, beta)` of a position with `empties` empty squares
    /// whose quadrant parity is `parity` (fail-soft: a score outside the window bounds the
    /// exact one on that side); meaningless once `self.aborted` is set. `moves` are the
    /// mover's moves by the kernel (the caller found them while ordering), before the quota.
    #[allow(clippy::too_many_arguments)]
    fn deep(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: i32,
        beta: i32,
        empties: u32,
        parity: u8,
        quota: Quota,
        moves: u64,
    ) -> i32 {
        if empties <= SHALLOW_EMPTIES && beta == alpha + 1 {
            return self.shallow(p, o, alpha, empties, parity, quota);
        }
        if empties <= 1 {
            return self.end(p, o, quota);
        }
        if self.stop() {
            return 0;
        }
        let moves = if quota.mine == 0 { 0 } else { moves };
        if moves == 0 {
            let replies = self.kernels.moves8(o, p);
            if quota.theirs != 0 && replies != 0 {
                return -self.deep(
                    o,
                    p,
                    -beta,
                    -alpha,
                    empties,
                    parity,
                    quota.passed(),
                    replies,
                );
            }
            return self.final_score(p, o);
        }

        if empties >= STABILITY_EMPTIES
            && let Some(bound) = self.stability_bound(p, o, alpha)
        {
            return bound;
        }

        let use_table = empties >= TABLE_EMPTIES;
        let mut hint = NO_MOVE;
        if use_table && let Some((lower, upper, best)) = self.probe(p, o, quota) {
            if lower >= beta || lower == upper {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            if best != NO_MOVE && moves >> best & 1 != 0 {
                hint = best;
            }
        }

        let mut list = [Candidate::default(); MAX_MOVES];
        let count = self.order(p, o, moves, hint, parity, &mut list);
        if empties >= ETC_EMPTIES {
            // Enhanced transposition cut-off: a child already known to be bad enough for the
            // opponent proves the node's lower bound without searching anything.
            let child_quota = quota.placed();
            for candidate in &list[..count] {
                let (np, no) = candidate.child(p, o);
                if let Some((_, upper, _)) = self.probe(np, no, child_quota)
                    && -upper >= beta
                {
                    return -upper;
                }
            }
        }

        let window = (alpha, beta);
        let mut best_score = -INFINITY;
        let mut best_move = NO_MOVE;
        for (i, candidate) in list[..count].iter().enumerate() {
            let score = if i == 0 {
                self.child(p, o, candidate, alpha, beta, empties, parity, quota)
            } else {
                let probe = self.child(p, o, candidate, alpha, alpha + 1, empties, parity, quota);
                if probe > alpha && probe < beta && !self.aborted {
                    self.child(p, o, candidate, probe, beta, empties, parity, quota)
                } else {
                    probe
                }
            };
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = candidate.sq;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if use_table {
            self.store(p, o, quota, empties, window, best_score, best_move);
        }
        best_score
    }

    /// An upper bound at or below `alpha` from the discs that count against the mover and
    /// can never change colour (the opponent's, or the mover's own in anti-Othello), if
    /// there is one.
    #[inline]
    fn stability_bound(&self, p: u64, o: u64, alpha: i32) -> Option<i32> {
        let against = if self.sign > 0 { o } else { p };
        // Even if every disc counting against the mover were stable, the bound would stay
        // above alpha: no need to find which are.
        if MAX_MARGIN - 2 * (against.count_ones() as i32) > alpha {
            return None;
        }
        // Corners are the seeds of stability: without one, stable discs are rare.
        if against & CORNERS == 0 {
            return None;
        }
        let stable = stable_discs(against, full_lines(p | o));
        let bound = MAX_MARGIN - 2 * stable.count_ones() as i32;
        (bound <= alpha).then_some(bound)
    }

    /// The score of a position with at most one empty square, which needs no window.
    #[inline]
    fn end(&mut self, p: u64, o: u64, quota: Quota) -> i32 {
        let free = !(p | o);
        if free == 0 {
            if self.stop() {
                return 0;
            }
            return self.final_score(p, o);
        }
        self.last(p, o, free.trailing_zeros(), quota)
    }

    /// The exact score within the null window `(alpha, alpha + 1)` (fail-soft) of a position
    /// with few empty squares: no ordering but parity, no table.
    fn shallow(
        &mut self,
        p: u64,
        o: u64,
        alpha: i32,
        empties: u32,
        parity: u8,
        quota: Quota,
    ) -> i32 {
        match empties {
            0 | 1 => return self.end(p, o, quota),
            2 => return self.last_two(p, o, alpha, quota),
            _ => {}
        }
        if self.stop() {
            return 0;
        }
        if empties >= SHALLOW_STABILITY
            && let Some(bound) = self.stability_bound(p, o, alpha)
        {
            return bound;
        }
        let free = !(p | o);
        let mut best = -INFINITY;
        if quota.mine != 0 {
            let odd = ODD_SQUARES[usize::from(parity)];
            // In anti-Othello the even regions go first: measured, that saves some 5% of the
            // nodes there, as taking a region's last square (and its discs) is rarely good.
            let groups = if self.sign > 0 {
                [free & odd, free & !odd]
            } else {
                [free & !odd, free & odd]
            };
            for group in groups {
                let mut rest = group;
                while rest != 0 {
                    let sq = rest.trailing_zeros();
                    rest &= rest - 1;
                    let flips = self.flips(p, o, sq);
                    if flips == 0 {
                        continue;
                    }
                    let (np, no) = (o ^ flips, p ^ flips ^ 1 << sq);
                    let child_parity = parity ^ QUADRANT_BIT[sq as usize];
                    let score = -self.shallow(
                        np,
                        no,
                        -alpha - 1,
                        empties - 1,
                        child_parity,
                        quota.placed(),
                    );
                    if score > best {
                        best = score;
                        if score > alpha {
                            return score;
                        }
                    }
                }
            }
        }
        if best > -INFINITY {
            return best;
        }
        if self.moves(o, p, quota.theirs) != 0 {
            return -self.shallow(o, p, -alpha - 1, empties, parity, quota.passed());
        }
        self.final_score(p, o)
    }

    /// The exact score within the null window `(alpha, alpha + 1)` (fail-soft) of a position
    /// with two empty squares: each side's tries are written out, with no move generation.
    fn last_two(&mut self, p: u64, o: u64, alpha: i32, quota: Quota) -> i32 {
        if self.stop() {
            return 0;
        }
        let free = !(p | o);
        let first = free.trailing_zeros();
        let second = (free & (free - 1)).trailing_zeros();
        let mut best = -INFINITY;
        if quota.mine != 0 {
            let after = quota.placed();
            for (sq, other) in [(first, second), (second, first)] {
                let flips = self.flips(p, o, sq);
                if flips != 0 {
                    let score = -self.last(o ^ flips, p ^ flips ^ 1 << sq, other, after);
                    if score > best {
                        best = score;
                        if score > alpha {
                            return score;
                        }
                    }
                }
            }
            if best > -INFINITY {
                return best;
            }
        }
        // The mover passes: the opponent's position is a node of its own, where the opponent
        // picks the lower of its tries, seen from the mover.
        if quota.theirs != 0 {
            if self.stop() {
                return 0;
            }
            let mut worst = INFINITY;
            let after = quota.passed().placed();
            for (sq, other) in [(first, second), (second, first)] {
                let flips = self.flips(o, p, sq);
                if flips != 0 {
                    let score = self.last(p ^ flips, o ^ flips ^ 1 << sq, other, after);
                    if score < worst {
                        worst = score;
                        if score <= alpha {
                            return score;
                        }
                    }
                }
            }
            if worst < INFINITY {
                return worst;
            }
        }
        self.final_score(p, o)
    }

    /// The exact score with one empty square, `sq`: the mover plays it if that flips
    /// anything, else the opponent does, else the game ends with it empty. Only the flips are
    /// counted; no move is generated.
    #[inline]
    fn last(&mut self, p: u64, o: u64, sq: u32, quota: Quota) -> i32 {
        if self.stop() {
            return 0;
        }
        // With one empty square the two sides share the other 63.
        let mine = p.count_ones() as i32;
        let theirs = 63 - mine;
        if quota.mine != 0 {
            let flipped = self.flips(p, o, sq).count_ones() as i32;
            if flipped != 0 {
                return self.sign * (mine + 1 + 2 * flipped - theirs);
            }
        }
        if quota.theirs != 0 {
            let flipped = self.flips(o, p, sq).count_ones() as i32;
            if flipped != 0 {
                return self.sign * (mine - 2 * flipped - theirs - 1);
            }
        }
        self.sign * (mine - theirs)
    }
}

#[cfg(test)]
mod tests;
