//! Stored games: `list_games` and `get_game` through the protocol, records that replay, and
//! records surviving a graceful restart and a `kill -9` of the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value, settings, timed_config_value};
use jchomp_protocol::record::Record;
use serde_json::{Value, json};
use std::time::Duration;

/// Plays a one-move game (seat 0 eats the poison) and returns the room id.
async fn quick_game(a: &mut Client, b: &mut Client, addr_name: &str) -> String {
    let (room, _) = a.create(addr_name, config_value("4x4 poison 0,0")).await;
    b.join(&room, "bob").await;
    a.expect("room").await;
    a.send(json!({"type":"move","row":0,"col":0})).await;
    a.expect("moved").await;
    a.expect("room").await;
    b.expect("moved").await;
    b.expect("room").await;
    room
}

/// Polls `list_games` until it holds `game` (records are committed off the room's path).
async fn wait_listed(c: &mut Client, game: &str) -> Vec<Value> {
    for _ in 0..200 {
        c.send(json!({"type":"list_games"})).await;
        let games = c.expect("games").await["games"].as_array().unwrap().clone();
        if games.iter().any(|g| g["game"] == game) {
            return games;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {game} never listed");
}

#[tokio::test]
async fn finished_games_are_listed_newest_first_and_fetched_as_records() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let mut b = server.client().await;
    let first = quick_game(&mut a, &mut b, "alice").await;
    a.send(json!({"type":"leave"})).await;
    a.expect("left").await;
    b.send(json!({"type":"leave"})).await;
    b.until("left").await;
    let second = quick_game(&mut a, &mut b, "carol").await;
    let games = wait_listed(&mut a, &second).await;
    let ids: Vec<&str> = games.iter().map(|g| g["game"].as_str().unwrap()).collect();
    assert_eq!(ids, [second.as_str(), first.as_str()]);
    assert_eq!(games[0]["seats"], json!(["carol", "bob"]));
    assert_eq!(games[0]["result"], json!({"kind":"poisoned","loser":0}));
    assert_eq!(games[0]["moves"], 1);
    assert!(games[0]["finished_ms"].as_u64().unwrap() > 0);
    // A limit.
    a.send(json!({"type":"list_games","limit":1})).await;
    assert_eq!(
        a.expect("games").await["games"].as_array().unwrap().len(),
        1
    );
    // The record replays through the rules.
    a.send(json!({"type":"get_game","game":first})).await;
    let got = a.expect("game").await;
    let record: Record = serde_json::from_value(got["record"].clone()).unwrap();
    assert_eq!(record.id.as_deref(), Some(first.as_str()));
    assert_eq!(record.seats, ["alice", "bob"]);
    let game = record.replay().unwrap();
    assert_eq!(game.moves().len(), 1);
    assert!(record.started_ms.unwrap() <= record.finished_ms.unwrap());
    assert_eq!(server.metric("jchomp_games_stored_total").await, 2);
}

#[tokio::test]
async fn abandoned_and_timed_out_games_are_stored_too() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let cfg = timed_config_value("4x4 poison 0,0", 50);
    let (room, _) = a.create("a", cfg).await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    assert_eq!(
        a.expect("room").await["result"],
        json!({"kind":"timeout","loser":0})
    );
    wait_listed(&mut a, &room).await;
    a.send(json!({"type":"get_game","game":room})).await;
    let record: Record = serde_json::from_value(a.expect("game").await["record"].clone()).unwrap();
    assert_eq!(record.config.move_time_ms, Some(50));
    record.replay().unwrap();
}

#[tokio::test]
async fn records_survive_a_graceful_restart() {
    let s = settings();
    let dir = s.data_dir.clone();
    let server = TestServer::start_with(s).await;
    let mut a = server.client().await;
    let mut b = server.client().await;
    let room = quick_game(&mut a, &mut b, "alice").await;
    wait_listed(&mut a, &room).await;
    drop((a, b));
    server.stop().await.unwrap();

    let server = TestServer::start_with(jchomp_server::Settings {
        data_dir: dir,
        ..jchomp_server::Settings::default()
    })
    .await;
    let mut c = server.client().await;
    let games = wait_listed(&mut c, &room).await;
    assert_eq!(games.len(), 1);
    // A second server cannot open the same database while the first holds it.
    let clash = TestServer::start_with(jchomp_server::Settings {
        data_dir: server.data_dir.clone(),
        ..jchomp_server::Settings::default()
    })
    .await
    .stop()
    .await;
    assert!(
        matches!(clash, Err(jchomp_server::ServerError::Store { .. })),
        "{clash:?}"
    );
}

#[tokio::test]
async fn records_survive_kill_9() {
    let dir = common::temp_dir();
    let (mut child, addr) = common::spawn_binary(&dir, &[], "warn");
    let mut a = Client::connect(addr).await;
    let mut b = Client::connect(addr).await;
    let room = quick_game(&mut a, &mut b, "alice").await;
    // Listed means committed.
    wait_listed(&mut a, &room).await;
    child.kill().unwrap(); // SIGKILL: no shutdown code runs
    child.wait().unwrap();

    let (mut child, addr) = common::spawn_binary(&dir, &[], "warn");
    let mut c = Client::connect(addr).await;
    let games = wait_listed(&mut c, &room).await;
    assert_eq!(games[0]["seats"], json!(["alice", "bob"]));
    c.send(json!({"type":"get_game","game":room})).await;
    let record: Record = serde_json::from_value(c.expect("game").await["record"].clone()).unwrap();
    record.replay().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn a_corrupt_record_is_skipped_in_lists_and_internal_when_fetched() {
    use redb::{Database, TableDefinition};
    let s = settings();
    {
        // A record that is not JSON, written behind the server's back.
        let db = Database::create(s.data_dir.join(jchomp_server::DB_FILE)).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut games = txn
                .open_table(TableDefinition::<u64, &str>::new("games"))
                .unwrap();
            games.insert(0, "{not json").unwrap();
            let mut ids = txn
                .open_table(TableDefinition::<&str, u64>::new("game_ids"))
                .unwrap();
            ids.insert("bad", 0).unwrap();
        }
        txn.commit().unwrap();
    }
    let server = TestServer::start_with(s).await;
    let mut c = server.client().await;
    let mut b = server.client().await;
    let room = quick_game(&mut c, &mut b, "alice").await;
    // Listing skips the corrupt record; fetching it is an internal error.
    let games = wait_listed(&mut c, &room).await;
    assert_eq!(games.len(), 1);
    c.send(json!({"type":"get_game","game":"bad"})).await;
    c.expect_error("internal").await;
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await;
}
