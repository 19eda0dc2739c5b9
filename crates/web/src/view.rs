//! What the templates show, prepared from the arena's bots, ratings and matches.

use arbiter_arena::snapshot::{ClosedMatch, ParticipantSummary};
use arbiter_arena::{Arena, Bot, BotKind, Games, MatchResult, MatchSnapshot, MatchStatus, Mode};

use crate::paths::bot_path;

/// A variant a page offers, from the families the server runs, in registration order.
pub(crate) struct VariantChoice {
    /// What forms send: the variant's name, or `game:variant` where another family has a
    /// variant of the same name (bots' profiles and the arena read both).
    pub(crate) key: String,
    /// The game (`othello`).
    pub(crate) game: &'static str,
    /// The variant (`std`).
    pub(crate) variant: &'static str,
    /// What it is, in a sentence.
    pub(crate) summary: &'static str,
}

impl VariantChoice {
    /// Every variant of every family `games` holds, the default first.
    pub(crate) fn all(games: &Games) -> Vec<VariantChoice> {
        games
            .families()
            .flat_map(|family| {
                family
                    .setup
                    .variants()
                    .iter()
                    .map(move |spec| (family.id(), spec))
            })
            .map(|(game, spec)| VariantChoice {
                key: variant_key(
                    games,
                    Mode {
                        game,
                        variant: spec.name,
                    },
                ),
                game,
                variant: spec.name,
                summary: spec.summary,
            })
            .collect()
    }

    /// The variants of one game.
    pub(crate) fn of_game(games: &Games, game: &str) -> Vec<VariantChoice> {
        let mut all = VariantChoice::all(games);
        all.retain(|c| c.game == game);
        all
    }
}

/// How forms and bot profiles name a mode: the bare variant where no other family shares
/// the name, else `game:variant`.
pub(crate) fn variant_key(games: &Games, mode: Mode) -> String {
    if games.mode_of_key(mode.variant) == Ok(mode) {
        mode.variant.to_owned()
    } else {
        mode.to_string()
    }
}

/// A moment as pages write it, in UTC to the minute: `2026-11-29 09:46 UTC`. Pages know no
/// visitor's time zone, and UTC reads the same for everyone.
pub(crate) fn date_text(ms: i64) -> String {
    match time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000)) {
        Ok(at) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02} UTC",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute()
        ),
        Err(_) => String::new(),
    }
}

/// One family and its variants, for the home page's list of games.
pub(crate) struct GameChoice {
    pub(crate) game: &'static str,
    pub(crate) variants: Vec<VariantChoice>,
}

impl GameChoice {
    /// Every family the server runs, in registration order.
    pub(crate) fn all(games: &Games) -> Vec<GameChoice> {
        games
            .ids()
            .into_iter()
            .map(|game| GameChoice {
                game,
                variants: VariantChoice::of_game(games, game),
            })
            .collect()
    }
}

/// One bot as the lists and its page show it.
pub(crate) struct BotRow {
    pub(crate) name: String,
    pub(crate) online: bool,
    pub(crate) kind: &'static str,
    /// The rating in the server's default mode, rounded.
    pub(crate) rating: i64,
    pub(crate) provisional: bool,
    pub(crate) wins: u64,
    pub(crate) losses: u64,
    pub(crate) draws: u64,
    /// The engine and CPU it reported, or empty.
    pub(crate) engine: String,
    pub(crate) cpu: String,
    /// The keys of the variants it plays (see [`VariantChoice::key`]).
    pub(crate) variants: Vec<String>,
    /// The picture's address, with its version so that a new picture is fetched again.
    pub(crate) photo: Option<String>,
    pub(crate) disabled: bool,
    pub(crate) auto_match: bool,
    pub(crate) concurrency: String,
    pub(crate) token_prefix: String,
}

