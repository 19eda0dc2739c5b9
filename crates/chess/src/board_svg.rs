//! Chess's board drawn as SVG for the web pages: the 8×8 board with its coordinates, the
//! pieces as chess glyphs, the last move's squares, the king in check, the result once the
//! game is over, and in Dice Chess the turn's dice (used ones greyed) with the micro-moves
//! played so far this turn.
//!
//! A move goes from one square to another, so a person plays it in two clicks: every piece
//! that has a move is a `pick` (`data-pick="e2"`), and every move's target square is a
//! `play` button (`data-from="e2"`, `data-action` the move as JSON text) that the pages'
//! script shows once its piece is picked. The queen promotion is played on the board; the
//! under-promotions keep the pages' buttons under it, labelled in algebraic notation.
//!
//! Spectators get no hints: twenty dots for the side to move say little about a chess
//! position, and a Dice Chess position's dice are drawn anyway.
//!
//! Nothing read from the view reaches the drawing as text: the view is parsed into squares,
//! pieces and numbers first, and the drawing writes only those and fixed text.

use std::fmt::Write;

use arbiter_plugin::{BoardOptions, BoardRenderer};
use cozy_chess::{Color, Piece, Square};
use serde_json::Value;

use crate::dice::{DiceBoard, DiceRules, DiceSet, Turn};
use crate::ending::EndReason;
use crate::game::piece_name;
use crate::san::{dice_san, orthodox_san};
use crate::standard::parse_uci;

/// Chess's board for the web pages.
pub(crate) struct BoardSvg;

impl BoardRenderer for BoardSvg {
    fn svg(&self, view: &Value, options: BoardOptions) -> String {
        Drawing::of_view(view, options).svg()
    }

    fn tallies(&self, view: &Value) -> Vec<u64> {
        let cells = placement(view["fen"].as_str().unwrap_or_default());
        [Color::White, Color::Black]
            .into_iter()
            .map(|colour| {
                cells
                    .iter()
                    .flatten()
                    .filter(|(c, _)| *c == colour)
                    .map(|&(_, piece)| material(piece))
                    .sum()
            })
            .collect()
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &["White", "Black"]
    }

    fn history(&self, view: &Value) -> Vec<String> {
        let list = |field: &str| view[field].as_array().cloned().unwrap_or_default();
        let (moves, san) = (list("moves"), list("san"));
        (0..moves.len().max(san.len()))
            .map(|i| {
                san.get(i)
                    .and_then(Value::as_str)
                    .filter(|text| plain_san(text))
                    .map(str::to_owned)
                    .or_else(|| {
                        let uci = moves.get(i).and_then(Value::as_str)?;
                        Some(Uci::parse(uci)?.to_string())
                    })
                    .unwrap_or_else(|| "?".to_owned())
            })
            .collect()
    }

    fn notation(&self, view: &Value, action: &Value) -> String {
        match action {
            Value::String(text) => match Uci::parse(text) {
                Some(mv) => san_of(view, mv).unwrap_or_else(|| mv.to_string()),
                // Nothing from an unknown action is echoed: the label is shown as it is.
                None => "?".to_owned(),
            },
            Value::Object(map) => match map.get("draw").and_then(Value::as_bool) {
                Some(true) => "draw offer".to_owned(),
                Some(false) => "draw decline".to_owned(),
                None => "?".to_owned(),
            },
            _ => "?".to_owned(),
        }
    }

    fn played_on_board(&self, action: &Value) -> bool {
        action
            .as_str()
            .and_then(Uci::parse)
            .is_some_and(|mv| mv.on_board())
    }
}

