//! The comment stream on the match pages: what players say about their moves through the
//! Board Game Protocol, shown on the live page, its refreshed legs and the replay with the
//! mover's name and the move, escaped, the same for every reader, and never an analysis.

use serde_json::{Value, json};

use super::*;

/// What a private analysis carries, which no page may show.
const PRIVATE_MARKER: &str = "privateanalysismarker71";
/// What a public analysis carries, which no page shows either: pages show comments alone.
const PUBLIC_MARKER: &str = "publicanalysismarker72";
/// A comment that would run a script if a page did not escape it.
const SCRIPT_COMMENT: &str = "centre first <script>alert(1)</script>";
/// [`SCRIPT_COMMENT`] as the pages' templates escape it.
const SCRIPT_COMMENT_ESCAPED: &str = "centre first &#60;script&#62;alert(1)&#60;/script&#62;";

/// POSTs `body` to the protocol's `path`, with a play token if given; returns the status and
/// the answer.
async fn bgp_post(app: &TestApp, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = token
        .map(|token| ("X-Play-Token", token))
        .into_iter()
        .collect();
    let reply = app
        .call_root(reqwest::Method::POST, path, &headers, Some(body.clone()))
        .await;
    (reply.status.as_u16(), reply.body)
}

/// A guest's seat body.
fn guest(name: &str) -> Value {
    json!({"player": {"name": name, "display_name": name, "meta": {}}})
}

/// A guest `name` joins match `id` through the protocol; returns its play token.
async fn join_guest(app: &TestApp, id: i64, name: &str) -> String {
    let (status, joined) =
        bgp_post(app, &format!("/api/matches/{id}/join"), None, &guest(name)).await;
    assert_eq!(status, 200, "{joined}");
    joined["play_token"]
        .as_str()
        .expect("a play token")
        .to_owned()
}

/// Places a stone at (`x`, `y`) with `token` and the action's `extra` fields (a comment, an
/// analysis); asserts that it is accepted.
async fn place(app: &TestApp, id: i64, token: &str, (x, y): (u32, u32), extra: Value) {
    let mut body = json!({"type": "place_stone", "x": x, "y": y});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let (status, answer) = bgp_post(
        app,
        &format!("/api/matches/{id}/action"),
        Some(token),
        &body,
    )
    .await;
    assert_eq!(
        (status, &answer["accepted"]),
        (200, &json!(true)),
        "{answer}"
    );
}

/// The name the pages give participant `participant` of match `id`.
async fn name_of(app: &TestApp, id: i64, participant: usize) -> String {
    let snapshot = app.snapshot(id).await;
    snapshot["participants"][participant]["name"]
        .as_str()
        .expect("a name")
        .to_owned()
}

/// One comment as a page lists it: the mover's name, the move it follows and the text, as
/// the page's HTML spells them.
#[derive(Debug, PartialEq)]
struct Shown {
    who: String,
    after: String,
    text: String,
}

/// The text between `start` and the next `end` in `html`.
fn between<'a>(html: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = &html[html.find(start)? + start.len()..];
    rest.find(end).map(|at| &rest[..at])
}

/// Every comment the page lists, in order.
fn comments_in(html: &str) -> Vec<Shown> {
    let Some(list) = between(html, "<ol class=\"comments\">", "</ol>") else {
        return Vec::new();
    };
    list.split("<li>")
        .skip(1)
        .map(|item| {
            let after = between(item, "after ", "</span>").unwrap_or_default();
            // The replay links the move to the position after it.
            let after = between(after, "\">", "</a>").unwrap_or(after);
            Shown {
                who: between(item, "<span class=\"who\">", "</span>")
                    .unwrap_or_default()
                    .to_owned(),
                after: after.to_owned(),
                text: between(item, "<p>", "</p>").unwrap_or_default().to_owned(),
            }
        })
        .collect()
}

fn shown(who: &str, after: &str, text: &str) -> Shown {
    Shown {
        who: who.to_owned(),
        after: after.to_owned(),
        text: text.to_owned(),
    }
}

/// Asserts that `html` shows no analysis, public or private, and runs no comment's script.
#[track_caller]
fn assert_no_analysis_or_script(what: &str, html: &str) {
    for marker in [PRIVATE_MARKER, PUBLIC_MARKER, "<script>alert"] {
        assert!(!html.contains(marker), "{what} holds {marker}: {html}");
    }
}

