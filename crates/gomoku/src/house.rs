//! Gomoku's house players, which decide from the seat's view alone.
//!
//! `Random` plays any legal action; `Greedy` looks one stone ahead with the line-pattern
//! evaluation; `Easy`, `Medium` and `Hard` take a five, block one, then search for a victory
//! by continuous fours (and, from `Medium`, by threes and fours), and otherwise run an
//! iterative-deepening alpha-beta search over the points near stones, each as wide and deep
//! as its thinking time allows. A stone is never put on a point forbidden to Black, and the
//! swap2 opening is played with stones near the centre and the colour the evaluation
//! prefers.

mod patterns;
mod search;
#[cfg(test)]
mod tests;

use std::time::Instant;

use arbiter_plugin::{Budget, HouseLevel, HousePlayer, SeatView};
use arbiter_rules::Random;
use arbiter_rules::random::below;
use serde_json::{Value, json};

use crate::board::{Board, Cell, Color};
use crate::rules::{GomokuAction, GomokuView, Phase, Swap2Choice};
use search::{Engine, Strength};

/// Gomoku's house player, at every level.
pub(crate) struct House;

/// The bounds of one decision: the deadline, and for tests a node budget that makes the
/// result independent of the machine's speed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// When the decision must be made.
    pub(crate) deadline: Instant,
    /// At most this many search nodes, if any limit.
    pub(crate) max_nodes: Option<u64>,
}

impl HousePlayer for House {
    fn choose(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value {
        // The arena's deadline already keeps within the level's thinking time and the clock.
        let limits = Limits {
            deadline,
            max_nodes: None,
        };
        choose_with_limits(view, level, limits, rng)
    }

    fn decisions_left(&self, view: &SeatView<'_>) -> i64 {
        let Ok(game) = view.typed().downcast::<GomokuView>() else {
            return 20;
        };
        let stones: usize = game
            .board
            .iter()
            .map(|row| row.chars().filter(|&c| c == 'X' || c == 'O').count())
            .sum();
        let empty = usize::from(game.size).pow(2).saturating_sub(stones);
        // Most games end within 60 stones; one that runs longer is still expected to need
        // some 20 more, but never more than the empty points.
        let expected = 60usize.saturating_sub(stones).max(20).min(empty);
        i64::try_from(expected.div_ceil(2)).unwrap_or(1).max(1)
    }
}

/// How each searching level searches; `None` for the levels that do not.
fn strength(level: HouseLevel) -> Option<Strength> {
    match level {
        HouseLevel::Random | HouseLevel::Greedy => None,
        HouseLevel::Easy => Some(Strength {
            vcf_depth: 8,
            vct_depth: 0,
            width: 8,
            max_depth: 4,
        }),
        HouseLevel::Medium => Some(Strength {
            vcf_depth: 14,
            vct_depth: 3,
            width: 10,
            max_depth: 8,
        }),
        HouseLevel::Hard | HouseLevel::Max => Some(Strength {
            vcf_depth: 20,
            vct_depth: 5,
            width: 14,
            max_depth: 20,
        }),
    }
}

/// [`HousePlayer::choose`] within `limits`.
pub(crate) fn choose_with_limits(
    view: &SeatView<'_>,
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Value {
    let legal = view.legal_actions();
    let Some(first) = legal.first() else {
        return Value::Null;
    };
    if level == HouseLevel::Random {
        let count = u32::try_from(legal.len()).unwrap_or(u32::MAX);
        return legal[below(rng, count) as usize].clone();
    }
    let Ok(game) = view.typed().downcast::<GomokuView>() else {
        return first.clone();
    };
    let chosen = match game.phase {
        Phase::Swap2Choose | Phase::Swap2Final => choose_colour(&game, level, limits, rng),
        Phase::Swap2Place | Phase::Swap2More => opening_stone(&game, &legal, rng),
        Phase::Play | Phase::Over => stone(&game, level, limits, &legal, rng),
    };
    chosen
        .filter(|action| legal.contains(action))
        .unwrap_or_else(|| first.clone())
}

/// The board the view draws.
fn board_of(game: &GomokuView) -> Board {
    let mut board = Board::new(usize::from(game.size));
    for (y, row) in game.board.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let color = match c {
                'X' => Color::Black,
                'O' => Color::White,
                _ => continue,
            };
            if board.get(x, y) == Some(Cell::Empty) {
                board.place(x, y, color);
            }
        }
    }
    board
}

