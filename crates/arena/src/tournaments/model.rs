//! What a tournament is, as stored and as read: its terms, entrants, rounds with their sealed
//! seeds, and the standings and crosstable computed from its results.

use arbiter_store::{AccountId, BotId, BotKind, MatchId};
use arbiter_tournament::arena::{Window, ranking, scores};
use arbiter_tournament::event::Event;
use arbiter_tournament::standings::{crosstable, standings};
use arbiter_tournament::tables::{self, TableGame};
use arbiter_tournament::{Entrant, Outcome, Played};
use serde::{Deserialize, Serialize};

use crate::config::TimeControl;

/// How a tournament pairs its entrants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TournamentFormat {
    /// Everyone meets everyone, once a cycle (2: twice, seats swapped).
    RoundRobin {
        /// Cycles, 1 or 2.
        cycles: u8,
    },
    /// A fixed number of Swiss rounds: no repeat pairings, balanced seats, byes.
    Swiss {
        /// Rounds, at least 1 and fewer than the entrants.
        rounds: u32,
    },
    /// A time window in which free entrants are paired as soon as they are free: a win 2, a
    /// draw 1, a loss 0, doubled after two wins in a row.
    Arena {
        /// The window's length from the start, in minutes.
        minutes: u32,
    },
    /// Rounds of games for more than two: each round seats the entrants at tables of up to
    /// `seats` by points, and each seat scores by its place, 1 for first down to 0 for last.
    Tables {
        /// Rounds.
        rounds: u32,
        /// The most seats at a table; tables are as even as the entrants allow.
        seats: u8,
    },
}

impl TournamentFormat {
    /// The most cycles of a round robin.
    pub const MAX_CYCLES: u8 = 2;
    /// The most rounds of a Swiss tournament.
    pub const MAX_ROUNDS: u32 = 50;
    /// The longest arena, in minutes (a day).
    pub const MAX_MINUTES: u32 = 24 * 60;

    /// The format's name as pages show it.
    pub fn describe(&self) -> String {
        match self {
            TournamentFormat::RoundRobin { cycles: 1 } => "round robin".to_owned(),
            TournamentFormat::RoundRobin { .. } => "double round robin".to_owned(),
            TournamentFormat::Swiss { rounds } => format!("Swiss, {rounds} rounds"),
            TournamentFormat::Arena { minutes } => format!("arena, {minutes} minutes"),
            TournamentFormat::Tables { rounds: 1, seats } => {
                format!("1 round at tables of up to {seats}")
            }
            TournamentFormat::Tables { rounds, seats } => {
                format!("{rounds} rounds at tables of up to {seats}")
            }
        }
    }
}

/// Who runs a tournament: may start, pause and resume it, and enter house bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Organiser {
    /// The server's administrator, who may also run every other tournament.
    Administrator,
    /// A signed-in person's account.
    Account {
        /// The account.
        id: AccountId,
    },
}

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Taking entries; not started.
    Open,
    /// Pairing and playing.
    Running,
    /// Games under way are played out, but no new ones are paired.
    Paused,
    /// Every game is played.
    Finished,
}

impl TournamentStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Open => "open",
            TournamentStatus::Running => "running",
            TournamentStatus::Paused => "paused",
            TournamentStatus::Finished => "finished",
        }
    }
}

/// What a tournament is created with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRequest {
    /// Its name, 1 to [`Tournament::NAME_MAX_CHARS`] characters.
    pub name: String,
    /// The game, one of the registered families; it must be playable by two.
    pub game: String,
    /// The variant; the game's default when `None`.
    pub variant: Option<String>,
    /// How entrants are paired.
    pub format: TournamentFormat,
    /// Every game's clocks.
    pub time_control: TimeControl,
    /// Whether its games count for ratings (only those between registered bots that are not
    /// practising).
    pub rated: bool,
    /// Whether people may enter as well as bots.
    pub people: bool,
}

/// One entrant, in seeding order (the order of entry).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentEntrant {
    /// The bot (or person) entered.
    pub bot: BotId,
    /// Its name when it entered.
    pub name: String,
    /// What kind of participant it is.
    pub kind: BotKind,
    /// Whether it has withdrawn: it is paired no more.
    pub withdrawn: bool,
}

