//! [`Limits`]: node counting and the cooperative stop (node budget, deadline, stop flag).

use super::Budget;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often (in nodes) the clock and the stop flag are read.
const CHECK_EVERY: u64 = 1024;

/// Counts nodes and decides when a search must stop.
#[derive(Debug)]
pub struct Limits {
    start: Instant,
    deadline: Option<Instant>,
    soft: Option<Duration>,
    max_nodes: u64,
    flag: Option<Arc<AtomicBool>>,
    /// Nodes visited so far.
    pub(crate) nodes: u64,
    next_check: u64,
    polls: u32,
    stopped: bool,
    /// While false, nothing stops the search (the first iteration always completes).
    pub(crate) armed: bool,
}

impl Limits {
    /// Limits for one search with this budget, also stopped when `flag` is set.
    pub(crate) fn new(budget: Budget, flag: Option<Arc<AtomicBool>>) -> Limits {
        let start = Instant::now();
        let (deadline, soft, max_nodes) = match budget {
            Budget::Depth(_) => (None, None, u64::MAX),
            Budget::Nodes(n) => (None, None, n),
            Budget::Time(t) => (Some(start + t), Some(t / 2), u64::MAX),
        };
        Limits {
            start,
            deadline,
            soft,
            max_nodes,
            flag,
            nodes: 0,
            next_check: CHECK_EVERY,
            polls: 0,
            stopped: false,
            armed: true,
        }
    }

    /// No limit at all (exact solving); only the flag stops it.
    pub fn unlimited(flag: Option<Arc<AtomicBool>>) -> Limits {
        Limits::new(Budget::Depth(Budget::MAX_DEPTH), flag)
    }

    /// The stop flag these limits watch.
    pub(crate) fn flag(&self) -> Option<Arc<AtomicBool>> {
        self.flag.clone()
    }

    /// Counts one node; true once the search must stop.
    #[inline]
    pub(crate) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if !self.armed {
            return false;
        }
        if self.stopped {
            return true;
        }
        if self.nodes >= self.max_nodes {
            self.stopped = true;
        } else if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            self.stopped = self.told_or_late();
        }
        self.stopped
    }

    /// Reads the stop flag and the clock every so often without counting a node (for work
    /// between nodes that can be long, such as the region solver's loops); true once the search
    /// must stop.
    #[inline]
    pub(crate) fn poll(&mut self) -> bool {
        if !self.armed {
            return false;
        }
        self.polls = self.polls.wrapping_add(1);
        if self.polls.is_multiple_of(64) && !self.stopped {
            self.stopped = self.told_or_late();
        }
        self.stopped
    }

    /// Whether the stop flag is set or the deadline has passed (reads the clock).
    fn told_or_late(&self) -> bool {
        self.flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the search has been told to stop.
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// Whether another iteration is worth starting (half the time budget is left).
    pub(crate) fn may_deepen(&self) -> bool {
        !self.stopped
            && self.nodes < self.max_nodes
            && self.soft.is_none_or(|s| self.start.elapsed() < s)
            && !self
                .flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
    }
}
