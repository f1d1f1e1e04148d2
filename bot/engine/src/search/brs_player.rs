//! [`BrsPlayer`]: a [`Player`] that runs Best-Reply Search+ ([`super::brs`]) with iterative
//! deepening for each move within a depth, node or time budget.

use super::Budget;
use super::brs::Brs;
use super::engine::Report;
use super::limits::Limits;
use super::root::{Deepening, shuffled};
use super::score::WIN;
use super::trivial::Turn;
use super::tt::Table;
use crate::player::{Player, SearchInfo};
use crate::rng::Rng;
use jchomp_rules::{Cell, Config, Position};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Table size of a BRS+ bot, in MiB.
pub const BRS_TABLE_MB: usize = 16;

/// A bot that searches each move with Best-Reply Search+ within its budget (a depth budget
/// counts layers: the root's moves, then whole rounds of the others, see [`super::brs`]).
#[derive(Debug)]
pub struct BrsPlayer {
    budget: Budget,
    table: Option<Table>,
    rng: Rng,
    stop: Option<Arc<AtomicBool>>,
    last: Option<SearchInfo>,
}

impl BrsPlayer {
    /// A BRS+ bot with this budget; `seed` orders equally good selections.
    pub fn new(budget: Budget, seed: u64) -> Self {
        BrsPlayer {
            budget,
            table: None,
            rng: Rng::new(seed),
            stop: None,
            last: None,
        }
    }

    /// Searches `position` and reports what it found (scores are the seat to move's, as in
    /// [`super::brs`]; `depth` counts layers).
    pub fn search(&mut self, config: &Config, position: &Position) -> Report {
        let (seat, safe) = match Turn::of(config, position) {
            Turn::Over => return Report::at_once(None, 0),
            // Every selection holds poison: any of them loses.
            Turn::OnlyPoison(cell) => return Report::at_once(Some(cell), -WIN + 1),
            // A tie whatever anyone plays, or one selection: nothing to search.
            Turn::Safe {
                forced: Some(cell), ..
            } => return Report::at_once(Some(cell), 0),
            Turn::Safe { seat, safe, .. } => (seat, safe),
        };
        let mut limits = Limits::new(self.budget, self.stop.clone());
        let mut deepening = Deepening::new(self.budget, shuffled(safe, &mut self.rng));
        let tt = self
            .table
            .get_or_insert_with(|| Table::with_megabytes(BRS_TABLE_MB));
        // One searcher for every iteration, so its history carries over.
        let mut brs = Brs::new(config, tt, &mut limits, seat);
        for depth in deepening.depths() {
            if !deepening.iterate(&mut brs, position, depth) {
                break;
            }
        }
        deepening.report(limits.nodes)
    }
}

