//! `jchomp-bot tournament --from-server ADDRESS ID --out DIR` against the real server (the test
//! kit's, in this process): a round robin of built-in levels created through the WebSocket and
//! played to the end is written as an offline tournament's directory, which the offline reader
//! (`--resume`'s) reads back with the server's standings and the server's records (a tournament
//! playing a list of boards too, each game written with the board it played); unknown and
//! unfinished tournaments are refused in words; and a server draws the boards this program draws
//! from the same seed.

// Helpers outside `#[test]` functions panic on purpose when something misbehaves.
#![allow(clippy::unwrap_used)]

use jchomp_bot::tournament::starts::Starts;
use jchomp_bot::tournament::{self, Options, Stop};
use jchomp_protocol::record::Record;
use jchomp_protocol::tournament::TournamentView;
use jchomp_testkit::server::{Client, TestServer, config_value, http_get, logged_in};
use jchomp_testkit::temp::TempDir;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Long enough for a whole tournament of quick bots on a loaded machine.
const LONG: Duration = Duration::from_secs(120);

/// Creates a tournament as a new account and returns its client and first view.
async fn create(server: &TestServer, format: Value, bots: &[&str], board: &str) -> (Client, Value) {
    let spec = json!({"name": "export cup", "format": format, "config": config_value(board),
                      "bots": bots});
    create_spec(server, spec).await
}

/// Creates tournament `spec` as a new account and returns its client and first view.
async fn create_spec(server: &TestServer, spec: Value) -> (Client, Value) {
    let mut c = logged_in(server.addr, "exporter", true).await;
    c.send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let view = c.until("tournament").await;
    (c, view)
}

/// The tournament's view once it has finished.
async fn finished(c: &mut Client, mut view: Value) -> Value {
    while view["status"] != "finished" {
        view = c.until_within("tournament", LONG).await;
    }
    view
}

/// `jchomp-bot` with these arguments.
fn bot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jchomp-bot"))
        .args(args)
        .output()
        .unwrap()
}

