//! Rule bots for every role (seed 003 §10, "acting bots: passing for a Common Fortune, making
//! a scapegoat"), judging with the probability model of [`crate::odds`] (seed 003 §05).
//!
//! Two functions make up the whole interface, and both read nothing but one seat's
//! [`FateView`] and a generator:
//!
//! - [`decide`]: the decision the seat owes now (any phase kind, living, ghost or exiled), or
//!   `None` when it owes none;
//! - [`claims`]: the claims (section 17) the seat makes now.
//!
//! Bots are stateless: everything they know comes from the view, and every random choice
//! from the generator they are given. Every action they return quotes the view's phase number
//! and is legal in it (tests play thousands of bot games through [`FateTokens::apply`]).
//!
//! [`FateTokens::apply`]: crate::FateTokens
//!
//! # What a bot believes
//!
//! - **Public odds**: [`odds::posterior`] on [`History::public_from_view`], the numbers the
//!   end-of-game graph shows, exactly. A bot uses them to predict what the table thinks:
//!   whom it suspects (the scapegoat, the talisman, the guard) and how a reveal will look.
//! - **Private belief**: the same model (the same prior, the same likelihoods
//!   [`odds::best_of_2`], [`odds::worst_of_2`] and [`odds::share`], the same enumeration of
//!   every assignment of roles to seats) on [`History::private_from_view`], plus what the
//!   model leaves out because it ties several seats together:
//!   - the seat's own whispers (a CF's helper results): the Bad total of two piles of `k`
//!     slots each during night `k`, whose likelihood under each pair of roles is the
//!     convolution of two binomials with the roles' [`odds::worst_of_2`] Bad rates;
//!   - every other seat's claim: if the claimant is a CF, it is honest with probability
//!     0.95 (else any number), so it weighs like a whisper; if not, the number is made up
//!     and says nothing about the pair (half "what a CF pair would show", half any number).
//!     Where a claim names the bot itself, the bot's own pile count is used exactly, so a
//!     claim it knows to be false points at the claimant.
//!
//!   The claims and whispers weigh on the assignments jointly, so this belief is computed
//!   in floating point here rather than in the model's integers; it is a bot's opinion and
//!   never shown. Without whispers and claims it equals the model's private odds up to
//!   the model's rounding and scaling: the model keeps a role that a seat's evidence all
//!   but rules out at 2^-13 of that seat's likeliest role (its scaling rule), where the
//!   belief keeps the exact ratio, so for a seat that has shown a long run of Bad tokens
//!   the model still gives a few per mille to its being the GF and the belief almost none.
//!
//!   A CF bot's own whispers are evidence as they are, each dated by the night it was asked
//!   in (its pile sizes); its own claims add nothing to them.
//!
//! A seat's *suspects* are the other living players, less its fellow Great Misfortunes. The
//! *baseline* is the mean GM probability over the suspects (the prior, moved by what is
//! known), and a suspect is *clearly above* it when its probability exceeds
//! `baseline + (1 − baseline) × f`, where `f` falls from 0.25 in round 3 to 0 at the round
//! cap: the good side grows bolder as its time runs out (the Misfortune side wins at the
//! cap).
//!
//! # Behaviour
//!
//! **Draw: passing for a Common Fortune.** The seat reveals the token that makes its public
//! odds look most like a Common Fortune's after the reveal, computed with the public model:
//! the one that maximises its public P(CF) when unawakened or the Great Fortune, the one that
//! minimises its public P(GM) when an awakened CF or GM (a CF taken for the GF draws a
//! pathfinder, which only helps its side; a GM gains nothing by hiding the GF). The seed's
//! bots revealed the better token and a Great Fortune not yet awakened revealed Good 86 % of
//! the time, which got it found by the pathfinder; with this rule it reveals Good about half
//! the time (51 % in the tests' six-player games, where best play gives 88 %; the seed
//! measured 58 %). An unawakened seat does not know its role, so the
//! rule is the default for every role until awakening.
//!
//! **Discussion and trial**: ready at once (the bots do not chat).
//!
//! **Accusation** (rounds 3 and later): a good bot (and any unawakened one) accuses its top
//! suspect when that suspect is clearly above the baseline, else passes. A GM accuses its
//! scapegoat when the scapegoat is clearly above the *public* baseline (so the table is likely
//! to vote for it), or whenever the GM is itself the top public suspect: only the first
//! accusation proceeds, so accusing early may keep its own trial off the table.
//!
//! **Vote.** A good or unawakened bot votes yes when the accused is among its top suspects —
//! ranked within the number of GMs it expects among the suspects, or at least 0.8 times as
//! likely as the top one — and at least at the baseline; no otherwise. A GM votes no on a
//! fellow GM and yes on anyone else: every exile of a good player brings parity nearer.
//!
//! **Night, every living seat**: a suspicion mark on its top suspect (a GM: on its scapegoat).
//! The talisman, with probability ½, on a night when the seat is the top public suspect (the
//! GM's likely curse target, or for a GM the likely target of peeks), or, for the GF, when it
//! is the table's top GF candidate (the pathfinder's).
//!
//! **Common Fortune.** The helper on every helper night (it is mandatory): its two top
//! suspects, changing the second if the pair is the last one it checked; with probability
//! 0.2 it adds the Good count, the Neutral count or both (one third each), and so rests two
//! nights. It claims every helper result honestly, in the first phase the window is offered.
//! With probability ⅓ a night while the shield is whole, it guards the top public suspect
//! other than itself when it believes that player good (below the baseline): that is whom a
//! GM curses.
//!
//! **Great Fortune.** Peeks at its top suspect (not yet near-certain, above the baseline) with
//! probability 0.6, else blesses the top *public* suspect it believes good (a counter to the
//! scapegoat's curses), or, if none, a random suspect (a decoy for the pathfinder).
//!
//! **Great Misfortune: the scapegoat.** The scapegoat is the top public suspect other than
//! the GM and its fellows (ties broken at random). The GM curses it with probability 0.7, and
//! always when the GM is itself the top public suspect (the seed's "70 %, always when I am
//! first"); otherwise it peeks at its top GF candidate. It marks the scapegoat every night,
//! concentrating marks to push it over the suspicion threshold, and names the scapegoat in
//! its claims, with the Bad count a CF pair would show plus 1 or 2.
//!
//! **Pathfinder threshold.** A GM names its top GF candidate when it believes that candidate
//! is the GF with probability at least 0.8, or 0.6 while a fellow GM is living. A sole GM who
//! fails makes the good side win at once, while waiting costs little: it wins by surviving to
//! the cap or to parity, and if it is exiled its counter right names the GF anyway. So it
//! strikes only when it is nearly sure. With a fellow alive a failure costs one GM but
//! clears a player, so it may strike earlier.
//!
//! **Claims of the GF and GM** follow the every-other-day limit (rule 17.3) but skip a window
//! on purpose with probability 0.25, mimicking a CF who rested two nights after an extra
//! count. They are made in the draw phase of the round after the night (the one phase of the
//! window in which every living seat owes a decision, so an arena that offers claims only
//! along with a decision offers them there exactly once) or not at all in that window. The
//! GM's is the scapegoat claim above; the GF names its top suspect and another suspect with
//! the number it expects from its beliefs (one more if it is fairly sure of its suspect).
//!
//! **Counter right.** An exiled GM names its top GF candidate among the living (a named
//! player who is not the GF costs nothing); any other exiled seat declines.
//!
//! **Ghosts** play for the Misfortune side and aim as a GM would: the ghost's scapegoat is
//! the living player with the highest public GM probability times its own belief that the
//! player is *not* a GM (the GM's choice when it knows every GM). It spends its Ghost's Curse
//! on it with probability 0.7 while it has it, else looks with the Ghost's Eye at its top GF
//! candidate.

