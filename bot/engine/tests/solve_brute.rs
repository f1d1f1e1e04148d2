//! Holds `solve` and `analyze` against the test kit's brute-force solver on small boards
//! (4×4 to 5×5, several eat sizes and poison sets, and classic Chomp), from the start and from
//! random positions.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{random_position, same};
use jchomp_engine::Rng;
use jchomp_engine::search::{Limits, Outcome, RegionSolver, Table, analyze, solve};
use jchomp_rules::{Cell, Config, Position};
use jchomp_testkit::brute::{self, Memo};
use jchomp_testkit::{board, model::Model};

fn boards() -> Vec<&'static str> {
    vec![
        "4x4 eat 1x2 poison 0,0",
        "4x4 eat 2x1 poison 1,2",
        "4x5 eat 1x2 poison 1,1 poison 3,4",
        "5x4 eat 2x2 poison 2,1",
        "5x5 eat 1x2 poison 2,2",
        "5x5 eat 1x3 poison 0,0 poison 4,4",
        "5x5 eat 2x2 poison 1,1 poison 3,3 poison 0,4",
        "5x5 eat 2x1 poison 4,0",
        "5x5 eat 3x1 poison 2,2",
        "5x4 eat 1x2 poison 0,3 poison 4,0 poison 2,2 poison 3,1",
    ]
}

/// Checks one position in both models: solve's value, plies and best move, then analyze.
fn check(model: &Model, config: &Config, position: &Position, tt: &mut Table, memo: &mut Memo) {
    let (outcome, plies) = brute::solve(model, memo);
    let s = solve(config, position, tt, None).unwrap();
    assert!(same(s.outcome, outcome), "{model:?}: {s:?} vs {outcome:?}");
    if outcome != brute::Outcome::Tie {
        assert_eq!(s.plies, plies, "{model:?}");
    }
    // The best move really achieves the value.
    let analysed = brute::analyze(model, memo);
    let best = analysed
        .iter()
        .find(|(m, _, _)| brute::cell(*m) == s.best)
        .expect("best is a valid selection");
    assert!(same(s.outcome, best.1));
    if outcome != brute::Outcome::Tie {
        assert_eq!(best.2, plies);
    }
    // The region solver (Grundy values for poison-free regions) agrees on every value.
    let mut regions = RegionSolver::new(12);
    let mut limits = Limits::unlimited(None);
    let o = regions.solve(config, position, &mut limits).unwrap();
    assert!(same(o, outcome), "regions {model:?}: {o:?} vs {outcome:?}");
    let moves = regions.solve_moves(config, position, &mut limits).unwrap();
    for (a, o) in moves {
        let cell = Cell::from_index(a);
        let (_, b, _) = analysed
            .iter()
            .find(|(m, _, _)| brute::cell(*m) == cell)
            .unwrap();
        assert!(same(o, *b), "regions {model:?} {cell}: {o:?} vs {b:?}");
    }
    let (values, _) = analyze(config, position, tt, None, None).unwrap();
    assert_eq!(values.len(), analysed.len());
    for (v, (m, o, p)) in values.iter().zip(&analysed) {
        assert_eq!(v.cell, brute::cell(*m));
        let (vo, vp) = v.value.expect("solved");
        assert!(same(vo, *o), "{model:?} {m:?}: {vo:?} vs {o:?}");
        if *o != brute::Outcome::Tie {
            assert_eq!(vp, Some(*p), "{model:?} {m:?}");
        }
    }
}

