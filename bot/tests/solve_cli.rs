//! Runs `jchomp-bot solve` and `analyze` (from the start, from a record, value only) and holds
//! their output formats and values against the test kit's brute-force solver.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::brute::{self, Memo, Outcome};
use jchomp_testkit::fixtures::{Fixture, RecordFixture, record};
use jchomp_testkit::model::Model;
use jchomp_testkit::{board, temp::TempDir};
use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(args)
        .output()
        .expect("runs jchomp-bot");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Tie => "tie",
        Outcome::Loss => "loss",
    }
}

const BOARD: [&str; 8] = [
    "--size", "4x5", "--eat", "1x2", "--poison", "1,1", "--poison", "3,4",
];

#[test]
fn solve_prints_value_best_and_plies_last() {
    let start = Model::start(&board("4x5 eat 1x2 poison 1,1 poison 3,4"));
    let (outcome, plies) = brute::solve(&start, &mut Memo::new());
    let mut args = vec!["solve"];
    args.extend(BOARD);
    let out = run(&args);
    let last = out.lines().last().unwrap();
    let words: Vec<&str> = last.split(' ').collect();
    assert_eq!(words[0], "value");
    assert_eq!(words[1], name(outcome), "{out}");
    assert_eq!(words[2], "best");
    assert_eq!(words[4], "plies");
    if outcome != Outcome::Tie {
        assert_eq!(words[5], plies.to_string());
    }
    // The best selection achieves the value.
    let (r, c) = words[3].split_once(',').unwrap();
    let best = (r.parse::<i64>().unwrap(), c.parse::<i64>().unwrap());
    let analysed = brute::analyze(&start, &mut Memo::new());
    assert!(analysed.iter().any(|&(m, o, _)| m == best && o == outcome));
    assert!(out.lines().any(|l| l.starts_with("nodes ")));
    assert!(out.lines().any(|l| l.starts_with("time ")));
    // The region solver alone gives the same value.
    args.push("--value-only");
    let out = run(&args);
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with(&format!("value {} best ", name(outcome))),
        "{last}"
    );
}

#[test]
fn analyze_lists_every_selection_after_a_record() {
    let config = board("5x5 eat 2x2 poison 2,2");
    let record = record("5x5 eat 2x2 poison 2,2")
        .seats(["a", "b"])
        .play(&[(0, 0), (3, 3)]);
    let dir = TempDir::new("bot-record");
    let path = dir.path().join("record.json");
    std::fs::write(&path, serde_json::to_string(&record).unwrap()).unwrap();
    let model = Model::start(&config).after(0, 0).after(3, 3);
    let expected = brute::analyze(&model, &mut Memo::new());
    let out = run(&["analyze", "--record", path.to_str().unwrap()]);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(lines.len(), expected.len(), "{out}");
    for (line, (m, o, p)) in lines.iter().zip(&expected) {
        let want = match o {
            Outcome::Tie => format!("{},{} tie", m.0, m.1),
            _ => format!("{},{} {} plies {p}", m.0, m.1, name(*o)),
        };
        assert_eq!(*line, want);
    }
    let solved = run(&["solve", "--record", path.to_str().unwrap()]);
    let (outcome, _) = brute::solve(&model, &mut Memo::new());
    assert!(
        solved
            .lines()
            .last()
            .unwrap()
            .starts_with(&format!("value {} ", name(outcome)))
    );
}

#[test]
fn analyze_with_a_small_budget_says_which_selections_are_unsolved() {
    let out = run(&[
        "analyze", "--size", "9x9", "--eat", "2x2", "--poison", "4,4", "--budget", "depth=1",
    ]);
    let moves: Vec<&str> = out
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(moves.len(), 64, "{out}");
    let unsolved = moves
        .iter()
        .filter(|l| l.contains(" unsolved estimate "))
        .count();
    assert!(unsolved > 0, "{out}");
    // Eating poison is always proven: a loss in one ply.
    assert!(moves.contains(&"4,4 loss plies 1"), "{out}");
}

#[test]
fn solve_and_analyze_take_the_option_flags_and_name_them() {
    for (flags, notation) in [
        (
            "--size 3x4 --variant classic --poison 0,0 --no-square-bites",
            "3x4 variant classic poison 0,0 no_square_bites",
        ),
        (
            "--size 4x4 --eat 1x2 --poison 1,1 --play normal",
            "4x4 eat 1x2 poison 1,1 play normal",
        ),
        (
            "--size 4x5 --variant breaks --poison 1,2 --play normal --no-square-bites",
            "4x5 variant breaks poison 1,2 play normal no_square_bites",
        ),
    ] {
        let start = Model::start(&board(notation));
        let (outcome, plies) = brute::solve(&start, &mut Memo::new());
        let mut args = vec!["solve"];
        args.extend(flags.split(' '));
        let out = run(&args);
        let first = out.lines().next().unwrap();
        let options = notation.split_once(" poison ").unwrap().1;
        assert!(first.contains(options.split_once(' ').unwrap().1), "{out}");
        let last: Vec<&str> = out.lines().last().unwrap().split(' ').collect();
        assert_eq!(last[1], name(outcome), "{notation}: {out}");
        if outcome != Outcome::Tie {
            assert_eq!(last[5], plies.to_string(), "{notation}: {out}");
        }
        args[0] = "analyze";
        let out = run(&args);
        let analysed = brute::analyze(&start, &mut Memo::new());
        for ((r, c), o, p) in analysed {
            let line = match o {
                Outcome::Tie => format!("{r},{c} tie"),
                o => format!("{r},{c} {} plies {p}", name(o)),
            };
            assert!(
                out.lines().any(|l| l == line),
                "{notation}: {line} in {out}"
            );
        }
    }
}
