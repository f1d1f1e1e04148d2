//! Quick pairing across the nodes of a cluster on a real Redis: two people waiting on different
//! nodes are seated in one room and play; many waiters over two nodes are each seated exactly
//! once; a waiter whose node stopped, or whose node's lease is gone, is seated with nobody.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_server::Settings;
use jchomp_testkit::engines::Redis;
use jchomp_testkit::server::{Client, TestServer, settings};
use redis::AsyncCommands;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// A node of the cluster on `redis` that pairs every 100 ms and seats bots after 1 s.
async fn node(redis: &Redis) -> TestServer {
    TestServer::start_with(Settings {
        cluster: Some(redis.url()),
        pairing_wave: Duration::from_millis(100),
        pairing_bot_patience: Duration::from_secs(1),
        ..settings()
    })
    .await
}

/// Sends a `seek` and reads its `seeking`.
async fn seek(c: &mut Client, preset: &str, name: &str, bots: bool) -> Value {
    c.send(json!({"type":"seek","preset":preset,"name":name,"bots":bots}))
        .await;
    c.expect("seeking").await
}

/// Reads a paired connection's `paired`, `joined` and the first snapshot that shows its seat
/// held by it, in a game in play.
async fn paired(c: &mut Client) -> (Value, Value, Value) {
    let paired = c.recv_within(Duration::from_secs(10)).await;
    assert_eq!(paired["type"], "paired", "{paired}");
    let joined = c.expect("joined").await;
    assert_eq!(joined["room"], paired["room"]);
    let seat = joined["seat"].as_u64().unwrap() as usize;
    loop {
        let room = c.until("room").await;
        assert_eq!(room["status"], "playing", "{room}");
        if room["seats"][seat]["connected"] == true {
            return (paired, joined, room);
        }
    }
}

