//! Exact expected scores against a fixed model of erring opponents, for positions whose game
//! tree is small enough to enumerate within the budget: an expectimax over every position that
//! can follow, memoised, where the searching seat takes its best move and each other seat plays
//! as the model says (an immediate win taken with probability [`ErringModel::win_rate`],
//! otherwise a uniformly random selection without poison — `greedy` and `random` are its two
//! ends). The levels use it in classic Chomp with four seats, where the positions that can
//! follow are known in advance (the staircases inside the current one,
//! [`classic_positions`]);
//! where it answers within its share of the budget they play its best move instead of estimating
//! it by simulations. Measured in `docs/BOTS.md` ("Exact expectations in classic Chomp").

use super::limits::Limits;
use super::trivial::decided;
use crate::classic::shape_of;
use crate::player::only_poison_left;
use crate::scoring::loser_score;
use jchomp_rules::{Bits, Cell, Config, Position, Seat, Variant};
use std::collections::HashMap;

/// How the other seats are expected to play in the exact expectation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErringModel {
    /// The chance that a seat with an immediate win (a selection after which the next seat has
    /// only poison left) takes one; otherwise it picks a selection without poison uniformly.
    pub win_rate: f64,
    /// The fewest seats a game must have for the levels to value it this way.
    pub from_seats: u8,
}

impl ErringModel {
    /// The levels' model: an immediate win taken one time in three, with four seats. Against
    /// `random` and `greedy` in classic Chomp this rate gave the best policy of those tried
    /// (`scripts/classic_model.py`: 0, ⅓, ½ and 1). With three seats the tree search stays:
    /// valuing exactly against erring opponents lost head to head to a seat that searches
    /// (`docs/BOTS.md`, "Exact expectations in classic Chomp").
    pub const LEVELS: ErringModel = ErringModel {
        win_rate: 1.0 / 3.0,
        from_seats: 4,
    };
}

/// What the exact expectation found at the root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expected {
    /// The best selection for the searching seat (the first in index order among equals).
    pub best: Cell,
    /// Its expected score for the searching seat (1 a win, ½ a tie, 0 a loss).
    pub value: f64,
}

/// Two expected scores closer than this are equal (sums of a few hundred fractions).
const EPSILON: f64 = 1e-9;

/// How many positions made between two reads of the clock and the stop flag.
const POLL_EVERY: u64 = 1024;

/// The values found so far for one configuration and one searching seat, kept from one move to
/// the next (a search given up still leaves every position it finished): a later search of the
/// same game walks the finished part again at the cost of one position each.
#[derive(Debug, Default)]
pub struct Memo {
    game: Option<(Config, Seat, u64)>,
    values: HashMap<(Bits, Seat), f64>,
}

impl Memo {
    /// Most values kept (about 15 MiB): the levels value a classic position exactly only when
    /// every position that can follow fits ([`classic_positions`]: 8×8 with four seats needs
    /// 51,480), and past it the memo starts again empty.
    pub const MAX_VALUES: usize = 1 << 18;

    /// The values for this game, seat and model, dropping any kept for another.
    fn values_for(
        &mut self,
        config: &Config,
        me: Seat,
        model: ErringModel,
    ) -> &mut HashMap<(Bits, Seat), f64> {
        let game = Some((*config, me, model.win_rate.to_bits()));
        if self.game != game || self.values.len() > Self::MAX_VALUES {
            self.values.clear();
            self.game = game;
        }
        &mut self.values
    }

    /// How many positions have a value.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.values.len()
    }
}

/// The expectimax over one game tree.
struct Expectimax<'a> {
    config: &'a Config,
    me: Seat,
    model: ErringModel,
    memo: &'a mut HashMap<(Bits, Seat), f64>,
    limits: &'a mut Limits,
    /// Positions made (counted on `limits`) past which the search gives up.
    cap: u64,
}

