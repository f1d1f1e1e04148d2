//! Helpers of the server's tests on top of the test kit's in-process server and client: rooms
//! in bulk, whole games checked against the local rules, and the real binary started as a child.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod node;

use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::{Cell, Game};
pub use jchomp_testkit::server::*;
use serde_json::{Value, json};
use std::net::SocketAddr;

/// `n` open 15×15 four-seat rooms whose owners have long names, which make room lists big; the
/// rooms live as long as the owners returned.
pub async fn open_rooms(server: &TestServer, n: usize) -> Vec<Client> {
    let mut owners = Vec::new();
    for _ in 0..n {
        let mut o = server.client().await;
        o.create(
            "owner-with-a-long-name-for-bulk",
            config_value("15x15 poison 0,0 poison 14,14 poison 0,14 poison 14,0 players 4"),
        )
        .await;
        owners.push(o);
    }
    owners
}

/// Creates a room for `cfg`, fills it with people, and returns the room id, the clients
/// (index = seat) and the version of the snapshot that started the game.
pub async fn full_room(server: &TestServer, cfg: &Value) -> (String, Vec<Client>, u64) {
    let players = cfg["players"].as_u64().unwrap() as usize;
    let mut clients = vec![server.client().await];
    let (room, _) = clients[0].create("p0", cfg.clone()).await;
    let mut version = 0;
    for seat in 1..players {
        let mut c = server.client().await;
        let (s, _, snap) = c.join(&room, &format!("p{seat}")).await;
        assert_eq!(s as usize, seat);
        version = snap["version"].as_u64().unwrap();
        // Everyone already seated sees the same snapshot.
        for earlier in clients.iter_mut() {
            assert_eq!(earlier.expect("room").await, snap);
        }
        let expected = if seat + 1 == players {
            "playing"
        } else {
            "waiting"
        };
        assert_eq!(snap["status"], expected);
        clients.push(c);
    }
    (room, clients, version)
}

/// A configuration as JSON from its numbers: the timer tests' older form of [`config_value`],
/// which every other test uses.
pub fn config(rows: i64, cols: i64, players: i64, eat: [i64; 2], poison: &[[i64; 2]]) -> Value {
    json!({"rows":rows,"cols":cols,"players":players,"eat":eat,"poison":poison})
}

/// The local rules game for a JSON configuration.
pub fn local_game(config: &Value) -> Game {
    let c: ConfigJson = serde_json::from_value(config.clone()).unwrap();
    Game::new(c.validate().unwrap())
}

/// A selection for the seat to move: the first one without poison, else the first one.
pub fn pick(game: &Game) -> Cell {
    let set = game.position().safe_or_any_selections(game.config());
    Cell::from_index(set.iter().next().unwrap())
}

/// Plays a game to its end between `clients` (index = seat), checking every `moved` against
/// the local rules; returns the final snapshot as seen by seat 0. Every client must have read
/// up to the snapshot that started the game.
pub async fn play_out(clients: &mut [Client], config: &Value, first_version: u64) -> Value {
    play_out_with(clients, config, first_version, pick).await
}

/// A selection for the seat to move: the last one without poison (the lowest rightmost cell:
/// long games), else the first one.
pub fn pick_last(game: &Game) -> Cell {
    let p = game.position();
    let safe = p.safe_selections(game.config());
    match safe.iter().last() {
        Some(i) => Cell::from_index(i),
        None => Cell::from_index(p.selections().iter().next().unwrap()),
    }
}

