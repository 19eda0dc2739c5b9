//! What each viewer may see (section 22).
//!
//! A seat's view is built from public information and that seat's own secrets only; its shape
//! depends on nothing else (rules 22.1, 22.4). Everything is revealed once the game has been
//! decided (rule 22.6) and, always, to the omniscient viewer.

use serde::{Deserialize, Serialize};

use arbiter_rules::{Seat, Viewer};

use crate::claims::ClaimRight;
use crate::night::{NightForm, NightResult};
use crate::setup::{Bag, Role, SetupRow, Token};
use crate::state::{
    Accusation, ChatLine, Claim, FateState, Finish, JudgedClaim, Life, NightRecord, Phase,
    PhaseKind, Slot, Trial,
};

/// What one viewer sees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FateView {
    /// The public setup for the player count (rule 4.1), round cap included.
    pub setup: SetupRow,
    /// The round under way.
    pub round: u32,
    /// The phase under way.
    pub phase: PhaseKind,
    /// Its number (rule 5.1).
    pub phase_number: u32,
    /// When the lock before it ends (rule 5.5).
    pub opens_at_ms: u64,
    /// When it ends at the latest.
    pub deadline_ms: Option<u64>,
    /// Seats that still owe a decision. In the claim/counter phase this is the exiled
    /// player whatever their role, or nobody (rule 15.5; see
    /// [`FateState::open_claim_counter`](crate::FateState)).
    pub pending: Vec<Seat>,
    /// The current suspicion threshold, the living count + 1 (rule 13.1).
    pub threshold: u32,
    /// Whether the shield is whole (rule 3.6).
    pub shield_whole: bool,
    /// Each seat's public part, in seat order.
    pub seats: Vec<PublicSeat>,
    /// Every accusation that proceeded, with its price, vote totals and exile outcome as far
    /// as they are public (rules 14.1, 14.5, 16.2, 16.3).
    pub trials: Vec<PublicTrial>,
    /// Every claim made so far (rule 22.2); verdicts only once decided (rule 17.6).
    pub claims: Vec<Claim>,
    /// The Everyone channel, system messages included.
    pub everyone_chat: Vec<ChatLine>,
    /// The Ghosts channel, for a viewer who reads it (rule 20.1): ghosts and living awakened
    /// GMs, in their own view only.
    pub ghost_chat: Option<Vec<ChatLine>>,
    /// The viewer's own secrets, for a seated viewer (rule 22.3).
    pub own: Option<OwnView>,
    /// The result, once decided.
    pub finish: Option<Finish>,
    /// Everything, once decided (rule 22.6) or for the omniscient viewer.
    pub revealed: Option<Revealed>,
}

/// The public part of a trial (rule 22.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicTrial {
    /// The round.
    pub round: u32,
    /// Who accused.
    pub accuser: Seat,
    /// Who stood trial.
    pub accused: Seat,
    /// The price (rule 14.2).
    pub price: Token,
    /// Yes and no totals, once the vote resolved (rule 14.5).
    pub totals: Option<(u32, u32)>,
    /// Whether the accused was exiled, once the vote resolved.
    pub exiled: Option<bool>,
    /// Whether the exiled player was a GM, once exile resolution said so (D10).
    pub was_great_misfortune: Option<bool>,
    /// For an exiled GM after exile resolution: whom they named, or `None` (rule 16.2.3).
    pub counter: Option<Option<Seat>>,
}

/// A seat's public information (rule 22.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicSeat {
    /// The seat.
    pub seat: Seat,
    /// Living, ghost or out.
    pub life: Life,
    /// For ghosts and out players, whether they were a GM as far as is public; `None` while
    /// living. Never says whether a non-GM was a CF or the GF.
    pub was_great_misfortune: Option<bool>,
    /// The revealed row (rule 3.3).
    pub revealed: Vec<Token>,
    /// The private pile's size (rule 3.4).
    pub pile_size: usize,
    /// How many pile tokens the threshold has revealed (rule 13.4).
    pub exposed_count: usize,
    /// Their kinds, without slots; empty in the owner's own view (rule 13.4).
    pub exposed: Vec<Token>,
    /// The mark count (rule 3.5).
    pub marks: u32,
    /// Publicly declared "not the Great Fortune" (rule 11.11).
    pub not_great_fortune: bool,
}

