//! Authorisation across rooms and roles, filling what the seats, errors and games tests leave
//! open: a seat token acts only in its own room and dies with its seat; spectators can neither
//! move nor add bots; the host role (the only one that adds bots) passes on when the host
//! leaves; a resumed seat's older connection is shut out and its moves go nowhere; and no token
//! ever reaches anyone but its owner.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value};
use serde_json::{Value, json};
use std::time::Duration;

const QUIET: Duration = Duration::from_millis(100);

/// A two-player room in play; returns (room, host, guest, host token, guest token).
async fn playing(server: &TestServer) -> (String, Client, Client, String, String) {
    let mut a = server.client().await;
    let (room, ta) = a.create("a", config_value("5x5 poison 0,0")).await;
    let mut b = server.client().await;
    let (_, tb, snap) = b.join(&room, "b").await;
    assert_eq!(snap["status"], "playing");
    a.expect("room").await;
    (room, a, b, ta, tb)
}

#[tokio::test]
async fn a_token_acts_only_in_its_own_room() {
    let server = TestServer::start().await;
    let (room_a, mut a, mut b, token_a, _) = playing(&server).await;
    let (room_b, mut c, mut d, _, _) = playing(&server).await;
    // A player seated in a game in play cannot use another room's token: nothing changes in
    // either room.
    d.send(json!({"type":"resume","token":token_a})).await;
    d.expect_error("forbidden").await;
    for p in [&mut a, &mut b, &mut c] {
        p.expect_silence(QUIET).await;
    }
    // A newcomer with that token gets that seat in that room only.
    let mut m = server.client().await;
    m.send(json!({"type":"resume","token":token_a})).await;
    let joined = m.expect("joined").await;
    assert_eq!(
        (joined["room"].as_str(), joined["seat"].as_u64()),
        (Some(room_a.as_str()), Some(0))
    );
    m.expect("room").await;
    // Its move lands in room A; room B hears nothing of it.
    m.send(json!({"type":"move","row":4,"col":4})).await;
    assert_eq!(m.expect("moved").await["room"], room_a.as_str());
    b.until("moved").await;
    c.expect_silence(QUIET).await;
    d.expect_silence(QUIET).await;
    c.send(json!({"type":"sync"})).await;
    let snap_b = c.expect("room").await;
    assert_eq!(snap_b["room"], room_b.as_str());
    assert_eq!(snap_b["moves"], json!([]));
}

