//! `analyze` over real WebSockets: a room created with analysis answers with the engine's exact
//! values, a room without it refuses until its game is over, stored games are analysed at any
//! move index, a big board under a tiny cap answers `unknown`, three or four players are
//! refused, positions played under the rule options are analysed as the test kit's brute-force
//! model values them, bad input is refused in words, a connection has a few analyses under way at most,
//! and a classic room's `level:5` bot plays (and its game is analysed) from the classic
//! database; small classic bars (the standard 3×5 down to 1×2) are analysed as the test kit's
//! solver of classic Chomp values them, and every kind of bot plays them to the end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Client, TestServer, config_value, full_room, local_game, pick, play_out, settings};
use jchomp_engine::classic::{ClassicLibrary, Value as Won, shape_of};
use jchomp_engine::search::{Outcome, Table, analyze};
use jchomp_protocol::rules::{Config, Game, Position};
use jchomp_testkit::brute::{self, Memo, Outcome as Kit};
use jchomp_testkit::classic::{self, Solver};
use jchomp_testkit::model::Model;
use jchomp_testkit::server::CLASSIC_BOX;
use serde_json::{Value, json};
use std::time::Duration;

/// A server whose analyses have time enough, even in a debug build, to solve the small
/// positions of these tests exactly.
async fn patient_server() -> TestServer {
    TestServer::start_with(jchomp_server::Settings {
        analysis_time: Duration::from_secs(20),
        ..settings()
    })
    .await
}

/// The configuration of a board notation, with analysis on.
fn with_analysis(notation: &str) -> Value {
    let mut cfg = config_value(notation);
    cfg["analysis"] = json!(true);
    cfg
}

/// The engine's exact values of every selection, in the protocol's shape.
fn exact(config: &Config, position: &Position) -> Value {
    let mut table = Table::with_megabytes(1);
    let (values, _) = analyze(config, position, &mut table, None, None).unwrap();
    let moves: Vec<Value> = values
        .iter()
        .map(|v| {
            let (value, plies) = match v.value.unwrap() {
                (Outcome::Win, p) => ("win", p),
                (Outcome::Loss, p) => ("loss", p),
                (Outcome::Tie, _) => ("tie", None),
            };
            json!({"row": v.cell.row, "col": v.cell.col, "value": value, "plies": plies})
        })
        .collect();
    json!(moves)
}

/// The position of `game` after its first `index` moves.
fn position_at(game: &Game, index: usize) -> Position {
    let mut p = Position::start(game.config());
    for m in &game.moves()[..index] {
        p.play(game.config(), m.cell);
    }
    p
}

/// Sends `request` and returns the next message, which must be an analysis.
async fn analysis(c: &mut Client, request: Value) -> Value {
    c.send(request).await;
    c.expect("analysis").await
}

/// Sends `request` and returns the message of the error with `code` that answers it.
async fn refused(c: &mut Client, request: Value, code: &str) -> String {
    c.send(request).await;
    let e = c.expect_error(code).await;
    e["message"].as_str().unwrap().to_string()
}

/// The stored record of `game`, as JSON.
async fn record(c: &mut Client, game: &str) -> Value {
    c.send(json!({"type":"get_game","game":game})).await;
    c.expect("game").await["record"].clone()
}

/// A game of `cfg` played to its end by people and stored; returns its id, its record and its
/// players (their room stays open as long as they are connected).
async fn stored_game(server: &TestServer, cfg: &Value) -> (String, Value, Vec<Client>) {
    let (room, mut clients, version) = full_room(server, cfg).await;
    play_out(&mut clients, cfg, version).await;
    let record = record(&mut clients[0], &room).await;
    (room, record, clients)
}

/// A room of `cfg` whose seats people have taken, its clients (index = seat) and the local copy
/// of its game, which has started.
async fn started(server: &TestServer, cfg: &Value) -> (String, Vec<Client>, Game) {
    let (room, clients, _) = full_room(server, cfg).await;
    (room, clients, local_game(cfg))
}

