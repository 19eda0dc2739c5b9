//! The night: the form (rules 11.2–11.4), defaults (rule 11.16) and resolution (section 12,
//! section 13's suspicion threshold, checks W1 and W2).

use serde::{Deserialize, Serialize};

use arbiter_rules::random::below;
use arbiter_rules::{Ctx, Emitted, Events, Random, Seat, SeatSet};

use crate::rules::FateEvent;
use crate::setup::{Role, Token};
use crate::state::{FateState, Life, NightRecord, Phase, Side, Trial, WinReason, seat_of};

/// A fate action (rule 11.3, D15): at most one a night.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "target")]
pub enum Fate {
    /// Look at one random token of the target's private pile (rule 11.8; GF, GM).
    Peek(Seat),
    /// Add a Good token to the target's bag (rule 11.9; GF).
    Bless(Seat),
    /// Add a Bad token to the target's bag (rule 11.10; GM).
    Curse(Seat),
    /// Name the target as the Great Fortune (rule 11.11; GM).
    Pathfinder(Seat),
}

impl Fate {
    fn target(self) -> Seat {
        match self {
            Fate::Peek(t) | Fate::Bless(t) | Fate::Curse(t) | Fate::Pathfinder(t) => t,
        }
    }
}

/// A ghost's action (rules 11.13, 11.14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "target")]
pub enum GhostAction {
    /// See one random token of the target's bag.
    Eye(Seat),
    /// Add a Bad token to the target's bag, once per game.
    Curse(Seat),
}

/// The helper (rule 11.12): two targets and the optional extra counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Helper {
    /// Two different other living players.
    pub targets: [Seat; 2],
    /// Also count Good tokens (an extra count: two rest nights follow).
    #[serde(default)]
    pub good: bool,
    /// Also count Neutral tokens (an extra count: two rest nights follow).
    #[serde(default)]
    pub neutral: bool,
}

/// The night form (rule 11.2). It has the same fields for every role (rule 22.4); a ghost
/// fills only `ghost`, a living player everything but `ghost`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NightForm {
    /// A suspicion mark on another living player (rule 11.5).
    pub mark: Option<Seat>,
    /// Use the talisman tonight (rule 11.6).
    pub talisman: bool,
    /// Spend the table's guard on another living player (rule 11.7).
    pub guard: Option<Seat>,
    /// One fate action (rules 11.8–11.11).
    pub fate: Option<Fate>,
    /// The helper (rule 11.12).
    pub helper: Option<Helper>,
    /// A ghost's action (rules 11.13, 11.14).
    pub ghost: Option<GhostAction>,
}

/// Why a night form is refused as a whole (rule 11.4).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    /// A ghost's form may hold only a ghost action (rule 11.2).
    #[error("a ghost's form holds only a ghost action (rule 11.2)")]
    GhostForm,
    /// A living player may not use ghost actions (rule 11.3).
    #[error("only ghosts use ghost actions (rule 11.3)")]
    NotAGhost,
    /// The target is the acting player, or not a living player (rule 2: "another living
    /// player"; D41).
    #[error("{0}: the target must be another living player")]
    Target(&'static str),
    /// The talisman has been used (rule 11.6).
    #[error("the talisman is used once per game (rule 11.6)")]
    TalismanUsed,
    /// Only an awakened CF may guard, while the shield is whole (rule 11.7).
    #[error("the guard is not available to you (rule 11.7)")]
    Guard,
    /// This fate action is not available to this player (rule 11.3, D15).
    #[error("this fate action is not available to you (rule 11.3)")]
    Fate,
    /// The helper is available only to an awakened CF on a helper night (rule 11.12).
    #[error("the helper is not available to you tonight (rule 11.12)")]
    Helper,
    /// On a helper night the helper is mandatory (rule 11.12.2).
    #[error("tonight is a helper night: the helper is mandatory (rule 11.12.2)")]
    HelperMissing,
    /// The helper's targets must differ (rule 11.12.3).
    #[error("the helper's two targets must differ (rule 11.12.3)")]
    HelperSame,
    /// The Ghost's Curse is once per game (rule 11.14).
    #[error("the Ghost's Curse is once per game (rule 11.14)")]
    GhostCurseUsed,
}

