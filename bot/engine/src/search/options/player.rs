//! [`OptionsPlayer`]: every built-in bot under the rule options. It hands standard games to the
//! bot it wraps; under options the random bot picks any valid selection, the greedy bot looks
//! two plies ahead, and the search bots solve two-player games exactly within half their budget
//! ([`Exact`]) and otherwise search max^n over the rules' selections and results.

use super::exact::{Exact, Value, beyond_reach};
use super::{maxn, standard};
use crate::player::{Player, SearchInfo, pick};
use crate::rng::Rng;
use crate::search::{Budget, Limits};
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What a bot does under the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Any valid selection at random.
    Random,
    /// The best selection two plies deep (an immediate win taken, an immediate loss avoided).
    Greedy,
    /// Exact values within half the budget, max^n search in the rest.
    Search(Budget),
}

/// A bot that plays standard games as the bot it wraps and options games by [`Kind`].
pub(crate) struct OptionsPlayer {
    standard: Box<dyn Player>,
    kind: Kind,
    rng: Rng,
    stop: Option<Arc<AtomicBool>>,
    /// Whether the last choice was made under options (else by the wrapped bot).
    under_options: bool,
    /// The last search under options.
    last: Option<SearchInfo>,
}

impl OptionsPlayer {
    /// Wraps `standard`, which plays the games without options.
    pub(crate) fn new(standard: Box<dyn Player>, kind: Kind, seed: u64) -> Self {
        OptionsPlayer {
            standard,
            kind,
            rng: Rng::new(seed ^ 0x0b7e_0b7e),
            stop: None,
            under_options: false,
            last: None,
        }
    }

    /// The choice under options.
    fn choose_under_options(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        let budget = match self.kind {
            Kind::Random => return pick(position.selections(), &mut self.rng),
            Kind::Greedy => Budget::Depth(2),
            Kind::Search(budget) => budget,
        };
        let mut limits = Limits::new(half(budget), self.stop.clone());
        if config.players() == 2
            && !matches!(budget, Budget::Depth(_))
            && !beyond_reach(config, position)
            && let Some(cell) = self.exact(config, position, &mut limits)
        {
            return Some(cell);
        }
        // A depth budget is also held to a node budget: 225 selections a ply make four plies
        // of a 15×15 board out of reach.
        let nodes = match budget {
            Budget::Depth(_) => Budget::Nodes(DEPTH_NODES),
            budget => half(budget),
        };
        let mut limits = Limits::new(nodes, self.stop.clone());
        let (cell, depth) = maxn::choose(config, position, budget, &mut limits, &mut self.rng)?;
        self.last = Some(SearchInfo {
            depth: Some(depth),
            nodes: limits.nodes,
        });
        Some(cell)
    }

    /// A selection of the best exact value (at random among equals), if every selection is
    /// solved within `limits`.
    fn exact(&mut self, config: &Config, position: &Position, limits: &mut Limits) -> Option<Cell> {
        let mut exact = Exact::new(config);
        let mut best: Vec<(Value, Cell)> = Vec::new();
        for cell in position.selections().iter().map(Cell::from_index) {
            let v = exact.after(position, cell, limits)?;
            if best.first().is_none_or(|&(b, _)| v.beats(b)) {
                best.clear();
            }
            if best.first().is_none_or(|&(b, _)| !b.beats(v)) {
                best.push((v, cell));
            }
        }
        self.last = Some(SearchInfo {
            depth: None,
            nodes: limits.nodes,
        });
        let k = self.rng.below(best.len() as u64) as usize;
        best.get(k).map(|&(_, cell)| cell)
    }
}

/// The most nodes a depth budget's search visits under the options (the deepest finished
/// iteration decides).
const DEPTH_NODES: u64 = 200_000;

/// Half of a node or time budget (a depth budget whole).
fn half(budget: Budget) -> Budget {
    match budget {
        Budget::Nodes(n) => Budget::Nodes((n / 2).max(1)),
        Budget::Time(t) => Budget::Time(t / 2),
        depth => depth,
    }
}

impl Player for OptionsPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        self.under_options = !standard(config);
        self.last = None;
        if !self.under_options {
            return self.standard.choose(config, position);
        }
        self.choose_under_options(config, position)
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(Arc::clone(&stop));
        self.standard.set_stop(stop);
    }

    fn set_budget(&mut self, budget: Budget) -> bool {
        if let Kind::Search(b) = &mut self.kind {
            *b = budget;
        }
        self.standard.set_budget(budget)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        if self.under_options {
            self.last
        } else {
            self.standard.last_search()
        }
    }
}