/// A move's SAN in the position of `view`, where it is a legal move now (or the move that
/// led to it: the view records its SAN); `None` where it cannot be worked out. A move that
/// is neither is left alone, since comments name past moves against the latest view, and
/// the SAN of a past move depends on the position it was played in.
fn san_of(view: &Value, mv: Uci) -> Option<String> {
    let text = mv.to_string();
    if view["last_move"].as_str() == Some(text.as_str()) {
        let san = view["san"].as_array()?.last()?.as_str()?;
        return plain_san(san).then(|| san.to_owned());
    }
    let legal = view["legal_moves"].as_array()?;
    if !legal.iter().any(|m| m.as_str() == Some(text.as_str())) {
        return None;
    }
    let from: Square = text.get(0..2)?.parse().ok()?;
    let to: Square = text.get(2..4)?.parse().ok()?;
    if view["variant"].as_str() == Some("dice") {
        let (board, dice) = DiceBoard::from_dfen(view["dfen"].as_str()?).ok()?;
        // `find` asks only the dice and the board; how many dice the turn still needs
        // matters to legality, which `legal_moves` settled.
        let turn = Turn {
            board,
            dice: dice.unwrap_or(DiceSet::EMPTY),
            required: 3,
        };
        let micro = turn
            .find(from, to, mv.promotion, &DiceRules::default())
            .ok()?;
        Some(dice_san(&board, micro))
    } else {
        let board: cozy_chess::Board = view["fen"].as_str()?.parse().ok()?;
        let chess960 = view["variant"].as_str() == Some("chess960");
        let legal = parse_uci(&board, &text, chess960)?;
        Some(orthodox_san(&board, legal))
    }
}

/// Whether `text` may be shown as a move in algebraic notation: short, and made only of the
/// characters SAN uses (`Nbxd7`, `O-O-O`, `e8=Q+`, `Qh4#`).
fn plain_san(text: &str) -> bool {
    (1..=10).contains(&text.len())
        && text.bytes().all(|b| {
            matches!(b, b'a'..=b'h' | b'1'..=b'8' | b'0' | b'x' | b'=' | b'+' | b'#' | b'-')
                || b"KQRBNO".contains(&b)
        })
}

/// A piece's worth in pawns, as material is counted: the king counts nothing.
fn material(piece: Piece) -> u64 {
    match piece {
        Piece::Pawn => 1,
        Piece::Knight | Piece::Bishop => 3,
        Piece::Rook => 5,
        Piece::Queen => 9,
        Piece::King => 0,
    }
}

/// A move in UCI notation, parsed: `[a-h][1-8][a-h][1-8][qrbn]?`. Squares are numbered from
/// a1 (0) along the ranks to h8 (63).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Uci {
    from: u8,
    to: u8,
    promotion: Option<Piece>,
}

impl Uci {
    /// The move `text` spells, if it spells one exactly.
    fn parse(text: &str) -> Option<Uci> {
        let bytes = text.as_bytes();
        let square = |file: u8, rank: u8| {
            (matches!(file, b'a'..=b'h') && matches!(rank, b'1'..=b'8'))
                .then(|| (rank - b'1') * 8 + (file - b'a'))
        };
        let promotion = match bytes.len() {
            4 => None,
            5 => Some(match bytes[4] {
                b'q' => Piece::Queen,
                b'r' => Piece::Rook,
                b'b' => Piece::Bishop,
                b'n' => Piece::Knight,
                _ => return None,
            }),
            _ => return None,
        };
        Some(Uci {
            from: square(bytes[0], bytes[1])?,
            to: square(bytes[2], bytes[3])?,
            promotion,
        })
    }

    /// Whether the move is played on the board: every move but the under-promotions, which
    /// share their squares with the queen's and so keep buttons of their own.
    fn on_board(self) -> bool {
        matches!(self.promotion, None | Some(Piece::Queen))
    }
}

/// The UCI spelling, rebuilt from the parsed squares.
impl std::fmt::Display for Uci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&name(self.from))?;
        f.write_str(&name(self.to))?;
        if let Some(piece) = self.promotion {
            write!(f, "{}", char::from(piece))?;
        }
        Ok(())
    }
}

/// The name of square `square` (`e2`).
fn name(square: u8) -> String {
    let file = char::from(b'a' + square % 8);
    let rank = char::from(b'1' + square / 8 % 8);
    format!("{file}{rank}")
}

