//! The leak property: no view or event tells anyone more than section 22 allows, and locks,
//! deadlines and who owes a decision follow from public information alone (rules 5.5, 15.5,
//! 22.5), over many random games.
//!
//! This is a module of the crate's own tests rather than an integration test because the
//! checker reads the full state (roles, piles, forms, held results, acceptance orders), which
//! only the crate can see, and because the indistinguishability check changes secrets inside a
//! state. What it expects is derived here from the rulebook; of `view.rs` it calls only
//! [`FateTokens::view`], so a mistake there shows up as a failure here.
//!
//! Each game has 4 to 8 players and its own seed. Pending seats pick among
//! [`FateTokens::legal_actions`] (night forms are sometimes combined from several, rule 11.15),
//! deadlines pass, claims and chat on both channels arrive at random moments (some of them
//! refused), and seats leave. After every step:
//! - events: each event a seat may see carries nothing secret of another seat; private events
//!   go to their owner only (rules 7.3, 8.2, 13.4, 15.2, 20.1);
//! - timing: each lock and each phase's length is computed again from the step's public events
//!   and the spectator's view by rule 5.5's table and rule 15.5, and so are `deadline` and
//!   `to_act` (rule 22.2: who owes depends on public states only);
//! - views, at every phase change, after free actions and departures, at an eighth of the other
//!   steps and once the game is over: every field of every seat's view and of the spectator's
//!   against the state, as section 22 says; and one viewer's view, unchanged when everything it
//!   may not know is changed (indistinguishability).
//!
//! `FATE_LEAK_GAMES` sets the number of games (seeds 0 to n - 1; the default is 10,000), and
//! `FATE_LEAK_SEED` plays that one seed alone, to replay a failure. The games are shared among
//! threads; each depends on its seed only.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use arbiter_rules::random::{below, choose, shuffle};

use super::*;
use crate::claims::ClaimRight;
use crate::night::Announcement;
use crate::state::NightRecord;
use crate::view::OwnView;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The seeds to play: `FATE_LEAK_SEED` alone, or 0 to `FATE_LEAK_GAMES` (10,000) - 1.
fn seeds() -> std::ops::Range<u64> {
    match env_number("FATE_LEAK_SEED") {
        Some(seed) => seed..seed + 1,
        None => 0..env_number("FATE_LEAK_GAMES").unwrap_or(10_000),
    }
}

/// What the games reached, so that the test can fail if they stop reaching something.
#[derive(Default)]
pub(crate) struct Tally {
    games: u64,
    steps: u64,
    view_checks: u64,
    hidden_checks: u64,
    phases_timed: u64,
    reasons: BTreeSet<&'static str>,
    exiles: u64,
    failed_pathfinders: u64,
    reveals: u64,
    ghost_lines: u64,
    claims: u64,
    refused_free_actions: u64,
    leaves: u64,
    guards: u64,
    untold_bag_changes: u64,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.games += other.games;
        self.steps += other.steps;
        self.view_checks += other.view_checks;
        self.hidden_checks += other.hidden_checks;
        self.phases_timed += other.phases_timed;
        self.reasons.extend(other.reasons);
        self.exiles += other.exiles;
        self.failed_pathfinders += other.failed_pathfinders;
        self.reveals += other.reveals;
        self.ghost_lines += other.ghost_lines;
        self.claims += other.claims;
        self.refused_free_actions += other.refused_free_actions;
        self.leaves += other.leaves;
        self.guards += other.guards;
        self.untold_bag_changes += other.untold_bag_changes;
    }
}

#[test]
fn no_view_or_event_leaks_and_locks_follow_public_information() {
    let seeds = seeds();
    let games = seeds.end - seeds.start;
    let started = Instant::now();
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8) as u64;
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let seeds = seeds.clone();
                scope.spawn(move || {
                    let mut tally = Tally::default();
                    for seed in seeds
                        .clone()
                        .skip(worker as usize)
                        .step_by(workers as usize)
                    {
                        let played = catch_unwind(AssertUnwindSafe(|| play(seed, &mut tally)));
                        if let Err(panic) = played {
                            eprintln!("the game of seed {seed} failed (see above)");
                            std::panic::resume_unwind(panic);
                        }
                    }
                    tally
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("every game passes"))
            .collect()
    });
    let mut tally = Tally::default();
    for t in tallies {
        tally.add(t);
    }
    eprintln!(
        "{} games, {} steps, {} view checks, {} indistinguishability checks, {} phases timed \
         in {:.1?}",
        tally.games,
        tally.steps,
        tally.view_checks,
        tally.hidden_checks,
        tally.phases_timed,
        started.elapsed()
    );
    assert_eq!(tally.games, games);
    // The games must keep reaching what the checks are about; a change that made them stop
    // (say, pathfinders ending every game at once) would otherwise pass unnoticed.
    if games >= 1_000 {
        let every = [
            "no_great_misfortune",
            "pathfinder",
            "counter",
            "parity",
            "round_cap",
        ];
        assert!(
            every.iter().all(|r| tally.reasons.contains(r)),
            "{:?}",
            tally.reasons
        );
        for (what, count) in [
            ("exiles", tally.exiles),
            ("failed pathfinders", tally.failed_pathfinders),
            ("suspicion reveals", tally.reveals),
            ("ghost chat lines", tally.ghost_lines),
            ("claims", tally.claims),
            ("refused free actions", tally.refused_free_actions),
            ("departures", tally.leaves),
            ("guards", tally.guards),
            ("untold bag changes", tally.untold_bag_changes),
            ("indistinguishability checks", tally.hidden_checks),
        ] {
            assert!(count > 0, "no {what} in {games} games");
        }
    }
}

/// What everyone knows about the phase under way, from public events alone.
#[derive(Clone, Copy, Debug, Default)]
struct Public {
    phase: u32,
    kind: Option<PhaseKind>,
    locked: bool,
    opens_at: u64,
    deadline: Option<u64>,
    /// Seats that owe a decision in this phase, as announced when it was entered.
    owed: SeatSet,
    /// Seats that publicly submitted in this phase.
    submitted: SeatSet,
}

impl Public {
    /// Rules 5.3 and 15.5: a phase ends when everyone who owes has submitted, or at its
    /// deadline; the claim/counter phase never before its minimum. Either way the moment is
    /// public.
    fn check_end(&self, now: u64, d: &Durations) {
        let Some(kind) = self.kind else { return };
        let at_deadline = self.deadline == Some(now);
        let everyone = !self.owed.is_empty()
            && self.owed.iter().all(|s| self.submitted.contains(s))
            && !self.locked
            && (kind != PhaseKind::ClaimCounter || now >= self.opens_at + d.counter_min_ms);
        assert!(
            at_deadline || everyone,
            "{kind:?} ended early at {now}: {self:?}"
        );
    }
}

/// One game under test.
struct Run {
    state: FateState,
    /// The match's random stream.
    rng: ChaCha8Rng,
    /// The players' choices and the clock's steps.
    chooser: ChaCha8Rng,
    now: u64,
    public: Public,
    /// The spectator's view after the last step.
    spectator: FateView,
    /// Seats that leave, and at which step.
    leaves: Vec<(u64, Seat)>,
    steps: u64,
}

/// What a step was, for deciding whether to check every view after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StepKind {
    Decision,
    Free,
    Leave,
    Deadline,
}

fn play(seed: u64, tally: &mut Tally) {
    let mut chooser = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_c0de_f00d);
    let players = 4 + u8::try_from(below(&mut chooser, 5)).expect("small");
    let config = FateConfig {
        players,
        ..FateConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (state, events) = FateTokens::start(&config, &mut Ctx::new(0, &mut rng)).expect("valid");
    let mut leaves = Vec::new();
    for _ in 0..2 {
        if below(&mut chooser, 3) == 0 {
            let step = u64::from(below(&mut chooser, 300));
            let seat = Seat(u8::try_from(below(&mut chooser, u32::from(players))).expect("small"));
            leaves.push((step, seat));
        }
    }
    let spectator = FateTokens::view(&state, Viewer::Spectator);
    let mut run = Run {
        state,
        rng,
        chooser,
        now: 0,
        public: Public::default(),
        spectator,
        leaves,
        steps: 0,
    };
    run.after_step(&events, StepKind::Deadline, tally);
    while FateTokens::outcome(&run.state).is_none() {
        run.steps += 1;
        assert!(run.steps < 20_000, "the game ends");
        let (kind, events) = run.step(tally);
        run.after_step(&events, kind, tally);
    }
    // Rule 22.6: once over, every view shows everything.
    check_views(&run.state, &FateTokens::view(&run.state, Viewer::Spectator));
    // Rule 19.3: nothing is accepted once the game is over.
    assert!(
        run.state
            .seats()
            .all(|s| FateTokens::legal_actions(&run.state, s).is_empty())
    );
    let finish = run.state.finish.clone().expect("decided");
    tally.reasons.insert(finish.reason.as_str());
    tally.games += 1;
    tally.steps += run.steps;
    tally.exiles += run.state.trials.iter().filter(|t| t.exiled).count() as u64;
    tally.claims += run.state.claims.len() as u64;
    tally.ghost_lines += run.state.ghost_chat.len() as u64;
    tally.guards += u64::from(!run.state.shield_whole);
}

