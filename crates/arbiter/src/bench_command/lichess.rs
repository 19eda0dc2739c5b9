//! `arbiter bench --dialect lichess`: the bots play chess through the Lichess dialect as its
//! clients do. In each pair White challenges Black (`POST /api/challenge/{name}`), Black
//! accepts, each side reads the game's stream (`GET /api/bot/game/stream/{id}`), and the side
//! whose turn a `gameState` line shows posts its move (`POST /api/bot/game/{id}/move/{uci}`)
//! on a connection of its own. A move is timed from just before its POST is written to the
//! arrival of the opponent's `gameState` line that holds it.
//!
//! The bots know no chess: they play a fixed sequence of knight moves that is legal from the
//! start position until the server draws the game by threefold repetition, and then the pair
//! starts another game. Reading the legal moves from the native API instead would add a
//! request to every turn for the bots' CPU to pay for, and that CPU is the server's too.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use anyhow::{Context, bail};
use serde_json::json;
use tokio::sync::mpsc;

use super::{Connection, Decision, Pacer, Stats, find, post, spawn_poster};

/// The game the bots are registered for.
pub(super) const GAME: &str = "chess";

/// White's moves, over and over: its knights through four positions, each once.
const WHITE: [&str; 4] = ["g1f3", "b1c3", "f3g1", "c3b1"];

/// Black's moves, over and over: its knights through six positions, each once. The square
/// only they visit, h5, is one White's knights never reach, and no knight of either side
/// ever checks the other king.
const BLACK: [&str; 6] = ["g8f6", "f6h5", "b8c6", "h5f6", "f6g8", "c6b8"];

/// Moves in each game. The two cycles bring the start position back every twelve moves of
/// each side (24 plies), and no other position comes back sooner, so the start position's
/// third occurrence is the game's first threefold repetition; the longer the game, the fewer
/// of the server's requests go to challenges rather than moves.
pub(super) const GAME_PLIES: usize = 48;

/// How every game ends, for the report.
pub(super) const GAME_ENDS: &str = "knight moves drawn by threefold repetition";

/// The move to play after `played` moves, in UCI notation.
fn knight_move(played: usize) -> &'static str {
    let turn = played / 2;
    if played.is_multiple_of(2) {
        WHITE[turn % WHITE.len()]
    } else {
        BLACK[turn % BLACK.len()]
    }
}

/// Plays games between two bots, White's token first, until told to stop.
pub(super) async fn run_pair(
    client: reqwest::Client,
    address: String,
    tokens: [String; 2],
    black_name: String,
    stats: Arc<Stats>,
    pacer: Option<Arc<Pacer>>,
) -> anyhow::Result<()> {
    let root = format!("http://{address}");
    let [white, black] = &tokens;
    let mut white_stream = Connection::open(&address, white).await?;
    let mut black_stream = Connection::open(&address, black).await?;
    let white_moves = spawn_poster(&address, white, &stats, pacer.as_ref(), false).await?;
    let black_moves = spawn_poster(&address, black, &stats, pacer.as_ref(), false).await?;
    // A clock far longer than any run: the bots never think, and a stall of the machine must
    // not end a game on time.
    let challenge = json!({
        "clock.limit": 600,
        "clock.increment": 0,
        "color": "white",
        "variant": "standard",
        "rated": false,
    })
    .to_string();
    while !stats.stop.load(Ordering::Relaxed) {
        let (status, created) = post(
            &client,
            format!("{root}/api/challenge/{black_name}"),
            white,
            challenge.clone(),
        )
        .await?;
        if status != 200 {
            bail!("challenge: {status} {created}");
        }
        let id: i64 = created["id"]
            .as_str()
            .and_then(|id| id.parse().ok())
            .with_context(|| format!("a challenge without an id: {created}"))?;
        let (status, body) = post(
            &client,
            format!("{root}/api/challenge/{id}/accept"),
            black,
            String::new(),
        )
        .await?;
        if status != 200 {
            bail!("accept: {status} {body}");
        }
        // Both sides read in this one task: only one of them has a line to read at a time
        // but for the mover's echo of its own move, which takes a microsecond or two.
        let (white_done, black_done) = tokio::join!(
            follow_game(&mut white_stream, id, 0, &white_moves, &stats),
            follow_game(&mut black_stream, id, 1, &black_moves, &stats),
        );
        white_done?;
        black_done?;
    }
    Ok(())
}

