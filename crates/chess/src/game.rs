//! The `Game`: one game, `chess`, for standard chess, Chess960 and Dice Chess.
//!
//! Seat 0 plays White and seat 1 Black. A move is a UCI string; a draw offer, its acceptance,
//! decline or withdrawal is `{"draw": bool}`, a free action either seat may send at any time.
//! A Dice Chess turn is one seat's turn of several micro-moves: the dice are rolled when the
//! previous turn ends (White's first roll in `start`), each from [`Ctx::roll`] with the leg's
//! roll counter as its nonce, and a roll that leaves no die usable passes the turn at once.

use arbiter_rules::{
    ConfigError, Ctx, Emitted, Events, Game, Outcome, RuleError, ScoreOrder, Seat, Started, ToAct,
    Viewer,
};
use cozy_chess::{Board, Color, Move, Piece, Square};
use serde::{Deserialize, Serialize};

use crate::dice::{DiceBoard, DiceRules, DiceSet, MicroError, Step, Turn, piece_of_face};
use crate::ending::{EndReason, GameResult, Side};
use crate::san::{dice_san, orthodox_san};
use crate::standard::{Orthodox, chess960_start, only_king, parse_uci};

/// The game (a marker type; see the module documentation).
pub struct Chess;

/// Which chess is played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Orthodox chess.
    #[default]
    Standard,
    /// Fischer random chess.
    Chess960,
    /// Dice Chess.
    Dice,
}

impl Variant {
    /// The variant's name (`standard`, `chess960`, `dice`).
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
            Variant::Dice => "dice",
        }
    }
}

/// Options of a chess game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChessConfig {
    /// Which chess.
    pub variant: Variant,
    /// Chess960 only: the start position's Scharnagl number, 0 to 959 (518 is the usual
    /// position, and the default).
    pub chess960_position: Option<u32>,
    /// A start position other than the variant's own: FEN (Shredder-FEN castling letters are
    /// read too), or for Dice Chess a DFEN whose dice field, if any, is ignored.
    pub fen: Option<String>,
    /// Dice Chess: whether castling may start from, pass through and land on attacked
    /// squares.
    pub castle_through_attack: bool,
    /// Dice Chess: the micro-moves without a capture or a pawn move after which the game is
    /// drawn, checked when a turn ends.
    pub draw_halfmove_limit: u16,
}

impl Default for ChessConfig {
    fn default() -> Self {
        ChessConfig {
            variant: Variant::Standard,
            chess960_position: None,
            fen: None,
            castle_through_attack: true,
            draw_halfmove_limit: 100,
        }
    }
}

impl ChessConfig {
    /// The default configuration of `variant`.
    pub fn of(variant: Variant) -> ChessConfig {
        ChessConfig {
            variant,
            ..ChessConfig::default()
        }
    }

    /// The Dice Chess options.
    pub fn dice_rules(&self) -> DiceRules {
        DiceRules {
            castle_through_attack: self.castle_through_attack,
        }
    }
}

/// One decision: a move in UCI notation, or a word on a draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ChessAction {
    /// A move (`"e2e4"`), or a Dice Chess micro-move.
    Move(String),
    /// `{"draw": true}` offers a draw or accepts the other side's offer; `{"draw": false}`
    /// declines the other side's offer or withdraws one's own.
    Draw {
        /// Offer or accept (true), decline or withdraw (false).
        draw: bool,
    },
}

/// What happened, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChessEvent {
    /// A move or micro-move was made.
    Move {
        /// Who moved.
        side: Side,
        /// The move in UCI notation.
        uci: String,
        /// The move in standard algebraic notation.
        san: String,
    },
    /// A Dice Chess turn's dice were rolled.
    Roll {
        /// Whose turn it is.
        side: Side,
        /// The roll's number in the leg, from 0.
        nonce: u64,
        /// The faces, in the order drawn.
        faces: Vec<u8>,
        /// The dice as letters, sorted (`BBK`).
        dice: String,
    },
    /// The roll before it left no die usable, so the turn passed.
    Pass {
        /// The side whose turn passed.
        side: Side,
    },
    /// A draw offer was made.
    DrawOffer {
        /// Who offered.
        side: Side,
    },
    /// A draw offer was declined (explicitly, or by a move).
    DrawDeclined {
        /// Who declined.
        side: Side,
    },
    /// A draw offer was withdrawn.
    DrawWithdrawn {
        /// Who withdrew it.
        side: Side,
    },
    /// The game ended.
    End {
        /// The winner, `None` for a draw.
        winner: Option<Side>,
        /// Why.
        reason: EndReason,
    },
}

