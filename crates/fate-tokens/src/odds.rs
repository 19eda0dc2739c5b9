//! The probability model: how likely each player is to be each role, from what has been seen
//! (seed 003 §05, "the graph of fate").
//!
//! The model multiplies the prior of the deal by the likelihood of every observation under
//! each role, and normalises. Everything is integer arithmetic (`+ − × ÷` on `u32`, `u64` and
//! `u128`, no floating point), so every machine computes the same numbers.
//!
//! # Likelihoods
//!
//! Each role's bag is its starting bag for the player count (rule 4.1, [`SetupRow::bag`]).
//! Bless, curse and the vote penalty change bags during play; those changes are not modelled.
//! An observation's likelihood depends on how the token came to be seen:
//!
//! - [`best_of_2`]: a revealed day token (rule 8.2): two tokens are drawn without replacement
//!   and, the model assumes, the better one is revealed (Good > Neutral > Bad);
//! - [`worst_of_2`]: a private-pile token (threshold reveal, peek): the one kept back, so the
//!   worse of the two;
//! - [`share`]: a token drawn straight from the bag (an accusation's price, Ghost's Eye):
//!   its count over the bag's total.
//!
//! Each is an exact fraction, [`Likelihood`]; [`Likelihood::per_mille`] rounds it to
//! per-mille, half up.
//!
//! # Posterior
//!
//! The deal (rule 4.2) shuffles the role multiset uniformly, so every distinct assignment of
//! roles to seats is equally likely a priori. [`posterior`] enumerates them (at most 168, for
//! 8 players: 8 seats for the GF times 21 pairs of GMs), weighs each by the product over
//! players of that player's likelihood under the assigned role, and sums the weights of the
//! assignments giving each player each role. Known facts (a revealed GM, an exiled non-GM, a
//! declared "not the Great Fortune", one's own role) are likelihoods of 0 or 1, so they drop
//! the assignments they contradict; the role counts then shift the others (if one of two GMs
//! is known, the other is among the rest).
//!
//! **Scaling rule.** A player's likelihood vector (one value per role) is a product of exact
//! integer numerators: each factor is the role's numerator times the other two roles'
//! denominators, so the three values share one denominator, which cancels. Only the ratios
//! within a player's vector matter, so the vector is rescaled as it grows: whenever its largest
//! value exceeds 2^64 it becomes `v × 2^48 / max` (floor, computed exactly although the product
//! may exceed 128 bits), and at the end, if it exceeds 2^13,
//! `v × 2^13 / max` (floor). In both, a non-zero value that would floor to 0 is kept at 1, so scaling never
//! turns a possible role into an impossible one. The joint weights (at most 2^104 each, at most
//! 168 of them, times 1000) then fit in `u128`.
//!
//! **Rounding rule.** Each player's three probabilities are rounded to per-mille by the
//! largest-remainder method so that they sum to exactly 1000: each gets
//! `floor(1000 × weight / total)`, and the units still missing go, one each, to the roles with
//! the largest remainders `(1000 × weight) mod total`; equal remainders go in the order Common
//! Fortune, Great Fortune, Great Misfortune.
//!
//! # Public and private
//!
//! [`public_graph`] computes the odds after each round from public information only (what the
//! server shows everyone at the end). A bot adds what only it knows (its role, its fellow GMs,
//! peeked tokens, Ghost's Eye tokens, its own pile) with [`History::add_private`] or
//! [`History::private_from_view`], then calls the same functions. A helper's whisper (a count
//! of Bad tokens across two piles) ties two players' piles together; the model does not use
//! it.

use arbiter_rules::Seat;

use crate::night::NightResult;
use crate::setup::{Bag, Role, SetupRow, Token};
use crate::state::Life;
use crate::view::FateView;

/// An exact probability `num / den`, `den > 0` unless the bag had too few tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Likelihood {
    /// Numerator.
    pub num: u64,
    /// Denominator; 0 only for a bag too small to draw from, whose likelihoods are all 0/0.
    pub den: u64,
}

impl Likelihood {
    /// The probability in per-mille, rounded half up: `floor((2000 × num + den) / (2 × den))`.
    /// A `0/0` likelihood is 0.
    pub fn per_mille(self) -> u32 {
        if self.den == 0 {
            return 0;
        }
        let rounded =
            (2000 * u128::from(self.num) + u128::from(self.den)) / (2 * u128::from(self.den));
        u32::try_from(rounded).unwrap_or(u32::MAX)
    }
}

