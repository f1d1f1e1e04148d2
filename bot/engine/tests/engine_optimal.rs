//! The search engine, given depth enough to see the end, plays optimally: its choice keeps the
//! exact value the brute-force solver in `brute/` gives, with and without contempt for ties.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::brute;

use brute::{Model, Outcome};
use jchomp_engine::Rng;
use jchomp_engine::search::{Budget, Engine};
use jchomp_rules::{Cell, Config, Position, Setup};
use std::collections::HashMap;

fn config(m: &Model) -> Config {
    brute::engine_config(m)
}

#[test]
fn deep_search_keeps_the_exact_value() {
    let models = [
        Model::new(4, 5, (1, 2), &[(1, 1), (3, 4)]),
        Model::new(5, 5, (1, 2), &[(2, 2)]),
        Model::new(5, 4, (2, 1), &[(2, 1)]),
        Model::new(5, 5, (2, 2), &[(1, 1), (3, 3)]),
    ];
    let mut rng = Rng::new(7);
    for model in models {
        let c = config(&model);
        let mut memo = HashMap::new();
        for contempt in [0, 150] {
            for game in 0..4 {
                let mut engine = Engine::new(4, game).with_contempt(contempt);
                let mut cells = model.start();
                let mut position = Position::start(&c);
                while position.to_move().is_some() {
                    let analysed = model.analyze(&cells, &mut memo);
                    let value = |m: (u8, u8)| {
                        analysed
                            .iter()
                            .find(|(x, _, _)| *x == m)
                            .map(|&(_, o, p)| (o, p))
                    };
                    let best = model.solve(&cells, &mut memo).0;
                    // The engine moves on even plies, a random safe player on odd ones.
                    let m = if position.to_move() == Some(0) {
                        let r = engine.search(&c, &position, Budget::Depth(40), None);
                        let cell = r.best.unwrap();
                        let m = (cell.row, cell.col);
                        let (o, _) = value(m).expect("valid");
                        assert_eq!(o, best, "{model:?} {cells:?} chose {m:?}");
                        m
                    } else {
                        let safe: Vec<_> = analysed
                            .iter()
                            .filter(|(_, o, p)| !(*o == Outcome::Loss && *p == 1))
                            .map(|(m, _, _)| *m)
                            .collect();
                        if safe.is_empty() {
                            analysed[0].0
                        } else {
                            safe[rng.below(safe.len() as u64) as usize]
                        }
                    };
                    cells = model.play(&cells, m).0;
                    position.play(&c, Cell::new(m.0, m.1));
                }
            }
        }
    }
}

#[test]
fn node_budgets_keep_the_exact_value_on_large_row_boards() {
    use jchomp_engine::BotSpec;
    use jchomp_engine::search::{Limits, RegionSolver};
    // With 1×k or k×1 eats every row or column is its own region, so the region solver values
    // these boards at once, and a node budget must play a selection of the best value.
    let boards = [
        (15, 15, [1, 2], vec![[7, 7]]),
        (14, 14, [1, 3], vec![[0, 0]]),
        (13, 12, [2, 1], vec![[6, 5], [0, 11]]),
        (15, 14, [3, 1], vec![[14, 0]]),
    ];
    let mut wins = 0;
    for (rows, cols, eat, poison) in boards {
        let c = Config::new(&Setup {
            rows,
            cols,
            players: 2,
            eat,
            poison,
        })
        .unwrap();
        let p = Position::start(&c);
        let mut solver = RegionSolver::new(16);
        let mut limits = Limits::unlimited(None);
        let values = solver.solve_moves(&c, &p, &mut limits).unwrap();
        let best = solver.solve(&c, &p, &mut limits).unwrap();
        wins += usize::from(best == jchomp_engine::search::Outcome::Win);
        for spec in ["level:3", "search:nodes=20000"] {
            let cell = BotSpec::parse(spec)
                .unwrap()
                .build(3)
                .choose(&c, &p)
                .unwrap();
            let (_, value) = values.iter().find(|(a, _)| *a == cell.index()).unwrap();
            assert_eq!(
                *value, best,
                "{spec} on {rows}x{cols} eat {eat:?} chose {cell}"
            );
        }
    }
    assert!(wins > 0, "at least one board is a first-player win");
}
