//! Open tables: a match of a game, variant and number of seats that bots and people join
//! until it is full, then starts. A table is a pending match from its opening, so it is
//! stored, replayed after a restart, expires like a challenge, and is cancelled by its opener
//! (or refused by anyone seated at it) as a challenge is.
//!
//! People (participants of kind human, from the web pages) open and join tables through the
//! same functions as bots and pass the same checks where these mean anything for them: a
//! person plays every mode (it has no list of variants and no engine report), holds no
//! stream, and is never judged absent, so only the seat count, the clocks, the limit of
//! pending matches it opened and the limit of matches at once apply.

use crate::snapshot::{MatchSnapshot, MatchSummary};
use arbiter_fair::ServerSeed;
use arbiter_plugin::Language;
use arbiter_store::{BotKind, IdKind, MatchId, MatchStatus};

use super::Matches;
use crate::actor::Command;
use crate::directory::Bot;
use crate::fairness::checked_client_seed;
use crate::log::Reader;
use crate::{ArenaError, Format, SeatChoice, TimeControl, live};

/// What a table is opened with.
#[derive(Clone, Debug)]
pub struct TableRequest {
    /// The game.
    pub game: String,
    /// The variant; the game's default when `None`.
    pub variant: Option<String>,
    /// How many seats, the opener's included.
    pub seats: usize,
    /// One leg, or one per seat.
    pub format: Format,
    /// Clocks.
    pub time_control: TimeControl,
    /// The opener's client seed: entropy of its own mixed into every draw of the match;
    /// `None` gives none.
    pub client_seed: Option<String>,
    /// The language the room talks in: house seats of a family that talks speak it.
    pub language: Language,
}