fn place_action(x: usize, y: usize) -> Value {
    json!({"x": x, "y": y})
}

/// Which points the seat may play, by padded index: legal and not forbidden by the view.
fn allowed_points(game: &GomokuView, engine: &Engine, legal: &[Value]) -> Vec<bool> {
    let size = usize::from(game.size);
    let mut allowed = vec![false; engine.point(size - 1, size - 1) + 1];
    for action in legal {
        if let Ok(GomokuAction::Place { x, y }) = serde_json::from_value(action.clone()) {
            let (x, y) = (usize::from(x), usize::from(y));
            if x < size && y < size && !game.forbidden.contains(&(x as u8, y as u8)) {
                allowed[engine.point(x, y)] = true;
            }
        }
    }
    allowed
}

/// A stone in normal play.
fn stone(
    game: &GomokuView,
    level: HouseLevel,
    limits: Limits,
    legal: &[Value],
    rng: &mut dyn Random,
) -> Option<Value> {
    let color = game.next;
    let max_nodes = limits.max_nodes.unwrap_or(u64::MAX);
    let start = Instant::now();
    let budget = Budget::new(limits.deadline, max_nodes);
    let mut engine = Engine::new(&board_of(game), game.rule, budget);
    let allowed = allowed_points(game, &engine, legal);
    let ok = |point: usize| allowed.get(point).copied().unwrap_or(false);
    let play = |engine: &Engine, point: usize| {
        let (x, y) = engine.xy(point);
        Some(place_action(x, y))
    };
    let scan = engine.scan(color);
    // A five wins now; the other side's five must be stopped.
    if let Some(&point) = scan.own_fives.iter().find(|&&p| ok(p)) {
        return play(&engine, point);
    }
    if let Some(&point) = scan.opponent_fives.iter().find(|&&p| ok(p)) {
        return play(&engine, point);
    }
    let Some(strength) = strength(level) else {
        // Greedy: the best-scored point, the rng choosing among equals.
        let moves: Vec<_> = scan.moves.iter().filter(|m| ok(m.point)).collect();
        let best = moves.first()?.order_score();
        let equals: Vec<_> = moves.iter().filter(|m| m.order_score() == best).collect();
        let index = below(rng, u32::try_from(equals.len()).unwrap_or(1)) as usize;
        return play(&engine, equals[index].point);
    };
    // An open four (or two fours) wins: the other side has no five to make.
    if let Some(m) = scan
        .moves
        .iter()
        .find(|m| m.attack >= search::OPEN_FOUR_VALUE && ok(m.point))
    {
        return play(&engine, m.point);
    }
    // The threat searches share the first half of the time and nodes; alpha-beta most of
    // the rest, and the check that its move leaves the other side no forced win the end.
    let span = limits.deadline.saturating_duration_since(start);
    let share = |num: u32, den: u32| {
        (
            start + span * num / den,
            max_nodes / u64::from(den) * u64::from(num),
        )
    };
    let (until, nodes) = share(1, 4);
    engine.budget = Budget::new(until, nodes);
    if let Some(point) = engine.vcf(color, strength.vcf_depth).filter(|&p| ok(p)) {
        return play(&engine, point);
    }
    if strength.vct_depth > 0 {
        let (until, nodes) = share(2, 4);
        engine.budget = Budget::new(until, nodes);
        let found = engine.vct(color, strength.vct_depth, strength.vcf_depth);
        if let Some(point) = found.filter(|&p| ok(p)) {
            return play(&engine, point);
        }
    }
    // Small noise on the root moves' values varies play between equal moves.
    let mut noise = vec![0; allowed.len()];
    for point in engine.candidates() {
        if let Some(slot) = noise.get_mut(point) {
            *slot = below(rng, 16) as i32;
        }
    }
    // Hard's check of its move reads threes too, and takes more of the time.
    let (until, nodes) = if matches!(level, HouseLevel::Hard | HouseLevel::Max) {
        share(3, 4)
    } else {
        share(7, 8)
    };
    engine.budget = Budget::new(until, nodes / 4 * 3);
    let best = engine
        .alpha_beta(color, strength, &noise)
        .map(|(point, _)| point)
        .filter(|&p| ok(p));
    let mut order: Vec<usize> = best.into_iter().collect();
    order.extend(scan.moves.iter().map(|m| m.point).filter(|&p| ok(p)));
    if level != HouseLevel::Easy {
        engine.budget = Budget::new(limits.deadline, max_nodes / 8);
        let reads_threes = matches!(level, HouseLevel::Hard | HouseLevel::Max);
        if let Some(point) = safe_move(&mut engine, color, &order, strength, reads_threes) {
            return play(&engine, point);
        }
    }
    order.first().and_then(|&point| play(&engine, point))
}

