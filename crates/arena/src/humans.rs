//! People as match participants. An account plays as its own participant (`@name`), a guest
//! as one named by a cookie its browser keeps; both have the kind `human`, never act through
//! the bot API, and play one-leg unrated matches of any registered game against bots (or sit
//! at open tables, see `matches/tables.rs`), with the server playing their forced actions
//! (see `live`).

use std::sync::Arc;

use crate::snapshot::MatchSummary;
use arbiter_store::BotKind;

use crate::accounts::Account;
use crate::automatch::AutoMatch;
use crate::context::Context;
use crate::directory::Bot;
use crate::identities::Identities;
use crate::matches::Matches;
use crate::ratings::Ratings;
use crate::{ArenaError, BotProfile, ChallengeRequest, Format, Opening, SeatChoice, TimeControl};

/// The prefix of the names people play under; bot names cannot contain it.
pub const PERSON_PREFIX: char = '@';

/// The round of a match with a person, seen as a FlipSight room: each room holds one game.
pub const ROOM_ROUND: i64 = 1;

/// What a person asks for when challenging a bot.
#[derive(Clone, Debug)]
pub struct PersonChallenge {
    /// The bot's name.
    pub opponent: String,
    /// The game; the registry's default mode's game when `None`, so that a caller that names
    /// only a variant plays the default game.
    pub game: Option<String>,
    /// The variant, which the bot must play; the game's default variant when `None`.
    pub variant: Option<String>,
    /// The clocks.
    pub time_control: TimeControl,
    /// Where the game starts.
    pub opening: Opening,
    /// The person's seat: chosen, or drawn from the match seed.
    pub seat: SeatChoice,
}

/// What a person asks for with a quick match: the server's default mode from the start or
/// from a balanced opening, against whichever bot the arena finds.
#[derive(Clone, Debug)]
pub struct QuickMatch {
    /// The clocks.
    pub time_control: TimeControl,
    /// Where the game starts: [`Opening::Start`] or [`Opening::Balanced`] (the family's list).
    pub opening: Opening,
    /// The person's seat.
    pub seat: SeatChoice,
}

/// The people service.
pub(crate) struct People {
    context: Arc<Context>,
    /// For people's participants and the bots they challenge.
    identities: Arc<Identities>,
    /// For the games they play.
    matches: Arc<Matches>,
    /// For the bots a quick match may choose from.
    automatch: Arc<AutoMatch>,
    /// For the median-rated of those bots.
    ratings: Arc<Ratings>,
}

impl People {
    /// The service.
    pub(crate) fn new(
        context: Arc<Context>,
        identities: Arc<Identities>,
        matches: Arc<Matches>,
        automatch: Arc<AutoMatch>,
        ratings: Arc<Ratings>,
    ) -> People {
        People {
            context,
            identities,
            matches,
            automatch,
            ratings,
        }
    }

    fn now(&self) -> i64 {
        self.context.now()
    }

    /// The participant `account` plays as, if it has played.
    pub(crate) fn find_person(&self, account: &Account) -> Option<Bot> {
        self.identities
            .directory
            .list(self.now())
            .into_iter()
            .map(|(bot, _)| bot)
            .find(|bot| is_person(bot) && bot.profile.owner == Some(account.id))
    }

    /// The participant `account` plays as, created the first time.
    pub(crate) async fn person_of(&self, account: &Account) -> Result<Bot, ArenaError> {
        if let Some(person) = self.find_person(account) {
            return Ok(person);
        }
        let profile = BotProfile {
            owner: Some(account.id),
            ..BotProfile::default()
        };
        let id = self.identities.new_bot_id().await?;
        let name = format!("{PERSON_PREFIX}{}", account.name);
        self.identities
            .create(id, name, BotKind::Human, profile)
            .await
            .map(|(person, _)| person)
    }

    /// The guest a cookie's value names, if that guest exists.
    pub(crate) fn guest(&self, secret: &str) -> Option<Bot> {
        self.identities
            .directory
            .holder(secret)
            .filter(|bot| bot.kind == BotKind::Human && bot.profile.owner.is_none())
    }

    /// A new guest for a client at `ip` and the cookie value that names it, which exists
    /// only in this reply. Guests count toward the same limit per address as anonymous bots.
    pub(crate) async fn new_guest(
        &self,
        ip: std::net::IpAddr,
    ) -> Result<(Bot, String), ArenaError> {
        self.identities.count_mint(ip)?;
        let id = self.identities.new_bot_id().await?;
        let name = format!("{PERSON_PREFIX}guest-{id}");
        self.identities
            .create(id, name, BotKind::Human, BotProfile::default())
            .await
    }

    /// A person challenges a bot to a one-leg unrated game of any registered mode: a house
    /// bot starts at once, a registered bot must be online and accept like any challenge.
    pub(crate) async fn challenge_as_person(
        &self,
        person: &Bot,
        challenge: PersonChallenge,
    ) -> Result<MatchSummary, ArenaError> {
        if person.kind != BotKind::Human {
            return Err(ArenaError::InvalidRequest(
                "only a person can challenge this way".to_owned(),
            ));
        }
        let opponent = self.identities.find_bot(&challenge.opponent)?;
        match opponent.kind {
            BotKind::House => {}
            BotKind::Registered if self.identities.is_online(opponent.id) => {}
            BotKind::Registered => return Err(ArenaError::BotUnavailable(opponent.name)),
            _ => return Err(ArenaError::BotNotFound(challenge.opponent)),
        }
        let game = match challenge.game {
            Some(game) => game,
            None => self.context.default_mode()?.game.to_owned(),
        };
        let request = ChallengeRequest {
            opponent: opponent.id.to_string(),
            game,
            variant: challenge.variant,
            format: Format::Single,
            time_control: challenge.time_control,
            rated: false,
            auto: false,
            opening: challenge.opening,
            client_seed: None,
        };
        self.matches
            .challenge(person, request, &[], challenge.seat)
            .await
    }

    /// The bot a person's quick match is played against. People have no rating, so a person
    /// counts as a player of middling strength: of the registered bots auto-matching could
    /// pair now (online, idle, auto-matching on, not practising, playing `std`), the one with
    /// the median `std` rating; when there is none, the house bot auto-matching falls back on.
    pub(crate) async fn quick_opponent(&self) -> Result<Bot, ArenaError> {
        let mode = self.context.default_mode()?.to_string();
        let mut rated = Vec::new();
        for bot in self.automatch.candidates(self.now()) {
            rated.push((self.ratings.rating(bot.id, &mode).await, bot));
        }
        // The sort is stable: bots of equal rating keep the order `candidates` gives them
        // (longest-known first), so the choice does not vary from one call to the next.
        rated.sort_by(|a, b| a.0.total_cmp(&b.0));
        match rated.len() {
            0 => self
                .identities
                .find_bot(&self.context.config.automatch_house),
            n => Ok(rated.swap_remove((n - 1) / 2).1),
        }
    }

    /// A person's quick match: one unrated `std` game against [`People::quick_opponent`],
    /// started at once against a house bot and offered like any challenge to a registered bot.
    pub(crate) async fn quick_match(
        &self,
        person: &Bot,
        quick: QuickMatch,
    ) -> Result<MatchSummary, ArenaError> {
        let opponent = self.quick_opponent().await?;
        let challenge = PersonChallenge {
            opponent: opponent.name,
            game: None,
            variant: Some(self.context.default_mode()?.variant.to_owned()),
            time_control: quick.time_control,
            opening: quick.opening,
            seat: quick.seat,
        };
        self.challenge_as_person(person, challenge).await
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
