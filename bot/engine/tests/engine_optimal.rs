//! The search engine, given depth enough to see the end, plays optimally: its choice keeps the
//! exact value the test kit's brute-force solver gives, with and without contempt for ties.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_engine::Rng;
use jchomp_engine::search::{Budget, Engine};
use jchomp_rules::Position;
use jchomp_testkit::brute::{self, Memo, Outcome};
use jchomp_testkit::{board, model::Model};

#[test]
fn deep_search_keeps_the_exact_value() {
    let boards = [
        "4x5 eat 1x2 poison 1,1 poison 3,4",
        "5x5 eat 1x2 poison 2,2",
        "5x4 eat 2x1 poison 2,1",
        "5x5 eat 2x2 poison 1,1 poison 3,3",
        "4x5 variant classic poison 1,2",
        "5x5 variant classic poison 0,0 poison 4,1",
    ];
    let mut rng = Rng::new(7);
    for notation in boards {
        let c = board(notation);
        let mut memo = Memo::new();
        for contempt in [0, 150] {
            for game in 0..4 {
                let mut engine = Engine::new(4, game).with_contempt(contempt);
                let mut model = Model::start(&c);
                let mut position = Position::start(&c);
                while position.to_move().is_some() {
                    let analysed = brute::analyze(&model, &mut memo);
                    let value = |m: brute::Selection| {
                        analysed
                            .iter()
                            .find(|(x, _, _)| *x == m)
                            .map(|&(_, o, p)| (o, p))
                    };
                    let best = brute::solve(&model, &mut memo).0;
                    // The engine moves on even plies, a random safe player on odd ones.
                    let m = if position.to_move() == Some(0) {
                        let r = engine.search(&c, &position, Budget::Depth(40), None);
                        let cell = r.best.unwrap();
                        let m = (i64::from(cell.row), i64::from(cell.col));
                        let (o, _) = value(m).expect("valid");
                        assert_eq!(o, best, "{notation} {:?} chose {m:?}", model.eaten);
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
                    model = model.after(m.0, m.1);
                    position.play(&c, brute::cell(m));
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
        "15x15 eat 1x2 poison 7,7",
        "14x14 eat 1x3 poison 0,0",
        "13x12 eat 2x1 poison 6,5 poison 0,11",
        "15x14 eat 3x1 poison 14,0",
    ];
    let mut wins = 0;
    for notation in boards {
        let c = board(notation);
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
            assert_eq!(*value, best, "{spec} on {notation} chose {cell}");
        }
    }
    assert!(wins > 0, "at least one board is a first-player win");
}

#[test]
fn search_bots_beat_random_at_classic_chomp() {
    use jchomp_engine::arena::{Untimed, play_game};
    use jchomp_engine::{BotSpec, Player, RandomPlayer};
    use jchomp_rules::GameResult;
    let mut won = 0;
    let mut played = 0;
    for notation in [
        "7x8 variant classic",
        "9x9 variant classic poison 0,0 poison 3,5",
    ] {
        let c = board(notation);
        for game in 0..8u64 {
            let bot_seat = (game % 2) as usize;
            let mut players: Vec<Box<dyn Player>> = vec![
                Box::new(RandomPlayer::new(game)),
                Box::new(RandomPlayer::new(game + 50)),
            ];
            players[bot_seat] = BotSpec::parse("search:nodes=20000").unwrap().build(game);
            let outcome = play_game(&c, &mut players, &[], &Untimed).expect("no abort");
            assert_eq!(outcome.failure, None, "legal selections");
            let g = outcome.game;
            // Classic games never tie: someone ate poison.
            let Some(GameResult::Poisoned { loser }) = g.result() else {
                panic!("{notation} ended {:?}", g.result());
            };
            won += usize::from(usize::from(loser) != bot_seat);
            played += 1;
        }
    }
    assert!(
        won * 4 >= played * 3,
        "the search bot won {won} of {played}"
    );
}