/// The dice of the turn under way, as views show them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceView {
    /// The roll's number in the leg.
    pub nonce: u64,
    /// The faces, in the order drawn.
    pub rolled: Vec<u8>,
    /// The faces not used yet, sorted.
    pub unused: Vec<u8>,
    /// L*: the dice the turn must use (unless it captures the king first).
    pub target: u8,
    /// The micro-moves played so far this turn.
    pub played: Vec<String>,
}

/// What every seat and spectator sees (chess has no secrets).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChessView {
    /// `standard`, `chess960` or `dice`.
    pub variant: Variant,
    /// The leg's start position.
    pub initial_fen: String,
    /// The current position.
    pub fen: String,
    /// Dice Chess only: `fen` with the unused dice as a seventh field.
    pub dfen: Option<String>,
    /// The side to move, `None` once the game is over.
    pub to_move: Option<Side>,
    /// Every move (micro-move) of the leg in UCI notation.
    pub moves: Vec<String>,
    /// The same moves in standard algebraic notation.
    pub san: Vec<String>,
    /// The last move.
    pub last_move: Option<String>,
    /// The moves the side to move may make now.
    pub legal_moves: Vec<String>,
    /// Whether the side to move is in check (never in Dice Chess).
    pub check: bool,
    /// Dice Chess only: the turn's dice.
    pub dice: Option<DiceView>,
    /// Moves (micro-moves in Dice Chess) since the last capture or pawn move.
    pub halfmove_clock: u32,
    /// The move number.
    pub fullmove: u32,
    /// The side whose draw offer stands.
    pub draw_offer: Option<Side>,
    /// How the game ended, once it has.
    pub result: Option<GameResult>,
}

impl ChessView {
    /// Dice Chess: the turn under way, rebuilt from the view (for players deciding from it);
    /// `None` once the game is over.
    pub fn dice_turn(&self) -> Option<Turn> {
        if self.result.is_some() {
            return None;
        }
        let dice_view = self.dice.as_ref()?;
        let (board, dice) = DiceBoard::from_dfen(self.dfen.as_deref()?).ok()?;
        let dice = dice.unwrap_or(DiceSet::EMPTY);
        let used = u8::try_from(
            dice_view
                .rolled
                .len()
                .saturating_sub(dice_view.unused.len()),
        )
        .unwrap_or(u8::MAX);
        Some(Turn {
            board,
            dice,
            required: dice_view.target.saturating_sub(used),
        })
    }

    /// Standard chess and Chess960: the current position.
    pub fn board(&self) -> Option<Board> {
        if self.variant == Variant::Dice {
            return None;
        }
        self.fen.parse().ok()
    }
}

/// A Dice Chess game's turn under way, and its counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DiceGame {
    /// The position, the unused dice and the dice still required.
    pub(crate) turn: Turn,
    /// The roll's faces in the order drawn.
    pub(crate) rolled: Vec<u8>,
    /// This turn's roll number.
    pub(crate) nonce: u64,
    /// Rolls made so far: the next roll's number.
    pub(crate) rolls: u64,
    /// L* of this turn.
    pub(crate) target: u8,
    /// The micro-moves of this turn.
    pub(crate) played: Vec<String>,
    /// Forced passes in a row.
    pub(crate) passes: u32,
}

/// How play goes on: an orthodox position with its history, or a Dice Chess turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Play {
    Orthodox(Orthodox),
    Dice(DiceGame),
}