/// How many wait in `preset`'s pool, as a node lists it.
async fn waiting(node: &TestServer, preset: &str) -> u64 {
    let mut c = node.client().await;
    c.send(json!({"type":"list_presets"})).await;
    let presets = c.expect("presets").await;
    presets["presets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == preset)
        .unwrap()["waiting"]
        .as_u64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_waiting_on_different_nodes_are_seated_together_and_play() {
    let redis = Redis::start();
    let (n1, n2) = (node(&redis).await, node(&redis).await);
    let mut ann = n1.client().await;
    let mut bob = n2.client().await;
    assert_eq!(seek(&mut ann, "duel", "ann", false).await["waiting"], 1);
    // Every node sees every node's waiters.
    assert_eq!(waiting(&n2, "duel").await, 1);
    assert_eq!(seek(&mut bob, "duel", "bob", false).await["waiting"], 2);

    let (pa, ja, _) = paired(&mut ann).await;
    let (pb, jb, room) = paired(&mut bob).await;
    assert_eq!(pa["room"], pb["room"]);
    assert_eq!(
        (&pa["preset"], &pb["preset"]),
        (&json!("duel"), &json!("duel"))
    );
    assert_ne!(ja["seat"], jb["seat"]);
    let mut names: Vec<&str> = room["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["ann", "bob"], "{room}");

    // The seat to move plays; both see the move, whichever node runs the room.
    let first = room["to_move"].clone();
    let mover = if ja["seat"] == first {
        &mut ann
    } else {
        &mut bob
    };
    mover.send(json!({"type":"move","row":6,"col":5})).await;
    assert_eq!(ann.until("moved").await["seat"], first);
    assert_eq!(bob.until("moved").await["seat"], first);
    let rooms = n1.metric("jchomp_pairing_rooms_total").await
        + n2.metric("jchomp_pairing_rooms_total").await;
    assert_eq!(rooms, 1, "one node made the room");
    assert_eq!(waiting(&n1, "duel").await, 0);
    for n in [n1, n2] {
        n.shut_down().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_waiters_over_two_nodes_are_each_seated_exactly_once() {
    let redis = Redis::start();
    let nodes = [node(&redis).await, node(&redis).await];
    // 8 for duels, 2 for a three-seat game and 2 for a four-seat game with bots: half on each
    // node.
    let mut asks: Vec<(&str, bool)> = vec![("duel", false); 8];
    asks.extend([
        ("three", true),
        ("three", true),
        ("four", true),
        ("four", true),
    ]);
    let mut clients = Vec::new();
    for (i, (preset, bots)) in asks.iter().enumerate() {
        let mut c = nodes[i % 2].client().await;
        seek(&mut c, preset, &format!("p{i}"), *bots).await;
        clients.push(c);
    }
    let mut seats: HashMap<String, Vec<(usize, u64)>> = HashMap::new();
    let mut snapshots: HashMap<String, Value> = HashMap::new();
    for (i, c) in clients.iter_mut().enumerate() {
        let (p, joined, room) = paired(c).await;
        assert_eq!(p["preset"], asks[i].0);
        let seat = joined["seat"].as_u64().unwrap();
        assert_eq!(room["seats"][seat as usize]["name"], format!("p{i}"));
        let id = p["room"].as_str().unwrap().to_string();
        seats.entry(id.clone()).or_default().push((i, seat));
        snapshots.insert(id, room);
    }
    // Four duels, and the games with bots (one each, or two if one waiter ran out of patience
    // a wave before the other); every person in one seat of one of them.
    let duels = seats.values().filter(|held| held[0].0 < 8).count();
    assert_eq!(duels, 4, "{seats:?}");
    assert!((6..=8).contains(&seats.len()), "{seats:?}");
    for (id, held) in &seats {
        let room = &snapshots[id];
        let people: Vec<&Value> = room["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["bot"] != true)
            .collect();
        assert_eq!(people.len(), held.len(), "{room}");
        let distinct: HashSet<u64> = held.iter().map(|(_, s)| *s).collect();
        assert_eq!(distinct.len(), held.len(), "two people in one seat: {room}");
    }
    // No other room was made: nobody is seated twice.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut rooms = 0;
    for n in &nodes {
        rooms += n.metric("jchomp_pairing_rooms_total").await;
        assert_eq!(n.metric("jchomp_pairing_waiting").await, 0);
    }
    assert_eq!(rooms, seats.len() as u64);
    for n in nodes {
        n.shut_down().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiter_whose_node_is_gone_is_seated_with_nobody() {
    let redis = Redis::start();
    let (n1, n2) = (node(&redis).await, node(&redis).await);
    let mut ann = n2.client().await;
    seek(&mut ann, "duel", "ann", false).await;
    assert_eq!(waiting(&n1, "duel").await, 1);
    n2.shut_down().await.unwrap();

    // A waiter left behind by a node whose lease is gone (it died without a word).
    let client = redis::Client::open(redis.url()).unwrap();
    let mut r = client.get_multiplexed_async_connection().await.unwrap();
    let ghost = json!({"rating":1500.0,"since_ms":0,"bots":false,"account":false,"name":"ghost"});
    let _: i64 = r
        .hset("jchomp:pool:duel", "deadbeef0000/7", ghost.to_string())
        .await
        .unwrap();

    let mut bob = n1.client().await;
    seek(&mut bob, "duel", "bob", false).await;
    bob.expect_silence(Duration::from_millis(1_500)).await;
    assert_eq!(n1.metric("jchomp_pairing_rooms_total").await, 0);
    // The ghost leaves the pool (once the node that pairs has heard Redis for a lease).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let left: Vec<String> = r.hkeys("jchomp:pool:duel").await.unwrap();
        if left.len() == 1 && !left[0].starts_with("deadbeef0000/") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{left:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(waiting(&n1, "duel").await, 1, "only bob waits");
    bob.send(json!({"type":"cancel_seek"})).await;
    assert_eq!(bob.expect("seek_ended").await["preset"], "duel");
    assert_eq!(waiting(&n1, "duel").await, 0);
    n1.shut_down().await.unwrap();
}
