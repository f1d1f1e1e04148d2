//! A room's answers to its connections: the creator's greeting, joins and the start of a game,
//! spectators, resumes, moves, bots asked for by the host, leaving and dropped connections,
//! with every refusal on the way.

use super::{Driven, Harness, Requests, TestPeer, config};
use crate::game::room::{LeaveOutcome, Refusal};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::wire::ErrorCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// A room of `cfg` with `a` (the host) in seat 0 and `b` in seat 1, greetings read; returns b's
/// token and the last snapshot b read.
async fn with_b(h: &Harness, cfg: ConfigJson) -> (Driven, TestPeer, TestPeer, String, Value) {
    let (mut room, mut a) = h.hosted(&cfg);
    let mut b = h.peer();
    assert_eq!(room.join(&b, "b").await, Ok(1));
    let token = b.take("joined")["token"].as_str().unwrap().to_string();
    let snap = b.take("room");
    assert_eq!(a.take("room"), snap);
    (room, a, b, token, snap)
}

/// A join or resume refused with this code and message.
fn refusal(code: ErrorCode, message: String) -> Result<u8, Refusal> {
    Err(Refusal::new(code, message))
}

#[tokio::test(start_paused = true)]
async fn the_creator_is_seated_as_host_and_greeted() {
    let h = Harness::new();
    let mut a = h.peer();
    let room = h.open(&config(4, 4, 2), &a);
    let joined = a.take("joined");
    assert_eq!(joined["room"], room.id());
    assert_eq!(joined["seat"], 0);
    let token = joined["token"].as_str().unwrap();
    let snap = a.take("room");
    assert_eq!(snap["version"], 1);
    assert_eq!(snap["status"], "waiting");
    assert_eq!(
        snap["seats"],
        json!([{"name":"a","bot":false,"connected":true}, null])
    );
    a.assert_silent();
    let found = h.ctx.lobby.room_for_token(token).map(|(id, _)| id);
    assert_eq!(found, Some(room.id()));
    assert_eq!(h.ctx.lobby.counts().waiting, 1);
    assert_eq!(h.metric("jchomp_rooms_created_total"), 1);
}

#[tokio::test(start_paused = true)]
async fn the_last_seat_taken_starts_the_game() {
    let h = Harness::new();
    let (room, _, _, token, snap) = with_b(&h, config(4, 4, 2)).await;
    assert_eq!(snap["status"], "playing");
    assert_eq!(snap["version"], 2);
    assert_eq!(snap["to_move"], 0);
    assert_eq!(snap["seats"][1]["name"], "b");
    assert_eq!(h.ctx.lobby.counts().playing, 1);
    let found = h.ctx.lobby.room_for_token(&token).map(|(id, _)| id);
    assert_eq!(found, Some(room.id()));
}

#[tokio::test(start_paused = true)]
async fn joins_are_refused_to_a_seat_holder_and_in_a_started_room() {
    let h = Harness::new();
    let (mut room, a, _, _, _) = with_b(&h, config(4, 4, 2)).await;
    let id = room.id();
    let again = room.join(&a, "a").await;
    let message = format!("you already hold seat 0 in room {id}");
    assert_eq!(again, refusal(ErrorCode::Forbidden, message));
    let c = h.peer();
    let late = room.join(&c, "c").await;
    let message = format!("room {id} has started; every seat is taken");
    assert_eq!(late, refusal(ErrorCode::RoomFull, message));
}

#[tokio::test(start_paused = true)]
async fn a_server_at_its_room_cap_refuses_new_rooms() {
    let h = Harness::with(|s| s.max_rooms = 1);
    let a = h.peer();
    let _first = h.open(&config(4, 4, 2), &a);
    let refused = h.try_open(&config(4, 4, 2), &h.peer()).err().unwrap();
    assert_eq!(refused.code, ErrorCode::ServerFull);
    assert_eq!(
        refused.message,
        "the server holds its maximum of 1 rooms; try again later"
    );
}

#[tokio::test(start_paused = true)]
async fn spectators_watch_and_may_not_move() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, _) = with_b(&h, config(4, 4, 2)).await;
    let id = room.id();
    let refused = room.spectate(&a).await;
    let message = format!("you hold seat 0 in room {id}");
    assert_eq!(refused, Err(Refusal::new(ErrorCode::Forbidden, message)));
    let mut c = h.peer();
    assert_eq!(room.spectate(&c).await, Ok(()));
    assert_eq!(c.take("room")["status"], "playing");
    room.play(&c, 3, 3).await;
    let r = c.take_rejected("not_seated");
    assert_eq!(r["message"], "spectators cannot move");
    room.play(&a, 3, 3).await;
    for p in [&mut a, &mut b, &mut c] {
        assert_eq!(p.take("moved")["seat"], 0);
    }
    assert_eq!(room.leave(&c, false).await, LeaveOutcome::Left);
    room.play(&b, 3, 2).await;
    a.take("moved");
    c.assert_silent();
}

