//! The baseline: a bare tokio-tungstenite echo server ([`serve`]) and the echo side of the load
//! ([`play`]): groups of connections taking turns, one message in flight per group, as a room
//! has one move in flight.

use super::codec::send_json;
use super::plan::{Live, Stage, Window};
use super::socket::{Ws, next_any};
use super::stats::Tally;
use futures_util::SinkExt;
use futures_util::stream::StreamExt;
use jchomp_protocol::wire::ClientMessage;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// The echo server's WebSocket limits: the same small buffers a lean game server would use.
fn server_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(256 * 1024)
        .max_message_size(Some(64 * 1024))
        .max_frame_size(Some(64 * 1024))
}

/// Echoes every text and binary message back to its sender, on every connection accepted from
/// `listener`, until `shutdown` completes.
pub async fn serve(listener: TcpListener, shutdown: impl Future<Output = ()>) {
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(echo_one(stream));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }
}

async fn echo_one(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let Ok(mut ws) =
        tokio_tungstenite::accept_async_with_config(stream, Some(server_config())).await
    else {
        return;
    };
    while let Some(Ok(msg)) = ws.next().await {
        if (msg.is_text() || msg.is_binary()) && ws.send(msg).await.is_err() {
            break;
        }
    }
}

/// The echo side of one group: the connections take turns sending a `move` message and
/// waiting for it to come back, until the stage says stop.
pub(crate) async fn play(
    conns: Vec<Ws>,
    live: &Live,
    pace: Option<(Duration, Instant)>,
    window: Window,
    stage: &mut watch::Receiver<Stage>,
    tally: &mut Tally,
) {
    let seats = conns.len();
    let mut conns = conns;
    let mut from = 0;
    let mut next_allowed = pace.map_or_else(Instant::now, |(_, first)| first);
    let mut turn = 0usize;
    let mut n: i64 = 0;
    'run: loop {
        if !matches!(*stage.borrow(), Stage::Run(_)) {
            break;
        }
        if let Some((every, _)) = pace {
            tokio::select! {
                _ = tokio::time::sleep_until(next_allowed) => {}
                _ = stage.changed() => continue,
            }
            next_allowed = (next_allowed + every).max(Instant::now());
        }
        let msg = ClientMessage::Move {
            row: n % 15,
            col: (n / 15) % 15,
        };
        n += 1;
        let sent = Instant::now();
        if let Err(e) = send_json(&mut conns[turn], &msg).await {
            tally.errors.add("send failed", e);
            break;
        }
        loop {
            tokio::select! {
                (i, item) = next_any(&mut conns, &mut from) => match item {
                    Some(Ok(Message::Text(_))) if i == turn => break,
                    Some(Ok(Message::Text(t))) => {
                        tally.errors.add("unexpected echo", format!("connection {i}: {t}"));
                        break 'run;
                    }
                    Some(Ok(Message::Close(_))) | None => {
                        tally.errors.add("closed by server", "");
                        break 'run;
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        tally.errors.add("connection broke", e.to_string());
                        break 'run;
                    }
                },
                changed = stage.changed() => {
                    if changed.is_err() || *stage.borrow() == Stage::Halt {
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
    for ws in &mut conns {
        let _ = tokio::time::timeout(Duration::from_millis(500), ws.close(None)).await;
    }
}
