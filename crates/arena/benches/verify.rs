//! How long `verify` takes on a Dice Chess match of 200 micro-moves: the seed checked, every
//! roll drawn again, every micro-move judged against the turn tree and applied, and every
//! event compared with the log. The target is 10 ms.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use arbiter_arena::verify::verify;
use arbiter_arena::{
    Arena, ArenaConfig, ChallengeRequest, Format, Games, ManualClock, MatchExport, TimeControl,
};
use arbiter_store_sqlite::SqliteStore;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;

/// Micro-moves the match is played for before its first side resigns.
const PLIES: usize = 200;

/// A self-played Dice Chess match of `PLIES` micro-moves, chosen by a fixed generator among
/// those that do not take the king, then resigned; and the games it was played under.
fn dice_chess_export() -> (Games, MatchExport) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(&dir.path().join("bench.sqlite"))
            .await
            .expect("store");
        let clock = Arc::new(ManualClock::new(1_795_900_000_000));
        let arena = Arena::start(
            ArenaConfig::default(),
            Games::new().with(&arbiter_chess::FAMILY),
            clock.clone(),
            Arc::new(store),
            None,
        )
        .await
        .expect("arena");
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let bot = arena
            .mint_anonymous(ip, Some("solo"), None)
            .await
            .expect("bot")
            .0;
        let request = ChallengeRequest {
            opponent: bot.name.clone(),
            game: "chess".to_owned(),
            variant: Some("dice".to_owned()),
            format: Format::Single,
            time_control: TimeControl {
                initial_ms: 86_400_000,
                increment_ms: 0,
                per_turn_ms: None,
            },
            rated: false,
            auto: false,
            opening: Default::default(),
            client_seed: Some("bench".to_owned()),
        };
        let id = arena.challenge(&bot, request).await.expect("self-play").id;
        let mut state: u64 = 7;
        let mut plies = 0;
        while plies < PLIES {
            let page = arena.turns(&bot, id, 0).await.expect("turns");
            let Some(turn) = page.turns.first() else {
                break;
            };
            let request: Value = serde_json::from_str(&turn.request).expect("json");
            let fen = request["view"]["fen"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let kings = king_squares(&fen);
            let moves: Vec<&Value> = request["legal_actions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| {
                    m.as_str()
                        .is_some_and(|m| !kings.iter().any(|k| m[2..4] == *k))
                })
                .collect();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let Some(&action) =
                moves.get(usize::try_from(state >> 33).unwrap_or(0) % moves.len().max(1))
            else {
                break;
            };
            clock.advance(100);
            arena
                .submit(&bot, id, 0, turn.revision, action.clone())
                .await
                .expect("a legal micro-move");
            plies += 1;
        }
        assert_eq!(plies, PLIES, "the match lasted {PLIES} micro-moves");
        arena.resign(&bot, id).await.expect("resign");
        let export = arena.export(id).await.expect("export");
        (Games::new().with(&arbiter_chess::FAMILY), export)
    })
}

/// The squares of the kings in a FEN's placement.
fn king_squares(fen: &str) -> Vec<String> {
    let mut squares = Vec::new();
    for (rank, row) in fen
        .split(' ')
        .next()
        .unwrap_or_default()
        .split('/')
        .enumerate()
    {
        let mut file = 0u8;
        for c in row.chars() {
            match c.to_digit(10) {
                Some(n) => file += u8::try_from(n).unwrap_or(0),
                None => {
                    if c.eq_ignore_ascii_case(&'k') {
                        squares.push(format!("{}{}", char::from(b'a' + file), 8 - rank));
                    }
                    file += 1;
                }
            }
        }
    }
    squares
}

fn bench(c: &mut Criterion) {
    let (games, export) = dice_chess_export();
    assert!(verify(&games, &export).is_verified());
    c.bench_function("verify/dice chess, 200 micro-moves", |b| {
        b.iter(|| verify(&games, &export))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