impl Run {
    /// Moves the clock forward by a random amount, never up to the next deadline, which only
    /// `on_deadline` may reach.
    fn wait_a_little(&mut self) {
        if let Some(deadline) = FateTokens::deadline(&self.state) {
            let room = deadline.saturating_sub(self.now).min(15_000);
            if room > 1 {
                let room = u32::try_from(room).expect("small");
                self.now += u64::from(below(&mut self.chooser, room));
            }
        }
    }

    fn random_seat(&mut self) -> Seat {
        let n = u32::try_from(self.state.seat_count()).expect("small");
        Seat(u8::try_from(below(&mut self.chooser, n)).expect("small"))
    }

    fn step(&mut self, tally: &mut Tally) -> (StepKind, Events<FateEvent>) {
        if let Some(i) = self.leaves.iter().position(|&(at, _)| at <= self.steps) {
            let (_, seat) = self.leaves.remove(i);
            tally.leaves += 1;
            let events = FateTokens::leave(
                &mut self.state,
                seat,
                &mut Ctx::new(self.now, &mut self.rng),
            )
            .expect("rule 5.9: the game plays on without the seat");
            return (StepKind::Leave, events);
        }
        let roll = below(&mut self.chooser, 100);
        if roll < 10 {
            return (StepKind::Free, self.free_action(tally));
        }
        if self.state.locked {
            // The lock's end is the rules' own deadline (D43).
            self.now = self.state.opens_at_ms;
            if roll < 13 {
                self.refused_decision_attempt();
            }
            let events =
                FateTokens::on_deadline(&mut self.state, &mut Ctx::new(self.now, &mut self.rng));
            return (StepKind::Deadline, events);
        }
        if !self.state.pending().is_empty() && roll < 93 {
            if roll < 12 {
                self.refused_decision_attempt();
            }
            return (StepKind::Decision, self.decision());
        }
        self.now = FateTokens::deadline(&self.state).expect("a running game has a deadline");
        let events =
            FateTokens::on_deadline(&mut self.state, &mut Ctx::new(self.now, &mut self.rng));
        (StepKind::Deadline, events)
    }

    /// A pending seat picks a random legal decision, which must be accepted.
    fn decision(&mut self) -> Events<FateEvent> {
        let pending: Vec<Seat> = self.state.pending().iter().collect();
        let seat = *choose(&mut self.chooser, &pending).expect("someone is pending");
        self.wait_a_little();
        let legal = FateTokens::legal_actions(&self.state, seat);
        let mut action = choose(&mut self.chooser, &legal)
            .cloned()
            .expect("a pending seat has a legal action");
        if let FateAction::Night { form, .. } = &mut action {
            // Rule 11.15: a form may combine a mark, the talisman, the guard, a fate action
            // and the helper; `legal_actions` lists them one field at a time.
            for _ in 0..below(&mut self.chooser, 3) {
                let Some(FateAction::Night { form: more, .. }) =
                    choose(&mut self.chooser, &legal).cloned()
                else {
                    continue;
                };
                form.mark = more.mark.or(form.mark);
                form.talisman |= more.talisman;
                form.guard = more.guard.or(form.guard);
                form.fate = more.fate.or(form.fate);
                form.ghost = more.ghost.or(form.ghost);
                if more.helper.is_some() && below(&mut self.chooser, 2) == 0 {
                    form.helper = more.helper;
                }
            }
            // A pathfinder ends most games at once (W1, W2); keeping one in four lets games
            // run long enough to reach ghosts, curses and reveals.
            if matches!(form.fate, Some(Fate::Pathfinder(_))) && below(&mut self.chooser, 4) != 0 {
                form.fate = None;
            }
        }
        FateTokens::apply(
            &mut self.state,
            seat,
            &action,
            &mut Ctx::new(self.now, &mut self.rng),
        )
        .unwrap_or_else(|e| panic!("seat {seat:?}: legal {action:?} refused: {e}"))
    }

    /// A decision from a seat that does not owe one, or for another phase, is refused and
    /// changes nothing (rules 5.1, 5.5, 6.1).
    fn refused_decision_attempt(&mut self) {
        let seat = self.random_seat();
        let phase = self.state.phase_number;
        let owes = self.state.pending().contains(seat);
        let action = if owes {
            FateAction::Ready { phase: phase + 1 }
        } else {
            FateAction::Vote { phase, yes: true }
        };
        let before = self.state.clone();
        let result = FateTokens::apply(
            &mut self.state,
            seat,
            &action,
            &mut Ctx::new(self.now, &mut self.rng),
        );
        assert!(result.is_err(), "{action:?} from {seat:?} accepted");
        assert_eq!(self.state, before, "a refused decision changes nothing");
    }

    /// A chat message or a claim, accepted exactly when rules 20.1, 20.2 and 17.3 allow.
    fn free_action(&mut self, tally: &mut Tally) -> Events<FateEvent> {
        self.wait_a_little();
        let seat = self.random_seat();
        let (action, allowed) = if below(&mut self.chooser, 2) == 0 {
            self.chat(seat)
        } else {
            self.claim(seat)
        };
        let before = self.state.clone();
        let result = FateTokens::apply(
            &mut self.state,
            seat,
            &action,
            &mut Ctx::new(self.now, &mut self.rng),
        );
        assert_eq!(
            result.is_ok(),
            allowed,
            "{action:?} from {seat:?}: {result:?}"
        );
        match result {
            Ok(events) => {
                // Rule 5.6: free actions never move a deadline or change who owes.
                assert_eq!(
                    (
                        self.state.deadline_ms,
                        self.state.pending(),
                        self.state.locked
                    ),
                    (before.deadline_ms, before.pending(), before.locked)
                );
                events
            }
            Err(_) => {
                tally.refused_free_actions += 1;
                assert_eq!(self.state, before, "a refused free action changes nothing");
                Vec::new()
            }
        }
    }

    fn chat(&mut self, seat: Seat) -> (FateAction, bool) {
        let channel = if below(&mut self.chooser, 2) == 0 {
            Channel::Everyone
        } else {
            Channel::Ghosts
        };
        let (text, fits) = match below(&mut self.chooser, 12) {
            0 => ("   ".to_owned(), false),
            1 => ("x".repeat(201), false),
            _ => (format!(" step {} from seat {} ", self.steps, seat.0), true),
        };
        // Rule 20.1 (D21, D22, rule 16.6): living players write Everyone, ghosts write Ghosts.
        let life = self.state.players[seat.index()].life;
        let may = match channel {
            Channel::Everyone => life == Life::Living,
            Channel::Ghosts => life == Life::Ghost,
        };
        (FateAction::Chat { channel, text }, fits && may)
    }

    fn claim(&mut self, seat: Seat) -> (FateAction, bool) {
        let right = expected_claim_right(&self.state, seat);
        assert_eq!(
            self.state.claim_right(seat),
            right,
            "rule 17.3 for {seat:?}"
        );
        let Some(right) = right else {
            let others: Vec<Seat> = self.state.seats().filter(|&s| s != seat).collect();
            let pair = [others[0], others[1]];
            return (FateAction::Claim { pair, bad: 0 }, false);
        };
        let night = night_of(&self.state, right.round).expect("the night of the window");
        let pair = right.pair.unwrap_or_else(|| {
            let mut others: Vec<Seat> = night.living.without(seat).iter().collect();
            shuffle(&mut self.chooser, &mut others);
            [others[0], others[1]]
        });
        let most = pile_during(&self.state, pair[0], right.round)
            + pile_during(&self.state, pair[1], right.round);
        let most = u32::try_from(most).expect("small");
        match below(&mut self.chooser, 5) {
            // Rule 17.3: the number is at most the pair's pile sizes.
            0 => (
                FateAction::Claim {
                    pair,
                    bad: most + 1,
                },
                false,
            ),
            // Rule 17.3: a pair never includes the claimant.
            1 => (
                FateAction::Claim {
                    pair: [seat, pair[1]],
                    bad: 0,
                },
                false,
            ),
            _ => {
                let bad = below(&mut self.chooser, most + 1);
                (FateAction::Claim { pair, bad }, true)
            }
        }
    }

