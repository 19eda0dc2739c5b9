//! Boards on web pages.

use serde_json::Value;

/// What a board drawing marks besides the position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardOptions {
    /// Marks the actions the view lists as legal (Othello: a dot on each playable square).
    pub hints: bool,
    /// Makes the hinted actions buttons for the page's visitor, who is to act now; each
    /// button (an element of class `play`) carries the action as JSON text (the rules' own
    /// value, `19`) in a `data-action` attribute, which the page's script posts as the move's
    /// `action`. Has no effect without `hints`.
    pub playable: bool,
    /// The seat of the person the board is drawn for, where they play in the leg, so that a
    /// board may be drawn from their side (chess turns it round for Black); `None` for
    /// spectators and replays.
    pub seat: Option<u8>,
}

/// Draws a family's board for the web pages.
///
/// Every method reads a view as the rules serialize it (the viewer's: a seat's, a
/// spectator's, or everything once the match is over), so a drawing can show nothing the
/// viewer may not see. The pages put the SVG into the page as it is: a renderer writes only
/// numbers and fixed text into it, never a string taken from the view.
pub trait BoardRenderer: Send + Sync {
    /// The board of a leg as an SVG element.
    fn svg(&self, view: &Value, options: BoardOptions) -> String;

    /// What each seat has on the board, in seat order, for the pages to show beside the
    /// players' names (Othello: discs).
    fn tallies(&self, view: &Value) -> Vec<u64>;

    /// The name of each seat, in seat order (`Black`, `White`); the pages also use it,
    /// lower-cased, as a style class for a small marker of the seat's colour.
    fn seat_names(&self) -> &'static [&'static str];

    /// The name of each seat in the leg of `view`, in seat order, for games whose seats
    /// change sides during a leg (a colour swap in the opening); `seat_names` by default.
    fn seat_names_in(&self, _view: &Value) -> Vec<&'static str> {
        self.seat_names().to_vec()
    }

    /// The actions played so far in the leg, in the notation the pages show under the board.
    fn history(&self, view: &Value) -> Vec<String>;

    /// An action in the notation the pages show (`d3`, `pass`).
    fn notation(&self, view: &Value, action: &Value) -> String;

    /// Whether the pages list the leg's public events beside the board, for a game whose board
    /// draws the table but not what happened at it (chat lines, announcements). By default
    /// the board says it all and no events are listed.
    fn lists_events(&self) -> bool {
        false
    }

    /// Whether `action`, one a decision's request lists as legal, is played on the board
    /// rather than by a button of its own under it. The pages give such actions no button:
    /// a game of hundreds of points would otherwise list every one of them again. By
    /// default none is, so every listed action gets its button.
    fn played_on_board(&self, _action: &Value) -> bool {
        false
    }
}
