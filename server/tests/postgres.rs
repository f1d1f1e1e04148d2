//! Finished games in a real PostgreSQL (`--database`): started from Debian's packages in a
//! temporary directory, it holds every finished game once; killed under play, the games
//! still end for their players (their records wait in the server's outbox, `list_games`
//! fails meanwhile, `/healthz` says PostgreSQL is unreachable), and once it is back every
//! game is there, once, also after the server restarts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CLASSIC_BOX, TestServer, config_value, full_room, play_out};
use jchomp_server::Settings;
use jchomp_testkit::engines::Postgres;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// Settings over `data_dir` with finished games in `pg`.
fn settings_with(data_dir: &Path, pg: &Postgres) -> Settings {
    Settings {
        data_dir: data_dir.to_path_buf(),
        classic_box: CLASSIC_BOX,
        database: Some(pg.url()),
        ..Settings::default()
    }
}

/// Plays one two-seat game to its end; returns the room id.
async fn one_game(server: &TestServer) -> String {
    let cfg = config_value("4x5 poison 0,0");
    let (room, mut clients, version) = full_room(server, &cfg).await;
    let end = play_out(&mut clients, &cfg, version).await;
    assert_eq!(end["status"], "finished");
    room
}

/// The answer to `list_games` (a `games` message or an `error`).
async fn list_games(server: &TestServer) -> Value {
    let mut c = server.client().await;
    c.send(json!({"type":"list_games","limit":100})).await;
    c.recv().await
}

/// The ids `list_games` lists, once PostgreSQL answers with `n` games (waits up to 20 s).
async fn listed(server: &TestServer, n: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let v = list_games(server).await;
        if v["type"] == "games" && v["games"].as_array().unwrap().len() >= n {
            return v["games"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["game"].as_str().unwrap().to_string())
                .collect();
        }
        assert!(tokio::time::Instant::now() < deadline, "still {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_games_reach_postgres_once_even_across_its_crash() {
    let mut pg = Postgres::start();
    let dir = common::temp_dir();
    let server = TestServer::start_with(settings_with(&dir, &pg)).await;
    let (status, body) = server.http_get("/healthz").await;
    assert!(status.contains("200"), "{status}");
    assert_eq!(body, "ok\npostgres: reachable\n");

    let first = one_game(&server).await;
    // The end was announced once the record was durable; it is in PostgreSQL at once.
    let v = list_games(&server).await;
    assert_eq!(v["games"][0]["game"], first.as_str(), "{v}");
    let mut c = server.client().await;
    c.send(json!({"type":"get_game","game":first})).await;
    assert_eq!(c.expect("game").await["record"]["id"], first.as_str());

    // PostgreSQL crashes: games still end for their players.
    pg.kill();
    let second = one_game(&server).await;
    let v = list_games(&server).await;
    assert_eq!(v["type"], "error", "{v}");
    let (status, body) = server.http_get("/healthz").await;
    assert!(status.contains("200"), "the node plays on: {status}");
    assert!(body.contains("postgres: unreachable"), "{body}");

    // Back up: the waiting record is delivered, and every game is there once.
    pg.resume();
    let ids = listed(&server, 2).await;
    assert_eq!(ids, [second.clone(), first.clone()]);

    // A restart delivers nothing twice.
    server.stop().await.unwrap();
    let server = TestServer::start_with(settings_with(&dir, &pg)).await;
    assert_eq!(listed(&server, 2).await, [second, first]);
    let third = one_game(&server).await;
    assert_eq!(listed(&server, 3).await[0], third);
    server.shut_down().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_stops_the_start_with_a_clear_error() {
    let port = jchomp_testkit::engines::free_port();
    let settings = Settings {
        database: Some(format!("postgres://jchomp:secret@127.0.0.1:{port}/games")),
        ..common::settings()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dir = settings.data_dir.clone();
    let err = jchomp_server::run(listener, settings, std::future::pending())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot use the database"), "{err}");
    assert!(!err.contains("secret"), "the password is hidden: {err}");
    std::fs::remove_dir_all(dir).unwrap();
}