use arbiter_rules::random::{below, choose};
use arbiter_rules::{Random, Seat};

use crate::night::{Fate, GhostAction, Helper, NightForm, NightResult};
use crate::odds::{self, Evidence, History, Likelihood, Observation};
use crate::rules::FateAction;
use crate::setup::{Role, SetupRow, Token};
use crate::state::{Life, PhaseKind};
use crate::view::{FateView, OwnView};

/// The decision `view`'s seat owes now, or `None` when it owes none (it is not pending, the
/// table is locked, the game is decided, or the view is not a seat's).
pub fn decide(view: &FateView, rng: &mut dyn Random) -> Option<FateAction> {
    let own = view.own.as_ref()?;
    if view.finish.is_some() || !view.pending.contains(&own.seat) {
        return None;
    }
    let phase = view.phase_number;
    match view.phase {
        PhaseKind::Draw => {
            let tokens = own.drawn?;
            let index = Mind::new(view, own, false, false).reveal(tokens);
            Some(FateAction::Reveal { phase, index })
        }
        PhaseKind::Discussion | PhaseKind::Trial => Some(FateAction::Ready { phase }),
        PhaseKind::Accusation => {
            let gm = own.role == Some(Role::GreatMisfortune);
            let target = Mind::new(view, own, gm, true).accuse(rng);
            Some(FateAction::Accuse { phase, target })
        }
        PhaseKind::Night => {
            let form = Mind::new(view, own, true, true).night(rng);
            Some(FateAction::Night { phase, form })
        }
        PhaseKind::Vote => {
            let yes = Mind::new(view, own, false, true).vote();
            Some(FateAction::Vote { phase, yes })
        }
        PhaseKind::ClaimCounter => {
            let name = if own.counter_right == Some(true) {
                Mind::new(view, own, false, true).counter(rng)
            } else {
                None
            };
            Some(FateAction::Counter { phase, name })
        }
        PhaseKind::Ending | PhaseKind::Over => None,
    }
}

