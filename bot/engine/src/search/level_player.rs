//! [`LevelPlayer`]: a named level's bot, which picks its engine by the number of seats: the
//! alpha-beta search with the region solver for two, Monte Carlo tree search for three and four
//! (the strongest of each in the tournaments of `docs/BOTS.md`), on the same budget; the tree
//! search models the other seats as players that may err ([`OpponentModel::ERRING`]).

use super::mcts::OpponentModel;
use super::{Budget, MctsPlayer, SearchPlayer};
use crate::player::{Player, SearchInfo};
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// One budget, two engines: [`SearchPlayer`] in two-player games, [`MctsPlayer`] in three- and
/// four-player games.
#[derive(Debug)]
pub struct LevelPlayer {
    two: SearchPlayer,
    multi: MctsPlayer,
    /// Whether the last choice was the tree search's.
    multi_last: bool,
}

impl LevelPlayer {
    /// A level's bot with this budget (node or time; see [`MctsPlayer`] for a depth budget).
    pub fn new(budget: Budget, seed: u64) -> Self {
        LevelPlayer {
            two: SearchPlayer::new(budget, seed),
            multi: MctsPlayer::new(budget, seed).with_opponents(OpponentModel::ERRING),
            multi_last: false,
        }
    }
}

impl Player for LevelPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        self.multi_last = config.players() > 2;
        if self.multi_last {
            self.multi.choose(config, position)
        } else {
            self.two.choose(config, position)
        }
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.two.set_stop(Arc::clone(&stop));
        self.multi.set_stop(stop);
    }

    /// Takes a node or time budget for both engines (a level has no depth budget).
    fn set_budget(&mut self, budget: Budget) -> bool {
        self.multi.set_budget(budget) && self.two.set_budget(budget)
    }

    fn last_search(&self) -> Option<SearchInfo> {
        if self.multi_last {
            self.multi.last_search()
        } else {
            self.two.last_search()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::search::expected::Memo;
    use crate::search::mcts_player;
    use jchomp_testkit::board;

    #[test]
    fn two_seats_search_and_more_seats_run_the_tree_search() {
        let budget = Budget::Nodes(20_000);
        for (notation, seed) in [
            ("8x8 eat 1x2 poison 0,0 poison 7,7", 1),
            ("8x8 eat 1x2 poison 0,0 poison 7,7 players 3", 2),
            ("7x7 eat 2x1 poison 3,3 players 4", 3),
        ] {
            let config = board(notation);
            let position = Position::start(&config);
            let chosen = LevelPlayer::new(budget, seed).choose(&config, &position);
            let expected = if config.players() > 2 {
                let rng = &mut Rng::new(seed);
                let model = OpponentModel::ERRING;
                let memo = &mut Memo::default();
                mcts_player::search(&config, &position, budget, None, rng, model, memo).best
            } else {
                SearchPlayer::new(budget, seed).choose(&config, &position)
            };
            assert_eq!(chosen, expected, "{notation}");
        }
    }
}