/// Fields of the night form the viewer may use tonight (rules 11.3, 22.4). Every living view
/// has every field; unavailable ones are `false`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormAvailability {
    /// Suspicion mark.
    pub mark: bool,
    /// Talisman.
    pub talisman: bool,
    /// Guard.
    pub guard: bool,
    /// Peek.
    pub peek: bool,
    /// Bless.
    pub bless: bool,
    /// Curse.
    pub curse: bool,
    /// Pathfinder.
    pub pathfinder: bool,
    /// Helper (mandatory when available).
    pub helper: bool,
    /// Ghost's Eye.
    pub ghost_eye: bool,
    /// Ghost's Curse.
    pub ghost_curse: bool,
}

/// A seat's own secrets (rule 22.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnView {
    /// The viewer's seat.
    pub seat: Seat,
    /// Own role once awakened (or once a ghost or out: rules 15.4, 16.3), else `None`.
    pub role: Option<Role>,
    /// For an awakened GM, the other GMs (D3).
    pub fellow_great_misfortunes: Vec<Seat>,
    /// Own bag's make-up, once awakened (D6).
    pub bag: Option<Bag>,
    /// The two drawn tokens while choosing in the draw phase, in the order drawn.
    pub drawn: Option<[Token; 2]>,
    /// The decision sent in this phase, if any: the draw index.
    pub reveal_choice: Option<u8>,
    /// The night form sent this night, if any.
    pub night_form: Option<NightForm>,
    /// Every slot of the own private pile.
    pub pile: Vec<Slot>,
    /// Each threshold reveal of the own pile: how many tokens, never which (rule 13.4).
    pub exposures: Vec<u32>,
    /// Whether the talisman has been used.
    pub talisman_used: bool,
    /// Whether the Ghost's Curse has been used.
    pub ghost_curse_used: bool,
    /// For an awakened CF, the next helper night.
    pub next_helper_night: Option<u32>,
    /// What the night form allows tonight.
    pub form: FormAvailability,
    /// Private night results received so far (rule 15.2).
    pub results: Vec<NightResult>,
    /// Own accusation this round, once chosen (rule 22.3): the accused, `None` for none.
    pub accused: Option<Seat>,
    /// Own vote this round, once cast (rule 22.3).
    pub vote: Option<bool>,
    /// While the claim/counter phase asks this seat (the exiled player): whether they hold
    /// the counter right (rule 15.4).
    pub counter_right: Option<bool>,
    /// What this seat may claim now (rule 17.3), if anything.
    pub claim: Option<ClaimRight>,
}

/// Everything hidden during play (rule 22.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revealed {
    /// Each seat's secrets, in seat order.
    pub seats: Vec<SeatSecrets>,
    /// Who marked whom: (round, marker, marked).
    pub marks: Vec<(u32, Seat, Seat)>,
    /// Every night's forms.
    pub nights: Vec<NightRecord>,
    /// Every accusation with its acceptance order (rule 22.6).
    pub accusations: Vec<Accusation>,
    /// Every trial with every vote and the counter right.
    pub trials: Vec<Trial>,
    /// Every claim with its verdict and the true value (rule 17.6).
    pub verdicts: Vec<JudgedClaim>,
    /// Results held for a claim/counter phase the game did not reach.
    pub held_results: Vec<Vec<NightResult>>,
    /// The Ghosts channel.
    pub ghost_chat: Vec<ChatLine>,
}

/// One seat's secrets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSecrets {
    /// Role.
    pub role: Role,
    /// Awakening round.
    pub awakening_round: u32,
    /// Whether they awakened.
    pub awakened: bool,
    /// The bag now.
    pub bag: Bag,
    /// Every pile slot.
    pub pile: Vec<Slot>,
    /// Indices of pile slots the threshold revealed.
    pub exposed_slots: Vec<usize>,
    /// The two tokens drawn in the draw phase under way.
    pub drawn: Option<[Token; 2]>,
    /// Private results.
    pub results: Vec<NightResult>,
}

