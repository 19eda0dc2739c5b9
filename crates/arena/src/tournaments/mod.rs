//! The tournaments service: round robins, Swiss tournaments and arenas of bots (and of people
//! where the organiser allows), for any game two can play.
//!
//! A tournament is one stored record, read again and rewritten whole under its lock
//! (`tournament:{id}`, [`Context::exclusively`], and a lock of this process) at every change,
//! so that the servers sharing a store agree on it and a restart loses nothing. The pairing
//! and scoring are `arbiter-tournament`'s; this service plays the games and feeds back their
//! results. At each heartbeat the server holding the duty `tournaments` drives every running
//! tournament: it reads how each game of the round under way ended, reveals a round's seed
//! once all its games have ended, and pairs the next round (in an arena, the free entrants
//! who are present, as long as the window is open).
//!
//! Every game of a round plays from the round's one server seed, so that luck is the same
//! for every pairing: the same opening, the same dice, the same deal, each pairing playing
//! both seats where the family's default format pairs legs. A game's match is started at
//! once, as if both had accepted, sealed (its seed stays out of its events until the round
//! ends, then the stored match is marked revealed) and with a missing first move lost by
//! forfeit rather than aborted. A round is written, with its games' match ids, before its
//! matches are created, and a game whose match is missing is created again, so a crash in
//! between only delays it.

mod model;

use std::sync::Arc;

use arbiter_fair::ServerSeed;
use arbiter_store::{BotId, BotKind, IdKind, MatchRecord, MatchStatus, TournamentRecord, Write};
use arbiter_tournament::arena::Window;
use arbiter_tournament::event::{Event, Format as EventFormat};
use arbiter_tournament::tables::{self, TableGame};
use arbiter_tournament::{Entrant, Outcome, Pairing, Played};

pub use model::{
    GameEnd, Organiser, Round, RoundGame, RoundTable, Tournament, TournamentEntrant,
    TournamentFormat, TournamentRequest, TournamentStanding, TournamentStatus,
};

use crate::context::Context;
use crate::directory::{Bot, Presence};
use crate::identities::Identities;
use crate::live::{self, SeatChoice, TableTerms, TournamentGame};
use crate::matches::Matches;
use crate::snapshot::MatchResult;
use crate::{ArenaError, Opening};

/// The tournaments service.
pub(crate) struct Tournaments {
    context: Arc<Context>,
    identities: Arc<Identities>,
    matches: Arc<Matches>,
    /// Serialises this process's changes to tournaments; the store lock does it between
    /// servers.
    lock: tokio::sync::Mutex<()>,
}

/// A match to create for a round just paired, once the round is stored.
enum Start {
    /// A game between two, of the round numbered so.
    Game(u32, RoundGame),
    /// A table's game, of the round numbered so.
    Table(u32, RoundTable),
}

/// A change to one tournament, made under its lock.
enum Change {
    Enter(Box<Bot>),
    Withdraw(BotId),
    Start,
    Pause,
    Resume,
}

impl Tournaments {
    pub(crate) fn new(
        context: Arc<Context>,
        identities: Arc<Identities>,
        matches: Arc<Matches>,
    ) -> Tournaments {
        Tournaments {
            context,
            identities,
            matches,
            lock: tokio::sync::Mutex::new(()),
        }
    }

