//! The cluster (`--cluster redis://…`): several nodes behind a load balancer act as one
//! server. Each room runs on the node it was created on (its owner); Redis holds the room
//! directory and list (`directory.rs`), the seat tokens' rooms, and each node's lease (a key
//! that expires unless the node renews it); a node forwards its clients' requests for a room of
//! another node to the owner and relays the room's frames back (`relay.rs`), through Redis
//! pub/sub (`wire.rs`: one channel per node). Each game in play is kept in Redis as it is
//! played (`state.rs`), and the live nodes take a dead node's rooms over (`takeover.rs`); each
//! tournament is run by one node, kept in Redis, and taken over the same way (`tournaments.rs`).

mod directory;
mod lapse;
mod lease;
mod link;
mod pools;
mod relay;
mod state;
mod takeover;
mod tournaments;
mod wire;

#[cfg(test)]
mod tests;

pub(crate) use pools::{PoolEntry, Waiting, next_offer};
pub(crate) use state::Mirror;
pub(crate) use tournaments::{KeptTournament, TournamentAsk, TournamentWrite};
pub(crate) use wire::Ask;
pub(crate) use wire::Offer;

use crate::game::directory::DirectorySink;
use crate::game::lobby::Lobby;
use crate::game::outbox::{ConnId, Peer};
use crate::game::refusal::Refusal;
use crate::metrics::Metrics;
use crate::sync::lock;
use futures_util::StreamExt;
use link::Link;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use wire::{ALL, Envelope, ReplyBody, channel};

pub(crate) use lease::LEASE;
/// How often a node renews its lease (and checks the leases of the nodes it serves, and
/// looks for dead nodes whose rooms it may take over).
const RENEW: Duration = Duration::from_millis(1000);
/// How long this node's subscription may hear nothing (its own heartbeat comes every
/// [`RENEW`]) before it is made again.
const SILENCE: Duration = Duration::from_secs(4);
/// How long a request waits for this node to hear its channel again before it is refused.
const HEAR: Duration = Duration::from_secs(1);
/// How long a client's request waits for the owner's answer.
const ANSWER: Duration = Duration::from_secs(5);
/// How long a client's request for a room whose owner died waits, beyond [`ANSWER`], for
/// another node to take the room over: a lease, a look for dead nodes, and the claim.
const TAKEOVER_WAIT: Duration = Duration::from_secs(8);

/// Why the cluster could not start: in words, Redis's error included, and kept as its
/// [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The `--cluster` URL does not parse.
    #[error("bad Redis URL: {0}")]
    Url(#[source] redis::RedisError),
    /// Redis could not be reached, or refused a command at start.
    #[error("{0}")]
    Redis(#[from] redis::RedisError),
}

/// Whether Redis took a message for another node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    /// Redis took it (and delivers it to the node if it listens).
    Yes,
    /// It never reached Redis (the connection was refused): nothing was done.
    No,
    /// No answer (a timeout, a connection dropped mid-way): Redis may still deliver it, later.
    Unknown,
}

/// The key of a node's lease.
fn lease_key(node: &str) -> String {
    format!("jchomp:node:{node}")
}

