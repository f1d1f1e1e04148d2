//! A cluster whose Redis or PostgreSQL restarts under play (two nodes, real engines): while
//! Redis is away longer than a lease, a move waits (its `moved` comes once the move is in Redis
//! again), `/healthz` says Redis is unreachable, and when Redis is back no node takes another's
//! rooms for dead; a move sent from another node meanwhile is refused `unavailable` and played
//! when sent again. While PostgreSQL is away games still end, `list_games` fails, and once it
//! is back every finished game is there once. No finished game is lost either way.
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
    let mut alice = a.client().await;
    let (room, _) = alice.create("alice", cfg.clone()).await;
    let mut bob = b.client().await;
    // The directory line may take a moment to reach Redis.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        bob.send(json!({"type":"join_room","room":room,"name":"bob"}))
            .await;
        let v = bob.recv().await;
        if v["type"] == "joined" {
            break;
        }
        assert_eq!(v["code"], "no_such_room", "{v}");
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bob.expect("room").await;
    alice.expect("room").await;
    (room, alice, bob)
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
    let (first, mut alice, mut bob) = room(&n1, &n1, &cfg).await;
    let mut game = local_game(&cfg);
    one_move(&mut game, &mut [&mut alice, &mut bob]).await;
    // And one played from both nodes, where it is the turn of the player on node 2.
    let (_, mut carol, mut dave) = room(&n1, &n2, &cfg).await;
    let mut relayed = local_game(&cfg);
    one_move(&mut relayed, &mut [&mut carol, &mut dave]).await;
    redis.kill();
    let (_, health) = n1.http_get("/healthz").await;
    assert!(health.contains("redis: unreachable"), "{health}");
    // A move waits for Redis: no `moved` until the move is in Redis again.
    let seat = game.to_move().unwrap();
    let cell = pick(&game);
    let mover = if seat == 0 { &mut alice } else { &mut bob };
    mover
        .send(json!({"type":"move","row":cell.row,"col":cell.col}))
        .await;
    game.select(cell.row.into(), cell.col.into()).unwrap();
    alice.expect_silence(Duration::from_secs(4)).await;
    // A move node 2 cannot pass on to the room's node is refused at once, and nothing is
    // played: sent again once Redis is back, it is.
    let cell2 = pick(&relayed);
    let again = json!({"type":"move","row":cell2.row,"col":cell2.col});
    dave.send(again.clone()).await;
    dave.expect_error("unavailable").await;
    redis.resume();
    for p in [&mut alice, &mut bob] {
        let m = p.expect("moved").await;
        assert_eq!(m["row"].as_u64(), Some(cell.row.into()));
    }
    dave.send(again).await;
    relayed.select(cell2.row.into(), cell2.col.into()).unwrap();
    for p in [&mut carol, &mut dave] {
        // Nothing between: the player on node 2 kept its seat through the outage.
        let m = p.expect("moved").await;
        assert_eq!(m["row"].as_u64(), Some(cell2.row.into()));
        assert_eq!(m["seat"].as_u64(), Some(1), "{m}");
    }
    finish(&mut relayed, &mut [&mut carol, &mut dave]).await;
    // Every lease ran out with Redis away; the nodes take theirs again, and nobody takes a
    // live node's room for dead: the game goes on on node 1 to its end.
    let (_, health) = n1.http_get("/healthz").await;
    assert!(health.contains("redis: reachable"), "{health}");
    tokio::time::sleep(Duration::from_secs(4)).await;
    for n in [&n1, &n2] {
        assert_eq!(n.metric("jchomp_games_restored_total").await, 0);
    }
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
