//! The full game state, secrets included, and the types actions and events share with it.

use serde::{Deserialize, Serialize};

use arbiter_rules::{Seat, SeatSet};

use crate::config::FateConfig;
use crate::night::{NightForm, NightResult};
use crate::setup::{Bag, Role, SetupRow, Token};

/// The seat at index `index` of a per-seat array.
pub(crate) fn seat_of(index: usize) -> Seat {
    // Seats number at most MAX_PLAYERS (8), which fits in a u8.
    Seat(u8::try_from(index).unwrap_or(u8::MAX))
}

/// A player's state (rule 3.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Life {
    /// At the table: draws, votes, accuses, marks, claims.
    Living,
    /// An exiled non-GM, or a GM whose pathfinder failed: plays for the Misfortune side.
    Ghost,
    /// An exiled GM: takes no further part.
    Out,
    /// Exiled by this round's vote, before exile resolution says whether they were a GM
    /// (rules 14.6, 16.2, 16.3): no longer living, not yet a ghost or out.
    Exiled,
}

/// A side (rule 1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The living Common Fortunes and the living Great Fortune.
    Good,
    /// Every Great Misfortune and every ghost.
    Misfortune,
}

impl Side {
    /// The team number reported in the outcome: 0 for Good, 1 for Misfortune.
    pub fn team(self) -> u8 {
        match self {
            Side::Good => 0,
            Side::Misfortune => 1,
        }
    }
}

/// A chat channel (rule 20.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// Written by living players, read by everyone.
    Everyone,
    /// Written by ghosts, read by ghosts and living awakened GMs (D22).
    Ghosts,
}

/// One line of chat. System messages (rule 20.3) have no seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The writer, `None` for the game's own announcements.
    pub seat: Option<Seat>,
    /// The round in which it was written.
    pub round: u32,
    /// The text, trimmed, 1 to 200 characters (D38).
    pub text: String,
}

/// One slot of a private pile (rule 3.4): the token a player did not reveal in `round`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    /// The round of the draw, which numbers the slot.
    pub round: u32,
    /// The token kept back.
    pub token: Token,
}

/// Which step of the round is under way (rule 6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// P1: each living player reveals one of two drawn tokens.
    Draw,
    /// P2: free talk; living players may signal ready.
    Discussion,
    /// P3 (rounds 3 and later): each living player accuses one other living player or passes.
    Accusation,
    /// P4: every living player and every ghost sends a night form.
    Night,
    /// P5: the trial of the accusation that proceeded; living players may signal ready.
    Trial,
    /// P6: every living player but the accused votes yes or no.
    Vote,
    /// P7: private results arrive; the counter right, if anyone holds it.
    ClaimCounter,
    /// The result is fixed and everything is revealed (section 19).
    Ending,
    /// No action of any kind is accepted (rule 19.3).
    Over,
}

/// How the game was won (rule 18.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinReason {
    /// Good: no Great Misfortune is living.
    NoGreatMisfortune,
    /// Misfortune (a): a pathfinder named the Great Fortune.
    Pathfinder,
    /// Misfortune (b): an exiled GM's counter right named the Great Fortune.
    Counter,
    /// Misfortune (c): the living GMs are at least as many as the living good-side players.
    Parity,
    /// Misfortune (d): a GM is still living at the end of the round cap.
    RoundCap,
}

impl WinReason {
    /// The snake_case reason of the outcome.
    pub fn as_str(self) -> &'static str {
        match self {
            WinReason::NoGreatMisfortune => "no_great_misfortune",
            WinReason::Pathfinder => "pathfinder",
            WinReason::Counter => "counter",
            WinReason::Parity => "parity",
            WinReason::RoundCap => "round_cap",
        }
    }
}

/// The fixed result (rule 18.7): the winning side and every seat's side at the moment of the
/// win (D36).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finish {
    /// The side that won.
    pub winner: Side,
    /// Why.
    pub reason: WinReason,
    /// Each seat's side when the game was decided, in seat order.
    pub sides: Vec<Side>,
}

/// Everything the rules keep about one seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Player {
    /// Secret role (rule 4.2).
    pub(crate) role: Role,
    /// Secret, even from the owner, until it happens (rule 4.4).
    pub(crate) awakening_round: u32,
    pub(crate) awakened: bool,
    pub(crate) life: Life,
    /// Whether this player is publicly known to have been a GM (failed pathfinder, exile).
    pub(crate) known_gm: bool,
    /// Publicly declared "not the Great Fortune" (rule 11.11).
    pub(crate) not_great_fortune: bool,
    pub(crate) bag: Bag,
    /// Public revealed row, one token per round drawn (rule 3.3).
    pub(crate) revealed: Vec<Token>,
    /// Private pile (rule 3.4).
    pub(crate) pile: Vec<Slot>,
    /// Indices into `pile` revealed by the threshold, in the order revealed (secret: rule 13.4).
    pub(crate) exposed_slots: Vec<usize>,
    /// Public mark count (rule 3.5).
    pub(crate) marks: u32,
    pub(crate) talisman_used: bool,
    pub(crate) ghost_curse_used: bool,
    /// A CF's next helper night, set when they awaken (rule 11.12.1).
    pub(crate) next_helper_night: Option<u32>,
    /// Private results delivered so far (rule 15.2), oldest first.
    pub(crate) results: Vec<NightResult>,
    /// Private notices that a threshold reveal exposed this many of one's own tokens.
    pub(crate) exposures_told: Vec<u32>,
}

