//! Gomoku's rules of play: two seats, stones placed one at a time, a win by five as the rule
//! set says, a draw on a full board, and Renju's forbidden points refused or lost by foul.
//!
//! Colours are not seats. Seat 0 is the first player, who plays Black in a free opening; in
//! swap2 it is only the tentative first player: it places three stones (black, white,
//! black), then seat 1 chooses to stay White, to take Black, or to place two more stones
//! (white, black) and hand the choice of colour back to seat 0. Play then goes on with
//! White to move.

use serde::{Deserialize, Serialize};

use arbiter_rules::{
    ConfigError, Ctx, Emitted, Events, Game, Outcome, RuleError, ScoreOrder, Seat, Started, ToAct,
    Viewer,
};

use crate::board::{Board, Cell, Color, Foul, RuleSet};

/// The game (a marker type; see the module documentation for the rules).
pub struct Gomoku;

/// What a stone on a forbidden point does under Renju rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoulPolicy {
    /// The move is refused, as most servers do.
    #[default]
    Illegal,
    /// The move is played and Black loses by foul, as in tournament Renju.
    Loss,
}

/// How a game begins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningRule {
    /// Black (seat 0) places the first stone anywhere.
    #[default]
    Free,
    /// Swap2: see the module documentation.
    Swap2,
}

/// Options of a Gomoku game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GomokuConfig {
    /// The board's side: 15, 19 or 20.
    pub size: u8,
    /// Which fives win, and whether Black has forbidden points.
    pub rule: RuleSet,
    /// What a forbidden stone does under Renju rules.
    pub foul: FoulPolicy,
    /// How the game begins.
    pub opening: OpeningRule,
    /// Stones on the board before play, black first and then alternating (a fixed opening);
    /// play goes on with the colour after the last of them.
    pub stones: Vec<(u8, u8)>,
}

impl Default for GomokuConfig {
    fn default() -> Self {
        GomokuConfig {
            size: 15,
            rule: RuleSet::Freestyle,
            foul: FoulPolicy::Illegal,
            opening: OpeningRule::Free,
            stones: Vec::new(),
        }
    }
}

/// A swap2 choice of colour, or of placing two more stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Swap2Choice {
    /// Take Black.
    Black,
    /// Take White.
    White,
    /// Place a white and a black stone and let the other player choose (seat 1 only).
    More,
}

/// One decision: a stone, or a swap2 choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GomokuAction {
    /// A stone at column `x`, row `y`, from the top left.
    Place {
        /// The column, from 0.
        x: u8,
        /// The row, from 0.
        y: u8,
    },
    /// A swap2 choice.
    Swap2 {
        /// The choice.
        swap2: Swap2Choice,
    },
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Swap2: seat 0 places its three stones.
    Swap2Place,
    /// Swap2: seat 1 chooses.
    Swap2Choose,
    /// Swap2: seat 1 places its two more stones.
    Swap2More,
    /// Swap2: seat 0 chooses its colour.
    Swap2Final,
    /// Normal play.
    Play,
    /// The game has ended.
    Over,
}

/// One stone played, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// The seat that placed it.
    pub seat: u8,
    /// Its colour.
    pub color: Color,
    /// Its column.
    pub x: u8,
    /// Its row.
    pub y: u8,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GomokuEvent {
    /// A stone was placed.
    Placed(Played),
    /// A swap2 choice was made.
    Chose {
        /// The seat choosing.
        seat: u8,
        /// Its choice.
        choice: Swap2Choice,
        /// The seat that plays Black from now on, once colours are settled.
        black: Option<u8>,
    },
    /// The game ended.
    Ended {
        /// `five`, `foul`, `full_board`, or `no_legal_move` (Black left with forbidden
        /// points only, under Renju with fouls refused).
        reason: &'static str,
        /// The winning seat; `None` for a draw.
        winner: Option<u8>,
    },
}

/// The whole state; Gomoku hides nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GomokuState {
    config: GomokuConfig,
    board: Board,
    phase: Phase,
    /// The seat to decide.
    to_move: u8,
    /// The colour of the next stone.
    next: Color,
    /// The seat playing Black, once colours are settled.
    black: Option<u8>,
    history: Vec<Played>,
    /// How the game ended: the reason and the winning seat.
    end: Option<(String, Option<u8>)>,
}

