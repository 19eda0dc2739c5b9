//! Bot talk for Fate Tokens (seed 003 §06–09): rule bots that join the table's chat without
//! telling anything they know.
//!
//! The work is split in two, as the source's authors split it:
//!
//! - **What to say** is chosen by rules from the bot's own [`FateView`] and public evidence
//!   only (revealed tokens, bag reveals, claims), with the same probabilities the rule bots
//!   vote by, so that what a bot says and what it does agree. The result is a [`Line`]: one
//!   plain sentence in the room's [`Language`], with the numbers it states.
//! - **How to say it** is a provider's: the `template` provider says the line as it is; a
//!   language model (Ollama or an OpenAI-compatible server) only rewords it, given nothing
//!   but the line, the recent chat, the bot's own recent lines, its persona and the rules of
//!   rewording. Its reply is cleaned and validated (first line, no think tags, the room's
//!   language, not a copy, not a repeat, the numbers unchanged) and asked again up to three
//!   times.
//!
//! A silent decision always has a [`Silence`] reason, for the logs.
//!
//! [`FateView`]: arbiter_fate_tokens::FateView

use serde::{Deserialize, Serialize};

pub mod choose;
pub mod prompt;
pub mod provider;
pub mod throttle;
pub mod validate;

/// The language a room talks in (a room setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// English.
    #[default]
    English,
    /// Korean, always in the polite register (존댓말).
    Korean,
}

/// One thing a bot has decided to say, before any provider words it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// What kind of line it is (for logs and for the provider's examples).
    pub kind: LineKind,
    /// The line itself, a complete sentence in the room's language: what the template
    /// provider says, and what a model rewords.
    pub text: String,
    /// Every number the line states; a reworded line must state exactly these.
    pub numbers: Vec<u32>,
}

/// The kinds of line a bot says (seed 003 §06).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// "X looks like a Great Misfortune", with one piece of public evidence.
    Accuse,
    /// "Between X and Y, I suspect X more."
    Compare,
    /// "What do you all think of X?"
    AskOthers,
    /// "I agree with Z about X."
    Agree,
    /// "Let's watch X a little longer."
    Watch,
    /// "I can't tell yet."
    Unsure,
    /// "It isn't me" — a bot suspected or accused.
    Deny,
    /// "I'm innocent" — a bot on trial.
    Innocent,
    /// An answer to a question about the bot's private pile: honest, hidden or false.
    PrivateAnswer,
    /// For or against the accusation on trial.
    Stance,
}

/// Why a bot said nothing when it might have spoken (seed 003 §09).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Silence {
    /// The rules found nothing worth saying.
    Nothing,
    /// A throttle held the bot back.
    Throttled,
    /// The provider failed, or none of its replies passed validation.
    AiFailed,
    /// Bot talk is switched off.
    Disabled,
}

/// A bot's fixed manner of speaking, which a model keeps while it rewords (seed 003 §09).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Persona {
    /// Calm and measured.
    Calm,
    /// Bright and cheerful.
    Bright,
    /// Timid and hesitant.
    Timid,
    /// Blunt and direct.
    Blunt,
}

impl Persona {
    /// Every persona, in the order seats are given them.
    pub const ALL: [Persona; 4] = [
        Persona::Calm,
        Persona::Bright,
        Persona::Timid,
        Persona::Blunt,
    ];

    /// The persona of the bot in `seat`: fixed for the seat, so that a bot keeps one manner
    /// for a whole game, and different for neighbouring seats, so that a table of bots does
    /// not all sound alike.
    pub fn for_seat(seat: usize) -> Persona {
        Persona::ALL[seat % Persona::ALL.len()]
    }
}