impl BotRow {
    pub(crate) async fn of(arena: &Arena, bot: &Bot, online: bool) -> BotRow {
        let ratings = arena.ratings_of(bot.id).await;
        let key = arena
            .games()
            .default_mode()
            .map(|m| m.to_string())
            .unwrap_or_default();
        let rating = &ratings[key.as_str()];
        let count = |key: &str| rating[key].as_u64().unwrap_or(0);
        let environment = bot.environment.clone().unwrap_or_default();
        BotRow {
            name: bot.name.clone(),
            online,
            kind: bot.kind.as_str(),
            rating: rating["rating"].as_f64().unwrap_or(1200.0).round() as i64,
            provisional: rating["provisional"].as_bool().unwrap_or(true),
            wins: count("wins"),
            losses: count("losses"),
            draws: count("draws"),
            engine: environment.engine.unwrap_or_default(),
            cpu: environment.cpu.unwrap_or_default(),
            variants: VariantChoice::all(arena.games())
                .into_iter()
                .map(|c| c.key)
                .filter(|key| bot.offers(key))
                .collect(),
            photo: bot
                .profile
                .photo_ms
                .map(|v| format!("{}/photo?v={v}", bot_path(&bot.name))),
            disabled: bot.disabled,
            auto_match: !bot.profile.auto_match_off,
            concurrency: bot
                .profile
                .concurrency
                .map_or_else(|| "2".to_owned(), |n| n.to_string()),
            token_prefix: bot.token_prefix.clone().unwrap_or_default(),
        }
    }

    /// Whether the bot offers `variant`.
    pub(crate) fn offers(&self, variant: &str) -> bool {
        self.variants.iter().any(|v| v == variant)
    }
}

/// One participant of a match, as lists and match pages show it.
pub(crate) struct Player {
    pub(crate) name: String,
    /// Whether it is a bot with a page (people have none).
    pub(crate) bot: bool,
    /// Its total once the match is over, or empty.
    pub(crate) total: String,
    /// Whether it won the match.
    pub(crate) winner: bool,
}

/// One match in a list.
pub(crate) struct MatchRow {
    pub(crate) id: i64,
    /// Every participant, in participant order.
    pub(crate) players: Vec<Player>,
    /// The game (`othello`).
    pub(crate) game: String,
    pub(crate) variant: String,
    pub(crate) status: &'static str,
    /// How it ended, in words, or empty while it runs.
    pub(crate) result: String,
    pub(crate) rated: bool,
}

impl MatchRow {
    /// A match as one of its readers sees it.
    pub(crate) fn of_snapshot(m: &MatchSnapshot) -> MatchRow {
        MatchRow::new(
            m.id,
            &m.participants,
            m.game,
            &m.variant,
            m.status,
            m.result.as_ref(),
            m.rated,
        )
    }

    /// A match from a list of closed matches.
    pub(crate) fn of_closed(m: &ClosedMatch) -> MatchRow {
        MatchRow::new(
            m.id,
            &m.participants,
            &m.game,
            &m.variant,
            m.status,
            m.result.as_ref(),
            m.rated,
        )
    }

    /// A match's participants, in participant order, with their totals and the result in
    /// words once it has one.
    fn new(
        id: i64,
        participants: &[ParticipantSummary],
        game: &str,
        variant: &str,
        status: MatchStatus,
        result: Option<&MatchResult>,
        rated: bool,
    ) -> MatchRow {
        let ranking = result.and_then(|r| r.ranking.as_ref());
        let players: Vec<Player> = participants
            .iter()
            .enumerate()
            .map(|(i, p)| Player {
                name: p.name.clone(),
                bot: p.kind != BotKind::Human,
                total: ranking
                    .and_then(|r| r.totals.get(i))
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
                winner: ranking.is_some_and(|r| r.winner == Some(i)),
            })
            .collect();
        let names: Vec<String> = players.iter().map(|p| p.name.clone()).collect();
        MatchRow {
            id,
            result: result.map_or_else(String::new, |r| describe_result(r, &names)),
            players,
            game: game.to_owned(),
            variant: variant.to_owned(),
            status: status.as_str(),
            rated,
        }
    }

    /// The participants' names, joined for a title.
    pub(crate) fn names(&self) -> String {
        self.players
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(" – ")
    }
}

/// A result in words: the totals, who won and why.
fn describe_result(result: &MatchResult, names: &[String]) -> String {
    let totals = result
        .ranking
        .as_ref()
        .map(|r| {
            r.totals
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join("–")
        })
        .unwrap_or_default();
    // Several firsts, but not everyone, share a win (a team's); everyone first is a draw.
    let firsts: Vec<&str> = match result.ranking.as_ref().and_then(|r| r.ranks.as_ref()) {
        Some(ranks) if ranks.iter().any(|&rank| rank != 1) => ranks
            .iter()
            .enumerate()
            .filter(|&(_, &rank)| rank == 1)
            .map(|(p, _)| names.get(p).map_or("?", String::as_str))
            .collect(),
        _ => Vec::new(),
    };
    let winner = match (result.winner(), firsts.as_slice()) {
        (Some(w), _) => format!("{} wins", names.get(w).map_or("?", String::as_str)),
        (None, [one]) => format!("{one} wins"),
        (None, [first @ .., last]) => format!("{} and {last} win", first.join(", ")),
        (None, []) => "draw".to_owned(),
    };
    [
        totals.as_str(),
        winner.as_str(),
        result.reason.replace('_', " ").as_str(),
    ]
    .iter()
    .filter(|s| !s.is_empty())
    .copied()
    .collect::<Vec<_>>()
    .join(", ")
}

