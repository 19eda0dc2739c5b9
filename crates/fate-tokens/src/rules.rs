//! The [`Game`] implementation: setup, the round's phases, chat, win checks and the ending.

use serde::{Deserialize, Serialize};

use arbiter_rules::random::below;
use arbiter_rules::{
    ConfigError, Ctx, Emitted, Events, Game, Outcome, RuleError, ScoreOrder, Seat, SeatOutcome,
    SeatResult, SeatSet, Started, ToAct, Viewer, Visibility,
};

use crate::config::FateConfig;
use crate::night::{self, NightForm, NightResult};
use crate::setup::{self, MAX_PLAYERS, MIN_PLAYERS, Role, SetupRow, Token};
use crate::state::{
    Accusation, Channel, ChatLine, Claim, FateState, Finish, JudgedClaim, Life, Phase, PhaseKind,
    Player, Side, Slot, WinReason, seat_of,
};
use crate::view::{self, FateView};

/// The game (a marker type; the rules are `docs/rules/fate-tokens.md`).
pub struct FateTokens;

/// The longest chat message, in characters after trimming (D38).
pub const MAX_CHAT_CHARS: usize = 200;

/// One decision, or a free action, by one seat.
///
/// Every decision quotes the phase number it answers (rule 5.1); chat is free (rule 5.6) and
/// quotes none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum FateAction {
    /// Draw phase: reveal the first (`0`) or the second (`1`) drawn token (rule 8.3).
    Reveal {
        /// The phase answered.
        phase: u32,
        /// Which of the two drawn tokens to reveal, in the order drawn.
        index: u8,
    },
    /// Discussion: signal "ready" (rule 9.3).
    Ready {
        /// The phase answered.
        phase: u32,
    },
    /// Accusation phase: accuse another living player, or pass with `None` (rule 10.2).
    Accuse {
        /// The phase answered.
        phase: u32,
        /// The accused, or `None` to pass.
        target: Option<Seat>,
    },
    /// Night: the night form (rule 11.2).
    Night {
        /// The phase answered.
        phase: u32,
        /// The form.
        form: NightForm,
    },
    /// Vote: yes (exile) or no (rule 14.4).
    Vote {
        /// The phase answered.
        phase: u32,
        /// `true` for yes.
        yes: bool,
    },
    /// Claim/counter: the exiled player's answer (rule 15.4): name a living player as the
    /// Great Fortune, or decline with `None`. Only a GM holds the right to name; any exiled
    /// player may decline (rule 15.5; see `FateState::open_claim_counter`).
    Counter {
        /// The phase answered.
        phase: u32,
        /// The player named, or `None` to decline.
        name: Option<Seat>,
    },
    /// A claim (section 17), a free action: "my helper found `bad` Bad tokens in the private
    /// piles of `pair`", about the night whose claim window is open.
    Claim {
        /// The two players named.
        pair: [Seat; 2],
        /// The number claimed.
        bad: u32,
    },
    /// A chat message (section 20), a free action.
    Chat {
        /// The channel written to.
        channel: Channel,
        /// The message, 1 to 200 characters after trimming.
        text: String,
    },
}

/// What happened. Each event carries its visibility in [`Emitted`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum FateEvent {
    /// The game was set up (public: the setup table row).
    Started {
        /// The public setup for the player count.
        setup: SetupRow,
    },
    /// Private: you have awakened (rule 7.2).
    Awakened {
        /// Your role.
        role: Role,
        /// The other Great Misfortunes, for a GM (D3).
        fellow_great_misfortunes: Vec<Seat>,
    },
    /// The lock before phase `phase` ended: it is open for decisions (public, rule 5.5).
    Unlocked {
        /// The phase number.
        phase: u32,
    },
    /// A round started (public).
    RoundStarted {
        /// The round.
        round: u32,
    },
    /// A phase was entered (public): it opens for decisions at `opens_at_ms`, when its lock
    /// ends (rule 5.5), and closes at `deadline_ms` at the latest.
    PhaseOpened {
        /// The phase number.
        phase: u32,
        /// Which step.
        kind: PhaseKind,
        /// The round.
        round: u32,
        /// When the lock before it ends.
        opens_at_ms: u64,
        /// When it ends at the latest.
        deadline_ms: u64,
        /// Who owes a decision (public: it depends only on public states, rule 22.2).
        owed: SeatSet,
    },
    /// Private: your two drawn tokens, in the order drawn (rule 8.2).
    Drew {
        /// The phase.
        phase: u32,
        /// The tokens.
        tokens: [Token; 2],
    },
    /// A seat submitted its decision for the phase (public; it does not say what).
    Submitted {
        /// The phase.
        phase: u32,
        /// The seat.
        seat: Seat,
    },
    /// Private: a decision was made for you by default (rule 5.4).
    Defaulted {
        /// The phase.
        phase: u32,
    },
    /// The draw resolved (public, rule 8.4): each living seat's revealed token, in seat
    /// order (`None` for seats that did not draw).
    DrawResolved {
        /// The round.
        round: u32,
        /// Revealed tokens.
        revealed: Vec<Option<Token>>,
    },
    /// Private: the token that went to your private pile (rule 8.4).
    PileSlot {
        /// The slot.
        slot: Slot,
    },
    /// A seat signalled ready (public).
    Ready {
        /// The seat.
        seat: Seat,
    },
    /// The night's public announcements (step N7).
    NightResolved(night::Announcement),
    /// Private to each other seat: the kinds a suspicion reveal exposed (rule 13.4). Never
    /// shown to the owner.
    SuspicionKinds {
        /// The triggering seat.
        seat: Seat,
        /// The kinds revealed.
        tokens: Vec<Token>,
    },
    /// Private: your night results (rule 15.2), delivered when the claim/counter phase opens.
    Results {
        /// The round of the night.
        round: u32,
        /// The results.
        results: Vec<NightResult>,
    },
    /// The vote resolved (public, rule 14.5): the totals only.
    VoteResolved {
        /// The accused.
        accused: Seat,
        /// Yes votes.
        yes: u32,
        /// No votes, missing votes included (D9).
        no: u32,
        /// Whether the accused is exiled (more yes than no).
        exiled: bool,
    },
    /// Private to the exiled player when the claim/counter phase opens (rule 15.4): whether
    /// they hold the counter right, and, if they do, their role.
    CounterOpened {
        /// The phase.
        phase: u32,
        /// Whether they hold the counter right (were a GM).
        holds: bool,
        /// Their role, told to a holder (rule 15.4).
        role: Option<Role>,
    },
    /// Exile resolution (public, section 16).
    ExileResolved {
        /// The exiled player.
        seat: Seat,
        /// Whether they were a Great Misfortune (D10: nothing more).
        was_great_misfortune: bool,
        /// For a GM: `Some(Some(y))` struck back naming `y`, `Some(None)` did not strike back.
        counter: Option<Option<Seat>>,
    },
    /// Private to an exiled non-GM who had not awakened: their former role (rule 16.3.2).
    RoleTold {
        /// The role.
        role: Role,
    },
    /// A claim was made (public, rule 17.1).
    Claimed(Claim),
    /// The honesty verdicts, public when the game is decided (rule 17.6).
    Verdicts(Vec<JudgedClaim>),
    /// A chat line in a channel.
    Chat {
        /// The channel.
        channel: Channel,
        /// The line.
        line: ChatLine,
    },
    /// A seat left the match; it takes every default from now on (rule 5.9).
    Left {
        /// The seat.
        seat: Seat,
    },
    /// The game was decided (public, section 19): everything is revealed from now on.
    Decided(Finish),
    /// The ending is over (rule 19.3).
    Over,
}

