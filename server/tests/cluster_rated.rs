//! Accounts and ratings in a cluster (`--cluster` with `--database`): two nodes sharing a real
//! Redis and a real PostgreSQL. A session made on one node works on the other, and so does its
//! logout; a bot account made on one node plays from the other; a rated game between the
//! person and the bot, its room on one node and the bot on the other, is rated in PostgreSQL
//! exactly once (also after its node shuts down and delivers its outbox), and both nodes show
//! the ratings; forged and expired tokens are refused on both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CLASSIC_BOX, Client, TestServer, rated_config_value, temp_dir};
use jchomp_server::Settings;
use jchomp_testkit::engines::{Postgres, Redis};
use serde_json::{Value, json};
use std::time::Duration;

/// A node of the cluster on `redis`, its finished games, accounts and ratings in `pg`.
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

/// A connection to `server` that sends `request` and gets an `account` answer; returns the
/// connection and the answer.
async fn account(server: &TestServer, request: Value) -> (Client, Value) {
    let mut c = server.client().await;
    c.send(request).await;
    let answer = c.expect("account").await;
    (c, answer)
}

/// A connection to `server` that shows `token`, and the error it gets.
async fn refused(server: &TestServer, token: &str) -> Value {
    let mut c = server.client().await;
    c.send(json!({"type":"authenticate","token":token})).await;
    c.expect_error("bad_token").await
}

/// Rows of a query on `pg`.
async fn rows(pg: &Postgres, sql: &str) -> Vec<tokio_postgres::Row> {
    let (client, conn) = tokio_postgres::connect(&pg.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client.query(sql, &[]).await.unwrap()
}

/// Each account's (wins, losses) in `jchomp:2`, and the number of rated games and history
/// points, as PostgreSQL holds them.
async fn stored_ratings(pg: &Postgres) -> (Vec<(String, i64, i64)>, i64, i64) {
    let ratings = rows(
        pg,
        "SELECT account, wins, losses FROM ratings WHERE category = 'jchomp:2' ORDER BY account",
    )
    .await
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect();
    let counts = rows(
        pg,
        "SELECT (SELECT count(*) FROM rated_games), (SELECT count(*) FROM rating_history)",
    )
    .await;
    (ratings, counts[0].get(0), counts[0].get(1))
}

/// The profile of `name` on `server`, once it shows `games` rated games (waits up to 10 s).
async fn profile(server: &TestServer, name: &str, games: u64) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (line, body) = server.http_get(&format!("/api/players/{name}")).await;
        assert!(line.contains("200"), "{line}: {body}");
        let p: Value = serde_json::from_str(&body).unwrap();
        let r = &p["ratings"][0];
        let played = r["wins"].as_u64().unwrap_or(0) + r["losses"].as_u64().unwrap_or(0);
        if played >= games {
            return p;
        }
        assert!(tokio::time::Instant::now() < deadline, "{p}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_and_ratings_are_shared_by_the_nodes_and_a_game_is_rated_once() {
    let redis = Redis::start();
    let pg = Postgres::start();
    // Started together: both apply the migrations and make the built-in levels' accounts.
    let (a, b) = tokio::join!(node(&redis, &pg), node(&redis, &pg));

    // Ann registers on node A; her session works on node B, where she makes a bot account.
    let register = json!({"type":"register","name":"Ann","password":"password-1"});
    let (_, registered) = account(&a, register).await;
    let session = registered["token"].as_str().unwrap().to_string();
    let (mut ann, who) = account(&b, json!({"type":"authenticate","token":session})).await;
    assert_eq!((&who["name"], &who["bot"]), (&json!("Ann"), &Value::Null));
    ann.send(json!({"type":"create_bot","name":"AnnBot"})).await;
    let bot_token = ann.expect("bot_token").await["token"].clone();
    // The bot's token, made on B, plays from A.
    let (mut bot, who) = account(&a, json!({"type":"authenticate","token":bot_token})).await;
    assert_eq!(
        (&who["name"], &who["bot"]),
        (&json!("AnnBot"), &json!(true))
    );

    // A logout on one node ends the session on the other.
    let login = json!({"type":"login","name":"ann","password":"password-1"});
    let (_, second) = account(&a, login).await;
    let second = second["token"].as_str().unwrap().to_string();
    let (mut leaving, _) = account(&b, json!({"type":"authenticate","token":second})).await;
    leaving.send(json!({"type":"logout"})).await;
    leaving.expect("logged_out").await;
    refused(&a, &second).await;

    // A rated game: Ann's room on B, the bot joining from A; Ann eats the poison and loses.
    let cfg = rated_config_value("4x4 poison 0,0");
    let (room, _) = ann.create("typed", cfg).await;
    bot.join(&room, "typed").await;
    ann.until("room").await;
    ann.send(json!({"type":"move","row":0,"col":0})).await;
    let moved = ann.until("moved").await;
    assert_eq!(moved["result"], json!({"kind":"poisoned","loser":0}));

    // Both nodes show the ratings, read from PostgreSQL, where the game counted once.
    for server in [&a, &b] {
        let p = profile(server, "ANN", 1).await;
        let r = &p["ratings"][0];
        assert_eq!(r["category"], "jchomp:2", "{p}");
        assert_eq!(
            (r["wins"].as_u64(), r["losses"].as_u64()),
            (Some(0), Some(1))
        );
        assert!(r["rating"].as_f64().unwrap() < 1500.0, "{p}");
        assert_eq!(r["history"].as_array().unwrap().len(), 1, "{p}");
        let p = profile(server, "annbot", 1).await;
        let r = &p["ratings"][0];
        assert_eq!(
            (r["wins"].as_u64(), p["bot"].as_bool()),
            (Some(1), Some(true))
        );
    }
    let once = (
        vec![("ann".to_string(), 0, 1), ("annbot".to_string(), 1, 0)],
        1,
        2,
    );
    assert_eq!(stored_ratings(&pg).await, once);
    let (line, body) = a
        .http_get("/api/leaderboard?category=jchomp:2&bots=false")
        .await;
    assert!(line.contains("200"), "{line}: {body}");

    // Forged and expired tokens are refused on both nodes.
    rows(
        &pg,
        "UPDATE account_tokens SET expires_ms = 1 WHERE account = 'ann'",
    )
    .await;
    for server in [&a, &b] {
        refused(server, "forged-token-0000000000000000000000000").await;
        refused(server, &session).await;
    }
    // Built-in levels have their accounts, once, though both nodes made sure of them.
    let levels = rows(&pg, "SELECT count(*) FROM accounts WHERE kind = 'built_in'").await;
    assert_eq!(levels[0].get::<_, i64>(0), 7);

    // The room's node shuts down, taking its journal in and delivering its outbox: the game
    // is still stored once, and rated once.
    drop((ann, bot));
    b.stop().await.unwrap();
    let games = rows(&pg, "SELECT count(*) FROM games").await;
    assert_eq!(games[0].get::<_, i64>(0), 1);
    assert_eq!(stored_ratings(&pg).await, once);
    a.stop().await.unwrap();
}