/// Everything the rules need to continue a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "crate::stored::Stored", into = "crate::stored::Stored")]
pub struct ChessState {
    pub(crate) config: ChessConfig,
    pub(crate) initial_fen: String,
    pub(crate) moves: Vec<String>,
    pub(crate) san: Vec<String>,
    pub(crate) draw_offer: Option<Side>,
    pub(crate) result: Option<GameResult>,
    pub(crate) play: Play,
}

/// Forced passes in a row that draw a Dice Chess game.
pub const MAX_PASSES: u32 = 50;

impl ChessState {
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.config.variant
    }

    /// The configuration the game was started with.
    pub fn config(&self) -> &ChessConfig {
        &self.config
    }

    /// How the game ended, once it has.
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// Every move of the leg in UCI notation.
    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    /// The side to move (also once the game is over: the side that would move).
    pub fn side_to_move(&self) -> Side {
        match &self.play {
            Play::Orthodox(game) => game.board().side_to_move().into(),
            Play::Dice(game) => game.turn.board.side_to_move().into(),
        }
    }

    /// Standard chess and Chess960: the position.
    pub fn orthodox(&self) -> Option<&Orthodox> {
        match &self.play {
            Play::Orthodox(game) => Some(game),
            Play::Dice(_) => None,
        }
    }

    /// Dice Chess: the turn under way.
    pub fn dice_turn(&self) -> Option<&Turn> {
        match &self.play {
            Play::Dice(game) => Some(&game.turn),
            Play::Orthodox(_) => None,
        }
    }

    /// The current position as FEN (Shredder-FEN castling in Chess960).
    pub fn fen(&self) -> String {
        match &self.play {
            Play::Orthodox(game) => fen_of(game.board(), self.config.variant),
            Play::Dice(game) => game.turn.board.fen(),
        }
    }

    /// The legal moves of the side to move, in UCI notation and sorted (none once the game
    /// is over).
    pub fn legal_uci(&self) -> Vec<String> {
        if self.result.is_some() {
            return Vec::new();
        }
        let mut moves = match &self.play {
            Play::Orthodox(game) => game.legal_uci(),
            Play::Dice(game) => game
                .turn
                .legal_moves(&self.config.dice_rules())
                .into_iter()
                .map(|mv| mv.to_string())
                .collect(),
        };
        moves.sort_unstable();
        moves
    }

    /// The view every seat sees.
    pub fn view(&self) -> ChessView {
        let over = self.result.is_some();
        let (fen, dfen, check, dice, halfmove, fullmove) = match &self.play {
            Play::Orthodox(game) => {
                let board = game.board();
                (
                    fen_of(board, self.config.variant),
                    None,
                    !board.checkers().is_empty(),
                    None,
                    u32::from(board.halfmove_clock()),
                    u32::from(board.fullmove_number()),
                )
            }
            Play::Dice(game) => {
                let board = &game.turn.board;
                (
                    board.fen(),
                    Some(board.dfen(Some(game.turn.dice))),
                    false,
                    Some(DiceView {
                        nonce: game.nonce,
                        rolled: game.rolled.clone(),
                        unused: game.turn.dice.faces(),
                        target: game.target,
                        played: game.played.clone(),
                    }),
                    u32::from(board.halfmove_clock()),
                    u32::from(board.fullmove_number()),
                )
            }
        };
        ChessView {
            variant: self.config.variant,
            initial_fen: self.initial_fen.clone(),
            fen,
            dfen,
            to_move: (!over).then(|| self.side_to_move()),
            moves: self.moves.clone(),
            san: self.san.clone(),
            last_move: self.moves.last().cloned(),
            legal_moves: self.legal_uci(),
            check,
            dice,
            halfmove_clock: halfmove,
            fullmove,
            draw_offer: self.draw_offer,
            result: self.result,
        }
    }

    /// Ends the game.
    fn finish(&mut self, winner: Option<Side>, reason: EndReason, events: &mut Events<ChessEvent>) {
        self.result = Some(GameResult { winner, reason });
        self.draw_offer = None;
        events.push(Emitted::public(ChessEvent::End { winner, reason }));
    }
}

