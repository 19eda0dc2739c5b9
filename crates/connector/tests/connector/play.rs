//! Every kind of engine plays whole matches through the connector.

use arbiter_connector::{EngineSpec, Exit};
use serde_json::json;

use crate::harness::*;

/// Plays one match of `variant` between a connector driving `engine` and `house`, and checks
/// that it ends normally with moves on both legs.
async fn plays_a_match(engine: EngineSpec, variant: &str, house: &str) -> serde_json::Value {
    let server = Server::start().await;
    let token = server.mint("engine").await;
    let connector = Connector::start(Connector::options(&server, &token, engine));
    let id = server
        .challenge(&token, house, json!({"variant": variant}))
        .await;
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert!(
        !matches!(
            end["result"]["reason"].as_str(),
            Some("timeout" | "double_timeout" | "no_first_move" | "disconnect")
        ),
        "the connector played every decision: {end}"
    );
    assert!(moves_played(&end) >= 2 * 8, "{end}");
    assert_eq!(connector.stop().await, Exit::Normal);
    end
}

#[tokio::test]
async fn the_practice_engine_plays_a_paired_match_and_says_it_is_practising() {
    let server = Server::start().await;
    let token = server.mint("practice").await;
    let connector = Connector::start(Connector::options(&server, &token, EngineSpec::Practice));
    let id = server.challenge(&token, "house-greedy", json!({})).await;
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(end["rated"], false, "practice is never rated");
    let environment = &server.me(&token).await["environment"];
    assert_eq!(environment["practice"], true, "{environment}");
    assert_eq!(environment["engine"], "practice");
    assert_eq!(environment["os"], std::env::consts::OS);
    assert_eq!(connector.stop().await, Exit::Normal);
}

#[tokio::test]
async fn the_python_example_engine_plays_every_variant() {
    let Some(python) = python() else { return };
    let command = format!("{python} {}", engine_file("../../examples/engine.py"));
    for variant in ["std", "anti", "grand", "octagon", "reversi"] {
        plays_a_match(
            EngineSpec::Json {
                command: command.clone(),
            },
            variant,
            "house-random",
        )
        .await;
    }
}

#[tokio::test]
async fn a_one_shot_engine_is_started_for_every_move() {
    let Some(python) = python() else { return };
    let command = format!(
        "{python} -c 'import json,sys; r=json.loads(sys.stdin.readline()); print(json.dumps({{\"move\": (r[\"legal_moves\"] or [-1])[0]}}))'"
    );
    plays_a_match(EngineSpec::Json { command }, "std", "house-random").await;
}

#[tokio::test]
async fn an_nboard_engine_plays_standard_othello_and_the_bot_offers_nothing_else() {
    let Some(python) = python() else { return };
    let command = format!("{python} {}", engine_file("tests/engines/nboard_engine.py"));
    let engine = EngineSpec::Nboard { command, depth: 6 };
    plays_a_match(engine.clone(), "std", "house-greedy").await;

    // The bot tells the server it plays std only, so a variant challenge is refused outright.
    let server = Server::start().await;
    let token = server.mint("nboard").await;
    let connector = Connector::start(Connector::options(&server, &token, engine));
    server.connected(&token).await;
    assert_eq!(
        server.me(&token).await["environment"]["variants"],
        json!(["std"])
    );
    let (status, body) = server
        .call(
            reqwest::Method::POST,
            "/challenges",
            &token,
            Some(json!({"opponent": "house-random", "variant": "grand"})),
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("unsupported_variant")),
        "{body}"
    );
    assert_eq!(connector.stop().await, Exit::Normal);
}

