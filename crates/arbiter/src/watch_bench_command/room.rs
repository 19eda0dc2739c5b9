//! `arbiter bench-watch --room fate-tokens`: how fast a room's pages show what one of its
//! people did. People sit down at an open Fate Tokens table as the pages let them (each a
//! guest with its own cookies and CSRF value, from its own loopback address), reveal their
//! first token so that the long discussion begins, and then take turns saying a chat line,
//! posted as the page's script posts an action. Every other seat's page and every
//! spectator's page does what the script does: it waits on the match's event long-poll,
//! fetches `/matches/{id}/legs` (as its visitor: a seat with its cookies), and looks for the
//! line in the fragment. The latency of a (reader, line) pair is the time from the line's
//! POST to that reader having a fragment that shows it.
//!
//! The next line is said once every reader has seen the last one and a short pause has let
//! the readers' long-polls park again, so that each line wakes a room at rest.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};

use crate::bench_command::{Server, find, p99_by_second, percentile};

/// The longest a reader may take to show a line, or a setup step to happen, before the run
/// fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// What the room mode measures.
pub(crate) struct RoomOptions {
    /// The variant of the table (`standard` or `quick`).
    pub(crate) variant: String,
    /// People seated, 4 to 8.
    pub(crate) seats: usize,
    pub(crate) spectators: usize,
    /// Chat lines said, by the seats in turn.
    pub(crate) actions: usize,
    /// Spectators per loopback address.
    pub(crate) per_address: usize,
    /// The pause between every reader having seen a line and the next line.
    pub(crate) pause: Duration,
    pub(crate) database_dir: Option<std::path::PathBuf>,
}

/// One line said: which it is, what it says, and when its POST went out.
#[derive(Clone)]
struct Said {
    index: usize,
    text: String,
    sent: Instant,
}

/// What a reader tells the run.
enum Report {
    /// Reader `reader` has a fragment showing line `index`: microseconds from the line's POST
    /// to the long-poll's answer and to the fragment.
    Seen {
        reader: usize,
        index: usize,
        woken_us: u32,
        shown_us: u32,
        bytes: usize,
    },
    /// Reader `reader` fetched a fragment that did not show the awaited line.
    Stale,
    /// Reader `reader` failed.
    Failed(String),
}

/// Who reads: a seat (by number) or a spectator.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    Seat(usize),
    Spectator,
}