/// Reads one side's stream of game `id` to its end (`colour` 0 is White): times the
/// opponent's move in each `gameState` line that makes it this side's turn, and hands the
/// reply to the side's poster. As with the native stream, lines are scanned for the two
/// fields a bot needs rather than parsed, and reading never waits for a POST.
async fn follow_game(
    stream: &mut Connection,
    id: i64,
    colour: usize,
    poster: &mpsc::UnboundedSender<Decision>,
    stats: &Stats,
) -> anyhow::Result<()> {
    let (status, _) = stream
        .send("GET", &format!("/api/bot/game/stream/{id}"), "")
        .await?;
    if status != 200 {
        bail!("game stream {id} refused: {status}");
    }
    let mut buffer: Vec<u8> = Vec::with_capacity(4096);
    while stream.next_chunk(&mut buffer).await? {
        let mut read = 0;
        while let Some(end) = buffer[read..].iter().position(|&b| b == b'\n') {
            let line = &buffer[read..read + end];
            read += end + 1;
            // Keep-alives (empty lines) and chat lines carry no moves.
            let Some(moves) = text_after(line, br#""moves":""#) else {
                continue;
            };
            let played = if moves.is_empty() {
                0
            } else {
                1 + moves.iter().filter(|&&b| b == b' ').count()
            };
            let my_turn = played % 2 == colour;
            if my_turn && played > 0 {
                let key = (id, 0, u64::try_from(played)?);
                // A stream opened after the opponent's move shows it in its `gameFull`, which
                // is not timed: it includes opening the stream.
                if let Some(sent) = stats.take_sent(key)?
                    && find(line, br#""type":"gameFull""#).is_none()
                {
                    stats.record(sent, None)?;
                }
            }
            let game_status = text_after(line, br#""status":""#).unwrap_or_default();
            if game_status == b"started" {
                if my_turn && !stats.stop.load(Ordering::Relaxed) {
                    let _ = poster.send(Decision {
                        key: (id, 0, u64::try_from(played + 1)?),
                        path: format!("/api/bot/game/{id}/move/{}", knight_move(played)),
                        body: String::new(),
                    });
                }
            } else if colour == 0 {
                // The game is over; White's reader counts it, and says if it ended otherwise
                // than planned, which would mean the bots' moves are not what they meant.
                if stats.measuring.load(Ordering::Relaxed) {
                    stats.games.fetch_add(1, Ordering::Relaxed);
                }
                if game_status != b"draw" || played != GAME_PLIES {
                    stats.note_error(format!(
                        "game {id} ended {:?} after {played} moves",
                        String::from_utf8_lossy(game_status)
                    ));
                }
            }
        }
        buffer.drain(..read);
    }
    Ok(())
}

/// The contents of the JSON string right after `key` (`"moves":"` → `e2e4 e7e5`), up to its
/// closing quote; the fields read this way never hold an escaped quote.
fn text_after<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let start = find(line, key)? + key.len();
    let rest = &line[start..];
    let end = rest.iter().position(|&b| b == b'"')?;
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use arbiter_chess::cozy_chess::Board;
    use arbiter_chess::standard::parse_uci;
    use arbiter_chess::{EndReason, Orthodox};

    use super::*;

    #[test]
    fn the_knights_play_legally_until_the_game_is_drawn_by_repetition() {
        let mut game = Orthodox::new(Board::default(), false);
        for played in 0..GAME_PLIES {
            assert_eq!(game.status(), None, "over after {played} moves");
            let mv = knight_move(played);
            assert!(
                game.legal_uci().iter().any(|legal| legal == mv),
                "{mv} after {played} moves"
            );
            let mv = parse_uci(game.board(), mv, false).expect("a move");
            game.play(mv);
        }
        let end = game.status().expect("over");
        assert_eq!(
            (end.winner, end.reason),
            (None, EndReason::ThreefoldRepetition)
        );
    }

    #[test]
    fn a_game_states_fields_are_read_where_they_lie() {
        let line = br#"{"binc":0,"btime":600000,"moves":"g1f3 g8f6","status":"started","type":"gameState","winc":0,"wtime":600000}"#;
        assert_eq!(text_after(line, br#""moves":""#), Some(&b"g1f3 g8f6"[..]));
        assert_eq!(text_after(line, br#""status":""#), Some(&b"started"[..]));
        assert_eq!(text_after(b"", br#""moves":""#), None);
    }
}