/// One line of a leaderboard.
pub(crate) struct Standing {
    pub(crate) rank: usize,
    pub(crate) name: String,
    pub(crate) rating: i64,
    pub(crate) deviation: i64,
    pub(crate) games: u64,
    pub(crate) provisional: bool,
}

impl Standing {
    pub(crate) fn of(standing: &arbiter_arena::Standing) -> Standing {
        Standing {
            rank: standing.rank,
            name: standing.bot.name.clone(),
            rating: standing.rating.rating.round() as i64,
            deviation: standing.rating.deviation.round() as i64,
            games: u64::from(standing.rating.games),
            provisional: standing.provisional,
        }
    }
}

/// A bot's rating in `mode` after each of its rated matches, oldest first, from its closed
/// matches (newest first, as the arena lists them).
pub(crate) fn rating_history(matches: &[ClosedMatch], bot: i64, mode: Mode) -> Vec<f64> {
    let mut points: Vec<f64> = matches
        .iter()
        .filter(|m| m.variant == mode.variant && m.game == mode.game)
        .filter_map(|m| {
            let seat = m.participants.iter().position(|p| p.id == bot)?;
            let ratings = m.result.as_ref()?.ratings.as_ref()?;
            ratings.rating_after.get(seat).copied()
        })
        .collect();
    points.reverse();
    points
}

/// The rating history drawn as a line, or nothing for fewer than two points. Every value in
/// it is a number, so it needs no escaping.
pub(crate) fn rating_chart(points: &[f64]) -> Option<String> {
    if points.len() < 2 {
        return None;
    }
    let (width, height, pad) = (300.0, 100.0, 8.0);
    let low = points.iter().copied().fold(f64::INFINITY, f64::min);
    let high = points.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = (high - low).max(1.0);
    let step = (width - 2.0 * pad) / (points.len() - 1) as f64;
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let x = pad + step * i as f64;
            let y = height - pad - (r - low) / span * (height - 2.0 * pad);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    Some(format!(
        r##"<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="Rating after each of {n} rated matches, from {first:.0} to {last:.0}"><text x="{pad}" y="7" class="axis">{high:.0}</text><text x="{pad}" y="{bottom}" class="axis">{low:.0}</text><polyline points="{points}" fill="none" stroke="#0a58ca" stroke-width="1.5"/></svg>"##,
        n = points.len(),
        first = points[0],
        last = points[points.len() - 1],
        bottom = height - 1.0,
        points = line.join(" "),
    ))
}

#[cfg(test)]
mod tests {
    use arbiter_arena::snapshot::{Ranking, ResultRatings};

    use super::*;
    use crate::fixtures;

    /// A finished match's result: `totals`, won by `winner`, rated with `after` when given.
    fn result(totals: &[i64], winner: Option<usize>, after: Option<Vec<f64>>) -> MatchResult {
        MatchResult {
            reason: "completed".to_owned(),
            ranking: Some(Ranking {
                winner,
                totals: totals.to_vec(),
                rated: after.is_some(),
                ranks: None,
                teams: None,
            }),
            ratings: after.map(|rating_after| ResultRatings {
                rating_applied: true,
                rating_before: vec![1200.0; rating_after.len()],
                rating_after,
            }),
        }
    }

    /// Participants with the ids `ids`.
    fn with_ids(ids: &[i64]) -> Vec<ParticipantSummary> {
        let mut list = fixtures::participants(&vec!["x"; ids.len()]);
        for (p, &id) in list.iter_mut().zip(ids) {
            p.id = id;
        }
        list
    }

    #[test]
    fn dates_read_in_utc_to_the_minute() {
        let cases = [
            (0, "1970-01-01 00:00 UTC"),
            (1_795_900_000_000, "2026-11-28 21:06 UTC"),
            (-1, "1969-12-31 23:59 UTC"),
        ];
        for (ms, text) in cases {
            assert_eq!(date_text(ms), text, "{ms}");
        }
    }

