//! Floods and heavy JSON while a game is played next to them: several connections flooding
//! text, binary and ping frames past the rate limit at once, deeply nested JSON, and messages
//! just under the size limit that are expensive to parse. Every flooder is cut off; the game and
//! newcomers are served promptly throughout.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse_support;
mod common;

use abuse_support::{
    BINARY, Bystanders, Ending, PING, Raw, TEXT, encode, ending_of, still_serving,
};
use common::TestServer;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_floods_are_cut_off_and_the_game_goes_on() {
    let server = TestServer::start().await;
    let mut game = Bystanders::start(&server).await;
    let kinds = [
        (TEXT, &br#"{"type":"list_rooms"}"#[..]),
        (TEXT, br#"{"type":"move","row":1,"col":1}"#),
        (BINARY, b"\x01\x02\x03"),
        (PING, b"ping"),
    ];
    let mut flooders = Vec::new();
    for round in 0..2 {
        for (opcode, payload) in kinds {
            let raw = Raw::upgrade(server.addr, "/ws").await;
            let (mut rd, mut wr) = raw.stream.into_split();
            flooders.push(tokio::spawn(async move {
                // 5000 messages in a few large writes: far past the default burst. (The
                // flooder reads the answers: one that does not is a stalled reader, dropped
                // after the write timeout; see the limits tests.)
                let frame = encode(true, opcode, payload, true);
                let chunk: Vec<u8> = frame.repeat(500);
                tokio::spawn(async move {
                    for _ in 0..10 {
                        if wr.write_all(&chunk).await.is_err() {
                            break;
                        }
                    }
                });
                (round, opcode, ending_of(&mut rd).await)
            }));
        }
    }
    for _ in 0..10 {
        game.play().await;
    }
    for f in flooders {
        let (round, opcode, end) = f.await.unwrap();
        match end {
            Ending::Close(1008, texts) => {
                let last: Value = serde_json::from_str(texts.last().unwrap()).unwrap();
                assert_eq!(last["code"], "rate_limited", "{round} {opcode}");
            }
            other => panic!("flooder {round}/{opcode}: {other:?}"),
        }
    }
    assert_eq!(server.metric("jchomp_rate_limited_total").await, 8);
    game.play().await;
    still_serving(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_and_heavy_json_is_refused_cheaply() {
    let server = TestServer::start().await;
    let mut game = Bystanders::start(&server).await;
    let limit = 64 * 1024 - 64;
    let heavy = [
        // Nesting far past the parser's depth limit.
        "{\"a\":".repeat(limit / 5),
        "[".repeat(limit),
        format!(
            "{{\"type\":\"move\",\"row\":{}0,\"col\":0}}",
            "[".repeat(limit - 40)
        ),
        // Big but flat.
        format!(
            r#"{{"type":"create_room","name":"x","config":{{"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[{}[0,0]]}}}}"#,
            "[0,0],".repeat((limit - 120) / 6)
        ),
        format!(
            r#"{{"type":"join_room","room":"r","name":"{}"}}"#,
            "\\u0041".repeat((limit - 60) / 6)
        ),
        format!(
            r#"{{"type":"list_rooms",{}"z":0}}"#,
            "\"k\":0,".repeat((limit - 40) / 6)
        ),
        format!(
            r#"{{"type":"move","row":{},"col":0}}"#,
            "9".repeat(limit - 40)
        ),
        format!(
            r#"{{"type":"move","row":0.{}e5,"col":0}}"#,
            "1".repeat(limit - 40)
        ),
    ];
    let mut raw = Raw::upgrade(server.addr, "/ws").await;
    for (i, text) in heavy.iter().enumerate() {
        assert!(text.len() <= 64 * 1024, "case {i} is {} bytes", text.len());
        // Each is sent 20 times back to back (under the rate limit) and each is answered
        // (unknown fields are ignored, so the flat `list_rooms` gets its rooms).
        for _ in 0..20 {
            raw.text(text).await;
        }
        for _ in 0..20 {
            let answer: Value = serde_json::from_str(&raw.next_text().await.unwrap()).unwrap();
            let expected = if i == 5 { "rooms" } else { "error" };
            assert_eq!(answer["type"], expected, "case {i}: {answer}");
        }
        game.play().await;
    }
    still_serving(&server).await;
    assert!(matches!(
        {
            raw.frame(true, abuse_support::CONTINUATION, b"x").await;
            raw.ending().await
        },
        Ending::Close(1002, _)
    ));
}
