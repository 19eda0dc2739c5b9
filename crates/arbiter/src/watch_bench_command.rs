//! `arbiter bench-watch`: how fast a match's spectators hear of a move. It starts a server
//! process, opens a Gomoku match between two players, parks many spectators on the match's
//! event long-poll, and for each move measures the time from the move's `200` at its player
//! to each waiting spectator's response, and from the move's request, since the mover's own
//! answer competes with the spectators' for the same cores.
//!
//! The spectators come from many loopback addresses (127.0.0.2, 127.0.0.3, …), a few dozen
//! each, because the server bounds the requests without a token that one address may have
//! in flight, as it should for real clients.
//!
//! With `--room fate-tokens` it measures a room's pages instead ([`room`]): people seated at
//! an open Fate Tokens table say chat lines in turn, and every other seat's page and every
//! spectator's page is timed until the legs fragment it fetches shows the line.

mod room;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Barrier, watch};

use crate::bench_command::{ADMIN, Server, find};

/// Options of `arbiter bench-watch`.
#[derive(Args)]
pub(crate) struct WatchBenchArgs {
    /// Spectators waiting on the match's events (default: 1,000; with `--room`, 50).
    #[arg(long)]
    spectators: Option<usize>,
    /// Moves measured (each wakes every spectator once); at most 200.
    #[arg(long, default_value_t = 100)]
    moves: usize,
    /// Measure a room's pages instead: people seated at an open table of this game, whose
    /// actions every other seat's page and every spectator's page must show.
    #[arg(long, value_enum)]
    room: Option<Room>,
    /// With `--room`: the people seated (4 to 8).
    #[arg(long, default_value_t = 8)]
    seats: usize,
    /// With `--room`: the chat lines said, by the seats in turn.
    #[arg(long, default_value_t = 200)]
    actions: usize,
    /// With `--room`: the table's variant (`standard`'s discussion holds a whole run).
    #[arg(long, default_value = "standard")]
    variant: String,
    /// With `--room`: milliseconds between every page showing a line and the next line.
    #[arg(long, default_value_t = 30)]
    pause_ms: u64,
    /// Which long-poll the spectators wait on.
    #[arg(long, value_enum, default_value_t = Door::Bgp)]
    door: Door,
    /// Spectators per loopback address (the server's limit on requests without a token from
    /// one address is 64).
    #[arg(long, default_value_t = 50)]
    per_address: usize,
    /// Where the server's database goes (default: the system's temporary folder).
    #[arg(long)]
    database_dir: Option<std::path::PathBuf>,
}

/// The API whose match and long-poll the benchmark uses.
#[derive(Clone, Copy, ValueEnum)]
enum Door {
    /// Board Game Protocol v1: `/api/matches/{id}/events?since=N&wait=S`, guests with play
    /// tokens.
    Bgp,
    /// The native API: `/api/v1/matches/{id}/events?since=N&wait=S`, registered bots.
    Native,
}

/// A room whose pages `--room` measures.
#[derive(Clone, Copy, ValueEnum)]
enum Room {
    /// Fate Tokens: people at an open table, saying chat lines.
    FateTokens,
}

/// The players' side of the match: how to make the next move.
enum Players {
    Bgp { id: String, tokens: [String; 2] },
    Native { id: i64, tokens: [String; 2] },
}

/// The stone of move `n`: a filling of the board in which neither colour ever has three in a
/// row, so the game never ends. A point's colour is `(x / 2 + y) % 2`; the black points and the
/// white points are taken in order, alternately.
fn stone(n: usize, size: usize) -> (usize, usize) {
    let color = n % 2;
    let mut seen = 0;
    for y in 0..size {
        for x in 0..size {
            if (x / 2 + y) % 2 == color {
                if seen == n / 2 {
                    return (x, y);
                }
                seen += 1;
            }
        }
    }
    (0, 0)
}

