//! Games in play outlive their server: after a graceful restart (in-process) and after a
//! `kill -9` of the real binary, every game comes back at its position, with the same seat to
//! move; people resume with their tokens (with the clock they had left, after a graceful
//! restart), server bots take their seats again by themselves, and the games play on to a
//! stored record holding every move.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CLASSIC_BOX, Client, TestServer, config_value, local_game, pick, timed_config_value};
use jchomp_protocol::json::MoveJson;
use jchomp_protocol::record::Record;
use jchomp_protocol::rules::Game;
use jchomp_server::Settings;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::Path;

/// Settings over `data_dir`, as the test kit's.
fn settings_in(data_dir: &Path) -> Settings {
    Settings {
        data_dir: data_dir.to_path_buf(),
        classic_box: CLASSIC_BOX,
        ..Settings::default()
    }
}

/// A two-seat game in play: the clients (index = seat), their tokens, the room and the local
/// copy of the game.
struct Table {
    room: String,
    clients: Vec<Client>,
    tokens: Vec<String>,
    game: Game,
}

impl Table {
    /// Two people in a new room of `config`, the game started.
    async fn open(addr: SocketAddr, config: &Value) -> Table {
        let mut a = Client::connect(addr).await;
        let (room, token_a) = a.create("alice", config.clone()).await;
        let mut b = Client::connect(addr).await;
        let (_, token_b, snap) = b.join(&room, "bob").await;
        assert_eq!(snap["status"], "playing");
        a.expect("room").await;
        Table {
            room,
            clients: vec![a, b],
            tokens: vec![token_a, token_b],
            game: local_game(config),
        }
    }

    /// Plays `n` moves, each acknowledged to both seats.
    async fn play(&mut self, n: usize) {
        for _ in 0..n {
            let seat = usize::from(self.game.to_move().unwrap());
            let cell = pick(&self.game);
            self.clients[seat]
                .send(json!({"type":"move","row":cell.row,"col":cell.col}))
                .await;
            self.game.select(cell.row.into(), cell.col.into()).unwrap();
            for c in &mut self.clients {
                let m = c.until("moved").await;
                assert_eq!(
                    (m["row"].as_u64(), m["col"].as_u64()),
                    (Some(cell.row.into()), Some(cell.col.into()))
                );
            }
        }
    }

    /// Both seats resume on `addr` with their tokens; returns seat 0's snapshot, checked to be
    /// the local game's position.
    async fn resume(&mut self, addr: SocketAddr) -> Value {
        let mut snaps = Vec::new();
        self.clients.clear();
        for (seat, token) in self.tokens.iter().enumerate() {
            let mut c = Client::connect(addr).await;
            c.send(json!({"type":"resume","token":token})).await;
            let joined = c.expect("joined").await;
            assert_eq!(
                (joined["room"].as_str(), joined["seat"].as_u64()),
                (Some(self.room.as_str()), Some(seat as u64))
            );
            snaps.push(c.expect("room").await);
            self.clients.push(c);
        }
        // Seat 0 sees seat 1 come back.
        let snap = self.clients[0].expect("room").await;
        assert_eq!(snap["seats"][1]["connected"], true);
        assert_eq!(snap["status"], "playing");
        assert_eq!(snap["to_move"], json!(self.game.to_move()));
        let moves: Vec<MoveJson> = self.game.moves().iter().map(|&m| m.into()).collect();
        assert_eq!(snap["moves"], json!(moves));
        snaps.swap_remove(0)
    }

    /// Plays the game to its end; returns the stored record, fetched from `addr`.
    async fn finish(&mut self, addr: SocketAddr) -> Record {
        while self.game.to_move().is_some() {
            self.play(1).await;
        }
        for c in &mut self.clients {
            assert_eq!(c.expect("room").await["status"], "finished");
        }
        fetch(addr, &self.room).await
    }
}

/// A stored record.
async fn fetch(addr: SocketAddr, id: &str) -> Record {
    let mut c = Client::connect(addr).await;
    c.send(json!({"type":"get_game","game":id})).await;
    let v = c.expect("game").await;
    serde_json::from_value(v["record"].clone()).unwrap()
}

/// A person against a greedy server bot in a new room of `config`; the person moves once and
/// the bot answers. Returns the person, the token and the local game.
async fn against_a_bot(addr: SocketAddr, config: &Value) -> (Client, String, String, Game) {
    let mut a = Client::connect(addr).await;
    let (room, token) = a.create("carol", config.clone()).await;
    a.send(json!({"type":"add_bot","bot":"greedy"})).await;
    assert_eq!(a.expect("room").await["status"], "playing");
    let mut game = local_game(config);
    let cell = pick(&game);
    a.send(json!({"type":"move","row":cell.row,"col":cell.col}))
        .await;
    game.select(cell.row.into(), cell.col.into()).unwrap();
    a.expect("moved").await;
    let bot = a.expect("moved").await;
    assert_eq!(bot["seat"], 1);
    game.select(bot["row"].as_i64().unwrap(), bot["col"].as_i64().unwrap())
        .unwrap();
    (a, room, token, game)
}