#[tokio::test(start_paused = true)]
async fn a_spectator_who_joins_is_told_once() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&config(4, 4, 3));
    let mut c = h.peer();
    room.spectate(&c).await.unwrap();
    c.take("room");
    assert_eq!(room.join(&c, "c").await, Ok(1));
    c.take("joined");
    assert_eq!(c.take("room"), a.take("room"));
    c.assert_silent();
}

#[tokio::test(start_paused = true)]
async fn resumes_need_a_live_token_and_a_free_hand() {
    let h = Harness::new();
    let (mut room, a, _, token, _) = with_b(&h, config(4, 4, 2)).await;
    let id = room.id();
    let bad = room.resume(&h.peer(), "nope").await;
    let message = "the token matches no seat".to_string();
    assert_eq!(bad, refusal(ErrorCode::BadToken, message));
    let other = room.resume(&a, &token).await;
    let message = format!("you already hold seat 0 in room {id}");
    assert_eq!(other, refusal(ErrorCode::Forbidden, message));
}

#[tokio::test(start_paused = true)]
async fn resuming_a_connected_seat_closes_the_old_connection() {
    let h = Harness::new();
    let (mut room, mut a, mut b, token, snap) = with_b(&h, config(4, 4, 2)).await;
    let mut b2 = h.peer();
    assert_eq!(room.resume(&b2, &token).await, Ok(1));
    let e = b.take_error("forbidden");
    assert_eq!(e["message"], "another connection resumed this seat");
    assert_eq!(
        b.take_close(),
        (CloseCode::Library(4001), "seat resumed elsewhere")
    );
    let joined = b2.take("joined");
    assert_eq!(
        (&joined["seat"], &joined["token"]),
        (&json!(1), &json!(token))
    );
    let now = b2.take("room");
    assert_eq!(now["version"], snap["version"].as_u64().unwrap() + 1);
    assert_eq!(a.take("room"), now);
    room.play(&a, 3, 3).await;
    b2.take("moved");
    b.assert_silent();
}

#[tokio::test(start_paused = true)]
async fn moves_are_checked_in_the_documented_order() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&config(4, 4, 3));
    let id = room.id();
    let mut nobody = h.peer();
    room.play(&nobody, 3, 3).await;
    let r = nobody.take_rejected("not_seated");
    assert_eq!(r["message"], format!("you hold no seat in room {id}"));
    room.play(&a, 3, 3).await;
    let r = a.take_rejected("not_playing");
    assert_eq!(
        r["message"],
        "the game has not started: seats are still free"
    );
    let (mut b, mut c) = (h.peer(), h.peer());
    room.join(&b, "b").await.unwrap();
    room.join(&c, "c").await.unwrap();
    assert_eq!((a.drain(), b.drain(), c.drain()), (2, 3, 2));
    room.play(&b, 3, 3).await;
    let r = b.take_rejected("not_your_turn");
    assert_eq!(r["message"], "seat 0 is to move; you hold seat 1");
    room.play(&a, 9, 9).await;
    let r = a.take_rejected("out_of_range");
    assert_eq!(
        r["message"],
        "the 1×1 selection at (9,9) reaches outside the 4×4 board"
    );
    room.play(&a, 3, 3).await;
    let moved = a.take("moved");
    assert_eq!(
        moved,
        json!({"type":"moved","room":id,"version":4,"seat":0,"row":3,"col":3,"to_move":1,
               "status":"playing","result":null})
    );
    assert_eq!(b.take("moved"), moved);
    assert_eq!(c.take("moved"), moved);
    room.play(&b, 3, 3).await;
    let r = b.take_rejected("already_eaten");
    assert_eq!(
        r["message"],
        "part of the 1×1 selection at (3,3) is already eaten"
    );
    assert_eq!(h.metric("jchomp_moves_rejected_total"), 5);
    assert_eq!(h.metric("jchomp_moves_total"), 1);
    room.play(&b, 0, 0).await;
    assert_eq!(b.take("moved")["status"], "finished");
    assert_eq!(
        b.take("room")["result"],
        json!({"kind":"poisoned","loser":1})
    );
    assert_eq!(c.drain(), 2);
    room.play(&c, 3, 2).await;
    let r = c.take_rejected("not_playing");
    assert_eq!(r["message"], "the game is over");
}

