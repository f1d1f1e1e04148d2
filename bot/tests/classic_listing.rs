//! Runs `jchomp-bot classic-db list` (every position of a box that is a loss, a win, or either,
//! with its plies and optimal selections) against the test kit's classic solver, from a database
//! file and from one built at once, and `jchomp-bot classic transpose` against the kit's
//! transpose and seed 004's example.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::brute::Outcome;
use jchomp_testkit::classic::{self, Rows, Solver};
use jchomp_testkit::temp::TempDir;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Runs `jchomp-bot` in `dir` (where no database lies unless a test put one there): success,
/// standard output and standard error.
fn run(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(args)
        .current_dir(dir)
        .env_remove("JCHOMP_CLASSIC_DB")
        .output()
        .expect("runs jchomp-bot");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `[5,4,3]` for the row lengths 5, 4, 3.
fn shown(position: &Rows) -> String {
    let lengths: Vec<String> = position
        .iter()
        .take_while(|&&l| l > 0)
        .map(u8::to_string)
        .collect();
    format!("[{}]", lengths.join(","))
}

/// The kit's line for a position: `[ROWS] VALUE PLIES best R,C …` (the best selections being the
/// fastest wins, or the longest defences).
fn expected_line(solver: &mut Solver, position: &Rows) -> (Outcome, String) {
    let (outcome, plies) = solver.solve(position);
    let value = if outcome == Outcome::Win {
        "win"
    } else {
        "loss"
    };
    let moves = solver.moves(position);
    let best: Vec<String> = moves
        .iter()
        .filter(|(_, o, p)| *p == plies && (*o == Outcome::Win) == (outcome == Outcome::Win))
        .map(|((r, c), _, _)| format!("{r},{c}"))
        .collect();
    (
        outcome,
        format!(
            "{} {value} {plies} best {}",
            shown(position),
            best.join(" ")
        ),
    )
}

/// The listed lines, keyed by position, and the last line.
fn listed(out: &str) -> (BTreeMap<String, String>, String) {
    let mut lines: Vec<&str> = out.lines().collect();
    let last = lines.pop().expect("a last line").to_string();
    let map = lines
        .into_iter()
        .map(|l| (l.split(' ').next().unwrap().to_string(), l.to_string()))
        .collect();
    (map, last)
}

#[test]
fn list_gives_every_loss_and_win_of_a_box_as_the_kit_solves_them() {
    let dir = TempDir::new("classic-list");
    let mut solver = Solver::new();
    for (rows, cols) in [(4, 5), (1, 6), (5, 1), (3, 3)] {
        let size = format!("{rows}x{cols}");
        let inside = classic::inside(rows, cols);
        let mut want: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
        for p in &inside {
            let (outcome, line) = expected_line(&mut solver, p);
            let value = if outcome == Outcome::Win {
                "win"
            } else {
                "loss"
            };
            for key in [value, "all"] {
                want.entry(key).or_default().insert(shown(p), line.clone());
            }
        }
        for value in ["loss", "win", "all"] {
            let (ok, out, err) = run(
                dir.path(),
                &[
                    "classic-db",
                    "list",
                    "--size",
                    &size,
                    "--value",
                    value,
                    "--moves",
                ],
            );
            assert!(ok, "{size} {value}: {err}");
            assert!(err.contains("building the database"), "{err}");
            let (got, last) = listed(&out);
            let want = want.remove(value).unwrap_or_default();
            assert_eq!(got, want, "{size} --value {value}");
            assert_eq!(
                last,
                format!("positions {} listed {}", inside.len(), want.len())
            );
        }
    }
}

#[test]
fn list_reads_a_database_file_that_holds_the_box_and_lists_without_moves() {
    let dir = TempDir::new("classic-list-file");
    let db = dir.path().join("small.db");
    let (ok, _, err) = run(
        dir.path(),
        &[
            "classic-db",
            "build",
            "--size",
            "5x5",
            "--quiet",
            "--out",
            db.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    // A box inside the file's, transposed too: answered from the file, nothing built.
    let (ok, out, err) = run(
        dir.path(),
        &[
            "classic-db",
            "list",
            "--size",
            "3x5",
            "--classic-db",
            db.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    assert!(!err.contains("building"), "{err}");
    let mut solver = Solver::new();
    let losses: Vec<String> = classic::inside(3, 5)
        .iter()
        .filter_map(|p| match solver.solve(p) {
            (Outcome::Loss, plies) => Some(format!("{} loss {plies}", shown(p))),
            _ => None,
        })
        .collect();
    let (got, last) = listed(&out);
    assert_eq!(got.into_values().collect::<Vec<_>>().len(), losses.len());
    for l in &losses {
        assert!(out.lines().any(|line| line == l), "{l} missing from\n{out}");
    }
    assert_eq!(last, format!("positions 55 listed {}", losses.len()));
    // The poison alone is a loss in one ply, the first of them in rank order.
    assert_eq!(out.lines().next(), Some("[1] loss 1"));
    // A box larger than the file's is built instead, and said so.
    let (ok, _, err) = run(
        dir.path(),
        &[
            "classic-db",
            "list",
            "--size",
            "6x2",
            "--classic-db",
            db.to_str().unwrap(),
        ],
    );
    assert!(ok && err.contains("does not hold the box"), "{err}");
}

#[test]
fn list_refuses_a_box_outside_15x15() {
    let dir = TempDir::new("classic-list-bad");
    for size in ["0x3", "16x2", "3x16"] {
        let (ok, out, err) = run(dir.path(), &["classic-db", "list", "--size", size]);
        assert!(!ok && out.is_empty(), "{size}: {out}");
        assert!(err.contains("1–15 rows by 1–15 columns"), "{size}: {err}");
    }
}

#[test]
fn transpose_swaps_rows_and_columns() {
    let dir = TempDir::new("classic-transpose");
    // Seed 004's example.
    for arg in ["5,4,3", "[5,4,3]", "[5, 4, 3]"] {
        let (ok, out, err) = run(dir.path(), &["classic", "transpose", arg]);
        assert!(ok, "{arg}: {err}");
        assert_eq!(out, "[3,3,3,2,1]\n");
    }
    let mut seed = 7u64;
    for _ in 0..20 {
        let p = classic::random_inside(&mut seed, 6, 9);
        let (ok, out, _) = run(dir.path(), &["classic", "transpose", &shown(&p)]);
        assert!(ok);
        assert_eq!(out.trim_end(), shown(&classic::transpose(&p)));
    }
    for (bad, why) in [
        ("3,4", "longer than the row above"),
        ("5,x", "whole numbers"),
        ("16", "15 rows of 15"),
    ] {
        let (ok, _, err) = run(dir.path(), &["classic", "transpose", bad]);
        assert!(!ok && err.contains(why), "{bad}: {err}");
    }
}
