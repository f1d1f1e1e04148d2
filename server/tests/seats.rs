//! Seats over time: resume with the seat token (and a forged one), an older connection closed
//! on resume, leave, host-only bots playing whole games, and spectators taking seats.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TestServer, config_value, local_game, pick};
use futures_util::StreamExt;
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test]
async fn resume_takes_over_the_seat_and_closes_the_older_connection() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a.create("a", config_value("4x4 poison 3,3")).await;
    let mut b = server.client().await;
    let (_, token, snap) = b.join(&room, "b").await;
    a.expect("room").await;
    // A forged token, and a token of the right shape but wrong value.
    let mut thief = server.client().await;
    for t in ["x", "0".repeat(32).as_str(), &"f".repeat(500)] {
        thief.send(json!({"type":"resume","token":t})).await;
        thief.expect_error("bad_token").await;
    }
    thief.send(json!({"type":"move","row":0,"col":0})).await;
    thief.expect_rejected("not_seated").await;
    // The real token, from another connection, while the first is still open.
    let mut b2 = server.client().await;
    b2.send(json!({"type":"resume","token":token})).await;
    let joined = b2.expect("joined").await;
    assert_eq!(
        joined,
        json!({"type":"joined","room":room,"seat":1,"token":token})
    );
    let snap2 = b2.expect("room").await;
    assert_eq!(snap2["seats"][1]["connected"], true);
    assert!(snap2["version"].as_u64() > snap["version"].as_u64());
    let (texts, close) = b.until_closed().await;
    assert_eq!(texts.last().unwrap()["code"], "forbidden", "{texts:?}");
    assert_eq!(close.unwrap().code, CloseCode::Library(4001));
    // The close handshake completes: the server waits for the answer, then ends the stream.
    let end = tokio::time::timeout(Duration::from_secs(5), b.ws.next()).await;
    assert!(matches!(end, Ok(None)), "{end:?}");
    // The game goes on with the new connection.
    a.until("room").await;
    a.send(json!({"type":"move","row":0,"col":0})).await;
    b2.expect("moved").await;
    b2.send(json!({"type":"move","row":0,"col":1})).await;
    let m = b2.expect("moved").await;
    assert_eq!(m["seat"], 1);
    // Resuming your own seat again just repeats joined and the snapshot.
    b2.send(json!({"type":"resume","token":token})).await;
    b2.expect("joined").await;
    b2.until("room").await;
}

#[tokio::test]
async fn leave_frees_a_waiting_seat_and_abandons_a_game() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a
        .create("a", config_value("4x4 poison 3,3 players 3"))
        .await;
    let mut b = server.client().await;
    let (_, token, _) = b.join(&room, "b").await;
    a.expect("room").await;
    b.send(json!({"type":"leave"})).await;
    assert_eq!(b.expect("left").await, json!({"type":"left","room":room}));
    let snap = a.expect("room").await;
    assert_eq!(snap["seats"][1], json!(null));
    // The token of a freed seat is dead.
    b.send(json!({"type":"resume","token":token})).await;
    b.expect_error("bad_token").await;
    // Fill the room again and start.
    let (seat, _, _) = b.join(&room, "b").await;
    assert_eq!(seat, 1);
    let mut c = server.client().await;
    c.join(&room, "c").await;
    a.until("room").await;
    a.until("room").await;
    b.expect("room").await;
    // Leaving a game in play abandons it.
    c.send(json!({"type":"leave"})).await;
    c.expect("left").await;
    let end = a.expect("room").await;
    assert_eq!(end["status"], "finished");
    assert_eq!(end["result"], json!({"kind":"abandoned","loser":2}));
    assert_eq!(end["seats"][2]["connected"], false);
    assert_eq!(b.expect("room").await["result"], end["result"]);
    // From a finished room one may go straight to another.
    a.create("a", config_value("4x4 poison 0,0")).await;
}

#[tokio::test]
async fn the_host_plays_whole_games_against_bots() {
    let server = TestServer::start().await;
    for spec in [None, Some("random"), Some("greedy"), Some("level:1")] {
        let mut a = server.client().await;
        let cfg = config_value("5x5 poison 4,4 players 3");
        a.create("host", cfg.clone()).await;
        for _ in 0..2 {
            let msg = match spec {
                Some(s) => json!({"type":"add_bot","bot":s}),
                None => json!({"type":"add_bot"}),
            };
            a.send(msg).await;
        }
        a.expect("room").await;
        let start = a.expect("room").await;
        assert_eq!(start["status"], "playing");
        assert_eq!(start["seats"][1]["bot"], true);
        assert_eq!(start["seats"][2]["name"], spec.unwrap_or("random"));
        let mut game = local_game(&cfg);
        loop {
            if game.to_move() == Some(0) {
                let cell = pick(&game);
                a.send(json!({"type":"move","row":cell.row,"col":cell.col}))
                    .await;
            }
            let m = a.expect("moved").await;
            game.select(m["row"].as_i64().unwrap(), m["col"].as_i64().unwrap())
                .unwrap();
            assert_eq!(m["to_move"], json!(game.to_move()));
            if m["status"] == "finished" {
                break;
            }
        }
        let end = a.expect("room").await;
        assert_eq!(end["result"]["kind"], "poisoned");
    }
}

#[tokio::test]
async fn a_bad_bot_spec_is_a_bad_request_listing_the_valid_forms() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    a.create("host", config_value("4x4 poison 0,0")).await;
    a.send(json!({"type":"add_bot","bot":"grandmaster"})).await;
    let e = a.expect_error("bad_request").await;
    assert!(e["message"].as_str().unwrap().contains("random"), "{e}");
}

#[tokio::test]
async fn a_spectator_may_take_a_free_seat() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a.create("a", config_value("4x4 poison 0,0")).await;
    let mut s = server.client().await;
    s.send(json!({"type":"spectate","room":room})).await;
    assert_eq!(s.expect("room").await["status"], "waiting");
    let (seat, _, snap) = s.join(&room, "s").await;
    assert_eq!(seat, 1);
    assert_eq!(snap["status"], "playing");
}

#[tokio::test]
async fn a_full_room_admits_nobody_even_in_a_race() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a
        .create("a", config_value("4x4 poison 0,0 players 4"))
        .await;
    let mut clients = Vec::new();
    for _ in 0..12 {
        clients.push(server.client().await);
    }
    let attempts = clients.iter_mut().enumerate().map(|(i, c)| {
        let room = room.clone();
        async move {
            c.send(json!({"type":"join_room","room":room,"name":format!("c{i}")}))
                .await;
            c.recv().await
        }
    });
    let answers = futures_util::future::join_all(attempts).await;
    let joined: Vec<_> = answers.iter().filter(|v| v["type"] == "joined").collect();
    let full = answers
        .iter()
        .filter(|v| v["type"] == "error" && v["code"] == "room_full")
        .count();
    assert_eq!((joined.len(), full), (3, 9), "{answers:?}");
    let mut seats: Vec<u64> = joined.iter().map(|v| v["seat"].as_u64().unwrap()).collect();
    seats.sort();
    assert_eq!(seats, [1, 2, 3]);
}
