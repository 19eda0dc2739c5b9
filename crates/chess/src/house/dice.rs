//! The house players of Dice Chess.
//!
//! The arena asks for one micro-move at a time, so each call plans the whole rest of the
//! turn from the current position and the unused dice, and returns the plan's first
//! micro-move; the next call plans again from there. Every level first takes the king when
//! any continuation of the turn does.
//!
//! - `Random` plays any legal micro-move.
//! - `Greedy` plays the complete turn that leaves the most material, ties broken by the
//!   pieces' squares.
//! - `Easy` weighs its best few turns by what the opponent's greedy reply takes, averaged
//!   over the opponent's 56 possible rolls (each weighted by its share of the 216).
//! - `Medium` and `Hard` search expectimax over the next rolls: each of their best turns is
//!   valued by the chance node of the opponent's rolls, where the opponent takes the reply
//!   that is worst for us among its greedy best few, and the position is evaluated (material,
//!   squares, mobility and the danger to both kings). When time remains, the best turns are
//!   searched again one turn deeper, with a sample of the rolls.
//!
//! Searches count their micro-moves in a [`Budget`], so that with a node budget a plan is
//! the same on any machine. A search cut short keeps the turns it valued completely, and
//! without any falls back to the greedy turn.

mod eval;
mod turns;

#[cfg(test)]
mod tests;

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use arbiter_plugin::HouseLevel;
use arbiter_rules::Random;
use cozy_chess::{Piece, Square};

use super::Limits;
use super::eval::phase_of;
use crate::dice::{DiceBoard, DiceRules, DiceSet, MicroMove, Turn};
use crate::game::ChessView;
use arbiter_plugin::Budget;
use eval::{WIN, after_turn, balance, evaluate, material};
use turns::{Gain, for_each_turn};

/// One pass of a plan's search: the turns it values, how deep and over which rolls.
#[derive(Clone, Copy, Debug)]
struct Pass {
    /// The turns after ours it searches.
    depth: u32,
    /// Whether the opponent's rolls right after our turn are all 56 (or the sample).
    all_rolls: bool,
    /// How many of our turns it values: the first pass the best by a quick look, each
    /// later one the best of the pass before.
    keep: usize,
}

/// How a searching level plans.
#[derive(Clone, Copy, Debug)]
struct Strength {
    /// The passes, cheap and wide first, then narrower and more exact or deeper.
    passes: &'static [Pass],
    /// At the opponent's turn right below ours, the replies (its best by a quick look)
    /// valued in full, the worst for us taken.
    replies: usize,
    /// The same, at the turns below.
    deep_replies: usize,
    /// Whether positions are valued in full (or by material and squares alone, with the
    /// opponent's reply its greedy one).
    full: bool,
}

/// How each searching level plans; `None` for Random and Greedy.
fn strength(level: HouseLevel) -> Option<Strength> {
    match level {
        HouseLevel::Random | HouseLevel::Greedy => None,
        // Greedy, and the opponent's greedy reply to its best few turns on every roll.
        HouseLevel::Easy => Some(Strength {
            passes: &[Pass {
                depth: 1,
                all_rolls: true,
                keep: 6,
            }],
            replies: 1,
            deep_replies: 1,
            full: false,
        }),
        HouseLevel::Medium => Some(Strength {
            passes: &[
                Pass {
                    depth: 1,
                    all_rolls: false,
                    keep: 24,
                },
                Pass {
                    depth: 1,
                    all_rolls: true,
                    keep: 6,
                },
                Pass {
                    depth: 2,
                    all_rolls: true,
                    keep: 2,
                },
            ],
            replies: 4,
            deep_replies: 2,
            full: true,
        }),
        HouseLevel::Hard | HouseLevel::Max => Some(Strength {
            passes: &[
                Pass {
                    depth: 1,
                    all_rolls: false,
                    keep: 48,
                },
                Pass {
                    depth: 1,
                    all_rolls: true,
                    keep: 12,
                },
                Pass {
                    depth: 2,
                    all_rolls: true,
                    keep: 4,
                },
                Pass {
                    depth: 3,
                    all_rolls: true,
                    keep: 2,
                },
            ],
            replies: 8,
            deep_replies: 3,
            full: true,
        }),
    }
}