    #[test]
    fn a_shared_win_names_its_winners_and_only_a_draw_reads_as_one() {
        let names: Vec<String> = ["Ann", "Bob", "Cy"].map(str::to_owned).to_vec();
        let ranked = |ranks: Option<Vec<u8>>| {
            let mut result = result(&[1, 0, 1], None, None);
            if let Some(ranking) = result.ranking.as_mut() {
                ranking.ranks = ranks;
            }
            describe_result(&result, &names)
        };
        assert_eq!(
            ranked(Some(vec![1, 2, 1])),
            "1–0–1, Ann and Cy win, completed"
        );
        assert_eq!(ranked(Some(vec![2, 1, 2])), "1–0–1, Bob wins, completed");
        assert_eq!(ranked(Some(vec![1, 1, 1])), "1–0–1, draw, completed");
        assert_eq!(ranked(None), "1–0–1, draw, completed");
        let won = result(&[1, 0, 0], Some(0), None);
        assert_eq!(describe_result(&won, &names), "1–0–0, Ann wins, completed");
    }

    #[test]
    fn the_rating_history_follows_the_bot_through_its_rated_matches() {
        let m = |a: i64, after: [f64; 2], variant: &str| {
            let result = result(&[0, 0], None, Some(after.to_vec()));
            fixtures::closed(with_ids(&[a, 10 - a]), "othello", variant, Some(result))
        };
        // Newest first, as listed: bot 7 played as participant 1, then 0; one match was anti,
        // one unrated (no rating change).
        let matches = [
            m(3, [1190.0, 1230.0], "std"),
            m(7, [1215.0, 1185.0], "std"),
            m(7, [1300.0, 1100.0], "anti"),
            fixtures::closed(
                with_ids(&[7, 3]),
                "othello",
                "std",
                Some(result(&[0, 0], None, None)),
            ),
            // A match of three; bot 7 is participant 2.
            fixtures::closed(
                with_ids(&[1, 2, 7]),
                "othello",
                "std",
                Some(result(&[0, 0, 0], None, Some(vec![1.0, 2.0, 1190.0]))),
            ),
            fixtures::closed(
                with_ids(&[7, 3]),
                "cards",
                "std",
                Some(result(&[0, 0], None, Some(vec![1.0, 2.0]))),
            ),
        ];
        let std = Mode {
            game: "othello",
            variant: "std",
        };
        assert_eq!(
            rating_history(&matches, 7, std),
            vec![1190.0, 1215.0, 1230.0]
        );
        let chart = rating_chart(&[1200.0, 1215.0, 1230.0]).expect("a chart");
        assert!(chart.contains("from 1200 to 1230"));
        let line = chart
            .split("points=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a line");
        assert_eq!(line.split(' ').count(), 3, "three points: {line}");
        assert!(rating_chart(&[1200.0]).is_none());
    }

    #[test]
    fn rows_list_every_participant_with_its_total() {
        let mut two = fixtures::participants(&["A", "B"]);
        two[1].kind = BotKind::Human;
        let listing = fixtures::closed(
            two,
            "othello",
            "std",
            Some(result(&[40, 24], Some(0), None)),
        );
        let mut three = fixtures::participants(&["A", "B", "C"]);
        three[2].kind = BotKind::House;
        let mut snapshot = fixtures::snapshot(three, Vec::new());
        snapshot.status = MatchStatus::Finished;
        snapshot.result = Some(result(&[5, 7, 3], Some(1), None));
        let cases: [(MatchRow, &[&str], &[&str], &str); 2] = [
            (
                MatchRow::of_closed(&listing),
                &["A", "B"],
                &["40", "24"],
                "40–24, A wins, completed",
            ),
            (
                MatchRow::of_snapshot(&snapshot),
                &["A", "B", "C"],
                &["5", "7", "3"],
                "5–7–3, B wins, completed",
            ),
        ];
        for (row, names, totals, result) in cases {
            let got: Vec<&str> = row.players.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(got, names);
            let got: Vec<&str> = row.players.iter().map(|p| p.total.as_str()).collect();
            assert_eq!(got, totals);
            assert_eq!(row.result, result);
        }
        assert!(
            !MatchRow::of_closed(&listing).players[1].bot,
            "people have no page"
        );
        assert!(MatchRow::of_snapshot(&snapshot).players[1].winner);
    }
}
