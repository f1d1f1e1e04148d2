//! The games in play of a cluster in Redis ([`Mirror`]), so that another node can take a dead
//! node's rooms over. Beside the room directory, Redis holds:
//!
//! - `jchomp:owners` — room → the node that owns it (the one word on ownership; a room is
//!   claimed by changing it atomically, `takeover.rs`), and `jchomp:owned:NODE`, the set of a
//!   node's rooms;
//! - `jchomp:live:ROOM` — the room's game in play ([`LiveRoom`] as JSON), and
//!   `jchomp:moves:ROOM` — its moves (move index → `row,col,version`);
//! - `jchomp:finished:NODE` — with PostgreSQL, the records a node has finished but not yet
//!   delivered there, so that a node dying between the two loses no record.
//!
//! Every batch of [`Write`]s the store commits is also written here, one script per room
//! (`EVALSHA` of a script loaded once), all in one pipeline (one round trip), before anyone is
//! told. Each script first checks (fencing) that this node's lease still holds the epoch the
//! batch was sent under, and that the room is still this node's: a node whose lease ran out
//! (paused, cut off) writes nothing more, whenever its writes reach Redis, and a node that lost
//! a room writes nothing more for it. A room whose writes were refused, or not confirmed while
//! the lease could still be proved, learns it is [`Mirror::lost`] and stops on this node.

use super::lease::Lease;
use super::link::Link;
use crate::store::Replica;
use crate::store::live::{LiveMove, LiveRoom, Stored, Write};
use crate::sync::lock;
use futures_util::future::BoxFuture;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Room → owning node.
pub(super) const OWNERS: &str = "jchomp:owners";
/// Every node that joined and whose rooms may still need a new owner.
pub(super) const NODES: &str = "jchomp:nodes";
/// The owner of a room that has closed (a tombstone): no node's name, so every script that
/// checks a room's owner refuses a write for it from any node, and no node takes it for a new
/// room of its own.
pub(super) const CLOSED: &str = "#closed";
/// When each tombstone was laid (room → milliseconds since the epoch), so that it can be
/// pruned after [`TOMBSTONE_KEEP`].
pub(super) const CLOSED_AT: &str = "jchomp:closed";
/// How long a closed room's tombstone is kept: longer than any node can be paused or cut off
/// and still hold a write for it (its lease, and so its rooms, are long gone by then).
pub(super) const TOMBSTONE_KEEP: Duration = Duration::from_secs(24 * 60 * 60);

/// Removes tombstones laid before `ARGV[1]` (ms), at most `ARGV[2]` of them; `ARGV[3]` is the
/// tombstone. KEYS: owners, closed-at. Returns how many were looked at.
pub(super) const PRUNE: &str = r"
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, room in ipairs(old) do
  if redis.call('HGET', KEYS[1], room) == ARGV[3] then redis.call('HDEL', KEYS[1], room) end
  redis.call('ZREM', KEYS[2], room)
end
return #old
";

/// The set of a node's rooms.
pub(super) fn owned_key(node: &str) -> String {
    format!("jchomp:owned:{node}")
}

/// A room's game in play.
pub(super) fn live_key(room: &str) -> String {
    format!("jchomp:live:{room}")
}

/// A room's moves.
pub(super) fn moves_key(room: &str) -> String {
    format!("jchomp:moves:{room}")
}

/// A node's records not yet in PostgreSQL.
pub(super) fn finished_key(node: &str) -> String {
    format!("jchomp:finished:{node}")
}

/// Applies one room's writes if this node's lease still holds the epoch the batch was sent
/// under and the room is this node's (or nobody's yet: a game just started, whose directory
/// line may not be written yet). Returns 1, or 0 if the lease ran out or was taken again, another
/// node owns the room, or it has closed ([`CLOSED`]). KEYS: owners, live, moves, finished of
/// this node, this node's lease; ARGV: node, room, epoch, then the writes as `live JSON`,
/// `move PLY VALUE`, `finished ID JSON`.
const APPLY: &str = r"
if redis.call('GET', KEYS[5]) ~= ARGV[3] then return 0 end
local owner = redis.call('HGET', KEYS[1], ARGV[2])
if owner and owner ~= ARGV[1] then return 0 end
local i = 4
while i <= #ARGV do
  local kind = ARGV[i]
  if kind == 'live' then
    if not owner then redis.call('HSET', KEYS[1], ARGV[2], ARGV[1]); owner = ARGV[1] end
    redis.call('SET', KEYS[2], ARGV[i + 1])
    i = i + 2
  elseif kind == 'move' then
    redis.call('HSET', KEYS[3], ARGV[i + 1], ARGV[i + 2])
    i = i + 3
  elseif kind == 'finished' then
    if ARGV[i + 2] ~= '' then redis.call('HSET', KEYS[4], ARGV[i + 1], ARGV[i + 2]) end
    redis.call('DEL', KEYS[2], KEYS[3])
    i = i + 3
  else
    return redis.error_reply('unknown write ' .. kind)
  end
