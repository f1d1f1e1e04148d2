//! Abuse through the game store: with a hundred stored games, ten connections ask for the
//! longest game list over and over (well inside the rate limit) while a game is played next to
//! them; the game's moves and newcomers must stay prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse_support;
mod common;

use abuse_support::{Bystanders, Raw, encode, ending_of, still_serving};
use common::{TestServer, config_value};
use serde_json::json;
use tokio::io::AsyncWriteExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn floods_of_game_list_requests_do_not_slow_the_game() {
    let server = TestServer::start().await;
    // A hundred one-move games (a 3×3 bite leaves no room for another: a tie), against a bot.
    let mut host = server.client().await;
    for _ in 0..100 {
        host.create("host", config_value("4x4 eat 3x3 poison 3,3"))
            .await;
        host.send(json!({"type":"add_bot"})).await;
        host.until("room").await;
        host.send(json!({"type":"move","row":0,"col":0})).await;
        host.until("room").await;
    }
    host.send(json!({"type":"list_games","limit":100})).await;
    let games = host.until("games").await;
    assert_eq!(games["games"].as_array().unwrap().len(), 100);

    let mut game = Bystanders::start(&server).await;
    let mut flooders = Vec::new();
    for _ in 0..10 {
        let raw = Raw::upgrade(server.addr, "/ws").await;
        let (mut rd, mut wr) = raw.stream.into_split();
        flooders.push(tokio::spawn(async move {
            let frame = encode(true, 0x1, br#"{"type":"list_games","limit":100}"#, true);
            let chunk = frame.repeat(100);
            tokio::spawn(async move {
                for _ in 0..10 {
                    if wr.write_all(&chunk).await.is_err() {
                        break;
                    }
                }
            });
            ending_of(&mut rd).await
        }));
    }
    for _ in 0..10 {
        game.play().await;
    }
    still_serving(&server).await;
    for f in flooders {
        f.abort();
    }
}