/// How a round's game ended for the tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// Played to a result.
    Played(Outcome),
    /// Not played to a result (aborted): it counts for neither entrant.
    Void,
}

/// One game of a round: a match between two entrants, the first in the first seat of the
/// match's first leg.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundGame {
    /// The first seat's entrant.
    pub first: Entrant,
    /// The second seat's entrant.
    pub second: Entrant,
    /// The match, its id chosen when the round was paired.
    pub match_id: MatchId,
    /// How it ended, once it has.
    pub end: Option<GameEnd>,
}

/// One table's game of a round, in a tournament of games for more than two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundTable {
    /// The entrants in seat order.
    pub seats: Vec<Entrant>,
    /// The match, its id chosen when the round was seated.
    pub match_id: MatchId,
    /// Each seat's place once the game has ended (1 first); `None` while it is played, or for
    /// a game not played to a result, which scores nothing.
    pub places: Option<Vec<u8>>,
    /// Whether the game has ended.
    pub ended: bool,
}

/// A round (in an arena, a wave of pairings made at one moment): its games all play from one
/// server seed, committed when the round is paired and revealed once every game has ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// The round's number, from 0.
    pub number: u32,
    /// When it was paired, milliseconds since the Unix epoch.
    pub paired_ms: i64,
    /// The commitment to its seed, which every game of the round publishes.
    pub commitment: String,
    /// The seed, which is stored but never shown before the round has ended.
    pub seed: Option<String>,
    /// Its games between two.
    pub games: Vec<RoundGame>,
    /// Its tables, in a tournament of games for more than two.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<RoundTable>,
    /// Entrants who sit the round out with a bye's point (at tables, an average place's).
    pub byes: Vec<Entrant>,
    /// Whether every game has ended (and the seed may be shown).
    pub ended: bool,
}

/// A tournament: its terms, entrants, rounds and results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tournament {
    /// Identifier.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The game.
    pub game: String,
    /// The variant.
    pub variant: String,
    /// How entrants are paired.
    pub format: TournamentFormat,
    /// Every game's clocks.
    pub time_control: TimeControl,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether people may enter.
    pub people: bool,
    /// Who runs it.
    pub organiser: Organiser,
    /// Where it is in its life.
    pub status: TournamentStatus,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When it started.
    pub started_ms: Option<i64>,
    /// When its last game ended.
    pub ended_ms: Option<i64>,
    /// An arena's window, fixed when it starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// The entrants in seeding order.
    pub entrants: Vec<TournamentEntrant>,
    /// A round robin's or Swiss tournament's pairings and results, once it has started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Event>,
    /// An arena's results, in the order its games ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arena_played: Vec<Played>,
    /// A tournament at tables: every table's game (and every round sat out) with its places.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_played: Vec<TableGame>,
    /// The rounds paired so far.
    pub rounds: Vec<Round>,
}

/// One line of a tournament's standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TournamentStanding {
    /// Place, 1 for first; entrants level on every tie-break share it.
    pub rank: usize,
    /// The entrant's number in seeding order.
    pub entrant: Entrant,
    /// The bot.
    pub bot: BotId,
    /// Its name.
    pub name: String,
    /// Points: a win 1, a draw ½, a bye 1; in an arena, its arena points.
    pub points: f64,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Byes had.
    pub byes: u32,
    /// Buchholz: the sum of its opponents' points (not in an arena).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buchholz: Option<f64>,
    /// Sonneborn–Berger (not in an arena).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sonneborn_berger: Option<f64>,
    /// In an arena, whether its wins score double now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_fire: Option<bool>,
    /// Whether it has withdrawn.
    pub withdrawn: bool,
}

impl Tournament {
    /// The longest name, in characters.
    pub const NAME_MAX_CHARS: usize = 64;

    /// Its results so far.
    pub fn played(&self) -> &[Played] {
        match &self.event {
            Some(event) => &event.played,
            None => &self.arena_played,
        }
    }

