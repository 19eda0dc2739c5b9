//! Boards on web pages.

use serde_json::Value;

/// Draws a family's board for the web pages.
pub trait BoardRenderer: Send + Sync {
    /// The board of a leg as an SVG element, from a view as the rules serialize it (the
    /// viewer's: a seat's, a spectator's, or everything once the match is over). `actionable`
    /// lists the actions the page's visitor may take now, drawn as buttons that post them.
    fn svg(&self, view: &Value, actionable: &[Value]) -> String;

    /// An action in the notation the page shows under the board (`d3`).
    fn notation(&self, view: &Value, action: &Value) -> String;
}
