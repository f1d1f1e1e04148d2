//! The writer task of a WebSocket connection: drains the bounded outgoing queue (several
//! messages per flush), pings a quiet client, stops after a close frame, and drops a client
//! whose socket stalls.

use crate::outbox::{Outgoing, PeerSignal};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::timeout;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

/// Messages written between two flushes at most.
const WRITE_BATCH: usize = 64;

/// The sending half of a server-side WebSocket.
pub(crate) type Sink = SplitSink<WebSocketStream<TcpStream>, Message>;

/// Writes queued messages (several per flush), pings when quiet, and stops after a close
/// frame. A write that takes longer than `write_timeout` drops the client as slow.
pub(crate) async fn write_loop(
    mut sink: Sink,
    mut rx: mpsc::Receiver<Outgoing>,
    signal: Arc<PeerSignal>,
    ping_every: Duration,
    write_timeout: Duration,
) {
    let ping_every = ping_every.max(Duration::from_millis(10));
    let mut ping = tokio::time::interval_at(crate::settings::after(ping_every), ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Reused for every batch: no allocation per wake-up. Not allocated ahead: 64 slots would
    // cost every idle connection 2.5 KiB; it grows to the largest batch the client has needed.
    let mut batch = Vec::new();
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Some(o) => batch.push(o),
                None => break,
            },
            _ = ping.tick() => {}
        }
        while batch.len() < WRITE_BATCH {
            match rx.try_recv() {
                Ok(o) => batch.push(o),
                Err(_) => break,
            }
        }
        let mut closing = false;
        let write = async {
            if batch.is_empty() {
                sink.feed(Message::Ping(Default::default())).await?;
            }
            for out in batch.drain(..) {
                match out {
                    Outgoing::Text(t) => sink.feed(Message::Text(t)).await?,
                    Outgoing::Binary(b) => sink.feed(Message::Binary(b)).await?,
                    Outgoing::Close(code, reason) => {
                        closing = true;
                        let frame = CloseFrame {
                            code,
                            reason: reason.into(),
                        };
                        sink.feed(Message::Close(Some(frame))).await?;
                        break;
                    }
                }
            }
            sink.flush().await
        };
        match timeout(write_timeout, write).await {
            Ok(Ok(())) if !closing => {}
            Ok(Ok(())) => break,
            Ok(Err(_)) => {
                signal.kick.notify_one();
                break;
            }
            Err(_) => {
                signal.kick_slow();
                break;
            }
        }
    }
}
