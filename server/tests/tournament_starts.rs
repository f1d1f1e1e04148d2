//! Start configurations of tournaments the server runs, through the real server: a round robin
//! whose rounds take a list of two boards in turn (its records carry them), an arena whose
//! games take a list's boards one each in start order, draws that two
//! servers make alike from one seed, a quick-pairing preset's board, refusals in words; and the
//! tournaments file (`--tournaments`): its tournaments made once across a restart, a bad file
//! stopping the start with its message, from the library and from the binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value, logged_in, settings};
use serde_json::{Value, json};
use std::time::Duration;

/// Long enough for a whole tournament of quick bots on a loaded machine.
const LONG: Duration = Duration::from_secs(120);

/// A tournament of built-in levels `bots` on `board` with these `starts`.
fn spec(format: Value, bots: &[&str], board: &str, starts: Value) -> Value {
    json!({"name": "starts cup", "format": format, "config": config_value(board),
           "bots": bots, "starts": starts})
}

/// Creates tournament `spec` as a new account `name`; returns its client and first view.
async fn create(server: &TestServer, name: &str, spec: Value) -> (Client, Value) {
    let mut c = logged_in(server.addr, name, true).await;
    c.send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let view = c.until("tournament").await;
    (c, view)
}

/// The view once the tournament has finished.
async fn finished(c: &mut Client, mut view: Value) -> Value {
    while view["status"] != "finished" {
        view = c.until_within("tournament", LONG).await;
    }
    view
}

/// The stored record of each game of `view`, in order.
async fn records(c: &mut Client, view: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for g in view["games"].as_array().unwrap() {
        c.send(json!({"type": "get_game", "game": g["game"]})).await;
        out.push(c.until("game").await["record"].clone());
    }
    out
}

