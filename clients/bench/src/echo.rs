//! The baselines: a bare tokio-tungstenite echo server ([`serve`]) and the echo side of the load
//! (`play`): groups of connections taking turns, one message in flight per group, as a room
//! has one move in flight. In fan-out mode a group's connections join a group on the server,
//! which sends each message to every member, as a move goes to every seat of its room.

use super::plan::{Live, Stage, StageWatch, Window};
use super::socket::{Ws, next_any};
use super::stats::Tally;
use futures_util::SinkExt;
use futures_util::stream::StreamExt;
use jchomp_protocol::wire::ClientMessage;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// The echo server's WebSocket limits: the same small buffers a lean game server would use.
fn server_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(256 * 1024)
        .max_message_size(Some(64 * 1024))
        .max_frame_size(Some(64 * 1024))
}

/// A connection's first message `group NAME` makes it a member of group NAME (fan-out mode).
const GROUP_PREFIX: &str = "group ";
/// The server's answer to `group NAME`.
const JOINED: &str = "joined";
/// Messages waiting for one fan-out member at most (one is in flight per group).
const FANOUT_QUEUE: usize = 64;

/// The fan-out groups: each member's outgoing queue, by group name.
type Groups = Arc<Mutex<HashMap<String, Vec<mpsc::Sender<Message>>>>>;

/// A server-side connection of the echo server.
type ServerWs = WebSocketStream<TcpStream>;

