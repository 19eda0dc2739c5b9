//! The identity endpoints (§1, §1.5): registration with an `api_key` shown once, `me`,
//! rotation, public profiles, the leaderboard by wins, guests never ranked, and the key as
//! the native API's bearer.

use serde_json::{Value, json};

use super::*;

#[tokio::test]
async fn an_agent_is_registered_with_a_key_shown_once() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let agent = client
        .register(
            "alice-agent",
            json!({"display_name": "Alice", "bio": "plays the centre"}),
        )
        .await;
    assert!(
        agent.key.starts_with("ck_live_") && agent.key.len() == "ck_live_".len() + 43,
        "ck_live_ and 43 characters: {}",
        agent.key
    );
    assert!(is_token(&agent.key, "ck_live_", 43), "{}", agent.key);

    let me = client.me(&agent.key).await;
    assert!(
        !me.text.contains(&agent.key),
        "the key is never shown again: {}",
        me.text
    );
    let me = expect(me, 200);
    assert_eq!(me["name"], json!(agent.name), "{me}");

    let profile = client.agent("alice-agent").await;
    assert!(!profile.text.contains(&agent.key), "{}", profile.text);
    assert!(!profile.text.contains("api_key"), "{}", profile.text);
    let profile = expect(profile, 200);
    assert_eq!(profile["name"], "alice-agent", "{profile}");
    assert_eq!(profile["bio"], "plays the centre", "{profile}");
    assert_eq!(wins_of(&profile), 0, "{profile}");

    // A second agent gets a key of its own; the name is taken.
    let other = client.register("bob-agent", json!({})).await;
    assert_ne!(other.key, agent.key);
    let taken = client
        .post("/api/agents", Cred::None, &json!({"name": "alice-agent"}))
        .await;
    assert_eq!(taken.status.as_u16() / 100, 4, "{}", taken.text);
    check_error_shape(&taken.body);
    let missing = client.agent("nobody-here").await;
    assert_eq!(missing.status, 404, "{}", missing.text);
    check_error_shape(&missing.body);
    let anonymous = client.get("/api/agents/me", Cred::None).await;
    expect_error(anonymous, 401, "invalid_token");
}

#[tokio::test]
async fn a_rotated_key_replaces_the_old_one_at_once_here_and_in_the_native_api() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let agent = client.register("rotor", json!({})).await;
    let native_me = |key: String| {
        let http = app.client.clone();
        let url = format!("{}/bots/me", app.base);
        async move {
            let response = http
                .get(url)
                .bearer_auth(key)
                .send()
                .await
                .expect("request");
            let status = response.status().as_u16();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    let (status, bot) = native_me(agent.key.clone()).await;
    assert_eq!((status, &bot["name"]), (200, &json!("rotor")), "{bot}");

    let rotated = expect(client.rotate(&agent.key).await, 200);
    let new_key = rotated["api_key"]
        .as_str()
        .expect("the new api_key")
        .to_owned();
    assert!(
        is_token(&new_key, "ck_live_", 43) && new_key.len() == 51,
        "{new_key}"
    );
    assert_ne!(new_key, agent.key);

    expect_error(client.me(&agent.key).await, 401, "invalid_token");
    expect_error(
        client
            .create(Cred::Bearer(&agent.key), &json!({"game": "gomoku"}))
            .await,
        401,
        "invalid_token",
    );
    assert_eq!(
        native_me(agent.key.clone()).await.0,
        401,
        "the old key is dead natively too"
    );
    assert_eq!(expect(client.me(&new_key).await, 200)["name"], "rotor");
    assert_eq!(native_me(new_key.clone()).await.0, 200);
    client.create_as(&new_key, Value::Null).await;
}

#[tokio::test]
async fn an_agent_plays_under_its_name_and_a_guest_as_a_guest() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let agent = client.register("ace", json!({})).await;
    let black = client.create_as(&agent.key, Value::Null).await;
    assert_eq!(black.seat, 0);
    let white = client.join_guest(&black.id, "bob").await;
    let snapshot = client.snapshot(&black.id).await;
    let players = snapshot["players"].as_array().expect("players");
    assert_eq!(players[0]["name"], "ace", "{snapshot}");
    assert_eq!(players[0]["is_guest"], false, "{snapshot}");
    assert!(
        players[0]["agent_id"].is_string() || players[0]["agent_id"].is_number(),
        "an agent's player is bound to it: {snapshot}"
    );
    assert_eq!(players[1]["name"], "bob");
    assert_eq!(players[1]["is_guest"], true, "{snapshot}");
    assert!(
        players[1].get("agent_id").is_some_and(Value::is_null),
        "a guest's agent_id is null: {snapshot}"
    );

    // The agent's key is a credential for its actions, as its play token is.
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    let played = expect(
        client
            .action_as(&black.id, Cred::Bearer(&agent.key), &stone)
            .await,
        200,
    );
    assert_eq!(played["accepted"], true, "{played}");
    client.place(&black.id, &white.token, 0, 0).await;
    client.place(&black.id, &black.token, 8, 7).await;
    assert_eq!(client.snapshot(&black.id).await["render"]["move_count"], 3);
}

#[tokio::test]
async fn the_leaderboard_ranks_agents_by_wins_and_never_guests() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let ace = client.register("ace", json!({})).await;
    let bee = client.register("bee", json!({})).await;
    let cub = client.register("cub", json!({})).await;
    // Black wins each game: (winner, loser), a guest named ghost the last winner.
    for (winner, loser) in [
        (Some(&ace), &bee),
        (Some(&ace), &cub),
        (Some(&bee), &cub),
        (None, &cub),
    ] {
        let black = match winner {
            Some(agent) => client.create_as(&agent.key, Value::Null).await,
            None => client.create_guest("ghost", Value::Null).await,
        };
        let white = client.join_as(&black.id, &loser.key).await;
        let table = Table {
            id: black.id.clone(),
            black,
            white,
        };
        let end = client.five_in_row(&table).await;
        assert_eq!(end["status"], "finished", "{end}");
    }

    let ranked = client.leaderboard(None).await;
    let names: Vec<&str> = ranked
        .iter()
        .filter_map(|entry| entry["name"].as_str())
        .collect();
    assert!(
        !names.contains(&"ghost"),
        "a guest is never ranked: {names:?}"
    );
    let ours: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| ["ace", "bee", "cub"].contains(name))
        .collect();
    assert_eq!(ours, ["ace", "bee", "cub"], "by wins: {ranked:?}");
    let wins: Vec<i64> = ranked.iter().map(wins_of).collect();
    assert!(
        wins.windows(2).all(|pair| pair[0] >= pair[1]),
        "by wins: {wins:?}"
    );

    let top = client.leaderboard(Some(2)).await;
    let top: Vec<(Value, i64)> = top
        .iter()
        .map(|entry| (entry["name"].clone(), wins_of(entry)))
        .collect();
    assert_eq!(top, [(json!("ace"), 2), (json!("bee"), 1)]);

    for (name, wins) in [("ace", 2), ("bee", 1), ("cub", 0)] {
        let profile = expect(client.agent(name).await, 200);
        assert_eq!(wins_of(&profile), wins, "{profile}");
    }
}