/// This node's part of the cluster.
pub(crate) struct Cluster {
    /// This node's id (random per process).
    pub node: String,
    /// The connection to Redis, replaced when it stops answering.
    redis: Arc<Link>,
    client: redis::Client,
    lobby: Arc<Lobby>,
    metrics: Arc<Metrics>,
    /// Replies awaited by this node's clients, by request id.
    pending: Mutex<HashMap<u64, relay::Pending>>,
    /// This node's clients in rooms of other nodes, by connection id.
    local: Mutex<HashMap<ConnId, Peer>>,
    /// Stand-ins of other nodes' clients in this node's rooms: (node, connection) → peer.
    proxies: Mutex<HashMap<(String, u64), relay::Proxy>>,
    next_req: std::sync::atomic::AtomicU64,
    /// Where the room directory's changes go.
    pub directory: DirectorySink,
    /// Writes the games in play to Redis (handed to the store's writer).
    mirror: Mirror,
    /// The owner of each room this node's clients are relayed to, watched by the relays, so
    /// that they re-route when another node takes the room over.
    routes: Mutex<HashMap<String, watch::Sender<String>>>,
    /// What each of this node's clients is in a room of another node (a seat, or watching),
    /// so that a relay can take it back on the room's new owner.
    /// (A connection is in one room at a time.)
    roles: Mutex<HashMap<ConnId, (String, relay::Role)>>,
    /// Since when Redis has answered this node without a break (`None`: it does not now).
    healthy_since: Mutex<Option<Instant>>,
    /// Messages queued for one client before it is dropped as a slow reader (the settings'
    /// `outgoing_queue`), also for the stand-ins of other nodes' clients.
    outgoing_queue: usize,
    /// Rooms this node has claimed and is restoring (or, after its lease lapsed, its own rooms
    /// until it has its lease again and restores them), with the requests of other nodes'
    /// clients that arrived meanwhile (other nodes may learn the new owner before the room is
    /// back): they are served, in order, once the room is restored.
    adopting: Mutex<HashMap<String, Vec<relay::Deferred>>>,
    /// This node's lease: its epoch (every write's fencing token) and until when it holds.
    lease: Arc<lease::Lease>,
    /// This node's own rooms to restore from Redis after it took its lease again; the takeover
    /// task does it, woken by `readopt_now`.
    readopt: Mutex<Vec<String>>,
    readopt_now: tokio::sync::Notify,
    /// Whether this node is subscribed to its channel now: a request is sent to another node
    /// only while its answer can be heard.
    listening: watch::Sender<bool>,
    /// Seats other nodes offer this node's quick-pairing waiters, and where the pairing task
    /// reads them.
    offers_tx: mpsc::UnboundedSender<Offer>,
    offers_rx: Mutex<Option<mpsc::UnboundedReceiver<Offer>>>,
    /// Other nodes' clients' requests for the tournaments this node runs, and where the
    /// tournaments layer reads them.
    asks_tx: mpsc::UnboundedSender<TournamentAsk>,
    asks_rx: Mutex<Option<mpsc::UnboundedReceiver<TournamentAsk>>>,
    /// Seats of tournament games that other nodes hand this node's entrants (connection,
    /// token), and where the tournaments layer reads them.
    seats_tx: mpsc::UnboundedSender<(ConnId, String)>,
    seats_rx: Mutex<Option<mpsc::UnboundedReceiver<(ConnId, String)>>>,
    /// The nodes each of this node's clients has asked something of a tournament, told when
    /// the client is gone.
    entered: Mutex<HashMap<ConnId, std::collections::HashSet<String>>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("node", &self.node).finish()
    }
}

