//! Tournaments in a real cluster: two `jchomp-server` processes share a real Redis and a real
//! PostgreSQL. An arena of built-in levels made on the first node is listed, shown and watched
//! from the second while the first runs it (an entry there is answered by the first); then the
//! first is killed with SIGKILL mid-arena. The second takes the tournament and its games in
//! play over and plays the arena to its end: every game shown before the kill is still there
//! with its result, every game's record is in PostgreSQL with the result the standings count,
//! and the points add up to the games. And accounts connected to the second node enter, withdraw
//! from and play a tournament the first runs, as they would on one server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::node::Node;
use common::{Client, config_value, games_played, play_tournament, points, standing};
use jchomp_testkit::engines::{Postgres, Redis};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// Long enough for the takeover and the rest of the arena on a loaded machine.
const LONG: Duration = Duration::from_secs(90);

/// Logs a new account `name` in on `node`.
async fn logged_in(node: &Node, name: &str) -> Client {
    common::logged_in(node.addr, name, true).await
}

/// The JSON body of `GET path` on `node`.
async fn get_json(node: &Node, path: &str) -> Value {
    let answer = node.http(path).await;
    let (_, body) = answer.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

/// Each finished game of `view`, by room: its result.
fn results(view: &Value) -> BTreeMap<String, Value> {
    view["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g.get("result").is_some())
        .map(|g| (g["game"].as_str().unwrap().to_string(), g["result"].clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_goes_on_on_another_node_when_its_node_is_killed() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let mut a = Node::spawn(&redis, &pg);
    let b = Node::spawn(&redis, &pg);

    let bots: Vec<String> = (1..=6).map(|s| format!("random,seed={s}")).collect();
    let spec = json!({"name": "cluster cup", "format": {"kind": "arena", "duration_ms": 8000},
                      "config": config_value("7x7 poison 0,0"), "bots": bots});
    let mut maker = logged_in(&a, "maker").await;
    maker
        .send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let first = maker.until("tournament").await;
    let id = first["id"].as_str().unwrap().to_string();

    // The second node lists it, shows it and pushes it to a watcher there.
    let mut watcher = b.client().await;
    watcher.send(json!({"type": "list_tournaments"})).await;
    let list = watcher.until("tournaments").await;
    let line = list["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{list}"))
        .clone();
    assert_eq!(line["status"], "playing", "{line}");
    let shown = get_json(&b, &format!("/api/tournaments/{id}")).await;
    assert_eq!(shown["id"], id.as_str(), "{shown}");
    watcher
        .send(json!({"type": "watch_tournament", "tournament": id}))
        .await;
    let mut before = watcher.until("tournament").await;
    while results(&before).len() < 3 {
        before = watcher.until_within("tournament", LONG).await;
    }
    // An entry on the node that does not run it is answered by the node that does.
    let mut entrant = logged_in(&b, "entrant").await;
    entrant
        .send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    entrant.expect_error("not_open").await;

    // Killed mid-arena, its node takes nothing with it.
    assert_ne!(before["status"], "finished", "{before}");
    a.kill();
    let shown_before = results(&before);
    let mut last = before.clone();
    while last["status"] != "finished" {
        last = watcher.until_within("tournament", LONG).await;
    }

    let all = get_json(&b, &format!("/api/tournaments/{id}")).await;
    assert_eq!(all["status"], "finished", "{all}");
    let games = all["games"].as_array().unwrap();
    let after = results(&all);
    assert_eq!(after.len(), games.len(), "every game has its result: {all}");
    for (room, result) in &shown_before {
        assert_eq!(after.get(room), Some(result), "game {room} kept its result");
    }
    assert!(
        games.len() > shown_before.len(),
        "the arena went on after the kill: {} games, {} before",
        games.len(),
        shown_before.len()
    );
    let rooms: BTreeSet<&str> = games.iter().map(|g| g["game"].as_str().unwrap()).collect();
    assert_eq!(rooms.len(), games.len(), "no room plays two games");
    let points = points(&all);
    assert_eq!(points, games.len() as f64, "{all}");
    let played = games_played(&all);
    assert_eq!(played, 2 * games.len() as u64, "{all}");
    let mut reader = b.client().await;
    for g in games {
        reader
            .send(json!({"type": "get_game", "game": g["game"]}))
            .await;
        let record = reader.until("game").await["record"].clone();
        assert_eq!(record["result"], g["result"], "{g}");
        assert_eq!(record["seats"], g["seats"], "{g}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_on_another_node_enter_withdraw_and_play() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let a = Node::spawn(&redis, &pg);
    let b = Node::spawn(&redis, &pg);
    let board = config_value("4x4 poison 0,0");
    let spec = json!({"name": "far cup", "format": {"kind": "round_robin"}, "config": board,
                      "bots": ["random,seed=3"], "entry": "anyone",
                      "start": {"when_joined": 3}});
    let mut maker = logged_in(&a, "farmaker").await;
    maker
        .send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let id = maker.until("tournament").await["id"].clone();

    // Entered and withdrawn through the second node: the first answers, and shows the view.
    let mut quitter = logged_in(&b, "quitter").await;
    quitter
        .send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    let entered = quitter.until("tournament").await;
    assert_eq!(entered["entrants"], json!(["random,seed=3", "quitter"]));
    quitter
        .send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    quitter.expect_error("already_entered").await;
    quitter
        .send(json!({"type": "withdraw_tournament", "tournament": id}))
        .await;
    let mut view = quitter.until("tournament").await;
    while view["entrants"] != json!(["random,seed=3"]) {
        view = quitter.until_within("tournament", LONG).await;
    }

    // Entrants of both nodes fill it; the second node's is handed each game's seat there.
    let mut far = logged_in(&b, "farplayer").await;
    far.send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    far.until("tournament").await;
    // Its connection gone (the first node is told), the account plays on from a new one.
    drop(far);
    let mut far = common::logged_in(b.addr, "farplayer", false).await;
    let started = std::time::Instant::now();
    loop {
        far.send(json!({"type": "join_tournament", "tournament": id}))
            .await;
        let answer = far.recv().await;
        if answer["type"] == "tournament" {
            break;
        }
        assert_eq!(answer["code"], "already_entered", "{answer}");
        assert!(
            started.elapsed() < LONG,
            "the first node never heard it left"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut near = logged_in(&a, "nearplayer").await;
    near.send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    let ((last, far_rooms), (_, near_rooms)) = tokio::join!(
        play_tournament(&mut far, &board, LONG),
        play_tournament(&mut near, &board, LONG)
    );
    assert_eq!(far_rooms.len(), 4, "both seat orders against each: {last}");
    assert_eq!(near_rooms.len(), 4, "{last}");
    for name in ["farplayer", "nearplayer"] {
        assert_eq!(standing(&last, name)["games"], 4, "{last}");
    }
    let games = last["games"].as_array().unwrap();
    assert_eq!(games.len(), 6, "{last}");
    for g in games {
        assert_ne!(
            g["result"]["kind"], "abandoned",
            "every seat was played: {g}"
        );
    }
}