/// The claims (section 17) `view`'s seat makes now: at most one, while its claim window is
/// open and it wants to. A CF claims its helper result honestly at the first offer; a GF or
/// GM decides in the draw phase (see the module documentation). A caller should offer claims
/// along with each decision the seat owes, as an arena offers them to its house players, or
/// once in every phase: each offer in a draw phase is a fresh chance for a GF or GM that
/// skipped.
pub fn claims(view: &FateView, rng: &mut dyn Random) -> Vec<FateAction> {
    let Some(own) = view.own.as_ref() else {
        return Vec::new();
    };
    let Some(right) = own.claim else {
        return Vec::new();
    };
    if view.finish.is_some() {
        return Vec::new();
    }
    let claim = match right.pair {
        Some(pair) => whisper_of(own, right.round, pair).map(|bad| FateAction::Claim { pair, bad }),
        None => {
            if view.phase != PhaseKind::Draw || chance(rng, SKIP_CLAIM) {
                return Vec::new();
            }
            let mind = Mind::new(view, own, true, true);
            match own.role {
                Some(Role::GreatMisfortune) => mind.scapegoat_claim(right.round, rng),
                Some(Role::GreatFortune) => mind.fortune_claim(right.round, rng),
                _ => None,
            }
        }
    };
    claim.into_iter().collect()
}

/// Probability, per mille, that a GM curses its scapegoat rather than peeks (seed §10).
const CURSE: u32 = 700;
/// Probability, per mille, that a GF or GM skips a claim window it could use (seed §10).
const SKIP_CLAIM: u32 = 250;
/// Probability, per mille, that a CF adds an extra count to its helper.
const EXTRA_COUNT: u32 = 200;
/// Probability, per mille, that a GF peeks rather than blesses when it has a suspect to peek.
const PEEK: u32 = 600;
/// Probability, per mille, of using the talisman on a night the seat feels targeted.
const TALISMAN: u32 = 500;
/// Probability, per mille, that a CF spends the guard on a night it would.
const GUARD: u32 = 333;
/// Probability, per mille, that a ghost spends its Ghost's Curse on a night it may.
const GHOST_CURSE: u32 = 700;
/// The GF probability a sole living GM needs before it names anyone with the pathfinder.
const PATHFINDER_ALONE: f64 = 0.8;
/// The GF probability a GM needs while a fellow GM is living.
const PATHFINDER_WITH_FELLOW: f64 = 0.6;
/// How far above the baseline "clearly above" starts, in round 3 (falling to 0 at the cap).
const BOLDNESS: f64 = 0.25;
/// A vote is yes for a suspect at least this fraction as likely as the top suspect.
const NEAR_TOP: f64 = 0.8;
/// The probability that a CF's claim is honest, in a bot's reading of others' claims.
const HONEST: f64 = 0.95;
/// Probabilities closer than this are equal (ties are broken at random).
const EPS: f64 = 1e-9;

const CF: usize = 0;
const GF: usize = 1;
const GM: usize = 2;
const ROLES: [Role; 3] = [
    Role::CommonFortune,
    Role::GreatFortune,
    Role::GreatMisfortune,
];

/// `true` with probability `per_mille / 1000`.
fn chance(rng: &mut dyn Random, per_mille: u32) -> bool {
    below(rng, 1000) < per_mille
}

/// The seat among `scored` with the highest score, ties broken at random.
fn best(scored: &[(Seat, f64)], rng: &mut dyn Random) -> Option<Seat> {
    let max = scored
        .iter()
        .map(|&(_, v)| v)
        .fold(f64::NEG_INFINITY, f64::max);
    let top: Vec<Seat> = scored
        .iter()
        .filter(|&&(_, v)| v >= max - EPS)
        .map(|&(s, _)| s)
        .collect();
    choose(rng, &top).copied()
}

/// The Bad total of the CF's whisper about `pair` (in either order) asked in night `round`.
fn whisper_of(own: &OwnView, round: u32, pair: [Seat; 2]) -> Option<u32> {
    own.results.iter().find_map(|r| match *r {
        NightResult::Whisper {
            round: asked,
            targets,
            bad,
            ..
        } if asked == round && (targets == pair || targets == [pair[1], pair[0]]) => Some(bad),
        _ => None,
    })
}

fn ratio(l: Likelihood) -> f64 {
    if l.den == 0 {
        0.0
    } else {
        l.num as f64 / l.den as f64
    }
}

/// One observation's likelihood under each role, as the model of [`crate::odds`] has it.
fn likelihoods(row: &SetupRow, evidence: Evidence) -> [f64; 3] {
    let each = |f: fn(crate::setup::Bag, Token) -> Likelihood, t: Token| {
        ROLES.map(|r| ratio(f(row.bag(r), t)))
    };
    match evidence {
        Evidence::Is(role) => ROLES.map(|r| f64::from(u8::from(r == role))),
        Evidence::IsNot(role) => ROLES.map(|r| f64::from(u8::from(r != role))),
        Evidence::Revealed(t) => each(odds::best_of_2, t),
        Evidence::Pile(t) => each(odds::worst_of_2, t),
        Evidence::FromBag(t) => each(odds::share, t),
    }
}

