//! Crash safety of the real binary: many games are played at full speed, the server is killed
//! with SIGKILL in the middle of it (twice over, on the same data directory), and after
//! every restart the database opens cleanly and every game whose end a player had seen before
//! the kill is there and replays.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, config_value, local_game, pick};
use jchomp_protocol::record::Record;
use serde_json::json;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// The server process; killed (SIGKILL) when dropped, so that a failing test leaves none behind.
struct Server(Child);

impl Server {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts the real binary on a free port with `args`; returns the process and its address.
fn spawn_server(dir: &Path, args: &[&str]) -> (Server, SocketAddr) {
    let (child, addr) = common::spawn_binary(dir, args, "error");
    (Server(child), addr)
}

/// Two clients playing game after game until the server dies; pushes the id of every game
/// whose final snapshot reached both players.
async fn play_games(addr: SocketAddr, finished: Arc<Mutex<Vec<String>>>, seen: Arc<Notify>) {
    let cfg = config_value("4x5 poison 0,0");
    let mut a = Client::connect(addr).await;
    let mut b = Client::connect(addr).await;
    loop {
        let (room, _) = a.create("alice", cfg.clone()).await;
        b.join(&room, "bob").await;
        a.expect("room").await;
        let mut game = local_game(&cfg);
        while let Some(seat) = game.to_move() {
            let cell = pick(&game);
            let mover = if seat == 0 { &mut a } else { &mut b };
            mover
                .send(json!({"type":"move","row":cell.row,"col":cell.col}))
                .await;
            game.select(cell.row.into(), cell.col.into()).unwrap();
            a.expect("moved").await;
            b.expect("moved").await;
        }
        a.expect("room").await;
        b.expect("room").await;
        finished.lock().unwrap().push(room);
        seen.notify_one();
        // Both leave (skipping the snapshots the other's leaving causes) before the next game.
        for c in [&mut a, &mut b] {
            c.send(json!({"type":"leave"})).await;
            c.until("left").await;
        }
    }
}

/// Fetches one record; `None` if the server does not have it.
async fn fetch(c: &mut Client, id: &str) -> Option<Record> {
    c.send(json!({"type":"get_game","game":id})).await;
    let v = c.recv().await;
    if v["type"] == "error" {
        assert_eq!(v["code"], "no_such_game", "{v}");
        return None;
    }
    assert_eq!(v["type"], "game", "{v}");
    Some(serde_json::from_value(v["record"].clone()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_finished_game_survives_sigkill_during_heavy_play() {
    finished_games_survive_sigkill(&[]).await;
}

/// Periodic durability acknowledges once the operating system has a write; with no sync due
/// for a minute, only the page cache holds the newest games at the kill, and a crash of the
/// process alone must lose none of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn periodic_durability_loses_nothing_to_sigkill() {
    finished_games_survive_sigkill(&["--durability", "periodic", "--sync-every-ms", "60000"]).await;
}

/// Two rounds of heavy play with a server started with `args`, each ended by SIGKILL; after
/// each restart every game seen finished is there and replays.
async fn finished_games_survive_sigkill(args: &[&str]) {
    let dir = common::temp_dir();
    let mut before_kill: Vec<String> = Vec::new();
    for round in 0..2 {
        let (mut child, addr) = spawn_server(&dir, args);
        let finished = Arc::new(Mutex::new(Vec::new()));
        let notify = Arc::new(Notify::new());
        let players: Vec<_> = (0..8)
            .map(|_| tokio::spawn(play_games(addr, finished.clone(), notify.clone())))
            .collect();
        // Kill the moment the 30th game is seen finished, so that the last games seen are as
        // fresh as they can be, while the other players are in the middle of theirs.
        let seen = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                notify.notified().await;
                let seen = finished.lock().unwrap();
                if seen.len() >= 30 {
                    break seen.clone();
                }
            }
        })
        .await
        .expect("30 games within 20 s");
        child.kill(); // SIGKILL: no shutdown code runs
        for p in players {
            // The players fail once the server is gone.
            let _ = p.await;
        }
        assert!(seen.len() >= 10, "round {round}: only {} games", seen.len());
        before_kill.extend(seen);

        // The database opens cleanly and holds every game seen finished, in every round so far.
        let (mut child, addr) = spawn_server(&dir, args);
        let mut c = Client::connect(addr).await;
        let mut missing = Vec::new();
        for id in &before_kill {
            match fetch(&mut c, id).await {
                Some(record) => {
                    assert_eq!(record.id.as_deref(), Some(id.as_str()));
                    assert!(record.result.is_some(), "{id}");
                    record.replay().unwrap();
                }
                None => missing.push(id.clone()),
            }
        }
        assert!(
            missing.is_empty(),
            "round {round}: {} of {} finished games lost: {missing:?}",
            missing.len(),
            before_kill.len()
        );
        c.send(json!({"type":"list_games","limit":100})).await;
        let listed = c.expect("games").await;
        // Games that ended between the last look and the kill may be there too.
        assert!(listed["games"].as_array().unwrap().len() >= before_kill.len().min(100));
        child.kill();
    }
    std::fs::remove_dir_all(dir).unwrap();
}
