//! Two-seat games told as a start position and a line of move tokens, for dialects whose
//! clients rebuild a game that way (a chess client's `position … moves …`).

use arbiter_rules::Seat;
use serde_json::{Map, Value};

/// How clients name a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantKey {
    /// The key requests and replies use (`standard`, `diceChess`); unique among the games a
    /// server runs.
    pub key: &'static str,
    /// The name shown to people (`Standard`, `Dice Chess`).
    pub name: &'static str,
    /// A short name (`Std`).
    pub short: &'static str,
}

/// How a game ended, in the words clients of such dialects read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The loser could not escape capture (`mate`).
    Mate,
    /// The player to move had no move and the game was drawn (`stalemate`).
    Stalemate,
    /// A draw of any other kind (`draw`).
    Draw,
    /// The game's own rules decided it (`variantEnd`).
    VariantEnd,
}

/// A family's two-seat games as a start position and the tokens of the moves played since.
///
/// Tokens are path-safe (`e2e4`, `d3`, `pass`: letters, digits and `-`), so that clients
/// may put them in a URL's path without encoding them. Every method that reads a view reads
/// it as the rules serialize it for some viewer, so it tells nothing the viewer may not see.
/// Moves alternate between the two colours as the view says; a family whose seat moves
/// several times in a turn (one micro-move at a time) says so in the view it reads.
pub trait MoveLine: Send + Sync {
    /// The seat that plays White (the other plays Black): clients of such dialects know
    /// only these two colours.
    fn white_seat(&self) -> Seat;

    /// How clients name `variant`; `None` for a variant the family does not have.
    fn variant_key(&self, variant: &str) -> Option<VariantKey>;

    /// The leg's start position in the family's notation, or `startpos` where it is the
    /// variant's usual one.
    fn initial_position(&self, view: &Value) -> String;

    /// The current position in the family's notation.
    fn position(&self, view: &Value) -> String;

    /// Every move of the leg so far, as tokens, in order.
    fn moves(&self, view: &Value) -> Vec<String>;

    /// The rules' action a token plays, in the form the family's codec reads; `None` when
    /// the text is no token of this game.
    fn action(&self, token: &str) -> Option<Value>;

    /// The seat to move in the view, `None` once the leg is over.
    fn to_move(&self, view: &Value) -> Option<Seat>;

    /// Fields of the game's state that clients need besides the moves and clocks (the
    /// dice of the turn), added to every state line as they are.
    fn extra(&self, view: &Value) -> Map<String, Value> {
        let _ = view;
        Map::new()
    }

    /// The free action by which the mover offers a draw (`offer`) or declines or withdraws
    /// one, for games with draw offers.
    fn draw_action(&self, offer: bool) -> Option<Value> {
        let _ = offer;
        None
    }

    /// The seat whose draw offer stands in the view, if any.
    fn draw_offer(&self, view: &Value) -> Option<Seat> {
        let _ = view;
        None
    }

    /// How a leg ended, given the rules' reason (the `reason` of their outcome) and whether
    /// someone won; the game's own rules decided it unless the family says otherwise.
    fn end(&self, rules_reason: &str, won: bool) -> LineEnd {
        let _ = rules_reason;
        if won {
            LineEnd::VariantEnd
        } else {
            LineEnd::Draw
        }
    }
}
