//! Exact two-player solving ([`solve`]) and per-selection analysis ([`analyze`]); eat 1×1 is
//! answered by its parity without search, and configurations with rule options by the
//! options solver (see [`options::standard`]).

use super::Budget;
use super::limits::Limits;
use super::options;
use super::parity;
use super::plies::{self, PliesSolver};
use super::regions::{self, RegionSolver};
use super::root::RootSearch;
use super::score::{self, INF, Outcome, PROVEN_WIN};
use super::trivial::Turn;
use super::tt::Table;
use super::two::Negamax;
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Why a position cannot be solved or analysed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Solving handles two players only.
    #[error("solve and analyze handle two players, the configuration has {0}")]
    Players(u8),
    /// There is nothing to solve.
    #[error("the game is over")]
    GameOver,
    /// The stop flag was set.
    #[error("stopped before the position was solved")]
    Stopped,
}

/// The exact value of a position for the seat to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Win, tie or loss with best play.
    pub outcome: Outcome,
    /// Plies to the end: with a win or loss, optimal (winners hurry, losers delay); with a tie,
    /// the length of one tying line that best play may follow.
    pub plies: u32,
    /// An optimal selection.
    pub best: Cell,
    /// Nodes visited.
    pub nodes: u64,
}

/// The value of one selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The selection.
    pub cell: Cell,
    /// Its proven outcome for the seat making it and the plies to the end (ties: `None`), or
    /// `None` if the budget ran out first.
    pub value: Option<(Outcome, Option<u32>)>,
    /// The search score when unsolved (for the seat making the selection).
    pub estimate: i32,
    /// Depth searched when unsolved.
    pub depth: u32,
}

/// log2 of the region solver's table size when solving.
const ORACLE_BITS: u32 = 22;

/// The most [`solve`] gives the region solver: 2^25 entries. On 10×10 with a 2×2 eat and poison
/// at 1,1 the plies took 272 s with 2^22 entries and 123 s with 2^25 (119 s with 2^27).
const SOLVE_ORACLE_MAX_BITS: u32 = 25;

/// Normal-play games with more safe selections than this are solved on two threads. Measured
/// with 2x2 eats and poison at 1,1: 9×9 (60 safe selections) took 1.7 s on one thread and 2.9 s
/// on two (each thread's tables are its own, and filling two of them costs more than the split
/// saves); 10×10 (77) took 110 s on one and 89 s on two.
const PLIES_THREADS_FROM: u32 = 64;

/// log2 of the distance solver's table size (normal play on the safe selections).
const PLIES_BITS: u32 = 23;

fn check(config: &Config, position: &Position) -> Result<(), SolveError> {
    if config.players() != 2 {
        return Err(SolveError::Players(config.players()));
    }
    if position.to_move().is_none() {
        return Err(SolveError::GameOver);
    }
    Ok(())
}

/// The best selection and its proven score, searching to the end of the game.
fn best_move(
    config: &Config,
    position: &Position,
    tt: &mut Table,
    oracle: &mut RegionSolver,
    plies: &mut PliesSolver,
    limits: &mut Limits,
) -> Result<(Cell, i32), SolveError> {
    let (seat, safe) = match Turn::of(config, position) {
        Turn::Over => return Err(SolveError::GameOver),
        Turn::OnlyPoison(cell) => return Ok((cell, -(score::WIN - 1))),
        Turn::Safe { seat, safe, .. } => (seat, safe),
    };
    // An optimal selection first, from the region solver's value search: once it is searched,
    // the window lets the others through only if they might match it, and the region solver
    // cuts those that cannot at once.
    let (_, first) = oracle
        .best(config, position, limits)
        .ok_or(SolveError::Stopped)?;
    let order: Vec<u8> = std::iter::once(first as u8)
        .chain(safe.iter().filter(|&a| a != first).map(|a| a as u8))
        .collect();
    let mut scores = Vec::with_capacity(order.len());
    let r = Negamax::new(config, tt, limits, seat)
        .with_oracle(oracle, plies)
        .root(position, Budget::MAX_DEPTH, &order, &mut scores)
        .filter(|r| r.complete)
        .ok_or(SolveError::Stopped)?;
    Ok((Cell::from_index(u32::from(r.mv)), r.score))
}

