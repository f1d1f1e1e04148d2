//! Tournaments in a cluster: each is run by one node (its owner, like a room's), which writes
//! its state to Redis before telling anyone of a change; any node reads it to list and show
//! it, and a live node claims the tournament of a node whose lease is gone and runs it on from
//! there. Beside the rooms' keys, Redis holds:
//!
//! - `jchomp:tournaments` — tournament id → its state without its games (JSON, whose shape the
//!   tournaments layer owns), and `jchomp:tournament_games:ID` — its games, index → JSON, each
//!   written while it may still change (a finished game is written once more, then never), so
//!   that a write costs the games in play, not every game played;
//! - `jchomp:tournament_lines` — tournament id → its line in the list (JSON);
//! - `jchomp:tournament_owners` — tournament id → the node that runs it;
//! - `jchomp:tournament_versions` — tournament id → how many times it was written, so that a
//!   node showing another node's tournament reads the state only when it changed;
//! - `jchomp:tournament_names` — the name of each tournament made from the tournaments file →
//!   its id, so that nodes started together make it once.
//!
//! Every write and claim is fenced as a room's are: it does nothing unless the writer's lease
//! holds the epoch it names, and (a write) the tournament is the writer's.
//!
//! A client's entry or withdrawal reaches the node running the tournament as a request
//! ([`Envelope::Tournament`]); that node answers it, shows the client the tournament through a
//! stand-in whose frames go to the client's node, and hands it each game's seat
//! ([`Envelope::TournamentSeat`]); the client's node says when the client is gone.

use super::relay::Waiting;
use super::wire::{Ask, Envelope, Refused, ReplyBody};
use super::{Cluster, LEASE, Sent, lease_key, lock};
use crate::game::outbox::{ConnId, Peer};
use crate::game::refusal::Refusal;
use jchomp_protocol::wire::ErrorCode;
use redis::AsyncCommands;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// Tournament id → its state without its games.
const STATES: &str = "jchomp:tournaments";
/// Tournament id → its line in the list.
const LINES: &str = "jchomp:tournament_lines";

/// A tournament's games.
fn games_key(id: &str) -> String {
    format!("jchomp:tournament_games:{id}")
}
/// Tournament id → its node.
const OWNERS: &str = "jchomp:tournament_owners";
/// Tournament id → its count of writes.
const VERSIONS: &str = "jchomp:tournament_versions";
/// A file tournament's name → its id.
const NAMES: &str = "jchomp:tournament_names";

/// Writes a tournament's state if this node's lease holds its epoch and the tournament is
/// this node's (or new). KEYS: owners, states, versions, this node's lease, lines, its games;
/// ARGV: id, node, epoch, state, line, then index and game for each game written. Returns 1,
/// or 0 when refused.
const SAVE: &str = r"
if redis.call('GET', KEYS[4]) ~= ARGV[3] then return 0 end
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner and owner ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
for i = 6, #ARGV, 2 do
  redis.call('HSET', KEYS[6], ARGV[i], ARGV[i + 1])
end
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
return 1
";

/// A tournament as Redis keeps it.
#[derive(Debug)]
pub(crate) struct KeptTournament {
    /// Its state without its games.
    pub state: String,
    /// Its games: (index, game).
    pub games: Vec<(usize, String)>,
    /// Its count of writes.
    pub version: u64,
}

/// Moves a tournament from a dead node to this one, if the dead node's lease is gone, it
/// still runs the tournament, and this node's lease holds its epoch. KEYS: owners, the dead
/// node's lease, this node's lease; ARGV: id, dead node, this node, epoch. Returns 1 if won.
const CLAIM: &str = r"
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('GET', KEYS[3]) ~= ARGV[4] then return 0 end
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
";

/// Removes a file tournament's name claimed for an id, if it is still claimed for that id.
/// KEYS: names; ARGV: name, id.
const RELEASE: &str = r"
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
";

/// Why a tournament's state was not written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TournamentWrite {
    /// This node's lease is gone, or another node runs the tournament now: it must stop here.
    #[error("this node no longer runs the tournament")]
    Lost,
    /// Redis did not answer or refused the command.
    #[error("{0}")]
    Redis(#[from] redis::RedisError),
}

/// A request of another node's client for a tournament this node runs.
#[derive(Debug)]
pub(crate) struct TournamentAsk {
    /// The client's node.
    pub from: String,
    /// The client's connection there.
    pub conn: u64,
    /// The tournament.
    pub tournament: String,
    /// Matches the reply (0: none expected).
    pub req: u64,
    /// What it asks.
    pub ask: Ask,
}

