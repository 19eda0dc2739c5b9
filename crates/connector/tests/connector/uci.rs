//! Real UCI engines play chess through the connector against the house bots: Stockfish
//! (`/usr/games/stockfish`, or `$ARBITER_STOCKFISH`) in standard chess and in Dice Chess, and
//! Fairy-Stockfish (`/usr/games/fairy-stockfish`) in standard chess. Where an engine is not
//! installed its test says so and passes. The engines think for a few milliseconds a move (the
//! per-move cap becomes `movetime`), so that a game takes seconds.

use std::collections::HashMap;
use std::time::Duration;

use arbiter_connector::{EngineSpec, Exit, MoveTiming};
use serde_json::{Value, json};

use crate::harness::*;

/// The per-move cap: `movetime` 40 ms, `stop` at 50 ms.
const THINK: Duration = Duration::from_millis(60);

/// The engine at `$variable` if set, else at `default`; `None` (with a notice) when it is not
/// there, except in CI.
fn installed(variable: Option<&str>, default: &str) -> Option<String> {
    let path = variable
        .and_then(|name| std::env::var(name).ok())
        .filter(|path| !path.is_empty())
        .unwrap_or_else(|| default.to_owned());
    let found = std::path::Path::new(&path).is_file();
    if !found {
        // CI installs the engines (.ci/run): there, a missing one is a failure, never a skip.
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "{path} is not installed, and CI must play it"
        );
        eprintln!("{path} is not installed: skipping a test that plays it");
    }
    found.then_some(path)
}

fn stockfish() -> Option<String> {
    installed(Some("ARBITER_STOCKFISH"), "/usr/games/stockfish")
}

/// Plays one match of chess's `variant` between a connector driving the UCI engine `command`
/// with `options` and `house`, and checks that it finished with a result, that every move the
/// connector sent was taken (each decision's revision was posted once: a refused move would
/// have been followed by another for the same revision), and that the engine reported its
/// name.
async fn plays_chess(command: &str, options: &[&str], variant: &str, house: &str) -> Value {
    let server = Server::start().await;
    let token = server.mint("uci").await;
    let engine = EngineSpec::Uci {
        command: command.to_owned(),
        options: options
            .iter()
            .map(|option| option.parse().expect("an option"))
            .collect(),
    };
    let mut options = Connector::options(&server, &token, engine);
    options.max_think = Some(THINK);
    let (sender, mut timings) = tokio::sync::mpsc::unbounded_channel::<MoveTiming>();
    options.timings = Some(sender);
    let connector = Connector::start(options);
    server.connected(&token).await;
    let id = server
        .challenge(&token, house, json!({"game": "chess", "variant": variant}))
        .await;
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    let reason = end["result"]["reason"].as_str().unwrap_or_default();
    assert!(
        !reason.is_empty()
            && !matches!(
                reason,
                "timeout" | "double_timeout" | "no_first_move" | "disconnect"
            ),
        "the connector played every decision: {end}"
    );
    assert_eq!(connector.stop().await, Exit::Normal);
    let mut posted: HashMap<(u8, u64), usize> = HashMap::new();
    while let Ok(timing) = timings.try_recv() {
        assert_eq!(timing.match_id, id);
        *posted.entry((timing.leg, timing.revision)).or_default() += 1;
    }
    assert!(posted.len() >= 2, "the engine's side moved: {posted:?}");
    let again: Vec<_> = posted.iter().filter(|(_, count)| **count > 1).collect();
    assert!(
        again.is_empty(),
        "moves posted again after a refusal: {again:?}"
    );
    let environment = &server.me(&token).await["environment"];
    assert!(
        environment["engine"]
            .as_str()
            .is_some_and(|name| !name.is_empty()),
        "the engine's id name is reported: {environment}"
    );
    assert!(
        environment["variants"]
            .as_array()
            .is_some_and(|keys| keys.contains(&json!("chess"))),
        "{environment}"
    );
    end
}

#[tokio::test]
async fn stockfish_plays_standard_chess_against_a_house_bot() {
    let Some(stockfish) = stockfish() else { return };
    let end = plays_chess(
        &stockfish,
        &["Threads=1", "Hash=16"],
        "standard",
        "house-greedy",
    )
    .await;
    assert_eq!(end["legs"][0]["view"]["variant"], "standard", "{end}");
}

#[tokio::test]
async fn stockfish_plays_dice_chess_micro_move_by_micro_move() {
    let Some(stockfish) = stockfish() else { return };
    let end = plays_chess(&stockfish, &["Threads=1"], "dice", "house-greedy").await;
    let leg = &end["legs"][0]["view"];
    assert_eq!(leg["variant"], "dice", "{end}");
    assert!(
        leg["moves"]
            .as_array()
            .is_some_and(|moves| moves.len() >= 4),
        "{end}"
    );
}

#[tokio::test]
async fn fairy_stockfish_plays_standard_chess_against_a_house_bot() {
    let Some(fairy) = installed(None, "/usr/games/fairy-stockfish") else {
        return;
    };
    plays_chess(&fairy, &["Threads=1"], "standard", "house-greedy").await;
}
