//! Holds the classic database against the test kit's solver of classic Chomp by its definition:
//! every position of small boxes (value, plies and every selection), random positions of a
//! larger box, the known counts of P-positions, strategy stealing, transposition, and the known
//! winning moves.

// Helpers outside `#[test]` functions panic on purpose when a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_engine::classic::{ClassicDb, Ranker, Shape, Solved, Value};
use jchomp_testkit::brute::Outcome;
use jchomp_testkit::classic::{self, Rows, Solver};

fn db(rows: usize, cols: usize) -> ClassicDb {
    ClassicDb::build(Ranker::new(rows, cols).unwrap(), &mut |_| {})
}

fn shape(rows: &Rows) -> Shape {
    Shape::from_rows(rows).unwrap()
}

/// The kit's answer in the database's terms.
fn kit(solver: &mut Solver, rows: &Rows) -> Solved {
    let (outcome, plies) = solver.solve(rows);
    Solved {
        value: value(outcome),
        plies: u8::try_from(plies).unwrap(),
    }
}

fn value(outcome: Outcome) -> Value {
    match outcome {
        Outcome::Win => Value::Win,
        Outcome::Loss => Value::Loss,
        Outcome::Tie => panic!("classic Chomp never ties"),
    }
}

#[test]
fn every_position_of_small_boxes_agrees_with_the_definition() {
    let mut solver = Solver::new();
    for (r, c, p_positions) in [
        (1, 1, Some(1)),
        (2, 2, Some(2)),
        (3, 5, None),
        (6, 6, Some(48)),
        (5, 7, None),
        (6, 8, Some(142)),
    ] {
        let db = db(r, c);
        let positions = classic::inside(r, c);
        assert_eq!(db.positions(), positions.len() as u64, "{r}x{c}");
        let mut losses = 0;
        for p in &positions {
            let want = kit(&mut solver, p);
            assert_eq!(db.lookup(&shape(p)), Some(want), "{}", shape(p));
            losses += usize::from(want.value == Value::Loss);
        }
        assert_eq!(db.p_positions(), losses as u64, "{r}x{c}");
        if let Some(known) = p_positions {
            assert_eq!(losses, known, "p-positions inside {r}x{c}");
        }
    }
}

#[test]
fn every_selection_and_the_best_one_agree_with_the_definition() {
    let mut solver = Solver::new();
    let db = db(6, 6);
    for p in classic::inside(6, 6) {
        let s = shape(&p);
        let moves = db.analyze(&s).unwrap();
        let want = solver.moves(&p);
        assert_eq!(moves.len(), want.len(), "{s}");
        for (m, &((r, c), outcome, plies)) in moves.iter().zip(&want) {
            assert_eq!((usize::from(m.row), usize::from(m.col)), (r, c), "{s}");
            assert_eq!(m.solved.value, value(outcome), "{s} {r},{c}");
            assert_eq!(u32::from(m.solved.plies), plies, "{s} {r},{c}");
        }
        // The best selection is optimal: the fastest win, or else the longest defence.
        let best = db.best_move(&s).unwrap();
        assert_eq!(best.solved, kit(&mut solver, &p), "{s}");
    }
}

#[test]
fn random_positions_of_a_larger_box_agree_with_the_definition() {
    let db = db(10, 10);
    let mut solver = Solver::new();
    let mut seed = 2024;
    for _ in 0..200 {
        let p = classic::random_inside(&mut seed, 10, 10);
        assert_eq!(
            db.lookup(&shape(&p)),
            Some(kit(&mut solver, &p)),
            "{}",
            shape(&p)
        );
    }
}

#[test]
fn p_positions_inside_squares_are_the_known_counts() {
    let known = [1, 2, 5, 10, 23, 48, 129, 322, 867];
    for (i, &want) in known.iter().enumerate() {
        let n = i + 1;
        assert_eq!(db(n, n).p_positions(), want, "inside {n}x{n}");
    }
}

#[test]
fn every_rectangle_but_the_poison_alone_is_a_win_by_strategy_stealing() {
    let db = db(10, 10);
    let mut solver = Solver::new();
    for r in 1..=10 {
        for c in 1..=10 {
            let rect = Shape::rectangle(r, c).unwrap();
            let v = db.lookup(&rect).unwrap().value;
            assert_eq!(v == Value::Win, r * c > 1, "{r}x{c}");
            if r * c <= 36 {
                let rows = classic::rows(&vec![c as u8; r]);
                assert_eq!(db.lookup(&rect), Some(kit(&mut solver, &rows)), "{r}x{c}");
            }
        }
    }
    assert_eq!(
        db.lookup(&Shape::rectangle(1, 1).unwrap()),
        Some(Solved {
            value: Value::Loss,
            plies: 1
        })
    );
}

#[test]
fn a_position_and_its_transpose_have_the_same_value() {
    let wide = db(5, 7);
    let tall = db(7, 5);
    let mut solver = Solver::new();
    for p in classic::inside(5, 7) {
        let (s, t) = (shape(&p), shape(&classic::transpose(&p)));
        assert_eq!(t, s.transpose());
        assert_eq!(wide.lookup(&s), tall.lookup(&t), "{s}");
        // A box answers for a shape that fits it only transposed.
        assert_eq!(wide.lookup(&t), wide.lookup(&s), "{s}");
        assert_eq!(
            solver.solve(&p),
            solver.solve(&classic::transpose(&p)),
            "{s}"
        );
    }
    assert_eq!(wide.lookup(&Shape::rectangle(6, 6).unwrap()), None);
    assert_eq!(wide.lookup(&Shape::EMPTY), None);
}

#[test]
fn the_known_winning_moves_win() {
    let db = db(10, 10);
    let wins = |s: &Shape, cell: (u8, u8)| {
        db.analyze(s)
            .unwrap()
            .iter()
            .any(|m| (m.row, m.col) == cell && m.solved.value == Value::Win)
    };
    for n in 2..=10 {
        // n×n: take (1,1), leaving an L of two equal arms, and mirror the opponent.
        let square = Shape::rectangle(n, n).unwrap();
        assert!(wins(&square, (1, 1)), "{n}x{n}");
        let l = square.select(1, 1).unwrap();
        assert_eq!(db.lookup(&l).unwrap().value, Value::Loss, "{l}");
        // 2×n (and n×2): take the bottom-right cell, leaving rows n and n-1.
        let bar = Shape::rectangle(2, n).unwrap();
        assert!(wins(&bar, (1, n as u8 - 1)), "2x{n}");
        assert!(wins(&bar.transpose(), (n as u8 - 1, 1)), "{n}x2");
    }
    let mut solver = Solver::new();
    let after = classic::after(&classic::rows(&[6; 6]), 1, 1);
    assert_eq!(solver.solve(&after).0, Outcome::Loss);
}