    /// Creates a tournament, open for entries.
    pub(crate) async fn create(
        &self,
        organiser: Organiser,
        request: TournamentRequest,
    ) -> Result<Tournament, ArenaError> {
        let name = request.name.trim();
        if name.is_empty() || name.chars().count() > Tournament::NAME_MAX_CHARS {
            return Err(ArenaError::InvalidRequest(format!(
                "a tournament's name has 1 to {} characters",
                Tournament::NAME_MAX_CHARS
            )));
        }
        if name.chars().any(char::is_control) {
            return Err(ArenaError::InvalidRequest(
                "a tournament's name has no control characters".to_owned(),
            ));
        }
        let mode = self
            .context
            .games
            .mode(&request.game, request.variant.as_deref())?;
        let family = self.context.family(mode.game)?;
        check_format(request.format)?;
        let seats = match request.format {
            TournamentFormat::Tables { seats, .. } => usize::from(seats),
            _ => 2,
        };
        if family
            .variant(mode.variant)
            .is_none_or(|spec| !spec.seats_allowed(seats))
        {
            return Err(ArenaError::UnsupportedVariant(match request.format {
                TournamentFormat::Tables { .. } => format!(
                    "{} {} is not played at tables of {seats}",
                    mode.game, mode.variant
                ),
                _ => format!(
                    "{} {} is not played by two: a tournament of it is played at tables",
                    mode.game, mode.variant
                ),
            }));
        }
        request
            .time_control
            .validate()
            .map_err(ArenaError::InvalidRequest)?;
        let now = self.context.now();
        let tournament = Tournament {
            id: self.context.new_id(IdKind::Tournament).await?,
            name: name.to_owned(),
            game: mode.game.to_owned(),
            variant: mode.variant.to_owned(),
            format: request.format,
            time_control: request.time_control,
            rated: request.rated,
            people: request.people,
            organiser,
            status: TournamentStatus::Open,
            created_ms: now,
            started_ms: None,
            ended_ms: None,
            window: None,
            entrants: Vec::new(),
            event: None,
            arena_played: Vec::new(),
            table_played: Vec::new(),
            rounds: Vec::new(),
        };
        self.context
            .writer
            .write(vec![Write::PutTournament(record_of(&tournament, now)?)])
            .await?;
        tracing::info!(tournament = tournament.id, name, "tournament created");
        Ok(tournament.public())
    }

    /// Every tournament, newest first, as anyone may read them.
    pub(crate) async fn list(&self) -> Result<Vec<Tournament>, ArenaError> {
        let records = self.context.store.tournaments().await?;
        records
            .iter()
            .map(|record| parse(record).map(|t| t.public()))
            .collect()
    }

    /// One tournament, as anyone may read it.
    pub(crate) async fn get(&self, id: i64) -> Result<Tournament, ArenaError> {
        Ok(self.load(id).await?.public())
    }

    /// `bot` enters: a registered bot itself, a person where the organiser allows people.
    pub(crate) async fn enter(&self, bot: &Bot, id: i64) -> Result<Tournament, ArenaError> {
        match bot.kind {
            BotKind::Registered | BotKind::Human => {}
            BotKind::Anonymous => {
                return Err(ArenaError::TournamentRefused(
                    "anonymous bots cannot enter tournaments; register the bot first".to_owned(),
                ));
            }
            BotKind::House => {
                return Err(ArenaError::TournamentRefused(
                    "house bots are entered by the organiser".to_owned(),
                ));
            }
        }
        self.change(id, Change::Enter(Box::new(bot.clone()))).await
    }

    /// The organiser enters the house bot `name`.
    pub(crate) async fn enter_house(
        &self,
        by: Organiser,
        id: i64,
        name: &str,
    ) -> Result<Tournament, ArenaError> {
        let bot = self.identities.find_bot(name)?;
        if bot.kind != BotKind::House {
            return Err(ArenaError::TournamentRefused(format!(
                "{} is not a house bot: bots enter themselves",
                bot.name
            )));
        }
        self.check_organiser(id, by).await?;
        self.change(id, Change::Enter(Box::new(bot))).await
    }

    /// `bot` withdraws from the tournament: it is paired no more, and a game of it under way
    /// here is resigned.
    pub(crate) async fn withdraw(&self, bot: &Bot, id: i64) -> Result<Tournament, ArenaError> {
        self.change(id, Change::Withdraw(bot.id)).await
    }

    /// The organiser withdraws the entrant `name`.
    pub(crate) async fn withdraw_entrant(
        &self,
        by: Organiser,
        id: i64,
        name: &str,
    ) -> Result<Tournament, ArenaError> {
        let bot = self.identities.find_bot(name)?;
        self.check_organiser(id, by).await?;
        self.change(id, Change::Withdraw(bot.id)).await
    }

    /// The organiser starts, pauses or resumes the tournament.
    pub(crate) async fn control(
        &self,
        by: Organiser,
        id: i64,
        action: TournamentAction,
    ) -> Result<Tournament, ArenaError> {
        self.check_organiser(id, by).await?;
        let change = match action {
            TournamentAction::Start => Change::Start,
            TournamentAction::Pause => Change::Pause,
            TournamentAction::Resume => Change::Resume,
        };
        let tournament = self.change(id, change).await?;
        // A started or resumed tournament pairs its next round now, not at the next heartbeat.
        if matches!(action, TournamentAction::Start | TournamentAction::Resume) {
            return self.drive_one(id).await;
        }
        Ok(tournament)
    }

