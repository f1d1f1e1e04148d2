//! Runs `jchomp-bot perft` and holds its counts against the test kit's brute-force model.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::expect_used)]

use jchomp_rules::Config;
use jchomp_testkit::{board, model::Model};
use std::process::Command;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(args)
        .output()
        .expect("runs jchomp-bot");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn last_count(stdout: &str) -> u64 {
    let last = stdout.lines().last().expect("some output");
    last.strip_prefix("nodes ")
        .expect("last line is `nodes N`")
        .parse()
        .expect("a number")
}

/// The command-line flags describing a board.
fn board_flags(c: &Config) -> Vec<String> {
    let mut v = vec!["--size".to_string(), format!("{}x{}", c.rows(), c.cols())];
    match c.eat() {
        Some((eat_rows, eat_cols)) => {
            v.extend(["--eat".to_string(), format!("{eat_rows}x{eat_cols}")])
        }
        None => v.extend(["--variant".to_string(), c.variant().to_string()]),
    }
    for cell in c.poison() {
        v.push("--poison".to_string());
        v.push(cell.to_string());
    }
    v
}

#[test]
fn perft_counts_match_the_brute_force_model() {
    let cases = [
        ("5x6 eat 1x2 poison 0,0 poison 4,5", 3),
        ("4x4 poison 0,0", 4),
        ("5x5 eat 2x2 poison 2,2", 4),
        ("4x5 eat 3x1 poison 1,1 poison 3,4", 5),
        ("4x5 variant classic poison 0,0 poison 2,3", 4),
    ];
    for (notation, depth) in cases {
        let config = board(notation);
        let expected = Model::start(&config).perft(depth);
        let mut args = vec![
            "perft".to_string(),
            "--depth".to_string(),
            depth.to_string(),
        ];
        args.extend(board_flags(&config));
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, out, err) = run(&argv);
        assert!(ok, "{err}");
        assert_eq!(last_count(&out), expected, "{args:?}");
        // --players does not change the count.
        let mut argv = argv.clone();
        argv.extend(["--players", "4"]);
        let (ok, out, _) = run(&argv);
        assert!(ok);
        assert_eq!(last_count(&out), expected);
    }
}

#[test]
fn divide_splits_the_total_by_first_selection() {
    let start = Model::start(&board("5x6 eat 1x2 poison 0,0 poison 4,5"));
    let (ok, out, _) = run(&[
        "perft", "--size", "5x6", "--eat", "1x2", "--poison", "0,0", "--poison", "4,5", "--depth",
        "3", "--divide",
    ]);
    assert!(ok);
    let moves = start.valid();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), moves.len() + 2, "{out}");
    let mut total = 0;
    for (line, m) in lines.iter().zip(&moves) {
        let next = start.after(m.0, m.1);
        let n = if next.poisoned() { 1 } else { next.perft(2) };
        assert_eq!(*line, format!("{},{} {n}", m.0, m.1));
        total += n;
    }
    assert_eq!(last_count(&out), total);
}

#[test]
fn perft_counts_small_classic_bars_as_the_model_does() {
    for (size, depth) in [("1x2", 3), ("2x1", 3), ("3x5", 4), ("1x6", 4)] {
        let config = board(&format!("{size} variant classic poison 0,0"));
        let want = Model::start(&config).perft(depth);
        let (ok, out, err) = run(&[
            "perft",
            "--size",
            size,
            "--variant",
            "classic",
            "--depth",
            &depth.to_string(),
        ]);
        assert!(ok, "{err}");
        assert_eq!(last_count(&out), want, "{size}: {out}");
    }
}

#[test]
fn bad_board_flags_are_refused_with_the_reason() {
    let (ok, _, err) = run(&["perft", "--size", "3x6", "--depth", "2"]);
    assert!(!ok);
    assert!(
        err.contains("--size must be 4–15 rows by 4–15 columns, got 3x6"),
        "{err}"
    );
    let (ok, _, err) = run(&[
        "perft",
        "--variant",
        "classic",
        "--eat",
        "1x2",
        "--depth",
        "2",
    ]);
    assert!(!ok);
    assert!(err.contains("--variant classic takes no --eat"), "{err}");
}