/// The pieces of a FEN's first field, by square from a1; what cannot be read is left empty.
fn placement(fen: &str) -> [Option<(Color, Piece)>; 64] {
    let mut cells = [None; 64];
    let field = fen.split_whitespace().next().unwrap_or_default();
    for (row, text) in field.split('/').take(8).enumerate() {
        let rank = 7 - row;
        let mut file = 0;
        for c in text.chars() {
            if let Some(skip) = c.to_digit(10) {
                file += skip as usize;
                continue;
            }
            let piece = match c.to_ascii_lowercase() {
                'p' => Piece::Pawn,
                'n' => Piece::Knight,
                'b' => Piece::Bishop,
                'r' => Piece::Rook,
                'q' => Piece::Queen,
                'k' => Piece::King,
                _ => continue,
            };
            let colour = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            if file < 8 {
                cells[rank * 8 + file] = Some((colour, piece));
            }
            file += 1;
        }
    }
    cells
}

/// A side named in the view (`white`, `black`).
fn colour_of(value: &Value) -> Option<Color> {
    match value.as_str()? {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// A colour's name in the drawing's fixed text.
fn colour_name(colour: Color) -> &'static str {
    match colour {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The filled glyph of a piece (♚♛♜♝♞♟), drawn in each side's colour. The pawn's carries the
/// text-presentation selector, since some systems otherwise draw it as a coloured emoji.
fn solid_glyph(piece: Piece) -> &'static str {
    match piece {
        Piece::King => "\u{265A}",
        Piece::Queen => "\u{265B}",
        Piece::Rook => "\u{265C}",
        Piece::Bishop => "\u{265D}",
        Piece::Knight => "\u{265E}",
        Piece::Pawn => "\u{265F}\u{FE0E}",
    }
}

/// The outlined glyph of a piece (♔♕♖♗♘♙): White's pieces are the filled glyph in white with
/// this one over it, so that they read as white on either colour of square.
fn outline_glyph(piece: Piece) -> &'static str {
    match piece {
        Piece::King => "\u{2654}",
        Piece::Queen => "\u{2655}",
        Piece::Rook => "\u{2656}",
        Piece::Bishop => "\u{2657}",
        Piece::Knight => "\u{2658}",
        Piece::Pawn => "\u{2659}",
    }
}

/// The glyph that stands for a side's piece in a line of text: outlined for White, filled
/// for Black, as in printed figurine notation.
fn text_glyph(colour: Color, piece: Piece) -> &'static str {
    match colour {
        Color::White => outline_glyph(piece),
        Color::Black => solid_glyph(piece),
    }
}

/// Units per square.
const SQUARE: usize = 10;
/// Room left of the board for the ranks and under it for the files.
const MARGIN: usize = 6;
/// The board's side.
const BOARD: usize = 8 * SQUARE;
/// The drawing's width.
const WIDTH: usize = MARGIN + BOARD;
/// A die's width and height, in the row of dice under the board: its piece on the left and
/// its number on the right, so that neither covers the other.
const DIE_WIDTH: usize = 12;
const DIE_HEIGHT: usize = 8;
/// Where the row of dice starts.
const DICE_TOP: usize = BOARD + MARGIN + 2;
/// The height of the dice and of the line of micro-moves under them, with the room between.
/// It is kept whether or not a micro-move has been played, so that the board does not move.
const DICE_ROW: usize = 2 + DIE_HEIGHT + 7;
/// The height of the line that says how the game ended.
const CAPTION: usize = 7;
/// Fonts that have the chess glyphs, on the systems people use: Linux, Windows, Android, and
/// a serif font last (macOS finds them through its fallback).
const GLYPH_FONTS: &str = "DejaVu Sans, Segoe UI Symbol, Noto Sans Symbols2, Noto Sans Symbols, \
                           Apple Symbols, serif";
/// The light and dark squares.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";