impl Cluster {
    /// Writes tournament `id`'s `state` (without its games), its `line` and the `games` given
    /// (index, game) under this node's epoch; returns once Redis has them.
    pub(crate) async fn save_tournament(
        &self,
        id: &str,
        state: &str,
        line: &str,
        games: &[(usize, String)],
    ) -> Result<(), TournamentWrite> {
        if !self.lease.serving() {
            return Err(TournamentWrite::Lost);
        }
        let mut redis = self.redis();
        let mut save = redis::cmd("EVAL");
        save.arg(SAVE)
            .arg(6)
            .arg(OWNERS)
            .arg(STATES)
            .arg(VERSIONS)
            .arg(lease_key(&self.node))
            .arg(LINES)
            .arg(games_key(id))
            .arg(id)
            .arg(&self.node)
            .arg(self.lease.epoch())
            .arg(state)
            .arg(line);
        for (i, game) in games {
            save.arg(i).arg(game);
        }
        let done: i64 = save.query_async(&mut redis).await?;
        if done == 1 {
            Ok(())
        } else {
            Err(TournamentWrite::Lost)
        }
    }

    /// Every tournament's line, as (id, line).
    pub(crate) async fn tournament_lines(
        &self,
    ) -> Result<Vec<(String, String)>, redis::RedisError> {
        let mut redis = self.redis();
        redis.hgetall(LINES).await
    }

    /// Tournament `id` as Redis keeps it, if it does.
    pub(crate) async fn tournament_state(
        &self,
        id: &str,
    ) -> Result<Option<KeptTournament>, redis::RedisError> {
        let mut redis = self.redis();
        let (state, games, version): (Option<String>, Vec<(usize, String)>, Option<u64>) =
            redis::pipe()
                .atomic()
                .hget(STATES, id)
                .hgetall(games_key(id))
                .hget(VERSIONS, id)
                .query_async(&mut redis)
                .await?;
        Ok(state.map(|state| KeptTournament {
            state,
            games,
            version: version.unwrap_or(0),
        }))
    }

    /// How many times tournament `id` was written (0 for none).
    pub(crate) async fn tournament_version(&self, id: &str) -> Result<u64, redis::RedisError> {
        let mut redis = self.redis();
        let v: Option<u64> = redis.hget(VERSIONS, id).await?;
        Ok(v.unwrap_or(0))
    }

    /// The tournaments this node is to run: those Redis gives it, and those of dead nodes it
    /// wins now (only once Redis has answered it for a whole lease, as for rooms: the other
    /// nodes may not have renewed theirs yet). Nothing while this node does not serve.
    pub(crate) async fn tournaments_to_run(&self) -> Result<Vec<String>, redis::RedisError> {
        if !self.lease.serving() {
            return Ok(Vec::new());
        }
        let mut redis = self.redis();
        let owners: Vec<(String, String)> = redis.hgetall(OWNERS).await?;
        let (mine, others): (Vec<_>, Vec<_>) = owners
            .into_iter()
            .partition(|(_, owner)| *owner == self.node);
        let mut mine: Vec<String> = mine.into_iter().map(|(id, _)| id).collect();
        if others.is_empty() || self.healthy_for() < LEASE {
            return Ok(mine);
        }
        // Each other node's lease looked up once (a node Redis cannot say of counts as alive).
        let mut nodes: Vec<String> = others.iter().map(|(_, owner)| owner.clone()).collect();
        nodes.sort();
        nodes.dedup();
        let alive = self.alive(&nodes).await;
        let dead = |owner: &String| nodes.binary_search(owner).is_ok_and(|i| !alive[i]);
        for (id, owner) in others.iter().filter(|(_, owner)| dead(owner)) {
            let won: i64 = redis::cmd("EVAL")
                .arg(CLAIM)
                .arg(3)
                .arg(OWNERS)
                .arg(lease_key(owner))
                .arg(lease_key(&self.node))
                .arg(id)
                .arg(owner)
                .arg(&self.node)
                .arg(self.lease.epoch())
                .query_async(&mut redis)
                .await?;
            if won == 1 {
                tracing::warn!(tournament = %id, node = %owner, "a node's lease ran out; taking its tournament over");
                mine.push(id.clone());
            }
        }
        Ok(mine)
    }

    /// Claims `name` for tournament `id` of the tournaments file: whether no node had made
    /// that tournament yet (then this node makes it).
    pub(crate) async fn claim_file_name(
        &self,
        name: &str,
        id: &str,
    ) -> Result<bool, redis::RedisError> {
        let mut redis = self.redis();
        redis.hset_nx(NAMES, name, id).await
    }

