//! What a fault run's room has shown its clients ([`Ledger`]): each move by its index, as first
//! seen by any seat, whether a `moved` acknowledged it (and at which version), and the
//! [`Finding`]s that the moves shown later contradict: a lost move (an acknowledged `moved` a
//! later snapshot lacks or contradicts) or a fork (two clients shown different moves at one
//! index). Also the room's stalls: the longest time between two moves first seen.

use jchomp_protocol::json::MoveJson;
use std::time::Duration;
use tokio::time::Instant;

/// A move shown at one index of the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    mv: MoveJson,
    /// The version of the `moved` that acknowledged it, once one did.
    acked: Option<u64>,
}

/// Something the room showed that contradicts what it showed before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Finding {
    /// An acknowledged move a later snapshot lacks or contradicts.
    Lost(String),
    /// Two views of the room that disagree on a move.
    Fork(String),
}

/// The moves one room (one game) has shown any of its seats.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    moves: Vec<Entry>,
    /// Acknowledged moves whose index is not known (their `moved` skipped a version), by
    /// version: the next snapshot at or past that version must hold them.
    floating: Vec<(u64, MoveJson)>,
}

impl Ledger {
    /// Moves shown so far.
    pub(crate) fn len(&self) -> usize {
        self.moves.len()
    }

    /// The moves shown so far, in order.
    pub(crate) fn moves(&self) -> impl Iterator<Item = MoveJson> + '_ {
        self.moves.iter().map(|e| e.mv)
    }

    /// A `moved` at `index` (the seat's view had `index` moves), with its version. Returns
    /// whether it is new to the room; a fork if another client was shown another move there.
    pub(crate) fn moved(
        &mut self,
        index: usize,
        mv: MoveJson,
        version: u64,
    ) -> Result<bool, Finding> {
        let len = self.moves.len();
        match self.moves.get_mut(index) {
            Some(e) if e.mv == mv => {
                e.acked = e.acked.or(Some(version));
                Ok(false)
            }
            Some(e) => Err(Finding::Fork(format!(
                "moved {mv:?} at index {index} (version {version}), another client was shown {:?}",
                e.mv
            ))),
            None if index == len => {
                self.moves.push(Entry {
                    mv,
                    acked: Some(version),
                });
                Ok(true)
            }
            None => Err(Finding::Fork(format!(
                "moved at index {index} while the room has shown {len} moves"
            ))),
        }
    }

    /// An acknowledged `moved` whose index is unknown (its version skipped one).
    pub(crate) fn floating(&mut self, mv: MoveJson, version: u64) {
        self.floating.push((version, mv));
    }

    /// A snapshot's moves at `version`: every acknowledged move of an earlier version must be
    /// in it, at its index, and every move shown must agree. Returns how many moves it added and
    /// what it contradicts.
    pub(crate) fn snapshot(&mut self, moves: &[MoveJson], version: u64) -> (usize, Vec<Finding>) {
        let mut found = Vec::new();
        for (i, e) in self.moves.iter().enumerate() {
            match moves.get(i) {
                Some(m) if *m == e.mv => {}
                Some(m) => found.push(match e.acked {
                    Some(v) => Finding::Lost(format!(
                        "move {i} {:?} (moved, version {v}) is {m:?} in the snapshot of version {version}",
                        e.mv
                    )),
                    None => Finding::Fork(format!(
                        "move {i} {:?} is {m:?} in the snapshot of version {version}",
                        e.mv
                    )),
                }),
                None => {
                    if let Some(v) = e.acked.filter(|&v| v <= version) {
                        found.push(Finding::Lost(format!(
                            "move {i} {:?} (moved, version {v}) is missing from the snapshot of version {version} ({} moves)",
                            e.mv,
                            moves.len()
                        )));
                    }
                }
            }
        }
        self.floating.retain(|&(v, mv)| {
            if v > version {
                return true;
            }
            if !moves.contains(&mv) {
                found.push(Finding::Lost(format!(
                    "{mv:?} (moved, version {v}) is missing from the snapshot of version {version}"
                )));
            }
            false
        });
        let added = moves.len().saturating_sub(self.moves.len());
        if found.is_empty() {
            self.moves.extend(
                moves[self.moves.len().min(moves.len())..]
                    .iter()
                    .map(|&mv| Entry { mv, acked: None }),
            );
            return (added, found);
        }
        (0, found)
    }
}

/// A room's longest wait between two moves first seen (within the window), and its first move
/// sent after the fault.
#[derive(Debug)]
pub(crate) struct Stalls {
    window: (Instant, Instant),
    fault: Option<Instant>,
    last: Option<Instant>,
    /// The longest gap so far.
    pub longest: Duration,
    /// Time from the fault to the first move sent after it being seen, once there was one.
    pub recovery: Option<Duration>,
}

