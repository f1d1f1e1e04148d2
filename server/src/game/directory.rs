//! [`DirectorySink`]: where the lobby tells every change to its rooms and seat tokens
//! ([`Change`]), in order, for a shared directory to pick up (in a cluster, Redis: the cluster
//! holds the receiving end). Outside a cluster nothing listens and nothing is told.

use crate::clock::now_ms;
use jchomp_protocol::wire::RoomSummary;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{mpsc, watch};

/// A change to this node's part of the directory.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Change {
    /// A room opened or changed.
    Room(RoomSummary),
    /// A room closed, with its token hashes.
    Removed {
        /// The room.
        id: String,
        /// Its seats' token hashes.
        tokens: Vec<String>,
    },
    /// A seat token (by hash) of a room.
    Token {
        /// The token's hash.
        hash: String,
        /// The room.
        room: String,
    },
    /// A seat token (by hash) died.
    Untoken(String),
}

/// A change with its creation order (milliseconds since the epoch, then a node counter).
pub(crate) type Ordered = (Change, (u64, u64));

/// Where the lobby sends its changes; one task writes them to Redis in order.
#[derive(Clone, Debug)]
pub(crate) struct DirectorySink {
    tx: mpsc::UnboundedSender<Ordered>,
    seq: std::sync::Arc<AtomicU64>,
    /// The counter value below which every change is written to Redis (or given up on).
    written: watch::Receiver<u64>,
}

impl DirectorySink {
    /// A sink and the receiving ends for the directory's writer: the changes, and where it says how far
    /// it has written.
    pub(crate) fn new() -> (
        DirectorySink,
        mpsc::UnboundedReceiver<Ordered>,
        watch::Sender<u64>,
    ) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (written_tx, written) = watch::channel(0);
        let sink = DirectorySink {
            tx,
            seq: Default::default(),
            written,
        };
        (sink, rx, written_tx)
    }

    /// Returns once every change told so far is in Redis (or its writer gave up on it, or has
    /// ended): a room is announced to its creator only then, so that a player on another node
    /// who joins it at once finds it. (The lobby tells its changes under its lock, so their
    /// counter values reach the writer in order.)
    pub(crate) async fn written(&self) {
        let told = self.seq.load(Ordering::Acquire);
        let mut written = self.written.clone();
        let _ = written.wait_for(|&w| w >= told).await;
    }

    /// Queues a change (never waits: the lobby calls it under its lock).
    pub(crate) fn tell(&self, change: Change) {
        let order = (now_ms(), self.seq.fetch_add(1, Ordering::AcqRel));
        let _ = self.tx.send((change, order));
    }
}
