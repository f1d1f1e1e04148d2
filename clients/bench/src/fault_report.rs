//! The lines a fault run adds to its report ([`describe`]): the fault, the longest stall and the
//! time to the first move after it, the moves per second before and after, the reconnects, and
//! what was lost or forked.

use super::fault::Fault;
use super::run::LoadReport;
use super::stats::median;
use std::fmt::Write as _;
use std::time::Duration;

/// Seconds after the fault reported apart (the stall and the takeover fall within them).
const AFTER: usize = 10;

/// The mean of some seconds' counts, if there are any.
fn mean(seconds: &[u64]) -> Option<f64> {
    (!seconds.is_empty()).then(|| seconds.iter().sum::<u64>() as f64 / seconds.len() as f64)
}

fn rate(seconds: &[u64]) -> String {
    mean(seconds).map_or_else(|| "–".to_owned(), |m| format!("{m:.0}"))
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// The window's seconds before the fault, in the [`AFTER`] seconds from it, and after those.
fn split(per_second: &[u64], at: Duration) -> (&[u64], &[u64], &[u64]) {
    let k = (at.as_secs() as usize).min(per_second.len());
    let (before, from) = per_second.split_at(k);
    let (soon, later) = from.split_at(AFTER.min(from.len()));
    (before, soon, later)
}

/// Appends the fault's lines to `out`.
pub(crate) fn describe(out: &mut String, r: &LoadReport, fault: Fault) {
    let s = &r.tally.survival;
    let _ = write!(out, "\n  fault: {fault}");
    let recoveries: Vec<f64> = s.recoveries.iter().map(Duration::as_secs_f64).collect();
    let max = s.recoveries.iter().max().copied().unwrap_or_default();
    let _ = write!(
        out,
        "\n  longest stall {} (a room making no move, between two moves first seen by any of its clients); first move after the fault: median {:.2} s, max {} over {} rooms ({} never moved again)",
        secs(s.longest_stall),
        median(&recoveries).unwrap_or(0.0),
        secs(max),
        s.recoveries.len(),
        s.unrecovered
    );
    let (before, soon, later) = split(&r.per_second, fault.at);
    let _ = write!(
        out,
        "\n  moves/s: {} before the fault, {} in the {AFTER} s from it, {} after those; each second: {:?}",
        rate(before),
        rate(soon),
        rate(later),
        r.per_second
    );
    let _ = write!(
        out,
        "\n  reconnects {}, rooms started again {}, moves refused {} (sent again after a snapshot that did not show them yet), games begun and gone before their first move {}, seats refused a resume of a game one move from its end {}, seats whose node died before their joined reached them {}",
        s.reconnects, s.restarts, s.refused, s.vanished, s.ended_unseen, s.joined_unheard
    );
    let _ = write!(
        out,
        "\n  lost {} (acknowledged moves a later snapshot lacks or contradicts), forks {} (views of a room that contradict each other)",
        s.lost, s.forks
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_split_at_the_fault() {
        let per: Vec<u64> = (0..15).collect();
        let (b, s, l) = split(&per, Duration::from_millis(3_500));
        assert_eq!((b, s, l), (&per[..3], &per[3..13], &per[13..]));
        assert_eq!(rate(b), "1");
        assert_eq!(rate(&[]), "–");
        let (b, s, l) = split(&per[..5], Duration::from_secs(9));
        assert_eq!((b.len(), s.len(), l.len()), (5, 0, 0));
    }
}