/// Why a chat message or a decision was refused, before it becomes a [`RuleError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The message is empty or too long after trimming (D38).
    #[error("a chat message must be 1 to {MAX_CHAT_CHARS} characters after trimming (D38)")]
    ChatLength,
    /// The seat may not write in that channel (rule 20.1).
    #[error("you may not write in that channel (rule 20.1)")]
    ChatChannel,
    /// The lock before the phase has not ended yet (rule 5.5).
    #[error("the table is locked until {0} ms (rule 5.5)")]
    Locked(u64),
    /// The action does not answer this kind of phase.
    #[error("this is not a {0} phase")]
    WrongPhase(&'static str),
    /// The drawn-token index is neither 0 nor 1 (rule 8.3).
    #[error("reveal index must be 0 or 1 (rule 8.3)")]
    RevealIndex,
    /// The night form breaks section 11.
    #[error("night form refused: {0}")]
    Night(#[from] night::FormError),
    /// The accused must be another living player (rule 10.2).
    #[error("you may accuse only another living player (rule 10.2)")]
    AccuseTarget,
    /// Only a holder of the counter right may name anyone, and only a living player (rule
    /// 15.4, D19).
    #[error("you may not name that player with a counter right (rule 15.4, D19)")]
    Counter,
    /// The claim breaks section 17; the text says which rule.
    #[error("claim refused: {0}")]
    Claim(&'static str),
}

impl From<Refusal> for RuleError {
    fn from(refusal: Refusal) -> RuleError {
        RuleError::Illegal(refusal.to_string())
    }
}

impl FateState {
    /// Enters a new phase: the next phase number, the lock, the deadline and who owes.
    fn enter(
        &mut self,
        phase: Phase,
        owed: SeatSet,
        lock_ms: u64,
        duration_ms: u64,
        ctx: &Ctx<'_>,
    ) -> Events<FateEvent> {
        self.phase_number += 1;
        let kind = phase.kind();
        self.phase = phase;
        self.owed = owed;
        self.submitted = SeatSet::EMPTY;
        self.opens_at_ms = ctx.now_ms() + lock_ms;
        self.locked = lock_ms > 0;
        let deadline_ms = self.opens_at_ms + duration_ms;
        self.deadline_ms = Some(deadline_ms);
        vec![Emitted::public(FateEvent::PhaseOpened {
            phase: self.phase_number,
            kind,
            round: self.round,
            opens_at_ms: self.opens_at_ms,
            deadline_ms,
            // Rule 15.5: in claim/counter this is the exiled player whatever their role
            // (see `open_claim_counter`), so it shows nothing secret.
            owed,
        })]
    }

    /// S0 and P1: awakening (section 7), then the draw (rule 8.2).
    fn start_round(&mut self, lock_ms: u64, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let mut events = vec![Emitted::public(FateEvent::RoundStarted {
            round: self.round,
        })];
        // Rule 7.1: living players whose round has come awaken; nothing public (rule 7.3).
        for i in 0..self.players.len() {
            let p = &self.players[i];
            if p.living() && !p.awakened && p.awakening_round == self.round {
                events.push(self.awaken(seat_of(i)));
            }
        }
        let mut drawn = vec![None; self.players.len()];
        for (i, p) in self.players.iter().enumerate() {
            if p.living() {
                drawn[i] = p.bag.draw_two(ctx.rng());
            }
        }
        let owed = self.living_set();
        events.extend(self.enter(
            Phase::Draw {
                drawn: drawn.clone(),
                chosen: vec![None; self.players.len()],
            },
            owed,
            lock_ms,
            self.config.durations.draw_ms,
            ctx,
        ));
        for (i, tokens) in drawn.into_iter().enumerate() {
            if let Some(tokens) = tokens {
                events.push(Emitted::private(
                    seat_of(i),
                    FateEvent::Drew {
                        phase: self.phase_number,
                        tokens,
                    },
                ));
            }
        }
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    fn awaken(&mut self, seat: Seat) -> Emitted<FateEvent> {
        let round = self.round;
        let fellows: Vec<Seat> = self
            .seats()
            .filter(|&s| s != seat && self.players[s.index()].role == Role::GreatMisfortune)
            .collect();
        let p = &mut self.players[seat.index()];
        p.awakened = true;
        // Rule 11.12.1: a CF's first helper night is the night of their awakening round.
        if p.role == Role::CommonFortune {
            p.next_helper_night = Some(round);
        }
        let fellow_great_misfortunes = if p.role == Role::GreatMisfortune {
            fellows
        } else {
            Vec::new()
        };
        Emitted::private(
            seat,
            FateEvent::Awakened {
                role: p.role,
                fellow_great_misfortunes,
            },
        )
    }

    /// Rule 5.9: seats that left take the default of every decision as soon as it is owed.
    fn defaults_for_the_gone(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let due: SeatSet = self
            .pending()
            .iter()
            .filter(|&s| self.gone.contains(s))
            .collect();
        if due.is_empty() {
            return Vec::new();
        }
        let mut events = Vec::new();
        for seat in due.iter() {
            events.extend(self.submit_default(seat, ctx));
        }
        events.extend(self.settle(ctx));
        events
    }

    /// Rule 5.3: once every seat owing has submitted, the phase resolves; the claim/counter
    /// phase never ends sooner than its minimum after it opened (rule 15.5, D12), so an
    /// early answer moves its deadline there instead.
    fn settle(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        if !self.pending().is_empty() {
            return Vec::new();
        }
        if self.phase.kind() == PhaseKind::ClaimCounter {
            let earliest = self.opens_at_ms + self.config.durations.counter_min_ms;
            if ctx.now_ms() < earliest {
                self.deadline_ms = Some(earliest);
                return Vec::new();
            }
        }
        self.resolve(ctx)
    }

    /// Records `seat`'s default for the current phase (section 21).
    fn submit_default(&mut self, seat: Seat, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let phase = self.phase_number;
        self.submitted = self.submitted.with(seat);
        match &mut self.phase {
            // Rule 8.6, D5: reveal the token drawn first.
            Phase::Draw { chosen, .. } => chosen[seat.index()] = Some(0),
            // Rule 9.4: "ready" has no default; a seat that left is simply ready (rule 5.9).
            Phase::Discussion => {
                return vec![
                    Emitted::public(FateEvent::Ready { seat }),
                    Emitted::public(FateEvent::Submitted { phase, seat }),
                ];
            }
            // Rule 14.3: the trial's "ready" has no default either; a seat that left is
            // simply ready (rule 5.9).
            Phase::Trial => {
                return vec![
                    Emitted::public(FateEvent::Ready { seat }),
                    Emitted::public(FateEvent::Submitted { phase, seat }),
                ];
            }
            Phase::Night { .. } => {
                let form = night::default_form(self, seat, ctx.rng());
                self.accepted += 1;
                if let Phase::Night { forms } = &mut self.phase {
                    forms[seat.index()] = Some((self.accepted, form));
                }
            }
            // Rule 10.5: pass.
            Phase::Accusation { choices } => {
                self.accepted += 1;
                choices[seat.index()] = Some((self.accepted, None));
            }
            // Rule 14.4, D9: no.
            Phase::Vote { votes } => votes[seat.index()] = Some(false),
            // Rule 15.6: decline.
            Phase::ClaimCounter { answer } => *answer = Some(None),
            Phase::Ending | Phase::Over => {}
        }
        vec![
            Emitted::private(seat, FateEvent::Defaulted { phase }),
            Emitted::public(FateEvent::Submitted { phase, seat }),
        ]
    }

    /// Resolves the current phase and opens the next one (rule 5.3).
    fn resolve(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        match self.phase.kind() {
            PhaseKind::Draw => self.resolve_draw(ctx),
            PhaseKind::Discussion => self.end_discussion(ctx),
            PhaseKind::Accusation => self.resolve_accusation(ctx),
            PhaseKind::Night => night::resolve(self, ctx),
            PhaseKind::Trial => self.open_vote(ctx),
            PhaseKind::Vote => self.resolve_vote(ctx),
            PhaseKind::ClaimCounter => self.resolve_exile(ctx),
            PhaseKind::Ending => {
                self.phase = Phase::Over;
                self.owed = SeatSet::EMPTY;
                self.submitted = SeatSet::EMPTY;
                self.deadline_ms = None;
                vec![Emitted::public(FateEvent::Over)]
            }
            PhaseKind::Over => Vec::new(),
        }
    }

    /// S1: rule 8.4, then the lock and the discussion.
    fn resolve_draw(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let (drawn, chosen) = match &self.phase {
            Phase::Draw { drawn, chosen } => (drawn.clone(), chosen.clone()),
            _ => return Vec::new(),
        };
        let round = self.round;
        let mut revealed = vec![None; self.players.len()];
        let mut events = Vec::new();
        for (i, tokens) in drawn.iter().enumerate() {
            let Some(tokens) = tokens else { continue };
            // Rule 8.6: a seat with no recorded choice reveals the first token.
            let index = usize::from(chosen[i].unwrap_or(0).min(1));
            let shown = tokens[index];
            let kept = tokens[1 - index];
            let slot = Slot { round, token: kept };
            let p = &mut self.players[i];
            p.revealed.push(shown);
            p.pile.push(slot);
            // Rule 8.5: both tokens go back; the bag is unchanged, so nothing to do.
            revealed[i] = Some(shown);
            events.push(Emitted::private(seat_of(i), FateEvent::PileSlot { slot }));
        }
        events.insert(
            0,
            Emitted::public(FateEvent::DrawResolved { round, revealed }),
        );
        let owed = self.living_set();
        events.extend(self.enter(
            Phase::Discussion,
            owed,
            self.config.durations.draw_lock_ms,
            self.config.durations.discussion_ms,
            ctx,
        ));
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    /// P4: the night, held every round (D1). Every living player and every ghost owes a form.
    fn open_night(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let owed = SeatSet::from_iter(self.living_set().iter().chain(self.ghost_set().iter()));
        let mut events = self.enter(
            Phase::Night {
                forms: vec![None; self.players.len()],
            },
            owed,
            0,
            self.config.durations.night_ms,
            ctx,
        );
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    /// After the discussion: the accusation phase from round 3 (rule 10.1, D1), else the
    /// night.
    fn end_discussion(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        // Rule 17.2: the claim window for the previous night closes with this discussion.
        if self.round < 3 {
            return self.open_night(ctx);
        }
        let owed = self.living_set();
        let mut events = self.enter(
            Phase::Accusation {
                choices: vec![None; self.players.len()],
            },
            owed,
            0,
            self.config.durations.accusation_ms,
            ctx,
        );
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    /// P3 ends: accusations are kept, secret, for step N6 (rules 10.3, 10.6).
    fn resolve_accusation(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        if let Phase::Accusation { choices } = &self.phase {
            let round = self.round;
            let mut accepted: Vec<Accusation> = choices
                .iter()
                .enumerate()
                .filter_map(|(i, choice)| {
                    let (order, target) = (*choice)?;
                    Some(Accusation {
                        round,
                        order,
                        accuser: seat_of(i),
                        accused: target?,
                    })
                })
                .collect();
            accepted.sort_by_key(|a| a.order);
            self.accusations.extend(accepted);
        }
        self.open_night(ctx)
    }

    /// P5: the trial of the accusation that proceeded, after the night's lock (rule 14.3).
    pub(crate) fn open_trial(&mut self, lock_ms: u64, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let owed = self.living_set();
        let mut events = self.enter(
            Phase::Trial,
            owed,
            lock_ms,
            self.config.durations.trial_ms,
            ctx,
        );
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    /// P6: every living player but the accused votes (rule 14.4, D9: ghosts do not vote).
    fn open_vote(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let Some(accused) = self.trial_now().map(|t| t.accused) else {
            return self.open_claim_counter(0, ctx);
        };
        let owed = self.living_set().without(accused);
        let mut events = self.enter(
            Phase::Vote {
                votes: vec![None; self.players.len()],
            },
            owed,
            0,
            self.config.durations.vote_ms,
            ctx,
        );
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    /// S3: the totals are public; more yes than no exiles, a tie exiles nobody (rule 14.5,
    /// D9); an exiled player stops living at once (rule 14.6). Then the 4 s lock.
    fn resolve_vote(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let votes = match &self.phase {
            Phase::Vote { votes } => votes.clone(),
            _ => Vec::new(),
        };
        // D9: a missing vote is no.
        let votes: Vec<Option<bool>> = self
            .seats()
            .map(|s| {
                self.owed
                    .contains(s)
                    .then(|| votes.get(s.index()).copied().flatten().unwrap_or(false))
            })
            .collect();
        let count = |want: bool| {
            u32::try_from(votes.iter().filter(|v| **v == Some(want)).count()).unwrap_or(u32::MAX)
        };
        let (yes, no) = (count(true), count(false));
        let exiled = yes > no;
        let Some(trial) = self.trials.last_mut() else {
            return self.open_claim_counter(0, ctx);
        };
        trial.votes = Some(votes);
        trial.yes = yes;
        trial.no = no;
        trial.exiled = exiled;
        let accused = trial.accused;
        if exiled {
            let p = &mut self.players[accused.index()];
            p.life = Life::Exiled;
            // Rule 13.6: a player who stops being living loses their marks.
            p.marks = 0;
        }
        let mut events = vec![Emitted::public(FateEvent::VoteResolved {
            accused,
            yes,
            no,
            exiled,
        })];
        events.push(self.announce(format!(
            "the vote on seat {}: {yes} yes, {no} no; {}",
            accused.0,
            if exiled { "exiled" } else { "not exiled" }
        )));
        events.extend(self.open_claim_counter(self.config.durations.vote_lock_ms, ctx));
        events
    }

    /// P7 (section 15): the held private results arrive (rule 15.2), the claim window opens
    /// (rule 15.3), and the counter right is offered.
    ///
    /// Rules 15.5 and 22.2 ask that nothing public say whether anyone holds the counter
    /// right, but [`Game::to_act`] is public and the arena only takes a non-free action from a
    /// pending seat, and tells every seat that a pending seat acted. Who *could* hold it is
    /// public: only the player this round's vote exiled (rules 14.5, 15.4); whether they hold
    /// it (were a GM) is the secret. So the crate asks the question of the exiled player
    /// whatever their role:
    ///
    /// - With an exile, the exiled player is the one pending seat, GM or not. A GM may name
    ///   a living player or decline; anyone else may only decline, and that answer has no
    ///   effect. Either way the phase ends when they answer, never sooner than the minimum,
    ///   or at the counter deadline (rule 15.5, D12). Pending set, deadline, the public
    ///   "acted" signal and the phase's length are the same for a GM and a non-GM, and the
    ///   exiled player learns privately whether they hold the right (rule 15.4).
    /// - Without an exile nobody is pending (nobody can hold the right, as everyone knows)
    ///   and the phase ends at a random moment between the minimum and the counter deadline,
    ///   in steps of 100 ms (rule 15.5, D12).
    ///
    /// Reading: rule 15.5's random wait "if nobody holds the counter right" is applied when
    /// nobody was exiled; an exiled non-GM is timed like a holder, which hides the holder even
    /// from someone watching when the exiled seat acts (D12's reason).
    pub(crate) fn open_claim_counter(
        &mut self,
        lock_ms: u64,
        ctx: &mut Ctx<'_>,
    ) -> Events<FateEvent> {
        let d = &self.config.durations;
        let exiled = self.exiled_now();
        let (owed, wait) = match exiled {
            Some(seat) => (SeatSet::only(seat), d.counter_deadline_ms),
            None => {
                let steps =
                    (d.counter_deadline_ms - d.counter_min_ms.min(d.counter_deadline_ms)) / 100;
                let step = u32::try_from(steps + 1).unwrap_or(u32::MAX);
                let wait = d.counter_min_ms + u64::from(below(ctx.rng(), step)) * 100;
                (SeatSet::EMPTY, wait)
            }
        };
        let mut events = self.enter(
            Phase::ClaimCounter { answer: None },
            owed,
            lock_ms,
            wait,
            ctx,
        );
        night::deliver(self, &mut events);
        if let Some(seat) = exiled {
            let holds = self.holds_counter(seat);
            events.push(Emitted::private(
                seat,
                FateEvent::CounterOpened {
                    phase: self.phase_number,
                    holds,
                    role: holds.then_some(Role::GreatMisfortune),
                },
            ));
        }
        events.extend(self.defaults_for_the_gone(ctx));
        events
    }

    /// Whether `seat` holds the counter right now (rule 15.4): it is the exiled Great
    /// Misfortune, and no Great Misfortune is left living.
    pub(crate) fn holds_counter(&self, seat: Seat) -> bool {
        self.phase.kind() == PhaseKind::ClaimCounter
            && self.exiled_now() == Some(seat)
            && self.players[seat.index()].role == Role::GreatMisfortune
            && self
                .living_set()
                .without(seat)
                .iter()
                .all(|s| self.players[s.index()].role != Role::GreatMisfortune)
    }

    /// S4: exile resolution (section 16), checks W3 and W4, the 4 s lock, then S5.
    fn resolve_exile(&mut self, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let answer = match &self.phase {
            Phase::ClaimCounter { answer } => answer.flatten(),
            _ => None,
        };
        let Some(x) = self.exiled_now() else {
            // Rule 16.1: nobody exiled, straight to the wrap-up.
            return self.wrap_up(0, ctx);
        };
        let gm = self.players[x.index()].role == Role::GreatMisfortune;
        let counter = gm.then_some(answer);
        if let Some(trial) = self.trials.last_mut() {
            trial.resolved = true;
            trial.counter = counter;
        }
        let mut events = vec![Emitted::public(FateEvent::ExileResolved {
            seat: x,
            was_great_misfortune: gm,
            counter,
        })];
        if gm {
            // Rule 16.2.
            self.players[x.index()].known_gm = true;
            events.push(self.announce(format!("seat {} was a Great Misfortune", x.0)));
            match answer {
                Some(y) if self.players[y.index()].role == Role::GreatFortune => {
                    // W3 (rule 18.3), before the good side's win (rule 18.5).
                    events.extend(self.decide(Side::Misfortune, WinReason::Counter, ctx));
                    return events;
                }
                Some(y) => {
                    self.players[y.index()].not_great_fortune = true;
                    events.push(self.announce(format!(
                        "seat {} struck back and named seat {}, who is not the Great Fortune",
                        x.0, y.0
                    )));
                }
                None => {
                    events.push(self.announce(format!("seat {} did not strike back", x.0)));
                }
            }
            // D23: an exiled GM is out.
            self.players[x.index()].life = Life::Out;
        } else {
            // Rule 16.3 (D10: CF or GF is not said).
            events.push(self.announce(format!("seat {} was not a Great Misfortune", x.0)));
            let p = &mut self.players[x.index()];
            p.life = Life::Ghost;
            if !p.awakened {
                events.push(Emitted::private(x, FateEvent::RoleTold { role: p.role }));
            }
            // Rule 16.3.3: every yes-voter gains a Bad token; guard and talisman do not help.
            let voters: Vec<Seat> = self
                .trials
                .last()
                .and_then(|t| t.votes.clone())
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter(|(_, v)| **v == Some(true))
                .map(|(i, _)| seat_of(i))
                .collect();
            let round = self.round;
            for voter in voters {
                let p = &mut self.players[voter.index()];
                p.bag = p.bag.with_added(Token::Bad);
                let notice = NightResult::VotePenalty { round };
                p.results.push(notice.clone());
                events.push(Emitted::private(
                    voter,
                    FateEvent::Results {
                        round,
                        results: vec![notice],
                    },
                ));
            }
        }
        // W4.
        if let Some(decided) = self.check_win(false, ctx) {
            events.extend(decided);
            return events;
        }
        // Rule 16.4: the lock, then the wrap-up.
        events.extend(self.wrap_up(self.config.durations.exile_lock_ms, ctx));
        events
    }

    /// S5: check W5, then the next round (after `lock_ms`) or the end.
    fn wrap_up(&mut self, lock_ms: u64, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        let last = self.round >= self.row.round_cap;
        // Rule 16.4: after an exile the wrap-up follows the lock, so a W5 ending opens then.
        if let Some(events) = self.check_win_after(last, lock_ms, ctx) {
            return events;
        }
        self.round += 1;
        self.start_round(lock_ms, ctx)
    }

    /// Checks W2/W4/W5 (rule 18.3): Good if no GM is living, else Misfortune on parity, else,
    /// at the end of the round cap, Misfortune (d). Enters the ending if decided.
    pub(crate) fn check_win(&mut self, at_cap: bool, ctx: &Ctx<'_>) -> Option<Events<FateEvent>> {
        self.check_win_after(at_cap, 0, ctx)
    }

    /// [`check_win`](Self::check_win) with the ending opening after a lock of `lock_ms`.
    fn check_win_after(
        &mut self,
        at_cap: bool,
        lock_ms: u64,
        ctx: &Ctx<'_>,
    ) -> Option<Events<FateEvent>> {
        let living_gms = self
            .players
            .iter()
            .filter(|p| p.living() && p.role == Role::GreatMisfortune)
            .count();
        let living_good = self
            .players
            .iter()
            .filter(|p| p.living() && p.role != Role::GreatMisfortune)
            .count();
        let decided = if living_gms == 0 {
            Some((Side::Good, WinReason::NoGreatMisfortune))
        } else if living_gms >= living_good {
            Some((Side::Misfortune, WinReason::Parity))
        } else if at_cap {
            Some((Side::Misfortune, WinReason::RoundCap))
        } else {
            None
        };
        decided.map(|(winner, reason)| self.decide_after(winner, reason, lock_ms, ctx))
    }

    /// Fixes the result and enters the ending (section 19).
    pub(crate) fn decide(
        &mut self,
        winner: Side,
        reason: WinReason,
        ctx: &Ctx<'_>,
    ) -> Events<FateEvent> {
        self.decide_after(winner, reason, 0, ctx)
    }

    /// [`decide`](Self::decide), the ending opening after a lock of `lock_ms`.
    fn decide_after(
        &mut self,
        winner: Side,
        reason: WinReason,
        lock_ms: u64,
        ctx: &Ctx<'_>,
    ) -> Events<FateEvent> {
        // D36: sides are settled by the states at the moment of the win.
        let finish = Finish {
            winner,
            reason,
            sides: self.players.iter().map(Player::side).collect(),
        };
        self.finish = Some(finish.clone());
        let mut events = vec![Emitted::public(FateEvent::Decided(finish))];
        // Rule 17.6: every claim gets its verdict when the game ends.
        events.push(Emitted::public(FateEvent::Verdicts(self.verdicts())));
        events.extend(self.enter(
            Phase::Ending,
            SeatSet::EMPTY,
            lock_ms,
            self.config.durations.ending_ms,
            ctx,
        ));
        events
    }

    fn chat(
        &mut self,
        seat: Seat,
        channel: Channel,
        text: &str,
    ) -> Result<Events<FateEvent>, RuleError> {
        let text = text.trim();
        let chars = text.chars().count();
        if chars == 0 || chars > MAX_CHAT_CHARS {
            return Err(Refusal::ChatLength.into());
        }
        let life = self.players[seat.index()].life;
        let line = ChatLine {
            seat: Some(seat),
            round: self.round,
            text: text.to_owned(),
        };
        match (channel, life) {
            (Channel::Everyone, Life::Living) => {
                self.everyone_chat.push(line.clone());
                Ok(vec![Emitted::public(FateEvent::Chat { channel, line })])
            }
            (Channel::Ghosts, Life::Ghost) => {
                self.ghost_chat.push(line.clone());
                // Ghosts are public, so one event for them all; each living awakened GM gets
                // a copy of its own, so that no visibility set ever names a GM (D22).
                let mut events = vec![Emitted {
                    visibility: Visibility::Seats(self.ghost_set()),
                    event: FateEvent::Chat {
                        channel,
                        line: line.clone(),
                    },
                }];
                for s in self.seats() {
                    let p = &self.players[s.index()];
                    if p.living() && p.reads_ghost_chat() {
                        events.push(Emitted::private(
                            s,
                            FateEvent::Chat {
                                channel,
                                line: line.clone(),
                            },
                        ));
                    }
                }
                Ok(events)
            }
            _ => Err(Refusal::ChatChannel.into()),
        }
    }

    /// A system message in the Everyone channel (rule 20.3): public facts only.
    pub(crate) fn announce(&mut self, text: String) -> Emitted<FateEvent> {
        let line = ChatLine {
            seat: None,
            round: self.round,
            text,
        };
        self.everyone_chat.push(line.clone());
        Emitted::public(FateEvent::Chat {
            channel: Channel::Everyone,
            line,
        })
    }

    fn decision(
        &mut self,
        seat: Seat,
        phase: u32,
        action: &FateAction,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<FateEvent>, RuleError> {
        if phase != self.phase_number {
            return Err(RuleError::StalePhase {
                got: phase,
                current: self.phase_number,
            });
        }
        if self.locked {
            return Err(Refusal::Locked(self.opens_at_ms).into());
        }
        if !self.owed.contains(seat) {
            return Err(RuleError::NotYourTurn);
        }
        if self.submitted.contains(seat) {
            return Err(RuleError::AlreadyActed);
        }
        let mut events = Vec::new();
        match (action, &mut self.phase) {
            (FateAction::Reveal { index, .. }, Phase::Draw { chosen, .. }) => {
                if *index > 1 {
                    return Err(Refusal::RevealIndex.into());
                }
                chosen[seat.index()] = Some(*index);
            }
            (FateAction::Ready { .. }, Phase::Discussion) => {
                events.push(Emitted::public(FateEvent::Ready { seat }));
            }
            (FateAction::Ready { .. }, Phase::Trial) => {
                events.push(Emitted::public(FateEvent::Ready { seat }));
            }
            (FateAction::Night { form, .. }, Phase::Night { .. }) => {
                night::check_form(self, seat, form).map_err(Refusal::Night)?;
                self.accepted += 1;
                if let Phase::Night { forms } = &mut self.phase {
                    forms[seat.index()] = Some((self.accepted, form.clone()));
                }
            }
            (FateAction::Accuse { target, .. }, Phase::Accusation { .. }) => {
                // Rule 10.2: another living player, or a pass.
                if let Some(t) = *target
                    && (t == seat || !self.player(t).is_some_and(Player::living))
                {
                    return Err(Refusal::AccuseTarget.into());
                }
                self.accepted += 1;
                let order = self.accepted;
                if let Phase::Accusation { choices } = &mut self.phase {
                    choices[seat.index()] = Some((order, *target));
                }
            }
            (FateAction::Vote { yes, .. }, Phase::Vote { votes }) => {
                votes[seat.index()] = Some(*yes);
            }
            (FateAction::Counter { name, .. }, Phase::ClaimCounter { .. }) => {
                // Rule 15.4 and D19: only the holder names, and only a living player.
                if let Some(y) = *name
                    && (!self.holds_counter(seat) || !self.player(y).is_some_and(Player::living))
                {
                    return Err(Refusal::Counter.into());
                }
                if let Phase::ClaimCounter { answer } = &mut self.phase {
                    *answer = Some(*name);
                }
            }
            (FateAction::Reveal { .. }, _) => return Err(Refusal::WrongPhase("draw").into()),
            (FateAction::Ready { .. }, _) => {
                return Err(Refusal::WrongPhase("discussion or trial").into());
            }
            (FateAction::Night { .. }, _) => return Err(Refusal::WrongPhase("night").into()),
            (FateAction::Accuse { .. }, _) => {
                return Err(Refusal::WrongPhase("accusation").into());
            }
            (FateAction::Vote { .. }, _) => return Err(Refusal::WrongPhase("vote").into()),
            (FateAction::Counter { .. }, _) => {
                return Err(Refusal::WrongPhase("claim/counter").into());
            }
            (FateAction::Chat { .. } | FateAction::Claim { .. }, _) => {
                return Err(RuleError::Illegal("a free action".to_owned()));
            }
        }
        self.submitted = self.submitted.with(seat);
        events.push(Emitted::public(FateEvent::Submitted {
            phase: self.phase_number,
            seat,
        }));
        // Rule 5.3 and D33: the phase ends as soon as everyone owing has submitted.
        events.extend(self.settle(ctx));
        Ok(events)
    }

    /// The outcome from the fixed result: a team result (rule 18.7).
    fn team_outcome(&self, finish: &Finish) -> Outcome {
        let seats = finish
            .sides
            .iter()
            .map(|&side| {
                let won = side == finish.winner;
                SeatOutcome {
                    result: if won {
                        SeatResult::Win
                    } else {
                        SeatResult::Loss
                    },
                    score: i64::from(won),
                    rank: if won { 1 } else { 2 },
                    team: Some(side.team()),
                }
            })
            .collect();
        Outcome {
            seats,
            score_order: ScoreOrder::HigherIsBetter,
            reason: finish.reason.as_str().to_owned(),
        }
    }
}

impl Game for FateTokens {
    const ID: &'static str = "fate-tokens";
    const RULES_VERSION: u32 = 2;

    type Config = FateConfig;
    type State = FateState;
    type Action = FateAction;
    type Event = FateEvent;
    type View = FateView;

    fn seat_count(config: &FateConfig) -> Result<usize, ConfigError> {
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&config.players) {
            return Err(ConfigError(format!(
                "players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {} (rule 1.1)",
                config.players
            )));
        }
        if let Some(problem) = config.durations.problem() {
            return Err(ConfigError(problem));
        }
        Ok(usize::from(config.players))
    }

    fn start(
        config: &FateConfig,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<FateState, FateEvent>, ConfigError> {
        FateTokens::seat_count(config)?;
        let row = SetupRow::for_players(config.players)
            .ok_or_else(|| ConfigError(format!("no setup for {} players", config.players)))?;
        // Rules 4.2–4.4: deal roles and awakening rounds, fill bags.
        let players = setup::deal(&row, ctx.rng())
            .into_iter()
            .map(|dealt| Player {
                role: dealt.role,
                awakening_round: dealt.awakening_round,
                awakened: false,
                life: Life::Living,
                known_gm: false,
                not_great_fortune: false,
                bag: row.bag(dealt.role),
                revealed: Vec::new(),
                pile: Vec::new(),
                exposed_slots: Vec::new(),
                marks: 0,
                talisman_used: false,
                ghost_curse_used: false,
                next_helper_night: None,
                results: Vec::new(),
                exposures_told: Vec::new(),
            })
            .collect();
        // Rule 4.6: round 1 begins, shield whole, everything empty.
        let mut state = FateState {
            config: config.clone(),
            row,
            players,
            round: 1,
            phase_number: 0,
            phase: Phase::Discussion,
            owed: SeatSet::EMPTY,
            submitted: SeatSet::EMPTY,
            opens_at_ms: ctx.now_ms(),
            locked: false,
            deadline_ms: None,
            shield_whole: true,
            everyone_chat: Vec::new(),
            ghost_chat: Vec::new(),
            gone: SeatSet::EMPTY,
            accepted: 0,
            marks_log: Vec::new(),
            nights: Vec::new(),
            accusations: Vec::new(),
            trials: Vec::new(),
            held_results: Vec::new(),
            claims: Vec::new(),
            finish: None,
        };
        let mut events = vec![Emitted::public(FateEvent::Started { setup: row })];
        events.extend(state.start_round(0, ctx));
        Ok((state, events))
    }

    fn to_act(state: &FateState) -> ToAct {
        match state.phase.kind() {
            PhaseKind::Ending | PhaseKind::Over => ToAct::Nobody,
            // Rule 5.5: nobody may act while the table is locked.
            _ if state.locked => ToAct::Nobody,
            // Rule 15.5: the exiled player owes an answer whatever their role, and nobody
            // else ever does (see `FateState::open_claim_counter`), so this shows nothing
            // but the public exile.
            PhaseKind::ClaimCounter if state.owed.is_empty() => ToAct::Nobody,
            PhaseKind::Draw
            | PhaseKind::Discussion
            | PhaseKind::Accusation
            | PhaseKind::Night
            | PhaseKind::Trial
            | PhaseKind::Vote
            | PhaseKind::ClaimCounter => ToAct::Simultaneous {
                phase: state.phase_number,
                pending: state.pending(),
            },
        }
    }

    fn legal_actions(state: &FateState, seat: Seat) -> Vec<FateAction> {
        if !state.pending().contains(seat) {
            return Vec::new();
        }
        let phase = state.phase_number;
        match &state.phase {
            Phase::Draw { .. } => (0..2)
                .map(|index| FateAction::Reveal { phase, index })
                .collect(),
            Phase::Discussion | Phase::Trial => vec![FateAction::Ready { phase }],
            Phase::Night { .. } => night::sample_forms(state, seat)
                .into_iter()
                .map(|form| FateAction::Night { phase, form })
                .collect(),
            Phase::Accusation { .. } => std::iter::once(None)
                .chain(state.living_set().without(seat).iter().map(Some))
                .map(|target| FateAction::Accuse { phase, target })
                .collect(),
            Phase::Vote { .. } => [true, false]
                .map(|yes| FateAction::Vote { phase, yes })
                .to_vec(),
            Phase::ClaimCounter { .. } => {
                let named: Vec<Seat> = if state.holds_counter(seat) {
                    state.living_set().iter().collect()
                } else {
                    Vec::new()
                };
                std::iter::once(None)
                    .chain(named.into_iter().map(Some))
                    .map(|name| FateAction::Counter { phase, name })
                    .collect()
            }
            Phase::Ending | Phase::Over => Vec::new(),
        }
    }

    fn apply(
        state: &mut FateState,
        seat: Seat,
        action: &FateAction,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<FateEvent>, RuleError> {
        if seat.index() >= state.seat_count() {
            return Err(RuleError::NoSuchSeat(seat.0));
        }
        if state.phase.kind() == PhaseKind::Over {
            return Err(RuleError::GameOver);
        }
        match action {
            // Rule 20.2: chat is accepted in every phase until the game is over.
            FateAction::Chat { channel, text } => state.chat(seat, *channel, text),
            // Section 17: claims are free, within their windows, until the game ends.
            FateAction::Claim { pair, bad } => {
                if state.finish.is_some() {
                    return Err(RuleError::GameOver);
                }
                state.claim(seat, *pair, *bad)
            }
            FateAction::Reveal { phase, .. }
            | FateAction::Ready { phase }
            | FateAction::Night { phase, .. }
            | FateAction::Accuse { phase, .. }
            | FateAction::Vote { phase, .. }
            | FateAction::Counter { phase, .. } => {
                if state.finish.is_some() {
                    return Err(RuleError::GameOver);
                }
                state.decision(seat, *phase, action, ctx)
            }
        }
    }

    /// The lock's end while the table is locked (rule 5.5), else the phase's deadline.
    fn deadline(state: &FateState) -> Option<u64> {
        if state.locked {
            return Some(state.opens_at_ms);
        }
        state.deadline_ms
    }

    fn on_deadline(state: &mut FateState, ctx: &mut Ctx<'_>) -> Events<FateEvent> {
        if state.phase.kind() == PhaseKind::Over {
            return Vec::new();
        }
        // Rule 5.5: the lock ends and the phase opens for decisions.
        if state.locked {
            state.locked = false;
            let mut events = vec![Emitted::public(FateEvent::Unlocked {
                phase: state.phase_number,
            })];
            events.extend(state.defaults_for_the_gone(ctx));
            return events;
        }
        // Rule 5.4: every pending seat gets its default; the phase resolves in one step.
        // Rule 5.7: the discussion's deadline is no missed decision, so it gives no default.
        let mut events = Vec::new();
        if !matches!(state.phase.kind(), PhaseKind::Discussion | PhaseKind::Trial) {
            for seat in state.pending().iter() {
                events.extend(state.submit_default(seat, ctx));
            }
        }
        events.extend(state.resolve(ctx));
        events
    }

    fn view(state: &FateState, viewer: Viewer) -> FateView {
        view::build(state, viewer)
    }

    /// The team result once the ending is over (rule 19.2): the result is fixed when a check
    /// decides the game, but the game runs its 10 s ending before it is over.
    fn outcome(state: &FateState) -> Option<Outcome> {
        match (state.phase.kind(), &state.finish) {
            (PhaseKind::Over, Some(finish)) => Some(state.team_outcome(finish)),
            _ => None,
        }
    }

    /// A seat that forfeits loses with its current side; the other side wins.
    fn forfeit(state: &FateState, seat: Seat) -> Outcome {
        let sides: Vec<Side> = state.players.iter().map(Player::side).collect();
        let loser = sides.get(seat.index()).copied().unwrap_or(Side::Good);
        let winner = match loser {
            Side::Good => Side::Misfortune,
            Side::Misfortune => Side::Good,
        };
        let mut outcome = state.team_outcome(&Finish {
            winner,
            reason: WinReason::NoGreatMisfortune,
            sides,
        });
        outcome.reason = "forfeit".to_owned();
        outcome
    }

    /// Rule 5.9 (D37): the seat stays in the game and takes every default at once.
    fn leave(state: &mut FateState, seat: Seat, ctx: &mut Ctx<'_>) -> Option<Events<FateEvent>> {
        if seat.index() >= state.seat_count() {
            return None;
        }
        if state.gone.contains(seat) || state.finish.is_some() {
            return Some(Vec::new());
        }
        state.gone = state.gone.with(seat);
        let mut events = vec![Emitted::public(FateEvent::Left { seat })];
        events.extend(state.defaults_for_the_gone(ctx));
        Some(events)
    }

    fn is_free(action: &FateAction) -> bool {
        matches!(action, FateAction::Chat { .. } | FateAction::Claim { .. })
    }
}

#[cfg(test)]
pub(crate) mod tests;
