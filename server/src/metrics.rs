//! [`Metrics`]: the server's counters and gauges, rendered as Prometheus text for `GET /metrics`.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counters and gauges, updated with relaxed atomics from every task.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// WebSocket connections open now.
    pub connections_open: AtomicU64,
    /// WebSocket connections accepted since start.
    pub connections_total: AtomicU64,
    /// TCP connections refused because `max_connections` was reached.
    pub connections_refused: AtomicU64,
    /// Client messages received.
    pub messages_in: AtomicU64,
    /// Requests answered with `bad_request`.
    pub bad_requests: AtomicU64,
    /// Connections closed for flooding.
    pub rate_limited: AtomicU64,
    /// Connections dropped because their outgoing queue was full or a write stalled.
    pub slow_disconnects: AtomicU64,
    /// Rooms created since start.
    pub rooms_created: AtomicU64,
    /// Accepted moves.
    pub moves: AtomicU64,
    /// Refused moves.
    pub moves_rejected: AtomicU64,
    /// Games finished, by how they ended.
    pub games_poisoned: AtomicU64,
    /// Games ended in a tie.
    pub games_tie: AtomicU64,
    /// Games ended by a turn timeout.
    pub games_timeout: AtomicU64,
    /// Games ended by an abandoned seat.
    pub games_abandoned: AtomicU64,
    /// Game records committed to the database.
    pub games_stored: AtomicU64,
    /// Game records that failed to be stored.
    pub store_errors: AtomicU64,
}

/// Adds one to a counter.
pub(crate) fn inc(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Subtracts one from a gauge.
pub(crate) fn dec(c: &AtomicU64) {
    c.fetch_sub(1, Ordering::Relaxed);
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
    /// The Prometheus text exposition of every metric.
    pub(crate) fn render(&self, rooms: RoomCounts) -> String {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let mut out = String::with_capacity(2048);
        let mut metric = |name: &str, kind: &str, help: &str, lines: &[(&str, u64)]| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
            for (labels, value) in lines {
                let _ = writeln!(out, "{name}{labels} {value}");
            }
        };
        metric(
            "jchomp_connections",
            "gauge",
            "WebSocket connections open now.",
            &[("", get(&self.connections_open))],
        );
        metric(
            "jchomp_connections_total",
            "counter",
            "WebSocket connections accepted.",
            &[("", get(&self.connections_total))],
        );
        metric(
            "jchomp_connections_refused_total",
            "counter",
            "TCP connections refused at the connection cap.",
            &[("", get(&self.connections_refused))],
        );
        metric(
            "jchomp_rooms",
            "gauge",
            "Rooms by status.",
            &[
                ("{status=\"waiting\"}", rooms.waiting as u64),
                ("{status=\"playing\"}", rooms.playing as u64),
                ("{status=\"finished\"}", rooms.finished as u64),
            ],
        );
        metric(
            "jchomp_rooms_created_total",
            "counter",
            "Rooms created.",
            &[("", get(&self.rooms_created))],
        );
        metric(
            "jchomp_games_finished_total",
            "counter",
            "Games finished, by result kind.",
            &[
                ("{result=\"poisoned\"}", get(&self.games_poisoned)),
                ("{result=\"tie\"}", get(&self.games_tie)),
                ("{result=\"timeout\"}", get(&self.games_timeout)),
                ("{result=\"abandoned\"}", get(&self.games_abandoned)),
            ],
        );
        metric(
            "jchomp_games_stored_total",
            "counter",
            "Game records committed to the database.",
            &[("", get(&self.games_stored))],
        );
        metric(
            "jchomp_store_errors_total",
            "counter",
            "Game records that could not be stored.",
            &[("", get(&self.store_errors))],
        );
        metric(
            "jchomp_moves_total",
            "counter",
            "Accepted moves.",
            &[("", get(&self.moves))],
        );
        metric(
            "jchomp_moves_rejected_total",
            "counter",
            "Refused moves.",
            &[("", get(&self.moves_rejected))],
        );
        metric(
            "jchomp_messages_total",
            "counter",
            "Client messages received.",
            &[("", get(&self.messages_in))],
        );
        metric(
            "jchomp_bad_requests_total",
            "counter",
            "Requests answered with bad_request.",
            &[("", get(&self.bad_requests))],
        );
        metric(
            "jchomp_rate_limited_total",
            "counter",
            "Connections closed for flooding.",
            &[("", get(&self.rate_limited))],
        );
        metric(
            "jchomp_slow_disconnects_total",
            "counter",
            "Connections dropped as slow readers.",
            &[("", get(&self.slow_disconnects))],
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::default();
        inc(&m.moves);
        inc(&m.moves);
        inc(&m.games_tie);
        let text = m.render(RoomCounts {
            waiting: 1,
            playing: 2,
            finished: 3,
        });
        assert!(text.contains("# TYPE jchomp_moves_total counter\njchomp_moves_total 2\n"));
        assert!(text.contains("jchomp_rooms{status=\"playing\"} 2\n"));
        assert!(text.contains("jchomp_games_finished_total{result=\"tie\"} 1\n"));
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (_, value) = line.rsplit_once(' ').unwrap();
            value.parse::<u64>().unwrap();
        }
    }
}