/// `n` choose 2.
fn pairs(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// The rank of a token, higher is better: Good 2, Neutral 1, Bad 0.
fn rank(kind: Token) -> u8 {
    match kind {
        Token::Good => 2,
        Token::Neutral => 1,
        Token::Bad => 0,
    }
}

/// How many tokens in `bag` rank at least as high as `kind`.
fn at_least(bag: Bag, kind: Token) -> u64 {
    [Token::Good, Token::Neutral, Token::Bad]
        .into_iter()
        .filter(|&k| rank(k) >= rank(kind))
        .map(|k| u64::from(bag.count(k)))
        .sum()
}

/// How many tokens in `bag` rank at most as high as `kind`.
fn at_most(bag: Bag, kind: Token) -> u64 {
    [Token::Good, Token::Neutral, Token::Bad]
        .into_iter()
        .filter(|&k| rank(k) <= rank(kind))
        .map(|k| u64::from(bag.count(k)))
        .sum()
}

/// The probability that the better of two tokens drawn from `bag` without replacement is
/// `kind`: the revealed day token (rule 8.2). The better one is at most `kind` in both draws,
/// less the pairs where it is below `kind`: `(C(≤kind, 2) − C(<kind, 2)) / C(total, 2)`.
///
/// For a 3·4·3 bag, Good: `(45 − 21) / 45 = 24/45`.
pub fn best_of_2(bag: Bag, kind: Token) -> Likelihood {
    let total = u64::from(bag.total());
    let not_better = at_most(bag, kind);
    let worse = not_better - u64::from(bag.count(kind));
    Likelihood {
        num: pairs(not_better) - pairs(worse),
        den: pairs(total),
    }
}

/// The probability that the worse of two tokens drawn from `bag` without replacement is
/// `kind`: the token a player keeps in their private pile (rule 8.2).
/// `(C(≥kind, 2) − C(>kind, 2)) / C(total, 2)`.
///
/// For a 2·3·5 bag, Bad: `(45 − 10) / 45 = 35/45`.
pub fn worst_of_2(bag: Bag, kind: Token) -> Likelihood {
    let total = u64::from(bag.total());
    let not_worse = at_least(bag, kind);
    let better = not_worse - u64::from(bag.count(kind));
    Likelihood {
        num: pairs(not_worse) - pairs(better),
        den: pairs(total),
    }
}

/// The probability that one token drawn from `bag` is `kind`: `count / total`. For a token
/// seen straight from a bag (an accusation's price, Ghost's Eye).
pub fn share(bag: Bag, kind: Token) -> Likelihood {
    Likelihood {
        num: u64::from(bag.count(kind)),
        den: u64::from(bag.total()),
    }
}

/// What was learnt about one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Evidence {
    /// A token they revealed by day: likelihood [`best_of_2`].
    Revealed(Token),
    /// A token of their private pile (threshold reveal, peek): likelihood [`worst_of_2`].
    Pile(Token),
    /// A token drawn straight from their bag (accusation price, Ghost's Eye): [`share`].
    FromBag(Token),
    /// They are known to have this role (a failed pathfinder or exiled GM, one's own role,
    /// a fellow GM).
    Is(Role),
    /// They are known not to have this role (an exiled non-GM, "not the Great Fortune").
    IsNot(Role),
}

/// One observation: in `round`, `evidence` about `seat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Observation {
    /// The round in which it became known.
    pub round: u32,
    /// The player it is about.
    pub seat: Seat,
    /// What was learnt.
    pub evidence: Evidence,
}

/// The input of the model: the player count and what was observed, round by round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    /// The number of players (4 to 8).
    pub players: u8,
    /// The last round to report in a graph.
    pub rounds: u32,
    /// Everything observed, in any order.
    pub observations: Vec<Observation>,
}

/// One player's odds, in per-mille; the three sum to exactly 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Odds {
    /// Common Fortune.
    pub common_fortune: u32,
    /// Great Fortune.
    pub great_fortune: u32,
    /// Great Misfortune.
    pub great_misfortune: u32,
}

/// Why the model cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OddsError {
    /// The player count is outside 4 to 8.
    #[error("{0} players: the model covers 4 to 8")]
    Players(u8),
    /// An observation names a seat the game does not have.
    #[error("seat {0} is not at the table")]
    Seat(u8),
    /// No assignment of roles agrees with the known facts.
    #[error("the known facts contradict each other")]
    Contradiction,
}

/// The roles in the order the rounding rule breaks ties: CF, GF, GM.
const ROLES: [Role; 3] = [
    Role::CommonFortune,
    Role::GreatFortune,
    Role::GreatMisfortune,
];