#[tokio::test(start_paused = true)]
async fn only_the_host_adds_bots_and_only_known_ones_to_free_seats() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&config(4, 4, 3));
    let id = room.id();
    let mut b = h.peer();
    room.join(&b, "b").await.unwrap();
    b.take("joined");
    b.take("room");
    a.take("room");
    room.add_bot(&b, None).await;
    let e = b.take_error("forbidden");
    assert_eq!(
        e["message"],
        format!("only the host of room {id} may add bots")
    );
    room.add_bot(&a, Some("grandmaster")).await;
    let e = a.take_error("bad_request");
    assert!(e["message"].as_str().unwrap().contains("level:"), "{e}");
    room.add_bot(&a, Some("greedy")).await;
    assert_eq!(a.take("room")["status"], "playing");
    room.add_bot(&a, None).await;
    let e = a.take_error("room_full");
    assert_eq!(
        e["message"],
        format!("room {id} has started; every seat is taken")
    );
}

#[tokio::test(start_paused = true)]
async fn a_join_or_a_bot_may_ask_for_a_seat_of_its_own() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&config(4, 4, 4));
    let id = room.id();
    let mut b = h.peer();
    assert_eq!(room.join_seat(&b, "b", Some(3)).await, Ok(3));
    assert_eq!(b.take("joined")["seat"], 3);
    b.take("room");
    a.take("room");
    // A taken seat and a seat the room does not have are refused, in words.
    let c = h.peer();
    let taken = room.join_seat(&c, "c", Some(3)).await;
    let message = format!("seat 3 of room {id} is taken");
    assert_eq!(taken, refusal(ErrorCode::RoomFull, message));
    let beyond = room.join_seat(&c, "c", Some(4)).await;
    let message = format!("seat must be 0–3 in room {id}, got 4");
    assert_eq!(beyond, refusal(ErrorCode::BadRequest, message));
    // The host seats a bot in seat 2; a join asking for nothing takes the lowest free seat.
    room.add_bot_at(&a, Some("greedy"), Some(2)).await;
    let snap = a.take("room");
    assert_eq!(snap["seats"][2]["bot"], true);
    assert_eq!(snap["seats"][1], Value::Null);
    room.add_bot_at(&a, Some("greedy"), Some(0)).await;
    let e = a.take_error("room_full");
    assert_eq!(e["message"], format!("seat 0 of room {id} is taken"));
    assert_eq!(room.join(&c, "c").await, Ok(1));
    assert_eq!(a.take("room")["status"], "playing");
    let d = h.peer();
    let late = room.join_seat(&d, "d", Some(1)).await;
    let message = format!("room {id} has started; every seat is taken");
    assert_eq!(late, refusal(ErrorCode::RoomFull, message));
}

#[tokio::test(start_paused = true)]
async fn the_host_role_passes_on_when_the_host_leaves_a_waiting_room() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&config(4, 4, 3));
    let mut b = h.peer();
    room.join(&b, "b").await.unwrap();
    b.take("joined");
    assert_eq!(b.take("room"), a.take("room"));
    assert_eq!(room.leave(&a, false).await, LeaveOutcome::Left);
    assert_eq!(b.take("room")["seats"][0], json!(null));
    room.add_bot(&b, Some("random")).await;
    assert_eq!(b.take("room")["seats"][0]["bot"], true);
    a.assert_silent();
}

#[tokio::test(start_paused = true)]
async fn a_seat_in_play_stays_unless_it_leaves_for_good() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, _) = with_b(&h, config(4, 4, 2)).await;
    let kept = room.leave(&a, true).await;
    assert_eq!(kept, LeaveOutcome::Stayed(0));
    a.assert_silent();
    assert_eq!(room.leave(&a, false).await, LeaveOutcome::Left);
    let end = b.take("room");
    assert_eq!(end["status"], "finished");
    assert_eq!(end["result"], json!({"kind":"abandoned","loser":0}));
    a.assert_silent();
    assert_eq!(
        h.metric("jchomp_games_finished_total{result=\"abandoned\"}"),
        1
    );
    let stored = h.ctx.store.get(room.id()).await.unwrap().unwrap();
    assert_eq!(stored.seats, ["a", "b"]);
    // A seat of a finished game may leave, even when asked to keep an active one.
    assert_eq!(room.leave(&b, true).await, LeaveOutcome::Left);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_seat_in_a_waiting_room_is_freed_at_once() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&config(4, 4, 3));
    let b = h.peer();
    room.join(&b, "b").await.unwrap();
    a.take("room");
    let token = {
        let mut b = b;
        let t = b.take("joined")["token"].as_str().unwrap().to_string();
        room.disconnect(&b).await;
        t
    };
    assert_eq!(a.take("room")["seats"][1], json!(null));
    // The token is dead: a session finds no room for it, and the room knows no seat for it.
    assert!(h.ctx.lobby.room_for_token(&token).is_none());
    let b2 = h.peer();
    let resumed = room.resume(&b2, &token).await;
    let message = "the token matches no seat".to_string();
    assert_eq!(resumed, refusal(ErrorCode::BadToken, message));
    // The seat is there for anyone.
    assert_eq!(room.join(&b2, "b2").await, Ok(1));
}

