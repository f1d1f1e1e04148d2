//! The cluster's room directory in Redis: `jchomp:rooms` (room id → [`DirectoryEntry`]: owner,
//! creation order, summary) and `jchomp:tokens` (token hash → room id). Each node writes its own
//! rooms' lines, in order, from one task fed by its lobby ([`DirectorySink`]); every node reads
//! the same lines, so `list_rooms` is the same everywhere and a token leads to its room from any
//! node.

use super::Cluster;
use super::wire::DirectoryEntry;
use crate::live::token_hash;
use crate::outbox::encode;
use jchomp_protocol::wire::{RoomSummary, ServerMessage};
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// The hash of room lines.
const ROOMS: &str = "jchomp:rooms";
/// The hash of token hashes.
const TOKENS: &str = "jchomp:tokens";

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
pub(super) type Ordered = (Change, (u64, u64));

/// Where the lobby sends its changes; one task writes them to Redis in order.
#[derive(Clone, Debug)]
pub(crate) struct DirectorySink {
    tx: mpsc::UnboundedSender<Ordered>,
    seq: std::sync::Arc<AtomicU64>,
}

impl DirectorySink {
    /// A sink and the receiving end for [`write`].
    pub(super) fn new() -> (DirectorySink, mpsc::UnboundedReceiver<Ordered>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = DirectorySink {
            tx,
            seq: Default::default(),
        };
        (sink, rx)
    }

    /// Queues a change (never waits: the lobby calls it under its lock).
    pub(crate) fn tell(&self, change: Change) {
        let order = (
            crate::room::now_ms(),
            self.seq.fetch_add(1, Ordering::Relaxed),
        );
        let _ = self.tx.send((change, order));
    }
}

/// Writes the changes to Redis, in order, each batch in one pipeline, until the sink is gone.
pub(super) async fn write(
    mut redis: ConnectionManager,
    node: String,
    mut rx: mpsc::UnboundedReceiver<Ordered>,
) {
    // The creation order of each of this node's rooms, first seen with its first line.
    let mut orders: HashMap<String, (u64, u64)> = HashMap::new();
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while let Ok(next) = rx.try_recv() {
            batch.push(next);
        }
        let mut pipe = redis::pipe();
        for (change, order) in batch {
            match change {
                Change::Room(summary) => {
                    let order = *orders.entry(summary.room.clone()).or_insert(order);
                    let id = summary.room.clone();
                    let entry = DirectoryEntry {
                        owner: node.clone(),
                        order,
                        summary,
                    };
                    if let Ok(json) = serde_json::to_string(&entry) {
                        pipe.hset(ROOMS, id, json).ignore();
                    }
                }
                Change::Removed { id, tokens } => {
                    orders.remove(&id);
                    pipe.hdel(ROOMS, id).ignore();
                    for t in tokens {
                        pipe.hdel(TOKENS, t).ignore();
                    }
                }
                Change::Token { hash, room } => {
                    pipe.hset(TOKENS, hash, room).ignore();
                }
                Change::Untoken(hash) => {
                    pipe.hdel(TOKENS, hash).ignore();
                }
            }
        }
        if let Err(e) = pipe.query_async::<()>(&mut redis).await {
            tracing::warn!(error = %e, "the room directory could not be updated");
        }
    }
}

impl Cluster {
    /// The owner of a room listed in the directory, if its lease is alive.
    pub(crate) async fn owner_of(&self, room: &str) -> Option<String> {
        let mut redis = self.redis();
        let json: Option<String> = redis.hget(ROOMS, room).await.ok()?;
        let entry: DirectoryEntry = serde_json::from_str(&json?).ok()?;
        let alive = self.alive(std::slice::from_ref(&entry.owner)).await;
        alive
            .first()
            .copied()
            .unwrap_or(false)
            .then_some(entry.owner)
    }

    /// The room a seat token belongs to, anywhere in the cluster.
    pub(crate) async fn room_of_token(&self, token: &str) -> Option<String> {
        let mut redis = self.redis();
        redis.hget(TOKENS, token_hash(token)).await.ok()?
    }

    /// The `rooms` message: every room of every node whose lease is alive, oldest first — the
    /// same on every node. `None` if Redis cannot be read.
    pub(crate) async fn rooms_message(&self) -> Option<Utf8Bytes> {
        let mut redis = self.redis();
        let lines: HashMap<String, String> = match redis.hgetall(ROOMS).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the room directory");
                return None;
            }
        };
        let mut entries: Vec<DirectoryEntry> = lines
            .values()
            .filter_map(|json| serde_json::from_str(json).ok())
            .collect();
        let mut owners: Vec<String> = entries.iter().map(|e| e.owner.clone()).collect();
        owners.sort();
        owners.dedup();
        let alive = self.alive(&owners).await;
        entries.retain(|e| {
            owners
                .iter()
                .position(|o| *o == e.owner)
                .is_some_and(|i| alive.get(i).copied().unwrap_or(false))
        });
        entries.sort_by(|a, b| (a.order, &a.summary.room).cmp(&(b.order, &b.summary.room)));
        let rooms = entries.into_iter().map(|e| e.summary).collect();
        Some(encode(&ServerMessage::Rooms { rooms }))
    }
}
