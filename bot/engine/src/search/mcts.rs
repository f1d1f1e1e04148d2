//! Monte Carlo tree search for any number of seats: max^n backups (each seat's mean score kept
//! apart, and every node's mover chooses by its own), greedy playouts, and a solver that proves
//! bounds on what each seat can force (MCTS-Solver, after Nijssen and Winands, with score bounds
//! for ties).
//!
//! **Statistics.** A node keeps its visits and, per seat, the sum of the scores the simulations
//! through it gave that seat (the one scoring of [`crate::scoring`]: 1, 1/2 or 0). Selection
//! (UCT) at a node whose seat `m` is to move reads the children's means for `m` only, so each
//! seat is modelled as maximising its own score, not as part of a coalition.
//!
//! **Proofs.** Every node also keeps, per seat `s`, bounds `lo[s] ≤ v ≤ hi[s]` on the score `s`
//! can force whatever every other seat does (its paranoid value, in halves: 0, 1 or 2). A
//! finished game knows them exactly; a node whose mover is `m` takes the largest of its children's
//! bounds for `m` and the smallest for every other seat, a move not tried yet counting as
//! `[0, 2]`. With two players these are the exact game values, so the search proves wins, ties
//! and losses as MCTS-Solver does; with more, `lo[m] = 2` is a win nothing can take away and
//! `hi[m] = 0` a loss the others can force. Selection takes a proven win, passes over moves
//! whose loss can be forced while others cannot (with three or four seats only if the
//! [`OpponentModel`] expects the others to force it), and never values a move below what it
//! guarantees. Below the root a proven win is worth 1 to its mover but is not taken blindly:
//! the mover is indifferent between its wins, the others are not (each may make a different seat
//! the loser), so moves that look as good keep their share of simulations and the others' means
//! average over the mover's choices instead of assuming one. The search ends early once the
//! root is a proven win.
//!
//! **Budgets and determinism.** Every position made (tree, new children and playouts) counts as
//! a node on [`Limits`]; the first simulation always completes, later ones start only while the
//! budget (nodes, the clock, the stop flag) allows, and the answer is the root's most visited
//! move. The order of new children and the playouts draw from the player's seeded [`Rng`], so a
//! node budget reproduces a search exactly. The tree stops growing at [`MAX_TREE`] nodes.

use super::expected::ErringModel;
use super::limits::Limits;
use super::trivial::decided;
use crate::player::only_poison_left;
use crate::rng::Rng;
use jchomp_rules::{Bits, Cell, Config, Position, Seat};

/// Exploration constant of UCT (scores lie in 0 … 1).
pub const EXPLORATION: f64 = 0.7;

/// The exploration constant the levels use at the other seats' nodes: their simulations spread
/// over each opponent's moves, so a move is valued against opponents that may err (as `random`
/// and `greedy` do) rather than only against their best replies. Measured in `docs/BOTS.md`
/// ("Modelling opponents that err").
pub const OPPONENT_EXPLORATION: f64 = 5.0;

/// How a search models the other seats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpponentModel {
    /// UCT's constant at the nodes where another seat than the root's moves.
    pub exploration: f64,
    /// Whether, with three or four seats, a move whose loss the other seats could force
    /// together is passed over while a sibling's cannot be (the paranoid assumption, right
    /// against opponents that play their best replies in concert). With two seats it always
    /// is: the bounds are then the game's exact values.
    pub avoid_forced_losses: bool,
    /// In classic Chomp with enough seats (see [`ErringModel`]), the model of erring opponents
    /// against which a position is valued exactly ([`super::expected`]) when that fits in half
    /// the budget, instead of by simulations; `None` never does.
    pub expected: Option<ErringModel>,
}

impl OpponentModel {
    /// Opponents expected to play their best replies: UCT's constant everywhere, and a move
    /// the others could force to lose is avoided (the `mcts:` specs).
    pub const BEST_REPLIES: OpponentModel = OpponentModel {
        exploration: EXPLORATION,
        avoid_forced_losses: true,
        expected: None,
    };