    async fn check_organiser(&self, id: i64, by: Organiser) -> Result<(), ArenaError> {
        let tournament = self.load(id).await?;
        if by == Organiser::Administrator || by == tournament.organiser {
            Ok(())
        } else {
            Err(ArenaError::NotOrganiser)
        }
    }

    /// Applies `change` to the tournament as stored, under its locks, and stores the result.
    async fn change(&self, id: i64, change: Change) -> Result<Tournament, ArenaError> {
        let (tournament, resign) = self
            .locked(id, |t| apply(t, &change, &self.context))
            .await?;
        if let Some((bot, match_id)) = resign
            && let Some(bot) = self.identities.directory.get(bot)
        {
            // The game is the arena's to end; a match another server runs ends there by its
            // clocks, since the withdrawn entrant no longer plays it.
            if let Err(error) = self.matches.resign(&bot, match_id).await {
                tracing::info!(match_id, %error, "a withdrawn entrant's game was not resigned here");
            }
        }
        Ok(tournament.public())
    }

    /// Runs `work` on tournament `id` as stored, under this process's lock and the store's
    /// lock of the tournament, and stores what it leaves if it succeeds.
    async fn locked<R>(
        &self,
        id: i64,
        work: impl FnOnce(&mut Tournament) -> Result<R, ArenaError>,
    ) -> Result<(Tournament, R), ArenaError> {
        let _held = self.lock.lock().await;
        self.context
            .exclusively(&format!("tournament:{id}"), async || {
                let mut tournament = self.load(id).await?;
                let before = tournament.clone();
                let answer = work(&mut tournament)?;
                self.store_changed(&before, &tournament, Vec::new()).await?;
                Ok((tournament, answer))
            })
            .await
    }

    /// Stores `writes`, with the tournament if it differs from what was read.
    async fn store_changed(
        &self,
        before: &Tournament,
        after: &Tournament,
        mut writes: Vec<Write>,
    ) -> Result<(), ArenaError> {
        if after != before {
            writes.push(Write::PutTournament(record_of(after, self.context.now())?));
        }
        if !writes.is_empty() {
            self.context.writer.write(writes).await?;
        }
        Ok(())
    }

    async fn load(&self, id: i64) -> Result<Tournament, ArenaError> {
        let record = self
            .context
            .store
            .tournament(id)
            .await?
            .ok_or(ArenaError::TournamentNotFound(id))?;
        parse(&record)
    }

    /// Drives every running or paused tournament once (see the module's documentation).
    pub(crate) async fn drive(&self) {
        let driven = [
            TournamentStatus::Running.as_str(),
            TournamentStatus::Paused.as_str(),
        ];
        let records = match self.context.store.tournaments_with_status(&driven).await {
            Ok(records) => records,
            Err(error) => {
                tracing::warn!(%error, "cannot read the tournaments");
                return;
            }
        };
        for record in records {
            if let Err(error) = self.drive_one(record.id).await {
                tracing::warn!(tournament = record.id, %error, "cannot drive a tournament");
            }
        }
    }

    /// Drives one tournament: records the games that ended, ends rounds, pairs the next.
    async fn drive_one(&self, id: i64) -> Result<Tournament, ArenaError> {
        let _held = self.lock.lock().await;
        self.context
            .exclusively(&format!("tournament:{id}"), async || {
                let mut tournament = self.load(id).await?;
                let before = tournament.clone();
                let mut writes = Vec::new();
                self.record_results(&mut tournament, &mut writes).await?;
                let to_start = self.pair(&mut tournament).await?;
                self.store_changed(&before, &tournament, writes).await?;
                // The round is stored with its match ids first: a match is created after.
                for start in to_start {
                    match start {
                        Start::Game(number, game) => {
                            self.start_game(&tournament, number, game).await?;
                        }
                        Start::Table(number, table) => {
                            self.start_table(&tournament, number, &table).await?;
                        }
                    }
                }
                Ok(tournament.public())
            })
            .await
    }