/// Every game's record plays the configuration the view says it played.
async fn records_carry_their_configs(c: &mut Client, view: &Value) {
    let games = view["games"].as_array().unwrap();
    for (g, record) in games.iter().zip(records(c, view).await) {
        let i = g["config"].as_u64().unwrap() as usize;
        assert_eq!(record["config"], view["configs"][i], "{g}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_plays_a_list_of_boards_round_by_round() {
    let server = TestServer::start().await;
    let boards = json!({"list": [config_value("4x4 eat 1x1 poison 0,0"),
                                 config_value("5x4 eat 1x2 poison 0,0")]});
    let bots = ["random", "greedy", "level:1", "random,seed=3"];
    let s = spec(
        json!({"kind": "round_robin"}),
        &bots,
        "6x6 eat 1x1 poison 0,0",
        boards,
    );
    let (mut c, first) = create(&server, "lister", s).await;
    let view = finished(&mut c, first).await;
    let configs = view["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 2);
    assert_eq!(
        (configs[0]["rows"].clone(), configs[1]["rows"].clone()),
        (json!(4), json!(5))
    );
    let games = view["games"].as_array().unwrap();
    assert_eq!(games.len(), 12, "every pair in both seat orders");
    for g in games {
        let round = g["round"].as_u64().unwrap();
        assert_eq!(
            g["config"],
            (round - 1) % 2,
            "round {round} takes its board in turn: {g}"
        );
    }
    let rounds: std::collections::BTreeSet<u64> =
        games.iter().map(|g| g["round"].as_u64().unwrap()).collect();
    assert!(rounds.len() >= 2, "{rounds:?}");
    records_carry_their_configs(&mut c, &view).await;
    // The spec keeps the list as asked.
    assert_eq!(view["spec"]["starts"]["list"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_takes_the_next_board_for_each_game_it_starts() {
    let server = TestServer::start().await;
    let boards = json!({"list": [config_value("4x4 eat 1x1 poison 0,0"),
                                 config_value("5x4 eat 1x2 poison 0,0"),
                                 config_value("4x5 eat 1x2 poison 0,0")]});
    let s = spec(
        json!({"kind": "arena", "duration_ms": 1500}),
        &["random", "greedy", "random,seed=4", "greedy,seed=5"],
        "6x6 eat 1x1 poison 0,0",
        boards,
    );
    let (mut c, first) = create(&server, "arenist", s).await;
    let view = finished(&mut c, first).await;
    let games = view["games"].as_array().unwrap();
    assert!(games.len() >= 4, "{}", games.len());
    // A pushed view lists the last games only; `games_from` (absent when 0) says where.
    let from = view["games_from"].as_u64().unwrap_or(0);
    for (i, g) in games.iter().enumerate() {
        let n = from + i as u64;
        assert_eq!(
            g["round"],
            n + 1,
            "an arena numbers its games in start order"
        );
        assert_eq!(g["config"], n % 3, "{g}");
    }
    records_carry_their_configs(&mut c, &view).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draws_from_one_seed_are_the_same_on_two_servers() {
    let drawn = |seed: u64| {
        let mut s = spec(
            json!({"kind": "swiss", "rounds": 2}),
            &["random", "greedy"],
            "5x5 eat 1x2 poison 0,0",
            json!({"drawn": {"seed": seed, "count": 3}}),
        );
        s["config"]["play"] = json!("normal");
        s
    };
    let one = TestServer::start().await;
    let two = TestServer::start().await;
    let (mut c, first) = create(&one, "drawer", drawn(42)).await;
    let (_d, again) = create(&two, "drawer", drawn(42)).await;
    let (_e, other) = create(&two, "other", drawn(43)).await;
    assert_eq!(first["configs"].as_array().unwrap().len(), 3);
    assert_eq!(
        first["configs"], again["configs"],
        "the same seed draws the same boards"
    );
    assert_ne!(first["configs"], other["configs"]);
    for config in first["configs"].as_array().unwrap() {
        assert_eq!(
            (&config["players"], &config["play"]),
            (&json!(2), &json!("normal")),
            "{config}"
        );
    }
    let view = finished(&mut c, first).await;
    let games = view["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(
        (&games[0]["config"], &games[1]["config"]),
        (&json!(0), &json!(1))
    );
    records_carry_their_configs(&mut c, &view).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preset_start_plays_the_preset_s_board_with_the_tournament_s_clock() {
    let server = TestServer::start().await;
    let s = spec(
        json!({"kind": "swiss", "rounds": 1}),
        &["random", "greedy"],
        "4x4 poison 0,0",
        json!({"preset": "blitz"}),
    );
    let (mut c, first) = create(&server, "presetter", s).await;
    let view = finished(&mut c, first).await;
    let config = &view["configs"][0];
    assert_eq!((&config["rows"], &config["cols"]), (&json!(6), &json!(6)));
    assert_eq!(
        config.get("move_time_ms"),
        None,
        "the clock is config's: none"
    );
    records_carry_their_configs(&mut c, &view).await;
}

#[tokio::test]
async fn bad_starts_are_refused_in_words() {
    let server = TestServer::start().await;
    let mut c = logged_in(server.addr, "refused", true).await;
    let format = json!({"kind": "round_robin"});
    let bots = ["random", "greedy"];
    let cases = [
        (
            json!({"preset": "nope"}),
            "bad_request",
            "starts names no preset \"nope\"; the presets are duel, blitz",
        ),
        (
            json!({"preset": "four"}),
            "bad_request",
            "starts preset four: players is 4, but config plays 2-player games",
        ),
        (
            json!({"list": [config_value("4x4 poison 0,0"), {"rows": 3, "cols": 4, "players": 2,
                                                              "eat": [1, 1], "poison": [[0, 0]]}]}),
            "invalid_config",
            "starts list entry 2: rows must be 4–15, got 3",
        ),
        (
            json!({"list": []}),
            "bad_request",
            "starts list holds 1–64 configurations, got 0",
        ),
        (
            json!({"drawn": {"seed": 1, "count": 65}}),
            "bad_request",
            "starts drawn: count must be 1–64, got 65",
        ),
    ];
    for (starts, code, words) in cases {
        let s = spec(format.clone(), &bots, "4x4 poison 0,0", starts);
        c.send(json!({"type": "create_tournament", "tournament": s}))
            .await;
        let error = c.expect_error(code).await;
        let message = error["message"].as_str().unwrap();
        assert!(message.starts_with(words), "{message}");
    }
}

/// A tournaments file of one open Swiss and one arena of built-in levels waiting for entrants.
fn file_text() -> String {
    json!([
        {"name": "nightly swiss", "format": {"kind": "swiss", "rounds": 3},
         "config": config_value("5x5 eat 1x2 poison 0,0"), "start": {"when_joined": 4},
         "starts": {"drawn": {"seed": 9, "count": 3}}},
        {"name": "weekly arena", "format": {"kind": "arena", "duration_ms": 60_000},
         "config": config_value("4x4 poison 0,0"), "bots": ["level:1"],
         "start": {"when_joined": 3}}
    ])
    .to_string()
}

/// The tournament list of the server at `server`.
async fn list(server: &TestServer) -> Vec<Value> {
    let mut c = server.client().await;
    c.send(json!({"type": "list_tournaments"})).await;
    c.until("tournaments").await["tournaments"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_file_s_tournaments_are_made_once_across_a_restart() {
    let mut s = settings();
    let file = s.data_dir.with_extension("tournaments.json");
    std::fs::write(&file, file_text()).unwrap();
    s.tournaments = Some(file.clone());
    let server = TestServer::start_with(s.clone()).await;
    let before = list(&server).await;
    let mut names: Vec<&str> = before.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["nightly swiss", "weekly arena"]);
    assert!(before.iter().all(|t| t["status"] == "open"), "{before:?}");
    // Accounts may enter a tournament made by the file.
    let swiss = before
        .iter()
        .find(|t| t["name"] == "nightly swiss")
        .unwrap();
    let mut p = logged_in(server.addr, "filer", true).await;
    p.send(json!({"type": "join_tournament", "tournament": swiss["id"]}))
        .await;
    let view = p.until("tournament").await;
    assert_eq!(view["entrants"], json!(["filer"]));
    assert_eq!(view["configs"].as_array().unwrap().len(), 3);
    server.stop().await.unwrap();

    let server = TestServer::start_with(s).await;
    let after = list(&server).await;
    let ids = |l: &[Value]| {
        let mut ids: Vec<String> = l.iter().map(|t| t["id"].to_string()).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&after), ids(&before), "none is made twice");
    let swiss = after.iter().find(|t| t["name"] == "nightly swiss").unwrap();
    assert_eq!(swiss["entrants"], 1, "its entry kept");
    server.shut_down().await.unwrap();
    let _ = std::fs::remove_file(file);
}

/// The file's text with its second entry's Swiss playing too many rounds.
fn bad_file_text() -> String {
    let mut entries: Value = serde_json::from_str(&file_text()).unwrap();
    entries[1]["format"] = json!({"kind": "swiss", "rounds": 99});
    entries.to_string()
}

#[tokio::test]
async fn a_bad_file_stops_the_start_with_its_message() {
    let mut s = settings();
    let file = s.data_dir.with_extension("bad-tournaments.json");
    std::fs::write(&file, bad_file_text()).unwrap();
    s.tournaments = Some(file.clone());
    let error = TestServer::start_with(s).await.stop().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot use the tournaments file {}: entry 2 (\"weekly arena\"): a Swiss tournament plays 1–50 rounds, got 99",
            file.display()
        )
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn the_binary_refuses_a_bad_file_named_in_its_variable_before_it_listens() {
    let dir = common::temp_dir();
    let file = dir.with_extension("env-tournaments.json");
    std::fs::write(&file, bad_file_text()).unwrap();
    let out = std::process::Command::new(common::server_binary())
        .args(["--addr", "127.0.0.1:0", "--data-dir"])
        .arg(&dir)
        .env("JCHOMP_TOURNAMENTS", &file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "nothing says it listens"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("jchomp-server: cannot use the tournaments file")
            && stderr.contains(
                "entry 2 (\"weekly arena\"): a Swiss tournament plays 1–50 rounds, got 99"
            ),
        "{stderr}"
    );
    let _ = std::fs::remove_file(file);
    let _ = std::fs::remove_dir_all(dir);
}