    /// The entrant `bot` is, if it entered.
    pub fn entrant_of(&self, bot: BotId) -> Option<Entrant> {
        self.entrants.iter().position(|entrant| entrant.bot == bot)
    }

    /// The standings after the games ended so far, best first.
    pub fn standings(&self) -> Vec<TournamentStanding> {
        let count = self.entrants.len();
        let played = self.played();
        let base = standings(count, played);
        let line = |rank: usize, entrant: Entrant| {
            let entry = &self.entrants[entrant];
            let standing = base.iter().find(|s| s.entrant == entrant);
            TournamentStanding {
                rank,
                entrant,
                bot: entry.bot,
                name: entry.name.clone(),
                points: standing.map_or(0.0, |s| s.points),
                games: standing.map_or(0, |s| s.games),
                wins: standing.map_or(0, |s| s.wins),
                draws: standing.map_or(0, |s| s.draws),
                losses: standing.map_or(0, |s| s.losses),
                byes: standing.map_or(0, |s| s.byes),
                buchholz: standing.map(|s| s.buchholz),
                sonneborn_berger: standing.map(|s| s.sonneborn_berger),
                on_fire: None,
                withdrawn: entry.withdrawn,
            }
        };
        if matches!(self.format, TournamentFormat::Tables { .. }) {
            return self.table_standings();
        }
        if !matches!(self.format, TournamentFormat::Arena { .. }) {
            return base.iter().map(|s| line(s.rank, s.entrant)).collect();
        }
        let arena = scores(count, played);
        let order = ranking(&arena);
        let mut lines: Vec<TournamentStanding> = Vec::with_capacity(count);
        for (place, &entrant) in order.iter().enumerate() {
            let score = arena[entrant];
            // Entrants level on points, wins and games share a place.
            let rank = match lines.last() {
                Some(last)
                    if arena[last.entrant].points == score.points
                        && arena[last.entrant].wins == score.wins
                        && arena[last.entrant].games == score.games =>
                {
                    last.rank
                }
                _ => place + 1,
            };
            let mut standing = line(rank, entrant);
            standing.points = f64::from(score.points);
            standing.buchholz = None;
            standing.sonneborn_berger = None;
            standing.on_fire = Some(score.on_fire());
            lines.push(standing);
        }
        lines
    }

    /// A tournament at tables ranked by points, then first places, then seeding; entrants
    /// level on both share a place. A game counts as won for a first place, shared or not.
    fn table_standings(&self) -> Vec<TournamentStanding> {
        let count = self.entrants.len();
        let points = tables::points(count, &self.table_played);
        let mut lines: Vec<TournamentStanding> = (0..count)
            .map(|entrant| {
                let mut games = 0;
                let mut wins = 0;
                let mut byes = 0;
                for game in &self.table_played {
                    let Some(seat) = game.seats.iter().position(|&e| e == entrant) else {
                        continue;
                    };
                    if game.is_sit_out() {
                        byes += 1;
                    } else if let Some(places) = &game.places {
                        games += 1;
                        wins += u32::from(places[seat] == 1);
                    }
                }
                let entry = &self.entrants[entrant];
                TournamentStanding {
                    rank: 0,
                    entrant,
                    bot: entry.bot,
                    name: entry.name.clone(),
                    points: points[entrant],
                    games,
                    wins,
                    draws: 0,
                    losses: games - wins,
                    byes,
                    buchholz: None,
                    sonneborn_berger: None,
                    on_fire: None,
                    withdrawn: entry.withdrawn,
                }
            })
            .collect();
        lines.sort_by(|a, b| {
            b.points
                .total_cmp(&a.points)
                .then(b.wins.cmp(&a.wins))
                .then(a.entrant.cmp(&b.entrant))
        });
        for place in 0..lines.len() {
            lines[place].rank = match place.checked_sub(1).map(|p| &lines[p]) {
                Some(above)
                    if above.points == lines[place].points && above.wins == lines[place].wins =>
                {
                    above.rank
                }
                _ => place + 1,
            };
        }
        lines
    }

