//! Holds exact solving on sums of regions against the test kit's brute-force solver: boards
//! whose eats make many independent regions (1×k and k×1), in random positions from play and
//! from random sets of eaten cells, where the search shares one table entry between positions
//! that are the same sum of regions and expands one of several regions of the same shape.
//! Values and plies (wins and losses) of `solve` and of every selection of `analyze`, exact and
//! within a node budget, must be the brute-force solver's.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{random_eaten, random_position, same};
use jchomp_engine::Rng;
use jchomp_engine::search::{Budget, Table, analyze, solve};
use jchomp_rules::{Config, Position};
use jchomp_testkit::board;
use jchomp_testkit::brute::{self, Memo};
use jchomp_testkit::model::Model;

const BOARDS: [&str; 6] = [
    "5x6 eat 1x2 poison 0,0",
    "5x5 eat 2x1 poison 2,2 poison 4,4",
    "4x7 eat 1x3 poison 1,1",
    "5x5 eat 1x2 poison 4,4 poison 0,2",
    "6x4 eat 2x1 poison 0,0",
    "6x4 eat 3x1 poison 3,2",
];

/// Checks solve and analyze (exact and budgeted) in one position.
fn check(model: &Model, c: &Config, p: &Position, tt: &mut Table, memo: &mut Memo) {
    let (outcome, plies) = brute::solve(model, memo);
    let s = solve(c, p, tt, None).unwrap();
    assert!(same(s.outcome, outcome), "{model:?}: {s:?} vs {outcome:?}");
    if outcome != brute::Outcome::Tie {
        assert_eq!(s.plies, plies, "{model:?}");
    }
    let analysed = brute::analyze(model, memo);
    for budget in [None, Some(Budget::Nodes(200_000))] {
        let (values, _) = analyze(c, p, tt, budget, None).unwrap();
        assert_eq!(values.len(), analysed.len());
        for (v, (m, o, n)) in values.iter().zip(&analysed) {
            assert_eq!(v.cell, brute::cell(*m));
            let Some((vo, vp)) = v.value else {
                assert!(
                    budget.is_some(),
                    "{model:?} {m:?} unsolved without a budget"
                );
                continue;
            };
            assert!(same(vo, *o), "{model:?} {m:?} {budget:?}: {vo:?} vs {o:?}");
            if *o != brute::Outcome::Tie {
                assert_eq!(vp, Some(*n), "{model:?} {m:?} {budget:?}");
            }
        }
    }
}

#[test]
fn sums_of_regions_solve_and_analyze_like_brute_force() {
    let mut rng = Rng::new(1616);
    let mut tt = Table::with_megabytes(4);
    let mut decided = 0;
    for notation in BOARDS {
        let c = board(notation);
        let mut memo = Memo::new();
        for round in 0..5 {
            let (model, p) = if round % 2 == 0 {
                let plies = rng.below(8);
                random_position(&c, &mut rng, plies)
            } else {
                let percent = 5 + rng.below(35);
                match random_eaten(&c, &mut rng, percent) {
                    Some(found) => found,
                    None => continue,
                }
            };
            if p.to_move().is_none() {
                continue;
            }
            tt.clear();
            check(&model, &c, &p, &mut tt, &mut memo);
            decided += usize::from(brute::solve(&model, &mut memo).0 != brute::Outcome::Tie);
        }
    }
    // Plies are compared on wins and losses only: enough of them must occur.
    assert!(decided >= 6, "only {decided} decided positions");
}