impl Stalls {
    /// Stalls counted within `window`; recovery timed from `fault`.
    pub(crate) fn new(window: (Instant, Instant), fault: Option<Instant>) -> Stalls {
        Stalls {
            window,
            fault,
            last: None,
            longest: Duration::ZERO,
            recovery: None,
        }
    }

    /// A move first seen at `now`, sent at `sent` if known (a move shown in a snapshot may
    /// have been sent before a fault: it does not end the room's wait).
    pub(crate) fn moved(&mut self, now: Instant, sent: Option<Instant>) {
        self.gap_until(now);
        self.last = Some(now);
        if let (Some(f), Some(sent)) = (self.fault, sent)
            && self.recovery.is_none()
            && sent >= f
        {
            self.recovery = Some(now - f);
        }
    }

    /// The run ended (or the table stopped) at `now`: a wait still open counts up to then.
    pub(crate) fn end(&mut self, now: Instant) {
        self.gap_until(now);
    }

    fn gap_until(&mut self, now: Instant) {
        let (start, end) = self.window;
        if let Some(last) = self.last {
            let gap = now.min(end).saturating_duration_since(last.max(start));
            self.longest = self.longest.max(gap);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(seat: i64, row: i64, col: i64) -> MoveJson {
        MoveJson { seat, row, col }
    }

    #[test]
    fn a_snapshot_lacking_or_contradicting_an_acknowledged_move_is_a_loss() {
        let mut l = Ledger::default();
        assert_eq!(l.moved(0, mv(0, 3, 3), 3), Ok(true));
        assert_eq!(l.moved(0, mv(0, 3, 3), 3), Ok(false));
        assert_eq!(l.moved(1, mv(1, 2, 2), 4), Ok(true));
        // A snapshot older than the second moved may lack it.
        assert_eq!(l.snapshot(&[mv(0, 3, 3)], 3), (0, vec![]));
        // One as new must hold it.
        let (added, found) = l.snapshot(&[mv(0, 3, 3)], 5);
        assert_eq!(added, 0);
        assert!(matches!(found.as_slice(), [Finding::Lost(_)]), "{found:?}");
        let (_, found) = l.snapshot(&[mv(0, 3, 3), mv(1, 1, 1)], 5);
        assert!(matches!(found.as_slice(), [Finding::Lost(_)]), "{found:?}");
        // A snapshot that agrees adds its later moves, shown but not acknowledged.
        assert_eq!(
            l.snapshot(&[mv(0, 3, 3), mv(1, 2, 2), mv(0, 1, 1)], 6),
            (1, vec![])
        );
        assert_eq!(l.len(), 3);
        let (_, found) = l.snapshot(&[mv(0, 3, 3), mv(1, 2, 2), mv(0, 0, 1)], 7);
        assert!(matches!(found.as_slice(), [Finding::Fork(_)]), "{found:?}");
        // A moved contradicting what another client was shown is a fork.
        assert!(matches!(l.moved(2, mv(0, 0, 1), 7), Err(Finding::Fork(_))));
        assert!(matches!(l.moved(5, mv(0, 0, 1), 9), Err(Finding::Fork(_))));
        assert_eq!(l.moves().count(), 3);
    }

    #[test]
    fn a_moved_of_unknown_index_must_be_in_the_next_snapshot_past_it() {
        let mut l = Ledger::default();
        l.floating(mv(1, 2, 2), 6);
        assert_eq!(l.snapshot(&[mv(0, 3, 3)], 5), (1, vec![]));
        assert_eq!(l.snapshot(&[mv(0, 3, 3), mv(1, 2, 2)], 6), (1, vec![]));
        l.floating(mv(0, 1, 1), 8);
        let (_, found) = l.snapshot(&[mv(0, 3, 3), mv(1, 2, 2)], 9);
        assert!(matches!(found.as_slice(), [Finding::Lost(_)]), "{found:?}");
    }

    #[test]
    fn the_longest_stall_counts_within_the_window_and_recovery_from_the_fault() {
        let t0 = Instant::now();
        let s = |n: u64| t0 + Duration::from_secs(n);
        let mut st = Stalls::new((s(10), s(30)), Some(s(15)));
        st.moved(s(5), Some(s(5)));
        st.moved(s(12), Some(s(12))); // 7 s apart, but only 2 s of it in the window
        assert_eq!(st.longest, Duration::from_secs(2));
        st.moved(s(14), Some(s(14)));
        assert_eq!(st.recovery, None);
        // A move sent before the fault, seen after it, is not the room moving again.
        st.moved(s(16), Some(s(14)));
        st.moved(s(17), None);
        assert_eq!(st.recovery, None);
        st.moved(s(20), Some(s(20)));
        assert_eq!(st.longest, Duration::from_secs(3));
        assert_eq!(st.recovery, Some(Duration::from_secs(5)));
        st.moved(s(21), Some(s(21)));
        assert_eq!(st.recovery, Some(Duration::from_secs(5)));
        st.end(s(40)); // the open wait counts up to the window's end
        assert_eq!(st.longest, Duration::from_secs(9));
    }
}