fn role_index(role: Role) -> usize {
    match role {
        Role::CommonFortune => 0,
        Role::GreatFortune => 1,
        Role::GreatMisfortune => 2,
    }
}

/// One factor per role for `evidence`: exact numerators over a common denominator.
fn factors(row: &SetupRow, evidence: Evidence) -> [u128; 3] {
    let fact = |keep: &dyn Fn(Role) -> bool| ROLES.map(|r| u128::from(keep(r)));
    let likelihood: fn(Bag, Token) -> Likelihood;
    let kind = match evidence {
        Evidence::Is(role) => return fact(&|r| r == role),
        Evidence::IsNot(role) => return fact(&|r| r != role),
        Evidence::Revealed(kind) => {
            likelihood = best_of_2;
            kind
        }
        Evidence::Pile(kind) => {
            likelihood = worst_of_2;
            kind
        }
        Evidence::FromBag(kind) => {
            likelihood = share;
            kind
        }
    };
    let l = ROLES.map(|r| likelihood(row.bag(r), kind));
    // num_r × (the other roles' denominators): the common denominator is the product of all.
    [0, 1, 2].map(|i| {
        (0..3)
            .map(|j| u128::from(if i == j { l[j].num } else { l[j].den }))
            .product()
    })
}

/// A sort key for evidence: its kind, then its token or role.
fn evidence_key(evidence: Evidence) -> (u8, u8) {
    match evidence {
        Evidence::Revealed(t) => (0, rank(t)),
        Evidence::Pile(t) => (1, rank(t)),
        Evidence::FromBag(t) => (2, rank(t)),
        Evidence::Is(r) => (3, role_index(r) as u8),
        Evidence::IsNot(r) => (4, role_index(r) as u8),
    }
}

/// Rescales `v` so that its largest value is `scale`, keeping non-zero values at least 1.
fn rescale(v: &mut [u128; 3], scale: u128) {
    let max = v.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return;
    }
    for x in v.iter_mut() {
        if *x > 0 {
            *x = scaled(*x, scale, max).max(1);
        }
    }
}

/// `floor(x × scale / max)` for `x ≤ max < 2^96` and `scale` a power of two, exactly, by long
/// division in base 2^32: the product itself can exceed `u128` (a vector just under 2^64
/// times a factor of up to 2^17, rescaled to 2^48).
fn scaled(x: u128, scale: u128, max: u128) -> u128 {
    debug_assert!(scale.is_power_of_two() && x <= max && max < 1 << 96);
    let mut quotient = x / max;
    let mut remainder = x % max;
    let mut bits = scale.trailing_zeros();
    while bits > 0 {
        let step = bits.min(32);
        let shifted = remainder << step;
        quotient = (quotient << step) + shifted / max;
        remainder = shifted % max;
        bits -= step;
    }
    quotient
}

/// The posterior odds of every player from `observations`, in seat order.
///
/// See the module documentation for the scaling and rounding rules.
pub fn posterior<'a>(
    players: u8,
    observations: impl IntoIterator<Item = &'a Observation>,
) -> Result<Vec<Odds>, OddsError> {
    let row = SetupRow::for_players(players).ok_or(OddsError::Players(players))?;
    let n = usize::from(players);
    let mut weights = vec![[1u128; 3]; n];
    // A fixed order, so that rescaling (which depends on the order) does not depend on the
    // caller's.
    let mut observations: Vec<&Observation> = observations.into_iter().collect();
    observations.sort_by_key(|o| (o.seat.0, o.round, evidence_key(o.evidence)));
    for o in observations {
        let w = weights
            .get_mut(o.seat.index())
            .ok_or(OddsError::Seat(o.seat.0))?;
        let f = factors(&row, o.evidence);
        for (x, y) in w.iter_mut().zip(f) {
            // x ≤ 2^64 and y ≤ 45^3 < 2^17: no overflow.
            *x *= y;
        }
        if w.iter().any(|&x| x > 1 << 64) {
            rescale(w, 1 << 48);
        }
    }
    for w in &mut weights {
        if w.iter().any(|&x| x > 1 << 13) {
            rescale(w, 1 << 13);
        }
    }

    // Enumerate the assignments: a GF seat, and a set of GM seats among the others.
    let gms = usize::from(row.great_misfortunes);
    let mut marginal = vec![[0u128; 3]; n];
    let mut total = 0u128;
    let mut roles = vec![Role::CommonFortune; n];
    for gf in 0..n {
        for mask in 0u32..(1 << n) {
            if mask & (1 << gf) != 0 || mask.count_ones() as usize != gms {
                continue;
            }
            for (seat, role) in roles.iter_mut().enumerate() {
                *role = if seat == gf {
                    Role::GreatFortune
                } else if mask & (1 << seat) != 0 {
                    Role::GreatMisfortune
                } else {
                    Role::CommonFortune
                };
            }
            let weight: u128 = roles
                .iter()
                .zip(&weights)
                .map(|(&r, w)| w[role_index(r)])
                .product();
            if weight == 0 {
                continue;
            }
            total += weight;
            for (m, &r) in marginal.iter_mut().zip(&roles) {
                m[role_index(r)] += weight;
            }
        }
    }
    if total == 0 {
        return Err(OddsError::Contradiction);
    }
    Ok(marginal.iter().map(|m| per_mille_sum(m, total)).collect())
}

