//! Matches played to their end through a real arena, exported and verified; then each kind
//! of tampering, found and named.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use arbiter_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use tempfile::TempDir;

use super::*;
use crate::{Arena, ArenaConfig, ChallengeRequest, Games, ManualClock, MatchExport, TableRequest};

const T0: i64 = 1_795_900_000_000;

struct Harness {
    arena: Arena,
    clock: Arc<ManualClock>,
    _dir: TempDir,
}

async fn harness() -> Harness {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("arbiter.sqlite"))
        .await
        .expect("store");
    let games = Games::new()
        .with(&arbiter_othello_plugin::FAMILY)
        .with(&arbiter_goofspiel::FAMILY);
    let clock = Arc::new(ManualClock::new(T0));
    let arena = Arena::start(
        ArenaConfig::default(),
        games,
        clock.clone(),
        Arc::new(store),
        None,
    )
    .await
    .expect("the arena starts");
    Harness {
        arena,
        clock,
        _dir: dir,
    }
}

impl Harness {
    async fn bot(&self, name: &str) -> Bot {
        self.arena
            .mint_anonymous(IpAddr::V4(Ipv4Addr::LOCALHOST), Some(name), None)
            .await
            .expect("a bot")
            .0
    }

    /// Plays every pending decision of `bots` with its first legal action, a second apart,
    /// until the match ends.
    async fn play_out(&self, bots: &[&Bot], id: i64) {
        assert!(
            self.play_turns(bots, id, 2_000).await,
            "match {id} did not end"
        );
    }

    /// Plays `rounds` rounds of every pending decision of `bots`, or until the match ends;
    /// says whether it ended.
    async fn play_turns(&self, bots: &[&Bot], id: i64, rounds: usize) -> bool {
        for _ in 0..rounds {
            let mut moved = false;
            for bot in bots {
                let page = self.arena.turns(bot, id, 0).await.expect("turns");
                if page.status.is_open() && page.status != MatchStatus::Running {
                    continue;
                }
                for turn in page.turns {
                    let request: Value = serde_json::from_str(&turn.request).expect("json");
                    let legal = request["legal_actions"]
                        .as_array()
                        .or_else(|| request["legal_moves"].as_array())
                        .and_then(|list| list.first().cloned())
                        // Othello's request lists no move when the only one is the pass.
                        .unwrap_or(json!(-1));
                    self.clock.advance(1_000);
                    let leg = u8::try_from(turn.leg).expect("leg");
                    if self
                        .arena
                        .submit(bot, id, leg, turn.revision, legal)
                        .await
                        .is_ok()
                    {
                        moved = true;
                    }
                }
            }
            let status = self.arena.snapshot(id, crate::Reader::SPECTATOR).await;
            if status.is_ok_and(|s| !s.status.is_open()) {
                return true;
            }
            assert!(moved, "nobody could move in match {id}");
        }
        false
    }

    async fn export(&self, id: i64) -> MatchExport {
        let export = self.arena.export(id).await.expect("export");
        // What the API serves and `arbiter verify` reads: the export as JSON.
        let text = serde_json::to_string(&export).expect("serializes");
        serde_json::from_str(&text).expect("reads back")
    }

    fn verify(&self, export: &MatchExport) -> Verdict {
        verify(self.arena.games(), export)
    }
}

fn challenge(opponent: &Bot, game: &str, client_seed: Option<&str>) -> ChallengeRequest {
    ChallengeRequest {
        opponent: opponent.name.clone(),
        game: game.to_owned(),
        variant: None,
        format: Format::Paired,
        time_control: TimeControl::default(),
        rated: false,
        auto: false,
        opening: Default::default(),
        client_seed: client_seed.map(str::to_owned),
    }
}

/// A paired Othello match between two bots that both gave client seeds.
async fn othello_match(h: &Harness) -> MatchExport {
    let (a, b) = (h.bot("alice").await, h.bot("bob").await);
    let id = h
        .arena
        .challenge(&a, challenge(&b, "othello", Some("alice-entropy")))
        .await
        .expect("challenge")
        .id;
    h.arena
        .accept(&b, id, Some("bob.42"))
        .await
        .expect("accept");
    h.play_out(&[&a, &b], id).await;
    h.export(id).await
}

fn assert_verified(verdict: &Verdict) {
    assert!(verdict.is_verified(), "{verdict:#?}");
}

