//! Flood protection and back-pressure: the rate limit (`rate_limited`, then close 1008), a
//! burst that stays under it, a stalled reader that is dropped without delaying its room, and
//! a client whose socket stays full, dropped by the write timeout.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TestServer, config_value, settings};
use futures_util::SinkExt;
use jchomp_server::Settings;
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test]
async fn a_flood_is_answered_rate_limited_then_closed_with_1008() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    let msg = Message::text(json!({"type":"sync"}).to_string());
    for _ in 0..6000 {
        if c.ws.feed(msg.clone()).await.is_err() {
            break;
        }
    }
    let _ = c.ws.flush().await;
    let (texts, close) = c.until_closed().await;
    let last = texts.last().unwrap();
    assert_eq!(last["code"], "rate_limited", "{last}");
    // Everything before the limit was answered.
    assert!(texts.len() > 100, "{}", texts.len());
    assert!(
        texts[..texts.len() - 1]
            .iter()
            .all(|t| t["code"] == "forbidden")
    );
    assert_eq!(close.unwrap().code, CloseCode::Policy);
    assert_eq!(server.metric("jchomp_rate_limited_total").await, 1);
}

#[tokio::test]
async fn the_default_limit_admits_a_fast_bot() {
    let server = TestServer::start().await;
    let mut c = server.client().await;
    // 400 requests back to back, all answered: a burst a bot answering at once may send.
    for _ in 0..400 {
        c.ws.feed(Message::text(r#"{"type":"list_rooms"}"#))
            .await
            .unwrap();
    }
    c.ws.flush().await.unwrap();
    for _ in 0..400 {
        c.expect("rooms").await;
    }
}

#[tokio::test]
async fn a_tight_limit_is_a_limit() {
    let server = TestServer::start_with(Settings {
        rate_limit_per_sec: 5,
        rate_limit_burst: 3,
        ..settings()
    })
    .await;
    let mut c = server.client().await;
    for _ in 0..4 {
        c.send(json!({"type":"list_rooms"})).await;
    }
    let (texts, close) = c.until_closed().await;
    assert_eq!(texts.len(), 4);
    assert_eq!(texts[3]["code"], "rate_limited");
    assert_eq!(close.unwrap().code, CloseCode::Policy);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_reader_is_dropped_and_never_delays_its_room() {
    let server = TestServer::start_with(Settings {
        outgoing_queue: 16,
        write_timeout: Duration::from_millis(500),
        ..settings()
    })
    .await;
    let _owners = many_rooms(&server).await;
    let mut a = server.client().await;
    let cfg = config_value("8x8 poison 0,0");
    let (room, _) = a.create("a", cfg).await;
    let mut b = server.client().await;
    b.join(&room, "b").await;
    a.expect("room").await;
    // The staller watches the game, asks for lots and reads nothing.
    let mut staller = common::Client::connect_small_buffer(server.addr).await;
    staller.send(json!({"type":"spectate","room":room})).await;
    ask_rooms_unread(&mut staller, 400).await;
    // Let the staller's socket buffers fill up.
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The game goes on at full speed meanwhile.
    let moves = (0..8).flat_map(|c| [(7, c), (6, c)]);
    for (i, (r, c)) in moves.into_iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        mover.send(json!({"type":"move","row":r,"col":c})).await;
        tokio::time::timeout(Duration::from_millis(500), mover.expect("moved"))
            .await
            .expect("the room is not delayed");
        other.expect("moved").await;
    }
    // The staller was dropped: reading now finds the end of the stream after what was sent.
    assert_eq!(slow_disconnects(&server, 1).await, 1);
    let (texts, _) = staller.until_closed().await;
    assert!(texts.len() < 400, "{}", texts.len());
}

/// Sixty open rooms with long names, which make every `list_rooms` answer big. The rooms live
/// as long as the clients returned.
async fn many_rooms(server: &TestServer) -> Vec<common::Client> {
    common::open_rooms(server, 60).await
}

/// Sends `n` `list_rooms` requests at once without reading the answers.
async fn ask_rooms_unread(c: &mut common::Client, n: usize) {
    for _ in 0..n {
        c.ws.feed(Message::text(r#"{"type":"list_rooms"}"#))
            .await
            .unwrap();
    }
    c.ws.flush().await.unwrap();
}

/// The slow-reader disconnects counted, once they reach `want` (or after four seconds).
async fn slow_disconnects(server: &TestServer, want: u64) -> u64 {
    let mut metric = 0;
    for _ in 0..200 {
        metric = server.metric("jchomp_slow_disconnects_total").await;
        if metric >= want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    metric
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_whose_socket_stays_full_is_dropped_after_the_write_timeout() {
    // The queue is far larger than what the client asks for, so only the write timeout can
    // drop it: its answers (megabytes) fill the socket buffers and the writes stall.
    let server = TestServer::start_with(Settings {
        outgoing_queue: 4096,
        write_timeout: Duration::from_millis(300),
        ..settings()
    })
    .await;
    let _owners = many_rooms(&server).await;
    let mut staller = common::Client::connect_small_buffer(server.addr).await;
    ask_rooms_unread(&mut staller, 800).await;
    assert_eq!(
        slow_disconnects(&server, 1).await,
        1,
        "the stalled client was not dropped"
    );
    // It was dropped, not answered: reading finds the end before all 800 answers.
    let (texts, _) = staller.until_closed().await;
    assert!(texts.len() < 800, "{}", texts.len());
    // A well-behaved client is served as before.
    let mut c = server.client().await;
    c.send(json!({"type":"list_rooms"})).await;
    c.expect("rooms").await;
}
