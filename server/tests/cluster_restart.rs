//! A cluster whose Redis or PostgreSQL restarts under play (two nodes, real engines). While
//! Redis is away longer than a lease, `/healthz` says Redis is unreachable; a move that cannot
//! be made durable is never acknowledged: once its node can no longer prove its lease, the
//! room stops there and its clients are closed with 1012 (service restart), and no room can be
//! created (`unavailable`); a move sent from another node meanwhile is refused `unavailable`,
//! and nothing is played. When Redis is back each node takes a lease again and restores its
//! own rooms from Redis (none takes another's for dead): the players resume where the last
//! acknowledged move left them and play on. While PostgreSQL is away games still end,
//! `list_games` fails, and once it is back every finished game is there once. No finished game
//! is lost either way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CLASSIC_BOX, Client, TestServer, config_value, local_game, pick, temp_dir};
use jchomp_protocol::rules::Game;
use jchomp_server::Settings;
use jchomp_testkit::engines::{Postgres, Redis};
use serde_json::{Value, json};
use std::time::Duration;

/// A node of the cluster on `redis`, with records in `pg`.
async fn node(redis: &Redis, pg: &Postgres) -> TestServer {
    TestServer::start_with(Settings {
        data_dir: temp_dir(),
        classic_box: CLASSIC_BOX,
        cluster: Some(redis.url()),
        database: Some(pg.url()),
        ..Settings::default()
    })
    .await
}

/// A started two-seat room: the creator on `a`, the other player on `b`.
async fn room(a: &TestServer, b: &TestServer, cfg: &Value) -> (String, Client, Client) {
    let (room, alice, bob, _) = room_with_tokens(a, b, cfg).await;
    (room, alice, bob)
}

/// [`room`], with the players' seat tokens.
async fn room_with_tokens(
    a: &TestServer,
    b: &TestServer,
    cfg: &Value,
) -> (String, Client, Client, [String; 2]) {
    let mut alice = a.client().await;
    let (room, alice_token) = alice.create("alice", cfg.clone()).await;
    let mut bob = b.client().await;
    // The directory line may take a moment to reach Redis.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let bob_token = loop {
        bob.send(json!({"type":"join_room","room":room,"name":"bob"}))
            .await;
        let v = bob.recv().await;
        if v["type"] == "joined" {
            break v["token"].as_str().unwrap().to_string();
        }
        assert_eq!(v["code"], "no_such_room", "{v}");
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    bob.expect("room").await;
    alice.expect("room").await;
    (room, alice, bob, [alice_token, bob_token])
}

/// Waits for the server to close `client` with 1012 (service restart).
async fn closed_for_restart(client: &mut Client) {
    let (_, frame) = client.until_closed().await;
    let code = frame.map(|f| u16::from(f.code));
    assert_eq!(code, Some(1012), "closed with {code:?}");
}

/// Reads what the server sends until it is silent for 300 ms (the snapshots that tell a
/// player of the others resuming).
async fn drain(client: &mut Client) {
    use futures_util::StreamExt;
    while tokio::time::timeout(Duration::from_millis(300), client.ws.next())
        .await
        .is_ok()
    {}
}

