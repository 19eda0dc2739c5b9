//! The house player's search: a padded board with line-pattern shapes, threat-space searches
//! (victory by continuous fours, and by threes and fours) and iterative-deepening alpha-beta
//! over the candidate moves near stones.
//!
//! Every search runs under a [`Budget`] of nodes and time. Given the same position and node
//! budget, with a deadline that does not strike first, each result is the same.

use arbiter_plugin::Budget;

use crate::board::{Board, Cell, Color, RuleSet};

use super::patterns::{
    BLOCKED, EMPTY, FIVE, FOUR, LineTable, OPEN_FOUR, OPEN_THREE, OPEN_TWO, OWN, REACH, TABLES,
    THREE, TWO, WEIGHTS,
};

/// A score beyond any evaluation: a won game, less the plies it takes.
pub(crate) const WIN: i32 = 100_000_000;

/// The value of a point where a stone makes five.
const FIVE_VALUE: i32 = 1_000_000;
/// The value of a point where a stone makes an open four or two fours: a win in two moves.
pub(crate) const OPEN_FOUR_VALUE: i32 = 100_000;
/// The longest line of play a search follows, forced moves included.
const MAX_PLY: i32 = 40;

const EMPTY_CELL: u8 = 0;
const BLACK_CELL: u8 = 1;
const WHITE_CELL: u8 = 2;
const WALL_CELL: u8 = 3;

/// How widely and deeply a level searches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strength {
    /// Attacker moves in a search of continuous fours.
    pub(crate) vcf_depth: u32,
    /// Attacker moves in a search of threes and fours; 0 for none.
    pub(crate) vct_depth: u32,
    /// Moves tried at each node of the alpha-beta search.
    pub(crate) width: usize,
    /// The deepest alpha-beta iteration.
    pub(crate) max_depth: i32,
}

/// One candidate point, scored for the side to move.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scored {
    /// The point (a padded index).
    pub(crate) point: usize,
    /// What a stone of the side to move makes there.
    pub(crate) attack: i32,
    /// What a stone of the other side would make there.
    pub(crate) defence: i32,
    /// Whether a stone of the side to move makes a four there.
    four: bool,
    /// The directions (bits 0 to 3) in which a stone of the other side makes an open four.
    open_fours_against: u8,
}

impl Scored {
    /// Its place in the move order: what it makes, and most of what it stops.
    pub(crate) fn order_score(&self) -> i32 {
        self.attack + self.defence * 7 / 8
    }
}

/// What one pass over the candidates finds for the side to move.
pub(crate) struct Scan {
    /// Points where the side to move makes five.
    pub(crate) own_fives: Vec<usize>,
    /// Points where the other side makes five.
    pub(crate) opponent_fives: Vec<usize>,
    /// Every candidate, best first.
    pub(crate) moves: Vec<Scored>,
    /// The position's value for the side to move.
    pub(crate) eval: i32,
}

/// The board the search plays on: a padded grid with walls around it, each point with the
/// count of stones within two, and the rules' board beside it for Renju's forbidden points.
pub(crate) struct Engine {
    size: usize,
    width: usize,
    cells: Vec<u8>,
    near: Vec<u8>,
    board: Board,
    rule: RuleSet,
    steps: [usize; 4],
    /// The nodes and time left.
    pub(crate) budget: Budget,
}

fn code(color: Color) -> u8 {
    match color {
        Color::Black => BLACK_CELL,
        Color::White => WHITE_CELL,
    }
}

fn has(shapes: &[u8; 4], shape: u8) -> bool {
    shapes.contains(&shape)
}

fn makes_four(shapes: &[u8; 4]) -> bool {
    shapes.iter().any(|&s| s == FOUR || s == OPEN_FOUR)
}

