//! The game model every Arbiter game implements.
//!
//! A game module supplies, in its own types, a [`Game`]: a configuration, a state that
//! serializes to JSON and carries a rules version, who must act now ([`ToAct`]), the legal
//! actions of a seat, `apply` (which either changes the state and returns events, or refuses
//! with a [`RuleError`] and changes nothing), the deadlines the rules own, a view per
//! [`Viewer`], and the [`Outcome`]. Events carry a [`Visibility`] so that logs, streams and
//! replays can be filtered per viewer. Time and randomness arrive through a [`Ctx`]; the rules
//! never read a clock or a global generator and never do I/O.
//!
//! The arena drives every game through the object-safe [`DynGame`]/[`DynState`] pair with
//! JSON only at the edge; hot paths (perft, house-bot search, balance simulation) call the
//! typed API directly.
//!
//! Goofspiel (`arbiter-goofspiel`) is a small complete game built on this interface that
//! exercises simultaneous commits, a reveal, a phase deadline, a seeded shuffle and hidden
//! views.
//!
//! # How the four game families map onto the model
//!
//! **Othello family** (`arbiter-othello`): seats 0 = Black, 1 = White; `ToAct::Turn` for the
//! side to move; a pass is an explicit action that is legal only when no placement is; the
//! random 12-disc opening is drawn in `start` from the context's generator. Paired legs are two
//! games started from the same opening, summed by the arena through [`Outcome`] scores and
//! [`ScoreOrder`]; a flag fall is scored by [`Game::forfeit`] (the variant's `result_discs`).
//!
//! **Gomoku / Renju** — a sketch:
//! ```text
//! Config  { rule: Freestyle | Standard | Renju, size: 15 | 19 | 20, opening: Free | Swap2 }
//! State   { stones: two bitsets of size², to_move, opening_stage, moves }
//! ToAct   Turn(seat); Swap2 stages are turns too, with actions Place | Swap | ChooseColor
//! apply   Place(sq): occupied → Illegal; Renju black overline / 4-4 / 3-3 → the arena is told
//!         through Outcome (a foul loses: reason "foul"), not by refusing the move
//! outcome five (or exactly five) in a row; full board → draw
//! ```
//! The per-turn timeout with a warning at half time is an arena time control, not a rules
//! deadline, so `deadline` stays `None`.
//!
//! **Dice Chess** (three dice, up to three micro-moves per turn; `arbiter-chess`):
//! ```text
//! State   { board, castling, ep_squares, halfmove, to_move, dice, roll counter }
//! start   standard position; roll 0, White's first three dice, from ctx.roll(0, 6, 3)
//! ToAct   Turn(side to move) for the whole turn; each micro-move is one action
//! Action  a UCI micro-move, checked against the turn tree (the maximum-dice rule and the
//!         king-capture exemption)
//! apply   uses a die; when the turn is complete (or the king fell) the side changes and the
//!         next roll is drawn with the next nonce; a roll with no usable die passes the turn
//!         at once, reported as an event
//! outcome king captured; the host's draw policy is a config option
//! ```
//! Because the dice come from [`Ctx::roll`], each roll is a public event that anyone can
//! recompute alone from the revealed seed, the players' client seeds and its nonce
//! (`arbiter-fair`), without replaying anything else.
//!
//! **Fate Tokens** (4–8 players, hidden roles, simultaneous phases) — a sketch:
//! ```text
//! State   { roles (secret), bags (secret), private piles, public tokens, phase, phase_seq,
//!           phase_deadline, lock_until, submissions: Vec<Option<Choice>>, chat, round }
//! start   deal roles and fill bags from ctx.rng()
//! ToAct   Simultaneous { phase: phase_seq, pending } in draw, night, vote…; Nobody while a
//!         reveal animation holds the lock (lockMs), which is public and the same for all
//! Action  every action quotes phase_seq (stale input is refused with StalePhase); chat and
//!         claims are accepted from any seat without changing the deadline (keepDeadline)
//! apply   records a submission; the last missing submission resolves the phase at once
//! deadline / on_deadline
//!         the phase deadline; on_deadline applies each pending seat's default choice and
//!         resolves the whole phase in one step (the system timeout)
//! view    per seat: own role once awakened, own private pile, own night result; others'
//!         roles, piles and night actions absent — the night form has the same shape for every
//!         role; ghost chat only for ghosts and the awakened 대흉
//! Emitted private results (peek, helper whisper) go to one seat; everything else is public,
//!         and nothing public depends on a secret, including the length of a reveal lock
//! outcome team result: every seat gets its team in SeatOutcome::team and wins or loses with it
//! ```

pub mod erased;
pub mod game;
pub mod outcome;
pub mod random;
pub mod seat;

pub use erased::{DynGame, DynState, Erased, GameError};
pub use game::{ConfigError, Ctx, Dice, Emitted, Events, Game, RuleError, Started, ToAct};
pub use outcome::{Outcome, ScoreOrder, SeatOutcome, SeatResult};
pub use random::Random;
pub use seat::{MAX_SEATS, Seat, SeatSet, Viewer, Visibility};