#[tokio::test]
async fn comments_show_with_their_mover_and_move_live_and_in_the_replay() {
    let app = spawn_app().await;
    let (status, created) = bgp_post(&app, "/api/matches", None, &{
        let mut body = guest("alice");
        body["game"] = json!("gomoku");
        body
    })
    .await;
    assert_eq!(status, 201, "{created}");
    let id: i64 = created["match_id"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .expect("a match id");
    let black = created["play_token"].as_str().expect("a token").to_owned();
    let white = join_guest(&app, id, "bob").await;
    let (alice, bob) = (name_of(&app, id, 0).await, name_of(&app, id, 1).await);
    assert!(
        alice.contains("alice") && bob.contains("bob"),
        "{alice} {bob}"
    );
    let spectator = Browser::new(&app);
    let before = spectator.get(&format!("/matches/{id}")).await.html;
    assert!(
        !before.contains("class=\"comments\""),
        "no box for a leg without comments: {before}"
    );

    let public = json!({"comment": SCRIPT_COMMENT,
        "analysis": {"eval": 0.1, "note": PUBLIC_MARKER}});
    place(&app, id, &black, (7, 7), public).await;
    let private = json!({"comment": "bob answers",
        "analysis": {"eval": -0.2, "note": PRIVATE_MARKER, "private": true}});
    place(&app, id, &white, (8, 8), private).await;
    place(&app, id, &black, (3, 3), json!({})).await;
    let expected = vec![
        shown(&alice, "7,7", SCRIPT_COMMENT_ESCAPED),
        shown(&bob, "8,8", "bob answers"),
    ];
    for path in [format!("/matches/{id}"), format!("/matches/{id}/legs")] {
        let html = spectator.get(&path).await.html;
        assert_eq!(comments_in(&html), expected, "{path}: {html}");
        assert_no_analysis_or_script(&path, &html);
    }

    // A comment made after the page was loaded is in the legs the script fetches next.
    place(&app, id, &white, (9, 9), json!({"comment": "later"})).await;
    let legs = spectator.get(&format!("/matches/{id}/legs")).await.html;
    assert_eq!(
        comments_in(&legs).last(),
        Some(&shown(&bob, "9,9", "later")),
        "{legs}"
    );

    let (status, resigned) = bgp_post(
        &app,
        &format!("/api/matches/{id}/resign"),
        Some(&black),
        &json!({}),
    )
    .await;
    assert_eq!(status, 200, "{resigned}");
    // The replay shows the comments on the moves up to its position, each linking to it.
    let cases = [(0, 0), (1, 1), (3, 2), (4, 3)];
    let mut all = expected;
    all.push(shown(&bob, "9,9", "later"));
    for (ply, comments) in cases {
        let replay = spectator
            .get(&format!("/matches/{id}/replay?ply={ply}"))
            .await;
        assert_eq!(replay.status, StatusCode::OK, "{}", replay.html);
        let html = &replay.html;
        assert_eq!(comments_in(html), all[..comments], "ply {ply}: {html}");
        assert_eq!(
            html.contains("class=\"comments\""),
            comments > 0,
            "a box only for comments: {html}"
        );
        assert_no_analysis_or_script("the replay", html);
    }
    let end = spectator.get(&format!("/matches/{id}/replay")).await.html;
    assert!(
        end.contains("<a href=\"?leg=0&amp;ply=2\">8,8</a>"),
        "a comment links to the position after its move: {end}"
    );
}

#[tokio::test]
async fn a_player_and_a_spectator_read_the_same_comments_and_the_hint_names_no_game() {
    let app = spawn_app().await;
    let (person, csrf, id) = super::gomoku::open_freestyle_table(&app, "ada").await;
    let guest_token = join_guest(&app, id, "bob").await;
    let snapshot = app.snapshot(id).await;
    assert_eq!(snapshot["status"], "running", "{snapshot}");
    let bob = name_of(&app, id, 1).await;
    // The table's opener is participant 0; the guest moves first if it sits first.
    let guest_first = snapshot["legs"][0]["first_seat_participant"] == 1;
    let comment = json!({"comment": "a quiet start",
        "analysis": {"note": PRIVATE_MARKER, "private": true}});
    if guest_first {
        place(&app, id, &guest_token, (7, 7), comment).await;
    } else {
        let page = person.get(&format!("/matches/{id}")).await.html;
        assert!(
            !page.contains("class=\"comments\""),
            "no box for a leg without comments: {page}"
        );
        let revision = snapshot["legs"][0]["revision"].to_string();
        let played = person
            .post(
                &format!("/matches/{id}/moves"),
                &[
                    ("csrf", csrf.as_str()),
                    ("leg", "0"),
                    ("revision", revision.as_str()),
                    ("action", "{\"x\":3,\"y\":3}"),
                ],
            )
            .await;
        assert_eq!(played.status, StatusCode::OK, "{}", played.html);
        place(&app, id, &guest_token, (7, 7), comment).await;
    }

    let player = person.get(&format!("/matches/{id}")).await.html;
    let watcher = Browser::new(&app).get(&format!("/matches/{id}")).await.html;
    let expected = vec![shown(&bob, "7,7", "a quiet start")];
    assert_eq!(comments_in(&player), expected, "{player}");
    assert_eq!(comments_in(&watcher), expected, "{watcher}");
    assert_no_analysis_or_script("the player's page", &player);
    assert_no_analysis_or_script("the spectator's page", &watcher);
    assert!(
        player.contains("Click a point or square marked as playable"),
        "{player}"
    );
    assert!(
        !player.contains("passes for you"),
        "the hint promises no game's forced pass: {player}"
    );
}
