//! Full games over real WebSockets: 2, 3 and 4 players, a tie, classic Chomp (the standard 3×5
//! bar's example game among them), spectators, the room list, and many rooms played in parallel.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    Client, TestServer, config_value, full_room, local_game, pick_last, play_out, play_out_with,
    timed_config_value,
};
use jchomp_protocol::rules::{Cell, Game};
use jchomp_testkit::seeds;
use serde_json::json;

#[tokio::test]
async fn two_player_game_to_poison() {
    let server = TestServer::start().await;
    let cfg = config_value("4x5 eat 1x2 poison 0,0");
    let mut a = server.client().await;
    let (room, _) = a.create("alice", cfg.clone()).await;
    let mut b = server.client().await;
    let (seat, token, snap) = b.join(&room, "bob").await;
    assert_eq!(seat, 1);
    assert_eq!(token.len(), 32);
    assert_eq!(snap["status"], "playing");
    assert_eq!(snap["to_move"], 0);
    assert_eq!(
        snap["seats"][0],
        json!({"name":"alice","bot":false,"connected":true})
    );
    assert_eq!(
        snap["seats"][1],
        json!({"name":"bob","bot":false,"connected":true})
    );
    assert_eq!(snap["eaten"], json!([]));
    assert_eq!(snap["result"], json!(null));
    let a_snap = a.expect("room").await;
    assert_eq!(a_snap, snap);
    let version = snap["version"].as_u64().unwrap();
    let end = play_out(&mut [a, b], &cfg, version).await;
    // play_out checked the result and the number of moves; the final snapshot must also list
    // as eaten exactly the two cells (1×2) of every move, and nobody to move.
    let mut expected: Vec<[u64; 2]> = end["moves"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| {
            let (row, col) = (m["row"].as_u64().unwrap(), m["col"].as_u64().unwrap());
            [[row, col], [row, col + 1]]
        })
        .collect();
    expected.sort_unstable();
    let mut eaten: Vec<[u64; 2]> = serde_json::from_value(end["eaten"].clone()).unwrap();
    eaten.sort_unstable();
    assert_eq!(eaten, expected);
    assert_eq!(end["to_move"], json!(null));
}

#[tokio::test]
async fn three_and_four_player_games() {
    let server = TestServer::start().await;
    for players in [3, 4] {
        let cfg = config_value(&format!("5x6 poison 0,0 poison 4,5 players {players}"));
        let (_, mut clients, version) = full_room(&server, &cfg).await;
        let end = play_out(&mut clients, &cfg, version).await;
        assert_eq!(end["result"]["kind"], "poisoned");
        assert_eq!(end["seats"].as_array().unwrap().len(), players as usize);
    }
}

#[tokio::test]
async fn a_move_that_leaves_no_selection_is_a_tie() {
    let server = TestServer::start().await;
    // Every 2×2 block of a 4×4 board covers a centre cell: eating the centre ends the game.
    let cfg = config_value("4x4 eat 2x2 poison 0,0");
    let (_, mut clients, version) = full_room(&server, &cfg).await;
    clients[0]
        .send(json!({"type":"move","row":1,"col":1}))
        .await;
    for c in clients.iter_mut() {
        let m = c.expect("moved").await;
        assert_eq!(m["version"], version + 1);
        assert_eq!(m["status"], "finished");
        assert_eq!(m["to_move"], json!(null));
        assert_eq!(m["result"], json!({"kind":"tie"}));
        let snap = c.expect("room").await;
        assert_eq!(snap["result"], json!({"kind":"tie"}));
        assert_eq!(snap["eaten"], json!([[1, 1], [1, 2], [2, 1], [2, 2]]));
        assert_eq!(snap["to_move"], json!(null));
    }
}

#[tokio::test]
async fn classic_games_for_two_and_four_players() {
    let server = TestServer::start().await;
    for players in [2, 4] {
        let cfg = config_value(&format!(
            "5x6 variant classic poison 0,0 poison 2,1 players {players}"
        ));
        assert_eq!(cfg["variant"], "classic");
        assert_eq!(cfg.get("eat"), None);
        let (room, mut clients, version) = full_room(&server, &cfg).await;
        // The classic rules answer a refused move: the cell is the selection.
        clients[0]
            .send(json!({"type":"move","row":5,"col":0}))
            .await;
        let r = clients[0].expect_rejected("out_of_range").await;
        assert_eq!(r["message"], "the cell (5,0) is outside the 5×6 board");
        // Eating from the bottom-right corner one cell at a time: a long game.
        let end = play_out_with(&mut clients, &cfg, version, pick_last).await;
        assert_eq!(end["config"], cfg);
        assert_eq!(end["result"]["kind"], "poisoned");
        let moves = end["moves"].as_array().unwrap().len();
        assert!(moves > 2 * players, "{moves} moves");
        // The stored record replays through the rules to the same game.
        clients[0]
            .send(json!({"type":"get_game","game":room}))
            .await;
        let record = clients[0].expect("game").await["record"].clone();
        assert_eq!(record["config"], cfg);
        let record: jchomp_protocol::record::Record = serde_json::from_value(record).unwrap();
        let game = record.replay().unwrap();
        assert_eq!(game.moves().len(), moves);
        assert_eq!(game.config(), local_game(&cfg).config());
    }
}

