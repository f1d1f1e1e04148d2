//! Holds `solve` and `analyze` against the brute-force solver in `brute/` on small boards
//! (4×4 to 5×5, several eat sizes and poison sets), from the start and from random positions.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::brute;

use brute::{Cells, Model};
use jchomp_engine::Rng;
use jchomp_engine::search::{Limits, Outcome, RegionSolver, Table, analyze, solve};
use jchomp_rules::{Cell, Config, Position, Setup};
use std::collections::HashMap;

fn config(m: &Model) -> Config {
    brute::engine_config(m)
}

fn same(o: Outcome, b: brute::Outcome) -> bool {
    matches!(
        (o, b),
        (Outcome::Win, brute::Outcome::Win)
            | (Outcome::Tie, brute::Outcome::Tie)
            | (Outcome::Loss, brute::Outcome::Loss)
    )
}

fn models() -> Vec<Model> {
    vec![
        Model::new(4, 4, (1, 2), &[(0, 0)]),
        Model::new(4, 4, (2, 1), &[(1, 2)]),
        Model::new(4, 5, (1, 2), &[(1, 1), (3, 4)]),
        Model::new(5, 4, (2, 2), &[(2, 1)]),
        Model::new(5, 5, (1, 2), &[(2, 2)]),
        Model::new(5, 5, (1, 3), &[(0, 0), (4, 4)]),
        Model::new(5, 5, (2, 2), &[(1, 1), (3, 3), (0, 4)]),
        Model::new(5, 5, (2, 1), &[(4, 0)]),
        Model::new(5, 5, (3, 1), &[(2, 2)]),
        Model::new(5, 4, (1, 2), &[(0, 3), (4, 0), (2, 2), (3, 1)]),
    ]
}

/// Checks one position in both models: solve's value, plies and best move, then analyze.
fn check(
    model: &Model,
    cells: &Cells,
    config: &Config,
    position: &Position,
    tt: &mut Table,
    memo: &mut HashMap<Cells, (brute::Outcome, u32)>,
) {
    let (outcome, plies) = model.solve(cells, memo);
    let s = solve(config, position, tt, None).unwrap();
    assert!(
        same(s.outcome, outcome),
        "{model:?} {cells:?}: {s:?} vs {outcome:?}"
    );
    if outcome != brute::Outcome::Tie {
        assert_eq!(s.plies, plies, "{model:?} {cells:?}");
    }
    // The best move really achieves the value.
    let analysed = model.analyze(cells, memo);
    let best = analysed
        .iter()
        .find(|(m, _, _)| Cell::new(m.0, m.1) == s.best)
        .expect("best is a valid selection");
    assert!(same(s.outcome, best.1));
    if outcome != brute::Outcome::Tie {
        assert_eq!(best.2, plies);
    }
    // The region solver (Grundy values for poison-free regions) agrees on every value.
    let mut regions = RegionSolver::new(12);
    let mut limits = Limits::unlimited(None);
    let o = regions.solve(config, position, &mut limits).unwrap();
    assert!(
        same(o, outcome),
        "regions {model:?} {cells:?}: {o:?} vs {outcome:?}"
    );
    let moves = regions.solve_moves(config, position, &mut limits).unwrap();
    for (a, o) in moves {
        let cell = Cell::from_index(a);
        let (_, b, _) = analysed
            .iter()
            .find(|(m, _, _)| Cell::new(m.0, m.1) == cell)
            .unwrap();
        assert!(
            same(o, *b),
            "regions {model:?} {cells:?} {cell}: {o:?} vs {b:?}"
        );
    }
    let (values, _) = analyze(config, position, tt, None, None).unwrap();
    assert_eq!(values.len(), analysed.len());
    for (v, (m, o, p)) in values.iter().zip(&analysed) {
        assert_eq!(v.cell, Cell::new(m.0, m.1));
        let (vo, vp) = v.value.expect("solved");
        assert!(same(vo, *o), "{model:?} {cells:?} {m:?}: {vo:?} vs {o:?}");
        if *o != brute::Outcome::Tie {
            assert_eq!(vp, Some(*p), "{model:?} {cells:?} {m:?}");
        }
    }
}

#[test]
fn solve_and_analyze_match_brute_force_from_the_start() {
    let mut tt = Table::with_megabytes(4);
    for model in models() {
        let c = config(&model);
        let mut memo = HashMap::new();
        check(
            &model,
            &model.start(),
            &c,
            &Position::start(&c),
            &mut tt,
            &mut memo,
        );
    }
}

#[test]
fn solve_and_analyze_match_brute_force_in_random_positions() {
    let mut rng = Rng::new(42);
    let mut tt = Table::with_megabytes(4);
    let mut models = models();
    models.push(Model::new(4, 4, (1, 1), &[(0, 0), (3, 3)]));
    let mut outcomes = [0; 3];
    for model in models {
        let c = config(&model);
        let mut memo = HashMap::new();
        for _ in 0..6 {
            let mut cells = model.start();
            let mut position = Position::start(&c);
            let plies = rng.below(5);
            for _ in 0..plies {
                let safe: Vec<(u8, u8)> = model
                    .moves(&cells)
                    .into_iter()
                    .filter(|&m| !model.play(&cells, m).1)
                    .collect();
                if safe.is_empty() {
                    break;
                }
                let m = safe[rng.below(safe.len() as u64) as usize];
                let next = model.play(&cells, m).0;
                if model.moves(&next).is_empty() {
                    break;
                }
                cells = next;
                position.play(&c, Cell::new(m.0, m.1));
            }
            tt.clear();
            check(&model, &cells, &c, &position, &mut tt, &mut memo);
            outcomes[model.solve(&cells, &mut memo).0 as usize] += 1;
        }
    }
    // The positions cover all three outcomes, so plies are checked on wins and losses too.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}

#[test]
fn solve_refuses_more_than_two_players() {
    let c = Config::new(&Setup {
        rows: 4,
        cols: 4,
        players: 3,
        eat: [1, 2],
        poison: vec![[0, 0]],
    })
    .unwrap();
    let mut tt = Table::with_megabytes(1);
    let e = solve(&c, &Position::start(&c), &mut tt, None).unwrap_err();
    assert!(e.to_string().contains("two players"));
}
