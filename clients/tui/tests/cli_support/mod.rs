//! Shared helpers for the `jchomp` integration tests: the test kit's server in this process on
//! 127.0.0.1:0, running the `jchomp` binary, and driving the client's `App`
//! against the server without a terminal.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use jchomp_protocol::rules::Cell;
use jchomp_protocol::wire::ServerMessage;
pub use jchomp_testkit::server::TestServer;
use jchomp_tui::app::App;
use jchomp_tui::connection::Connection;
use std::process::Output;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

#[cfg(unix)]
pub mod tty;

/// Runs `jchomp ARGS…` with its output captured (not a terminal).
pub async fn jchomp(args: &[&str]) -> Output {
    jchomp_env(args, &[]).await
}

/// Runs `jchomp ARGS…` with these environment variables (and without `JCHOMP_SERVER` unless
/// given), its output captured.
pub async fn jchomp_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    jchomp_input(args, env, None).await
}

/// Runs `jchomp ARGS…` with these environment variables (and without `JCHOMP_SERVER` or
/// `JCHOMP_PASSWORD` unless given), `input` on its standard input (none: empty), its output
/// captured.
pub async fn jchomp_input(args: &[&str], env: &[(&str, &str)], input: Option<&str>) -> Output {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_jchomp"))
        .args(args)
        .env_remove("JCHOMP_SERVER")
        .env_remove("JCHOMP_PASSWORD")
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .stdin(if input.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).await.unwrap();
    }
    tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("jchomp did not finish")
        .unwrap()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Sends the app's outbox and feeds it server messages until `done` holds (at most 10 s).
pub async fn pump(app: &mut App, conn: &mut Connection, done: impl Fn(&App) -> bool) {
    let work = async {
        loop {
            for msg in app.take_outbox() {
                conn.send(&msg).await.unwrap();
            }
            if done(app) {
                return;
            }
            let msg = conn.recv().await.unwrap();
            app.on_message(msg, Instant::now());
        }
    };
    if tokio::time::timeout(Duration::from_secs(10), work)
        .await
        .is_err()
    {
        panic!(
            "timed out; screen:\n{}",
            jchomp_tui::style::to_text(&app.render(80, 24, Instant::now()))
        );
    }
}

/// Receives until `pick` accepts a message (at most 10 s).
pub async fn recv_until<T>(conn: &mut Connection, pick: impl Fn(ServerMessage) -> Option<T>) -> T {
    let work = async {
        loop {
            if let Some(t) = pick(conn.recv().await.unwrap()) {
                return t;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), work)
        .await
        .expect("no such message")
}

/// A selection for the seat to move: one without poison if there is one.
pub fn pick_selection(app: &App) -> Option<Cell> {
    let state = app.room()?.state.as_ref()?;
    let pick = state.position().safe_or_any_selections(&state.config);
    pick.iter().next().map(Cell::from_index)
}

/// The screen as plain text.
pub fn screen(app: &App) -> String {
    jchomp_tui::style::to_text(&app.render(80, 24, Instant::now()))
}

/// Types text into the app, key by key, then Enter.
pub fn type_line(app: &mut App, text: &str) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    for c in text.chars() {
        app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
}

/// Creates a room with `flags` (the `jchomp create` flags, which should fill the other seats
/// with bots) through the client's `App`, then plays seat 0 by typing coordinates until the
/// game ends. Returns the app and its connection.
pub async fn play_vs_bots(url: &str, flags: &str) -> (App, Connection) {
    use jchomp_protocol::wire::RoomStatus;
    use jchomp_tui::app::Start;
    use jchomp_tui::cli::CreateArgs;
    let args = CreateArgs::parse_form(flags).unwrap();
    let mut app = App::new(url, "ann", Start::Create(args));
    let mut conn = Connection::connect(url).await.unwrap();
    let over = |app: &App| {
        app.room()
            .and_then(|r| r.state.as_ref())
            .is_some_and(|s| s.status == RoomStatus::Finished)
    };
    let my_turn = |app: &App| {
        app.room().is_some_and(|r| {
            r.state
                .as_ref()
                .is_some_and(|s| s.status == RoomStatus::Playing && s.to_move == r.seat)
        })
    };
    loop {
        pump(&mut app, &mut conn, |a| over(a) || my_turn(a)).await;
        if over(&app) {
            return (app, conn);
        }
        let cell = pick_selection(&app).unwrap();
        type_line(&mut app, &format!("{},{}", cell.row, cell.col));
        let mut sent = app.take_outbox();
        if sent.is_empty() {
            // Only poison was left: eating it asks for a second Enter.
            use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
            app.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
            sent = app.take_outbox();
        }
        assert_eq!(
            sent,
            vec![jchomp_protocol::wire::ClientMessage::Move {
                row: cell.row as i64,
                col: cell.col as i64
            }],
            "{}",
            screen(&app)
        );
        for m in &sent {
            conn.send(m).await.unwrap();
        }
        // Wait for our move to come back before looking at the turn again.
        let version = app.room().and_then(|r| r.state.as_ref()).map(|s| s.version);
        pump(&mut app, &mut conn, |a| {
            a.room().and_then(|r| r.state.as_ref()).map(|s| s.version) != version
        })
        .await;
    }
}

/// A TCP proxy in front of a server whose connections can be cut, to drop a client's
/// connection while the server stays up.
pub struct Proxy {
    /// The WebSocket address through the proxy.
    pub url: String,
    links: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Starts a proxy to the server at `url` (`ws://HOST:PORT/ws`).
    pub async fn start(url: &str) -> Proxy {
        let target = url
            .trim_start_matches("ws://")
            .trim_end_matches("/ws")
            .to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let links = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let held = std::sync::Arc::clone(&links);
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let target = target.clone();
                let link = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                held.lock().unwrap().push(link.abort_handle());
            }
        });
        Proxy {
            url: format!("ws://{addr}/ws"),
            links,
            accept,
        }
    }

    /// Cuts every connection made so far (new ones are still accepted).
    pub fn cut(&self) {
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}
