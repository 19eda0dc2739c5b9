//! What the templates show, prepared from the arena's bots, ratings and matches.

use arbiter_arena::{Arena, Bot};

use crate::paths::bot_path;
use serde_json::Value;

/// The variants of Othello, in the order the pages list them, with their names.
pub(crate) const VARIANTS: [(&str, &str); 5] = [
    ("std", "Othello"),
    ("anti", "Anti"),
    ("grand", "Grand 10×10"),
    ("octagon", "Octagon"),
    ("reversi", "Reversi"),
];

/// One bot as the lists and its page show it.
pub(crate) struct BotRow {
    pub(crate) name: String,
    pub(crate) online: bool,
    pub(crate) kind: &'static str,
    /// The `std` rating, rounded.
    pub(crate) rating: i64,
    pub(crate) provisional: bool,
    pub(crate) wins: u64,
    pub(crate) losses: u64,
    pub(crate) draws: u64,
    /// The engine and CPU it reported, or empty.
    pub(crate) engine: String,
    pub(crate) cpu: String,
    pub(crate) variants: Vec<&'static str>,
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
        let std = &ratings["othello:std"];
        let count = |key: &str| std[key].as_u64().unwrap_or(0);
        let environment = bot.environment.clone().unwrap_or_default();
        BotRow {
            name: bot.name.clone(),
            online,
            kind: bot.kind.as_str(),
            rating: std["rating"].as_f64().unwrap_or(1200.0).round() as i64,
            provisional: std["provisional"].as_bool().unwrap_or(true),
            wins: count("wins"),
            losses: count("losses"),
            draws: count("draws"),
            engine: environment.engine.unwrap_or_default(),
            cpu: environment.cpu.unwrap_or_default(),
            variants: VARIANTS
                .iter()
                .map(|(v, _)| *v)
                .filter(|v| bot.offers(v))
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
    pub(crate) fn offers(&self, variant: &&str) -> bool {
        self.variants.contains(variant)
    }
}

/// One match in a list.
pub(crate) struct MatchRow {
    pub(crate) id: i64,
    pub(crate) a: String,
    pub(crate) b: String,
    /// Whether each side is a bot with a page (people have none).
    pub(crate) a_bot: bool,
    pub(crate) b_bot: bool,
    pub(crate) variant: String,
    pub(crate) status: String,
    /// How it ended, in words, or empty while it runs.
    pub(crate) result: String,
    pub(crate) rated: bool,
}

impl MatchRow {
    /// From a closed match's listing (`bot_a`/`bot_b` with names) or a snapshot
    /// (`participants`).
    pub(crate) fn of(m: &Value) -> MatchRow {
        let side = |i: usize, key: &str| {
            if m.get("participants").is_some() {
                &m["participants"][i]
            } else {
                &m[key]
            }
        };
        let name = |i: usize, key: &str| side(i, key)["name"].as_str().unwrap_or("?").to_owned();
        let bot = |i: usize, key: &str| side(i, key)["kind"] != "human";
        let names = [name(0, "bot_a"), name(1, "bot_b")];
        MatchRow {
            id: m["id"].as_i64().unwrap_or(0),
            result: describe_result(&m["result"], &names),
            a: names[0].clone(),
            b: names[1].clone(),
            a_bot: bot(0, "bot_a"),
            b_bot: bot(1, "bot_b"),
            variant: m["variant"].as_str().unwrap_or("").to_owned(),
            status: m["status"].as_str().unwrap_or("").to_owned(),
            rated: m["rated"].as_bool().unwrap_or(false),
        }
    }
}

/// A result in words: the totals, who won and why.
fn describe_result(result: &Value, names: &[String; 2]) -> String {
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
    let winner = match result["winner"].as_u64() {
        Some(w) => format!("{} wins", names[usize::from(w != 0)]),
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

/// A bot's `std` rating after each of its rated matches, oldest first, from its closed matches
/// (newest first, as the arena lists them).
pub(crate) fn rating_history(matches: &[Value], bot: i64) -> Vec<f64> {
    let mut points: Vec<f64> = matches
        .iter()
        .filter(|m| m["variant"] == "std")
        .filter_map(|m| {
            let seat = if m["bot_a"]["id"] == bot { 0 } else { 1 };
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
        let m = |a: i64, after: [f64; 2], variant: &str| json!({"bot_a": {"id": a}, "variant": variant, "result": {"rating_after": after}});
        // Newest first, as listed: bot 7 played as participant 1, then 0; one match was anti,
        // one unrated (no rating_after).
        let matches = [
            m(3, [1190.0, 1230.0], "std"),
            m(7, [1215.0, 1185.0], "std"),
            m(7, [1300.0, 1100.0], "anti"),
            json!({"bot_a": {"id": 7}, "variant": "std", "result": {"rating_after": [null, null]}}),
        ];
        assert_eq!(rating_history(&matches, 7), vec![1215.0, 1230.0]);
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
}
