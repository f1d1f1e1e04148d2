//! [`Engine`]: iterative deepening over the two-sided or max^n search, within a [`Budget`],
//! answering with the best selection of the deepest finished (or best partial) iteration.

use super::Budget;
use super::limits::Limits;
use super::maxn::{MaxN, VectorTable};
use super::regions::RegionSolver;
use super::root::{Deepening, shuffled};
use super::score::{Outcome, WIN};
use super::trivial::Turn;
use super::tt::Table;
use super::two::Negamax;
use crate::player::SearchInfo;
use crate::rng::Rng;
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Which search three- and four-player games use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MultiMode {
    /// The searching seat against a coalition of all others.
    Paranoid,
    /// Every seat maximises its own score.
    MaxN,
}

/// The search used for three and four players unless told otherwise (see `docs/BOTS.md`).
pub const DEFAULT_MULTI: MultiMode = MultiMode::Paranoid;

/// What one search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// The selection chosen; `None` only when the game is over.
    pub best: Option<Cell>,
    /// Its score for the seat to move (proven scores count plies: winners hurry, losers
    /// delay).
    pub score: i32,
    /// Whether the score is proven.
    pub proven: bool,
    /// Depth of the deepest iteration that searched the chosen selection.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
}

/// A search engine that keeps its tables between moves.
#[derive(Debug)]
pub struct Engine {
    tt: Option<Table>,
    vectors: Option<VectorTable>,
    megabytes: usize,
    rng: Rng,
    mode: MultiMode,
    contempt: i32,
    regions: Option<RegionSolver>,
}

/// log2 of the region solver's table size in a search bot.
const REGION_BITS: u32 = 18;

/// How much worse than an unclear position a search bot finds a certain tie (see
/// [`Negamax::with_contempt`]); the heuristic unit is 100.
pub const CONTEMPT: i32 = 150;

impl Engine {
    /// An engine with tables of about `megabytes` MiB (allocated on first use); `seed` orders
    /// equally good selections.
    pub fn new(megabytes: usize, seed: u64) -> Engine {
        Engine {
            tt: None,
            vectors: None,
            megabytes,
            rng: Rng::new(seed),
            mode: DEFAULT_MULTI,
            contempt: CONTEMPT,
            regions: None,
        }
    }

    /// Chooses the multi-player search.
    pub(crate) fn with_mode(mut self, mode: MultiMode) -> Engine {
        self.mode = mode;
        self
    }

    /// Forgets everything the tables hold (they stay allocated).
    pub fn clear(&mut self) {
        if let Some(tt) = self.tt.as_mut() {
            tt.clear();
        }
        self.vectors = None;
        self.regions = None;
    }

    /// Sets the contempt for ties (0: a tie is worth exactly 0).
    pub fn with_contempt(mut self, contempt: i32) -> Engine {
        self.contempt = contempt;
        self
    }

    /// Searches `position` within `budget`, stopping early if `stop` is set.
    pub fn search(
        &mut self,
        config: &Config,
        position: &Position,
        budget: Budget,
        stop: Option<Arc<AtomicBool>>,
    ) -> Report {
        let (seat, safe) = match Turn::of(config, position) {
            Turn::Over => return Report::at_once(None, 0),
            // Every selection holds poison: any of them loses.
            Turn::OnlyPoison(cell) => {
                return Report {
                    depth: 1,
                    nodes: 1,
                    ..Report::at_once(Some(cell), -WIN + 1)
                };
            }
            Turn::Safe { seat, safe, .. } => (seat, safe),
        };
        let mut limits = Limits::new(budget, stop);
        let mut order = shuffled(safe, &mut self.rng);
        if config.players() == 2
            && !matches!(budget, Budget::Depth(_))
            && let Some(report) = self.by_regions(config, position, budget, &mut order, &mut limits)
        {
            return report;
        }
        let megabytes = self.megabytes;
        let multi = config.players() > 2 && self.mode == MultiMode::MaxN;
        let mut deepening = Deepening::new(budget, order);
        for depth in deepening.depths() {
            // A new searcher each iteration: the history starts afresh.
            let deeper = if multi {
                let tt = self
                    .vectors
                    .get_or_insert_with(|| VectorTable::new(table_bits(megabytes, 24)));
                deepening.iterate(&mut MaxN::new(config, tt, &mut limits), position, depth)
            } else {
                let tt = self
                    .tt
                    .get_or_insert_with(|| Table::with_megabytes(megabytes));
                let search =
                    &mut Negamax::new(config, tt, &mut limits, seat).with_contempt(self.contempt);
                deepening.iterate(search, position, depth)
            };
            if !deeper {
                break;
            }
        }
        deepening.report(limits.nodes)
    }
}

