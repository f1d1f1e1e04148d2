//! `jchomp-bot play --engine` against the real server, started in this process on
//! 127.0.0.1:0: a small Python engine written here plays two games through the real binary
//! against a server bot seated with `--add-bot`, started once and told of each new game; the
//! server's records of both games replay. An engine that crashes mid-game ends the client with
//! an error naming the failure and the engine's last lines.

// Helpers outside `#[test]` functions panic on purpose when the binary misbehaves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_protocol::record::Record;
use jchomp_testkit::server::{Client, TestServer};
use jchomp_testkit::temp::temp_dir;
use serde_json::json;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

/// A JChomp engine: a seeded random valid selection, without poison while it can. Says on its
/// standard error that it started; with `crash`, exits on its second `go`.
const ENGINE: &str = r#"
import json, random, sys
MODE = sys.argv[1]
rng = random.Random(0)
state = {"config": None, "moves": [], "turns": 0}
sys.stderr.write("engine started\n")
sys.stderr.flush()

def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

def rect(r, k):
    er, ec = state["config"]["eat"]
    return {(i, j) for i in range(r, r + er) for j in range(k, k + ec)}

def choose():
    c = state["config"]
    er, ec = c["eat"]
    eaten = set()
    for (r, k) in state["moves"]:
        eaten |= rect(r, k)
    poison = {tuple(p) for p in c["poison"]}
    valid = [(r, k) for r in range(c["rows"] - er + 1) for k in range(c["cols"] - ec + 1)
             if not rect(r, k) & eaten]
    safe = [m for m in valid if not rect(*m) & poison]
    return rng.choice(safe or valid)

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "jep":
        say("id name python-test")
        say("option name Seed type spin default 0 min 0 max 2147483647")
        say("variants jchomp")
        say("players 2")
        say("jepok")
    elif words[0] == "setoption" and words[2] == "Seed":
        rng = random.Random(int(words[4]))
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        rest = line.split(" ", 2)[2]
        text, _, moves = rest.partition(" moves ")
        state["config"] = json.loads(text)
        state["moves"] = [tuple(int(x) for x in m.split(",")) for m in moves.split()]
    elif words[0] == "go":
        state["turns"] += 1
        if MODE == "crash" and state["turns"] == 2:
            sys.exit(3)
        r, k = choose()
        say("bestmove %d,%d" % (r, k))
    elif words[0] == "quit":
        sys.exit(0)
"#;

/// A directory holding the engine (python3 must be on PATH).
fn engine_dir(name: &str) -> PathBuf {
    let python = Command::new("python3").arg("--version").output();
    assert!(
        python.is_ok_and(|o| o.status.success()),
        "these tests need python3 on PATH"
    );
    let dir = temp_dir(name);
    std::fs::write(dir.join("engine.py"), ENGINE).unwrap();
    dir
}

/// Runs `jchomp-bot play` with an engine in `mode` creating rooms on `server`, plus `extra`.
async fn play(server: &TestServer, dir: &std::path::Path, mode: &str, extra: &str) -> Output {
    let mut args = vec![
        "play".to_string(),
        "--server".into(),
        server.url(),
        "--engine".into(),
        format!(
            "name=py,cmd=python3,dir={},arg=engine.py,arg={mode}",
            dir.display()
        ),
    ];
    args.extend(
        "--create --size 5x6 --eat 1x2 --poison 0,0 --add-bot random --wait-secs 30"
            .split_whitespace()
            .map(String::from),
    );
    args.extend(extra.split_whitespace().map(String::from));
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
            .args(&args)
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// The server's records of its finished games, once `count` are stored.
async fn records(client: &mut Client, count: usize) -> Vec<Record> {
    for _ in 0..100 {
        client.send(json!({"type": "list_games"})).await;
        let listed = client.until("games").await;
        let ids: Vec<String> = listed["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["game"].as_str().unwrap().to_string())
            .collect();
        if ids.len() >= count {
            let mut records = Vec::new();
            for id in ids {
                client.send(json!({"type": "get_game", "game": id})).await;
                let got = client.until("game").await;
                records.push(serde_json::from_value(got["record"].clone()).unwrap());
            }
            return records;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("fewer than {count} games were stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_plays_two_games_against_a_server_bot() {
    let server = TestServer::start().await;
    let dir = engine_dir("play-engine");
    let log = dir.join("engine.log");
    let extra = format!(
        "--games 2 --move-time 5s --debug --engine-log {}",
        log.display()
    );
    let output = play(&server, &dir, "good", &extra).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("played 2 won"), "{stdout}");
    // Started once, told of each game; the room's 5 s timer less 200 ms is its move time.
    assert_eq!(stderr.matches("> jep 1").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("> newgame").count(), 2, "{stderr}");
    assert!(stderr.contains(" movetime 4800"), "{stderr}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged.matches("engine started").count(), 1, "{logged}");
    let mut client = server.client().await;
    let records = records(&mut client, 2).await;
    assert_eq!(records.len(), 2);
    for record in records {
        assert_eq!(record.seats[0], "py", "{record:?}");
        let game = record.replay().expect("the record replays");
        assert!(game.result().is_some(), "{record:?}");
        assert!(game.moves().len() >= 2, "{record:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_crashes_ends_the_client_with_the_failure_named() {
    let server = TestServer::start().await;
    let dir = engine_dir("play-engine-crash");
    let output = play(&server, &dir, "crash", "--games 1").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("engine py failed (crash)"), "{stderr}");
    // Its last lines: what it was sent before it died.
    assert!(stderr.contains("> go seat 0"), "{stderr}");
    // Without --engine-log its standard error is the client's.
    assert!(stderr.contains("engine started"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_plays_no_game_under_rules_it_does_not_declare() {
    let server = TestServer::start().await;
    let dir = engine_dir("play-engine-rules");
    let output = play(&server, &dir, "good", "--games 1 --no-square-bites").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "engine py does not play jchomp under rules no-square-bites with 2 players \
             (it says: variants jchomp; rules none; players 2)"
        ),
        "{stderr}"
    );
}
