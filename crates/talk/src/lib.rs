//! How a house bot's remark is worded, for any game whose family talks (the plugin's talk
//! seam, [`arbiter_plugin::TableTalk`]).
//!
//! What a bot says is chosen by its family's rules, from its own seat's view and public
//! evidence only, as a [`Remark`]. How it is said is decided here, by a [`Speaker`] (the
//! plugin's [`arbiter_plugin::Wording`] service the arena is given): the `template` provider
//! says the remark as it is; a language model (Ollama or an OpenAI-compatible server) only
//! rewords it, given nothing but the remark, the recent public chat, the bot's own recent
//! lines, its persona and the rules of rewording, with the family's example pairs
//! ([`prompt`]). Its reply is cleaned and validated (first line, no think tags, the room's
//! language, not a copy, not a repeat, the numbers unchanged; [`validate`]) and asked again
//! up to three times ([`provider`]).
//!
//! [`Remark`]: arbiter_plugin::Remark

pub mod prompt;
pub mod provider;
pub mod validate;

pub use provider::{DEFAULT_API_KEY_ENV, ProviderKind, Speaker, TalkConfig, TalkError};