/// Exports tournament `id` of the server at `url` into `dir`.
fn export(url: &str, id: &str, dir: &Path) -> Output {
    let dir = dir.to_str().unwrap();
    bot(&[
        "tournament",
        "--from-server",
        url,
        id,
        "--out",
        dir,
        "--quiet",
    ])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The offline reader: the directory read back as `--resume` reads it, playing nothing.
fn read_back(dir: &Path) -> tournament::Outcome {
    let options = Options {
        concurrency: 1,
        out: None,
        progress: false,
        interrupt: Arc::new(AtomicBool::new(false)),
        classic: None,
        debug: false,
    };
    tournament::resume(dir, &options).unwrap()
}

#[test]
fn a_round_robin_the_server_ran_is_written_as_an_offline_tournament() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(TestServer::start());
    let url = server.url();
    let bots = ["level:1", "random", "greedy"];
    let format = json!({"kind": "round_robin"});
    let (mut c, first) = rt.block_on(create(&server, format, &bots, "4x4 eat 1x2 poison 0,0"));
    let view = rt.block_on(finished(&mut c, first));
    let id = view["id"].as_str().unwrap().to_string();
    let view: TournamentView = serde_json::from_value(view).unwrap();
    assert_eq!(view.games.len(), 6, "every pair in both seat orders");

    let out = TempDir::new("tournament-export");
    let dir = out.path().join("cup");
    let exported = export(&url, &id, &dir);
    let stdout = text(&exported.stdout);
    assert!(exported.status.success(), "{}", text(&exported.stderr));
    assert!(
        stdout.starts_with(&format!(
            "tournament {id} (\"export cup\") read from {url}: 6 games written to"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("rank  bot"), "{stdout}");

    // The offline reader takes the directory, and its standings are the server's.
    let outcome = read_back(&dir);
    assert_eq!((outcome.stop, outcome.played), (Stop::Finished, 0));
    assert_eq!(outcome.standings.games, 6);
    let names: Vec<&str> = outcome
        .standings
        .bots
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, bots, "the entrants in entry order");
    for standing in &view.standings {
        let line = outcome
            .standings
            .bots
            .iter()
            .find(|b| b.name == standing.name)
            .unwrap();
        let t = line.tally;
        assert_eq!(
            (t.games, t.wins, t.ties, t.losses),
            (
                u64::from(standing.games),
                u64::from(standing.wins),
                u64::from(standing.ties),
                u64::from(standing.losses)
            ),
            "{}",
            standing.name
        );
        assert_eq!(t.score, standing.points.0, "{}", standing.name);
    }
    assert_eq!(outcome.standings.groups.len(), 3, "three pairings");

    // Every line is the server's record of that game, numbered by its index.
    let games = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 6);
    for (index, (line, game)) in games.lines().zip(&view.games).enumerate() {
        let mut record: Record = serde_json::from_str(line).unwrap();
        assert_eq!(record.id, Some(index.to_string()));
        assert_eq!((&record.seats, &record.result), (&game.seats, &game.result));
        rt.block_on(c.send(json!({"type": "get_game", "game": game.game})));
        let stored = rt.block_on(c.until("game"));
        let stored: Record = serde_json::from_value(stored["record"].clone()).unwrap();
        record.id = stored.id.clone();
        assert_eq!(record, stored);
    }

    // The settings keep the server's view as the API serves it; results.json is the offline one.
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(settings["starts"]["kind"], "server");
    assert_eq!(settings["starts"]["server"], url.as_str());
    let (status, api) = rt.block_on(http_get(server.addr, &format!("/api/tournaments/{id}")));
    assert!(status.contains("200"), "{status}");
    assert_eq!(
        settings["starts"]["view"],
        serde_json::from_str::<Value>(&api).unwrap()
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["status"], "finished");
    assert_eq!(results["games"], 6);
    assert_eq!(results["pairings"].as_array().unwrap().len(), 3);

    // `--resume` prints the table the export printed, and the directory is not taken twice.
    let resumed = bot(&["tournament", "--resume", dir.to_str().unwrap(), "--quiet"]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let table = |s: &str| {
        s.lines()
            .take_while(|l| !l.contains("games played"))
            .skip_while(|l| !l.starts_with("rank"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(table(&text(&resumed.stdout)), table(&stdout));
    let again = export(&url, &id, &dir);
    assert!(!again.status.success());
    assert!(text(&again.stderr).contains("already holds a tournament"));
}

#[test]
fn a_tournament_of_a_list_of_boards_is_written_with_each_game_s_board() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(TestServer::start());
    let url = server.url();
    let boards = [
        config_value("4x4 eat 1x1 poison 0,0"),
        config_value("5x4 eat 1x2 poison 0,0"),
    ];
    let spec = json!({"name": "export cup", "format": {"kind": "round_robin"},
                      "config": config_value("4x4 poison 0,0"),
                      "bots": ["level:1", "random", "greedy"], "starts": {"list": boards}});
    let (mut c, first) = rt.block_on(create_spec(&server, spec));
    let view = rt.block_on(finished(&mut c, first));
    let id = view["id"].as_str().unwrap().to_string();
    let view: TournamentView = serde_json::from_value(view).unwrap();
    assert_eq!(view.configs.len(), 2);

    let out = TempDir::new("tournament-export-list");
    let dir = out.path().join("cup");
    let exported = export(&url, &id, &dir);
    assert!(exported.status.success(), "{}", text(&exported.stderr));
    let games = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let mut rows = Vec::new();
    for (line, game) in games.lines().zip(&view.games) {
        let record: Record = serde_json::from_str(line).unwrap();
        assert_eq!(Some(&record.config), view.config_of(game), "{}", game.game);
        rows.push(record.config.rows);
    }
    assert_eq!(rows.len(), 6);
    assert!(
        rows.contains(&4) && rows.contains(&5),
        "both boards played: {rows:?}"
    );
    let outcome = read_back(&dir);
    assert_eq!(outcome.standings.games, 6);
}

#[test]
fn a_server_draws_the_boards_this_program_draws_from_the_same_seed() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(TestServer::start());
    let spec = json!({"name": "drawn cup", "format": {"kind": "round_robin"},
                      "config": config_value("4x4 poison 0,0"), "start": {"when_joined": 2},
                      "starts": {"drawn": {"seed": 5, "count": 4}}});
    let (_c, view) = rt.block_on(create_spec(&server, spec));
    let view: TournamentView = serde_json::from_value(view).unwrap();
    assert_eq!(view.configs.len(), 4);
    for (round, config) in view.configs.iter().enumerate() {
        let offline = Starts::default().config(2, 5, round as u64).unwrap();
        assert_eq!(config.validate().unwrap(), offline, "round {round}");
    }
}

#[test]
fn unknown_and_unfinished_tournaments_are_refused_in_words() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(TestServer::start());
    let url = server.url();
    let out = TempDir::new("tournament-export-refused");

    let unknown = export(&url, "zzzz", &out.path().join("unknown"));
    assert!(!unknown.status.success());
    let why = text(&unknown.stderr);
    assert!(
        why.contains("tournament zzzz: There is no tournament with that id"),
        "{why}"
    );
    assert!(!out.path().join("unknown").join("tournament.json").exists());

    // An arena of a minute is still being played when it is asked for.
    let format = json!({"kind": "arena", "duration_ms": 60_000});
    let (_c, view) = rt.block_on(create(
        &server,
        format,
        &["level:1", "random"],
        "4x4 poison 0,0",
    ));
    let id = view["id"].as_str().unwrap();
    let playing = export(&url, id, &out.path().join("playing"));
    assert!(!playing.status.success());
    let why = text(&playing.stderr);
    assert!(
        why.contains(&format!("tournament {id} is still being played")),
        "{why}"
    );
    assert!(why.contains("export it once it has finished"), "{why}");

    let no_out = bot(&["tournament", "--from-server", &url, id]);
    assert!(!no_out.status.success());
    assert!(text(&no_out.stderr).contains("--out"));
}