/// Echoes every text and binary message back to its sender, on every connection accepted from
/// `listener`, until `shutdown` completes. A connection whose first message is `group NAME`
/// joins that group instead (answered `joined`): from then on each message it sends goes to
/// every member of the group, itself included.
pub async fn serve(listener: TcpListener, shutdown: impl Future<Output = ()>) {
    let groups = Groups::default();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(echo_one(stream, groups.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }
}

async fn echo_one(stream: TcpStream, groups: Groups) {
    let _ = stream.set_nodelay(true);
    let Ok(mut ws) =
        tokio_tungstenite::accept_async_with_config(stream, Some(server_config())).await
    else {
        return;
    };
    let mut first = true;
    while let Some(Ok(msg)) = ws.next().await {
        if first
            && let Message::Text(t) = &msg
            && let Some(name) = t.strip_prefix(GROUP_PREFIX)
        {
            return fan_out(ws, name.to_owned(), groups).await;
        }
        first = false;
        if (msg.is_text() || msg.is_binary()) && ws.send(msg).await.is_err() {
            break;
        }
    }
}

/// Serves a member of group `name`: what it sends goes to every member's queue, and what its
/// own queue holds is written to it.
async fn fan_out(mut ws: ServerWs, name: String, groups: Groups) {
    let (tx, mut rx) = mpsc::channel(FANOUT_QUEUE);
    lock(&groups).entry(name.clone()).or_default().push(tx);
    if ws.send(Message::text(JOINED)).await.is_ok() {
        loop {
            tokio::select! {
                msg = ws.next() => match msg {
                    Some(Ok(m)) if m.is_text() || m.is_binary() => {
                        if let Some(members) = lock(&groups).get(&name) {
                            for member in members {
                                let _ = member.try_send(m.clone());
                            }
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => break,
                },
                out = rx.recv() => match out {
                    Some(m) => if ws.send(m).await.is_err() {
                        break;
                    },
                    None => break,
                },
            }
        }
    }
    drop(rx);
    let mut groups = lock(&groups);
    if let Some(members) = groups.get_mut(&name) {
        members.retain(|m| !m.is_closed());
        if members.is_empty() {
            groups.remove(&name);
        }
    }
}

/// The groups, locked (never across an `.await`); a panic elsewhere does not poison them.
fn lock(groups: &Groups) -> MutexGuard<'_, HashMap<String, Vec<mpsc::Sender<Message>>>> {
    groups.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The `n`th message a group sends: a move-sized `move`.
fn echo_text(n: u64) -> String {
    let msg = ClientMessage::Move {
        row: (n % 15) as i64,
        col: ((n / 15) % 15) as i64,
    };
    serde_json::to_string(&msg).unwrap_or_default()
}

/// The echo side of one group: the connections take turns sending a `move` message and
/// waiting for it to come back, until the stage says stop. With `group`, the connections first
/// join that fan-out group, and every connection then receives every message, in order.
pub(crate) async fn play(
    conns: Vec<Ws>,
    group: Option<usize>,
    live: &Live,
    pace: Option<(Duration, Instant)>,
    window: Window,
    stage: &mut StageWatch,
    tally: &mut Tally,
) {
    let seats = conns.len();
    let mut conns = conns;
    let mut from = 0;
    // Messages each connection has received (fan-out), and messages sent.
    let mut got = vec![0u64; seats];
    let mut n: u64 = 0;
    if let Some(g) = group
        && let Err(e) = join_group(&mut conns, g, stage).await
    {
        tally.errors.add("fan-out join", e);
        return close_all(&mut conns).await;
    }
    let mut next_allowed = pace.map_or_else(Instant::now, |(_, first)| first);
    let mut turn = 0usize;
    'run: loop {
        if !matches!(stage.now(), Stage::Run(_)) {
            break;
        }
        if let Some((every, _)) = pace {
            tokio::select! {
                _ = tokio::time::sleep_until(next_allowed) => {}
                _ = stage.changed() => continue,
            }
            next_allowed = (next_allowed + every).max(Instant::now());
        }
        let text = echo_text(n);
        n += 1;
        let sent = Instant::now();
        if let Err(e) = conns[turn].send(Message::text(text)).await {
            tally.errors.add("send failed", e);
            break;
        }
        loop {
            tokio::select! {
                (i, item) = next_any(&mut conns, &mut from) => match item {
                    Some(Ok(Message::Text(t))) if group.is_none() => {
                        if i == turn {
                            break;
                        }
                        tally.errors.add("unexpected echo", format!("connection {i}: {t}"));
                        break 'run;
                    }
                    Some(Ok(Message::Text(t))) => {
                        if t.as_str() != echo_text(got[i]) {
                            tally.errors.add("fan-out copy does not match", format!("connection {i}: {t}"));
                            break 'run;
                        }
                        got[i] += 1;
                        if i == turn && got[i] == n {
                            break;
                        }
                    }
                    Some(Ok(Message::Close(_))) | None => {
                        tally.errors.add("closed by server", "");
                        break 'run;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        tally.errors.add("connection broke", e);
                        break 'run;
                    }
                },
                now = stage.changed() => {
                    if now == Stage::Halt {
                        break 'run;
                    }
                }
            }
        }
        let now = Instant::now();
        tally.answered += 1;
        live.answered.fetch_add(1, Ordering::Relaxed);
        if window.contains(now) {
            tally.in_window += 1;
            tally.latencies.record(now - sent);
        }
        turn = (turn + 1) % seats;
    }
    close_all(&mut conns).await;
}

/// Why a group's connections did not all join their fan-out group.
#[derive(Debug, thiserror::Error)]
enum JoinError {
    /// The request could not be sent.
    #[error(transparent)]
    Send(#[from] WsError),
    /// A connection answered something else, or ended.
    #[error("connection {conn}: {answer:?}")]
    Answer {
        /// The connection's index in its group.
        conn: usize,
        /// What it read instead of `joined`.
        answer: Option<Result<Message, WsError>>,
    },
    /// The run halted first.
    #[error("stopped")]
    Stopped,
}

/// Every connection asks to join fan-out group `g` and waits for its answer.
async fn join_group(conns: &mut [Ws], g: usize, stage: &mut StageWatch) -> Result<(), JoinError> {
    for ws in conns.iter_mut() {
        ws.send(Message::text(format!("{GROUP_PREFIX}{g}"))).await?;
    }
    let mut joined = vec![false; conns.len()];
    let mut from = 0;
    while !joined.iter().all(|&j| j) {
        tokio::select! {
            (i, item) = next_any(conns, &mut from) => match item {
                Some(Ok(Message::Text(t))) if t.as_str() == JOINED && !joined[i] => joined[i] = true,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                answer => return Err(JoinError::Answer { conn: i, answer }),
            },
            now = stage.changed() => {
                if now == Stage::Halt {
                    return Err(JoinError::Stopped);
                }
            }
        }
    }
    Ok(())
}

async fn close_all(conns: &mut [Ws]) {
    for ws in conns {
        let _ = tokio::time::timeout(Duration::from_millis(500), ws.close(None)).await;
    }
}
