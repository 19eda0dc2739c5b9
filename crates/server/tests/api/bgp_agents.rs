//! The Board Game Protocol's identity side as this server implements it: agents are the
//! arena's registered bots, their keys bot tokens spelled `ck_live_`, their records their
//! rated results in the games the dialect serves; the registration limit per address; the
//! provider allow-list; and the operator's notes, which only the administrator reads.

use arbiter_arena::ArenaConfig;
use arbiter_store::Store;
use arbiter_store_sqlite::SqliteStore;
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::helpers::*;

/// The harness's dialects, the Board Game Protocol trusting only the provider `trusted`.
fn with_trusted_provider(games: &arbiter_arena::Games) -> arbiter_server::Dialects {
    dialects(games)
        .with_bgp_providers(&["trusted".to_owned()])
        .expect("one word")
}

/// A request to the dialect's paths (off the server's root, not `/api/v1`), with a bearer
/// `key` and extra `headers`.
async fn bgp(
    app: &TestApp,
    method: Method,
    path: &str,
    key: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Reply {
    let bearer = key.map(|key| format!("Bearer {key}"));
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    if let Some(bearer) = &bearer {
        all.push(("authorization", bearer));
    }
    app.call_root(method, path, &all, body).await
}

/// Asserts the dialect's error shape, status and code.
#[track_caller]
fn refused(reply: Reply, status: u16, code: &str) -> Value {
    let body = reply.expect_error(status, code);
    assert!(body["detail"].is_object(), "{body}");
    body
}

/// Registers an agent through the protocol with `headers` and the fields `body`.
async fn sign_up(app: &TestApp, headers: &[(&str, &str)], body: Value) -> Reply {
    bgp(app, Method::POST, "/api/agents", None, headers, Some(body)).await
}

/// The public profile of the agent `name`, read with no credential.
async fn public_profile(app: &TestApp, name: &str) -> Reply {
    let path = format!("/api/agents/{name}");
    bgp(app, Method::GET, &path, None, &[], None).await
}

/// Registers an agent; returns the whole answer (its key in `api_key`).
async fn register(app: &TestApp, name: &str) -> Value {
    sign_up(app, &[], json!({"name": name})).await.expect(201)
}

fn key_of(agent: &Value) -> String {
    agent["api_key"].as_str().expect("api_key").to_owned()
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Every byte the server's database holds on disk (its file and its write-ahead log).
fn database_bytes(app: &TestApp) -> Vec<u8> {
    let mut bytes = Vec::new();
    for name in ["arbiter.db", "arbiter.db-wal"] {
        if let Ok(mut more) = std::fs::read(app.dir.path().join(name)) {
            bytes.append(&mut more);
        }
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[tokio::test]
async fn registration_shows_the_key_once_and_stores_only_its_hash() {
    let app = spawn_app().await;
    let reply = sign_up(&app, &[], json!({"name": "alice", "display_name": " Alice ", "bio": "plays the centre", "homepage": "ignored"}))
    .await;
    assert_eq!(
        reply.headers.get("cache-control").map(|v| v.as_bytes()),
        Some(&b"no-store"[..]),
        "a key is never cached on the way"
    );
    let agent = reply.expect(201);
    let key = key_of(&agent);
    let random = key.strip_prefix("ck_live_").expect("spelled ck_live_");
    assert_eq!(random.len(), 43, "{key}");
    assert!(
        random
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    assert_eq!(agent["api_key_prefix"], key[..12], "{agent}");
    assert_eq!(agent["name"], "alice");
    assert_eq!(agent["display_name"], "Alice", "trimmed: {agent}");
    assert_eq!(agent["bio"], "plays the centre");
    assert_eq!(
        (&agent["wins"], &agent["losses"], &agent["total_matches"]),
        (&json!(0), &json!(0), &json!(0))
    );

    // The store holds the key's SHA-256 and its first 12 characters, never the key.
    app.arena.shutdown().await;
    let store = SqliteStore::open(&app.dir.path().join("arbiter.db"))
        .await
        .expect("the same database");
    let bots = store.bots().await.expect("bots");
    let stored = bots.iter().find(|b| b.name == "alice").expect("stored");
    assert_eq!(stored.token_hash.as_deref(), Some(&*sha256_hex(&key)));
    assert_eq!(stored.token_prefix.as_deref(), Some(&key[..12]));
    assert!(
        !contains(&database_bytes(&app), random),
        "the key's secret part is nowhere in the database"
    );
    assert!(contains(&database_bytes(&app), &sha256_hex(&key)));
}

#[tokio::test]
async fn the_key_is_a_bot_token_of_the_native_api_and_the_agent_has_a_page() {
    let app = spawn_app().await;
    let key = key_of(&register(&app, "alice").await);
    let me = app.get("/bots/me", Some(&key)).await.expect(200);
    assert_eq!(
        (&me["name"], &me["kind"]),
        (&json!("alice"), &json!("registered")),
        "{me}"
    );
    assert_eq!(
        me["auto_match"], false,
        "an agent is never offered native auto-matched games: {me}"
    );
    let page = app
        .client
        .get(format!(
            "{}/bots/alice",
            app.base.trim_end_matches("/api/v1")
        ))
        .send()
        .await
        .expect("the bot's page");
    assert_eq!(page.status(), 200);
    assert!(page.text().await.expect("html").contains("alice"));
    // A native bot's token is a key of the dialect too: one identity, two spellings.
    let (_, native) = app.register("Native").await;
    let seen = bgp(
        &app,
        Method::GET,
        "/api/agents/me",
        Some(&native),
        &[],
        None,
    )
    .await
    .expect(200);
    assert_eq!(seen["name"], "Native");
}

#[tokio::test]
async fn rotation_kills_the_old_key_at_once_on_every_door() {
    let app = spawn_app().await;
    let old = key_of(&register(&app, "alice").await);
    let rotated = bgp(
        &app,
        Method::POST,
        "/api/agents/me/rotate-key",
        Some(&old),
        &[],
        None,
    )
    .await;
    assert_eq!(
        rotated.headers.get("cache-control").map(|v| v.as_bytes()),
        Some(&b"no-store"[..])
    );
    let rotated = rotated.expect(200);
    let new = rotated["api_key"].as_str().expect("a new key").to_owned();
    assert!(new.starts_with("ck_live_") && new.len() == 51, "{new}");
    assert_ne!(new, old);
    assert_eq!(rotated["api_key_prefix"], new[..12]);
    for path in ["/api/agents/me", "/api/agents/me/rotate-key"] {
        let method = if path.ends_with("key") {
            Method::POST
        } else {
            Method::GET
        };
        refused(
            bgp(&app, method, path, Some(&old), &[], None).await,
            401,
            "invalid_token",
        );
    }
    app.get("/bots/me", Some(&old))
        .await
        .expect_error(401, "invalid_token");
    app.get("/bots/me", Some(&new)).await.expect(200);
    let me = bgp(&app, Method::GET, "/api/agents/me", Some(&new), &[], None)
        .await
        .expect(200);
    assert_eq!(me["api_key_prefix"], new[..12]);
}

#[tokio::test]
async fn me_needs_an_agent_s_key() {
    let app = spawn_app().await;
    let key = key_of(&register(&app, "alice").await);
    let (_, anonymous) = app.anonymous().await;
    for (key, status, code) in [
        (None, 401, Some("invalid_token")),
        (Some("ck_live_not-a-key"), 401, Some("invalid_token")),
        (Some(anonymous.as_str()), 401, Some("invalid_token")),
        (Some(key.as_str()), 200, None),
    ] {
        let reply = bgp(&app, Method::GET, "/api/agents/me", key, &[], None).await;
        match code {
            Some(code) => {
                refused(reply, status, code);
            }
            None => {
                let me = reply.expect(status);
                assert_eq!(me["name"], "alice");
                assert_eq!(me["api_key_prefix"], key.expect("given")[..12]);
                assert!(!me.to_string().contains(key.expect("given")), "{me}");
            }
        }
    }
}

#[tokio::test]
async fn a_public_profile_shows_no_secret() {
    let app = spawn_app().await;
    let agent = sign_up(
        &app,
        &[("X-Provider-Id", "providermarker")],
        json!({"name": "alice", "bio": "hello", "meta": {"model": "metamarker"}}),
    )
    .await
    .expect(201);
    let key = key_of(&agent);
    let profile = bgp(&app, Method::GET, "/api/agents/alice", None, &[], None).await;
    let text = profile.text.clone();
    let profile = profile.expect(200);
    for secret in [
        &key,
        &key[..12],
        "api_key",
        "providermarker",
        "metamarker",
        "disabled",
    ] {
        assert!(!text.contains(secret), "the profile shows {secret}: {text}");
    }
    assert_eq!(profile["bio"], "hello");
    assert_eq!(profile["agent_id"], agent["agent_id"]);
    assert!(
        profile["profile_url"]
            .as_str()
            .is_some_and(|url| url.ends_with("/bots/alice")),
        "{profile}"
    );
    // Anonymous bots and house bots are not agents.
    let (anonymous, _) = app.anonymous().await;
    for name in [
        anonymous.to_string(),
        "house-easy".to_owned(),
        "nobody".to_owned(),
    ] {
        refused(public_profile(&app, &name).await, 404, "agent_not_found");
    }
}

#[tokio::test]
async fn registration_checks_names_and_texts_and_changes_nothing_when_refused() {
    let app = spawn_app().await;
    register(&app, "alice").await;
    for (body, status, code, field) in [
        (json!({"name": "alice"}), 409, "name_taken", "name"),
        (json!({"name": "ALICE"}), 409, "name_taken", "name"),
        (
            json!({"name": "alice@clawdchat"}),
            400,
            "bad_request",
            "name",
        ),
        (json!({"name": "x"}), 400, "bad_request", "name"),
        (json!({"name": "me"}), 409, "name_taken", "name"),
        (
            json!({"name": "bob", "bio": "b".repeat(281)}),
            400,
            "bad_request",
            "bio",
        ),
        (
            json!({"name": "bob", "display_name": "d".repeat(65)}),
            400,
            "bad_request",
            "display_name",
        ),
    ] {
        let reply = sign_up(&app, &[], body.clone()).await;
        let error = refused(reply, status, code);
        assert_eq!(error["detail"]["field"], field, "{body}: {error}");
    }
    let bad_json = bgp(&app, Method::POST, "/api/agents", None, &[], None).await;
    refused(bad_json, 400, "bad_request");
    let names: Vec<String> = app
        .arena
        .list_bots()
        .into_iter()
        .map(|(bot, _)| bot.name)
        .filter(|name| !name.starts_with("house-"))
        .collect();
    assert_eq!(names, ["alice"], "nothing refused was registered");
}

#[tokio::test]
async fn registration_is_limited_per_address() {
    let config = ArenaConfig {
        open_registrations_per_window: 3,
        open_registration_window_ms: 3_600_000,
        ..ArenaConfig::default()
    };
    let app = spawn_app_with(config).await;
    for n in 0..3 {
        register(&app, &format!("agent{n}")).await;
    }
    // A refused name is not counted against the address.
    let bad = sign_up(&app, &[], json!({"name": "a b"})).await;
    refused(bad, 400, "bad_request");
    let limited = sign_up(&app, &[], json!({"name": "agent3"})).await;
    assert_eq!(
        limited.headers.get("retry-after").map(|v| v.as_bytes()),
        Some(&b"3600"[..])
    );
    refused(limited, 429, "rate_limited");
    refused(
        bgp(&app, Method::GET, "/api/agents/agent3", None, &[], None).await,
        404,
        "agent_not_found",
    );
    app.advance(3_600_000).await;
    register(&app, "agent3").await;
}

/// Registers a bot of `key` playing Gomoku through the native API and starts a rated
/// freestyle match of one leg against `opponent` (whose key accepts it); returns its id.
async fn native_match(app: &TestApp, key: &str, opponent: &str, opponent_key: &str) -> i64 {
    let body = json!({"opponent": opponent, "game": "gomoku", "variant": "freestyle", "format": "single", "rated": true});
    let id = app.post("/challenges", Some(key), body).await.expect(201)["id"]
        .as_i64()
        .expect("id");
    app.post(
        &format!("/challenges/{id}/accept"),
        Some(opponent_key),
        json!({}),
    )
    .await
    .expect(200);
    id
}

/// Plays a five for the first seat of match `id` (keys `black`, `white`) through the native
/// API: its result is a rated win for `black`.
async fn five(app: &TestApp, id: i64, black: &str, white: &str) {
    for x in 3..8 {
        for (key, stone) in [
            (black, json!({"x": x, "y": 7})),
            (white, json!({"x": x, "y": 0})),
        ] {
            let Some(turn) = app.turns(id, key).await.into_iter().next() else {
                return;
            };
            let body = json!({"leg": 0, "revision": turn["revision"], "move": stone});
            app.post(&format!("/matches/{id}/moves"), Some(key), body)
                .await
                .expect(200);
        }
    }
}

#[tokio::test]
async fn the_leaderboard_orders_agents_by_wins_then_losses_then_age() {
    let app = spawn_app().await;
    let mut keys = std::collections::HashMap::new();
    for name in ["ace", "bee", "cub", "dot", "eel"] {
        keys.insert(name, key_of(&register(&app, name).await));
    }
    // (black, who wins, white). ace wins 2; bee wins 1 and loses 1; cub wins 1 and loses 2;
    // dot loses 1; eel never plays.
    for (black, white) in [
        ("ace", "bee"),
        ("ace", "cub"),
        ("bee", "cub"),
        ("cub", "dot"),
    ] {
        let id = native_match(&app, &keys[black], white, &keys[white]).await;
        five(&app, id, &keys[black], &keys[white]).await;
        assert_eq!(app.snapshot(id).await["status"], "finished");
    }
    // A native bot that plays no game of the dialect's (a card game) is not listed.
    app.post(
        "/admin/bots",
        Some(ADMIN),
        json!({"name": "Elsewhere", "supported_variants": ["goofspiel"]}),
    )
    .await
    .expect(201);

    let board = bgp(&app, Method::GET, "/api/agents", None, &[], None)
        .await
        .expect(200);
    let rows: Vec<(String, i64, i64, i64)> = board
        .as_array()
        .expect("a list")
        .iter()
        .map(|row| {
            (
                row["name"].as_str().expect("name").to_owned(),
                row["wins"].as_i64().expect("wins"),
                row["losses"].as_i64().expect("losses"),
                row["rank"].as_i64().expect("rank"),
            )
        })
        .collect();
    let expected = [
        ("ace", 2, 0, 1),
        ("bee", 1, 1, 2),
        ("cub", 1, 2, 3),
        ("eel", 0, 0, 4),
        ("dot", 0, 1, 5),
    ];
    assert_eq!(
        rows,
        expected.map(|(name, wins, losses, rank)| (name.to_owned(), wins, losses, rank)),
        "{board}"
    );
    let cub = bgp(&app, Method::GET, "/api/agents/cub", None, &[], None)
        .await
        .expect(200);
    assert_eq!(
        (
            &cub["wins"],
            &cub["losses"],
            &cub["draws"],
            &cub["total_matches"]
        ),
        (&json!(1), &json!(2), &json!(0), &json!(3)),
        "{cub}"
    );

    let top = bgp(&app, Method::GET, "/api/agents?limit=2", None, &[], None)
        .await
        .expect(200);
    let names: Vec<&str> = top
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|row| row["name"].as_str())
        .collect();
    assert_eq!(names, ["ace", "bee"]);
    for limit in ["0", "201", "-1", "many"] {
        refused(
            bgp(
                &app,
                Method::GET,
                &format!("/api/agents?limit={limit}"),
                None,
                &[],
                None,
            )
            .await,
            400,
            "bad_request",
        );
    }
}

#[tokio::test]
async fn only_trusted_providers_may_speak_for_agents() {
    let app = spawn_running(ArenaConfig::default(), games(), with_trusted_provider).await;
    for (n, provider, status, code) in [
        (0, Some("trusted"), 201, None),
        (1, None, 201, None),
        (2, Some("evil"), 403, Some("provider_not_allowed")),
        (3, Some("two words"), 400, Some("bad_request")),
        (4, Some("trustedx"), 403, Some("provider_not_allowed")),
    ] {
        let headers: Vec<(&str, &str)> =
            provider.map(|p| ("X-Provider-Id", p)).into_iter().collect();
        let reply = sign_up(&app, &headers, json!({"name": format!("agent{n}")})).await;
        match code {
            None => {
                reply.expect(status);
            }
            Some(code) => {
                refused(reply, status, code);
                refused(
                    public_profile(&app, &format!("agent{n}")).await,
                    404,
                    "agent_not_found",
                );
            }
        }
    }
    // Every write is refused from an untrusted provider, a resignation too, and changes
    // nothing.
    let created = bgp(
        &app,
        Method::POST,
        "/api/matches",
        None,
        &[],
        Some(json!({"game": "gomoku", "player": {"name": "ann"}})),
    )
    .await
    .expect(201);
    let id = created["match_id"].as_str().expect("an id");
    let token = created["play_token"].as_str().expect("a play token");
    bgp(
        &app,
        Method::POST,
        &format!("/api/matches/{id}/join"),
        None,
        &[],
        Some(json!({"player": {"name": "bob"}})),
    )
    .await
    .expect(200);
    let resign = format!("/api/matches/{id}/resign");
    let untrusted = [("X-Play-Token", token), ("X-Provider-Id", "evil")];
    refused(
        bgp(&app, Method::POST, &resign, None, &untrusted, None).await,
        403,
        "provider_not_allowed",
    );
    let snapshot = bgp(
        &app,
        Method::GET,
        &format!("/api/matches/{id}"),
        None,
        &[],
        None,
    )
    .await
    .expect(200);
    assert_eq!(snapshot["status"], "in_progress");
    // A server started without a list trusts every provider.
    let open = spawn_app().await;
    sign_up(
        &open,
        &[("X-Provider-Id", "evil")],
        json!({"name": "agent"}),
    )
    .await
    .expect(201);
}

#[test]
fn a_provider_list_must_name_providers_by_one_word() {
    let games = games();
    for (list, valid) in [
        (vec!["clawdchat", "proxy.example"], true),
        (vec![], true),
        (vec!["two words"], false),
        (vec!["ok", ""], false),
    ] {
        let list: Vec<String> = list.into_iter().map(str::to_owned).collect();
        assert_eq!(
            dialects(&games).with_bgp_providers(&list).is_ok(),
            valid,
            "{list:?}"
        );
    }
}

#[tokio::test]
async fn a_match_s_notes_are_the_administrator_s_alone() {
    let app = spawn_app().await;
    let (id, bot, _) = app.running_match().await;
    let path = format!("/api/admin/matches/{id}/notes");
    refused(
        bgp(&app, Method::GET, &path, None, &[], None).await,
        401,
        "invalid_token",
    );
    refused(
        bgp(&app, Method::GET, &path, Some(&bot), &[], None).await,
        403,
        "admin_only",
    );
    refused(
        bgp(
            &app,
            Method::GET,
            "/api/admin/matches/999/notes",
            Some(ADMIN),
            &[],
            None,
        )
        .await,
        404,
        "match_not_found",
    );
    refused(
        bgp(
            &app,
            Method::GET,
            "/api/admin/matches/abc/notes",
            Some(ADMIN),
            &[],
            None,
        )
        .await,
        404,
        "match_not_found",
    );
    app.arena
        .add_note(id, Some(1), "test_note", json!({"said": "notemarker91"}))
        .await
        .expect("stored");
    let notes = bgp(&app, Method::GET, &path, Some(ADMIN), &[], None)
        .await
        .expect(200);
    assert_eq!(notes["notes"].as_array().map(Vec::len), Some(1), "{notes}");
    let note = &notes["notes"][0];
    assert_eq!(
        (&note["kind"], &note["participant"], &note["data"]["said"]),
        (&json!("test_note"), &json!(1), &json!("notemarker91")),
        "{notes}"
    );
    assert_eq!(note["at_ms"], T0);
    // No public reading of the match carries it.
    for public in [
        app.get(&format!("/matches/{id}"), None).await.text,
        app.get(&format!("/matches/{id}/events?since=0"), None)
            .await
            .text,
        app.get(&format!("/matches/{id}"), Some(&bot)).await.text,
    ] {
        assert!(
            !public.contains("notemarker91") && !public.contains("test_note"),
            "{public}"
        );
    }
}

/// A seat a create or join gave: the match's id, the seat's play token, and the key of the
/// agent that holds it.
struct Seat {
    id: String,
    token: String,
    key: String,
}

/// `POST /api/matches` for the agent of `key`, with `headers` and the body's `meta`.
async fn create_as(app: &TestApp, key: &str, headers: &[(&str, &str)], meta: Value) -> Seat {
    let body = json!({"game": "gomoku", "player": {"meta": meta}});
    let created = bgp(
        app,
        Method::POST,
        "/api/matches",
        Some(key),
        headers,
        Some(body),
    )
    .await
    .expect(201);
    Seat {
        id: created["match_id"].as_str().expect("match_id").to_owned(),
        token: created["play_token"]
            .as_str()
            .expect("play_token")
            .to_owned(),
        key: key.to_owned(),
    }
}

/// `POST /api/matches` as a guest named `name`, with the body's `meta`; returns the match's
/// id.
async fn create_guest(app: &TestApp, name: &str, meta: Value) -> String {
    let body = json!({"game": "gomoku", "player": {"name": name, "meta": meta}});
    let created = bgp(app, Method::POST, "/api/matches", None, &[], Some(body))
        .await
        .expect(201);
    created["match_id"].as_str().expect("match_id").to_owned()
}

/// `POST /api/matches/{id}/join` with `key` (or as a guest named `name`), `headers` and the
/// body's `meta`.
async fn join(
    app: &TestApp,
    id: &str,
    key: Option<&str>,
    name: &str,
    headers: &[(&str, &str)],
    meta: Value,
) -> Reply {
    let body = json!({"player": {"name": name, "meta": meta}});
    bgp(
        app,
        Method::POST,
        &format!("/api/matches/{id}/join"),
        key,
        headers,
        Some(body),
    )
    .await
}

/// Places a stone with the seat's agent's key; asserts it was accepted.
async fn place(app: &TestApp, seat: &Seat, x: u32, y: u32) {
    bgp(
        app,
        Method::POST,
        &format!("/api/matches/{}/action", seat.id),
        Some(&seat.key),
        &[],
        Some(json!({"type": "place_stone", "x": x, "y": y})),
    )
    .await
    .expect(200);
}

/// The operator's notes about match `id` of `kind`.
async fn notes_of(app: &TestApp, id: &str, kind: &str) -> Vec<Value> {
    let notes = bgp(
        app,
        Method::GET,
        &format!("/api/admin/matches/{id}/notes"),
        Some(ADMIN),
        &[],
        None,
    )
    .await
    .expect(200);
    notes["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter(|note| note["kind"] == kind)
        .cloned()
        .collect()
}

#[tokio::test]
async fn one_agent_never_holds_both_seats() {
    let app = spawn_app().await;
    let key = key_of(&register(&app, "solo").await);
    let other = key_of(&register(&app, "other").await);
    let by_key = bgp(
        &app,
        Method::POST,
        "/api/matches",
        Some(&key),
        &[],
        Some(json!({"game": "gomoku"})),
    )
    .await
    .expect(201);
    let by_key = by_key["match_id"].as_str().expect("id").to_owned();
    let by_meta = create_guest(&app, "alice", json!({"agent_id": "agent-u1"})).await;
    let agent_meta = json!({"agent_id": "agent-u1"}).to_string();
    // (match, key, guest name, headers, player.meta): the same bot, the same agent_id in
    // player.meta, and the same agent_id in the provider's metadata.
    type Case<'a> = (
        &'a str,
        Option<&'a str>,
        &'a str,
        Vec<(&'a str, &'a str)>,
        Value,
    );
    let cases: [Case; 3] = [
        (&by_key, Some(&key), "", vec![], json!({})),
        (
            &by_meta,
            None,
            "bob",
            vec![],
            json!({"agent_id": "agent-u1"}),
        ),
        (
            &by_meta,
            None,
            "carol",
            vec![("X-Provider-Agent-Meta", agent_meta.as_str())],
            json!({}),
        ),
    ];
    for (id, key, name, headers, meta) in cases {
        let reply = join(&app, id, key, name, &headers, meta).await;
        refused(reply, 409, "duplicate_player");
        let snapshot = bgp(
            &app,
            Method::GET,
            &format!("/api/matches/{id}"),
            None,
            &[],
            None,
        )
        .await
        .expect(200);
        assert_eq!(snapshot["status"], "waiting", "nothing changed: {snapshot}");
        assert_eq!(snapshot["players"].as_array().map(Vec::len), Some(1));
    }
    // Another agent, or another agent_id, takes the seat.
    join(&app, &by_key, Some(&other), "", &[], json!({}))
        .await
        .expect(200);
    join(
        &app,
        &by_meta,
        None,
        "dave",
        &[],
        json!({"agent_id": "agent-u2"}),
    )
    .await
    .expect(200);
}

#[tokio::test]
async fn moves_under_100_ms_apart_are_flagged_for_the_operator_alone() {
    let app = spawn_app().await;
    let alice = key_of(&register(&app, "alice").await);
    let bob = key_of(&register(&app, "bob").await);
    let black = create_as(&app, &alice, &[], Value::Null).await;
    let white = join(&app, &black.id, Some(&bob), "", &[], Value::Null)
        .await
        .expect(200);
    let white = Seat {
        id: black.id.clone(),
        token: white["play_token"].as_str().expect("play token").to_owned(),
        key: bob,
    };
    // (who plays, where, milliseconds since the previous move or the start): the first stone
    // at once, then 5 s, 50 ms, exactly 100 ms and 99 ms.
    let moves = [
        (&black, (7, 7), 0),
        (&white, (0, 0), 5_000),
        (&black, (8, 7), 50),
        (&white, (0, 1), 100),
        (&black, (9, 7), 99),
    ];
    for (seat, (x, y), after_ms) in moves {
        app.advance(after_ms).await;
        place(&app, seat, x, y).await;
    }
    let flagged: Vec<(Value, Value)> = notes_of(&app, &black.id, "fast_move")
        .await
        .iter()
        .map(|note| (note["participant"].clone(), note["data"]["gap_ms"].clone()))
        .collect();
    assert_eq!(
        flagged,
        [
            (json!(0), json!(0)),
            (json!(0), json!(50)),
            (json!(0), json!(99))
        ],
        "the first, third and fifth stones"
    );
    // The flag is the operator's: no public reading of the match mentions it.
    let id = &black.id;
    for path in [
        format!("/api/matches/{id}"),
        format!("/api/matches/{id}/events?since=0"),
        format!("/matches/{id}/claim"),
        format!("/api/v1/matches/{id}"),
        format!("/api/v1/matches/{id}/events?since=0"),
    ] {
        let text = bgp(&app, Method::GET, &path, None, &[], None).await.text;
        assert!(
            !text.contains("fast_move") && !text.contains("gap_ms"),
            "{path}: {text}"
        );
    }
}

#[tokio::test]
async fn provider_metadata_is_kept_for_the_operator_and_shown_nowhere_else() {
    let app = spawn_app().await;
    let key = key_of(&register(&app, "proxied").await);
    let creator = key_of(&register(&app, "creator").await);
    let agent_meta = json!({"agent_id": "agentidmarker1", "model": "modelmarker2"}).to_string();
    let provider = [
        ("X-Provider-Id", "providermarker3"),
        ("X-Provider-Agent-Meta", agent_meta.as_str()),
    ];
    let black = create_as(&app, &creator, &provider, json!({"note": "playermarker4"})).await;
    let joined = join(
        &app,
        &black.id,
        Some(&key),
        "",
        &[("X-Provider-Id", "providermarker3")],
        json!({"agent_id": "agentidmarker5"}),
    )
    .await
    .expect(200);
    let white = Seat {
        id: black.id.clone(),
        token: joined["play_token"]
            .as_str()
            .expect("play token")
            .to_owned(),
        key: key.clone(),
    };
    place(&app, &black, 7, 7).await;
    place(&app, &white, 0, 0).await;

    let markers = [
        "providermarker3",
        "agentidmarker1",
        "modelmarker2",
        "playermarker4",
        "agentidmarker5",
    ];
    let id = &black.id;
    let root = app.base.trim_end_matches("/api/v1").to_owned();
    let public = vec![
        format!("/api/matches/{id}"),
        format!("/api/matches/{id}?seat=0"),
        format!("/api/matches/{id}/events?since=0"),
        format!("/matches/{id}/claim"),
        format!("/matches/{id}"),
        "/api/agents/proxied".to_owned(),
        "/api/agents".to_owned(),
        format!("/api/v1/matches/{id}"),
        format!("/api/v1/matches/{id}/events?since=0"),
        "/api/v1/bots/proxied".to_owned(),
        "/api/v1/bots".to_owned(),
        "/bots/proxied".to_owned(),
    ];
    // The players' own readings, with their credentials, show nothing of it either.
    for path in public {
        for (credential, headers) in [
            (None, vec![]),
            (Some(key.as_str()), vec![]),
            (None, vec![("X-Play-Token", black.token.as_str())]),
        ] {
            let reply = bgp(&app, Method::GET, &path, credential, &headers, None).await;
            assert!(reply.status.is_success(), "{path}: {}", reply.status);
            for marker in markers {
                assert!(!reply.text.contains(marker), "{root}{path} shows {marker}");
            }
        }
    }
    let me = bgp(&app, Method::GET, "/api/agents/me", Some(&key), &[], None).await;
    for marker in markers {
        assert!(!me.text.contains(marker), "me shows {marker}");
    }

    // The operator reads each seat's provenance.
    let seats: Vec<(Value, Value, Value)> = notes_of(&app, id, "provenance")
        .await
        .iter()
        .map(|note| {
            (
                note["participant"].clone(),
                note["data"]["provider_id"].clone(),
                note["data"]["player_meta"].clone(),
            )
        })
        .collect();
    assert_eq!(
        seats,
        [
            (
                json!(0),
                json!("providermarker3"),
                json!({"note": "playermarker4"})
            ),
            (
                json!(1),
                json!("providermarker3"),
                json!({"agent_id": "agentidmarker5"})
            ),
        ]
    );
    let first = &notes_of(&app, id, "provenance").await[0];
    assert_eq!(
        first["data"]["provider_agent_meta"]["model"],
        "modelmarker2"
    );
}

#[tokio::test]
async fn bad_provider_metadata_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let long = format!("{{\"pad\": \"{}\"}}", "x".repeat(2048));
    for (headers, meta, field) in [
        (
            vec![("X-Provider-Agent-Meta", "not json")],
            Value::Null,
            "x-provider-agent-meta",
        ),
        (
            vec![("X-Provider-Agent-Meta", "[1, 2]")],
            Value::Null,
            "x-provider-agent-meta",
        ),
        (
            vec![("X-Provider-Agent-Meta", long.as_str())],
            Value::Null,
            "x-provider-agent-meta",
        ),
        (vec![("X-Provider-Id", "a b")], Value::Null, "x-provider-id"),
        (vec![], json!("a string"), "player.meta"),
        (vec![], json!({"pad": "x".repeat(2048)}), "player.meta"),
    ] {
        let body = json!({"game": "gomoku", "player": {"name": "alice", "meta": meta}});
        let reply = bgp(
            &app,
            Method::POST,
            "/api/matches",
            None,
            &headers,
            Some(body),
        )
        .await;
        let error = refused(reply, 400, "bad_request");
        assert_eq!(error["detail"]["field"], field, "{error}");
    }
    let native = app.get("/tables", None).await.expect(200);
    assert_eq!(native, json!([]), "no table was opened: {native}");
}

/// The dialect's sources, each file's text.
fn dialect_sources() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bgp");
    let mut sources: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("the dialect's sources")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a source");
            (path.display().to_string(), text)
        })
        .collect();
    sources.sort();
    sources
}

