//! `--games`: the games, and optionally the variants, that the engine plays, and so the
//! challenges the connector accepts.
//!
//! A list such as `othello,goofspiel:standard` names games (`goofspiel`: every variant of it) or
//! game-variant pairs (`othello:std`). Othello is played through the adapter chosen for it
//! (`--engine`, `--nboard`, …) and only in the variants that adapter plays; every other game
//! speaks the generic engine protocol, so it needs `--engine` (or the practice engine).

use std::fmt;
use std::str::FromStr;

use arbiter_othello::Variant;

use crate::EngineSpec;

/// The Othello family's game id, the one game whose decisions keep FlipSight's request.
pub const OTHELLO: &str = "othello";

/// One entry of `--games`: a game, and a variant of it or every variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameChoice {
    /// The game's id, such as `othello` or `goofspiel`.
    pub game: String,
    /// The variant; `None` for every variant the engine can play.
    pub variant: Option<String>,
}

impl GameChoice {
    fn covers(&self, game: &str, variant: &str) -> bool {
        self.game == game && self.variant.as_deref().is_none_or(|v| v == variant)
    }
}

impl fmt::Display for GameChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.variant {
            Some(variant) => write!(f, "{}:{variant}", self.game),
            None => f.write_str(&self.game),
        }
    }
}

/// The games the engine plays (`--games`); by default Othello alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Games(Vec<GameChoice>);

impl Default for Games {
    fn default() -> Games {
        Games::othello_only()
    }
}

/// Why a `--games` list cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GamesError {
    /// The list is empty.
    #[error("--games names no game")]
    Empty,
    /// An entry is not `game` or `game:variant` in lower-case letters, digits, `-` and `_`.
    #[error(
        "--games: {0:?} is not a game or game:variant (lower-case letters, digits, - and _, such as goofspiel or othello:std)"
    )]
    BadEntry(String),
    /// An Othello variant that does not exist.
    #[error(
        "--games: othello has no variant {0:?}; its variants are std, anti, grand, octagon and reversi"
    )]
    UnknownOthelloVariant(String),
    /// An Othello variant the chosen adapter cannot play.
    #[error("--games: {adapter} engines play standard 8x8 Othello only, not othello:{variant}")]
    VariantNotPlayed {
        /// The adapter (NBoard, Edax, Egaroucid).
        adapter: &'static str,
        /// The variant asked for.
        variant: String,
    },
    /// A game other than Othello with an adapter that speaks an Othello-only protocol.
    #[error(
        "--games: {adapter} engines play Othello only; to play {game}, connect an engine speaking the generic engine protocol with --engine (see docs/engine-protocol.md)"
    )]
    NotGeneric {
        /// The adapter (NBoard, Edax, Egaroucid).
        adapter: &'static str,
        /// The game asked for.
        game: String,
    },
}

impl FromStr for Games {
    type Err = GamesError;

    /// Parses a comma-separated list; spaces around entries are ignored, repeats kept once.
    fn from_str(text: &str) -> Result<Games, GamesError> {
        let mut choices: Vec<GameChoice> = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (game, variant) = match entry.split_once(':') {
                Some((game, variant)) => (game, Some(variant)),
                None => (entry, None),
            };
            if !is_name(game) || variant.is_some_and(|v| !is_name(v)) {
                return Err(GamesError::BadEntry(entry.to_owned()));
            }
            if game == OTHELLO
                && let Some(variant) = variant
                && variant.parse::<Variant>().is_err()
            {
                return Err(GamesError::UnknownOthelloVariant(variant.to_owned()));
            }
            let choice = GameChoice {
                game: game.to_owned(),
                variant: variant.map(str::to_owned),
            };
            if !choices.contains(&choice) {
                choices.push(choice);
            }
        }
        if choices.is_empty() {
            return Err(GamesError::Empty);
        }
        Ok(Games(choices))
    }
}

