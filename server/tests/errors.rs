//! Every `error` code, malformed input of every kind (not JSON, unknown type, missing and
//! ill-typed fields, binary frames, an oversized frame), and the server carrying on after it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TestServer, config_value, settings};
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test]
async fn bad_requests_are_answered_and_the_connection_stays() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    let cases = [
        ("not json", "not JSON"),
        ("[1,2]", "JSON object"),
        (r#"{"row":1}"#, "missing field `type`"),
        (r#"{"type":3}"#, "must be a string"),
        (r#"{"type":"teleport"}"#, "unknown variant `teleport`"),
        (r#"{"type":"move","row":1}"#, "missing field `col`"),
        (r#"{"type":"move","row":"1","col":2}"#, "invalid type"),
        (
            r#"{"type":"join_room","room":5,"name":"x"}"#,
            "invalid type",
        ),
        (
            r#"{"type":"create_room","name":"x"}"#,
            "missing field `config`",
        ),
        (
            r#"{"type":"create_room","name":"","config":{"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]]}}"#,
            "name must be 1–32 characters, got 0",
        ),
    ];
    for (text, needle) in cases {
        c.send_text(text).await;
        let e = c.expect_error("bad_request").await;
        assert!(
            e["message"].as_str().unwrap().contains(needle),
            "{text}: {e}"
        );
    }
    c.ws.send(Message::binary(vec![1, 2, 3])).await.unwrap();
    let e = c.expect_error("bad_request").await;
    assert!(e["message"].as_str().unwrap().contains("binary"), "{e}");
    // Still served.
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await;
    assert_eq!(server.metric("jchomp_bad_requests_total").await, 11);
}

#[tokio::test]
async fn invalid_configs_name_field_range_and_value() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    let cases = [
        (config_value("3x4 poison 0,0"), "rows must be 4–15, got 3"),
        (config_value("4x16 poison 0,0"), "cols must be 4–15, got 16"),
        (
            config_value("4x4 poison 0,0 players 5"),
            "players must be 2–4, got 5",
        ),
        (
            config_value("4x4 eat 0x1 poison 0,0"),
            "eat[0] must be 1–3, got 0",
        ),
        (
            json!({"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[]}),
            "poison must list 1–4 cells, got 0",
        ),
        (
            config_value("4x4 poison 4,0"),
            "poison[0] must lie inside the 4×4 board (row 0–3, col 0–3), got [4,0]",
        ),
        (
            json!({"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]],"move_time_ms":0}),
            "move_time_ms must be 10–86400000, got 0",
        ),
        (
            json!({"rows":5,"cols":5,"players":2,"variant":"classic","eat":[1,1],"poison":[[0,0]]}),
            "classic Chomp has no eat size; leave out eat",
        ),
        (
            config_value("5x5 variant classic eat 1x2"),
            "classic Chomp has no eat size; leave out eat",
        ),
        (
            json!({"rows":5,"cols":5,"players":2,"poison":[[0,0]]}),
            "JChomp needs an eat size: eat must be 1–3 rows by 1–3 columns, such as [1,2]",
        ),
        // Classic bars are 1–15 each way (the standard 3×5 is played in `games.rs`), with at
        // least 2 cells.
        (
            config_value("16x5 variant classic"),
            "rows must be 1–15, got 16",
        ),
        (
            config_value("1x1 variant classic"),
            "classic Chomp needs at least 2 cells, got 1×1",
        ),
    ];
    for (cfg, message) in cases {
        c.send(json!({"type":"create_room","name":"x","config":cfg}))
            .await;
        let e = c.expect_error("invalid_config").await;
        assert_eq!(e["message"], message);
    }
    c.send(json!({"type":"list_rooms"})).await;
    assert_eq!(c.expect("rooms").await["rooms"], json!([]));
}

#[tokio::test]
async fn room_errors_and_forbidden_requests() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    // Not in a room.
    for msg in ["sync", "leave", "add_bot"] {
        a.send(json!({"type":msg})).await;
        a.expect_error("forbidden").await;
    }
    a.send(json!({"type":"join_room","room":"nope","name":"a"}))
        .await;
    a.expect_error("no_such_room").await;
    a.send(json!({"type":"spectate","room":"nope"})).await;
    a.expect_error("no_such_room").await;
    a.send(json!({"type":"resume","token":"0123456789abcdef0123456789abcdef"}))
        .await;
    a.expect_error("bad_token").await;
    a.send(json!({"type":"get_game","game":"nope"})).await;
    a.expect_error("no_such_game").await;

    let (room, _) = a.create("a", config_value("4x4 poison 0,0")).await;
    // Joining your own room again, or creating another while seated in a waiting room.
    a.send(json!({"type":"join_room","room":room,"name":"a2"}))
        .await;
    a.expect_error("forbidden").await;
    a.send(json!({"type":"create_room","name":"a","config":config_value("4x4 poison 0,0")}))
        .await;
    let e = a.expect_error("forbidden").await;
    assert!(
        e["message"].as_str().unwrap().contains("send leave first"),
        "{e}"
    );
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    // Full.
    let mut c = server.client().await;
    c.send(json!({"type":"join_room","room":room,"name":"c"}))
        .await;
    c.expect_error("room_full").await;
    // Only the host adds bots; a full room takes none.
    b.send(json!({"type":"add_bot"})).await;
    let e = b.expect_error("forbidden").await;
    assert!(e["message"].as_str().unwrap().contains("host"), "{e}");
    a.send(json!({"type":"add_bot"})).await;
    a.expect_error("room_full").await;
}

#[tokio::test]
async fn room_and_connection_caps() {
    let server = TestServer::start_with(jchomp_server::Settings {
        max_rooms: 1,
        max_connections: 2,
        ..settings()
    })
    .await;
    let mut a = server.client().await;
    a.create("a", config_value("4x4 poison 0,0")).await;
    let mut b = server.client().await;
    b.send(json!({"type":"create_room","name":"b","config":config_value("4x4 poison 0,0")}))
        .await;
    b.expect_error("server_full").await;
    // A third connection is refused with HTTP 503.
    let third = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr)).await;
    match third {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status(), 503),
        other => panic!("expected 503, got {other:?}"),
    }
    drop(b);
    // Once a connection ends, its slot is free again.
    let mut tries = 0;
    loop {
        match tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr)).await {
            Ok(_) => break,
            Err(_) if tries < 50 => {
                tries += 1;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    drop(a);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(server.metric("jchomp_connections_refused_total").await >= 1);
}

#[tokio::test]
async fn an_oversized_frame_closes_with_1009_and_others_carry_on() {
    let server = TestServer::start_with(jchomp_server::Settings {
        max_message_size: 4096,
        ..settings()
    })
    .await;
    let mut other = server.client().await;
    let mut c = server.client().await;
    let big = format!(r#"{{"type":"list_rooms","pad":"{}"}}"#, "x".repeat(10_000));
    c.send_text(&big).await;
    let (texts, close) = c.until_closed().await;
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert_eq!(texts[0]["code"], "bad_request");
    assert_eq!(close.unwrap().code, CloseCode::Size);
    // A message just under the limit is fine.
    let mut d = server.client().await;
    d.send_text(&format!(
        r#"{{"type":"list_rooms","pad":"{}"}}"#,
        "x".repeat(4000)
    ))
    .await;
    d.expect("rooms").await;
    other.send(json!({"type":"list_rooms"})).await;
    other.expect("rooms").await;
}

#[tokio::test]
async fn hostile_input_never_hurts_the_server() {
    let server = TestServer::start().await;
    let mut a = server.client().await;
    let (room, _) = a.create("a", config_value("4x4 eat 2x2 poison 0,0")).await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    let extremes = [i64::MAX, i64::MIN, i64::MAX - 1, -1, 3, 4, 1 << 40];
    for &row in &extremes {
        for &col in &extremes {
            a.send(json!({"type":"move","row":row,"col":col})).await;
            a.expect_rejected("out_of_range").await;
        }
    }
    let junk = [
        r#"{"type":"move","row":1e300,"col":0}"#.to_string(),
        r#"{"type":"move","row":1.5,"col":0}"#.to_string(),
        r#"{"type":"move","row":99999999999999999999999,"col":0}"#.to_string(),
        format!("{}{}", "[".repeat(10_000), "]".repeat(10_000)),
        r#"{"type":"join_room","room":"\u0000","name":"\ud800"}"#.to_string(),
        r#"{"type":"create_room","name":"x","config":{"rows":-9223372036854775808,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]]}}"#.to_string(),
        r#"{"type":"create_room","name":"x","config":{"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[9223372036854775807,-9223372036854775808]]}}"#.to_string(),
        r#"{"type":"list_games","limit":4294967295}"#.to_string(),
        r#"{"type":"get_game","game":""}"#.to_string(),
        format!(r#"{{"type":"resume","token":"{}"}}"#, "t".repeat(60_000)),
        "\"just a string\"".to_string(),
        "null".to_string(),
        String::new(),
    ];
    for text in &junk {
        b.send_text(text).await;
        let v = b.recv().await;
        assert!(v["type"] == "error" || v["type"] == "games", "{text}: {v}");
    }
    // The game still works.
    a.send(json!({"type":"move","row":2,"col":2})).await;
    a.expect("moved").await;
    b.expect("moved").await;
}