/// The first of the first few `moves` after which the other side has no victory by
/// continuous fours (nor, if `reads_threes`, by threes and fours, read three threats
/// deep); `None` if each leaves one or the budget runs out first.
fn safe_move(
    engine: &mut Engine,
    color: Color,
    moves: &[usize],
    strength: Strength,
    reads_threes: bool,
) -> Option<usize> {
    let mut tried = Vec::new();
    for &point in moves {
        if tried.contains(&point) {
            continue;
        }
        if tried.len() == 6 {
            break;
        }
        tried.push(point);
        engine.place(point, color);
        let threat = if reads_threes {
            engine.vct(color.other(), 3, strength.vcf_depth)
        } else {
            engine.vcf(color.other(), strength.vcf_depth)
        };
        engine.undo(point);
        if engine.budget.stopped() {
            return None;
        }
        if threat.is_none() {
            return Some(point);
        }
    }
    None
}

/// A swap2 opening stone: any empty point within two of the centre.
fn opening_stone(game: &GomokuView, legal: &[Value], rng: &mut dyn Random) -> Option<Value> {
    let centre = usize::from(game.size) / 2;
    let near: Vec<Value> = (centre - 2..=centre + 2)
        .flat_map(|y| (centre - 2..=centre + 2).map(move |x| place_action(x, y)))
        .filter(|action| legal.contains(action))
        .collect();
    let count = u32::try_from(near.len()).ok().filter(|&n| n > 0)?;
    Some(near[below(rng, count) as usize].clone())
}

/// A swap2 choice: the colour whose side the evaluation prefers, with White to move next;
/// at the stronger levels, two more stones now and then when the position looks even.
fn choose_colour(
    game: &GomokuView,
    level: HouseLevel,
    limits: Limits,
    rng: &mut dyn Random,
) -> Option<Value> {
    let next = game.next;
    let nodes = limits.max_nodes.unwrap_or(u64::MAX).min(20_000);
    let mut engine = Engine::new(
        &board_of(game),
        game.rule,
        Budget::new(limits.deadline, nodes),
    );
    let value = match strength(level) {
        None => engine.scan(next).eval,
        Some(strength) => {
            let shallow = Strength {
                max_depth: 2,
                ..strength
            };
            engine
                .alpha_beta(next, shallow, &[])
                .map_or(0, |(_, value)| value)
        }
    };
    let even = value.abs() < 500;
    let strong = matches!(
        level,
        HouseLevel::Medium | HouseLevel::Hard | HouseLevel::Max
    );
    let choice = if game.phase == Phase::Swap2Choose && strong && even && below(rng, 2) == 0 {
        Swap2Choice::More
    } else if (value >= 0) == (next == Color::Black) {
        Swap2Choice::Black
    } else {
        Swap2Choice::White
    };
    serde_json::to_value(GomokuAction::Swap2 { swap2: choice }).ok()
}