/// Lower-case ASCII letters, digits, `-` and `_`, not empty: the spelling of game and variant
/// ids, so that a typo in case or a stray character is caught when the connector starts.
fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl Games {
    /// Othello in every variant the engine plays: what the connector plays without `--games`.
    pub fn othello_only() -> Games {
        Games(vec![GameChoice {
            game: OTHELLO.to_owned(),
            variant: None,
        }])
    }

    /// The entries, in the order given.
    pub fn choices(&self) -> &[GameChoice] {
        &self.0
    }

    /// Whether `engine` can play every entry: Othello variants its adapter plays, and other
    /// games only through the generic protocol.
    pub fn check(&self, engine: &EngineSpec) -> Result<(), GamesError> {
        for choice in &self.0 {
            if choice.game == OTHELLO {
                if let Some(variant) = &choice.variant
                    && !engine.variants().contains(&variant.as_str())
                {
                    return Err(GamesError::VariantNotPlayed {
                        adapter: engine.adapter_name(),
                        variant: variant.clone(),
                    });
                }
            } else if !engine.plays_generic() {
                return Err(GamesError::NotGeneric {
                    adapter: engine.adapter_name(),
                    game: choice.game.clone(),
                });
            }
        }
        Ok(())
    }

    /// Whether a challenge to `game` in `variant` is accepted with `engine`.
    pub fn plays(&self, engine: &EngineSpec, game: &str, variant: &str) -> bool {
        let listed = self.0.iter().any(|choice| choice.covers(game, variant));
        let playable = if game == OTHELLO {
            engine.variants().contains(&variant)
        } else {
            engine.plays_generic()
        };
        listed && playable
    }

    /// The Othello variants played, in the engine's order; empty when Othello is not listed.
    pub fn othello_variants(&self, engine: &EngineSpec) -> Vec<&'static str> {
        engine
            .variants()
            .iter()
            .copied()
            .filter(|variant| self.plays(engine, OTHELLO, variant))
            .collect()
    }

    /// What the engine plays, for the line printed once signed in: `othello (std, anti),
    /// goofspiel`, or only the variants, as before `--games` existed, when it plays Othello
    /// alone.
    pub(crate) fn describe(&self, engine: &EngineSpec) -> String {
        let othello = self.othello_variants(engine);
        if self.0.iter().all(|choice| choice.game == OTHELLO) {
            return othello.join(", ");
        }
        let mut parts: Vec<String> = Vec::new();
        if !othello.is_empty() {
            parts.push(format!("{OTHELLO} ({})", othello.join(", ")));
        }
        parts.extend(
            self.0
                .iter()
                .filter(|choice| choice.game != OTHELLO)
                .map(ToString::to_string),
        );
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json() -> EngineSpec {
        EngineSpec::Json {
            command: "engine".to_owned(),
        }
    }

    fn nboard() -> EngineSpec {
        EngineSpec::Nboard {
            command: "engine".to_owned(),
            depth: 0,
        }
    }

    #[test]
    fn lists_parse_into_games_and_variants_or_are_refused_with_the_reason() {
        let choice = |game: &str, variant: Option<&str>| GameChoice {
            game: game.to_owned(),
            variant: variant.map(str::to_owned),
        };
        let table: [(&str, Result<Vec<GameChoice>, GamesError>); 8] = [
            ("goofspiel", Ok(vec![choice("goofspiel", None)])),
            (
                " othello:std , goofspiel:standard ",
                Ok(vec![
                    choice("othello", Some("std")),
                    choice("goofspiel", Some("standard")),
                ]),
            ),
            ("othello,othello", Ok(vec![choice("othello", None)])),
            ("", Err(GamesError::Empty)),
            (" , ", Err(GamesError::Empty)),
            (
                "Goofspiel",
                Err(GamesError::BadEntry("Goofspiel".to_owned())),
            ),
            (
                "goofspiel:",
                Err(GamesError::BadEntry("goofspiel:".to_owned())),
            ),
            (
                "othello:chess",
                Err(GamesError::UnknownOthelloVariant("chess".to_owned())),
            ),
        ];
        for (text, expected) in table {
            assert_eq!(
                text.parse::<Games>().map(|games| games.0),
                expected,
                "{text:?}"
            );
        }
    }

    #[test]
    fn challenges_are_accepted_only_for_listed_games_the_engine_can_play() {
        let practice = EngineSpec::Practice;
        // (--games, engine, game, variant, accepted)
        let table: [(&str, EngineSpec, &str, &str, bool); 14] = [
            // The default: Othello in the engine's variants, nothing else.
            ("othello", json(), "othello", "std", true),
            ("othello", json(), "othello", "anti", true),
            ("othello", nboard(), "othello", "anti", false),
            ("othello", json(), "goofspiel", "standard", false),
            // A game alone covers its every variant; a variant only itself.
            ("goofspiel", json(), "goofspiel", "standard", true),
            ("goofspiel", json(), "goofspiel", "three", true),
            ("goofspiel", json(), "othello", "std", false),
            ("goofspiel:standard", json(), "goofspiel", "standard", true),
            ("goofspiel:standard", json(), "goofspiel", "three", false),
            ("othello:std,goofspiel", json(), "othello", "std", true),
            ("othello:std,goofspiel", json(), "othello", "grand", false),
            // The practice engine plays any game; Othello-only adapters play no other game.
            ("goofspiel", practice, "goofspiel", "standard", true),
            ("goofspiel", nboard(), "goofspiel", "standard", false),
            ("othello,goofspiel", nboard(), "othello", "std", true),
        ];
        for (list, engine, game, variant, accepted) in table {
            let games: Games = list.parse().expect("a valid list");
            assert_eq!(
                games.plays(&engine, game, variant),
                accepted,
                "--games {list} with {engine:?}: {game} {variant}"
            );
        }
        assert_eq!(
            Games::default().othello_variants(&json()),
            ["std", "anti", "grand", "octagon", "reversi"],
            "without --games, Othello in every variant, as before"
        );
    }

    #[test]
    fn lists_an_engine_cannot_play_are_refused_at_start() {
        let table: [(&str, EngineSpec, Result<(), GamesError>); 5] = [
            ("othello,goofspiel", json(), Ok(())),
            ("goofspiel", EngineSpec::Practice, Ok(())),
            ("othello:std", nboard(), Ok(())),
            (
                "othello:anti",
                nboard(),
                Err(GamesError::VariantNotPlayed {
                    adapter: "NBoard",
                    variant: "anti".to_owned(),
                }),
            ),
            (
                "othello,goofspiel",
                EngineSpec::Egaroucid {
                    path: "egaroucid".into(),
                },
                Err(GamesError::NotGeneric {
                    adapter: "Egaroucid",
                    game: "goofspiel".to_owned(),
                }),
            ),
        ];
        for (list, engine, expected) in table {
            let games: Games = list.parse().expect("a valid list");
            assert_eq!(games.check(&engine), expected, "--games {list}");
        }
    }

    #[test]
    fn the_description_names_othellos_variants_and_the_other_games() {
        let games: Games = "goofspiel:standard,othello".parse().expect("a valid list");
        assert_eq!(
            games.describe(&nboard()),
            "othello (std), goofspiel:standard"
        );
        assert_eq!(
            Games::default().describe(&json()),
            "std, anti, grand, octagon, reversi",
            "Othello alone is described as before"
        );
        let games: Games = "goofspiel".parse().expect("a valid list");
        assert_eq!(games.describe(&json()), "goofspiel");
    }
}
