//! Goofspiel: a small simultaneous-bidding card game that exercises the parts of the model
//! turn-based board games do not — simultaneous commits, a reveal, a rules-owned phase
//! deadline with default actions, a seeded shuffle and per-viewer views that hide
//! unrevealed choices. The arena's tests use it as a stand-in for Fate Tokens.
//!
//! Rules: every player holds the cards `1..=cards`. The prize cards `1..=cards` are shuffled
//! face down and turned up one per round. Each round every player bids one card from their
//! hand, all at once; the bids are revealed together and the single highest bid wins the
//! prize's value in points (a tie for the highest bid discards the prize). Bid cards are gone.
//! A player who has not bid when the round's deadline passes bids their lowest card. After
//! the last prize the highest score wins.

use serde::{Deserialize, Serialize};

use arbiter_rules::random::shuffle;
use arbiter_rules::{
    ConfigError, Ctx, Emitted, Events, Game, Outcome, RuleError, ScoreOrder, Seat, SeatSet,
    Started, ToAct, Viewer,
};

/// The game (a marker type; see the module documentation for the rules).
pub struct Goofspiel;

/// Options of a Goofspiel game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GoofspielConfig {
    /// Number of players, 2 to 4.
    pub players: u8,
    /// Cards per hand and prizes in the deck, 1 to 13.
    pub cards: u8,
    /// Time each round allows for bidding, in milliseconds.
    pub bid_ms: u64,
}

impl Default for GoofspielConfig {
    fn default() -> Self {
        GoofspielConfig {
            players: 2,
            cards: 13,
            bid_ms: 30_000,
        }
    }
}

/// The full state, secrets included: the order of the undrawn prizes and the unrevealed bids.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoofspielState {
    config: GoofspielConfig,
    round: u32,
    prize: Option<u8>,
    /// Undrawn prizes; the next one is the last element.
    deck: Vec<u8>,
    /// Each seat's remaining cards as a bit mask (bit `c` set = card `c` in hand).
    hands: Vec<u16>,
    bids: Vec<Option<u8>>,
    scores: Vec<u32>,
    deadline_ms: Option<u64>,
    history: Vec<Round>,
    /// Seats that left the game; the rules bid their lowest card for them every round.
    #[serde(default)]
    gone: SeatSet,
}

/// A revealed round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Round number, from 1.
    pub round: u32,
    /// The prize card.
    pub prize: u8,
    /// Every seat's bid, in seat order.
    pub bids: Vec<u8>,
    /// The seat that took the prize, `None` when the highest bid was tied.
    pub winner: Option<Seat>,
    /// Seats whose bid was made for them at the deadline.
    pub defaulted: SeatSet,
}

/// A bid for the current round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bid {
    /// The round the bid is for; a bid for another round is refused.
    pub round: u32,
    /// The card bid.
    pub card: u8,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum GoofspielEvent {
    /// A prize was turned up; bids are due by `deadline_ms`.
    Prize {
        /// Round number.
        round: u32,
        /// The prize card.
        prize: u8,
        /// When the round's bidding closes, on the match clock.
        deadline_ms: u64,
    },
    /// A seat has bid (public; it does not say what).
    Committed {
        /// Round number.
        round: u32,
        /// The seat that bid.
        seat: Seat,
    },
    /// Your own bid, as recorded (visible to the bidder only).
    OwnBid {
        /// Round number.
        round: u32,
        /// The card bid.
        card: u8,
    },
    /// All bids of a round, revealed together.
    Revealed(Round),
    /// A seat left the game; from now on it bids its lowest card every round.
    Left {
        /// The seat.
        seat: Seat,
    },
    /// The game is over.
    Finished {
        /// Final scores in seat order.
        scores: Vec<u32>,
    },
}

/// What one viewer sees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GoofspielView {
    /// The round under way (the last round once finished).
    pub round: u32,
    /// The prize on the table, `None` once finished.
    pub prize: Option<u8>,
    /// How many prizes are still face down.
    pub prizes_left: usize,
    /// Scores in seat order.
    pub scores: Vec<u32>,
    /// Every seat's remaining cards (public: they follow from the revealed bids).
    pub hands: Vec<Vec<u8>>,
    /// Which seats have bid this round.
    pub committed: Vec<bool>,
    /// The viewer's own bid this round, for a seated viewer who has bid.
    pub own_bid: Option<u8>,
    /// When bidding closes.
    pub deadline_ms: Option<u64>,
    /// The revealed rounds.
    pub history: Vec<Round>,
    /// The hidden parts, for omniscient viewers only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secrets: Option<Secrets>,
}

/// The hidden part of the state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Secrets {
    /// Undrawn prizes, the next one last.
    pub deck: Vec<u8>,
    /// This round's bids so far.
    pub bids: Vec<Option<u8>>,
}

