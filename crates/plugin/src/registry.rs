//! The families a server runs.

use std::fmt;

use crate::Family;

/// A game and one of its variants: the key of ratings, bot capabilities and auto-matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mode {
    /// The game (`othello`).
    pub game: &'static str,
    /// The variant (`std`).
    pub variant: &'static str,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.game, self.variant)
    }
}

/// A mode no registered family offers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownMode(pub String);

/// The game families a server runs, in the order they were registered: the first family's
/// first variant is the server's default mode (auto-matching's, the pages').
#[derive(Clone, Default)]
pub struct Games {
    families: Vec<&'static Family>,
}

impl Games {
    /// No families.
    pub fn new() -> Games {
        Games::default()
    }

    /// Adds a family; a family with the same identifier registered earlier is replaced.
    pub fn with(mut self, family: &'static Family) -> Games {
        self.families.retain(|f| f.id() != family.id());
        self.families.push(family);
        self
    }

    /// The family of `game`.
    pub fn get(&self, game: &str) -> Option<&'static Family> {
        self.families.iter().copied().find(|f| f.id() == game)
    }

    /// Every family, in registration order.
    pub fn families(&self) -> impl Iterator<Item = &'static Family> + '_ {
        self.families.iter().copied()
    }

    /// Every game's identifier.
    pub fn ids(&self) -> Vec<&'static str> {
        self.families().map(Family::id).collect()
    }

    /// Every mode of every family.
    pub fn modes(&self) -> Vec<Mode> {
        self.families()
            .flat_map(|f| {
                f.setup.variants().iter().map(move |v| Mode {
                    game: f.id(),
                    variant: v.name,
                })
            })
            .collect()
    }

    /// Every variant name of every family (a name two families share is listed once).
    pub fn variant_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for mode in self.modes() {
            if !names.contains(&mode.variant) {
                names.push(mode.variant);
            }
        }
        names
    }

    /// Every key a bot may list what it plays by: each variant's bare name, each game's name
    /// (all its variants) and each `game:variant`.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .variant_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        keys.extend(self.ids().into_iter().map(str::to_owned));
        keys.extend(self.modes().iter().map(Mode::to_string));
        keys.dedup();
        keys
    }

    /// The server's default mode: the first family's first variant.
    pub fn default_mode(&self) -> Option<Mode> {
        self.modes().first().copied()
    }

    /// The mode `game` and `variant` name; the game's default variant when `variant` is
    /// `None`.
    pub fn mode(&self, game: &str, variant: Option<&str>) -> Result<Mode, UnknownMode> {
        let family = self.get(game).ok_or_else(|| {
            UnknownMode(format!(
                "unknown game {game:?}; this server runs {}",
                self.ids().join(", ")
            ))
        })?;
        let spec = match variant {
            None => family.default_variant(),
            Some(name) => family.variant(name).ok_or_else(|| {
                UnknownMode(format!(
                    "{game} has no variant {name:?}; it has {}",
                    family
                        .setup
                        .variants()
                        .iter()
                        .map(|v| v.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
        };
        Ok(Mode {
            game: family.id(),
            variant: spec.name,
        })
    }

    /// The mode a bare variant name means: the one family that has it. A name several
    /// families share must be written `game:variant`.
    pub fn mode_of_key(&self, key: &str) -> Result<Mode, UnknownMode> {
        if let Some((game, variant)) = key.split_once(':') {
            return self.mode(game, Some(variant));
        }
        let matching: Vec<Mode> = self
            .modes()
            .into_iter()
            .filter(|m| m.variant == key)
            .collect();
        match matching.as_slice() {
            [one] => Ok(*one),
            [] => Err(UnknownMode(format!(
                "unknown variant {key:?}; known: {}",
                self.variant_names().join(", ")
            ))),
            several => Err(UnknownMode(format!(
                "{key:?} is a variant of several games; write one of {}",
                several
                    .iter()
                    .map(Mode::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

impl fmt::Debug for Games {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

#[cfg(test)]
mod tests {
    use arbiter_rules::{Ctx, DynGame, DynState, GameError, Random, Started};
    use serde_json::Value;

    use super::*;
    use crate::{
        ClockPolicy, GenericDecisions, JsonCodec, LegRequest, MatchSetup, SetupError, VariantSpec,
    };

    /// A family whose only use is its name and its variants.
    struct Named(&'static str, &'static [VariantSpec]);

    impl DynGame for Named {
        fn id(&self) -> &'static str {
            self.0
        }
        fn rules_version(&self) -> u32 {
            1
        }
        fn seat_count(&self, _config: &Value) -> Result<usize, GameError> {
            Ok(2)
        }
        fn start(
            &self,
            _config: &Value,
            _ctx: &mut Ctx<'_>,
        ) -> Result<Started<Box<dyn DynState>, Value>, GameError> {
            Err(GameError::Restore("not a game".to_owned()))
        }
        fn restore(&self, _saved: &Value) -> Result<Box<dyn DynState>, GameError> {
            Err(GameError::Restore("not a game".to_owned()))
        }
    }

    impl MatchSetup for Named {
        fn variants(&self) -> &'static [VariantSpec] {
            self.1
        }
        fn leg_configs(
            &self,
            _request: &LegRequest<'_>,
            _rng: &mut dyn Random,
        ) -> Result<Vec<Value>, SetupError> {
            Ok(Vec::new())
        }
    }

    const fn variant(name: &'static str) -> VariantSpec {
        VariantSpec {
            name,
            min_seats: 2,
            max_seats: 2,
            summary: "",
        }
    }

    static BOARD: Named = Named("board", &[variant("std"), variant("big")]);
    static CARDS: Named = Named("cards", &[variant("standard"), variant("big")]);

    const fn family(named: &'static Named) -> Family {
        Family {
            rules: named,
            setup: named,
            codec: &JsonCodec,
            decisions: &GenericDecisions,
            clock: ClockPolicy::PerAction,
            house: None,
            board: None,
            points: None,
            line: None,
            talk: None,
            record: None,
        }
    }

    static BOARD_FAMILY: Family = family(&BOARD);
    static CARDS_FAMILY: Family = family(&CARDS);

    #[test]
    fn modes_resolve_by_game_and_variant_and_bare_names_only_when_unique() {
        let games = Games::new().with(&BOARD_FAMILY).with(&CARDS_FAMILY);
        assert_eq!(games.ids(), ["board", "cards"]);
        assert_eq!(games.variant_names(), ["std", "big", "standard"]);
        let mode = |game, variant| Mode { game, variant };
        assert_eq!(games.default_mode(), Some(mode("board", "std")));
        assert_eq!(games.mode("cards", None), Ok(mode("cards", "standard")));
        assert_eq!(games.mode("cards", Some("big")), Ok(mode("cards", "big")));
        assert!(games.mode("cards", Some("std")).is_err());
        assert!(games.mode("chess", None).is_err());
        let cases: &[(&str, Option<Mode>)] = &[
            ("std", Some(mode("board", "std"))),
            ("standard", Some(mode("cards", "standard"))),
            ("cards:big", Some(mode("cards", "big"))),
            ("big", None),
            ("nothing", None),
            ("board:standard", None),
        ];
        for (key, expected) in cases {
            assert_eq!(games.mode_of_key(key).ok(), *expected, "{key}");
        }
        assert!(
            games
                .mode_of_key("big")
                .is_err_and(|e| e.0.contains("board:big") && e.0.contains("cards:big"))
        );
        assert_eq!(mode("board", "std").to_string(), "board:std");
        // A later registration of the same game replaces the earlier one.
        let again = games.clone().with(&BOARD_FAMILY);
        assert_eq!(again.ids(), ["cards", "board"]);
        assert_eq!(Games::new().default_mode(), None);
    }

    #[test]
    fn paired_formats_rotate_every_seat_through_every_participant() {
        use crate::Format;
        assert_eq!(Format::Single.legs(4), 1);
        assert_eq!(Format::Paired.legs(2), 2);
        assert_eq!(Format::Paired.legs(3), 3);
        for seats in 2..=4 {
            for first in 0..seats {
                for seat in 0..seats {
                    let participants: Vec<usize> = (0..seats)
                        .map(|leg| Format::participant_in(seat, leg, first, seats))
                        .collect();
                    let mut sorted = participants.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..seats).collect::<Vec<_>>(), "{participants:?}");
                }
            }
        }
        // Two seats: participant `first` is in the first seat of leg 0, the other in leg 1.
        assert_eq!(Format::participant_in(0, 0, 1, 2), 1);
        assert_eq!(Format::participant_in(0, 1, 1, 2), 0);
    }
}
