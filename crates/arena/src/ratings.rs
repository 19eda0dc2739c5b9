//! Ratings: every bot's rating in every game mode, kept in memory, changed only together with
//! the match result that changes it, and the standings, leaderboards and per-bot ratings read
//! from them. Among servers sharing a store, a mode's results are rated one at a time across
//! them all, each from the ratings as stored, and the others read the changed ones again.

use std::collections::HashMap;
use std::sync::Arc;

use arbiter_rating::{Rating, RatingConfig, RatingSystem, rate_match};
use arbiter_store::{BotId, RatingRecord, Write};
use serde_json::{Value, json};

use crate::ArenaError;
use crate::cluster;
use crate::context::Context;
use crate::directory::{Bot, Directory};
use crate::snapshot::{Ranking, RatingChange};

/// One line of a leaderboard.
#[derive(Clone, Debug)]
pub struct Standing {
    /// The place, 1 for the best.
    pub rank: usize,
    /// The bot.
    pub bot: Bot,
    /// Its rating in the leaderboard's game mode.
    pub rating: arbiter_rating::Rating,
    /// Whether it has played too few rated games for the rating to be official.
    pub provisional: bool,
}

/// A bot's record summed over several game modes: the rated games it played there, and how
/// many it won, lost and drew.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Rated games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

impl Tally {
    fn add(&mut self, rating: &Rating) {
        self.games += rating.games;
        self.wins += rating.wins;
        self.losses += rating.losses;
        self.draws += rating.draws;
    }
}

/// Whether a mode key (`game:variant`) is one of `games`' modes.
fn in_games(mode: &str, games: &[&str]) -> bool {
    mode.split_once(':')
        .is_some_and(|(game, _)| games.contains(&game))
}

/// The ratings, by bot and game mode.
pub(crate) struct Ratings {
    /// For the game modes there are.
    context: Arc<Context>,
    /// For the bots a leaderboard shows.
    directory: Arc<Directory>,
    config: RatingConfig,
    table: tokio::sync::Mutex<HashMap<(BotId, String), Rating>>,
}

/// A rated result about to be stored: the writes, and the change as the result shows it.
pub(crate) struct Change {
    pub(crate) writes: Vec<Write>,
    pub(crate) summary: RatingChange,
}

impl Ratings {
    /// The ratings as stored; a record that cannot be read starts over from a new rating,
    /// with a warning, rather than keeping the server from starting.
    pub(crate) fn load(
        context: Arc<Context>,
        directory: Arc<Directory>,
        records: Vec<RatingRecord>,
    ) -> Ratings {
        let config = RatingConfig::default();
        let table = records
            .into_iter()
            .filter_map(|record| match serde_json::from_value(record.rating) {
                Ok(rating) => Some(((record.bot, record.mode), rating)),
                Err(error) => {
                    tracing::warn!(bot = record.bot, mode = %record.mode, %error, "unreadable rating ignored");
                    None
                }
            })
            .collect();
        Ratings {
            context,
            directory,
            config,
            table: tokio::sync::Mutex::new(table),
        }
    }

    /// How the results of `mode` (`game:variant`) are rated: by Weng-Lin where its variant
    /// seats more than two, else by Glicko-2.
    pub(crate) fn system(&self, mode: &str) -> RatingSystem {
        let games = &self.context.games;
        let max_seats = games
            .mode_of_key(mode)
            .ok()
            .and_then(|mode| games.get(mode.game)?.variant(mode.variant))
            .map_or(2, |variant| usize::from(variant.max_seats));
        RatingSystem::for_seats(max_seats)
    }

    /// A rating as the API shows it: a Glicko-2 rating with its volatility, a Weng-Lin one
    /// without (it has none).
    pub(crate) fn view(&self, rating: &Rating) -> Value {
        let mut view = json!({
            "system": rating.system.name(),
            "rating": round(rating.rating),
            "deviation": round(rating.deviation),
            "games": rating.games,
            "wins": rating.wins,
            "losses": rating.losses,
            "draws": rating.draws,
            "high": round(rating.high),
            "streak": rating.streak,
            "best_streak": rating.best_streak,
            "provisional": rating.provisional(&self.config),
            "official_progress": {
                "games": rating.official_progress(&self.config),
                "needed": self.config.provisional_games,
            },
        });
        if rating.system == RatingSystem::Glicko2 {
            view["volatility"] = json!((rating.volatility * 1e6).round() / 1e6);
        }
        view
    }

