//! Roles, tokens, bags and the setup table (rulebook sections 3 and 4, section 7's awakening
//! rounds).

use serde::{Deserialize, Serialize};

use arbiter_rules::Random;
use arbiter_rules::random::{below, shuffle};

/// The fewest players a game may have (rule 1.1).
pub const MIN_PLAYERS: u8 = 4;
/// The most players a game may have (rule 1.1).
pub const MAX_PLAYERS: u8 = 8;

/// A secret role (rule 1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Common Fortune (평운): ordinary luck; sends the helper and may spend the guard.
    CommonFortune,
    /// Great Fortune (대길): a lucky bag; the Misfortune side wins by naming this player.
    GreatFortune,
    /// Great Misfortune (대흉): an unlucky bag; the Good side wins when none is living.
    GreatMisfortune,
}

/// A token kind (rule 3.1). Tokens of one kind are identical.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Token {
    /// Good (길).
    Good,
    /// Neutral (평).
    Neutral,
    /// Bad (흉).
    Bad,
}

/// A bag's make-up: how many tokens of each kind it holds (rule 3.2).
///
/// Counts are `u16` because a bag only grows (bless, curse, vote penalty; drawn tokens go back
/// by rule 8.5), by at most a few tokens a night.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bag {
    /// Good tokens.
    pub good: u16,
    /// Neutral tokens.
    pub neutral: u16,
    /// Bad tokens.
    pub bad: u16,
}

impl Bag {
    /// A bag of `good`·`neutral`·`bad` tokens.
    pub const fn new(good: u16, neutral: u16, bad: u16) -> Bag {
        Bag { good, neutral, bad }
    }

    /// The number of tokens in the bag.
    pub fn total(self) -> u32 {
        u32::from(self.good) + u32::from(self.neutral) + u32::from(self.bad)
    }

    /// How many tokens of `kind` the bag holds.
    pub fn count(self, kind: Token) -> u16 {
        match kind {
            Token::Good => self.good,
            Token::Neutral => self.neutral,
            Token::Bad => self.bad,
        }
    }

    /// The bag with one more token of `kind` (bless, curse, vote penalty: rule 3.2).
    #[must_use]
    pub fn with_added(self, kind: Token) -> Bag {
        let mut bag = self;
        let slot = match kind {
            Token::Good => &mut bag.good,
            Token::Neutral => &mut bag.neutral,
            Token::Bad => &mut bag.bad,
        };
        *slot = slot.saturating_add(1);
        bag
    }

    /// The bag with one token of `kind` taken out, `None` if it holds none.
    pub(crate) fn without(self, kind: Token) -> Option<Bag> {
        let mut bag = self;
        let slot = match kind {
            Token::Good => &mut bag.good,
            Token::Neutral => &mut bag.neutral,
            Token::Bad => &mut bag.bad,
        };
        *slot = slot.checked_sub(1)?;
        Some(bag)
    }

    /// The token at position `index` when the bag is laid out Good, then Neutral, then Bad.
    fn at(self, index: u32) -> Option<Token> {
        let good = u32::from(self.good);
        let neutral = u32::from(self.neutral);
        if index < good {
            Some(Token::Good)
        } else if index < good + neutral {
            Some(Token::Neutral)
        } else if index < self.total() {
            Some(Token::Bad)
        } else {
            None
        }
    }

    /// One token drawn uniformly at random (rule 5.10), `None` from an empty bag.
    ///
    /// Stable algorithm, part of the replay format: `below(total)` indexes the bag laid out
    /// Good, Neutral, Bad.
    pub fn draw_one(self, rng: &mut dyn Random) -> Option<Token> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        self.at(below(rng, total))
    }

    /// Two tokens drawn without replacement, in the order drawn (rule 8.2): the first is the
    /// one the default reveals (rule 8.6), and the sequential draw makes that order random.
    /// `None` if the bag holds fewer than two tokens, which rule 4.1 (10 tokens, bags never
    /// shrink) rules out.
    pub fn draw_two(self, rng: &mut dyn Random) -> Option<[Token; 2]> {
        let first = self.draw_one(rng)?;
        let second = self.without(first)?.draw_one(rng)?;
        Some([first, second])
    }
}

/// What rule 4.1 fixes for one player count. All of it is public knowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupRow {
    /// Number of players.
    pub players: u8,
    /// Common Fortunes.
    pub common_fortunes: u8,
    /// Great Fortunes (always 1).
    pub great_fortunes: u8,
    /// Great Misfortunes (1, or 2 with 7 or 8 players).
    pub great_misfortunes: u8,
    /// A Common Fortune's starting bag.
    pub common_fortune_bag: Bag,
    /// The Great Fortune's starting bag.
    pub great_fortune_bag: Bag,
    /// A Great Misfortune's starting bag.
    pub great_misfortune_bag: Bag,
    /// The last round, players + 1 (rule 4.5).
    pub round_cap: u32,
}

