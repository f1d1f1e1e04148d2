//! What the servers' disks did over a run's window, read from their `/metrics`: how many journal
//! appends (each one `write`, and one `fdatasync` when the server syncs every batch) and how many
//! `fdatasync`s they made and how long one took, and how long a room waited for its writes to be
//! durable — so that a reader can tell a run bound by the disk from one bound by the CPU.

use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The histogram of one journal append (`write` + `fdatasync`).
const APPEND: &str = "jchomp_journal_append_seconds";
/// The histogram of one `fdatasync` of the journal.
const SYNC: &str = "jchomp_journal_sync_seconds";
/// The histogram of a room's wait for its writes to be durable.
const WAIT: &str = "jchomp_durable_wait_seconds";
/// Longest a scrape may take.
const SCRAPE_TIMEOUT: Duration = Duration::from_secs(3);
/// Largest `/metrics` answer read.
const MAX_BODY: usize = 1 << 20;

/// A histogram's cumulative bucket counts (upper bound in seconds → observations at or below).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Buckets(Vec<(f64, u64)>);

impl Buckets {
    /// The observations between `self` (earlier) and `later`, bucket by bucket; `None` if the
    /// two do not have the same buckets (another server, or a restart).
    fn since(&self, later: &Buckets) -> Option<Buckets> {
        if self.0.len() != later.0.len() {
            return None;
        }
        self.0
            .iter()
            .zip(&later.0)
            .map(|(&(le, a), &(le2, b))| (le == le2).then(|| (le, b.saturating_sub(a))))
            .collect::<Option<Vec<_>>>()
            .map(Buckets)
    }

    /// Observations in all.
    fn count(&self) -> u64 {
        self.0.last().map_or(0, |&(_, n)| n)
    }

    /// The upper bound of the bucket holding the `q` quantile (0–1), in seconds; infinite for
    /// the last bucket; `None` without observations.
    fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let rank = (q * total as f64).ceil().max(1.0) as u64;
        self.0.iter().find(|&&(_, n)| n >= rank).map(|&(le, _)| le)
    }
}

/// One scrape of the two histograms.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Scrape {
    append: Buckets,
    sync: Buckets,
    wait: Buckets,
}

/// What the disk did over a window (summed over every server scraped).
#[derive(Clone, Debug, PartialEq)]
pub struct Durability {
    /// Journal appends (each a `write` and an `fdatasync`) over the window.
    pub appends: u64,
    /// One append's median and 99th percentile, as bucket upper bounds (seconds).
    pub append_p50: Option<f64>,
    /// See `append_p50`.
    pub append_p99: Option<f64>,
    /// The journal's `fdatasync`s over the window (as many as appends when every batch is
    /// synced; fewer with periodic durability; 0 from a server that does not count them).
    pub syncs: u64,
    /// One `fdatasync`'s median and 99th percentile (bucket upper bounds, seconds).
    pub sync_p50: Option<f64>,
    /// See `sync_p50`.
    pub sync_p99: Option<f64>,
    /// A room's wait for durability: median and 99th percentile (bucket upper bounds, seconds).
    pub wait_p50: Option<f64>,
    /// See `wait_p50`.
    pub wait_p99: Option<f64>,
}

impl Durability {
    /// The window between two scrapes of each server, summed; `None` if a server's pair does
    /// not match.
    pub(crate) fn between(before: &[Scrape], after: &[Scrape]) -> Option<Durability> {
        if before.is_empty() || before.len() != after.len() {
            return None;
        }
        let mut append = Buckets::default();
        let mut wait = Buckets::default();
        let mut sync = Buckets::default();
        for (b, a) in before.iter().zip(after) {
            append = add(append, b.append.since(&a.append)?)?;
            sync = add(sync, b.sync.since(&a.sync)?)?;
            wait = add(wait, b.wait.since(&a.wait)?)?;
        }
        Some(Durability {
            appends: append.count(),
            append_p50: append.quantile(0.5),
            append_p99: append.quantile(0.99),
            syncs: sync.count(),
            sync_p50: sync.quantile(0.5),
            sync_p99: sync.quantile(0.99),
            wait_p50: wait.quantile(0.5),
            wait_p99: wait.quantile(0.99),
        })
    }
}