/// The micro-move the level plays now, in UCI notation; `None` when the view has no turn
/// under way.
pub(super) fn choose(
    view: &ChessView,
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Option<String> {
    if level == HouseLevel::Random {
        return arbiter_rules::random::choose(rng, &view.legal_moves).cloned();
    }
    let turn = view.dice_turn()?;
    let legal: Vec<(Square, Square, Option<Piece>)> = view
        .legal_moves
        .iter()
        .filter_map(|m| squares_of(m))
        .collect();
    let line = plan(&turn, &legal, level, limits, rng)?;
    line.first().map(MicroMove::to_string)
}

/// The squares and promotion of a micro-move written in UCI notation.
fn squares_of(text: &str) -> Option<(Square, Square, Option<Piece>)> {
    let from = text.get(0..2)?.parse().ok()?;
    let to = text.get(2..4)?.parse().ok()?;
    let promotion = match text.get(4..5) {
        None => None,
        Some(letter) => Some(letter.parse().ok()?),
    };
    Some((from, to, promotion))
}

/// One complete turn of ours, as the planner weighs it.
#[derive(Clone, Debug)]
struct Candidate {
    /// Its micro-moves.
    line: Vec<MicroMove>,
    /// The position after them, the turn not yet ended.
    board: DiceBoard,
    /// What they gained.
    gain: Gain,
}

/// The rest of the turn the level would play: its micro-moves, the first of which begins
/// with one of `legal` (the view's legal micro-moves). `None` when no complete turn starts
/// with one of them.
pub(crate) fn plan(
    turn: &Turn,
    legal: &[(Square, Square, Option<Piece>)],
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Option<Vec<MicroMove>> {
    plan_with_stats(turn, legal, level, limits, rng).map(|(line, _)| line)
}

/// What a plan cost, for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// The micro-moves the search walked (the root's own turns not counted).
    pub(crate) nodes: u64,
    /// The passes finished.
    pub(crate) passes: u32,
    /// The turns of ours valued, over all passes.
    pub(crate) valued: usize,
}

/// [`plan`], with what it cost.
pub(crate) fn plan_with_stats(
    turn: &Turn,
    legal: &[(Square, Square, Option<Piece>)],
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Option<(Vec<MicroMove>, Stats)> {
    // The view does not say whether castling may pass through attack; the default rules
    // allow every castling the other setting does, and the view's legal micro-moves keep
    // the first step within the game's rules.
    let rules = DiceRules::default();
    let phase = phase_of(&turn.board);
    let legal: HashSet<(Square, Square, Option<Piece>)> = legal.iter().copied().collect();
    let allowed = |mv: &MicroMove| legal.contains(&(mv.from, mv.to, mv.promotion));
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut seen: HashMap<DiceBoard, usize> = HashMap::new();
    let mut king: Option<Vec<MicroMove>> = None;
    // The root's turns are all listed, whatever the budget: they are few enough, and
    // without them there is not even a greedy move.
    let mut unlimited = Budget::new(Instant::now() + Duration::from_secs(3_600), u64::MAX);
    let _ = for_each_turn(turn, &rules, phase, &mut unlimited, false, &mut |f| {
        if !f.line.first().is_some_and(allowed) {
            return ControlFlow::Continue(());
        }
        if f.king {
            // The shortest way to the king is the surest.
            if king.as_ref().is_none_or(|line| f.line.len() < line.len()) {
                king = Some(f.line.to_vec());
            }
            return ControlFlow::Continue(());
        }
        // Turns that reach the same position in another order are the same turn (the
        // halfmove clock, which the order changes, aside).
        let mut same = *f.board;
        same.halfmove = 0;
        if let Entry::Vacant(slot) = seen.entry(same) {
            slot.insert(candidates.len());
            candidates.push(Candidate {
                line: f.line.to_vec(),
                board: *f.board,
                gain: f.gain,
            });
        }
        ControlFlow::Continue(())
    });
    if let Some(line) = king {
        return Some((line, Stats::default()));
    }
    let greedy = greedy_choice(&candidates, rng)?;
    let strength = strength(level).filter(|_| candidates.len() > 1);
    let Some(strength) = strength else {
        return Some((candidates[greedy].line.clone(), Stats::default()));
    };
    let budget = Budget::new(limits.deadline, limits.max_nodes.unwrap_or(u64::MAX));
    let mut planner = Planner::new(rules, budget, strength);
    let best = planner.best(&turn.board, &candidates).unwrap_or(greedy);
    let stats = Stats {
        nodes: planner.budget.nodes(),
        passes: planner.finished,
        valued: planner.valued,
    };
    Some((candidates[best].line.clone(), stats))
}

/// The greedy turn: the most material, then the best squares; the rng breaks what ties
/// remain. `None` without candidates.
fn greedy_choice(candidates: &[Candidate], rng: &mut dyn Random) -> Option<usize> {
    let top = candidates.iter().map(|c| c.gain).max()?;
    let equals: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].gain == top)
        .collect();
    arbiter_rules::random::choose(rng, &equals).copied()
}

