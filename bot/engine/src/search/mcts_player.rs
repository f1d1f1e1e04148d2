//! [`MctsPlayer`]: a [`Player`] that runs a Monte Carlo tree search ([`super::mcts`]) for each
//! move within a node or time budget.

use super::Budget;
use super::limits::Limits;
use super::mcts::{Mcts, MctsReport, OpponentModel};
use crate::player::Player;
use crate::rng::Rng;
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A bot that searches each move with MCTS within its budget (nodes or time; a depth budget
/// searches as many nodes as [`MctsPlayer::DEPTH_NODES`] per ply of depth).
#[derive(Debug)]
pub struct MctsPlayer {
    budget: Budget,
    rng: Rng,
    stop: Option<Arc<AtomicBool>>,
    opponents: OpponentModel,
}

impl MctsPlayer {
    /// Nodes per ply of a depth budget (a tree search has no depth of its own).
    pub const DEPTH_NODES: u64 = 10_000;

    /// An MCTS bot with this budget; `seed` drives its playouts and the order it tries moves.
    pub fn new(budget: Budget, seed: u64) -> Self {
        MctsPlayer {
            budget,
            rng: Rng::new(seed),
            stop: None,
            opponents: OpponentModel::BEST_REPLIES,
        }
    }

    /// The same bot modelling the other seats as `model` says (see [`Mcts::with_opponents`];
    /// the default is [`OpponentModel::BEST_REPLIES`]).
    pub fn with_opponents(mut self, model: OpponentModel) -> Self {
        self.opponents = model;
        self
    }

    /// The budget of each move.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Searches `position` and reports what it found.
    pub fn search(&mut self, config: &Config, position: &Position) -> MctsReport {
        let budget = match self.budget {
            Budget::Depth(d) => Budget::Nodes(u64::from(d) * Self::DEPTH_NODES),
            b => b,
        };
        let model = self.opponents;
        search(
            config,
            position,
            budget,
            self.stop.clone(),
            &mut self.rng,
            model,
        )
    }
}

/// One MCTS search of `position` within `budget` (a depth budget is not one: it is read as
/// nodes), stopped early by `stop`, modelling the other seats as `opponents` says.
pub fn search(
    config: &Config,
    position: &Position,
    budget: Budget,
    stop: Option<Arc<AtomicBool>>,
    rng: &mut Rng,
    opponents: OpponentModel,
) -> MctsReport {
    let answer = |best: Option<Cell>, proven_win: bool| MctsReport {
        best,
        value: if proven_win { 1.0 } else { 0.0 },
        proven_win,
        proven: None,
        simulations: 0,
        nodes: 0,
    };
    if position.to_move().is_none() {
        return answer(None, false);
    }
    let safe = position.safe_selections(config);
    if !position.selections().intersects(config.poison_zone()) {
        // No selection can reach poison any more: the game ties whatever anyone plays.
        return answer(safe.first().map(Cell::from_index), false);
    }
    match safe.count() {
        // Every selection eats poison: any of them loses.
        0 => return answer(position.selections().first().map(Cell::from_index), false),
        1 => return answer(safe.first().map(Cell::from_index), false),
        _ => {}
    }
    let mut limits = Limits::new(budget, stop);
    let mut mcts = Mcts::new(config, position, rng).with_opponents(opponents);
    mcts.run(position, &mut limits);
    mcts.report(limits.nodes)
}

impl Player for MctsPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        self.search(config, position).best
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_rules::Bits;
    use jchomp_testkit::board;
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    #[test]
    fn a_raised_stop_flag_ends_an_hour_long_search_at_once() {
        let config = board("15x15 eat 1x2 poison 0,0 poison 14,14 players 4");
        let position = Position::start(&config);
        let flag = Arc::new(AtomicBool::new(true));
        let mut player = MctsPlayer::new(Budget::Time(Duration::from_secs(3600)), 3);
        player.set_stop(Arc::clone(&flag));
        let report = player.search(&config, &position);
        // The first simulation always runs; the flag is read every 1024 nodes.
        assert!(
            report.simulations >= 1 && report.nodes < 2_000,
            "{report:?}"
        );
        let cell = report.best.unwrap();
        assert!(position.safe_selections(&config).contains(cell.index()));
        flag.store(false, Ordering::Relaxed);
    }

    #[test]
    fn forced_answers_and_the_end_of_the_game_need_no_search() {
        let config = board("4x4 poison 0,0 players 3");
        let mut player = MctsPlayer::new(Budget::Nodes(1_000_000), 1);
        // Only the poison and one cell left: the one safe selection, at once.
        let two = Position::from_uneaten(&config, Bits::single(0) | Bits::single(1), 2);
        let report = player.search(&config, &two);
        assert_eq!((report.best, report.nodes), (Some(Cell::new(0, 1)), 0));
        // Only poison: it must be eaten.
        let one = Position::from_uneaten(&config, Bits::single(0), 1);
        assert_eq!(player.choose(&config, &one), Some(Cell::new(0, 0)));
        // No poison left to reach: a tie whatever happens, any selection.
        let config = board("4x4 eat 1x2 poison 0,0 players 3");
        let cells = Bits::single(0) | Bits::single(32) | Bits::single(33);
        let safe = Position::from_uneaten(&config, cells, 0);
        let report = player.search(&config, &safe);
        assert!(report.best.is_some() && report.nodes == 0);
    }
}