/// The next selection of the standard classic bar's example game.
fn standard_game(game: &Game) -> Cell {
    let (row, col) = seeds::STANDARD_GAME[game.moves().len()];
    Cell::new(row, col)
}

#[tokio::test]
async fn the_standard_classic_bar_plays_its_example_game_to_the_end() {
    let server = TestServer::start().await;
    let cfg = config_value(seeds::STANDARD_BAR);
    assert_eq!(
        cfg,
        json!({"rows":3,"cols":5,"players":2,"variant":"classic","poison":[[0,0]]})
    );
    let (room, mut clients, version) = full_room(&server, &cfg).await;
    // A cell past the short side is refused in the board's own words.
    clients[0]
        .send(json!({"type":"move","row":3,"col":0}))
        .await;
    let r = clients[0].expect_rejected("out_of_range").await;
    assert_eq!(r["message"], "the cell (3,0) is outside the 3×5 board");
    // Every `moved` is checked against the rules as it comes; the first player eats the poison.
    let end = play_out_with(&mut clients, &cfg, version, standard_game).await;
    assert_eq!(end["result"], json!({"kind":"poisoned","loser":0}));
    let moves: Vec<(u8, u8)> = end["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["row"].as_u64().unwrap() as u8,
                m["col"].as_u64().unwrap() as u8,
            )
        })
        .collect();
    assert_eq!(moves, seeds::STANDARD_GAME);
    assert_eq!(end["eaten"].as_array().unwrap().len(), 15);
    clients[0]
        .send(json!({"type":"get_game","game":room}))
        .await;
    let record = clients[0].expect("game").await["record"].clone();
    assert_eq!(record["config"], cfg);
}

#[tokio::test]
async fn spectators_see_everything_and_cannot_move() {
    let server = TestServer::start().await;
    let cfg = config_value("4x4 poison 3,3");
    let (room, mut clients, version) = full_room(&server, &cfg).await;
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"spectate","room":room})).await;
    let snap = spectator.expect("room").await;
    assert_eq!(snap["version"], version);
    assert_eq!(snap["status"], "playing");
    // Spectating does not change the room: the players hear nothing.
    spectator.send(json!({"type":"move","row":0,"col":0})).await;
    spectator.expect_rejected("not_seated").await;
    clients[0]
        .expect_silence(std::time::Duration::from_millis(50))
        .await;
    // The spectator sees the whole game.
    clients.push(spectator);
    let mut players: Vec<Client> = clients.drain(..2).collect();
    let mut spectator = clients.pop().unwrap();
    let end = tokio::join!(play_out(&mut players, &cfg, version), async {
        loop {
            let v = spectator.recv().await;
            if v["type"] == "room" {
                break v;
            }
            assert_eq!(v["type"], "moved");
        }
    });
    assert_eq!(end.0, end.1);
    // Sync gives the same snapshot again.
    spectator.send(json!({"type":"sync"})).await;
    assert_eq!(spectator.expect("room").await, end.1);
}

#[tokio::test]
async fn the_room_list_shows_rooms_seats_and_status() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    a.send(json!({"type":"list_rooms"})).await;
    assert_eq!(a.expect("rooms").await["rooms"], json!([]));
    let cfg = timed_config_value("6x7 eat 1x2 poison 0,0", 30_000);
    let (room, _) = a.create("alice", cfg.clone()).await;
    let mut b = server.client().await;
    b.send(json!({"type":"list_rooms"})).await;
    let rooms = b.expect("rooms").await;
    assert_eq!(
        rooms["rooms"],
        json!([{"room":room,"config":cfg,"seats":[{"name":"alice","bot":false,"connected":true},null],"status":"waiting"}])
    );
    b.join(&room, "bob").await;
    b.send(json!({"type":"list_rooms"})).await;
    assert_eq!(b.expect("rooms").await["rooms"][0]["status"], "playing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_rooms_in_parallel() {
    let server = TestServer::start().await;
    let games = (0..40).map(|i| {
        let server = &server;
        async move {
            let cfg = config_value(&format!(
                "{}x{} eat {}x{} poison 0,0 players {}",
                4 + i % 5,
                4 + i % 7,
                1 + i % 2,
                1 + i % 3,
                2 + i % 3
            ));
            let (_, mut clients, version) = full_room(server, &cfg).await;
            play_out(&mut clients, &cfg, version).await
        }
    });
    let ends = futures_util::future::join_all(games).await;
    assert_eq!(ends.len(), 40);
    assert!(ends.iter().all(|e| e["status"] == "finished"));
    assert_eq!(
        server
            .metric("jchomp_games_finished_total{result=\"poisoned\"}")
            .await
            + server
                .metric("jchomp_games_finished_total{result=\"tie\"}")
                .await,
        40
    );
}
