//! Three nodes sharing a real Redis (`--cluster`) act as one server: players connected to
//! different nodes play one room to the end while a spectator on the third watches; every node
//! lists the same rooms; a seat token obtained on one node resumes the seat on another; and the
//! cross-node messages are counted in `/metrics`; a node that shuts down hands its games in play
//! to the others; a room is joinable from any node as soon as its creator has its id.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CLASSIC_BOX, TestServer, config_value, play_out, temp_dir};
use jchomp_server::Settings;
use jchomp_testkit::engines::Redis;
use serde_json::{Value, json};
use std::time::Duration;

/// A node of the cluster on `redis`.
async fn node(redis: &Redis) -> TestServer {
    TestServer::start_with(Settings {
        data_dir: temp_dir(),
        classic_box: CLASSIC_BOX,
        cluster: Some(redis.url()),
        ..Settings::default()
    })
    .await
}

/// The room list a node answers.
async fn rooms(server: &TestServer) -> Value {
    let mut c = server.client().await;
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await["rooms"].take()
}

/// Waits until every node lists the same rooms, `n` of them, and returns the list.
async fn agreed(nodes: &[&TestServer], n: usize) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mut lists = Vec::new();
        for s in nodes {
            lists.push(rooms(s).await);
        }
        if lists
            .iter()
            .all(|l| *l == lists[0] && l.as_array().unwrap().len() == n)
        {
            return lists.swap_remove(0);
        }
        assert!(tokio::time::Instant::now() < deadline, "{lists:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_act_as_one_server() {
    let redis = Redis::start();
    let (n1, n2, n3) = (node(&redis).await, node(&redis).await, node(&redis).await);
    let (_, health) = n2.http_get("/healthz").await;
    assert!(health.starts_with("ok\nredis: reachable"), "{health}");

    // Alice on node 1 creates a room; Bob joins it from node 2; Carol watches from node 3.
    let cfg = config_value("4x5 poison 0,0");
    let mut alice = n1.client().await;
    let (room, _) = alice.create("alice", cfg.clone()).await;
    let listed = agreed(&[&n1, &n2, &n3], 1).await;
    assert_eq!(listed[0]["room"], room.as_str());
    let mut bob = n2.client().await;
    let (seat, _, snap) = bob.join(&room, "bob").await;
    assert_eq!((seat, &snap["status"]), (1, &json!("playing")));
    assert_eq!(alice.expect("room").await, snap);
    let mut carol = n3.client().await;
    carol.send(json!({"type":"spectate","room":room})).await;
    assert_eq!(carol.expect("room").await, snap);
    let version = snap["version"].as_u64().unwrap();
    let end = play_out(&mut [alice, bob], &cfg, version).await;
    // The spectator saw every move and the end.
    let moves = end["moves"].as_array().unwrap().len();
    for _ in 0..moves {
        carol.expect("moved").await;
    }
    assert_eq!(carol.expect("room").await, end);
    let listed = agreed(&[&n1, &n2, &n3], 1).await;
    assert_eq!(listed[0]["status"], "finished");

    // A token obtained on node 1 resumes its seat on node 3, and the game goes on.
    let mut dave = n1.client().await;
    let (room2, dave_token) = dave.create("dave", config_value("4x4 poison 0,0")).await;
    let mut erin = n1.client().await;
    erin.join(&room2, "erin").await;
    dave.expect("room").await;
    agreed(&[&n1, &n2, &n3], 2).await;
    let mut dave_again = n3.client().await;
    dave_again
        .send(json!({"type":"resume","token":dave_token}))
        .await;
    let joined = dave_again.expect("joined").await;
    assert_eq!(
        (&joined["room"], &joined["seat"]),
        (&json!(room2), &json!(0))
    );
    dave_again.expect("room").await;
    // The old connection is told and closed, as on one node.
    dave.expect_error("forbidden").await;
    dave_again
        .send(json!({"type":"move","row":3,"col":3}))
        .await;
    let moved = dave_again.until("moved").await;
    assert_eq!(erin.until("moved").await, moved);

    // Nodes count what crossed between them.
    assert!(n2.metric("jchomp_cluster_messages_sent_total").await > 0);
    assert!(n1.metric("jchomp_cluster_messages_received_total").await > 0);
    for n in [n1, n2, n3] {
        n.shut_down().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_is_joinable_from_another_node_as_soon_as_its_creator_has_its_id() {
    let redis = Redis::start();
    let (n1, n2) = (node(&redis).await, node(&redis).await);
    let cfg = config_value("4x5 poison 0,0");
    // Each room is joined from the other node the moment its id arrives: no waiting, no
    // asking again (a creator told before the directory had the room made half of these fail).
    for i in 0..20 {
        let mut alice = n1.client().await;
        let (room, _) = alice.create("alice", cfg.clone()).await;
        let mut bob = n2.client().await;
        bob.send(json!({"type":"join_room","room":room,"name":"bob"}))
            .await;
        let joined = bob.expect("joined").await;
        assert_eq!(joined["seat"], 1, "room {i}");
    }
    // A seat asked for is given across nodes too.
    let mut alice = n1.client().await;
    let (room, _) = alice
        .create("alice", config_value("4x5 poison 0,0 players 3"))
        .await;
    let mut carol = n2.client().await;
    carol
        .send(json!({"type":"join_room","room":room,"name":"carol","seat":2}))
        .await;
    assert_eq!(carol.expect("joined").await["seat"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_without_redis_does_not_start() {
    let port = jchomp_testkit::engines::free_port();
    let settings = Settings {
        cluster: Some(format!("redis://:secret@127.0.0.1:{port}/")),
        ..common::settings()
    };
    let dir = settings.data_dir.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = jchomp_server::run(listener, settings, std::future::pending())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot join the cluster"), "{err}");
    assert!(!err.contains("secret"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_shut_down_hands_its_games_in_play_to_the_others() {
    let redis = Redis::start();
    let (n1, n2) = (node(&redis).await, node(&redis).await);
    let cfg = config_value("4x5 poison 0,0");
    let mut alice = n1.client().await;
    let (room, alice_token) = alice.create("alice", cfg.clone()).await;
    agreed(&[&n1, &n2], 1).await;
    let mut bob = n2.client().await;
    bob.join(&room, "bob").await;
    alice.expect("room").await;

    // Node 1 stops gracefully: its game in play stays in the cluster and node 2 takes it
    // over; Bob, on node 2, gets a snapshot from it without doing anything.
    n1.shut_down().await.unwrap();
    let snap = bob.until("room").await;
    assert_eq!(snap["status"], "playing", "{snap}");
    assert_eq!(snap["seats"][0]["connected"], false, "{snap}");
    let mut alice = n2.client().await;
    alice
        .send(json!({"type":"resume","token":alice_token}))
        .await;
    alice.expect("joined").await;
    let snap = alice.expect("room").await;
    // Bob sees the same room; a snapshot from before Alice's return (his own seat taken back
    // on node 2, racing with her resume) may come first.
    let version = snap["version"].as_u64().unwrap();
    let mut seen = bob.until("room").await;
    while seen["version"].as_u64().unwrap() < version {
        seen = bob.until("room").await;
    }
    assert_eq!(seen, snap);
    let end = play_out(&mut [alice, bob], &cfg, version).await;
    assert_eq!(end["room"], room.as_str());
    n2.shut_down().await.unwrap();
}