/// Every `(METHOD, path)` the dialect's routers declare: each `.route("path", get(…).post(…))`
/// of its sources.
fn declared_routes() -> std::collections::BTreeSet<(String, String)> {
    const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];
    let mut routes = std::collections::BTreeSet::new();
    for (file, text) in dialect_sources() {
        for (at, _) in text.match_indices(".route(") {
            let rest = &text[at + ".route(".len()..];
            let path = rest
                .trim_start()
                .strip_prefix('"')
                .and_then(|rest| rest.split_once('"'))
                .map(|(path, _)| path.to_owned())
                .unwrap_or_else(|| panic!("{file}: a route's path is a literal"));
            // The method routers are the route's arguments up to its closing parenthesis.
            let mut depth = 1;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(rest.len(), |(end, _)| end);
            let arguments = &rest[..end];
            let mut found = false;
            for method in METHODS {
                for (index, _) in arguments.match_indices(&format!("{method}(")) {
                    let before = arguments[..index].trim_end().chars().last();
                    if matches!(before, Some(',' | '.')) {
                        routes.insert((method.to_uppercase(), path.clone()));
                        found = true;
                    }
                }
            }
            assert!(found, "{file}: the route {path} has a method");
        }
    }
    routes
}

/// The dialect's OpenAPI document, as the server serves it.
fn openapi_document() -> Value {
    serde_json::from_str(include_str!("../../src/bgp/openapi.json")).expect("valid JSON")
}

