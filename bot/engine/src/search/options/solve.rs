//! Exact solving and analysis under the rule options, for the public [`crate::search::solve`],
//! [`crate::search::analyze`] and [`crate::search::solve_value`]: the memoized [`Exact`] search,
//! and Nim for the value of edge breaks.

use super::exact::{Exact, Value, beyond_reach};
use super::nim;
use crate::search::score::Outcome;
use crate::search::{Budget, Limits, MoveValue, Solution, SolveError};
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Solves a two-player position of an options configuration exactly ([`Exact`]); `Stopped`
/// when `stop` is raised or the position needs more than the solver holds (at once when that
/// is sure, [`beyond_reach`]).
pub(crate) fn solve(
    config: &Config,
    position: &Position,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Solution, SolveError> {
    if beyond_reach(config, position) {
        return Err(SolveError::Stopped);
    }
    let mut limits = Limits::unlimited(stop);
    let mut exact = Exact::new(config);
    let (value, best) = exact
        .best(position, &mut limits)
        .ok_or(SolveError::Stopped)?;
    Ok(Solution {
        outcome: value.outcome,
        plies: value.plies,
        best,
        nodes: limits.nodes,
    })
}

/// Every valid selection with its exact value, or unsolved where `budget` (each selection's
/// own, as in the standard analysis) runs out; without a budget, `Stopped` if any is left
/// unsolved.
pub(crate) fn analyze(
    config: &Config,
    position: &Position,
    budget: Option<Budget>,
    stop: Option<Arc<AtomicBool>>,
) -> Result<(Vec<MoveValue>, u64), SolveError> {
    if budget.is_none() && beyond_reach(config, position) {
        return Err(SolveError::Stopped);
    }
    let mut exact = Exact::new(config);
    let mut out = Vec::new();
    let mut nodes = 0;
    for index in position.selections().iter() {
        let cell = Cell::from_index(index);
        let mut limits = match budget {
            Some(Budget::Depth(_)) | None => Limits::unlimited(stop.clone()),
            Some(b) => Limits::new(b, stop.clone()),
        };
        let value = exact.after(position, cell, &mut limits);
        nodes += limits.nodes;
        if value.is_none() && budget.is_none() {
            return Err(SolveError::Stopped);
        }
        out.push(MoveValue {
            cell,
            value: value.map(|Value { outcome, plies }| {
                (outcome, (outcome != Outcome::Tie).then_some(plies))
            }),
            estimate: 0,
            depth: 0,
        });
    }
    Ok((out, nodes))
}

/// The exact value and an optimal selection: Nim for edge breaks where it applies (no search),
/// else [`Exact`].
pub(crate) fn solve_value(
    config: &Config,
    position: &Position,
    stop: Option<Arc<AtomicBool>>,
) -> Result<(Outcome, Cell, u64), SolveError> {
    if nim::applies(config) {
        let (win, best) = nim::best(config, position).ok_or(SolveError::GameOver)?;
        let outcome = if win { Outcome::Win } else { Outcome::Loss };
        return Ok((outcome, best, 0));
    }
    let s = solve(config, position, stop)?;
    Ok((s.outcome, s.best, s.nodes))
}