/// A private night result (rule 15.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum NightResult {
    /// A peek's token and its slot, or blocked by a talisman.
    Peek {
        /// The player peeked.
        target: Seat,
        /// The token and its slot's round, `None` if blocked (or the pile was empty).
        seen: Option<(u32, Token)>,
    },
    /// A Ghost's Eye token, or blocked.
    Eye {
        /// The player looked at.
        target: Seat,
        /// The token, `None` if blocked.
        seen: Option<Token>,
    },
    /// A CF's whisper (rule 11.12.4).
    Whisper {
        /// The round of the night it was asked in, which says how many slots the two piles
        /// held (one a round, rule 8.4) and which claim window it belongs to (section 17).
        round: u32,
        /// The two targets.
        targets: [Seat; 2],
        /// Bad tokens in their two piles.
        bad: u32,
        /// Good tokens, if the Good count was added.
        good: Option<u32>,
        /// Neutral tokens, if the Neutral count was added.
        neutral: Option<u32>,
    },
    /// To the author of a bless, curse or Ghost's Curse: whether it landed.
    Landed {
        /// The target.
        target: Seat,
        /// The token it was to add.
        token: Token,
        /// Whether it landed (`false`: blocked).
        landed: bool,
    },
    /// To a player whose bag gained a token (D17): its kind.
    BagGained {
        /// The kind.
        token: Token,
    },
    /// To the guard's user: whether it blocked anything; `used: false` for a later guard
    /// that had no effect (rule 11.7).
    Guard {
        /// Whether this guard took effect.
        used: bool,
        /// Whether it blocked a curse.
        blocked: bool,
    },
    /// Not a night result but a private notice kept with them: voting yes to exile a player
    /// who was not a GM added a Bad token to your bag (rule 16.3.3).
    VotePenalty {
        /// The round of the vote.
        round: u32,
    },
}

/// The accusation that proceeded, as step N7 announces it (rule 14.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShownAccusation {
    /// Who accused.
    pub accuser: Seat,
    /// Who stands trial.
    pub accused: Seat,
    /// The price: a token drawn from the accuser's bag and returned (rule 14.2, D8).
    pub price: Token,
}

/// The night's public announcements (step N7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Announcement {
    /// The round of the night.
    pub round: u32,
    /// Each failed pathfinder: the GM, now a ghost, and the player named (not the GF).
    pub failed_pathfinders: Vec<(Seat, Seat)>,
    /// Whether the guard was used tonight.
    pub guard_used: bool,
    /// Every player's mark count after N5, in seat order.
    pub marks: Vec<u32>,
    /// Each suspicion reveal: the seat and how many tokens (kinds never, rule 13.4).
    pub reveals: Vec<(Seat, u32)>,
    /// The accusation that proceeded (step N6), if any.
    pub accusation: Option<ShownAccusation>,
    /// The lock that follows (rule 5.5), in milliseconds.
    pub lock_ms: u64,
}

fn others_living(state: &FateState, seat: Seat) -> Vec<Seat> {
    state.living_set().without(seat).iter().collect()
}

fn is_other_living(state: &FateState, seat: Seat, target: Seat) -> bool {
    target != seat && state.player(target).is_some_and(|p| p.living())
}

/// Whether tonight is a helper night for `seat` (rule 11.12.1).
fn helper_night(state: &FateState, seat: Seat) -> bool {
    state.player(seat).is_some_and(|p| {
        p.living()
            && p.awakened
            && p.role == Role::CommonFortune
            && p.next_helper_night == Some(state.round)
    })
}