impl Matches {
    /// Opens a table at which `from` (a bot or a person) takes the first seat. Tables are
    /// unrated: who will sit at them is not known when they open.
    pub(crate) async fn open_table(
        &self,
        from: &Bot,
        request: TableRequest,
        terms: live::TableTerms,
    ) -> Result<MatchSummary, ArenaError> {
        let family = self.context.family(&request.game)?;
        let variant = self
            .context
            .games
            .mode(&request.game, request.variant.as_deref())?
            .variant;
        let spec = family.variant(variant);
        if spec.is_none_or(|spec| !spec.seats_allowed(request.seats)) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} {variant} is not played by {}",
                family.id(),
                request.seats
            )));
        }
        request
            .time_control
            .validate()
            .map_err(ArenaError::InvalidRequest)?;
        if !sits_at_tables(from.kind) {
            return Err(ArenaError::InvalidRequest(
                "only bots and people open tables".to_owned(),
            ));
        }
        if !from.supports(&format!("{}:{variant}", family.id())) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} does not play {variant}",
                from.name
            )));
        }
        if self.registry.pending_sent(from.id) >= self.context.config.max_pending_challenges {
            return Err(ArenaError::RateLimited { retry_after_s: 10 });
        }
        if terms
            .wait_ms
            .is_some_and(|ms| !(1_000..=7 * 24 * 3_600_000).contains(&ms))
        {
            return Err(ArenaError::InvalidRequest(
                "a table waits between a second and a week for its seats".to_owned(),
            ));
        }
        let mut client_seeds = vec![String::new(); request.seats];
        client_seeds[0] = checked_client_seed(request.client_seed.as_deref())?;
        let seed = ServerSeed::generate().map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        super::check_setup(
            family,
            variant,
            request.seats,
            request.format,
            terms.opening.unwrap_or_default(),
            &seed,
        )?;
        let setup = live::Setup {
            id: self.context.new_id(IdKind::Match).await?,
            bots: vec![from.clone()],
            seat_count: request.seats,
            table: true,
            family,
            variant: variant.to_owned(),
            format: request.format,
            time_control: request.time_control,
            rated: false,
            auto: false,
            opening: terms.opening.unwrap_or_default(),
            seat: SeatChoice::First,
            created_ms: self.now(),
            seed,
            client_seeds,
            config: self.context.config.clone(),
            terms: live::TableTerms {
                language: request.language,
                ..terms
            },
        };
        self.create(setup, false).await
    }

    /// `bot` (a bot or a person) takes a seat at table `id`; the match starts when the last
    /// seat is taken.
    pub(crate) async fn join_table(
        &self,
        bot: &Bot,
        id: MatchId,
        seat_key: Option<String>,
        client_seed: Option<&str>,
    ) -> Result<MatchSummary, ArenaError> {
        let client_seed = checked_client_seed(client_seed)?;
        if !sits_at_tables(bot.kind) {
            return Err(ArenaError::InvalidRequest(
                "only bots and people sit at tables".to_owned(),
            ));
        }
        let table = self.snapshot(id, Reader::SPECTATOR, false).await?;
        if table.table.is_none() {
            return Err(ArenaError::MatchNotFound(id));
        }
        let (game, variant) = (table.game, &table.variant);
        if !bot.supports(&format!("{game}:{variant}")) {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} does not play {variant}",
                bot.name
            )));
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
        self.ask(id, |reply| Command::Join {
            bot: Box::new(bot.clone()),
            seat_key,
            client_seed,
            reply,
        })
        .await?
    }

    /// Starts table `id` with `house` in every free seat, for `by`, the person who opened it
    /// (see [`crate::Arena::fill_table_with_house`]).
    pub(crate) async fn fill_table(
        &self,
        by: &Bot,
        id: MatchId,
        house: Bot,
    ) -> Result<MatchSummary, ArenaError> {
        let table = self.snapshot(id, Reader::SPECTATOR, false).await?;
        if table.table.is_none() {
            return Err(ArenaError::MatchNotFound(id));
        }
        let family = self.context.family(table.game)?;
        if family.house.is_none() || house.kind != BotKind::House {
            return Err(ArenaError::UnsupportedVariant(format!(
                "{} has no house bots to fill a table",
                family.id()
            )));
        }
        if by.kind != BotKind::Human {
            return Err(ArenaError::InvalidRequest(
                "only the person who opened a table fills it with house bots".to_owned(),
            ));
        }
        self.ask(id, |reply| Command::Fill {
            by: by.id,
            house: Box::new(house),
            reply,
        })
        .await?
    }

    /// The participant of match `id` whose seat key is `key`, if any.
    pub(crate) async fn seat_holder(
        &self,
        id: MatchId,
        key: &str,
    ) -> Result<Option<usize>, ArenaError> {
        let hash = crate::token::hash(key);
        self.ask(id, |reply| Command::SeatHolder { hash, reply })
            .await
    }

    /// The lobby's revision (see [`Registry::lobby`]).
    pub(crate) fn lobby(&self) -> tokio::sync::watch::Receiver<u64> {
        self.registry.lobby()
    }

    /// The open tables with a free seat, newest first, at most `limit`.
    pub(crate) async fn open_tables(&self, limit: usize) -> Vec<MatchSnapshot> {
        let mut ids: Vec<MatchId> = self
            .registry
            .open_by_bot()
            .values()
            .flat_map(|m| m.iter())
            .filter(|(_, status)| **status == MatchStatus::Pending)
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.dedup();
        let mut tables = Vec::new();
        for id in ids {
            if tables.len() == limit {
                break;
            }
            if let Ok(snapshot) = self.snapshot(id, Reader::SPECTATOR, false).await
                && snapshot.table.is_some()
                && snapshot.status == MatchStatus::Pending
            {
                tables.push(snapshot);
            }
        }
        tables
    }
}

/// Whether participants of `kind` may open and join tables: bots that connect to the API and
/// people on the web pages. House bots only answer challenges; they never sit down on their own.
fn sits_at_tables(kind: BotKind) -> bool {
    matches!(
        kind,
        BotKind::Registered | BotKind::Anonymous | BotKind::Human
    )
}