/// The rolls of three dice, each with how many of the 216 ordered rolls give it.
type Rolls = Vec<(DiceSet, u32)>;

/// Ten rolls of three different faces in which each face shows five times and each pair of
/// faces twice (a balanced block design): the sample of rolls that cheap passes and deeper
/// chance nodes weigh equally, at about a sixth of the cost of all 56, with no piece type
/// favoured.
const SAMPLE: [[u8; 3]; 10] = [
    [1, 2, 3],
    [1, 2, 4],
    [1, 3, 5],
    [1, 4, 6],
    [1, 5, 6],
    [2, 3, 6],
    [2, 4, 5],
    [2, 5, 6],
    [3, 4, 5],
    [3, 4, 6],
];

/// An expectimax search under a budget.
struct Planner {
    rules: DiceRules,
    budget: Budget,
    strength: Strength,
    /// Every roll: the first chance node weighs all 56.
    all: Rolls,
    /// The sample of rolls deeper chance nodes weigh: see [`SAMPLE`].
    sample: Rolls,
    /// The depth of the pass under way: the opponent's reply right below our turn is
    /// the turn node at this depth.
    root_depth: u32,
    /// The passes finished.
    finished: u32,
    /// The turns of ours valued, over all passes.
    valued: usize,
}

impl Planner {
    fn new(rules: DiceRules, budget: Budget, strength: Strength) -> Planner {
        let all = DiceSet::all_rolls();
        let sample = SAMPLE
            .iter()
            .filter_map(|faces| DiceSet::from_faces(faces))
            .map(|dice| (dice, 1))
            .collect();
        Planner {
            rules,
            budget,
            strength,
            all,
            sample,
            root_depth: 1,
            finished: 0,
            valued: 0,
        }
    }

