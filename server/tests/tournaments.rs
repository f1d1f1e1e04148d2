//! Tournaments the server runs, through the real server: a Swiss, an arena and an arena of 64
//! built-in levels played to the end, their standings pushed to the creator as games end, their
//! games stored and their rooms closed;
//! and a round robin whose server is killed (SIGKILL) in the middle and restarted, which goes on
//! with nothing lost and nothing played twice; and an open tournament killed after entries and a
//! withdrawal, which keeps them and its start rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value, games_played, logged_in, points};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Long enough for a whole tournament of quick bots on a loaded machine.
const LONG: Duration = Duration::from_secs(120);

fn spec(format: Value, bots: &[&str], board: &str) -> Value {
    json!({"name": "test cup", "format": format, "config": config_value(board), "bots": bots})
}

/// Creates a tournament as a logged-in `name`; returns the client and the first view.
async fn create(addr: SocketAddr, name: &str, spec: Value) -> (Client, Value) {
    let mut c = logged_in(addr, name, true).await;
    c.send(json!({"type": "create_tournament", "tournament": spec}))
        .await;
    let view = c.recv().await;
    assert_eq!(view["type"], "tournament", "{view}");
    (c, view)
}

/// Views pushed to `c` until the tournament is finished; returns them all.
async fn views_to_the_end(c: &mut Client, first: Value) -> Vec<Value> {
    let mut views = vec![first];
    while views.last().unwrap()["status"] != "finished" {
        views.push(c.until_within("tournament", LONG).await);
    }
    views
}

fn finished_games(view: &Value) -> usize {
    view["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g.get("result").is_some())
        .count()
}

/// Every game of `view` is stored with the result the tournament shows.
async fn games_are_stored(c: &mut Client, view: &Value) {
    for g in view["games"].as_array().unwrap() {
        c.send(json!({"type": "get_game", "game": g["game"]})).await;
        let record = c.until("game").await["record"].clone();
        assert_eq!(record["result"], g["result"], "{g}");
        assert_eq!(record["seats"], g["seats"], "{g}");
    }
}

/// `GET path`: the JSON body.
async fn get_json(addr: SocketAddr, path: &str) -> Value {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (_, body) = buf.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}

#[tokio::test]
async fn a_swiss_of_built_in_levels_is_played_to_the_end_with_standings_pushed() {
    let server = TestServer::start().await;
    let bots = ["level:1", "level:2", "random", "greedy", "level:1,seed=7"];
    let format = json!({"kind": "swiss", "rounds": 3});
    let (mut c, first) = create(
        server.addr,
        "swissmaker",
        spec(format, &bots, "4x4 poison 0,0"),
    )
    .await;
    let id = first["id"].as_str().unwrap().to_string();
    let views = views_to_the_end(&mut c, first).await;
    let last = views.last().unwrap().clone();
    assert_eq!(last["round"], 3);
    assert_eq!(
        last["games"].as_array().unwrap().len(),
        6,
        "two games a round"
    );
    assert_eq!(finished_games(&last), 6);
    assert_eq!(points(&last), 6.0 + 3.0, "a point a game and a point a bye");
    let pairs: BTreeSet<BTreeSet<String>> = last["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    assert_eq!(pairs.len(), 6, "nobody met twice");
    // Pushed as games end; changes less than the server's 100 ms apart come in one view, so
    // how many views there are depends on the games' speed, but never goes back.
    let counts: Vec<usize> = views.iter().map(finished_games).collect();
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]) && counts.len() >= 2,
        "standings pushed as games ended: {counts:?}"
    );
    games_are_stored(&mut c, &last).await;
    let api = get_json(server.addr, &format!("/api/tournaments/{id}")).await;
    let mut pushed = last.clone();
    pushed.as_object_mut().unwrap().remove("type");
    assert_eq!(api, pushed, "the API serves the view pushed");
    c.send(json!({"type": "list_tournaments"})).await;
    let list = c.until("tournaments").await;
    assert_eq!(list["tournaments"][0]["id"], id.as_str());
    assert_eq!(list["tournaments"][0]["finished_games"], 6);
}

#[tokio::test]
async fn an_arena_pairs_free_entrants_until_its_time_is_up() {
    let server = TestServer::start().await;
    let bots = ["level:1", "level:2", "random", "greedy"];
    let format = json!({"kind": "arena", "duration_ms": 1500});
    let (mut c, first) = create(
        server.addr,
        "arenamaker",
        spec(format, &bots, "4x4 poison 0,0"),
    )
    .await;
    let views = views_to_the_end(&mut c, first).await;
    let last = views.last().unwrap();
    let games = last["games"].as_array().unwrap();
    // The view lists the recent games; those before `games_from` are finished too.
    let all = last["games_from"].as_u64().unwrap_or(0) as usize + games.len();
    assert!(all >= 4, "entrants are paired again as they finish: {last}");
    assert_eq!(finished_games(last), games.len());
    assert_eq!(points(last), all as f64);
    let played = games_played(last);
    assert_eq!(played, 2 * all as u64);
    games_are_stored(&mut c, last).await;
    no_room_lingers(&mut c).await;
}

