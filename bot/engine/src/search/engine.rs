//! [`Engine`]: iterative deepening over the two-sided or max^n search, within a [`Budget`],
//! answering with the best selection of the deepest finished (or best partial) iteration.

use super::Budget;
use super::limits::Limits;
use super::maxn::{MaxN, VectorTable};
use super::regions::RegionSolver;
use super::score::{Outcome, WIN};
use super::tt::Table;
use super::two::{Negamax, RootScore};
use crate::rng::Rng;
use jchomp_rules::{Bits, Cell, Config, Position};
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
    /// Its score for the seat to move (proven scores count plies, see [`super::score`]).
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
    pub fn with_mode(mut self, mode: MultiMode) -> Engine {
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
        let mut limits = Limits::new(budget, stop);
        let Some(seat) = position.to_move() else {
            return Report {
                best: None,
                score: 0,
                proven: true,
                depth: 0,
                nodes: 0,
            };
        };
        let safe = position.safe_selections(config);
        if safe.is_empty() {
            // Every selection holds poison: any of them loses.
            return Report {
                best: position.selections().first().map(Cell::from_index),
                score: -super::score::WIN + 1,
                proven: true,
                depth: 1,
                nodes: 1,
            };
        }
        let mut order = shuffled(safe, &mut self.rng);
        if config.players() == 2 && !matches!(budget, Budget::Depth(_)) {
            // Half the budget for exact values from the region solver; the search then only
            // chooses among the selections that keep the best value.
            let part = match budget {
                Budget::Nodes(n) => Budget::Nodes((n / 2).max(1)),
                Budget::Time(t) => Budget::Time(t / 2),
                depth => depth,
            };
            let mut region_limits = Limits::new(part, limits.flag());
            let solver = self
                .regions
                .get_or_insert_with(|| RegionSolver::new(REGION_BITS));
            if let Some(values) = solver.solve_moves(config, position, &mut region_limits) {
                let rank = |o: Outcome| match o {
                    Outcome::Win => 2,
                    Outcome::Tie => 1,
                    Outcome::Loss => 0,
                };
                let top = values.iter().map(|&(_, o)| rank(o)).max().unwrap_or(0);
                let keep: Vec<u32> = values
                    .iter()
                    .filter(|&&(_, o)| rank(o) == top)
                    .map(|&(a, _)| a)
                    .collect();
                order.retain(|&m| keep.contains(&u32::from(m)));
                if top < 2 && order.len() > 1 {
                    // Not a win: among the selections that keep the value, take the one whose
                    // replies most often go wrong for the opponent (an opponent that errs
                    // scores less; a perfect one scores the same against all of them).
                    let mut chances = Vec::with_capacity(order.len());
                    for &m in &order {
                        let mut child = *position;
                        child.play(config, Cell::from_index(u32::from(m)));
                        if child.to_move().is_none() {
                            chances.push((m, 0.5));
                            continue;
                        }
                        let Some(replies) = solver.solve_moves(config, &child, &mut region_limits)
                        else {
                            break;
                        };
                        let mine: f64 = replies
                            .iter()
                            .map(|&(_, o)| 1.0 - f64::from(rank(o)) / 2.0)
                            .sum();
                        chances.push((m, mine / replies.len().max(1) as f64));
                    }
                    if chances.len() == order.len() {
                        let mut best = chances[0];
                        for &c in &chances[1..] {
                            if c.1 > best.1 {
                                best = c;
                            }
                        }
                        limits.nodes += region_limits.nodes;
                        return Report {
                            best: Some(Cell::from_index(u32::from(best.0))),
                            score: if top == 1 { -self.contempt } else { -WIN + 2 },
                            proven: true,
                            depth: 0,
                            nodes: limits.nodes,
                        };
                    }
                }
            }
            limits.nodes += region_limits.nodes;
        }
        let max_depth = match budget {
            Budget::Depth(d) => d.clamp(1, Budget::MAX_DEPTH),
            _ => Budget::MAX_DEPTH,
        };
        let megabytes = self.megabytes;
        let multi = config.players() > 2 && self.mode == MultiMode::MaxN;
        let mut best: Option<(RootScore, u32)> = None;
        let mut scores = Vec::with_capacity(order.len());
        for depth in 1..=max_depth {
            limits.armed = depth > 1;
            let found = if multi {
                let tt = self
                    .vectors
                    .get_or_insert_with(|| VectorTable::new(table_bits(megabytes, 24)));
                MaxN::new(config, tt, &mut limits).root(position, depth, &order, &mut scores)
            } else {
                let tt = self
                    .tt
                    .get_or_insert_with(|| Table::with_megabytes(megabytes));
                Negamax::new(config, tt, &mut limits, seat)
                    .with_contempt(self.contempt)
                    .root(position, depth, &order, &mut scores)
            };
            let Some(found) = found else { break };
            let deeper = limits.may_deepen();
            if !next_iteration(found, depth, &mut best, &mut scores, &mut order, deeper) {
                break;
            }
        }
        Report::from_root(best, &order, limits.nodes)
    }
}

/// Records one iteration of a deepening root search in `best` and says whether to search one
/// deeper: not once the root is stopped, proven or won, or the budget forbids it. To go on,
/// `order` becomes the next iteration's: this one's best first, then by its scores.
pub(super) fn next_iteration(
    found: RootScore,
    depth: u32,
    best: &mut Option<(RootScore, u32)>,
    scores: &mut [(u8, i32)],
    order: &mut Vec<u8>,
    may_deepen: bool,
) -> bool {
    *best = Some((found, depth));
    if !found.complete
        || found.proven
        || found.score.abs() > super::score::PROVEN_WIN
        || !may_deepen
    {
        return false;
    }
    scores.sort_by_key(|&(mv, s)| (mv != found.mv, std::cmp::Reverse(s)));
    order.clear();
    order.extend(scores.iter().map(|&(mv, _)| mv));
    true
}

impl Report {
    /// What a deepening root search found: its deepest iteration's choice, or, stopped before
    /// any, the first selection of `order` with no score.
    pub(super) fn from_root(best: Option<(RootScore, u32)>, order: &[u8], nodes: u64) -> Report {
        match best {
            Some((r, depth)) => Report {
                best: Some(Cell::from_index(u32::from(r.mv))),
                score: r.score,
                proven: r.proven,
                depth,
                nodes,
            },
            None => Report {
                best: order.first().map(|&m| Cell::from_index(u32::from(m))),
                score: 0,
                proven: false,
                depth: 0,
                nodes,
            },
        }
    }
}

/// The anchors of `set` in a random order.
pub(super) fn shuffled(set: Bits, rng: &mut Rng) -> Vec<u8> {
    let mut v: Vec<u8> = set.iter().map(|i| i as u8).collect();
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// log2 of a table's slot count for about `megabytes` MiB of `slot_bytes`-byte slots.
fn table_bits(megabytes: usize, slot_bytes: usize) -> u32 {
    let slots = ((megabytes << 20) / slot_bytes).max(1024);
    usize::BITS - 1 - slots.leading_zeros()
}
