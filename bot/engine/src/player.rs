//! The [`Player`] interface every bot implements, and the two simplest bots: `random` and
//! `greedy`.

use crate::rng::Rng;
use crate::search::Budget;
use crate::turn::{Fault, Turn};
use jchomp_rules::{Bits, Cell, Config, Position, Status};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Something that chooses selections. Called only when the position has a seat to move.
pub trait Player: Send {
    /// Chooses a valid selection for the seat to move, or `None` if the game is over.
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell>;

    /// Hands the player a stop flag: once another thread sets it, a running [`Player::choose`]
    /// returns its best selection so far as soon as it can. Players that answer at once ignore it.
    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        let _ = stop;
    }

    /// A game of `config` is about to start (the arena calls it for every seat before the first
    /// move). Players with a process behind them (engines) start it here; a fault loses the game.
    fn start_game(&mut self, config: &Config) -> Result<(), Fault> {
        let _ = config;
        Ok(())
    }

    /// Chooses a selection knowing the whole game and the clocks. Defaults to
    /// [`Player::choose`] on the current position; engines, which are sent every move so far
    /// and the clocks, answer here, and may fail in ways of their own.
    fn play(&mut self, turn: &Turn<'_>) -> Result<Option<Cell>, Fault> {
        Ok(self.choose(turn.game.config(), turn.game.position()))
    }

    /// The last lines it exchanged, for the record of a game it lost by an answer the arena
    /// refused (an engine's traffic; nothing for a built-in bot).
    fn last_lines(&self) -> Vec<String> {
        Vec::new()
    }

    /// Replaces the budget of the following choices with `budget`, if the player searches
    /// with a budget of that kind; false (the default) leaves the player as it was. Choices
    /// made without calling it are those of the player as built.
    fn set_budget(&mut self, budget: Budget) -> bool {
        let _ = budget;
        false
    }

    /// What the last [`Player::choose`] searched, for players that search; `None` (the
    /// default) for those that do not say, or whose last answer needed no search.
    fn last_search(&self) -> Option<SearchInfo> {
        None
    }
}

/// What one search of a [`Player`] found, as an engine reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// Depth of the deepest iteration that searched the chosen selection (plies, or layers
    /// for Best-Reply Search+), for searches that deepen.
    pub depth: Option<u32>,
    /// Nodes visited.
    pub nodes: u64,
}

/// A player lent for a while (a tournament's engine, kept from game to game by its worker,
/// lends itself to each game it plays): every call goes to the player borrowed.
impl<P: Player + ?Sized> Player for &mut P {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        (**self).choose(config, position)
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        (**self).set_stop(stop);
    }

    fn start_game(&mut self, config: &Config) -> Result<(), Fault> {
        (**self).start_game(config)
    }

    fn play(&mut self, turn: &Turn<'_>) -> Result<Option<Cell>, Fault> {
        (**self).play(turn)
    }

    fn last_lines(&self) -> Vec<String> {
        (**self).last_lines()
    }
}

/// Whether the seat to move at `position` has only poison left (it must eat it and lose): the
/// move that made the position was an immediate win.
pub(crate) fn only_poison_left(config: &Config, position: &Position) -> bool {
    matches!(position.status(), Status::ToMove(_)) && position.safe_selections(config).is_empty()
}

/// The safe selections (no poison) after which the next seat has no safe selection left but
/// must eat poison: playing one of them wins at once (the next seat loses).
pub fn immediate_wins(config: &Config, position: &Position) -> Bits {
    let mut wins = Bits::EMPTY;
    for index in position.safe_selections(config).iter() {
        let mut child = *position;
        child.play(config, Cell::from_index(index));
        if only_poison_left(config, &child) {
            wins |= Bits::single(index);
        }
    }
    wins
}

/// A uniformly random member of a set of anchors.
pub(crate) fn pick(set: Bits, rng: &mut Rng) -> Option<Cell> {
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
        pick(position.safe_or_any_selections(config), &mut self.rng)
    }
}

/// A one-ply bot: takes an immediate win when it has one, never eats poison while a selection
/// without poison exists, and otherwise picks at random.
#[derive(Clone, Debug)]
pub(crate) struct GreedyPlayer {
    rng: Rng,
}

impl GreedyPlayer {
    /// A greedy player seeded with `seed` (for its random choices).
    pub fn new(seed: u64) -> Self {
        GreedyPlayer {
            rng: Rng::new(seed),
        }
    }
}

impl Player for GreedyPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        position.to_move()?;
        let wins = immediate_wins(config, position);
        if !wins.is_empty() {
            return pick(wins, &mut self.rng);
        }
        pick(position.safe_or_any_selections(config), &mut self.rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::board;

    #[test]
    fn greedy_takes_the_win_and_random_avoids_poison() {
        let c = board("4x4 poison 0,0");
        // Uneaten: the poison and two more cells; eating one leaves the opponent only poison.
        let uneaten = Bits::single(0) | Bits::single(1) | Bits::single(2);
        let p = Position::from_uneaten(&c, uneaten, 0);
        assert!(immediate_wins(&c, &p).is_empty());
        let uneaten = Bits::single(0) | Bits::single(1);
        let p = Position::from_uneaten(&c, uneaten, 0);
        assert_eq!(immediate_wins(&c, &p), Bits::single(1));
        for seed in 0..20 {
            assert_eq!(
                GreedyPlayer::new(seed).choose(&c, &p),
                Some(Cell::new(0, 1))
            );
            assert_eq!(
                RandomPlayer::new(seed).choose(&c, &p),
                Some(Cell::new(0, 1))
            );
        }
        // Only poison left: both must eat it.
        let p = Position::from_uneaten(&c, Bits::single(0), 1);
        assert_eq!(GreedyPlayer::new(1).choose(&c, &p), Some(Cell::new(0, 0)));
    }
}