/// Every finished tournament room closes once its game is over and nobody watches it (a room
/// lingering for the linger time would fill the server in a long arena of quick games).
async fn no_room_lingers(c: &mut Client) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        c.send(json!({"type": "list_rooms"})).await;
        let rooms = c.until("rooms").await["rooms"].clone();
        if rooms.as_array().unwrap().is_empty() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "finished tournament rooms linger: {rooms}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_arena_of_64_built_in_levels_is_played_to_the_end() {
    let server = TestServer::start().await;
    let bots: Vec<String> = (1..=64).map(|s| format!("random,seed={s}")).collect();
    let bots: Vec<&str> = bots.iter().map(String::as_str).collect();
    let format = json!({"kind": "arena", "duration_ms": 1000});
    let (mut c, first) = create(
        server.addr,
        "bigarena",
        spec(format, &bots, "4x4 poison 0,0"),
    )
    .await;
    assert_eq!(first["entrants"].as_array().unwrap().len(), 64);
    let views = views_to_the_end(&mut c, first).await;
    let last = views.last().unwrap();
    let games = last["games"].as_array().unwrap();
    // The view lists the recent games; those before `games_from` are finished too.
    let played = last["games_from"].as_u64().unwrap_or(0) as usize + games.len();
    assert!(played >= 32, "everyone is paired at once: {played}");
    assert_eq!(finished_games(last), games.len());
    assert_eq!(points(last), played as f64);
}

#[tokio::test]
async fn a_tournament_is_refused_in_words() {
    let server = TestServer::start().await;
    let mut guest = Client::connect(server.addr).await;
    let format = json!({"kind": "round_robin"});
    let s = spec(format.clone(), &["level:1", "random"], "4x4 poison 0,0");
    guest
        .send(json!({"type": "create_tournament", "tournament": s}))
        .await;
    guest.expect_error("forbidden").await;
    let mut c = logged_in(server.addr, "maker", true).await;
    let s = spec(format, &["level:1"], "4x4 poison 0,0");
    c.send(json!({"type": "create_tournament", "tournament": s}))
        .await;
    let e = c.expect_error("bad_request").await;
    assert!(e["message"].as_str().unwrap().contains("got 1"), "{e}");
    c.send(json!({"type": "watch_tournament", "tournament": "nope"}))
        .await;
    c.expect_error("no_such_tournament").await;
}