/// The dice of a Dice Chess turn, read from the view.
struct Dice {
    /// The faces as rolled, 1 (pawn) to 6 (king), each with whether it has been used.
    faces: Vec<(u8, bool)>,
    /// How many dice the turn must use.
    target: usize,
    /// The micro-moves played this turn.
    played: Vec<Uci>,
}

impl Dice {
    fn of_view(dice: &Value) -> Option<Dice> {
        let faces = |field: &str| -> Vec<u8> {
            dice[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_u64().and_then(|f| u8::try_from(f).ok()))
                .filter(|f| (1..=6).contains(f))
                .take(3)
                .collect()
        };
        let rolled = faces("rolled");
        if rolled.is_empty() {
            return None;
        }
        // Which of two equal faces was used cannot be told, nor does it matter: the unused
        // dice are matched to the last dice rolled with their faces, so the used ones are
        // greyed from the left.
        let mut unused = faces("unused");
        let mut marked: Vec<(u8, bool)> = Vec::with_capacity(rolled.len());
        for &face in rolled.iter().rev() {
            let free = unused.iter().position(|&f| f == face);
            if let Some(at) = free {
                unused.swap_remove(at);
            }
            marked.push((face, free.is_none()));
        }
        marked.reverse();
        Some(Dice {
            faces: marked,
            target: dice["target"]
                .as_u64()
                .and_then(|t| usize::try_from(t).ok())
                .unwrap_or(0)
                .min(3),
            played: dice["played"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().and_then(Uci::parse))
                .take(3)
                .collect(),
        })
    }

    fn used(&self) -> usize {
        self.faces.iter().filter(|&&(_, used)| used).count()
    }
}

/// How the game ended, read from the view.
struct Ending {
    winner: Option<Color>,
    reason: Option<EndReason>,
}

impl Ending {
    /// The line under the board.
    fn caption(&self) -> String {
        let outcome = match self.winner {
            Some(colour) => format!("{} wins", colour_name(colour)),
            None => "a draw".to_owned(),
        };
        let why = match self.reason {
            Some(EndReason::Checkmate) => "Checkmate",
            Some(EndReason::Stalemate) => "Stalemate",
            Some(EndReason::ThreefoldRepetition) => "Threefold repetition",
            Some(EndReason::FiftyMoves) => "Fifty-move rule",
            Some(EndReason::InsufficientMaterial) => "Insufficient material",
            Some(EndReason::Agreement) => return "Draw agreed".to_owned(),
            Some(EndReason::KingCaptured) => "King captured",
            Some(EndReason::HalfmoveLimit) => "Move limit",
            Some(EndReason::Passes) => "Fifty passes in a row",
            None => return capitalised(&outcome),
        };
        format!("{why}: {outcome}")
    }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A position to draw, read from a leg's view. It holds only squares, pieces, numbers and
/// enums, so nothing the view spells can reach the drawing.
struct Drawing {
    cells: [Option<(Color, Piece)>; 64],
    /// The side whose turn it is (or was, once the game is over), from the FEN.
    side: Color,
    /// Whether the game is still on: the view names a side to move.
    running: bool,
    last: Option<Uci>,
    check: bool,
    /// The moves the visitor may play on the board, when they are to play.
    moves: Vec<Uci>,
    dice: Option<Dice>,
    ending: Option<Ending>,
    draw_offer: Option<Color>,
    /// Whether Black's side of the board is at the bottom: for a person playing Black.
    flipped: bool,
}

impl Drawing {
    fn of_view(view: &Value, options: BoardOptions) -> Drawing {
        let fen = view["fen"].as_str().unwrap_or_default();
        let side = match fen.split_whitespace().nth(1) {
            Some("b") => Color::Black,
            _ => Color::White,
        };
        let moves = if options.hints && options.playable {
            view["legal_moves"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().and_then(Uci::parse))
                .filter(|m| m.on_board())
                .collect()
        } else {
            Vec::new()
        };
        let result = &view["result"];
        let ending = result.is_object().then(|| Ending {
            winner: colour_of(&result["winner"]),
            reason: serde_json::from_value(result["reason"].clone()).ok(),
        });
        Drawing {
            cells: placement(fen),
            side,
            running: colour_of(&view["to_move"]).is_some(),
            last: view["last_move"].as_str().and_then(Uci::parse),
            check: view["check"].as_bool().unwrap_or(false),
            moves,
            dice: Dice::of_view(&view["dice"]),
            ending,
            draw_offer: colour_of(&view["draw_offer"]),
            flipped: options.seat == Some(1),
        }
    }