end
return 1
";

/// This node's writer of games in play to Redis (cheap to clone).
#[derive(Clone, Debug)]
pub(crate) struct Mirror {
    redis: Arc<Link>,
    node: String,
    /// The node's lease: its epoch is every batch's fencing token, and a batch is retried
    /// only while the lease holds.
    lease: Arc<Lease>,
    /// The SHA-1 of [`APPLY`] as Redis knows it (`SCRIPT LOAD`), so that a batch sends the
    /// script's name, not its text.
    apply: String,
    /// Rooms another node owns now: this node must stop running them.
    lost: Arc<Mutex<HashSet<String>>>,
}

impl Mirror {
    /// A mirror writing for `node`, its script loaded into Redis.
    pub(super) async fn new(
        redis: Arc<Link>,
        node: String,
        lease: Arc<Lease>,
    ) -> Result<Mirror, redis::RedisError> {
        let apply = load(&mut redis.get()).await?;
        Ok(Mirror {
            redis,
            node,
            lease,
            apply,
            lost: Arc::default(),
        })
    }

    /// One batch's writes (in the store's order) as one fenced script per room in one
    /// pipeline, to send while the journal takes the same batch. With `records`, finished
    /// records are kept in Redis until they are delivered (they go on to PostgreSQL).
    fn pipeline(&self, batch: &[Write], records: bool) -> Option<Prepared> {
        let mut rooms: Vec<(&str, Vec<String>)> = Vec::new();
        for w in batch {
            let (room, args) = match w {
                Write::Live(live) => match serde_json::to_string(live) {
                    Ok(json) => (live.room.as_str(), vec!["live".to_string(), json]),
                    Err(_) => continue,
                },
                Write::Move { room, ply, mv } => (
                    room.as_str(),
                    vec![
                        "move".to_string(),
                        ply.to_string(),
                        format!("{},{},{}", mv.row, mv.col, mv.version),
                    ],
                ),
                Write::Finished { room, record } => {
                    let json = if records {
                        serde_json::to_string(record).unwrap_or_default()
                    } else {
                        String::new()
                    };
                    let id = record.id.clone().unwrap_or_else(|| room.clone());
                    (room.as_str(), vec!["finished".to_string(), id, json])
                }
            };
            match rooms.iter_mut().find(|(r, _)| *r == room) {
                Some((_, all)) => all.extend(args),
                None => rooms.push((room, args)),
            }
        }
        if rooms.is_empty() {
            return None;
        }
        let epoch = self.lease.epoch();
        let mut pipe = redis::pipe();
        for (room, args) in &rooms {
            pipe.cmd("EVALSHA")
                .arg(&self.apply)
                .arg(5)
                .arg(OWNERS)
                .arg(live_key(room))
                .arg(moves_key(room))
                .arg(finished_key(&self.node))
                .arg(super::lease_key(&self.node))
                .arg(&self.node)
                .arg(*room)
                .arg(epoch)
                .arg(args);
        }
        Some(Prepared {
            pipe,
            epoch,
            rooms: rooms.into_iter().map(|(r, _)| r.to_string()).collect(),
            writes: batch.len(),
            mirror: self.clone(),
        })
    }

    /// Finished records PostgreSQL holds now need no copy in Redis.
    async fn forget_delivered(&self, ids: &[String]) {
        if ids.is_empty() {
            return;
        }
        let mut redis = self.redis.get();
        if let Err(e) = redis.hdel::<_, _, ()>(finished_key(&self.node), ids).await {
            tracing::warn!(error = %e, "cannot forget delivered records in Redis");
        }
    }

    /// Marks rooms as lost.
    pub(super) fn mark_lost(&self, rooms: impl IntoIterator<Item = String>) {
        lock(&self.lost).extend(rooms);
    }
}

impl Replica for Mirror {
    fn prepare(&self, batch: &[Write], records: bool) -> Option<BoxFuture<'static, Vec<String>>> {
        self.pipeline(batch, records)
            .map(|p| -> BoxFuture<'static, Vec<String>> { Box::pin(p.send()) })
    }

    fn delivered<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, ()> {
        Box::pin(self.forget_delivered(ids))
    }

    /// Whether another node owns `room` now (a write for it was refused, or this node's lease
    /// ran out and the room was claimed meanwhile). Asking forgets the answer.
    fn lost(&self, room: &str) -> bool {
        lock(&self.lost).remove(room)
    }
}

/// Loads [`APPLY`] into Redis; returns its name (SHA-1).
async fn load(redis: &mut ConnectionManager) -> Result<String, redis::RedisError> {
    redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(APPLY)
        .query_async(redis)
        .await
}