/// A position as FEN, with Shredder-FEN castling letters in Chess960.
pub(crate) fn fen_of(board: &Board, variant: Variant) -> String {
    if variant == Variant::Chess960 {
        format!("{board:#}")
    } else {
        board.to_string()
    }
}

/// The squares and promotion of a move written in UCI notation, if it is so written.
fn parse_squares(text: &str) -> Option<(Square, Square, Option<Piece>)> {
    if !(4..=5).contains(&text.len()) || !text.is_ascii() {
        return None;
    }
    let from = text[0..2].parse().ok()?;
    let to = text[2..4].parse().ok()?;
    let promotion = match text.get(4..5) {
        None => None,
        Some(letter) => match letter.parse().ok()? {
            piece @ (Piece::Queen | Piece::Rook | Piece::Bishop | Piece::Knight) => Some(piece),
            _ => return None,
        },
    };
    Some((from, to, promotion))
}

/// A piece type's name in messages and drawings.
pub(crate) fn piece_name(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "pawn",
        Piece::Knight => "knight",
        Piece::Bishop => "bishop",
        Piece::Rook => "rook",
        Piece::Queen => "queen",
        Piece::King => "king",
    }
}

/// A side's name in messages.
fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "white",
        Side::Black => "black",
    }
}

fn illegal<T>(text: impl Into<String>) -> Result<T, RuleError> {
    Err(RuleError::Illegal(text.into()))
}

fn not_uci(text: &str) -> RuleError {
    RuleError::Illegal(format!(
        "{text:?} is not a move in UCI notation (such as e2e4, or e7e8q for a promotion)"
    ))
}

/// Rolls dice until a side can move or fifty passes in a row draw the game: the turn of the
/// board's side to move begins.
fn roll_turn(state: &mut ChessState, ctx: &mut Ctx<'_>, events: &mut Events<ChessEvent>) {
    let rules = state.config.dice_rules();
    let Play::Dice(game) = &mut state.play else {
        return;
    };
    loop {
        let side: Side = game.turn.board.side_to_move().into();
        let nonce = game.rolls;
        game.rolls += 1;
        let faces = ctx.roll(nonce, 6, 3);
        let pieces: Vec<Piece> = faces.iter().filter_map(|&f| piece_of_face(f)).collect();
        let dice = DiceSet::from_pieces(&pieces);
        game.turn = Turn::start(game.turn.board, dice, &rules);
        game.nonce = nonce;
        game.target = game.turn.required;
        game.played.clear();
        events.push(Emitted::public(ChessEvent::Roll {
            side,
            nonce,
            dice: dice.letters(Color::White),
            faces: faces.clone(),
        }));
        game.rolled = faces;
        if game.target > 0 {
            return;
        }
        events.push(Emitted::public(ChessEvent::Pass { side }));
        game.passes += 1;
        if game.passes >= MAX_PASSES {
            state.finish(None, EndReason::Passes, events);
            return;
        }
        game.turn.board.end_turn();
    }
}