    /// The top left corner of `square`: White's first rank at the bottom, or, for a person
    /// playing Black, Black's.
    fn corner(&self, square: u8) -> (usize, usize) {
        let (file, rank) = (usize::from(square % 8), usize::from(square / 8 % 8));
        if self.flipped {
            (MARGIN + (7 - file) * SQUARE, rank * SQUARE)
        } else {
            (MARGIN + file * SQUARE, (7 - rank) * SQUARE)
        }
    }

    /// The centre of `square`.
    fn centre(&self, square: u8) -> (usize, usize) {
        let (x, y) = self.corner(square);
        (x + SQUARE / 2, y + SQUARE / 2)
    }

    /// The line under the board, if anything needs saying there.
    fn caption(&self) -> Option<String> {
        match (&self.ending, self.draw_offer) {
            (Some(ending), _) => Some(ending.caption()),
            (None, Some(colour)) => Some(format!("{} offers a draw", colour_name(colour))),
            (None, None) => None,
        }
    }

    /// The piece that made the `index`-th micro-move of this turn: the one standing at the
    /// end of the squares it and the later micro-moves took it to (a pawn, if it promoted).
    fn mover(&self, played: &[Uci], index: usize) -> Option<Piece> {
        let first = played.get(index)?;
        if first.promotion.is_some() {
            return Some(Piece::Pawn);
        }
        let mut at = first.to;
        for later in &played[index + 1..] {
            if later.from == at {
                at = later.to;
            }
        }
        self.cells[usize::from(at)].map(|(_, piece)| piece)
    }

    /// The drawing. Every value in it is a number or fixed text, so it needs no escaping.
    fn svg(&self) -> String {
        let mut height = BOARD + MARGIN;
        if self.dice.is_some() {
            height += DICE_ROW;
        }
        let caption = self.caption();
        if caption.is_some() {
            height += CAPTION;
        }
        let to_move = if self.running {
            format!(", {} to move", colour_name(self.side))
        } else {
            String::new()
        };
        let mut svg = String::with_capacity(16 * 1024);
        let _ = write!(
            svg,
            r##"<svg class="board" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="Chess board{to_move}">"##
        );
        self.squares(&mut svg);
        // The buttons lie under the pieces, which let clicks through to them, so that a
        // picked square's colour and a target's ring are seen around the piece on it.
        if !self.moves.is_empty() {
            self.buttons(&mut svg);
        }
        self.pieces(&mut svg);
        if let Some(dice) = &self.dice {
            self.dice_row(&mut svg, dice);
        }
        if let Some(caption) = caption {
            let _ = write!(
                svg,
                r##"<text x="{x}" y="{y}" font-size="4" font-weight="600" fill="#1b1f24" text-anchor="middle" class="legend">{caption}</text>"##,
                x = MARGIN + BOARD / 2,
                y = height - 2,
            );
        }
        svg.push_str("</svg>");
        svg
    }

