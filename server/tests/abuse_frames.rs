//! Abuse at the WebSocket frame level, each while a game is being played next to it: invalid
//! UTF-8 in text frames, binary frames, frames and fragmented messages over the size limit, a
//! frame header claiming an absurd length, unmasked frames, reserved opcodes and oversized
//! control frames. Every offender is answered or closed; the game and newcomers never notice.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse_support;
mod common;

use abuse_support::{BINARY, Bystanders, CONTINUATION, Ending, PING, Raw, TEXT, still_serving};
use common::{TestServer, settings};
use jchomp_server::Settings;
use serde_json::Value;

async fn server() -> TestServer {
    TestServer::start_with(Settings {
        max_message_size: 8 * 1024,
        ..settings()
    })
    .await
}

/// The close code the server ends with (panics on a plain end of socket).
fn code(e: &Ending) -> u16 {
    match e {
        Ending::Close(code, _) => *code,
        Ending::Eof(texts) => panic!("no close frame; texts {texts:?}"),
    }
}

#[tokio::test]
async fn invalid_utf8_text_is_closed_with_1007() {
    let server = server().await;
    let mut game = Bystanders::start(&server).await;
    // One frame, and a fragmented message whose bad byte sits in the last fragment.
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    raw.frame(true, TEXT, b"{\"type\":\"sync\xff\xfe\"}").await;
    assert_eq!(code(&raw.ending().await), 1007);
    game.play().await;
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    raw.frame(false, TEXT, b"{\"type\":").await;
    raw.frame(true, CONTINUATION, b"\"\xc3\x28\"}").await;
    assert_eq!(code(&raw.ending().await), 1007);
    game.play().await;
    // A character split between two fragments is fine.
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    raw.frame(false, TEXT, b"{\"type\":\"list_rooms\",\"x\":\"\xc3")
        .await;
    raw.frame(true, CONTINUATION, b"\xa9\"}").await;
    let answer: Value = serde_json::from_str(&raw.next_text().await.unwrap()).unwrap();
    assert_eq!(answer["type"], "rooms");
    still_serving(&server).await;
}

#[tokio::test]
async fn binary_frames_are_refused_one_by_one() {
    let server = server().await;
    let mut game = Bystanders::start(&server).await;
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    for payload in [
        &b""[..],
        b"\x00\x01",
        br#"{"type":"list_rooms"}"#,
        &[0xff; 4000],
    ] {
        raw.frame(true, BINARY, payload).await;
        let answer: Value = serde_json::from_str(&raw.next_text().await.unwrap()).unwrap();
        assert_eq!(answer["code"], "bad_request", "{answer}");
        game.play().await;
    }
    // The connection is still good for text.
    raw.text(r#"{"type":"list_rooms"}"#).await;
    let answer: Value = serde_json::from_str(&raw.next_text().await.unwrap()).unwrap();
    assert_eq!(answer["type"], "rooms");
}

#[tokio::test]
async fn oversized_messages_are_closed_with_1009_before_they_are_buffered() {
    let server = server().await;
    let mut game = Bystanders::start(&server).await;
    // A header claiming 2^62 bytes: refused from the header alone.
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    raw.header_claiming(TEXT, 1 << 62).await;
    assert_eq!(code(&raw.ending().await), 1009);
    game.play().await;
    // A binary frame over the limit.
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    raw.frame(true, BINARY, &vec![0u8; 9000]).await;
    assert_eq!(code(&raw.ending().await), 1009);
    game.play().await;
    // Small fragments adding up past the limit.
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    raw.frame(false, TEXT, b"{\"type\":\"sync\",\"pad\":\"")
        .await;
    for _ in 0..40 {
        raw.frame(false, CONTINUATION, &[b'x'; 500]).await;
    }
    raw.frame(true, CONTINUATION, b"\"}").await;
    assert_eq!(code(&raw.ending().await), 1009);
    game.play().await;
    still_serving(&server).await;
}

#[tokio::test]
async fn protocol_violations_are_closed_with_1002() {
    let server = server().await;
    let mut game = Bystanders::start(&server).await;
    let violations: [(&str, Vec<u8>); 6] = [
        (
            "unmasked",
            abuse_support::encode(true, TEXT, br#"{"type":"sync"}"#, false),
        ),
        (
            "reserved opcode",
            abuse_support::encode(true, 0x3, b"", true),
        ),
        ("reserved bits", {
            let mut f = abuse_support::encode(true, TEXT, b"{}", true);
            f[0] |= 0x40;
            f
        }),
        (
            "ping over 125 bytes",
            abuse_support::encode(true, PING, &[b'p'; 126], true),
        ),
        (
            "fragmented ping",
            abuse_support::encode(false, PING, b"p", true),
        ),
        (
            "continuation without a start",
            abuse_support::encode(true, CONTINUATION, b"x", true),
        ),
    ];
    for (what, bytes) in violations {
        let mut raw = Raw::upgrade(server.addr, "/ws").await;
        tokio::io::AsyncWriteExt::write_all(&mut raw.stream, &bytes)
            .await
            .unwrap();
        let end = raw.ending().await;
        assert!(matches!(end, Ending::Close(1002, _)), "{what}: {end:?}");
        game.play().await;
    }
    still_serving(&server).await;
}

#[tokio::test]
async fn the_echo_path_is_off_by_default_and_keeps_the_limits_of_ws() {
    let plain = server().await;
    let (status, _) = plain.http_get("/echo").await;
    assert!(status.contains("404"), "{status}");
    let server = TestServer::start_with(Settings {
        max_message_size: 8 * 1024,
        rate_limit_per_sec: 1,
        rate_limit_burst: 4,
        echo_path: Some("/echo".to_string()),
        ..settings()
    })
    .await;
    let mut raw = Raw::upgrade(server.addr, "/echo").await;
    raw.text("not even JSON \u{e9}").await;
    assert_eq!(raw.next_text().await.unwrap(), "not even JSON \u{e9}");
    raw.frame(true, BINARY, &[0, 159, 146, 150]).await;
    assert_eq!(
        raw.next_frame().await,
        Some((BINARY, vec![0, 159, 146, 150]))
    );
    // The rate limit of /ws: the burst is 4 messages.
    raw.text("3").await;
    raw.text("4").await;
    raw.text("5").await;
    match raw.ending().await {
        Ending::Close(1008, texts) => {
            assert_eq!(texts[..2], ["3", "4"]);
            assert!(texts[2].contains("rate_limited"), "{texts:?}");
        }
        other => panic!("{other:?}"),
    }
    // The size limit of /ws.
    let mut raw = Raw::upgrade(server.addr, "/echo").await;
    raw.frame(true, TEXT, &[b'x'; 9000]).await;
    assert_eq!(code(&raw.ending().await), 1009);
    // The game is still at /ws.
    still_serving(&server).await;
}
