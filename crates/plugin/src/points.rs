//! Games played on the points of a square board, for clients that speak of points and
//! stones rather than of the rules' own actions.

use arbiter_rules::Seat;
use serde_json::Value;

/// A point of the board: `x` the column and `y` the row, both from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// The column, from 0.
    pub x: u32,
    /// The row, from 0.
    pub y: u32,
}

/// A stone on the board: where it is and whose it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stone {
    /// Where it stands.
    pub point: Point,
    /// The seat whose colour it has now.
    pub seat: Seat,
}

/// Why a point cannot be played now, as a client is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointRefusal {
    /// The point is off the board.
    OutOfBoard,
    /// A stone already stands there.
    Occupied,
    /// The rules forbid the mover that point; the text says why.
    Forbidden(String),
    /// Any other reason the rules give.
    Illegal(String),
}

/// A family's games seen as stones on the points of a square board: the action at a point
/// (and the pass, where the game has one), the point of an action, and the board read from a
/// leg's view.
///
/// Every method that reads a view reads it as the rules serialize it for some viewer, so it
/// can tell nothing the viewer may not see.
///
/// Turns alternate between the two seats, a pass being a move: a door may say whose turn
/// follows a move without asking the rules.
pub trait PointBoard: Send + Sync {
    /// The board's side in `variant`, `None` for a variant the family does not have.
    fn size_of_variant(&self, variant: &str) -> Option<u32>;

    /// The board's side, read from a leg's view.
    fn size(&self, view: &Value) -> Option<u32>;

    /// The rules' action that plays at `point` (on the board, whose side is `size`), in the
    /// form the family's codec reads.
    fn place(&self, size: u32, point: Point) -> Value;

    /// The rules' action that passes, for games that have one.
    fn pass(&self) -> Option<Value> {
        None
    }

    /// The point an action (as the rules store it) played at on a board whose side is
    /// `size`, `None` for a pass or an action of another kind.
    fn point_of(&self, size: u32, action: &Value) -> Option<Point>;

    /// The stones on the board of a leg's view, in any order.
    fn stones(&self, view: &Value) -> Vec<Stone>;

    /// Each seat's colour, in seat order, lower-case (`black`, `white`).
    fn colours(&self) -> &'static [&'static str];

    /// Why `point` may not be played by the seat to move in a leg's view, given that the
    /// rules refused it with `refusal` (their own words). A point off the board (by
    /// [`PointBoard::size`]) or under a stone (by [`PointBoard::stones`]) is told as such in
    /// every game; the rest is the family's [`PointBoard::forbidden`], else the rules' word.
    fn refusal(&self, view: &Value, point: Point, refusal: &str) -> PointRefusal {
        let size = self.size(view).unwrap_or(0);
        if point.x >= size || point.y >= size {
            return PointRefusal::OutOfBoard;
        }
        if self.stones(view).iter().any(|stone| stone.point == point) {
            return PointRefusal::Occupied;
        }
        match self.forbidden(view, point, refusal) {
            Some(why) => PointRefusal::Forbidden(why),
            None => PointRefusal::Illegal(refusal.to_owned()),
        }
    }

    /// Why `point`, on the board and empty, is forbidden to the seat to move in a leg's view
    /// (the rules having refused it with `refusal`), or `None` where it is merely illegal.
    /// Nothing is forbidden unless the family says so.
    fn forbidden(&self, view: &Value, point: Point, refusal: &str) -> Option<String> {
        let _ = (view, point, refusal);
        None
    }

    /// The word a client reads for why a leg ended, given the rules' own reason (the
    /// `reason` of their outcome); the rules' word unless the family says otherwise.
    fn reason_word(&self, rules_reason: &str) -> String {
        rules_reason.to_owned()
    }
}
