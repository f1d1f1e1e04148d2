//! Quick pairing's pools shared by every node: each waiter is a field of its preset's hash in
//! Redis (`jchomp:pool:PRESET`, field `NODE/CONN`, a [`PoolEntry`]); one node at a time holds
//! the pairing lease (`jchomp:pairing`) and pairs the pools, claiming each group with one
//! script that takes all its members or none; a waiter seated in a room of another node is
//! offered its seat by a message to its node ([`Offer`]).

use super::wire::{Envelope, Offer};
use super::{Cluster, LEASE, lease_key, lock};
use crate::game::outbox::ConnId;
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tokio::sync::mpsc;

/// The key of the pairing lease: the node that pairs the pools.
const PAIRING: &str = "jchomp:pairing";

/// Takes or keeps the pairing lease, only for a node whose own lease holds its epoch. KEYS:
/// the pairing lease, the node's lease; ARGV: node, epoch, lease (ms). Returns 1 if the node
/// holds it now.
const HOLD: &str = r"
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
";

/// Claims a group: takes every member out of its pool only if the node holds the pairing lease
/// and every member is still there. KEYS: the pairing lease, the pool; ARGV: node, then the
/// members' fields. Returns 1 if claimed.
const CLAIM: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
for i = 2, #ARGV do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then return 0 end
end
for i = 2, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
return 1
";

/// Gives the pairing lease up if the node holds it. KEYS: the pairing lease; ARGV: node.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
";

/// The key of a preset's pool.
fn pool_key(preset: &str) -> String {
    format!("jchomp:pool:{preset}")
}

/// One waiter as every node sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PoolEntry {
    /// The rating on the pairing scale.
    pub rating: f64,
    /// Since when it waits: milliseconds since the Unix epoch.
    pub since_ms: u64,
    /// Whether bots may take the seats nobody took.
    pub bots: bool,
    /// Whether it acts as an account.
    pub account: bool,
    /// Whether it is a bot account (its seat is shown as a bot's).
    #[serde(default)]
    pub bot_account: bool,
    /// The name its seat will have.
    pub name: String,
}

/// Where a waiter is: its node and its connection there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Waiting {
    /// The node the waiter is connected to.
    pub node: String,
    /// Its connection id on that node.
    pub conn: u64,
}

impl Waiting {
    /// The field of the pool's hash.
    fn field(&self) -> String {
        format!("{}/{}", self.node, self.conn)
    }

    /// The waiter a field names.
    fn parse(field: &str) -> Option<Waiting> {
        let (node, conn) = field.split_once('/')?;
        Some(Waiting {
            node: node.to_string(),
            conn: conn.parse().ok()?,
        })
    }
}

impl Cluster {
    /// Puts one of this node's connections in a preset's pool; returns how many wait there.
    pub(crate) async fn pool_put(
        &self,
        preset: &str,
        conn: ConnId,
        entry: &PoolEntry,
    ) -> Result<u32, redis::RedisError> {
        self.pool_restore(preset, &self.waiting(conn), entry).await
    }

    /// Puts a waiter of any node (back) in a preset's pool; returns how many wait there.
    pub(crate) async fn pool_restore(
        &self,
        preset: &str,
        at: &Waiting,
        entry: &PoolEntry,
    ) -> Result<u32, redis::RedisError> {
        let json = serde_json::to_string(entry).unwrap_or_default();
        let field = at.field();
        let mut redis = self.redis();
        let (_, waiting): (i64, u32) = redis::pipe()
            .hset(pool_key(preset), field, json)
            .hlen(pool_key(preset))
            .query_async(&mut redis)
            .await?;
        Ok(waiting)
    }

    /// Takes one of this node's connections out of a preset's pool: false if it was no longer
    /// there (a holder claimed it: its seat is offered).
    pub(crate) async fn pool_take(
        &self,
        preset: &str,
        conn: ConnId,
    ) -> Result<bool, redis::RedisError> {
        let mut redis = self.redis();
        let removed: i64 = redis
            .hdel(pool_key(preset), self.waiting(conn).field())
            .await?;
        Ok(removed > 0)
    }

    /// Whether a preset's pool still holds each of these connections of this node.
    pub(crate) async fn pool_holds(
        &self,
        preset: &str,
        conns: &[ConnId],
    ) -> Result<Vec<bool>, redis::RedisError> {
        let mut pipe = redis::pipe();
        for &conn in conns {
            pipe.hexists(pool_key(preset), self.waiting(conn).field());
        }
        let mut redis = self.redis();
        pipe.query_async(&mut redis).await
    }

    /// How many wait in each of `presets`' pools, across the cluster.
    pub(crate) async fn pool_counts(
        &self,
        presets: &[&str],
    ) -> Result<Vec<u32>, redis::RedisError> {
        let mut pipe = redis::pipe();
        for p in presets {
            pipe.hlen(pool_key(p));
        }
        let mut redis = self.redis();
        pipe.query_async(&mut redis).await
    }