/// Seat `seat` plays (row, col) in `game`; every client reads the `moved`.
async fn play(clients: &mut [Client], game: &mut Game, seat: usize, row: u8, col: u8) {
    clients[seat]
        .send(json!({"type":"move","row":row,"col":col}))
        .await;
    game.select(row.into(), col.into()).unwrap();
    for c in clients.iter_mut() {
        c.expect("moved").await;
    }
}

#[tokio::test]
async fn a_room_created_with_analysis_answers_with_the_engines_values() {
    let server = patient_server().await;
    let cfg = with_analysis("4x5 eat 1x2 poison 0,0");
    let (room, mut clients, mut game) = started(&server, &cfg).await;
    play(&mut clients, &mut game, 0, 3, 3).await;
    play(&mut clients, &mut game, 1, 2, 0).await;
    // Anyone who knows the room may ask, seated or not; the room hears nothing of it.
    let mut observer = server.client().await;
    let now = analysis(&mut observer, json!({"type":"analyze","room":room})).await;
    let moves = exact(game.config(), game.position());
    assert_eq!(
        now,
        json!({"type":"analysis","room":room,"index":2,"to_move":0,"moves":moves})
    );
    assert!(!moves.as_array().unwrap().is_empty());
    let earlier = analysis(
        &mut clients[1],
        json!({"type":"analyze","room":room,"index":1}),
    )
    .await;
    assert_eq!(earlier["to_move"], 1);
    assert_eq!(
        earlier["moves"],
        exact(game.config(), &position_at(&game, 1))
    );
    assert_eq!(earlier.get("game"), None);
    // The room's configuration says analysis is on.
    clients[0].send(json!({"type":"sync"})).await;
    assert_eq!(clients[0].expect("room").await["config"], cfg);
    assert_eq!(server.metric("jchomp_analyses_total").await, 2);
}

#[tokio::test]
async fn a_room_without_analysis_refuses_until_its_game_is_over_and_stored_games_are_analysed() {
    let server = patient_server().await;
    let cfg = config_value("4x4 eat 1x1 poison 0,0");
    let (room, mut clients, mut game) = started(&server, &cfg).await;
    play(&mut clients, &mut game, 0, 3, 3).await;
    let mut observer = server.client().await;
    let ask_room = json!({"type":"analyze","room":room});
    let message = refused(&mut observer, ask_room.clone(), "forbidden").await;
    assert_eq!(
        message,
        format!(
            "room {room} was created without analysis; its position may be analysed once its game is over"
        )
    );
    refused(&mut clients[1], ask_room.clone(), "forbidden").await;
    // Seat 1 eats the poison: the game is over and its room may be analysed.
    play(&mut clients, &mut game, 1, 0, 0).await;
    let end = analysis(&mut observer, ask_room).await;
    assert_eq!(
        end,
        json!({"type":"analysis","room":room,"index":2,"to_move":null,"moves":[]})
    );
    let first = analysis(
        &mut observer,
        json!({"type":"analyze","room":room,"index":1}),
    )
    .await;
    let after_one = exact(game.config(), &position_at(&game, 1));
    assert_eq!(first["moves"], after_one);
    // Once stored, the game is analysed by its id at any move index.
    clients[0].expect("room").await;
    let stored = analysis(
        &mut observer,
        json!({"type":"analyze","game":room,"index":1}),
    )
    .await;
    assert_eq!(
        stored,
        json!({"type":"analysis","game":room,"index":1,"to_move":1,"moves":after_one})
    );
    let start = analysis(
        &mut observer,
        json!({"type":"analyze","game":room,"index":0}),
    )
    .await;
    assert_eq!(start["moves"], exact(game.config(), &position_at(&game, 0)));
    let last = analysis(&mut observer, json!({"type":"analyze","game":room})).await;
    assert_eq!(
        (last["index"].clone(), last["to_move"].clone()),
        (json!(2), Value::Null)
    );
    // Its record is written as before analysis existed.
    let record = record(&mut observer, &room).await;
    assert_eq!(record["config"], cfg);
    assert_eq!(record["config"].get("analysis"), None);
}

