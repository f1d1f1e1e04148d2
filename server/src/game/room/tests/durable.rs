//! A game in play and the database: a move is announced only once it is durable, and a room
//! rebuilt from what was stored (after a shutdown or a crash) has the same position, the same
//! seat to move, the clock that was left, its seats held for their tokens and its bot playing.

use super::{Driven, Harness, Requests, TestPeer, config, timed};
use crate::game::lobby::Lobby;
use crate::game::room::durable::rebuild;
use crate::game::room::{RoomContext, RoomEvent};
use jchomp_protocol::json::ConfigJson;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// A started two-seat game of `cfg` between a and b; returns the room and both tokens.
async fn started(h: &Harness, cfg: &ConfigJson) -> (Driven, TestPeer, TestPeer, String, String) {
    let mut a = h.peer();
    let mut room = h.open(cfg, &a);
    let token_a = a.take("joined")["token"].as_str().unwrap().to_string();
    a.take("room");
    let mut b = h.peer();
    room.join(&b, "b").await.unwrap();
    let token_b = b.take("joined")["token"].as_str().unwrap().to_string();
    assert_eq!(b.take("room")["status"], "playing");
    a.take("room");
    (room, a, b, token_a, token_b)
}

/// The room's snapshot as a client would read it.
fn snapshot(room: &Driven) -> Value {
    serde_json::to_value(room.room.snapshot()).unwrap()
}

/// The same server parts over the same database, with an empty lobby: the next server.
fn next_server(h: &Harness) -> RoomContext {
    RoomContext {
        lobby: Arc::new(Lobby::default()),
        ..h.ctx.clone()
    }
}

/// The one game in play stored, rebuilt as the next server does at start.
async fn rebuilt(h: &Harness, ctx: RoomContext) -> Driven {
    let mut stored = h.ctx.store.games_in_play().await.unwrap();
    assert_eq!(stored.len(), 1, "{stored:?}");
    let (mut room, rx) = rebuild(ctx, stored.remove(0)).unwrap();
    room.start();
    Driven { room, rx }
}

#[tokio::test(start_paused = true)]
async fn a_move_is_announced_once_it_is_durable() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, _) = started(&h, &config(4, 4, 2)).await;
    let peer = a.peer.clone();
    room.room.handle(RoomEvent::Move {
        peer,
        row: 3,
        col: 3,
    });
    a.assert_silent();
    b.assert_silent();
    room.room.settle().await;
    assert_eq!(a.take("moved")["version"], b.take("moved")["version"]);
    let stored = h.ctx.store.games_in_play().await.unwrap();
    assert_eq!(stored[0].moves.len(), 1);
    assert_eq!((stored[0].moves[0].row, stored[0].moves[0].col), (3, 3));
}

#[tokio::test(start_paused = true)]
async fn a_game_kept_at_shutdown_comes_back_with_its_clock() {
    let h = Harness::new();
    let (mut room, a, b, token_a, token_b) = started(&h, &timed(4, 4, 2, 60_000)).await;
    room.play(&a, 3, 3).await;
    room.play(&b, 3, 2).await;
    tokio::time::advance(Duration::from_millis(1_500)).await;
    let before = snapshot(&room);
    assert_eq!(before["time_left_ms"], json!([58_500, 60_000]));
    room.room.keep_for_restart().await;
    drop(room);

    let ctx = next_server(&h);
    let mut back = rebuilt(&h, ctx.clone()).await;
    let after = snapshot(&back);
    for field in [
        "config",
        "status",
        "to_move",
        "eaten",
        "moves",
        "time_left_ms",
    ] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert!(after["version"].as_u64() > before["version"].as_u64());
    // Nobody is connected after a restart: each person's seat is held for the grace period.
    let disconnected = json!({"name":"b","bot":false,"connected":false,"grace_left_ms":60_000});
    assert_eq!(after["seats"][1], disconnected);
    // The clock runs on from what was left, not from a whole turn.
    tokio::time::advance(Duration::from_millis(500)).await;
    assert_eq!(snapshot(&back)["time_left_ms"], json!([58_000, 60_000]));
    // The tokens lead to the room and take their seats back; another token does not.
    assert_eq!(
        ctx.lobby.room_for_token(&token_b).map(|(id, _)| id),
        Some(back.id())
    );
    let mut a2 = h.peer();
    let mut b2 = h.peer();
    assert!(back.resume(&b2, &"0".repeat(32)).await.is_err());
    assert_eq!(back.resume(&a2, &token_a).await, Ok(0));
    assert_eq!(back.resume(&b2, &token_b).await, Ok(1));
    a2.take("joined");
    let resumed = a2.take("room");
    assert_eq!(resumed["to_move"], 0);
    b2.drain();
    a2.drain();
    // The game goes on, and its end is stored as a record that replays its moves.
    back.play(&a2, 3, 1).await;
    assert_eq!(a2.take("moved")["seat"], 0);
    assert_eq!(b2.take("moved")["seat"], 0);
}