/// Resumes the seat of `token` through `server`, asking again while the room is not back
/// (up to 15 s); returns the client and the room's snapshot.
async fn resume(server: &TestServer, token: &str) -> (Client, Value) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let mut c = server.client().await;
        c.send(json!({"type":"resume","token":token})).await;
        let v = c.recv().await;
        if v["type"] == "joined" {
            let snap = c.expect("room").await;
            return (c, snap);
        }
        assert!(tokio::time::Instant::now() < deadline, "not resumed: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The seat to move plays one move; both players see it.
async fn one_move(game: &mut Game, players: &mut [&mut Client; 2]) {
    let seat = game.to_move().unwrap();
    let cell = pick(game);
    players[usize::from(seat)]
        .send(json!({"type":"move","row":cell.row,"col":cell.col}))
        .await;
    game.select(cell.row.into(), cell.col.into()).unwrap();
    for p in players.iter_mut() {
        let m = p.expect("moved").await;
        assert_eq!(
            (m["row"].as_u64(), m["col"].as_u64()),
            (Some(cell.row.into()), Some(cell.col.into()))
        );
    }
}

/// Plays the game to its end; both players get the final snapshot.
async fn finish(game: &mut Game, players: &mut [&mut Client; 2]) {
    while game.to_move().is_some() {
        one_move(game, players).await;
    }
    for p in players.iter_mut() {
        assert_eq!(p.expect("room").await["status"], "finished");
    }
}

/// The ids `list_games` lists on `server`, once it answers with `room` among them (up to
/// 20 s); each id must be listed once.
async fn stored(server: &TestServer, room: &str) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut c = server.client().await;
    loop {
        c.send(json!({"type":"list_games","limit":100})).await;
        let v = c.recv().await;
        if v["type"] == "games" {
            let ids: Vec<String> = v["games"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["game"].as_str().unwrap().to_string())
                .collect();
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ids.len(), "a game listed twice: {ids:?}");
            if ids.iter().any(|id| id == room) {
                return ids;
            }
        }
        assert!(tokio::time::Instant::now() < deadline, "still {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_or_postgres_restarted_under_play_loses_no_game() {
    let mut redis = Redis::start();
    let mut pg = Postgres::start();
    let (n1, n2) = (node(&redis, &pg).await, node(&redis, &pg).await);
    let cfg = config_value("4x5 poison 0,0");

    // Redis goes away for longer than a lease in the middle of a game played on node 1.
    let (first, mut alice, mut bob, tokens) = room_with_tokens(&n1, &n1, &cfg).await;
    let mut game = local_game(&cfg);
    one_move(&mut game, &mut [&mut alice, &mut bob]).await;
    // And one played from both nodes, where it is the turn of the player on node 2.
    let (_, mut carol, mut dave, relayed_tokens) = room_with_tokens(&n1, &n2, &cfg).await;
    let mut relayed = local_game(&cfg);
    one_move(&mut relayed, &mut [&mut carol, &mut dave]).await;
    redis.kill();
    // A move node 2 cannot pass on to the room's node is refused (`unavailable`: nothing is
    // played), unless node 2 stops serving first and closes the connection (1012) before it
    // has given up on Redis.
    let cell2 = pick(&relayed);
    dave.send(json!({"type":"move","row":cell2.row,"col":cell2.col}))
        .await;
    let (told, frame) = dave.until_closed().await;
    assert!(told.iter().all(|v| v["code"] == "unavailable"), "{told:?}");
    assert_eq!(frame.map(|f| u16::from(f.code)), Some(1012));
    let (_, health) = n1.http_get("/healthz").await;
    assert!(health.contains("redis: unreachable"), "{health}");
    // A move node 1 cannot make durable is never acknowledged: once node 1 can no longer
    // prove its lease (within a lease), the room stops and its players are told to go
    // elsewhere; so are the relayed player's.
    let cell = pick(&game);
    let seat = game.to_move().unwrap();
    let mover = if seat == 0 { &mut alice } else { &mut bob };
    mover
        .send(json!({"type":"move","row":cell.row,"col":cell.col}))
        .await;
    for c in [&mut alice, &mut bob, &mut carol] {
        closed_for_restart(c).await;
    }
    // No room is created while the node cannot prove its lease: nothing is done.
    let mut erin = n1.client().await;
    erin.send(json!({"type":"create_room","name":"erin","config":cfg}))
        .await;
    erin.expect_error("unavailable").await;
    // Nor is a seat looked up: its token is not "no seat", but "not now".
    let mut early = n2.client().await;
    early.send(json!({"type":"resume","token":tokens[0]})).await;
    early.expect_error("unavailable").await;
    early
        .send(json!({"type":"join_room","room":first,"name":"frank"}))
        .await;
    early.expect_error("unavailable").await;

    // Redis is back: each node takes a lease again and restores its own rooms from it; the
    // players resume where the last acknowledged move left them (the unacknowledged move is
    // not there) and play on.
    redis.resume();
    let (mut alice, snap) = resume(&n2, &tokens[0]).await;
    assert_eq!(snap["moves"].as_array().unwrap().len(), 1, "{snap}");
    let (mut bob, _) = resume(&n1, &tokens[1]).await;
    let (mut carol, snap) = resume(&n1, &relayed_tokens[0]).await;
    assert_eq!(snap["moves"].as_array().unwrap().len(), 1, "{snap}");
    let (mut dave, _) = resume(&n2, &relayed_tokens[1]).await;
    for c in [&mut alice, &mut bob, &mut carol, &mut dave] {
        drain(c).await;
    }
    finish(&mut relayed, &mut [&mut carol, &mut dave]).await;
    let (_, health) = n1.http_get("/healthz").await;
    assert!(health.contains("redis: reachable"), "{health}");
    // Node 1 restored its two rooms; node 2 took nothing for dead.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(n1.metric("jchomp_games_restored_total").await, 2);
    assert_eq!(n2.metric("jchomp_games_restored_total").await, 0);
    assert!(n1.metric("jchomp_cluster_lease_lapses_total").await >= 1);
    finish(&mut game, &mut [&mut alice, &mut bob]).await;
    stored(&n2, &first).await;

    // PostgreSQL goes away: a game between the two nodes still ends for its players.
    pg.kill();
    let (second, mut alice, mut bob) = room(&n1, &n2, &cfg).await;
    let mut game = local_game(&cfg);
    finish(&mut game, &mut [&mut alice, &mut bob]).await;
    let (_, health) = n2.http_get("/healthz").await;
    assert!(health.contains("postgres: unreachable"), "{health}");
    let mut c = n2.client().await;
    c.send(json!({"type":"list_games"})).await;
    c.expect_error("internal").await;

    // Back up: every finished game is in PostgreSQL once, from either node.
    pg.resume();
    let ids = stored(&n2, &second).await;
    assert!(ids.contains(&first), "{ids:?}");
    assert_eq!(stored(&n1, &second).await, ids);
    for n in [n1, n2] {
        n.shut_down().await.unwrap();
    }
}
