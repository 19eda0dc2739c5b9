//! `arbiter bench`: the load harness. It starts a server process, lets simulated bots play
//! paired Othello matches over real HTTP (the NDJSON stream for turns, POSTs for moves), and
//! reports moves per second, the latency from a move's POST to the opponent's `turn` line,
//! the request rate of a trivial endpoint on the same server as the ceiling, and the
//! server's memory per idle stream. With `--dialect lichess` the bots play chess through the
//! Lichess dialect instead ([`lichess`]), and the latency is to the opponent's `gameState`
//! line. With `--nodes 2` (on `--postgres` and `--nats`), two server processes share the store
//! and the bus, and each pair's bots connect to different servers: every match runs on its
//! challenger's server, the other bot's moves are forwarded to it and its turn lines relayed
//! back, and the report adds the share of moves that crossed and the latency of each way.

mod lichess;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use futures::{StreamExt, TryStreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, mpsc};

/// Options of `arbiter bench`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    /// Paired matches played at the same time (with `--dialect lichess`: games, each between
    /// its own two bots).
    #[arg(long, default_value_t = 500)]
    matches: usize,
    /// The API the simulated bots speak.
    #[arg(long, value_enum, default_value_t = Dialect::Native)]
    dialect: Dialect,
    /// Seconds of play measured (after a short warm-up).
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Pace the bots to this many moves per second in all (default: as fast as they can).
    #[arg(long)]
    rate: Option<u64>,
    /// Idle streams opened to measure the server's memory per stream (0 to skip).
    #[arg(long, default_value_t = 2_000)]
    idle_streams: usize,
    /// Seconds spent measuring the trivial endpoint.
    #[arg(long, default_value_t = 5)]
    ceiling_seconds: u64,
    /// Where the server's database goes (default: the system's temporary folder). A memory
    /// file system (`/dev/shm`) measures the code rather than the disk.
    #[arg(long)]
    database_dir: Option<PathBuf>,
    /// Run the server on this PostgreSQL server (`postgres://user@host/database`), in a fresh
    /// schema dropped afterwards, rather than on an SQLite file.
    #[arg(long)]
    postgres: Option<String>,
    /// Server processes sharing the store and the bus (more than one needs `--postgres` and
    /// `--nats`); each pair's bots connect to different ones. Native dialect only.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=8))]
    nodes: u8,
    /// The NATS server the servers talk through, with `--nodes` above 1.
    #[arg(long)]
    nats: Option<String>,
    /// Has the servers carry everything between them through NATS, with no direct links.
    #[arg(long)]
    no_links: bool,
    /// With `--nodes` above 1, connects both bots of a pair to the same server, the pairs
    /// spread over the servers, so that no move crosses: what running several servers costs
    /// apart from the crossing.
    #[arg(long)]
    together: bool,
    /// Flushes timed to measure the raw `fdatasync` latency of the database's disk, printed
    /// beside the latencies (0 to skip).
    #[arg(long, default_value_t = 500)]
    fdatasync_samples: usize,
}

/// The API the simulated bots play through.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Dialect {
    /// The native API: paired Othello matches, `/api/v1/stream` and `/api/v1/matches/{id}/moves`.
    Native,
    /// The Lichess Bot API: chess games from `/api/challenge/{name}`, each side on
    /// `/api/bot/game/stream/{id}`, moves as `/api/bot/game/{id}/move/{uci}`.
    Lichess,
}

impl Dialect {
    /// The line that tells a bot of its opponent's move.
    fn turn_line(self) -> &'static str {
        match self {
            Dialect::Native => "turn",
            Dialect::Lichess => "gameState",
        }
    }
}

/// The administrator token of the servers the harness starts.
pub(crate) const ADMIN: &str = "bench-admin-token";