impl Player {
    pub(crate) fn living(&self) -> bool {
        self.life == Life::Living
    }

    /// The player's side by their current state (rule 1.4).
    pub(crate) fn side(&self) -> Side {
        match (self.role, self.life) {
            // Rule 1.4: the good side is living; an exiled player is no longer (rule 14.6).
            (Role::GreatMisfortune, _) | (_, Life::Ghost | Life::Out | Life::Exiled) => {
                Side::Misfortune
            }
            _ => Side::Good,
        }
    }

    /// Whether this player reads the Ghosts channel (rule 20.1, D22).
    pub(crate) fn reads_ghost_chat(&self) -> bool {
        match self.life {
            Life::Ghost => true,
            Life::Living => self.awakened && self.role == Role::GreatMisfortune,
            Life::Out | Life::Exiled => false,
        }
    }
}

/// What the current phase has collected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub(crate) enum Phase {
    Draw {
        /// Each living seat's two tokens, in the order drawn.
        drawn: Vec<Option<[Token; 2]>>,
        /// The index (0 or 1) each seat chose to reveal.
        chosen: Vec<Option<u8>>,
    },
    Discussion,
    Accusation {
        /// Each seat's choice with its acceptance number (rule 10.4): the accused, or `None`
        /// for a pass.
        choices: Vec<Option<(u64, Option<Seat>)>>,
    },
    Night {
        /// Each seat's accepted form with its acceptance number (rule 10.4, 11.7).
        forms: Vec<Option<(u64, NightForm)>>,
    },
    Trial,
    Vote {
        /// Each voter's vote, `true` for yes (rule 14.4).
        votes: Vec<Option<bool>>,
    },
    ClaimCounter {
        /// The exiled player's answer (rule 15.4): `Some(None)` declines, `Some(Some(y))`
        /// names `y`. Only a GM's answer has an effect.
        answer: Option<Option<Seat>>,
    },
    Ending,
    Over,
}

impl Phase {
    pub(crate) fn kind(&self) -> PhaseKind {
        match self {
            Phase::Draw { .. } => PhaseKind::Draw,
            Phase::Discussion => PhaseKind::Discussion,
            Phase::Accusation { .. } => PhaseKind::Accusation,
            Phase::Night { .. } => PhaseKind::Night,
            Phase::Trial => PhaseKind::Trial,
            Phase::Vote { .. } => PhaseKind::Vote,
            Phase::ClaimCounter { .. } => PhaseKind::ClaimCounter,
            Phase::Ending => PhaseKind::Ending,
            Phase::Over => PhaseKind::Over,
        }
    }
}

/// One night's forms, kept for the end-of-game reveal (rule 22.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NightRecord {
    /// The round of the night.
    pub round: u32,
    /// Each seat's form as it took effect (defaults included), `None` for out players.
    pub forms: Vec<Option<NightForm>>,
    /// The seats living when the night opened (rule 17.3: claims name such players).
    pub living: SeatSet,
}

/// An accusation as the server accepted it (rule 10.4), secret until the end unless it
/// proceeded (rule 22.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accusation {
    /// The round.
    pub round: u32,
    /// The acceptance number: lower is earlier (rule 10.4).
    pub order: u64,
    /// Who accused.
    pub accuser: Seat,
    /// Whom.
    pub accused: Seat,
}

/// The accusation that proceeded in a round, its trial, vote and exile (section 14, 16).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trial {
    /// The round.
    pub round: u32,
    /// Who accused.
    pub accuser: Seat,
    /// Who stood trial.
    pub accused: Seat,
    /// The price drawn from the accuser's bag (rule 14.2, D8).
    pub price: Token,
    /// Each seat's vote once the vote resolved, `None` for non-voters; a missing vote counts
    /// as no and is stored as `Some(false)` (D9). Secret until the end.
    pub votes: Option<Vec<Option<bool>>>,
    /// The totals, public once the vote resolved (rule 14.5).
    pub yes: u32,
    /// No votes, missing votes included (D9).
    pub no: u32,
    /// Whether the accused was exiled: more yes than no (rule 14.5).
    pub exiled: bool,
    /// The exiled GM's counter right, once resolved: `Some(Some(y))` named `y`,
    /// `Some(None)` declined (rule 16.2). `None` otherwise.
    pub counter: Option<Option<Seat>>,
    /// Whether exile resolution has said if the exiled player was a GM (section 16).
    pub resolved: bool,
}

