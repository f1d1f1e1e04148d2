//! Holds the region solver's value search against the test kit's brute-force solver: its
//! answers within every window (exact inside, bounds on the right side outside) and its
//! optimal selection, on random positions of small boards (from play and from random sets of
//! eaten cells), with one to three poison cells and two-dimensional eats.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{random_eaten, random_position, same, sign};
use jchomp_engine::Rng;
use jchomp_engine::search::{Limits, RegionSolver};
use jchomp_rules::Position;
use jchomp_testkit::brute::{self, Memo};
use jchomp_testkit::{board, model::Model};

const BOARDS: [&str; 8] = [
    "5x5 eat 2x2 poison 0,0",
    "5x5 eat 2x2 poison 2,2",
    "5x6 eat 2x2 poison 1,3 poison 4,0",
    "5x5 eat 2x3 poison 0,0 poison 4,4",
    "6x5 eat 3x2 poison 2,1",
    "5x5 eat 1x2 poison 0,0 poison 3,3 poison 1,4",
    "5x5 eat 2x1 poison 2,2",
    "4x6 eat 1x3 poison 0,1",
];

/// Checks the solver's windowed values and its best selection in one position.
fn check(model: &Model, c: &jchomp_rules::Config, p: &Position, memo: &mut Memo) {
    let (outcome, _) = brute::solve(model, memo);
    let exact = sign(outcome);
    let mut solver = RegionSolver::new(12);
    let mut limits = Limits::unlimited(None);
    for (alpha, beta) in [(-1, 0), (0, 1), (-1, 1)] {
        let v = solver.solve_window(c, p, alpha, beta, &mut limits).unwrap();
        if v <= alpha {
            assert!(exact <= v, "{model:?} ({alpha},{beta}): {v} above {exact}");
        } else if v >= beta {
            assert!(exact >= v, "{model:?} ({alpha},{beta}): {v} below {exact}");
        } else {
            assert_eq!(v, exact, "{model:?} ({alpha},{beta})");
        }
    }
    let (o, best) = solver.best(c, p, &mut limits).unwrap();
    assert!(same(o, outcome), "{model:?}: {o:?} vs {outcome:?}");
    let cell = jchomp_rules::Cell::from_index(best);
    let (_, b, _) = brute::analyze(model, memo)
        .into_iter()
        .find(|(m, _, _)| brute::cell(*m) == cell)
        .expect("the best selection is valid");
    assert!(same(o, b), "{model:?}: {cell} is worth {b:?}, not {o:?}");
}

#[test]
fn windowed_values_and_best_selections_match_brute_force() {
    let mut rng = Rng::new(16);
    let mut outcomes = [0; 3];
    for notation in BOARDS {
        let c = board(notation);
        let mut memo = Memo::new();
        for round in 0..12 {
            let (model, p) = if round % 2 == 0 {
                let plies = rng.below(6);
                random_position(&c, &mut rng, plies)
            } else {
                let percent = 10 + rng.below(40);
                match random_eaten(&c, &mut rng, percent) {
                    Some(found) => found,
                    None => continue,
                }
            };
            if p.to_move().is_none() {
                continue;
            }
            check(&model, &c, &p, &mut memo);
            outcomes[(sign(brute::solve(&model, &mut memo).0) + 1) as usize] += 1;
        }
    }
    // Losses, ties and wins all occur, so every kind of bound is exercised.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}