/// The server under test: a child process.
pub(crate) struct Server {
    pub(crate) child: Child,
    /// The native API's address (`http://127.0.0.1:PORT/api/v1`).
    pub(crate) base: String,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts a server on a fresh SQLite database in a new folder under `parent` (default:
    /// the system's temporary folder), or on the PostgreSQL `database` address.
    pub(crate) fn start(parent: Option<&Path>, database: Option<&str>) -> anyhow::Result<Server> {
        Server::start_with(parent, database, &[])
    }

    /// Like [`Server::start`], with more of `serve`'s options.
    pub(crate) fn start_with(
        parent: Option<&Path>,
        database: Option<&str>,
        options: &[String],
    ) -> anyhow::Result<Server> {
        let dir = match parent {
            Some(parent) => tempfile::tempdir_in(parent)
                .with_context(|| format!("making a folder in {}", parent.display()))?,
            None => tempfile::tempdir()?,
        };
        let database = match database {
            Some(url) => std::ffi::OsString::from(url),
            None => dir.path().join("bench.db").into_os_string(),
        };
        let mut child = Command::new(std::env::current_exe()?)
            .args(["serve", "--listen", "127.0.0.1:0", "--database"])
            .arg(database)
            .args(options)
            .env("ARBITER_ADMIN_TOKEN", ADMIN)
            .env(
                "RUST_LOG",
                std::env::var("ARBITER_BENCH_SERVER_LOG").unwrap_or_else(|_| "warn".to_owned()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting the server")?;
        let stdout = child.stdout.take().context("the server's output")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let address = line
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_owned();
        if !address.starts_with("http://") {
            bail!("the server did not start: {line:?}");
        }
        Ok(Server {
            child,
            base: format!("{address}/api/v1"),
            _dir: dir,
        })
    }

    /// Resident memory of the server process in KiB (Linux).
    fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// CPU time the server process has used, in seconds (Linux).
    pub(crate) fn cpu_seconds(&self) -> Option<f64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
        let ticks: f64 =
            fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
        Some(ticks / 100.0)
    }
}

/// When each move was posted, by (match, leg, revision after the move); in the Lichess
/// dialect, by (game, 0, moves played after it).
type SentMoves = HashMap<(i64, usize, u64), Instant>;

/// CPU time a process has used, in seconds, from `/proc/<pid>/stat` (Linux; `self` for this
/// process).
fn cpu_seconds_of(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Counters shared by the simulated bots.
#[derive(Default)]
struct Stats {
    measuring: AtomicBool,
    /// When measuring began.
    measuring_from: std::sync::OnceLock<Instant>,
    stop: AtomicBool,
    moves: AtomicU64,
    refused: AtomicU64,
    /// Games that ended while measuring (the Lichess dialect's).
    games: AtomicU64,
    /// Failures of the simulated bots, each of which ends a bot's or a pair's play, and the
    /// first one's message.
    errors: AtomicU64,
    first_error: std::sync::OnceLock<String>,
    /// Each latency sample with the second of the measurement it was taken in.
    latencies_us: Mutex<Vec<(u64, u32)>>,
    /// With several servers: moves posted to a server other than the match's, and the
    /// latencies of each way across (a forwarded move's line, sent where the match runs; a
    /// relayed line, sent to the other server).
    crossed: AtomicU64,
    forwarded_us: Mutex<Vec<u32>>,
    relayed_us: Mutex<Vec<u32>>,
    /// When each move was posted, sharded by match.
    sent: Vec<Mutex<SentMoves>>,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            sent: (0..64).map(|_| Mutex::new(HashMap::new())).collect(),
            ..Stats::default()
        }
    }

    fn shard(&self, match_id: i64) -> &Mutex<SentMoves> {
        &self.sent[usize::try_from(match_id.rem_euclid(64)).unwrap_or(0)]
    }

    /// When the move that `key` names was posted, forgotten as it is read.
    fn take_sent(&self, key: (i64, usize, u64)) -> anyhow::Result<Option<Instant>> {
        Ok(self
            .shard(key.0)
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .remove(&key))
    }

    /// Notes, while measuring, the latency of a move posted at `sent` whose line arrived now,
    /// and which way it crossed between servers, if it did.
    fn record(&self, sent: Instant, crossed: Option<Crossing>) -> anyhow::Result<()> {
        if !self.measuring.load(Ordering::Relaxed) {
            return Ok(());
        }
        let us = u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX);
        let way = match crossed {
            Some(Crossing::Forwarded) => Some(&self.forwarded_us),
            Some(Crossing::Relayed) => Some(&self.relayed_us),
            None => None,
        };
        if let Some(way) = way {
            way.lock()
                .map_err(|_| anyhow::anyhow!("poisoned"))?
                .push(us);
        }
        let second = self
            .measuring_from
            .get()
            .map_or(0, |from| from.elapsed().as_secs());
        self.latencies_us
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .push((second, us));
        Ok(())
    }

    /// Counts a failure; the first one's message is kept for the report. Failures after the
    /// measurement stopped are the harness tearing itself down, and are not counted.
    fn note_error(&self, error: String) {
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        self.errors.fetch_add(1, Ordering::Relaxed);
        let _ = self.first_error.set(error);
    }
}