    /// Whether `rating` is still provisional.
    pub(crate) fn provisional(&self, rating: &Rating) -> bool {
        rating.provisional(&self.config)
    }

    /// Rates one finished match of `bots` (every participant, in order, each a different bot)
    /// in `mode` from its `ranking`, and stores it with `store`, which must write the returned
    /// writes in the same batch as the result itself. The table is locked meanwhile, so that
    /// two results of the same bot are rated one after the other, and changes only if the
    /// store succeeds.
    ///
    /// Among servers sharing the store, results of one mode are rated one at a time across
    /// all of them: the server holds the mode's rating duty in the store while it reads the
    /// bots' ratings again, rates and stores the result, then lets it go and tells the others
    /// to read the new ratings. No rating is computed from a stale copy, so none is lost.
    pub(crate) async fn apply(
        &self,
        bots: &[BotId],
        mode: &str,
        ranking: &Ranking,
        now_ms: i64,
        store: impl AsyncFnOnce(Change) -> Result<(), ArenaError>,
    ) -> Result<(), ArenaError> {
        let system = self.system(mode);
        let mut table = self.table.lock().await;
        let shared = self.context.config.bus.is_shared();
        let rated = self
            .context
            .exclusively(&format!("rating:{mode}"), async || {
                if shared {
                    // Another server may have rated these bots since: read them again.
                    for &bot in bots {
                        self.read_into(&mut table, bot).await?;
                    }
                }
                let current: Vec<Rating> = bots
                    .iter()
                    .map(|&bot| {
                        table
                            .get(&(bot, mode.to_owned()))
                            .cloned()
                            .unwrap_or_else(|| Rating::new_in(system, &self.config))
                    })
                    .collect();
                let after = rate_match(
                    system,
                    &current,
                    &ranking.places(bots.len()),
                    ranking.teams.as_deref(),
                    &self.config,
                );
                let writes = bots
                    .iter()
                    .zip(&after)
                    .map(|(&bot, rating)| {
                        Write::PutRating(RatingRecord {
                            bot,
                            mode: mode.to_owned(),
                            rating: json!(rating),
                            updated_ms: now_ms,
                        })
                    })
                    .collect();
                let summary = RatingChange {
                    mode: mode.to_owned(),
                    rating_before: current.iter().map(|r| round(r.rating)).collect(),
                    rating_after: after.iter().map(|r| round(r.rating)).collect(),
                };
                let kept: Vec<(BotId, Rating)> = bots.iter().copied().zip(after).collect();
                store(Change { writes, summary }).await?;
                Ok(kept)
            })
            .await?;
        for (bot, rating) in rated {
            table.insert((bot, mode.to_owned()), rating);
        }
        drop(table);
        if shared {
            for &bot in bots {
                cluster::announce_rating(&self.context, bot).await;
            }
        }
        Ok(())
    }

    /// Reads `bot`'s ratings again from the store into `table`.
    async fn read_into(
        &self,
        table: &mut HashMap<(BotId, String), Rating>,
        bot: BotId,
    ) -> Result<(), ArenaError> {
        let records = self.context.store.ratings_of(bot).await?;
        table.retain(|(b, _), _| *b != bot);
        for record in records {
            match serde_json::from_value(record.rating) {
                Ok(rating) => {
                    table.insert((bot, record.mode), rating);
                }
                Err(error) => {
                    tracing::warn!(bot, mode = %record.mode, %error, "unreadable rating ignored");
                }
            }
        }
        Ok(())
    }

    /// Reads `bot`'s ratings again from the store: another server changed them.
    pub(crate) async fn reload(&self, bot: BotId) -> Result<(), ArenaError> {
        let mut table = self.table.lock().await;
        self.read_into(&mut table, bot).await
    }

    /// A bot's rating number in `mode` (a new bot's until it has played there).
    pub(crate) async fn rating(&self, bot: BotId, mode: &str) -> f64 {
        self.table
            .lock()
            .await
            .get(&(bot, mode.to_owned()))
            .map_or(self.config.initial_rating, |rating| rating.rating)
    }

