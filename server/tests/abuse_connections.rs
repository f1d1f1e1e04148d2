//! Abuse at the connection level, each while a game is being played next to it: a thousand
//! connections from one client past the connection cap, one address past its own cap, clients
//! that never finish (or dribble) their HTTP handshake or send an endless head (`431`), and a
//! half-open seat — a client whose socket
//! stays up but that never reads or answers pings again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse_support;
mod common;

use abuse_support::{Bystanders, PROMPT, Raw, still_serving};
use common::{Client, TestServer, settings};
use jchomp_server::Settings;
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const UPGRADE: &str = "GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
                       Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";

/// Sends an upgrade request and returns the status code of the answer with the open stream
/// (0 if the connection ended without an answer).
async fn knock(addr: std::net::SocketAddr) -> (u16, Option<TcpStream>) {
    knock_from([127, 0, 0, 1], addr).await
}

/// [`knock`] from another loopback address (any of 127.0.0.0/8 reaches the server), which the
/// server counts as another client.
async fn knock_from(source: [u8; 4], addr: std::net::SocketAddr) -> (u16, Option<TcpStream>) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((source, 0).into()).unwrap();
    let Ok(mut s) = socket.connect(addr).await else {
        return (0, None);
    };
    if s.write_all(UPGRADE.as_bytes()).await.is_err() {
        return (0, None);
    }
    let mut head = [0u8; 12];
    match tokio::time::timeout(Duration::from_secs(10), s.read_exact(&mut head)).await {
        Ok(Ok(_)) => {
            let status = std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap();
            (status, Some(s))
        }
        _ => (0, None),
    }
}

