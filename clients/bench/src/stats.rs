//! What the load generator counts: latency samples with their percentiles (`Latencies`,
//! [`LatencySummary`]), errors by kind ([`Errors`]), one table's totals ([`Tally`]) and what a fault
//! run lived through ([`Survival`]).

use std::collections::BTreeMap;
use std::time::Duration;

/// Latency samples in microseconds; percentiles come from the sorted samples (exact, no
/// histogram buckets).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Latencies {
    micros: Vec<u32>,
}

impl Latencies {
    /// Adds one sample (saturating at about 71 minutes).
    pub(crate) fn record(&mut self, d: Duration) {
        self.micros
            .push(u32::try_from(d.as_micros()).unwrap_or(u32::MAX));
    }

    /// Adds every sample of `other`.
    pub(crate) fn merge(&mut self, mut other: Latencies) {
        self.micros.append(&mut other.micros);
    }

    /// p50, p90, p99 and the maximum (nearest-rank percentiles); all zero without samples.
    pub(crate) fn summary(mut self) -> LatencySummary {
        self.micros.sort_unstable();
        let v = &self.micros;
        let at = |q: f64| -> Duration {
            if v.is_empty() {
                return Duration::ZERO;
            }
            // Nearest rank: the smallest sample with at least q of all samples at or below it.
            let rank = (q * v.len() as f64).ceil() as usize;
            let i = rank.clamp(1, v.len()) - 1;
            Duration::from_micros(u64::from(v[i]))
        };
        LatencySummary {
            count: v.len(),
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: v
                .last()
                .map_or(Duration::ZERO, |&m| Duration::from_micros(u64::from(m))),
        }
    }
}

/// Percentiles of a set of latency samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatencySummary {
    /// Number of samples.
    pub count: usize,
    /// Median.
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Largest sample.
    pub max: Duration,
}

/// Errors counted by kind (`connect`, `move_rejected: already_eaten`, `closed`, …), with the
/// first message seen for each kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    kinds: BTreeMap<String, (u64, String)>,
}

impl Errors {
    /// Counts one error of `kind`; the first one's `detail` is kept as text.
    pub(crate) fn add(&mut self, kind: impl Into<String>, detail: impl std::fmt::Display) {
        let e = self
            .kinds
            .entry(kind.into())
            .or_insert_with(|| (0, detail.to_string()));
        e.0 += 1;
    }

    /// Adds every error of `other`.
    pub(crate) fn merge(&mut self, other: Errors) {
        for (kind, (n, detail)) in other.kinds {
            let e = self.kinds.entry(kind).or_insert((0, detail));
            e.0 += n;
        }
    }

    /// The total number of errors.
    pub fn total(&self) -> u64 {
        self.kinds.values().map(|(n, _)| n).sum()
    }

    /// Each kind with its count and first message, in kind order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64, &str)> {
        self.kinds
            .iter()
            .map(|(k, (n, d))| (k.as_str(), *n, d.as_str()))
    }
}

/// What one table (a room's worth of connections) counted over a run.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Connections this table opened.
    pub(crate) connected: usize,
    /// Moves (or echoed messages) answered inside the measurement window.
    pub in_window: u64,
    /// Moves (or echoed messages) answered in all.
    pub answered: u64,
    /// Games started (every seat joined).
    pub games_started: u64,
    /// Games every seat saw finish, with the result the rules give.
    pub games_finished: u64,
    /// Latencies of the moves answered inside the window.
    pub(crate) latencies: Latencies,
    /// The same for the moves that ended a game (also in `latencies`).
    pub(crate) final_latencies: Latencies,
    /// Against several nodes: the window's moves made by a seat connected to the node that
    /// plays its room (also in `latencies`).
    pub(crate) owner_node_latencies: Latencies,
    /// Against several nodes: the window's moves made by a seat connected to another node
    /// than its room's, relayed to it and back (also in `latencies`).
    pub(crate) other_node_latencies: Latencies,
    /// Joins asked again because the seat's node did not know the room yet (against
    /// several nodes: the room was created on another node a moment before).
    pub(crate) joins_again: u64,
    /// Under a fault (`--fault`): what the scripted players lived through.
    pub(crate) survival: Survival,
    /// What went wrong.
    pub errors: Errors,
}