    /// The squares, the last move's, the king in check and the coordinates.
    fn squares(&self, svg: &mut String) {
        for square in 0..64u8 {
            let (x, y) = self.corner(square);
            let (file, rank) = (square % 8, square / 8);
            let fill = if (file + rank) % 2 == 0 { DARK } else { LIGHT };
            let _ = write!(
                svg,
                r##"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>"##
            );
        }
        if let Some(last) = self.last {
            for square in [last.from, last.to] {
                let (x, y) = self.corner(square);
                let _ = write!(
                    svg,
                    r##"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="#9bc700" fill-opacity="0.41" class="last"/>"##
                );
            }
        }
        if self.check {
            let king =
                (0..64u8).find(|&s| self.cells[usize::from(s)] == Some((self.side, Piece::King)));
            if let Some(king) = king {
                let (cx, cy) = self.centre(king);
                let _ = write!(
                    svg,
                    r##"<circle cx="{cx}" cy="{cy}" r="5" fill="#e53935" fill-opacity="0.35" class="check"/><circle cx="{cx}" cy="{cy}" r="3.4" fill="#e53935" fill-opacity="0.5"/>"##
                );
            }
        }
        for i in 0..8u8 {
            // The labels follow the squares: file `i` and rank `i + 1` at their square's
            // column and row, wherever the board is turned.
            let (x, y) = self.corner(i * 9);
            let at = x + SQUARE / 2;
            let row = y + SQUARE / 2 + 1;
            let _ = write!(
                svg,
                r##"<text x="{at}" y="{y}" font-size="3.4" fill="#666" text-anchor="middle" class="coord">{file}</text><text x="{x}" y="{row}" font-size="3.4" fill="#666" text-anchor="middle" class="coord">{rank}</text>"##,
                y = BOARD + MARGIN - 1,
                file = char::from(b'a' + i),
                x = MARGIN / 2,
                rank = i + 1,
            );
        }
    }

    /// The pieces, and a ring where a king was captured.
    fn pieces(&self, svg: &mut String) {
        let _ = write!(
            svg,
            r##"<g font-family="{GLYPH_FONTS}" font-size="8.6" text-anchor="middle" pointer-events="none">"##
        );
        for (square, cell) in (0..64u8).zip(self.cells) {
            let Some((colour, piece)) = cell else {
                continue;
            };
            let (cx, cy) = self.centre(square);
            let y = cy + 3;
            let solid = solid_glyph(piece);
            let name = name(square);
            match colour {
                Color::White => {
                    let _ = write!(
                        svg,
                        r##"<g class="piece white" data-square="{name}"><text x="{cx}" y="{y}" fill="#fff">{solid}</text><text x="{cx}" y="{y}" fill="#1b1f24">{outline}</text></g>"##,
                        outline = outline_glyph(piece),
                    );
                }
                Color::Black => {
                    let _ = write!(
                        svg,
                        r##"<g class="piece black" data-square="{name}"><text x="{cx}" y="{y}" fill="#1b1f24">{solid}</text></g>"##
                    );
                }
            }
        }
        svg.push_str("</g>");
        let king_captured = matches!(
            self.ending,
            Some(Ending {
                reason: Some(EndReason::KingCaptured),
                ..
            })
        );
        if let (true, Some(last)) = (king_captured, self.last) {
            let (cx, cy) = self.centre(last.to);
            let _ = write!(
                svg,
                r##"<circle cx="{cx}" cy="{cy}" r="4.6" fill="none" stroke="#d32f2f" stroke-width="0.8" class="captured"/>"##
            );
        }
    }

