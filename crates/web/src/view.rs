//! What the templates show, prepared from the arena's bots, ratings and matches.

use arbiter_arena::{Arena, Bot, Games, Mode};

use crate::paths::bot_path;
use serde_json::Value;

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

/// The participants of a match or a summary, in participant order: its `participants` list
/// when it has one, else `bot_a` and `bot_b` (summaries of two-seat matches).
pub(crate) fn participants(m: &Value) -> Vec<&Value> {
    match m["participants"].as_array() {
        Some(list) => list.iter().collect(),
        None => vec![&m["bot_a"], &m["bot_b"]],
    }
}

/// One match in a list.
pub(crate) struct MatchRow {
    pub(crate) id: i64,
    /// Every participant, in participant order.
    pub(crate) players: Vec<Player>,
    /// The game (`othello`).
    pub(crate) game: String,
    pub(crate) variant: String,
    pub(crate) status: String,
    /// How it ended, in words, or empty while it runs.
    pub(crate) result: String,
    pub(crate) rated: bool,
}

impl MatchRow {
    /// From a closed match's listing or a snapshot: its participants (`participants`, or
    /// `bot_a`/`bot_b` with names) and its result.
    pub(crate) fn of(m: &Value) -> MatchRow {
        let result = &m["result"];
        let players: Vec<Player> = participants(m)
            .iter()
            .enumerate()
            .map(|(i, p)| Player {
                name: p["name"].as_str().unwrap_or("?").to_owned(),
                bot: p["kind"] != "human",
                total: result["totals"][i]
                    .as_i64()
                    .map(|t| t.to_string())
                    .unwrap_or_default(),
                winner: result["winner"].as_u64() == u64::try_from(i).ok(),
            })
            .collect();
        let names: Vec<String> = players.iter().map(|p| p.name.clone()).collect();
        MatchRow {
            id: m["id"].as_i64().unwrap_or(0),
            result: describe_result(result, &names),
            players,
            game: m["game"].as_str().unwrap_or("").to_owned(),
            variant: m["variant"].as_str().unwrap_or("").to_owned(),
            status: m["status"].as_str().unwrap_or("").to_owned(),
            rated: m["rated"].as_bool().unwrap_or(false),
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
fn describe_result(result: &Value, names: &[String]) -> String {
    if result.is_null() {
        return String::new();
    }
    let reason = result["reason"].as_str().unwrap_or("");
    let totals = result["totals"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|v| v.as_i64().unwrap_or(0).to_string())
                .collect::<Vec<_>>()
                .join("–")
        })
        .unwrap_or_default();
    let winner = match result["winner"]
        .as_u64()
        .and_then(|w| usize::try_from(w).ok())
    {
        Some(w) => format!("{} wins", names.get(w).map_or("?", String::as_str)),
        None => "draw".to_owned(),
    };
    [
        totals.as_str(),
        winner.as_str(),
        reason.replace('_', " ").as_str(),
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
pub(crate) fn rating_history(matches: &[Value], bot: i64, mode: Mode) -> Vec<f64> {
    let mut points: Vec<f64> = matches
        .iter()
        .filter(|m| m["variant"] == mode.variant && m["game"] == mode.game)
        .filter_map(|m| {
            let seat = participants(m).iter().position(|p| p["id"] == bot)?;
            m["result"]["rating_after"][seat].as_f64()
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
    use serde_json::json;

    use super::*;

    #[test]
    fn the_rating_history_follows_the_bot_through_its_rated_matches() {
        let m = |a: i64, after: [f64; 2], variant: &str| json!({"bot_a": {"id": a}, "bot_b": {"id": 10 - a}, "game": "othello", "variant": variant, "result": {"rating_after": after}});
        // Newest first, as listed: bot 7 played as participant 1, then 0; one match was anti,
        // one unrated (no rating_after).
        let matches = [
            m(3, [1190.0, 1230.0], "std"),
            m(7, [1215.0, 1185.0], "std"),
            m(7, [1300.0, 1100.0], "anti"),
            json!({"bot_a": {"id": 7}, "game": "othello", "variant": "std", "result": {"rating_after": [null, null]}}),
            // A match of three, listed with its participants; bot 7 is participant 2.
            json!({"participants": [{"id": 1}, {"id": 2}, {"id": 7}], "game": "othello", "variant": "std", "result": {"rating_after": [1.0, 2.0, 1190.0]}}),
            json!({"bot_a": {"id": 7}, "game": "cards", "variant": "std", "result": {"rating_after": [1.0, 2.0]}}),
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
        let listing = json!({"id": 4, "game": "othello", "variant": "std", "status": "finished",
            "bot_a": {"id": 1, "name": "A", "kind": "registered"}, "bot_b": {"id": 2, "name": "B", "kind": "human"},
            "result": {"totals": [40, 24], "winner": 0, "reason": "completed"}});
        let snapshot = json!({"id": 5, "game": "goofspiel", "variant": "short", "status": "finished",
            "participants": [{"id": 1, "name": "A", "kind": "registered"}, {"id": 2, "name": "B", "kind": "registered"}, {"id": 3, "name": "C", "kind": "house"}],
            "result": {"totals": [5, 7, 3], "winner": 1, "reason": "completed"}});
        let cases: [(&Value, &[&str], &[&str], &str); 2] = [
            (
                &listing,
                &["A", "B"],
                &["40", "24"],
                "40–24, A wins, completed",
            ),
            (
                &snapshot,
                &["A", "B", "C"],
                &["5", "7", "3"],
                "5–7–3, B wins, completed",
            ),
        ];
        for (m, names, totals, result) in cases {
            let row = MatchRow::of(m);
            let got: Vec<&str> = row.players.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(got, names);
            let got: Vec<&str> = row.players.iter().map(|p| p.total.as_str()).collect();
            assert_eq!(got, totals);
            assert_eq!(row.result, result);
        }
        assert!(
            !MatchRow::of(&listing).players[1].bot,
            "people have no page"
        );
        assert!(MatchRow::of(&snapshot).players[1].winner);
    }
}
