//! [`MctsPlayer`]: a [`Player`] that runs a Monte Carlo tree search ([`super::mcts`]) for each
//! move within a node or time budget.

use super::Budget;
use super::expected::{self, Memo};
use super::limits::Limits;
use super::mcts::{Mcts, MctsReport, OpponentModel};
use super::trivial::Turn;
use crate::player::{Player, SearchInfo};
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
    /// What the exact expectation ([`super::expected`]) found in earlier moves of the game.
    memo: Memo,
    last: Option<SearchInfo>,
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
            memo: Memo::default(),
            last: None,
        }
    }

    /// The same bot modelling the other seats as `model` says (see [`Mcts::with_opponents`];
    /// the default is [`OpponentModel::BEST_REPLIES`]).
    pub fn with_opponents(mut self, model: OpponentModel) -> Self {
        self.opponents = model;
        self
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
            &mut self.memo,
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
    memo: &mut Memo,
) -> MctsReport {
    let answer = |best: Option<Cell>| MctsReport {
        best,
        value: 0.0,
        proven_win: false,
        proven: None,
        simulations: 0,
        nodes: 0,
    };
    match Turn::of(config, position) {
        Turn::Over => return answer(None),
        // Every selection eats poison: any of them loses.
        Turn::OnlyPoison(cell) => return answer(Some(cell)),
        // A tie whatever anyone plays, or one selection: nothing to search.
        Turn::Safe {
            forced: Some(cell), ..
        } => return answer(Some(cell)),
        Turn::Safe { .. } => {}
    }
    let mut limits = Limits::new(budget, stop);
    if let Some(found) = exactly(config, position, budget, opponents, &mut limits, memo) {
        return MctsReport {
            best: Some(found.best),
            value: found.value,
            proven_win: false,
            proven: None,
            simulations: 0,
            nodes: limits.nodes,
        };
    }
    let mut mcts = Mcts::new(config, position, rng).with_opponents(opponents);
    mcts.run(position, &mut limits);
    mcts.report(limits.nodes)
}

/// The exact expectation of `position` against the model's erring opponents, where the model
/// has one, the game has as many seats as the model asks (more than two) and is classic Chomp
/// (whose following positions are known in advance), every position that can follow fits in
/// the memo, and the search fits in half the budget (half the time of a time budget); `None`
/// leaves the move to the tree search, with what is left of `limits`.
fn exactly(
    config: &Config,
    position: &Position,
    budget: Budget,
    opponents: OpponentModel,
    limits: &mut Limits,
    memo: &mut Memo,
) -> Option<expected::Expected> {
    let model = opponents.expected?;
    let positions = expected::classic_positions(config, position)?;
    if config.players() < model.from_seats.max(3) || positions > Memo::MAX_VALUES as u64 {
        return None;
    }
    let cap = match budget {
        Budget::Nodes(n) => n / 2,
        Budget::Depth(_) | Budget::Time(_) => u64::MAX,
    };
    expected::best_move(config, position, model, limits, cap, memo)
}

impl Player for MctsPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        let report = self.search(config, position);
        self.last = Some(SearchInfo {
            depth: None,
            nodes: report.nodes,
        });
        report.best
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Takes a node or time budget; a tree search has no depth of its own, so a depth budget
    /// is refused here (though [`MctsPlayer::new`] reads one as nodes).
    fn set_budget(&mut self, budget: Budget) -> bool {
        if matches!(budget, Budget::Depth(_)) {
            return false;
        }
        self.budget = budget;
        true
    }

    fn last_search(&self) -> Option<SearchInfo> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::expected::{ErringModel, Memo};
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

    #[test]
    fn classic_positions_that_fit_are_played_by_the_exact_expectation() {
        let config = board("5x5 variant classic poison 0,0 players 4");
        let start = Position::start(&config);
        let level =
            |nodes| MctsPlayer::new(Budget::Nodes(nodes), 1).with_opponents(OpponentModel::ERRING);
        let report = level(200_000).search(&config, &start);
        let whole = &mut Limits::new(Budget::Nodes(u64::MAX), None);
        let model = ErringModel::LEVELS;
        let exact = expected::best_move(
            &config,
            &start,
            model,
            whole,
            u64::MAX,
            &mut Memo::default(),
        )
        .unwrap();
        assert_eq!((report.best, report.simulations), (Some(exact.best), 0));
        assert!(report.nodes == whole.nodes && report.nodes <= 100_000);
        // Where it does not fit in half the budget, the tree search plays, within the budget.
        let report = level(2_000).search(&config, &start);
        assert!(
            report.simulations > 0 && report.nodes <= 2_000 + 64,
            "{report:?}"
        );
        // The `mcts:` specs never value exactly, nor do the levels in JChomp or with three
        // seats.
        let report = MctsPlayer::new(Budget::Nodes(200_000), 1).search(&config, &start);
        assert!(report.simulations > 0);
        let three = board("5x5 variant classic poison 0,0 players 3");
        let report = level(200_000).search(&three, &Position::start(&three));
        assert!(report.simulations > 0);
        let jchomp = board("5x5 eat 1x2 poison 0,0 players 4");
        let report = level(200_000).search(&jchomp, &Position::start(&jchomp));
        assert!(report.simulations > 0);
    }
}