impl Expectimax<'_> {
    /// Counts one position made; false once the search must give up.
    fn made(&mut self) -> bool {
        self.limits.tick();
        if self.limits.nodes >= self.cap {
            return false;
        }
        // Every so often the clock and the stop flag: the search gives up at half the time.
        !self.limits.nodes.is_multiple_of(POLL_EVERY) || self.limits.may_deepen()
    }

    /// The searching seat's expected score at `position`, or `None` if the search gave up.
    fn value(&mut self, position: &Position) -> Option<f64> {
        if let Some(loser) = decided(self.config, position) {
            return Some(loser_score(loser, self.me));
        }
        let mover = position.to_move()?;
        let key = (position.uneaten(), mover);
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        let mut best = f64::NEG_INFINITY;
        let (mut sum, mut count) = (0.0, 0u32);
        let (mut wins, mut win_count) = (0.0, 0u32);
        for index in position.safe_selections(self.config).iter() {
            let mut child = *position;
            child.play(self.config, Cell::from_index(index));
            if !self.made() {
                return None;
            }
            let v = self.value(&child)?;
            best = best.max(v);
            sum += v;
            count += 1;
            if mover != self.me && only_poison_left(self.config, &child) {
                wins += v;
                win_count += 1;
            }
        }
        let v = if mover == self.me {
            best
        } else {
            let uniform = sum / f64::from(count.max(1));
            if win_count > 0 {
                let rate = self.model.win_rate;
                rate * wins / f64::from(win_count) + (1.0 - rate) * uniform
            } else {
                uniform
            }
        };
        self.memo.insert(key, v);
        Some(v)
    }
}

/// The searching seat's best selection at `position` (which must have a seat to move and a
/// selection without poison) by its exact expected score against `model`, or `None` if more
/// than `cap` positions (counted on `limits`, which may also stop it) would be needed. `memo`
/// keeps what was found for the next search of the same game.
pub fn best_move(
    config: &Config,
    position: &Position,
    model: ErringModel,
    limits: &mut Limits,
    cap: u64,
    memo: &mut Memo,
) -> Option<Expected> {
    let me = position.to_move()?;
    let mut search = Expectimax {
        config,
        me,
        model,
        memo: memo.values_for(config, me, model),
        limits,
        cap,
    };
    let mut best: Option<(Cell, f64)> = None;
    for index in position.safe_selections(config).iter() {
        let mut child = *position;
        let cell = Cell::from_index(index);
        child.play(config, cell);
        if !search.made() {
            return None;
        }
        let v = search.value(&child)?;
        if best.is_none_or(|(_, b)| v > b + EPSILON) {
            best = Some((cell, v));
        }
    }
    let (best, value) = best?;
    Some(Expected { best, value })
}