/// Largest-remainder rounding of `m / total` to per-mille summing to 1000.
fn per_mille_sum(m: &[u128; 3], total: u128) -> Odds {
    let mut shares = m.map(|x| (x * 1000 / total, x * 1000 % total));
    let floor_sum: u128 = shares.iter().map(|s| s.0).sum();
    let mut order = [0usize, 1, 2];
    // Stable sort: equal remainders keep CF, GF, GM order.
    order.sort_by(|&a, &b| shares[b].1.cmp(&shares[a].1));
    for &i in order
        .iter()
        .take(usize::try_from(1000 - floor_sum).unwrap_or(0))
    {
        shares[i].0 += 1;
    }
    let pm = |i: usize| u32::try_from(shares[i].0).unwrap_or(u32::MAX);
    Odds {
        common_fortune: pm(0),
        great_fortune: pm(1),
        great_misfortune: pm(2),
    }
}

/// The odds after each round, from round 1 to `history.rounds`: entry `r − 1` uses every
/// observation of rounds up to `r`. Fed public observations only, this is the public graph
/// of seed 003 §05; fed a bot's private history, it is that bot's view of the game.
pub fn public_graph(history: &History) -> Result<Vec<Vec<Odds>>, OddsError> {
    (1..=history.rounds)
        .map(|r| {
            posterior(
                history.players,
                history.observations.iter().filter(|o| o.round <= r),
            )
        })
        .collect()
}

impl History {
    /// The odds after everything in the history.
    pub fn odds(&self) -> Result<Vec<Odds>, OddsError> {
        posterior(self.players, &self.observations)
    }

    /// Adds observations only one player knows, for that player's private odds.
    pub fn add_private(&mut self, private: impl IntoIterator<Item = Observation>) {
        self.observations.extend(private);
    }

    /// The public history as `view` shows it (any viewer's view: only its public part is read).
    ///
    /// - revealed rows: token `k` of a row was revealed in round `k + 1` (every player draws
    ///   each round from round 1 while living, rule 8.1);
    /// - each trial's price, from the accuser's bag, in the trial's round;
    /// - each resolved exile's "was / was not a GM", in the trial's round, and a counter's
    ///   named player is not the GF (rule 16.2), in the trial's round;
    /// - a ghost or out player publicly known as a GM otherwise (a failed pathfinder), a
    ///   declared "not the Great Fortune" otherwise, and the pile tokens the threshold has
    ///   revealed: the view does not say when these became public, so they are dated to the
    ///   view's round. Extracting each round's view gives an exact per-round graph.
    ///
    /// The viewer's own exposed tokens are hidden from their own view (rule 13.4); they come
    /// back in [`History::private_from_view`] through the viewer's pile.
    pub fn public_from_view(view: &FateView) -> History {
        let now = view.round;
        let mut obs = Vec::new();
        let mut dated_gm = Vec::new();
        let mut dated_not_gf = Vec::new();
        for t in &view.trials {
            obs.push(Observation {
                round: t.round,
                seat: t.accuser,
                evidence: Evidence::FromBag(t.price),
            });
            if let Some(was) = t.was_great_misfortune {
                obs.push(Observation {
                    round: t.round,
                    seat: t.accused,
                    evidence: if was {
                        Evidence::Is(Role::GreatMisfortune)
                    } else {
                        Evidence::IsNot(Role::GreatMisfortune)
                    },
                });
                dated_gm.push(t.accused);
            }
            if let Some(Some(named)) = t.counter {
                obs.push(Observation {
                    round: t.round,
                    seat: named,
                    evidence: Evidence::IsNot(Role::GreatFortune),
                });
                dated_not_gf.push(named);
            }
        }
        for s in &view.seats {
            for (k, &token) in s.revealed.iter().enumerate() {
                obs.push(Observation {
                    round: u32::try_from(k + 1).unwrap_or(u32::MAX),
                    seat: s.seat,
                    evidence: Evidence::Revealed(token),
                });
            }
            if s.was_great_misfortune == Some(true)
                && matches!(s.life, Life::Ghost | Life::Out)
                && !dated_gm.contains(&s.seat)
            {
                obs.push(Observation {
                    round: now,
                    seat: s.seat,
                    evidence: Evidence::Is(Role::GreatMisfortune),
                });
            }
            if s.not_great_fortune && !dated_not_gf.contains(&s.seat) {
                obs.push(Observation {
                    round: now,
                    seat: s.seat,
                    evidence: Evidence::IsNot(Role::GreatFortune),
                });
            }
            for &token in &s.exposed {
                obs.push(Observation {
                    round: now,
                    seat: s.seat,
                    evidence: Evidence::Pile(token),
                });
            }
        }
        History {
            players: view.setup.players,
            rounds: now,
            observations: obs,
        }
    }

