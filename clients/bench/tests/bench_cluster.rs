//! `jchomp-bench` against a cluster: two real nodes in this process sharing a real
//! `redis-server`, each room's seats split across them. Every move crosses nodes, every one is
//! checked as against one server, the nodes' own counters agree with the tool's, Redis's
//! commands are counted per move, and the latencies of seats on and off their room's node are
//! kept apart; the repeated `--server` flag of the binary does the same; and the tool's own
//! `redis-server` starts, answers and is counted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bench::cluster::{RedisCounter, spawn_redis};
use jchomp_bench::plan::{Load, Shape};
use jchomp_bench::run::{Servers, run_load};
use jchomp_bench::socket::Target;
use jchomp_testkit::board;
use jchomp_testkit::engines::Redis;
use jchomp_testkit::server::{TestServer, settings};
use jchomp_testkit::system::{REDIS_SERVER, require};
use std::time::Duration;

/// A node of the cluster on `redis`, admitting scripted seats' pace.
async fn node(redis: &Redis) -> TestServer {
    TestServer::start_with(jchomp_server::Settings {
        rate_limit_per_sec: 1_000_000,
        rate_limit_burst: 1_000_000,
        cluster: Some(redis.url()),
        ..settings()
    })
    .await
}

fn shape(connections: usize) -> Shape {
    Shape {
        connections,
        duration: Duration::from_millis(1500),
        warmup: Duration::from_millis(300),
        drain: Duration::from_secs(5),
        ..Shape::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_move_crosses_nodes_and_is_checked() {
    let redis = Redis::start();
    let (a, b) = (node(&redis).await, node(&redis).await);
    let servers = Servers {
        targets: vec![
            Target::parse(&a.url(), 1).unwrap(),
            Target::parse(&b.url(), 1).unwrap(),
        ],
        processes: Vec::new(),
        redis: Some(redis.url()),
    };
    let load = Load::game(board("5x6 poison 0,0"));
    let r = tokio::time::timeout(Duration::from_secs(40), run_load(servers, load, shape(8)))
        .await
        .expect("the run is bounded");
    let errors: Vec<_> = r.tally.errors.iter().collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!((r.nodes, r.tables, r.connected, r.aborted), (2, 4, 8, 0));
    assert!(r.tally.games_started > 0);
    assert_eq!(r.tally.games_finished, r.tally.games_started);
    // Two seats on two nodes: half the moves are made from the room's node, half from the
    // other, and each half is timed on its own.
    let (own, other) = (r.owner_node_latency.count, r.other_node_latency.count);
    assert_eq!((own + other) as u64, r.tally.in_window);
    assert!(own > 0 && other > 0, "{own} {other}");
    assert!(own.abs_diff(other) <= r.tables, "{own} {other}");
    // Every move went through Redis: at least one publish each.
    let per_move = r.redis_per_move().expect("Redis was counted");
    assert!(per_move >= 1.0, "{per_move} Redis commands per move");
    // Each node played the rooms created on it (seat 0 created rooms on both), and their own
    // counters add up to the moves the tool saw accepted; nothing was refused.
    let mut moves = 0;
    for n in [&a, &b] {
        let played = n.metric_sum("jchomp_moves_total").await;
        assert!(played > 0, "a node played no room");
        moves += played;
        assert_eq!(n.metric_sum("jchomp_moves_rejected_total").await, 0);
        assert_eq!(n.metric_sum("jchomp_bad_requests_total").await, 0);
        assert!(n.metric("jchomp_cluster_messages_sent_total").await > 0);
    }
    assert_eq!(moves, r.tally.answered);
    // Three seats on two nodes: the third sits on the owner's node again, and still sees
    // every move made from the other node.
    let servers = Servers {
        targets: vec![
            Target::parse(&a.url(), 1).unwrap(),
            Target::parse(&b.url(), 1).unwrap(),
        ],
        processes: Vec::new(),
        redis: None,
    };
    let load = Load::game(board("5x6 poison 0,0 players 3"));
    let r = tokio::time::timeout(Duration::from_secs(40), run_load(servers, load, shape(6)))
        .await
        .expect("the run is bounded");
    let errors: Vec<_> = r.tally.errors.iter().collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(r.tally.games_started > 0);
    assert_eq!(r.tally.games_finished, r.tally.games_started);
    let (own, other) = (r.owner_node_latency.count, r.other_node_latency.count);
    assert!(own > other && other > 0, "{own} {other}");
    assert_eq!(r.redis_commands, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_splits_rooms_across_repeated_servers() {
    let redis = Redis::start();
    let (a, b) = (node(&redis).await, node(&redis).await);
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_jchomp-bench"))
        .args(["--server", &a.url(), "--server", &b.url()])
        .args(["--connections", "6", "--players", "2", "--size", "5x5"])
        .args(["--duration", "0.8", "--warmup", "0.2", "--threads", "1"])
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("jchomp-bench finishes")
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("against 2 servers; the seats of each room are split"),
        "{text}"
    );
    assert!(text.contains("3 rooms of 2 split across 2 nodes"), "{text}");
    assert!(text.contains("by seats on the room's node: p50"), "{text}");
    assert!(text.contains(", 0 unfinished"), "{text}");
    assert!(text.contains("errors: 0"), "{text}");
    for n in [&a, &b] {
        assert!(n.metric_sum("jchomp_moves_total").await > 0);
    }
}

#[tokio::test]
async fn the_tools_own_redis_starts_and_counts_commands() {
    let program = require(REDIS_SERVER);
    let redis = spawn_redis(&program).await.unwrap();
    let mut counter = RedisCounter::connect(&redis.url).await.unwrap();
    let before = counter.commands().await.unwrap();
    let after = counter.commands().await.unwrap();
    // Each INFO is a command.
    assert_eq!(after - before, 1);
    let pid = redis.pid;
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    drop(redis);
    // A program that is not there says how to get one.
    let err = spawn_redis(std::path::Path::new("/nonexistent/redis-server"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("install Debian's redis-server package"),
        "{err}"
    );
}