fn availability(state: &FateState, seat: Seat) -> FormAvailability {
    let Some(p) = state.player(seat) else {
        return FormAvailability::none();
    };
    let night = state.phase.kind() == PhaseKind::Night;
    let living = night && p.living();
    let awake = |role| living && p.awakened && p.role == role;
    let ghost = night && p.life == Life::Ghost;
    FormAvailability {
        mark: living,
        talisman: living && !p.talisman_used,
        guard: awake(Role::CommonFortune) && state.shield_whole,
        peek: awake(Role::GreatFortune) || awake(Role::GreatMisfortune),
        bless: awake(Role::GreatFortune),
        curse: awake(Role::GreatMisfortune),
        pathfinder: awake(Role::GreatMisfortune),
        helper: awake(Role::CommonFortune) && p.next_helper_night == Some(state.round),
        ghost_eye: ghost,
        ghost_curse: ghost && !p.ghost_curse_used,
    }
}

impl FormAvailability {
    fn none() -> FormAvailability {
        FormAvailability {
            mark: false,
            talisman: false,
            guard: false,
            peek: false,
            bless: false,
            curse: false,
            pathfinder: false,
            helper: false,
            ghost_eye: false,
            ghost_curse: false,
        }
    }
}

fn own_view(state: &FateState, seat: Seat) -> Option<OwnView> {
    let p = state.player(seat)?;
    // Rules 7.2, 15.4, 16.3: a ghost or out player has learnt their role, and so has the
    // holder of a counter right.
    let knows_role =
        p.awakened || matches!(p.life, Life::Ghost | Life::Out) || state.holds_counter(seat);
    let role = knows_role.then_some(p.role);
    // D3: GMs know each other once awakened (an exiled GM told their role by the counter
    // right has not awakened).
    let fellow_great_misfortunes = if p.awakened && p.role == Role::GreatMisfortune {
        state
            .seats()
            .filter(|&s| s != seat && state.players[s.index()].role == Role::GreatMisfortune)
            .collect()
    } else {
        Vec::new()
    };
    let (drawn, reveal_choice, night_form) = match &state.phase {
        Phase::Draw { drawn, chosen } => (drawn[seat.index()], chosen[seat.index()], None),
        Phase::Night { forms } => (
            None,
            None,
            forms[seat.index()].as_ref().map(|(_, f)| f.clone()),
        ),
        _ => (None, None, None),
    };
    Some(OwnView {
        seat,
        role,
        fellow_great_misfortunes,
        bag: p.awakened.then(|| told_bag(state, seat)),
        drawn,
        reveal_choice,
        night_form,
        pile: p.pile.clone(),
        exposures: p.exposures_told.clone(),
        talisman_used: p.talisman_used,
        ghost_curse_used: p.ghost_curse_used,
        next_helper_night: (p.awakened && p.role == Role::CommonFortune)
            .then_some(p.next_helper_night)
            .flatten(),
        form: availability(state, seat),
        results: p.results.clone(),
        accused: own_accusation(state, seat),
        vote: own_vote(state, seat),
        counter_right: (state.phase.kind() == PhaseKind::ClaimCounter
            && state.exiled_now() == Some(seat))
        .then(|| state.holds_counter(seat)),
        claim: state.claim_right(seat),
    })
}

/// The own bag as far as its owner has been told (D6): tokens that landed tonight are told,
/// with the rest of the night's private results, when the claim/counter phase opens (rule 12.4,
/// D25), so until then the view leaves them out, or the owner would learn of a bless or a curse
/// during the trial and the vote.
fn told_bag(state: &FateState, seat: Seat) -> Bag {
    let bag = state
        .players
        .get(seat.index())
        .map_or(Bag::new(0, 0, 0), |p| p.bag);
    let untold = state.held_results.get(seat.index()).into_iter().flatten();
    untold.fold(bag, |bag, result| match result {
        NightResult::BagGained { token } => bag.without(*token).unwrap_or(bag),
        _ => bag,
    })
}