fn cards_in(hand: u16) -> Vec<u8> {
    (1..16u8).filter(|&c| hand & (1 << c) != 0).collect()
}

impl GoofspielState {
    fn seat_count(&self) -> usize {
        self.hands.len()
    }

    /// Bids the lowest card of every seat that left and has not bid this round, and resolves
    /// the round if that was the last bid missing.
    fn bid_for_the_gone(&mut self, ctx: &Ctx<'_>) -> Events<GoofspielEvent> {
        let mut events = Vec::new();
        if self.prize.is_none() {
            return events;
        }
        for seat in self.gone.iter() {
            let i = seat.index();
            if self.bids[i].is_none() {
                self.bids[i] = cards_in(self.hands[i]).first().copied();
                events.push(Emitted::public(GoofspielEvent::Committed {
                    round: self.round,
                    seat,
                }));
            }
        }
        if !events.is_empty() && self.bids.iter().all(Option::is_some) {
            events.extend(self.resolve(self.gone, ctx));
        }
        events
    }

    /// Reveals the round, scores it and turns up the next prize or ends the game.
    fn resolve(&mut self, defaulted: SeatSet, ctx: &Ctx<'_>) -> Events<GoofspielEvent> {
        let prize = self.prize.unwrap_or_default();
        let bids: Vec<u8> = self.bids.iter().map(|b| b.unwrap_or_default()).collect();
        for (hand, &bid) in self.hands.iter_mut().zip(&bids) {
            *hand &= !(1 << bid);
        }
        let best = bids.iter().copied().max().unwrap_or_default();
        let mut at_best = bids
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == best)
            .map(|(i, _)| i);
        let winner = match (at_best.next(), at_best.next()) {
            (Some(seat), None) => u8::try_from(seat).ok().map(Seat),
            _ => None,
        };
        if let Some(seat) = winner {
            self.scores[seat.index()] += u32::from(prize);
        }
        let round = Round {
            round: self.round,
            prize,
            bids,
            winner,
            defaulted,
        };
        self.history.push(round.clone());
        let mut events = vec![Emitted::public(GoofspielEvent::Revealed(round))];
        self.bids.iter_mut().for_each(|b| *b = None);
        match self.deck.pop() {
            Some(next) => {
                self.round += 1;
                self.prize = Some(next);
                let deadline_ms = ctx.now_ms() + self.config.bid_ms;
                self.deadline_ms = Some(deadline_ms);
                events.push(Emitted::public(GoofspielEvent::Prize {
                    round: self.round,
                    prize: next,
                    deadline_ms,
                }));
                events.extend(self.bid_for_the_gone(ctx));
            }
            None => {
                self.prize = None;
                self.deadline_ms = None;
                events.push(Emitted::public(GoofspielEvent::Finished {
                    scores: self.scores.clone(),
                }));
            }
        }
        events
    }
}

impl Game for Goofspiel {
    const ID: &'static str = "goofspiel";
    const RULES_VERSION: u32 = 1;

    type Config = GoofspielConfig;
    type State = GoofspielState;
    type Action = Bid;
    type Event = GoofspielEvent;
    type View = GoofspielView;

    fn seat_count(config: &GoofspielConfig) -> Result<usize, ConfigError> {
        if !(2..=4).contains(&config.players) {
            return Err(ConfigError(format!(
                "players must be 2 to 4, not {}",
                config.players
            )));
        }
        if !(1..=13).contains(&config.cards) {
            return Err(ConfigError(format!(
                "cards must be 1 to 13, not {}",
                config.cards
            )));
        }
        if config.bid_ms == 0 {
            return Err(ConfigError("bid_ms must be positive".to_owned()));
        }
        Ok(usize::from(config.players))
    }

    fn start(
        config: &GoofspielConfig,
        ctx: &mut Ctx<'_>,
    ) -> Result<Started<GoofspielState, GoofspielEvent>, ConfigError> {
        let seats = Goofspiel::seat_count(config)?;
        let mut deck: Vec<u8> = (1..=config.cards).collect();
        shuffle(ctx.rng(), &mut deck);
        let prize = deck.pop();
        let full_hand = (1..=config.cards).fold(0u16, |hand, c| hand | 1 << c);
        let deadline_ms = ctx.now_ms() + config.bid_ms;
        let state = GoofspielState {
            config: config.clone(),
            round: 1,
            prize,
            deck,
            hands: vec![full_hand; seats],
            bids: vec![None; seats],
            scores: vec![0; seats],
            deadline_ms: Some(deadline_ms),
            history: Vec::new(),
            gone: SeatSet::EMPTY,
        };
        let event = GoofspielEvent::Prize {
            round: 1,
            prize: prize.unwrap_or_default(),
            deadline_ms,
        };
        Ok((state, vec![Emitted::public(event)]))
    }

