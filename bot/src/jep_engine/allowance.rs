//! What one `go` allows the reference engine: the time after which it raises the bot's stop
//! flag, and the budget that replaces the bot's own for the move (docs/ENGINE.md, "The
//! reference engine").

use crate::jep::Go;
use jchomp_engine::search::Budget;
use std::time::Duration;

/// The most the engine keeps off a time limit, in milliseconds, to answer and be read.
const SAFETY_MAX_MS: u64 = 50;

/// The share of its own clock a move may take, as a divisor: `clock / 20 + inc / 2`.
const CLOCK_SHARE: u64 = 20;

/// What the engine keeps off a limit of `ms` milliseconds: a tenth, at most 50 ms.
fn safety(ms: u64) -> u64 {
    (ms / 10).min(SAFETY_MAX_MS)
}

/// How long the search of this `go` may run before the engine raises its stop flag: `movetime`
/// less the safety; with a clock, `clock / 20 + inc / 2`, never more than the clock less the
/// safety; the smaller of the two when both are given. `None` (the bot's own budget alone
/// decides) for `infinite` or when neither is given; a clock for a seat beyond the list is
/// no clock.
pub(crate) fn allotted(go: &Go) -> Option<Duration> {
    if go.infinite {
        return None;
    }
    let by_movetime = go.movetime.map(|t| t - safety(t));
    let by_clock = go.clocks.get(usize::from(go.seat)).map(|&clock| {
        let share = clock / CLOCK_SHARE + go.inc.unwrap_or(0) / 2;
        share.min(clock - safety(clock))
    });
    let ms = match (by_movetime, by_clock) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some(Duration::from_millis(ms))
}

/// The budget `nodes` or `depth` ask for this move: nodes when given (at least 1), else depth
/// (at least 1).
pub(crate) fn budget(go: &Go) -> Option<Budget> {
    match (go.nodes, go.depth) {
        (Some(n), _) => Some(Budget::Nodes(n.max(1))),
        (None, Some(d)) => Some(Budget::Depth(d.max(1))),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(text: &str) -> Go {
        match crate::jep::Command::parse(text) {
            Ok(Some(crate::jep::Command::Go(go))) => go,
            other => panic!("{text}: {other:?}"),
        }
    }

    fn ms(text: &str) -> Option<u128> {
        allotted(&go(text)).map(|d| d.as_millis())
    }

    #[test]
    fn time_is_allotted_from_movetime_and_the_clock() {
        assert_eq!(ms("go seat 0"), None);
        assert_eq!(ms("go seat 0 movetime 100"), Some(90));
        assert_eq!(ms("go seat 0 movetime 2000"), Some(1950));
        assert_eq!(ms("go seat 0 movetime 0"), Some(0));
        // Seat 1's clock: 10 s / 20 + 100 ms / 2.
        assert_eq!(ms("go seat 1 clocks 500 10000 inc 100"), Some(550));
        // Never more than the clock less the safety.
        assert_eq!(ms("go seat 0 clocks 40 inc 1000"), Some(36));
        // Both: the smaller.
        assert_eq!(ms("go seat 0 clocks 10000 movetime 300"), Some(270));
        assert_eq!(ms("go seat 0 clocks 10000 movetime 3000"), Some(500));
        // Infinite: until stop.
        assert_eq!(ms("go seat 0 movetime 100 infinite"), None);
        // No clock for this seat.
        assert_eq!(ms("go seat 3 clocks 1000 1000"), None);
    }

    #[test]
    fn nodes_come_before_depth() {
        assert_eq!(budget(&go("go seat 0")), None);
        assert_eq!(budget(&go("go seat 0 depth 3")), Some(Budget::Depth(3)));
        assert_eq!(
            budget(&go("go seat 0 depth 3 nodes 500")),
            Some(Budget::Nodes(500))
        );
        assert_eq!(budget(&go("go seat 0 nodes 0")), Some(Budget::Nodes(1)));
    }
}
