//! [`Metrics`]: the server's counters and gauges, each declared once (its name, its help, its
//! type) in a `prometheus-client` registry, and their OpenMetrics text for `GET /metrics`.

use jchomp_protocol::rules::GameResult;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The content type of [`Metrics::render`]'s text.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// One label and its value.
type Label = [(&'static str, &'static str); 1];

/// The values of the `result` label of `jchomp_games_finished_total`, in [`result_index`] order.
const RESULTS: [&str; 5] = ["poisoned", "tie", "timeout", "abandoned", "won"];

/// The values of the `status` label of `jchomp_rooms`.
const STATUSES: [&str; 3] = ["waiting", "playing", "finished"];

/// Declares [`Metrics`]: each metric once, as a field whose doc comment is its help text and
/// whose name is registered with it. A counter's name gets `_total` when rendered.
macro_rules! declare_metrics {
    ($( #[doc = $help:literal] $field:ident: $kind:ty = $name:literal, )*) => {
        /// Every counter and gauge of the server; updating one is an atomic operation.
        #[derive(Debug)]
        pub(crate) struct Metrics {
            registry: Registry,
            /// The counters of `games_finished` by label, taken out once so that counting a
            /// finished game takes no lock.
            finished_by: [Counter; RESULTS.len()],
            /// In a cluster: seconds from a request sent to another node to its answer.
            pub cluster_answer_seconds: Histogram,
            /// Seconds a room waited for its writes (a move, a start, a record) to be durable.
            pub durable_wait_seconds: Histogram,
            /// Seconds one journal append (its write, and its `fdatasync` when it syncs) took.
            pub journal_append_seconds: Histogram,
            /// Seconds one `fdatasync` of the journal took.
            pub journal_sync_seconds: Histogram,
            $( #[doc = $help] pub $field: $kind, )*
        }

        impl Metrics {
            /// Every metric at zero, registered under its name and help.
            fn declared() -> Self {
                let mut registry = Registry::default();
                $(
                    let $field = <$kind>::default();
                    registry.register($name, help($help), $field.clone());
                )*
                let cluster_answer_seconds = histogram(
                    &mut registry,
                    "jchomp_cluster_answer_seconds",
                    "In a cluster: seconds from a request sent to another node to its answer",
                    0.000_25,
                );
                let durable_wait_seconds = histogram(
                    &mut registry,
                    "jchomp_durable_wait_seconds",
                    "Seconds a room waited for its writes (a move, a start, a record) to be durable",
                    0.000_125,
                );
                let journal_append_seconds = histogram(
                    &mut registry,
                    "jchomp_journal_append_seconds",
                    "Seconds one journal append (its write, and its fdatasync when it syncs) took",
                    0.000_125,
                );
                let journal_sync_seconds = histogram(
                    &mut registry,
                    "jchomp_journal_sync_seconds",
                    "Seconds one fdatasync of the journal took",
                    0.000_125,
                );
                Metrics {
                    registry,
                    finished_by: Default::default(),
                    cluster_answer_seconds,
                    durable_wait_seconds,
                    journal_append_seconds,
                    journal_sync_seconds,
                    $( $field, )*
                }
            }
        }
    };
}

declare_metrics! {
    /// WebSocket connections open now.
    connections_open: Gauge = "jchomp_connections_open",
    /// WebSocket connections accepted.
    connections_total: Counter = "jchomp_connections",
    /// TCP connections refused at the connection cap.
    connections_refused: Counter = "jchomp_connections_refused",
    /// TCP connections refused at the per-address connection cap.
    connections_refused_address: Counter = "jchomp_connections_refused_address",
    /// WebSocket upgrades refused because a page of another origin asked (`Origin`).
    origins_refused: Counter = "jchomp_websocket_origins_refused",
    /// Rooms by status.
    rooms: Family<Label, Gauge> = "jchomp_rooms",
    /// Rooms created.
    rooms_created: Counter = "jchomp_rooms_created",
    /// Games finished, by result kind.
    games_finished: Family<Label, Counter> = "jchomp_games_finished",
    /// Game records committed to the database.
    games_stored: Counter = "jchomp_games_stored",
    /// Games in play brought back: from the database at start, or in a cluster from Redis.
    games_restored: Counter = "jchomp_games_restored",
    /// Game records that could not be stored.
    store_errors: Counter = "jchomp_store_errors",
    /// Accepted moves.
    moves: Counter = "jchomp_moves",
    /// Refused moves.
    moves_rejected: Counter = "jchomp_moves_rejected",
    /// Client messages received.
    messages_in: Counter = "jchomp_messages",
    /// Requests answered with bad_request.
    bad_requests: Counter = "jchomp_bad_requests",
    /// Connections closed for flooding.
    rate_limited: Counter = "jchomp_rate_limited",
    /// Connections dropped as slow readers.
    slow_disconnects: Counter = "jchomp_slow_disconnects",
    /// Analyses answered.
    analyses: Counter = "jchomp_analyses",
    /// In a cluster: messages sent to other nodes.
    cluster_sent: Counter = "jchomp_cluster_messages_sent",
    /// In a cluster: messages received from other nodes.
    cluster_received: Counter = "jchomp_cluster_messages_received",
    /// In a cluster: times this node stopped serving because its lease could not be proved.
    cluster_lapses: Counter = "jchomp_cluster_lease_lapses",
    /// Whether the classic Chomp database is loaded (1) or not yet (0).
    classic_db_ready: Gauge = "jchomp_classic_db_ready",
    /// Connections waiting in a quick-pairing pool now.
    pairing_waiting: Gauge = "jchomp_pairing_waiting",
    /// Rooms made by quick pairing.
    pairing_rooms: Counter = "jchomp_pairing_rooms",
}

impl Default for Metrics {
    /// Every metric at zero; every label value is listed from the start.
    fn default() -> Self {
        let mut m = Metrics::declared();
        m.finished_by = RESULTS.map(|r| m.games_finished.get_or_create_owned(&[("result", r)]));
        for status in STATUSES {
            m.rooms.get_or_create_owned(&[("status", status)]);
        }
        m
    }
}

/// A histogram of seconds registered under `name`: 16 buckets doubling from `first`.
fn histogram(registry: &mut Registry, name: &str, help: &str, first: f64) -> Histogram {
    let h = Histogram::new(exponential_buckets(first, 2.0, 16));
    registry.register(name, help, h.clone());
    h
}

/// A help text from a doc comment: trimmed, without the full stop the registry adds.
fn help(doc: &str) -> &str {
    let doc = doc.trim();
    doc.strip_suffix('.').unwrap_or(doc)
}

/// The index of a result's kind in [`RESULTS`].
fn result_index(result: &GameResult) -> usize {
    match result {
        GameResult::Poisoned { .. } => 0,
        GameResult::Tie => 1,
        GameResult::Timeout { .. } => 2,
        GameResult::Abandoned { .. } => 3,
        GameResult::Won { .. } => 4,
    }
}

/// Rooms by status, counted at scrape time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RoomCounts {
    /// Rooms waiting for players.
    pub waiting: usize,
    /// Rooms playing.
    pub playing: usize,
    /// Finished rooms still listed.
    pub finished: usize,
}

impl Metrics {
    /// Counts a finished game by how it ended.
    pub(crate) fn game_finished(&self, result: &GameResult) {
        self.finished_by[result_index(result)].inc();
    }

    /// The OpenMetrics text of every metric, with the room gauges set to `rooms`.
    pub(crate) fn render(&self, rooms: RoomCounts) -> String {
        let counts = [rooms.waiting, rooms.playing, rooms.finished];
        for (status, n) in STATUSES.into_iter().zip(counts) {
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            self.rooms.get_or_create(&[("status", status)]).set(n);
        }
        let mut out = String::with_capacity(4096);
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::error!(error = %e, "cannot encode the metrics");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_openmetrics_text() {
        let m = Metrics::default();
        m.moves.inc();
        m.moves.inc();
        m.game_finished(&GameResult::Tie);
        let text = m.render(RoomCounts {
            waiting: 1,
            playing: 2,
            finished: 3,
        });
        assert!(text.contains("# TYPE jchomp_moves counter\njchomp_moves_total 2\n"));
        assert!(
            text.contains("# HELP jchomp_moves Accepted moves.\n"),
            "{text}"
        );
        assert!(text.contains("jchomp_rooms{status=\"playing\"} 2\n"));
        assert!(text.contains("jchomp_games_finished_total{result=\"tie\"} 1\n"));
        assert!(text.contains("jchomp_games_finished_total{result=\"timeout\"} 0\n"));
        assert!(text.contains("# TYPE jchomp_connections_open gauge\njchomp_connections_open 0\n"));
        assert!(text.ends_with("# EOF\n"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (_, value) = line.rsplit_once(' ').unwrap();
            value.parse::<f64>().unwrap();
        }
    }

    #[test]
    fn every_family_is_declared_once() {
        // OpenMetrics (and Prometheus's text format) refuse a second TYPE line for one name.
        let text = Metrics::default().render(RoomCounts::default());
        let mut seen = std::collections::HashSet::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let name = rest.split(' ').next().unwrap();
                assert!(
                    seen.insert(name.to_string()),
                    "{name} declared twice in\n{text}"
                );
            }
        }
        assert!(seen.len() > 10);
    }

    #[test]
    fn every_documented_metric_is_rendered() {
        let text = Metrics::default().render(RoomCounts::default());
        for line in [
            "jchomp_connections_open 0",
            "jchomp_connections_total 0",
            "jchomp_connections_refused_total 0",
            "jchomp_connections_refused_address_total 0",
            "jchomp_websocket_origins_refused_total 0",
            "jchomp_games_restored_total 0",
            "jchomp_cluster_messages_sent_total 0",
            "jchomp_cluster_messages_received_total 0",
            "jchomp_cluster_answer_seconds_count 0",
            "jchomp_durable_wait_seconds_count 0",
            "jchomp_journal_append_seconds_count 0",
            "jchomp_journal_sync_seconds_count 0",
            "jchomp_rooms{status=\"waiting\"} 0",
            "jchomp_rooms{status=\"finished\"} 0",
            "jchomp_rooms_created_total 0",
            "jchomp_games_finished_total{result=\"poisoned\"} 0",
            "jchomp_games_finished_total{result=\"abandoned\"} 0",
            "jchomp_games_stored_total 0",
            "jchomp_store_errors_total 0",
            "jchomp_moves_total 0",
            "jchomp_moves_rejected_total 0",
            "jchomp_messages_total 0",
            "jchomp_bad_requests_total 0",
            "jchomp_rate_limited_total 0",
            "jchomp_slow_disconnects_total 0",
            "jchomp_analyses_total 0",
            "jchomp_classic_db_ready 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }
}