/// Spawns a simulated bot's task, counting its failure in `stats`: a bot whose connection
/// failed would otherwise stop playing unseen, and the run report fewer moves than it should
/// without saying why.
fn spawn_reporting(
    stats: &Arc<Stats>,
    task: impl Future<Output = anyhow::Result<()>> + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    let stats = stats.clone();
    tokio::spawn(async move {
        if let Err(error) = task.await {
            stats.note_error(format!("{error:#}"));
        }
    })
}

/// Hands out evenly spaced send times for a paced run.
struct Pacer {
    start: Instant,
    interval_ns: u64,
    next: AtomicU64,
}

impl Pacer {
    async fn wait(&self) {
        let slot = self.next.fetch_add(self.interval_ns, Ordering::Relaxed);
        tokio::time::sleep_until((self.start + Duration::from_nanos(slot)).into()).await;
    }
}

struct Bot {
    token: String,
    finished: Notify,
    /// The address of the server it connects to.
    address: String,
    /// With several servers, how its opponent's moves reach it: the challenger's matches run
    /// on its own server, where the opponent's moves are forwarded; the opponent's lines are
    /// relayed to it.
    crossing: Option<Crossing>,
}

/// How a move crosses between servers on its way to the opponent's line.
#[derive(Clone, Copy)]
enum Crossing {
    /// Posted to the other server, forwarded to the match's.
    Forwarded,
    /// Posted to the match's server, its line relayed to the other.
    Relayed,
}

/// One keep-alive HTTP/1.1 connection, written by hand: the bots make tens of thousands of
/// requests a second on the same two cores as the server, and a general client's machinery
/// would be much of their cost. It relies on what the server always does: answers with a
/// `Content-Length`, and the stream in chunked encoding.
struct Connection {
    stream: tokio::net::TcpStream,
    /// The part of every request's head after the path.
    head: String,
    received: Vec<u8>,
}

impl Connection {
    async fn open(address: &str, token: &str) -> anyhow::Result<Connection> {
        let stream = tokio::net::TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            head: format!(
                " HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: "
            ),
            received: Vec::with_capacity(8192),
        })
    }

    /// Sends a request and reads the head of its answer; returns the status and the head's
    /// `Content-Length` (`None` for a chunked answer).
    async fn send(
        &mut self,
        method: &str,
        path: &str,
        body: &str,
    ) -> anyhow::Result<(u16, Option<usize>)> {
        let request = format!("{method} {path}{}{}\r\n\r\n{body}", self.head, body.len());
        self.stream.write_all(request.as_bytes()).await?;
        loop {
            if let Some(end) = find(&self.received, b"\r\n\r\n") {
                let head = std::str::from_utf8(&self.received[..end])?;
                let status: u16 = head.get(9..12).unwrap_or_default().parse()?;
                let length = head.lines().find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().ok())?
                });
                self.received.drain(..end + 4);
                return Ok((status, length));
            }
            self.read_more().await?;
        }
    }

    /// Sends a request and reads the whole answer; returns the status.
    async fn call(&mut self, method: &str, path: &str, body: &str) -> anyhow::Result<u16> {
        let (status, length) = self.send(method, path, body).await?;
        let length = length.context("an answer without Content-Length")?;
        while self.received.len() < length {
            self.read_more().await?;
        }
        self.received.drain(..length);
        Ok(status)
    }

    /// Appends the next chunk of a chunked answer to `out`; false after the last one.
    async fn next_chunk(&mut self, out: &mut Vec<u8>) -> anyhow::Result<bool> {
        loop {
            if let Some(end) = find(&self.received, b"\r\n") {
                let size_line = std::str::from_utf8(&self.received[..end])?;
                let size = usize::from_str_radix(size_line.trim(), 16)?;
                let total = end + 2 + size + 2;
                if self.received.len() >= total {
                    out.extend_from_slice(&self.received[end + 2..end + 2 + size]);
                    self.received.drain(..total);
                    return Ok(size > 0);
                }
            }
            self.read_more().await?;
        }
    }

    async fn read_more(&mut self) -> anyhow::Result<()> {
        if self.stream.read_buf(&mut self.received).await? == 0 {
            bail!("the server closed the connection");
        }
        Ok(())
    }
}