/// What anyone sees: everything, since Gomoku has no secrets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GomokuView {
    /// The board's side.
    pub size: u8,
    /// The rule set.
    pub rule: RuleSet,
    /// The rows from the top: `.` empty, `X` black, `O` white.
    pub board: Vec<String>,
    /// Where the game stands.
    pub phase: Phase,
    /// The seat to decide, while the game runs.
    pub to_move: Option<u8>,
    /// The colour of the next stone.
    pub next: Color,
    /// The seat playing Black, once colours are settled.
    pub black_seat: Option<u8>,
    /// Every stone played, in order; the opening's stones are not among them.
    pub history: Vec<Played>,
    /// The stones of a fixed or balanced opening, on the board before play began, as the
    /// config's `stones` are: in the order placed, black first and then alternating. Engines
    /// that rebuild the position from the moves (the Gomocup protocol's `BOARD`) need them
    /// before `history`; empty for a free or swap2 opening.
    pub opening: Vec<(u8, u8)>,
    /// Points Black may not play now, under Renju rules, while Black is to place a stone.
    pub forbidden: Vec<(u8, u8)>,
}

impl GomokuState {
    /// Whether a stone of the colour to play may go at (`x`, `y`): an empty point, and not a
    /// forbidden one when forbidden stones are refused.
    fn check_place(&mut self, x: u8, y: u8) -> Result<Option<Foul>, RuleError> {
        let (ux, uy) = (usize::from(x), usize::from(y));
        match self.board.get(ux, uy) {
            None => {
                return Err(RuleError::Illegal(format!(
                    "({x}, {y}) is outside the {0}x{0} board",
                    self.board.size()
                )));
            }
            Some(Cell::Empty) => {}
            Some(_) => return Err(RuleError::Illegal(format!("({x}, {y}) is occupied"))),
        }
        let foul = self.foul_of(ux, uy);
        match (foul, self.config.foul) {
            (Some(foul), FoulPolicy::Illegal) => Err(RuleError::Illegal(format!(
                "({x}, {y}) is forbidden: {}",
                foul.describe()
            ))),
            (foul, _) => Ok(foul),
        }
    }

    /// Whether the colour to play may take some point: any empty one, but not, when
    /// forbidden stones are refused, one forbidden to it. The first allowed point ends the
    /// search, and most points are ruled out as fouls at a glance.
    fn can_place_any(&mut self) -> bool {
        let size = self.board.size();
        let refused = self.config.foul == FoulPolicy::Illegal;
        (0..size).any(|y| {
            (0..size).any(|x| {
                self.board.get(x, y) == Some(Cell::Empty)
                    && !(refused && self.foul_of(x, y).is_some())
            })
        })
    }

    /// Why the stone to play would be a foul at (`x`, `y`), if it would.
    fn foul_of(&mut self, x: usize, y: usize) -> Option<Foul> {
        let renju_black = self.config.rule == RuleSet::Renju && self.next == Color::Black;
        // The swap2 stones are placed before the game proper; no opening stone is a foul.
        if !renju_black || self.phase != Phase::Play {
            return None;
        }
        self.board.forbidden(x, y)
    }

    fn seat_of(&self, color: Color) -> u8 {
        let black = self.black.unwrap_or(0);
        if color == Color::Black {
            black
        } else {
            1 - black
        }
    }

    fn settle(&mut self, black: u8) {
        self.black = Some(black);
        self.phase = Phase::Play;
        self.to_move = self.seat_of(self.next);
    }

    fn end(&mut self, reason: &'static str, winner: Option<u8>) -> GomokuEvent {
        self.phase = Phase::Over;
        self.end = Some((reason.to_owned(), winner));
        GomokuEvent::Ended { reason, winner }
    }
}