/// Starts a game from its configuration.
fn start_state(
    config: &ChessConfig,
    ctx: &mut Ctx<'_>,
) -> Result<(ChessState, Events<ChessEvent>), ConfigError> {
    if config.chess960_position.is_some() && config.variant != Variant::Chess960 {
        return Err(ConfigError(
            "chess960_position is for the chess960 variant".to_owned(),
        ));
    }
    let mut events = Vec::new();
    let bad_fen = |e: &dyn std::fmt::Display| ConfigError(format!("invalid start position: {e}"));
    let (initial_fen, play) = match config.variant {
        Variant::Standard | Variant::Chess960 => {
            let chess960 = config.variant == Variant::Chess960;
            let board = match (&config.fen, config.chess960_position) {
                (Some(fen), _) => fen.parse::<Board>().map_err(|e| bad_fen(&e))?,
                (None, None) => Board::startpos(),
                (None, Some(number)) => chess960_start(number).ok_or_else(|| {
                    ConfigError(format!(
                        "chess960 positions run from 0 to 959, not {number}"
                    ))
                })?,
            };
            (
                fen_of(&board, config.variant),
                Play::Orthodox(Orthodox::new(board, chess960)),
            )
        }
        Variant::Dice => {
            if config.draw_halfmove_limit == 0 {
                return Err(ConfigError(
                    "draw_halfmove_limit must be at least 1".to_owned(),
                ));
            }
            let board = match &config.fen {
                Some(fen) => DiceBoard::from_dfen(fen).map_err(|e| bad_fen(&e))?.0,
                None => DiceBoard::startpos(),
            };
            if Color::ALL.iter().any(|&c| board.king(c).is_none()) {
                return Err(ConfigError(
                    "a Dice Chess game starts with both kings".to_owned(),
                ));
            }
            let game = DiceGame {
                turn: Turn {
                    board,
                    dice: DiceSet::EMPTY,
                    required: 0,
                },
                rolled: Vec::new(),
                nonce: 0,
                rolls: 0,
                target: 0,
                played: Vec::new(),
                passes: 0,
            };
            (board.fen(), Play::Dice(game))
        }
    };
    let mut state = ChessState {
        config: config.clone(),
        initial_fen,
        moves: Vec::new(),
        san: Vec::new(),
        draw_offer: None,
        result: None,
        play,
    };
    match &state.play {
        Play::Orthodox(game) => {
            if let Some(result) = game.status() {
                state.finish(result.winner, result.reason, &mut events);
            }
        }
        Play::Dice(_) => roll_turn(&mut state, ctx, &mut events),
    }
    Ok((state, events))
}

/// A move by `side`, checked, then played.
fn apply_move(
    state: &mut ChessState,
    side: Side,
    text: &str,
    ctx: &mut Ctx<'_>,
) -> Result<Events<ChessEvent>, RuleError> {
    if side != state.side_to_move() {
        return Err(RuleError::NotYourTurn);
    }
    let text = text.trim().to_ascii_lowercase();
    let mut events = Vec::new();
    if state.draw_offer == Some(side.other()) {
        // A move on the board declines the other side's offer; nothing changes yet, as the
        // move may still be refused.
        events.push(Emitted::public(ChessEvent::DrawDeclined { side }));
    }
    match &state.play {
        Play::Orthodox(game) => {
            let mv = check_orthodox(game, side, &text)?;
            let san = orthodox_san(game.board(), mv);
            if let Play::Orthodox(game) = &mut state.play {
                game.play(mv);
            }
            record(state, side, text, san, &mut events);
            let status = state.orthodox().and_then(Orthodox::status);
            if let Some(result) = status {
                state.finish(result.winner, result.reason, &mut events);
            }
        }
        Play::Dice(game) => {
            let rules = state.config.dice_rules();
            let mv = check_dice(game, side, &text, &rules)?;
            let san = dice_san(&game.turn.board, mv);
            let mut step = Step::Continues;
            if let Play::Dice(game) = &mut state.play {
                step = game.turn.play(mv);
                game.played.push(text.clone());
                game.passes = 0;
            }
            record(state, side, text, san, &mut events);
            match step {
                Step::Continues => {}
                Step::KingCaptured => {
                    state.finish(Some(side), EndReason::KingCaptured, &mut events)
                }
                Step::Complete => end_dice_turn(state, ctx, &mut events),
            }
        }
    }
    Ok(events)
}

/// Writes a played move into the record and its event, and clears a declined offer.
fn record(
    state: &mut ChessState,
    side: Side,
    uci: String,
    san: String,
    events: &mut Events<ChessEvent>,
) {
    if state.draw_offer == Some(side.other()) {
        state.draw_offer = None;
    }
    state.moves.push(uci.clone());
    state.san.push(san.clone());
    events.push(Emitted::public(ChessEvent::Move { side, uci, san }));
}