#[tokio::test]
async fn a_game_played_with_analysis_keeps_it_in_its_record() {
    let server = TestServer::start().await;
    let (_, record, _) = stored_game(&server, &with_analysis("4x4 eat 1x1 poison 0,0")).await;
    assert_eq!(record["config"]["analysis"], true);
    let record: jchomp_protocol::record::Record = serde_json::from_value(record).unwrap();
    record.replay().unwrap();
}

#[tokio::test]
async fn a_position_given_outright_is_analysed_as_the_same_position_of_a_stored_game() {
    let server = patient_server().await;
    for notation in ["4x5 eat 1x1 poison 0,0", "3x5 variant classic poison 0,0"] {
        let cfg = config_value(notation);
        let (room, record, _players) = stored_game(&server, &cfg).await;
        let moves: Vec<Value> = record["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| json!([m["row"], m["col"]]))
            .collect();
        let mut c = server.client().await;
        for index in [0, 1, moves.len() / 2] {
            let stored =
                analysis(&mut c, json!({"type":"analyze","game":room,"index":index})).await;
            // The moves up to the position, or all of them and an index: the same answer.
            let given = analysis(
                &mut c,
                json!({"type":"analyze","config":cfg,"moves":moves[..index]}),
            )
            .await;
            let stepped = analysis(
                &mut c,
                json!({"type":"analyze","config":cfg,"moves":moves,"index":index}),
            )
            .await;
            for a in [&given, &stepped] {
                assert_eq!(a["moves"], stored["moves"], "{notation} at {index}");
                assert_eq!(a["to_move"], stored["to_move"]);
                assert_eq!(a["index"], index);
                assert!(a.get("room").is_none() && a.get("game").is_none(), "{a}");
            }
        }
    }
}

#[tokio::test]
async fn bad_requests_are_refused_in_words() {
    let server = TestServer::start().await;
    let (room, record, _players) =
        stored_game(&server, &config_value("4x4 eat 1x1 poison 0,0")).await;
    let n = record["moves"].as_array().unwrap().len();
    let mut c = server.client().await;
    let out_of_range = |what: &str, index: &dyn std::fmt::Display| {
        format!("index must be 0–{n} (the moves played in {what} {room}), got {index}")
    };
    let exactly_one = r#"analyze names a room, a stored game or a position: give exactly one of "room", "game" and "config""#;
    let cases = [
        (
            json!({"game":room,"index":n + 1}),
            "bad_request",
            out_of_range("game", &(n + 1)),
        ),
        (
            json!({"game":room,"index":-1}),
            "bad_request",
            out_of_range("game", &-1),
        ),
        (
            json!({"game":room,"index":i64::MAX}),
            "bad_request",
            out_of_range("game", &i64::MAX),
        ),
        (
            json!({"room":room,"index":n + 5}),
            "bad_request",
            out_of_range("room", &(n + 5)),
        ),
        (
            json!({"game":"zzz"}),
            "no_such_game",
            r#"no stored game has id "zzz""#.to_string(),
        ),
        (
            json!({"room":"zzz"}),
            "no_such_room",
            r#"no room has id "zzz""#.to_string(),
        ),
        (
            json!({"room":room,"game":room}),
            "bad_request",
            exactly_one.to_string(),
        ),
        (json!({"index":0}), "bad_request", exactly_one.to_string()),
        (
            json!({"room":room,"config":config_value("4x4 eat 1x1 poison 0,0")}),
            "bad_request",
            exactly_one.to_string(),
        ),
        // A position given outright: its rules, then each move, are checked.
        (
            json!({"config":{"rows":4,"cols":4,"players":2,"poison":[[0,0]]}}),
            "invalid_config",
            "JChomp needs an eat size: eat must be 1–3 rows by 1–3 columns, such as [1,2]"
                .to_string(),
        ),
        (
            json!({"config":config_value("4x4 eat 1x1 poison 0,0"),"moves":[[3,3],[3,3]]}),
            "bad_request",
            "move 1 (3,3) is refused: part of the 1×1 selection at (3,3) is already eaten"
                .to_string(),
        ),
        (
            json!({"config":config_value("4x4 eat 1x1 poison 0,0"),"moves":[[3,3]],"index":2}),
            "bad_request",
            "index must be 0–1 (the moves played in the position given), got 2".to_string(),
        ),
        (
            json!({"config":config_value("4x4 eat 1x1 poison 0,0 players 3")}),
            "analysis_unavailable",
            "analysis covers two-player games only; the position given has 3 players".to_string(),
        ),
    ];
    for (mut request, code, expected) in cases {
        request["type"] = json!("analyze");
        let message = refused(&mut c, request.clone(), code).await;
        assert_eq!(message, expected, "{request}");
    }
    let message = refused(
        &mut c,
        json!({"type":"analyze","game":room,"index":"first"}),
        "bad_request",
    )
    .await;
    assert!(message.contains("invalid type"), "{message}");
    // Still served.
    let last = analysis(&mut c, json!({"type":"analyze","game":room})).await;
    assert_eq!(last["index"], n);
}

#[tokio::test]
async fn three_or_four_players_are_refused_with_their_own_code() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    let mut hosts = Vec::new();
    for players in [3, 4] {
        let cfg = with_analysis(&format!("5x5 eat 1x1 poison 0,0 players {players}"));
        let mut host = server.client().await;
        let (room, _) = host.create("host", cfg).await;
        hosts.push(host);
        let message = refused(
            &mut c,
            json!({"type":"analyze","room":room}),
            "analysis_unavailable",
        )
        .await;
        assert_eq!(
            message,
            format!("analysis covers two-player games only; room {room} has {players} players")
        );
    }
    // A stored game of three players too.
    let (room, _, _) =
        stored_game(&server, &config_value("4x4 eat 1x1 poison 0,0 players 3")).await;
    let message = refused(
        &mut c,
        json!({"type":"analyze","game":room,"index":0}),
        "analysis_unavailable",
    )
    .await;
    assert_eq!(
        message,
        format!("analysis covers two-player games only; game {room} has 3 players")
    );
}

