//! Bot streams across servers: a bot's stream may be held by one server while its matches run
//! on others.
//!
//! Each server tells the others, on [`PRESENCE`], which bots hold streams on it: at once when
//! a bot's count of streams changes, and in a roll call with every heartbeat. A report lapses
//! after [`REPORT_LIFE_MS`] unless renewed, so the streams of a server that died stop counting
//! soon after it. The server running a match sends each event for a bot with a stream
//! elsewhere to that server's feed subject (see [`feed_subject`]), which hands it to the bot's
//! streams there; a bot with a stream on another server counts as present where its matches
//! run. A new stream's report asks the servers running the bot's matches to send them again,
//! to that stream alone, as they are sent to a stream opened beside them.
//!
//! Only what one bot's stream is sent travels on its server's subject: a view for one seat
//! never goes anywhere another seat's stream could read it. On a bus no other server hears
//! ([`arbiter_bus::Bus::is_shared`]), none of this runs.

use std::sync::Arc;

use arbiter_bus::{Bus, Bytes};
use arbiter_store::BotId;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::live::SeatChoice;
use crate::snapshot::{Announcement, Decision, MatchSnapshot, MatchSummary, StreamEvent};
use crate::{Arena, ArenaError};

/// The subject every server reports its bots' streams on.
const PRESENCE: &str = "arbiter.presence";

/// How long a report of another server's streams holds unless renewed: a few heartbeats.
const REPORT_LIFE_MS: i64 = 5_000;

/// How many messages may wait to be sent to the other servers.
const QUEUE: usize = 8_192;

/// The subject a server hears its bots' relayed stream events on.
fn feed_subject(node: &str) -> String {
    crate::node_subject(node, "feed")
}

/// What the feeds hand the relay to send.
pub(crate) enum Outgoing {
    /// An event for `bot`'s streams on server `node`: all of them, or only `stream`.
    Feed {
        node: Arc<str>,
        bot: BotId,
        stream: Option<u64>,
        event: StreamEvent,
    },
    /// The number of `bot`'s streams here changed; `announce` names a new one.
    Streams {
        bot: BotId,
        streams: usize,
        snapshots: bool,
        announce: Option<u64>,
    },
}

/// A report on [`PRESENCE`].
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Report {
    /// `bot` now holds `streams` streams on `node`.
    Streams {
        node: String,
        bot: BotId,
        streams: usize,
        snapshots: bool,
        announce: Option<u64>,
    },
    /// Every bot with a stream on `node`: how many, and whether one asked for snapshots.
    Roll {
        node: String,
        bots: Vec<(BotId, usize, bool)>,
    },
}

/// A stream event as it travels, borrowed for sending: a plain struct, so that a decision's
/// request is read back directly as the exact text it was (a tagged enum or a flattened
/// struct is read through a buffer that cannot keep it). A snapshot's decisions travel beside
/// it for the same reason.
#[derive(Serialize)]
struct Sent<'a> {
    bot: BotId,
    stream: Option<u64>,
    about: Option<Announcement>,
    summary: Option<&'a MatchSummary>,
    challenger_seat: SeatChoice,
    decision: Option<&'a Decision>,
    game: Option<&'a str>,
    snapshot: Option<&'a MatchSnapshot>,
    turns: Option<&'a [Decision]>,
}

/// A stream event as it arrives.
#[derive(Deserialize)]
struct Received {
    bot: BotId,
    stream: Option<u64>,
    about: Option<Announcement>,
    summary: Option<MatchSummary>,
    challenger_seat: SeatChoice,
    decision: Option<Decision>,
    game: Option<String>,
    snapshot: Option<MatchSnapshot>,
    turns: Option<Vec<Decision>>,
}

/// The bytes of an event for `bot`'s streams, or `None` for an event that never travels.
fn encode(bot: BotId, stream: Option<u64>, event: &StreamEvent) -> Option<Vec<u8>> {
    let (about, summary, decision, snapshot) = match event {
        StreamEvent::Hello { .. } => return None,
        StreamEvent::Match {
            about,
            summary,
            snapshot,
        } => (Some(*about), Some(&**summary), None, snapshot),
        StreamEvent::Decision { decision, snapshot } => (None, None, Some(&**decision), snapshot),
    };
    // The snapshot's decisions go beside it; the rest of it is written as it is.
    let bare = snapshot.as_deref().map(|snapshot| MatchSnapshot {
        turns: None,
        ..snapshot.clone()
    });
    let sent = Sent {
        bot,
        stream,
        about,
        summary,
        challenger_seat: summary.map(|s| s.challenger_seat).unwrap_or_default(),
        decision,
        game: summary
            .map(|s| s.game)
            .or(snapshot.as_ref().map(|s| s.game)),
        snapshot: bare.as_ref(),
        turns: snapshot.as_ref().and_then(|s| s.turns.as_deref()),
    };
    serde_json::to_vec(&sent).ok()
}

