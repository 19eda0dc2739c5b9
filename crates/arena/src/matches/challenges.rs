//! Challenges and what participants do in a match: challenge, accept, decline or cancel,
//! play a move, resign.

use std::sync::Arc;

use arbiter_fair::ServerSeed;
use arbiter_store::{BotKind, IdKind, LeaseRecord, MatchId, MatchRecord, Write};
use serde_json::Value;

use crate::snapshot::MatchSummary;

use super::Matches;
use crate::actor::Command;
use crate::directory::Bot;
use crate::fairness::checked_client_seed;
use crate::live;
use crate::live::ChatRoom;
use crate::log::Reader;
use crate::{ArenaError, Format, MoveReply, Opening, SeatChoice, TimeControl};

/// Who a challenge is for, and on what terms.
#[derive(Clone, Debug)]
pub struct ChallengeRequest {
    /// The opponent's name, or its id as a decimal string.
    pub opponent: String,
    /// The game, one of the registered families.
    pub game: String,
    /// The variant; the game's default when `None`.
    pub variant: Option<String>,
    /// One leg or two.
    pub format: Format,
    /// Clocks.
    pub time_control: TimeControl,
    /// Whether the result should count for ratings (only between registered bots, and never
    /// while either bot reports practice).
    pub rated: bool,
    /// Whether auto-matching makes it (shown on the match; only the arena sets it).
    pub auto: bool,
    /// Where the legs start from.
    pub opening: Opening,
    /// The challenger's client seed: entropy of its own mixed into every draw of the match
    /// (see `fairness.rs`); `None` gives none.
    pub client_seed: Option<String>,
}

