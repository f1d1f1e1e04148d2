//! Helpers for the abuse tests: a raw WebSocket client that writes frames byte by byte (so it
//! can break the protocol on purpose), and checks that the server still serves everyone else.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Client, TestServer, config_value};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Text frame opcode.
pub const TEXT: u8 = 0x1;
/// Binary frame opcode.
pub const BINARY: u8 = 0x2;
/// Continuation frame opcode.
pub const CONTINUATION: u8 = 0x0;
/// Ping opcode.
pub const PING: u8 = 0x9;

/// How long a healthy server may take to answer a bystander during an attack.
pub const PROMPT: Duration = Duration::from_millis(1500);

/// A WebSocket client that speaks raw frames.
pub struct Raw {
    pub stream: TcpStream,
}

/// What the server did last on a raw connection.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// A close frame with this code (and the text messages before it).
    Close(u16, Vec<String>),
    /// The socket ended (or reset) without a close frame.
    Eof(Vec<String>),
}

impl Raw {
    /// Opens a TCP connection and completes the WebSocket handshake on `path`.
    pub async fn upgrade(addr: SocketAddr, path: &str) -> Raw {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        );
        stream.write_all(req.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut b = [0u8; 1];
            let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut b))
                .await
                .expect("a handshake answer in time")
                .unwrap();
            assert_eq!(n, 1, "closed during the handshake: {head:?}");
            head.push(b[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        Raw { stream }
    }

    /// Writes one masked frame.
    pub async fn frame(&mut self, fin: bool, opcode: u8, payload: &[u8]) {
        let _ = self
            .stream
            .write_all(&encode(fin, opcode, payload, true))
            .await;
    }

    /// Writes one frame without the mask every client frame must carry.
    pub async fn unmasked(&mut self, opcode: u8, payload: &[u8]) {
        let _ = self
            .stream
            .write_all(&encode(true, opcode, payload, false))
            .await;
    }

    /// Writes only the header of a masked frame that claims `len` payload bytes.
    pub async fn header_claiming(&mut self, opcode: u8, len: u64) {
        let mut out = vec![0x80 | opcode, 0x80 | 127];
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&[1, 2, 3, 4]);
        let _ = self.stream.write_all(&out).await;
    }

    /// Sends a text message in one frame.
    pub async fn text(&mut self, text: &str) {
        self.frame(true, TEXT, text.as_bytes()).await;
    }

    /// Reads frames until a close frame or the end of the socket (waits up to 5 s).
    pub async fn ending(&mut self) -> Ending {
        ending_of(&mut self.stream).await
    }

    /// The next frame (opcode, payload), or `None` at the end of the socket.
    pub async fn next_frame(&mut self) -> Option<(u8, Vec<u8>)> {
        tokio::time::timeout(Duration::from_secs(5), read_frame(&mut self.stream))
            .await
            .expect("a frame in time")
    }

    /// The next text message (skipping control frames), or `None` at the end.
    pub async fn next_text(&mut self) -> Option<String> {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(5), read_frame(&mut self.stream))
                .await
                .expect("a frame in time");
            match frame {
                None | Some((0x8, _)) => return None,
                Some((0x1, p)) => return Some(String::from_utf8(p).unwrap()),
                Some(_) => {}
            }
        }
    }
}

/// One frame as bytes.
pub fn encode(fin: bool, opcode: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    let mut out = vec![if fin { 0x80 } else { 0 } | opcode];
    let mask_bit = if masked { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => out.push(mask_bit | n as u8),
        n if n <= 0xffff => {
            out.push(mask_bit | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(mask_bit | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    if masked {
        let key = [0x37, 0xfa, 0x21, 0x3d];
        out.extend_from_slice(&key);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    } else {
        out.extend_from_slice(payload);
    }
    out
}

/// Reads server frames until a close frame or the end of the socket (waits up to 5 s).
pub async fn ending_of<R: AsyncRead + Unpin>(stream: &mut R) -> Ending {
    let mut texts = Vec::new();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(5), read_frame(stream))
            .await
            .expect("the server ends the connection in time");
        match frame {
            None => return Ending::Eof(texts),
            Some((0x8, p)) => {
                let code = if p.len() >= 2 {
                    u16::from_be_bytes([p[0], p[1]])
                } else {
                    1005
                };
                return Ending::Close(code, texts);
            }
            Some((0x1, p)) => texts.push(String::from_utf8(p).unwrap()),
            Some(_) => {}
        }
    }
}

/// Reads one server frame (opcode, payload); `None` at the end of the socket or on a reset.
async fn read_frame<R: AsyncRead + Unpin>(stream: &mut R) -> Option<(u8, Vec<u8>)> {
    let mut h = [0u8; 2];
    stream.read_exact(&mut h).await.ok()?;
    let len = match h[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            stream.read_exact(&mut b).await.ok()?;
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            stream.read_exact(&mut b).await.ok()?;
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    assert!(len < 1 << 24, "the server sent a {len}-byte frame");
    let mut p = vec![0u8; len as usize];
    stream.read_exact(&mut p).await.ok()?;
    Some((h[0] & 0x0f, p))
}

/// A two-player game in progress that a test can advance one move at a time.
pub struct Bystanders {
    pub a: Client,
    pub b: Client,
    pub room: String,
    moves: Vec<(i64, i64)>,
    turn: usize,
}

impl Bystanders {
    /// Two clients playing on a 15×15 board (room for 100+ moves).
    pub async fn start(server: &TestServer) -> Bystanders {
        let mut a = server.client().await;
        let (room, _) = a.create("a", config_value("15x15 poison 0,0")).await;
        let mut b = server.client().await;
        b.join(&room, "b").await;
        a.expect("room").await;
        // Eat the board from the bottom-right corner, never the poison.
        let moves = (0..15i64)
            .rev()
            .flat_map(|r| (0..15i64).rev().map(move |c| (r, c)))
            .filter(|&cell| cell != (0, 0))
            .collect();
        Bystanders {
            a,
            b,
            room,
            moves,
            turn: 0,
        }
    }

    /// Plays the next move; both players must see it within [`PROMPT`].
    pub async fn play(&mut self) {
        let (r, c) = self.moves[self.turn];
        let (mover, other) = if self.turn.is_multiple_of(2) {
            (&mut self.a, &mut self.b)
        } else {
            (&mut self.b, &mut self.a)
        };
        self.turn += 1;
        mover.send(json!({"type":"move","row":r,"col":c})).await;
        for player in [mover, other] {
            let m = tokio::time::timeout(PROMPT, player.expect("moved"))
                .await
                .expect("the game is not slowed down");
            assert_eq!((m["row"].as_i64(), m["col"].as_i64()), (Some(r), Some(c)));
        }
    }
}

/// A new client connects and gets the room list within [`PROMPT`].
pub async fn still_serving(server: &TestServer) {
    tokio::time::timeout(PROMPT, async {
        let mut c = server.client().await;
        c.send(json!({"type":"list_rooms"})).await;
        c.expect("rooms").await;
    })
    .await
    .expect("a newcomer is served promptly");
}