/// The person resumes against the bot, moves, and the bot answers by itself.
async fn bot_plays_on(addr: SocketAddr, token: &str, game: &mut Game) {
    let mut a = Client::connect(addr).await;
    a.send(json!({"type":"resume","token":token})).await;
    a.expect("joined").await;
    let snap = a.expect("room").await;
    assert_eq!(snap["moves"].as_array().unwrap().len(), game.moves().len());
    assert_eq!(snap["seats"][1]["bot"], true);
    assert_eq!(snap["to_move"], 0);
    let cell = pick(game);
    a.send(json!({"type":"move","row":cell.row,"col":cell.col}))
        .await;
    game.select(cell.row.into(), cell.col.into()).unwrap();
    a.expect("moved").await;
    if game.to_move().is_some() {
        assert_eq!(a.expect("moved").await["seat"], 1, "the bot moves again");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_in_play_survive_a_graceful_restart_with_their_clocks() {
    let dir = common::temp_dir();
    let server = TestServer::start_with(settings_in(&dir)).await;
    let config = timed_config_value("5x5 poison 0,0", 60_000);
    let mut table = Table::open(server.addr, &config).await;
    table.play(3).await;
    let (_carol, _, bot_token, mut bot_game) =
        against_a_bot(server.addr, &config_value("5x6 poison 0,0")).await;
    table.clients[0].send(json!({"type":"sync"})).await;
    let before = table.clients[0].expect("room").await;
    let left_before = before["time_left_ms"][1].as_u64().unwrap();
    assert!(left_before < 60_000, "{before}");
    server.stop().await.unwrap();

    let server = TestServer::start_with(settings_in(&dir)).await;
    let mut lister = server.client().await;
    lister.send(json!({"type":"list_rooms"})).await;
    let rooms = lister.expect("rooms").await;
    let statuses: Vec<&Value> = rooms["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["status"])
        .collect();
    assert_eq!(statuses, [&json!("playing"), &json!("playing")]);
    let after = table.resume(server.addr).await;
    // The clock that was left, not a new turn (and the restart itself charged to nobody).
    let left_after = after["time_left_ms"][1].as_u64().unwrap();
    assert!(
        left_after <= left_before && left_after + 20_000 > left_before,
        "{left_before} ms left before, {left_after} after"
    );
    assert_eq!(after["time_left_ms"][0], 60_000);
    assert!(after["version"].as_u64() > before["version"].as_u64());
    bot_plays_on(server.addr, &bot_token, &mut bot_game).await;
    let record = table.finish(server.addr).await;
    assert_eq!(record.moves.len(), table.game.moves().len());
    record.replay().unwrap();
    server.shut_down().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_in_play_survive_kill_9_of_the_real_server() {
    games_in_play_survive_kill_9(&[]).await;
}

/// With periodic durability, and no sync due for a minute: a move is acknowledged once the
/// operating system has it, so `kill -9` of the process alone still loses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_in_play_survive_kill_9_with_periodic_durability() {
    games_in_play_survive_kill_9(&["--durability", "periodic", "--sync-every-ms", "60000"]).await;
}

/// Plays games with a server started with `args`, kills it (SIGKILL), restarts it and plays
/// every game on to its end: every acknowledged move is there.
async fn games_in_play_survive_kill_9(args: &[&str]) {
    let dir = common::temp_dir();
    let (mut child, addr) = common::spawn_binary(&dir, args, "error");
    let mut tables = Vec::new();
    for (i, notation) in ["4x5 poison 0,0", "5x5 poison 0,0"].iter().enumerate() {
        let mut t = Table::open(addr, &config_value(notation)).await;
        t.play(2 + i).await;
        tables.push(t);
    }
    let (_carol, _, bot_token, mut bot_game) =
        against_a_bot(addr, &config_value("5x6 poison 0,0")).await;
    // Every move above was acknowledged, so it is durable: SIGKILL now, no shutdown code runs.
    child.kill().unwrap();
    child.wait().unwrap();

    let (mut child, addr) = common::spawn_binary(&dir, args, "error");
    for t in &mut tables {
        let snap = t.resume(addr).await;
        assert!(snap.get("time_left_ms").is_none(), "no move timer: {snap}");
    }
    bot_plays_on(addr, &bot_token, &mut bot_game).await;
    for t in &mut tables {
        let record = t.finish(addr).await;
        assert_eq!(record.moves.len(), t.game.moves().len());
        assert_eq!(record.seats, ["alice", "bob"]);
        record.replay().unwrap();
    }
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

/// The journal segments in `dir`, oldest first.
fn journal_segments(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("journal-") && name.ends_with(".log")
        })
        .collect();
    found.sort();
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_journal_tail_left_by_kill_9_is_ignored_and_nothing_acknowledged_lost() {
    let dir = common::temp_dir();
    let (mut child, addr) = common::spawn_binary(&dir, &[], "error");
    let mut t = Table::open(addr, &config_value("5x5 poison 0,0")).await;
    t.play(3).await;
    child.kill().unwrap();
    child.wait().unwrap();
    // What a crash in the middle of an append leaves: the newest segment ends in half a
    // record (a length and a checksum announcing more bytes than follow), and a segment
    // created just before the crash holds nothing whole.
    let torn: &[u8] = &[40, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 2, 5, 0];
    let newest = journal_segments(&dir).pop();
    if let Some(path) = &newest {
        let mut bytes = std::fs::read(path).unwrap();
        bytes.extend_from_slice(torn);
        std::fs::write(path, bytes).unwrap();
    }
    std::fs::write(dir.join("journal-9000000000000000.log"), torn).unwrap();

    // (The moves' own segment is gone if a checkpoint ran before the kill, about a second
    // after the first write: the store's unit tests tear a segment of moves deterministically.)
    let crashed = journal_segments(&dir);

    let (mut child, addr) = common::spawn_binary(&dir, &[], "error");
    t.resume(addr).await;
    // Every segment there at the crash was taken in at the start, then removed.
    let left = journal_segments(&dir);
    assert!(
        left.iter().all(|p| !crashed.contains(p)),
        "{crashed:?} taken in: {left:?}"
    );
    let record = t.finish(addr).await;
    assert_eq!(record.moves.len(), t.game.moves().len());
    record.replay().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
