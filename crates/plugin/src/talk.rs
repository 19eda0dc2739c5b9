//! Bot talk: house seats that join a table's chat, for families whose games have one.
//!
//! The work is split in two, and so is this seam:
//!
//! - **What to say** is the family's ([`TableTalk`]): rules choose a [`Remark`] from one
//!   seat's [`SeatView`] and public facts about the table ([`TalkTable`]), so that nothing a
//!   house seat says can carry another seat's secrets. The remark also carries the only
//!   context a provider may see: the recent public chat and the seat's own last lines.
//! - **How to say it** is a wording service's ([`Wording`]), which the arena is given at
//!   start: the remark's text as it is ([`TemplateWording`]), or a language model's
//!   rewording of it, checked before anyone sees it.
//!
//! A seat that stays silent always has a [`Silence`] reason, which the arena logs.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use arbiter_rules::Random;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::SeatView;

/// How many of the most recent public chat lines a [`Remark`] carries.
pub const RECENT_LIMIT: usize = 12;

/// How many of the speaker's own most recent lines a [`Remark`] carries.
pub const OWN_LIMIT: usize = 8;

/// The language a room talks in (a room setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Language {
    /// English.
    #[default]
    #[serde(rename = "en")]
    English,
    /// Korean, always in the polite register (존댓말).
    #[serde(rename = "ko")]
    Korean,
}

impl Language {
    /// Every language, the default first.
    pub const ALL: [Language; 2] = [Language::English, Language::Korean];

    /// The language's short code, as forms and APIs spell it (`en`, `ko`).
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Korean => "ko",
        }
    }

    /// The language's name in itself, for forms.
    pub fn name(self) -> &'static str {
        match self {
            Language::English => "English",
            Language::Korean => "한국어",
        }
    }

    /// The language whose short code is `code`.
    pub fn parse(code: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.code() == code)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A house seat's fixed manner of speaking, which a model keeps while it rewords.
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

/// Why a house seat said nothing when it might have spoken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Silence {
    /// The rules found nothing worth saying.
    Nothing,
    /// A throttle held the seat back.
    Throttled,
    /// The provider failed, or none of its replies passed validation.
    AiFailed,
    /// Bot talk is switched off.
    Disabled,
}

impl Silence {
    /// The reason as the logs write it (`nothing`, `throttled`, `ai-failed`, `disabled`).
    pub fn reason(self) -> &'static str {
        match self {
            Silence::Nothing => "nothing",
            Silence::Throttled => "throttled",
            Silence::AiFailed => "ai-failed",
            Silence::Disabled => "disabled",
        }
    }
}

impl fmt::Display for Silence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

/// One line of public chat, as a provider may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatEntry {
    /// The speaker's name at the table.
    pub speaker: String,
    /// What was said.
    pub text: String,
}

/// What a house seat would say now, chosen by the family's rules, with the only context a
/// wording service may see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remark {
    /// What kind of remark it is, for the logs (`accuse`, `deny`, …).
    pub kind: String,
    /// The remark itself, one complete sentence in the room's language: what the template
    /// says, and what a model rewords.
    pub text: String,
    /// Every number the remark states; a rewording must state exactly these.
    pub numbers: Vec<u32>,
    /// The recent public chat, oldest first, at most [`RECENT_LIMIT`] lines.
    pub recent: Vec<ChatEntry>,
    /// The seat's own recent lines, oldest first, at most [`OWN_LIMIT`].
    pub own: Vec<String>,
}

/// An example pair for a model: a remark as the rules word it, and a good rewording of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// The remark, as the template would say it.
    pub line: &'static str,
    /// A rewording that keeps its stance and numbers.
    pub answer: &'static str,
}

/// A family's rewording examples in one language, and the invented names they use (which a
/// model's reply may swap for real ones, and still be a copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Examples {
    /// The example pairs.
    pub pairs: &'static [Example],
    /// The invented names the pairs use, none of them a player's.
    pub names: &'static [&'static str],
}

/// What a seat's view lacks that talk needs, supplied by the arena from the room.
#[derive(Clone, Copy, Debug)]
pub struct TalkTable<'a> {
    /// Each seat's display name, in seat order, distinct.
    pub names: &'a [String],
    /// Whether each seat is a bot (a house or registered bot) rather than a person, in seat
    /// order: bots do not answer bots.
    pub bots: &'a [bool],
    /// The room's language.
    pub language: Language,
    /// The speaking seat's persona.
    pub persona: Persona,
    /// The current time, on the clock the rules' deadlines are read on.
    pub now_ms: u64,
    /// Whether this pass is a turn of the family's cadence ([`TableTalk::next_talk_at`])
    /// rather than one after a change at the table. A family rolls its chances of a bot
    /// speaking unprompted on ticks only, so that how often bots volunteer remarks does not
    /// depend on how often the table changes (each line said is a change, and would be
    /// another roll for every other bot); what is owed, such as an answer to a person, is
    /// said at any pass.
    pub tick: bool,
}

