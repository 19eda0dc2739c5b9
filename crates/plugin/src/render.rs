//! Boards on web pages.
//!
//! A family's [`BoardRenderer`] draws a leg's board from the viewer's view. Besides the board
//! it may give the pages three things, each read from the same view and so never more than
//! the viewer may know:
//!
//! - **Action forms** ([`BoardRenderer::forms`]): actions composed from several choices, which
//!   a short list of buttons cannot play (a form of many fields, a chat line, a claim). An
//!   [`ActionForm`] is a JSON `template` of the action and [`FormField`]s, each a JSON
//!   pointer into the template, a label, a [`FieldKind`] (one of several labelled JSON
//!   values, a set of checkboxes picked `count` at a time, a checkbox, or free text of at
//!   most so many characters) and whether it is usable now. The pages draw every field, the
//!   unusable ones disabled, and the script composes the action as
//!   [`ActionForm::compose`] does: the template with each usable field's value written at its
//!   pointer, a field whose pointer's parent is missing or `null` skipped (so that a field
//!   may fill in a part another field chose, such as a chosen action's target). A form marked
//!   `free` is a free action (`arbiter_rules::Game::is_free`) offered at any time; any other
//!   answers the visitor's pending decision and is shown only while they have one.
//! - **A prompt** ([`BoardRenderer::prompt`]): what the viewer is to do now, in fixed text,
//!   which the pages show centred for a moment whenever it changes.
//! - **A deadline** ([`BoardRenderer::deadline_ms`]): when the phase under way ends on the
//!   server's clock, which the pages count down.
//!
//! Everything a renderer writes into the SVG is numbers and fixed text; labels, titles and
//! prompts are escaped by the pages' templates like any other text.

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

/// A labelled JSON value a field may take.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// What the pages show (fixed text and numbers).
    pub label: String,
    /// The value written at the field's pointer.
    pub value: Value,
    /// Whether the viewer may choose it now; the pages show it disabled otherwise.
    pub usable: bool,
}

impl Choice {
    /// A usable choice.
    pub fn new(label: impl Into<String>, value: Value) -> Choice {
        Choice {
            label: label.into(),
            value,
            usable: true,
        }
    }

    /// The same choice, usable or not.
    #[must_use]
    pub fn usable(mut self, usable: bool) -> Choice {
        self.usable = usable;
        self
    }
}

/// What kind of input a field is, and the value it writes.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    /// One of `choices` (a select): the chosen choice's value.
    Choice(Vec<Choice>),
    /// Exactly `count` of `choices` (checkboxes): their values as a JSON array, in the
    /// choices' order.
    Pick {
        /// The choices.
        choices: Vec<Choice>,
        /// How many must be picked.
        count: usize,
    },
    /// A checkbox: `true` or `false`.
    Check,
    /// Free text of 1 to `max_chars` characters, written as a JSON string.
    Text {
        /// The longest text accepted.
        max_chars: usize,
    },
}

/// One field of an [`ActionForm`].
#[derive(Clone, Debug, PartialEq)]
pub struct FormField {
    /// Where the field's value goes in the form's template, as a JSON pointer
    /// (`/form/mark`).
    pub pointer: String,
    /// What the pages show beside it (fixed text and numbers).
    pub label: String,
    /// The input.
    pub kind: FieldKind,
    /// Whether the viewer may use it now; an unusable field is shown disabled and leaves the
    /// template as it is.
    pub usable: bool,
}

/// An action a person composes on the page from several fields (see the module's
/// documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct ActionForm {
    /// A key for the form, unique among a view's forms, which the script uses to keep what a
    /// person entered while the page refreshes (`night`, `chat`).
    pub key: &'static str,
    /// The form's title (fixed text and numbers).
    pub title: String,
    /// The submit button's label.
    pub submit: String,
    /// Whether it is a free action, offered at any time; otherwise it answers the viewer's
    /// pending decision and is shown only while they have one.
    pub free: bool,
    /// The action with every field at its default.
    pub template: Value,
    /// The fields, composed in this order.
    pub fields: Vec<FormField>,
}