    /// Every bot's rating in `mode`, best first.
    async fn board(&self, mode: &str) -> Vec<(BotId, Rating)> {
        let table = self.table.lock().await;
        let mut board: Vec<(BotId, Rating)> = table
            .iter()
            .filter(|((_, m), _)| m == mode)
            .map(|((bot, _), rating)| (*bot, rating.clone()))
            .collect();
        board.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then(a.0.cmp(&b.0)));
        board
    }

    /// One bot's ratings in every mode it has played.
    async fn of(&self, bot: BotId) -> Vec<(String, Rating)> {
        let table = self.table.lock().await;
        let mut ratings: Vec<(String, Rating)> = table
            .iter()
            .filter(|((b, _), _)| *b == bot)
            .map(|((_, mode), rating)| (mode.clone(), rating.clone()))
            .collect();
        ratings.sort_by(|a, b| a.0.cmp(&b.0));
        ratings
    }

    /// Every bot's rating in a game mode, best first, deleted bots left out. An unknown game
    /// or variant is refused rather than answered with an empty board.
    pub(crate) async fn standings(
        &self,
        game: &str,
        variant: &str,
    ) -> Result<Vec<Standing>, ArenaError> {
        let mode = self
            .context
            .games
            .mode(game, Some(variant))
            .map_err(|e| ArenaError::InvalidRequest(e.0))?
            .to_string();
        let board = self.board(&mode).await;
        Ok(board
            .into_iter()
            .filter_map(|(id, rating)| {
                let bot = self.directory.get(id).filter(|b| !b.deleted)?;
                Some((bot, rating))
            })
            .enumerate()
            .map(|(i, (bot, rating))| Standing {
                rank: i + 1,
                provisional: self.provisional(&rating),
                bot,
                rating,
            })
            .collect())
    }

    /// The leaderboard of a game mode as the API shows it: `{"mode", "system", "entries"}`,
    /// each entry a rating with its `bot` and `rank`.
    pub(crate) async fn leaderboard(&self, game: &str, variant: &str) -> Result<Value, ArenaError> {
        let entries: Vec<Value> = self
            .standings(game, variant)
            .await?
            .iter()
            .map(|standing| {
                let bot = &standing.bot;
                let mut entry = self.view(&standing.rating);
                entry["bot"] = json!({"id": bot.id, "name": bot.name, "kind": bot.kind});
                entry["rank"] = json!(standing.rank);
                entry
            })
            .collect();
        let mode = format!("{game}:{variant}");
        let system = self.system(&mode).name();
        Ok(json!({"mode": mode, "system": system, "entries": entries}))
    }

    /// Every bot's record summed over the modes of `games`, for the bots rated in any of
    /// them.
    pub(crate) async fn tallies(&self, games: &[&str]) -> HashMap<BotId, Tally> {
        let table = self.table.lock().await;
        let mut tallies: HashMap<BotId, Tally> = HashMap::new();
        for ((bot, mode), rating) in table.iter() {
            if in_games(mode, games) {
                tallies.entry(*bot).or_default().add(rating);
            }
        }
        tallies
    }

    /// One bot's record summed over the modes of `games` (all zero where it has not played).
    pub(crate) async fn tally_of(&self, bot: BotId, games: &[&str]) -> Tally {
        let mut tally = Tally::default();
        for (mode, rating) in self.of(bot).await {
            if in_games(&mode, games) {
                tally.add(&rating);
            }
        }
        tally
    }

    /// A bot's ratings, by game mode (`game:variant`), in the modes it has been rated in.
    pub(crate) async fn ratings_of(&self, bot: BotId) -> Value {
        let mut out = serde_json::Map::new();
        for (mode, rating) in self.of(bot).await {
            out.insert(mode, self.view(&rating));
        }
        Value::Object(out)
    }
}

/// Ratings are shown to two decimals.
fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_sums_the_modes_of_the_games_asked_for() {
        let config = RatingConfig::default();
        let record = |games, wins, losses, draws| Rating {
            games,
            wins,
            losses,
            draws,
            ..Rating::new(&config)
        };
        let ratings = [
            ("alpha:one", record(3, 2, 1, 0)),
            ("alpha:two", record(4, 1, 1, 2)),
            ("beta:one", record(9, 9, 0, 0)),
            ("alphabet:one", record(5, 5, 0, 0)),
        ];
        let mut tally = Tally::default();
        for (mode, rating) in &ratings {
            if in_games(mode, &["alpha"]) {
                tally.add(rating);
            }
        }
        assert_eq!(
            tally,
            Tally {
                games: 7,
                wins: 3,
                losses: 2,
                draws: 2
            }
        );
        assert!(in_games("beta:one", &["alpha", "beta"]));
        assert!(
            !in_games("alpha", &["alpha"]),
            "a key without a variant is no mode"
        );
    }
}