#[test]
fn the_openapi_document_lists_exactly_the_dialect_s_routes() {
    let document = openapi_document();
    let mut documented = std::collections::BTreeSet::new();
    for (path, operations) in document["paths"].as_object().expect("paths") {
        for (method, operation) in operations.as_object().expect("operations") {
            documented.insert((method.to_uppercase(), path.clone()));
            let responses = operation["responses"].as_object().expect("responses");
            assert!(
                responses.keys().any(|status| status.starts_with('2')),
                "{method} {path} documents its success"
            );
            for (status, response) in responses {
                assert!(
                    response["description"]
                        .as_str()
                        .is_some_and(|d| !d.is_empty()),
                    "{method} {path} {status} is described"
                );
            }
        }
    }
    let declared = declared_routes();
    assert!(
        declared.len() >= 15,
        "the scan finds the routes: {declared:?}"
    );
    assert_eq!(
        documented.difference(&declared).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "documented but not routed"
    );
    assert_eq!(
        declared.difference(&documented).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "routed but not documented"
    );
}

#[test]
fn the_openapi_document_names_every_error_code_the_dialect_answers() {
    // Every code the sources give a refusal: `BgpError::new(StatusCode::…, "code", …)` and
    // `BgpError::conflict("code", …)`, read with the whitespace taken out.
    let mut answered = std::collections::BTreeSet::new();
    for (_, text) in dialect_sources() {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        for marker in ["conflict(\"", "StatusCode::"] {
            for (at, _) in compact.match_indices(marker) {
                let rest = &compact[at + marker.len()..];
                let rest = match marker {
                    "StatusCode::" => match rest.split_once(",\"") {
                        Some((status, rest))
                            if status.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
                        {
                            rest
                        }
                        _ => continue,
                    },
                    _ => rest,
                };
                if let Some((code, _)) = rest.split_once('"') {
                    answered.insert(code.to_owned());
                }
            }
        }
    }
    let document = openapi_document();
    let listed: std::collections::BTreeSet<String> =
        document["components"]["schemas"]["Error"]["properties"]["error"]["enum"]
            .as_array()
            .expect("the codes")
            .iter()
            .map(|code| code.as_str().expect("a code").to_owned())
            .collect();
    assert!(
        answered.contains("duplicate_player"),
        "the scan finds codes: {answered:?}"
    );
    assert_eq!(answered, listed);
    // Each code is explained where it can happen.
    let text = document["paths"].to_string();
    for code in &listed {
        assert!(
            text.contains(&format!("`{code}`")),
            "no operation explains {code}"
        );
    }
}

#[tokio::test]
async fn the_server_serves_its_openapi_document() {
    let app = spawn_app().await;
    let reply = bgp(&app, Method::GET, "/api/openapi.json", None, &[], None).await;
    assert_eq!(
        reply.headers.get("content-type").map(|v| v.as_bytes()),
        Some(&b"application/json"[..])
    );
    assert_eq!(reply.expect(200), openapi_document());
}
