//! Abuse through server bots: a host who asks for a bot with an enormous thinking budget in a
//! room without a move timer must not hold a bot thread for longer than the server's bot
//! thinking cap, so bots in other rooms keep moving.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TestServer, config_value, settings};
use jchomp_server::Settings;
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_with_a_huge_budget_does_not_starve_other_rooms() {
    let server = TestServer::start_with(Settings {
        bot_threads: 1,
        bot_think_cap: Duration::from_millis(500),
        ..settings()
    })
    .await;
    // The attacker: a big board, a bot told to search 120 plies deep, no move timer.
    let mut attacker = server.client().await;
    attacker
        .create("x", config_value("15x15 poison 0,0 poison 14,14"))
        .await;
    attacker
        .send(json!({"type":"add_bot","bot":"search:depth=120"}))
        .await;
    attacker.until("room").await;
    attacker.send(json!({"type":"move","row":7,"col":7})).await;
    attacker.expect("moved").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A player in another room, against a random bot, waiting for the only bot thread.
    let mut player = server.client().await;
    player.create("p", config_value("4x4 poison 0,0")).await;
    player.send(json!({"type":"add_bot","bot":"random"})).await;
    player.until("room").await;
    player.send(json!({"type":"move","row":3,"col":3})).await;
    player.expect("moved").await;
    let m = tokio::time::timeout(Duration::from_secs(3), player.expect("moved"))
        .await
        .expect("the other room's bot moves once the greedy bot's time is capped");
    assert_eq!(m["seat"], 1);
    // The capped bot moved too (its best move so far).
    let m = tokio::time::timeout(Duration::from_secs(3), attacker.expect("moved"))
        .await
        .expect("the capped bot moves");
    assert_eq!(m["seat"], 1);
}