pub(crate) async fn run(options: RoomOptions) -> anyhow::Result<()> {
    if !(4..=8).contains(&options.seats) {
        bail!("--seats must be 4 to 8 for Fate Tokens");
    }
    let _ = crate::open_files::raise_limit();
    let server = Server::start(options.database_dir.as_deref(), None)?;
    let root = server.base.trim_end_matches("/api/v1").to_owned();
    let address: SocketAddr = root.trim_start_matches("http://").parse()?;

    // The people, each a guest from an address of its own (guests are limited per address).
    let mut people = Vec::with_capacity(options.seats);
    let mut match_id = None;
    for seat in 0..options.seats {
        let local = IpAddr::V4(Ipv4Addr::new(127, 0, 250, (2 + seat) as u8));
        let (person, id) = Person::sit_down(address, local, match_id, &options).await?;
        match_id = Some(id);
        people.push(person);
    }
    let id = match_id.context("a table")?;
    println!(
        "server: {root} (pid {}), Fate Tokens {} table {id}: {} people seated, {} spectators",
        server.child.id(),
        options.variant,
        options.seats,
        options.spectators
    );

    // Everyone reveals a token as a person clicks the first button offered, so that the draw
    // phase ends and the discussion (seven minutes in `standard`) holds the measurement.
    for person in &mut people {
        let button = person
            .wait_for_button(id, |action| action["type"] == "reveal")
            .await?;
        person.act(id, &button).await?;
    }
    let mut revisions = Vec::with_capacity(people.len());
    for person in &mut people {
        let ready = person
            .wait_for_button(id, |action| action["type"] == "ready")
            .await?;
        revisions.push((ready.leg, ready.revision));
    }

    // The readers: every seat's page (the one that speaks is counted apart), and the
    // spectators'.
    let (said_tx, said_rx) = watch::channel::<Option<Said>>(None);
    let (report_tx, mut reports) = mpsc::unbounded_channel();
    let mut whos = Vec::new();
    let mut readers = Vec::new();
    for (seat, person) in people.iter().enumerate() {
        let conn = Conn::open(address, person.conn.local).await?;
        whos.push(Who::Seat(seat));
        readers.push(Reader {
            number: whos.len() - 1,
            conn,
            cookies: person.cookies.clone(),
        });
    }
    for index in 0..options.spectators {
        let group = index / options.per_address.max(1);
        let local = IpAddr::V4(Ipv4Addr::new(
            127,
            0,
            (group / 250) as u8,
            (2 + group % 250) as u8,
        ));
        let conn = Conn::open(address, local)
            .await
            .with_context(|| format!("a spectator's connection from {local}"))?;
        whos.push(Who::Spectator);
        readers.push(Reader {
            number: whos.len() - 1,
            conn,
            cookies: String::new(),
        });
    }
    let mut tasks = Vec::with_capacity(readers.len());
    for reader in readers {
        tasks.push(tokio::spawn(reader.run(
            id,
            options.actions,
            said_rx.clone(),
            report_tx.clone(),
        )));
    }
    drop(report_tx);
    // Let every reader load its page and park its first long-poll.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let tag = std::process::id();
    let started = Instant::now();
    let cpu_before = server.cpu_seconds();
    let mut stale = 0u64;
    let mut samples: Vec<(Who, usize, u32, u32)> = Vec::new();
    let mut own_post = Vec::with_capacity(options.actions);
    let mut bytes = (0usize, 0usize);
    for index in 0..options.actions {
        let speaker = index % people.len();
        let text = format!("line {index} of bench {tag}");
        let action = json!({"type": "chat", "channel": "everyone", "text": text});
        let (leg, revision) = revisions[speaker];
        let sent = Instant::now();
        said_tx.send_replace(Some(Said {
            index,
            text: text.clone(),
            sent,
        }));
        let button = Button {
            leg,
            revision,
            action: action.to_string(),
        };
        people[speaker].act(id, &button).await?;
        own_post.push(micros(sent, Instant::now()));
        // The speaker's page fetches its legs again after the answer, as the script does.
        people[speaker].legs(id).await?;
        let mut waiting = whos.len();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while waiting > 0 {
            let report = tokio::time::timeout_at(deadline, reports.recv())
                .await
                .with_context(|| {
                    format!("{waiting} readers had not seen line {index} after {PATIENCE:?}")
                })?
                .context("every reader stopped")?;
            match report {
                Report::Seen {
                    reader,
                    index: seen,
                    woken_us,
                    shown_us,
                    bytes: size,
                } => {
                    if seen != index {
                        bail!(
                            "reader {reader} reported line {seen} while line {index} was awaited"
                        );
                    }
                    waiting -= 1;
                    let who = whos[reader];
                    if who == Who::Seat(speaker) {
                        continue;
                    }
                    match who {
                        Who::Seat(_) => bytes.0 = size,
                        Who::Spectator => bytes.1 = size,
                    }
                    let second = usize::try_from((sent - started).as_secs()).unwrap_or(0);
                    samples.push((who, second, woken_us, shown_us));
                }
                Report::Stale => stale += 1,
                Report::Failed(error) => bail!("a reader failed: {error}"),
            }
        }
        tokio::time::sleep(options.pause).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let server_cpu = server
        .cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    for task in tasks {
        task.await??;
    }

    let seat_samples = samples.iter().filter(|s| s.0 != Who::Spectator).count();
    let spectator_samples = samples.len() - seat_samples;
    let others = options.seats - 1;
    println!(
        "updated: seats {seat_samples} of {} ({others} other seats x {} lines), spectators {spectator_samples} of {} ({} x {} lines)",
        others * options.actions,
        options.actions,
        options.spectators * options.actions,
        options.spectators,
        options.actions,
    );
    println!(
        "{} lines in {elapsed:.1} s; {stale} fragments fetched that did not show the awaited line",
        options.actions
    );
    let report = |label: &str, keep: &dyn Fn(Who) -> bool| {
        let mut shown: Vec<u32> = samples.iter().filter(|s| keep(s.0)).map(|s| s.3).collect();
        let mut woken: Vec<u32> = samples.iter().filter(|s| keep(s.0)).map(|s| s.2).collect();
        shown.sort_unstable();
        woken.sort_unstable();
        println!(
            "{label}: line POST -> fragment showing it: {} | -> long-poll answered: {}",
            quantiles(&shown),
            quantiles(&woken)
        );
    };
    report("all readers", &|_| true);
    report("other seats", &|who| who != Who::Spectator);
    report("spectators ", &|who| who == Who::Spectator);
    let by_second: Vec<(u64, u32)> = samples.iter().map(|s| (s.1 as u64, s.3)).collect();
    let p99s = p99_by_second(&by_second);
    if !p99s.is_empty() {
        println!(
            "p99 of each second: best {:.2} ms, median {:.2} ms, worst {:.2} ms ({} seconds)",
            percentile(&p99s, 0.0),
            percentile(&p99s, 0.5),
            percentile(&p99s, 1.0),
            p99s.len()
        );
    }
    own_post.sort_unstable();
    println!(
        "the line's own POST: p50 {:.2} ms, max {:.2} ms; fragment sizes: a seat's {} bytes, a spectator's {} bytes (at the end)",
        percentile(&own_post, 0.5),
        percentile(&own_post, 1.0),
        bytes.0,
        bytes.1
    );
    if let Some(cpu) = server_cpu {
        println!(
            "the server's CPU: {:.2} ms per line ({:.1} µs per reader updated; the speaker's own requests and the pauses included)",
            cpu * 1e3 / options.actions.max(1) as f64,
            cpu * 1e6 / samples.len().max(1) as f64
        );
    }
    Ok(())
}

/// `p50, p90, p99, max` of sorted microseconds, in milliseconds.
fn quantiles(sorted: &[u32]) -> String {
    format!(
        "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(sorted, 0.5),
        percentile(sorted, 0.9),
        percentile(sorted, 0.99),
        percentile(sorted, 1.0)
    )
}

/// Microseconds from `from` to `to` (0 when `to` came first).
fn micros(from: Instant, to: Instant) -> u32 {
    u32::try_from(to.saturating_duration_since(from).as_micros()).unwrap_or(u32::MAX)
}

/// One reader's page: a seat's (with its cookies) or a spectator's.
struct Reader {
    number: usize,
    conn: Conn,
    cookies: String,
}

impl Reader {
    /// Follows the match as the page's script does until it has seen `actions` lines.
    async fn run(
        mut self,
        id: i64,
        actions: usize,
        said: watch::Receiver<Option<Said>>,
        reports: mpsc::UnboundedSender<Report>,
    ) -> anyhow::Result<()> {
        let result = self.follow(id, actions, said, &reports).await;
        if let Err(error) = &result {
            let _ = reports.send(Report::Failed(format!("reader {}: {error:#}", self.number)));
        }
        result
    }

    async fn follow(
        &mut self,
        id: i64,
        actions: usize,
        said: watch::Receiver<Option<Said>>,
        reports: &mpsc::UnboundedSender<Report>,
    ) -> anyhow::Result<()> {
        let legs = format!("/matches/{id}/legs");
        let first = self.conn.get(&legs, &self.cookies).await?;
        let mut since = data_since(&first.body).context("a fragment without data-since")?;
        let mut next = 0;
        while next < actions {
            let path = format!("/api/v1/matches/{id}/events?since={since}&wait=25");
            let page = self.conn.get(&path, &self.cookies).await?;
            let woken = Instant::now();
            let page: Value = serde_json::from_slice(&page.body).context("an events page")?;
            let events = page["events"].as_array().map_or(0, Vec::len);
            if events == 0 {
                continue;
            }
            since = page["next_since"].as_i64().context("next_since")?;
            let fragment = self.conn.get(&legs, &self.cookies).await?;
            let shown = Instant::now();
            let awaited = said.borrow().clone().filter(|s| s.index == next);
            match awaited {
                Some(line) if find(&fragment.body, line.text.as_bytes()).is_some() => {
                    next += 1;
                    let _ = reports.send(Report::Seen {
                        reader: self.number,
                        index: line.index,
                        woken_us: micros(line.sent, woken),
                        shown_us: micros(line.sent, shown),
                        bytes: fragment.body.len(),
                    });
                }
                _ => {
                    let _ = reports.send(Report::Stale);
                }
            }
        }
        Ok(())
    }
}

/// A button of a person's page: the fields its form posts.
struct Button {
    leg: u64,
    revision: u64,
    /// The action as JSON text.
    action: String,
}

/// A person at the table: a guest's cookies and CSRF value, and the connection its page's
/// own requests (moves, the fragment after one) go over.
struct Person {
    conn: Conn,
    cookies: String,
    csrf: String,
}

impl Person {
    /// A new guest from `local` opens the table (`table` is `None`) or sits down at it;
    /// returns the person and the table's match id.
    async fn sit_down(
        server: SocketAddr,
        local: IpAddr,
        table: Option<i64>,
        options: &RoomOptions,
    ) -> anyhow::Result<(Person, i64)> {
        let mut conn = Conn::open(server, local).await?;
        let mut jar = Jar::default();
        let page = conn.get("/tables", "").await?;
        jar.take(&page);
        let csrf = jar
            .get("arbiter_csrf")
            .context("no CSRF cookie")?
            .to_owned();
        let (path, form) = match table {
            None => (
                "/tables".to_owned(),
                form(&[
                    ("csrf", &csrf),
                    ("mode", &format!("fate-tokens:{}", options.variant)),
                    ("seats", &options.seats.to_string()),
                    ("clock", "30+0"),
                ]),
            ),
            Some(id) => (format!("/tables/{id}/join"), form(&[("csrf", &csrf)])),
        };
        let reply = conn
            .send("POST", &path, &jar.header(), Some(&form), "text/html")
            .await?;
        jar.take(&reply);
        let location = reply.header("location").unwrap_or_default();
        let id = location
            .strip_prefix("/matches/")
            .and_then(|id| id.parse().ok())
            .with_context(|| {
                format!(
                    "sitting down was answered {} to {}: {}",
                    reply.status,
                    location,
                    String::from_utf8_lossy(&reply.body)
                        .chars()
                        .take(300)
                        .collect::<String>()
                )
            })?;
        jar.get("arbiter_guest").context("no guest cookie")?;
        Ok((
            Person {
                conn,
                cookies: jar.header(),
                csrf,
            },
            id,
        ))
    }

    /// The person's legs fragment.
    async fn legs(&mut self, id: i64) -> anyhow::Result<Reply> {
        let reply = self
            .conn
            .get(&format!("/matches/{id}/legs"), &self.cookies)
            .await?;
        if reply.status != 200 {
            bail!("the legs fragment was answered {}", reply.status);
        }
        Ok(reply)
    }

    /// Waits, as the page does (long-poll, then the fragment again), until the person's page
    /// offers a button whose action `wanted` accepts.
    async fn wait_for_button(
        &mut self,
        id: i64,
        wanted: impl Fn(&Value) -> bool,
    ) -> anyhow::Result<Button> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let fragment = self.legs(id).await?;
            if let Some(button) = buttons(&fragment.body)
                .into_iter()
                .find(|b| serde_json::from_str(&b.action).is_ok_and(|a: Value| wanted(&a)))
            {
                return Ok(button);
            }
            if Instant::now() > deadline {
                bail!("the page offered no awaited button within {PATIENCE:?}");
            }
            let since = data_since(&fragment.body).context("a fragment without data-since")?;
            let path = format!("/api/v1/matches/{id}/events?since={since}&wait=5");
            self.conn.get(&path, &self.cookies).await?;
        }
    }

    /// Posts `button`'s action as the page's script does, and checks that it was accepted.
    async fn act(&mut self, id: i64, button: &Button) -> anyhow::Result<()> {
        let body = form(&[
            ("csrf", &self.csrf),
            ("leg", &button.leg.to_string()),
            ("revision", &button.revision.to_string()),
            ("action", &button.action),
        ]);
        let reply = self
            .conn
            .send(
                "POST",
                &format!("/matches/{id}/moves"),
                &self.cookies,
                Some(&body),
                "application/json",
            )
            .await?;
        let answer: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        if reply.status != 200 || answer["ok"] != true {
            bail!(
                "the action {} was refused ({}): {answer}",
                button.action,
                reply.status
            );
        }
        Ok(())
    }
}

