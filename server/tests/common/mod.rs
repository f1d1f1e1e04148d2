//! Test helpers: the real server on 127.0.0.1:0 with a temporary data directory, and a small
//! WebSocket client that speaks the JSON protocol.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use futures_util::{SinkExt, StreamExt};
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::{Cell, Game};
use jchomp_server::{ServerError, Settings};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for any one message.
pub const WAIT: Duration = Duration::from_secs(5);

/// A fresh, empty temporary directory.
pub fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jchomp-server-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Default settings with a temporary data directory.
pub fn settings() -> Settings {
    Settings {
        data_dir: temp_dir(),
        ..Settings::default()
    }
}

/// A server running in this process.
pub struct TestServer {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<Result<(), ServerError>>>,
    keep_dir: bool,
}

impl TestServer {
    /// Starts a server with default settings.
    pub async fn start() -> TestServer {
        TestServer::start_with(settings()).await
    }

    /// Starts a server with these settings.
    pub async fn start_with(settings: Settings) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let data_dir = settings.data_dir.clone();
        let (stop, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(jchomp_server::run(listener, settings, async move {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            data_dir,
            stop: Some(stop),
            handle: Some(handle),
            keep_dir: false,
        }
    }

    /// A connected client.
    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// Shuts the server down and waits for `run` to return; keeps the data directory.
    pub async fn stop(mut self) -> Result<(), ServerError> {
        self.keep_dir = true;
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let handle = self.handle.take().unwrap();
        tokio::time::timeout(Duration::from_secs(6), handle)
            .await
            .expect("run returns within the shutdown deadline")
            .unwrap()
    }

    /// One plain HTTP GET; returns the status line and the body.
    pub async fn http_get(&self, path: &str) -> (String, String) {
        let mut s = TcpStream::connect(self.addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut buf = String::new();
        tokio::time::timeout(WAIT, s.read_to_string(&mut buf))
            .await
            .unwrap()
            .unwrap();
        let (head, body) = buf.split_once("\r\n\r\n").unwrap();
        (head.lines().next().unwrap().to_string(), body.to_string())
    }

    /// The value of one metric line (name with labels) from `/metrics`.
    pub async fn metric(&self, name: &str) -> u64 {
        let (_, body) = self.http_get("/metrics").await;
        body.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no metric {name} in\n{body}"))
            .parse()
            .unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if !self.keep_dir {
            let _ = std::fs::remove_dir_all(&self.data_dir);
        }
    }
}

/// A WebSocket client.
pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Client {
    /// Connects to `/ws`.
    pub async fn connect(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        Client { ws }
    }

    /// Connects with a tiny socket receive buffer, to play a client that reads slowly.
    pub async fn connect_small_buffer(addr: SocketAddr) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let stream = socket.connect(addr).await.unwrap();
        let url = format!("ws://{addr}/ws");
        let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream))
            .await
            .unwrap();
        Client { ws }
    }

    /// Sends a JSON message.
    pub async fn send(&mut self, v: Value) {
        self.send_text(&v.to_string()).await;
    }

    /// Sends a text frame as is.
    pub async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    /// The next text message as JSON (waits up to [`WAIT`]).
    pub async fn recv(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a message in time")
                .expect("the connection is open")
                .expect("no WebSocket error");
            match msg {
                Message::Text(t) => return serde_json::from_str(&t).unwrap(),
                Message::Close(f) => panic!("closed unexpectedly: {f:?}"),
                _ => {}
            }
        }
    }

    /// The next message, which must have this type.
    pub async fn expect(&mut self, ty: &str) -> Value {
        let v = self.recv().await;
        assert_eq!(v["type"], ty, "expected {ty}, got {v}");
        v
    }

    /// The next message, which must be an error with this code.
    pub async fn expect_error(&mut self, code: &str) -> Value {
        let v = self.expect("error").await;
        assert_eq!(v["code"], code, "{v}");
        v
    }

    /// The next message, which must be a rejection with this reason.
    pub async fn expect_rejected(&mut self, reason: &str) -> Value {
        let v = self.expect("move_rejected").await;
        assert_eq!(v["reason"], reason, "{v}");
        v
    }

    /// Skips messages until one of this type.
    pub async fn until(&mut self, ty: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == ty {
                return v;
            }
        }
    }

    /// Waits for no message during `d`.
    pub async fn expect_silence(&mut self, d: Duration) {
        let until = tokio::time::Instant::now() + d;
        loop {
            match tokio::time::timeout_at(until, self.ws.next()).await {
                Err(_) => return,
                Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => {}
                Ok(Some(Ok(Message::Text(t)))) => panic!("unexpected message {t}"),
                Ok(other) => panic!("unexpected {other:?}"),
            }
        }
    }

    /// Reads until the server closes; returns the close frame (text messages before it are
    /// returned too).
    pub async fn until_closed(&mut self) -> (Vec<Value>, Option<CloseFrame>) {
        let mut texts = Vec::new();
        loop {
            match tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("closed in time")
            {
                Some(Ok(Message::Text(t))) => texts.push(serde_json::from_str(&t).unwrap()),
                Some(Ok(Message::Close(f))) => return (texts, f),
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return (texts, None),
            }
        }
    }

    /// Creates a room; returns (room id, token) after `joined` and the snapshot.
    pub async fn create(&mut self, name: &str, config: Value) -> (String, String) {
        self.send(json!({"type":"create_room","name":name,"config":config}))
            .await;
        let joined = self.expect("joined").await;
        assert_eq!(joined["seat"], 0);
        let snap = self.expect("room").await;
        assert_eq!(snap["room"], joined["room"]);
        (
            joined["room"].as_str().unwrap().to_string(),
            joined["token"].as_str().unwrap().to_string(),
        )
    }

    /// Joins a room; returns (seat, token, snapshot) after `joined` and the snapshot.
    pub async fn join(&mut self, room: &str, name: &str) -> (u64, String, Value) {
        self.send(json!({"type":"join_room","room":room,"name":name}))
            .await;
        let joined = self.expect("joined").await;
        let snap = self.expect("room").await;
        (
            joined["seat"].as_u64().unwrap(),
            joined["token"].as_str().unwrap().to_string(),
            snap,
        )
    }
}