impl Engine {
    /// The search's copy of `board`, under `rule`.
    pub(crate) fn new(board: &Board, rule: RuleSet, budget: Budget) -> Engine {
        let size = board.size();
        let width = size + 2 * REACH;
        let mut engine = Engine {
            size,
            width,
            cells: vec![WALL_CELL; width * width],
            near: vec![0; width * width],
            board: Board::new(size),
            rule,
            steps: [1, width, width + 1, width - 1],
            budget,
        };
        for y in 0..size {
            for x in 0..size {
                let p = engine.point(x, y);
                engine.cells[p] = EMPTY_CELL;
            }
        }
        for y in 0..size {
            for x in 0..size {
                match board.get(x, y) {
                    Some(Cell::Black) => engine.place(engine.point(x, y), Color::Black),
                    Some(Cell::White) => engine.place(engine.point(x, y), Color::White),
                    _ => {}
                }
            }
        }
        engine
    }

    /// The padded index of (`x`, `y`).
    pub(crate) fn point(&self, x: usize, y: usize) -> usize {
        (y + REACH) * self.width + x + REACH
    }

    /// The coordinates of a padded index.
    pub(crate) fn xy(&self, point: usize) -> (usize, usize) {
        (point % self.width - REACH, point / self.width - REACH)
    }

    /// How many stones are on the board.
    pub(crate) fn stones(&self) -> usize {
        self.board.stones()
    }

