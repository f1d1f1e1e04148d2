//! [`SearchPlayer`]: a [`Player`] that searches each move within a [`Budget`].

use super::Budget;
use super::engine::{Engine, MultiMode};
use crate::player::{Player, SearchInfo};
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Table size of a search bot, in MiB.
pub const PLAYER_TABLE_MB: usize = 16;

/// A bot that searches each move within its budget.
#[derive(Debug)]
pub struct SearchPlayer {
    budget: Budget,
    engine: Engine,
    stop: Option<Arc<AtomicBool>>,
    last: Option<SearchInfo>,
}

impl SearchPlayer {
    /// A search bot with this budget; `seed` varies its choice among equally good moves.
    pub fn new(budget: Budget, seed: u64) -> Self {
        SearchPlayer {
            budget,
            engine: Engine::new(PLAYER_TABLE_MB, seed),
            stop: None,
            last: None,
        }
    }

    /// The same bot with another multi-player search.
    pub fn with_mode(mut self, mode: MultiMode) -> Self {
        self.engine = self.engine.with_mode(mode);
        self
    }
}

impl Player for SearchPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        let report = self
            .engine
            .search(config, position, self.budget, self.stop.clone());
        self.last = Some(report.info());
        report.best
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    fn set_budget(&mut self, budget: Budget) -> bool {
        self.budget = budget;
        true
    }

    fn last_search(&self) -> Option<SearchInfo> {
        self.last
    }
}
