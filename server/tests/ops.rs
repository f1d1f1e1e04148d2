//! Operations: `GET /healthz`, `GET /metrics`, the web client and other HTTP answers on the same port, and the
//! graceful shutdown of `run` and of the binary on SIGTERM.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TestServer, config_value};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test]
async fn healthz_and_other_http_answers() {
    let server = TestServer::start().await;
    assert_eq!(
        server.http_get("/healthz").await,
        ("HTTP/1.1 200 OK".to_string(), "ok\n".to_string())
    );
    assert_eq!(
        server.http_get("/nowhere").await.0,
        "HTTP/1.1 404 Not Found"
    );
    assert_eq!(
        server.http_get("/ws").await.0,
        "HTTP/1.1 426 Upgrade Required"
    );
    // The web client's page and its modules, from the binary.
    let (status, page) = server.http_get("/").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        page.contains("<script type=\"module\" src=\"/js/app.js\">"),
        "{page}"
    );
    let (status, script) = server.http_get("/js/app.js").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(script.contains("new Net("), "{script}");
}

#[tokio::test]
async fn metrics_count_connections_rooms_games_and_moves() {
    let server = TestServer::start().await;
    let (status, body) = server.http_get("/metrics").await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        body.contains("# TYPE jchomp_connections_open gauge"),
        "{body}"
    );
    let mut a = server.client().await;
    let (room, _) = a.create("a", config_value("4x4 poison 0,0")).await;
    let mut w = server.client().await;
    w.create("w", config_value("4x4 poison 0,0")).await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    assert_eq!(server.metric("jchomp_connections_open").await, 3);
    assert_eq!(server.metric("jchomp_rooms{status=\"waiting\"}").await, 1);
    assert_eq!(server.metric("jchomp_rooms{status=\"playing\"}").await, 1);
    a.send(json!({"type":"move","row":9,"col":9})).await;
    a.expect_rejected("out_of_range").await;
    a.send(json!({"type":"move","row":3,"col":3})).await;
    a.expect("moved").await;
    b.expect("moved").await;
    b.send(json!({"type":"move","row":0,"col":0})).await;
    b.expect("moved").await;
    b.expect("room").await;
    assert_eq!(server.metric("jchomp_moves_total").await, 2);
    assert_eq!(server.metric("jchomp_moves_rejected_total").await, 1);
    assert_eq!(
        server
            .metric("jchomp_games_finished_total{result=\"poisoned\"}")
            .await,
        1
    );
    assert_eq!(server.metric("jchomp_rooms{status=\"finished\"}").await, 1);
    assert_eq!(server.metric("jchomp_rooms_created_total").await, 2);
    // The game's start, its first move, and its last move with its record: each made durable
    // before the room answered, in one journal append or more.
    let waits = server.metric("jchomp_durable_wait_seconds_count").await;
    let appends = server.metric("jchomp_journal_append_seconds_count").await;
    assert!(waits >= 3, "{waits} waits");
    assert!(
        (1..=waits).contains(&appends),
        "{appends} appends for {waits} waits"
    );
    // By default every append is synced before its rooms are answered.
    let syncs = server.metric("jchomp_journal_sync_seconds_count").await;
    assert_eq!(syncs, appends);
}

/// Periodic durability: moves are answered before their `fdatasync`, and the journal is synced
/// once the interval has passed — far fewer syncs than appends, but never none.
#[tokio::test]
async fn periodic_durability_answers_before_the_sync_and_syncs_within_the_interval() {
    let mut settings = jchomp_testkit::server::settings();
    settings.durability = jchomp_server::Durability::Periodic;
    settings.sync_every = Duration::from_millis(300);
    let server = TestServer::start_with(settings).await;
    let cfg = config_value("6x6 poison 0,0");
    let mut a = server.client().await;
    let (room, _) = a.create("a", cfg.clone()).await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    let mut game = common::local_game(&cfg);
    let appends_before = server.metric("jchomp_journal_append_seconds_count").await;
    let syncs_before = server.metric("jchomp_journal_sync_seconds_count").await;
    let started = Instant::now();
    for _ in 0..6 {
        let Some(seat) = game.to_move() else { break };
        let cell = common::pick(&game);
        let mover = if seat == 0 { &mut a } else { &mut b };
        mover
            .send(json!({"type":"move","row":cell.row,"col":cell.col}))
            .await;
        game.select(cell.row.into(), cell.col.into()).unwrap();
        a.expect("moved").await;
        b.expect("moved").await;
    }
    let appends = server.metric("jchomp_journal_append_seconds_count").await;
    let syncs = server.metric("jchomp_journal_sync_seconds_count").await;
    if started.elapsed() < Duration::from_millis(250) {
        // Six moves, each answered after its own append, within less than one interval: one
        // sync at most fell due among them.
        let (appends, syncs) = (appends - appends_before, syncs - syncs_before);
        assert!(
            appends >= 6 && syncs <= 1,
            "{syncs} syncs for {appends} appends"
        );
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    let later = server.metric("jchomp_journal_sync_seconds_count").await;
    assert!(later > syncs, "no sync {} ms after the last write", 700);
    assert!(later < appends, "{later} syncs for {appends} appends");
}

#[tokio::test]
async fn shutdown_tells_clients_and_returns_quickly() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    a.create("a", config_value("4x4 poison 0,0")).await;
    // A client that never reads does not hold the shutdown up for long either.
    let mut silent = server.client().await;
    silent.send(json!({"type":"list_rooms"})).await;
    let t0 = Instant::now();
    let (stopped, (texts, close)) = tokio::join!(server.stop(), a.until_closed());
    stopped.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert_eq!(texts.last().unwrap()["code"], "shutting_down");
    assert_eq!(close.unwrap().code, CloseCode::Away);
}

#[cfg(unix)]
#[tokio::test]
async fn the_binary_exits_cleanly_on_sigterm_even_while_a_bot_thinks() {
    let dir = common::temp_dir();
    let (mut child, addr) = common::spawn_binary(&dir, &["--grace-secs", "5"], "error");
    // A bot that would think for a minute.
    let mut a = common::Client::connect(addr).await;
    a.create("a", config_value("15x15 poison 0,0")).await;
    a.send(json!({"type":"add_bot","bot":"search:time=60s"}))
        .await;
    a.expect("room").await;
    a.send(json!({"type":"move","row":14,"col":14})).await;
    a.expect("moved").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t0 = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let (texts, close) = a.until_closed().await;
    assert_eq!(texts.last().unwrap()["code"], "shutting_down");
    assert_eq!(close.unwrap().code, CloseCode::Away);
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(dir.join(jchomp_server::DB_FILE).exists());
    std::fs::remove_dir_all(dir).unwrap();
}