impl ActionForm {
    /// The action with `values` (one per field, `None` to keep the template's) written at
    /// their fields' pointers, as the pages' script composes it: an unusable field, a field
    /// without a value, and a field whose pointer's parent is missing or `null` change
    /// nothing.
    pub fn compose(&self, values: &[Option<Value>]) -> Value {
        let mut action = self.template.clone();
        for (field, value) in self.fields.iter().zip(values) {
            let Some(value) = value.as_ref().filter(|_| field.usable) else {
                continue;
            };
            let Some((parent, key)) = field.pointer.rsplit_once('/') else {
                continue;
            };
            match action.pointer_mut(parent) {
                Some(Value::Object(object)) => {
                    object.insert(key.replace("~1", "/").replace("~0", "~"), value.clone());
                }
                Some(Value::Array(list)) => {
                    if let Some(slot) = key.parse::<usize>().ok().and_then(|i| list.get_mut(i)) {
                        *slot = value.clone();
                    }
                }
                _ => {}
            }
        }
        action
    }
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

    /// The actions the viewer composes in forms (see the module's documentation): free
    /// actions they may take now, and the pending decision where a list of buttons cannot
    /// play it. A decision played by a form is one the renderer says is played on the board
    /// ([`BoardRenderer::played_on_board`]), so that its listed actions get no buttons. None
    /// by default.
    fn forms(&self, _view: &Value) -> Vec<ActionForm> {
        Vec::new()
    }

    /// What the viewer is to do now, in fixed text, which the pages show centred for a moment
    /// whenever it changes. None by default.
    fn prompt(&self, _view: &Value) -> Option<String> {
        None
    }

    /// When the phase under way ends, in milliseconds on the server's clock, for a game
    /// whose phases have deadlines of their own; the pages count it down. None by default.
    fn deadline_ms(&self, _view: &Value) -> Option<i64> {
        None
    }

    /// A game event of the leg as one line the pages list beside the board, where the
    /// family writes it better than the pages' generic description: `names` names the
    /// participant in each seat. A line may quote the event's text (a chat line): the pages
    /// escape it. `None` keeps the generic description; `Some(None)` leaves the event out.
    fn event_line(&self, _event: &Value, _names: &[String]) -> Option<Option<EventLine>> {
        None
    }
}

/// A game event as the pages list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventLine {
    /// Who said it, for a line of chat.
    pub speaker: Option<String>,
    /// The line.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(fields: Vec<FormField>) -> ActionForm {
        ActionForm {
            key: "test",
            title: "Test".to_owned(),
            submit: "Send".to_owned(),
            free: false,
            template: json!({"type": "t", "form": {"mark": null, "fate": null, "flag": false}}),
            fields,
        }
    }

    fn field(pointer: &str, usable: bool) -> FormField {
        FormField {
            pointer: pointer.to_owned(),
            label: pointer.to_owned(),
            kind: FieldKind::Check,
            usable,
        }
    }

    #[test]
    fn composing_writes_usable_values_at_their_pointers() {
        let cases = [
            (
                vec![Some(json!(3)), None, None, None],
                json!({"type": "t", "form": {"mark": 3, "fate": null, "flag": false}}),
            ),
            // A field whose parent is null is skipped: no target without an action.
            (
                vec![None, None, Some(json!(2)), None],
                json!({"type": "t", "form": {"mark": null, "fate": null, "flag": false}}),
            ),
            // Once the action is chosen, its target goes into it.
            (
                vec![None, Some(json!({"kind": "peek"})), Some(json!(2)), None],
                json!({"type": "t", "form": {"mark": null, "fate": {"kind": "peek", "target": 2}, "flag": false}}),
            ),
            // An unusable field changes nothing.
            (
                vec![None, None, None, Some(json!(true))],
                json!({"type": "t", "form": {"mark": null, "fate": null, "flag": false}}),
            ),
        ];
        let form = form(vec![
            field("/form/mark", true),
            field("/form/fate", true),
            field("/form/fate/target", true),
            field("/form/flag", false),
        ]);
        for (values, expected) in cases {
            assert_eq!(form.compose(&values), expected, "{values:?}");
        }
    }

    #[test]
    fn a_pointer_may_name_an_array_entry() {
        let mut form = form(vec![field("/list/1", true)]);
        form.template = json!({"list": [0, 0]});
        assert_eq!(form.compose(&[Some(json!(5))]), json!({"list": [0, 5]}));
        assert_eq!(form.compose(&[None]), json!({"list": [0, 0]}));
    }
}