/// [`play_out`] with the seats choosing their selections by `choose`; the final snapshot is
/// also checked to list as eaten exactly the cells the local rules have eaten.
pub async fn play_out_with(
    clients: &mut [Client],
    config: &Value,
    first_version: u64,
    choose: fn(&Game) -> Cell,
) -> Value {
    let mut game = local_game(config);
    let mut version = first_version;
    while let Some(seat) = game.to_move() {
        let cell = choose(&game);
        clients[seat as usize]
            .send(json!({"type":"move","row":cell.row,"col":cell.col}))
            .await;
        game.select(cell.row.into(), cell.col.into()).unwrap();
        version += 1;
        for c in clients.iter_mut() {
            let m = c.expect("moved").await;
            assert_eq!(m["version"], version, "{m}");
            assert_eq!(m["seat"], seat);
            assert_eq!(
                (m["row"].as_u64(), m["col"].as_u64()),
                (Some(cell.row.into()), Some(cell.col.into()))
            );
            assert_eq!(m["to_move"], json!(game.to_move()));
            let finished = game.result().is_some();
            assert_eq!(m["status"], if finished { "finished" } else { "playing" });
        }
    }
    let expected = serde_json::to_value(jchomp_protocol::json::ResultJson::from(
        game.result().unwrap(),
    ))
    .unwrap();
    let mut last = Value::Null;
    for c in clients.iter_mut() {
        let snap = c.expect("room").await;
        assert_eq!(snap["status"], "finished");
        assert_eq!(snap["result"], expected);
        assert_eq!(snap["version"], version);
        assert_eq!(snap["moves"].as_array().unwrap().len(), game.moves().len());
        let eaten: Vec<[u8; 2]> = game
            .position()
            .eaten(game.config())
            .iter()
            .map(Cell::from_index)
            .map(|c| [c.row, c.col])
            .collect();
        assert_eq!(snap["eaten"], json!(eaten));
        last = snap;
    }
    last
}

/// Starts the real `jchomp-server` binary on a free port with `args` before `--data-dir DIR`;
/// returns the child and the address it printed.
pub fn spawn_binary(
    dir: &std::path::Path,
    args: &[&str],
    rust_log: &str,
) -> (std::process::Child, SocketAddr) {
    let command = std::process::Command::new(server_binary());
    spawn_in(
        command,
        "127.0.0.1:0",
        dir,
        args,
        rust_log,
        std::process::Stdio::null(),
    )
}

/// The path of the `jchomp-server` binary cargo built for these tests.
pub fn server_binary() -> &'static str {
    env!("CARGO_BIN_EXE_jchomp-server")
}

/// [`spawn_binary`] through `command`, which runs the binary (e.g. `ip netns exec NS
/// jchomp-server`, see `Member::command`), listening on `addr`, its log (stderr) to `stderr`.
pub fn spawn_in(
    mut command: std::process::Command,
    addr: &str,
    dir: &std::path::Path,
    args: &[&str],
    rust_log: &str,
    stderr: std::process::Stdio,
) -> (std::process::Child, SocketAddr) {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = command
        .args(["--addr", addr])
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env("RUST_LOG", rust_log)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("jchomp-server listening on ws://")
        .and_then(|r| r.strip_suffix("/ws"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (child, addr.parse().unwrap())
}

/// Plays every game the tournament seats `c` in, choosing by the local rules, until the
/// tournament finishes (each message within `wait`); returns the final view and the rooms it was seated in.
pub async fn play_tournament(
    c: &mut Client,
    config: &Value,
    wait: std::time::Duration,
) -> (Value, Vec<String>) {
    let mut rooms = Vec::new();
    let mut seat = None;
    let mut game: Option<Game> = None;
    loop {
        let m = c.recv_within(wait).await;
        match m["type"].as_str().unwrap() {
            "tournament" if m["status"] == "finished" => return (m, rooms),
            "tournament_game" => rooms.push(m["room"].as_str().unwrap().to_string()),
            "joined" => {
                assert_eq!(rooms.last().map(String::as_str), m["room"].as_str());
                seat = m["seat"].as_u64();
            }
            "room" if Some(m["room"].as_str().unwrap()) == rooms.last().map(String::as_str) => {
                let mut g = local_game(config);
                for mv in m["moves"].as_array().unwrap() {
                    g.select(mv["row"].as_i64().unwrap(), mv["col"].as_i64().unwrap())
                        .unwrap();
                }
                game = Some(g);
            }
            "moved" if Some(m["room"].as_str().unwrap()) == rooms.last().map(String::as_str) => {
                let g = game.as_mut().unwrap();
                g.select(m["row"].as_i64().unwrap(), m["col"].as_i64().unwrap())
                    .unwrap();
            }
            "error" => panic!("{m}"),
            _ => continue,
        }
        if let (Some(g), Some(s)) = (&game, seat)
            && g.result().is_none()
            && g.to_move().map(u64::from) == Some(s)
        {
            let cell = pick(g);
            c.send(json!({"type": "move", "row": cell.row, "col": cell.col}))
                .await;
        }
    }
}

/// The points of a tournament view's standings, summed.
pub fn points(view: &Value) -> f64 {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum()
}

/// The games of a tournament view's standings, summed (each game counts once per seat).
pub fn games_played(view: &Value) -> u64 {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["games"].as_u64().unwrap())
        .sum()
}