/// A completed Dice Chess turn: the game is drawn if the halfmove limit is reached, else the
/// other side rolls.
fn end_dice_turn(state: &mut ChessState, ctx: &mut Ctx<'_>, events: &mut Events<ChessEvent>) {
    let limit = state.config.draw_halfmove_limit;
    let Play::Dice(game) = &mut state.play else {
        return;
    };
    if game.turn.board.halfmove_clock() >= limit {
        state.finish(None, EndReason::HalfmoveLimit, events);
        return;
    }
    game.turn.board.end_turn();
    roll_turn(state, ctx, events);
}

/// The legal orthodox move written `text`, or why it is not one.
fn check_orthodox(game: &Orthodox, side: Side, text: &str) -> Result<Move, RuleError> {
    let board = game.board();
    if let Some(mv) = parse_uci(board, text, game.chess960()) {
        return Ok(mv);
    }
    let (from, _, _) = parse_squares(text).ok_or_else(|| not_uci(text))?;
    if !board.colors(side.into()).has(from) {
        return illegal(format!(
            "{text} is not legal: there is no {} piece on {from}",
            side_name(side)
        ));
    }
    let castling = if game.chess960() {
        "castling is written as the king taking its own rook, such as e1h1"
    } else {
        "castling is written as the king's two-square move, such as e1g1"
    };
    let check = if board.checkers().is_empty() {
        ""
    } else {
        ", and the king is in check"
    };
    illegal(format!(
        "{text} is not a legal move in this position{check} ({castling}; a promotion names \
         its piece, such as e7e8q)"
    ))
}

/// The Dice Chess micro-move written `text`, checked against the dice and the turn tree.
fn check_dice(
    game: &DiceGame,
    side: Side,
    text: &str,
    rules: &DiceRules,
) -> Result<crate::dice::MicroMove, RuleError> {
    let (from, to, promotion) = parse_squares(text).ok_or_else(|| not_uci(text))?;
    let turn = &game.turn;
    let used = game
        .rolled
        .len()
        .saturating_sub(usize::from(turn.dice.total()));
    let refused = |error: MicroError| -> RuleError {
        let why = match error {
            MicroError::NoPiece => format!("there is no {} piece on {from}", side_name(side)),
            MicroError::NoDie { piece } => {
                let needed = if piece == Piece::King
                    && from.file() == cozy_chess::File::E
                    && (to.file() as i8 - from.file() as i8).abs() == 2
                {
                    "a king die and a rook die".to_owned()
                } else {
                    format!("a {} die", piece_name(piece))
                };
                format!(
                    "it needs {needed}, and the unused dice are {}",
                    turn.dice.letters(turn.board.side_to_move())
                )
            }
            MicroError::NotAMove { piece } => {
                let last = cozy_chess::Rank::Eighth.relative_to(side.into());
                if piece == Piece::Pawn && to.rank() == last && promotion.is_none() {
                    "a pawn reaching the last rank must promote: add q, r, b or n".to_owned()
                } else {
                    format!("the {} on {from} cannot move to {to}", piece_name(piece))
                }
            }
            MicroError::TooShort { usable, required } => {
                let usable = used + usize::from(usable);
                let target = used + usize::from(required);
                format!(
                    "it leaves only {usable} of the {} dice usable, and a sequence using \
                     {target} exists",
                    game.rolled.len()
                )
            }
        };
        RuleError::Illegal(format!("{text} is not legal: {why}"))
    };
    let mv = turn.find(from, to, promotion, rules).map_err(refused)?;
    turn.check(mv, rules).map_err(refused)?;
    Ok(mv)
}