    /// Which of `nodes` are surely dead (their lease gone, asked of a Redis that has answered
    /// this node for a whole lease, as before a takeover).
    pub(crate) async fn dead_nodes(&self, nodes: Vec<String>) -> Vec<String> {
        if nodes.is_empty() || self.healthy_for() < LEASE {
            return Vec::new();
        }
        let alive = self.alive(&nodes).await;
        nodes
            .into_iter()
            .zip(alive)
            .filter_map(|(node, alive)| (!alive).then_some(node))
            .collect()
    }

    /// Gives up the claim of a file tournament's `name` for `id` (its making failed), so that
    /// a node makes it at its next start.
    pub(crate) async fn release_file_name(
        &self,
        name: &str,
        id: &str,
    ) -> Result<(), redis::RedisError> {
        let mut redis = self.redis();
        redis::cmd("EVAL")
            .arg(RELEASE)
            .arg(1)
            .arg(NAMES)
            .arg(name)
            .arg(id)
            .query_async::<i64>(&mut redis)
            .await
            .map(drop)
    }

    /// The node that runs tournament `id`, if its lease is alive.
    pub(crate) async fn tournament_owner(
        &self,
        id: &str,
    ) -> Result<Option<String>, redis::RedisError> {
        let mut redis = self.redis();
        let owner: Option<String> = redis.hget(OWNERS, id).await?;
        let Some(owner) = owner else {
            return Ok(None);
        };
        let alive: bool = redis.exists(lease_key(&owner)).await?;
        Ok(alive.then_some(owner))
    }

    /// Asks `owner`, the node that runs `tournament`, for `ask` on behalf of this node's
    /// client `peer` (which is shown what that node sends it from then on): its answer, or
    /// `unavailable` if none came.
    pub(crate) async fn ask_tournament(
        self: &Arc<Self>,
        owner: &str,
        peer: &Peer,
        tournament: &str,
        ask: Ask,
    ) -> Result<(), Refusal> {
        lock(&self.local).insert(peer.id, peer.clone());
        lock(&self.entered)
            .entry(peer.id)
            .or_default()
            .insert(owner.to_string());
        let (reply, answer) = oneshot::channel();
        let req = self.wait_for(Waiting::Done(reply), peer.id, tournament, owner);
        let envelope = Envelope::Tournament {
            from: self.node.clone(),
            conn: peer.id,
            tournament: tournament.to_string(),
            req,
            ask,
        };
        let unanswered = || {
            Refusal::new(
                ErrorCode::Unavailable,
                format!("the node running tournament {tournament} did not answer; send it again"),
            )
        };
        if self.send(owner, &envelope).await == Sent::No {
            lock(&self.pending).remove(&req);
            return Err(unanswered());
        }
        answer.await.map_err(|_| unanswered())?
    }

    /// Answers request `req` of a client of `node` for a tournament this node runs.
    pub(crate) async fn answer_tournament(
        &self,
        node: &str,
        req: u64,
        answer: Result<(), Refusal>,
    ) {
        let body = ReplyBody::Entered(answer.map_err(Refused::from));
        self.send(node, &Envelope::Reply { req, body }).await;
    }

    /// Tells `node`, which runs a tournament this node's client `conn` asked something of,
    /// that the client is gone.
    pub(super) async fn tournament_left(&self, node: &str, conn: ConnId) {
        let envelope = Envelope::Tournament {
            from: self.node.clone(),
            conn,
            tournament: String::new(),
            req: 0,
            ask: Ask::Left,
        };
        self.send(node, &envelope).await;
    }

    /// The stand-in of client `conn` of `node` for a tournament this node runs: its frames go
    /// to that client, in order, until the handle stops it (then the stand-in is gone).
    pub(crate) fn tournament_stand_in(
        self: &Arc<Self>,
        node: &str,
        conn: u64,
    ) -> (Peer, tokio::task::AbortHandle) {
        self.forwarder(node.to_string(), conn, true)
    }

    /// Hands client `conn` of `node` a seat of a tournament game, taken with `token`.
    pub(crate) async fn hand_tournament_seat(&self, node: &str, conn: u64, token: String) {
        self.send(node, &Envelope::TournamentSeat { conn, token })
            .await;
    }

    /// Where other nodes' clients' requests for this node's tournaments are read (once).
    pub(crate) fn tournament_asks(&self) -> Option<mpsc::UnboundedReceiver<TournamentAsk>> {
        lock(&self.asks_rx).take()
    }

    /// Where the seats other nodes hand this node's entrants are read (once): (connection,
    /// token).
    pub(crate) fn tournament_seats(&self) -> Option<mpsc::UnboundedReceiver<(ConnId, String)>> {
        lock(&self.seats_rx).take()
    }
}