#[tokio::test(start_paused = true)]
async fn sync_sends_a_snapshot_to_the_asker_alone() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, snap) = with_b(&h, config(4, 4, 2)).await;
    room.sync(&b).await;
    assert_eq!(b.take("room"), snap);
    a.assert_silent();
}

#[tokio::test(start_paused = true)]
async fn a_spectator_that_does_not_read_is_dropped_not_waited_for() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, _) = with_b(&h, config(4, 4, 2)).await;
    let slow = TestPeer::new(2);
    room.spectate(&slow).await.unwrap();
    room.play(&a, 3, 3).await;
    assert!(!slow.signal.slow.load(std::sync::atomic::Ordering::Relaxed));
    room.play(&b, 3, 2).await;
    assert!(slow.signal.slow.load(std::sync::atomic::Ordering::Relaxed));
    assert_eq!((a.drain(), b.drain()), (2, 2));
}

#[tokio::test]
async fn a_rematch_starts_when_every_person_has_asked_and_stores_its_own_record() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, _) = with_b(&h, config(4, 4, 2)).await;
    let id = room.id();
    // Nobody may ask while the game is on.
    room.rematch(&a).await;
    assert_eq!(
        a.take_error("forbidden")["message"],
        format!("the game in room {id} is not over")
    );
    let mut s = h.peer();
    room.spectate(&s).await.unwrap();
    s.take("room");
    room.play(&a, 0, 0).await;
    for p in [&mut a, &mut b, &mut s] {
        p.take("moved");
        let over = p.take("room");
        assert_eq!(over["status"], "finished");
        assert_eq!(over["game"], json!(id), "the game just stored");
    }
    // A spectator may not ask; a seat that asks is shown to everyone, and the game waits.
    room.rematch(&s).await;
    assert_eq!(
        s.take_error("forbidden")["message"],
        format!("only the seats of room {id} may ask for a rematch")
    );
    room.rematch(&b).await;
    let asked = a.take("room");
    assert_eq!(asked["status"], "finished");
    assert_eq!(asked["rematch"], json!([1]));
    assert_eq!(s.take("room"), asked);
    b.take("room");
    // The last person to ask starts a new game: same seats, nothing eaten, seat 0 to move.
    room.rematch(&a).await;
    let fresh = b.take("room");
    assert_eq!(fresh["status"], "playing");
    assert_eq!(fresh["to_move"], 0);
    assert_eq!(fresh["moves"], json!([]));
    assert_eq!(fresh["eaten"], json!([]));
    assert!(fresh.get("rematch").is_none(), "{fresh}");
    assert_eq!(fresh["version"], asked["version"].as_u64().unwrap() + 1);
    assert_eq!(
        fresh["game"],
        json!(format!("{id}-2")),
        "the record it will be"
    );
    assert_eq!(a.take("room"), fresh);
    s.take("room");
    // Whoever comes in now is told the same.
    let mut late = h.peer();
    room.spectate(&late).await.unwrap();
    assert_eq!(late.take("room")["game"], json!(format!("{id}-2")));
    room.play(&a, 3, 3).await;
    room.play(&b, 0, 0).await;
    assert_eq!(a.take("moved")["seat"], 0);
    a.take("moved");
    assert_eq!(
        a.take("room")["result"],
        json!({"kind":"poisoned","loser":1})
    );
    // Each game is its own record: the room's id, then ID-2.
    let first = h.ctx.store.get(id.clone()).await.unwrap().unwrap();
    assert_eq!(first.moves.len(), 1);
    let second = h.ctx.store.get(format!("{id}-2")).await.unwrap().unwrap();
    assert_eq!(second.moves.len(), 2);
}

#[tokio::test]
async fn a_rematch_waits_for_a_person_who_left_and_bots_always_agree() {
    let h = Harness::new();
    let (mut room, mut a, mut b, _, _) = with_b(&h, config(4, 4, 2)).await;
    room.play(&a, 0, 0).await;
    a.drain();
    b.drain();
    room.leave(&b, false).await;
    a.take("room");
    room.rematch(&a).await;
    let waiting = a.take("room");
    assert_eq!(waiting["status"], "finished", "b is gone: no new game");
    assert_eq!(waiting["rematch"], json!([0]));
    // Against a bot, the person's asking is enough.
    let (mut room, mut host) = h.hosted(&config(4, 4, 2));
    room.add_bot(&host, Some("random")).await;
    host.drain();
    room.play(&host, 0, 0).await;
    host.drain();
    room.rematch(&host).await;
    assert_eq!(host.take("room")["status"], "playing");
}