    /// The crosstable: for each entrant (seeding order) and each opponent, the halves of a
    /// point it scored in each of their games (a win 2, a draw 1, a loss 0); empty for a
    /// tournament at tables, whose games are not between two.
    pub fn crosstable(&self) -> Vec<Vec<Vec<u32>>> {
        if matches!(self.format, TournamentFormat::Tables { .. }) {
            return Vec::new();
        }
        crosstable(self.entrants.len(), self.played())
    }

    /// The tables under way, with their round.
    pub fn live_tables(&self) -> impl Iterator<Item = (u32, &RoundTable)> {
        self.rounds.iter().flat_map(|round| {
            round
                .tables
                .iter()
                .filter(|table| !table.ended)
                .map(move |table| (round.number, table))
        })
    }

    /// The games under way.
    pub fn live_games(&self) -> impl Iterator<Item = (u32, &RoundGame)> {
        self.rounds.iter().flat_map(|round| {
            round
                .games
                .iter()
                .filter(|game| game.end.is_none())
                .map(move |game| (round.number, game))
        })
    }

    /// The tournament as anyone may read it: the seeds of rounds still under way left out.
    pub fn public(&self) -> Tournament {
        let mut public = self.clone();
        for round in &mut public.rounds {
            if !round.ended {
                round.seed = None;
            }
        }
        public
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_tournament::Pairing;

    fn entrant(bot: BotId) -> TournamentEntrant {
        TournamentEntrant {
            bot,
            name: format!("bot{bot}"),
            kind: BotKind::Registered,
            withdrawn: false,
        }
    }

    fn tournament(format: TournamentFormat) -> Tournament {
        Tournament {
            id: 1,
            name: "Test".to_owned(),
            game: "some-game".to_owned(),
            variant: "some-variant".to_owned(),
            format,
            time_control: TimeControl::default(),
            rated: false,
            people: false,
            organiser: Organiser::Administrator,
            status: TournamentStatus::Running,
            created_ms: 0,
            started_ms: Some(0),
            ended_ms: None,
            window: None,
            entrants: (1..=3).map(entrant).collect(),
            event: None,
            arena_played: Vec::new(),
            table_played: Vec::new(),
            rounds: vec![Round {
                number: 0,
                paired_ms: 0,
                commitment: "c".to_owned(),
                seed: Some("secret".to_owned()),
                games: vec![RoundGame {
                    first: 0,
                    second: 1,
                    match_id: 7,
                    end: None,
                }],
                tables: Vec::new(),
                byes: vec![2],
                ended: false,
            }],
        }
    }

    #[test]
    fn the_public_form_keeps_a_round_s_seed_until_it_ends() {
        let mut t = tournament(TournamentFormat::Swiss { rounds: 2 });
        assert_eq!(t.public().rounds[0].seed, None);
        t.rounds[0].ended = true;
        assert_eq!(t.public().rounds[0].seed.as_deref(), Some("secret"));
    }

    #[test]
    fn an_arena_ranks_by_arena_points_with_streaks() {
        let mut t = tournament(TournamentFormat::Arena { minutes: 10 });
        let game = |round, first, second, outcome| Played {
            round,
            pairing: Pairing::Game { first, second },
            outcome: Some(outcome),
        };
        // Entrant 2 wins twice (2 + 2), entrant 0 wins once and draws (2 + 1).
        t.arena_played = vec![
            game(0, 0, 1, Outcome::FirstWon),
            game(1, 2, 1, Outcome::FirstWon),
            game(2, 0, 2, Outcome::Draw),
            game(3, 2, 1, Outcome::FirstWon),
        ];
        let standings = t.standings();
        let order: Vec<(Entrant, f64, Option<bool>)> = standings
            .iter()
            .map(|s| (s.entrant, s.points, s.on_fire))
            .collect();
        assert_eq!(
            order,
            vec![
                (2, 5.0, Some(false)),
                (0, 3.0, Some(false)),
                (1, 0.0, Some(false))
            ]
        );
        assert_eq!(standings[0].buchholz, None);
    }
}
