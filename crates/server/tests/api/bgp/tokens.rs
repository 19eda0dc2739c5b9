//! Play tokens (§3.1, §8): bound to one match and one seat, read from `X-Play-Token` only.

use serde_json::{Value, json};

use super::*;

/// The number of stones on match `id`'s board.
async fn stones(client: &Bgp, id: &str) -> Value {
    client.snapshot(id).await["render"]["move_count"].clone()
}

#[tokio::test]
async fn a_missing_or_unknown_token_is_invalid() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    let bogus_key = format!("ck_live_{}", "x".repeat(43));
    for (what, cred) in [
        ("no token", Cred::None),
        (
            "an unknown play token",
            Cred::Play("pk_live_not-a-token-this-server-gave"),
        ),
        ("an empty play token", Cred::Play("")),
        ("an unknown api key", Cred::Bearer(&bogus_key)),
    ] {
        let refused = client.action_as(&table.id, cred, &stone).await;
        assert_eq!(refused.status, 401, "{what}: {}", refused.text);
        expect_error(refused, 401, "invalid_token");
    }
    assert_eq!(stones(&client, &table.id).await, 0);
    // An unknown api key cannot create a match either.
    expect_error(
        client
            .create(Cred::Bearer(&bogus_key), &json!({"game": "gomoku"}))
            .await,
        401,
        "invalid_token",
    );
}

#[tokio::test]
async fn a_token_works_only_in_its_own_match() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let first = client.table(Value::Null).await;
    let second = client.table(Value::Null).await;
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    // Seat 0 is to move in both matches, so only the binding to the match can refuse it.
    expect_error(
        client.action(&second.id, &first.black.token, &stone).await,
        401,
        "invalid_token",
    );
    assert_eq!(stones(&client, &second.id).await, 0);
    assert_eq!(stones(&client, &first.id).await, 0);
    client.place(&second.id, &second.black.token, 7, 7).await;
}

#[tokio::test]
async fn a_seat_cannot_act_as_the_other_seat() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    // White's token on Black's turn: the turn is not White's.
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    expect_error_among(
        client.action(&table.id, &table.white.token, &stone).await,
        &[(409, "not_your_turn"), (403, "wrong_seat")],
    );
    // Black's token in an action that names seat 1: the token's seat is not the action's.
    let as_white = json!({"type": "place_stone", "x": 7, "y": 7, "seat": 1});
    expect_error(
        client
            .action(&table.id, &table.black.token, &as_white)
            .await,
        403,
        "wrong_seat",
    );
    assert_eq!(stones(&client, &table.id).await, 0);
}

#[tokio::test]
async fn a_token_in_the_query_string_is_refused() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let table = client.table(Value::Null).await;
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    for name in ["play_token", "token", "X-Play-Token", "x_play_token"] {
        let path = format!(
            "/api/matches/{}/action?{name}={}",
            table.id, table.black.token
        );
        let refused = client.post(&path, Cred::None, &stone).await;
        expect_error_among(refused, &[(401, "invalid_token"), (400, "bad_request")]);
        assert_eq!(
            stones(&client, &table.id).await,
            0,
            "?{name}= played nothing"
        );
    }
    // Nor does a token in the query string make a snapshot the seat's own: it is refused, or
    // read as no token at all.
    let query = format!("play_token={}", table.black.token);
    let snapshot = client.snapshot_with(&table.id, &query, Cred::None).await;
    if snapshot.status == 200 {
        assert!(
            snapshot.body.get("your_turn").is_none(),
            "{}",
            snapshot.text
        );
    } else {
        expect_error_among(snapshot, &[(400, "bad_request"), (401, "invalid_token")]);
    }
}

#[tokio::test]
async fn an_agent_not_seated_in_the_match_cannot_act_in_it() {
    let app = spawn_bgp().await;
    let client = Bgp::new(&app);
    let outsider = client.register("outsider", json!({})).await;
    let table = client.table(Value::Null).await;
    let stone = json!({"type": "place_stone", "x": 7, "y": 7});
    expect_error_among(
        client
            .action_as(&table.id, Cred::Bearer(&outsider.key), &stone)
            .await,
        &[(403, "wrong_seat"), (401, "invalid_token")],
    );
    assert_eq!(stones(&client, &table.id).await, 0);
}
