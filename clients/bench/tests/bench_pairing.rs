//! `jchomp-bench`'s pairing mode against a real server in this process (so the CPU time read is
//! this process's: the server's and the tool's together): a short run seats every player by
//! quick pairing and by plain joins, counts games and reads CPU time, and the lone-waiter pairs
//! are measured; the binary prints the figures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bench::pairing_run::{PairingPlan, Phase, run_pairing};
use jchomp_bench::run::{Servers, Watched};
use jchomp_bench::socket::Target;
use jchomp_testkit::server::{TestServer, settings};
use std::time::Duration;

/// A server pairing every 100 ms, admitting every test connection from one address.
async fn server() -> TestServer {
    TestServer::start_with(jchomp_server::Settings {
        pairing_wave: Duration::from_millis(100),
        max_connections_per_address: 0,
        ..settings()
    })
    .await
}

/// A phase in which `seated` players got their seat in `games` games, without errors.
fn seated(phase: &Phase, seated: u64, games: u64) {
    let errors: Vec<_> = phase.tally.errors.iter().collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!((phase.tally.seated, phase.tally.games), (seated, games));
    assert_eq!(phase.latency.count as u64, seated);
    assert!(phase.latency.p50 > Duration::ZERO && phase.latency.p50 <= phase.latency.p99);
    // Read (this process's CPU time counts in 10 ms ticks: a short phase may take none).
    assert!(phase.server_cpu.is_some() && phase.cpu_per_game().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_player_is_seated_by_pairing_and_by_plain_joins() {
    let server = server().await;
    let servers = Servers {
        targets: vec![Target::parse(&server.url(), 1).unwrap()],
        processes: vec![Watched {
            name: "server".to_owned(),
            pid: std::process::id(),
        }],
        redis: None,
    };
    let plan = PairingPlan {
        players: 9,
        preset: "duel".to_owned(),
        duration: Duration::from_millis(800),
        lone_pairs: 2,
        gap: Duration::from_millis(150),
    };
    let run = run_pairing(&servers, plan.clone());
    let r = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the run is bounded")
        .unwrap();
    assert_eq!(r.errors(), 0);
    // Rounded down to whole rooms of a duel.
    assert_eq!((r.seats, r.plan.players), (2, 8));
    // Every seeker is measured; of the plain rooms, only the joiners.
    seated(&r.pairing, 8, 4);
    seated(&r.plain, 4, 4);
    assert!(r.ratio(|l| l.p50) > 0.0 && r.cpu_ratio().is_some());
    // The first waited alone at least the gap before the second sought.
    assert_eq!((r.lone.first.count, r.lone.second.count), (2, 2));
    assert!(r.lone.first.p50 >= plan.gap, "{:?}", r.lone);
    assert!(r.lone.second.max <= r.lone.first.max, "{:?}", r.lone);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_prints_both_phases_and_refuses_an_unknown_preset() {
    let server = server().await;
    let url = server.url();
    let bench = |args: Vec<&str>| {
        let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_jchomp-bench"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        async {
            let out = tokio::time::timeout(Duration::from_secs(90), run)
                .await
                .expect("jchomp-bench finishes")
                .unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (out.status.success(), text(&out.stdout), text(&out.stderr))
        }
    };
    let (ok, out, err) = bench(vec!["--server", &url, "--pairing", "6", "--duration", "1"]).await;
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("pairing: 6 players a phase"), "{out}");
    assert!(
        out.contains("quick pairing (seek → joined): 6 of 6 seated, 3 games, 0 errors"),
        "{out}"
    );
    assert!(
        out.contains(
            "plain join (join_room → joined, the joiners): 3 of 3 seated, 3 games, 0 errors"
        ),
        "{out}"
    );
    assert!(out.contains("pairing ÷ plain join: latency p50 "), "{out}");
    assert!(out.contains("(10 pairs, one at a time)"), "{out}");
    assert!(out.contains("server CPU unknown"), "{out}");
    let (ok, _, err) = bench(vec!["--server", &url, "--pairing", "4", "--preset", "nope"]).await;
    assert!(!ok);
    assert!(err.contains("no preset \"nope\""), "{err}");
}