/// A claim (rule 17.1): "my helper found `bad` Bad tokens in the piles of `pair`".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// The night the claim is about (the window's number, rule 17.2).
    pub round: u32,
    /// Who claimed.
    pub claimant: Seat,
    /// The two players named.
    pub pair: [Seat; 2],
    /// The number claimed.
    pub bad: u32,
}

/// An honesty verdict (rule 17.6, D30).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The claimant's helper named the pair that night and found that number.
    Honest,
    /// The claimant's helper named the pair that night and found another number.
    WrongNumber,
    /// The claimant had no helper result for that night (a GF's or GM's claim).
    NoHelper,
}

/// A claim with its verdict and the true Bad total of the pair's piles during that night.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedClaim {
    /// The claim.
    pub claim: Claim,
    /// The verdict.
    pub verdict: Verdict,
    /// The true Bad total (rule 17.6).
    pub true_bad: u32,
}

/// The full state, secrets included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FateState {
    pub(crate) config: FateConfig,
    pub(crate) row: SetupRow,
    pub(crate) players: Vec<Player>,
    pub(crate) round: u32,
    /// Rule 5.1: the number of the phase under way, from 1.
    pub(crate) phase_number: u32,
    pub(crate) phase: Phase,
    /// Seats that owe a decision in this phase (rule 6.1).
    pub(crate) owed: SeatSet,
    /// Seats among `owed` that have submitted.
    pub(crate) submitted: SeatSet,
    /// When the lock before this phase ends (rule 5.5).
    pub(crate) opens_at_ms: u64,
    /// Whether the table is locked: until `opens_at_ms` nobody owes anything (rule 5.5).
    pub(crate) locked: bool,
    pub(crate) deadline_ms: Option<u64>,
    /// Rule 3.6: whole until the guard is used.
    pub(crate) shield_whole: bool,
    pub(crate) everyone_chat: Vec<ChatLine>,
    pub(crate) ghost_chat: Vec<ChatLine>,
    /// Seats that left the match; they take every default at once (rule 5.9).
    pub(crate) gone: SeatSet,
    /// Acceptance counter for "earliest-accepted" (rules 10.4, 11.7, 18.6).
    pub(crate) accepted: u64,
    /// Who marked whom each night, secret until the end: (round, marker, marked).
    pub(crate) marks_log: Vec<(u32, Seat, Seat)>,
    pub(crate) nights: Vec<NightRecord>,
    /// Every accepted accusation, in acceptance order (rule 10.4), secret until the end.
    pub(crate) accusations: Vec<Accusation>,
    /// Every accusation that proceeded, with its trial, vote and exile.
    pub(crate) trials: Vec<Trial>,
    /// Tonight's private results, held until the claim/counter phase opens (rule 15.2, D25).
    pub(crate) held_results: Vec<Vec<NightResult>>,
    /// Every claim made, in order (section 17).
    pub(crate) claims: Vec<Claim>,
    pub(crate) finish: Option<Finish>,
}

impl FateState {
    pub(crate) fn seat_count(&self) -> usize {
        self.players.len()
    }

    pub(crate) fn seats(&self) -> impl Iterator<Item = Seat> + '_ {
        (0..self.players.len()).filter_map(|i| u8::try_from(i).ok().map(Seat))
    }

    pub(crate) fn player(&self, seat: Seat) -> Option<&Player> {
        self.players.get(seat.index())
    }

    pub(crate) fn living_set(&self) -> SeatSet {
        self.seats()
            .filter(|&s| self.players[s.index()].living())
            .collect()
    }

    pub(crate) fn ghost_set(&self) -> SeatSet {
        self.seats()
            .filter(|&s| self.players[s.index()].life == Life::Ghost)
            .collect()
    }

    /// This round's trial, if an accusation proceeded (rule 14.1).
    pub(crate) fn trial_now(&self) -> Option<&Trial> {
        self.trials.last().filter(|t| t.round == self.round)
    }

    /// The player this round's vote exiled, while exile resolution is still to come.
    pub(crate) fn exiled_now(&self) -> Option<Seat> {
        self.trial_now()
            .filter(|t| t.exiled && !t.resolved)
            .map(|t| t.accused)
    }

    /// The living count + 1 (rule 13.1).
    pub(crate) fn threshold(&self) -> u32 {
        u32::try_from(self.living_set().len()).unwrap_or(u32::MAX) + 1
    }

    /// The seats that still owe a decision: none while the table is locked (rule 5.5).
    pub(crate) fn pending(&self) -> SeatSet {
        if self.locked {
            return SeatSet::EMPTY;
        }
        self.owed
            .iter()
            .filter(|&s| !self.submitted.contains(s))
            .collect()
    }

    /// The game's round under way.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The phase under way.
    pub fn phase_kind(&self) -> PhaseKind {
        self.phase.kind()
    }

    /// The number of the phase under way (rule 5.1), which decisions quote.
    pub fn phase_number(&self) -> u32 {
        self.phase_number
    }

    /// The fixed result, once a win check has decided the game.
    pub fn finish(&self) -> Option<&Finish> {
        self.finish.as_ref()
    }
}
