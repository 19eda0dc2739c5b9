//! The seam between the arena and the game families.
//!
//! The arena runs every game through a [`Family`]: the rules, type-erased
//! ([`arbiter_rules::DynGame`]), plus the few things a match needs around them — how a
//! match's legs are set up ([`MatchSetup`]), how clients spell actions ([`ActionCodec`]), the
//! request a seat receives for a decision ([`DecisionWriter`]), how the clock is charged
//! ([`ClockPolicy`]), and, where the family has them, a house player ([`HousePlayer`]), a
//! board for web pages ([`BoardRenderer`]) and what house seats say at the table
//! ([`TableTalk`], worded by a [`Wording`] service).
//!
//! Each family fills in a `Family` in its own crate, and the binary registers the families in
//! a [`Games`]. The arena, the server and the store name no game: a new family is a new crate
//! and one line of registration.
//!
//! Decision writers and house players never see the full state of a game, only a
//! [`SeatView`]: what one seat may see. So a request or a house move cannot carry another
//! seat's secrets, whatever the family's code does.

mod clock;
mod codec;
mod decision;
mod house;
mod line;
mod points;
mod record;
mod registry;
mod render;
mod setup;
mod talk;

pub use clock::ClockPolicy;
pub use codec::{ActionCodec, CodecError, JsonCodec};
pub use decision::{DecisionContext, DecisionWriter, GENERIC_PROTOCOL, GenericDecisions, SeatView};
pub use house::{Budget, HouseLevel, HousePlayer};
pub use line::{LineEnd, MoveLine, VariantKey};
pub use points::{Point, PointBoard, PointRefusal, Stone};
pub use record::{RecordFormat, RecordedGame};
pub use registry::{Games, Mode, UnknownMode};
pub use render::{
    ActionForm, BoardOptions, BoardRenderer, Choice, EventLine, FieldKind, FormField,
};
pub use setup::{Format, LegRequest, MatchSetup, Opening, SetupError, VariantSpec};
pub use talk::{
    ChatEntry, Example, Examples, Language, OWN_LIMIT, Persona, RECENT_LIMIT, Remark, Silence,
    TableTalk, TalkTable, TemplateWording, Voice, Worded, Wording,
};

use arbiter_rules::DynGame;

/// A game family as the arena runs it.
///
/// Families are plain statics (`pub static FAMILY: Family = Family { … };`), registered by the
/// binary.
#[derive(Clone, Copy)]
pub struct Family {
    /// The rules, type-erased.
    pub rules: &'static dyn DynGame,
    /// Variants, seat counts, formats and the configurations of a match's legs.
    pub setup: &'static dyn MatchSetup,
    /// How clients spell actions, and how logs and pages write them.
    pub codec: &'static dyn ActionCodec,
    /// The request a seat receives for a decision.
    pub decisions: &'static dyn DecisionWriter,
    /// How the clock is charged.
    pub clock: ClockPolicy,
    /// The house player, for families that have one; house bots play only games with one.
    pub house: Option<&'static dyn HousePlayer>,
    /// The board the web pages draw, for families that have one; other games get a generic
    /// rendering of their public view.
    pub board: Option<&'static dyn BoardRenderer>,
    /// The game seen as stones on the points of a square board, for families whose games
    /// are played so; dialects that speak of points serve only such games.
    pub points: Option<&'static dyn PointBoard>,
    /// The game as a start position and a line of move tokens, for two-seat families whose
    /// games are told so; dialects that speak of move lines serve only such games.
    pub line: Option<&'static dyn MoveLine>,
    /// What house seats say at the table, for families whose games have a chat that house
    /// players join; the arena runs no talk for the others.
    pub talk: Option<&'static dyn TableTalk>,
    /// The game as the record its community keeps (PGN, GGF), for families that have one;
    /// tools that save games write the others in the arena's own export.
    pub record: Option<&'static dyn RecordFormat>,
}

impl Family {
    /// The game's identifier (`othello`).
    pub fn id(&self) -> &'static str {
        self.rules.id()
    }

    /// The variant called `name`.
    pub fn variant(&self, name: &str) -> Option<&'static VariantSpec> {
        self.setup.variants().iter().find(|v| v.name == name)
    }

    /// The game seen as stones on the points of a square board, if it is played so.
    pub fn point_board(&self) -> Option<&'static dyn PointBoard> {
        self.points
    }

    /// The default variant: the first the family lists.
    pub fn default_variant(&self) -> &'static VariantSpec {
        &self.setup.variants()[0]
    }
}

impl std::fmt::Debug for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Family").field("id", &self.id()).finish()
    }
}