fn stones_in(config: &GomokuConfig) -> Result<Board, ConfigError> {
    let mut board = Board::new(usize::from(config.size));
    let mut color = Color::Black;
    for &(x, y) in &config.stones {
        if board.get(usize::from(x), usize::from(y)) != Some(Cell::Empty) {
            return Err(ConfigError(format!(
                "the opening stone ({x}, {y}) is off the board or on another stone"
            )));
        }
        board.place(usize::from(x), usize::from(y), color);
        color = color.other();
    }
    Ok(board)
}

impl Game for Gomoku {
    const ID: &'static str = "gomoku";
    const RULES_VERSION: u32 = 1;

    type Config = GomokuConfig;
    type State = GomokuState;
    type Action = GomokuAction;
    type Event = GomokuEvent;
    type View = GomokuView;

    fn seat_count(config: &GomokuConfig) -> Result<usize, ConfigError> {
        if ![15, 19, 20].contains(&config.size) {
            return Err(ConfigError(format!(
                "boards are 15, 19 or 20 a side, not {}",
                config.size
            )));
        }
        if config.opening == OpeningRule::Swap2 && !config.stones.is_empty() {
            return Err(ConfigError(
                "a fixed opening and swap2 do not go together".to_owned(),
            ));
        }
        Ok(2)
    }