#[tokio::test]
async fn a_big_board_under_a_tiny_cap_answers_unknown() {
    let server = TestServer::start_with(jchomp_server::Settings {
        analysis_time: Duration::from_millis(1),
        ..settings()
    })
    .await;
    let mut c = server.client().await;
    let (room, _) = c
        .create("host", with_analysis("15x15 eat 2x2 poison 0,0"))
        .await;
    let a = analysis(&mut c, json!({"type":"analyze","room":room})).await;
    assert_eq!(
        (a["index"].clone(), a["to_move"].clone()),
        (json!(0), json!(0))
    );
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 196);
    assert_eq!(moves[0], json!({"row":0,"col":0,"value":"loss","plies":1}));
    let unknown: Vec<&Value> = moves.iter().filter(|m| m["value"] == "unknown").collect();
    assert!(unknown.len() >= 170, "{} unknown", unknown.len());
    assert!(unknown.iter().all(|m| m["plies"].is_null()));
}

#[tokio::test]
async fn a_connection_has_a_few_analyses_under_way_at_most() {
    let server = TestServer::start_with(jchomp_server::Settings {
        analysis_time: Duration::from_millis(400),
        analysis_threads: 1,
        ..settings()
    })
    .await;
    let per_connection = settings().analyses_per_connection;
    let mut c = server.client().await;
    let (room, _) = c
        .create("host", with_analysis("15x15 eat 2x2 poison 0,0"))
        .await;
    let ask = json!({"type":"analyze","room":room});
    for _ in 0..=per_connection {
        c.send(ask.clone()).await;
    }
    let mut answers = Vec::new();
    for _ in 0..=per_connection {
        answers.push(c.recv().await);
    }
    let busy: Vec<&Value> = answers.iter().filter(|m| m["type"] == "error").collect();
    assert_eq!(busy.len(), 1, "{answers:?}");
    assert_eq!(busy[0]["code"], "analysis_unavailable");
    assert_eq!(
        busy[0]["message"],
        format!(
            "this connection already has {per_connection} analyses under way; wait for an answer first"
        )
    );
    let answered = answers.iter().filter(|m| m["type"] == "analysis").count();
    assert_eq!(answered, per_connection);
    // Once they are answered, the connection may ask again.
    analysis(&mut c, ask).await;
}