/// The action buttons of a legs fragment: each form's `leg`, `revision` and `action`, and
/// the actions a board plays on itself (`data-action` elements in a board whose box says
/// `data-play="{leg} {revision}"`), as the page's script posts them.
fn buttons(html: &[u8]) -> Vec<Button> {
    let html = String::from_utf8_lossy(html);
    let value = |form: &str, name: &str| {
        let key = format!("name=\"{name}\" value=\"");
        let start = form.find(&key)? + key.len();
        let end = form[start..].find('"')? + start;
        Some(unescape(&form[start..end]))
    };
    let mut buttons: Vec<Button> = html
        .split("data-act>")
        .skip(1)
        .filter_map(|form| {
            Some(Button {
                leg: value(form, "leg")?.parse().ok()?,
                revision: value(form, "revision")?.parse().ok()?,
                action: value(form, "action")?,
            })
        })
        .collect();
    for board in html.split("data-play=\"").skip(1) {
        let Some((play, rest)) = board.split_once('"') else {
            continue;
        };
        let mut words = play.split_whitespace().map(str::parse::<u64>);
        let (Some(Ok(leg)), Some(Ok(revision))) = (words.next(), words.next()) else {
            continue;
        };
        let inside = rest.split("</div>").next().unwrap_or("");
        for element in inside.split("data-action=\"").skip(1) {
            if let Some((action, _)) = element.split_once('"') {
                buttons.push(Button {
                    leg,
                    revision,
                    action: unescape(action),
                });
            }
        }
    }
    buttons
}