    /// The visitor's moves: each piece that has one as a `pick`, and each move's target as a
    /// `play` button the pages' script shows once the piece is picked. The targets come after
    /// every pick, so that a target on a square of the visitor's own (a Chess960 king taking
    /// its rook to castle) lies over that square's pick.
    fn buttons(&self, svg: &mut String) {
        let mut picks: Vec<u8> = self.moves.iter().map(|m| m.from).collect();
        picks.sort_unstable();
        picks.dedup();
        for from in picks {
            let (x, y) = self.corner(from);
            let piece = self.cells[usize::from(from)].map_or("piece", |(_, p)| piece_name(p));
            let name = name(from);
            let _ = write!(
                svg,
                r##"<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="transparent" class="pick" data-pick="{name}" tabindex="0" role="button" aria-label="Move the {piece} on {name}"/>"##
            );
        }
        for mv in &self.moves {
            let (x, y) = self.corner(mv.to);
            let (cx, cy) = self.centre(mv.to);
            let (from, to) = (name(mv.from), name(mv.to));
            // A capture (or a target a piece stands on) is ringed; an empty square dotted.
            let mark = if self.cells[usize::from(mv.to)].is_some() {
                format!(
                    r##"<circle cx="{cx}" cy="{cy}" r="4.3" fill="none" stroke="#14551e" stroke-opacity="0.5" stroke-width="1.1"/>"##
                )
            } else {
                format!(
                    r##"<circle cx="{cx}" cy="{cy}" r="1.8" fill="#14551e" fill-opacity="0.5"/>"##
                )
            };
            // The action is the rules' own value, a JSON string; its quotes are escaped for
            // the attribute, and the script reads it back as JSON text.
            let _ = write!(
                svg,
                r##"<g class="play" data-from="{from}" data-action="&quot;{mv}&quot;" tabindex="0" role="button" aria-label="{from} to {to}"><rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="transparent"/>{mark}</g>"##
            );
        }
    }

    /// Dice Chess: the turn's dice under the board, greyed once used, with how many the turn
    /// has used beside them and the micro-moves played with them under them.
    fn dice_row(&self, svg: &mut String, dice: &Dice) {
        let top = DICE_TOP;
        for (i, &(face, used)) in dice.faces.iter().enumerate() {
            let x = MARGIN + i * (DIE_WIDTH + 2);
            let piece = crate::dice::piece_of_face(face).unwrap_or(Piece::Pawn);
            let (class, opacity) = if used {
                ("die used", "0.3")
            } else {
                ("die", "1")
            };
            let glyph = text_glyph(self.side, piece);
            let _ = write!(
                svg,
                r##"<g class="{class}" opacity="{opacity}"><rect x="{x}" y="{top}" width="{DIE_WIDTH}" height="{DIE_HEIGHT}" rx="1.2" fill="#fff" stroke="#57606a" stroke-width="0.4"/><text x="{gx}" y="{gy}" font-family="{GLYPH_FONTS}" font-size="6.4" fill="#1b1f24" text-anchor="middle">{glyph}</text><text x="{nx}" y="{ny}" font-size="3.6" font-weight="600" fill="#1b1f24" text-anchor="middle">{face}</text></g>"##,
                gx = x + 4,
                gy = top + DIE_HEIGHT - 2,
                nx = x + 9,
                ny = top + DIE_HEIGHT - 2,
            );
        }
        let beside = MARGIN + 3 * (DIE_WIDTH + 2) + 1;
        let middle = top + DIE_HEIGHT / 2 + 1;
        if self.running && dice.target > 0 {
            let (used, target) = (dice.used(), dice.target);
            let noun = if target == 1 { "die" } else { "dice" };
            let _ = write!(
                svg,
                r##"<text x="{beside}" y="{middle}" font-size="3.2" fill="#57606a" class="turn-dice">{used} of {target} {noun} used</text>"##
            );
        } else if self.running {
            let _ = write!(
                svg,
                r##"<text x="{beside}" y="{middle}" font-size="3.2" fill="#57606a" class="turn-dice">No die can be used</text>"##
            );
        }
        for (i, mv) in dice.played.iter().enumerate() {
            let glyph = self
                .mover(&dice.played, i)
                .map_or("", |piece| text_glyph(self.side, piece));
            let promotion = mv
                .promotion
                .map_or("", |piece| text_glyph(self.side, piece));
            let _ = write!(
                svg,
                r##"<text x="{x}" y="{y}" font-size="3.4" fill="#1b1f24" class="played"><tspan font-family="{GLYPH_FONTS}" font-size="4.4">{glyph}</tspan>{from}-{to}<tspan font-family="{GLYPH_FONTS}" font-size="4.4">{promotion}</tspan></text>"##,
                x = MARGIN + i * 18,
                y = top + DIE_HEIGHT + 5,
                from = name(mv.from),
                to = name(mv.to),
            );
        }
    }
}

#[cfg(test)]
mod tests;