/// The failure's item and reason, for a verdict that must be a failure.
fn failure(verdict: Verdict) -> (String, String) {
    match verdict {
        Verdict::Failed { item, reason, .. } => (item, reason),
        other => panic!("expected a failure, got {other:#?}"),
    }
}

/// The export with event `seq`'s data changed by `change`.
fn edited(export: &MatchExport, seq: i64, change: impl FnOnce(&mut Value)) -> MatchExport {
    let mut export = export.clone();
    let event = export
        .events
        .iter_mut()
        .find(|e| e.seq == seq)
        .expect("the event");
    let mut data: Value = serde_json::from_str(event.data.get()).expect("json");
    change(&mut data);
    event.data = serde_json::value::to_raw_value(&data).expect("raw");
    export
}

/// The seq of the `n`-th public move event.
fn nth_move(export: &MatchExport, n: usize) -> i64 {
    export
        .events
        .iter()
        .filter(|e| e.kind == "move")
        .nth(n)
        .expect("enough moves")
        .seq
}

#[tokio::test]
async fn finished_matches_are_verified_and_their_client_seeds_recorded() {
    let h = harness().await;
    let export = othello_match(&h).await;
    assert_eq!(
        export.details["client_seeds"],
        json!(["alice-entropy", "bob.42"])
    );
    let started = export
        .events
        .iter()
        .find(|e| e.kind == "started")
        .expect("started");
    let started: Value = serde_json::from_str(started.data.get()).expect("json");
    assert_eq!(started["client_seed"], "alice-entropy:bob.42");
    let verdict = h.verify(&export);
    assert_verified(&verdict);
    assert!(verdict.summary().starts_with("verified"), "{verdict:?}");

    // The same match with other client seeds draws another opening: the seeds are used.
    let replaced = edited(&export, 1, |data| {
        data["client_seed"] = json!("someone-else")
    });
    let (item, _) = failure(h.verify(&replaced));
    assert!(item.contains("(started)"), "{item}");
}

#[tokio::test]
async fn a_match_of_three_with_secret_bids_and_a_timeout_is_verified() {
    let h = harness().await;
    let bots = [h.bot("one").await, h.bot("two").await, h.bot("three").await];
    let request = TableRequest {
        game: "goofspiel".to_owned(),
        variant: Some("short".to_owned()),
        seats: 3,
        format: Format::Single,
        time_control: TimeControl::default(),
        client_seed: None,
        language: Default::default(),
    };
    let id = h
        .arena
        .open_table(&bots[0], request)
        .await
        .expect("table")
        .id;
    for bot in &bots[1..] {
        h.arena
            .join_table(bot, id, Some("seat-seed"))
            .await
            .expect("a seat");
    }
    // Two bid; the third lets the phase's deadline pass, and the rules bid for it.
    for bot in &bots[..2] {
        let page = h.arena.turns(bot, id, 0).await.expect("turns");
        let turn = &page.turns[0];
        let request: Value = serde_json::from_str(&turn.request).expect("json");
        let action = request["legal_actions"][0].clone();
        h.arena
            .submit(bot, id, 0, turn.revision, action)
            .await
            .expect("a bid");
    }
    h.clock.advance(60_000);
    h.arena
        .snapshot(id, crate::Reader::SPECTATOR)
        .await
        .expect("the deadline passes");
    let refs: Vec<&Bot> = bots.iter().collect();
    h.play_out(&refs, id).await;
    let export = h.export(id).await;
    assert!(export.events.iter().any(|e| e.kind == "acted"));
    assert_verified(&h.verify(&export));
}

