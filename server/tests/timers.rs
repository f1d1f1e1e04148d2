//! Timers with short real durations: the turn timer (`timeout`), the disconnect grace
//! (`abandoned`, a resume in time; a waiting seat is freed at once), and the idle timeout.
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
async fn a_bot_is_held_to_the_turn_timer_too() {
    let server = TestServer::start().await;
    let cfg =
        json!({"rows":6,"cols":6,"players":2,"eat":[1,1],"poison":[[0,0]],"move_time_ms":200});
    let mut a = server.client().await;
    a.create("a", cfg).await;
    a.send(json!({"type":"add_bot","bot":"search:time=5s"}))
        .await;
    a.expect("room").await;
    a.send(json!({"type":"move","row":5,"col":5})).await;
    a.expect("moved").await;
    // The bot's stop flag is raised before its time runs out, so it answers in time.
    let m = a.expect("moved").await;
    assert_eq!(m["seat"], 1);
}

fn grace(ms: u64) -> Settings {
    Settings {
        grace: Duration::from_millis(ms),
        ..settings()
    }
}

#[tokio::test]
async fn a_dropped_seat_is_abandoned_after_the_grace_period() {
    let server = TestServer::start_with(grace(300)).await;
    let (_, mut a, b, _) = two_players(&server, config(4, 4, 2, [1, 1], &[[0, 0]])).await;
    drop(b);
    let snap = a.expect("room").await;
    assert_eq!(snap["seats"][1]["connected"], false);
    assert_eq!(snap["status"], "playing");
    let end = a.expect("room").await;
    assert_eq!(end["result"], json!({"kind":"abandoned","loser":1}));
    assert_eq!(end["version"], snap["version"].as_u64().unwrap() + 1);
}

#[tokio::test]
async fn resume_within_the_grace_period_continues_the_game() {
    let server = TestServer::start_with(grace(5_000)).await;
    let (room, mut a, b, token) = two_players(&server, config(4, 4, 2, [1, 1], &[[0, 0]])).await;
    a.send(json!({"type":"move","row":3,"col":3})).await;
    a.expect("moved").await;
    drop(b);
    assert_eq!(a.expect("room").await["seats"][1]["connected"], false);
    let mut b2 = server.client().await;
    b2.send(json!({"type":"resume","token":token})).await;
    assert_eq!(b2.expect("joined").await["room"], room);
    let snap = b2.expect("room").await;
    assert_eq!(snap["to_move"], 1);
    assert_eq!(snap["moves"], json!([{"seat":0,"row":3,"col":3}]));
    assert_eq!(a.expect("room").await["seats"][1]["connected"], true);
    b2.send(json!({"type":"move","row":3,"col":2})).await;
    assert_eq!(a.expect("moved").await["seat"], 1);
    b2.expect("moved").await;
}

#[tokio::test]
async fn a_dropped_seat_in_a_waiting_room_is_freed_at_once() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a.create("a", config(4, 4, 3, [1, 1], &[[0, 0]])).await;
    let mut b = server.client().await;
    let (_, token, _) = b.join(&room, "b").await;
    a.expect("room").await;
    drop(b);
    assert_eq!(a.expect("room").await["seats"][1], json!(null));
    let mut b2 = server.client().await;
    b2.send(json!({"type":"resume","token":token})).await;
    b2.expect_error("bad_token").await;
    // The seat is there for anyone.
    let (seat, _, _) = b2.join(&room, "b2").await;
    assert_eq!(seat, 1);
}

#[tokio::test]
async fn a_waiting_room_whose_last_person_drops_closes() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a.create("a", config(4, 4, 2, [1, 1], &[[0, 0]])).await;
    drop(a);
    let mut b = server.client().await;
    for _ in 0..100 {
        b.send(json!({"type":"list_rooms"})).await;
        if b.expect("rooms").await["rooms"] == json!([]) {
            b.send(json!({"type":"join_room","room":room,"name":"b"}))
                .await;
            b.expect_error("no_such_room").await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the room stayed");
}

#[tokio::test]
async fn the_host_leaving_a_waiting_room_closes_it_when_nobody_is_left() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a.create("a", config(4, 4, 2, [1, 1], &[[0, 0]])).await;
    a.send(json!({"type":"leave"})).await;
    a.expect("left").await;
    a.send(json!({"type":"join_room","room":room,"name":"b"}))
        .await;
    a.expect_error("no_such_room").await;
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