/// Whether the server closes this stream within `d` (reading and discarding what it sends).
async fn closed_within(s: &mut TcpStream, d: Duration) -> bool {
    let mut buf = [0u8; 1024];
    tokio::time::timeout(d, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_connections_past_the_cap_are_refused_and_the_game_goes_on() {
    let server = TestServer::start_with(Settings {
        max_connections: 32,
        ..settings()
    })
    .await;
    let mut game = Bystanders::start(&server).await;
    let knocks: Vec<_> = (0..1000)
        .map(|_| tokio::spawn(knock(server.addr)))
        .collect();
    let mut admitted = Vec::new();
    let mut refused = 0;
    for k in knocks {
        match k.await.unwrap() {
            (101, Some(s)) => admitted.push(s),
            (503, _) => refused += 1,
            other => panic!("unexpected answer {:?}", other.0),
        }
    }
    // The two players hold two slots; nobody got past the cap.
    assert_eq!(admitted.len(), 30, "admitted");
    assert_eq!(refused, 970);
    game.play().await;
    // Once the flood lets go, newcomers get in again.
    drop(admitted);
    let mut served = false;
    for _ in 0..100 {
        if let (101, _) = knock(server.addr).await {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(served, "slots are given back");
    assert!(server.metric("jchomp_connections_refused_total").await >= 970);
    game.play().await;
    still_serving(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_is_held_to_its_cap_while_other_addresses_are_served() {
    let server = TestServer::start_with(Settings {
        max_connections_per_address: 4,
        ..settings()
    })
    .await;
    // The two players connect from 127.0.0.1 and hold two of its four slots.
    let mut game = Bystanders::start(&server).await;
    let mut held = Vec::new();
    for _ in 0..2 {
        let (status, stream) = knock(server.addr).await;
        assert_eq!(status, 101);
        held.push(stream);
    }
    for _ in 0..20 {
        assert_eq!(knock(server.addr).await.0, 429, "past the address's cap");
    }
    // Another address is another client, and the game goes on.
    let (status, _other) = knock_from([127, 0, 0, 2], server.addr).await;
    assert_eq!(status, 101, "another address is not refused");
    game.play().await;
    // A slot given back is free again once the server has seen the connection close.
    held.pop();
    let mut admitted = false;
    for _ in 0..250 {
        if knock(server.addr).await.0 == 101 {
            admitted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(admitted, "the address's slot is given back");
    drop(held);
    let mut refused = None;
    for _ in 0..250 {
        let (status, body) = server.http_get("/metrics").await;
        if status.contains("200") {
            refused = body.lines().find_map(|l| {
                l.strip_prefix("jchomp_connections_refused_address_total ")
                    .map(|v| v.parse::<u64>().unwrap())
            });
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused.is_some_and(|n| n >= 20), "{refused:?}");
    game.play().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_handshakes_are_dropped_after_the_handshake_timeout() {
    let server = TestServer::start_with(Settings {
        max_connections: 8,
        handshake_timeout: Duration::from_millis(400),
        ..settings()
    })
    .await;
    let mut game = Bystanders::start(&server).await;
    // Five connections that send half a request head and wait, one that sends nothing.
    let mut lingering = Vec::new();
    for i in 0..6 {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        if i > 0 {
            s.write_all(b"GET /ws HTTP/1.1\r\nHost: te").await.unwrap();
        }
        lingering.push(s);
    }
    // With every slot taken, a newcomer is refused at once, and the game goes on.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(knock(server.addr).await.0, 503);
    game.play().await;
    for s in &mut lingering {
        assert!(closed_within(s, Duration::from_secs(3)).await);
    }
    still_serving(&server).await;
    // A dribbler sending a byte every 50 ms never completes its head in time either: the
    // timeout covers the whole head, not each read.
    let mut dribbler = TcpStream::connect(server.addr).await.unwrap();
    let started = tokio::time::Instant::now();
    for b in UPGRADE.as_bytes() {
        if dribbler.write_all(&[*b]).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        if started.elapsed() > Duration::from_secs(3) {
            panic!("the dribbler is still connected after 3 s");
        }
    }
    assert!(closed_within(&mut dribbler, Duration::from_secs(1)).await);
    game.play().await;
}

#[tokio::test]
async fn an_endless_request_head_is_refused() {
    let server = TestServer::start().await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(b"GET /ws HTTP/1.1\r\n").await.unwrap();
    let header = format!("X-Pad: {}\r\n", "p".repeat(1000));
    for _ in 0..20 {
        if s.write_all(header.as_bytes()).await.is_err() {
            break;
        }
    }
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large"),
        "{answer}"
    );
    still_serving(&server).await;
}

#[tokio::test]
async fn a_half_open_seat_is_dropped_and_its_game_abandoned() {
    let server = TestServer::start_with(Settings {
        idle_timeout: Duration::from_millis(500),
        ping_interval: Duration::from_millis(100),
        grace: Duration::from_millis(300),
        ..settings()
    })
    .await;
    // The host creates a room, then never reads or writes again (its kernel still holds the
    // socket open, as with a peer that vanished without closing).
    let mut ghost = Raw::upgrade(server.addr, "/ws").await;
    ghost
        .text(&json!({"type":"create_room","name":"ghost","config":common::config_value("4x4 poison 0,0")}).to_string())
        .await;
    let room: serde_json::Value = serde_json::from_str(&ghost.next_text().await.unwrap()).unwrap();
    let room = room["room"].as_str().unwrap().to_string();
    let mut b = server.client().await;
    b.join(&room, "b").await;
    // The ghost is seen as disconnected, then loses by abandonment.
    let started = tokio::time::Instant::now();
    let snap = b.until("room").await;
    assert_eq!(snap["seats"][0]["connected"], false, "{snap}");
    let end = b.until("room").await;
    assert_eq!(end["status"], "finished");
    assert_eq!(end["result"], json!({"kind":"abandoned","loser":0}));
    assert!(started.elapsed() < Duration::from_secs(3));
    // Meanwhile and after, the server serves everyone else.
    let mut c = Client::connect(server.addr).await;
    tokio::time::timeout(PROMPT, async {
        c.send(json!({"type":"list_rooms"})).await;
        c.expect("rooms").await;
    })
    .await
    .unwrap();
}