#[tokio::test]
async fn small_classic_bars_are_analysed_as_the_kits_solver_values_them() {
    let server = patient_server().await;
    for (notation, lengths) in [
        ("3x5 variant classic poison 0,0", &[5u8, 5, 5][..]),
        ("1x2 variant classic poison 0,0", &[2]),
        ("4x1 variant classic poison 0,0", &[1, 1, 1, 1]),
    ] {
        let cfg = with_analysis(notation);
        let (room, mut clients, _) = started(&server, &cfg).await;
        let now = analysis(
            &mut clients[0],
            json!({"type":"analyze","room":room,"index":0}),
        )
        .await;
        let want: Vec<Value> = Solver::new()
            .moves(&classic::rows(lengths))
            .into_iter()
            .map(|((r, c), outcome, plies)| {
                let value = if outcome == Kit::Win { "win" } else { "loss" };
                json!({"row":r,"col":c,"value":value,"plies":plies})
            })
            .collect();
        assert_eq!(now["moves"], json!(want), "{notation}");
        // The bar is a first-player win: some first selection wins.
        assert!(want.iter().any(|m| m["value"] == "win"), "{notation}");
    }
}

#[tokio::test]
async fn positions_with_rule_options_are_analysed_as_the_kits_brute_force_values_them() {
    let server = patient_server().await;
    let mut c = server.client().await;
    for notation in [
        "3x5 variant classic poison 0,0 play normal",
        "3x4 variant classic poison 0,0 no_square_bites",
        "4x4 eat 1x2 poison 1,1 play normal",
        "4x5 variant breaks poison 1,2",
        "4x4 variant breaks poison 3,3 play normal no_square_bites",
    ] {
        let config = jchomp_testkit::board(notation);
        let a = analysis(
            &mut c,
            json!({"type":"analyze","config":config_value(notation)}),
        )
        .await;
        let model = Model::start(&config);
        let want: Vec<Value> = brute::analyze(&model, &mut Memo::new())
            .into_iter()
            .map(|((r, c), outcome, plies)| match outcome {
                Kit::Win => json!({"row":r,"col":c,"value":"win","plies":plies}),
                Kit::Loss => json!({"row":r,"col":c,"value":"loss","plies":plies}),
                Kit::Tie => json!({"row":r,"col":c,"value":"tie","plies":null}),
            })
            .collect();
        assert_eq!(a["moves"], json!(want), "{notation}");
    }
}

