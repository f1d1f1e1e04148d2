//! The cluster's room directory in Redis: `jchomp:rooms` (room id → [`DirectoryEntry`]: owner,
//! creation order, summary) and `jchomp:tokens` (token hash → room id). Each node writes its own
//! rooms' lines, in order, from one task fed by its lobby ([`crate::game::directory::DirectorySink`]); every node reads
//! the same lines, so `list_rooms` is the same everywhere and a token leads to its room from any
//! node. A room's line is written (and removed) only by its owner in `jchomp:owners`: a script
//! checks it, so that a node that lost a room to a takeover cannot write it back.

use super::Cluster;
use super::lease::Lease;
use super::link::Link;
use super::state::{CLOSED, CLOSED_AT, OWNERS, live_key, owned_key};
use super::wire::DirectoryEntry;
use crate::game::directory::{Change, Ordered};
use crate::game::outbox::encode;
use crate::game::token::token_hash;
use jchomp_protocol::wire::ServerMessage;
use redis::AsyncCommands;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// The hash of room lines.
pub(super) const ROOMS: &str = "jchomp:rooms";
/// The hash of token hashes.
const TOKENS: &str = "jchomp:tokens";

/// Writes a room's line if this node's lease holds the epoch and the room is this node's or
/// nobody's (a new room: it becomes this node's); a closed room's tombstone ([`CLOSED`]) is
/// somebody's. KEYS: owners, rooms, owned of this node, this node's lease; ARGV: node, room,
/// line, epoch.
const LINE: &str = r"
if redis.call('GET', KEYS[4]) ~= ARGV[4] then return 0 end
local owner = redis.call('HGET', KEYS[1], ARGV[2])
if owner and owner ~= ARGV[1] then return 0 end
if not owner then redis.call('HSET', KEYS[1], ARGV[2], ARGV[1]) end
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
";

/// Removes a closed room's line and tokens and lays its tombstone (its owner becomes
/// [`CLOSED`], with the time in the closed-at set), if this node's lease holds the epoch and
/// the room is this node's. KEYS: owners, rooms, owned of this node, tokens, closed-at, this
/// node's lease; ARGV: node, room, the tombstone, the time (ms), the epoch, token hashes.
const REMOVE: &str = r"
if redis.call('GET', KEYS[6]) ~= ARGV[5] then return 0 end
local owner = redis.call('HGET', KEYS[1], ARGV[2])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[2])
for i = 6, #ARGV do redis.call('HDEL', KEYS[4], ARGV[i]) end
return 1
";

/// Writes the changes to Redis, in order, each batch in one pipeline under this node's lease
/// (retried while Redis is away and the lease holds; a batch the lease no longer covers is
/// dropped, as Redis would refuse it), until the sink is gone.
pub(super) async fn write(
    link: Arc<Link>,
    node: String,
    lease: Arc<Lease>,
    mut rx: mpsc::UnboundedReceiver<Ordered>,
    written: watch::Sender<u64>,
) {
    // The creation order of each of this node's rooms, first seen with its first line.
    let mut orders: HashMap<String, (u64, u64)> = HashMap::new();
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while let Ok(next) = rx.try_recv() {
            batch.push(next);
        }
        let upto = batch.iter().map(|(_, (_, seq))| seq + 1).max().unwrap_or(0);
        let epoch = lease.epoch();
        let lease_key = super::lease_key(&node);
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
                        pipe.cmd("EVAL")
                            .arg(LINE)
                            .arg(4)
                            .arg(OWNERS)
                            .arg(ROOMS)
                            .arg(owned_key(&node))
                            .arg(&lease_key)
                            .arg(&node)
                            .arg(id)
                            .arg(json)
                            .arg(epoch)
                            .ignore();
                    }
                }
                Change::Removed { id, tokens } => {
                    orders.remove(&id);
                    pipe.cmd("EVAL")
                        .arg(REMOVE)
                        .arg(6)
                        .arg(OWNERS)
                        .arg(ROOMS)
                        .arg(owned_key(&node))
                        .arg(TOKENS)
                        .arg(CLOSED_AT)
                        .arg(&lease_key)
                        .arg(&node)
                        .arg(id)
                        .arg(CLOSED)
                        .arg(crate::clock::now_ms())
                        .arg(epoch)
                        .arg(tokens)
                        .ignore();
                }
                Change::Token { hash, room } => {
                    pipe.hset(TOKENS, hash, room).ignore();
                }
                Change::Untoken(hash) => {
                    pipe.hdel(TOKENS, hash).ignore();
                }
            }
        }
        // While Redis is away the changes wait (in order) as long as the lease holds.
        let mut wait = Duration::from_millis(50);
        while let Err(e) = pipe.query_async::<()>(&mut link.get()).await {
            if !lease.holds(epoch) {
                tracing::warn!(error = %e, "the room directory could not be updated under this node's lease");
                break;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(1));
        }
        written.send_modify(|w| *w = (*w).max(upto));
    }
}

impl Cluster {
    /// The owner of a room, if its lease is alive. If the owner died with a game in play, this
    /// waits (up to a takeover's time) for another node to take the room over, so that a
    /// player of a dead node who reconnects at once finds the room on its new owner.
    /// `None` if the room is not in play anywhere; the error if Redis cannot be asked.
    pub(crate) async fn owner_of(&self, room: &str) -> Result<Option<String>, redis::RedisError> {
        let deadline = Instant::now() + super::TAKEOVER_WAIT;
        loop {
            let mut redis = self.redis();
            let owned: Option<String> = redis.hget(OWNERS, room).await?;
            let Some(owner) = owned.filter(|o| o != CLOSED) else {
                return Ok(None);
            };
            let alive: bool = redis.exists(super::lease_key(&owner)).await?;
            if alive {
                return Ok(Some(owner));
            }
            let in_play: bool = redis.exists(live_key(room)).await?;
            if !in_play || Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Where relays to `room` go now: its owner if that node's lease is alive, [`CLOSED`] if
    /// the room has closed (or the directory no longer knows it), `None` while its owner is
    /// dead and the room neither taken over nor closed yet (or Redis cannot be asked).
    pub(super) async fn route_now(&self, room: &str) -> Option<String> {
        let mut redis = self.redis();
        let owner: Option<String> = redis.hget(OWNERS, room).await.ok()?;
        let Some(owner) = owner.filter(|o| o != CLOSED) else {
            return Some(CLOSED.to_string());
        };
        let alive = self.alive(std::slice::from_ref(&owner)).await;
        alive.first().copied().unwrap_or(false).then_some(owner)
    }

    /// The room a seat token belongs to, anywhere in the cluster (`None`: no room), or the
    /// error if Redis cannot be asked.
    pub(crate) async fn room_of_token(
        &self,
        token: &str,
    ) -> Result<Option<String>, redis::RedisError> {
        let mut redis = self.redis();
        redis.hget(TOKENS, token_hash(token)).await
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
