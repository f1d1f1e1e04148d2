//! The real server started in this process on `127.0.0.1:0` with a temporary data directory,
//! the one way every test starts it; and a small WebSocket client that speaks the JSON protocol
//! as raw JSON values.

use futures_util::{SinkExt, StreamExt};
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

/// A fresh, empty temporary directory for a server's data (the caller or [`TestServer`]
/// removes it).
pub fn temp_dir() -> PathBuf {
    crate::temp::temp_dir("server-test")
}

/// The JSON configuration for a board notation, as a client sends it in `create_room`, e.g.
/// `config_value("4x4 players 3")` (unchecked: see [`crate::config_json`]).
pub fn config_value(notation: &str) -> Value {
    serde_json::to_value(crate::config_json(notation)).unwrap()
}

/// [`config_value`] with a move timer of `move_time_ms` for each seat.
pub fn timed_config_value(notation: &str, move_time_ms: u64) -> Value {
    serde_json::to_value(crate::timed_config_json(notation, move_time_ms)).unwrap()
}

/// The box of the classic database in tests: a test never builds the 15×15 database, which
/// takes minutes in a debug build. Standard classic positions outside it are searched.
pub const CLASSIC_BOX: (usize, usize) = (6, 6);

/// Default settings with a temporary data directory, and a classic database of
/// [`CLASSIC_BOX`] (built in that directory when a test first needs it).
pub fn settings() -> Settings {
    Settings {
        data_dir: temp_dir(),
        classic_box: CLASSIC_BOX,
        ..Settings::default()
    }
}

/// A server running in this process: stopped, and its data directory removed, when dropped.
pub struct TestServer {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its data directory.
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

    /// Starts a server with these settings (their data directory is the server's, removed when
    /// it is dropped: take it from [`settings`] or [`temp_dir`]).
    pub async fn start_with(settings: Settings) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        TestServer::serve(listener, settings)
    }

    /// Starts a server on `addr` — that of a server stopped a moment ago, to restart it where
    /// its clients reconnect — with these settings.
    pub async fn start_at(addr: SocketAddr, settings: Settings) -> TestServer {
        let listener = TcpListener::bind(addr).await.unwrap();
        TestServer::serve(listener, settings)
    }

    fn serve(listener: TcpListener, settings: Settings) -> TestServer {
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

    /// The WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
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

    /// Shuts the server down, waits for `run` to return, then removes the data directory.
    pub async fn shut_down(self) -> Result<(), ServerError> {
        let dir = self.data_dir.clone();
        let result = self.stop().await;
        let _ = std::fs::remove_dir_all(dir);
        result
    }

    /// One plain HTTP GET; returns the status line and the body.
    pub async fn http_get(&self, path: &str) -> (String, String) {
        http_get(self.addr, path).await
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

    /// The sum of every sample of a metric in `/metrics`, whatever its labels.
    pub async fn metric_sum(&self, name: &str) -> u64 {
        let (_, body) = self.http_get("/metrics").await;
        body.lines()
            .filter(|l| !l.starts_with('#'))
            .filter(|l| l.split(['{', ' ']).next() == Some(name))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum()
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
    /// The connection.
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
        self.recv_within(WAIT).await
    }

    /// The next text message as JSON, waiting up to `wait` for it.
    pub async fn recv_within(&mut self, wait: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.ws.next())
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

    /// Skips messages until one of this type, for up to `wait` in all (what follows a takeover
    /// can take longer than [`WAIT`] on a loaded machine).
    pub async fn until_within(&mut self, ty: &str, wait: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let v = self.recv_within(left).await;
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

/// `GET path` of the server at `addr`: its status line and body.
pub async fn http_get(addr: std::net::SocketAddr, path: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
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

/// A connection to the server at `addr` logged in to the account `name` (password
/// `password-1`), which it registers first when `register`.
pub async fn logged_in(addr: SocketAddr, name: &str, register: bool) -> Client {
    let mut c = Client::connect(addr).await;
    let kind = if register { "register" } else { "login" };
    c.send(json!({"type":kind,"name":name,"password":"password-1"}))
        .await;
    c.expect("account").await;
    c
}

/// The configuration of a board notation, rated.
pub fn rated_config_value(notation: &str) -> Value {
    let mut cfg = config_value(notation);
    cfg["rated"] = json!(true);
    cfg
}

/// Entrant `name`'s line of a tournament view's standings.
pub fn standing<'a>(view: &'a Value, name: &str) -> &'a Value {
    view["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {view}"))
}