/// The server process; killed (SIGKILL) when dropped.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_killed_mid_way_goes_on_after_a_restart_with_nothing_lost_or_replayed() {
    let dir = common::temp_dir();
    let (child, addr) = common::spawn_binary(&dir, &[], "error");
    let server = Server(child);
    let bots = [
        "level:1",
        "level:2",
        "random",
        "greedy",
        "level:1,seed=3",
        "random,seed=4",
    ];
    let format = json!({"kind": "round_robin"});
    let (mut c, first) = create(addr, "rrmaker", spec(format, &bots, "9x9 poison 0,0")).await;
    let id = first["id"].as_str().unwrap().to_string();
    let mut before = first;
    while finished_games(&before) < 3 {
        before = c.until_within("tournament", LONG).await;
    }
    drop(server); // SIGKILL mid-tournament
    assert_ne!(before["status"], "finished", "killed in the middle");

    let (child, addr) = common::spawn_binary(&dir, &[], "error");
    let _server = Server(child);
    let mut w = Client::connect(addr).await;
    w.send(json!({"type": "watch_tournament", "tournament": id}))
        .await;
    let first = w.until_within("tournament", LONG).await;
    let views = views_to_the_end(&mut w, first).await;
    let last = views.last().unwrap();
    let games = last["games"].as_array().unwrap();
    assert_eq!(games.len(), 30, "every pair in both seat orders, once");
    let orders: BTreeSet<String> = games.iter().map(|g| g["seats"].to_string()).collect();
    assert_eq!(orders.len(), 30, "no game played twice");
    for g in before["games"].as_array().unwrap() {
        if g.get("result").is_some() {
            assert!(games.contains(g), "{g} was lost or replayed");
        }
    }
    assert_eq!(finished_games(last), 30);
    assert_eq!(points(last), 30.0);
    assert_eq!(last["crosstable"].as_array().unwrap().len(), 6);
    games_are_stored(&mut w, last).await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entries_withdrawals_and_the_start_rule_survive_a_kill_and_a_restart() {
    let dir = common::temp_dir();
    let (child, addr) = common::spawn_binary(&dir, &[], "error");
    let server = Server(child);
    let mut s = spec(
        json!({"kind": "swiss", "rounds": 1}),
        &["level:1"],
        "4x4 poison 0,0",
    );
    s["start"] = json!({"when_joined": 4});
    let (_maker, first) = create(addr, "openmaker", s).await;
    assert_eq!(first["status"], "open");
    let id = first["id"].as_str().unwrap().to_string();
    let mut p1 = logged_in(addr, "pat1", true).await;
    p1.send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    p1.until("tournament").await;
    let mut p2 = logged_in(addr, "pat2", true).await;
    p2.send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    p2.until("tournament").await;
    p2.send(json!({"type": "withdraw_tournament", "tournament": id}))
        .await;
    let before = loop {
        let v = p2.until("tournament").await;
        if v["entrants"].as_array().unwrap().len() == 2 {
            break v;
        }
    };
    drop(server); // SIGKILL while open

    let (child, addr) = common::spawn_binary(&dir, &[], "error");
    let _server = Server(child);
    let mut w = Client::connect(addr).await;
    w.send(json!({"type": "watch_tournament", "tournament": id}))
        .await;
    let after = w.until_within("tournament", LONG).await;
    assert_eq!(after["status"], "open");
    assert_eq!(
        after["entrants"], before["entrants"],
        "joins and withdrawals kept"
    );
    assert_eq!(after["entrants"], json!(["level:1", "pat1"]));
    assert_eq!(after["spec"]["start"], json!({"when_joined": 4}));
    // p1 comes back on a new connection, then two more join: the fourth starts it.
    let mut p1 = logged_in(addr, "pat1", false).await;
    p1.send(json!({"type": "join_tournament", "tournament": id}))
        .await;
    assert_eq!(
        p1.until("tournament").await["entrants"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    for name in ["pat3", "pat4"] {
        let mut c = logged_in(addr, name, true).await;
        c.send(json!({"type": "join_tournament", "tournament": id}))
            .await;
        c.until("tournament").await;
    }
    let playing = loop {
        let v = w.until_within("tournament", LONG).await;
        if v["status"] == "playing" {
            break v;
        }
    };
    assert_eq!(
        playing["entrants"],
        json!(["level:1", "pat1", "pat3", "pat4"])
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A long arena of quick games: the views pushed list the recent games only (the last 200 and
/// any older one still in play), while `watch_tournament` with `all_games` and the API list them
/// all, the same games in the same order.
#[tokio::test]
async fn a_long_arenas_pushed_views_list_its_recent_games_and_the_api_all_of_them() {
    let server = TestServer::start().await;
    // Sixteen entrants, eight games at a time: well over 200 games even on a loaded machine.
    let bots: Vec<String> = (1..=16).map(|s| format!("random,seed={s}")).collect();
    let bots: Vec<&str> = bots.iter().map(String::as_str).collect();
    let format = json!({"kind": "arena", "duration_ms": 5000});
    let (mut c, first) = create(
        server.addr,
        "longmaker",
        spec(format, &bots, "4x4 poison 0,0"),
    )
    .await;
    let id = first["id"].as_str().unwrap().to_string();
    let views = views_to_the_end(&mut c, first).await;
    for v in &views {
        let listed = v["games"].as_array().unwrap();
        let older_in_play = listed
            .iter()
            .rev()
            .skip(200)
            .filter(|g| g.get("result").is_none())
            .count();
        assert!(
            listed.len() <= 200 + older_in_play,
            "{} listed",
            listed.len()
        );
    }
    let last = views.last().unwrap();
    let from = last["games_from"].as_u64().unwrap_or(0) as usize;
    assert!(
        from > 0,
        "a 5 s arena of sixteen random bots on 4x4 plays more than 200 games"
    );
    assert_eq!(last["games"].as_array().unwrap().len(), 200);
    let api = get_json(server.addr, &format!("/api/tournaments/{id}")).await;
    let all = api["games"].as_array().unwrap();
    assert!(api.get("games_from").is_none());
    assert_eq!(all.len(), from + 200);
    assert_eq!(&all[from..], last["games"].as_array().unwrap().as_slice());
    let mut w = Client::connect(server.addr).await;
    w.send(json!({"type": "watch_tournament", "tournament": id, "all_games": true}))
        .await;
    let whole = w.until("tournament").await;
    assert_eq!(whole["games"], api["games"]);
    let played = games_played(&api);
    assert_eq!(
        played,
        2 * all.len() as u64,
        "the standings count every game"
    );
}