/// The most slots a pile can have (one per round, at most 9 rounds).
const MAX_SLOTS: usize = 16;

/// The distribution of the Bad count in `k` pile slots of each role: binomials with the
/// roles' [`odds::worst_of_2`] Bad rates.
fn pile_bad(row: &SetupRow, k: usize) -> [[f64; MAX_SLOTS]; 3] {
    let k = k.min(MAX_SLOTS - 1);
    ROLES.map(|r| {
        let q = ratio(odds::worst_of_2(row.bag(r), Token::Bad));
        let mut pmf = [0.0; MAX_SLOTS];
        pmf[0] = 1.0;
        // One slot at a time: pmf'(j) = pmf(j) (1 − q) + pmf(j − 1) q.
        for n in 1..=k {
            for j in (0..=n).rev() {
                let stay = pmf[j] * (1.0 - q);
                let grow = if j > 0 { pmf[j - 1] * q } else { 0.0 };
                pmf[j] = stay + grow;
            }
        }
        pmf
    })
}

/// P(the two piles hold `n` Bad in all), each pile's count distributed as `a` and `b`.
fn convolve(a: &[f64; MAX_SLOTS], b: &[f64; MAX_SLOTS], n: usize) -> f64 {
    (0..=n.min(MAX_SLOTS - 1))
        .filter(|&j| n - j < MAX_SLOTS)
        .map(|j| a[j] * b[n - j])
        .sum()
}

/// Evidence tying up to three seats together: a likelihood for every combination of their
/// roles, `table[r0 × 9 + r1 × 3 + r2]`.
struct Link {
    seats: [usize; 3],
    table: [f64; 27],
}

/// The public odds of every seat, (P(CF), P(GF), P(GM)) in seat order: the model's numbers
/// on [`History::public_from_view`], as the end-of-game graph shows them, or the deal's prior
/// where the model finds the history impossible. Bot talk names suspects by these, so that
/// what a bot says rests on public evidence only.
pub fn public_odds(view: &FateView) -> Vec<[f64; 3]> {
    let row = &view.setup;
    let n = f64::from(row.players.max(1));
    let prior = [
        f64::from(row.common_fortunes) / n,
        f64::from(row.great_fortunes) / n,
        f64::from(row.great_misfortunes) / n,
    ];
    match History::public_from_view(view).odds() {
        Ok(odds) => odds
            .iter()
            .map(|o| {
                [o.common_fortune, o.great_fortune, o.great_misfortune]
                    .map(|x| f64::from(x) / 1000.0)
            })
            .collect(),
        Err(_) => vec![prior; usize::from(row.players)],
    }
}

/// The GM probability a suspect needs to be "clearly above" `baseline` in `view`'s round (see
/// the module documentation): the bar a bot accuses by, which bot talk also names by.
pub fn clearly_above(view: &FateView, baseline: f64) -> f64 {
    let cap = f64::from(view.setup.round_cap);
    let round = f64::from(view.round);
    let f = (BOLDNESS * (cap - round) / (cap - 3.0).max(1.0)).clamp(0.0, BOLDNESS);
    baseline + (1.0 - baseline) * f
}

/// The seat's beliefs and the facts it acts on.
struct Mind<'v> {
    view: &'v FateView,
    own: &'v OwnView,
    me: Seat,
    /// Public odds (P(CF), P(GF), P(GM)) per seat; empty unless asked for.
    public: Vec<[f64; 3]>,
    /// Private belief per seat; empty unless asked for.
    private: Vec<[f64; 3]>,
}