#[tokio::test]
async fn a_resignation_and_a_flag_fall_are_verified() {
    let h = harness().await;
    let (a, b) = (h.bot("quitter").await, h.bot("stayer").await);
    let id = h
        .arena
        .challenge(&a, challenge(&b, "othello", None))
        .await
        .expect("challenge")
        .id;
    h.arena.accept(&b, id, None).await.expect("accept");
    h.arena.resign(&a, id).await.expect("resign");
    assert_verified(&h.verify(&h.export(id).await));

    let (c, d) = (h.bot("slow").await, h.bot("fast").await);
    let id = h
        .arena
        .challenge(&c, challenge(&d, "othello", None))
        .await
        .expect("challenge")
        .id;
    h.arena.accept(&d, id, None).await.expect("accept");
    // Both move once in each leg, so that nobody is aborted for a missing first move.
    h.play_turns(&[&c, &d], id, 2).await;
    h.clock.advance(61_000);
    let snapshot = h
        .arena
        .snapshot(id, crate::Reader::SPECTATOR)
        .await
        .expect("snapshot");
    assert!(!snapshot.status.is_open(), "{snapshot:?}");
    let export = h.export(id).await;
    assert_verified(&h.verify(&export));
    // A flag that had not fallen yet is found out.
    let early = export
        .events
        .iter()
        .find(|e| e.kind == "leg_finished")
        .expect("a flag fall")
        .seq;
    let mut moved = export.clone();
    for event in &mut moved.events {
        if event.seq >= early {
            event.at_ms -= 30_000;
        }
    }
    let (item, reason) = failure(h.verify(&moved));
    assert!(item.contains("(leg_finished)"), "{item}");
    assert!(reason.contains("still had"), "{reason}");
}

#[tokio::test]
async fn each_kind_of_tampering_is_found_and_named() {
    let h = harness().await;
    let export = othello_match(&h).await;

    // A wrong seed.
    let mut wrong_seed = export.clone();
    wrong_seed.seed = Some("0".repeat(64));
    let (item, reason) = failure(h.verify(&wrong_seed));
    assert_eq!(item, "seed");
    assert!(reason.contains("commitment"), "{reason}");

    // A changed move: another square than the one recorded.
    let third = nth_move(&export, 2);
    let changed = edited(&export, third, |data| {
        data["action"] = json!(if data["action"] == json!(19) { 26 } else { 19 })
    });
    let (item, _) = failure(h.verify(&changed));
    assert!(item.starts_with(&format!("event {third} (move)")), "{item}");

    // A changed clock reading, named by its field.
    let clocked = edited(&export, third, |data| data["clocks_ms"][0] = json!(1));
    let (item, reason) = failure(h.verify(&clocked));
    assert_eq!(item, format!("event {third} (move).clocks_ms[0]"));
    assert!(reason.starts_with("recorded 1, but recomputed"), "{reason}");

    // Two events swapped.
    let mut reordered = export.clone();
    reordered.events.swap(3, 4);
    let (item, reason) = failure(h.verify(&reordered));
    assert_eq!(item, "event 4");
    assert!(reason.contains("out of order"), "{reason}");

    // A result changed in the match's favour of the other side.
    let last = export
        .events
        .iter()
        .rfind(|e| e.kind == "finished")
        .expect("finished")
        .seq;
    let doctored = edited(&export, last, |data| {
        data["totals"][0] = json!(data["totals"][0].as_i64().unwrap_or(0) + 2)
    });
    let (item, _) = failure(h.verify(&doctored));
    assert!(
        item.starts_with(&format!("event {last} (finished)")),
        "{item}"
    );

    // An open match cannot be verified yet.
    let mut open = export.clone();
    open.seed = None;
    assert!(matches!(h.verify(&open), Verdict::Unverifiable(_)));
}

#[tokio::test]
async fn a_match_resumed_after_an_outage_is_verified_with_its_downtime() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("arbiter.sqlite");
    let clock = Arc::new(ManualClock::new(T0));
    let start = |clock: Arc<ManualClock>| {
        let path = path.clone();
        async move {
            let store = SqliteStore::open(&path).await.expect("store");
            let games = Games::new().with(&arbiter_othello_plugin::FAMILY);
            Arena::start(ArenaConfig::default(), games, clock, Arc::new(store), None)
                .await
                .expect("the arena starts")
        }
    };
    let arena = start(clock.clone()).await;
    let (a, _) = arena
        .mint_anonymous(IpAddr::V4(Ipv4Addr::LOCALHOST), Some("self"), None)
        .await
        .expect("bot");
    let id = arena
        .challenge(&a, challenge(&a, "othello", None))
        .await
        .expect("self-play")
        .id;
    arena.shutdown().await;
    clock.advance(20_000);
    let arena = start(clock.clone()).await;
    let h = Harness {
        arena,
        clock,
        _dir: dir,
    };
    h.play_out(&[&a], id).await;
    let export = h.export(id).await;
    assert!(
        export.events.iter().any(|e| e.kind == "resumed"),
        "the outage is in the log"
    );
    assert_verified(&h.verify(&export));
}
