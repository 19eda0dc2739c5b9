//! Clocks charged per turn, with Dice Chess: a turn of several micro-moves is one clock period
//! with one increment, a turn passed back to the same side is a new period, and a flag falls
//! in the middle of a turn. The arena's clock is the test's, so nothing waits.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use arbiter_arena::{
    Arena, ArenaConfig, Bot, ChallengeRequest, Format, Games, ManualClock, MatchStatus, Reader,
    TimeControl,
};
use arbiter_store_sqlite::SqliteStore;
use serde_json::Value;

const T0: i64 = 1_795_900_000_000;
const INITIAL_MS: i64 = 60_000;
const INCREMENT_MS: i64 = 5_000;
/// How long each micro-move takes.
const STEP_MS: i64 = 1_000;

struct Table {
    arena: Arena,
    clock: Arc<ManualClock>,
    players: [Bot; 2],
    id: i64,
    _dir: tempfile::TempDir,
}

async fn table() -> Table {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("arbiter.sqlite"))
        .await
        .expect("store");
    let clock = Arc::new(ManualClock::new(T0));
    let arena = Arena::start(
        ArenaConfig::default(),
        Games::new().with(&arbiter_chess::FAMILY),
        clock.clone(),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts");
    let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let white = arena
        .mint_anonymous(ip, Some("white"), None)
        .await
        .expect("bot")
        .0;
    let black = arena
        .mint_anonymous(ip, Some("black"), None)
        .await
        .expect("bot")
        .0;
    let request = ChallengeRequest {
        opponent: black.name.clone(),
        game: "chess".to_owned(),
        variant: Some("dice".to_owned()),
        format: Format::Single,
        time_control: TimeControl {
            initial_ms: INITIAL_MS,
            increment_ms: INCREMENT_MS,
            per_turn_ms: None,
        },
        rated: false,
        auto: false,
        opening: Default::default(),
        client_seed: None,
    };
    let id = arena
        .challenge(&white, request)
        .await
        .expect("challenge")
        .id;
    arena.accept(&black, id, None).await.expect("accept");
    Table {
        arena,
        clock,
        players: [white, black],
        id,
        _dir: dir,
    }
}

/// Where the leg stands: the seat to move, the turn's roll number, the micro-moves it
/// requires, and both clocks.
struct Now {
    mover: usize,
    roll: u64,
    target: u64,
    clocks: Vec<i64>,
    running: bool,
}

impl Table {
    async fn now(&self) -> Now {
        let snapshot = self
            .arena
            .snapshot(self.id, Reader::SPECTATOR)
            .await
            .expect("snapshot");
        let leg = &snapshot.legs[0];
        let dice = &leg.view["dice"];
        Now {
            mover: usize::from(leg.view["to_move"] != "white"),
            roll: dice["nonce"].as_u64().unwrap_or(0),
            target: dice["target"].as_u64().unwrap_or(0),
            clocks: leg.clocks_ms.clone(),
            running: snapshot.status == MatchStatus::Running,
        }
    }

    /// Plays one micro-move for the side to move, `STEP_MS` after the last.
    async fn micro_move(&self, mover: usize) {
        let bot = &self.players[mover];
        let page = self.arena.turns(bot, self.id, 0).await.expect("turns");
        let turn = page.turns.first().expect("a decision");
        let request: Value = serde_json::from_str(&turn.request).expect("json");
        let action = request["legal_actions"][0].clone();
        self.clock.advance(STEP_MS);
        self.arena
            .submit(bot, self.id, 0, turn.revision, action)
            .await
            .expect("a legal micro-move");
    }
}

#[tokio::test]
async fn a_turn_of_micro_moves_is_one_clock_period_with_one_increment() {
    let table = table().await;
    let mut checked = [0u32; 4];
    for _ in 0..40 {
        let start = table.now().await;
        if !start.running {
            break;
        }
        let mut steps = 0;
        loop {
            table.micro_move(start.mover).await;
            steps += 1;
            let now = table.now().await;
            if !now.running || now.roll != start.roll {
                if now.running {
                    // The turn is over: charged once, for all its micro-moves, with one
                    // increment, whoever moves next.
                    assert_eq!(
                        now.clocks[start.mover],
                        start.clocks[start.mover] - steps * STEP_MS + INCREMENT_MS,
                        "a turn of {steps} micro-moves"
                    );
                    assert_eq!(steps, i64::try_from(start.target).unwrap_or(0));
                    checked[usize::try_from(steps).unwrap_or(0)] += 1;
                    if now.mover == start.mover {
                        checked[0] += 1; // The other side passed: a new period began.
                    }
                }
                break;
            }
            // Mid-turn the clock at the period's start is unchanged; it runs on.
            assert_eq!(now.clocks, start.clocks, "after {steps} micro-moves");
        }
    }
    assert!(
        checked[3] > 0,
        "a turn of three micro-moves was checked: {checked:?}"
    );
}

#[tokio::test]
async fn a_flag_falls_in_the_middle_of_a_turn() {
    let table = table().await;
    // Find a turn that needs more than one micro-move, and stop after its first.
    let mover = loop {
        let now = table.now().await;
        assert!(now.running, "the game ended before a long turn");
        table.micro_move(now.mover).await;
        if now.target >= 2 && table.now().await.roll == now.roll {
            break now.mover;
        }
        // Finish the turn.
        while table.now().await.roll == now.roll && table.now().await.running {
            table.micro_move(now.mover).await;
        }
    };
    let left = table.now().await.clocks[mover];
    table.clock.advance(left);
    let snapshot = table
        .arena
        .snapshot(table.id, Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert_eq!(snapshot.status, MatchStatus::Finished, "{snapshot:?}");
    let result = snapshot.result.expect("a result");
    assert_eq!(result.reason, "timeout");
    let ranking = result.ranking.expect("ranked");
    assert_eq!(
        ranking.winner,
        Some(1 - mover),
        "the side that flagged loses"
    );
    let verdict = table.arena.verify(table.id).await.expect("verified");
    assert!(verdict.is_verified(), "{verdict:?}");
}
