//! Runs `jchomp-bot perft` and holds its counts against the brute-force model in `brute/`.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::expect_used)]

use jchomp_testkit::brute;

use brute::Model;
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

/// The command-line flags describing a model's board.
fn board_flags(m: &Model) -> Vec<String> {
    let mut v = vec![
        "--size".to_string(),
        format!("{}x{}", m.rows, m.cols),
        "--eat".to_string(),
        format!("{}x{}", m.eat.0, m.eat.1),
    ];
    for (r, c) in &m.poison {
        v.push("--poison".to_string());
        v.push(format!("{r},{c}"));
    }
    v
}

#[test]
fn perft_counts_match_the_brute_force_model() {
    let cases = [
        (Model::new(5, 6, (1, 2), &[(0, 0), (4, 5)]), 3),
        (Model::new(4, 4, (1, 1), &[(0, 0)]), 4),
        (Model::new(5, 5, (2, 2), &[(2, 2)]), 4),
        (Model::new(4, 5, (3, 1), &[(1, 1), (3, 4)]), 5),
    ];
    for (model, depth) in cases {
        let expected = model.perft(&model.start(), depth);
        let mut args = vec![
            "perft".to_string(),
            "--depth".to_string(),
            depth.to_string(),
        ];
        args.extend(board_flags(&model));
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
    let model = Model::new(5, 6, (1, 2), &[(0, 0), (4, 5)]);
    let start = model.start();
    let (ok, out, _) = run(&[
        "perft", "--size", "5x6", "--eat", "1x2", "--poison", "0,0", "--poison", "4,5", "--depth",
        "3", "--divide",
    ]);
    assert!(ok);
    let moves = model.moves(&start);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), moves.len() + 2, "{out}");
    let mut total = 0;
    for (line, m) in lines.iter().zip(&moves) {
        let (next, poisoned) = model.play(&start, *m);
        let n = if poisoned { 1 } else { model.perft(&next, 2) };
        assert_eq!(*line, format!("{},{} {n}", m.0, m.1));
        total += n;
    }
    assert_eq!(last_count(&out), total);
}

#[test]
fn bad_board_flags_are_refused_with_the_reason() {
    let (ok, _, err) = run(&["perft", "--size", "3x6", "--depth", "2"]);
    assert!(!ok);
    assert!(err.contains("rows must be 4–15, got 3"), "{err}");
}