    /// Takes or keeps the pairing lease for `hold`: whether this node pairs the pools now. A
    /// node that does not serve (its own lease lapsed) never does.
    pub(crate) async fn hold_pairing(&self, hold: Duration) -> bool {
        let epoch = self.lease.epoch();
        if !self.lease.holds(epoch) {
            return false;
        }
        let ms = u64::try_from(hold.max(LEASE).as_millis()).unwrap_or(u64::MAX);
        let mut redis = self.redis();
        let held: Result<i64, _> = redis::cmd("EVAL")
            .arg(HOLD)
            .arg(2)
            .arg(PAIRING)
            .arg(lease_key(&self.node))
            .arg(&self.node)
            .arg(epoch)
            .arg(ms)
            .query_async(&mut redis)
            .await;
        held.is_ok_and(|h| h == 1)
    }

    /// Gives the pairing lease up (at shutdown), so that another node pairs at once.
    pub(crate) async fn release_pairing(&self) {
        let mut redis = self.redis();
        let _: Result<i64, _> = redis::cmd("EVAL")
            .arg(RELEASE)
            .arg(1)
            .arg(PAIRING)
            .arg(&self.node)
            .query_async(&mut redis)
            .await;
    }

    /// The waiters of a preset's pool; those of nodes whose lease is gone are taken out.
    pub(crate) async fn pool_read(
        &self,
        preset: &str,
    ) -> Result<Vec<(Waiting, PoolEntry)>, redis::RedisError> {
        let mut redis = self.redis();
        let all: Vec<(String, String)> = redis.hgetall(pool_key(preset)).await?;
        let mut entries: Vec<(Waiting, PoolEntry)> = all
            .iter()
            .filter_map(|(f, v)| Some((Waiting::parse(f)?, serde_json::from_str(v).ok()?)))
            .collect();
        let mut nodes: Vec<String> = entries
            .iter()
            .map(|(w, _)| w.node.clone())
            .filter(|n| *n != self.node)
            .collect();
        nodes.sort();
        nodes.dedup();
        if nodes.is_empty() {
            return Ok(entries);
        }
        let alive = self.alive(&nodes).await;
        let dead: Vec<&String> = nodes
            .iter()
            .zip(alive)
            .filter_map(|(n, a)| (!a).then_some(n))
            .collect();
        if dead.is_empty() {
            return Ok(entries);
        }
        // Nobody is seated for a node without a lease; its waiters leave the pool unless Redis
        // has just come back (the other nodes may not have renewed their leases yet).
        let (gone, kept): (Vec<_>, Vec<_>) = entries
            .drain(..)
            .partition(|(w, _)| dead.contains(&&w.node));
        if self.healthy_for() >= LEASE {
            let fields: Vec<String> = gone.iter().map(|(w, _)| w.field()).collect();
            tracing::info!(
                preset,
                waiters = fields.len(),
                "waiters of dead nodes leave the pool"
            );
            let _: Result<i64, _> = redis.hdel(pool_key(preset), fields).await;
        }
        Ok(kept)
    }

    /// Claims a group of a preset's pool for a room: true if every member was still there and
    /// this node still pairs (they are then out of the pool), false if nothing was done.
    pub(crate) async fn pool_claim(&self, preset: &str, members: &[Waiting]) -> bool {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(CLAIM).arg(2).arg(PAIRING).arg(pool_key(preset));
        cmd.arg(&self.node);
        for m in members {
            cmd.arg(m.field());
        }
        let mut redis = self.redis();
        let claimed: Result<i64, _> = cmd.query_async(&mut redis).await;
        claimed.is_ok_and(|c| c == 1)
    }

    /// Offers a waiter of another node its seat.
    pub(crate) async fn offer(&self, node: &str, offer: Offer) {
        self.send(node, &Envelope::Seat(offer)).await;
    }

    /// The seats other nodes offer this node's waiters (given once, to the pairing task).
    pub(crate) fn offers(&self) -> Option<mpsc::UnboundedReceiver<Offer>> {
        lock(&self.offers_rx).take()
    }

    /// Where one of this node's connections waits.
    fn waiting(&self, conn: ConnId) -> Waiting {
        Waiting {
            node: self.node.clone(),
            conn,
        }
    }
}

/// The next seat offered to one of this node's waiters (never, outside a cluster).
pub(crate) async fn next_offer(offers: &mut Option<mpsc::UnboundedReceiver<Offer>>) -> Offer {
    match offers {
        Some(rx) => match rx.recv().await {
            Some(offer) => offer,
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiters_field_names_its_node_and_connection() {
        let w = Waiting {
            node: "a1b2".into(),
            conn: 42,
        };
        assert_eq!(w.field(), "a1b2/42");
        assert_eq!(Waiting::parse("a1b2/42"), Some(w));
        assert_eq!(Waiting::parse("a1b2"), None);
        assert_eq!(Waiting::parse("a1b2/x"), None);
    }
}
