//! A small bounded `jchomp-bench` run against a real in-process server: every move the tool
//! reports was accepted (the server's own counters agree, nothing was rejected) and every game
//! it started finished; the echo baseline runs too; and a server that refuses the load shows up
//! as errors rather than as figures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_bench::echo;
use jchomp_bench::plan::{Load, Shape};
use jchomp_bench::run::{LoadReport, Servers, run_load};
use jchomp_bench::socket::Target;
use jchomp_protocol::rules::Config;
use jchomp_testkit::board;
use jchomp_testkit::server::{TestServer, settings};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A server in this process with the given per-connection rate limit; stops when dropped.
async fn server(rate_per_sec: u32) -> TestServer {
    TestServer::start_with(jchomp_server::Settings {
        rate_limit_per_sec: rate_per_sec,
        rate_limit_burst: rate_per_sec,
        ..settings()
    })
    .await
}

fn config(players: i64) -> Config {
    board(&format!("5x6 poison 0,0 players {players}"))
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

async fn run(url: &str, load: Load, shape: Shape) -> LoadReport {
    let target = Target::parse(url, 2).unwrap();
    let servers = Servers::one(target, None);
    tokio::time::timeout(Duration::from_secs(30), run_load(servers, load, shape))
        .await
        .expect("the run is bounded")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reported_move_was_accepted_and_every_game_finished() {
    let server = server(1_000_000).await;
    for players in [2, 3, 4] {
        let r = run(&server.url(), Load::game(config(players)), shape(12)).await;
        let errors: Vec<_> = r.tally.errors.iter().collect();
        assert!(errors.is_empty(), "{players} players: {errors:?}");
        assert_eq!(r.connected, 12 / players as usize * players as usize);
        assert_eq!(r.tables, 12 / players as usize);
        assert_eq!(r.aborted, 0);
        assert!(r.tally.games_started > 0);
        assert_eq!(
            r.tally.games_finished, r.tally.games_started,
            "{players} players"
        );
        assert!(r.tally.in_window > 0 && r.tally.in_window <= r.tally.answered);
        assert_eq!(r.latency.count as u64, r.tally.in_window);
        assert!(r.latency.p50 <= r.latency.p99 && r.latency.p99 <= r.latency.max);
        // What the disk did, from the server's /metrics: every move is durable, so a window
        // with moves had journal appends and rooms waiting on them.
        let d = r
            .durability
            .as_ref()
            .expect("the server's /metrics were read");
        assert!(d.appends > 0, "{players} players: {d:?}");
        assert!(
            d.append_p50 <= d.append_p99 && d.wait_p50 <= d.wait_p99,
            "{d:?}"
        );
    }
    // The server's own counters: every move the tool counted, nothing refused.
    assert_eq!(server.metric_sum("jchomp_moves_rejected_total").await, 0);
    assert_eq!(server.metric_sum("jchomp_bad_requests_total").await, 0);
    let moves = server.metric_sum("jchomp_moves_total").await;
    let games = server.metric_sum("jchomp_games_finished_total").await;
    assert!(moves > 0 && games > 0);
    let again = run(&server.url(), Load::game(config(2)), shape(4)).await;
    assert_eq!(
        server.metric_sum("jchomp_moves_total").await - moves,
        again.tally.answered
    );
    assert_eq!(
        server.metric_sum("jchomp_games_finished_total").await - games,
        again.tally.games_finished
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paced_seats_keep_their_rate() {
    let server = server(1_000_000).await;
    let s = Shape {
        rate: Some(20.0),
        ..shape(4)
    };
    let r = run(&server.url(), Load::game(config(2)), s).await;
    assert_eq!(r.tally.errors.total(), 0);
    // 4 seats at 20 moves/s each, one seat of each room moving at a time: at most 40 moves/s
    // per room of 2, so at most 80 in all.
    assert!(r.rate() <= 90.0, "{}", r.rate());
    assert!(r.tally.in_window > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_the_load_shows_as_errors() {
    // A rate limit of 5 messages a second closes the connections of seats that move as fast
    // as they can.
    let server = server(5).await;
    let r = run(&server.url(), Load::game(config(2)), shape(4)).await;
    let kinds: Vec<&str> = r.tally.errors.iter().map(|(k, _, _)| k).collect();
    assert!(r.tally.errors.total() > 0, "no error reported");
    assert!(
        kinds
            .iter()
            .any(|k| k.contains("rate_limited") || k.contains("closed")),
        "{kinds:?}"
    );
    assert!(r.unfinished() > 0 || r.tally.games_started == 0);
}

/// Starts the tool's bare echo server on 127.0.0.1:0: its URL, and the sender that stops it.
async fn start_echo() -> (String, oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/ws", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(echo::serve(listener, async move {
        let _ = stopped.await;
    }));
    (url, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_echo_baselines_run_the_same_shape() {
    let (url, stop) = start_echo().await;
    for fanout in [false, true] {
        let r = run(&url, Load::Echo { seats: 3, fanout }, shape(9)).await;
        assert_eq!(r.tally.errors.total(), 0, "{fanout}: {:?}", r.tally.errors);
        assert_eq!((r.tables, r.connected), (3, 9));
        assert!(r.tally.in_window > 0);
        assert_eq!(r.latency.count as u64, r.tally.in_window);
    }
    let _ = stop.send(());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fan_out_echo_sends_every_message_to_every_member_of_the_group_only() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (url, stop) = start_echo().await;
    let mut conns = Vec::new();
    for group in ["a", "a", "b"] {
        let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        ws.send(Message::text(format!("group {group}")))
            .await
            .unwrap();
        assert_eq!(ws.next().await.unwrap().unwrap(), Message::text("joined"));
        conns.push(ws);
    }
    conns[1].send(Message::text("hello")).await.unwrap();
    for ws in &mut conns[..2] {
        assert_eq!(ws.next().await.unwrap().unwrap(), Message::text("hello"));
    }
    conns[2].send(Message::text("other")).await.unwrap();
    // Group b's message reaches b alone: a's next message is a's own.
    conns[0].send(Message::text("again")).await.unwrap();
    assert_eq!(
        conns[1].next().await.unwrap().unwrap(),
        Message::text("again")
    );
    assert_eq!(
        conns[2].next().await.unwrap().unwrap(),
        Message::text("other")
    );
    let _ = stop.send(());
}
