//! House players: the server's own opponents, for the families that have them.

use std::time::Instant;

use arbiter_rules::Random;
use serde_json::Value;

use crate::SeatView;

/// A house bot's playing strength. Every family with a house player plays every level, each
/// as well as it can within the level's thinking time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HouseLevel {
    /// A uniformly random legal action.
    Random,
    /// The action that gains the most now.
    Greedy,
    /// A shallow search.
    Easy,
    /// A search of up to 0.3 s an action.
    Medium,
    /// A search of up to 1.5 s an action.
    Hard,
    /// The strongest play the seat's clock allows: its time shared over the game as the
    /// family sees fit, up to a minute an action.
    Max,
}

impl HouseLevel {
    /// Every level, weakest first.
    pub const ALL: [HouseLevel; 6] = [
        HouseLevel::Random,
        HouseLevel::Greedy,
        HouseLevel::Easy,
        HouseLevel::Medium,
        HouseLevel::Hard,
        HouseLevel::Max,
    ];

    /// The level of the house bots that fill a table's free seats when its opener starts it
    /// without waiting: a strong one (a random player would spoil a table of people) that
    /// still answers within seconds, as people at a table expect.
    pub const TABLE: HouseLevel = HouseLevel::Hard;

    /// The level's name, also the suffix of its house bot's name.
    pub fn name(self) -> &'static str {
        match self {
            HouseLevel::Random => "random",
            HouseLevel::Greedy => "greedy",
            HouseLevel::Easy => "easy",
            HouseLevel::Medium => "medium",
            HouseLevel::Hard => "hard",
            HouseLevel::Max => "max",
        }
    }

    /// Parses a level name.
    pub fn parse(name: &str) -> Option<HouseLevel> {
        HouseLevel::ALL.into_iter().find(|l| l.name() == name)
    }

    /// How long a decision may take at this level when the family's share of the clock for
    /// it ([`HousePlayer::think_ms`]) is `share_ms`: the share within the level's thinking
    /// time, and at least a millisecond.
    pub fn budget_ms(self, share_ms: i64) -> i64 {
        self.max_think_ms().min(share_ms).max(1)
    }

    /// The longest an action may take at this level, in milliseconds.
    pub fn max_think_ms(self) -> i64 {
        match self {
            HouseLevel::Random | HouseLevel::Greedy => 0,
            HouseLevel::Easy => 50,
            HouseLevel::Medium => 300,
            HouseLevel::Hard => 1_500,
            HouseLevel::Max => 60_000,
        }
    }
}

/// A family's house player. It decides from the seat's view alone, as any bot would; the
/// arena runs it off the async runtime.
pub trait HousePlayer: Send + Sync {
    /// An action for the view's seat, which has a decision pending, chosen by `deadline`.
    fn choose(
        &self,
        view: &SeatView<'_>,
        level: HouseLevel,
        deadline: Instant,
        rng: &mut dyn Random,
    ) -> Value;

    /// How many decisions the seat probably still has in the game, to share its clock.
    fn decisions_left(&self, view: &SeatView<'_>) -> i64;

    /// How long the pending decision may take at `level`, in milliseconds, when the seat has
    /// `clock_ms` left for the rest of its game. The arena keeps the answer within the level's
    /// [`HouseLevel::max_think_ms`] and the clock. By default the clock is shared evenly among
    /// [`HousePlayer::decisions_left`]; a family whose decisions differ in worth (an opening
    /// book move, an endgame that can be solved exactly) shares it by phase instead.
    fn think_ms(&self, view: &SeatView<'_>, level: HouseLevel, clock_ms: i64) -> i64 {
        let _ = level;
        clock_ms / self.decisions_left(view).max(1)
    }

    /// Free actions (`arbiter_rules::Game::is_free`: a claim, a chat line) the house player
    /// takes along with its decision, decided from the same view, in the order they are to
    /// be played. The arena plays them before the decision, through the same path as a bot's
    /// free actions, so the rules check each one as they would a bot's; one they refuse is
    /// dropped and the others are still played. By default, none: most games have no free
    /// action a house player would take.
    fn free_actions(
        &self,
        _view: &SeatView<'_>,
        _level: HouseLevel,
        _rng: &mut dyn Random,
    ) -> Vec<Value> {
        Vec::new()
    }
}

/// How much a house player's search may still do: nodes and time, whichever runs out first.
///
/// A node budget makes a search's result independent of the machine's speed, which is what
/// tests rely on; play uses the deadline, with no node limit.
#[derive(Clone, Debug)]
pub struct Budget {
    deadline: Instant,
    max_nodes: u64,
    nodes: u64,
    stopped: bool,
}

impl Budget {
    /// Up to `max_nodes` nodes, until `deadline`.
    pub fn new(deadline: Instant, max_nodes: u64) -> Budget {
        Budget {
            deadline,
            max_nodes,
            nodes: 0,
            stopped: false,
        }
    }

    /// Counts a node; true once the budget is spent. The clock is read at the first node and
    /// every 64 after, a small fraction of a millisecond apart, because reading it at every
    /// node would cost about as much as a node.
    #[inline]
    pub fn tick(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.max_nodes || (self.nodes % 64 == 1 && Instant::now() >= self.deadline)
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Whether the budget is spent.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The nodes counted so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}