/// The event in `bytes`, with its bot and target stream. The game is named by the games this
/// server runs (`game_id`): an event of a game it does not run, or that makes no sense, is
/// refused.
fn decode(
    bytes: &[u8],
    game_id: impl Fn(&str) -> Option<&'static str>,
) -> Option<(BotId, Option<u64>, StreamEvent)> {
    let received: Received = serde_json::from_slice(bytes).ok()?;
    let game = match received.game.as_deref() {
        Some(name) => Some(game_id(name)?),
        None => None,
    };
    let snapshot = match received.snapshot {
        Some(mut snapshot) => {
            snapshot.game = game?;
            snapshot.turns = received.turns;
            Some(Arc::new(snapshot))
        }
        None => None,
    };
    let event = match (received.about, received.summary, received.decision) {
        (Some(about), Some(mut summary), None) => {
            summary.game = game?;
            summary.challenger_seat = received.challenger_seat;
            StreamEvent::Match {
                about,
                summary: Arc::new(summary),
                snapshot,
            }
        }
        (None, None, Some(decision)) => StreamEvent::Decision {
            decision: Arc::new(decision),
            snapshot,
        },
        _ => return None,
    };
    Some((received.bot, received.stream, event))
}

/// Starts relaying streams to and from the other servers, for as long as the arena runs.
pub(crate) async fn start(arena: &Arena) -> Result<(), ArenaError> {
    let bus = arena.context.config.bus.clone();
    if !bus.is_shared() {
        return Ok(());
    }
    let unavailable = |e: arbiter_bus::BusError| ArenaError::Unavailable(e.to_string());
    let node = arena.context.config.node_id.clone();
    let mut reports = bus
        .subscribe(PRESENCE.to_owned())
        .await
        .map_err(unavailable)?;
    let mut feed = bus
        .subscribe(feed_subject(&node))
        .await
        .map_err(unavailable)?;
    let (sender, outgoing) = mpsc::channel(QUEUE);
    arena.identities.feeds.connect(sender.clone());
    tokio::spawn(send_out(bus, node, outgoing, arena.clone()));

    let listener = arena.clone();
    tokio::spawn(async move {
        loop {
            let message = tokio::select! {
                message = reports.next() => message,
                () = listener.context.stopped() => None,
            };
            let Some(message) = message else { break };
            match serde_json::from_slice::<Report>(&message.payload) {
                Ok(report) => heard(&listener, report, &sender).await,
                Err(error) => tracing::warn!(%error, "an unreadable report of streams"),
            }
        }
    });

    let listener = arena.clone();
    tokio::spawn(async move {
        let context = &listener.context;
        loop {
            let message = tokio::select! {
                message = feed.next() => message,
                () = context.stopped() => None,
            };
            let Some(message) = message else { break };
            let game_id = |name: &str| context.games.get(name).map(|family| family.id());
            match decode(&message.payload, game_id) {
                Some((bot, stream, event)) => {
                    listener.identities.feeds.send_relayed(bot, stream, &event);
                }
                None => tracing::warn!("an unreadable or unknown relayed stream event"),
            }
        }
    });
    Ok(())
}

/// Sends what the feeds queue, in order, until the arena stops.
async fn send_out(
    bus: Arc<dyn Bus>,
    node: String,
    mut outgoing: mpsc::Receiver<Outgoing>,
    arena: Arena,
) {
    loop {
        let out = tokio::select! {
            out = outgoing.recv() => out,
            () = arena.context.stopped() => None,
        };
        let Some(out) = out else { break };
        let (subject, payload) = match out {
            Outgoing::Feed {
                node: to,
                bot,
                stream,
                event,
            } => {
                let Some(payload) = encode(bot, stream, &event) else {
                    continue;
                };
                (feed_subject(&to), payload)
            }
            Outgoing::Streams {
                bot,
                streams,
                snapshots,
                announce,
            } => {
                let report = Report::Streams {
                    node: node.clone(),
                    bot,
                    streams,
                    snapshots,
                    announce,
                };
                (
                    PRESENCE.to_owned(),
                    serde_json::to_vec(&report).unwrap_or_default(),
                )
            }
        };
        if let Err(error) = bus.publish(subject, Bytes::from(payload)).await {
            tracing::warn!(%error, "cannot relay to another server");
        }
    }
}