/// Solves a two-player position exactly.
pub fn solve(
    config: &Config,
    position: &Position,
    tt: &mut Table,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Solution, SolveError> {
    check(config, position)?;
    if !options::standard(config) {
        return options::solve(config, position, stop);
    }
    if parity::applies(config) {
        let (outcome, plies, best) = parity::solve(config, position).ok_or(SolveError::GameOver)?;
        return Ok(Solution {
            outcome,
            plies,
            best,
            nodes: 0,
        });
    }
    let mut limits = Limits::unlimited(stop);
    // The region solver's table grows with the one given (up to 2^25 entries, 320 MiB, for
    // the default 512 MiB): long distance searches ask it for the values of many positions.
    let bits = tt
        .len()
        .trailing_zeros()
        .clamp(ORACLE_BITS, SOLVE_ORACLE_MAX_BITS);
    let safe = position.safe_selections(config);
    if !safe.is_empty() && regions::unkillable(config, position.selections(), safe) {
        // Normal play on the safe selections: value and distance from one search, on two
        // threads when the game is large enough to repay their duplicated work.
        let threads = if safe.count() > PLIES_THREADS_FROM {
            2
        } else {
            1
        };
        let (p, nodes) = plies::solve(config, safe, threads, (PLIES_BITS, bits), limits.flag())
            .ok_or(SolveError::Stopped)?;
        let best = p.best.ok_or(SolveError::GameOver)?;
        return Ok(Solution {
            outcome: if p.win { Outcome::Win } else { Outcome::Loss },
            plies: p.moves + 1,
            best: Cell::from_index(best),
            nodes,
        });
    }
    let mut oracle = RegionSolver::new(bits);
    let mut distances = PliesSolver::new(config, PLIES_BITS);
    let (best, s) = best_move(
        config,
        position,
        tt,
        &mut oracle,
        &mut distances,
        &mut limits,
    )?;
    let (outcome, plies) = score::read(s);
    let plies = match plies {
        Some(p) => p,
        None => {
            // A tie: follow best moves to the end to give one line's length.
            let mut p = *position;
            let mut n = 0;
            while p.to_move().is_some() {
                let (cell, _) =
                    best_move(config, &p, tt, &mut oracle, &mut distances, &mut limits)?;
                p.play(config, cell);
                n += 1;
            }
            n
        }
    };
    Ok(Solution {
        outcome,
        plies,
        best,
        nodes: limits.nodes,
    })
}

/// Every valid selection with its value for the seat to move, in board order. Without a budget
/// each is solved exactly; with one, each child is searched by iterative deepening within it
/// and selections left unproven say so.
pub fn analyze(
    config: &Config,
    position: &Position,
    tt: &mut Table,
    budget: Option<Budget>,
    stop: Option<Arc<AtomicBool>>,
) -> Result<(Vec<MoveValue>, u64), SolveError> {
    check(config, position)?;
    if !options::standard(config) {
        return options::analyze(config, position, budget, stop);
    }
    if parity::applies(config) {
        let values = position
            .selections()
            .iter()
            .map(|index| {
                let cell = Cell::from_index(index);
                let (outcome, plies) = parity::value_of(config, position, cell);
                MoveValue {
                    cell,
                    value: Some((outcome, Some(plies))),
                    estimate: 0,
                    depth: 0,
                }
            })
            .collect();
        return Ok((values, 0));
    }
    let mut oracle = RegionSolver::new(ORACLE_BITS);
    let mut plies = PliesSolver::new(config, PLIES_BITS);
    let mut nodes = 0;
    let mut out = Vec::new();
    for index in position.selections().iter() {
        let cell = Cell::from_index(index);
        let mut child = *position;
        child.play(config, cell);
        let mut value = MoveValue {
            cell,
            value: None,
            estimate: 0,
            depth: 0,
        };
        let Some(seat) = child.to_move() else {
            value.value = Some(match child.result().and_then(|r| r.loser()) {
                Some(_) => (Outcome::Loss, Some(1)),
                None => (Outcome::Tie, None),
            });
            out.push(value);
            continue;
        };
        // With a time or node budget, half of it first goes to the exact search (region
        // solver and sums of regions), which settles many selections outright; what it cannot
        // settle is searched by iterative deepening in the other half.
        let half = match budget {
            Some(Budget::Time(t)) => Some(Budget::Time(t / 2)),
            Some(Budget::Nodes(n)) => Some(Budget::Nodes((n / 2).max(1))),
            _ => None,
        };
        if let Some(half) = half {
            let mut limits = Limits::new(half, stop.clone());
            let (s, proven) = Negamax::new(config, tt, &mut limits, seat)
                .with_oracle(&mut oracle, &mut plies)
                .negamax(&child, Budget::MAX_DEPTH, 0, -INF, INF);
            nodes += limits.nodes;
            if !limits.stopped() && proven {
                value.value = Some(exact(s));
                out.push(value);
                continue;
            }
        }
        let mut limits = match (budget, half) {
            (Some(_), Some(h)) => Limits::new(h, stop.clone()),
            (Some(b), None) => Limits::new(b, stop.clone()),
            (None, _) => Limits::unlimited(stop.clone()),
        };
        let max_depth = match budget {
            Some(Budget::Depth(d)) => d,
            _ => Budget::MAX_DEPTH,
        };
        let first = if budget.is_none() { max_depth } else { 1 };
        for depth in first..=max_depth {
            limits.armed = depth > 1 || budget.is_none();
            let search = Negamax::new(config, tt, &mut limits, seat);
            let mut search = if budget.is_none() {
                search.with_oracle(&mut oracle, &mut plies)
            } else {
                search
            };
            let (s, proven) = search.negamax(&child, depth, 0, -INF, INF);
            if limits.stopped() {
                break;
            }
            value.estimate = -s;
            value.depth = depth;
            if proven || s.abs() > PROVEN_WIN {
                // A proven win or loss within the horizon is exact, distance included.
                value.value = Some(exact(s));
                break;
            }
            if !limits.may_deepen() {
                break;
            }
        }
        if budget.is_none() && value.value.is_none() {
            return Err(SolveError::Stopped);
        }
        nodes += limits.nodes;
        out.push(value);
    }
    Ok((out, nodes))
}

/// The value of a selection for the seat making it, from the proven score of the position it
/// leaves (scored for the opponent): one more ply to the end.
fn exact(s: i32) -> (Outcome, Option<u32>) {
    let (o, p) = score::read(s);
    let o = match o {
        Outcome::Win => Outcome::Loss,
        Outcome::Loss => Outcome::Win,
        Outcome::Tie => Outcome::Tie,
    };
    (o, p.map(|p| p + 1))
}

/// The exact win / tie / loss value and an optimal selection, from the region solver alone
/// (no distances: much faster when poison-free regions are many).
pub fn solve_value(
    config: &Config,
    position: &Position,
    stop: Option<Arc<AtomicBool>>,
) -> Result<(Outcome, Cell, u64), SolveError> {
    check(config, position)?;
    if !options::standard(config) {
        return options::solve_value(config, position, stop);
    }
    let mut limits = Limits::unlimited(stop);
    if let Turn::OnlyPoison(cell) = Turn::of(config, position) {
        return Ok((Outcome::Loss, cell, 1));
    }
    let mut oracle = RegionSolver::new(ORACLE_BITS);
    let (outcome, index) = oracle
        .best(config, position, &mut limits)
        .ok_or(SolveError::Stopped)?;
    Ok((outcome, Cell::from_index(index), limits.nodes))
}