impl SetupRow {
    /// The row of rule 4.1 for `players`, `None` outside 4 to 8.
    pub fn for_players(players: u8) -> Option<SetupRow> {
        // Rule 4.1: the GM count changes at 7 players; the Great Fortune's and the Great
        // Misfortunes' bags are the balance table of rules version 2 (section 24), measured
        // with the rule bots by the balance simulator.
        let (great_misfortunes, great_fortune_bag, great_misfortune_bag) = match players {
            4 => (1, Bag::new(4, 4, 2), Bag::new(2, 2, 6)),
            5 => (1, Bag::new(5, 3, 2), Bag::new(2, 3, 5)),
            6 => (1, Bag::new(6, 2, 2), Bag::new(2, 3, 5)),
            7 => (2, Bag::new(5, 3, 2), Bag::new(2, 3, 5)),
            8 => (2, Bag::new(6, 2, 2), Bag::new(2, 2, 6)),
            _ => return None,
        };
        Some(SetupRow {
            players,
            common_fortunes: players - 1 - great_misfortunes,
            great_fortunes: 1,
            great_misfortunes,
            common_fortune_bag: Bag::new(3, 4, 3),
            great_fortune_bag,
            great_misfortune_bag,
            round_cap: u32::from(players) + 1,
        })
    }

    /// The starting bag of `role` (rule 4.3).
    pub fn bag(&self, role: Role) -> Bag {
        match role {
            Role::CommonFortune => self.common_fortune_bag,
            Role::GreatFortune => self.great_fortune_bag,
            Role::GreatMisfortune => self.great_misfortune_bag,
        }
    }

    /// The good side's size at the start: the Common Fortunes and the Great Fortune.
    pub fn good_side(&self) -> u8 {
        self.common_fortunes + self.great_fortunes
    }

    /// The multiset of roles, in a fixed order (CFs, GF, GMs) before the shuffle of rule 4.2.
    pub fn roles(&self) -> Vec<Role> {
        let mut roles = vec![Role::CommonFortune; usize::from(self.common_fortunes)];
        roles.extend(vec![Role::GreatFortune; usize::from(self.great_fortunes)]);
        roles.extend(vec![
            Role::GreatMisfortune;
            usize::from(self.great_misfortunes)
        ]);
        roles
    }
}

/// The first round in which a player may awaken (rule 4.4, D2).
pub const FIRST_AWAKENING_ROUND: u32 = 2;
/// The last round in which a player may awaken (rule 4.4, D2).
pub const LAST_AWAKENING_ROUND: u32 = 4;

/// One seat's dealt secrets: its role and the round in which it awakens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dealt {
    /// The role (rule 4.2).
    pub role: Role,
    /// The round at whose start the player awakens (rule 4.4).
    pub awakening_round: u32,
}