fn own_accusation(state: &FateState, seat: Seat) -> Option<Seat> {
    if let Phase::Accusation { choices } = &state.phase {
        return choices[seat.index()].and_then(|(_, target)| target);
    }
    state
        .accusations
        .iter()
        .find(|a| a.round == state.round && a.accuser == seat)
        .map(|a| a.accused)
}

fn own_vote(state: &FateState, seat: Seat) -> Option<bool> {
    if let Phase::Vote { votes } = &state.phase {
        return votes[seat.index()];
    }
    state
        .trial_now()
        .and_then(|t| t.votes.as_ref())
        .and_then(|votes| votes[seat.index()])
}

fn public_trial(t: &Trial) -> PublicTrial {
    let voted = t.votes.is_some();
    PublicTrial {
        round: t.round,
        accuser: t.accuser,
        accused: t.accused,
        price: t.price,
        totals: voted.then_some((t.yes, t.no)),
        exiled: voted.then_some(t.exiled),
        was_great_misfortune: (t.exiled && t.resolved).then_some(t.counter.is_some()),
        counter: t.counter,
    }
}

fn revealed(state: &FateState) -> Revealed {
    let drawn = |i: usize| match &state.phase {
        Phase::Draw { drawn, .. } => drawn[i],
        _ => None,
    };
    Revealed {
        seats: state
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| SeatSecrets {
                role: p.role,
                awakening_round: p.awakening_round,
                awakened: p.awakened,
                bag: p.bag,
                pile: p.pile.clone(),
                exposed_slots: p.exposed_slots.clone(),
                drawn: drawn(i),
                results: p.results.clone(),
            })
            .collect(),
        marks: state.marks_log.clone(),
        nights: state.nights.clone(),
        accusations: state.accusations.clone(),
        trials: state.trials.clone(),
        verdicts: state.verdicts(),
        held_results: state.held_results.clone(),
        ghost_chat: state.ghost_chat.clone(),
    }
}

/// Builds `viewer`'s view of `state`.
pub(crate) fn build(state: &FateState, viewer: Viewer) -> FateView {
    let me = match viewer {
        Viewer::Seat(seat) if seat.index() < state.seat_count() => Some(seat),
        _ => None,
    };
    let everything = viewer == Viewer::Omniscient || state.finish.is_some();
    let seats = state
        .seats()
        .map(|s| {
            let p = &state.players[s.index()];
            let exposed_kinds = p.exposed_slots.iter().map(|&i| p.pile[i].token).collect();
            PublicSeat {
                seat: s,
                life: p.life,
                // An exiled player's role waits for exile resolution (rule 14.6).
                was_great_misfortune: matches!(p.life, Life::Ghost | Life::Out)
                    .then_some(p.known_gm),
                revealed: p.revealed.clone(),
                pile_size: p.pile.len(),
                exposed_count: p.exposed_slots.len(),
                // Rule 13.4: the owner is told how many, never which.
                exposed: if me == Some(s) && !everything {
                    Vec::new()
                } else {
                    exposed_kinds
                },
                marks: p.marks,
                not_great_fortune: p.not_great_fortune,
            }
        })
        .collect();
    let reads_ghosts = me
        .and_then(|s| state.player(s))
        .is_some_and(|p| p.reads_ghost_chat());
    // The same seats `to_act` lists (rule 15.5: in claim/counter, the exiled player
    // whatever their role).
    let pending = state.pending().iter().collect();
    FateView {
        setup: state.row,
        round: state.round,
        phase: state.phase.kind(),
        phase_number: state.phase_number,
        opens_at_ms: state.opens_at_ms,
        deadline_ms: state.deadline_ms,
        pending,
        threshold: state.threshold(),
        shield_whole: state.shield_whole,
        seats,
        trials: state.trials.iter().map(public_trial).collect(),
        claims: state.claims.clone(),
        everyone_chat: state.everyone_chat.clone(),
        ghost_chat: (reads_ghosts || everything).then(|| state.ghost_chat.clone()),
        own: me.and_then(|s| own_view(state, s)),
        finish: state.finish.clone(),
        revealed: everything.then(|| revealed(state)),
    }
}
