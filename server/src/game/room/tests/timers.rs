//! A room's timers on tokio's paused clock: the turn timer, the grace of a dropped seat (and a
//! resume in time), the linger of a finished room, a room closing when nobody is left, and the
//! server's shutdown. Most run the room's own task, so that its timer is armed as in the server.

use super::{Harness, Requests, Running, TestPeer, config, timed};
use crate::game::room::LeaveOutcome;
use jchomp_protocol::json::ConfigJson;
use serde_json::json;
use std::time::Duration;
use tokio::time::Instant;

/// A running room of `cfg` with `a` in seat 0 and `b` in seat 1, greetings read; returns the
/// room's id and b's token.
async fn two_players(
    h: &Harness,
    cfg: ConfigJson,
) -> (String, Running, TestPeer, TestPeer, String) {
    let mut a = h.peer();
    let (id, mut room) = h.create(&cfg, &a);
    a.recv("joined").await;
    a.recv("room").await;
    let mut b = h.peer();
    assert_eq!(room.join(&b, "b").await, Ok(1));
    let token = b.recv("joined").await["token"]
        .as_str()
        .unwrap()
        .to_string();
    b.recv("room").await;
    a.recv("room").await;
    (id, room, a, b, token)
}

/// The rooms a `list_rooms` would list.
fn listed_rooms(h: &Harness) -> serde_json::Value {
    let text = h.ctx.lobby.rooms_message();
    serde_json::from_str::<serde_json::Value>(text.as_str()).unwrap()["rooms"].take()
}

