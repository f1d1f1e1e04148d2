//! Runs `jchomp-bot classic-db build` (the known counts of P-positions inside small squares, the
//! file it writes and where), and `solve` and `analyze` of classic positions given by their row
//! lengths, answered from that file and from a database built at once when the file is missing,
//! against the test kit's classic solver.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_engine::classic::ClassicDb;
use jchomp_testkit::brute::Outcome;
use jchomp_testkit::classic::{self, Choice, Solver};
use jchomp_testkit::temp::TempDir;
use std::path::Path;
use std::process::Command;

/// Runs `jchomp-bot` in `dir` (so that no database lying in the current directory answers),
/// with `env` set: success, standard output and standard error.
fn run_in(dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> (bool, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("JCHOMP_CLASSIC_DB");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs jchomp-bot");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(dir: &Path, args: &[&str]) -> String {
    let (ok, stdout, stderr) = run_in(dir, &[], args);
    assert!(ok, "{args:?}: {stderr}");
    stdout
}

fn last(out: &str) -> &str {
    out.lines().last().unwrap()
}

fn before_last(out: &str) -> &str {
    let lines: Vec<&str> = out.lines().collect();
    lines[lines.len() - 2]
}

fn binomial(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |acc, i| acc * (n + 1 - i) / i)
}

/// Builds the database of a `size` box into `dir`, returning its path.
fn build(dir: &Path, size: &str) -> std::path::PathBuf {
    let path = dir.join(format!("db-{size}.db"));
    run(
        dir,
        &[
            "classic-db",
            "build",
            "--size",
            size,
            "--out",
            path.to_str().unwrap(),
        ],
    );
    path
}

#[test]
fn build_counts_the_p_positions_inside_small_squares() {
    let dir = TempDir::new("classic-build");
    let known = [1, 2, 5, 10, 23, 48, 129, 322];
    for (i, p) in known.iter().enumerate() {
        let n = i as u64 + 1;
        let file = dir.path().join(format!("{n}.db"));
        let size = format!("{n}x{n}");
        let (ok, out, err) = run_in(
            dir.path(),
            &[],
            &[
                "classic-db",
                "build",
                "--size",
                &size,
                "--out",
                file.to_str().unwrap(),
            ],
        );
        assert!(ok, "{err}");
        assert!(err.is_empty(), "no progress bar off a terminal: {err:?}");
        let positions = binomial(2 * n, n) - 1;
        assert_eq!(last(&out), format!("positions {positions} p-positions {p}"));
        let db = ClassicDb::load(&file).unwrap();
        assert_eq!(db.size(), (n as usize, n as usize));
        assert_eq!(db.p_positions(), *p as u64);
    }
}

#[test]
fn build_names_its_file_for_the_box_and_refuses_other_boxes() {
    let dir = TempDir::new("classic-build-name");
    let out = run(dir.path(), &["classic-db", "build", "--size", "3x4"]);
    assert!(out.contains("wrote classic-3x4.db ("), "{out}");
    let db = ClassicDb::load(&dir.path().join("classic-3x4.db")).unwrap();
    assert_eq!(db.size(), (3, 4));
    let mut solver = Solver::new();
    let losses = classic::inside(3, 4)
        .iter()
        .filter(|p| solver.solve(p).0 == Outcome::Loss)
        .count();
    assert_eq!(last(&out), format!("positions 34 p-positions {losses}"));
    for size in ["0x3", "16x2", "4"] {
        let (ok, _, err) = run_in(dir.path(), &[], &["classic-db", "build", "--size", size]);
        assert!(!ok && !err.is_empty(), "{size}");
    }
    let (_, _, err) = run_in(dir.path(), &[], &["classic-db", "build", "--size", "16x2"]);
    assert!(err.contains("1–15 rows by 1–15 columns"), "{err}");
}

/// What the kit says of a position: `value win|loss`, and every selection achieving it.
fn kit(rows: &[u8]) -> (Outcome, u32, Vec<Choice>) {
    let mut solver = Solver::new();
    let p = classic::rows(rows);
    let (o, plies) = solver.solve(&p);
    (o, plies, solver.moves(&p))
}

fn name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Tie => "tie",
    }
}

