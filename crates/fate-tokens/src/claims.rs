//! Claims and honesty verdicts (section 17, D29, D30).

use arbiter_rules::{Emitted, Events, RuleError, Seat};

use crate::rules::{FateEvent, Refusal};
use crate::setup::{Role, Token};
use crate::state::{Claim, FateState, JudgedClaim, NightRecord, PhaseKind, Verdict};

/// What a seat may claim in the open window (rule 17.3), in its own view only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClaimRight {
    /// The night the window is for.
    pub round: u32,
    /// For a CF, the fixed pair (their helper targets); `None`: any two players allowed.
    pub pair: Option<[Seat; 2]>,
}

impl FateState {
    /// The night whose claim window is open (rule 17.2, D29): from round k's claim/counter
    /// phase to the end of round k + 1's discussion; closed once the game is decided.
    pub(crate) fn claim_window(&self) -> Option<u32> {
        if self.finish.is_some() {
            return None;
        }
        match self.phase.kind() {
            PhaseKind::ClaimCounter => Some(self.round),
            PhaseKind::Draw | PhaseKind::Discussion => self.round.checked_sub(1).filter(|&k| k > 0),
            _ => None,
        }
    }

    fn night_record(&self, round: u32) -> Option<&NightRecord> {
        self.nights.iter().find(|n| n.round == round)
    }

    /// The helper targets `seat` used on night `round`, if any.
    fn helper_pair(&self, seat: Seat, round: u32) -> Option<[Seat; 2]> {
        self.night_record(round)?
            .forms
            .get(seat.index())?
            .as_ref()?
            .helper
            .map(|h| h.targets)
    }

    /// A private pile's size during night `round`: its slots from that round or earlier.
    fn pile_during(&self, seat: Seat, round: u32) -> usize {
        self.players[seat.index()]
            .pile
            .iter()
            .filter(|slot| slot.round <= round)
            .count()
    }

    /// Bad tokens in the pair's piles during night `round` (rules 11.12.4, 17.6).
    pub(crate) fn bad_during(&self, pair: [Seat; 2], round: u32) -> u32 {
        let bad = pair
            .iter()
            .flat_map(|s| self.players[s.index()].pile.iter())
            .filter(|slot| slot.round <= round && slot.token == Token::Bad)
            .count();
        u32::try_from(bad).unwrap_or(u32::MAX)
    }

    fn claimed(&self, seat: Seat, round: u32) -> bool {
        self.claims
            .iter()
            .any(|c| c.claimant == seat && c.round == round)
    }

    /// What `seat` may claim now (rule 17.3), if anything.
    pub(crate) fn claim_right(&self, seat: Seat) -> Option<ClaimRight> {
        let round = self.claim_window()?;
        let p = self.player(seat)?;
        if !(p.living() && p.awakened) || self.claimed(seat, round) {
            return None;
        }
        match p.role {
            Role::CommonFortune => self.helper_pair(seat, round).map(|pair| ClaimRight {
                round,
                pair: Some(pair),
            }),
            // "Every other day" at most: not after a claim in the previous window.
            Role::GreatFortune | Role::GreatMisfortune => {
                (!self.claimed(seat, round - 1)).then_some(ClaimRight { round, pair: None })
            }
        }
    }

    /// A claim, a free action (rules 5.6, 17.4): refused privately, never moves a deadline.
    pub(crate) fn claim(
        &mut self,
        seat: Seat,
        pair: [Seat; 2],
        bad: u32,
    ) -> Result<Events<FateEvent>, RuleError> {
        let refuse = |why: &'static str| -> RuleError { Refusal::Claim(why).into() };
        let right = self
            .claim_right(seat)
            .ok_or_else(|| refuse("no claim is open to you (rules 17.2, 17.3)"))?;
        let round = right.round;
        if pair[0] == pair[1] || pair.iter().any(|s| s.index() >= self.seat_count()) {
            return Err(refuse("name two different players (rule 17.3)"));
        }
        match right.pair {
            Some([a, b]) => {
                if !(pair == [a, b] || pair == [b, a]) {
                    return Err(refuse("a CF names exactly their helper targets (D29)"));
                }
            }
            None => {
                let living = self
                    .night_record(round)
                    .map(|n| n.living)
                    .unwrap_or_default();
                if pair.contains(&seat) || !pair.iter().all(|&s| living.contains(s)) {
                    return Err(refuse(
                        "name two other players who were living that night (rule 17.3)",
                    ));
                }
            }
        }
        let max = self.pile_during(pair[0], round) + self.pile_during(pair[1], round);
        if usize::try_from(bad).map_or(true, |n| n > max) {
            return Err(refuse(
                "the number is 0 to the pair's pile sizes (rule 17.3)",
            ));
        }
        let claim = Claim {
            round,
            claimant: seat,
            pair,
            bad,
        };
        self.claims.push(claim);
        Ok(vec![Emitted::public(FateEvent::Claimed(claim))])
    }

    /// Every claim with its verdict (rule 17.6, D30).
    pub(crate) fn verdicts(&self) -> Vec<JudgedClaim> {
        self.claims
            .iter()
            .map(|&claim| {
                let true_bad = self.bad_during(claim.pair, claim.round);
                let [a, b] = claim.pair;
                let verdict = match self.helper_pair(claim.claimant, claim.round) {
                    Some(pair) if pair == [a, b] || pair == [b, a] => {
                        if claim.bad == true_bad {
                            Verdict::Honest
                        } else {
                            Verdict::WrongNumber
                        }
                    }
                    _ => Verdict::NoHelper,
                };
                JudgedClaim {
                    claim,
                    verdict,
                    true_bad,
                }
            })
            .collect()
    }
}
