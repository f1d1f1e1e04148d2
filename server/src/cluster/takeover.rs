//! Taking a dead node's rooms over. Every live node looks, once a second, for nodes of
//! `jchomp:nodes` whose lease has run out; for each, it claims the dead node's rooms one by one
//! (a script moves the room's owner from the dead node to this one atomically, so exactly one
//! node wins each room), rebuilds each game in play from Redis through `room::restore` (its
//! people disconnected and held for `resume`, its bots rebuilt), tells every node the room's
//! new owner (relays re-route, `relay.rs`), drops the directory lines of rooms that had no game
//! in play, and delivers the records the dead node had finished but not yet put in PostgreSQL.

use super::directory::ROOMS;
use super::lease::FORGET;
use super::state::{
    CLOSED, CLOSED_AT, NODES, OWNERS, PRUNE, TOMBSTONE_KEEP, finished_key, live_key, moves_key,
    owned_key, read_room,
};
use super::wire::{ALL, Envelope};
use super::{Cluster, LEASE, lease_key, lock};
use crate::game::room::RoomContext;
use crate::store::PgRecords;
use redis::AsyncCommands;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Moves a room from a dead owner to this node, if the dead node's lease is gone and it still
/// owns the room, and this node's lease holds its epoch. KEYS: owners, owned of the dead node,
/// owned of this node, the dead node's lease, this node's lease; ARGV: room, dead node, this
/// node, this node's epoch. Returns 1 if this node won the room.
pub(super) const CLAIM: &str = r"
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
if redis.call('GET', KEYS[5]) ~= ARGV[4] then return 0 end
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
  redis.call('SREM', KEYS[2], ARGV[1])
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('SMOVE', KEYS[2], KEYS[3], ARGV[1])
return 1
";

/// Closes a room that came to this node without a game in play (waiting, or finished): its
/// line goes, its tombstone is laid, if this node's lease holds its epoch and the room is this
/// node's. KEYS: owners, rooms, closed-at, owned of this node, live, moves, this node's lease;
/// ARGV: room, this node, its epoch, the tombstone, the time (ms). Returns 1 if it was closed.
pub(super) const BURY: &str = r"
if redis.call('GET', KEYS[7]) ~= ARGV[3] then return 0 end
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[5], KEYS[6])
return 1
";

/// How often a node looks for dead nodes.
const LOOK: Duration = Duration::from_millis(500);
/// How long a room that stopped at a lapse may take to close before it is restored.
const CLOSING: Duration = Duration::from_secs(5);

/// What a takeover needs of the server: rooms are rebuilt in its context, and records go to
/// PostgreSQL (if the server uses it).
pub(super) struct Takeovers {
    pub ctx: RoomContext,
    pub records: Option<PgRecords>,
}

