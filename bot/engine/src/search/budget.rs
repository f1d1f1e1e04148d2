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
    /// The deepest search any budget runs: deeper than any game lasts (at most 225 plies).
    pub(crate) const MAX_DEPTH: u32 = 240;
}

// Depths are stored in a byte of the table, next to the `PROVEN` marker 255.
const _: () = assert!(Budget::MAX_DEPTH < 255);

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Depth(d) => write!(f, "depth={d}"),
            Budget::Nodes(n) => write!(f, "nodes={n}"),
            Budget::Time(t) => write!(f, "time={}ms", t.as_millis()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_rules::BOARD_SIZE;

    #[test]
    fn the_deepest_search_outlasts_the_longest_game() {
        // The longest game eats one cell per ply on the largest board.
        let cells = u32::from(BOARD_SIZE.1) * u32::from(BOARD_SIZE.1);
        assert!(Budget::MAX_DEPTH > cells);
        assert_eq!(
            Budget::Time(Duration::from_millis(250)).to_string(),
            "time=250ms"
        );
    }
}