/// In classic Chomp, how many positions can follow `position`, counting each staircase once per
/// seat that may be to move there: every position that can follow is a staircase inside the
/// uneaten cells ([`crate::classic::Shape::shapes_inside`], counted without search). An upper bound on the
/// values an expectimax from here keeps. `None` in JChomp, where no such count exists.
pub fn classic_positions(config: &Config, position: &Position) -> Option<u64> {
    if config.variant() != Variant::Classic {
        return None;
    }
    let shapes = shape_of(position.uneaten())?.shapes_inside();
    let positions = shapes.saturating_mul(u128::from(config.players()));
    Some(u64::try_from(positions).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{GreedyPlayer, Player, RandomPlayer};
    use crate::scoring;
    use crate::search::Budget;
    use crate::search::fixtures::random_position;
    use jchomp_testkit::board;
    use jchomp_testkit::model::{Model, Outcome};

    fn unlimited() -> Limits {
        Limits::new(Budget::Nodes(u64::MAX), None)
    }

    /// The whole expectimax of `position`, without limits.
    fn exact(
        config: &Config,
        position: &Position,
        model: ErringModel,
        memo: &mut Memo,
    ) -> Expected {
        best_move(config, position, model, &mut unlimited(), u64::MAX, memo).unwrap()
    }

    type Seen = HashMap<(Vec<(i64, i64)>, i64), f64>;

    /// The expected score of `me` in the brute-force model's game, written plainly: the game
    /// played out to its end by the model's own rules, no shortcut for decided games.
    fn plain(game: &Model, me: i64, win_rate: f64, seen: &mut Seen) -> f64 {
        let key = (game.eaten.iter().copied().collect(), game.to_move);
        if let Some(&v) = seen.get(&key) {
            return v;
        }
        let v = plain_uncached(game, me, win_rate, seen);
        seen.insert(key, v);
        v
    }

    fn plain_uncached(game: &Model, me: i64, win_rate: f64, seen: &mut Seen) -> f64 {
        match game.outcome {
            Some(Outcome::Poisoned(seat)) => return if seat == me { 0.0 } else { 1.0 },
            Some(Outcome::Won(seat)) => return if seat == me { 1.0 } else { 0.0 },
            Some(Outcome::Tie) => return 0.5,
            None => {}
        }
        let children: Vec<Model> = game
            .valid()
            .iter()
            .map(|&(r, c)| game.after(r, c))
            .collect();
        let safe: Vec<&Model> = children.iter().filter(|g| !g.poisoned()).collect();
        if safe.is_empty() {
            return if game.to_move == me { 0.0 } else { 1.0 };
        }
        let values: Vec<f64> = safe.iter().map(|g| plain(g, me, win_rate, seen)).collect();
        if game.to_move == me {
            return values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let wins: Vec<f64> = safe
            .iter()
            .zip(&values)
            .filter(|(g, _)| {
                g.outcome.is_none() && g.valid().iter().all(|&(r, c)| g.after(r, c).poisoned())
            })
            .map(|(_, &v)| v)
            .collect();
        if wins.is_empty() {
            mean(&values)
        } else {
            win_rate * mean(&wins) + (1.0 - win_rate) * mean(&values)
        }
    }

    #[test]
    fn every_move_is_valued_as_the_brute_force_model_plays_it_out() {
        let boards = [
            "4x4 variant classic poison 0,0 players 3",
            "4x4 variant classic poison 0,0 players 4",
            "4x4 variant classic poison 1,2 players 3",
            "4x4 eat 1x2 poison 0,0 poison 2,3 players 3",
            "4x4 eat 2x1 poison 1,1 players 4",
            "4x5 eat 2x2 poison 1,2 players 4",
        ];
        let mut checked = 0;
        for (b, notation) in boards.iter().enumerate() {
            let config = board(notation);
            for seed in 0..6 {
                let (position, game) =
                    random_position(&config, seed as u32 % 3, b as u64 * 10 + seed);
                if position.safe_selections(&config).is_empty() {
                    continue;
                }
                let me = game.to_move;
                for win_rate in [0.0, 1.0 / 3.0, 1.0] {
                    let model = ErringModel {
                        win_rate,
                        from_seats: 3,
                    };
                    let mut seen = Seen::new();
                    let mut memo = Memo::default();
                    let found = exact(&config, &position, model, &mut memo);
                    let moves: Vec<(Cell, f64)> = position
                        .safe_selections(&config)
                        .iter()
                        .map(Cell::from_index)
                        .map(|cell| {
                            let after = game.after(i64::from(cell.row), i64::from(cell.col));
                            (cell, plain(&after, me, win_rate, &mut seen))
                        })
                        .collect();
                    let top = moves.iter().map(|m| m.1).fold(f64::NEG_INFINITY, f64::max);
                    let chosen = moves.iter().find(|m| m.0 == found.best).unwrap().1;
                    assert!(
                        (found.value - top).abs() < 1e-9,
                        "{notation} seed {seed} q {win_rate}"
                    );
                    assert!(
                        (chosen - top).abs() < 1e-9,
                        "{notation} seed {seed} q {win_rate}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 90, "{checked}");
    }

    /// The first seat's expected score at the start, and its mean score over `games` games
    /// playing the exact expectation's best moves against `greedy` or `random` players.
    fn played(notation: &str, model: ErringModel, games: u64, greedy: bool) -> (f64, f64) {
        let me = 0;
        let config = board(notation);
        let start = Position::start(&config);
        let mut memo = Memo::default();
        let expected = exact(&config, &start, model, &mut memo).value;
        let mut total = 0.0;
        for g in 0..games {
            let mut others: Box<dyn Player> = if greedy {
                Box::new(GreedyPlayer::new(g))
            } else {
                Box::new(RandomPlayer::new(g))
            };
            let mut position = start;
            while let Some(mover) = position.to_move() {
                let cell = if mover == me && !position.safe_selections(&config).is_empty() {
                    exact(&config, &position, model, &mut memo).best
                } else {
                    others.choose(&config, &position).unwrap()
                };
                position.play(&config, cell);
            }
            total += position
                .result()
                .map_or(0.0, |r| scoring::seat_score(r, me));
        }
        (expected, total / games as f64)
    }

    #[test]
    fn the_expected_score_is_what_the_best_moves_score_against_random_and_greedy() {
        // The model with a win rate of 0 is `random`, with 1 `greedy`: played against them the
        // exact expectation's moves score what it expects, within sampling error (4 standard
        // errors of 4,000 games; the seeds make it reproducible).
        for notation in [
            "4x4 variant classic poison 0,0 players 3",
            "4x5 variant classic poison 0,0 players 4",
            "4x4 eat 1x2 poison 0,0 poison 3,3 players 3",
        ] {
            for (win_rate, greedy) in [(0.0, false), (1.0, true)] {
                let (expected, mean) = played(
                    notation,
                    ErringModel {
                        win_rate,
                        from_seats: 3,
                    },
                    4_000,
                    greedy,
                );
                assert!(
                    (expected - mean).abs() < 4.0 * 0.5 / 4_000f64.sqrt(),
                    "{notation} greedy {greedy}: expected {expected}, played {mean}"
                );
            }
        }
    }

    #[test]
    fn a_search_given_up_keeps_what_it_finished_for_the_next() {
        let config = board("6x6 variant classic poison 0,0 players 3");
        let position = Position::start(&config);
        let model = ErringModel::LEVELS;
        let mut memo = Memo::default();
        let mut whole = unlimited();
        let whole_search = best_move(
            &config,
            &position,
            model,
            &mut whole,
            u64::MAX,
            &mut Memo::default(),
        );
        // A cap of a tenth of the whole search: each attempt stops at it and keeps its values,
        // so that a later attempt gets further, until one answers as the whole search did.
        let cap = whole.nodes / 10;
        let mut attempts = 0;
        let found = loop {
            attempts += 1;
            let mut limits = unlimited();
            let kept = memo.len();
            match best_move(&config, &position, model, &mut limits, cap, &mut memo) {
                Some(found) => break found,
                None => {
                    assert!(
                        limits.nodes <= cap && memo.len() > kept,
                        "attempt {attempts}"
                    );
                }
            }
            assert!(attempts < 40);
        };
        assert!(attempts > 1);
        assert_eq!(Some(found), whole_search);
        // Another seat (or another game) starts from nothing.
        let mut other = position;
        other.play(&config, Cell::new(5, 5));
        let before = memo.len();
        exact(&config, &other, model, &mut memo);
        assert!(memo.len() < before);
    }

    #[test]
    fn classic_positions_counts_every_staircase_once_per_seat() {
        // Against a count of every subset of the uneaten cells closed upwards and leftwards.
        for (notation, plies) in [
            ("4x4 variant classic poison 0,0 players 3", 0),
            ("4x4 variant classic poison 0,0 players 4", 2),
            ("4x5 variant classic poison 0,0 players 3", 1),
            ("4x4 variant classic poison 2,1 players 4", 2),
        ] {
            let config = board(notation);
            for seed in 0..5 {
                let (position, _) = random_position(&config, plies, seed);
                let cells: Vec<Cell> = position.uneaten().iter().map(Cell::from_index).collect();
                let closed = |mask: u32| {
                    cells.iter().enumerate().all(|(i, c)| {
                        mask & (1 << i) == 0
                            || cells.iter().enumerate().all(|(j, d)| {
                                !(d.row <= c.row && d.col <= c.col) || mask & (1 << j) != 0
                            })
                    })
                };
                let staircases = (0..1u32 << cells.len()).filter(|&m| closed(m)).count() as u64;
                let expected = staircases * u64::from(config.players());
                assert_eq!(
                    classic_positions(&config, &position),
                    Some(expected),
                    "{notation}"
                );
            }
        }
        let config = board("8x8 variant classic poison 0,0 players 4");
        let start = Position::start(&config);
        assert_eq!(classic_positions(&config, &start), Some(12_870 * 4));
        let config = board("8x8 eat 1x2 poison 0,0 players 4");
        assert_eq!(classic_positions(&config, &Position::start(&config)), None);
    }
}