    fn table(&self, color: Color) -> &'static LineTable {
        match (self.rule, color) {
            (RuleSet::Freestyle, _) | (RuleSet::Renju, Color::White) => &TABLES.free,
            (RuleSet::Standard, _) | (RuleSet::Renju, Color::Black) => &TABLES.exact,
        }
    }

    /// Whether the rule set gives `color` forbidden points.
    fn restricted(&self, color: Color) -> bool {
        self.rule == RuleSet::Renju && color == Color::Black
    }

    /// What a stone of `color` at the empty `point` makes along direction `dir`.
    fn shape(&self, point: usize, color: Color, dir: usize) -> u8 {
        let own = code(color);
        let step = self.steps[dir];
        let mut index = 0;
        for (k, weight) in WEIGHTS.iter().enumerate() {
            // Neighbours 0 to 4 lie before the point, 5 to 9 after it.
            let cell = if k < REACH {
                self.cells[point - (REACH - k) * step]
            } else {
                self.cells[point + (k - REACH + 1) * step]
            };
            let state = if cell == own {
                OWN
            } else if cell == EMPTY_CELL {
                EMPTY
            } else {
                BLOCKED
            };
            index += state * weight;
        }
        self.table(color).shape(index)
    }

    fn shapes(&self, point: usize, color: Color) -> [u8; 4] {
        [0, 1, 2, 3].map(|dir| self.shape(point, color, dir))
    }

    /// What the shapes of a stone of `color` are worth, combinations included (but for
    /// Black under Renju, whose double fours and double threes are fouls).
    fn value(&self, shapes: &[u8; 4], color: Color) -> i32 {
        let count = |shape: u8| shapes.iter().filter(|&&s| s == shape).count();
        if count(FIVE) > 0 {
            return FIVE_VALUE;
        }
        let fours = count(FOUR) + count(OPEN_FOUR);
        let threes = count(OPEN_THREE);
        let combinations = !self.restricted(color);
        if count(OPEN_FOUR) > 0 || (combinations && fours >= 2) {
            return OPEN_FOUR_VALUE;
        }
        if fours >= 1 && threes >= 1 {
            return 50_000;
        }
        if combinations && threes >= 2 {
            return 20_000;
        }
        shapes
            .iter()
            .map(|&s| match s {
                FOUR => 1_500,
                OPEN_THREE => 1_000,
                THREE => 150,
                OPEN_TWO => 120,
                TWO => 20,
                _ => 0,
            })
            .sum()
    }

    /// Whether `point` is forbidden to a stone of `color`.
    pub(crate) fn forbidden(&mut self, point: usize, color: Color) -> bool {
        if !self.restricted(color) {
            return false;
        }
        let (x, y) = self.xy(point);
        self.board.forbidden(x, y).is_some()
    }

    /// Puts a stone of `color` on the empty `point`.
    pub(crate) fn place(&mut self, point: usize, color: Color) {
        self.cells[point] = code(color);
        let (x, y) = self.xy(point);
        self.board.place(x, y, color);
        self.touch_near(point, true);
    }

    /// Takes the stone at `point` off.
    pub(crate) fn undo(&mut self, point: usize) {
        self.cells[point] = EMPTY_CELL;
        let (x, y) = self.xy(point);
        self.board.set(x, y, Cell::Empty);
        self.touch_near(point, false);
    }

    fn touch_near(&mut self, point: usize, add: bool) {
        for dy in 0..5 {
            for dx in 0..5 {
                // The padding is five wide, so two points either way stay in the grid.
                let q = point + dy * self.width + dx - 2 * self.width - 2;
                if add {
                    self.near[q] += 1;
                } else {
                    self.near[q] -= 1;
                }
            }
        }
    }

    /// The empty points within two of a stone, in board order; the centre on an empty
    /// board.
    pub(crate) fn candidates(&self) -> Vec<usize> {
        if self.stones() == 0 {
            return vec![self.point(self.size / 2, self.size / 2)];
        }
        let mut points = Vec::new();
        for y in 0..self.size {
            let row = self.point(0, y);
            for p in row..row + self.size {
                if self.cells[p] == EMPTY_CELL && self.near[p] > 0 {
                    points.push(p);
                }
            }
        }
        points
    }

    /// Scores every candidate for `color`, to move.
    pub(crate) fn scan(&self, color: Color) -> Scan {
        let other = color.other();
        let mut scan = Scan {
            own_fives: Vec::new(),
            opponent_fives: Vec::new(),
            moves: Vec::new(),
            eval: 0,
        };
        let (mut own_sum, mut other_sum, mut own_best) = (0i64, 0i64, 0i32);
        for point in self.candidates() {
            let own = self.shapes(point, color);
            let theirs = self.shapes(point, other);
            if has(&own, FIVE) {
                scan.own_fives.push(point);
            }
            if has(&theirs, FIVE) {
                scan.opponent_fives.push(point);
            }
            let attack = self.value(&own, color);
            let defence = self.value(&theirs, other);
            own_sum += i64::from(attack);
            other_sum += i64::from(defence);
            own_best = own_best.max(attack);
            let open_fours_against = (0..4)
                .filter(|&dir| theirs[dir] == OPEN_FOUR)
                .fold(0u8, |mask, dir| mask | 1 << dir);
            scan.moves.push(Scored {
                point,
                attack,
                defence,
                four: makes_four(&own),
                open_fours_against,
            });
        }
        // Candidates were gathered in board order, so equal scores keep that order.
        scan.moves
            .sort_by_key(|m| std::cmp::Reverse(m.order_score()));
        let eval = own_sum + i64::from(own_best) - other_sum * 9 / 8;
        scan.eval = eval.clamp(-i64::from(WIN / 2), i64::from(WIN / 2)) as i32;
        scan
    }

    /// The empty points on the lines through `point` where `color` now makes five.
    fn fives_through(&self, point: usize, color: Color) -> Vec<usize> {
        let mut fives = Vec::new();
        for dir in 0..4 {
            let step = self.steps[dir];
            for k in 1..=4 {
                for q in [point + k * step, point - k * step] {
                    if self.cells[q] == EMPTY_CELL
                        && self.shape(q, color, dir) == FIVE
                        && !fives.contains(&q)
                    {
                        fives.push(q);
                    }
                }
            }
        }
        fives
    }

    /// A first move of a victory by continuous fours for `attacker`, to move, within
    /// `depth` of its moves.
    pub(crate) fn vcf(&mut self, attacker: Color, depth: u32) -> Option<usize> {
        if self.budget.tick() {
            return None;
        }
        let defender = attacker.other();
        let mut fours = Vec::new();
        let mut defender_fives = Vec::new();
        for point in self.candidates() {
            let own = self.shapes(point, attacker);
            if has(&own, FIVE) {
                return Some(point);
            }
            if self.shapes(point, defender).contains(&FIVE) {
                defender_fives.push(point);
            }
            if makes_four(&own) {
                fours.push((point, self.value(&own, attacker)));
            }
        }
        if depth == 0 {
            return None;
        }
        match defender_fives.as_slice() {
            [] => {}
            // The defender's five must be stopped, and only by a four the attack goes on.
            [block] => fours.retain(|&(p, _)| p == *block),
            _ => return None,
        }
        fours.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
        let fours = fours.into_iter().map(|(point, _)| point);
        self.first_winning(fours, attacker, |engine, point| {
            engine.after_four(point, attacker, |engine| {
                engine.vcf(attacker, depth - 1).is_some()
            })
        })
    }

    /// The first of `moves` (best first) after which `wins` judges that `attacker` wins:
    /// each move not forbidden to it is played, judged and taken back. `None` when none wins
    /// or the budget runs out.
    fn first_winning(
        &mut self,
        moves: impl IntoIterator<Item = usize>,
        attacker: Color,
        mut wins: impl FnMut(&mut Engine, usize) -> bool,
    ) -> Option<usize> {
        for point in moves {
            if self.forbidden(point, attacker) {
                continue;
            }
            self.place(point, attacker);
            let won = wins(self, point);
            self.undo(point);
            if won {
                return Some(point);
            }
            if self.budget.stopped() {
                return None;
            }
        }
        None
    }

    /// After `attacker`'s four at `point`: true if two fives are open, or the one block is
    /// forbidden to the defender, or `go_on` wins after the block.
    fn after_four(
        &mut self,
        point: usize,
        attacker: Color,
        go_on: impl FnOnce(&mut Engine) -> bool,
    ) -> bool {
        let defender = attacker.other();
        match self.fives_through(point, attacker).as_slice() {
            [] => false,
            [block] => {
                let block = *block;
                if self.forbidden(block, defender) {
                    return true;
                }
                self.place(block, defender);
                let won = go_on(self);
                self.undo(block);
                won
            }
            _ => true,
        }
    }

    /// A first move of a victory by threes and fours for `attacker`, to move, within
    /// `depth` of its moves (each sequence of fours searched `vcf_depth` deep).
    pub(crate) fn vct(&mut self, attacker: Color, depth: u32, vcf_depth: u32) -> Option<usize> {
        if let Some(point) = self.vcf(attacker, vcf_depth) {
            return Some(point);
        }
        if depth == 0 || self.budget.stopped() {
            return None;
        }
        let defender = attacker.other();
        let mut threats = Vec::new();
        for point in self.candidates() {
            let own = self.shapes(point, attacker);
            let theirs = self.shapes(point, defender);
            // A five or an open four the defender can make now outruns any three.
            if has(&theirs, FIVE) || has(&theirs, OPEN_FOUR) {
                return None;
            }
            if makes_four(&own) || has(&own, OPEN_THREE) {
                threats.push((point, self.value(&own, attacker)));
            }
        }
        threats.sort_by_key(|&(_, value)| std::cmp::Reverse(value));
        threats.truncate(12);
        let threats = threats.into_iter().map(|(point, _)| point);
        self.first_winning(threats, attacker, |engine, point| {
            if engine.fives_through(point, attacker).is_empty() {
                engine.defend(attacker, depth, vcf_depth)
            } else {
                engine.after_four(point, attacker, |engine| {
                    engine.vct(attacker, depth - 1, vcf_depth).is_some()
                })
            }
        })
    }

    /// The defender, to move, answers `attacker`'s threes: true if every answer loses to a
    /// further threat sequence.
    fn defend(&mut self, attacker: Color, depth: u32, vcf_depth: u32) -> bool {
        if depth == 0 || self.budget.tick() {
            return false;
        }
        let defender = attacker.other();
        let mut answers = Vec::new();
        let mut threats = Vec::new();
        for point in self.candidates() {
            let theirs = self.shapes(point, defender);
            if has(&theirs, FIVE) {
                return false;
            }
            if makes_four(&theirs) {
                answers.push(point);
            }
            let own = self.shapes(point, attacker);
            if has(&own, FIVE) {
                // A four left open: the defender must block it, unless there are two.
                threats.clear();
                threats.push((point, usize::MAX));
                break;
            }
            for (dir, &shape) in own.iter().enumerate() {
                if shape == OPEN_FOUR {
                    threats.push((point, dir));
                }
            }
        }
        if let Some(&(block, usize::MAX)) = threats.first() {
            if self.forbidden(block, defender) {
                return true;
            }
            self.place(block, defender);
            let won = self.vct(attacker, depth - 1, vcf_depth).is_some();
            self.undo(block);
            return won;
        }
        // A three whose open four is forbidden to Black threatens nothing.
        let mut real = Vec::new();
        for &(point, dir) in &threats {
            if !self.forbidden(point, attacker) {
                real.push((point, dir));
            }
        }
        if real.is_empty() {
            return false;
        }
        // The defences of a three lie on its line: the open-four points and those where
        // the attacker would make a four.
        for &(point, dir) in &real {
            let step = self.steps[dir];
            if !answers.contains(&point) {
                answers.push(point);
            }
            for k in 1..=REACH {
                for q in [point + k * step, point - k * step] {
                    if self.cells[q] == EMPTY_CELL
                        && self.shape(q, attacker, dir) >= FOUR
                        && !answers.contains(&q)
                    {
                        answers.push(q);
                    }
                }
            }
        }
        for answer in answers {
            if self.forbidden(answer, defender) {
                continue;
            }
            self.place(answer, defender);
            let fives = self.fives_through(answer, defender);
            let won = match fives.as_slice() {
                [] => self.vct(attacker, depth - 1, vcf_depth).is_some(),
                // A counter-four: the attacker blocks it, and the defender moves again.
                [block] if !self.forbidden(*block, attacker) => {
                    let block = *block;
                    self.place(block, attacker);
                    let won = self.defend(attacker, depth - 1, vcf_depth);
                    self.undo(block);
                    won
                }
                _ => false,
            };
            self.undo(answer);
            if !won {
                return false;
            }
        }
        !self.budget.stopped()
    }

    /// The candidates for `color` worth searching at a node: the forced block if the other
    /// side has a five to make, else the best `width` by score, none forbidden. `None` when
    /// the node is decided: its value.
    fn node_moves(
        &mut self,
        color: Color,
        scan: &Scan,
        width: usize,
        ply: i32,
    ) -> Result<(Vec<usize>, bool), i32> {
        if !scan.own_fives.is_empty() {
            return Err(WIN - ply);
        }
        match scan.opponent_fives.as_slice() {
            [] => {}
            [block] => {
                if self.forbidden(*block, color) {
                    return Err(-(WIN - ply - 1));
                }
                return Ok((vec![*block], true));
            }
            _ => return Err(-(WIN - ply - 1)),
        }
        if scan.moves.is_empty() {
            return Err(0);
        }
        // An open four (or two fours) the other side, with no five to make, cannot stop.
        for scored in &scan.moves {
            if scored.attack >= OPEN_FOUR_VALUE && !self.forbidden(scored.point, color) {
                return Err(WIN - ply - 2);
            }
        }
        let answers = self.answers_to_threes(color, scan);
        let mut moves = Vec::with_capacity(width);
        for scored in &scan.moves {
            if moves.len() == width {
                break;
            }
            if answers.as_ref().is_some_and(|a| !a.contains(&scored.point)) {
                continue;
            }
            if self.forbidden(scored.point, color) {
                continue;
            }
            moves.push(scored.point);
        }
        if moves.is_empty() {
            return Err(0);
        }
        Ok((moves, false))
    }

    /// Where the other side has a three (a point where it makes an open four), the only
    /// moves that do not lose to it: the points of the fours it would make on the three's
    /// line, and fours of `color`'s own. `None` where the other side has no three.
    fn answers_to_threes(&mut self, color: Color, scan: &Scan) -> Option<Vec<usize>> {
        let other = color.other();
        let mut answers = Vec::new();
        for scored in &scan.moves {
            if scored.open_fours_against == 0 || self.forbidden(scored.point, other) {
                continue;
            }
            answers.push(scored.point);
            for dir in (0..4).filter(|&dir| scored.open_fours_against & 1 << dir != 0) {
                let step = self.steps[dir];
                for k in 1..=REACH {
                    for q in [scored.point + k * step, scored.point - k * step] {
                        if self.cells[q] == EMPTY_CELL && self.shape(q, other, dir) >= FOUR {
                            answers.push(q);
                        }
                    }
                }
            }
        }
        if answers.is_empty() {
            return None;
        }
        answers.extend(scan.moves.iter().filter(|m| m.four).map(|m| m.point));
        Some(answers)
    }

    fn negamax(
        &mut self,
        color: Color,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
        width: usize,
    ) -> i32 {
        if self.budget.tick() {
            return 0;
        }
        let scan = self.scan(color);
        let (moves, forced) = match self.node_moves(color, &scan, width, ply) {
            Ok(found) => found,
            Err(value) => return value,
        };
        if (depth <= 0 && !forced) || ply >= MAX_PLY {
            return scan.eval;
        }
        // A forced block costs no depth, so that a sequence of fours is read to its end.
        let next = if forced { depth } else { depth - 1 };
        let mut best = -WIN;
        for point in moves {
            self.place(point, color);
            let value = -self.negamax(color.other(), next, -beta, -alpha, ply + 1, width);
            self.undo(point);
            if self.budget.stopped() {
                return 0;
            }
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The best move for `color` by iterative-deepening alpha-beta, with its value: each
    /// root move's value plus its `noise` (by padded point, drawn by the caller, small
    /// beside any threat),
    /// from the deepest iteration finished; the best-ordered move if none finished.
    pub(crate) fn alpha_beta(
        &mut self,
        color: Color,
        strength: Strength,
        noise: &[i32],
    ) -> Option<(usize, i32)> {
        let scan = self.scan(color);
        let mut moves = match self.node_moves(color, &scan, strength.width + 4, 0) {
            Ok((moves, _)) => moves,
            Err(value) => {
                // A decided position: the winning point if there is one, else the best in
                // order (the caller plays fives and blocks itself before searching).
                let mut allowed = Vec::new();
                for scored in &scan.moves {
                    if !self.forbidden(scored.point, color) {
                        allowed.push(*scored);
                    }
                }
                let strongest = allowed.iter().rev().max_by_key(|m| m.attack).copied();
                let chosen = match strongest {
                    Some(m) if m.attack >= OPEN_FOUR_VALUE => Some(m),
                    _ => allowed.first().copied(),
                };
                return chosen.map(|m| (m.point, value));
            }
        };
        let mut best = (moves[0], scan.eval);
        for depth in 1..=strength.max_depth {
            let mut alpha = -WIN - 1;
            let mut iteration = None;
            for &point in &moves {
                self.place(point, color);
                let value = -self.negamax(
                    color.other(),
                    depth - 1,
                    -WIN - 1,
                    -alpha,
                    1,
                    strength.width,
                );
                self.undo(point);
                if self.budget.stopped() {
                    break;
                }
                let value = if value.abs() >= WIN - 2 * MAX_PLY {
                    value
                } else {
                    value + noise.get(point).copied().unwrap_or(0)
                };
                if value > alpha {
                    alpha = value;
                    iteration = Some((point, value));
                }
            }
            if self.budget.stopped() {
                break;
            }
            let Some(found) = iteration else { break };
            best = found;
            // The best move leads the next iteration.
            if let Some(i) = moves.iter().position(|&p| p == found.0) {
                moves[..=i].rotate_right(1);
            }
            if found.1.abs() >= WIN - 2 * MAX_PLY {
                break;
            }
        }
        Some(best)
    }
}