#[test]
fn solve_and_analyze_match_brute_force_from_the_start() {
    let mut tt = Table::with_megabytes(4);
    for notation in boards() {
        let c = board(notation);
        let mut memo = Memo::new();
        check(
            &Model::start(&c),
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
    let mut boards = boards();
    boards.push("4x4 poison 0,0 poison 3,3");
    let mut outcomes = [0; 3];
    for notation in boards {
        let c = board(notation);
        let mut memo = Memo::new();
        for _ in 0..6 {
            let plies = rng.below(5);
            let (model, position) = random_position(&c, &mut rng, plies);
            tt.clear();
            check(&model, &c, &position, &mut tt, &mut memo);
            outcomes[brute::solve(&model, &mut memo).0 as usize] += 1;
        }
    }
    // The positions cover all three outcomes, so plies are checked on wins and losses too.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}

#[test]
fn classic_solve_and_analyze_match_brute_force() {
    let mut tt = Table::with_megabytes(4);
    let mut rng = Rng::new(7);
    for notation in [
        "4x4 variant classic poison 0,0",
        "4x5 variant classic poison 1,2",
        "5x4 variant classic poison 0,0 poison 3,1",
        "5x5 variant classic poison 2,2 poison 0,4 poison 4,0",
    ] {
        let c = board(notation);
        let mut memo = Memo::new();
        let mut model = Model::start(&c);
        let mut position = Position::start(&c);
        // From the start, then after random safe selections.
        loop {
            tt.clear();
            check(&model, &c, &position, &mut tt, &mut memo);
            let safe: Vec<u32> = position.safe_selections(&c).iter().collect();
            if safe.is_empty() {
                break;
            }
            let cell = Cell::from_index(safe[rng.below(safe.len() as u64) as usize]);
            model = model.after(cell.row.into(), cell.col.into());
            position.play(&c, cell);
        }
    }
}

#[test]
fn classic_rectangles_with_the_corner_poisoned_are_first_player_wins() {
    // Strategy stealing: taking the far corner cell or the reply that would win after it.
    let mut tt = Table::with_megabytes(4);
    for notation in [
        "4x4 variant classic",
        "4x7 variant classic",
        "5x6 variant classic",
        "6x6 variant classic",
    ] {
        let c = board(notation);
        let s = solve(&c, &Position::start(&c), &mut tt, None).unwrap();
        assert_eq!(s.outcome, Outcome::Win, "{notation}");
    }
}

#[test]
fn solve_refuses_more_than_two_players() {
    let c = board("4x4 eat 1x2 poison 0,0 players 3");
    let mut tt = Table::with_megabytes(1);
    let e = solve(&c, &Position::start(&c), &mut tt, None).unwrap_err();
    assert!(e.to_string().contains("two players"));
}

#[test]
fn eat_one_by_one_is_a_parity_game_that_solve_and_analyze_answer_exactly() {
    // solve and analyze answer eat 1×1 from the count of safe cells, without search: held
    // against brute force from the start and after a few random safe selections.
    let mut rng = Rng::new(7);
    let mut tt = Table::with_megabytes(1);
    for notation in [
        "4x4 poison 1,2",
        "4x4 poison 0,0 poison 3,3",
        "4x4 poison 0,0 poison 3,3 poison 1,1 poison 2,0",
        "4x4 poison 3,3 players 2",
    ] {
        let c = board(notation);
        let mut memo = Memo::new();
        for _ in 0..8 {
            let plies = rng.below(10);
            let (model, position) = random_position(&c, &mut rng, plies);
            check(&model, &c, &position, &mut tt, &mut memo);
            let s = solve(&c, &position, &mut tt, None).unwrap();
            assert_eq!(s.nodes, 0, "{notation}: answered without search");
        }
    }
}

/// Whether some valid poisoned selection overlaps no safe selection (the game can no longer
/// tie), computed from the rectangles themselves.
fn unkillable(c: &Config, p: &Position) -> bool {
    let safe = p.safe_selections(c);
    (p.selections() & c.poison_zone()).iter().any(|q| {
        let poisoned = c.rect(Cell::from_index(q));
        safe.iter()
            .all(|s| !c.rect(Cell::from_index(s)).intersects(poisoned))
    })
}

#[test]
fn poison_that_cannot_be_cut_off_matches_brute_force() {
    // Boards where a poisoned selection can never be made invalid, from the start (poison one
    // step in from a corner, or beside it for a one-row eat) or after some play, and boards
    // where it can: values, plies and best selections against brute force either way.
    let mut rng = Rng::new(1_616);
    let mut tt = Table::with_megabytes(4);
    let mut seen = [[0; 3]; 2];
    for notation in [
        "5x5 eat 2x2 poison 1,1",
        "6x5 eat 2x2 poison 1,1",
        "5x6 eat 2x3 poison 1,2",
        "6x6 eat 2x2 poison 1,1 poison 4,4",
        "5x5 eat 2x2 poison 2,2",
        "4x5 eat 1x2 poison 0,1",
        "5x4 eat 2x1 poison 1,3 poison 3,0",
    ] {
        let c = board(notation);
        let mut memo = Memo::new();
        for round in 0..8 {
            let plies = if round == 0 { 0 } else { rng.below(6) };
            let (model, position) = random_position(&c, &mut rng, plies);
            if position.to_move().is_none() {
                continue;
            }
            tt.clear();
            check(&model, &c, &position, &mut tt, &mut memo);
            let (outcome, _) = brute::solve(&model, &mut memo);
            seen[usize::from(unkillable(&c, &position))][outcome as usize] += 1;
        }
    }
    // Positions of both kinds, and wins and losses where the poison cannot be cut off (such a
    // game never ties).
    assert!(seen[0].iter().sum::<i32>() > 0, "{seen:?}");
    assert_eq!(seen[1][brute::Outcome::Tie as usize], 0, "{seen:?}");
    assert!(seen[1][brute::Outcome::Win as usize] > 0, "{seen:?}");
    assert!(seen[1][brute::Outcome::Loss as usize] > 0, "{seen:?}");
}
