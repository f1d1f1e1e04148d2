//! The configuration options through the real server over WebSocket: each option's config
//! written back as given, its refusals (`not_a_break`, `square_bite`) in the order of the
//! checks, and whole games played to the result the rules give (`won` in normal play).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TestServer, config_value, full_room, pick_last, play_out_with};
use serde_json::json;

fn mv(row: i64, col: i64) -> serde_json::Value {
    json!({"type":"move","row":row,"col":col})
}

#[tokio::test]
async fn edge_breaks_refuse_cells_off_the_cross_then_play_to_the_poison() {
    let server = TestServer::start().await;
    let cfg = config_value("3x5 variant breaks poison 1,2");
    assert_eq!(cfg["variant"], "breaks");
    let (_, mut clients, version) = full_room(&server, &cfg).await;
    // Out of range first, then not a break.
    clients[0].send(mv(3, 2)).await;
    clients[0].expect_rejected("out_of_range").await;
    clients[0].send(mv(0, 0)).await;
    let r = clients[0].expect_rejected("not_a_break").await;
    assert!(
        r["message"].as_str().unwrap().contains("names no break"),
        "{r}"
    );
    let end = play_out_with(&mut clients, &cfg, version, pick_last).await;
    assert_eq!(end["config"]["variant"], "breaks");
    assert_eq!(end["result"]["kind"], "poisoned");
}

#[tokio::test]
async fn square_bites_are_refused_after_already_eaten() {
    let server = TestServer::start().await;
    let cfg = config_value("3x5 variant classic poison 0,0 no_square_bites");
    assert_eq!(cfg["no_square_bites"], true);
    let (_, mut clients, _) = full_room(&server, &cfg).await;
    // The corner cell alone, and the 2×2 in the corner, are squares.
    clients[0].send(mv(2, 4)).await;
    clients[0].expect_rejected("square_bite").await;
    clients[0].send(mv(1, 3)).await;
    let r = clients[0].expect_rejected("square_bite").await;
    assert_eq!(
        r["message"],
        "the selection at (1,3) would bite a perfect square, which is banned"
    );
    // A 2×3 bite is allowed; then its cells are already eaten, which is checked first.
    clients[0].send(mv(1, 2)).await;
    for c in clients.iter_mut() {
        c.expect("moved").await;
    }
    clients[1].send(mv(2, 4)).await;
    clients[1].expect_rejected("already_eaten").await;
    // A whole game under the ban, played to the result the local rules give.
    let (_, mut clients, version) = full_room(&server, &cfg).await;
    let end = play_out_with(&mut clients, &cfg, version, pick_last).await;
    assert_eq!(end["config"]["no_square_bites"], true);
}

#[tokio::test]
async fn normal_play_ends_with_a_winner() {
    let server = TestServer::start().await;
    let cfg = config_value("3x5 variant classic poison 0,0 play normal players 3");
    assert_eq!(cfg["play"], "normal");
    let (_, mut clients, _) = full_room(&server, &cfg).await;
    // Trivial by the rule as stated: seat 0 eats the marked corner, and the whole bar, at once.
    clients[0].send(mv(0, 0)).await;
    for c in clients.iter_mut() {
        let m = c.expect("moved").await;
        assert_eq!(m["status"], "finished");
    }
    for c in clients.iter_mut() {
        let snap = c.expect("room").await;
        assert_eq!(snap["result"], json!({"kind":"won","winner":0}));
        assert_eq!(snap["config"]["play"], "normal");
    }
}