#[test]
fn solve_answers_from_the_database_or_built_now_alike() {
    let dir = TempDir::new("classic-solve");
    let db = build(dir.path(), "6x6");
    let db_flag = db.to_str().unwrap();
    let missing = dir.path().join("missing.db");
    for lengths in [
        "5,5,3",
        "6,6,6,6,6,6",
        "4,2,1",
        "1",
        "6,1,1,1",
        "3,2",
        "2,2,2,2,2",
    ] {
        let rows: Vec<u8> = lengths.split(',').map(|l| l.parse().unwrap()).collect();
        let (outcome, plies, moves) = kit(&rows);
        let from_db = run(
            dir.path(),
            &["solve", "--rows", lengths, "--classic-db", db_flag],
        );
        let built_now = run(
            dir.path(),
            &[
                "solve",
                "--rows",
                lengths,
                "--classic-db",
                missing.to_str().unwrap(),
            ],
        );
        assert!(
            before_last(&from_db).starts_with(&format!("from the database {db_flag} (6x6")),
            "{from_db}"
        );
        assert!(
            before_last(&built_now).starts_with("from a database of the ")
                && before_last(&built_now).contains("no classic database at "),
            "{built_now}"
        );
        for out in [&from_db, &built_now] {
            let words: Vec<&str> = last(out).split(' ').collect();
            assert_eq!(words.len(), 6, "{out}");
            assert_eq!(words[0..2], ["value", name(outcome)], "{lengths}: {out}");
            assert_eq!(
                words[4..6],
                ["plies", &plies.to_string()],
                "{lengths}: {out}"
            );
            // The selection named is optimal: it achieves the value in as many plies.
            let (r, c) = words[3].split_once(',').unwrap();
            let cell = (r.parse::<usize>().unwrap(), c.parse::<usize>().unwrap());
            assert!(
                moves.contains(&(cell, outcome, plies)),
                "{lengths}: {} is not optimal",
                words[3]
            );
        }
        // The board is the smallest that holds the position, at least two cells.
        let (h, w) = (rows.len(), usize::from(rows[0]).max(2 / rows.len()));
        assert!(
            from_db.starts_with(&format!(
                "board {h}x{w} variant classic poison 0,0 players 2"
            )),
            "{from_db}"
        );
        let value_only = run(
            dir.path(),
            &[
                "solve",
                "--rows",
                lengths,
                "--classic-db",
                db_flag,
                "--value-only",
            ],
        );
        assert!(
            last(&value_only).starts_with(&format!("value {} best ", name(outcome))),
            "{value_only}"
        );
    }
}

#[test]
fn analyze_answers_alike_from_the_file_or_a_database_built_now() {
    let dir = TempDir::new("classic-analyze");
    let db = build(dir.path(), "6x6");
    let missing = dir.path().join("missing.db");
    let selections = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .map(String::from)
            .collect()
    };
    for lengths in ["6,5,5,3,1", "4,4,2", "1"] {
        let rows: Vec<u8> = lengths.split(',').map(|l| l.parse().unwrap()).collect();
        let (_, _, moves) = kit(&rows);
        let want: Vec<String> = moves
            .iter()
            .map(|&((r, c), o, p)| format!("{r},{c} {} plies {p}", name(o)))
            .collect();
        let from_db = run(
            dir.path(),
            &[
                "analyze",
                "--rows",
                lengths,
                "--classic-db",
                db.to_str().unwrap(),
            ],
        );
        let built_now = run(
            dir.path(),
            &[
                "analyze",
                "--rows",
                lengths,
                "--classic-db",
                missing.to_str().unwrap(),
            ],
        );
        assert_eq!(selections(&from_db), want, "{from_db}");
        assert_eq!(selections(&built_now), want, "{built_now}");
        let tail: Vec<&str> = from_db.lines().rev().take(3).collect();
        assert!(tail[0].starts_with("time "), "{from_db}");
        assert_eq!(tail[1], "nodes 0");
        assert!(tail[2].starts_with("from the database "), "{from_db}");
    }
}

