//! [`Engine`]: iterative deepening over the two-sided or max^n search, within a [`Budget`],
//! answering with the best selection of the deepest finished (or best partial) iteration.

use super::Budget;
use super::limits::Limits;
use super::maxn::{MaxN, VectorTable};
use super::tt::Table;
use super::two::{Negamax, RootScore};
use crate::rng::Rng;
use jchomp_protocol::rules::{Bits, Cell, Config, Position};
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
}

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
        }
    }

    /// Chooses the multi-player search.
    pub fn with_mode(mut self, mode: MultiMode) -> Engine {
        self.mode = mode;
        self
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
            best = Some((found, depth));
            if !found.complete
                || found.proven
                || found.score.abs() > super::score::PROVEN_WIN
                || !limits.may_deepen()
            {
                break;
            }
            // Next iteration: best first, then by this iteration's scores.
            scores.sort_by_key(|&(mv, s)| (mv != found.mv, std::cmp::Reverse(s)));
            order.clear();
            order.extend(scores.iter().map(|&(mv, _)| mv));
        }
        match best {
            Some((r, depth)) => Report {
                best: Some(Cell::from_index(u32::from(r.mv))),
                score: r.score,
                proven: r.proven,
                depth,
                nodes: limits.nodes,
            },
            None => Report {
                best: order.first().map(|&m| Cell::from_index(u32::from(m))),
                score: 0,
                proven: false,
                depth: 0,
                nodes: limits.nodes,
            },
        }
    }
}

/// The anchors of `set` in a random order.
fn shuffled(set: Bits, rng: &mut Rng) -> Vec<u8> {
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