pub(crate) async fn run(args: WatchBenchArgs) -> anyhow::Result<()> {
    if let Some(Room::FateTokens) = args.room {
        return room::run(room::RoomOptions {
            variant: args.variant,
            seats: args.seats,
            spectators: args.spectators.unwrap_or(50),
            actions: args.actions,
            per_address: args.per_address,
            pause: Duration::from_millis(args.pause_ms),
            database_dir: args.database_dir,
        })
        .await;
    }
    let spectators = args.spectators.unwrap_or(1_000);
    if args.moves > 200 {
        bail!("--moves is at most 200 (a 15x15 board has room for that many)");
    }
    let _ = crate::open_files::raise_limit();
    let server = Server::start(args.database_dir.as_deref(), None)?;
    let root = server.base.trim_end_matches("/api/v1").to_owned();
    let address: SocketAddr = root.trim_start_matches("http://").parse()?;
    let client = arbiter_http_client::builder().tcp_nodelay(true).build()?;
    let players = start_match(&client, &root, args.door).await?;
    let events_path = match &players {
        Players::Bgp { id, .. } => format!("/api/matches/{id}/events"),
        Players::Native { id, .. } => format!("/api/v1/matches/{id}/events"),
    };
    println!(
        "server: {root} (pid {}), {} spectators on {events_path}",
        server.child.id(),
        spectators
    );

    // Every spectator sends its request, reports at the barrier, and then waits for the
    // answer; the move goes out once every request is in and the server has had time to park
    // them.
    let barrier = Arc::new(Barrier::new(spectators + 1));
    let (moved_tx, moved_rx) = watch::channel::<Option<Moved>>(None);
    let mut tasks = Vec::new();
    for index in 0..spectators {
        let local = IpAddr::V4(Ipv4Addr::new(
            127,
            0,
            (index / args.per_address.max(1) / 250) as u8,
            (2 + index / args.per_address.max(1) % 250) as u8,
        ));
        let spectator = Spectator::open(address, local, events_path.clone()).await?;
        tasks.push(tokio::spawn(spectator.run(
            args.moves,
            barrier.clone(),
            moved_rx.clone(),
        )));
    }
    let mut seconds_by_move = Vec::new();
    let cpu_before = server.cpu_seconds();
    for n in 0..args.moves {
        barrier.wait().await;
        // The requests are written; give the server a moment to read and park them all.
        tokio::time::sleep(Duration::from_millis(30)).await;
        let started = Instant::now();
        play(&client, &root, &players, n).await?;
        let answered = Instant::now();
        moved_tx.send_replace(Some(Moved {
            sent: started,
            answered,
        }));
        seconds_by_move.push((answered - started).as_secs_f64());
    }
    let server_cpu = server
        .cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let (mut from_answer, mut from_request) = (Vec::new(), Vec::new());
    let mut early = 0;
    for task in tasks {
        for (answer_us, request_us) in task.await?? {
            if answer_us < 0 {
                early += 1;
            }
            from_answer.push(answer_us.max(0));
            from_request.push(request_us);
        }
    }
    println!(
        "wake-ups: {} ({} spectators x {} moves)",
        from_answer.len(),
        spectators,
        args.moves
    );
    println!(
        "from the move's 200 to a spectator's response: {}; {early} answered before the move's 200 (counted as 0)",
        quantiles(&mut from_answer)
    );
    println!(
        "from the move's request to a spectator's response: {}",
        quantiles(&mut from_request)
    );
    if let Some(cpu) = server_cpu {
        println!(
            "the server's CPU: {:.1} µs per wake-up (the moves', the re-sent long-polls' and the pauses' included)",
            cpu * 1e6 / from_answer.len().max(1) as f64
        );
    }
    seconds_by_move.sort_by(f64::total_cmp);
    println!(
        "the move's own request: p50 {:.2} ms, max {:.2} ms",
        seconds_by_move[seconds_by_move.len() / 2] * 1000.0,
        seconds_by_move.last().copied().unwrap_or_default() * 1000.0
    );
    Ok(())
}

/// When a move was sent and when its 200 arrived.
#[derive(Clone, Copy)]
struct Moved {
    sent: Instant,
    answered: Instant,
}