    fn after_step(&mut self, events: &Events<FateEvent>, kind: StepKind, tally: &mut Tally) {
        let phase_before = self.public.phase;
        let after = FateTokens::view(&self.state, Viewer::Spectator);
        let before = std::mem::replace(&mut self.spectator, after);
        check_events(&self.state, events, tally);
        check_timing(
            &mut self.public,
            &self.state,
            self.now,
            events,
            &before,
            &self.spectator,
            tally,
        );
        let check = self.state.phase_number != phase_before
            || matches!(kind, StepKind::Free | StepKind::Leave)
            || below(&mut self.chooser, 8) == 0;
        if check {
            check_views(&self.state, &self.spectator);
            tally.view_checks += 1;
            if self.state.finish.is_none() {
                let n = u32::try_from(self.state.seat_count()).expect("small");
                let pick = below(&mut self.chooser, n + 1);
                let viewer = match u8::try_from(pick).expect("small") {
                    p if u32::from(p) == n => Viewer::Spectator,
                    p => Viewer::Seat(Seat(p)),
                };
                check_hidden(&self.state, viewer, &mut self.chooser, tally);
                tally.hidden_checks += 1;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The rulebook's answers, computed from the full state without `view.rs`.
// ---------------------------------------------------------------------------------------------

/// Rule 20.1 and D22: ghosts read the Ghosts channel, and so do living awakened GMs.
fn reads_ghosts(p: &Player) -> bool {
    p.life == Life::Ghost
        || (p.life == Life::Living && p.awakened && p.role == Role::GreatMisfortune)
}

fn seats_where(state: &FateState, keep: impl Fn(&Player) -> bool) -> SeatSet {
    state
        .seats()
        .filter(|s| keep(&state.players[s.index()]))
        .collect()
}

fn night_of(state: &FateState, round: u32) -> Option<&NightRecord> {
    state.nights.iter().find(|n| n.round == round)
}

fn form_of(state: &FateState, round: u32, seat: Seat) -> Option<&NightForm> {
    night_of(state, round)?.forms.get(seat.index())?.as_ref()
}

/// Rule 17.3: a pile's size during night `round` is its slots from that round or earlier.
fn pile_during(state: &FateState, seat: Seat, round: u32) -> usize {
    state.players[seat.index()]
        .pile
        .iter()
        .filter(|slot| slot.round <= round)
        .count()
}

fn count_in_piles(state: &FateState, pair: [Seat; 2], round: u32, kind: Token) -> u32 {
    let count = pair
        .iter()
        .flat_map(|s| state.players[s.index()].pile.iter())
        .filter(|slot| slot.round <= round && slot.token == kind)
        .count();
    u32::try_from(count).expect("small")
}

/// Rule 11.12.1: a CF's next helper night, from their awakening round and their own helpers:
/// after a helper night one rest night, after an extra count two.
fn expected_helper_night(state: &FateState, seat: Seat) -> Option<u32> {
    let p = &state.players[seat.index()];
    if !(p.awakened && p.role == Role::CommonFortune) {
        return None;
    }
    let mut next = p.awakening_round;
    for night in &state.nights {
        if night.round != next {
            continue;
        }
        if let Some(h) = form_of(state, night.round, seat).and_then(|f| f.helper) {
            next = night.round + if h.good || h.neutral { 3 } else { 2 };
        }
    }
    Some(next)
}

/// Rules 17.2 and 17.3 (D29): what `seat` may claim now.
fn expected_claim_right(state: &FateState, seat: Seat) -> Option<ClaimRight> {
    if state.finish.is_some() {
        return None;
    }
    let round = match state.phase.kind() {
        PhaseKind::ClaimCounter => state.round,
        PhaseKind::Draw | PhaseKind::Discussion if state.round > 1 => state.round - 1,
        _ => return None,
    };
    let p = &state.players[seat.index()];
    let claimed = |k: u32| {
        state
            .claims
            .iter()
            .any(|c| c.claimant == seat && c.round == k)
    };
    if p.life != Life::Living || !p.awakened || claimed(round) {
        return None;
    }
    match p.role {
        Role::CommonFortune => {
            let helper = form_of(state, round, seat).and_then(|f| f.helper)?;
            Some(ClaimRight {
                round,
                pair: Some(helper.targets),
            })
        }
        Role::GreatFortune | Role::GreatMisfortune => {
            (!claimed(round - 1)).then_some(ClaimRight { round, pair: None })
        }
    }
}

/// Rule 17.6 (D30): every claim's verdict and the true Bad total.
fn expected_verdicts(state: &FateState) -> Vec<JudgedClaim> {
    state
        .claims
        .iter()
        .map(|&claim| {
            let true_bad = count_in_piles(state, claim.pair, claim.round, Token::Bad);
            let helped = form_of(state, claim.round, claim.claimant)
                .and_then(|f| f.helper)
                .is_some_and(|h| {
                    let mut a = h.targets;
                    let mut b = claim.pair;
                    a.sort();
                    b.sort();
                    a == b
                });
            let verdict = match (helped, claim.bad == true_bad) {
                (true, true) => crate::state::Verdict::Honest,
                (true, false) => crate::state::Verdict::WrongNumber,
                (false, _) => crate::state::Verdict::NoHelper,
            };
            JudgedClaim {
                claim,
                verdict,
                true_bad,
            }
        })
        .collect()
}

/// The bag `seat` has been told about: the starting make-up (rule 4.3) plus every token a
/// delivered notice announced (rules 15.2, 16.3.3; D17). Drawn tokens and the price go back
/// (rule 8.5, D8), so nothing else changes a bag.
fn told_bag(state: &FateState, seat: Seat) -> Bag {
    let p = &state.players[seat.index()];
    p.results
        .iter()
        .fold(state.row.bag(p.role), |bag, result| match result {
            NightResult::BagGained { token } => bag.with_added(*token),
            NightResult::VotePenalty { .. } => bag.with_added(Token::Bad),
            _ => bag,
        })
}

/// Tokens that landed in `seat`'s bag tonight and wait, with their notices, for the
/// claim/counter phase (rule 12.4, D25).
fn untold_tokens(state: &FateState, seat: Seat) -> Vec<Token> {
    state
        .held_results
        .get(seat.index())
        .into_iter()
        .flatten()
        .filter_map(|r| match r {
            NightResult::BagGained { token } => Some(*token),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Events.
// ---------------------------------------------------------------------------------------------

fn only_seat(e: &Emitted<FateEvent>, n: usize) -> Seat {
    let seats: Vec<Seat> = (0..n)
        .map(seat_of)
        .filter(|&s| e.visibility.allows(Viewer::Seat(s)))
        .collect();
    assert_eq!(seats.len(), 1, "a private event has one reader: {e:?}");
    assert!(!e.visibility.allows(Viewer::Spectator), "{e:?}");
    seats[0]
}

fn check_events(state: &FateState, events: &[Emitted<FateEvent>], tally: &mut Tally) {
    let n = state.seat_count();
    for e in events {
        let public = e.visibility == Visibility::Everyone;
        match &e.event {
            // Public events, whose content is public by rule.
            FateEvent::Started { setup } => {
                assert!(public);
                assert_eq!(*setup, state.row);
            }
            FateEvent::Unlocked { .. }
            | FateEvent::RoundStarted { .. }
            | FateEvent::PhaseOpened { .. }
            | FateEvent::Submitted { .. }
            | FateEvent::Ready { .. }
            | FateEvent::Claimed(_)
            | FateEvent::Left { .. }
            | FateEvent::Over => assert!(public, "{e:?}"),
            FateEvent::DrawResolved { round, revealed } => {
                assert!(public);
                // Rule 8.4: each revealed token is the one in that seat's row.
                for (i, token) in revealed.iter().enumerate() {
                    if let Some(token) = token {
                        let row = &state.players[i].revealed;
                        assert_eq!(row.get(*round as usize - 1), Some(token));
                    }
                }
            }
            FateEvent::NightResolved(a) => {
                assert!(public);
                check_announcement(state, a, tally);
            }
            FateEvent::VoteResolved {
                accused,
                yes,
                no,
                exiled,
            } => {
                assert!(public);
                // Rule 14.5: the totals only.
                let trial = state.trial_now().expect("a trial");
                assert_eq!(
                    (trial.accused, trial.yes, trial.no, trial.exiled),
                    (*accused, *yes, *no, *exiled)
                );
            }
            FateEvent::ExileResolved {
                seat,
                was_great_misfortune,
                ..
            } => {
                assert!(public);
                // Rule 16.2, 16.3 (D10): GM or not, never CF or GF.
                let role = state.players[seat.index()].role;
                assert_eq!(*was_great_misfortune, role == Role::GreatMisfortune);
            }
            FateEvent::Verdicts(verdicts) => {
                assert!(public);
                // Rule 17.6: verdicts only once the game is decided.
                assert!(state.finish.is_some());
                assert_eq!(*verdicts, expected_verdicts(state));
            }
            FateEvent::Decided(finish) => {
                assert!(public);
                assert_eq!(state.finish.as_ref(), Some(finish));
            }
            FateEvent::Chat {
                channel: Channel::Everyone,
                line,
            } => {
                assert!(public);
                if line.seat.is_none() && line.text.contains("suspicion threshold") {
                    // Rules 13.4, 20.3: the notice never names a kind.
                    let text = line.text.to_lowercase();
                    assert!(["good", "bad", "neutral"].iter().all(|w| !text.contains(w)));
                }
            }
            FateEvent::Chat {
                channel: Channel::Ghosts,
                ..
            } => {
                // Rule 20.1: ghosts and living awakened GMs read it, and nobody else; a
                // ghost's copy is shared with the ghosts only (public), and each GM has a
                // copy of its own, so that no ghost learns who else reads (D22).
                assert!(!e.visibility.allows(Viewer::Spectator));
                let readers = seats_where(state, |_| true)
                    .iter()
                    .filter(|&s| e.visibility.allows(Viewer::Seat(s)))
                    .collect::<SeatSet>();
                let ghosts = seats_where(state, |p| p.life == Life::Ghost);
                if readers != ghosts {
                    let reader = only_seat(e, n);
                    let p = &state.players[reader.index()];
                    assert!(
                        reads_ghosts(p) && p.life == Life::Living,
                        "ghost chat to {reader:?}"
                    );
                }
            }
            // Private events: one reader, the owner, and the owner's own facts.
            FateEvent::Awakened {
                role,
                fellow_great_misfortunes,
            } => {
                let s = only_seat(e, n);
                let p = &state.players[s.index()];
                assert!(p.awakened && p.awakening_round == state.round);
                assert_eq!(*role, p.role);
                let fellows: Vec<Seat> = state
                    .seats()
                    .filter(|&q| {
                        q != s
                            && p.role == Role::GreatMisfortune
                            && state.players[q.index()].role == Role::GreatMisfortune
                    })
                    .collect();
                assert_eq!(*fellow_great_misfortunes, fellows, "D3");
            }
            FateEvent::Drew { phase, tokens } => {
                let s = only_seat(e, n);
                match &state.phase {
                    Phase::Draw { drawn, .. } if state.phase_number == *phase => {
                        assert_eq!(drawn[s.index()], Some(*tokens));
                    }
                    // The draw resolved in the same step: the tokens went to the row and pile.
                    _ => {
                        let p = &state.players[s.index()];
                        let mut got = [
                            *p.revealed.last().expect("revealed"),
                            p.pile.last().expect("kept").token,
                        ];
                        let mut want = *tokens;
                        got.sort();
                        want.sort();
                        assert_eq!(got, want);
                    }
                }
            }
            FateEvent::Defaulted { .. } => {
                only_seat(e, n);
            }
            FateEvent::PileSlot { slot } => {
                let s = only_seat(e, n);
                assert_eq!(
                    state.players[s.index()].pile.get(slot.round as usize - 1),
                    Some(slot)
                );
            }
            FateEvent::SuspicionKinds { seat, tokens } => {
                // Rule 13.4: every other player sees the kinds; the owner never does.
                let readers: SeatSet = state
                    .seats()
                    .filter(|&s| e.visibility.allows(Viewer::Seat(s)))
                    .collect();
                assert_eq!(readers, seats_where(state, |_| true).without(*seat));
                let p = &state.players[seat.index()];
                assert_eq!(tokens.len(), p.pile.len().min(2), "rule 13.3");
                let mut exposed: Vec<Token> =
                    p.exposed_slots.iter().map(|&i| p.pile[i].token).collect();
                for token in tokens {
                    let at = exposed
                        .iter()
                        .position(|t| t == token)
                        .expect("a revealed kind is an exposed slot's");
                    exposed.remove(at);
                }
            }
            FateEvent::Results { round, results } => {
                let s = only_seat(e, n);
                let p = &state.players[s.index()];
                // Delivered: the notices are now the tail of the seat's own results.
                assert!(p.results.ends_with(results));
                for result in results {
                    check_result(state, s, *round, result);
                }
            }
            FateEvent::CounterOpened { holds, role, .. } => {
                // Rule 15.4: told to the exiled player, privately.
                let s = only_seat(e, n);
                assert_eq!(state.exiled_now(), Some(s));
                let gm = last_great_misfortune(state, s);
                assert_eq!((*holds, *role), (gm, gm.then_some(Role::GreatMisfortune)));
            }
            FateEvent::RoleTold { role } => {
                // Rule 16.3.2.
                let s = only_seat(e, n);
                let p = &state.players[s.index()];
                assert_eq!((p.role, p.life, p.awakened), (*role, Life::Ghost, false));
            }
        }
    }
}

/// Step N7: the public announcements carry public facts only, and true ones.
fn check_announcement(state: &FateState, a: &Announcement, tally: &mut Tally) {
    let marks: Vec<u32> = state.players.iter().map(|p| p.marks).collect();
    assert_eq!(a.marks, marks, "every mark count");
    for &(gm, named) in &a.failed_pathfinders {
        tally.failed_pathfinders += 1;
        let (g, y) = (&state.players[gm.index()], &state.players[named.index()]);
        assert_eq!((g.role, g.life), (Role::GreatMisfortune, Life::Ghost));
        assert_ne!(y.role, Role::GreatFortune);
        assert_eq!(
            form_of(state, a.round, gm).and_then(|f| f.fate),
            Some(Fate::Pathfinder(named))
        );
    }
    let guards = state
        .seats()
        .filter(|&s| form_of(state, a.round, s).is_some_and(|f| f.guard.is_some()))
        .count();
    assert_eq!(a.guard_used, guards > 0, "rule 11.7");
    for &(seat, count) in &a.reveals {
        tally.reveals += 1;
        let p = &state.players[seat.index()];
        assert_eq!(count as usize, p.pile.len().min(2), "rule 13.3");
        assert_eq!(p.marks, 0, "rule 13.5");
    }
    match a.accusation {
        Some(shown) => {
            let trial = state.trials.last().expect("a trial");
            assert_eq!(
                (trial.round, trial.accuser, trial.accused, trial.price),
                (a.round, shown.accuser, shown.accused, shown.price)
            );
        }
        None => assert!(state.trials.last().is_none_or(|t| t.round != a.round)),
    }
}

/// A private result is about the reader's own action that night, or their own bag (rule 15.2).
fn check_result(state: &FateState, s: Seat, round: u32, result: &NightResult) {
    let form = form_of(state, round, s);
    match result {
        NightResult::Peek { target, seen } => {
            assert_eq!(form.and_then(|f| f.fate), Some(Fate::Peek(*target)));
            if let Some((slot_round, token)) = seen {
                // D16: a real token of the target's pile, with its slot.
                let pile = &state.players[target.index()].pile;
                assert_eq!(
                    pile.get(*slot_round as usize - 1).map(|slot| slot.token),
                    Some(*token)
                );
            }
        }
        NightResult::Eye { target, seen } => {
            assert_eq!(form.and_then(|f| f.ghost), Some(GhostAction::Eye(*target)));
            if let Some(token) = seen {
                assert!(state.players[target.index()].bag.count(*token) > 0);
            }
        }
        NightResult::Whisper {
            round: asked,
            targets,
            bad,
            good,
            neutral,
        } => {
            assert_eq!(asked, &round, "rule 11.12.4: the night it was asked in");
            let helper = form.and_then(|f| f.helper).expect("the reader's helper");
            assert_eq!(helper.targets, *targets);
            // Rule 11.12.4: the pair's piles as they stood that night.
            assert_eq!(*bad, count_in_piles(state, *targets, round, Token::Bad));
            let good_count = count_in_piles(state, *targets, round, Token::Good);
            let neutral_count = count_in_piles(state, *targets, round, Token::Neutral);
            assert_eq!(*good, helper.good.then_some(good_count));
            assert_eq!(*neutral, helper.neutral.then_some(neutral_count));
        }
        NightResult::Landed { target, token, .. } => {
            let f = form.expect("the reader's form");
            let aimed = match (f.fate, f.ghost) {
                (Some(Fate::Bless(t)), _) => (t, Token::Good),
                (Some(Fate::Curse(t)), _) | (_, Some(GhostAction::Curse(t))) => (t, Token::Bad),
                _ => panic!("{s:?} told of an action it did not take"),
            };
            assert_eq!(aimed, (*target, *token));
        }
        NightResult::BagGained { token } => {
            // Someone else aimed a bless (Good), a curse or a Ghost's Curse (Bad) at the reader.
            let aimed = state.seats().any(|q| {
                form_of(state, round, q).is_some_and(|f| match (f.fate, f.ghost) {
                    (Some(Fate::Bless(t)), _) => t == s && *token == Token::Good,
                    (Some(Fate::Curse(t)), _) | (_, Some(GhostAction::Curse(t))) => {
                        t == s && *token == Token::Bad
                    }
                    _ => false,
                })
            });
            assert!(aimed, "{s:?} gained {token:?} from nobody");
        }
        NightResult::Guard { .. } => {
            assert!(form.is_some_and(|f| f.guard.is_some()));
        }
        NightResult::VotePenalty { round } => {
            // Rule 16.3.3: a yes vote that exiled a player who was not a GM.
            let trial = state
                .trials
                .iter()
                .find(|t| t.round == *round)
                .expect("the trial");
            let votes = trial.votes.as_ref().expect("resolved");
            assert_eq!(votes[s.index()], Some(true));
            assert_ne!(
                state.players[trial.accused.index()].role,
                Role::GreatMisfortune
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Timing: locks, deadlines and who owes, from public information only.
// ---------------------------------------------------------------------------------------------

/// Rule 5.5: 3 s + 2 s for each failed pathfinder, the guard used, each suspicion reveal and
/// the accusation, at most 15 s. Mark counts do not count.
fn night_lock(d: &Durations, a: &Announcement) -> u64 {
    let items = a.failed_pathfinders.len()
        + usize::from(a.guard_used)
        + a.reveals.len()
        + usize::from(a.accusation.is_some());
    (d.night_lock_ms + d.night_lock_item_ms * items as u64).min(d.night_lock_max_ms)
}

/// Who owes a decision, from the spectator's view and the public "submitted" signals
/// (rules 6.1, 15.5, 22.2; D9, D42, D43).
fn public_to_act(view: &FateView, public: &Public) -> ToAct {
    let with = |life: Life| -> SeatSet {
        view.seats
            .iter()
            .filter(|s| s.life == life)
            .map(|s| s.seat)
            .collect()
    };
    let living = with(Life::Living);
    let owed = match view.phase {
        PhaseKind::Ending | PhaseKind::Over => return ToAct::Nobody,
        _ if public.locked => return ToAct::Nobody,
        PhaseKind::Draw | PhaseKind::Discussion | PhaseKind::Accusation | PhaseKind::Trial => {
            living
        }
        PhaseKind::Night => living.iter().chain(with(Life::Ghost).iter()).collect(),
        PhaseKind::Vote => {
            let trial = view.trials.last().expect("a trial");
            assert_eq!(trial.round, view.round);
            living.without(trial.accused)
        }
        PhaseKind::ClaimCounter => {
            let exiled = with(Life::Exiled);
            if exiled.is_empty() {
                return ToAct::Nobody;
            }
            exiled
        }
    };
    ToAct::Simultaneous {
        phase: view.phase_number,
        pending: owed
            .iter()
            .filter(|&s| !public.submitted.contains(s))
            .collect(),
    }
}

fn check_timing(
    public: &mut Public,
    state: &FateState,
    now: u64,
    events: &[Emitted<FateEvent>],
    before: &FateView,
    after: &FateView,
    tally: &mut Tally,
) {
    let d = &state.config.durations;
    let mut night: Option<&Announcement> = None;
    let mut vote: Option<bool> = None;
    let mut exile = false;
    let mut drew = false;
    let mut decided: Option<WinReason> = None;
    let mut last_owed = None;
    let mut claim_counter_opened = false;
    for e in events {
        match &e.event {
            // Rule 12.4 (D25): the night's private results, and the counter right (rule 15.4),
            // arrive together when the claim/counter phase opens, whoever receives them.
            FateEvent::Results { round, results } => {
                let night = results
                    .iter()
                    .any(|r| !matches!(r, NightResult::VotePenalty { .. }));
                assert!(!night || claim_counter_opened, "results before the phase");
                // A vote penalty comes at exile resolution, which may open the next round.
                assert!(*round == state.round || (!night && *round + 1 == state.round));
            }
            FateEvent::CounterOpened { .. } => assert!(claim_counter_opened),
            FateEvent::NightResolved(a) => {
                // The announcement's own facts against the spectator's views around it.
                assert_eq!(a.lock_ms, night_lock(d, a), "rule 5.5");
                assert_eq!(
                    a.guard_used,
                    before.shield_whole && !after.shield_whole,
                    "rule 11.7"
                );
                let turned: Vec<Seat> = before
                    .seats
                    .iter()
                    .zip(&after.seats)
                    .filter(|(b, a)| b.life == Life::Living && a.life == Life::Ghost)
                    .map(|(b, _)| b.seat)
                    .collect();
                let failed: Vec<Seat> = a.failed_pathfinders.iter().map(|&(g, _)| g).collect();
                assert_eq!(turned, failed, "N2: only failed pathfinders become ghosts");
                for &(gm, named) in &a.failed_pathfinders {
                    assert_eq!(after.seats[gm.index()].was_great_misfortune, Some(true));
                    assert!(after.seats[named.index()].not_great_fortune);
                }
                for s in &after.seats {
                    assert_eq!(a.marks[s.seat.index()], s.marks);
                }
                for &(seat, count) in &a.reveals {
                    assert_eq!(count as usize, after.seats[seat.index()].pile_size.min(2));
                }
                if let Some(shown) = a.accusation {
                    let trial = after.trials.last().expect("the trial");
                    assert_eq!(
                        (trial.round, trial.accuser, trial.accused, trial.price),
                        (a.round, shown.accuser, shown.accused, shown.price)
                    );
                }
                night = Some(a);
            }
            FateEvent::VoteResolved { exiled, .. } => vote = Some(*exiled),
            FateEvent::ExileResolved { .. } => exile = true,
            FateEvent::DrawResolved { .. } => drew = true,
            FateEvent::Decided(finish) => decided = Some(finish.reason),
            FateEvent::PhaseOpened {
                phase,
                kind,
                round,
                opens_at_ms,
                deadline_ms,
                owed,
            } => {
                assert_eq!(*phase, public.phase + 1, "rule 5.1");
                assert!(*round <= state.round, "rounds only grow");
                // Rule 5.5's table, and the durations of rule 5.8.
                let (lock, length) = match kind {
                    PhaseKind::Draw => (if exile { d.exile_lock_ms } else { 0 }, Some(d.draw_ms)),
                    PhaseKind::Discussion => {
                        assert!(drew, "the discussion follows the draw");
                        (d.draw_lock_ms, Some(d.discussion_ms))
                    }
                    PhaseKind::Accusation => (0, Some(d.accusation_ms)),
                    PhaseKind::Night => (0, Some(d.night_ms)),
                    PhaseKind::Trial => (
                        night_lock(d, night.expect("the trial follows the night")),
                        Some(d.trial_ms),
                    ),
                    PhaseKind::Vote => (0, Some(d.vote_ms)),
                    // Rule 15.5: 10 s with an exile, else a random wait.
                    PhaseKind::ClaimCounter => match vote {
                        Some(exiled) => (d.vote_lock_ms, exiled.then_some(d.counter_deadline_ms)),
                        None => (
                            night_lock(d, night.expect("the claim/counter phase follows")),
                            None,
                        ),
                    },
                    // Rule 16.4: the exile's lock comes before the wrap-up, so only W5 (the
                    // round cap) opens the ending after it; W3 and W4 open it at once.
                    PhaseKind::Ending => {
                        let after_lock = exile && decided == Some(WinReason::RoundCap);
                        (
                            if after_lock { d.exile_lock_ms } else { 0 },
                            Some(d.ending_ms),
                        )
                    }
                    PhaseKind::Over => panic!("the game never enters Over through a phase"),
                };
                assert_eq!(*opens_at_ms, now + lock, "{kind:?}'s lock");
                match length {
                    Some(ms) => assert_eq!(*deadline_ms, opens_at_ms + ms, "{kind:?}"),
                    None => {
                        let wait = deadline_ms - opens_at_ms;
                        assert!(
                            (d.counter_min_ms..=d.counter_deadline_ms).contains(&wait)
                                && wait.is_multiple_of(100),
                            "rule 15.5: {wait}"
                        );
                    }
                }
                tally.phases_timed += 1;
                public.check_end(now, d);
                *public = Public {
                    phase: *phase,
                    kind: Some(*kind),
                    locked: lock > 0,
                    opens_at: *opens_at_ms,
                    deadline: Some(*deadline_ms),
                    owed: *owed,
                    submitted: SeatSet::EMPTY,
                };
                last_owed = Some(*owed);
                claim_counter_opened = *kind == PhaseKind::ClaimCounter;
            }
            FateEvent::Unlocked { phase } => {
                assert_eq!(*phase, public.phase);
                assert!(public.locked, "only a locked phase unlocks");
                assert_eq!(now, public.opens_at, "the lock ends on time");
                public.locked = false;
            }
            FateEvent::Submitted { phase, seat } => {
                assert_eq!(*phase, public.phase);
                assert!(!public.locked, "D43: nobody owes during a lock");
                public.submitted = public.submitted.with(*seat);
                // Rule 15.5: an answer never ends the phase before its minimum.
                let earliest = public.opens_at + d.counter_min_ms;
                if public.kind == Some(PhaseKind::ClaimCounter) && now < earliest {
                    public.deadline = Some(earliest);
                }
            }
            FateEvent::Over => {
                public.check_end(now, d);
                public.kind = Some(PhaseKind::Over);
                public.deadline = None;
            }
            _ => {}
        }
    }
    // Who owes: from public states only (rule 22.2).
    let to_act = public_to_act(after, public);
    assert_eq!(FateTokens::to_act(state), to_act, "to_act");
    let pending: Vec<Seat> = match to_act {
        ToAct::Simultaneous { pending, .. } => pending.iter().collect(),
        _ => Vec::new(),
    };
    assert_eq!(after.pending, pending);
    if let Some(owed) = last_owed
        && public.kind != Some(PhaseKind::Ending)
    {
        let owed_now = match public_to_act(
            after,
            &Public {
                locked: false,
                submitted: SeatSet::EMPTY,
                ..*public
            },
        ) {
            ToAct::Simultaneous { pending, .. } => pending,
            _ => SeatSet::EMPTY,
        };
        assert_eq!(owed, owed_now, "the owed set of the phase entered");
    }
    // The rules' next deadline: the lock's end, else the phase's (D43).
    let expected = if public.locked {
        Some(public.opens_at)
    } else {
        public.deadline
    };
    assert_eq!(FateTokens::deadline(state), expected, "deadline");
}

// ---------------------------------------------------------------------------------------------
// Views, field by field.
// ---------------------------------------------------------------------------------------------

fn check_views(state: &FateState, spectator: &FateView) {
    check_public(state, spectator);
    // Rule 12.4 (D25): private results are held from night resolution through the trial and
    // the vote, and only then.
    if state.finish.is_none() {
        let trial_or_vote = matches!(state.phase.kind(), PhaseKind::Trial | PhaseKind::Vote);
        assert_eq!(!state.held_results.is_empty(), trial_or_vote, "rule 12.4");
    }
    assert_eq!(spectator.own, None);
    let finished = state.finish.is_some();
    assert_eq!(
        spectator.ghost_chat.is_some(),
        finished,
        "rule 20.4: spectators never read the Ghosts channel before the end"
    );
    for seat in state.seats() {
        let view = FateTokens::view(state, Viewer::Seat(seat));
        check_same_public(spectator, &view, seat, finished);
        let p = &state.players[seat.index()];
        let reads = finished || reads_ghosts(p);
        assert_eq!(
            view.ghost_chat.as_ref(),
            reads.then_some(&state.ghost_chat),
            "rule 20.1 for {seat:?}"
        );
        check_own(state, seat, view.own.as_ref().expect("a seat's own view"));
    }
}

/// Rule 22.2: the public part, against the full state.
fn check_public(state: &FateState, v: &FateView) {
    let finished = state.finish.is_some();
    assert_eq!(v.setup, state.row);
    assert_eq!(
        (v.round, v.phase, v.phase_number),
        (state.round, state.phase.kind(), state.phase_number)
    );
    assert_eq!(
        (v.opens_at_ms, v.deadline_ms),
        (state.opens_at_ms, state.deadline_ms)
    );
    let living = state.players.iter().filter(|p| p.living()).count();
    assert_eq!(v.threshold as usize, living + 1, "rule 13.1");
    assert_eq!(v.shield_whole, state.shield_whole, "rule 3.6");
    assert_eq!(v.seats.len(), state.seat_count());
    for (i, (s, p)) in v.seats.iter().zip(&state.players).enumerate() {
        assert_eq!(s.seat, seat_of(i));
        assert_eq!(s.life, p.life);
        // Rule 22.2: for ghosts and out players, whether they were a GM; never whether a
        // non-GM was a CF or the GF, and nothing while living or exiled (rule 14.6).
        let shown =
            matches!(p.life, Life::Ghost | Life::Out).then_some(p.role == Role::GreatMisfortune);
        assert_eq!(s.was_great_misfortune, shown, "seat {i}");
        assert_eq!(s.revealed, p.revealed, "rule 3.3");
        assert_eq!(s.pile_size, p.pile.len(), "rule 3.4");
        assert_eq!(s.exposed_count, p.exposed_slots.len(), "rule 13.4");
        // Rule 13.4: the kinds, without slots: the multiset of the exposed slots' kinds.
        let mut kinds: Vec<Token> = p.exposed_slots.iter().map(|&k| p.pile[k].token).collect();
        let mut shown_kinds = s.exposed.clone();
        kinds.sort();
        shown_kinds.sort();
        assert_eq!(shown_kinds, kinds, "seat {i}");
        assert_eq!(s.marks, p.marks, "rule 3.5");
        assert_eq!(s.not_great_fortune, p.not_great_fortune, "rule 11.11");
    }
    assert_eq!(v.trials.len(), state.trials.len());
    for (shown, t) in v.trials.iter().zip(&state.trials) {
        assert_eq!(
            (shown.round, shown.accuser, shown.accused, shown.price),
            (t.round, t.accuser, t.accused, t.price),
            "rule 14.1"
        );
        // Rule 14.5: totals once the vote resolved; never who voted how.
        let resolved = t.votes.is_some();
        assert_eq!(shown.totals, resolved.then_some((t.yes, t.no)));
        assert_eq!(shown.exiled, resolved.then_some(t.exiled));
        if let Some(votes) = &t.votes {
            let yes = votes.iter().filter(|v| **v == Some(true)).count();
            assert_eq!(t.yes as usize, yes);
        }
        // Section 16 (D10): GM or not once exile resolution said so, and the counter.
        let gm = state.players[t.accused.index()].role == Role::GreatMisfortune;
        let said = t.exiled && t.resolved;
        assert_eq!(shown.was_great_misfortune, said.then_some(gm));
        assert_eq!(shown.counter.is_some(), said && gm);
    }
    assert_eq!(v.claims, state.claims, "rule 17.1");
    assert_eq!(v.everyone_chat, state.everyone_chat, "rule 20.1");
    assert_eq!(v.finish, state.finish);
    match &v.revealed {
        None => assert!(!finished, "rule 22.6"),
        Some(r) => {
            assert!(finished, "rule 22.1: nothing revealed before the end");
            check_revealed(state, r);
        }
    }
}

/// Rule 22.6 (D39): after the end, everything.
fn check_revealed(state: &FateState, r: &crate::view::Revealed) {
    assert_eq!(r.seats.len(), state.seat_count());
    for (shown, p) in r.seats.iter().zip(&state.players) {
        assert_eq!(
            (shown.role, shown.awakening_round, shown.awakened),
            (p.role, p.awakening_round, p.awakened)
        );
        assert_eq!(shown.bag, p.bag);
        assert_eq!(shown.pile, p.pile);
        assert_eq!(shown.exposed_slots, p.exposed_slots);
        assert_eq!(shown.results, p.results);
    }
    assert_eq!(r.marks, state.marks_log, "who marked whom");
    assert_eq!(r.nights, state.nights, "every night form");
    assert_eq!(r.accusations, state.accusations, "every accusation");
    assert_eq!(r.trials, state.trials, "every vote and the counter right");
    assert_eq!(r.verdicts, expected_verdicts(state), "rule 17.6");
    assert_eq!(r.held_results, state.held_results);
    assert_eq!(r.ghost_chat, state.ghost_chat, "the Ghosts channel");
}

/// A seat's view has the spectator's public part, and only its own pile's reveal differs: the
/// owner sees how many, never which (rule 13.4), until the end.
fn check_same_public(public: &FateView, v: &FateView, seat: Seat, finished: bool) {
    assert_eq!(v.setup, public.setup);
    assert_eq!(
        (
            v.round,
            v.phase,
            v.phase_number,
            v.opens_at_ms,
            v.deadline_ms
        ),
        (
            public.round,
            public.phase,
            public.phase_number,
            public.opens_at_ms,
            public.deadline_ms
        )
    );
    assert_eq!(v.pending, public.pending);
    assert_eq!(
        (v.threshold, v.shield_whole),
        (public.threshold, public.shield_whole)
    );
    for (mine, theirs) in v.seats.iter().zip(&public.seats) {
        if mine.seat == seat && !finished {
            assert!(
                mine.exposed.is_empty(),
                "rule 13.4: the owner never sees which"
            );
            let mut blind = theirs.clone();
            blind.exposed = Vec::new();
            assert_eq!(*mine, blind);
        } else {
            assert_eq!(mine, theirs);
        }
    }
    assert_eq!(v.trials, public.trials);
    assert_eq!(v.claims, public.claims);
    assert_eq!(v.everyone_chat, public.everyone_chat);
    assert_eq!(v.finish, public.finish);
    assert_eq!(v.revealed, public.revealed);
}

/// Rule 22.3: a seat's own secrets, and nothing of anyone else's.
fn check_own(state: &FateState, seat: Seat, own: &OwnView) {
    let p = &state.players[seat.index()];
    let finished = state.finish.is_some();
    let kind = state.phase.kind();
    assert_eq!(own.seat, seat);
    // Rules 7.2, 15.4, 16.3.2: awakening tells the role; so does the claim/counter phase to an
    // exiled GM holding the counter right, exile resolution to anyone else, and a failed
    // pathfinder already knew.
    let exiled_gm_asked = p.life == Life::Exiled
        && last_great_misfortune(state, seat)
        && kind == PhaseKind::ClaimCounter;
    let knows_role = p.awakened || matches!(p.life, Life::Ghost | Life::Out) || exiled_gm_asked;
    assert_eq!(own.role, knows_role.then_some(p.role), "{seat:?}'s role");
    // D3: an awakened GM knows the other GMs; nobody else learns anyone's role.
    let fellows: Vec<Seat> = if p.awakened && p.role == Role::GreatMisfortune {
        state
            .seats()
            .filter(|&q| q != seat && state.players[q.index()].role == Role::GreatMisfortune)
            .collect()
    } else {
        Vec::new()
    };
    assert_eq!(own.fellow_great_misfortunes, fellows);
    // D6: the own bag once awakened, as far as it has been told (rules 12.4, 15.2: tonight's
    // notices arrive when the claim/counter phase opens, so the bag shows them then).
    if finished {
        assert_eq!(own.bag, p.awakened.then_some(p.bag));
    } else {
        let mut truth = told_bag(state, seat);
        for token in untold_tokens(state, seat) {
            truth = truth.with_added(token);
        }
        assert_eq!(p.bag, truth, "rule 3.2: no bag changes without a notice");
        assert_eq!(
            own.bag,
            p.awakened.then(|| told_bag(state, seat)),
            "D6, D25"
        );
    }
    // Rule 8.2: own two tokens while choosing; own choice.
    let (drawn, chosen, form) = match &state.phase {
        Phase::Draw { drawn, chosen } => (drawn[seat.index()], chosen[seat.index()], None),
        Phase::Night { forms } => (None, None, forms[seat.index()].as_ref().map(|f| &f.1)),
        _ => (None, None, None),
    };
    assert_eq!((own.drawn, own.reveal_choice), (drawn, chosen));
    assert_eq!(own.night_form.as_ref(), form, "own night form once sent");
    assert_eq!(own.pile, p.pile, "rule 3.4: every own slot");
    // Rule 13.4: how many, never which.
    assert_eq!(own.exposures, p.exposures_told);
    assert!(own.exposures.iter().all(|&c| c == 1 || c == 2));
    assert_eq!(
        (own.talisman_used, own.ghost_curse_used),
        (p.talisman_used, p.ghost_curse_used)
    );
    if !finished {
        assert_eq!(
            own.next_helper_night,
            expected_helper_night(state, seat),
            "rule 11.12.1"
        );
    }
    // Rule 11.3's table, for this seat tonight (rule 22.4: same fields for everyone).
    let night = kind == PhaseKind::Night;
    let living = night && p.life == Life::Living;
    let awake = |role: Role| living && p.awakened && p.role == role;
    let ghost = night && p.life == Life::Ghost;
    let a = &own.form;
    assert_eq!(
        (a.mark, a.talisman, a.guard),
        (
            living,
            living && !p.talisman_used,
            awake(Role::CommonFortune) && state.shield_whole
        ),
        "{seat:?}"
    );
    let gf = awake(Role::GreatFortune);
    let gm = awake(Role::GreatMisfortune);
    assert_eq!(
        (a.peek, a.bless, a.curse, a.pathfinder),
        (gf || gm, gf, gm, gm)
    );
    let helper_night =
        awake(Role::CommonFortune) && expected_helper_night(state, seat) == Some(state.round);
    assert_eq!(a.helper, helper_night, "rule 11.12.1");
    assert_eq!(
        (a.ghost_eye, a.ghost_curse),
        (ghost, ghost && !p.ghost_curse_used)
    );
    // Rule 15.2: delivered results only; the held ones wait for the claim/counter phase.
    assert_eq!(own.results, p.results);
    // Rule 22.3: own accusation and vote this round.
    let accused = match &state.phase {
        Phase::Accusation { choices } => choices[seat.index()].and_then(|c| c.1),
        _ => state
            .accusations
            .iter()
            .find(|a| a.round == state.round && a.accuser == seat)
            .map(|a| a.accused),
    };
    assert_eq!(own.accused, accused);
    let vote = match &state.phase {
        Phase::Vote { votes } => votes[seat.index()],
        _ => state
            .trial_now()
            .and_then(|t| t.votes.as_ref())
            .and_then(|v| v[seat.index()]),
    };
    assert_eq!(own.vote, vote);
    // Rule 15.4: the exiled player is asked; only they learn whether they hold the right.
    let asked = kind == PhaseKind::ClaimCounter && p.life == Life::Exiled;
    assert_eq!(
        own.counter_right,
        asked.then(|| last_great_misfortune(state, seat))
    );
    assert_eq!(own.claim, expected_claim_right(state, seat), "rule 17.3");
}

/// Rule 15.4: whether `seat` is a Great Misfortune with no other Great Misfortune living,
/// which is who holds the counter right once exiled.
fn last_great_misfortune(state: &FateState, seat: Seat) -> bool {
    state.players[seat.index()].role == Role::GreatMisfortune
        && state.players.iter().enumerate().all(|(i, p)| {
            i == seat.index() || p.role != Role::GreatMisfortune || p.life != Life::Living
        })
}

// ---------------------------------------------------------------------------------------------
// Indistinguishability: change what a viewer may not know; its view must not move.
// ---------------------------------------------------------------------------------------------

fn flip(token: Token) -> Token {
    match token {
        Token::Good => Token::Bad,
        Token::Neutral => Token::Good,
        Token::Bad => Token::Neutral,
    }
}

fn any_token(rng: &mut ChaCha8Rng) -> Token {
    [Token::Good, Token::Neutral, Token::Bad][below(rng, 3) as usize]
}

/// `state` with everything `viewer` may not know changed at random, and every public fact
/// and every secret of the viewer's own kept.
pub(crate) fn hide(
    state: &FateState,
    viewer: Viewer,
    rng: &mut ChaCha8Rng,
    tally: &mut Tally,
) -> FateState {
    let mut s = state.clone();
    let n = s.seat_count();
    let me = match viewer {
        Viewer::Seat(seat) => Some(seat.index()),
        _ => None,
    };
    let mine = me.map(|i| &state.players[i]);
    let knows_gms = mine.is_some_and(|p| p.awakened && p.role == Role::GreatMisfortune);
    let any_seat = |rng: &mut ChaCha8Rng| seat_of(below(rng, n as u32) as usize);

    // Roles (rules 1.3, 22.1): swap the roles of two seats whose roles the viewer does not
    // know. An unawakened living viewer does not know their own. A ghost's or out player's
    // GM-ness is public (rule 22.2), and an awakened GM knows every GM (D3), so those swaps
    // keep GM-ness; nobody publicly "not the Great Fortune" becomes it.
    let unknown: Vec<usize> = (0..n)
        .filter(|&i| match me {
            Some(m) if m == i => {
                state.players[i].life == Life::Living && !state.players[i].awakened
            }
            _ => true,
        })
        .collect();
    let gm_public =
        |i: usize| knows_gms || matches!(state.players[i].life, Life::Ghost | Life::Out);
    if unknown.len() >= 2 {
        for _ in 0..6 {
            let a = unknown[below(rng, unknown.len() as u32) as usize];
            let b = unknown[below(rng, unknown.len() as u32) as usize];
            let (ra, rb) = (s.players[a].role, s.players[b].role);
            if a == b || ra == rb {
                continue;
            }
            let gm_changes = (ra == Role::GreatMisfortune) != (rb == Role::GreatMisfortune);
            if gm_changes && (gm_public(a) || gm_public(b)) {
                continue;
            }
            let named =
                |i: usize, r: Role| r == Role::GreatFortune && s.players[i].not_great_fortune;
            if named(a, rb) || named(b, ra) {
                continue;
            }
            s.players[a].role = rb;
            s.players[b].role = ra;
        }
    }

    let holding = !state.held_results.is_empty();
    for i in 0..n {
        let p = &mut s.players[i];
        let own = me == Some(i);
        if own {
            if p.life == Life::Living && !p.awakened {
                // Rule 4.4: the awakening round is secret from its owner; D6: so is the bag.
                p.awakening_round += 1 + below(rng, 3);
                p.bag = p.bag.with_added(any_token(rng));
                p.next_helper_night = Some(99);
            } else if p.awakened && holding {
                // Rule 12.4: a token that landed tonight is told when the claim/counter phase
                // opens; until then the owner's view must not show it.
                let token = any_token(rng);
                p.bag = p.bag.with_added(token);
                s.held_results[i].push(NightResult::BagGained { token });
                tally.untold_bag_changes += 1;
            }
            // Rule 13.4: the owner never learns which slots were revealed.
            let len = p.pile.len();
            if !p.exposed_slots.is_empty() {
                let mut slots: Vec<usize> = (0..len).collect();
                shuffle(rng, &mut slots);
                slots.truncate(p.exposed_slots.len());
                p.exposed_slots = slots;
            }
            if holding {
                s.held_results[i].push(NightResult::Guard {
                    used: true,
                    blocked: true,
                });
            }
            continue;
        }
        // Another seat: awakening, bag, flags, schedule, results, exposure notices.
        p.awakened = !p.awakened;
        p.awakening_round = 2 + below(rng, 3);
        p.bag = p.bag.with_added(any_token(rng));
        p.talisman_used = !p.talisman_used;
        p.ghost_curse_used = !p.ghost_curse_used;
        p.next_helper_night = Some(1 + below(rng, 9));
        p.results.push(NightResult::BagGained {
            token: any_token(rng),
        });
        p.exposures_told.push(1);
        // Pile kinds: unexposed slots change; then two slots trade places together with
        // their exposure, so the exposed kinds stay in the same order but sit in other slots.
        for (k, slot) in p.pile.iter_mut().enumerate() {
            if !p.exposed_slots.contains(&k) && below(rng, 2) == 0 {
                slot.token = flip(slot.token);
            }
        }
        let len = p.pile.len();
        if len >= 2 {
            let x = below(rng, len as u32) as usize;
            let y = below(rng, len as u32) as usize;
            let (tx, ty) = (p.pile[x].token, p.pile[y].token);
            p.pile[x].token = ty;
            p.pile[y].token = tx;
            for k in &mut p.exposed_slots {
                if *k == x {
                    *k = y;
                } else if *k == y {
                    *k = x;
                }
            }
        }
        if let Some(held) = s.held_results.get_mut(i) {
            held.push(NightResult::Whisper {
                round: 1,
                targets: [seat_of(0), seat_of(1)],
                bad: 9,
                good: None,
                neutral: None,
            });
        }
        let seat = seat_of(i);
        // Decisions of the phase under way: what, never whether (rule 5.2).
        match &mut s.phase {
            Phase::Draw { drawn, chosen } => {
                drawn[i] = drawn[i].map(|[a, b]| [flip(a), flip(b)]);
                chosen[i] = chosen[i].map(|c| 1 - c);
            }
            Phase::Night { forms } => {
                if let Some((order, form)) = &mut forms[i] {
                    *order += 1_000;
                    form.talisman = !form.talisman;
                    form.mark = Some(any_seat(rng));
                    form.fate = Some(Fate::Curse(any_seat(rng)));
                }
            }
            Phase::Accusation { choices } => {
                if let Some((order, target)) = &mut choices[i] {
                    *order += 1_000;
                    *target = if target.is_some() {
                        None
                    } else {
                        Some(any_seat(rng))
                    };
                }
            }
            Phase::Vote { votes } => votes[i] = votes[i].map(|v| !v),
            Phase::ClaimCounter { answer } if state.exiled_now() == Some(seat) => {
                *answer = answer.map(|a| match a {
                    Some(_) => None,
                    None => Some(any_seat(rng)),
                });
            }
            _ => {}
        }
        // Accusations that did not proceed are never shown (rule 10.6); nor are past nights'
        // forms (rule 22.1) or who marked whom (rule 3.5).
        s.accusations.push(crate::state::Accusation {
            round: state.round,
            order: u64::MAX / 2,
            accuser: seat,
            accused: any_seat(rng),
        });
        for night in &mut s.nights {
            if let Some(Some(form)) = night.forms.get_mut(i) {
                form.talisman = !form.talisman;
                form.mark = Some(any_seat(rng));
            }
        }
        s.marks_log.push((state.round, seat, any_seat(rng)));
    }
    s.accepted += 1_000;
    // Votes (rule 14.5): two other voters trade opposite votes, keeping the totals.
    for trial in &mut s.trials {
        let Some(votes) = &mut trial.votes else {
            continue;
        };
        let other =
            |want: bool| (0..votes.len()).find(|&i| me != Some(i) && votes[i] == Some(want));
        if let (Some(a), Some(b)) = (other(true), other(false)) {
            votes.swap(a, b);
        }
    }
    // The Ghosts channel, for a viewer who does not read it (rule 20.4).
    if !mine.is_some_and(reads_ghosts) {
        s.ghost_chat.push(ChatLine {
            seat: Some(seat_of(0)),
            round: state.round,
            text: "unseen".to_owned(),
        });
    }
    s
}

fn check_hidden(state: &FateState, viewer: Viewer, rng: &mut ChaCha8Rng, tally: &mut Tally) {
    let other = hide(state, viewer, rng, tally);
    let before = FateTokens::view(state, viewer);
    let after = FateTokens::view(&other, viewer);
    if before != after {
        let (b, a) = (
            serde_json::to_value(&before).expect("json"),
            serde_json::to_value(&after).expect("json"),
        );
        let moved: Vec<String> = b
            .as_object()
            .expect("an object")
            .iter()
            .filter(|(k, v)| a.get(k.as_str()) != Some(v))
            .map(|(k, v)| format!("{k}: {v} became {}", a[k.as_str()]))
            .collect();
        panic!("{viewer:?}'s view moved with secrets it may not know: {moved:#?}");
    }
}