impl<'v> Mind<'v> {
    fn new(view: &'v FateView, own: &'v OwnView, public: bool, private: bool) -> Mind<'v> {
        let mut mind = Mind {
            view,
            own,
            me: own.seat,
            public: Vec::new(),
            private: Vec::new(),
        };
        if public {
            mind.public = mind.public_odds();
        }
        if private {
            mind.private = mind.private_belief();
        }
        mind
    }

    fn players(&self) -> usize {
        usize::from(self.view.setup.players)
    }

    fn public_odds(&self) -> Vec<[f64; 3]> {
        public_odds(self.view)
    }

    fn private_belief(&self) -> Vec<[f64; 3]> {
        let history = History::private_from_view(self.view);
        let weights = self.weights(&history);
        let links = self.links();
        enumerate(&self.view.setup, &weights, &links).unwrap_or_else(|| self.public_odds())
    }

    /// Each seat's likelihood vector from `history`, as the model has it, scaled to a
    /// largest value of 1.
    fn weights(&self, history: &History) -> Vec<[f64; 3]> {
        let row = self.view.setup;
        let mut weights = vec![[1.0f64; 3]; self.players()];
        for o in &history.observations {
            let Some(w) = weights.get_mut(o.seat.index()) else {
                continue;
            };
            let l = likelihoods(&row, o.evidence);
            for (x, y) in w.iter_mut().zip(l) {
                *x *= y;
            }
            let max = w.iter().copied().fold(0.0, f64::max);
            if max > 0.0 {
                w.iter_mut().for_each(|x| *x /= max);
            }
        }
        weights
    }

    /// Whispers and claims as evidence (see the module documentation).
    fn links(&self) -> Vec<Link> {
        let row = self.view.setup;
        let me = self.me;
        let mut links = Vec::new();
        let is_cf = self.own.role == Some(Role::CommonFortune);
        let whisper = |round: u32, pair: [Seat; 2], bad: u32, links: &mut Vec<Link>| {
            let k = round as usize;
            let pmf = pile_bad(&row, k);
            let n = bad as usize;
            let mut table = [0.0; 27];
            for (i, x) in table.iter_mut().enumerate() {
                *x = convolve(&pmf[(i / 3) % 3], &pmf[i % 3], n);
            }
            links.push(Link {
                seats: [me.index(), pair[0].index(), pair[1].index()],
                table,
            });
        };
        // The bot's own claims tell it nothing it does not know: its whispers, each dated by
        // the night it was asked in, are the evidence.
        for c in self.view.claims.iter().filter(|c| c.claimant != me) {
            links.push(self.claim_link(c.claimant, c.pair, c.round, c.bad));
        }
        if is_cf {
            for result in &self.own.results {
                if let NightResult::Whisper {
                    round,
                    targets,
                    bad,
                    ..
                } = *result
                {
                    whisper(round, targets, bad, &mut links);
                }
            }
        }
        links
    }

    /// Another seat's claim "`pair` → `bad` Bad" about night `round`.
    fn claim_link(&self, claimant: Seat, pair: [Seat; 2], round: u32, bad: u32) -> Link {
        let row = self.view.setup;
        let k = round as usize;
        let n = bad as usize;
        let pmf = pile_bad(&row, k);
        let any = 1.0 / (2 * k + 1) as f64;
        // The bot's own Bad count during night `round`, if the pair names it.
        let own_bad = self
            .own
            .pile
            .iter()
            .filter(|s| s.round <= round && s.token == Token::Bad)
            .count();
        let honest = |ra: usize, rb: usize| -> f64 {
            if pair[0] == self.me {
                n.checked_sub(own_bad)
                    .filter(|&m| m < MAX_SLOTS)
                    .map_or(0.0, |m| pmf[rb][m])
            } else if pair[1] == self.me {
                n.checked_sub(own_bad)
                    .filter(|&m| m < MAX_SLOTS)
                    .map_or(0.0, |m| pmf[ra][m])
            } else {
                convolve(&pmf[ra], &pmf[rb], n)
            }
        };
        let made_up = 0.5 * convolve(&pmf[CF], &pmf[CF], n) + 0.5 * any;
        let mut table = [0.0; 27];
        for (i, x) in table.iter_mut().enumerate() {
            let (rc, ra, rb) = (i / 9, (i / 3) % 3, i % 3);
            *x = if rc == CF {
                HONEST * honest(ra, rb) + (1.0 - HONEST) * any
            } else {
                made_up
            };
        }
        Link {
            seats: [claimant.index(), pair[0].index(), pair[1].index()],
            table,
        }
    }

    fn life(&self, seat: Seat) -> Option<Life> {
        self.view.seats.get(seat.index()).map(|s| s.life)
    }

    fn living(&self) -> Vec<Seat> {
        self.view
            .seats
            .iter()
            .filter(|s| s.life == Life::Living)
            .map(|s| s.seat)
            .collect()
    }

    /// The other living players, less fellow GMs.
    fn suspects(&self) -> Vec<Seat> {
        self.living()
            .into_iter()
            .filter(|&s| s != self.me && !self.own.fellow_great_misfortunes.contains(&s))
            .collect()
    }

    fn p(&self, seat: Seat, role: usize) -> f64 {
        self.private.get(seat.index()).map_or(0.0, |x| x[role])
    }

    fn public_p(&self, seat: Seat, role: usize) -> f64 {
        self.public.get(seat.index()).map_or(0.0, |x| x[role])
    }

    /// The mean private GM probability over `seats`.
    fn baseline(&self, seats: &[Seat], public: bool) -> f64 {
        if seats.is_empty() {
            return 0.0;
        }
        let sum: f64 = seats
            .iter()
            .map(|&s| {
                if public {
                    self.public_p(s, GM)
                } else {
                    self.p(s, GM)
                }
            })
            .sum();
        sum / seats.len() as f64
    }

    /// The probability a suspect needs to be "clearly above" `baseline` this round.
    fn clearly_above(&self, baseline: f64) -> f64 {
        clearly_above(self.view, baseline)
    }

    fn top_suspect(&self, rng: &mut dyn Random) -> Option<Seat> {
        let scored: Vec<(Seat, f64)> = self
            .suspects()
            .into_iter()
            .map(|s| (s, self.p(s, GM)))
            .collect();
        best(&scored, rng)
    }

    /// Whether the seat is (one of) the top public GM suspects among the living.
    fn am_top_public_suspect(&self) -> bool {
        let mine = self.public_p(self.me, GM);
        self.living()
            .iter()
            .filter(|&&s| s != self.me)
            .all(|&s| self.public_p(s, GM) <= mine + EPS)
    }

    /// Whether the seat is (one of) the top public GF candidates among the living.
    fn am_top_public_fortune(&self) -> bool {
        let mine = self.public_p(self.me, GF);
        self.living()
            .iter()
            .filter(|&&s| s != self.me)
            .all(|&s| self.public_p(s, GF) <= mine + EPS)
    }

    /// The scapegoat (seed §10): the top public suspect among the other living players,
    /// weighted by the seat's belief that they are not a GM. For a GM, who knows every GM,
    /// that is the top public suspect other than itself and its fellows.
    fn scapegoat(&self, rng: &mut dyn Random) -> Option<Seat> {
        let scored: Vec<(Seat, f64)> = self
            .suspects()
            .into_iter()
            .map(|s| (s, self.public_p(s, GM) * (1.0 - self.p(s, GM))))
            .collect();
        best(&scored, rng)
    }

    /// The top GF candidate among the other living players (never a fellow GM).
    fn fortune_candidate(&self, rng: &mut dyn Random) -> Option<(Seat, f64)> {
        let scored: Vec<(Seat, f64)> = self
            .suspects()
            .into_iter()
            .map(|s| (s, self.p(s, GF)))
            .collect();
        let seat = best(&scored, rng)?;
        Some((seat, self.p(seat, GF)))
    }

    /// Draw: which of the two drawn tokens to reveal.
    fn reveal(&self, tokens: [Token; 2]) -> u8 {
        if tokens[0] == tokens[1] {
            return 0;
        }
        let mut history = History::public_from_view(self.view);
        let hide_gm_only = matches!(
            self.own.role,
            Some(Role::CommonFortune | Role::GreatMisfortune)
        );
        let mut score = [0i64; 2];
        for (i, &token) in tokens.iter().enumerate() {
            history.observations.push(Observation {
                round: self.view.round,
                seat: self.me,
                evidence: Evidence::Revealed(token),
            });
            score[i] = match history.odds() {
                Ok(odds) => {
                    let mine = odds[self.me.index()];
                    if hide_gm_only {
                        -i64::from(mine.great_misfortune)
                    } else {
                        i64::from(mine.common_fortune)
                    }
                }
                Err(_) => 0,
            };
            history.observations.pop();
        }
        u8::from(score[1] > score[0])
    }

    /// Accusation: whom to accuse, or `None` to pass.
    fn accuse(&self, rng: &mut dyn Random) -> Option<Seat> {
        let suspects = self.suspects();
        if self.own.role == Some(Role::GreatMisfortune) {
            let goat = self.scapegoat(rng)?;
            let need = self.clearly_above(self.baseline(&suspects, true));
            return (self.am_top_public_suspect() || self.public_p(goat, GM) >= need)
                .then_some(goat);
        }
        let top = self.top_suspect(rng)?;
        let need = self.clearly_above(self.baseline(&suspects, false));
        (self.p(top, GM) >= need).then_some(top)
    }

    /// Vote: yes to exile this round's accused?
    fn vote(&self) -> bool {
        let Some(accused) = self
            .view
            .trials
            .last()
            .filter(|t| t.round == self.view.round)
            .map(|t| t.accused)
        else {
            return false;
        };
        if self.own.role == Some(Role::GreatMisfortune) {
            return !self.own.fellow_great_misfortunes.contains(&accused);
        }
        let suspects = self.suspects();
        let mut ranked: Vec<f64> = suspects.iter().map(|&s| self.p(s, GM)).collect();
        ranked.sort_by(|a, b| b.total_cmp(a));
        let p = self.p(accused, GM);
        let expected: f64 = ranked.iter().sum();
        let k = (expected.round() as usize).max(1);
        let rank = ranked.iter().filter(|&&q| q > p + EPS).count();
        let top = ranked.first().copied().unwrap_or(0.0);
        p >= self.baseline(&suspects, false) - EPS && (rank < k || p >= NEAR_TOP * top)
    }

    /// Counter right: name the top GF candidate among the living.
    fn counter(&self, rng: &mut dyn Random) -> Option<Seat> {
        let scored: Vec<(Seat, f64)> = self
            .living()
            .into_iter()
            .filter(|s| !self.own.fellow_great_misfortunes.contains(s))
            .map(|s| (s, self.p(s, GF)))
            .collect();
        best(&scored, rng)
    }

    /// The night form.
    fn night(&self, rng: &mut dyn Random) -> NightForm {
        if self.life(self.me) == Some(Life::Ghost) {
            return NightForm {
                ghost: self.ghost_action(rng),
                ..NightForm::default()
            };
        }
        let allowed = &self.own.form;
        let gm = self.own.role == Some(Role::GreatMisfortune);
        let mut form = NightForm::default();
        if allowed.mark {
            form.mark = if gm {
                self.scapegoat(rng)
            } else {
                self.top_suspect(rng)
            };
        }
        if allowed.talisman {
            let targeted = self.am_top_public_suspect()
                || (self.own.role == Some(Role::GreatFortune) && self.am_top_public_fortune());
            form.talisman = targeted && chance(rng, TALISMAN);
        }
        if allowed.helper {
            form.helper = self.helper(rng);
        }
        if allowed.guard {
            form.guard = self.guard(rng);
        }
        form.fate = match self.own.role {
            Some(Role::GreatFortune) => self.fortune_fate(rng),
            Some(Role::GreatMisfortune) => self.misfortune_fate(rng),
            _ => None,
        };
        form
    }

    /// A CF's helper: its two top suspects, not the pair it checked last.
    fn helper(&self, rng: &mut dyn Random) -> Option<Helper> {
        let mut scored: Vec<(Seat, f64)> = self
            .suspects()
            .into_iter()
            .map(|s| (s, self.p(s, GM)))
            .collect();
        let first = best(&scored, rng)?;
        scored.retain(|&(s, _)| s != first);
        let mut second = best(&scored, rng)?;
        let last = self.own.results.iter().rev().find_map(|r| match r {
            NightResult::Whisper { targets, .. } => Some(*targets),
            _ => None,
        });
        if last.is_some_and(|t| t.contains(&first) && t.contains(&second)) && scored.len() > 1 {
            scored.retain(|&(s, _)| s != second);
            second = best(&scored, rng).unwrap_or(second);
        }
        let (good, neutral) = if chance(rng, EXTRA_COUNT) {
            match below(rng, 3) {
                0 => (true, false),
                1 => (false, true),
                _ => (true, true),
            }
        } else {
            (false, false)
        };
        Some(Helper {
            targets: [first, second],
            good,
            neutral,
        })
    }

    /// A CF's guard: on the top public suspect it believes good, now and then.
    fn guard(&self, rng: &mut dyn Random) -> Option<Seat> {
        let suspects = self.suspects();
        let scored: Vec<(Seat, f64)> = suspects
            .iter()
            .map(|&s| (s, self.public_p(s, GM)))
            .collect();
        let target = best(&scored, rng)?;
        (self.p(target, GM) < self.baseline(&suspects, false) && chance(rng, GUARD))
            .then_some(target)
    }

    /// The GF's fate action: peek at a suspect, or bless.
    fn fortune_fate(&self, rng: &mut dyn Random) -> Option<Fate> {
        let allowed = &self.own.form;
        let suspects = self.suspects();
        let baseline = self.baseline(&suspects, false);
        let unsure: Vec<(Seat, f64)> = suspects
            .iter()
            .map(|&s| (s, self.p(s, GM)))
            .filter(|&(_, p)| p < 0.95)
            .collect();
        if allowed.peek
            && let Some(target) = best(&unsure, rng)
            && self.p(target, GM) >= baseline
            && chance(rng, PEEK)
        {
            return Some(Fate::Peek(target));
        }
        if !allowed.bless {
            return None;
        }
        let trusted: Vec<(Seat, f64)> = suspects
            .iter()
            .filter(|&&s| self.p(s, GM) < baseline)
            .map(|&s| (s, self.public_p(s, GM)))
            .collect();
        let target = best(&trusted, rng).or_else(|| choose(rng, &suspects).copied())?;
        Some(Fate::Bless(target))
    }

    /// The GM's fate action: the pathfinder when sure enough, else curse the scapegoat
    /// (70 %, always when the GM is the top public suspect) or peek at the top GF candidate.
    fn misfortune_fate(&self, rng: &mut dyn Random) -> Option<Fate> {
        let allowed = &self.own.form;
        let candidate = self.fortune_candidate(rng);
        if allowed.pathfinder
            && let Some((seat, p)) = candidate
        {
            let fellow_living = self
                .own
                .fellow_great_misfortunes
                .iter()
                .any(|&s| self.life(s) == Some(Life::Living));
            let need = if fellow_living {
                PATHFINDER_WITH_FELLOW
            } else {
                PATHFINDER_ALONE
            };
            if p >= need {
                return Some(Fate::Pathfinder(seat));
            }
        }
        if allowed.curse
            && let Some(goat) = self.scapegoat(rng)
            && (self.am_top_public_suspect() || chance(rng, CURSE))
        {
            return Some(Fate::Curse(goat));
        }
        if allowed.peek {
            return candidate.map(|(seat, _)| Fate::Peek(seat));
        }
        None
    }

    /// A ghost's action: curse its scapegoat (70 %, once per game), else the Eye on its top
    /// GF candidate.
    fn ghost_action(&self, rng: &mut dyn Random) -> Option<GhostAction> {
        let allowed = &self.own.form;
        if allowed.ghost_curse
            && chance(rng, GHOST_CURSE)
            && let Some(goat) = self.scapegoat(rng)
        {
            return Some(GhostAction::Curse(goat));
        }
        if allowed.ghost_eye {
            return self
                .fortune_candidate(rng)
                .map(|(seat, _)| GhostAction::Eye(seat));
        }
        None
    }

    /// The largest number a claim about `pair` and night `round` may give (rule 17.3).
    fn claim_range(&self, pair: [Seat; 2], round: u32) -> u32 {
        pair.iter()
            .map(|s| {
                let size = self.view.seats.get(s.index()).map_or(0, |p| p.pile_size);
                u32::try_from(size).unwrap_or(u32::MAX).min(round)
            })
            .sum()
    }

    /// The Bad total a pair of CFs' piles would show on average during night `round`.
    fn expected_cf_bad(&self, round: u32) -> f64 {
        let q = ratio(odds::worst_of_2(
            self.view.setup.bag(Role::CommonFortune),
            Token::Bad,
        ));
        2.0 * f64::from(round) * q
    }

    /// The GM's claim: the scapegoat and another suspect, the number inflated by 1 or 2.
    fn scapegoat_claim(&self, round: u32, rng: &mut dyn Random) -> Option<FateAction> {
        let goat = self.scapegoat(rng)?;
        let others: Vec<Seat> = self.suspects().into_iter().filter(|&s| s != goat).collect();
        let other = *choose(rng, &others)?;
        let pair = [goat, other];
        let inflated = self.expected_cf_bad(round).round() as u32 + 1 + below(rng, 2);
        Some(FateAction::Claim {
            pair,
            bad: inflated.min(self.claim_range(pair, round)),
        })
    }

    /// The GF's claim: its top suspect and another, the number it expects.
    fn fortune_claim(&self, round: u32, rng: &mut dyn Random) -> Option<FateAction> {
        let top = self.top_suspect(rng)?;
        let others: Vec<Seat> = self.suspects().into_iter().filter(|&s| s != top).collect();
        let other = *choose(rng, &others)?;
        let pair = [top, other];
        let row = self.view.setup;
        let rates = ROLES.map(|r| ratio(odds::worst_of_2(row.bag(r), Token::Bad)));
        let expected: f64 = pair
            .iter()
            .map(|&s| {
                let p = self.private[s.index()];
                f64::from(round) * (0..3).map(|r| p[r] * rates[r]).sum::<f64>()
            })
            .sum();
        let push = u32::from(self.p(top, GM) >= 0.5);
        let bad = expected.round() as u32 + push;
        Some(FateAction::Claim {
            pair,
            bad: bad.min(self.claim_range(pair, round)),
        })
    }
}