impl Tally {
    /// Adds `other` to this tally.
    pub(crate) fn merge(&mut self, other: Tally) {
        self.connected += other.connected;
        self.in_window += other.in_window;
        self.answered += other.answered;
        self.games_started += other.games_started;
        self.games_finished += other.games_finished;
        self.latencies.merge(other.latencies);
        self.final_latencies.merge(other.final_latencies);
        self.owner_node_latencies.merge(other.owner_node_latencies);
        self.other_node_latencies.merge(other.other_node_latencies);
        self.joins_again += other.joins_again;
        self.survival.merge(other.survival);
        self.errors.merge(other.errors);
    }
}

/// What the tables of a fault run lived through (all zero in a run without a fault).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Survival {
    /// Connections opened again after a close, a drop or a silent server.
    pub reconnects: u64,
    /// Tables that gave up their room and started again with fresh connections (a waiting
    /// room whose node died, a seat that could not be resumed).
    pub restarts: u64,
    /// Moves the server refused (a move sent again after a snapshot, which was played already).
    pub refused: u64,
    /// Acknowledged moves (`moved`) that a later snapshot of the room lacks or contradicts.
    pub lost: u64,
    /// Moves or snapshots that contradict another client's view of the same room.
    pub forks: u64,
    /// The longest time a room made no move (between two moves first seen by any of its
    /// clients, within the window).
    pub longest_stall: Duration,
    /// For each table that moved again after the fault: the time from the fault to its first
    /// move after it.
    pub recoveries: Vec<Duration>,
    /// Tables that made no move after the fault.
    pub unrecovered: u64,
    /// Games begun (both seats shown the game in play) that were gone, with no move played,
    /// when a seat came back: their start had not reached Redis before their node died.
    pub vanished: u64,
    /// Seats whose game was one move from its end when their node died and that were then
    /// refused (`bad_token`, `no_such_room`) instead of shown the end.
    pub ended_unseen: u64,
    /// Seats that joined a game whose `joined` (with the seat's token) was lost with their
    /// node: with no token to resume with, the table starts again in a new room.
    pub joined_unheard: u64,
}

impl Survival {
    /// Adds `other` to this.
    pub(crate) fn merge(&mut self, mut other: Survival) {
        self.reconnects += other.reconnects;
        self.restarts += other.restarts;
        self.refused += other.refused;
        self.lost += other.lost;
        self.forks += other.forks;
        self.longest_stall = self.longest_stall.max(other.longest_stall);
        self.recoveries.append(&mut other.recoveries);
        self.unrecovered += other.unrecovered;
        self.vanished += other.vanished;
        self.ended_unseen += other.ended_unseen;
        self.joined_unheard += other.joined_unheard;
    }
}

/// The median of some figures (the mean of the middle two for an even count); `None` when
/// empty.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut l = Latencies::default();
        for us in (1..=100).rev() {
            l.record(Duration::from_micros(us));
        }
        let s = l.summary();
        assert_eq!(s.count, 100);
        assert_eq!(s.p50, Duration::from_micros(50));
        assert_eq!(s.p90, Duration::from_micros(90));
        assert_eq!(s.p99, Duration::from_micros(99));
        assert_eq!(s.max, Duration::from_micros(100));
        assert_eq!(Latencies::default().summary(), LatencySummary::default());
    }

    #[test]
    fn errors_merge_by_kind() {
        let mut a = Errors::default();
        a.add("closed", "first");
        let mut b = Errors::default();
        b.add("closed", "second");
        b.add("connect", "refused");
        a.merge(b);
        let kinds: Vec<_> = a.iter().collect();
        assert_eq!(kinds, [("closed", 2, "first"), ("connect", 1, "refused")]);
        assert_eq!(a.total(), 3);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
