//! How a family's matches are set up: variants, seats, formats and the legs' configurations.

use arbiter_rules::Random;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How many legs a match has and how seats rotate between them. The arena applies it to any
/// game: in leg `l`, seat `s` is played by participant `(s + first + l) % seats`, where
/// `first` is the participant in the first seat of the first leg.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// One leg.
    Single,
    /// One leg per seat, all from the same start, played at the same time, every participant
    /// taking every seat once, scored together: with two seats, two legs with colours
    /// swapped.
    Paired,
}

impl Format {
    /// The number of legs for a game of `seats` seats.
    pub fn legs(self, seats: usize) -> usize {
        match self {
            Format::Single => 1,
            Format::Paired => seats.max(1),
        }
    }

    /// The participant in `seat` of leg `leg`, when participant `first` has the first seat of
    /// the first leg.
    pub fn participant_in(seat: usize, leg: usize, first: usize, seats: usize) -> usize {
        (seat + first + leg) % seats.max(1)
    }
}

/// Where a match's legs start from; what each choice means is the family's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// A random start drawn from the match seed (Othello: a 12-disc opening), or the rules'
    /// own start where the family has no random openings.
    #[default]
    Random,
    /// The rules' own start position.
    Start,
    /// A balanced start from the family's list (Othello's XOT openings).
    Balanced,
}

/// One variant of a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantSpec {
    /// Its name, unique within the family (`std`).
    pub name: &'static str,
    /// The fewest seats it can be played with.
    pub min_seats: u8,
    /// The most seats it can be played with.
    pub max_seats: u8,
    /// One line for people choosing it.
    pub summary: &'static str,
}

impl VariantSpec {
    /// Whether it can be played with `seats` seats.
    pub fn seats_allowed(&self, seats: usize) -> bool {
        (usize::from(self.min_seats)..=usize::from(self.max_seats)).contains(&seats)
    }
}

/// What the arena asks a family for when a match starts.
#[derive(Clone, Copy, Debug)]
pub struct LegRequest<'a> {
    /// The variant, one the family lists.
    pub variant: &'a str,
    /// How many seats the game has.
    pub seats: usize,
    /// How many legs the match has.
    pub legs: usize,
    /// Where the legs start from.
    pub opening: Opening,
}

/// Why a match cannot be set up as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The family has no such variant.
    #[error("{0}")]
    UnknownVariant(String),
    /// The variant exists, but not with these options.
    #[error("{0}")]
    Unsupported(String),
}

/// How a family's matches are set up.
pub trait MatchSetup: Send + Sync {
    /// The variants on offer; the first is the default.
    fn variants(&self) -> &'static [VariantSpec];

    /// The format a match has when its request names none: paired, so that every participant
    /// meets the same start in every seat, unless the family plays one game a match.
    fn default_format(&self) -> Format {
        Format::Paired
    }

    /// The rules configuration of each leg, drawing anything random (an opening) from `rng`,
    /// the match's fair random source. Legs of one match start from the same position, so
    /// that every participant meets the same start in every seat.
    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        rng: &mut dyn Random,
    ) -> Result<Vec<Value>, SetupError>;

    /// The rules configuration of a leg of `variant` that starts from `opening`, one line of an
    /// opening book in the notation the game's players exchange books in (Othello's moves
    /// from the start, `f5d6c3d3c4f4`; a chess FEN or EPD line). Whether the opening can be
    /// played is the rules' to say when the leg starts. By default a family takes no openings
    /// from a book.
    fn listed_opening(&self, variant: &str, opening: &str) -> Result<Value, SetupError> {
        let _ = opening;
        Err(SetupError::Unsupported(format!(
            "{variant} takes no openings from a book"
        )))
    }
}