    /// Opponents that may err (the levels): their moves are explored widely
    /// ([`OPPONENT_EXPLORATION`]), and with three or four seats a move is chosen by its mean
    /// even where the others could force its loss together, since players that do not form a
    /// coalition seldom do; in classic Chomp a position small enough is valued exactly against
    /// [`ErringModel::LEVELS`]. Measured in `docs/BOTS.md` ("Modelling opponents that err",
    /// "Exact expectations in classic Chomp").
    pub const ERRING: OpponentModel = OpponentModel {
        exploration: OPPONENT_EXPLORATION,
        avoid_forced_losses: false,
        expected: Some(ErringModel::LEVELS),
    };
}

/// Most nodes a tree holds (about 24 MiB); past it, simulations go on without new nodes.
pub const MAX_TREE: usize = 1 << 18;

/// No child / no sibling.
const NONE: u32 = u32::MAX;

/// Bounds in halves of a point: a loss, a tie, a win.
const LOSS: u8 = 0;
const TIE: u8 = 1;
const WIN: u8 = 2;

/// One node of the tree: the position after `mv` (recomputed on the way down, not stored).
#[derive(Clone, Debug)]
struct Node {
    /// Safe selections not made into children yet.
    untried: Bits,
    /// Per seat, the sum of its scores over the simulations through this node.
    reward: [f64; 4],
    /// Simulations through this node.
    visits: u32,
    first_child: u32,
    next_sibling: u32,
    /// The selection that led here (its bit index).
    mv: u8,
    /// The seat to move here (meaningless in a finished game).
    mover: Seat,
    /// Whether the game is decided here (exact scores, nothing to expand).
    terminal: bool,
    /// Per seat, bounds on the score it can force, in halves.
    lo: [u8; 4],
    hi: [u8; 4],
}

/// What one search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsReport {
    /// The selection chosen; `None` only when the game is over.
    pub best: Option<Cell>,
    /// Mean score of the chosen selection for the seat to move (its proven bound where higher).
    pub value: f64,
    /// Whether the seat to move has a proven win (it cannot be made to lose nor tie).
    pub proven_win: bool,
    /// The score the seat to move can force, in halves (0 loss, 1 tie, 2 win), once proven.
    pub proven: Option<u8>,
    /// Simulations run.
    pub simulations: u32,
    /// Nodes (positions made) counted against the budget.
    pub nodes: u64,
}

/// A Monte Carlo tree search over one position.
#[derive(Debug)]
pub struct Mcts<'a> {
    config: &'a Config,
    players: usize,
    nodes: Vec<Node>,
    rng: &'a mut Rng,
    /// How the other seats are modelled.
    opponents: OpponentModel,
}

/// The exact bounds (and scores) of a finished game: `loser` scores 0, every other seat 2
/// halves; a tie 1 each.
fn finished(loser: Option<Seat>) -> [u8; 4] {
    match loser {
        Some(l) => {
            let mut v = [WIN; 4];
            v[usize::from(l)] = LOSS;
            v
        }
        None => [TIE; 4],
    }
}

/// A safe selection after which the next seat has only poison left (it loses), if there is one,
/// found without trying every selection: with an eat size of `r`×`c` one selection removes at
/// most `(2r−1)(2c−1)` selections, so only a position with that few safe ones is tried; in
/// classic Chomp only the one cell at the least row and column of the safe ones can remove
/// them all.
pub(super) fn immediate_win(config: &Config, position: &Position, safe: Bits) -> Option<u32> {
    let wins = |index: u32| {
        let mut child = *position;
        child.play(config, Cell::from_index(index));
        only_poison_left(config, &child)
    };
    match config.eat() {
        Some(_) => {
            let reach = super::regions::overlap_reach(config);
            if safe.count() > reach {
                return None;
            }
            safe.iter().find(|&i| wins(i))
        }
        None => {
            let (mut row, mut col) = (u8::MAX, u8::MAX);
            for i in safe.iter() {
                let cell = Cell::from_index(i);
                row = row.min(cell.row);
                col = col.min(cell.col);
            }
            let corner = Cell::new(row, col).index();
            (safe.contains(corner) && wins(corner)).then_some(corner)
        }
    }
}

