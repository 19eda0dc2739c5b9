//! People as match participants. An account plays as its own participant (`@name`), a guest
//! as one named by a cookie its browser keeps; both have the kind `human`, never act through
//! the bot API, and play one-leg unrated matches against bots, with the server playing their
//! forced passes (see `live`).

use arbiter_store::BotKind;
use serde_json::Value;

use crate::accounts::Account;
use crate::directory::Bot;
use crate::{Arena, ArenaError, BotProfile, ChallengeRequest, Format, Opening, TimeControl};

/// The prefix of the names people play under; bot names cannot contain it.
pub const PERSON_PREFIX: char = '@';

/// The round of a match with a person, seen as a FlipSight room: each room holds one game.
pub const ROOM_ROUND: i64 = 1;

/// What a person asks for when challenging a bot.
#[derive(Clone, Debug)]
pub struct PersonChallenge {
    /// The bot's name.
    pub opponent: String,
    /// The variant; the bot must play it.
    pub variant: String,
    /// The clocks.
    pub time_control: TimeControl,
    /// Where the game starts.
    pub opening: Opening,
}

impl Arena {
    /// The participant `account` plays as, if it has played.
    pub fn find_person(&self, account: &Account) -> Option<Bot> {
        self.shared
            .directory
            .list(self.now())
            .into_iter()
            .map(|(bot, _)| bot)
            .find(|bot| is_person(bot) && bot.profile.owner == Some(account.id))
    }

    /// The participant `account` plays as, created the first time.
    pub async fn person_of(&self, account: &Account) -> Result<Bot, ArenaError> {
        if let Some(person) = self.find_person(account) {
            return Ok(person);
        }
        let profile = BotProfile {
            owner: Some(account.id),
            ..BotProfile::default()
        };
        let id = self.shared.directory.next_id();
        let name = format!("{PERSON_PREFIX}{}", account.name);
        self.create(id, name, BotKind::Human, profile)
            .await
            .map(|(person, _)| person)
    }

    /// The guest a cookie's value names, if that guest exists.
    pub fn guest(&self, secret: &str) -> Option<Bot> {
        self.shared
            .directory
            .holder(secret)
            .filter(|bot| bot.kind == BotKind::Human && bot.profile.owner.is_none())
    }

    /// A new guest for a client at `ip` and the cookie value that names it, which exists
    /// only in this reply. Guests count toward the same limit per address as anonymous bots.
    pub async fn new_guest(&self, ip: std::net::IpAddr) -> Result<(Bot, String), ArenaError> {
        self.count_mint(ip)?;
        let id = self.shared.directory.next_id();
        let name = format!("{PERSON_PREFIX}guest-{id}");
        self.create(id, name, BotKind::Human, BotProfile::default())
            .await
    }

    /// A person challenges a bot to a one-leg unrated game: a house bot starts at once, a
    /// registered bot must be online and accept like any challenge.
    pub async fn challenge_as_person(
        &self,
        person: &Bot,
        challenge: PersonChallenge,
    ) -> Result<Value, ArenaError> {
        if person.kind != BotKind::Human {
            return Err(ArenaError::InvalidRequest(
                "only a person can challenge this way".to_owned(),
            ));
        }
        let opponent = self.find_bot(&challenge.opponent)?;
        match opponent.kind {
            BotKind::House => {}
            BotKind::Registered if self.is_online(opponent.id) => {}
            BotKind::Registered => return Err(ArenaError::BotUnavailable(opponent.name)),
            _ => return Err(ArenaError::BotNotFound(challenge.opponent)),
        }
        let request = ChallengeRequest {
            opponent: opponent.id.to_string(),
            game: "othello".to_owned(),
            variant: Some(challenge.variant),
            format: Format::Single,
            time_control: challenge.time_control,
            rated: false,
            auto: false,
            opening: challenge.opening,
        };
        self.challenge(person, request).await
    }
}

/// Whether a token names a person's participant rather than a bot.
pub(crate) fn is_person(bot: &Bot) -> bool {
    bot.kind == BotKind::Human
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn person_names_cannot_be_bot_names() {
        let name = format!("{PERSON_PREFIX}ada");
        assert!(crate::names::check_bot_name(&name).is_err());
    }
}
