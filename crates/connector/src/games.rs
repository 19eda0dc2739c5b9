//! `--games`: the games, and optionally the variants, that the engine plays, and so the
//! challenges the connector accepts.
//!
//! A list such as `othello,goofspiel:standard` names games (`goofspiel`: every variant of it) or
//! game-variant pairs (`othello:std`). Othello is played through the adapter chosen for it
//! (`--engine`, `--nboard`, …) and only in the variants that adapter plays; every other game
//! speaks the generic engine protocol, so it needs `--engine` (or the practice engine), except
//! Gomoku, which a Gomocup brain (`--gomocup`) plays too, and only Gomoku: in its swap2
//! variants only if it answers `SWAP2BOARD`; and chess, which a UCI engine (`--uci`) plays too,
//! and only chess, in all three variants.

use std::fmt;
use std::str::FromStr;

use arbiter_othello::Variant;

use crate::EngineSpec;
use crate::engine::gomocup::is_swap2;

/// The Othello family's game id, the one game whose decisions keep FlipSight's request.
pub const OTHELLO: &str = "othello";
/// The Gomoku family's game id, the one game Gomocup brains play.
pub const GOMOKU: &str = "gomoku";
/// The chess family's game id, the one game UCI engines play.
pub const CHESS: &str = "chess";

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
pub struct Games {
    choices: Vec<GameChoice>,
    /// Whether a Gomocup brain plays swap2 openings, as the start-up probe found.
    swap2: bool,
}

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
    /// A game other than Gomoku with a Gomocup brain.
    #[error(
        "--games: Gomocup engines play gomoku only; to play {game}, connect an engine speaking the generic engine protocol with --engine (see docs/engine-protocol.md)"
    )]
    GomokuOnly {
        /// The game asked for.
        game: String,
    },
    /// A game other than chess with a UCI engine.
    #[error(
        "--games: UCI engines play chess only; to play {game}, connect an engine speaking the generic engine protocol with --engine (see docs/engine-protocol.md)"
    )]
    ChessOnly {
        /// The game asked for.
        game: String,
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
        Ok(Games {
            choices,
            swap2: true,
        })
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
        Games::only(OTHELLO)
    }

    /// Every variant of `game`.
    fn only(game: &str) -> Games {
        Games {
            choices: vec![GameChoice {
                game: game.to_owned(),
                variant: None,
            }],
            swap2: true,
        }
    }

    /// What the connector plays without `--games`: Gomoku with a Gomocup brain, chess with a
    /// UCI engine, Othello with any other engine.
    pub fn default_for(engine: &EngineSpec) -> Games {
        match engine {
            EngineSpec::Gomocup { .. } => Games::only(GOMOKU),
            EngineSpec::Uci { .. } => Games::only(CHESS),
            _ => Games::othello_only(),
        }
    }

    /// The same games, with Gomoku's swap2 variants left out for a Gomocup brain that does
    /// not answer `SWAP2BOARD` (`swap2` false).
    pub(crate) fn with_swap2(mut self, swap2: bool) -> Games {
        self.swap2 = swap2;
        self
    }

    /// Whether a Gomocup brain plays Gomoku's swap2 variants.
    pub(crate) fn swap2(&self) -> bool {
        self.swap2
    }

    /// The entries, in the order given.
    pub fn choices(&self) -> &[GameChoice] {
        &self.choices
    }

    /// Whether `engine` can play every entry: Othello variants its adapter plays, Gomoku only
    /// for a Gomocup brain, chess only for a UCI engine, and other games only through the
    /// generic protocol.
    pub fn check(&self, engine: &EngineSpec) -> Result<(), GamesError> {
        for choice in &self.choices {
            if matches!(engine, EngineSpec::Uci { .. }) {
                if choice.game != CHESS {
                    return Err(GamesError::ChessOnly {
                        game: choice.game.clone(),
                    });
                }
            } else if matches!(engine, EngineSpec::Gomocup { .. }) {
                if choice.game != GOMOKU {
                    return Err(GamesError::GomokuOnly {
                        game: choice.game.clone(),
                    });
                }
            } else if choice.game == OTHELLO {
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
        self.refusal(engine, game, variant).is_none()
    }

    /// Why a challenge to `game` in `variant` is declined with `engine`, or `None` when it is
    /// accepted.
    pub fn refusal(&self, engine: &EngineSpec, game: &str, variant: &str) -> Option<String> {
        let listed = self
            .choices
            .iter()
            .any(|choice| choice.covers(game, variant));
        let playable = if game == OTHELLO {
            engine.variants().contains(&variant)
        } else if let EngineSpec::Gomocup { .. } = engine {
            if game == GOMOKU && is_swap2(variant) && !self.swap2 {
                return Some(format!(
                    "this Gomocup engine does not answer SWAP2BOARD, so it cannot play {game} {variant}, which opens with swap2"
                ));
            }
            game == GOMOKU
        } else if let EngineSpec::Uci { .. } = engine {
            game == CHESS
        } else {
            engine.plays_generic()
        };
        (!(listed && playable)).then(|| format!("this engine does not play {game} {variant}"))
    }

    /// The game and variant of a `--challenge` match, from those asked for (`game`,
    /// `variant`): the game defaults to the first one listed (Othello, Gomoku for a Gomocup
    /// brain or chess for a UCI engine, when `--games` is not given), the variant to the one the game's first entry
    /// names, and `None` leaves it to the server (the game's default variant). Refused, with
    /// the reason, when the engine would not play that match.
    pub fn challenge_mode(
        &self,
        engine: &EngineSpec,
        game: Option<&str>,
        variant: Option<&str>,
    ) -> Result<(String, Option<String>), String> {
        let game = game.unwrap_or_else(|| self.choices[0].game.as_str());
        let Some(entry) = self.choices.iter().find(|choice| choice.game == game) else {
            return Err(format!(
                "--games does not list {game}, so the connector would not play that match; add it to --games"
            ));
        };
        let variant = variant.or(entry.variant.as_deref());
        if let Some(variant) = variant
            && let Some(why) = self.refusal(engine, game, variant)
        {
            return Err(why);
        }
        Ok((game.to_owned(), variant.map(str::to_owned)))
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
        if self.choices.iter().all(|choice| choice.game == OTHELLO) {
            return othello.join(", ");
        }
        let mut parts: Vec<String> = Vec::new();
        if !othello.is_empty() {
            parts.push(format!("{OTHELLO} ({})", othello.join(", ")));
        }
        parts.extend(
            self.choices
                .iter()
                .filter(|choice| choice.game != OTHELLO)
                .filter_map(|choice| {
                    let without_swap2 = matches!(engine, EngineSpec::Gomocup { .. })
                        && choice.game == GOMOKU
                        && !self.swap2;
                    match &choice.variant {
                        _ if !without_swap2 => Some(choice.to_string()),
                        None => Some(format!("{choice} (but its swap2 variants)")),
                        Some(variant) if is_swap2(variant) => None,
                        Some(_) => Some(choice.to_string()),
                    }
                }),
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
                text.parse::<Games>().map(|games| games.choices),
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
    fn a_gomocup_brain_plays_gomoku_alone_and_swap2_only_when_it_answers_swap2board() {
        let gomocup = EngineSpec::Gomocup {
            command: "brain".to_owned(),
            max_memory_mb: 350,
        };
        assert_eq!(
            Games::default_for(&gomocup).choices(),
            [GameChoice {
                game: GOMOKU.to_owned(),
                variant: None
            }],
            "without --games, Gomoku"
        );
        let table: [(&str, Result<(), GamesError>); 3] = [
            ("gomoku", Ok(())),
            ("gomoku:renju,gomoku:swap2", Ok(())),
            (
                "gomoku,othello",
                Err(GamesError::GomokuOnly {
                    game: "othello".to_owned(),
                }),
            ),
        ];
        for (list, expected) in table {
            let games: Games = list.parse().expect("a valid list");
            assert_eq!(games.check(&gomocup), expected, "--games {list}");
        }
        // (--games, SWAP2BOARD answered, variant, accepted)
        let table = [
            ("gomoku", true, "swap2", true),
            ("gomoku", false, "swap2", false),
            ("gomoku", false, "renju-swap2", false),
            ("gomoku", false, "renju", true),
            ("gomoku", false, "freestyle-20", true),
            ("gomoku:renju", true, "standard", false),
        ];
        for (list, swap2, variant, accepted) in table {
            let games: Games = list.parse().expect("a valid list");
            let games = games.with_swap2(swap2);
            assert_eq!(
                games.plays(&gomocup, GOMOKU, variant),
                accepted,
                "--games {list}, swap2 {swap2}: {variant}"
            );
            assert!(!games.plays(&gomocup, OTHELLO, "std"));
        }
        let games = Games::default_for(&gomocup).with_swap2(false);
        assert_eq!(games.describe(&gomocup), "gomoku (but its swap2 variants)");
        let games: Games = "gomoku:renju,gomoku:swap2".parse().expect("a valid list");
        assert_eq!(
            games.with_swap2(false).describe(&gomocup),
            "gomoku:renju",
            "a swap2 variant it cannot play is not described"
        );
    }

    #[test]
    fn a_uci_engine_plays_chess_alone_in_every_variant_or_those_listed() {
        let uci = EngineSpec::Uci {
            command: "stockfish".to_owned(),
            options: Vec::new(),
        };
        assert_eq!(Games::default_for(&uci).describe(&uci), "chess");
        let table: [(&str, Result<(), GamesError>); 3] = [
            ("chess", Ok(())),
            ("chess:standard,chess:dice", Ok(())),
            (
                "chess,othello",
                Err(GamesError::ChessOnly {
                    game: "othello".to_owned(),
                }),
            ),
        ];
        for (list, expected) in table {
            let games: Games = list.parse().expect("a valid list");
            assert_eq!(games.check(&uci), expected, "--games {list}");
        }
        // (--games, game, variant, accepted)
        let table = [
            (None, CHESS, "standard", true),
            (None, CHESS, "chess960", true),
            (None, CHESS, "dice", true),
            (None, OTHELLO, "std", false),
            (Some("chess:dice"), CHESS, "dice", true),
            (Some("chess:dice"), CHESS, "standard", false),
        ];
        for (list, game, variant, accepted) in table {
            let games = list.map_or_else(
                || Games::default_for(&uci),
                |list| list.parse().expect("a valid list"),
            );
            assert_eq!(
                games.plays(&uci, game, variant),
                accepted,
                "--games {list:?}: {game} {variant}"
            );
        }
        assert!(!"goofspiel".parse::<Games>().expect("a list").plays(
            &uci,
            "goofspiel",
            "standard"
        ));
        assert_eq!(
            Games::default_for(&uci).challenge_mode(&uci, None, Some("dice")),
            Ok((CHESS.to_owned(), Some("dice".to_owned())))
        );
    }

    #[test]
    fn a_challenge_is_to_the_game_asked_for_or_the_first_listed_and_only_one_played() {
        let gomocup = EngineSpec::Gomocup {
            command: "brain".to_owned(),
            max_memory_mb: 350,
        };
        let mode =
            |game: &str, variant: Option<&str>| Ok((game.to_owned(), variant.map(str::to_owned)));
        // (--games, engine, whether a Gomocup brain answers SWAP2BOARD, --game, --variant,
        // the match challenged to, or whether it is refused)
        type Case = (
            Option<&'static str>,
            EngineSpec,
            bool,
            Option<&'static str>,
            Option<&'static str>,
            Result<(String, Option<String>), ()>,
        );
        let table: [Case; 11] = [
            // Without --games: Othello, or Gomoku for a brain, in the server's default variant.
            (None, json(), true, None, None, mode("othello", None)),
            (
                None,
                json(),
                true,
                None,
                Some("anti"),
                mode("othello", Some("anti")),
            ),
            (None, nboard(), true, None, Some("anti"), Err(())),
            (
                None,
                gomocup.clone(),
                false,
                None,
                None,
                mode("gomoku", None),
            ),
            (
                None,
                gomocup.clone(),
                false,
                Some("gomoku"),
                Some("renju"),
                mode("gomoku", Some("renju")),
            ),
            (None, gomocup.clone(), false, None, Some("swap2"), Err(())),
            (
                None,
                gomocup.clone(),
                true,
                None,
                Some("swap2"),
                mode("gomoku", Some("swap2")),
            ),
            (None, json(), true, Some("goofspiel"), None, Err(())),
            // The first entry of a game names its variant; another entry's game comes when asked.
            (
                Some("gomoku:renju"),
                gomocup,
                false,
                None,
                None,
                mode("gomoku", Some("renju")),
            ),
            (
                Some("othello:std,goofspiel"),
                json(),
                true,
                Some("goofspiel"),
                None,
                mode("goofspiel", None),
            ),
            (
                Some("goofspiel:short"),
                json(),
                true,
                Some("goofspiel"),
                Some("standard"),
                Err(()),
            ),
        ];
        for (list, engine, swap2, game, variant, expected) in table {
            let games = list.map_or_else(
                || Games::default_for(&engine),
                |list| list.parse().expect("a valid list"),
            );
            let games = games.with_swap2(swap2);
            assert_eq!(
                games.challenge_mode(&engine, game, variant).map_err(|_| ()),
                expected,
                "--games {list:?} with {engine:?}: --game {game:?} --variant {variant:?}"
            );
        }
        let games = Games::default_for(&json());
        let refused = games.challenge_mode(&json(), Some("goofspiel"), None);
        assert!(refused.is_err_and(|why| why.contains("add it to --games")));
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