impl Cluster {
    /// Connects to Redis at `url`, takes this node's lease, and starts the tasks that renew
    /// it, write the room directory and listen to other nodes, until `shutdown`.
    pub(crate) async fn start(
        url: &str,
        lobby: Arc<Lobby>,
        metrics: Arc<Metrics>,
        outgoing_queue: usize,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Arc<Cluster>, ClusterError> {
        let client = redis::Client::open(url).map_err(ClusterError::Url)?;
        let link = Arc::new(Link::open(client.clone()).await?);
        let mut redis = link.get();
        let node = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
        let sent = Instant::now();
        let (epoch, _) = lapse::take(&mut redis, &node).await?;
        let lease = Arc::new(lease::Lease::new(epoch, sent));
        let (directory, changes, written) = DirectorySink::new();
        let mirror = Mirror::new(link.clone(), node.clone(), lease.clone()).await?;
        let (offers_tx, offers_rx) = mpsc::unbounded_channel();
        let (asks_tx, asks_rx) = mpsc::unbounded_channel();
        let (seats_tx, seats_rx) = mpsc::unbounded_channel();
        let cluster = Arc::new(Cluster {
            node,
            redis: link,
            client,
            lobby,
            metrics,
            pending: Mutex::new(HashMap::new()),
            local: Mutex::new(HashMap::new()),
            proxies: Mutex::new(HashMap::new()),
            next_req: std::sync::atomic::AtomicU64::new(1),
            directory,
            mirror,
            routes: Mutex::new(HashMap::new()),
            roles: Mutex::new(HashMap::new()),
            healthy_since: Mutex::new(Some(Instant::now())),
            outgoing_queue: outgoing_queue.max(1),
            adopting: Mutex::new(HashMap::new()),
            lease,
            readopt: Mutex::new(Vec::new()),
            readopt_now: tokio::sync::Notify::new(),
            listening: watch::channel(false).0,
            offers_tx,
            offers_rx: Mutex::new(Some(offers_rx)),
            asks_tx,
            asks_rx: Mutex::new(Some(asks_rx)),
            seats_tx,
            seats_rx: Mutex::new(Some(seats_rx)),
            entered: Mutex::new(HashMap::new()),
        });
        let (subscribed_tx, subscribed) = oneshot::channel();
        tokio::spawn(directory::write(
            cluster.redis.clone(),
            cluster.node.clone(),
            cluster.lease.clone(),
            changes,
            written,
        ));
        tokio::spawn(cluster.clone().listen(shutdown.clone(), subscribed_tx));
        tokio::spawn(cluster.clone().watch_lease(shutdown.clone()));
        tokio::spawn(cluster.clone().renew(shutdown));
        // Requests sent to this node before it listens would be lost.
        let _ = subscribed.await;
        tracing::info!(node = %cluster.node, "joined the cluster");
        Ok(cluster)
    }

    /// The writer of this node's games in play to Redis.
    pub(crate) fn mirror(&self) -> Mirror {
        self.mirror.clone()
    }

    /// How long Redis has answered this node without a break.
    fn healthy_for(&self) -> std::time::Duration {
        lock(&self.healthy_since).map_or(std::time::Duration::ZERO, |t| t.elapsed())
    }

    /// A Redis connection (cheap to clone; reconnects by itself when the connection breaks,
    /// and is replaced when it stops answering, [`Link::replace`]).
    fn redis(&self) -> ConnectionManager {
        self.redis.get()
    }

    /// Whether Redis answers now.
    pub(crate) async fn ping(&self) -> Result<(), String> {
        let mut redis = self.redis();
        redis::cmd("PING")
            .query_async::<String>(&mut redis)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Sends an envelope to a node: whether Redis took it. A request is not sent while this
    /// node cannot hear the answer (its subscription is being made again, after Redis was
    /// away), waiting up to [`HEAR`] for it: then nothing was done.
    async fn send(&self, node: &str, envelope: &Envelope) -> Sent {
        if matches!(envelope, Envelope::Request { .. }) {
            let mut listening = self.listening.subscribe();
            let heard = tokio::time::timeout(HEAR, listening.wait_for(|l| *l)).await;
            if !matches!(heard, Ok(Ok(_))) {
                tracing::warn!(
                    "a request to another node was not sent: this node cannot hear answers now"
                );
                return Sent::No;
            }
        }
        self.publish(&channel(node), envelope).await
    }

    /// Publishes an envelope on a channel: whether Redis took it.
    async fn publish(&self, channel: &str, envelope: &Envelope) -> Sent {
        let Ok(json) = serde_json::to_string(envelope) else {
            return Sent::No;
        };
        let mut redis = self.redis();
        match redis.publish::<_, _, i64>(channel, json).await {
            Ok(_) => {
                self.metrics.cluster_sent.inc();
                Sent::Yes
            }
            Err(e) if e.is_connection_refusal() => {
                tracing::warn!(to = channel, error = %e, "a message to another node was not sent");
                Sent::No
            }
            Err(e) => {
                tracing::warn!(to = channel, error = %e, "a message to another node may be lost");
                Sent::Unknown
            }
        }
    }

    /// Renews this node's lease until shutdown (then drops it), and tells this node's rooms
    /// that the clients of a node whose lease ran out are gone.
    async fn renew(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let mut tick = tokio::time::interval(RENEW);
        loop {
            tokio::select! {
                _ = crate::shutdown::shutting_down(&mut shutdown) => break,
                _ = tick.tick() => {}
            }
            self.renew_once().await;
            self.send(&self.node, &Envelope::Heartbeat).await;
            self.forget_dead_nodes().await;
            self.reroute_dead_owners().await;
        }
        let mut redis = self.redis();
        let _: Result<(), _> = redis.del(lease_key(&self.node)).await;
    }

    /// Renews this node's lease. If it had run out (this node was paused, or cut off from
    /// Redis, or Redis was away, longer than a lease), the node stops serving its rooms (if its
    /// own clock had not already made it) and takes a lease again under a fresh epoch.
    async fn renew_once(self: &Arc<Self>) {
        let mut redis = self.redis();
        let sent = Instant::now();
        let renewed: Result<i64, _> = redis::cmd("EVAL")
            .arg(lease::RENEW)
            .arg(1)
            .arg(lease_key(&self.node))
            .arg(self.lease.epoch())
            .arg(lease::lease_ms())
            .query_async(&mut redis)
            .await;
        match renewed {
            Ok(1) if self.lease.serving() => {
                self.lease.renewed(sent);
                lock(&self.healthy_since).get_or_insert_with(Instant::now);
            }
            Ok(_) => {
                self.lapse("this node's lease had run out").await;
                self.retake().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot renew this node's lease");
                *lock(&self.healthy_since) = None;
                if e.is_timeout() {
                    self.redis.replace().await;
                }
            }
        }
    }

    /// The nodes whose lease is alive, of those named.
    async fn alive(&self, nodes: &[String]) -> Vec<bool> {
        let mut redis = self.redis();
        let mut alive = Vec::with_capacity(nodes.len());
        for node in nodes {
            alive.push(redis.exists(lease_key(node)).await.unwrap_or(true));
        }
        alive
    }

    /// Listens on this node's channel until shutdown, subscribing again after Redis drops.
    async fn listen(
        self: Arc<Self>,
        mut shutdown: watch::Receiver<bool>,
        subscribed: oneshot::Sender<()>,
    ) {
        let mut subscribed = Some(subscribed);
        loop {
            match self.client.get_async_pubsub().await {
                Ok(mut pubsub) => {
                    if let Err(e) = pubsub
                        .subscribe(&[channel(&self.node), ALL.to_string()])
                        .await
                    {
                        tracing::warn!(error = %e, "cannot subscribe to this node's channel");
                    } else {
                        if let Some(s) = subscribed.take() {
                            let _ = s.send(());
                        }
                        self.listening.send_replace(true);
                        let mut messages = pubsub.on_message();
                        loop {
                            tokio::select! {
                                _ = crate::shutdown::shutting_down(&mut shutdown) => return,
                                () = tokio::time::sleep(SILENCE) => {
                                    tracing::warn!("this node's subscription has heard nothing, not even its own heartbeat; subscribing again");
                                    break;
                                }
                                msg = messages.next() => match msg {
                                    Some(msg) => {
                                        let payload: String = msg.get_payload().unwrap_or_default();
                                        self.metrics.cluster_received.inc();
                                        match serde_json::from_str::<Envelope>(&payload) {
                                            Ok(e) => self.clone().receive(e).await,
                                            Err(e) => tracing::warn!(error = %e, "a message from another node does not parse"),
                                        }
                                    }
                                    None => break,
                                },
                            }
                        }
                        self.listening.send_replace(false);
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot reach Redis to listen"),
            }
            tokio::select! {
                _ = crate::shutdown::shutting_down(&mut shutdown) => return,
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
    }

    /// Handles one envelope from another node.
    async fn receive(self: Arc<Self>, envelope: Envelope) {
        match envelope {
            Envelope::Request {
                from,
                conn,
                room,
                req,
                op,
            } => self.serve(from, conn, room, req, op).await,
            Envelope::Reply { req, body } => {
                let pending = lock(&self.pending).remove(&req);
                if let Some(p) = pending {
                    self.note_role(&p, &body);
                    self.metrics
                        .cluster_answer_seconds
                        .observe(p.sent.elapsed().as_secs_f64());
                    p.answer(body);
                }
            }
            Envelope::Owner { room, owner } => self.rerouted(&room, &owner, true),
            Envelope::Heartbeat => {}
            Envelope::Seat(offer) => {
                let _ = self.offers_tx.send(offer);
            }
            Envelope::Tournament {
                from,
                conn,
                tournament,
                req,
                ask,
            } => {
                let ask = TournamentAsk {
                    from,
                    conn,
                    tournament,
                    req,
                    ask,
                };
                let _ = self.asks_tx.send(ask);
            }
            Envelope::TournamentSeat { conn, token } => {
                let _ = self.seats_tx.send((conn, token));
            }
            Envelope::Out {
                from,
                conn,
                frames,
                tournament,
            } => {
                if !tournament && self.stale(&from, conn) {
                    return;
                }
                let peer = lock(&self.local).get(&conn).cloned();
                if let Some(peer) = peer {
                    for frame in frames {
                        relay::deliver(&peer, frame);
                    }
                }
            }
        }
    }

    /// Whether frames from `from` for a client of this node come from a node that no longer
    /// owns the client's room (it lost the room to a takeover): they are dropped, so that the
    /// old owner stopping the room does not close a client already re-routed to the new one.
    fn stale(&self, from: &str, conn: ConnId) -> bool {
        let Some((room, _)) = lock(&self.roles).get(&conn).cloned() else {
            return false;
        };
        lock(&self.routes)
            .get(&room)
            .is_some_and(|owner| *owner.borrow() != from)
    }

    /// A fresh request id.
    fn next_req(&self) -> u64 {
        self.next_req
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Tells this node's rooms that every client of a node whose lease ran out is gone.
    async fn forget_dead_nodes(&self) {
        // As for taking rooms over: right after Redis came back, the other nodes may not have
        // renewed their leases yet, and their clients are still there.
        if self.healthy_for() < LEASE {
            return;
        }
        let mut nodes: Vec<String> = lock(&self.proxies).keys().map(|(n, _)| n.clone()).collect();
        nodes.sort();
        nodes.dedup();
        if nodes.is_empty() {
            return;
        }
        let alive = self.alive(&nodes).await;
        for (node, alive) in nodes.iter().zip(alive) {
            if alive {
                continue;
            }
            tracing::warn!(node = %node, "a node's lease ran out; its clients are disconnected");
            let gone: Vec<relay::Proxy> = {
                let mut proxies = lock(&self.proxies);
                let keys: Vec<(String, u64)> =
                    proxies.keys().filter(|(n, _)| n == node).cloned().collect();
                keys.into_iter()
                    .filter_map(|k| proxies.remove(&k))
                    .collect()
            };
            for proxy in gone {
                for room in &proxy.rooms {
                    relay::disconnect(&self.lobby, room, proxy.peer.id).await;
                }
            }
        }
    }
}

impl Cluster {
    /// Remembers what an answer made of a client in a room of another node.
    fn note_role(&self, p: &relay::Pending, body: &ReplyBody) {
        let mut roles = lock(&self.roles);
        match body {
            ReplyBody::Seat(Ok(seat)) => {
                roles.insert(p.conn, (p.room.clone(), relay::Role::Seat(*seat)));
            }
            ReplyBody::Done(Ok(())) => {
                roles.insert(p.conn, (p.room.clone(), relay::Role::Spectator));
            }
            ReplyBody::Leave(wire::Leaving::Left)
                if roles.get(&p.conn).is_some_and(|(r, _)| *r == p.room) =>
            {
                roles.remove(&p.conn);
            }
            _ => {}
        }
    }
}

impl relay::Pending {
    /// Completes the waiting request with the owner's answer.
    fn answer(self, body: ReplyBody) {
        match (self.reply, body) {
            (relay::Waiting::Seat(tx), ReplyBody::Seat(r)) => {
                let _ = tx.send(r.map_err(Refusal::from));
            }
            (relay::Waiting::Done(tx), ReplyBody::Done(r) | ReplyBody::Entered(r)) => {
                let _ = tx.send(r.map_err(Refusal::from));
            }
            (relay::Waiting::Leave(tx), ReplyBody::Leave(r)) => {
                let _ = tx.send(r.into());
            }
            _ => tracing::warn!("an answer from another node does not match its request"),
        }
    }
}

/// A room channel for the node's clients: a room of this node, or a relay to its owner.
pub(crate) type RoomTx = mpsc::Sender<crate::game::event::RoomEvent>;