#[tokio::test]
async fn every_kind_of_bot_plays_small_classic_bars_to_the_end() {
    let server = TestServer::start().await;
    for notation in [
        "3x5 variant classic poison 0,0",
        "1x2 variant classic poison 0,0",
        "5x1 variant classic poison 0,0",
    ] {
        for bot in ["random", "greedy", "level:1", "level:3", "level:5"] {
            let cfg = config_value(notation);
            let mut a = server.client().await;
            a.create("a", cfg.clone()).await;
            a.send(json!({"type":"add_bot","bot":bot})).await;
            assert_eq!(a.expect("room").await["status"], "playing");
            let mut game = local_game(&cfg);
            while let Some(seat) = game.to_move() {
                if seat == 0 {
                    let cell = pick(&game);
                    a.send(json!({"type":"move","row":cell.row,"col":cell.col}))
                        .await;
                }
                let m = a.expect("moved").await;
                assert_eq!(m["seat"], seat, "{notation} {bot}");
                game.select(m["row"].as_i64().unwrap(), m["col"].as_i64().unwrap())
                    .unwrap();
            }
            let end = a.expect("room").await;
            assert_eq!(end["status"], "finished", "{notation} {bot}");
            assert_eq!(end["result"]["kind"], "poisoned", "{notation} {bot}");
        }
    }
}

#[tokio::test]
async fn a_perfect_bot_plays_from_the_classic_database_and_its_game_is_analysed_from_it() {
    let server = TestServer::start().await;
    // Startup loads nothing.
    assert_eq!(server.http_get("/healthz").await.1, "ok\n");
    assert_eq!(server.metric("jchomp_classic_db_ready").await, 0);
    let cfg = with_analysis("6x6 variant classic poison 0,0");
    let mut a = server.client().await;
    let (room, _) = a.create("a", cfg.clone()).await;
    a.send(json!({"type":"add_bot","bot":"level:5"})).await;
    assert_eq!(a.expect("room").await["status"], "playing");
    // The bot asked for the database (of the tests' small box, which covers the board); wait
    // until it is loaded, so that the bot plays from it from its first move.
    let start = std::time::Instant::now();
    while server.metric("jchomp_classic_db_ready").await == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "no database");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let library = ClassicLibrary::with_box(None, CLASSIC_BOX.0, CLASSIC_BOX.1);
    let db = library.wait().unwrap();
    let mut game = local_game(&cfg);
    let mut observer = server.client().await;
    // A losing opening: the bot is handed a won position and must win it.
    let mut cell = (5, 5);
    loop {
        a.send(json!({"type":"move","row":cell.0,"col":cell.1}))
            .await;
        game.select(cell.0, cell.1).unwrap();
        let mine = a.expect("moved").await;
        if mine["status"] == "finished" {
            break;
        }
        let shape = shape_of(game.position().uneaten()).unwrap();
        assert_eq!(db.lookup(&shape).unwrap().value, Won::Win, "{shape}");
        // The analysis is the database's: every value known.
        let index = game.moves().len();
        let ask = json!({"type":"analyze","room":room,"index":index});
        let now = analysis(&mut observer, ask).await;
        let from_db: Vec<Value> = db
            .analyze(&shape)
            .unwrap()
            .iter()
            .map(|m| {
                let value = if m.solved.value == Won::Win {
                    "win"
                } else {
                    "loss"
                };
                json!({"row":m.row,"col":m.col,"value":value,"plies":m.solved.plies})
            })
            .collect();
        assert_eq!(now["moves"], json!(from_db));
        let bot = a.expect("moved").await;
        assert_eq!(bot["seat"], 1);
        assert_ne!(bot["status"], "finished", "the bot lost: {bot}");
        game.select(bot["row"].as_i64().unwrap(), bot["col"].as_i64().unwrap())
            .unwrap();
        let next = pick(&game);
        cell = (next.row.into(), next.col.into());
    }
    assert_eq!(game.result().and_then(|r| r.loser()), Some(0));
    let end = a.expect("room").await;
    assert_eq!(end["result"], json!({"kind":"poisoned","loser":0}));
    // The stored record replays to the same game.
    let record = record(&mut a, &room).await;
    let record: jchomp_protocol::record::Record = serde_json::from_value(record).unwrap();
    assert_eq!(record.replay().unwrap().moves(), game.moves());
}
