//! The `jchomp-bench` binary end to end: an echo-only run (the tool starts its own echo servers,
//! plain and fan-out, as children with the threads asked) prints its figures and exits 0; a game
//! run against the test kit's in-process server prints the game's figures; refused arguments
//! exit non-zero with a reason.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::server::{TestServer, settings};
use std::process::Output;
use std::time::Duration;

async fn bench(args: &[&str]) -> Output {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_jchomp-bench"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("jchomp-bench finishes")
        .unwrap()
}

/// The standard output of a run that must have succeeded (else both outputs, in the panic).
fn succeeded(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_echo_only_run_reports_messages_per_second() {
    let out = bench(&[
        "--echo-only",
        "--connections",
        "8",
        "--players",
        "4",
        "--duration",
        "0.5",
        "--warmup",
        "0",
        "--echo-fanout",
        "--threads",
        "1",
        "--server-threads",
        "2",
    ])
    .await;
    let text = succeeded(&out);
    assert!(
        text.contains("threads: load generator 1, each server it starts 2"),
        "{text}"
    );
    assert!(text.contains("run 1 echo: 8/8 connections held"), "{text}");
    assert!(
        text.contains("run 1 fan-out echo: 8/8 connections held"),
        "{text}"
    );
    assert!(text.contains("messages/s over 0.5 s"), "{text}");
    assert!(text.contains("errors: 0"), "{text}");
    assert!(text.contains("server memory (VmRSS)"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_run_against_a_given_server_reports_moves() {
    let server = TestServer::start_with(jchomp_server::Settings {
        rate_limit_per_sec: 1_000_000,
        rate_limit_burst: 1_000_000,
        ..settings()
    })
    .await;
    let url = server.url();
    let out = bench(&[
        "--server",
        &url,
        "--connections",
        "6",
        "--players",
        "3",
        "--size",
        "5x5",
        "--duration",
        "0.5",
        "--warmup",
        "0.2",
    ])
    .await;
    let text = succeeded(&out);
    assert!(text.contains("run 1 game: 6/6 connections held"), "{text}");
    assert!(text.contains("2 rooms of 3"), "{text}");
    assert!(text.contains("moves/s over 0.5 s"), "{text}");
    assert!(text.contains(", 0 unfinished"), "{text}");
    assert!(text.contains("errors: 0"), "{text}");
    let _ = server.shut_down().await;
}

#[tokio::test]
async fn refused_arguments_say_why() {
    let out = bench(&["--server", "ws://10.1.2.3:7777/ws", "--duration", "1"]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a loopback address"));
    let out = bench(&["--connections", "10"]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--spawn-server"));
    let out = bench(&["--echo-only", "--connections", "1", "--duration", "1"]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 2"));
    // A cluster has two nodes at least, and --server-pid goes with a --server.
    let out = bench(&["--spawn-cluster", "1"]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--spawn-cluster"));
    let out = bench(&[
        "--server",
        "ws://127.0.0.1:1/ws",
        "--server-pid",
        "1",
        "--server-pid",
        "2",
    ])
    .await;
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--server-pid is given 2 times for 1 --server")
    );
    // A redis-server that cannot be started says how to get one, before any node starts.
    let out = bench(&[
        "--spawn-cluster",
        "2",
        "--redis-bin",
        "/nonexistent/redis-server",
        "--connections",
        "4",
        "--duration",
        "0.5",
    ])
    .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("install Debian's redis-server package"),
        "{err}"
    );
}
