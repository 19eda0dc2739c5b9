//! Tables for doors whose players are named per match: tables opened with terms
//! ([`TableTerms`]), seats claimed by keys, guests that sit at one table under the name they
//! give, and notes stored with moves.

use arbiter_store::{BotId, BotKind, MatchId};
use serde_json::Value;

use crate::directory::{Bot, DISPLAY_NAME_MAX_CHARS};
use crate::live::{MoveNote, MoveReply, TableTerms};
use crate::snapshot::MatchSummary;
use crate::{Arena, ArenaError, BotProfile, PERSON_PREFIX, TableRequest};

/// The most characters of the name a table guest gives.
pub const GUEST_NAME_MAX_CHARS: usize = 40;

impl Arena {
    /// Opens a table as [`Arena::open_table`] does, with `terms`: how long it waits for its
    /// seats, whether its players poll, whether two registered bots' result is rated, and
    /// the opener's seat key.
    pub async fn open_table_with(
        &self,
        from: &Bot,
        request: TableRequest,
        terms: TableTerms,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches.open_table(from, request, terms).await
    }

    /// `bot` takes a seat at table `id` as [`Arena::join_table`] does; `seat_key_hash`, the
    /// SHA-256 (hex) of a key, then claims that seat.
    pub async fn join_table_with(
        &self,
        bot: &Bot,
        id: MatchId,
        seat_key_hash: Option<String>,
    ) -> Result<MatchSummary, ArenaError> {
        self.matches.join_table(bot, id, seat_key_hash, None).await
    }

    /// The participant (a bot or a person) with id `id`, if it exists and is not deleted.
    pub fn participant(&self, id: BotId) -> Option<Bot> {
        self.identities.directory.get(id).filter(|bot| !bot.deleted)
    }

    /// The participant of match `id` whose seat key is `key`, if any (compared by hash, in
    /// constant time).
    pub async fn seat_holder(&self, id: MatchId, key: &str) -> Result<Option<usize>, ArenaError> {
        self.matches.seat_holder(id, key).await
    }

    /// Plays a move as [`Arena::submit`] does, with `note` stored with it as `note` events.
    pub async fn submit_noted(
        &self,
        bot: &Bot,
        id: MatchId,
        leg: u8,
        revision: u64,
        submitted: Value,
        note: MoveNote,
    ) -> Result<MoveReply, ArenaError> {
        self.matches
            .submit(bot, id, leg, revision, submitted, Some(note))
            .await
    }

    /// A new guest for one table, a person named `@{name}#{id}`: the prefix keeps it from
    /// posing as a bot (bot names cannot hold it) and the id from clashing with anyone.
    /// `name` is 1 to [`GUEST_NAME_MAX_CHARS`] characters, none of them `#`, a space or a
    /// control character; `display_name`, if given, is checked as any profile's is. A door
    /// that makes guests limits how often one address opens tables
    /// ([`Arena::count_opening`]).
    pub async fn new_table_guest(
        &self,
        name: &str,
        display_name: Option<String>,
    ) -> Result<Bot, ArenaError> {
        let count = name.chars().count();
        if count == 0
            || count > GUEST_NAME_MAX_CHARS
            || name
                .chars()
                .any(|c| c == '#' || c.is_whitespace() || c.is_control())
        {
            return Err(ArenaError::InvalidName(format!(
                "a guest's name is 1 to {GUEST_NAME_MAX_CHARS} characters without spaces or '#'"
            )));
        }
        let display_name = display_name
            .map(|text| text.trim().to_owned())
            .filter(|text| !text.is_empty());
        if let Some(text) = &display_name
            && (text.chars().count() > DISPLAY_NAME_MAX_CHARS || text.chars().any(char::is_control))
        {
            return Err(ArenaError::InvalidName(format!(
                "a display name is at most {DISPLAY_NAME_MAX_CHARS} characters, none of them control characters"
            )));
        }
        let profile = BotProfile {
            display_name,
            ..BotProfile::default()
        };
        let id = self.identities.new_bot_id().await?;
        let name = format!("{PERSON_PREFIX}{name}#{id}");
        self.identities
            .create(id, name, BotKind::Human, profile)
            .await
            .map(|(guest, _)| guest)
    }
}

/// The name a table guest gave, if `bot` is one ([`Arena::new_table_guest`]).
pub fn table_guest_name(bot_name: &str) -> Option<&str> {
    let rest = bot_name.strip_prefix(PERSON_PREFIX)?;
    let (name, id) = rest.rsplit_once('#')?;
    (!name.is_empty() && !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())).then_some(name)
}