/// A word on a draw by `side`.
fn apply_draw(
    state: &mut ChessState,
    side: Side,
    draw: bool,
) -> Result<Events<ChessEvent>, RuleError> {
    let mut events = Vec::new();
    match (draw, state.draw_offer) {
        (true, Some(offer)) if offer == side.other() => {
            state.finish(None, EndReason::Agreement, &mut events);
        }
        (true, Some(_)) => return illegal("your draw offer already stands"),
        (true, None) => {
            state.draw_offer = Some(side);
            events.push(Emitted::public(ChessEvent::DrawOffer { side }));
        }
        (false, Some(offer)) if offer == side.other() => {
            state.draw_offer = None;
            events.push(Emitted::public(ChessEvent::DrawDeclined { side }));
        }
        (false, Some(_)) => {
            state.draw_offer = None;
            events.push(Emitted::public(ChessEvent::DrawWithdrawn { side }));
        }
        (false, None) => return illegal("there is no draw offer to decline or withdraw"),
    }
    Ok(events)
}

/// The outcome of a result: a win is worth 2 points, a draw 1, a loss 0.
fn outcome_of(result: GameResult) -> Outcome {
    let scores = match result.winner {
        Some(Side::White) => [2, 0],
        Some(Side::Black) => [0, 2],
        None => [1, 1],
    };
    Outcome::from_scores(&scores, ScoreOrder::HigherIsBetter, result.reason.as_str())
}

impl Game for Chess {
    const ID: &'static str = "chess";
    const RULES_VERSION: u32 = 1;

    type Config = ChessConfig;
    type State = ChessState;
    type Action = ChessAction;
    type Event = ChessEvent;
    type View = ChessView;

    fn seat_count(_config: &ChessConfig) -> Result<usize, ConfigError> {
        Ok(2)
    }

    fn start(
        config: &ChessConfig,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<ChessState, ChessEvent>, ConfigError> {
        start_state(config, ctx)
    }

    fn to_act(state: &ChessState) -> ToAct {
        if state.result.is_some() {
            ToAct::Nobody
        } else {
            ToAct::Turn {
                seat: Seat(state.side_to_move().seat()),
            }
        }
    }

    fn legal_actions(state: &ChessState, seat: Seat) -> Vec<ChessAction> {
        if state.result.is_some() || seat.0 != state.side_to_move().seat() {
            return Vec::new();
        }
        state
            .legal_uci()
            .into_iter()
            .map(ChessAction::Move)
            .collect()
    }

    fn apply(
        state: &mut ChessState,
        seat: Seat,
        action: &ChessAction,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<ChessEvent>, RuleError> {
        let side = Side::of_seat(seat.0).ok_or(RuleError::NoSuchSeat(seat.0))?;
        if state.result.is_some() {
            return Err(RuleError::GameOver);
        }
        match action {
            ChessAction::Move(text) => apply_move(state, side, text, ctx),
            ChessAction::Draw { draw } => apply_draw(state, side, *draw),
        }
    }

    fn view(state: &ChessState, _viewer: Viewer) -> ChessView {
        state.view()
    }

    fn outcome(state: &ChessState) -> Option<Outcome> {
        state.result.map(outcome_of)
    }

    /// Losing on time, or resigning, loses, except that in standard chess and Chess960 it
    /// draws when the opponent has only its king left, since no sequence of moves could
    /// then mate.
    fn forfeit(state: &ChessState, seat: Seat) -> Outcome {
        let loser = Side::of_seat(seat.0).unwrap_or(Side::White);
        if let Some(game) = state.orthodox()
            && only_king(game.board(), loser.other().into())
        {
            return Outcome::from_scores(&[1, 1], ScoreOrder::HigherIsBetter, "forfeit");
        }
        let scores = [0, 1].map(|s| if s == loser.seat() { 0 } else { 2 });
        Outcome::forfeit(&scores, seat, ScoreOrder::HigherIsBetter)
    }

    fn is_free(action: &ChessAction) -> bool {
        matches!(action, ChessAction::Draw { .. })
    }

    /// A Dice Chess turn is numbered by its roll, so that a turn passed back to the same
    /// side (the other side's roll left no die usable) is a new turn for the clock; an
    /// orthodox turn is one move.
    fn turn_number(state: &ChessState) -> Option<u64> {
        Some(match &state.play {
            Play::Orthodox(_) => u64::try_from(state.moves.len()).unwrap_or(u64::MAX),
            Play::Dice(game) => game.nonce,
        })
    }
}