/// A batch ready to go to Redis ([`Mirror::pipeline`]).
pub(crate) struct Prepared {
    pipe: redis::Pipeline,
    /// The epoch it is sent under.
    epoch: u64,
    rooms: Vec<String>,
    writes: usize,
    mirror: Mirror,
}

impl Prepared {
    /// Sends the batch in one round trip, retrying while Redis does not answer and the lease
    /// holds by this node's clock. Returns the rooms whose writes were not applied — refused
    /// (the lease ran out, or another node owns the room), or not confirmed before the lease
    /// could no longer be proved — each marked lost: their writes must not be acknowledged
    /// here, and the rooms stop on this node.
    pub(crate) async fn send(self) -> Vec<String> {
        let mut wait = Duration::from_millis(50);
        let lease = self.mirror.lease.clone();
        let applied: Vec<i64> = loop {
            // Nothing is sent, and nothing waited for, past the lease by this node's clock:
            // an answer after it could not make the writes this node's to acknowledge.
            let deadline = lease.deadline(self.epoch);
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(
                    writes = self.writes,
                    "games in play could not be written to Redis under this node's lease; their rooms stop here"
                );
                break Vec::new();
            }
            let mut redis = self.mirror.redis.get();
            let answered =
                tokio::time::timeout_at(deadline, self.pipe.query_async::<Vec<i64>>(&mut redis))
                    .await;
            match answered {
                Ok(Ok(a)) => break a,
                // Redis restarted and forgot its scripts: load it again (its name is the same).
                Ok(Err(e)) if e.code() == Some("NOSCRIPT") => {
                    if let Err(e) = load(&mut redis).await {
                        tracing::warn!(error = %e, "cannot load the games-in-play script");
                        tokio::time::sleep(wait).await;
                    }
                }
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "cannot write games in play to Redis; retrying");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(1));
                }
                Err(_) => {}
            }
        };
        let refused: Vec<String> = self
            .rooms
            .into_iter()
            .enumerate()
            .filter(|(i, _)| applied.get(*i).is_none_or(|ok| *ok == 0))
            .map(|(_, room)| room)
            .collect();
        if !applied.is_empty() {
            for room in &refused {
                tracing::warn!(
                    room,
                    "a write was refused: this node's lease ran out or another node owns the room; it stops here"
                );
            }
        }
        self.mirror.mark_lost(refused.iter().cloned());
        refused
    }
}

/// A room's game in play as Redis holds it, or `None` if it holds none (or it does not parse:
/// logged).
pub(super) async fn read_room(
    redis: &mut ConnectionManager,
    room: &str,
) -> Result<Option<Stored>, redis::RedisError> {
    let (json, moves): (Option<String>, HashMap<u32, String>) = redis::pipe()
        .get(live_key(room))
        .hgetall(moves_key(room))
        .query_async(redis)
        .await?;
    let Some(json) = json else {
        return Ok(None);
    };
    let live: LiveRoom = match serde_json::from_str(&json) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(room, error = %e, "a game in play in Redis does not parse");
            return Ok(None);
        }
    };
    match parse_moves(&moves) {
        Some(moves) => Ok(Some(Stored { room: live, moves })),
        None => {
            tracing::error!(room, "the moves of a game in play in Redis are not whole");
            Ok(None)
        }
    }
}

/// Moves by index (`row,col,version` each) in order; `None` if one is missing or malformed.
fn parse_moves(moves: &HashMap<u32, String>) -> Option<Vec<LiveMove>> {
    let mut out = Vec::with_capacity(moves.len());
    for ply in 0..moves.len() {
        let text = moves.get(&u32::try_from(ply).ok()?)?;
        let mut parts = text.split(',');
        let mut next = || parts.next();
        let row = next()?.parse().ok()?;
        let col = next()?.parse().ok()?;
        let version = next()?.parse().ok()?;
        out.push(LiveMove { row, col, version });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_read_in_order_and_whole() {
        let moves: HashMap<u32, String> =
            [(1, "0,2,5".to_string()), (0, "3,3,4".to_string())].into();
        assert_eq!(
            parse_moves(&moves),
            Some(vec![
                LiveMove {
                    row: 3,
                    col: 3,
                    version: 4
                },
                LiveMove {
                    row: 0,
                    col: 2,
                    version: 5
                },
            ])
        );
        let gap: HashMap<u32, String> = [(1, "0,2,5".to_string())].into();
        assert_eq!(parse_moves(&gap), None);
        let bad: HashMap<u32, String> = [(0, "0,x,5".to_string())].into();
        assert_eq!(parse_moves(&bad), None);
        assert_eq!(parse_moves(&HashMap::new()), Some(vec![]));
    }
}
