//! [`Budget`]: how much a search may spend on one move (depth, nodes or wall-clock time).

use std::fmt;
use std::time::Duration;

/// The limit of one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Iterative deepening up to this many plies.
    Depth(u32),
    /// Stops after about this many nodes (checked between and inside iterations).
    Nodes(u64),
    /// Answers within this wall-clock time with the best move found so far.
    Time(Duration),
}

impl Budget {
    /// The deepest search any budget runs (deeper than any game lasts).
    pub const MAX_DEPTH: u32 = 120;
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Depth(d) => write!(f, "depth={d}"),
            Budget::Nodes(n) => write!(f, "nodes={n}"),
            Budget::Time(t) => write!(f, "time={}ms", t.as_millis()),
        }
    }
}