/// Deals the roles and awakening rounds for `row` (rules 4.2 and 4.4), in seat order.
///
/// Stable order of draws, part of the replay format: the role multiset in [`SetupRow::roles`]
/// order is shuffled by `arbiter_rules::random::shuffle`; then one round is drawn for the GF
/// and all GMs together; then one per CF, in seat order. Each round is
/// `2 + below(3)`.
pub fn deal(row: &SetupRow, rng: &mut dyn Random) -> Vec<Dealt> {
    let mut roles = row.roles();
    shuffle(rng, &mut roles);
    let span = LAST_AWAKENING_ROUND - FIRST_AWAKENING_ROUND + 1;
    // Rule 1.3 / D2: the GF and every GM awaken in the same round, so they share one draw.
    let special = FIRST_AWAKENING_ROUND + below(rng, span);
    roles
        .into_iter()
        .map(|role| {
            let awakening_round = match role {
                Role::CommonFortune => FIRST_AWAKENING_ROUND + below(rng, span),
                Role::GreatFortune | Role::GreatMisfortune => special,
            };
            Dealt {
                role,
                awakening_round,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    #[test]
    fn rule_4_1_table() {
        // players, CF, GF, GM, CF bag, GF bag, GM bag, good side, round cap, first threshold.
        type Row = (u8, u8, u8, u8, [u16; 3], [u16; 3], [u16; 3], u8, u32, u32);
        let table: &[Row] = &[
            (4, 2, 1, 1, [3, 4, 3], [4, 4, 2], [2, 2, 6], 3, 5, 5),
            (5, 3, 1, 1, [3, 4, 3], [5, 3, 2], [2, 3, 5], 4, 6, 6),
            (6, 4, 1, 1, [3, 4, 3], [6, 2, 2], [2, 3, 5], 5, 7, 7),
            (7, 4, 1, 2, [3, 4, 3], [5, 3, 2], [2, 3, 5], 5, 8, 8),
            (8, 5, 1, 2, [3, 4, 3], [6, 2, 2], [2, 2, 6], 6, 9, 9),
        ];
        let bag = |[g, n, b]: [u16; 3]| Bag::new(g, n, b);
        for &(n, cf, gf, gm, cf_bag, gf_bag, gm_bag, good, cap, threshold) in table {
            let row = SetupRow::for_players(n).expect("4 to 8 players");
            assert_eq!(
                (
                    row.common_fortunes,
                    row.great_fortunes,
                    row.great_misfortunes
                ),
                (cf, gf, gm),
                "{n} players"
            );
            assert_eq!(row.bag(Role::CommonFortune), bag(cf_bag), "{n} players");
            assert_eq!(row.bag(Role::GreatFortune), bag(gf_bag), "{n} players");
            assert_eq!(row.bag(Role::GreatMisfortune), bag(gm_bag), "{n} players");
            assert_eq!(row.good_side(), good, "{n} players");
            assert_eq!(row.round_cap, cap, "{n} players");
            // Rule 13.1: the first threshold is the living count (everyone) + 1.
            assert_eq!(u32::from(n) + 1, threshold, "{n} players");
            assert_eq!(row.roles().len(), usize::from(n), "{n} players");
            for role in [
                Role::CommonFortune,
                Role::GreatFortune,
                Role::GreatMisfortune,
            ] {
                assert_eq!(
                    row.bag(role).total(),
                    10,
                    "rule 4.1: every bag starts with 10"
                );
            }
        }
        for n in [0, 3, 9, 200] {
            assert_eq!(SetupRow::for_players(n), None, "{n} players");
        }
    }

    #[test]
    fn dealing_is_deterministic_per_seed_and_follows_rule_4() {
        for players in MIN_PLAYERS..=MAX_PLAYERS {
            let row = SetupRow::for_players(players).expect("valid");
            for seed in 0..200 {
                let dealt = deal(&row, &mut ChaCha8Rng::seed_from_u64(seed));
                let again = deal(&row, &mut ChaCha8Rng::seed_from_u64(seed));
                assert_eq!(dealt, again, "same seed, same deal");
                let mut roles: Vec<Role> = dealt.iter().map(|d| d.role).collect();
                let mut expected = row.roles();
                roles.sort_by_key(|r| *r as u8);
                expected.sort_by_key(|r| *r as u8);
                assert_eq!(roles, expected, "rule 4.2: the multiset is dealt");
                let special: Vec<u32> = dealt
                    .iter()
                    .filter(|d| d.role != Role::CommonFortune)
                    .map(|d| d.awakening_round)
                    .collect();
                assert!(
                    special.windows(2).all(|w| w[0] == w[1]),
                    "rule 1.3: GF and GMs awaken together"
                );
                for d in &dealt {
                    assert!((2..=4).contains(&d.awakening_round), "rule 4.4: {d:?}");
                }
            }
        }
    }

    #[test]
    fn deals_vary_and_cover_every_seat_and_round() {
        let row = SetupRow::for_players(6).expect("valid");
        let mut gm_seats = [0u32; 6];
        let mut rounds = [0u32; 5];
        for seed in 0..600 {
            let dealt = deal(&row, &mut ChaCha8Rng::seed_from_u64(seed));
            for (seat, d) in dealt.iter().enumerate() {
                if d.role == Role::GreatMisfortune {
                    gm_seats[seat] += 1;
                }
                rounds[d.awakening_round as usize] += 1;
            }
        }
        // Uniform deal (rule 4.2): each seat is the GM about 100 times in 600.
        assert!(
            gm_seats.iter().all(|&c| (50..150).contains(&c)),
            "{gm_seats:?}"
        );
        assert_eq!(rounds[0] + rounds[1], 0);
        assert!(rounds[2..].iter().all(|&c| c > 900), "{rounds:?}");
    }

    #[test]
    fn draws_come_from_the_bag_without_replacement() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let one_bad = Bag::new(3, 0, 1);
        let mut bad_first = 0;
        for _ in 0..2_000 {
            let [a, b] = one_bad.draw_two(&mut rng).expect("two tokens");
            assert!(!(a == Token::Bad && b == Token::Bad), "only one Bad token");
            assert_ne!(a, Token::Neutral);
            bad_first += u32::from(a == Token::Bad);
        }
        // P(first is Bad) = 1/4.
        assert!((400..600).contains(&bad_first), "{bad_first}");
        assert_eq!(Bag::new(0, 0, 1).draw_two(&mut rng), None);
        assert_eq!(Bag::new(0, 0, 0).draw_one(&mut rng), None);
        assert_eq!(Bag::new(1, 2, 3).with_added(Token::Bad), Bag::new(1, 2, 4));
    }
}
