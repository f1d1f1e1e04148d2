//! Rated games and SIGKILL: pairs of accounts play rated games at full speed, the real binary is
//! killed in the middle, and after the restart every stored rated game is in both players'
//! ratings exactly once — none lost, none counted twice — and every game seen finished is
//! stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, logged_in, rated_config_value};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;

/// The server process; killed (SIGKILL) when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The rated 4×4 room the pairs play in.
fn rated_config() -> Value {
    rated_config_value("4x4 poison 0,0")
}

/// `a` and `b` play rated games until the server dies; `a` eats the poison at once, so each
/// game is one move. Pushes the id of every game whose end both saw.
async fn play_rated(
    addr: SocketAddr,
    pair: usize,
    seen: Arc<Mutex<Vec<String>>>,
    notify: Arc<Notify>,
) {
    let mut a = logged_in(addr, &format!("loser{pair}"), true).await;
    let mut b = logged_in(addr, &format!("winner{pair}"), true).await;
    loop {
        let (room, _) = a.create("a", rated_config()).await;
        b.join(&room, "b").await;
        a.expect("room").await;
        a.send(json!({"type":"move","row":0,"col":0})).await;
        let moved = a.expect("moved").await;
        b.expect("moved").await;
        seen.lock()
            .unwrap()
            .push(moved["room"].as_str().unwrap().to_string());
        notify.notify_one();
        for c in [&mut a, &mut b] {
            c.send(json!({"type":"leave"})).await;
            c.until("left").await;
        }
    }
}

/// `GET path` from the server at `addr`: the JSON body.
async fn get_json(addr: SocketAddr, path: &str) -> Value {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (_, body) = buf.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}

/// The ids of the rated games in `name`'s history.
async fn rated_ids(addr: SocketAddr, name: &str) -> (BTreeSet<String>, u64) {
    let p = get_json(addr, &format!("/api/players/{name}")).await;
    let r = &p["ratings"][0];
    let ids = r["history"]
        .as_array()
        .map(|h| {
            h.iter()
                .map(|p| p["game"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    let counted = r["wins"].as_u64().unwrap_or(0) + r["losses"].as_u64().unwrap_or(0);
    (ids, counted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_between_a_rated_games_end_and_its_rating_neither_loses_nor_doubles() {
    const PAIRS: usize = 4;
    let dir = common::temp_dir();
    let (child, addr) = common::spawn_binary(&dir, &[], "error");
    let server = Server(child);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let notify = Arc::new(Notify::new());
    let players: Vec<_> = (0..PAIRS)
        .map(|pair| tokio::spawn(play_rated(addr, pair, seen.clone(), notify.clone())))
        .collect();
    let seen = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            notify.notified().await;
            let seen = seen.lock().unwrap();
            if seen.len() >= 40 {
                break seen.clone();
            }
        }
    })
    .await
    .expect("40 rated games within 30 s");
    drop(server); // SIGKILL while the other pairs are mid-game
    for p in players {
        let _ = p.await;
    }

    let (child, addr) = common::spawn_binary(&dir, &[], "error");
    let _server = Server(child);
    let mut c = Client::connect(addr).await;
    c.send(json!({"type":"list_games","limit":1000})).await;
    let games = c.expect("games").await;
    let stored: BTreeSet<String> = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["game"].as_str().unwrap().to_string())
        .collect();
    for id in &seen {
        assert!(
            stored.iter().any(|s| s.starts_with(id.as_str())),
            "{id} lost"
        );
    }
    for pair in 0..PAIRS {
        let of_pair: BTreeSet<String> = games["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["seats"][0] == format!("loser{pair}"))
            .map(|g| g["game"].as_str().unwrap().to_string())
            .collect();
        for name in [format!("loser{pair}"), format!("winner{pair}")] {
            let (ids, counted) = rated_ids(addr, &name).await;
            assert_eq!(ids, of_pair, "{name}: rated games differ from stored games");
            assert_eq!(
                counted,
                of_pair.len() as u64,
                "{name}: counted twice or lost"
            );
        }
    }
    // The accounts survived too.
    logged_in(addr, "loser0", false).await;
    std::fs::remove_dir_all(dir).unwrap();
}