    /// The index of the best of `candidates`, the turns from `start`; `None` if the budget
    /// ran out before one was valued.
    fn best(&mut self, start: &DiceBoard, candidates: &[Candidate]) -> Option<usize> {
        // A quick look orders the turns: what they gain, and the threats against both
        // kings as the opponent is about to roll.
        let base = balance(start);
        let mut order: Vec<(i32, usize)> = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let quick = if self.strength.full {
                    after_turn(&c.board, c.board.side_to_move(), base + c.gain.total())
                } else {
                    c.gain.total()
                };
                (quick, i)
            })
            .collect();
        order.sort_by_key(|&(quick, _)| std::cmp::Reverse(quick));
        let mut ranking: Vec<usize> = order.into_iter().map(|(_, i)| i).collect();
        let mut best = None;
        for (n, pass) in self.strength.passes.iter().enumerate() {
            ranking.truncate(pass.keep);
            if ranking.len() < 2 && n > 0 {
                // One turn left to choose from: searching it again changes nothing.
                break;
            }
            let mut valued: Vec<(i32, usize)> = Vec::new();
            for &i in &ranking {
                match self.after_our_turn(&candidates[i].board, pass.depth, pass.all_rolls) {
                    Some(value) => {
                        valued.push((value, i));
                        self.valued += 1;
                    }
                    None => break,
                }
            }
            let finished = valued.len() == ranking.len();
            // An unfinished first pass still ranks the turns it valued; a later one does
            // not replace the pass before, as turns valued differently do not compare.
            if n == 0 || finished {
                best = top(&valued).or(best);
            }
            if !finished {
                break;
            }
            self.finished = n as u32 + 1;
            valued.sort_by_key(|&(value, _)| std::cmp::Reverse(value));
            ranking = valued.into_iter().map(|(_, i)| i).collect();
        }
        best
    }

    /// The value for us of the position our turn left (`board`, the turn not yet ended),
    /// searched `depth` turns deeper, over all the opponent's rolls or the sample.
    fn after_our_turn(&mut self, board: &DiceBoard, depth: u32, all_rolls: bool) -> Option<i32> {
        let mut next = *board;
        next.end_turn();
        self.root_depth = depth;
        let value = if all_rolls {
            let all = std::mem::take(&mut self.all);
            let value = self.chance(&next, depth, &all);
            self.all = all;
            value
        } else {
            self.below(&next, depth)
        };
        Some(-value?)
    }

    /// The value of `board` for the side about to roll: the average over `rolls` of its
    /// best turn, searched `depth` turns deep.
    fn chance(&mut self, board: &DiceBoard, depth: u32, rolls: &Rolls) -> Option<i32> {
        let mut sum = 0i64;
        let mut weight = 0i64;
        for &(dice, ways) in rolls {
            let value = self.turn(board, dice, depth)?;
            sum += i64::from(ways) * i64::from(value);
            weight += i64::from(ways);
        }
        Some(i32::try_from(sum / weight.max(1)).unwrap_or(0))
    }

    /// The value for the side to move of its best turn with `dice`, among those a quick look
    /// ranks first; `depth` counts this turn.
    fn turn(&mut self, board: &DiceBoard, dice: DiceSet, depth: u32) -> Option<i32> {
        let turn = Turn::start(*board, dice, &self.rules);
        if turn.required == 0 {
            // A forced pass: the other side rolls next.
            let mut next = *board;
            next.end_turn();
            return Some(-self.below(&next, depth - 1)?);
        }
        let mover = board.side_to_move();
        let width = if depth == self.root_depth {
            self.strength.replies
        } else {
            self.strength.deep_replies
        }
        .max(1);
        let full = self.strength.full;
        let phase = phase_of(board);
        let base = balance(board);
        let mut best: Vec<(i64, DiceBoard)> = Vec::with_capacity(width + 1);
        let mut king = false;
        let _ = for_each_turn(
            &turn,
            &self.rules,
            phase,
            &mut self.budget,
            true,
            &mut |f| {
                if f.king {
                    king = true;
                    return ControlFlow::Break(());
                }
                let key = if full {
                    i64::from(after_turn(f.board, mover, base + f.gain.total()))
                } else {
                    // Greedy's order: material first, squares to break ties.
                    (i64::from(f.gain.material) << 20) + i64::from(f.gain.squares)
                };
                keep_best(&mut best, width, key, f.board);
                ControlFlow::Continue(())
            },
        );
        if king {
            return Some(WIN);
        }
        if self.budget.stopped() {
            return None;
        }
        let mut value = -WIN;
        for (_, after) in best {
            let mut next = after;
            next.end_turn();
            value = value.max(-self.below(&next, depth - 1)?);
        }
        Some(value)
    }

    /// The value of `board` for the side about to roll, `depth` turns deep: the evaluation
    /// at 0, else a chance node over the sample of rolls.
    fn below(&mut self, board: &DiceBoard, depth: u32) -> Option<i32> {
        if depth == 0 {
            return Some(if self.strength.full {
                evaluate(board)
            } else {
                material(board)
            });
        }
        let sample = std::mem::take(&mut self.sample);
        let value = self.chance(board, depth, &sample);
        self.sample = sample;
        value
    }
}

/// Keeps in `best` (best first, at most `width`) the positions with the highest keys, a
/// position met again keeping its higher key.
fn keep_best(best: &mut Vec<(i64, DiceBoard)>, width: usize, key: i64, board: &DiceBoard) {
    if best.len() == width && best.last().is_some_and(|&(last, _)| key <= last) {
        return;
    }
    if let Some(i) = best.iter().position(|(_, b)| b == board) {
        if best[i].0 >= key {
            return;
        }
        best.remove(i);
    }
    let at = best
        .iter()
        .position(|&(k, _)| k < key)
        .unwrap_or(best.len());
    best.insert(at, (key, *board));
    best.truncate(width);
}

/// The index of the highest value, the first among equals.
fn top(valued: &[(i32, usize)]) -> Option<usize> {
    let mut best: Option<(i32, usize)> = None;
    for &(value, i) in valued {
        if best.is_none_or(|(b, _)| value > b) {
            best = Some((value, i));
        }
    }
    best.map(|(_, i)| i)
}
