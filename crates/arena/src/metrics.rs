//! What the server reports to Prometheus: moves played, commit latency, open matches and
//! streams, lease takeovers, the bus's lag (how long requests forwarded to another server
//! took), and what went on direct links to the other servers. The counters are counted where
//! things happen; the gauges, and the links' counts, are read when a scrape asks, so that
//! nothing is counted twice.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The arena's metrics, shared by its services; each handle is an atomic.
pub(crate) struct Metrics {
    registry: Registry,
    /// Moves (actions) accepted, house bots' included.
    pub(crate) moves: Counter,
    /// Seconds each group commit took.
    pub(crate) commit_seconds: Histogram,
    /// Matches this server took over from a server that stopped or died.
    pub(crate) takeovers: Counter,
    /// Seconds each request forwarded to another server took, there and back.
    pub(crate) forwarded_seconds: Histogram,
    /// Open matches this server runs, set at each scrape.
    open_matches: Gauge,
    /// Open bot streams, set at each scrape.
    open_streams: Gauge,
    /// Messages written on direct links to other servers, brought up to the bus's count at
    /// each scrape.
    link_messages: Counter,
    /// Messages addressed to another server sent through NATS for want of a link, likewise.
    link_fallbacks: Counter,
}

impl Metrics {
    /// Every metric at zero.
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("arbiter");
        let moves = Counter::default();
        registry.register("moves", "Moves accepted by this server", moves.clone());
        // 50 µs to about 1.6 s: a commit to a local disk or database takes a millisecond or
        // two; much longer is what an operator looks for.
        let commit_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        registry.register(
            "store_commit_seconds",
            "How long each group commit of the store took",
            commit_seconds.clone(),
        );
        let takeovers = Counter::default();
        registry.register(
            "lease_takeovers",
            "Matches taken over from a server whose lease lapsed or was released",
            takeovers.clone(),
        );
        let forwarded_seconds = Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        registry.register(
            "forwarded_request_seconds",
            "How long each request forwarded over the bus to the server running its match took, there and back",
            forwarded_seconds.clone(),
        );
        let open_matches = Gauge::default();
        registry.register(
            "open_matches",
            "Pending and running matches this server runs",
            open_matches.clone(),
        );
        let open_streams = Gauge::default();
        registry.register(
            "open_streams",
            "Bot streams open on this server",
            open_streams.clone(),
        );
        let link_messages = Counter::default();
        registry.register(
            "link_messages",
            "Messages to another server written on the direct link to it",
            link_messages.clone(),
        );
        let link_fallbacks = Counter::default();
        registry.register(
            "link_fallbacks",
            "Messages to another server sent through NATS because no direct link to it could be had",
            link_fallbacks.clone(),
        );
        Metrics {
            registry,
            link_messages,
            link_fallbacks,
            moves,
            commit_seconds,
            takeovers,
            forwarded_seconds,
            open_matches,
            open_streams,
        }
    }

    /// The metrics in Prometheus's text format, with the gauges set to `open_matches` and
    /// `open_streams` and the links' counters brought up to `links` (a bus without links
    /// reports none).
    pub(crate) fn render(
        &self,
        open_matches: usize,
        open_streams: usize,
        links: Option<arbiter_bus::LinkCounts>,
    ) -> String {
        let links = links.unwrap_or_default();
        for (counter, total) in [
            (&self.link_messages, links.sent),
            (&self.link_fallbacks, links.fallbacks),
        ] {
            counter.inc_by(total.saturating_sub(counter.get()));
        }
        self.open_matches
            .set(i64::try_from(open_matches).unwrap_or(i64::MAX));
        self.open_streams
            .set(i64::try_from(open_streams).unwrap_or(i64::MAX));
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_metric_with_its_value() {
        let metrics = Metrics::new();
        metrics.moves.inc_by(3);
        metrics.takeovers.inc();
        metrics.commit_seconds.observe(0.002);
        metrics.forwarded_seconds.observe(0.001);
        let links = arbiter_bus::LinkCounts {
            sent: 40,
            fallbacks: 2,
        };
        let _ = metrics.render(0, 0, Some(arbiter_bus::LinkCounts::default()));
        let text = metrics.render(7, 2, Some(links));
        for line in [
            "arbiter_moves_total 3",
            "arbiter_lease_takeovers_total 1",
            "arbiter_open_matches 7",
            "arbiter_open_streams 2",
            "arbiter_store_commit_seconds_count 1",
            "arbiter_forwarded_request_seconds_count 1",
            "arbiter_link_messages_total 40",
            "arbiter_link_fallbacks_total 2",
            "# EOF",
        ] {
            assert!(text.lines().any(|l| l == line), "{line:?} in\n{text}");
        }
    }
}
