//! The root of every deepening search: [`RootSearch`], the one loop over the root's selections
//! that the two-sided search, max^n and Best-Reply Search+ share, and [`Deepening`], the
//! iterative deepening over it that ends in a [`Report`].

use super::Budget;
use super::engine::Report;
use super::limits::Limits;
use super::score::{INF, PROVEN_WIN};
use crate::rng::Rng;
use jchomp_rules::{Bits, Cell, Position};
use std::ops::RangeInclusive;

/// The outcome of one root search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootScore {
    /// Bit index of the best selection.
    pub mv: u8,
    /// Its score for the seat to move.
    pub score: i32,
    /// Whether the score is proven.
    pub proven: bool,
    /// Whether every root selection was searched (false when the search was stopped).
    pub complete: bool,
}

/// A search that scores the root's selections one at a time.
pub(super) trait RootSearch {
    /// The limits the search counts on.
    fn limits(&mut self) -> &mut Limits;

    /// The score of the root selection `mv` (a bit index) for the seat to move at `position`,
    /// searched `depth` deep with `alpha` the best score so far (max^n ignores it), and whether
    /// it is proven.
    fn score_move(&mut self, position: &Position, mv: u8, depth: u32, alpha: i32) -> (i32, bool);

    /// Searches the root's selections in the order given (bit indices) with a full window.
    /// Returns `None` if the game is over or the search stopped before the first selection was
    /// searched. `scores` receives each searched selection's score (for ordering the next
    /// iteration).
    fn root(
        &mut self,
        position: &Position,
        depth: u32,
        order: &[u8],
        scores: &mut Vec<(u8, i32)>,
    ) -> Option<RootScore> {
        position.to_move()?;
        scores.clear();
        let mut best: Option<RootScore> = None;
        let mut alpha = -INF;
        let mut all_proven = true;
        for &mv in order {
            let (s, proven) = self.score_move(position, mv, depth, alpha);
            if self.limits().stopped() {
                break;
            }
            scores.push((mv, s));
            all_proven &= proven;
            if best.is_none_or(|b| s > b.score) {
                best = Some(RootScore {
                    mv,
                    score: s,
                    proven,
                    complete: false,
                });
                alpha = alpha.max(s);
            }
        }
        best.map(|b| RootScore {
            proven: all_proven && scores.len() == order.len(),
            complete: scores.len() == order.len(),
            ..b
        })
    }
}

/// Iterative deepening: one root search a depth, from 1 up to the budget's depth, each
/// searching the root's selections in the order the one before left (its best first, then by
/// its scores).
#[derive(Debug)]
pub(super) struct Deepening {
    order: Vec<u8>,
    scores: Vec<(u8, i32)>,
    /// The deepest iteration's result and depth.
    best: Option<(RootScore, u32)>,
    max_depth: u32,
}

impl Deepening {
    /// Deepening within `budget` (a depth budget's depth, else [`Budget::MAX_DEPTH`]) over the
    /// root selections `order` (bit indices), searched first in that order.
    pub(super) fn new(budget: Budget, order: Vec<u8>) -> Deepening {
        let max_depth = match budget {
            Budget::Depth(d) => d.clamp(1, Budget::MAX_DEPTH),
            _ => Budget::MAX_DEPTH,
        };
        Deepening {
            scores: Vec::with_capacity(order.len()),
            order,
            best: None,
            max_depth,
        }
    }

    /// The depths to search, shallowest first.
    pub(super) fn depths(&self) -> RangeInclusive<u32> {
        1..=self.max_depth
    }

    /// Searches `position` to `depth` with `search` (whose limits are armed from depth 2 on:
    /// the first iteration always completes) and says whether to search one deeper: not once
    /// the root is stopped, proven or won, or the budget forbids it.
    pub(super) fn iterate(
        &mut self,
        search: &mut impl RootSearch,
        position: &Position,
        depth: u32,
    ) -> bool {
        search.limits().armed = depth > 1;
        let Some(found) = search.root(position, depth, &self.order, &mut self.scores) else {
            return false;
        };
        self.best = Some((found, depth));
        if !found.complete
            || found.proven
            || found.score.abs() > PROVEN_WIN
            || !search.limits().may_deepen()
        {
            return false;
        }
        self.scores
            .sort_by_key(|&(mv, s)| (mv != found.mv, std::cmp::Reverse(s)));
        self.order.clear();
        self.order.extend(self.scores.iter().map(|&(mv, _)| mv));
        true
    }

    /// What the deepening found, `nodes` visited: its deepest iteration's choice, or, stopped
    /// before any, the first selection of its order with no score.
    pub(super) fn report(self, nodes: u64) -> Report {
        match self.best {
            Some((r, depth)) => Report {
                best: Some(Cell::from_index(u32::from(r.mv))),
                score: r.score,
                proven: r.proven,
                depth,
                nodes,
            },
            None => Report {
                best: self.order.first().map(|&m| Cell::from_index(u32::from(m))),
                score: 0,
                proven: false,
                depth: 0,
                nodes,
            },
        }
    }
}

/// The anchors of `set` in a random order.
pub(super) fn shuffled(set: Bits, rng: &mut Rng) -> Vec<u8> {
    let mut v: Vec<u8> = set.iter().map(|i| i as u8).collect();
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}