    /// Reads how the games under way ended, records their results, ends the rounds whose
    /// games have all ended (revealing their seed in each of their stored matches), and
    /// creates a game's match again where it is missing.
    async fn record_results(
        &self,
        tournament: &mut Tournament,
        writes: &mut Vec<Write>,
    ) -> Result<(), ArenaError> {
        let now = self.context.now();
        for r in 0..tournament.rounds.len() {
            if tournament.rounds[r].ended {
                continue;
            }
            for g in 0..tournament.rounds[r].games.len() {
                let game = tournament.rounds[r].games[g];
                if game.end.is_some() {
                    continue;
                }
                let Some(record) = self.context.store.match_by_id(game.match_id).await? else {
                    let number = tournament.rounds[r].number;
                    self.start_game(tournament, number, game).await?;
                    continue;
                };
                let Some(end) = end_of(&record) else {
                    continue;
                };
                tournament.rounds[r].games[g].end = Some(end);
                note_result(tournament, tournament.rounds[r].number, game, end)?;
            }
            for t in 0..tournament.rounds[r].tables.len() {
                let table = tournament.rounds[r].tables[t].clone();
                if table.ended {
                    continue;
                }
                let number = tournament.rounds[r].number;
                let Some(record) = self.context.store.match_by_id(table.match_id).await? else {
                    self.start_table(tournament, number, &table).await?;
                    continue;
                };
                let Some(places) = places_of(&record, table.seats.len()) else {
                    continue;
                };
                let entry = &mut tournament.rounds[r].tables[t];
                entry.ended = true;
                entry.places.clone_from(&places);
                // A game not played to a result scores nothing, as a void game between two.
                if let Some(places) = places {
                    tournament.table_played.push(TableGame {
                        round: number,
                        seats: table.seats.clone(),
                        places: Some(places),
                    });
                }
            }
            let round = &mut tournament.rounds[r];
            if round.games.iter().all(|game| game.end.is_some())
                && round.tables.iter().all(|table| table.ended)
            {
                round.ended = true;
                let ids: Vec<i64> = round
                    .games
                    .iter()
                    .map(|game| game.match_id)
                    .chain(round.tables.iter().map(|table| table.match_id))
                    .collect();
                for id in ids {
                    if let Some(mut record) = self.context.store.match_by_id(id).await? {
                        record.details["revealed"] = serde_json::Value::Bool(true);
                        writes.push(Write::PutMatch(record));
                    }
                }
            }
        }
        let under_way =
            tournament.live_games().next().is_some() || tournament.live_tables().next().is_some();
        let done = match (&tournament.event, tournament.window, tournament.format) {
            (Some(event), _, _) => event.is_finished(),
            (None, Some(window), _) => !window.is_open(now) && now >= window.starts_ms,
            (None, None, TournamentFormat::Tables { rounds, .. }) => {
                tournament.rounds.len() >= usize::try_from(rounds).unwrap_or(usize::MAX)
            }
            (None, None, _) => false,
        };
        if done && !under_way && tournament.status != TournamentStatus::Finished {
            tournament.status = TournamentStatus::Finished;
            tournament.ended_ms = Some(now);
            tracing::info!(tournament = tournament.id, "tournament finished");
        }
        Ok(())
    }

