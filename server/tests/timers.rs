//! Timers end to end, through real sockets with short real durations: the turn timer
//! (`timeout`), a finished room's linger as its clients see it, and a connection's idle timeout
//! and pings. A room's timers themselves (turn, grace, resume, linger, closing) are unit-tested
//! on a paused clock next to the room code (`src/room/tests/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config, settings};
use jchomp_server::Settings;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

async fn two_players(
    server: &TestServer,
    cfg: serde_json::Value,
) -> (String, Client, Client, String) {
    let mut a = server.client().await;
    let (room, _) = a.create("a", cfg).await;
    let mut b = server.client().await;
    let (_, token, _) = b.join(&room, "b").await;
    a.expect("room").await;
    (room, a, b, token)
}

#[tokio::test]
async fn a_seat_that_lets_its_time_run_out_loses() {
    let server = TestServer::start().await;
    let cfg =
        json!({"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]],"move_time_ms":300});
    let (_, mut a, mut b, _) = two_players(&server, cfg).await;
    // Seat 0 moves in time; the timer restarts for seat 1, who never moves.
    a.send(json!({"type":"move","row":3,"col":3})).await;
    a.expect("moved").await;
    b.expect("moved").await;
    let t0 = Instant::now();
    let end = a.expect("room").await;
    let waited = t0.elapsed();
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert_eq!(end["status"], "finished");
    assert_eq!(end["result"], json!({"kind":"timeout","loser":1}));
    assert_eq!(b.expect("room").await, end);
    assert_eq!(
        server
            .metric("jchomp_games_finished_total{result=\"timeout\"}")
            .await,
        1
    );
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_idle_timeout() {
    let server = TestServer::start_with(Settings {
        idle_timeout: Duration::from_millis(300),
        ping_interval: Duration::from_secs(60),
        ..settings()
    })
    .await;
    let mut c = server.client().await;
    let (_, close) = c.until_closed().await;
    assert_eq!(close.unwrap().code, CloseCode::Away);
}

#[tokio::test]
async fn pongs_keep_a_reading_connection_alive() {
    let server = TestServer::start_with(Settings {
        idle_timeout: Duration::from_millis(300),
        ping_interval: Duration::from_millis(50),
        ..settings()
    })
    .await;
    let mut c = server.client().await;
    // The client library answers pings while it reads.
    c.expect_silence(Duration::from_millis(900)).await;
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await;
}

#[tokio::test]
async fn a_finished_room_closes_after_its_linger_time() {
    let server = TestServer::start_with(Settings {
        finished_linger: Duration::from_millis(200),
        ..settings()
    })
    .await;
    let (room, mut a, mut b, _) = two_players(&server, config(4, 4, 2, [1, 1], &[[0, 0]])).await;
    a.send(json!({"type":"move","row":0,"col":0})).await;
    a.expect("moved").await;
    a.expect("room").await;
    b.expect("moved").await;
    b.expect("room").await;
    // Both stay connected; the room still closes and says so.
    assert_eq!(a.expect("left").await, json!({"type":"left","room":room}));
    assert_eq!(b.expect("left").await["room"], room);
    a.send(json!({"type":"move","row":1,"col":1})).await;
    let r = a.expect_rejected("not_seated").await;
    assert!(r["message"].as_str().unwrap().contains("closed"), "{r}");
    b.send(json!({"type":"sync"})).await;
    b.expect_error("no_such_room").await;
    b.send(json!({"type":"list_rooms"})).await;
    assert_eq!(b.expect("rooms").await["rooms"], json!([]));
    // The game was stored all the same (committed off the room's path, so poll).
    for _ in 0..200 {
        b.send(json!({"type":"get_game","game":room})).await;
        if b.recv().await["type"] == "game" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {room} not stored");
}
