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
use jchomp_testkit::server::{Client, TestServer, logged_in, standing};
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
    run_entrant(&server.url(), id, token, name, program, script).await
}

/// Runs `jchomp-bot play --tournament ID` on the server at `url` (see [`enter`]).
async fn run_entrant(
    url: &str,
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
        url,
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
        let view = view(server, &id).await;
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

/// Tournament `id` as `GET /api/tournaments/ID` shows it.
async fn view(server: &TestServer, id: &str) -> Value {
    let (_, body) = server.http_get(&format!("/api/tournaments/{id}")).await;
    serde_json::from_str(&body).unwrap()
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

/// The server restarts while a bot entrant plays: `jchomp-bot play --tournament` reconnects
/// (resuming the seat of a game it was playing), enters again once the server is back, and plays
/// its games to the end of the tournament.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_entrant_plays_on_after_the_server_restarts() {
    let settings = jchomp_testkit::server::settings();
    let server = TestServer::start_with(settings.clone()).await;
    let mut maker = logged_in(server.addr, "cupmaker", true).await;
    let config = serde_json::to_value(config_json("5x5 poison 0,0")).unwrap();
    let spec = json!({
        "name": "restart cup", "format": {"kind": "swiss", "rounds": 4}, "config": config,
        "bots": ["level:1", "random", "level:2"], "entry": "bots", "start": {"when_joined": 4},
    });
    maker
        .send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let id = maker.until("tournament").await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let py = bot_token(&server, "pyowner", "PyBot").await;
    let bot = {
        let (url, id, py) = (server.url(), id.clone(), py.clone());
        let script = "clients/engines/python/engine.py";
        tokio::spawn(
            async move { run_entrant(&url, &id, &py, "py", system::PYTHON3, script).await },
        )
    };
    // Once the bot has played a game and made a move in the next, the server stops and starts
    // again on the same address, the game in play with it.
    let room = loop {
        let v = view(&server, &id).await;
        let games = v["games"].as_array().cloned().unwrap_or_default();
        let played = |g: &&Value| g["seats"].as_array().unwrap().contains(&json!("PyBot"));
        let mine: Vec<&Value> = games.iter().filter(played).collect();
        if let [first, .., current] = &mine[..]
            && !first["result"].is_null()
            && current["result"].is_null()
        {
            break current["game"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    maker.send(json!({"type": "spectate", "room": room})).await;
    let snap = maker.until("room").await;
    let seat = snap["seats"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s["name"] == "PyBot")
        .unwrap();
    if snap["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["seat"] != seat)
    {
        while maker.until("moved").await["seat"] != seat {}
    }
    drop(maker);
    let addr = server.addr;
    server.stop().await.unwrap();
    let server = TestServer::start_at(addr, settings).await;
    let out = bot.await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("entering again"), "{stdout}");
    let lower = stdout.to_lowercase();
    assert!(lower.contains("the server is shutting down"), "{stdout}");
    let end = view(&server, &id).await;
    assert_eq!(end["status"], "finished", "{end}");
    let row = standing(&end, "PyBot");
    let last = stdout.lines().last().unwrap();
    let expected = format!(
        "with {} points from {} games",
        row["points"].as_f64().unwrap(),
        row["games"]
    );
    assert!(last.contains(&expected), "{last}\nexpected {expected}");
    // Every round was played, the bot's games by the bot (a bye at most once).
    assert!(row["games"].as_u64().unwrap() >= 3, "{end}");
    consistent(&end);
    for g in end["games"].as_array().unwrap() {
        assert_ne!(g["result"]["kind"], "abandoned", "{g}");
    }
}