/// Two histograms of the same buckets added up (the first may be empty); `None` if their
/// buckets differ.
fn add(sum: Buckets, more: Buckets) -> Option<Buckets> {
    if sum.0.is_empty() {
        return Some(more);
    }
    let same = sum.0.len() == more.0.len() && sum.0.iter().zip(&more.0).all(|(a, b)| a.0 == b.0);
    same.then(|| {
        Buckets(
            sum.0
                .iter()
                .zip(&more.0)
                .map(|(&(le, a), &(_, b))| (le, a + b))
                .collect(),
        )
    })
}

/// Reads the two histograms from `/metrics` text (OpenMetrics or Prometheus).
pub(crate) fn parse(text: &str) -> Scrape {
    let buckets = |name: &str| {
        let prefix = format!("{name}_bucket{{le=\"");
        let mut out: Vec<(f64, u64)> = text
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix(&prefix)?;
                let (le, rest) = rest.split_once("\"}")?;
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().ok()?
                };
                let n = rest.split_whitespace().next()?.parse().ok()?;
                Some((le, n))
            })
            .collect();
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        Buckets(out)
    };
    Scrape {
        append: buckets(APPEND),
        sync: buckets(SYNC),
        wait: buckets(WAIT),
    }
}

/// Scrapes `GET /metrics` from a server; `None` if it cannot be read (not a JChomp server, or
/// an echo server).
pub(crate) async fn scrape(addr: SocketAddr) -> Option<Scrape> {
    let read = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        let request = format!("GET /metrics HTTP/1.0\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut body = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 || body.len() + n > MAX_BODY {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        let text = String::from_utf8_lossy(&body);
        let (head, rest) = text.split_once("\r\n\r\n")?;
        // The status line, `HTTP/1.0 200 OK` (an HTTP/1.0 request gets an unchunked body).
        (head.split_whitespace().nth(1) == Some("200"))
            .then(|| parse(rest))
            .filter(|s| !s.append.0.is_empty())
    };
    tokio::time::timeout(SCRAPE_TIMEOUT, read).await.ok()?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(append: &[(&str, u64)], wait: &[(&str, u64)]) -> String {
        let mut t = String::from("# HELP jchomp_journal_append_seconds x\n");
        for (le, n) in append {
            t += &format!("jchomp_journal_append_seconds_bucket{{le=\"{le}\"}} {n}\n");
        }
        t += "jchomp_journal_append_seconds_count 9\njchomp_moves_total 5\n";
        for (le, n) in wait {
            t += &format!("jchomp_durable_wait_seconds_bucket{{le=\"{le}\"}} {n}\n");
        }
        t + "# EOF\n"
    }

    #[test]
    fn the_window_is_the_difference_of_two_scrapes_with_quantiles_as_bucket_bounds() {
        let before = parse(&text(
            &[("0.0001", 1), ("0.0002", 2), ("0.0004", 2), ("+Inf", 2)],
            &[("0.001", 0), ("0.002", 0), ("+Inf", 0)],
        ));
        let after = parse(&text(
            &[
                ("0.0001", 1),
                ("0.0002", 52),
                ("0.0004", 101),
                ("+Inf", 102),
            ],
            &[("0.001", 90), ("0.002", 99), ("+Inf", 100)],
        ));
        let d = Durability::between(std::slice::from_ref(&before), std::slice::from_ref(&after))
            .unwrap();
        assert_eq!(d.appends, 100);
        assert_eq!(d.append_p50, Some(0.0002));
        assert_eq!(d.append_p99, Some(0.0004));
        assert_eq!(d.wait_p50, Some(0.001));
        assert_eq!(d.wait_p99, Some(0.002));
        // Two servers add up; a mismatched pair gives nothing.
        let two = Durability::between(&[before.clone(), before.clone()], &[after.clone(), after])
            .unwrap();
        assert_eq!(two.appends, 200);
        assert_eq!(two.append_p50, Some(0.0002));
        assert_eq!(Durability::between(&[before], &[Scrape::default()]), None);
    }

    #[test]
    fn the_last_bucket_is_infinite_and_no_observation_is_no_quantile() {
        let b = Buckets(vec![(0.1, 0), (f64::INFINITY, 3)]);
        assert_eq!(b.quantile(0.5), Some(f64::INFINITY));
        assert_eq!(
            Buckets(vec![(0.1, 0), (f64::INFINITY, 0)]).quantile(0.5),
            None
        );
    }
}