#[test]
fn the_database_is_found_by_its_variable_and_only_for_the_standard_game() {
    let dir = TempDir::new("classic-env");
    let db = build(dir.path(), "5x5");
    // Named by the environment instead of the flag.
    let (ok, out, err) = run_in(
        dir.path(),
        &[("JCHOMP_CLASSIC_DB", &db)],
        &["solve", "--size", "5x5", "--variant", "classic"],
    );
    assert!(ok, "{err}");
    assert!(before_last(&out).starts_with("from the database "), "{out}");
    assert_eq!(last(&out), "value win best 1,1 plies 10", "{out}");
    // A position outside its box goes to search, which says so.
    let (ok, out, err) = run_in(
        dir.path(),
        &[("JCHOMP_CLASSIC_DB", &db)],
        &["solve", "--rows", "6,1"],
    );
    assert!(ok, "{err}");
    assert!(
        before_last(&out).contains("(5x5) does not hold this position"),
        "{out}"
    );
    // Another poison: not the standard game, search answers and says nothing of databases.
    let db_flag = db.to_str().unwrap();
    let args = [
        "solve",
        "--size",
        "4x4",
        "--variant",
        "classic",
        "--poison",
        "1,1",
        "--classic-db",
        db_flag,
    ];
    let out = run(dir.path(), &args);
    assert!(
        !out.contains("database") && !out.contains("from search"),
        "{out}"
    );
    assert!(last(&out).starts_with("value "), "{out}");
    // A damaged file is not used; search answers and tells why.
    let damaged = dir.path().join("damaged.db");
    std::fs::write(&damaged, b"not a database").unwrap();
    let out = run(
        dir.path(),
        &[
            "solve",
            "--rows",
            "3,3",
            "--classic-db",
            damaged.to_str().unwrap(),
        ],
    );
    assert!(
        before_last(&out).contains("is not a usable classic Chomp database"),
        "{out}"
    );
    // --rows fixes the board itself.
    let (ok, _, err) = run_in(
        dir.path(),
        &[],
        &["solve", "--rows", "3,3", "--size", "5x5"],
    );
    assert!(!ok && err.contains("--size"), "{err}");
    let (ok, _, err) = run_in(dir.path(), &[], &["solve", "--rows", "3,4"]);
    assert!(!ok && err.contains("rows never grow downwards"), "{err}");
}

#[test]
fn small_bars_are_solved_and_analysed_by_their_size() {
    let dir = TempDir::new("classic-bars");
    let db = build(dir.path(), "5x5");
    let db_flag = db.to_str().unwrap();
    let selections = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .map(String::from)
            .collect()
    };
    for (size, lengths) in [
        ("3x5", &[5u8, 5, 5][..]),
        ("5x3", &[3, 3, 3, 3, 3]),
        ("1x2", &[2]),
        ("2x1", &[1, 1]),
        ("1x5", &[5]),
    ] {
        let (outcome, plies, moves) = kit(lengths);
        // Strategy stealing: every bar of two cells or more is a first-player win.
        assert_eq!(outcome, Outcome::Win, "{size}");
        let flags = [
            "--size",
            size,
            "--variant",
            "classic",
            "--classic-db",
            db_flag,
        ];
        let solved = run(dir.path(), &[&["solve"], &flags[..]].concat());
        assert!(
            solved.starts_with(&format!(
                "board {size} variant classic poison 0,0 players 2"
            )),
            "{solved}"
        );
        assert!(
            before_last(&solved).starts_with("from the database "),
            "{solved}"
        );
        let words: Vec<&str> = last(&solved).split(' ').collect();
        assert_eq!(words[0..2], ["value", "win"], "{size}: {solved}");
        assert_eq!(
            words[4..6],
            ["plies", &plies.to_string()],
            "{size}: {solved}"
        );
        let (r, c) = words[3].split_once(',').unwrap();
        let best = (r.parse::<usize>().unwrap(), c.parse::<usize>().unwrap());
        assert!(moves.contains(&(best, outcome, plies)), "{size}: {solved}");
        let analysed = run(dir.path(), &[&["analyze"], &flags[..]].concat());
        let want: Vec<String> = moves
            .iter()
            .map(|&((r, c), o, p)| format!("{r},{c} {} plies {p}", name(o)))
            .collect();
        assert_eq!(selections(&analysed), want, "{analysed}");
    }
    let (ok, _, err) = run_in(
        dir.path(),
        &[],
        &["solve", "--size", "1x1", "--variant", "classic"],
    );
    assert!(
        !ok && err.contains("classic Chomp needs at least 2 cells"),
        "{err}"
    );
}
