//! `jchomp-bench`'s login mode against a real server (in this process, so the CPU time read is
//! this process's: the server's and the tool's together): a short logins-a-second run completes
//! logins, moves past its throttled addresses and reads CPU time; a short flood run measures the
//! games before and during it, and the flood from one address is throttled.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bench::login::LoginTally;
use jchomp_bench::login_run::{FloodPlan, LoginPlan, run_flood, run_logins};
use jchomp_bench::plan::{Load, Shape};
use jchomp_bench::run::{Servers, Watched};
use jchomp_bench::socket::Target;
use jchomp_testkit::board;
use jchomp_testkit::server::{TestServer, settings};
use std::time::Duration;

/// The in-process server as a run's servers, its CPU time read from this process.
fn servers(server: &TestServer) -> Servers {
    Servers {
        targets: vec![Target::parse(&server.url(), 1).unwrap()],
        processes: vec![Watched {
            name: "server".to_owned(),
            pid: std::process::id(),
        }],
        redis: None,
    }
}

/// No connection failed and nothing unexpected was answered.
fn clean(t: &LoginTally) {
    let errors: Vec<_> = t.errors.iter().collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logins_a_second_are_counted_with_the_servers_cpu() {
    let server = TestServer::start_with(settings()).await;
    let plan = LoginPlan {
        connections: 3,
        accounts: 2,
        warmup: Duration::from_millis(200),
        duration: Duration::from_secs(2),
    };
    let servers = servers(&server);
    let run = run_logins(&servers, plan.clone());
    let r = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the run is bounded")
        .unwrap();
    clean(&r.tally);
    assert_eq!(r.plan, plan);
    assert!(r.logins() > 0, "{:?}", r.tally.answers);
    assert_eq!(r.latency.count as u64, r.tally.total());
    assert!(r.latency.p50 > Duration::ZERO && r.latency.p50 <= r.latency.p99);
    // Only logins and throttled attempts: a right password is never refused as wrong.
    assert_eq!(
        r.logins() + r.tally.count("too_many_attempts") + r.tally.count("server_full"),
        r.tally.total(),
        "{:?}",
        r.tally.answers
    );
    assert!(r.tally.connections >= 3);
    assert!(r.server_cpu.is_some_and(|c| c > Duration::ZERO));
    let per_cpu = r.per_cpu_second().unwrap();
    assert!(per_cpu > 0.0 && r.per_second() > 0.0, "{per_cpu}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_address_is_throttled_beside_games_measured_before_and_during() {
    let server = TestServer::start_with(jchomp_server::Settings {
        rate_limit_per_sec: 1_000_000,
        rate_limit_burst: 1_000_000,
        ..settings()
    })
    .await;
    let shape = Shape {
        connections: 4,
        duration: Duration::from_millis(1500),
        warmup: Duration::from_millis(300),
        drain: Duration::from_secs(5),
        ..Shape::default()
    };
    let plan = FloodPlan {
        connections: 2,
        addrs: 1,
        rate: 50.0,
    };
    let load = Load::game(board("5x6 poison 0,0"));
    let servers = servers(&server);
    let run = run_flood(&servers, load, shape, plan.clone());
    let r = tokio::time::timeout(Duration::from_secs(90), run)
        .await
        .expect("the run is bounded")
        .unwrap();
    clean(&r.flood);
    assert_eq!(r.plan, plan);
    for games in [&r.before, &r.during] {
        assert!(games.tally.errors.total() == 0 && games.tally.in_window > 0);
        assert!(games.latency.p50 > Duration::ZERO);
    }
    assert!(r.ratio(|l| l.p50) > 0.0 && r.ratio(|l| l.p99) > 0.0);
    // One address: at most 20 attempts a minute are checked, the rest refused unhashed.
    let checked = r.flood.count("bad_credentials");
    assert!(checked > 0 && checked <= 20, "{:?}", r.flood.answers);
    assert!(
        r.flood.count("too_many_attempts") > 0,
        "{:?}",
        r.flood.answers
    );
    assert_eq!(r.flood.count("account"), 0);
    assert_eq!(r.flood.connections, 2);
}

/// `jchomp-bench` with these arguments: its exit status, standard output and error.
async fn bench(args: &[&str]) -> (bool, String, String) {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_jchomp-bench"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("jchomp-bench finishes")
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_prints_the_login_figures_and_refuses_bad_login_flags() {
    let server = TestServer::start_with(settings()).await;
    let url = server.url();
    let (ok, out, err) = bench(&[
        "--server",
        &url,
        "--login",
        "rate",
        "--login-connections",
        "2",
        "--login-accounts",
        "2",
        "--duration",
        "1",
        "--warmup",
        "0",
        "--connections",
        "2",
    ])
    .await;
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains("logins: 2 connections logging in to 2 accounts"),
        "{out}"
    );
    assert!(out.contains("logins completed: "), "{out}");
    assert!(out.contains("server CPU unknown"), "{out}");
    let (ok, _, err) = bench(&["--server", &url, "--login", "rate", "--login-accounts", "0"]).await;
    assert!(!ok);
    assert!(err.contains("--login-accounts 1–16"), "{err}");
}
