//! Every `move_rejected` reason, and the order in which a move is checked: seated, playing,
//! turn, then the rules (out of range before already eaten).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value};
use serde_json::json;
use std::time::Duration;

/// A 2-player 5×5 room with eat 2×2, seats filled; returns (room, seat 0, seat 1).
async fn playing(server: &TestServer) -> (String, Client, Client) {
    let mut a = server.client().await;
    let (room, _) = a.create("a", config_value("5x5 eat 2x2 poison 4,4")).await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    (room, a, b)
}

fn mv(row: i64, col: i64) -> serde_json::Value {
    json!({"type":"move","row":row,"col":col})
}

#[tokio::test]
async fn every_reason_in_order() {
    let server = TestServer::start().await;
    // not_seated: no room at all.
    let mut lone = server.client().await;
    lone.send(mv(0, 0)).await;
    lone.expect_rejected("not_seated").await;

    // not_playing beats out_of_range while the room waits.
    let mut w = server.client().await;
    w.create("w", config_value("4x4 poison 0,0")).await;
    w.send(mv(99, 99)).await;
    let r = w.expect_rejected("not_playing").await;
    assert!(
        r["message"].as_str().unwrap().contains("not started"),
        "{r}"
    );

    let (room, mut a, mut b) = playing(&server).await;
    // not_your_turn beats out_of_range.
    b.send(mv(-1, 99)).await;
    let r = b.expect_rejected("not_your_turn").await;
    assert_eq!(r["message"], "seat 0 is to move; you hold seat 1");
    // out_of_range: negative, and reaching past the edge (a 2×2 at (4,0) on 5 rows).
    a.send(mv(-1, 0)).await;
    a.expect_rejected("out_of_range").await;
    a.send(mv(4, 0)).await;
    a.expect_rejected("out_of_range").await;
    // A legal move, then already_eaten for any overlap (not only the anchor).
    a.send(mv(0, 0)).await;
    a.expect("moved").await;
    b.expect("moved").await;
    b.send(mv(1, 1)).await;
    let r = b.expect_rejected("already_eaten").await;
    assert!(
        r["message"].as_str().unwrap().contains("already eaten"),
        "{r}"
    );
    // Both out of range and overlapping eaten cells: out_of_range comes first.
    b.send(mv(-1, 0)).await;
    b.expect_rejected("out_of_range").await;
    // A spectator: not_seated.
    let mut s = server.client().await;
    s.send(json!({"type":"spectate","room":room})).await;
    s.expect("room").await;
    s.send(mv(2, 2)).await;
    let r = s.expect_rejected("not_seated").await;
    assert_eq!(r["message"], "spectators cannot move");
    // Rejections change nothing and nobody else hears of them.
    a.expect_silence(Duration::from_millis(50)).await;
    b.send(json!({"type":"sync"})).await;
    let snap = b.expect("room").await;
    assert_eq!(snap["moves"], json!([{"seat":0,"row":0,"col":0}]));
    assert_eq!(snap["to_move"], 1);

    // not_playing once the game is over; a spectator still gets not_seated.
    b.send(mv(3, 3)).await; // eats poison (4,4)
    b.expect("moved").await;
    let end = b.expect("room").await;
    assert_eq!(end["result"], json!({"kind":"poisoned","loser":1}));
    a.until("room").await;
    a.send(mv(0, 2)).await;
    let r = a.expect_rejected("not_playing").await;
    assert_eq!(r["message"], "the game is over");
    s.until("room").await;
    s.send(mv(0, 2)).await;
    s.expect_rejected("not_seated").await;
    assert!(server.metric("jchomp_moves_rejected_total").await >= 10);
}