/// Checks a form against section 11 (rule 11.4).
pub(crate) fn check_form(state: &FateState, seat: Seat, form: &NightForm) -> Result<(), FormError> {
    let Some(p) = state.player(seat) else {
        return Err(FormError::Target("seat"));
    };
    if p.life == Life::Ghost {
        let empty = NightForm {
            ghost: form.ghost,
            ..NightForm::default()
        };
        if *form != empty {
            return Err(FormError::GhostForm);
        }
        return match form.ghost {
            None => Ok(()),
            Some(GhostAction::Eye(t)) | Some(GhostAction::Curse(t))
                if !state.player(t).is_some_and(|q| q.living()) =>
            {
                Err(FormError::Target("ghost action"))
            }
            Some(GhostAction::Curse(_)) if p.ghost_curse_used => Err(FormError::GhostCurseUsed),
            Some(_) => Ok(()),
        };
    }
    if form.ghost.is_some() {
        return Err(FormError::NotAGhost);
    }
    if let Some(t) = form.mark
        && !is_other_living(state, seat, t)
    {
        return Err(FormError::Target("mark"));
    }
    if form.talisman && p.talisman_used {
        return Err(FormError::TalismanUsed);
    }
    if let Some(t) = form.guard {
        if !(p.awakened && p.role == Role::CommonFortune && state.shield_whole) {
            return Err(FormError::Guard);
        }
        if !is_other_living(state, seat, t) {
            return Err(FormError::Target("guard"));
        }
    }
    if let Some(fate) = form.fate {
        let allowed = p.awakened
            && matches!(
                (p.role, fate),
                (Role::GreatFortune, Fate::Peek(_) | Fate::Bless(_))
                    | (
                        Role::GreatMisfortune,
                        Fate::Peek(_) | Fate::Curse(_) | Fate::Pathfinder(_)
                    )
            );
        if !allowed {
            return Err(FormError::Fate);
        }
        if !is_other_living(state, seat, fate.target()) {
            return Err(FormError::Target("fate action"));
        }
    }
    match (helper_night(state, seat), form.helper) {
        (false, Some(_)) => Err(FormError::Helper),
        (true, None) => Err(FormError::HelperMissing),
        (true, Some(h)) if h.targets[0] == h.targets[1] => Err(FormError::HelperSame),
        (true, Some(h)) if !h.targets.iter().all(|&t| is_other_living(state, seat, t)) => {
            Err(FormError::Target("helper"))
        }
        _ => Ok(()),
    }
}

/// Two different players from `pool` at random: `below(n)`, then `below(n - 1)` among the
/// rest (stable, part of the replay format). `None` if the pool has fewer than two.
fn two_at_random(pool: &[Seat], rng: &mut dyn Random) -> Option<[Seat; 2]> {
    let n = u32::try_from(pool.len()).ok().filter(|&n| n >= 2)?;
    let mut rest = pool.to_vec();
    let first = rest.remove(below(rng, n) as usize);
    let second = rest[below(rng, n - 1) as usize];
    Some([first, second])
}

/// The default form (rule 11.16): empty, with the helper's default on a helper night.
pub(crate) fn default_form(state: &FateState, seat: Seat, rng: &mut dyn Random) -> NightForm {
    let helper = if helper_night(state, seat) {
        // Rule 11.12.7: two other living players at random, no extra count.
        two_at_random(&others_living(state, seat), rng).map(|targets| Helper {
            targets,
            good: false,
            neutral: false,
        })
    } else {
        None
    };
    NightForm {
        helper,
        ..NightForm::default()
    }
}

/// Legal forms for `seat`, one field at a time: the forms a combination is built from.
/// Rule 11.15 lets a player combine them; listing every combination would run to hundreds of
/// thousands with eight players, so this lists each choice once on top of the mandatory part.
pub(crate) fn sample_forms(state: &FateState, seat: Seat) -> Vec<NightForm> {
    let Some(p) = state.player(seat) else {
        return Vec::new();
    };
    let living: Vec<Seat> = state.living_set().iter().collect();
    let others = others_living(state, seat);
    let mut base = NightForm::default();
    let mut forms = Vec::new();
    if helper_night(state, seat) {
        let mut helpers = Vec::new();
        for (i, &a) in others.iter().enumerate() {
            for &b in &others[i + 1..] {
                for (good, neutral) in [(false, false), (true, false), (false, true), (true, true)]
                {
                    helpers.push(Helper {
                        targets: [a, b],
                        good,
                        neutral,
                    });
                }
            }
        }
        base.helper = helpers.first().copied();
        forms.extend(helpers.into_iter().map(|h| NightForm {
            helper: Some(h),
            ..NightForm::default()
        }));
    } else {
        forms.push(base.clone());
    }
    if p.life == Life::Ghost {
        for &t in &living {
            forms.push(NightForm {
                ghost: Some(GhostAction::Eye(t)),
                ..NightForm::default()
            });
            if !p.ghost_curse_used {
                forms.push(NightForm {
                    ghost: Some(GhostAction::Curse(t)),
                    ..NightForm::default()
                });
            }
        }
        return forms;
    }
    let mut candidates = Vec::new();
    for &t in &others {
        candidates.push(NightForm {
            mark: Some(t),
            ..base.clone()
        });
        candidates.push(NightForm {
            guard: Some(t),
            ..base.clone()
        });
        for fate in [
            Fate::Peek(t),
            Fate::Bless(t),
            Fate::Curse(t),
            Fate::Pathfinder(t),
        ] {
            candidates.push(NightForm {
                fate: Some(fate),
                ..base.clone()
            });
        }
    }
    candidates.push(NightForm {
        talisman: true,
        ..base.clone()
    });
    forms.extend(
        candidates
            .into_iter()
            .filter(|f| check_form(state, seat, f).is_ok()),
    );
    forms
}