impl<'a> Mcts<'a> {
    /// A search of `root` (which must have a seat to move) drawing from `rng`.
    pub fn new(config: &'a Config, root: &Position, rng: &'a mut Rng) -> Mcts<'a> {
        let mut mcts = Mcts {
            config,
            players: usize::from(config.players()),
            nodes: Vec::new(),
            rng,
            opponents: OpponentModel::BEST_REPLIES,
        };
        mcts.push(0, root);
        mcts
    }

    /// Models the other seats as `model` says (the default is [`OpponentModel::BEST_REPLIES`]):
    /// its exploration constant at their nodes — a larger one spreads the simulations over an
    /// opponent's moves instead of concentrating them on its best, so the means there model an
    /// opponent that errs ([`OPPONENT_EXPLORATION`]) — and whether moves whose loss they could
    /// force together are passed over.
    pub fn with_opponents(mut self, model: OpponentModel) -> Self {
        self.opponents = model;
        self
    }

    /// Whether `node`'s mover passes over its moves whose loss can be forced: when some
    /// sibling's cannot be, always with two seats (the bounds are exact), with more as the
    /// model says.
    fn passes_over_forced_losses(&self, node: u32) -> bool {
        let m = usize::from(self.nodes[node as usize].mover);
        (self.opponents.avoid_forced_losses || self.players == 2)
            && self
                .children(node)
                .any(|c| self.nodes[c as usize].hi[m] > LOSS)
    }

    /// Adds the node for `position`, reached by `mv`; returns its index.
    fn push(&mut self, mv: u8, position: &Position) -> u32 {
        let decided = decided(self.config, position);
        let (lo, hi) = match decided {
            Some(loser) => (finished(loser), finished(loser)),
            None => ([LOSS; 4], [WIN; 4]),
        };
        self.nodes.push(Node {
            untried: if decided.is_some() {
                Bits::EMPTY
            } else {
                position.safe_selections(self.config)
            },
            reward: [0.0; 4],
            visits: 0,
            first_child: NONE,
            next_sibling: NONE,
            mv,
            mover: position.to_move().unwrap_or(0),
            terminal: decided.is_some(),
            lo,
            hi,
        });
        (self.nodes.len() - 1) as u32
    }

    /// The children of `node`, in the order they were made.
    fn children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.nodes[node as usize].first_child;
        std::iter::from_fn(move || {
            (next != NONE).then(|| {
                let c = next;
                next = self.nodes[c as usize].next_sibling;
                c
            })
        })
    }

    /// Makes a child of the root for every move not tried yet, so that an immediate win is
    /// seen whatever the budget.
    fn expand_root(&mut self, root: &Position, limits: &mut Limits) {
        let untried = self.nodes[0].untried;
        for index in untried.iter() {
            let mut child = *root;
            child.play(self.config, Cell::from_index(index));
            limits.tick();
            let c = self.push(index as u8, &child);
            self.link(0, c);
        }
        self.nodes[0].untried = Bits::EMPTY;
        self.update_bounds(0);
    }

    /// Runs simulations from the root until the limits stop it or the root is a proven win.
    /// Every move of the root is made first and one simulation always runs, whatever the
    /// limits (unless the root is already a proven win).
    pub fn run(&mut self, root: &Position, limits: &mut Limits) {
        let armed = limits.armed;
        limits.armed = false;
        self.expand_root(root, limits);
        let mut path = Vec::with_capacity(64);
        loop {
            let r = &self.nodes[0];
            if r.terminal || r.lo[usize::from(r.mover)] == WIN || r.visits == u32::MAX {
                break;
            }
            self.simulate(root, limits, &mut path);
            limits.armed = armed;
            if limits.stopped() || limits.tick() {
                break;
            }
        }
        limits.armed = armed;
    }

    /// One simulation: down the tree by UCT, one new child, a random playout, and the scores
    /// and bounds backed up.
    fn simulate(&mut self, root: &Position, limits: &mut Limits, path: &mut Vec<u32>) {
        path.clear();
        path.push(0);
        let mut position = *root;
        let mut node = 0u32;
        loop {
            let n = &self.nodes[node as usize];
            if n.terminal {
                break;
            }
            if !n.untried.is_empty() {
                if self.nodes.len() >= MAX_TREE {
                    // The tree is full: play out from here without growing it.
                    break;
                }
                let untried = n.untried;
                let k = self.rng.below(u64::from(untried.count())) as usize;
                let Some(index) = untried.iter().nth(k) else {
                    break;
                };
                self.nodes[node as usize].untried = untried.without(Bits::single(index));
                position.play(self.config, Cell::from_index(index));
                limits.tick();
                let child = self.push(index as u8, &position);
                self.link(node, child);
                path.push(child);
                node = child;
                break;
            }
            let Some(child) = self.select(node) else {
                break;
            };
            position.play(
                self.config,
                Cell::from_index(u32::from(self.nodes[child as usize].mv)),
            );
            limits.tick();
            path.push(child);
            node = child;
            if self.nodes[node as usize].visits == 0 {
                break;
            }
        }
        let scores = if self.nodes[node as usize].terminal {
            self.nodes[node as usize].lo
        } else {
            finished(self.playout(position, limits))
        };
        for &i in path.iter().rev() {
            let n = &mut self.nodes[i as usize];
            n.visits = n.visits.saturating_add(1);
            for (sum, &s) in n.reward.iter_mut().zip(&scores) {
                *sum += f64::from(s) / 2.0;
            }
        }
        // The new leaf's bounds were set when it was made; its ancestors take them up as long
        // as something changes.
        for &i in path[..path.len() - 1].iter().rev() {
            if !self.update_bounds(i) {
                break;
            }
        }
    }

    /// Appends `child` to `parent`'s children.
    fn link(&mut self, parent: u32, child: u32) {
        match self.children(parent).last() {
            Some(last) => self.nodes[last as usize].next_sibling = child,
            None => self.nodes[parent as usize].first_child = child,
        }
    }

    /// Recomputes a node's bounds from its children; true if they changed.
    fn update_bounds(&mut self, node: u32) -> bool {
        let n = &self.nodes[node as usize];
        if n.terminal || n.first_child == NONE {
            return false;
        }
        let m = usize::from(n.mover);
        let complete = n.untried.is_empty();
        let mut lo = [WIN; 4];
        let mut hi = [WIN; 4];
        lo[m] = LOSS;
        hi[m] = if complete { LOSS } else { WIN };
        if !complete {
            // A move not tried yet may still give any other seat a loss.
            for (s, l) in lo.iter_mut().enumerate().take(self.players) {
                if s != m {
                    *l = LOSS;
                }
            }
        }
        for c in self.children(node) {
            let c = &self.nodes[c as usize];
            for s in 0..self.players {
                if s == m {
                    lo[s] = lo[s].max(c.lo[s]);
                    hi[s] = hi[s].max(c.hi[s]);
                } else {
                    lo[s] = lo[s].min(c.lo[s]);
                    hi[s] = hi[s].min(c.hi[s]);
                }
            }
        }
        let n = &mut self.nodes[node as usize];
        let changed = n.lo != lo || n.hi != hi;
        n.lo = lo;
        n.hi = hi;
        changed
    }

    /// The child UCT descends into from a fully expanded `node`: the best value for its mover
    /// (a proven win is worth 1) plus the exploration term, over the children whose loss cannot
    /// be forced (all of them if every one's can, or if the model does not avoid them). A
    /// proven win is not taken blindly: the mover is indifferent between its wins, but the
    /// other seats are not (each may make a different seat the loser), so the other moves that
    /// look as good keep their share of simulations, and the other seats' means here average
    /// over the mover's choices.
    fn select(&self, node: u32) -> Option<u32> {
        let n = &self.nodes[node as usize];
        let m = usize::from(n.mover);
        let avoid = self.passes_over_forced_losses(node);
        let log_n = f64::from(n.visits.max(1)).ln();
        let explore = if n.mover == self.nodes[0].mover {
            EXPLORATION
        } else {
            self.opponents.exploration
        };
        let mut best: Option<(f64, u32)> = None;
        for c in self.children(node) {
            let child = &self.nodes[c as usize];
            if avoid && child.hi[m] == LOSS {
                continue;
            }
            if child.visits == 0 {
                return Some(c);
            }
            let v = self.value(child, m) + explore * (log_n / f64::from(child.visits)).sqrt();
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, c));
            }
        }
        best.map(|(_, c)| c)
    }

    /// A child's value for seat `m`: its exact score if the game is decided there, otherwise its
    /// mean score for `m`, raised to what `m` is proven to get there.
    fn value(&self, child: &Node, m: usize) -> f64 {
        let floor = f64::from(child.lo[m]) / 2.0;
        if child.terminal || child.visits == 0 {
            return floor;
        }
        (child.reward[m] / f64::from(child.visits)).max(floor)
    }

    /// Plays from `position` to the end as `greedy` does: an immediate win when there is one,
    /// otherwise a uniformly random safe selection. Returns the loser, or `None` for a tie.
    fn playout(&mut self, mut position: Position, limits: &mut Limits) -> Option<Seat> {
        loop {
            if let Some(result) = decided(self.config, &position) {
                return result;
            }
            let safe = position.safe_selections(self.config);
            let index = match immediate_win(self.config, &position, safe) {
                Some(win) => win,
                None => {
                    let k = self.rng.below(u64::from(safe.count())) as usize;
                    let Some(index) = safe.iter().nth(k) else {
                        return position.to_move();
                    };
                    index
                }
            };
            position.play(self.config, Cell::from_index(index));
            limits.tick();
        }
    }

    /// The root's choice: a proven win if there is one (a finished game first, the fastest),
    /// otherwise the most visited move among those whose loss cannot be forced (among all of
    /// them if the model does not avoid forced losses; ties broken by the mean, then by the
    /// order the moves were tried).
    pub fn best(&self) -> Option<(u8, f64)> {
        let root = &self.nodes[0];
        let m = usize::from(root.mover);
        let wins = || {
            self.children(0)
                .filter(move |&c| self.nodes[c as usize].lo[m] == WIN)
        };
        let pick = wins()
            .find(|&c| self.nodes[c as usize].terminal)
            .or_else(|| {
                wins().max_by_key(|&c| (self.nodes[c as usize].visits, std::cmp::Reverse(c)))
            })
            .or_else(|| {
                let avoid = self.passes_over_forced_losses(0);
                let mut best: Option<(u32, f64, u32)> = None;
                for c in self.children(0) {
                    let child = &self.nodes[c as usize];
                    if avoid && child.hi[m] == LOSS {
                        continue;
                    }
                    let key = (child.visits, self.value(child, m));
                    if best.is_none_or(|(v, x, _)| key.0 > v || (key.0 == v && key.1 > x)) {
                        best = Some((key.0, key.1, c));
                    }
                }
                best.map(|(_, _, c)| c)
            })?;
        let child = &self.nodes[pick as usize];
        Some((child.mv, self.value(child, m)))
    }

    /// The root's bounds for seat `s`, in halves.
    #[cfg(test)]
    fn root_bounds(&self, s: Seat) -> (u8, u8) {
        let r = &self.nodes[0];
        (r.lo[usize::from(s)], r.hi[usize::from(s)])
    }

    /// The report of the search so far.
    pub fn report(&self, nodes: u64) -> MctsReport {
        let root = &self.nodes[0];
        let m = usize::from(root.mover);
        let best = self.best();
        MctsReport {
            best: best.map(|(mv, _)| Cell::from_index(u32::from(mv))),
            value: best.map_or(0.0, |(_, v)| v),
            proven_win: root.lo[m] == WIN,
            proven: (root.lo[m] == root.hi[m]).then_some(root.lo[m]),
            simulations: root.visits,
            nodes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Budget;
    use crate::search::fixtures::random_position;
    use jchomp_testkit::board;
    use jchomp_testkit::model::Model;
    use jchomp_testkit::paranoid::{self, Memo};

    /// Every node's bounds hold the brute-force value of every seat; returns how many nodes
    /// had some seat proven.
    fn check_bounds(mcts: &Mcts, node: u32, model: &Model, memo: &mut Memo) -> usize {
        let n = &mcts.nodes[node as usize];
        let truth = paranoid::values(model, memo);
        let mut proven = 0;
        for (s, &value) in truth.iter().enumerate().take(mcts.players) {
            assert!(
                n.lo[s] <= value && value <= n.hi[s],
                "seat {s}: bounds {}..{} but the value is {value} after {:?}",
                n.lo[s],
                n.hi[s],
                model.eaten
            );
            proven += usize::from(n.lo[s] == n.hi[s]);
        }
        for c in mcts.children(node) {
            let cell = Cell::from_index(u32::from(mcts.nodes[c as usize].mv));
            let child = model.after(i64::from(cell.row), i64::from(cell.col));
            proven += check_bounds(mcts, c, &child, memo);
        }
        proven
    }

    const BOARDS: [&str; 6] = [
        "4x4 eat 1x2 poison 0,0",
        "4x4 eat 2x1 poison 1,2 poison 3,3",
        "4x5 eat 2x2 poison 2,2",
        "4x4 eat 1x2 poison 0,0 players 3",
        "4x5 eat 2x1 poison 3,0 poison 1,4 players 3",
        "4x4 eat 1x2 poison 2,1 players 4",
    ];

    #[test]
    fn every_bound_holds_the_brute_force_value() {
        let mut proven = 0;
        for notation in BOARDS {
            let config = board(notation);
            let mut memo = Memo::new();
            for seed in 0..6 {
                let (position, model) = random_position(&config, (seed % 3) as u32 * 2, seed);
                if decided(&config, &position).is_some() {
                    continue;
                }
                let mut rng = Rng::new(seed);
                let mut mcts = Mcts::new(&config, &position, &mut rng);
                mcts.run(&position, &mut Limits::new(Budget::Nodes(20_000), None));
                proven += check_bounds(&mcts, 0, &model, &mut memo);
            }
        }
        assert!(proven > 1000, "only {proven} proven bounds");
    }

    #[test]
    fn two_seats_are_solved_as_the_brute_force_solver_says() {
        let (mut wins, mut ties, mut losses) = (0, 0, 0);
        for notation in &BOARDS[..3] {
            let config = board(notation);
            let mut memo = Memo::new();
            for seed in 0..8 {
                let (position, model) = random_position(&config, seed as u32 % 4, seed);
                let Some(mover) = position.to_move() else {
                    continue;
                };
                if decided(&config, &position).is_some() {
                    continue;
                }
                let truth = paranoid::values(&model, &mut memo)[usize::from(mover)];
                let mut rng = Rng::new(seed);
                let mut mcts = Mcts::new(&config, &position, &mut rng);
                for _ in 0..200 {
                    let (lo, hi) = mcts.root_bounds(mover);
                    if lo == hi {
                        break;
                    }
                    mcts.run(&position, &mut Limits::new(Budget::Nodes(5_000), None));
                }
                assert_eq!(
                    mcts.root_bounds(mover),
                    (truth, truth),
                    "{notation} after {:?}",
                    model.eaten
                );
                let report = mcts.report(0);
                assert_eq!(report.proven, Some(truth));
                assert_eq!(report.proven_win, truth == WIN);
                // The move chosen keeps the value.
                let cell = report.best.unwrap();
                let child = model.after(i64::from(cell.row), i64::from(cell.col));
                assert_eq!(
                    paranoid::values(&child, &mut memo)[usize::from(mover)],
                    truth
                );
                match truth {
                    WIN => wins += 1,
                    TIE => ties += 1,
                    _ => losses += 1,
                }
            }
        }
        assert!(wins > 0 && ties + losses > 0, "{wins} {ties} {losses}");
    }

    #[test]
    fn a_forced_win_is_proven_and_played_with_three_and_four_seats() {
        let mut found = 0;
        for notation in &BOARDS[3..] {
            let config = board(notation);
            let mut memo = Memo::new();
            for seed in 0..40 {
                let (position, model) = random_position(&config, 3 + seed as u32 % 5, seed);
                let Some(mover) = position.to_move() else {
                    continue;
                };
                if decided(&config, &position).is_some() {
                    continue;
                }
                let m = usize::from(mover);
                let truth = paranoid::values(&model, &mut memo)[m];
                let mut rng = Rng::new(seed);
                let mut mcts = Mcts::new(&config, &position, &mut rng);
                mcts.run(&position, &mut Limits::new(Budget::Nodes(50_000), None));
                let report = mcts.report(0);
                let cell = report.best.unwrap();
                let child = model.after(i64::from(cell.row), i64::from(cell.col));
                let got = paranoid::values(&child, &mut memo)[m];
                if report.proven_win {
                    assert_eq!(truth, WIN);
                    assert_eq!(got, WIN, "{notation}: {cell} after {:?}", model.eaten);
                    found += 1;
                }
            }
        }
        assert!(found >= 5, "only {found} forced wins proven");
    }

    #[test]
    fn the_playouts_find_the_immediate_wins_greedy_finds() {
        let mut seen = 0;
        for notation in [
            "6x6 eat 1x2 poison 0,0 players 3",
            "6x7 eat 2x3 poison 2,3 players 4",
            "5x5 poison 4,4",
            "6x6 variant classic poison 0,0 players 3",
            "6x5 variant classic poison 1,2 poison 4,0 players 3",
        ] {
            let config = board(notation);
            for seed in 0..60 {
                let (position, _) = random_position(&config, seed as u32 % 40, seed);
                if decided(&config, &position).is_some() {
                    continue;
                }
                let safe = position.safe_selections(&config);
                let wins = crate::player::immediate_wins(&config, &position);
                match immediate_win(&config, &position, safe) {
                    Some(w) => assert!(wins.contains(w), "{notation}: {w} is no win"),
                    None => assert!(wins.is_empty(), "{notation}: missed {wins:?}"),
                }
                seen += usize::from(!wins.is_empty());
            }
        }
        assert!(seen > 20, "only {seen} positions with a win");
    }

    #[test]
    fn a_full_tree_fits_its_memory() {
        assert!(std::mem::size_of::<Node>() * MAX_TREE <= 24 << 20);
    }

    #[test]
    fn each_mover_chooses_by_its_own_score() {
        // Seat 1 to move, two moves: the first gives seat 1 a mean of 0.9 and seat 0 a mean
        // of 0.1, the second the other way round. Seat 1 takes the first.
        let config = board("4x4 eat 1x2 poison 0,0 players 3");
        let mut position = Position::start(&config);
        position.play(&config, Cell::new(3, 2));
        let mut rng = Rng::new(1);
        let mut mcts = Mcts::new(&config, &position, &mut rng);
        assert_eq!(mcts.nodes[0].mover, 1);
        for (mv, rewards) in [(1u8, [0.1, 0.9, 0.5]), (2u8, [0.9, 0.1, 0.5])] {
            let mut child = position;
            child.play(&config, Cell::from_index(u32::from(mv)));
            let c = mcts.push(mv, &child);
            mcts.link(0, c);
            let n = &mut mcts.nodes[c as usize];
            n.visits = 100;
            for (sum, r) in n.reward.iter_mut().zip(rewards) {
                *sum = 100.0 * r;
            }
        }
        mcts.nodes[0].visits = 200;
        mcts.nodes[0].untried = Bits::EMPTY;
        assert_eq!(mcts.select(0), Some(1));
        assert_eq!(mcts.best().map(|(mv, _)| mv), Some(1));
        // The same children under a seat-0 mover go the other way.
        mcts.nodes[0].mover = 0;
        assert_eq!(mcts.select(0), Some(2));
        assert_eq!(mcts.best().map(|(mv, _)| mv), Some(2));
    }

    #[test]
    fn forced_losses_are_avoided_with_two_seats_and_as_the_model_says_with_more() {
        // The root's mover has two moves: the first has the better mean (0.9 over 100
        // simulations) but the others could force its loss, the second cannot be forced to
        // lose but has a mean of 0.3 (over 50). Expecting best replies, the mover passes over
        // the first; expecting errors, it takes it with three seats, never with two.
        let choose = |notation: &str, model: OpponentModel| {
            let config = board(notation);
            let position = Position::start(&config);
            let mut rng = Rng::new(1);
            let mut mcts = Mcts::new(&config, &position, &mut rng).with_opponents(model);
            let m = usize::from(mcts.nodes[0].mover);
            let moves = [Cell::new(3, 0), Cell::new(2, 0)];
            for (mv, visits, mean, hi) in [(moves[0], 100, 0.9, LOSS), (moves[1], 50, 0.3, WIN)] {
                let mut child = position;
                child.play(&config, mv);
                let c = mcts.push(mv.index() as u8, &child);
                mcts.link(0, c);
                let n = &mut mcts.nodes[c as usize];
                n.visits = visits;
                n.reward[m] = f64::from(visits) * mean;
                n.hi[m] = hi;
            }
            mcts.nodes[0].visits = 150;
            mcts.nodes[0].untried = Bits::EMPTY;
            let best = mcts.best().map(|(mv, _)| Cell::from_index(u32::from(mv)));
            let selected = mcts.select(0).map(|c| mcts.nodes[c as usize].mv);
            (best, selected.map(|mv| Cell::from_index(u32::from(mv))))
        };
        let three = "4x4 eat 1x2 poison 0,0 players 3";
        let avoided = (Some(Cell::new(2, 0)), Some(Cell::new(2, 0)));
        let taken = (Some(Cell::new(3, 0)), Some(Cell::new(3, 0)));
        assert_eq!(choose(three, OpponentModel::BEST_REPLIES), avoided);
        assert_eq!(choose(three, OpponentModel::ERRING), taken);
        let two = "4x4 eat 1x2 poison 0,0";
        assert_eq!(choose(two, OpponentModel::BEST_REPLIES), avoided);
        assert_eq!(choose(two, OpponentModel::ERRING), avoided);
    }

    #[test]
    fn the_other_seats_moves_are_explored_with_their_own_constant() {
        // Seat 1 searches; below its move, seat 2 has two moves: one with a mean of 0.9 for
        // it over 100 simulations, one with 0.1 over 10. With the root's constant seat 2 is
        // expected to play its best; with a wide one its other move is tried too.
        let config = board("4x4 eat 1x2 poison 0,0 players 3");
        let mut position = Position::start(&config);
        position.play(&config, Cell::new(3, 2));
        let pick = |opponent: f64| {
            let mut rng = Rng::new(1);
            let model = OpponentModel {
                exploration: opponent,
                avoid_forced_losses: true,
                expected: None,
            };
            let mut mcts = Mcts::new(&config, &position, &mut rng).with_opponents(model);
            let mut after = position;
            after.play(&config, Cell::new(0, 2));
            let c = mcts.push(Cell::new(0, 2).index() as u8, &after);
            mcts.link(0, c);
            assert_eq!((mcts.nodes[0].mover, mcts.nodes[c as usize].mover), (1, 2));
            for (mv, visits, mean) in [(Cell::new(1, 0), 100, 0.9), (Cell::new(2, 0), 10, 0.1)] {
                let mut next = after;
                next.play(&config, mv);
                let g = mcts.push(mv.index() as u8, &next);
                mcts.link(c, g);
                let n = &mut mcts.nodes[g as usize];
                n.visits = visits;
                n.reward[2] = f64::from(visits) * mean;
            }
            let n = &mut mcts.nodes[c as usize];
            n.visits = 110;
            n.untried = Bits::EMPTY;
            let chosen = mcts.select(c).unwrap();
            Cell::from_index(u32::from(mcts.nodes[chosen as usize].mv))
        };
        assert_eq!(pick(EXPLORATION), Cell::new(1, 0));
        assert_eq!(pick(OPPONENT_EXPLORATION), Cell::new(2, 0));
    }

    #[test]
    fn a_node_budget_reproduces_the_search_and_is_kept() {
        let config = board("8x8 eat 1x2 poison 0,0 poison 7,7 players 3");
        let position = Position::start(&config);
        for budget in [1_000u64, 30_000] {
            let run = |seed| {
                let mut rng = Rng::new(seed);
                let mut limits = Limits::new(Budget::Nodes(budget), None);
                let mut mcts = Mcts::new(&config, &position, &mut rng);
                mcts.run(&position, &mut limits);
                (mcts.report(limits.nodes), limits.nodes)
            };
            let (a, nodes) = run(7);
            assert_eq!(run(7), (a, nodes));
            assert!(a.simulations > 1);
            // A simulation may finish past the budget, by at most one playout and a child.
            assert!(
                nodes >= budget && nodes < budget + 300,
                "{nodes} for {budget}"
            );
        }
    }
}