/// Where `needle` first occurs in `haystack`.
pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn post(
    client: &reqwest::Client,
    url: String,
    token: &str,
    body: String,
) -> anyhow::Result<(u16, Value)> {
    let response = client
        .post(url)
        .bearer_auth(token)
        .body(body)
        .send()
        .await?;
    let status = response.status().as_u16();
    Ok((status, response.json().await.unwrap_or(Value::Null)))
}

/// The integer right after the first occurrence of `key` (`"leg":` → 1).
fn number_after(line: &[u8], key: &[u8]) -> Option<i64> {
    let start = find(line, key)? + key.len();
    let digits = &line[start..];
    let end = digits
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))
        .unwrap_or(digits.len());
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

/// Reads one bot's stream: notes the latency of every `turn` line as it arrives, and hands the
/// decision to the poster of its leg, which answers with the first legal move. Lines are
/// scanned for the few fields a bot needs rather than parsed: the server writes them in a fixed
/// order, and a load generator that parses every engine request would take the CPU it is meant
/// to measure. Reading never waits for a POST, so a line's latency is the server's alone and
/// not the time this bot spent on its other leg.
async fn run_bot(
    bot: Arc<Bot>,
    stats: Arc<Stats>,
    pacer: Option<Arc<Pacer>>,
) -> anyhow::Result<()> {
    let address = &bot.address;
    let mut listener = Connection::open(address, &bot.token).await?;
    let mut posters = Vec::with_capacity(2);
    // The opponent of a bot whose lines are relayed is the challenger, on the match's
    // server: this bot's moves are the ones forwarded.
    let crosses = matches!(bot.crossing, Some(Crossing::Relayed));
    for _ in 0..2 {
        posters.push(spawn_poster(address, &bot.token, &stats, pacer.as_ref(), crosses).await?);
    }
    let (status, _) = listener.send("GET", "/api/v1/stream", "").await?;
    if status != 200 {
        bail!("stream refused: {status}");
    }
    let mut buffer: Vec<u8> = Vec::with_capacity(8192);
    while listener.next_chunk(&mut buffer).await? {
        // Lines are read where they lie and dropped from the buffer together afterwards.
        let mut read = 0;
        while let Some(end) = buffer[read..].iter().position(|&b| b == b'\n') {
            let line = &buffer[read..=read + end];
            read += end + 1;
            // Turn lines, most of them and long, start with their type; others are searched.
            if !line.starts_with(br#"{"type":"turn""#) {
                if find(line, br#""type":"finished""#).is_some() {
                    bot.finished.notify_one();
                }
                continue;
            }
            let (Some(id), Some(leg), Some(revision)) = (
                number_after(line, br#""match_id":"#),
                number_after(line, br#""leg":"#).and_then(|l| usize::try_from(l).ok()),
                number_after(line, br#""revision":"#).and_then(|r| u64::try_from(r).ok()),
            ) else {
                continue;
            };
            if let Some(sent) = stats.take_sent((id, leg, revision))? {
                stats.record(sent, bot.crossing)?;
            }
            if stats.stop.load(Ordering::Relaxed) {
                continue;
            }
            let mv = number_after(line, br#""legal_moves":["#).unwrap_or(-1);
            if let Some(poster) = posters.get(leg) {
                let _ = poster.send(Decision {
                    key: (id, leg, revision + 1),
                    path: format!("/api/v1/matches/{id}/moves"),
                    body: format!(r#"{{"leg":{leg},"revision":{revision},"move":{mv}}}"#),
                });
            }
        }
        buffer.drain(..read);
    }
    Ok(())
}

/// A move to post: the request, and the key its opponent's line is found by in
/// [`Stats::sent`].
struct Decision {
    key: (i64, usize, u64),
    path: String,
    body: String,
}

/// Opens a connection of `token`'s and spawns [`post_moves`] on it; returns the queue of the
/// moves it is to post.
async fn spawn_poster(
    address: &str,
    token: &str,
    stats: &Arc<Stats>,
    pacer: Option<&Arc<Pacer>>,
    crosses: bool,
) -> anyhow::Result<mpsc::UnboundedSender<Decision>> {
    let connection = Connection::open(address, token).await?;
    let (decisions, queue) = mpsc::unbounded_channel();
    spawn_reporting(
        stats,
        post_moves(connection, queue, stats.clone(), pacer.cloned(), crosses),
    );
    Ok(decisions)
}

/// Posts one leg's (or one Lichess bot's) moves on its own connection, one at a time; a
/// poster that `crosses` posts to a server other than the match's.
async fn post_moves(
    mut connection: Connection,
    mut queue: mpsc::UnboundedReceiver<Decision>,
    stats: Arc<Stats>,
    pacer: Option<Arc<Pacer>>,
    crosses: bool,
) -> anyhow::Result<()> {
    while let Some(Decision { key, path, body }) = queue.recv().await {
        if let Some(pacer) = &pacer {
            pacer.wait().await;
        }
        stats
            .shard(key.0)
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?
            .insert(key, Instant::now());
        let status = connection.call("POST", &path, &body).await?;
        if status == 200 {
            if stats.measuring.load(Ordering::Relaxed) {
                stats.moves.fetch_add(1, Ordering::Relaxed);
                if crosses {
                    stats.crossed.fetch_add(1, Ordering::Relaxed);
                }
            }
        } else {
            stats.refused.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Registers a bot through the admin API, offering `variants` (none: the server's default);
/// returns its token.
async fn register(
    client: &reqwest::Client,
    base: &str,
    name: String,
    variants: &[&str],
) -> anyhow::Result<String> {
    let mut bot = json!({"name": name});
    if !variants.is_empty() {
        bot["supported_variants"] = json!(variants);
    }
    let (status, body) = post(client, format!("{base}/admin/bots"), ADMIN, bot.to_string()).await?;
    if status != 201 {
        bail!("registering {name}: {status} {body}");
    }
    Ok(body["token"].as_str().unwrap_or_default().to_owned())
}

async fn register_many(
    client: &reqwest::Client,
    base: &str,
    prefix: &str,
    count: usize,
    variants: &[&str],
) -> anyhow::Result<Vec<String>> {
    futures::stream::iter(
        (0..count).map(|i| register(client, base, format!("{prefix}{i}"), variants)),
    )
    .buffered(64)
    .try_collect()
    .await
}

/// Plays matches between `a` and `b` until told to stop: `a` challenges on its server, `b`
/// accepts on its own.
async fn run_pair(
    client: reqwest::Client,
    a: Arc<Bot>,
    b: Arc<Bot>,
    b_name: String,
    stats: Arc<Stats>,
) -> anyhow::Result<()> {
    while !stats.stop.load(Ordering::Relaxed) {
        let (status, created) = post(
            &client,
            format!("http://{}/api/v1/challenges", a.address),
            &a.token,
            json!({"opponent": b_name}).to_string(),
        )
        .await?;
        if status != 201 {
            bail!("challenge: {status} {created}");
        }
        let id = created["id"].as_i64().unwrap_or_default();
        let finished = a.finished.notified();
        let (status, body) = post(
            &client,
            format!("http://{}/api/v1/challenges/{id}/accept", b.address),
            &b.token,
            "{}".to_owned(),
        )
        .await?;
        if status != 200 {
            bail!("accept: {status} {body}");
        }
        finished.await;
    }
    Ok(())
}

/// The `p` quantile of sorted microseconds, in milliseconds (NaN when there are none).
pub(crate) fn percentile(sorted: &[u32], p: f64) -> f64 {
    quantile(sorted, p).map_or(f64::NAN, |us| f64::from(us) / 1_000.0)
}

fn quantile(sorted: &[u32], p: f64) -> Option<u32> {
    let last = sorted.len().checked_sub(1)?;
    let index = (last as f64 * p).round() as usize;
    sorted.get(index.min(last)).copied()
}

/// The p99 latency of each whole second of the measurement, sorted. A machine that stalls now
/// and then (a disk flush, a noisy neighbour) shows it here as a few bad seconds, which the
/// run's overall p99 cannot tell apart from a uniformly slow server.
pub(crate) fn p99_by_second(samples: &[(u64, u32)]) -> Vec<u32> {
    let mut by_second: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for &(second, us) in samples {
        by_second.entry(second).or_default().push(us);
    }
    let mut p99s: Vec<u32> = by_second
        .into_values()
        .filter(|second| second.len() >= 100)
        .filter_map(|mut second| {
            second.sort_unstable();
            quantile(&second, 0.99)
        })
        .collect();
    p99s.sort_unstable();
    p99s
}

pub(crate) async fn run(args: BenchArgs) -> anyhow::Result<()> {
    // Thousands of simulated bots hold three sockets each.
    let _ = crate::open_files::raise_limit();
    let nodes = usize::from(args.nodes);
    if nodes > 1 && (args.postgres.is_none() || args.nats.is_none()) {
        bail!("--nodes above 1 needs --postgres and --nats: the servers share both");
    }
    if nodes > 1 && args.dialect != Dialect::Native {
        bail!("--nodes above 1 runs the native dialect only");
    }
    let postgres = match &args.postgres {
        Some(url) => {
            Some(arbiter_store_postgres::testing::TestDatabase::create_at(url, "bench").await)
        }
        None => None,
    };
    let mut servers = Vec::with_capacity(nodes);
    for node in 0..nodes {
        let mut options = Vec::new();
        if let (true, Some(nats)) = (nodes > 1, &args.nats) {
            options.extend(["--nats".to_owned(), nats.clone()]);
            options.extend(["--node-id".to_owned(), format!("bench-{node}")]);
            if args.no_links {
                options.push("--no-links".to_owned());
            }
        }
        servers.push(Server::start_with(
            args.database_dir.as_deref(),
            postgres.as_ref().map(|database| database.url()),
            &options,
        )?);
    }
    let result = bench(&args, &servers).await;
    drop(servers);
    if let Some(database) = postgres {
        database.drop_schema().await;
    }
    result
}

/// `host:port` of a server's native API address.
fn address_of(server: &Server) -> String {
    server
        .base
        .trim_start_matches("http://")
        .trim_end_matches("/api/v1")
        .to_owned()
}

/// Waits until `token` works on `server`: a bot registered on one server is announced to the
/// others, which read it from the store.
async fn until_known(client: &reqwest::Client, server: &Server, token: &str) -> anyhow::Result<()> {
    for _ in 0..200 {
        let known = client
            .get(format!("{}/bots/me", server.base))
            .bearer_auth(token)
            .send()
            .await?
            .status()
            == 200;
        if known {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bail!(
        "{} never learnt of the bots registered elsewhere",
        server.base
    )
}

async fn bench(args: &BenchArgs, servers: &[Server]) -> anyhow::Result<()> {
    let server = &servers[0];
    let base = server.base.clone();
    let address = address_of(server);
    let client = arbiter_http_client::builder()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(usize::MAX)
        .build()?;
    for server in servers {
        println!("server: {} (pid {})", server.base, server.child.id());
    }

    let variants: &[&str] = match args.dialect {
        Dialect::Native => &[],
        Dialect::Lichess => &[lichess::GAME],
    };
    let tokens = register_many(&client, &base, "bench-", 2 * args.matches, variants).await?;
    let stats = Arc::new(Stats::new());
    let pacer = args.rate.map(|rate| {
        Arc::new(Pacer {
            start: Instant::now(),
            interval_ns: 1_000_000_000 / rate.max(1),
            next: AtomicU64::new(0),
        })
    });
    let mut tasks = Vec::new();
    match args.dialect {
        Dialect::Native => {
            if let (Some(last), true) = (tokens.last(), servers.len() > 1) {
                for other in &servers[1..] {
                    until_known(&client, other, last).await?;
                }
            }
            // Pair p's challenger connects to server p, its opponent to the next one (or to
            // the same one, `--together`).
            let several = servers.len() > 1 && !args.together;
            let bots: Vec<Arc<Bot>> = tokens
                .into_iter()
                .enumerate()
                .map(|(i, token)| {
                    let (pair, challenged) = (i / 2, i % 2 == 1);
                    let node = (pair + usize::from(several && challenged)) % servers.len();
                    let crossing = match (several, challenged) {
                        (false, _) => None,
                        (true, false) => Some(Crossing::Forwarded),
                        (true, true) => Some(Crossing::Relayed),
                    };
                    Arc::new(Bot {
                        token,
                        finished: Notify::new(),
                        address: address_of(&servers[node]),
                        crossing,
                    })
                })
                .collect();
            for bot in &bots {
                tasks.push(spawn_reporting(
                    &stats,
                    run_bot(bot.clone(), stats.clone(), pacer.clone()),
                ));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
            for pair in 0..args.matches {
                let (a, b) = (bots[2 * pair].clone(), bots[2 * pair + 1].clone());
                tasks.push(spawn_reporting(
                    &stats,
                    run_pair(
                        client.clone(),
                        a,
                        b,
                        format!("bench-{}", 2 * pair + 1),
                        stats.clone(),
                    ),
                ));
            }
        }
        Dialect::Lichess => {
            for (pair, sides) in tokens.chunks_exact(2).enumerate() {
                tasks.push(spawn_reporting(
                    &stats,
                    lichess::run_pair(
                        client.clone(),
                        address.clone(),
                        [sides[0].clone(), sides[1].clone()],
                        format!("bench-{}", 2 * pair + 1),
                        stats.clone(),
                        pacer.clone(),
                    ),
                ));
            }
        }
    }
    if let Some(pacer) = &pacer {
        pacer.next.store(
            u64::try_from(pacer.start.elapsed().as_nanos()).unwrap_or(0),
            Ordering::Relaxed,
        );
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let cpu_of = || -> Option<f64> { servers.iter().map(Server::cpu_seconds).sum() };
    let cpu_before = cpu_of();
    let own_cpu_before = cpu_seconds_of("self");
    let started = Instant::now();
    let _ = stats.measuring_from.set(started);
    stats.measuring.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    stats.measuring.store(false, Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    let cpu_used = cpu_of()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let own_cpu_used = cpu_seconds_of("self")
        .zip(own_cpu_before)
        .map(|(after, before)| after - before);
    let moves = stats.moves.load(Ordering::Relaxed);
    let crossed = stats.crossed.load(Ordering::Relaxed);
    let games = stats.games.load(Ordering::Relaxed);
    stats.stop.store(true, Ordering::Relaxed);
    for task in &tasks {
        task.abort();
    }
    let samples = stats
        .latencies_us
        .lock()
        .map_err(|_| anyhow::anyhow!("poisoned"))?
        .clone();
    let mut latencies: Vec<u32> = samples.iter().map(|&(_, us)| us).collect();
    latencies.sort_unstable();
    let p99_by_second = p99_by_second(&samples);
    let moves_per_s = moves as f64 / elapsed;
    tokio::time::sleep(Duration::from_millis(500)).await;

    // The ceiling: the cheapest endpoint of the same server stack, with the same client.
    let requests = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + Duration::from_secs(args.ceiling_seconds);
    let loops: Vec<_> = (0..64)
        .map(|_| {
            let (address, requests) = (address.clone(), requests.clone());
            tokio::spawn(async move {
                let Ok(mut connection) = Connection::open(&address, "none").await else {
                    return;
                };
                while Instant::now() < until {
                    if connection
                        .call("GET", "/api/v1/health", "")
                        .await
                        .is_ok_and(|s| s == 200)
                    {
                        requests.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for l in loops {
        let _ = l.await;
    }
    let ceiling = requests.load(Ordering::Relaxed) as f64 / args.ceiling_seconds as f64;

    println!();
    match args.dialect {
        Dialect::Native => println!(
            "paired matches at once   {} on {} server{}",
            args.matches,
            servers.len(),
            if servers.len() > 1 { "s" } else { "" }
        ),
        Dialect::Lichess => {
            println!(
                "Lichess games at once    {} (chess, {} moves each: {})",
                args.matches,
                lichess::GAME_PLIES,
                lichess::GAME_ENDS
            );
            println!(
                "games finished           {games} ({:.1}/s)",
                games as f64 / elapsed
            );
        }
    }
    if let Some(rate) = args.rate {
        println!("paced at                 {rate} moves/s");
    }
    println!(
        "moves/s                  {moves_per_s:.0} ({moves} moves in {elapsed:.1} s, {} refused)",
        stats.refused.load(Ordering::Relaxed)
    );
    if let Some(cpu) = cpu_used {
        println!(
            "servers' CPU             {:.2} cores ({:.1} µs per move)",
            cpu / elapsed,
            cpu * 1e6 / moves.max(1) as f64
        );
    }
    if let Some(cpu) = own_cpu_used {
        println!(
            "bots' CPU (this process) {:.2} cores ({:.1} µs per move)",
            cpu / elapsed,
            cpu * 1e6 / moves.max(1) as f64
        );
    }
    println!(
        "move POST -> opponent's {} line: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
        args.dialect.turn_line(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
        latencies.len()
    );
    if servers.len() > 1 {
        println!(
            "moves across servers     {crossed} ({:.0} %)",
            crossed as f64 * 100.0 / moves.max(1) as f64
        );
        for (way, samples) in [
            ("forwarded move -> line ", &stats.forwarded_us),
            ("move -> relayed line   ", &stats.relayed_us),
        ] {
            let mut samples = samples
                .lock()
                .map_err(|_| anyhow::anyhow!("poisoned"))?
                .clone();
            samples.sort_unstable();
            println!(
                "{way}  p50 {:.2} ms, p99 {:.2} ms ({} samples)",
                percentile(&samples, 0.5),
                percentile(&samples, 0.99),
                samples.len()
            );
        }
    }
    if !p99_by_second.is_empty() {
        println!(
            "p99 of each second:      best {:.2} ms, median {:.2} ms, worst {:.2} ms",
            percentile(&p99_by_second, 0.0),
            percentile(&p99_by_second, 0.5),
            percentile(&p99_by_second, 1.0),
        );
    }
    if args.fdatasync_samples > 0 {
        let flushes = fdatasync_latencies(server._dir.path(), args.fdatasync_samples)?;
        println!(
            "raw fdatasync there:     p50 {:.2} ms, p99 {:.2} ms ({} flushes of 4 KiB in {})",
            percentile(&flushes, 0.5),
            percentile(&flushes, 0.99),
            flushes.len(),
            server._dir.path().display()
        );
    }
    println!(
        "trivial endpoint         {ceiling:.0} requests/s (GET /api/v1/health, 64 connections)"
    );
    println!("moves/s ÷ requests/s     {:.2}", moves_per_s / ceiling);
    let errors = stats.errors.load(Ordering::Relaxed);
    if errors > 0 {
        println!(
            "bots' errors             {errors} (the first: {})",
            stats.first_error.get().map_or("", String::as_str)
        );
    }

    if args.idle_streams > 0 {
        let tokens = register_many(&client, &base, "idle-", args.idle_streams, &[]).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before = server.rss_kib();
        // Each dialect's bot stream: the native one greets, the Lichess event stream of a bot
        // with nothing to announce says nothing until its first keep-alive, but the server
        // has set it up by the time the response's head arrives.
        let (path, greets) = match args.dialect {
            Dialect::Native => ("/api/v1/stream", true),
            Dialect::Lichess => ("/api/stream/event", false),
        };
        let url = format!("http://{address}{path}");
        let mut streams = Vec::with_capacity(tokens.len());
        for chunk in tokens.chunks(100) {
            let opened = futures::future::join_all(
                chunk
                    .iter()
                    .map(|token| client.get(&url).bearer_auth(token).send()),
            )
            .await;
            for response in opened {
                let response = response?;
                if response.status() != 200 {
                    bail!("an idle stream refused: {}", response.status());
                }
                let mut body = response.bytes_stream();
                if greets {
                    let _hello = body.next().await;
                }
                streams.push(body);
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        let after = server.rss_kib();
        if let (Some(before), Some(after)) = (before, after) {
            let per = (after.saturating_sub(before)) as f64 / streams.len() as f64;
            println!(
                "idle streams             {} open ({path}): server RSS {before} KiB -> {after} KiB, {per:.1} KiB per stream",
                streams.len()
            );
        }
        drop(streams);
    }
    Ok(())
}

/// The time, in microseconds and sorted, of each of `samples` flushes (`fdatasync`) of a 4 KiB
/// write to a file in `dir`: what every commit of the database waits for at least, measured
/// on the same disk in the same run as the latencies it bounds.
fn fdatasync_latencies(dir: &Path, samples: usize) -> anyhow::Result<Vec<u32>> {
    use std::io::{Seek, Write};
    let path = dir.join("fdatasync-probe");
    let mut file = std::fs::File::create(&path)?;
    let block = [0x5a_u8; 4096];
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        file.seek(std::io::SeekFrom::Start(0))?;
        file.write_all(&block)?;
        let started = Instant::now();
        file.sync_data()?;
        times.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
    }
    drop(file);
    std::fs::remove_file(&path)?;
    times.sort_unstable();
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stalled_second_shows_as_the_worst_p99_only() {
        let mut samples = Vec::new();
        for second in 0..5u64 {
            // Second 3 stalled: its slowest three samples (1.5 %) took 50 ms.
            for i in 0..200u32 {
                let stalled = second == 3 && i >= 197;
                samples.push((second, if stalled { 50_000 } else { 500 + i }));
            }
        }
        // Too few samples to have a p99 of its own.
        samples.push((5, 90_000));
        let p99s = p99_by_second(&samples);
        assert_eq!(p99s.len(), 5);
        assert_eq!(p99s[..4], [697, 697, 697, 697]);
        assert_eq!(p99s[4], 50_000);
        assert_eq!(percentile(&p99s, 0.5), 0.697);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
