//! The Othello family as an [`arbiter_rules::Game`]: seat 0 plays Black, seat 1 White.

use arbiter_rules::{
    ConfigError, Ctx, Emitted, Events, Game, Outcome, RuleError, ScoreOrder, Seat, Started, ToAct,
    Viewer,
};
use serde::{Deserialize, Serialize};

use crate::opening::random_opening;
use crate::scoring::result_discs;
use crate::{Color, Move, Position, Variant};

/// The game (a marker type).
pub struct Othello;

/// How a game's first position is chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// A random 12-disc opening drawn from the match's generator (bot matches).
    #[default]
    Random,
    /// The rules' start position (four centre discs; the empty board for classic Reversi).
    Start,
    /// These moves played from the start position: how the second leg of a paired match
    /// repeats the first leg's opening, and how a XOT opening is given.
    Moves(Vec<Move>),
}

/// Options of an Othello-family game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OthelloConfig {
    /// The game mode.
    pub variant: Variant,
    /// The first position.
    pub opening: Opening,
}

impl Default for OthelloConfig {
    fn default() -> Self {
        OthelloConfig {
            variant: Variant::Std,
            opening: Opening::Random,
        }
    }
}

/// A move as played, with its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// Who played it.
    pub color: Color,
    /// What was played.
    #[serde(rename = "move")]
    pub mv: Move,
}

/// A game in progress or finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "StateRepr", try_from = "StateRepr")]
pub struct OthelloState {
    position: Position,
    opening: Vec<Move>,
    history: Vec<Played>,
}