/// `n` milliseconds.
fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[tokio::test(start_paused = true)]
async fn a_seat_that_lets_its_time_run_out_loses() {
    let h = Harness::new();
    let (id, mut room, mut a, mut b, _) = two_players(&h, timed(4, 4, 2, 300)).await;
    // Seat 0 moves in time; the timer restarts for seat 1, who never moves.
    room.play(&a, 3, 3).await;
    a.recv("moved").await;
    b.recv("moved").await;
    let t0 = Instant::now();
    let end = a.recv("room").await;
    let waited = t0.elapsed();
    assert!(waited >= ms(300) && waited < ms(310), "{waited:?}");
    assert_eq!(end["status"], "finished");
    assert_eq!(end["result"], json!({"kind":"timeout","loser":1}));
    assert_eq!(b.recv("room").await, end);
    assert_eq!(
        h.metric("jchomp_games_finished_total{result=\"timeout\"}"),
        1
    );
    let stored = h.ctx.store.get(id).await.unwrap().unwrap();
    assert_eq!(stored.moves.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn each_move_restarts_the_turn_timer() {
    let h = Harness::new();
    let mut a = h.peer();
    let mut room = h.open(&timed(4, 4, 2, 300), &a);
    assert_eq!(room.room.next_deadline(), None, "no timer while waiting");
    let mut b = h.peer();
    room.join(&b, "b").await.unwrap();
    let started = Instant::now();
    assert_eq!(room.room.next_deadline(), Some(started + ms(300)));
    tokio::time::advance(ms(200)).await;
    room.play(&a, 3, 3).await;
    assert_eq!(room.room.next_deadline(), Some(started + ms(500)));
    a.drain();
    b.drain();
    tokio::time::advance(ms(299)).await;
    assert!(!room.fire_timers().await);
    b.assert_silent();
    tokio::time::advance(ms(1)).await;
    assert!(!room.fire_timers().await);
    let end = b.take("room");
    assert_eq!(end["result"], json!({"kind":"timeout","loser":1}));
}

#[tokio::test(start_paused = true)]
async fn a_dropped_seat_is_abandoned_after_the_grace_period() {
    let h = Harness::with(|s| s.grace = ms(300));
    let (_, mut room, mut a, b, _) = two_players(&h, config(4, 4, 2)).await;
    room.disconnect(&b).await;
    let snap = a.recv("room").await;
    assert_eq!(snap["seats"][1]["connected"], false);
    assert_eq!(snap["status"], "playing");
    let t0 = Instant::now();
    let end = a.recv("room").await;
    assert!(t0.elapsed() >= ms(300), "{:?}", t0.elapsed());
    assert_eq!(end["result"], json!({"kind":"abandoned","loser":1}));
    assert_eq!(end["version"], snap["version"].as_u64().unwrap() + 1);
}

#[tokio::test(start_paused = true)]
async fn snapshots_tell_the_time_left_in_the_turn_and_in_a_dropped_seats_grace() {
    let h = Harness::with(|s| s.grace = ms(5_000));
    let (_, mut room, mut a, b, token) = two_players(&h, timed(4, 4, 2, 30_000)).await;
    tokio::time::advance(ms(1_200)).await;
    room.disconnect(&b).await;
    let snap = a.recv("room").await;
    assert_eq!(snap["time_left_ms"], serde_json::json!([28_800, 30_000]));
    assert_eq!(snap["seats"][1]["grace_left_ms"], 5_000);
    assert!(snap["seats"][0].get("grace_left_ms").is_none(), "{snap}");
    tokio::time::advance(ms(2_000)).await;
    let mut b2 = h.peer();
    room.resume(&b2, &token).await.unwrap();
    b2.recv("joined").await;
    let back = b2.recv("room").await;
    assert_eq!(back["time_left_ms"], serde_json::json!([26_800, 30_000]));
    assert!(back["seats"][1].get("grace_left_ms").is_none(), "{back}");
    // Without a turn timer there is no clock, waiting or playing.
    let h = Harness::new();
    let mut c = h.peer();
    let mut untimed = h.open(&config(4, 4, 2), &c);
    c.drain();
    assert!(untimed.room.snapshot().time_left_ms.is_none());
    let d = h.peer();
    untimed.join(&d, "d").await.unwrap();
    assert!(untimed.room.snapshot().time_left_ms.is_none());
}

#[tokio::test(start_paused = true)]
async fn resume_within_the_grace_period_continues_the_game() {
    let h = Harness::with(|s| s.grace = ms(5_000));
    let (id, mut room, mut a, b, token) = two_players(&h, config(4, 4, 2)).await;
    room.play(&a, 3, 3).await;
    a.recv("moved").await;
    room.disconnect(&b).await;
    assert_eq!(a.recv("room").await["seats"][1]["connected"], false);
    tokio::time::advance(ms(4_000)).await;
    let mut b2 = h.peer();
    assert_eq!(room.resume(&b2, &token).await, Ok(1));
    assert_eq!(b2.recv("joined").await["room"], id);
    let snap = b2.recv("room").await;
    assert_eq!(snap["to_move"], 1);
    assert_eq!(snap["moves"], json!([{"seat":0,"row":3,"col":3}]));
    assert_eq!(a.recv("room").await["seats"][1]["connected"], true);
    room.play(&b2, 3, 2).await;
    assert_eq!(a.recv("moved").await["seat"], 1);
    b2.recv("moved").await;
    // The grace is over: nothing is abandoned when it would have run out.
    tokio::time::sleep(ms(2_000)).await;
    a.assert_silent();
    b2.assert_silent();
}

#[tokio::test(start_paused = true)]
async fn graces_run_only_while_a_game_is_in_play() {
    let h = Harness::with(|s| s.grace = ms(300));
    let mut a = h.peer();
    let mut room = h.open(&config(4, 4, 2), &a);
    let mut b = h.peer();
    room.join(&b, "b").await.unwrap();
    room.play(&a, 0, 0).await;
    a.drain();
    b.drain();
    room.disconnect(&b).await;
    let close_at = room.room.next_deadline();
    assert_eq!(
        close_at,
        Some(Instant::now() + h.ctx.settings.finished_linger)
    );
    assert_eq!(a.take("room")["seats"][1]["connected"], false);
}

#[tokio::test(start_paused = true)]
async fn a_finished_room_closes_after_its_linger_time() {
    let h = Harness::with(|s| s.finished_linger = ms(200));
    let (id, mut room, mut a, mut b, token) = two_players(&h, config(4, 4, 2)).await;
    room.play(&a, 0, 0).await;
    a.recv("moved").await;
    a.recv("room").await;
    b.recv("moved").await;
    b.recv("room").await;
    let t0 = Instant::now();
    // Both stay connected; the room still closes and says so.
    assert_eq!(a.recv("left").await, json!({"type":"left","room":id}));
    assert_eq!(b.recv("left").await["room"], id);
    assert!(t0.elapsed() >= ms(200), "{:?}", t0.elapsed());
    room.closed().await;
    // Sessions now find it gone: no room by its id or token, none listed.
    assert!(h.ctx.lobby.room(&id).is_none());
    assert!(h.ctx.lobby.room_for_token(&token).is_none());
    assert_eq!(listed_rooms(&h), json!([]));
    // The game was stored all the same, before its end was announced.
    let stored = h.ctx.store.get(id).await.unwrap();
    assert!(stored.is_some());
    assert_eq!(h.metric("jchomp_rooms{status=\"finished\"}"), 0);
}

#[tokio::test(start_paused = true)]
async fn a_waiting_room_whose_last_person_drops_closes() {
    let h = Harness::new();
    let mut a = h.peer();
    let (id, mut room) = h.create(&config(4, 4, 2), &a);
    a.recv("joined").await;
    room.disconnect(&a).await;
    room.closed().await;
    assert!(h.ctx.lobby.room(&id).is_none());
    assert_eq!(h.ctx.lobby.counts(), Default::default());
    assert_eq!(listed_rooms(&h), json!([]));
}

#[tokio::test(start_paused = true)]
async fn the_host_leaving_a_waiting_room_closes_it_when_nobody_is_left() {
    let h = Harness::new();
    let mut a = h.peer();
    let (id, mut room) = h.create(&config(4, 4, 2), &a);
    a.recv("joined").await;
    assert_eq!(room.leave(&a, false).await, LeaveOutcome::Left);
    room.closed().await;
    assert!(h.ctx.lobby.room(&id).is_none());
}

#[tokio::test(start_paused = true)]
async fn a_room_ends_quietly_when_the_server_shuts_down() {
    let h = Harness::new();
    let (id, room, mut a, mut b, _) = two_players(&h, timed(4, 4, 2, 60_000)).await;
    h.shut_down();
    room.closed().await;
    assert!(h.ctx.lobby.room(&id).is_none());
    // Connections are told by their own tasks; the room sends no `left`.
    a.assert_silent();
    b.assert_silent();
}
