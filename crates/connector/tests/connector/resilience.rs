//! The connector keeps playing through failing engines and a restarting server, and stops
//! when asked to.

use std::time::Duration;

use arbiter_connector::{ConnectorError, EngineSpec, Exit};
use serde_json::json;

use crate::harness::*;

#[tokio::test]
async fn a_misbehaving_engine_is_restarted_until_it_plays() {
    let Some(python) = python() else { return };
    let server = Server::start().await;
    let token = server.mint("flaky").await;
    let count = server.dir.path().join("decisions");
    let command = format!(
        "{python} {} {}",
        engine_file("tests/engines/misbehaving_engine.py"),
        count.display()
    );
    let mut options = Connector::options(&server, &token, EngineSpec::Json { command });
    options.max_think = Some(Duration::from_millis(500));
    let connector = Connector::start(options);
    let id = server
        .challenge(&token, "house-random", json!({"format": "single"}))
        .await;
    let end = server.ended(id).await;
    assert_eq!(end["status"], "finished", "{end}");
    let decisions: usize = std::fs::read_to_string(&count)
        .expect("count")
        .trim()
        .parse()
        .expect("a number");
    assert!(
        decisions > 5,
        "it went through all five failures and then played: {decisions}"
    );
    assert_eq!(connector.stop().await, Exit::Normal);
}

#[tokio::test]
async fn once_match_plays_that_match_alone_and_exits() {
    let server = Server::start().await;
    let token = server.mint("once").await;
    let name = server.me(&token).await["name"]
        .as_str()
        .expect("name")
        .to_owned();
    let other = server.mint("other").await;
    let unwanted = server.challenge(&other, &name, json!({})).await;
    let wanted = server
        .challenge(&other, &name, json!({"format": "single"}))
        .await;
    let mut options = Connector::options(&server, &token, EngineSpec::Practice);
    options.once_match = Some(wanted);
    let connector = Connector::start(options);
    let opponent = server.play_until_end(wanted, &other, None).await;
    assert!(opponent > 0);
    assert_eq!(
        connector.exit().await,
        Exit::Normal,
        "it exits once the match ends"
    );
    assert_eq!(server.snapshot(wanted).await["status"], "finished");
    assert_eq!(
        server.snapshot(unwanted).await["status"],
        "pending",
        "other challenges are left alone"
    );

    let mut options = Connector::options(&server, &token, EngineSpec::Practice);
    options.once_match = Some(wanted);
    assert_eq!(
        Connector::start(options).exit().await,
        Exit::Normal,
        "an ended match ends it at once"
    );
    let someone_elses = server.challenge(&other, "house-random", json!({})).await;
    let mut options = Connector::options(&server, &token, EngineSpec::Practice);
    options.once_match = Some(someone_elses);
    let watched = arbiter_connector::run(options, std::future::pending()).await;
    assert!(
        matches!(watched, Err(ConnectorError::NoSuchMatch(_))),
        "another bot's match is not this bot's: {watched:?}"
    );
    let mut options = Connector::options(&server, &token, EngineSpec::Practice);
    options.once_match = Some(999_999);
    let missing = arbiter_connector::run(options, std::future::pending()).await;
    assert!(
        matches!(missing, Err(ConnectorError::NoSuchMatch(999_999))),
        "{missing:?}"
    );
}

#[tokio::test]
async fn once_match_ends_when_its_challenge_expires_unanswered() {
    for no_stream in [false, true] {
        let server = Server::start().await;
        let token = server.mint("patient").await;
        let other = server.mint("absent").await;
        let other_name = server.me(&other).await["name"]
            .as_str()
            .expect("name")
            .to_owned();
        let id = server.challenge(&token, &other_name, json!({})).await;
        let mut options = Connector::options(&server, &token, EngineSpec::Practice);
        options.once_match = Some(id);
        options.no_stream = no_stream;
        options.poll_every = Duration::from_millis(20);
        let connector = Connector::start(options);
        server.connected(&token).await;
        server.advance(121_000); // the challenge's two minutes pass without an answer
        assert_eq!(
            connector.exit().await,
            Exit::Normal,
            "no_stream {no_stream}"
        );
        assert_eq!(server.snapshot(id).await["status"], "expired");
    }
}

#[tokio::test]
async fn the_connector_resumes_its_match_after_a_server_restart() {
    for no_stream in [false, true] {
        let server = Server::start().await;
        let token = server.mint("steady").await;
        let name = server.me(&token).await["name"]
            .as_str()
            .expect("name")
            .to_owned();
        let other = server.mint("opponent").await;
        let mut options = Connector::options(&server, &token, EngineSpec::Practice);
        options.no_stream = no_stream;
        options.poll_every = Duration::from_millis(50);
        let connector = Connector::start(options);
        let id = server.challenge(&other, &name, json!({})).await;
        server.play_until_end(id, &other, Some(6)).await;
        let server = server.restart().await;
        server.play_until_end(id, &other, None).await;
        let end = server.ended(id).await;
        assert_eq!(end["status"], "finished", "no_stream {no_stream}: {end}");
        assert_ne!(end["result"]["reason"], "technical");
        assert_eq!(connector.stop().await, Exit::Normal);
    }
}

#[tokio::test]
async fn a_rejected_token_ends_the_connector_with_its_exit_code() {
    let server = Server::start().await;
    let exit = Connector::start(Connector::options(
        &server,
        "arba_not-a-real-token",
        EngineSpec::Practice,
    ))
    .exit()
    .await;
    assert_eq!((exit, exit.code()), (Exit::TokenRejected, 2));
}

#[tokio::test]
async fn a_replaced_token_stops_a_running_connector_with_exit_code_2() {
    for no_stream in [false, true] {
        let server = Server::start().await;
        let token = server.mint("rotated").await;
        let mut options = Connector::options(&server, &token, EngineSpec::Practice);
        options.no_stream = no_stream;
        options.poll_every = Duration::from_millis(20);
        let connector = Connector::start(options);
        server.connected(&token).await;
        let (status, body) = server
            .call(reqwest::Method::POST, "/bots/me/rotate-token", &token, None)
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            connector.exit().await,
            Exit::TokenRejected,
            "no_stream {no_stream}"
        );
    }
}

#[tokio::test]
async fn max_runtime_stops_the_connector_with_exit_code_3() {
    let server = Server::start().await;
    let token = server.mint("brief").await;
    let mut options = Connector::options(&server, &token, EngineSpec::Practice);
    options.max_runtime = Some(Duration::from_millis(300));
    let exit = Connector::start(options).exit().await;
    assert_eq!((exit, exit.code()), (Exit::MaxRuntime, 3));
}