    fn start(
        config: &GomokuConfig,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Started<GomokuState, GomokuEvent>, ConfigError> {
        Gomoku::seat_count(config)?;
        let board = stones_in(config)?;
        let next = if config.stones.len().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        let swap2 = config.opening == OpeningRule::Swap2;
        let state = GomokuState {
            config: config.clone(),
            board,
            phase: if swap2 {
                Phase::Swap2Place
            } else {
                Phase::Play
            },
            to_move: if next == Color::Black || swap2 { 0 } else { 1 },
            next,
            black: (!swap2).then_some(0),
            history: Vec::new(),
            end: None,
        };
        Ok((state, Vec::new()))
    }

    fn to_act(state: &GomokuState) -> ToAct {
        match state.phase {
            Phase::Over => ToAct::Nobody,
            _ => ToAct::Turn {
                seat: Seat(state.to_move),
            },
        }
    }

    fn legal_actions(state: &GomokuState, seat: Seat) -> Vec<GomokuAction> {
        if state.phase == Phase::Over || seat.0 != state.to_move {
            return Vec::new();
        }
        let choices: &[Swap2Choice] = match state.phase {
            Phase::Swap2Choose => &[Swap2Choice::Black, Swap2Choice::White, Swap2Choice::More],
            Phase::Swap2Final => &[Swap2Choice::Black, Swap2Choice::White],
            _ => &[],
        };
        if !choices.is_empty() {
            return choices
                .iter()
                .map(|&swap2| GomokuAction::Swap2 { swap2 })
                .collect();
        }
        let mut state = state.clone();
        let size = state.board.size();
        let mut actions = Vec::new();
        for y in 0..size {
            for x in 0..size {
                let (x, y) = (x as u8, y as u8);
                if state.check_place(x, y).is_ok() {
                    actions.push(GomokuAction::Place { x, y });
                }
            }
        }
        actions
    }

    fn apply(
        state: &mut GomokuState,
        seat: Seat,
        action: &GomokuAction,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Events<GomokuEvent>, RuleError> {
        if state.phase == Phase::Over {
            return Err(RuleError::GameOver);
        }
        if seat.0 != state.to_move {
            return Err(RuleError::NotYourTurn);
        }
        match (*action, state.phase) {
            (GomokuAction::Swap2 { swap2 }, Phase::Swap2Choose | Phase::Swap2Final) => {
                Ok(choose(state, seat.0, swap2)?)
            }
            (GomokuAction::Swap2 { .. }, _) => Err(RuleError::Illegal(
                "there is no swap2 choice to make now; place a stone".to_owned(),
            )),
            (GomokuAction::Place { .. }, Phase::Swap2Choose | Phase::Swap2Final) => Err(
                RuleError::Illegal("choose a colour first (swap2)".to_owned()),
            ),
            (GomokuAction::Place { x, y }, _) => place(state, seat.0, x, y),
        }
    }

    fn view(state: &GomokuState, _viewer: Viewer) -> GomokuView {
        let board = state
            .board
            .rows()
            .map(|row| {
                row.iter()
                    .map(|cell| match cell {
                        Cell::Empty => '.',
                        Cell::Black => 'X',
                        Cell::White => 'O',
                    })
                    .collect()
            })
            .collect();
        let renju_black = state.config.rule == RuleSet::Renju
            && state.next == Color::Black
            && state.phase == Phase::Play;
        let forbidden = if renju_black {
            let mut board = state.board.clone();
            board
                .forbidden_points()
                .into_iter()
                .map(|((x, y), _)| (x as u8, y as u8))
                .collect()
        } else {
            Vec::new()
        };
        GomokuView {
            size: state.config.size,
            rule: state.config.rule,
            board,
            phase: state.phase,
            to_move: (state.phase != Phase::Over).then_some(state.to_move),
            next: state.next,
            black_seat: state.black,
            history: state.history.clone(),
            opening: state.config.stones.clone(),
            forbidden,
        }
    }

    fn outcome(state: &GomokuState) -> Option<Outcome> {
        let (reason, winner) = state.end.as_ref()?;
        let scores: Vec<i64> = (0..2u8)
            .map(|seat| i64::from(Some(seat) == *winner))
            .collect();
        Some(Outcome::from_scores(
            &scores,
            ScoreOrder::HigherIsBetter,
            reason,
        ))
    }

    fn forfeit(_state: &GomokuState, seat: Seat) -> Outcome {
        let scores = [0, 1].map(|s| i64::from(s != seat.0));
        Outcome::forfeit(&scores, seat, ScoreOrder::HigherIsBetter)
    }
}

/// A swap2 choice by `seat`.
fn choose(
    state: &mut GomokuState,
    seat: u8,
    choice: Swap2Choice,
) -> Result<Events<GomokuEvent>, RuleError> {
    match (state.phase, choice) {
        (Phase::Swap2Choose, Swap2Choice::More) => {
            state.phase = Phase::Swap2More;
        }
        (Phase::Swap2Choose | Phase::Swap2Final, Swap2Choice::Black) => state.settle(seat),
        (Phase::Swap2Choose | Phase::Swap2Final, Swap2Choice::White) => state.settle(1 - seat),
        _ => {
            return Err(RuleError::Illegal(
                "the first player chooses Black or White only".to_owned(),
            ));
        }
    }
    Ok(vec![Emitted::public(GomokuEvent::Chose {
        seat,
        choice,
        black: state.black,
    })])
}

/// A stone by `seat` at (`x`, `y`).
fn place(
    state: &mut GomokuState,
    seat: u8,
    x: u8,
    y: u8,
) -> Result<Events<GomokuEvent>, RuleError> {
    let foul = state.check_place(x, y)?;
    let color = state.next;
    let played = Played { seat, color, x, y };
    let (ux, uy) = (usize::from(x), usize::from(y));
    state.board.place(ux, uy, color);
    state.history.push(played);
    state.next = color.other();
    let mut events = vec![Emitted::public(GomokuEvent::Placed(played))];
    match state.phase {
        Phase::Swap2Place => {
            if state.history.len() == 3 {
                state.phase = Phase::Swap2Choose;
                state.to_move = 1;
            }
            return Ok(events);
        }
        Phase::Swap2More => {
            if state.history.len() == 5 {
                state.phase = Phase::Swap2Final;
                state.to_move = 0;
            }
            return Ok(events);
        }
        _ => {}
    }
    let ended = if foul.is_some() {
        Some(state.end("foul", Some(1 - seat)))
    } else if state.board.makes_five(ux, uy, color, state.config.rule) {
        Some(state.end("five", Some(seat)))
    } else if state.board.is_full() {
        Some(state.end("full_board", None))
    } else {
        state.to_move = 1 - seat;
        // Under Renju with fouls refused, Black may find every empty point forbidden; the
        // game cannot go on, and neither side has won.
        (!state.can_place_any()).then(|| state.end("no_legal_move", None))
    };
    events.extend(ended.map(Emitted::public));
    Ok(events)
}

#[cfg(test)]
mod tests;
