//! [`Peer`]: the sending side of one client's bounded outgoing queue, shared with the rooms it
//! is in. Messages are serialised once ([`encode`]) and the same bytes go to every receiver.

use futures_util::task::AtomicWaker;
use jchomp_protocol::wire::ServerMessage;
use serde::Serialize;
use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::Poll;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Bytes, Utf8Bytes};

/// A connection's id, unique for the life of the server process.
pub(crate) type ConnId = u64;

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// A fresh connection id.
pub(crate) fn next_conn_id() -> ConnId {
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
}

/// What a connection's link sends.
#[derive(Clone, Debug)]
pub(crate) enum Outgoing {
    /// A JSON text frame, serialised once and shared.
    Text(Utf8Bytes),
    /// A binary frame (only the test-only echo path sends any).
    Binary(Bytes),
    /// A close frame; nothing queued after it is sent.
    Close(CloseCode, &'static str),
}

/// Signals from a peer's holders to its connection task.
#[derive(Debug, Default)]
pub(crate) struct PeerSignal {
    /// Set to drop the connection at once.
    kicked: AtomicBool,
    /// Set when the queue overflowed or a write stalled.
    pub slow: AtomicBool,
    /// The connection task, woken by a kick. (Cheaper to poll on every wake-up of the task
    /// than a `Notify`, which takes a lock each time.)
    waker: AtomicWaker,
    /// Set while the connection acts as a bot account (its seats are shown as bots).
    bot_account: AtomicBool,
}

impl PeerSignal {
    /// Drops the connection as a slow reader.
    pub(crate) fn kick_slow(&self) {
        self.slow.store(true, Ordering::Relaxed);
        self.kicked.store(true, Ordering::Release);
        self.waker.wake();
    }

    /// Completes once the connection is kicked.
    pub(crate) async fn kicked(&self) {
        poll_fn(|cx| {
            if self.kicked.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            self.waker.register(cx.waker());
            if self.kicked.load(Ordering::Acquire) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }
}

/// The sending side of one client's outgoing queue. Cheap to clone; sending never waits.
#[derive(Clone, Debug)]
pub(crate) struct Peer {
    /// The connection's id.
    pub id: ConnId,
    tx: mpsc::Sender<Outgoing>,
    signal: Arc<PeerSignal>,
}

impl Peer {
    /// A peer sending into `tx`; `signal` reaches the connection task.
    pub(crate) fn new(id: ConnId, tx: mpsc::Sender<Outgoing>, signal: Arc<PeerSignal>) -> Self {
        Peer { id, tx, signal }
    }

    /// Marks the connection as acting (or not) as a bot account.
    pub(crate) fn set_bot_account(&self, bot: bool) {
        self.signal.bot_account.store(bot, Ordering::Relaxed);
    }

    /// Whether the connection acts as a bot account.
    pub(crate) fn is_bot_account(&self) -> bool {
        self.signal.bot_account.load(Ordering::Relaxed)
    }

    /// Messages its queue holds at most.
    #[cfg(test)]
    pub(crate) fn queue_capacity(&self) -> usize {
        self.tx.max_capacity()
    }

    /// Queues an encoded message. A full queue disconnects the client (a slow reader never
    /// delays its room); a closed queue is ignored.
    pub(crate) fn send(&self, text: &Utf8Bytes) {
        self.push(Outgoing::Text(text.clone()));
    }

    /// Queues a binary frame (for the test-only echo path).
    pub(crate) fn send_binary(&self, data: Bytes) {
        self.push(Outgoing::Binary(data));
    }

    /// Encodes and queues one message for this peer alone.
    pub(crate) fn send_msg(&self, msg: &ServerMessage) {
        self.send(&encode(msg));
    }

    /// Whether the connection is gone (nobody reads its queue any more).
    pub(crate) fn is_gone(&self) -> bool {
        self.tx.is_closed()
    }

    /// Queues a close frame; the connection ends once it is written.
    pub(crate) fn close(&self, code: CloseCode, reason: &'static str) {
        self.push(Outgoing::Close(code, reason));
    }

    fn push(&self, out: Outgoing) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(out) {
            self.signal.kick_slow();
        }
    }
}

/// Serialises a server message (a [`ServerMessage`], or an answer of its own such as an
/// analysis) once, as shareable text.
pub(crate) fn encode<T: Serialize>(msg: &T) -> Utf8Bytes {
    match serde_json::to_string(msg) {
        Ok(s) => Utf8Bytes::from(s),
        Err(e) => {
            tracing::error!(error = %e, "cannot encode a server message");
            Utf8Bytes::from_static(
                r#"{"type":"error","code":"internal","message":"the server could not encode its answer"}"#,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_kicks_the_peer() {
        let (tx, mut rx) = mpsc::channel(2);
        let signal = Arc::new(PeerSignal::default());
        let peer = Peer::new(1, tx, signal.clone());
        let text = Utf8Bytes::from_static("{}");
        peer.send(&text);
        peer.send(&text);
        assert!(!signal.slow.load(Ordering::Relaxed));
        peer.send(&text);
        assert!(signal.slow.load(Ordering::Relaxed));
        assert!(matches!(rx.try_recv(), Ok(Outgoing::Text(t)) if t == text));
    }
}