impl Cluster {
    /// Starts looking for dead nodes twice a second and taking their rooms over, and restoring
    /// this node's own rooms after it took its lease again, until the server shuts down.
    pub(crate) fn start_takeovers(self: &Arc<Self>, ctx: RoomContext, records: Option<PgRecords>) {
        let cluster = self.clone();
        let mut shutdown = ctx.shutdown.clone();
        let takeovers = Takeovers { ctx, records };
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(LOOK);
            loop {
                tokio::select! {
                    _ = crate::shutdown::shutting_down(&mut shutdown) => break,
                    _ = tick.tick() => {}
                    () = cluster.readopt_now.notified() => {}
                }
                cluster.readopt(&takeovers).await;
                // Right after Redis came back, the other nodes may not have renewed their
                // leases yet: they are not taken for dead before a whole lease has passed.
                if cluster.healthy_for() >= LEASE
                    && let Err(e) = cluster.take_over_dead_nodes(&takeovers).await
                {
                    tracing::warn!(error = %e, "looking for dead nodes failed");
                }
                if let Err(e) = cluster.prune_tombstones().await {
                    tracing::debug!(error = %e, "pruning closed rooms' tombstones failed");
                }
            }
            // Dropping the context lets the server's shutdown finish.
            drop(takeovers);
        });
    }

    /// One look for dead nodes, taking over the rooms of each found.
    async fn take_over_dead_nodes(
        self: &Arc<Self>,
        t: &Takeovers,
    ) -> Result<(), redis::RedisError> {
        let mut redis = self.redis();
        let nodes: Vec<String> = redis.smembers(NODES).await?;
        for dead in nodes.iter().filter(|n| **n != self.node) {
            let alive: bool = redis.exists(lease_key(dead)).await?;
            if !alive {
                self.take_over(dead, t).await?;
            }
        }
        Ok(())
    }

    /// Takes over the rooms of `dead` (each claimed against the other live nodes), and
    /// delivers its pending records; forgets the node once nothing of it is left.
    async fn take_over(
        self: &Arc<Self>,
        dead: &str,
        t: &Takeovers,
    ) -> Result<(), redis::RedisError> {
        let mut redis = self.redis();
        let rooms: Vec<String> = redis.smembers(owned_key(dead)).await?;
        if !rooms.is_empty() {
            tracing::warn!(
                node = dead,
                rooms = rooms.len(),
                "a node's lease ran out; taking its rooms over"
            );
        }
        for room in rooms {
            let won: i64 = redis::cmd("EVAL")
                .arg(CLAIM)
                .arg(5)
                .arg(OWNERS)
                .arg(owned_key(dead))
                .arg(owned_key(&self.node))
                .arg(lease_key(dead))
                .arg(lease_key(&self.node))
                .arg(&room)
                .arg(dead)
                .arg(&self.node)
                .arg(self.lease.epoch())
                .query_async(&mut redis)
                .await?;
            if won == 1 {
                lock(&self.adopting).insert(room.clone(), Vec::new());
                let adopted = self.adopt(&room, t).await;
                self.adopted(&room).await;
                adopted?;
            }
        }
        let delivered = self.deliver_records(dead, t).await?;
        let left: usize = redis.scard(owned_key(dead)).await?;
        if left == 0 && delivered {
            let forgotten: i64 = redis::cmd("EVAL")
                .arg(FORGET)
                .arg(2)
                .arg(NODES)
                .arg(lease_key(dead))
                .arg(dead)
                .query_async(&mut redis)
                .await?;
            if forgotten == 1 {
                tracing::info!(node = dead, "nothing of a dead node is left");
            }
        }
        Ok(())
    }

    /// A room this node just won: its game in play is rebuilt and runs here, and every node
    /// is told; a room without one (waiting, or finished) is dropped from the directory, and
    /// every node told it closed.
    async fn adopt(&self, room: &str, t: &Takeovers) -> Result<(), redis::RedisError> {
        let mut redis = self.redis();
        let restored = match read_room(&mut redis, room).await? {
            Some(stored) => match crate::game::room::restore(t.ctx.clone(), stored) {
                Ok(()) => {
                    t.ctx.metrics.games_restored.inc();
                    true
                }
                Err(e) => {
                    tracing::error!(room, error = %e, "a game in play cannot be taken over");
                    false
                }
            },
            None => false,
        };
        if restored {
            tracing::info!(room, "room taken over");
            self.publish(
                ALL,
                &Envelope::Owner {
                    room: room.to_string(),
                    owner: self.node.clone(),
                },
            )
            .await;
            self.rerouted(room, &self.node, true);
        } else {
            let _: i64 = redis::cmd("EVAL")
                .arg(BURY)
                .arg(7)
                .arg(OWNERS)
                .arg(ROOMS)
                .arg(CLOSED_AT)
                .arg(owned_key(&self.node))
                .arg(live_key(room))
                .arg(moves_key(room))
                .arg(lease_key(&self.node))
                .arg(room)
                .arg(&self.node)
                .arg(self.lease.epoch())
                .arg(CLOSED)
                .arg(crate::clock::now_ms())
                .query_async(&mut redis)
                .await?;
            // Relays to the room, on every node, end: nothing more will answer them.
            let closed = Envelope::Owner {
                room: room.to_string(),
                owner: CLOSED.to_string(),
            };
            self.publish(ALL, &closed).await;
            self.rerouted(room, CLOSED, false);
        }
        Ok(())
    }

    /// Delivers to PostgreSQL the records `dead` had finished but not delivered (each id is
    /// stored once, whoever delivers it); returns whether none is left.
    async fn deliver_records(&self, dead: &str, t: &Takeovers) -> Result<bool, redis::RedisError> {
        let mut redis = self.redis();
        let waiting: HashMap<String, String> = redis.hgetall(finished_key(dead)).await?;
        if waiting.is_empty() {
            return Ok(true);
        }
        let Some(records) = &t.records else {
            // Only nodes with PostgreSQL keep records in Redis.
            return Ok(true);
        };
        let waiting: Vec<(String, String)> = waiting.into_iter().collect();
        match records.insert(&waiting).await {
            Ok(_) => {
                let ids: Vec<&String> = waiting.iter().map(|(id, _)| id).collect();
                let _: () = redis.hdel(finished_key(dead), ids).await?;
                tracing::info!(
                    node = dead,
                    games = waiting.len(),
                    "a dead node's finished games delivered to PostgreSQL"
                );
                Ok(true)
            }
            Err(e) => {
                tracing::warn!(error = %e, "PostgreSQL is unreachable; a dead node's finished games wait in Redis");
                Ok(false)
            }
        }
    }

    /// Removes a bounded number of tombstones older than [`TOMBSTONE_KEEP`] (every node does,
    /// each second; the script is atomic, so they never remove one twice).
    pub(super) async fn prune_tombstones(&self) -> Result<(), redis::RedisError> {
        let mut redis = self.redis();
        prune(&mut redis, crate::clock::now_ms()).await.map(drop)
    }

    /// Restores this node's own rooms from Redis after it took its lease again (`lapse.rs`),
    /// each once its stopped task here has closed.
    async fn readopt(self: &Arc<Self>, t: &Takeovers) {
        let rooms = std::mem::take(&mut *lock(&self.readopt));
        for room in rooms {
            let closing = tokio::time::Instant::now() + CLOSING;
            while self.lobby.room(&room).is_some() && tokio::time::Instant::now() < closing {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if self.lobby.room(&room).is_some() {
                tracing::error!(
                    room,
                    "a room stopped at a lapse has not closed; it is not restored"
                );
                lock(&self.adopting).remove(&room);
                continue;
            }
            let adopted = self.adopt(&room, t).await;
            self.adopted(&room).await;
            if let Err(e) = adopted {
                tracing::warn!(room, error = %e, "a room of this node could not be restored from Redis");
            }
        }
    }
}

/// Prunes up to 1,000 tombstones laid more than [`TOMBSTONE_KEEP`] before `now_ms`; returns how
/// many.
pub(super) async fn prune(
    redis: &mut redis::aio::ConnectionManager,
    now_ms: u64,
) -> Result<usize, redis::RedisError> {
    let keep = u64::try_from(TOMBSTONE_KEEP.as_millis()).unwrap_or(u64::MAX);
    redis::cmd("EVAL")
        .arg(PRUNE)
        .arg(2)
        .arg(OWNERS)
        .arg(CLOSED_AT)
        .arg(now_ms.saturating_sub(keep))
        .arg(1000)
        .arg(CLOSED)
        .query_async(redis)
        .await
}