#[tokio::test(start_paused = true)]
async fn after_a_crash_the_seat_to_move_has_a_whole_turn_and_nothing_played_is_lost() {
    let h = Harness::new();
    let (mut room, a, b, _, _) = started(&h, &timed(4, 4, 2, 60_000)).await;
    room.play(&a, 3, 3).await;
    room.play(&b, 3, 2).await;
    room.play(&a, 2, 3).await;
    tokio::time::advance(Duration::from_millis(10_000)).await;
    let before = snapshot(&room);
    // No shutdown: the room just stops (as a killed process does).
    drop(room);
    let back = rebuilt(&h, next_server(&h)).await;
    let after = snapshot(&back);
    assert_eq!(after["moves"], before["moves"]);
    assert_eq!(after["to_move"], 1);
    assert_eq!(after["time_left_ms"], json!([60_000, 60_000]));
}

#[tokio::test(start_paused = true)]
async fn a_bot_takes_its_seat_again_and_moves() {
    let h = Harness::new();
    let mut a = h.peer();
    let mut room = h.open(&config(4, 4, 2), &a);
    let token = a.take("joined")["token"].as_str().unwrap().to_string();
    a.take("room");
    room.add_bot(&a, Some("greedy")).await;
    assert_eq!(a.take("room")["status"], "playing");
    drop(room);
    let stored = h.ctx.store.games_in_play().await.unwrap();
    let hash = stored[0].room.seats[0].token_hash.clone().unwrap();
    assert_eq!(stored[0].room.seats[1].bot.as_deref(), Some("greedy"));
    let mut back = rebuilt(&h, next_server(&h)).await;
    assert_eq!(
        snapshot(&back)["seats"][1],
        json!({"name":"greedy","bot":true,"connected":true})
    );
    // Only the token's hash is stored, and the hash is no token.
    let mut a2 = h.peer();
    assert!(back.resume(&a2, &hash).await.is_err());
    assert_eq!(back.resume(&a2, &token).await, Ok(0));
    a2.drain();
    // Seat 0 is to move; once it has, the bot answers by itself.
    back.play(&a2, 3, 3).await;
    a2.take("moved");
    let bot_move = back.next_bot_move().await;
    back.handle(bot_move).await;
    assert_eq!(a2.take("moved")["seat"], 1);
}

#[tokio::test(start_paused = true)]
async fn a_rematch_in_play_comes_back_and_each_game_keeps_its_own_record() {
    let h = Harness::new();
    let (mut room, mut a, mut b, token_a, token_b) = started(&h, &config(4, 4, 2)).await;
    let id = room.id();
    room.play(&a, 0, 0).await;
    room.rematch(&a).await;
    room.rematch(&b).await;
    room.play(&a, 3, 3).await;
    a.drain();
    b.drain();
    // The rematch is the game in play now: a crash brings it back, not the finished one.
    drop(room);
    let mut back = rebuilt(&h, next_server(&h)).await;
    assert_eq!(
        snapshot(&back)["moves"],
        json!([{"seat":0,"row":3,"col":3}])
    );
    let mut a2 = h.peer();
    let mut b2 = h.peer();
    assert_eq!(back.resume(&a2, &token_a).await, Ok(0));
    assert_eq!(back.resume(&b2, &token_b).await, Ok(1));
    a2.drain();
    b2.drain();
    back.play(&b2, 0, 0).await;
    assert_eq!(b2.take("moved")["seat"], 1);
    // Each game is its own record, and nothing is left in play.
    let first = h.ctx.store.get(id.clone()).await.unwrap().unwrap();
    assert_eq!(first.moves.len(), 1);
    let second = h.ctx.store.get(format!("{id}-2")).await.unwrap().unwrap();
    assert_eq!(second.moves.len(), 2);
    assert!(h.ctx.store.games_in_play().await.unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_bot_account_is_still_shown_as_a_bot_after_a_restart() {
    let h = Harness::new();
    let mut a = h.peer();
    let mut room = h.open(&config(4, 4, 2), &a);
    a.take("joined");
    a.take("room");
    let mut b = h.peer();
    b.peer.set_bot_account(true);
    room.join(&b, "engine").await.unwrap();
    b.take("joined");
    let playing = b.take("room");
    assert_eq!(playing["seats"][1]["bot"], true);
    assert_eq!(playing["seats"][0]["bot"], false);
    drop(room);
    let back = rebuilt(&h, next_server(&h)).await;
    let after = snapshot(&back);
    assert_eq!(after["seats"][1]["bot"], true, "{after}");
    assert_eq!(after["seats"][0]["bot"], false, "{after}");
}