#[tokio::test]
async fn a_token_dies_with_its_seat_and_its_room() {
    let server = TestServer::start().await;
    // A seat left in a waiting room: its token is gone.
    let mut a = server.client().await;
    let (room, _) = a
        .create("a", config_value("4x4 poison 0,0 players 3"))
        .await;
    let mut b = server.client().await;
    let (_, token_b, _) = b.join(&room, "b").await;
    b.send(json!({"type":"leave"})).await;
    b.expect("left").await;
    let mut m = server.client().await;
    m.send(json!({"type":"resume","token":token_b})).await;
    m.expect_error("bad_token").await;
    // A game abandoned by its host: while the finished room lingers, the host's token takes
    // the seat back, but nobody can move any more.
    let (_, mut h, g, token_h, _) = playing(&server).await;
    h.send(json!({"type":"leave"})).await;
    h.until("left").await;
    m.send(json!({"type":"resume","token":token_h})).await;
    m.expect("joined").await;
    assert_eq!(m.expect("room").await["status"], "finished");
    m.send(json!({"type":"move","row":1,"col":1})).await;
    m.expect_rejected("not_playing").await;
    // Once everyone has gone the room closes, and every token of it dies with it (while it
    // closes, a resume may still find the room closing).
    drop(g);
    m.send(json!({"type":"leave"})).await;
    m.until("left").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        m.send(json!({"type":"resume","token":token_h})).await;
        let v = m.until("error").await;
        if v["code"] == "bad_token" {
            break;
        }
        assert_eq!(v["code"], "no_such_room", "{v}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "the token outlived its room"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn spectators_cannot_move_add_bots_or_act_for_a_seat() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a
        .create("a", config_value("4x4 poison 0,0 players 3"))
        .await;
    let mut eve = server.client().await;
    eve.send(json!({"type":"spectate","room":room})).await;
    eve.expect("room").await;
    eve.send(json!({"type":"add_bot"})).await;
    let e = eve.expect_error("forbidden").await;
    assert!(e["message"].as_str().unwrap().contains("host"), "{e}");
    eve.send(json!({"type":"move","row":1,"col":1})).await;
    eve.expect_rejected("not_seated").await;
    a.expect_silence(QUIET).await;
    // In play too.
    let mut b = server.client().await;
    b.join(&room, "b").await;
    let mut c = server.client().await;
    c.join(&room, "c").await;
    eve.until("room").await;
    eve.until("room").await;
    for msg in [
        json!({"type":"move","row":3,"col":3}),
        json!({"type":"add_bot"}),
    ] {
        eve.send(msg).await;
        let v = eve.recv().await;
        assert!(
            v["reason"] == "not_seated" || v["code"] == "forbidden" || v["code"] == "room_full",
            "{v}"
        );
    }
    a.until("room").await;
    a.until("room").await;
    a.expect_silence(QUIET).await;
}

#[tokio::test]
async fn only_the_host_adds_bots_and_the_role_passes_on() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a
        .create("a", config_value("4x4 poison 0,0 players 4"))
        .await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    b.send(json!({"type":"add_bot"})).await;
    b.expect_error("forbidden").await;
    // The host leaves the waiting room: the next human seat becomes host.
    a.send(json!({"type":"leave"})).await;
    a.until("left").await;
    b.until("room").await;
    b.send(json!({"type":"add_bot","bot":"random"})).await;
    let snap = b.until("room").await;
    let bots = snap["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["bot"] == true)
        .count();
    assert_eq!(bots, 1, "{snap}");
    // A newcomer is not host.
    let mut c = server.client().await;
    c.join(&room, "c").await;
    c.send(json!({"type":"add_bot"})).await;
    c.expect_error("forbidden").await;
}

#[tokio::test]
async fn a_resumed_seat_shuts_out_the_old_connection_for_good() {
    let server = TestServer::start().await;
    let (_, mut a, mut b, _, token_b) = playing(&server).await;
    let mut b2 = server.client().await;
    b2.send(json!({"type":"resume","token":token_b})).await;
    b2.expect("joined").await;
    b2.expect("room").await;
    // The old connection is closed; whatever it still manages to send changes nothing.
    let _ = b.until_closed().await;
    let _ = futures_util::SinkExt::send(
        &mut b.ws,
        tokio_tungstenite::tungstenite::Message::text(r#"{"type":"move","row":1,"col":1}"#),
    )
    .await;
    a.until("room").await;
    a.send(json!({"type":"move","row":4,"col":4})).await;
    a.expect("moved").await;
    b2.expect("moved").await;
    // Seat 1 is now played by the new connection only.
    b2.send(json!({"type":"move","row":4,"col":3})).await;
    let m = b2.expect("moved").await;
    assert_eq!(
        (m["seat"].as_u64(), m["version"].as_u64()),
        (Some(1), a.expect("moved").await["version"].as_u64())
    );
    a.send(json!({"type":"sync"})).await;
    let snap = a.expect("room").await;
    assert_eq!(snap["moves"].as_array().unwrap().len(), 2, "{snap}");
}

#[tokio::test]
async fn no_token_reaches_anyone_but_its_owner() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, ta) = a
        .create("a", config_value("4x4 poison 0,0 players 3"))
        .await;
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"spectate","room":room})).await;
    watcher.expect("room").await;
    let mut b = server.client().await;
    let (_, tb, _) = b.join(&room, "b").await;
    let mut c = server.client().await;
    let (_, tc, _) = c.join(&room, "c").await;
    let tokens = [ta, tb, tc];
    for t in &tokens {
        assert_eq!(t.len(), 32, "{t}");
        assert!(t.chars().all(|ch| ch.is_ascii_hexdigit()), "{t}");
    }
    assert!(tokens[0] != tokens[1] && tokens[1] != tokens[2] && tokens[0] != tokens[2]);
    // Everything anyone sees from here on (snapshots, moves, lists) holds no token.
    let mut players = [a, b, c];
    let mut seen: Vec<Value> = Vec::new();
    for p in players.iter_mut() {
        p.send(json!({"type":"sync"})).await;
        p.send(json!({"type":"list_rooms"})).await;
    }
    for p in players.iter_mut() {
        seen.push(p.until("rooms").await);
    }
    watcher.send(json!({"type":"list_rooms"})).await;
    seen.push(watcher.until("rooms").await);
    players[0]
        .send(json!({"type":"move","row":3,"col":3}))
        .await;
    for p in players.iter_mut() {
        seen.push(p.until("moved").await);
    }
    seen.push(watcher.until("moved").await);
    watcher.send(json!({"type":"sync"})).await;
    seen.push(watcher.until("room").await);
    let text = serde_json::to_string(&seen).unwrap();
    for t in &tokens {
        assert!(!text.contains(t.as_str()), "a token leaked");
    }
}