/// Night resolution, steps N1 to N7 (section 12), then the lock and the claim/counter phase.
pub(crate) fn resolve(state: &mut FateState, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
    let forms: Vec<Option<(u64, NightForm)>> = match &state.phase {
        Phase::Night { forms } => forms.clone(),
        _ => return Vec::new(),
    };
    let round = state.round;
    let living = state.living_set();
    state.nights.push(NightRecord {
        round,
        forms: forms
            .iter()
            .map(|f| f.as_ref().map(|(_, f)| f.clone()))
            .collect(),
        living,
    });
    let n = state.seat_count();
    let form = |i: usize| forms[i].as_ref().map(|(_, f)| f);
    let mut results: Vec<Vec<crate::night::NightResult>> = vec![Vec::new(); n];

    // N2 first decides who lapses, but N1's talismans must know it, so find the failed
    // pathfinders before applying anything (D18: their other choices lapse).
    let mut failed = Vec::new();
    for i in 0..n {
        if let Some(Fate::Pathfinder(t)) = form(i).and_then(|f| f.fate) {
            if state.players[t.index()].role == Role::GreatFortune {
                // W1 (D40: one right pathfinder is enough).
                return state.decide(Side::Misfortune, WinReason::Pathfinder, ctx);
            }
            failed.push((seat_of(i), t));
        }
    }
    let lapsed: SeatSet = failed.iter().map(|&(gm, _)| gm).collect();

    // N1: talismans (rule 11.6) and the earliest-accepted guard (rule 11.7, D13).
    let mut talisman = SeatSet::EMPTY;
    for i in 0..n {
        let seat = seat_of(i);
        if form(i).is_some_and(|f| f.talisman) && !lapsed.contains(seat) {
            talisman = talisman.with(seat);
            state.players[i].talisman_used = true;
        }
    }
    let mut guards: Vec<(u64, usize, Seat)> = (0..n)
        .filter_map(|i| {
            let (order, f) = forms[i].as_ref()?;
            f.guard.map(|t| (*order, i, t))
        })
        .collect();
    guards.sort();
    let guard = guards.first().map(|&(_, user, t)| (user, t));
    let guard_used = guard.is_some();
    if guard_used {
        state.shield_whole = false;
    }
    for &(_, user, _) in guards.iter().skip(1) {
        results[user].push(NightResult::Guard {
            used: false,
            blocked: false,
        });
    }

    // N2: failed pathfinders become ghosts, publicly GMs; the named are not the GF.
    for &(gm, named) in &failed {
        let p = &mut state.players[gm.index()];
        p.life = Life::Ghost;
        p.known_gm = true;
        // Rule 13.6: a player who stops being living loses their marks.
        p.marks = 0;
        state.players[named.index()].not_great_fortune = true;
    }
    // W2: right after failed pathfinders become ghosts (rule 18.3); a decided game resolves
    // nothing further (rule 6.2), so no information, bag change or mark follows.
    if !failed.is_empty()
        && let Some(decided) = state.check_win(false, ctx)
    {
        return decided;
    }

    // N3: information from the start-of-night state (rule 12.1, D26). Bags have not changed
    // yet and piles change only in the draw, so reading the current state is reading it.
    for (i, out) in results.iter_mut().enumerate() {
        let Some(f) = form(i) else { continue };
        if lapsed.contains(seat_of(i)) {
            continue;
        }
        if let Some(Fate::Peek(t)) = f.fate {
            let seen = if talisman.contains(t) {
                None
            } else {
                let pile = &state.players[t.index()].pile;
                u32::try_from(pile.len())
                    .ok()
                    .filter(|&len| len > 0)
                    .map(|len| pile[below(ctx.rng(), len) as usize])
                    .map(|slot| (slot.round, slot.token))
            };
            out.push(NightResult::Peek { target: t, seen });
        }
        if let Some(GhostAction::Eye(t)) = f.ghost {
            let seen = if talisman.contains(t) {
                None
            } else {
                state.players[t.index()].bag.draw_one(ctx.rng())
            };
            out.push(NightResult::Eye { target: t, seen });
        }
        if let Some(h) = f.helper {
            let count = |kind: Token| -> u32 {
                h.targets
                    .iter()
                    .flat_map(|t| state.players[t.index()].pile.iter())
                    .filter(|slot| slot.token == kind)
                    .count()
                    .try_into()
                    .unwrap_or(u32::MAX)
            };
            out.push(NightResult::Whisper {
                round,
                targets: h.targets,
                bad: count(Token::Bad),
                good: h.good.then(|| count(Token::Good)),
                neutral: h.neutral.then(|| count(Token::Neutral)),
            });
            // Rule 11.12.1: one rest night, or two after an extra count.
            let rest = if h.good || h.neutral { 3 } else { 2 };
            state.players[i].next_helper_night = Some(round + rest);
        }
    }

    // N4: bless, curse and Ghost's Curse (rule 12.3).
    let mut guard_blocked = false;
    for i in 0..n {
        let Some(f) = form(i) else { continue };
        if lapsed.contains(seat_of(i)) {
            continue;
        }
        let (target, token, is_curse) = match (f.fate, f.ghost) {
            (Some(Fate::Bless(t)), _) => (t, Token::Good, false),
            (Some(Fate::Curse(t)), _) => (t, Token::Bad, true),
            (_, Some(GhostAction::Curse(t))) => {
                state.players[i].ghost_curse_used = true;
                (t, Token::Bad, true)
            }
            _ => continue,
        };
        // Aimed at a player who is no longer living: lapses, with no result to tell.
        if !state.players[target.index()].living() {
            continue;
        }
        let by_talisman = talisman.contains(target);
        let by_guard = is_curse && guard.is_some_and(|(_, g)| g == target);
        let landed = !by_talisman && !by_guard;
        if by_guard {
            guard_blocked = true;
        }
        if landed {
            let bag = &mut state.players[target.index()].bag;
            *bag = bag.with_added(token);
            results[target.index()].push(NightResult::BagGained { token });
        }
        results[i].push(NightResult::Landed {
            target,
            token,
            landed,
        });
    }
    if let Some((user, _)) = guard {
        results[user].push(NightResult::Guard {
            used: true,
            blocked: guard_blocked,
        });
    }

    let mut events = Vec::new();
    // N5: marks, then the threshold (section 13).
    for i in 0..n {
        let seat = seat_of(i);
        let Some(t) = form(i).and_then(|f| f.mark) else {
            continue;
        };
        if state.players[i].living() && state.players[t.index()].living() {
            state.players[t.index()].marks += 1;
            state.marks_log.push((round, seat, t));
        }
    }
    let threshold = state.threshold();
    let mut reveals = Vec::new();
    for i in 0..n {
        let p = &state.players[i];
        if !(p.living() && p.marks >= threshold) {
            continue;
        }
        let exposed = expose(state, i, ctx.rng());
        let p = &mut state.players[i];
        p.marks = 0;
        let count = u32::try_from(exposed.len()).unwrap_or(u32::MAX);
        p.exposures_told.push(count);
        reveals.push((seat_of(i), count, exposed));
    }

    // N6: the earliest-accepted accusation whose accuser and accused both still live
    // proceeds (rule 10.6, D7); every other has no effect. Its price is drawn from the
    // accuser's bag as it stands after N4, shown, and returned (rule 14.2, D8).
    let proceeding = state
        .accusations
        .iter()
        .filter(|a| a.round == round)
        .filter(|a| state.players[a.accuser.index()].living())
        .filter(|a| state.players[a.accused.index()].living())
        .min_by_key(|a| a.order)
        .copied();
    let accusation = proceeding.map(|a| {
        let price = state.players[a.accuser.index()]
            .bag
            .draw_one(ctx.rng())
            .unwrap_or(Token::Neutral);
        ShownAccusation {
            accuser: a.accuser,
            accused: a.accused,
            price,
        }
    });
    if let Some(a) = accusation {
        state.trials.push(Trial {
            round,
            accuser: a.accuser,
            accused: a.accused,
            price: a.price,
            votes: None,
            yes: 0,
            no: 0,
            exiled: false,
            counter: None,
            resolved: false,
        });
    }

    // N7: announcements and the lock (rule 5.5: public information only; mark counts do
    // not count).
    let d = &state.config.durations;
    let items =
        failed.len() + usize::from(guard_used) + reveals.len() + usize::from(accusation.is_some());
    let lock_ms = (d.night_lock_ms
        + d.night_lock_item_ms * u64::try_from(items).unwrap_or(u64::MAX))
    .min(d.night_lock_max_ms);
    let announcement = Announcement {
        round,
        failed_pathfinders: failed.clone(),
        guard_used,
        marks: state.players.iter().map(|p| p.marks).collect(),
        reveals: reveals.iter().map(|&(s, c, _)| (s, c)).collect(),
        accusation,
        lock_ms,
    };
    events.push(Emitted::public(FateEvent::NightResolved(announcement)));
    // Rule 12.2 N7's order: failed pathfinders, the guard, (mark counts,) reveals.
    for (gm, named) in failed {
        events.push(state.announce(format!(
            "seat {} was a Great Misfortune; their pathfinder named seat {}, who is not the Great Fortune",
            gm.0, named.0
        )));
    }
    if guard_used {
        events.push(state.announce("the guard has been used".to_owned()));
    }
    for (seat, count, tokens) in reveals {
        let others: SeatSet = state.seats().filter(|&s| s != seat).collect();
        events.push(Emitted {
            visibility: arbiter_rules::Visibility::Seats(others),
            event: FateEvent::SuspicionKinds { seat, tokens },
        });
        // Rule 20.3 and 13.4: who triggered and how many, never the kinds.
        events.push(state.announce(format!(
            "seat {} reached the suspicion threshold: {count} of their private tokens revealed",
            seat.0
        )));
    }
    if let Some(a) = accusation {
        events.push(state.announce(format!(
            "seat {} accuses seat {}; the price is a {:?} token",
            a.accuser.0, a.accused.0, a.price
        )));
    }
    // Rule 12.4 (D25): private results wait for the claim/counter phase, after any trial.
    state.held_results = results;
    if accusation.is_some() {
        events.extend(state.open_trial(lock_ms, ctx));
    } else {
        // Rule 14.7: no trial, no vote; the claim/counter phase follows the lock.
        events.extend(state.open_claim_counter(lock_ms, ctx));
    }
    events
}