/// The p50, p90, p99 and maximum of microsecond samples, in milliseconds.
fn quantiles(samples: &mut [i64]) -> String {
    samples.sort_unstable();
    let at = |p: f64| {
        let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
        samples.get(index).copied().unwrap_or_default() as f64 / 1000.0
    };
    format!(
        "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}

/// The microseconds from `from` to `to`, negative when `to` came first.
fn micros_between(from: Instant, to: Instant) -> i64 {
    if to >= from {
        i64::try_from((to - from).as_micros()).unwrap_or(i64::MAX)
    } else {
        -i64::try_from((from - to).as_micros()).unwrap_or(i64::MAX)
    }
}

/// Opens the match the spectators watch, between two players of the benchmark's own.
async fn start_match(client: &reqwest::Client, root: &str, door: Door) -> anyhow::Result<Players> {
    match door {
        Door::Bgp => {
            let body = json!({"game": "gomoku", "config": {"board_size": 15, "turn_timeout": 3600}, "player": {"name": "bench-a"}});
            let created = send(client.post(format!("{root}/api/matches")).json(&body)).await?;
            let id = created["match_id"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| created["match_id"].as_i64().map(|i| i.to_string()))
                .context("a match id")?;
            let joined = send(
                client
                    .post(format!("{root}/api/matches/{id}/join"))
                    .json(&json!({"player": {"name": "bench-b"}})),
            )
            .await?;
            let token = |v: &Value| v["play_token"].as_str().map(str::to_owned);
            Ok(Players::Bgp {
                tokens: [
                    token(&created).context("a play token")?,
                    token(&joined).context("a play token")?,
                ],
                id,
            })
        }
        Door::Native => {
            let mut tokens = Vec::new();
            for name in ["bench-a", "bench-b"] {
                let body = json!({"name": name, "supported_variants": ["gomoku"]});
                let created = send(
                    client
                        .post(format!("{root}/api/v1/admin/bots"))
                        .bearer_auth(ADMIN)
                        .json(&body),
                )
                .await?;
                tokens.push(created["token"].as_str().context("a token")?.to_owned());
            }
            let body = json!({"opponent": "bench-b", "game": "gomoku", "variant": "freestyle", "format": "single", "time_control": {"initial_ms": 86_400_000}});
            let challenge = send(
                client
                    .post(format!("{root}/api/v1/challenges"))
                    .bearer_auth(&tokens[0])
                    .json(&body),
            )
            .await?;
            let id = challenge["id"].as_i64().context("a challenge id")?;
            send(
                client
                    .post(format!("{root}/api/v1/challenges/{id}/accept"))
                    .bearer_auth(&tokens[1])
                    .json(&json!({})),
            )
            .await?;
            let [a, b] = <[String; 2]>::try_from(tokens).map_err(|_| anyhow::anyhow!("tokens"))?;
            Ok(Players::Native { id, tokens: [a, b] })
        }
    }
}

/// Plays move `n` of the match.
async fn play(
    client: &reqwest::Client,
    root: &str,
    players: &Players,
    n: usize,
) -> anyhow::Result<()> {
    let (x, y) = stone(n, 15);
    match players {
        Players::Bgp { id, tokens } => {
            let body = json!({"type": "place_stone", "x": x, "y": y});
            send(
                client
                    .post(format!("{root}/api/matches/{id}/action"))
                    .header("X-Play-Token", &tokens[n % 2])
                    .json(&body),
            )
            .await?;
        }
        Players::Native { id, tokens } => {
            // A native move names the leg's revision, which is the number of moves so far.
            let body = json!({"leg": 0, "revision": n, "move": {"x": x, "y": y}});
            send(
                client
                    .post(format!("{root}/api/v1/matches/{id}/moves"))
                    .bearer_auth(&tokens[n % 2])
                    .json(&body),
            )
            .await?;
        }
    }
    Ok(())
}

/// Sends a request and returns its JSON body, failing on any status but 2xx.
async fn send(request: reqwest::RequestBuilder) -> anyhow::Result<Value> {
    let response = request.send().await?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        bail!("the server answered {status}: {body}");
    }
    Ok(body)
}

/// One spectator: a keep-alive connection from its own loopback address, long-polling the
/// match's events.
struct Spectator {
    stream: tokio::net::TcpStream,
    path: String,
    host: String,
    received: Vec<u8>,
}

impl Spectator {
    async fn open(server: SocketAddr, local: IpAddr, path: String) -> anyhow::Result<Spectator> {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket
            .bind(SocketAddr::new(local, 0))
            .with_context(|| format!("binding a spectator to {local}"))?;
        let stream = socket.connect(server).await?;
        stream.set_nodelay(true)?;
        Ok(Spectator {
            stream,
            path,
            host: server.to_string(),
            received: Vec::with_capacity(4096),
        })
    }

    /// Waits for `moves` moves; returns, per move, the microseconds to this spectator's
    /// response from the move's 200 (negative when the response came first) and from the
    /// move's request.
    async fn run(
        mut self,
        moves: usize,
        barrier: Arc<Barrier>,
        mut moved: watch::Receiver<Option<Moved>>,
    ) -> anyhow::Result<Vec<(i64, i64)>> {
        let mut since = self.poll(0, 0).await?;
        let mut latencies = Vec::with_capacity(moves);
        for _ in 0..moves {
            let request = format!(
                "GET {}?since={since}&wait=30 HTTP/1.1\r\nHost: {}\r\n\r\n",
                self.path, self.host
            );
            self.stream.write_all(request.as_bytes()).await?;
            moved.mark_unchanged();
            barrier.wait().await;
            let body = self.response().await?;
            let arrived = Instant::now();
            moved.changed().await?;
            let move_times = moved.borrow().context("a move's time")?;
            latencies.push((
                micros_between(move_times.answered, arrived),
                micros_between(move_times.sent, arrived),
            ));
            since = next_since(&body).context("a page without next_since")?;
        }
        Ok(latencies)
    }

    /// One request answered at once (`wait`), returning its `next_since`.
    async fn poll(&mut self, since: i64, wait: u64) -> anyhow::Result<i64> {
        let request = format!(
            "GET {}?since={since}&wait={wait} HTTP/1.1\r\nHost: {}\r\n\r\n",
            self.path, self.host
        );
        self.stream.write_all(request.as_bytes()).await?;
        let body = self.response().await?;
        next_since(&body).context("a page without next_since")
    }

    /// Reads one response with a `Content-Length`; returns its body.
    async fn response(&mut self) -> anyhow::Result<Vec<u8>> {
        loop {
            if let Some(end) = find(&self.received, b"\r\n\r\n") {
                let head = std::str::from_utf8(&self.received[..end])?;
                if !head.starts_with("HTTP/1.1 200") {
                    bail!(
                        "a spectator got {}",
                        head.lines().next().unwrap_or_default()
                    );
                }
                let length: usize = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().ok())?
                    })
                    .context("an answer without Content-Length")?;
                while self.received.len() < end + 4 + length {
                    self.read_more().await?;
                }
                let body = self.received[end + 4..end + 4 + length].to_vec();
                self.received.drain(..end + 4 + length);
                return Ok(body);
            }
            self.read_more().await?;
        }
    }

    async fn read_more(&mut self) -> anyhow::Result<()> {
        if self.stream.read_buf(&mut self.received).await? == 0 {
            bail!("the server closed a spectator's connection");
        }
        Ok(())
    }
}

/// The page's `next_since`.
fn next_since(body: &[u8]) -> Option<i64> {
    serde_json::from_slice::<Value>(body).ok()?["next_since"].as_i64()
}

#[cfg(test)]
mod tests {
    use super::stone;

    #[test]
    fn the_filling_never_makes_three_in_a_row_and_never_repeats_a_point() {
        let size = 15;
        let mut board = vec![vec![None; size]; size];
        for n in 0..200 {
            let (x, y) = stone(n, size);
            assert!(board[y][x].is_none(), "move {n} at ({x}, {y}) twice");
            board[y][x] = Some(n % 2);
        }
        let at = |x: i64, y: i64| (0..size as i64).contains(&x) && (0..size as i64).contains(&y);
        for y in 0..size as i64 {
            for x in 0..size as i64 {
                let Some(color) = board[y as usize][x as usize] else {
                    continue;
                };
                for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let run = (0..3).take_while(|k| {
                        let (px, py) = (x + k * dx, y + k * dy);
                        at(px, py) && board[py as usize][px as usize] == Some(color)
                    });
                    assert!(
                        run.count() < 3,
                        "three in a row from ({x}, {y}) along ({dx}, {dy})"
                    );
                }
            }
        }
    }
}
