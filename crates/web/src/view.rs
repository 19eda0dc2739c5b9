//! What the templates show, prepared from the arena's bots, ratings and matches.

use arbiter_arena::{Arena, Bot};
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
                .map(|v| format!("/bots/{}/photo?v={v}", bot.name)),
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
        let name = |i: usize, key: &str| {
            let p = if m.get("participants").is_some() {
                &m["participants"][i]
            } else {
                &m[key]
            };
            p["name"].as_str().unwrap_or("?").to_owned()
        };
        MatchRow {
            id: m["id"].as_i64().unwrap_or(0),
            a: name(0, "bot_a"),
            b: name(1, "bot_b"),
            variant: m["variant"].as_str().unwrap_or("").to_owned(),
            status: m["status"].as_str().unwrap_or("").to_owned(),
            result: describe_result(&m["result"]),
            rated: m["rated"].as_bool().unwrap_or(false),
        }
    }
}

/// A result in words: the totals, who won and why.
fn describe_result(result: &Value) -> String {
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
        Some(0) => "first bot wins",
        Some(_) => "second bot wins",
        None => "draw",
    };
    [totals.as_str(), winner, reason.replace('_', " ").as_str()]
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
    pub(crate) fn of(rank: usize, entry: &Value) -> Standing {
        Standing {
            rank,
            name: entry["bot"]["name"].as_str().unwrap_or("?").to_owned(),
            rating: entry["rating"].as_f64().unwrap_or(0.0).round() as i64,
            deviation: entry["deviation"].as_f64().unwrap_or(0.0).round() as i64,
            games: entry["games"].as_u64().unwrap_or(0),
            provisional: entry["provisional"].as_bool().unwrap_or(true),
        }
    }
}