impl OthelloState {
    /// A game starting at `position`, which the `opening` moves led to.
    pub fn new(position: Position, opening: Vec<Move>) -> OthelloState {
        OthelloState {
            position,
            opening,
            history: Vec::new(),
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves that led from the start position to the game's first position.
    pub fn opening(&self) -> &[Move] {
        &self.opening
    }

    /// The moves played since the first position.
    pub fn history(&self) -> &[Played] {
        &self.history
    }

    /// How many moves (passes included) have been played: FlipSight's leg `revision`.
    pub fn revision(&self) -> usize {
        self.history.len()
    }

    /// Whether neither side can move.
    pub fn is_over(&self) -> bool {
        self.position.is_over()
    }

    /// The legal squares of the side to move, in order (empty: it must pass; also empty once
    /// the game is over).
    pub fn legal_squares(&self) -> Vec<u8> {
        if self.is_over() {
            return Vec::new();
        }
        let moves = self.position.legal_moves();
        (0..self.position.variant().squares())
            .filter(|&sq| moves >> sq & 1 != 0)
            .collect()
    }

    /// What every viewer sees.
    pub fn view(&self) -> OthelloView {
        let p = &self.position;
        OthelloView {
            variant: p.variant(),
            board_size: p.variant().size(),
            blocked_squares: p.variant().blocked_squares().to_vec(),
            board: p.cells(),
            to_move: (!self.is_over()).then(|| p.to_move()),
            legal_moves: self.legal_squares(),
            discs: p.disc_counts(),
            placed: p.placed(),
            revision: self.revision(),
            opening: self.opening.clone(),
            history: self.history.clone(),
            position: *p,
        }
    }
}

/// The stored form of [`OthelloState`]: the board as FlipSight writes it, which is easy to
/// read in a database and checked when loaded.
#[derive(Clone, Serialize, Deserialize)]
struct StateRepr {
    variant: Variant,
    board: Vec<u8>,
    to_move: Color,
    placed: [u16; 2],
    opening: Vec<Move>,
    history: Vec<Played>,
}

impl From<OthelloState> for StateRepr {
    fn from(state: OthelloState) -> StateRepr {
        let p = &state.position;
        StateRepr {
            variant: p.variant(),
            board: p.cells(),
            to_move: p.to_move(),
            placed: p.placed(),
            opening: state.opening,
            history: state.history,
        }
    }
}

impl TryFrom<StateRepr> for OthelloState {
    type Error = String;

    fn try_from(repr: StateRepr) -> Result<Self, Self::Error> {
        if repr.board.len() != usize::from(repr.variant.squares()) {
            return Err(format!(
                "a {} board has {} cells, not {}",
                repr.variant,
                repr.variant.squares(),
                repr.board.len()
            ));
        }
        let (mut black, mut white) = (0u128, 0u128);
        for (sq, &cell) in repr.board.iter().enumerate() {
            match cell {
                0 => {}
                1 => black |= 1 << sq,
                2 => white |= 1 << sq,
                other => return Err(format!("cell {sq} holds {other}; cells are 0, 1 or 2")),
            }
        }
        let position = Position::from_parts(repr.variant, black, white, repr.to_move, repr.placed)
            .ok_or_else(|| format!("the discs do not fit a {} board", repr.variant))?;
        Ok(OthelloState {
            position,
            opening: repr.opening,
            history: repr.history,
        })
    }
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum OthelloEvent {
    /// The game began at this position.
    Started {
        /// The game mode.
        variant: Variant,
        /// The opening moves that led here from the start position.
        opening: Vec<Move>,
        /// The first position, FlipSight cells.
        board: Vec<u8>,
    },
    /// A move or pass.
    Played {
        /// Who played.
        color: Color,
        /// What.
        #[serde(rename = "move")]
        mv: Move,
        /// The discs it flipped, in square order.
        flipped: Vec<u8>,
    },
    /// Neither side can move any more.
    Finished {
        /// Disc counts, Black then White.
        discs: [u32; 2],
    },
}

/// What every viewer sees (Othello hides nothing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OthelloView {
    /// The game mode.
    pub variant: Variant,
    /// 8 or 10.
    pub board_size: u8,
    /// The octagon's blocked squares.
    pub blocked_squares: Vec<u8>,
    /// FlipSight cells: 0 empty, 1 black, 2 white.
    pub board: Vec<u8>,
    /// The colour to move, `None` once the game is over.
    pub to_move: Option<Color>,
    /// The legal squares of the side to move (empty: it must pass).
    pub legal_moves: Vec<u8>,
    /// Disc counts, Black then White.
    pub discs: [u32; 2],
    /// Discs placed, Black then White.
    pub placed: [u16; 2],
    /// Moves played since the first position.
    pub revision: usize,
    /// The opening moves.
    pub opening: Vec<Move>,
    /// The moves played since the first position.
    pub history: Vec<Played>,
    /// The position itself, for code that reads the view as a typed value (a house player);
    /// not serialized, since the fields above describe it.
    #[serde(skip)]
    pub position: Position,
}

fn seat_of(color: Color) -> Seat {
    Seat(color.number() - 1)
}

fn score_order(variant: Variant) -> ScoreOrder {
    if variant.fewer_wins() {
        ScoreOrder::LowerIsBetter
    } else {
        ScoreOrder::HigherIsBetter
    }
}

fn squares_of(mask: u128) -> Vec<u8> {
    (0..100u8).filter(|&sq| mask >> sq & 1 != 0).collect()
}

impl Game for Othello {
    const ID: &'static str = "othello";
    const RULES_VERSION: u32 = 1;

    type Config = OthelloConfig;
    type State = OthelloState;
    type Action = Move;
    type Event = OthelloEvent;
    type View = OthelloView;

    fn seat_count(_config: &OthelloConfig) -> Result<usize, ConfigError> {
        Ok(2)
    }

    fn start(
        config: &OthelloConfig,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<OthelloState, OthelloEvent>, ConfigError> {
        let variant = config.variant;
        let opening = match &config.opening {
            Opening::Random => random_opening(variant, ctx.rng())
                .ok_or_else(|| ConfigError(format!("no {variant} opening could be drawn")))?,
            Opening::Start => Vec::new(),
            Opening::Moves(moves) => moves.clone(),
        };
        let mut position = Position::start(variant);
        for (i, &mv) in opening.iter().enumerate() {
            position.play(mv).map_err(|e| {
                ConfigError(format!(
                    "opening move {} ({}) is illegal: {e}",
                    i + 1,
                    mv.name(variant.size())
                ))
            })?;
        }
        if position.is_over() {
            return Err(ConfigError("the opening leaves a finished game".to_owned()));
        }
        let event = OthelloEvent::Started {
            variant,
            opening: opening.clone(),
            board: position.cells(),
        };
        Ok((
            OthelloState::new(position, opening),
            vec![Emitted::public(event)],
        ))
    }

    fn to_act(state: &OthelloState) -> ToAct {
        if state.is_over() {
            ToAct::Nobody
        } else {
            ToAct::Turn {
                seat: seat_of(state.position.to_move()),
            }
        }
    }

    fn legal_actions(state: &OthelloState, seat: Seat) -> Vec<Move> {
        if Othello::to_act(state) == (ToAct::Turn { seat }) {
            state.position.legal_move_list()
        } else {
            Vec::new()
        }
    }

    fn apply(
        state: &mut OthelloState,
        seat: Seat,
        mv: &Move,
        _ctx: &mut Ctx<'_>,
    ) -> Result<Events<OthelloEvent>, RuleError> {
        if seat.0 > 1 {
            return Err(RuleError::NoSuchSeat(seat.0));
        }
        if state.is_over() {
            return Err(RuleError::GameOver);
        }
        let color = state.position.to_move();
        if seat != seat_of(color) {
            return Err(RuleError::NotYourTurn);
        }
        let flipped = state
            .position
            .play(*mv)
            .map_err(|e| RuleError::Illegal(e.to_string()))?;
        state.history.push(Played { color, mv: *mv });
        let mut events = vec![Emitted::public(OthelloEvent::Played {
            color,
            mv: *mv,
            flipped: squares_of(flipped),
        })];
        if state.is_over() {
            events.push(Emitted::public(OthelloEvent::Finished {
                discs: state.position.disc_counts(),
            }));
        }
        Ok(events)
    }

    fn view(state: &OthelloState, _viewer: Viewer) -> OthelloView {
        state.view()
    }

    fn outcome(state: &OthelloState) -> Option<Outcome> {
        state.is_over().then(|| {
            let discs = state.position.disc_counts().map(i64::from);
            Outcome::from_scores(&discs, score_order(state.position.variant()), "discs")
        })
    }

    fn forfeit(state: &OthelloState, seat: Seat) -> Outcome {
        let variant = state.position.variant();
        let loser = if seat.0 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let scores = result_discs(variant, loser).map(i64::from);
        Outcome::forfeit(&scores, seat, score_order(variant))
    }
}

#[cfg(test)]
mod tests;
