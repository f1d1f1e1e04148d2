//! What several of the crate's tests share: a tournament run as a user runs it, through the
//! real `jchomp-bot tournament`, and what it wrote.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_protocol::record::Record;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for a tournament's output (the `--out` of `name`'s test).
pub fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jchomp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `jchomp-bot tournament --quiet ARGS --out OUT`, which must succeed; returns its records
/// (`games.jsonl`) and its `results.json`.
pub fn tournament(args: &[String], out: &Path) -> (Vec<Record>, serde_json::Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(["tournament", "--quiet"])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let records = std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results = std::fs::read_to_string(out.join("results.json")).unwrap();
    (records, serde_json::from_str(&results).unwrap())
}