/// Applies another server's report.
async fn heard(arena: &Arena, report: Report, relay: &mpsc::Sender<Outgoing>) {
    let feeds = &arena.identities.feeds;
    let until = arena.context.now() + REPORT_LIFE_MS;
    match report {
        Report::Streams { node, .. } | Report::Roll { node, .. }
            if node == arena.context.config.node_id => {}
        Report::Streams {
            node,
            bot,
            streams,
            snapshots,
            announce,
        } => {
            if feeds.note_remote(&node, bot, streams, snapshots, until) {
                arena.matches.note_remote_stream(bot, streams > 0);
            }
            if announce.is_some() {
                announce_to(
                    arena,
                    Arc::from(node.as_str()),
                    bot,
                    announce,
                    snapshots,
                    relay,
                )
                .await;
            }
        }
        Report::Roll { node, bots } => {
            let from: Arc<str> = Arc::from(node.as_str());
            for &(bot, streams, snapshots) in &bots {
                if feeds.note_remote(&node, bot, streams, snapshots, until) {
                    // News of these streams was lost, or this server has just started: they
                    // may have missed what their matches here sent meanwhile.
                    arena.matches.note_remote_stream(bot, true);
                    announce_to(arena, from.clone(), bot, None, snapshots, relay).await;
                }
            }
            let listed: Vec<BotId> = bots.iter().map(|&(bot, _, _)| bot).collect();
            let now = arena.context.now();
            for bot in feeds.forget_remote(now, Some((&node, &listed))) {
                arena.matches.note_remote_stream(bot, false);
            }
        }
    }
}

/// Has the matches of `bot` this server runs sent again to its streams on server `node`: to
/// all of them, or only to the new one, `stream`.
async fn announce_to(
    arena: &Arena,
    node: Arc<str>,
    bot: BotId,
    stream: Option<u64>,
    snapshots: bool,
    relay: &mpsc::Sender<Outgoing>,
) {
    let (sender, mut events) = mpsc::channel(64);
    arena.matches.announce_open(bot, &sender, snapshots).await;
    drop(sender);
    let relay = relay.clone();
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            let out = Outgoing::Feed {
                node: node.clone(),
                bot,
                stream,
                event,
            };
            if relay.send(out).await.is_err() {
                break;
            }
        }
    });
}

/// Tells the other servers every bot with a stream here, and forgets their reports that
/// lapsed; run with each heartbeat.
pub(crate) async fn roll_call(arena: &Arena, now: i64) {
    let bus = &arena.context.config.bus;
    if !bus.is_shared() {
        return;
    }
    let feeds = &arena.identities.feeds;
    for bot in feeds.forget_remote(now, None) {
        arena.matches.note_remote_stream(bot, false);
    }
    let report = Report::Roll {
        node: arena.context.config.node_id.clone(),
        bots: feeds.local_streams(),
    };
    let payload = serde_json::to_vec(&report).unwrap_or_default();
    if let Err(error) = bus.publish(PRESENCE.to_owned(), Bytes::from(payload)).await {
        tracing::warn!(%error, "cannot tell the other servers which bots stream here");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_read_back_as_written() {
        let reports = [
            Report::Streams {
                node: "a".to_owned(),
                bot: 7,
                streams: 2,
                snapshots: true,
                announce: Some(3),
            },
            Report::Roll {
                node: "b".to_owned(),
                bots: vec![(1, 1, false), (2, 3, true)],
            },
        ];
        for report in reports {
            let bytes = serde_json::to_vec(&report).unwrap();
            assert_eq!(serde_json::from_slice::<Report>(&bytes).unwrap(), report);
        }
    }

    #[test]
    fn hello_never_travels() {
        let hello = StreamEvent::Hello {
            bot: 1,
            name: "x".to_owned(),
            server_now_ms: 0,
        };
        assert!(encode(1, None, &hello).is_none());
    }
}