/// Every assignment of roles to seats (one GF, the row's GMs), weighed by the seats'
/// likelihood vectors and the links; the marginal probability of each role for each seat.
/// `None` if no assignment has any weight.
fn enumerate(row: &SetupRow, weights: &[[f64; 3]], links: &[Link]) -> Option<Vec<[f64; 3]>> {
    let n = weights.len();
    let two = row.great_misfortunes >= 2;
    let mut marginal = vec![[0.0f64; 3]; n];
    let mut total = 0.0;
    let mut roles = [CF; 8];
    let mut visit = |gf: usize, gms: &[usize], marginal: &mut Vec<[f64; 3]>| {
        roles[..n].fill(CF);
        roles[gf] = GF;
        for &m in gms {
            roles[m] = GM;
        }
        let mut weight: f64 = weights
            .iter()
            .zip(&roles[..n])
            .map(|(w, &r)| w[r])
            .product();
        if weight == 0.0 {
            return;
        }
        for link in links {
            let [a, b, c] = link.seats;
            weight *= link.table[roles[a] * 9 + roles[b] * 3 + roles[c]];
        }
        total += weight;
        for (m, &r) in marginal.iter_mut().zip(&roles[..n]) {
            m[r] += weight;
        }
    };
    for gf in 0..n {
        for m1 in (0..n).filter(|&m| m != gf) {
            if two {
                for m2 in (m1 + 1..n).filter(|&m| m != gf) {
                    visit(gf, &[m1, m2], &mut marginal);
                }
            } else {
                visit(gf, &[m1], &mut marginal);
            }
        }
    }
    if total <= 0.0 || !total.is_finite() {
        return None;
    }
    Some(marginal.into_iter().map(|m| m.map(|x| x / total)).collect())
}

#[cfg(test)]
mod tests;
