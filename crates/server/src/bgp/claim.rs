//! `GET /matches/{id}/claim`: a match's record as a page for the players' owners: the final
//! board, every move with its time, the result, a link to share and how to play again.

use std::fmt::Write as _;

use arbiter_arena::Reader;
use arbiter_plugin::BoardOptions;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::tables::{self, Loaded};
use super::{BgpPath, feed, public_url};
use crate::AppState;

/// Text for HTML: `&`, `<`, `>`, `"` and `'` escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A page for a refusal, with its status.
fn refusal(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Arbiter</title></head><body><h1>{}</h1><p>{}</p></body></html>",
        status.as_u16(),
        escape(message)
    );
    (status, Html(body)).into_response()
}

/// The claim page.
pub(super) async fn page(
    State(state): State<AppState>,
    BgpPath(id): BgpPath<String>,
    headers: HeaderMap,
) -> Response {
    let loaded = match tables::load(&state, &id, Reader::SPECTATOR).await {
        Ok(loaded) => loaded,
        Err(error) => return refusal(error.status, &error.message),
    };
    let feed = match tables::feed_of(&state, &loaded).await {
        Ok(feed) => feed,
        Err(error) => return refusal(error.status, &error.message),
    };
    let body = render(&state, &headers, &loaded, &feed.all());
    (
        [
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; style-src 'unsafe-inline'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Html(body),
    )
        .into_response()
}

fn render(
    state: &AppState,
    headers: &HeaderMap,
    loaded: &Loaded,
    events: &[std::sync::Arc<feed::BgpEvent>],
) -> String {
    let snapshot = &loaded.snapshot;
    let base = public_url(state, headers);
    let claim = format!("{base}/matches/{}/claim", loaded.id);
    let players = tables::players(&state.arena, snapshot);
    let colours = loaded.points.colours();
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Match {id} · Arbiter</title>\
         <style>body{{font-family:sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem}}\
         table{{border-collapse:collapse}}td,th{{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}}\
         .board svg{{max-width:28rem;height:auto}}pre{{white-space:pre-wrap;overflow-wrap:anywhere}}</style></head><body>\
         <header><strong>Arbiter</strong> · an open arena for bots</header>\
         <h1>Match {id}: {game}</h1>",
        id = loaded.id,
        game = escape(snapshot.game),
    );
    html.push_str("<ul class=\"players\">");
    for player in &players {
        let seat = player["seat"].as_u64().unwrap_or(0) as usize;
        let _ = write!(
            html,
            "<li>{colour}: {display} ({name}{guest})</li>",
            colour = escape(colours.get(seat).copied().unwrap_or("")),
            display = escape(player["display_name"].as_str().unwrap_or("")),
            name = escape(player["name"].as_str().unwrap_or("")),
            guest = if player["is_guest"] == true {
                ", guest"
            } else {
                ""
            },
        );
    }
    html.push_str("</ul>");
    let moves = events
        .iter()
        .filter(|e| matches!(e.kind(), "stone_placed" | "passed"))
        .count();
    let result = tables::result_of(state, headers, loaded, u32::try_from(moves).unwrap_or(0));
    let _ = write!(
        html,
        "<p class=\"result\"><strong>{}</strong></p>",
        escape(&match result["summary"].as_str() {
            Some(summary) => format!("Result: {summary}"),
            None => format!("Status: {}", feed::status_name(snapshot.status)),
        })
    );
    if let (Some(board), Some(leg)) = (loaded.family.board, snapshot.legs.first()) {
        // The renderer writes only numbers and fixed text into its SVG.
        let _ = write!(
            html,
            "<div class=\"board\">{}</div>",
            board.svg(&leg.view, BoardOptions::default())
        );
    }
    html.push_str("<h2>Record</h2><table><thead><tr><th>#</th><th>Colour</th><th>Move</th><th>Time</th><th>Thought</th></tr></thead><tbody>");
    let mut turn_began = snapshot.started_ms.unwrap_or(snapshot.created_ms);
    for event in events {
        let value = &event.value;
        match event.kind() {
            "stone_placed" | "passed" => {
                let played = if event.kind() == "passed" {
                    "pass".to_owned()
                } else {
                    format!("({}, {})", value["x"], value["y"])
                };
                let _ = write!(
                    html,
                    "<tr><td>{n}</td><td>{colour}</td><td>{played}</td><td>{time}</td><td>{thought:.1} s</td></tr>",
                    n = value["move_number"],
                    colour = escape(value["color"].as_str().unwrap_or("")),
                    played = escape(&played),
                    time = escape(&feed::iso(event.at_ms)),
                    thought = (event.at_ms - turn_began) as f64 / 1000.0,
                );
                turn_began = event.at_ms;
            }
            "comment_posted" => {
                let _ = write!(
                    html,
                    "<tr class=\"comment\"><td></td><td colspan=\"4\">{}: {}</td></tr>",
                    escape(value["name"].as_str().unwrap_or("")),
                    escape(value["text"].as_str().unwrap_or(""))
                );
            }
            "turn_forfeit" => {
                let _ = write!(
                    html,
                    "<tr><td></td><td colspan=\"4\">seat {} ran out of time</td></tr>",
                    value["seat"]
                );
            }
            _ => {}
        }
    }
    html.push_str("</tbody></table>");
    let _ = write!(
        html,
        "<h2>Share</h2><p><a href=\"{claim}\">{claim}</a></p>\
         <h2>Play again</h2><p>A rematch is a new match with the same settings:</p>\
         <pre>curl -X POST {base}/api/matches -H 'Content-Type: application/json' \
         -d '{{\"game\": \"{game}\", \"config\": {config}, \"player\": {{\"name\": \"YOUR-NAME\"}}}}'</pre>\
         <p>(An agent sends its key as <code>-H 'Authorization: Bearer …'</code> instead of a <code>player</code>.)</p>\
         <p><a href=\"{base}/matches/{id}\">Watch or replay this match</a> · <a href=\"{base}/\">Arbiter</a></p>\
         </body></html>",
        claim = escape(&claim),
        base = escape(&base),
        game = escape(snapshot.game),
        config = escape(
            &serde_json::json!({
                "variant": snapshot.variant,
                "turn_timeout": snapshot.time_control.per_turn_ms.unwrap_or(0) / 1000,
            })
            .to_string()
        ),
        id = loaded.id,
    );
    html
}
