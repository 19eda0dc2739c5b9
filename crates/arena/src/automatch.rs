//! Auto-matching: the arena keeps a few rated games of the server's default mode (the first
//! registered family's default variant) going between idle bots.
//!
//! Every few seconds, while fewer than [`ArenaConfig::automatch_rooms`] auto-matched games are
//! pending or running, an online, idle, registered bot with auto-matching on receives a
//! challenge as `bot_b`: from the free registered bot whose rating is closest to its own, else
//! from a house bot. A bot that lets the offer expire (two minutes) or declines it is left out
//! for ten minutes; a bot that reports practice is left out while it does, and a bot the
//! server plays for itself (a webhook or a module) while its settings would decline the offer.
//!
//! [`ArenaConfig::automatch_rooms`]: crate::ArenaConfig::automatch_rooms

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arbiter_store::{BotId, BotKind, MatchId, MatchStatus};

use crate::context::{Context, lock};
use crate::directory::Bot;
use crate::identities::Identities;
use crate::matches::{Matches, Registry};
use crate::ratings::Ratings;
use crate::{ChallengeRequest, Format, SeatChoice, TimeControl};

/// The auto-matching service.
pub(crate) struct AutoMatch {
    context: Arc<Context>,
    /// For the bots that may be matched.
    identities: Arc<Identities>,
    /// For which bots are idle and which offers are still open.
    registry: Arc<Registry>,
    /// For making the offers and reading how they ended.
    matches: Arc<Matches>,
    /// For the closest opponent.
    ratings: Arc<Ratings>,
    state: Mutex<State>,
}

/// What auto-matching remembers between rounds.
#[derive(Default)]
struct State {
    /// Offers made and not yet seen closed: the match and the bot it was offered to.
    offers: HashMap<MatchId, BotId>,
    /// Bots left out, until when.
    excluded: HashMap<BotId, i64>,
}

impl AutoMatch {
    /// The service, with nothing offered and nobody left out yet.
    pub(crate) fn new(
        context: Arc<Context>,
        identities: Arc<Identities>,
        registry: Arc<Registry>,
        matches: Arc<Matches>,
        ratings: Arc<Ratings>,
    ) -> AutoMatch {
        AutoMatch {
            context,
            identities,
            registry,
            matches,
            ratings,
            state: Mutex::default(),
        }
    }

    /// One round of auto-matching at `now`.
    pub(crate) async fn round(&self, now: i64) {
        self.settle_offers(now).await;
        let Ok(mode) = self.context.default_mode() else {
            return;
        };
        let rooms = self.context.config.automatch_rooms;
        while lock(&self.state).offers.len() < rooms {
            let candidates = self.candidates(now);
            let Some(offered) = candidates.first().cloned() else {
                return;
            };
            let opponent = self.closest(&offered, &candidates[1..]).await;
            let Some(opponent) = opponent.or_else(|| {
                self.identities
                    .directory
                    .by_name(&self.context.config.automatch_house)
            }) else {
                return;
            };
            let request = ChallengeRequest {
                opponent: offered.id.to_string(),
                game: mode.game.to_owned(),
                variant: Some(mode.variant.to_owned()),
                format: Format::Paired,
                time_control: TimeControl::default(),
                rated: true,
                auto: true,
                opening: Default::default(),
                client_seed: None,
            };
            match self
                .matches
                .challenge(&opponent, request, &[], SeatChoice::First)
                .await
            {
                Ok(created) => {
                    let id = created.id;
                    tracing::info!(match_id = id, bot = %offered.name, opponent = %opponent.name, "auto-match offered");
                    lock(&self.state).offers.insert(id, offered.id);
                }
                Err(error) => {
                    // Left out for a while, so that one bot that cannot be matched does not
                    // stop the others from being offered games.
                    tracing::debug!(bot = %offered.name, %error, "auto-match offer failed");
                    let until = now + self.context.config.automatch_exclusion_ms;
                    lock(&self.state).excluded.insert(offered.id, until);
                }
            }
        }
    }

    /// Forgets offers whose matches have closed, leaving out the bots that let theirs expire
    /// or declined them.
    async fn settle_offers(&self, now: i64) {
        let offers: Vec<(MatchId, BotId)> = lock(&self.state)
            .offers
            .iter()
            .map(|(id, bot)| (*id, *bot))
            .collect();
        for (id, bot) in offers {
            let open = self.registry.is_open_for(bot, id);
            if open {
                continue;
            }
            let status = self
                .matches
                .stored_match(id)
                .await
                .map(|record| record.status);
            let mut state = lock(&self.state);
            state.offers.remove(&id);
            if matches!(status, Ok(MatchStatus::Expired | MatchStatus::Rejected)) {
                state
                    .excluded
                    .insert(bot, now + self.context.config.automatch_exclusion_ms);
            }
        }
        lock(&self.state).excluded.retain(|_, until| *until > now);
    }

    /// The bots that may be offered or play an auto-match now, longest-known first; people's
    /// quick matches choose among them too.
    pub(crate) fn candidates(&self, now: i64) -> Vec<Bot> {
        let Ok(mode) = self.context.default_mode() else {
            return Vec::new();
        };
        let key = mode.to_string();
        let excluded = lock(&self.state).excluded.clone();
        let open = self.registry.open_by_bot();
        let mut bots: Vec<Bot> = self
            .identities
            .directory
            .list(now)
            .into_iter()
            .filter(|(bot, online)| {
                *online
                    && bot.kind == BotKind::Registered
                    && !bot.disabled
                    && !bot.deleted
                    && !bot.profile.auto_match_off
                    && !bot.practising()
                    // Offered only what it would accept: a declined offer keeps it out for
                    // a while.
                    && bot.hosted_accepts(TimeControl::default().initial_ms)
                    && bot.supports(&key)
                    && !excluded.contains_key(&bot.id)
                    && open.get(&bot.id).is_none_or(|matches| matches.is_empty())
            })
            .map(|(bot, _)| bot)
            .collect();
        bots.sort_by_key(|bot| (bot.created_ms, bot.id));
        bots
    }

    /// The bot among `others` whose rating in the default mode is closest to `bot`'s.
    async fn closest(&self, bot: &Bot, others: &[Bot]) -> Option<Bot> {
        let Ok(mode) = self.context.default_mode().map(|m| m.to_string()) else {
            return None;
        };
        let rating = |id| self.ratings.rating(id, &mode);
        let mine = rating(bot.id).await;
        let mut best: Option<(f64, &Bot)> = None;
        for other in others {
            let distance = (rating(other.id).await - mine).abs();
            if best.is_none_or(|(d, _)| distance < d) {
                best = Some((distance, other));
            }
        }
        best.map(|(_, other)| other.clone())
    }
}