impl Player for BrsPlayer {
    fn choose(&mut self, config: &Config, position: &Position) -> Option<Cell> {
        let report = self.search(config, position);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::immediate_wins;
    use crate::search::fixtures::{decided, random_position};
    use crate::search::score::PROVEN_WIN;
    use jchomp_testkit::board;
    use jchomp_testkit::model::Model;
    use jchomp_testkit::paranoid::{self, LOSS, Memo};
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    /// The model's game after the engine's selection `cell`.
    fn after(model: &Model, cell: Cell) -> Model {
        model.after(i64::from(cell.row), i64::from(cell.col))
    }

    /// Whether the seat to move in `game` can only eat poison.
    fn stuck(game: &Model) -> bool {
        game.outcome.is_none()
            && game
                .valid()
                .iter()
                .all(|&(r, c)| game.after(r, c).poisoned())
    }

    /// Whether, after the root's move, the others can leave the root stuck before its next
    /// turn (three seats: the two replies).
    fn loses_in_one_round(child: &Model) -> bool {
        if child.outcome.is_some() {
            return false;
        }
        child.valid().iter().any(|&(r, c)| {
            let one = child.after(r, c);
            one.outcome.is_none()
                && one
                    .valid()
                    .iter()
                    .any(|&(r2, c2)| stuck(&one.after(r2, c2)))
        })
    }

    #[test]
    fn two_seats_play_the_brute_force_value() {
        let mut checked = 0;
        for notation in [
            "4x4 eat 1x2 poison 0,0",
            "4x4 eat 2x1 poison 1,2 poison 3,3",
            "4x5 eat 2x2 poison 2,2",
            "4x4 variant classic poison 0,0",
        ] {
            let config = board(notation);
            let mut memo = Memo::new();
            for seed in 0..8 {
                let (position, model) = random_position(&config, seed as u32 % 4, seed);
                if decided(&config, &position) {
                    continue;
                }
                let mover = usize::from(position.to_move().unwrap());
                let truth = paranoid::values(&model, &mut memo)[mover];
                let report = BrsPlayer::new(Budget::Depth(Budget::MAX_DEPTH), seed)
                    .search(&config, &position);
                // A win ends the deepening at once; anything else is searched to the end.
                assert!(
                    report.proven || report.score > PROVEN_WIN,
                    "{notation}: {report:?}"
                );
                let (outcome, _) = super::super::score::read(report.score);
                let expected = match truth {
                    LOSS => super::super::score::Outcome::Loss,
                    paranoid::TIE => super::super::score::Outcome::Tie,
                    _ => super::super::score::Outcome::Win,
                };
                // A tie scores the small contempt, read as a tie.
                assert_eq!(outcome, expected, "{notation} after {:?}", model.eaten);
                let child = after(&model, report.best.unwrap());
                assert_eq!(paranoid::values(&child, &mut memo)[mover], truth);
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} positions");
    }

    #[test]
    fn immediate_wins_are_taken_and_proven_losses_are_real() {
        let (mut wins, mut losses) = (0, 0);
        for notation in [
            "4x4 eat 1x2 poison 0,0 players 3",
            "4x5 eat 2x1 poison 3,0 poison 1,4 players 3",
            "4x4 eat 1x2 poison 2,1 players 4",
            "4x4 variant classic poison 0,0 players 3",
        ] {
            let config = board(notation);
            let mut memo = Memo::new();
            for seed in 0..40 {
                let (position, model) = random_position(&config, 2 + seed as u32 % 6, seed);
                if decided(&config, &position) {
                    continue;
                }
                let mover = usize::from(position.to_move().unwrap());
                let report = BrsPlayer::new(Budget::Nodes(20_000), seed).search(&config, &position);
                let child = after(&model, report.best.unwrap());
                if !immediate_wins(&config, &position).is_empty() {
                    // The next seat can only eat poison.
                    assert!(stuck(&child), "{notation}: no win after {:?}", model.eaten);
                    wins += 1;
                }
                if report.score < -PROVEN_WIN {
                    assert_eq!(paranoid::values(&model, &mut memo)[mover], LOSS);
                    losses += 1;
                }
            }
        }
        assert!(wins >= 5 && losses >= 3, "{wins} wins, {losses} losses");
    }

    #[test]
    fn three_seats_avoid_a_loss_within_one_round() {
        let mut avoided = 0;
        for notation in [
            "4x4 eat 1x2 poison 0,0 players 3",
            "4x5 eat 2x1 poison 3,0 poison 1,4 players 3",
            "5x4 eat 1x1 poison 4,3 players 3",
        ] {
            let config = board(notation);
            for seed in 0..40 {
                let (position, model) = random_position(&config, 1 + seed as u32 % 6, seed);
                if decided(&config, &position) {
                    continue;
                }
                let cells: Vec<Cell> = position
                    .safe_selections(&config)
                    .iter()
                    .map(Cell::from_index)
                    .collect();
                let losing = cells
                    .iter()
                    .filter(|&&c| loses_in_one_round(&after(&model, c)))
                    .count();
                if losing == 0 || losing == cells.len() {
                    continue;
                }
                for budget in [Budget::Depth(2), Budget::Nodes(20_000)] {
                    let best = BrsPlayer::new(budget, seed)
                        .search(&config, &position)
                        .best
                        .unwrap();
                    assert!(
                        !loses_in_one_round(&after(&model, best)),
                        "{notation} {budget}: {best} after {:?}",
                        model.eaten
                    );
                }
                avoided += 1;
            }
        }
        assert!(
            avoided >= 5,
            "only {avoided} positions with a loss to avoid"
        );
    }

    #[test]
    fn a_node_budget_reproduces_the_search_and_is_kept() {
        for notation in [
            "8x8 eat 1x2 poison 0,0 poison 7,7 players 3",
            "10x10 eat 2x3 poison 2,5 poison 7,1 players 4",
        ] {
            let config = board(notation);
            let position = Position::start(&config);
            for budget in [5_000u64, 40_000] {
                let run =
                    |seed| BrsPlayer::new(Budget::Nodes(budget), seed).search(&config, &position);
                let a = run(3);
                assert_eq!(run(3), a);
                assert!(a.depth >= 2, "{notation}: {a:?}");
                // The first iteration always completes; past it, the budget holds within a few nodes.
                assert!(
                    a.nodes <= budget + 8,
                    "{notation}: {} for {budget}",
                    a.nodes
                );
            }
        }
        // A depth budget stops at its depth.
        let config = board("8x8 eat 1x2 poison 0,0 poison 7,7 players 3");
        let report = BrsPlayer::new(Budget::Depth(3), 1).search(&config, &Position::start(&config));
        assert_eq!(report.depth, 3);
    }

    #[test]
    fn a_raised_stop_flag_ends_an_hour_long_search_at_once() {
        let config = board("15x15 eat 1x2 poison 0,0 poison 14,14 players 4");
        let position = Position::start(&config);
        let flag = Arc::new(AtomicBool::new(true));
        let mut player = BrsPlayer::new(Budget::Time(Duration::from_secs(3600)), 3);
        player.set_stop(Arc::clone(&flag));
        let report = player.search(&config, &position);
        // The first iteration (every selection and its estimate) always completes, then the flag
        // is read every 1024 nodes.
        assert!(report.nodes < 2_000, "{report:?}");
        assert!(
            position
                .safe_selections(&config)
                .contains(report.best.unwrap().index())
        );
        flag.store(false, Ordering::Relaxed);
    }
}