/// A family's bot talk: what a house seat says, from its own view.
pub trait TableTalk: Send + Sync {
    /// What the view's seat would say now, or why it stays silent. It reads the seat's view
    /// alone, plus `table`; `rng` decides the variety of remarks and chances of speaking.
    fn remark(
        &self,
        view: &SeatView<'_>,
        table: &TalkTable<'_>,
        rng: &mut dyn Random,
    ) -> Result<Remark, Silence>;

    /// The family's rewording examples in `language`.
    fn examples(&self, language: Language) -> Examples;

    /// The free action by which a seat says `text` to the whole table.
    fn chat_action(&self, text: &str) -> Value;

    /// When the view's seat should next be asked whether it has something to say, if nothing
    /// happens at the table before: the arena asks after every change it publishes, and at
    /// the time given here. `None` while the seat cannot talk at all (outside talking
    /// phases), so that matches sleep until their next change.
    fn next_talk_at(&self, view: &SeatView<'_>, now_ms: u64) -> Option<u64>;
}

/// Who is speaking, as a wording service may know it.
#[derive(Clone, Copy, Debug)]
pub struct Voice<'a> {
    /// The speaker's name at the table.
    pub name: &'a str,
    /// Its persona.
    pub persona: Persona,
    /// The room's language.
    pub language: Language,
}

/// What a wording service returns: the words to say, or why the seat stays silent.
pub type Worded<'a> = Pin<Box<dyn Future<Output = Result<String, Silence>> + Send + 'a>>;

/// A wording service: how a [`Remark`] becomes the words a house seat says.
///
/// The arena calls it off the match's task; a service bounds its own time (a provider's
/// timeout), and whatever it says passes through the rules' chat action like any line.
pub trait Wording: Send + Sync + fmt::Debug {
    /// The words `voice` says for `remark`, in the manner of `examples`, or why it stays
    /// silent.
    fn word<'a>(&'a self, remark: &'a Remark, voice: Voice<'a>, examples: Examples) -> Worded<'a>;

    /// The provider as pages may name it (`template`, `ollama · qwen3:8b`): never a key or
    /// an address.
    fn describe(&self) -> String;

    /// Whether the configuration lets bots talk at all.
    fn enabled(&self) -> bool {
        true
    }
}

/// The wording of a server without a model: each remark said as the rules wrote it.
#[derive(Clone, Copy, Debug, Default)]
pub struct TemplateWording;

impl Wording for TemplateWording {
    fn word<'a>(
        &'a self,
        remark: &'a Remark,
        _voice: Voice<'a>,
        _examples: Examples,
    ) -> Worded<'a> {
        Box::pin(std::future::ready(Ok(remark.text.clone())))
    }

    fn describe(&self) -> String {
        "template".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_read_back_their_codes() {
        for language in Language::ALL {
            assert_eq!(Language::parse(language.code()), Some(language));
            let json = serde_json::to_value(language).ok();
            assert_eq!(json, Some(Value::from(language.code())));
        }
        assert_eq!(Language::parse("fr"), None);
        assert_eq!(Language::default(), Language::English);
    }

    #[test]
    fn every_persona_has_a_seat() {
        let seats: Vec<Persona> = (0..4).map(Persona::for_seat).collect();
        assert_eq!(seats, Persona::ALL);
        assert_eq!(Persona::for_seat(5), Persona::for_seat(1));
    }

    #[test]
    fn silences_name_their_reasons() {
        let cases = [
            (Silence::Nothing, "nothing"),
            (Silence::Throttled, "throttled"),
            (Silence::AiFailed, "ai-failed"),
            (Silence::Disabled, "disabled"),
        ];
        for (silence, reason) in cases {
            assert_eq!(silence.to_string(), reason);
            let json = serde_json::to_value(silence).ok();
            assert_eq!(json, Some(Value::from(reason)));
        }
    }

    #[test]
    fn the_template_says_the_remark_as_it_is() {
        let remark = Remark {
            kind: "unsure".to_owned(),
            text: "I can't tell yet.".to_owned(),
            numbers: vec![],
            recent: vec![],
            own: vec![],
        };
        let voice = Voice {
            name: "Bot",
            persona: Persona::Calm,
            language: Language::English,
        };
        let examples = Examples {
            pairs: &[],
            names: &[],
        };
        let worded = TemplateWording.word(&remark, voice, examples);
        // The template's future is ready at once, so a no-op waker polls it to its end.
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        let mut worded = worded;
        let polled = worded.as_mut().poll(&mut context);
        assert_eq!(polled, std::task::Poll::Ready(Ok(remark.text.clone())));
        assert_eq!(TemplateWording.describe(), "template");
        assert!(TemplateWording.enabled());
    }
}