    /// Pairs the next round if the tournament is running and ready for one; returns the
    /// games whose matches are to be created once the round is stored.
    async fn pair(&self, tournament: &mut Tournament) -> Result<Vec<Start>, ArenaError> {
        if tournament.status != TournamentStatus::Running {
            return Ok(Vec::new());
        }
        let now = self.context.now();
        // Entrants that can no longer play are withdrawn before they are paired.
        for entrant in 0..tournament.entrants.len() {
            let gone = self
                .identities
                .directory
                .get(tournament.entrants[entrant].bot)
                .is_none_or(|bot| !bot.active());
            if gone && !tournament.entrants[entrant].withdrawn {
                withdraw_entrant(tournament, entrant)?;
            }
        }
        let number = u32::try_from(tournament.rounds.len()).unwrap_or(u32::MAX);
        if let TournamentFormat::Tables { rounds, seats } = tournament.format {
            return self.seat_tables(tournament, number, rounds, seats).await;
        }
        let pairings = if let Some(event) = &mut tournament.event {
            if !event.waiting().is_empty() {
                return Ok(Vec::new());
            }
            match event.next_round() {
                Ok(Some(pairings)) => pairings,
                Ok(None) => return Ok(Vec::new()),
                Err(error) => {
                    // Nothing can be paired any more (more Swiss rounds than the entrants
                    // allow once some withdrew): the tournament ends with what was played.
                    tracing::warn!(tournament = tournament.id, %error, "tournament ends early");
                    tournament.status = TournamentStatus::Finished;
                    tournament.ended_ms = Some(now);
                    return Ok(Vec::new());
                }
            }
        } else if let Some(window) = tournament.window {
            let busy: Vec<Entrant> = tournament
                .live_games()
                .flat_map(|(_, game)| [game.first, game.second])
                .collect();
            let free: Vec<Entrant> = (0..tournament.entrants.len())
                .filter(|e| !tournament.entrants[*e].withdrawn && !busy.contains(e))
                .filter(|e| self.present(tournament.entrants[*e].bot, now))
                .collect();
            window.pair(
                now,
                tournament.entrants.len(),
                &free,
                &tournament.arena_played,
            )
        } else {
            Vec::new()
        };
        let games: Vec<(Entrant, Entrant)> = pairings
            .iter()
            .filter_map(|pairing| match *pairing {
                Pairing::Game { first, second } => Some((first, second)),
                Pairing::Bye { .. } => None,
            })
            .collect();
        // A round robin's or Swiss round's byes are scored at once, as are its games against
        // entrants who withdrew; only the games to play are given to play.
        let byes: Vec<Entrant> = tournament
            .event
            .as_ref()
            .map(|event| {
                event
                    .played
                    .iter()
                    .filter(|game| game.round + 1 == event.rounds)
                    .filter_map(|game| match game.pairing {
                        Pairing::Bye { entrant } => Some(entrant),
                        Pairing::Game { .. } => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        if games.is_empty() && byes.is_empty() {
            return Ok(Vec::new());
        }
        let seed = ServerSeed::generate().map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        let mut round = Round {
            number,
            paired_ms: now,
            commitment: seed.commitment().as_hex().to_owned(),
            seed: Some(seed.reveal().to_owned()),
            games: Vec::new(),
            tables: Vec::new(),
            byes,
            ended: games.is_empty(),
        };
        for (first, second) in games {
            round.games.push(RoundGame {
                first,
                second,
                match_id: self.context.new_id(IdKind::Match).await?,
                end: None,
            });
        }
        let to_start = round
            .games
            .iter()
            .map(|game| Start::Game(number, *game))
            .collect();
        tracing::info!(
            tournament = tournament.id,
            round = number,
            games = round.games.len(),
            "round paired"
        );
        tournament.rounds.push(round);
        Ok(to_start)
    }

    /// Whether an arena pairs `bot` now: people and house bots always, bots while connected.
    fn present(&self, bot: BotId, now: i64) -> bool {
        match self.identities.directory.get(bot) {
            Some(found) if matches!(found.kind, BotKind::House | BotKind::Human) => true,
            Some(_) => matches!(
                self.identities.directory.presence(bot, now),
                Presence::Online { .. }
            ),
            None => false,
        }
    }

    /// Creates and starts a game's match, from its round's seed.
    async fn start_game(
        &self,
        tournament: &Tournament,
        number: u32,
        game: RoundGame,
    ) -> Result<(), ArenaError> {
        let bots = self.bots_of(tournament, &[game.first, game.second])?;
        self.start_match(tournament, number, game.match_id, bots)
            .await
    }

    /// Creates and starts a table's match, from its round's seed.
    async fn start_table(
        &self,
        tournament: &Tournament,
        number: u32,
        table: &RoundTable,
    ) -> Result<(), ArenaError> {
        let bots = self.bots_of(tournament, &table.seats)?;
        self.start_match(tournament, number, table.match_id, bots)
            .await
    }

    /// The bots of `entrants`, in their order.
    fn bots_of(
        &self,
        tournament: &Tournament,
        entrants: &[Entrant],
    ) -> Result<Vec<Bot>, ArenaError> {
        entrants
            .iter()
            .map(|&e| {
                let bot = tournament.entrants[e].bot;
                self.identities
                    .directory
                    .get(bot)
                    .ok_or_else(|| ArenaError::BotNotFound(bot.to_string()))
            })
            .collect()
    }

    /// Seats the next round of a tournament at tables, once the last has ended; returns the
    /// tables whose matches are to be created once the round is stored.
    async fn seat_tables(
        &self,
        tournament: &mut Tournament,
        number: u32,
        rounds: u32,
        seats: u8,
    ) -> Result<Vec<Start>, ArenaError> {
        if tournament.rounds.last().is_some_and(|round| !round.ended) || number >= rounds {
            return Ok(Vec::new());
        }
        let now = self.context.now();
        let family = self.context.family(&tournament.game)?;
        let size = usize::from(seats);
        let min = family
            .variant(&tournament.variant)
            .and_then(|spec| (2..=size).find(|&n| spec.seats_allowed(n)))
            .unwrap_or(size);
        let active: Vec<Entrant> = (0..tournament.entrants.len())
            .filter(|&e| !tournament.entrants[e].withdrawn)
            .collect();
        let seating = tables::seat(
            tournament.entrants.len(),
            &active,
            number,
            size,
            min,
            &tournament.table_played,
        );
        if seating.tables.is_empty() {
            // Too few are left to fill a table: the tournament ends with what was played.
            tournament.status = TournamentStatus::Finished;
            tournament.ended_ms = Some(now);
            return Ok(Vec::new());
        }
        let seed = ServerSeed::generate().map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        let mut round = Round {
            number,
            paired_ms: now,
            commitment: seed.commitment().as_hex().to_owned(),
            seed: Some(seed.reveal().to_owned()),
            games: Vec::new(),
            tables: Vec::new(),
            byes: seating.sitting_out.clone(),
            ended: false,
        };
        for seats in seating.tables {
            round.tables.push(RoundTable {
                seats,
                match_id: self.context.new_id(IdKind::Match).await?,
                places: None,
                ended: false,
            });
        }
        for &entrant in &seating.sitting_out {
            tournament.table_played.push(TableGame {
                round: number,
                seats: vec![entrant],
                places: Some(vec![1]),
            });
        }
        tracing::info!(
            tournament = tournament.id,
            round = number,
            tables = round.tables.len(),
            "round seated"
        );
        let to_start = round
            .tables
            .iter()
            .map(|table| Start::Table(number, table.clone()))
            .collect();
        tournament.rounds.push(round);
        Ok(to_start)
    }

    /// Creates and starts a tournament game's match between `bots`, in their seat order,
    /// from round `number`'s seed.
    async fn start_match(
        &self,
        tournament: &Tournament,
        number: u32,
        match_id: i64,
        bots: Vec<Bot>,
    ) -> Result<(), ArenaError> {
        let round = tournament
            .rounds
            .iter()
            .find(|round| round.number == number)
            .ok_or_else(|| ArenaError::Unavailable(format!("no round {number}")))?;
        let seed = ServerSeed::from_revealed(round.seed.as_deref().unwrap_or_default());
        let family = self.context.family(&tournament.game)?;
        // As for a challenge: a practising bot's results must not move ratings, and
        // anonymous bots and people are never rated.
        let rated = tournament.rated
            && bots
                .iter()
                .enumerate()
                .all(|(i, bot)| bots[..i].iter().all(|other| other.id != bot.id))
            && bots.iter().all(|bot| {
                matches!(bot.kind, BotKind::Registered | BotKind::House) && !bot.practising()
            });
        let seat_count = bots.len();
        let setup = live::Setup {
            id: match_id,
            seat_count,
            table: false,
            bots,
            family,
            variant: tournament.variant.clone(),
            format: family.setup.default_format(),
            time_control: tournament.time_control,
            rated,
            auto: false,
            opening: Opening::default(),
            seat: SeatChoice::First,
            created_ms: self.context.now(),
            seed,
            client_seeds: vec![String::new(); seat_count],
            config: self.context.config.clone(),
            terms: TableTerms {
                tournament: Some(TournamentGame {
                    tournament: tournament.id,
                    round: number,
                }),
                sealed: true,
                no_show_forfeits: true,
                ..TableTerms::default()
            },
        };
        self.matches.create(setup, true).await?;
        Ok(())
    }
}

/// What the organiser may do to a tournament's course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentAction {
    /// Start it: entries close (but for an arena's), the first round is paired.
    Start,
    /// Pair no new games until resumed; games under way are played out.
    Pause,
    /// Pair again.
    Resume,
}

/// Refuses a format's impossible bounds.
fn check_format(format: TournamentFormat) -> Result<(), ArenaError> {
    let fine = match format {
        TournamentFormat::RoundRobin { cycles } => {
            (1..=TournamentFormat::MAX_CYCLES).contains(&cycles)
        }
        TournamentFormat::Swiss { rounds } => (1..=TournamentFormat::MAX_ROUNDS).contains(&rounds),
        TournamentFormat::Arena { minutes } => {
            (1..=TournamentFormat::MAX_MINUTES).contains(&minutes)
        }
        TournamentFormat::Tables { rounds, seats } => {
            (1..=TournamentFormat::MAX_ROUNDS).contains(&rounds) && (2..=8).contains(&seats)
        }
    };
    if fine {
        Ok(())
    } else {
        Err(ArenaError::InvalidRequest(format!(
            "a round robin has 1 to {} cycles, a Swiss tournament or one at tables 1 to {} rounds (tables 2 to 8 seats), an arena 1 to {} minutes",
            TournamentFormat::MAX_CYCLES,
            TournamentFormat::MAX_ROUNDS,
            TournamentFormat::MAX_MINUTES
        )))
    }
}

/// Applies a change to a tournament; returns a game to resign for a withdrawn entrant.
fn apply(
    tournament: &mut Tournament,
    change: &Change,
    context: &Context,
) -> Result<Option<(BotId, i64)>, ArenaError> {
    let refused = |why: &str| Err(ArenaError::TournamentRefused(why.to_owned()));
    let arena = matches!(tournament.format, TournamentFormat::Arena { .. });
    match change {
        Change::Enter(bot) => {
            let late = arena && tournament.status != TournamentStatus::Finished;
            if tournament.status != TournamentStatus::Open && !late {
                return refused("the tournament takes no more entries");
            }
            if bot.kind == BotKind::Human && !tournament.people {
                return refused("this tournament is for bots only");
            }
            if !bot.active() {
                return Err(ArenaError::BotUnavailable(bot.name.clone()));
            }
            if tournament.entrant_of(bot.id).is_some() {
                return refused("already entered");
            }
            let key = format!("{}:{}", tournament.game, tournament.variant);
            if bot.kind != BotKind::Human && !(bot.offers(&key) && bot.engine_plays(&key)) {
                return Err(ArenaError::UnsupportedVariant(format!(
                    "{} does not play {key}",
                    bot.name
                )));
            }
            tournament.entrants.push(TournamentEntrant {
                bot: bot.id,
                name: bot.name.clone(),
                kind: bot.kind,
                withdrawn: false,
            });
            Ok(None)
        }
        Change::Withdraw(bot) => {
            let Some(entrant) = tournament.entrant_of(*bot) else {
                return refused("not entered");
            };
            if tournament.entrants[entrant].withdrawn {
                return refused("already withdrawn");
            }
            if tournament.status == TournamentStatus::Finished {
                return refused("the tournament has finished");
            }
            if tournament.status == TournamentStatus::Open {
                // Before the start an entry is simply taken back.
                tournament.entrants.remove(entrant);
                return Ok(None);
            }
            let playing = tournament
                .live_games()
                .find(|(_, game)| game.first == entrant || game.second == entrant)
                .map(|(_, game)| game.match_id)
                .or_else(|| {
                    tournament
                        .live_tables()
                        .find(|(_, table)| table.seats.contains(&entrant))
                        .map(|(_, table)| table.match_id)
                });
            withdraw_entrant(tournament, entrant)?;
            Ok(playing.map(|id| (*bot, id)))
        }
        Change::Start => {
            if tournament.status != TournamentStatus::Open {
                return refused("the tournament has already started");
            }
            let count = tournament.entrants.len();
            if count < 2 {
                return refused("a tournament needs at least two entrants to start");
            }
            let now = context.now();
            match tournament.format {
                TournamentFormat::RoundRobin { cycles } => {
                    tournament.event = Some(
                        Event::new(EventFormat::RoundRobin { cycles }, count)
                            .map_err(|e| ArenaError::TournamentRefused(e.to_string()))?,
                    );
                }
                TournamentFormat::Swiss { rounds } => {
                    if usize::try_from(rounds).unwrap_or(usize::MAX) >= count {
                        return Err(ArenaError::TournamentRefused(format!(
                            "{rounds} Swiss rounds need at least {} entrants, so that nobody meets anyone twice",
                            rounds + 1
                        )));
                    }
                    tournament.event = Some(
                        Event::new(EventFormat::Swiss { rounds }, count)
                            .map_err(|e| ArenaError::TournamentRefused(e.to_string()))?,
                    );
                }
                TournamentFormat::Arena { minutes } => {
                    tournament.window = Some(Window {
                        starts_ms: now,
                        ends_ms: now + i64::from(minutes) * 60_000,
                    });
                }
                // Its rounds are seated one by one as they come.
                TournamentFormat::Tables { seats, .. } => {
                    let family = context.family(&tournament.game)?;
                    let min = family
                        .variant(&tournament.variant)
                        .and_then(|spec| (2..=usize::from(seats)).find(|&n| spec.seats_allowed(n)))
                        .unwrap_or(usize::from(seats));
                    if count < min {
                        return Err(ArenaError::TournamentRefused(format!(
                            "a table of {} {} seats at least {min}",
                            tournament.game, tournament.variant
                        )));
                    }
                }
            }
            tournament.status = TournamentStatus::Running;
            tournament.started_ms = Some(now);
            Ok(None)
        }
        Change::Pause => {
            if tournament.status != TournamentStatus::Running {
                return refused("only a running tournament can be paused");
            }
            tournament.status = TournamentStatus::Paused;
            Ok(None)
        }
        Change::Resume => {
            if tournament.status != TournamentStatus::Paused {
                return refused("only a paused tournament can be resumed");
            }
            tournament.status = TournamentStatus::Running;
            Ok(None)
        }
    }
}

/// Marks an entrant withdrawn, and tells a round robin or Swiss tournament.
fn withdraw_entrant(tournament: &mut Tournament, entrant: Entrant) -> Result<(), ArenaError> {
    tournament.entrants[entrant].withdrawn = true;
    if let Some(event) = &mut tournament.event {
        event
            .withdraw(entrant)
            .map_err(|e| ArenaError::TournamentRefused(e.to_string()))?;
    }
    Ok(())
}

/// Records a game's end in the tournament's results.
fn note_result(
    tournament: &mut Tournament,
    round: u32,
    game: RoundGame,
    end: GameEnd,
) -> Result<(), ArenaError> {
    let pairing = Pairing::Game {
        first: game.first,
        second: game.second,
    };
    let broken = |e: arbiter_tournament::event::EventError| ArenaError::Unavailable(e.to_string());
    match (&mut tournament.event, end) {
        (Some(event), GameEnd::Played(outcome)) => event.record(pairing, outcome).map_err(broken),
        (Some(event), GameEnd::Void) => event.void(pairing).map_err(broken),
        (None, GameEnd::Played(outcome)) => {
            tournament.arena_played.push(Played {
                round,
                pairing,
                outcome: Some(outcome),
            });
            Ok(())
        }
        (None, GameEnd::Void) => Ok(()),
    }
}

/// How a stored match ended for its tournament: `None` while it is open.
fn end_of(record: &MatchRecord) -> Option<GameEnd> {
    if record.status.is_open() {
        return None;
    }
    if record.status != MatchStatus::Finished {
        return Some(GameEnd::Void);
    }
    let result: Option<MatchResult> = serde_json::from_value(record.details["result"].clone()).ok();
    let Some(ranking) = result.and_then(|result| result.ranking) else {
        return Some(GameEnd::Void);
    };
    let places = ranking.places(2);
    Some(GameEnd::Played(match places[0].cmp(&places[1]) {
        std::cmp::Ordering::Less => Outcome::FirstWon,
        std::cmp::Ordering::Equal => Outcome::Draw,
        std::cmp::Ordering::Greater => Outcome::SecondWon,
    }))
}

/// Each seat's place in a stored match of `seats` that ended: `None` while it is open,
/// `Some(None)` for one not played to a result.
fn places_of(record: &MatchRecord, seats: usize) -> Option<Option<Vec<u8>>> {
    if record.status.is_open() {
        return None;
    }
    if record.status != MatchStatus::Finished {
        return Some(None);
    }
    let result: Option<MatchResult> = serde_json::from_value(record.details["result"].clone()).ok();
    Some(
        result
            .and_then(|result| result.ranking)
            .map(|ranking| ranking.places(seats)),
    )
}

fn record_of(tournament: &Tournament, now: i64) -> Result<TournamentRecord, ArenaError> {
    Ok(TournamentRecord {
        id: tournament.id,
        status: tournament.status.as_str().to_owned(),
        created_ms: tournament.created_ms,
        updated_ms: now,
        data: serde_json::to_value(tournament)
            .map_err(|e| ArenaError::Unavailable(e.to_string()))?,
    })
}

fn parse(record: &TournamentRecord) -> Result<Tournament, ArenaError> {
    serde_json::from_value(record.data.clone())
        .map_err(|e| ArenaError::Unavailable(format!("tournament {}: {e}", record.id)))
}
