//! The [`Player`] interface every bot implements, and the two simplest bots: `random` and
//! `greedy`.

use crate::rng::Rng;
use jchomp_protocol::rules::{Bits, Cell, Config, Position};

/// Something that chooses selections. Called only when the position has a seat to move.
pub trait Player: Send {
    /// Chooses a valid selection for the seat to move, or `None` if the game is over.
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell>;
}

/// A uniformly random member of a set of anchors.
pub fn pick(set: Bits, rng: &mut Rng) -> Option<Cell> {
    let n = set.count();
    if n == 0 {
        return None;
    }
    let k = rng.below(n as u64) as usize;
    set.iter().nth(k).map(Cell::from_index)
}

/// Picks a valid selection at random, preferring one without poison.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// A random player seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: Rng::new(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        let safe = position.safe_selections(config);
        let set = if safe.is_empty() {
            position.selections()
        } else {
            safe
        };
        pick(set, &mut self.rng)
    }
}