    fn to_act(state: &GoofspielState) -> ToAct {
        if state.prize.is_none() {
            return ToAct::Nobody;
        }
        let pending = state
            .bids
            .iter()
            .enumerate()
            .filter(|(_, bid)| bid.is_none())
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Seat))
            .collect();
        ToAct::Simultaneous {
            phase: state.round,
            pending,
        }
    }

    fn legal_actions(state: &GoofspielState, seat: Seat) -> Vec<Bid> {
        match (
            state.prize,
            state.bids.get(seat.index()),
            state.hands.get(seat.index()),
        ) {
            (Some(_), Some(None), Some(&hand)) => cards_in(hand)
                .into_iter()
                .map(|card| Bid {
                    round: state.round,
                    card,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn apply(
        state: &mut GoofspielState,
        seat: Seat,
        bid: &Bid,
        ctx: &mut Ctx<'_>,
    ) -> Result<Events<GoofspielEvent>, RuleError> {
        if seat.index() >= state.seat_count() {
            return Err(RuleError::NoSuchSeat(seat.0));
        }
        if state.prize.is_none() {
            return Err(RuleError::GameOver);
        }
        if bid.round != state.round {
            return Err(RuleError::StalePhase {
                got: bid.round,
                current: state.round,
            });
        }
        if state.bids[seat.index()].is_some() {
            return Err(RuleError::AlreadyActed);
        }
        if bid.card >= 16 || state.hands[seat.index()] & (1 << bid.card) == 0 {
            return Err(RuleError::Illegal(format!(
                "card {} is not in your hand",
                bid.card
            )));
        }
        state.bids[seat.index()] = Some(bid.card);
        let mut events = vec![
            Emitted::private(
                seat,
                GoofspielEvent::OwnBid {
                    round: state.round,
                    card: bid.card,
                },
            ),
            Emitted::public(GoofspielEvent::Committed {
                round: state.round,
                seat,
            }),
        ];
        if state.bids.iter().all(Option::is_some) {
            events.extend(state.resolve(SeatSet::EMPTY, ctx));
        }
        Ok(events)
    }

    fn deadline(state: &GoofspielState) -> Option<u64> {
        state.deadline_ms
    }

    fn on_deadline(state: &mut GoofspielState, ctx: &mut Ctx<'_>) -> Events<GoofspielEvent> {
        if state.prize.is_none() {
            return Vec::new();
        }
        let mut defaulted = SeatSet::EMPTY;
        for (i, (bid, &hand)) in state.bids.iter_mut().zip(&state.hands).enumerate() {
            if bid.is_none() {
                *bid = cards_in(hand).first().copied();
                defaulted = defaulted.with(Seat(u8::try_from(i).unwrap_or_default()));
            }
        }
        state.resolve(defaulted, ctx)
    }

    fn view(state: &GoofspielState, viewer: Viewer) -> GoofspielView {
        let own_bid = match viewer {
            Viewer::Seat(seat) => state.bids.get(seat.index()).copied().flatten(),
            Viewer::Spectator | Viewer::Omniscient => None,
        };
        let secrets = (viewer == Viewer::Omniscient).then(|| Secrets {
            deck: state.deck.clone(),
            bids: state.bids.clone(),
        });
        GoofspielView {
            round: state.round,
            prize: state.prize,
            prizes_left: state.deck.len(),
            scores: state.scores.clone(),
            hands: state.hands.iter().map(|&h| cards_in(h)).collect(),
            committed: state.bids.iter().map(Option::is_some).collect(),
            own_bid,
            deadline_ms: state.deadline_ms,
            history: state.history.clone(),
            secrets,
        }
    }

    fn outcome(state: &GoofspielState) -> Option<Outcome> {
        state.prize.is_none().then(|| {
            let scores: Vec<i64> = state.scores.iter().map(|&s| i64::from(s)).collect();
            Outcome::from_scores(&scores, ScoreOrder::HigherIsBetter, "score")
        })
    }

    /// A seat that leaves bids its lowest card every round from then on, and its score counts.
    fn leave(
        state: &mut GoofspielState,
        seat: Seat,
        ctx: &mut Ctx<'_>,
    ) -> Option<Events<GoofspielEvent>> {
        if seat.index() >= state.seat_count() {
            return None;
        }
        if state.gone.contains(seat) || state.prize.is_none() {
            return Some(Vec::new());
        }
        state.gone = state.gone.with(seat);
        let mut events = vec![Emitted::public(GoofspielEvent::Left { seat })];
        events.extend(state.bid_for_the_gone(ctx));
        Some(events)
    }

    fn forfeit(state: &GoofspielState, seat: Seat) -> Outcome {
        let scores: Vec<i64> = state.scores.iter().map(|&s| i64::from(s)).collect();
        Outcome::forfeit(&scores, seat, ScoreOrder::HigherIsBetter)
    }
}

#[cfg(test)]
mod tests;