    /// The viewer's private history: [`History::public_from_view`] plus what the view's own
    /// part adds, dated to the view's round (the view does not say when it was learnt):
    /// the viewer's role once known, their fellow GMs, every token of their own pile (which
    /// is evidence about their own role while they have not awakened), every peeked token
    /// and every Ghost's Eye token. A slot peeked twice counts once; a peeked slot that the
    /// threshold also revealed counts twice, because the public reveal does not say which slot
    /// it was (rule 13.4). Whispers are not used (see the module documentation). A view
    /// without an own part gives the public history.
    pub fn private_from_view(view: &FateView) -> History {
        let mut history = History::public_from_view(view);
        let Some(own) = &view.own else {
            return history;
        };
        let now = view.round;
        let at = |seat: Seat, evidence: Evidence| Observation {
            round: now,
            seat,
            evidence,
        };
        let mut private = Vec::new();
        if let Some(role) = own.role {
            private.push(at(own.seat, Evidence::Is(role)));
        }
        for &fellow in &own.fellow_great_misfortunes {
            private.push(at(fellow, Evidence::Is(Role::GreatMisfortune)));
        }
        for slot in &own.pile {
            private.push(at(own.seat, Evidence::Pile(slot.token)));
        }
        let mut peeked = Vec::new();
        for result in &own.results {
            match *result {
                NightResult::Peek {
                    target,
                    seen: Some((slot, token)),
                } if !peeked.contains(&(target, slot)) => {
                    peeked.push((target, slot));
                    private.push(at(target, Evidence::Pile(token)));
                }
                NightResult::Eye {
                    target,
                    seen: Some(token),
                } => private.push(at(target, Evidence::FromBag(token))),
                _ => {}
            }
        }
        history.add_private(private);
        history
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [Token; 3] = [Token::Good, Token::Neutral, Token::Bad];

    fn obs(round: u32, seat: u8, evidence: Evidence) -> Observation {
        Observation {
            round,
            seat: Seat(seat),
            evidence,
        }
    }

    fn odds(cf: u32, gf: u32, gm: u32) -> Odds {
        Odds {
            common_fortune: cf,
            great_fortune: gf,
            great_misfortune: gm,
        }
    }

    fn sums_to_1000(o: &Odds) -> bool {
        o.common_fortune + o.great_fortune + o.great_misfortune == 1000
    }

    #[test]
    fn likelihood_tables_match_hand_computation() {
        // (players, role, numerators over 45 of best_of_2 and worst_of_2 for Good, Neutral,
        // Bad, then per-mille of best_of_2, worst_of_2 and share). C(10, 2) = 45.
        type Row = (u8, Role, [u64; 3], [u64; 3], [u32; 3], [u32; 3], [u32; 3]);
        let table: &[Row] = &[
            // CF 3·4·3: best Good = 45 − C(7,2) = 24, Bad = C(3,2) = 3.
            (
                5,
                Role::CommonFortune,
                [24, 18, 3],
                [3, 18, 24],
                [533, 400, 67],
                [67, 400, 533],
                [300, 400, 300],
            ),
            // GF 6·2·2: best Good = 45 − C(4,2) = 39; worst Bad = 45 − C(8,2) = 17.
            (
                6,
                Role::GreatFortune,
                [39, 5, 1],
                [15, 13, 17],
                [867, 111, 22],
                [333, 289, 378],
                [600, 200, 200],
            ),
            // GM 2·3·5 (5 to 7 players): best Good = 45 − C(8,2) = 17; worst Bad =
            // 45 − C(5,2) = 35.
            (
                5,
                Role::GreatMisfortune,
                [17, 18, 10],
                [1, 9, 35],
                [378, 400, 222],
                [22, 200, 778],
                [200, 300, 500],
            ),
            // GM 2·2·6 (4 and 8 players): best Bad = C(6,2) = 15; worst Bad = 45 − C(4,2).
            (
                8,
                Role::GreatMisfortune,
                [17, 13, 15],
                [1, 5, 39],
                [378, 289, 333],
                [22, 111, 867],
                [200, 200, 600],
            ),
            (
                8,
                Role::CommonFortune,
                [24, 18, 3],
                [3, 18, 24],
                [533, 400, 67],
                [67, 400, 533],
                [300, 400, 300],
            ),
        ];
        for &(players, role, best, worst, best_pm, worst_pm, share_pm) in table {
            let bag = SetupRow::for_players(players).expect("valid").bag(role);
            for (i, kind) in KINDS.into_iter().enumerate() {
                let context = format!("{players} players, {role:?}, {kind:?}");
                assert_eq!(
                    best_of_2(bag, kind),
                    Likelihood {
                        num: best[i],
                        den: 45
                    },
                    "{context}"
                );
                assert_eq!(
                    worst_of_2(bag, kind),
                    Likelihood {
                        num: worst[i],
                        den: 45
                    },
                    "{context}"
                );
                assert_eq!(best_of_2(bag, kind).per_mille(), best_pm[i], "{context}");
                assert_eq!(worst_of_2(bag, kind).per_mille(), worst_pm[i], "{context}");
                assert_eq!(share(bag, kind).per_mille(), share_pm[i], "{context}");
            }
            for f in [best_of_2, worst_of_2, share] {
                let l = KINDS.map(|k| f(bag, k));
                assert_eq!(l.iter().map(|l| l.num).sum::<u64>(), l[0].den, "exact sum");
                assert_eq!(l.iter().map(|l| l.per_mille()).sum::<u32>(), 1000);
            }
        }
    }

    #[test]
    fn likelihoods_of_any_small_bag_sum_to_one() {
        for g in 0..5u16 {
            for n in 0..5u16 {
                for b in 0..5u16 {
                    let bag = Bag::new(g, n, b);
                    for f in [best_of_2, worst_of_2, share] {
                        let l = KINDS.map(|k| f(bag, k));
                        let den = l[0].den;
                        assert!(l.iter().all(|x| x.den == den));
                        let sum: u64 = l.iter().map(|l| l.num).sum();
                        // A bag too small to draw from gives 0/0 throughout.
                        assert_eq!(sum, den, "{bag:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn per_mille_rounds_half_up() {
        let pm = |num, den| Likelihood { num, den }.per_mille();
        assert_eq!(pm(1, 2000), 1, "0.5‰ rounds up");
        assert_eq!(pm(1, 2001), 0);
        assert_eq!(pm(2, 3), 667);
        assert_eq!(pm(1, 3), 333);
        assert_eq!(pm(24, 45), 533);
        assert_eq!(pm(45, 45), 1000);
        assert_eq!(pm(0, 0), 0);
    }

    #[test]
    fn the_prior_follows_the_role_counts() {
        // 6 players: 4/6, 1/6, 1/6 = 666.67, 166.67, 166.67; equal remainders go CF, GF first.
        let six = posterior(6, &[]).expect("valid");
        assert_eq!(six, vec![odds(667, 167, 166); 6]);
        // 8 players: 5/8, 1/8, 2/8 exactly.
        assert_eq!(
            posterior(8, &[]).expect("valid"),
            vec![odds(625, 125, 250); 8]
        );
        // 4 players: 2/4, 1/4, 1/4.
        assert_eq!(
            posterior(4, &[]).expect("valid"),
            vec![odds(500, 250, 250); 4]
        );
        // 7 players: 4/7, 1/7, 2/7 = 571.43, 142.86, 285.71: floors 998, GF then GM get one.
        assert_eq!(
            posterior(7, &[]).expect("valid"),
            vec![odds(571, 143, 286); 7]
        );
    }

    #[test]
    fn one_bad_token_by_hand() {
        // 4 players, seat 0 reveals one Bad: likelihoods CF 3 (3·4·3), GF 1 (4·4·2), GM 15
        // (2·2·6) over 45; the others are unchanged. 12 assignments: seat 0 is GM in 3
        // (weight 15 each), GF in 3 (1 each), CF in 6 (3 each): 45, 3, 18 out of 66 = 681.8,
        // 45.5, 272.7 → the two largest remainders (GM .82, CF .73) get the missing units.
        let o = posterior(4, &[obs(1, 0, Evidence::Revealed(Token::Bad))]).expect("valid");
        assert_eq!(o[0], odds(273, 45, 682));
        // Seat 1, weighed by seat 0's role (CF 3, GF 1, GM 15):
        // GM: seat 0 CF (2 ways) 6, seat 0 GF (1 way) 1: 7/66 = 106.06;
        // GF: seat 0 CF (2 ways) 6, seat 0 GM (1 way) 15: 21/66 = 318.18;
        // CF: seat 0 GM (2 ways) 30, GF (2 ways) 2, CF (2 ways) 6: 38/66 = 575.76.
        // Floors sum to 999; the largest remainder (CF, .76) gets the unit.
        assert_eq!(o[1], odds(576, 318, 106));
        assert_eq!(o[1], o[2]);
        assert_eq!(o[1], o[3]);
    }

    #[test]
    fn bad_tokens_move_a_player_toward_great_misfortune() {
        // Seat 2 reveals Bad every round; the others reveal Good and Neutral alternately.
        let mut observations = Vec::new();
        for round in 1..=5 {
            for seat in 0..6 {
                let token = match (seat, round % 2) {
                    (2, _) => Token::Bad,
                    (_, 0) => Token::Good,
                    _ => Token::Neutral,
                };
                observations.push(obs(round, seat, Evidence::Revealed(token)));
            }
        }
        let history = History {
            players: 6,
            rounds: 5,
            observations,
        };
        let graph = public_graph(&history).expect("valid");
        assert_eq!(graph.len(), 5);
        let mut last = posterior(6, &[]).expect("valid")[2].great_misfortune;
        for (r, round) in graph.iter().enumerate() {
            assert!(round.iter().all(sums_to_1000));
            let gm = round[2].great_misfortune;
            assert!(gm > last, "round {}: {gm} after {last}", r + 1);
            last = gm;
            for (seat, o) in round.iter().enumerate() {
                if seat != 2 {
                    assert!(o.great_misfortune < gm);
                    assert_eq!(*o, round[0], "symmetry: identical observations");
                }
            }
        }
        assert!(last > 900, "five Bad tokens in a row: {last}");
        assert_eq!(history.odds().expect("valid"), graph[4]);
    }

    #[test]
    fn a_pile_bad_is_less_suspicious_than_a_revealed_bad() {
        let revealed = posterior(6, &[obs(1, 0, Evidence::Revealed(Token::Bad))]).expect("valid");
        let pile = posterior(6, &[obs(1, 0, Evidence::Pile(Token::Bad))]).expect("valid");
        let bag = posterior(6, &[obs(1, 0, Evidence::FromBag(Token::Bad))]).expect("valid");
        let prior = posterior(6, &[]).expect("valid")[0].great_misfortune;
        assert!(prior < pile[0].great_misfortune);
        assert!(pile[0].great_misfortune < bag[0].great_misfortune);
        assert!(bag[0].great_misfortune < revealed[0].great_misfortune);
    }

    #[test]
    fn known_facts_fix_roles() {
        // One GM (6 players), known: 1000 for them, 0 for everyone else.
        let o = posterior(6, &[obs(2, 3, Evidence::Is(Role::GreatMisfortune))]).expect("valid");
        assert_eq!(o[3], odds(0, 0, 1000));
        for (seat, x) in o.iter().enumerate() {
            if seat != 3 {
                assert_eq!(*x, odds(800, 200, 0), "seat {seat}");
            }
        }
        // Two GMs (8 players), one known: the other is among the remaining 7.
        let o = posterior(8, &[obs(2, 0, Evidence::Is(Role::GreatMisfortune))]).expect("valid");
        assert_eq!(o[0], odds(0, 0, 1000));
        assert_eq!(o[1], odds(714, 143, 143), "5/7, 1/7, 1/7");
        // An exiled non-GM: not a GM, whatever their tokens.
        let o = posterior(
            6,
            &[
                obs(1, 1, Evidence::Revealed(Token::Bad)),
                obs(2, 1, Evidence::Revealed(Token::Bad)),
                obs(3, 1, Evidence::IsNot(Role::GreatMisfortune)),
            ],
        )
        .expect("valid");
        assert_eq!(o[1].great_misfortune, 0);
        assert!(o.iter().all(sums_to_1000));
        // "Not the Great Fortune".
        let o = posterior(5, &[obs(1, 4, Evidence::IsNot(Role::GreatFortune))]).expect("valid");
        assert_eq!(o[4], odds(750, 0, 250));
    }

    #[test]
    fn private_knowledge_sharpens_the_odds() {
        // Seat 0 knows it is a CF: of the 5 others (6 players), 3 CFs, 1 GF, 1 GM.
        let mut history = History {
            players: 6,
            rounds: 1,
            observations: vec![obs(1, 1, Evidence::Revealed(Token::Bad))],
        };
        let public = history.odds().expect("valid");
        history.add_private([obs(1, 0, Evidence::Is(Role::CommonFortune))]);
        let private = history.odds().expect("valid");
        assert_eq!(private[0], odds(1000, 0, 0));
        assert!(private[1].great_misfortune > public[1].great_misfortune);
        assert_eq!(private[2], private[5]);
        // A peeked pile token of seat 2.
        history.add_private([obs(1, 2, Evidence::Pile(Token::Good))]);
        let peeked = history.odds().expect("valid");
        assert!(peeked[2].great_misfortune < private[2].great_misfortune);
        assert!(peeked[2].great_fortune > private[2].great_fortune);
    }

    #[test]
    fn errors() {
        assert_eq!(posterior(3, &[]), Err(OddsError::Players(3)));
        assert_eq!(posterior(9, &[]), Err(OddsError::Players(9)));
        assert_eq!(
            posterior(4, &[obs(1, 4, Evidence::Revealed(Token::Good))]),
            Err(OddsError::Seat(4))
        );
        let two_gfs = [
            obs(1, 0, Evidence::Is(Role::GreatFortune)),
            obs(1, 1, Evidence::Is(Role::GreatFortune)),
        ];
        assert_eq!(posterior(5, &two_gfs), Err(OddsError::Contradiction));
        let history = History {
            players: 5,
            rounds: 2,
            observations: vec![two_gfs[0], obs(2, 1, Evidence::Is(Role::GreatFortune))],
        };
        assert_eq!(public_graph(&history), Err(OddsError::Contradiction));
    }

    #[test]
    fn rescaling_never_overflows() {
        // Seat 0's vector passes 2^64 at its last observation at about 2^81, which times the
        // 2^48 of the rescaling overflowed u128 (found by bot games). The expected odds come
        // from the rules above computed with unbounded integers.
        let seat0 = [
            obs(1, 0, Evidence::Pile(Token::Bad)),
            obs(3, 0, Evidence::Revealed(Token::Bad)),
            obs(3, 0, Evidence::Revealed(Token::Bad)),
            obs(4, 0, Evidence::FromBag(Token::Neutral)),
            obs(5, 0, Evidence::Pile(Token::Good)),
            obs(8, 0, Evidence::Pile(Token::Bad)),
        ];
        let o = posterior(6, &seat0).expect("valid");
        assert_eq!(o[0], odds(398, 14, 588));
        assert_eq!(o[1], odds(721, 197, 82));
        // Exact long division agrees with the plain formula wherever that one fits.
        for (x, max) in [(0u128, 7u128), (5, 7), (7, 7), (1 << 63, (1 << 64) + 3)] {
            for scale in [1u128 << 13, 1 << 48] {
                assert_eq!(scaled(x, scale, max), x * scale / max);
            }
        }
        let big = (1u128 << 81) - 12_345;
        assert_eq!(scaled(big, 1 << 48, big), 1 << 48);
        assert_eq!(scaled(big / 2, 1 << 48, big), (1 << 47) - 1);
    }

    #[test]
    fn long_games_stay_in_range_and_are_deterministic() {
        // Far more observations than a game has, to exercise the rescaling: 8 players, 60
        // rounds of reveals and piles.
        let mut observations = Vec::new();
        for round in 1..=60u32 {
            for seat in 0..8u8 {
                let pick = (round * 7 + u32::from(seat) * 3) % 3;
                let token = KINDS[pick as usize];
                let token = if seat == 5 { Token::Bad } else { token };
                observations.push(obs(round, seat, Evidence::Revealed(token)));
                observations.push(obs(round, seat, Evidence::Pile(token)));
            }
        }
        let first = posterior(8, &observations).expect("valid");
        assert!(first.iter().all(sums_to_1000));
        assert!(first[5].great_misfortune > 990, "{:?}", first[5]);
        observations.reverse();
        assert_eq!(
            posterior(8, &observations).expect("valid"),
            first,
            "order-free"
        );
        assert_eq!(
            posterior(8, &observations).expect("valid"),
            first,
            "same again"
        );
    }
}