/// Rule 15.2 (D25): every private result arrives at the same moment.
pub(crate) fn deliver(state: &mut FateState, events: &mut Events<FateEvent>) {
    let round = state.round;
    let results = std::mem::take(&mut state.held_results);
    for (i, results) in results.into_iter().enumerate() {
        if results.is_empty() {
            continue;
        }
        state.players[i].results.extend(results.iter().cloned());
        events.push(Emitted::private(
            seat_of(i),
            FateEvent::Results { round, results },
        ));
    }
}

/// Rule 13.3 (D28): two different slots (one if the pile has one), chosen at random among
/// those no trigger has revealed yet, then at random among those already revealed.
fn expose(state: &mut FateState, i: usize, rng: &mut dyn Random) -> Vec<Token> {
    let p = &mut state.players[i];
    let len = p.pile.len();
    let mut picked: Vec<usize> = Vec::new();
    for _ in 0..len.min(2) {
        let fresh: Vec<usize> = (0..len)
            .filter(|s| !p.exposed_slots.contains(s) && !picked.contains(s))
            .collect();
        let pool: Vec<usize> = if fresh.is_empty() {
            (0..len).filter(|s| !picked.contains(s)).collect()
        } else {
            fresh
        };
        let Some(n) = u32::try_from(pool.len()).ok().filter(|&n| n > 0) else {
            break;
        };
        picked.push(pool[below(rng, n) as usize]);
    }
    for &slot in &picked {
        if !p.exposed_slots.contains(&slot) {
            p.exposed_slots.push(slot);
        }
    }
    picked.iter().map(|&slot| p.pile[slot].token).collect()
}
