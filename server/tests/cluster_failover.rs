//! Failover of a real cluster: three `jchomp-server` processes share a real Redis and a real
//! PostgreSQL; a three-seat room owned by the first (a player there, a player on the second,
//! a server bot, a spectator on the third) is played for a few moves, then its owner is
//! killed with SIGKILL. Another node takes the room over from Redis within the deadline:
//! nothing played is lost, the player of the second node and the spectator are re-routed to
//! the new owner without doing anything (a fresh snapshot arrives), the player of the dead
//! node reconnects to the third and resumes with its token, the bot plays again, the game
//! finishes, and its record is in PostgreSQL once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::node::Node;
use common::{Client, config_value, local_game, pick_last};
use jchomp_testkit::engines::{Postgres, Redis};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The rooms a node lists.
async fn listed(node: &Node) -> Vec<Value> {
    let mut c = node.client().await;
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await["rooms"].as_array().unwrap().clone()
}

/// Waits (up to `limit`) until `node` lists `room`; returns how long it took.
async fn until_listed(node: &Node, room: &str, limit: Duration) -> Duration {
    let started = Instant::now();
    loop {
        if listed(node).await.iter().any(|r| r["room"] == room) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < limit,
            "room {room} not listed within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A two-seat room of `cfg` that Alice creates on `first` and Bob joins from `second`: Alice,
/// her token, the room and Bob, the game begun.
async fn split_room(first: &Node, second: &Node, cfg: &Value) -> (Client, String, String, Client) {
    let mut alice = first.client().await;
    let (room, alice_token) = alice.create("alice", cfg.clone()).await;
    until_listed(second, &room, Duration::from_secs(5)).await;
    let mut bob = second.client().await;
    bob.join(&room, "bob").await;
    alice.expect("room").await;
    (alice, alice_token, room, bob)
}

/// Skips snapshots until one where every seat is connected.
async fn until_all_connected(c: &mut Client) -> Value {
    loop {
        let snap = c.until("room").await;
        let seats = snap["seats"].as_array().unwrap();
        if seats.iter().all(|s| s["connected"] == true) {
            return snap;
        }
    }
}

/// Plays `moves` moves (all of them when `None`): people pick the lowest rightmost safe
/// cell, the bot plays by itself; every client must see each `moved`, the same.
async fn play(
    people: &mut [(u64, &mut Client)],
    watchers: &mut [&mut Client],
    game: &mut jchomp_protocol::rules::Game,
    moves: Option<usize>,
) {
    let mut played = 0;
    while let Some(seat) = game.to_move() {
        if moves.is_some_and(|n| played == n) {
            return;
        }
        if let Some((_, mover)) = people.iter_mut().find(|(s, _)| *s == u64::from(seat)) {
            let cell = pick_last(game);
            mover
                .send(json!({"type":"move","row":cell.row,"col":cell.col}))
                .await;
        }
        let mut seen: Option<Value> = None;
        for c in people
            .iter_mut()
            .map(|(_, c)| &mut **c)
            .chain(watchers.iter_mut().map(|c| &mut **c))
        {
            let m = c.expect("moved").await;
            assert_eq!(m["seat"], seat, "{m}");
            if let Some(first) = &seen {
                assert_eq!(&m, first);
            }
            seen = Some(m);
        }
        let m = seen.unwrap();
        game.select(m["row"].as_i64().unwrap(), m["col"].as_i64().unwrap())
            .unwrap();
        played += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_owner_s_room_goes_on_on_another_node() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let mut n1 = Node::spawn(&redis, &pg);
    let n2 = Node::spawn(&redis, &pg);
    let n3 = Node::spawn(&redis, &pg);

    // Alice (node 1) creates the room, Bob (node 2) joins, Alice adds a bot; Carol watches
    // from node 3.
    let cfg = config_value("5x6 players 3 poison 0,0");
    let mut alice = n1.client().await;
    let (room, alice_token) = alice.create("alice", cfg.clone()).await;
    until_listed(&n2, &room, Duration::from_secs(5)).await;
    let mut bob = n2.client().await;
    let (bob_seat, _, _) = bob.join(&room, "bob").await;
    assert_eq!(bob_seat, 1);
    alice.expect("room").await;
    alice.send(json!({"type":"add_bot","bot":"random"})).await;
    let started = alice.expect("room").await;
    assert_eq!(started["status"], "playing", "{started}");
    assert_eq!(bob.expect("room").await, started);
    let mut carol = n3.client().await;
    carol.send(json!({"type":"spectate","room":room})).await;
    assert_eq!(carol.expect("room").await, started);

    // A few moves (the bot's among them), every one seen by everybody.
    let mut game = local_game(&cfg);
    play(
        &mut [(0, &mut alice), (1, &mut bob)],
        &mut [&mut carol],
        &mut game,
        Some(4),
    )
    .await;
    let before = game.moves().len();

    // The owner dies, its lease left to run out. Alice reconnects to node 3 at once and
    // resumes with her token: the answer comes once another node has taken the room over,
    // within 10 s of the lease running out.
    let lease = format!("jchomp:node:{}", n1.id().await);
    let ttl = redis.command(&["PTTL", &lease]).unwrap();
    n1.kill();
    drop(alice);
    let killed = Instant::now();
    let lease_left = Duration::from_millis(ttl.trim_start_matches(':').parse().unwrap());
    let mut alice = n3.client().await;
    alice
        .send(json!({"type":"resume","token":alice_token}))
        .await;
    let joined = alice.expect("joined").await;
    assert_eq!(
        (&joined["room"], &joined["seat"]),
        (&json!(room), &json!(0))
    );
    let resumed = killed.elapsed();
    let after_expiry = resumed.saturating_sub(lease_left);
    assert!(after_expiry < Duration::from_secs(10), "{resumed:?}");
    // Bob and Carol did nothing: their nodes re-routed them to the new owner, and a snapshot
    // came. Nothing played is lost; the game goes on with the bot in its seat.
    let mut snaps = Vec::new();
    for c in [&mut alice, &mut bob, &mut carol] {
        snaps.push(until_all_connected(c).await);
    }
    assert!(snaps.iter().all(|s| *s == snaps[0]), "{snaps:?}");
    let snap = &snaps[0];
    assert_eq!(snap["status"], "playing", "{snap}");
    assert_eq!(snap["moves"].as_array().unwrap().len(), before, "{snap}");
    assert_eq!(snap["seats"][2]["bot"], true);
    eprintln!(
        "failover: lease ran out {lease_left:?} after the kill; seat resumed {resumed:?} after the kill, {after_expiry:?} after the lease ran out"
    );

    play(
        &mut [(0, &mut alice), (1, &mut bob)],
        &mut [&mut carol],
        &mut game,
        None,
    )
    .await;
    let end = alice.expect("room").await;
    assert_eq!(end["status"], "finished");
    assert_eq!(bob.expect("room").await, end);
    assert_eq!(carol.expect("room").await, end);

    // The record is in PostgreSQL once, with every move, from any node.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut c = n2.client().await;
    loop {
        c.send(json!({"type":"list_games","limit":100})).await;
        let v = c.expect("games").await;
        let ids: Vec<&Value> = v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| &g["game"])
            .filter(|id| **id == room)
            .collect();
        assert!(ids.len() <= 1, "{v}");
        if ids.len() == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "no record yet: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut c = n3.client().await;
    c.send(json!({"type":"get_game","game":room})).await;
    let record = c.expect("game").await;
    assert_eq!(
        record["record"]["moves"].as_array().unwrap().len(),
        game.moves().len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_that_lost_its_room_stops_it_when_it_wakes() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let n1 = Node::spawn(&redis, &pg);
    let n2 = Node::spawn(&redis, &pg);
    let n3 = Node::spawn(&redis, &pg);
    let cfg = config_value("5x6 poison 0,0");
    let (mut alice, alice_token, room, mut bob) = split_room(&n1, &n2, &cfg).await;
    let mut game = local_game(&cfg);
    play(
        &mut [(0, &mut alice), (1, &mut bob)],
        &mut [],
        &mut game,
        Some(2),
    )
    .await;

    // Node 1 is paused (not killed) past its lease: another node takes the room over, and
    // Bob is re-routed there.
    n1.signal("STOP");
    let deadline = Instant::now() + Duration::from_secs(15);
    while n2.restored().await + n3.restored().await == 0 {
        assert!(Instant::now() < deadline, "no takeover");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let snap = bob.until_within("room", Duration::from_secs(15)).await;
    assert_eq!(snap["moves"].as_array().unwrap().len(), 2, "{snap}");
    assert_eq!(snap["seats"][0]["connected"], false, "{snap}");

    // Node 1 wakes and Alice, still connected to it, moves at once: her old node must not
    // play it (Redis refuses its writes, or it finds its lease gone first): no `moved`, and
    // her connection is closed with 1012.
    n1.signal("CONT");
    let cell = pick_last(&game);
    alice
        .send(json!({"type":"move","row":cell.row,"col":cell.col}))
        .await;
    let (texts, close) = alice.until_closed().await;
    assert!(texts.iter().all(|t| t["type"] != "moved"), "{texts:?}");
    assert_eq!(u16::from(close.unwrap().code), 1012);
    // The room stays the new owner's: listed, and Alice resumes it from node 3 at its
    // position, and the game finishes.
    until_listed(&n3, &room, Duration::from_secs(5)).await;
    let mut alice = n3.client().await;
    alice
        .send(json!({"type":"resume","token":alice_token}))
        .await;
    alice.expect("joined").await;
    let snap = alice.expect("room").await;
    assert_eq!(snap["moves"].as_array().unwrap().len(), 2, "{snap}");
    assert_eq!(bob.until("room").await, snap);
    play(
        &mut [(0, &mut alice), (1, &mut bob)],
        &mut [],
        &mut game,
        None,
    )
    .await;
    assert_eq!(alice.expect("room").await["status"], "finished");
    assert_eq!(bob.expect("room").await["status"], "finished");
}

/// A room with no game in play when its node dies (a finished game, a room still waiting) is
/// not taken over: the clients of other nodes in it are told it closed once the takeover has
/// buried it, rather than waiting on a node that will never answer; a request sent after
/// that fails the same way, and resuming its seat is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_without_a_game_in_play_close_with_their_node_for_everyone_in_them() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let mut n1 = Node::spawn(&redis, &pg);
    let n2 = Node::spawn(&redis, &pg);

    // On node 1: a finished game (Bob plays it from node 2), and a waiting room Carol
    // watches from node 2.
    let cfg = config_value("4x4 poison 0,0");
    let (mut alice, alice_token, room, mut bob) = split_room(&n1, &n2, &cfg).await;
    let mut game = local_game(&cfg);
    play(
        &mut [(0, &mut alice), (1, &mut bob)],
        &mut [],
        &mut game,
        None,
    )
    .await;
    assert_eq!(bob.expect("room").await["status"], "finished");
    let mut dan = n1.client().await;
    let (waiting, _) = dan.create("dan", cfg.clone()).await;
    until_listed(&n2, &waiting, Duration::from_secs(5)).await;
    let mut carol = n2.client().await;
    carol.send(json!({"type":"spectate","room":waiting})).await;
    assert_eq!(carol.expect("room").await["status"], "waiting");

    // Node 1 dies. Bob asks for the room as it is: no node can answer, and he is told the
    // room closed once its lease ran out and node 2 buried it; Carol too, without asking.
    n1.kill();
    drop((alice, dan));
    let killed = Instant::now();
    bob.send(json!({"type":"sync"})).await;
    let limit = Duration::from_secs(12);
    for c in [&mut bob, &mut carol] {
        let e = c.recv_within(limit).await;
        assert_eq!(
            (&e["type"], &e["code"]),
            (&json!("error"), &json!("no_such_room")),
            "{e}"
        );
        assert!(e["message"].as_str().unwrap().contains("has closed"), "{e}");
    }
    eprintln!(
        "closed rooms told within {:?} of the kill",
        killed.elapsed()
    );
    bob.send(json!({"type":"sync"})).await;
    let e = bob.expect_error("no_such_room").await;
    assert!(e["message"].as_str().unwrap().contains(&room), "{e}");
    let mut alice = n2.client().await;
    alice
        .send(json!({"type":"resume","token":alice_token}))
        .await;
    alice.expect_error("bad_token").await;
}