#[tokio::test]
async fn a_slow_starting_edax_is_ready_before_anything_is_accepted_and_kept_to_its_share() {
    let Some(_) = python() else { return };
    let server = Server::start().await;
    let token = server.mint("edax").await;
    // The test NBoard engine in its Edax mode ignores the clock, searches 2^depth ms and takes
    // a second to start while it has no opening book.
    let folder = server.dir.path().join("edax");
    std::fs::create_dir_all(folder.join("data")).expect("folders");
    std::fs::write(folder.join("data/eval.dat"), "weights").expect("write");
    std::fs::write(folder.join("startup"), "1").expect("write");
    let engine = EngineSpec::Edax {
        path: engine_file("tests/engines/nboard_engine.py").into(),
        eval: Some(folder.join("data/eval.dat")),
        depth: 0,
    };
    let mut options = Connector::options(&server, &token, engine);
    // A share of at most 360 ms a move: depth 8 (256 ms) fits, depth 9 (512 ms) never does.
    // The cap leaves room for a fresh engine process to start on a busy machine: a cap
    // shorter than the start-up would fail every retry.
    options.max_think = Some(std::time::Duration::from_millis(360));
    let connector = Connector::start(options);
    server.connected(&token).await;
    assert!(
        folder.join("data/book.dat").exists(),
        "the engine was started, and told to quit so that it saved its book, before the bot reported itself"
    );
    let id = server.challenge(&token, "house-greedy", json!({})).await;
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert!(moves_played(&end) >= 2 * 8, "{end}");
    let depths: Vec<u8> = std::fs::read_to_string(folder.join("depths"))
        .expect("searches logged")
        .lines()
        .map(|depth| depth.parse().expect("a depth"))
        .collect();
    assert!(depths.iter().all(|&depth| depth <= 8), "{depths:?}");
    assert!(
        depths.contains(&8),
        "the depth rose to what fits: {depths:?}"
    );
    assert_eq!(connector.stop().await, Exit::Normal);
}

#[tokio::test]
async fn two_connected_bots_play_each_other_and_challenges_are_accepted_automatically() {
    let Some(python) = python() else { return };
    let server = Server::start().await;
    let first = server.mint("first").await;
    let second = server.mint("second").await;
    let second_name = server.me(&second).await["name"]
        .as_str()
        .expect("name")
        .to_owned();
    let a = Connector::start(Connector::options(&server, &first, EngineSpec::Practice));
    let mut options = Connector::options(
        &server,
        &second,
        EngineSpec::Json {
            command: format!("{python} {}", engine_file("../../examples/engine.py")),
        },
    );
    options.no_stream = true;
    options.poll_every = std::time::Duration::from_millis(20);
    let b = Connector::start(options);
    let id = server.challenge(&first, &second_name, json!({})).await;
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert!(moves_played(&end) >= 16, "{end}");
    assert_eq!(a.stop().await, Exit::Normal);
    assert_eq!(b.stop().await, Exit::Normal);
}

/// One FlipSight-dialect call, written from FlipSight's documentation.
async fn flipsight(server: &Server, token: &str, body: serde_json::Value) -> serde_json::Value {
    let reply: serde_json::Value = arbiter_http_client::client()
        .post(format!("{}/flipsight/bot_match_api.php", server.url))
        .bearer_auth(token)
        .body(body.to_string())
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(reply["ok"], true, "{reply}");
    reply
}

#[tokio::test]
async fn the_connector_plays_a_bot_that_speaks_flipsights_dialect() {
    let server = Server::start().await;
    let token = server.mint("native").await;
    let native_id = server.me(&token).await["id"].clone();
    let fs = server.mint("flipsight").await;
    let connector = Connector::start(Connector::options(&server, &token, EngineSpec::Practice));
    server.connected(&token).await;
    let id = flipsight(
        &server,
        &fs,
        json!({"action": "agent_challenge", "target_id": native_id}),
    )
    .await["match_id"]
        .clone();
    // The FlipSight bot's loop, as its documentation describes: poll, and move wherever it is
    // this bot's colour's turn in an active leg.
    let play = async {
        loop {
            let polled = flipsight(&server, &fs, json!({"action": "agent_poll"})).await;
            let Some(game) = polled["matches"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["id"] == id))
                .cloned()
            else {
                return;
            };
            if !matches!(game["status"].as_str(), Some("pending" | "running")) {
                return;
            }
            let me = if game["bot_a"] == polled["bot"]["id"] {
                0
            } else {
                1
            };
            for (leg_no, leg) in game["state"]["legs"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                let my_colour = if leg["black_participant"] == me { 1 } else { 2 };
                if leg["status"] == "active" && leg["turn"] == my_colour {
                    let mv = leg["legal_moves"].get(0).cloned().unwrap_or(json!(-1));
                    let _ = arbiter_http_client::client()
                        .post(format!("{}/flipsight/bot_match_api.php", server.url))
                        .bearer_auth(&fs)
                        .body(json!({"action": "agent_move", "match_id": id, "leg": leg_no, "revision": leg["revision"], "move": mv}).to_string())
                        .send()
                        .await;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, play)
        .await
        .expect("the match ends");
    let end = server.ended(id.as_i64().expect("id")).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert!(moves_played(&end) >= 16, "{end}");
    assert_eq!(connector.stop().await, Exit::Normal);
}