impl Matches {
    /// Creates a challenge from `from`, who takes `seat` in the first leg, to
    /// `request.opponent` and every bot named in `more`. A challenge to house bots starts at
    /// once; so does a challenge to oneself, which is an unrated self-play match.
    pub(crate) async fn challenge(
        &self,
        from: &Bot,
        request: ChallengeRequest,
        more: &[String],
        seat: SeatChoice,
    ) -> Result<MatchSummary, ArenaError> {
        let family = self.context.family(&request.game)?;
        let variant = self
            .context
            .games
            .mode(&request.game, request.variant.as_deref())?
            .variant;
        let seats = more.len() + 2;
        if family
            .variant(variant)
            .is_none_or(|spec| !spec.seats_allowed(seats))
        {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} {variant} is not played by {seats}",
                family.id()
            )));
        }
        let variant = variant.to_owned();
        request
            .time_control
            .validate()
            .map_err(ArenaError::InvalidRequest)?;
        let mut opponents = Vec::with_capacity(seats - 1);
        for name in std::iter::once(&request.opponent).chain(more) {
            let opponent = self.identities.find_bot(name)?;
            if !opponent.active() {
                return Err(ArenaError::BotUnavailable(opponent.name));
            }
            check_variant(from, &opponent, family.id(), &variant)?;
            opponents.push(opponent);
        }
        let bots: Vec<Bot> = std::iter::once(from.clone()).chain(opponents).collect();
        if family.house.is_none() && bots.iter().any(|bot| bot.kind == BotKind::House) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "the house bots do not play {}",
                family.id()
            )));
        }
        if self.registry.pending_sent(from.id) >= self.context.config.max_pending_challenges {
            return Err(ArenaError::RateLimited { retry_after_s: 10 });
        }
        // Nobody has to accept for the house bots or for the challenger itself.
        let immediate = bots[1..]
            .iter()
            .all(|bot| bot.id == from.id || bot.kind == BotKind::House);
        if immediate {
            for opponent in &bots[1..] {
                self.check_can_start(from, opponent, &variant)?;
            }
        }
        // A practising bot is trying something out; its results must not move ratings.
        // House bots challenge only through auto-matching, whose games are rated.
        // Each bot has one rating per mode, so a bot in several seats is not rated.
        let distinct = bots
            .iter()
            .enumerate()
            .all(|(i, bot)| bots[..i].iter().all(|other| other.id != bot.id));
        let rated = request.rated
            && distinct
            && bots
                .iter()
                .all(|bot| bot.kind != BotKind::Anonymous && !bot.practising());
        let client_seed = checked_client_seed(request.client_seed.as_deref())?;
        let seed = ServerSeed::generate().map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        super::check_setup(
            family,
            &variant,
            seats,
            request.format,
            request.opening,
            &seed,
        )?;
        let now = self.now();
        let mut client_seeds = vec![String::new(); bots.len()];
        client_seeds[0] = client_seed;
        let setup = live::Setup {
            id: self.context.new_id(IdKind::Match).await?,
            seat_count: bots.len(),
            table: false,
            bots,
            family,
            variant,
            format: request.format,
            time_control: request.time_control,
            rated,
            auto: request.auto,
            opening: request.opening,
            seat,
            created_ms: now,
            seed,
            client_seeds,
            config: self.context.config.clone(),
            terms: Default::default(),
        };
        self.create(setup, immediate).await
    }

    /// Stores a new match (a challenge, or an open table) and starts its actor; `start`
    /// starts it at once.
    pub(crate) async fn create(
        &self,
        setup: live::Setup,
        start: bool,
    ) -> Result<MatchSummary, ArenaError> {
        let now = setup.created_ms;
        let family = setup.family;
        let mut progress = live::challenge(&setup, now);
        if start {
            live::start(&setup, &mut progress, now)?;
        }
        let id = setup.id;
        // Store the new match before anyone can see it.
        let mut writes = vec![Write::PutMatch(MatchRecord {
            id,
            participants: setup.bots.iter().map(|bot| bot.id).collect(),
            game: family.id().to_owned(),
            status: progress.status,
            created_ms: now,
            seed: setup.seed.reveal().to_owned(),
            details: setup.details(&progress),
        })];
        let stored: Vec<Arc<arbiter_store::EventRecord>> = std::mem::take(&mut progress.fresh)
            .into_iter()
            .map(Arc::new)
            .collect();
        writes.extend(stored.iter().cloned().map(Write::AppendEvent));
        // Leased with its row, so that no other server takes it for one that lost its node.
        writes.push(Write::PutLease(LeaseRecord {
            match_id: id,
            node: self.context.config.node_id.clone(),
            renewed_ms: now,
            expires_ms: now + self.context.config.lease_ms,
        }));
        self.context.writer.write(writes).await?;
        let summary = live::summary(&setup, &progress, now);
        progress.row_changed = false;
        self.spawn(setup, progress, Vec::new(), stored);
        Ok(summary)
    }

    /// Refuses to start a match a bot has no room for.
    fn check_can_start(&self, a: &Bot, b: &Bot, variant: &str) -> Result<(), ArenaError> {
        for bot in [a, b] {
            if bot.kind == BotKind::House {
                continue;
            }
            let limit = usize::try_from(
                bot.profile
                    .concurrency
                    .unwrap_or(self.context.config.default_concurrency),
            )
            .unwrap_or(usize::MAX);
            if self.registry.running_count(bot.id) >= limit {
                return Err(ArenaError::BotBusy(bot.name.clone()));
            }
        }
        let house = a.kind == BotKind::House || b.kind == BotKind::House;
        if house
            && Some(variant) != self.context.default_mode().ok().map(|mode| mode.variant)
            && self.registry.house_variants() >= self.context.config.house_variant_matches
        {
            return Err(ArenaError::HouseVariantsFull);
        }
        Ok(())
    }

    /// Accepts a challenge. Both bots' environment reports are read again now, since either
    /// may have reported (or reconnected with another engine) after the challenge was made:
    /// a variant one of them no longer plays is refused, and practice makes the match unrated.
    pub(crate) async fn accept(
        &self,
        bot: &Bot,
        id: MatchId,
        client_seed: Option<&str>,
    ) -> Result<MatchSummary, ArenaError> {
        let client_seed = checked_client_seed(client_seed)?;
        let (_, _, bots) = self
            .registry
            .handle(id)
            .ok_or(ArenaError::MatchNotFound(id))?;
        let mut practice = false;
        if bots[1..].contains(&bot.id) {
            let challenger = self
                .identities
                .directory
                .get(bots[0])
                .ok_or_else(|| ArenaError::BotNotFound(bots[0].to_string()))?;
            let snapshot = self.snapshot(id, Reader::SPECTATOR, false).await?;
            let (game, variant) = (snapshot.game, &snapshot.variant);
            check_variant(&challenger, bot, game, variant)?;
            self.check_can_start(&challenger, bot, variant)?;
            practice = challenger.practising() || bot.practising();
        }
        self.ask(id, |reply| Command::Accept {
            bot: bot.id,
            practice,
            client_seed,
            reply,
        })
        .await?
    }

    /// Declines (the challenged bot) or cancels (the challenger) a challenge.
    pub(crate) async fn decline(
        &self,
        bot: &Bot,
        id: MatchId,
        cancel: bool,
    ) -> Result<MatchSummary, ArenaError> {
        self.ask(id, |reply| Command::Decline {
            bot: bot.id,
            cancel,
            reply,
        })
        .await?
    }

    /// Plays a move.
    pub(crate) async fn submit(
        &self,
        bot: &Bot,
        id: MatchId,
        leg: u8,
        revision: u64,
        submitted: Value,
        note: Option<live::MoveNote>,
    ) -> Result<MoveReply, ArenaError> {
        match self
            .ask(id, |reply| Command::Submit {
                bot: bot.id,
                leg,
                revision,
                submitted,
                note: note.map(Box::new),
                reply,
            })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.closed_or_missing(id).await,
            other => other?,
        }
    }

    /// Resigns a match.
    pub(crate) async fn resign(&self, bot: &Bot, id: MatchId) -> Result<MatchSummary, ArenaError> {
        match self
            .ask(id, |reply| Command::Resign { bot: bot.id, reply })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.closed_or_missing(id).await,
            other => other?,
        }
    }

    /// Aborts a running match before every participant has moved.
    pub(crate) async fn abort(&self, bot: &Bot, id: MatchId) -> Result<MatchSummary, ArenaError> {
        match self
            .ask(id, |reply| Command::Abort { bot: bot.id, reply })
            .await
        {
            Err(ArenaError::MatchNotFound(_)) => self.closed_or_missing(id).await,
            other => other?,
        }
    }

    /// Says a chat line in a match.
    pub(crate) async fn say(
        &self,
        bot: &Bot,
        id: MatchId,
        room: ChatRoom,
        text: &str,
    ) -> Result<(), ArenaError> {
        let text = text.to_owned();
        self.ask(id, |reply| Command::Say {
            bot: bot.id,
            room,
            text,
            reply,
        })
        .await?
    }
}

/// Refuses a variant that one of the bots does not play: its profile does not offer it, or
/// its last environment report says the engine it has connected cannot play it.
/// Refuses a match of `game`'s `variant` that either bot does not play.
fn check_variant(a: &Bot, b: &Bot, game: &str, variant: &str) -> Result<(), ArenaError> {
    let key = format!("{game}:{variant}");
    for bot in [a, b] {
        if !bot.offers(&key) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "both bots must support {variant}"
            )));
        }
        if !bot.engine_plays(&key) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} reported that its engine does not play {variant}",
                bot.name
            )));
        }
    }
    Ok(())
}
