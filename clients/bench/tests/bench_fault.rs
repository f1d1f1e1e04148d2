//! `jchomp-bench --spawn-cluster 3 --fault kill@3s`: the first node of a three-node cluster is
//! killed mid-run; the players reconnect and resume, nothing acknowledged is lost, no room's
//! views fork, and the longest stall stays within the lease (3 s), the takeover and a few
//! seconds of reconnecting.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::system::{REDIS_SERVER, require};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

/// The `jchomp-server` binary beside this package's, built first (the bench starts the nodes
/// as processes, so that one can be killed).
async fn server_binary() -> PathBuf {
    let build = tokio::process::Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "jchomp-server",
            "--bin",
            "jchomp-server",
        ])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .status();
    let status = tokio::time::timeout(Duration::from_secs(600), build)
        .await
        .expect("building jchomp-server finishes")
        .expect("cargo runs");
    assert!(status.success(), "cargo build -p jchomp-server failed");
    let path = PathBuf::from(env!("CARGO_BIN_EXE_jchomp-bench"))
        .with_file_name(format!("jchomp-server{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// The number after `label` in `text` (e.g. `longest stall 4.20 s` → 4.2).
fn figure(text: &str, label: &str) -> f64 {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("no {label:?} in {text}"))
        + label.len();
    let word: String = text[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    word.parse()
        .unwrap_or_else(|_| panic!("no figure after {label:?} in {text}"))
}

#[tokio::test]
async fn a_node_killed_mid_run_loses_nothing_and_stalls_within_the_lease() {
    let redis = require(REDIS_SERVER);
    let server = server_binary().await;
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_jchomp-bench"))
        .args(["--spawn-cluster", "3", "--fault", "kill@3s"])
        .arg("--redis-bin")
        .arg(&redis)
        .arg("--server-bin")
        .arg(&server)
        .args(["--connections", "60", "--players", "2", "--size", "6x7"])
        .args(["--duration", "12", "--warmup", "1", "--drain", "5"])
        .args(["--threads", "1", "--server-threads", "1"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("jchomp-bench finishes")
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let all = format!("{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{all}");
    assert!(
        text.contains("fault: node 1 killed (SIGKILL) 3 s into the window"),
        "{all}"
    );
    assert_eq!(figure(&text, "\n  lost"), 0.0, "{all}");
    assert_eq!(figure(&text, "forks"), 0.0, "{all}");
    assert_eq!(figure(&text, "errors:"), 0.0, "{all}");
    // Seats on the killed node reconnected to another and went on.
    assert!(figure(&text, "reconnects") >= 1.0, "{all}");
    assert_eq!(
        figure(&text, "rooms ("),
        0.0,
        "rooms that never moved again: {all}"
    );
    // The lease (3 s), the takeover a second later, and a few seconds to reconnect and resume.
    let stall = figure(&text, "longest stall");
    assert!(
        (2.0..10.0).contains(&stall),
        "longest stall {stall} s: {all}"
    );
    assert!(figure(&text, "s, max") < 10.0, "{all}");
    // Moves went on to the end of the window.
    let seconds = text
        .split("each second: [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("no seconds in {all}"));
    let last: u64 = seconds.rsplit(", ").next().unwrap().parse().unwrap();
    assert!(last > 0, "{all}");
}