/// The text of an HTML attribute's value.
fn unescape(text: &str) -> String {
    text.replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#60;", "<")
        .replace("&lt;", "<")
        .replace("&#62;", ">")
        .replace("&gt;", ">")
        .replace("&#38;", "&")
        .replace("&amp;", "&")
}

/// The fragment's `data-since`, where the page's script starts following the match.
fn data_since(html: &[u8]) -> Option<i64> {
    let key = b"data-since=\"";
    let start = find(html, key)? + key.len();
    let end = start + html[start..].iter().position(|&b| b == b'"')?;
    std::str::from_utf8(&html[start..end]).ok()?.parse().ok()
}

/// `application/x-www-form-urlencoded` fields.
fn form(fields: &[(&str, &str)]) -> String {
    let encode = |text: &str| {
        let mut out = String::with_capacity(text.len());
        for byte in text.bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
        out
    };
    fields
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A browser's cookies for this server: the values its `Set-Cookie` headers gave.
#[derive(Default)]
struct Jar(BTreeMap<String, String>);

impl Jar {
    fn take(&mut self, reply: &Reply) {
        for cookie in reply.headers("set-cookie") {
            let pair = cookie.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                self.0
                    .insert(name.trim().to_owned(), value.trim().to_owned());
            }
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// The `Cookie` header's value.
    fn header(&self) -> String {
        self.0
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// An answer: its status, its head and its body.
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn headers<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.head.lines().skip(1).filter_map(move |line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }

    fn header<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        self.headers(name).next()
    }
}

/// A keep-alive HTTP/1.1 connection from one loopback address, written by hand so that a
/// reader costs the CPU the server shares little; opened again when the server has closed it
/// while idle.
struct Conn {
    server: SocketAddr,
    local: IpAddr,
    stream: Option<TcpStream>,
    received: Vec<u8>,
}

impl Conn {
    async fn open(server: SocketAddr, local: IpAddr) -> anyhow::Result<Conn> {
        let mut conn = Conn {
            server,
            local,
            stream: None,
            received: Vec::with_capacity(16 * 1024),
        };
        conn.connect().await?;
        Ok(conn)
    }

    async fn connect(&mut self) -> anyhow::Result<()> {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket
            .bind(SocketAddr::new(self.local, 0))
            .with_context(|| format!("binding to {}", self.local))?;
        let stream = socket.connect(self.server).await?;
        stream.set_nodelay(true)?;
        self.stream = Some(stream);
        self.received.clear();
        Ok(())
    }

    async fn get(&mut self, path: &str, cookies: &str) -> anyhow::Result<Reply> {
        self.send("GET", path, cookies, None, "*/*").await
    }

    /// Sends a request (a form's body for a POST) and reads its answer. A connection the
    /// server closed before answering is opened again and the request sent once more.
    async fn send(
        &mut self,
        method: &str,
        path: &str,
        cookies: &str,
        body: Option<&str>,
        accept: &str,
    ) -> anyhow::Result<Reply> {
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: {accept}\r\n",
            self.server
        );
        if !cookies.is_empty() {
            request.push_str(&format!("Cookie: {cookies}\r\n"));
        }
        if let Some(body) = body {
            request.push_str(&format!(
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ));
        } else {
            request.push_str("\r\n");
        }
        for attempt in 0..2 {
            if self.stream.is_none() {
                self.connect().await?;
            }
            match self.exchange(request.as_bytes()).await {
                Ok(reply) => return Ok(reply),
                Err(error) if attempt == 0 && error.downcast_ref::<Closed>().is_some() => {
                    self.stream = None;
                }
                Err(error) => return Err(error),
            }
        }
        bail!("the server closed the connection twice")
    }

    async fn exchange(&mut self, request: &[u8]) -> anyhow::Result<Reply> {
        let stream = self.stream.as_mut().context("a connection")?;
        if stream.write_all(request).await.is_err() {
            return Err(Closed.into());
        }
        let end = loop {
            if let Some(end) = find(&self.received, b"\r\n\r\n") {
                break end;
            }
            if !self.read_more().await? {
                return Err(Closed.into());
            }
        };
        let head = String::from_utf8_lossy(&self.received[..end]).into_owned();
        self.received.drain(..end + 4);
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .context("an answer without a status")?;
        let mut reply = Reply {
            status,
            head,
            body: Vec::new(),
        };
        if let Some(length) = reply.header("content-length") {
            let length: usize = length.parse()?;
            while self.received.len() < length {
                if !self.read_more().await? {
                    bail!("the server closed the connection within a body");
                }
            }
            reply.body = self.received.drain(..length).collect();
        } else if reply
            .header("transfer-encoding")
            .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
        {
            reply.body = self.chunked().await?;
        }
        if reply
            .header("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"))
        {
            self.stream = None;
        }
        Ok(reply)
    }

    /// A chunked body.
    async fn chunked(&mut self) -> anyhow::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(end) = find(&self.received, b"\r\n") {
                    break end;
                }
                if !self.read_more().await? {
                    bail!("the server closed the connection within a body");
                }
            };
            let size_text = String::from_utf8_lossy(&self.received[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .context("a chunk's size")?;
            while self.received.len() < line_end + 2 + size + 2 {
                if !self.read_more().await? {
                    bail!("the server closed the connection within a body");
                }
            }
            body.extend_from_slice(&self.received[line_end + 2..line_end + 2 + size]);
            self.received.drain(..line_end + 2 + size + 2);
            if size == 0 {
                return Ok(body);
            }
        }
    }

    /// Reads what has arrived; false when the server closed the connection.
    async fn read_more(&mut self) -> anyhow::Result<bool> {
        let stream = self.stream.as_mut().context("a connection")?;
        match stream.read_buf(&mut self.received).await {
            Ok(0) | Err(_) => {
                self.stream = None;
                Ok(false)
            }
            Ok(_) => Ok(true),
        }
    }
}

/// The server closed a connection before answering.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the server closed the connection")
    }
}

impl std::error::Error for Closed {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fragment_s_buttons_are_read_with_their_fields() {
        let html = br#"<div id="legs" data-since="17"><form method="post" action="/matches/3/moves" data-act>
        <input type="hidden" name="csrf" value="x"><input type="hidden" name="leg" value="0"><input type="hidden" name="revision" value="4"><input type="hidden" name="action" value="{&#34;type&#34;:&#34;reveal&#34;,&#34;index&#34;:1}">
        <button type="submit">reveal 1</button></form></div>"#;
        let found = buttons(html);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].leg, found[0].revision), (0, 4));
        assert_eq!(found[0].action, r#"{"type":"reveal","index":1}"#);
        assert_eq!(data_since(html), Some(17));
    }

    #[test]
    fn forms_are_encoded_as_browsers_encode_them() {
        assert_eq!(
            form(&[("a", "x y"), ("action", r#"{"t":"5+0"}"#)]),
            "a=x%20y&action=%7B%22t%22%3A%225%2B0%22%7D"
        );
    }
}
