//! `jchomp-bot play --tournament` against the real server, started in this process: two bot
//! accounts, each the real binary running an example engine (Python and Node) through the
//! bridge, enter a Swiss and then an arena with two built-in levels, play every game they are
//! seated in, and exit printing their final standing. The standings are held to the games (each
//! entrant's points are its games' scores, every game has its stored record) and to what each
//! bot printed.

// Helpers outside `#[test]` functions panic on purpose when the server or the binary misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_engine::scoring::seat_score;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::rules::{GameResult, Seat};
use jchomp_protocol::wire::TournamentView;
use jchomp_testkit::config_json;
use jchomp_testkit::server::{Client, TestServer, logged_in};
use jchomp_testkit::system::{self, Program};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Output};

/// A bot account of a new owner: its API token.
async fn bot_token(server: &TestServer, owner: &str, bot: &str) -> String {
    let mut o = logged_in(server.addr, owner, true).await;
    o.send(json!({"type": "create_bot", "name": bot})).await;
    o.until("bot_token").await["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Creates a tournament of `format` with two built-in levels that starts when four have
/// entered; returns its id.
async fn create(c: &mut Client, format: Value) -> String {
    let config = serde_json::to_value(config_json("5x5 poison 0,0")).unwrap();
    let spec = json!({
        "name": "engine cup", "format": format, "config": config,
        "bots": ["level:1", "random"], "entry": "bots", "start": {"when_joined": 4},
    });
    c.send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let view = c.until("tournament").await;
    assert_eq!(view["status"], "open", "{view}");
    view["id"].as_str().unwrap().to_string()
}

/// Runs `jchomp-bot play --tournament ID` as the bot account of `token`, playing with the
/// example engine `script` (a path from the workspace root) run by `program`.
async fn enter(
    server: &TestServer,
    id: &str,
    token: &str,
    name: &str,
    program: Program,
    script: &str,
) -> Output {
    let interpreter = system::require(program);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let engine = format!(
        "name={name},cmd={},arg={}",
        interpreter.display(),
        root.join(script).display()
    );
    let args = [
        "play",
        "--server",
        &server.url(),
        "--token",
        token,
        "--tournament",
        id,
        "--engine",
        &engine,
        "--move-time-default",
        "100ms",
        "--wait-secs",
        "120",
    ]
    .map(String::from);
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
            .args(&args)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// Plays tournament `format` with both engines to its end; checks each run and returns the
/// final view, with the stored records of its games checked against it.
async fn played_out(server: &TestServer, format: Value, tag: &str) -> Value {
    let mut maker = logged_in(server.addr, &format!("cupmaker{tag}"), true).await;
    let id = create(&mut maker, format).await;
    let py_name = format!("Py{tag}");
    let node_name = format!("Node{tag}");
    let py = bot_token(server, &format!("pyowner{tag}"), &py_name).await;
    let node = bot_token(server, &format!("nodeowner{tag}"), &node_name).await;
    let (py_out, node_out) = tokio::join!(
        enter(
            server,
            &id,
            &py,
            "py",
            system::PYTHON3,
            "clients/engines/python/engine.py"
        ),
        enter(
            server,
            &id,
            &node,
            "node",
            system::NODE,
            "clients/engines/node/engine.js"
        ),
    );
    let view: Value = loop {
        let (_, body) = server.http_get(&format!("/api/tournaments/{id}")).await;
        let view: Value = serde_json::from_str(&body).unwrap();
        if view["status"] == "finished" {
            break view;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    for (out, name) in [(py_out, &py_name), (node_out, &node_name)] {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        let row = standing(&view, name);
        assert_eq!(row["bot"], true, "{row}");
        let place = view["standings"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| &s["name"] == name)
            .unwrap()
            + 1;
        let last = stdout.lines().last().unwrap();
        let expected = format!(
            "final standing: place {place} of 4 with {} points from {} games",
            row["points"].as_f64().unwrap(),
            row["games"]
        );
        assert!(last.starts_with(&expected), "{last}\nexpected {expected}");
        let games = row["games"].as_u64().unwrap();
        assert!(
            stdout.contains(&format!("played {games} won")),
            "it played each game it was seated in: {stdout}"
        );
    }
    consistent(&view);
    for g in view["games"].as_array().unwrap() {
        assert_ne!(
            g["result"]["kind"], "abandoned",
            "every seat was played: {g}"
        );
        maker
            .send(json!({"type": "get_game", "game": g["game"]}))
            .await;
        let record = maker.until("game").await["record"].clone();
        assert_eq!(record["result"], g["result"], "{g}");
        assert_eq!(record["seats"], g["seats"], "{g}");
    }
    view
}

fn standing<'a>(view: &'a Value, name: &str) -> &'a Value {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {view}"))
}

/// Each entrant's points and games are those of the games it played (byes aside: a point
/// each, so the points over the games' are whole), and the points add up to the games played.
fn consistent(view: &Value) {
    let typed: TournamentView = serde_json::from_value(view.clone()).unwrap();
    let mut byes = 0.0;
    for s in &typed.standings {
        let mut points = 0.0;
        let mut games = 0;
        for g in &typed.games {
            let Some(seat) = g.seats.iter().position(|n| *n == s.name) else {
                continue;
            };
            let result: ResultJson = g.result.expect("every game is over");
            points += seat_score(GameResult::from(result), seat as Seat);
            games += 1;
        }
        assert_eq!(s.games, games, "{}", s.name);
        let bye = s.points.0 - points;
        assert!(bye >= 0.0 && bye.fract() == 0.0, "{}: {view}", s.name);
        byes += bye;
    }
    let total: f64 = typed.standings.iter().map(|s| s.points.0).sum();
    assert_eq!(total, typed.games.len() as f64 + byes, "{view}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_engines_play_a_swiss_and_an_arena_to_the_end() {
    let server = TestServer::start().await;
    let swiss = played_out(&server, json!({"kind": "swiss", "rounds": 3}), "S").await;
    assert_eq!(swiss["round"], 3);
    assert_eq!(
        swiss["games"].as_array().unwrap().len(),
        6,
        "two games a round"
    );
    let arena = json!({"kind": "arena", "duration_ms": 3000});
    let arena = played_out(&server, arena, "A").await;
    assert!(arena["games"].as_array().unwrap().len() >= 2, "{arena}");
}