/// A configuration as JSON.
/// `n` open 15×15 four-seat rooms whose owners have long names, which make room lists big; the
/// rooms live as long as the owners returned.
pub async fn open_rooms(server: &TestServer, n: usize) -> Vec<Client> {
    let mut owners = Vec::new();
    for _ in 0..n {
        let mut o = server.client().await;
        o.create(
            "owner-with-a-long-name-for-bulk",
            config(15, 15, 4, [1, 1], &[[0, 0], [14, 14], [0, 14], [14, 0]]),
        )
        .await;
        owners.push(o);
    }
    owners
}

pub fn config(rows: i64, cols: i64, players: i64, eat: [i64; 2], poison: &[[i64; 2]]) -> Value {
    json!({"rows":rows,"cols":cols,"players":players,"eat":eat,"poison":poison})
}

/// The local rules game for a JSON configuration.
pub fn local_game(config: &Value) -> Game {
    let c: ConfigJson = serde_json::from_value(config.clone()).unwrap();
    Game::new(c.validate().unwrap())
}

/// A selection for the seat to move: the first one without poison, else the first one.
pub fn pick(game: &Game) -> Cell {
    let p = game.position();
    let safe = p.safe_selections(game.config());
    let set = if safe.is_empty() {
        p.selections()
    } else {
        safe
    };
    Cell::from_index(set.iter().next().unwrap())
}

/// Plays a game to its end between `clients` (index = seat), checking every `moved` against
/// the local rules; returns the final snapshot as seen by seat 0. Every client must have read
/// up to the snapshot that started the game.
pub async fn play_out(clients: &mut [Client], config: &Value, first_version: u64) -> Value {
    let mut game = local_game(config);
    let mut version = first_version;
    while let Some(seat) = game.to_move() {
        let cell = pick(&game);
        clients[seat as usize]
            .send(json!({"type":"move","row":cell.row,"col":cell.col}))
            .await;
        game.select(cell.row.into(), cell.col.into()).unwrap();
        version += 1;
        for c in clients.iter_mut() {
            let m = c.expect("moved").await;
            assert_eq!(m["version"], version, "{m}");
            assert_eq!(m["seat"], seat);
            assert_eq!(
                (m["row"].as_u64(), m["col"].as_u64()),
                (Some(cell.row.into()), Some(cell.col.into()))
            );
            assert_eq!(m["to_move"], json!(game.to_move()));
            let finished = game.result().is_some();
            assert_eq!(m["status"], if finished { "finished" } else { "playing" });
        }
    }
    let expected = serde_json::to_value(jchomp_protocol::json::ResultJson::from(
        game.result().unwrap(),
    ))
    .unwrap();
    let mut last = Value::Null;
    for c in clients.iter_mut() {
        let snap = c.expect("room").await;
        assert_eq!(snap["status"], "finished");
        assert_eq!(snap["result"], expected);
        assert_eq!(snap["version"], version);
        assert_eq!(snap["moves"].as_array().unwrap().len(), game.moves().len());
        last = snap;
    }
    last
}

/// Starts the real `jchomp-server` binary on a free port with `args` before `--data-dir DIR`;
/// returns the child and the address it printed.
pub fn spawn_binary(
    dir: &std::path::Path,
    args: &[&str],
    rust_log: &str,
) -> (std::process::Child, SocketAddr) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_jchomp-server"))
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env("RUST_LOG", rust_log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("jchomp-server listening on ws://")
        .and_then(|r| r.strip_suffix("/ws"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (child, addr.parse().unwrap())
}
