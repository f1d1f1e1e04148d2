//! `jchomp-bench`'s arena mode against a real server in this process: an arena of seeded
//! built-in bots is created, watched to its end, and every finished game's result is timed from
//! its record to the standings; the binary refuses an arena of one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bench::arena::{ArenaPlan, describe_arena, run_arena};
use jchomp_bench::run::{Servers, Watched};
use jchomp_bench::socket::Target;
use jchomp_testkit::server::TestServer;
use std::process::Command;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_of_bots_is_played_to_its_end_and_every_result_is_timed() {
    let server = TestServer::start().await;
    let servers = Servers {
        targets: vec![Target::parse(&server.url(), 1).unwrap()],
        processes: vec![Watched {
            name: "server".to_owned(),
            pid: std::process::id(),
        }],
        redis: None,
    };
    let plan = ArenaPlan {
        entrants: 6,
        bot: "random".to_owned(),
        preset: "duel".to_owned(),
        duration: Duration::from_millis(1500),
    };
    let run = run_arena(&servers, plan);
    let r = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the run is bounded")
        .unwrap();
    let errors: Vec<_> = r.errors.iter().collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(
        r.games >= 3,
        "six entrants play at least one round: {}",
        r.games
    );
    // Every finished game was read back and timed, each once.
    assert_eq!(r.updates.count, r.games);
    assert!(r.updates.p50 <= r.updates.p99 && r.updates.p99 <= r.updates.max);
    assert!(
        r.views >= 2,
        "a view at creation and at least the final one"
    );
    assert!(r.games_per_second() > 0.0);
    let text = describe_arena(&r);
    assert!(text.contains(&format!("{} games in", r.games)), "{text}");
}

#[test]
fn an_arena_of_one_is_refused_before_anything_runs() {
    let out = Command::new(env!("CARGO_BIN_EXE_jchomp-bench"))
        .args(["--arena", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--arena must be 2"), "{err}");
}