impl Engine {
    /// Half of a node or time budget for exact values from the region solver, counted on
    /// `limits`: `order` keeps only the selections of the best value, for the search to choose
    /// among. When that value is a tie or a loss and more than one selection keeps it, the one
    /// whose replies most often go wrong for the opponent is the answer.
    fn by_regions(
        &mut self,
        config: &Config,
        position: &Position,
        budget: Budget,
        order: &mut Vec<u8>,
        limits: &mut Limits,
    ) -> Option<Report> {
        let part = match budget {
            Budget::Nodes(n) => Budget::Nodes((n / 2).max(1)),
            Budget::Time(t) => Budget::Time(t / 2),
            depth => depth,
        };
        let mut region_limits = Limits::new(part, limits.flag());
        let solver = self
            .regions
            .get_or_insert_with(|| RegionSolver::new(REGION_BITS));
        let chosen = best_by_regions(solver, config, position, order, &mut region_limits);
        limits.nodes += region_limits.nodes;
        let (best, top) = chosen?;
        Some(Report {
            best: Some(Cell::from_index(u32::from(best))),
            score: if top == 1 { -self.contempt } else { -WIN + 2 },
            proven: true,
            depth: 0,
            nodes: limits.nodes,
        })
    }
}

/// An outcome as a number: a win 2, a tie 1, a loss 0.
fn rank(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Win => 2,
        Outcome::Tie => 1,
        Outcome::Loss => 0,
    }
}

/// Keeps in `order` only the selections of the best value the region solver finds; when that
/// value is not a win and more than one selection keeps it, the one whose replies most often
/// go wrong for the opponent ([`likeliest_error`]) and the value's [`rank`]. `None` leaves the
/// choice to the search (also once stopped).
fn best_by_regions(
    solver: &mut RegionSolver,
    config: &Config,
    position: &Position,
    order: &mut Vec<u8>,
    limits: &mut Limits,
) -> Option<(u8, u8)> {
    let values = solver.solve_moves(config, position, limits)?;
    let top = values.iter().map(|&(_, o)| rank(o)).max().unwrap_or(0);
    let keep: Vec<u32> = values
        .iter()
        .filter(|&&(_, o)| rank(o) == top)
        .map(|&(a, _)| a)
        .collect();
    order.retain(|&m| keep.contains(&u32::from(m)));
    if top == 2 || order.len() < 2 {
        return None;
    }
    let best = likeliest_error(solver, config, position, order, limits)?;
    Some((best, top))
}

/// Among the selections `order`, the first whose replies most often go wrong for the opponent
/// (an opponent that errs scores less; a perfect one scores the same against all of them).
/// `None` once stopped.
fn likeliest_error(
    solver: &mut RegionSolver,
    config: &Config,
    position: &Position,
    order: &[u8],
    limits: &mut Limits,
) -> Option<u8> {
    let mut best: Option<(u8, f64)> = None;
    for &m in order {
        let mut child = *position;
        child.play(config, Cell::from_index(u32::from(m)));
        let chance = if child.to_move().is_none() {
            0.5
        } else {
            let replies = solver.solve_moves(config, &child, limits)?;
            let mine: f64 = replies
                .iter()
                .map(|&(_, o)| 1.0 - f64::from(rank(o)) / 2.0)
                .sum();
            mine / replies.len().max(1) as f64
        };
        if best.is_none_or(|b| chance > b.1) {
            best = Some((m, chance));
        }
    }
    best.map(|(m, _)| m)
}

impl Report {
    /// The report of a move chosen without a search: proven, at depth 0, no node visited.
    pub(super) fn at_once(best: Option<Cell>, score: i32) -> Report {
        Report {
            best,
            score,
            proven: true,
            depth: 0,
            nodes: 0,
        }
    }

    /// Its depth and nodes, as a player reports its last search.
    pub(crate) fn info(&self) -> SearchInfo {
        SearchInfo {
            depth: Some(self.depth),
            nodes: self.nodes,
        }
    }
}

/// log2 of a table's slot count for about `megabytes` MiB of `slot_bytes`-byte slots.
fn table_bits(megabytes: usize, slot_bytes: usize) -> u32 {
    let slots = ((megabytes << 20) / slot_bytes).max(1024);
    usize::BITS - 1 - slots.leading_zeros()
}
