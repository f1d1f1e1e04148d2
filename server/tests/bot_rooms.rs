//! Games between server bots alone (`create_room` with `bots`), through the real server: the
//! game starts at once, is listed and watched like any room, plays on after its creator leaves,
//! is stored, and with seeded bots plays the same moves again; and the refusals on the way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value};
use jchomp_server::Settings;
use serde_json::{Value, json};

/// Creates a room of `bots` on `cfg` through `c`; returns its first snapshot.
async fn create(c: &mut Client, cfg: &Value, bots: &[&str]) -> Value {
    c.send(json!({"type":"create_room","name":"host","config":cfg,"bots":bots}))
        .await;
    c.expect("room").await
}

/// Reads `c`'s messages until the game is over: the moves (seat, row, col) it was sent as
/// `moved`, and those of the final snapshot.
async fn watch_to_the_end(c: &mut Client) -> (Vec<(u64, u64, u64)>, Vec<(u64, u64, u64)>) {
    let triple = |v: &Value| {
        (
            v["seat"].as_u64().unwrap(),
            v["row"].as_u64().unwrap(),
            v["col"].as_u64().unwrap(),
        )
    };
    let mut moved = Vec::new();
    loop {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("moved") => moved.push(triple(&v)),
            Some("room") if v["status"] == "finished" => {
                let all = v["moves"].as_array().unwrap().iter().map(triple).collect();
                return (moved, all);
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_game_of_seeded_bots_plays_to_its_end_watched_and_plays_the_same_again() {
    let server = TestServer::start().await;
    let cfg = config_value("6x7 poison 0,0 players 3");
    let bots = ["level:2,seed=11", "greedy,seed=12", "random,seed=13"];
    let mut host = server.client().await;
    let snap = create(&mut host, &cfg, &bots).await;
    let room = snap["room"].as_str().unwrap().to_string();
    assert_eq!(snap["status"], "playing", "{snap}");
    let names: Vec<&str> = snap["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert_eq!(s["bot"], true, "{s}");
            s["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(names, bots);

    // Anyone finds it in the list and watches it; its creator may go, and it plays on.
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"list_rooms"})).await;
    let rooms = watcher.expect("rooms").await;
    assert!(
        rooms["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["room"] == room.as_str()),
        "{rooms}"
    );
    watcher.send(json!({"type":"spectate","room":room})).await;
    host.send(json!({"type":"leave"})).await;
    let (moved, moves) = watch_to_the_end(&mut watcher).await;
    assert!(!moved.is_empty());
    assert!(moves.ends_with(&moved), "{moved:?} {moves:?}");

    // Stored like any game.
    watcher.send(json!({"type":"get_game","game":room})).await;
    let record = watcher.expect("game").await["record"].clone();
    assert_eq!(record["moves"].as_array().unwrap().len(), moves.len());
    assert_eq!(
        record["bots"],
        json!([0, 1, 2]),
        "every seat is marked a bot"
    );

    // The same seeds play the same game.
    let mut again = server.client().await;
    create(&mut again, &cfg, &bots).await;
    let (_, replayed) = watch_to_the_end(&mut again).await;
    assert_eq!(replayed, moves);
}

#[tokio::test]
async fn rooms_of_bots_are_refused_in_words_and_counted() {
    let server = TestServer::start_with(Settings {
        max_bot_games: 1,
        ..common::settings()
    })
    .await;
    let cfg = config_value("5x5 poison 0,0");
    let mut c = server.client().await;
    c.send(json!({"type":"create_room","name":"a","config":cfg,"bots":["random"]}))
        .await;
    let e = c.expect_error("invalid_config").await;
    assert_eq!(
        e["message"],
        "bots must name one bot per seat: 2 for this game, got 1"
    );
    c.send(json!({"type":"create_room","name":"a","config":cfg,"bots":["random","grandmaster"]}))
        .await;
    let e = c.expect_error("bad_request").await;
    assert!(
        e["message"].as_str().unwrap().contains("grandmaster"),
        "{e}"
    );
    c.send(json!({"type":"create_room","name":"a","config":cfg,"bots":["random","random,seed=x"]}))
        .await;
    c.expect_error("bad_request").await;
    // One game of bots at a time here: a second waits for the first to end.
    let slow = ["search:time=2s", "search:time=2s"];
    let first = create(&mut c, &cfg, &slow).await;
    assert_eq!(first["status"], "playing");
    let mut d = server.client().await;
    d.send(json!({"type":"create_room","name":"d","config":cfg,"bots":["random","random"]}))
        .await;
    let e = d.expect_error("server_full").await;
    assert_eq!(
        e["message"],
        "the server plays its maximum of 1 games between bots; try again later"
    );
    // A room with people in it is not a game of bots.
    d.create("d", cfg.clone()).await;
}
