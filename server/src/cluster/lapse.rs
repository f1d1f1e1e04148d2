//! A node whose lease runs out, and takes it again. The node watches its lease on its own
//! clock ([`Cluster::watch_lease`]); once the lease can no longer be proved — Redis cannot be
//! reached, or answers that the lease ran out — the node stops serving ([`Cluster::lapse`]):
//! its rooms stop without a word more (their clients are told to reconnect elsewhere), its
//! clients relayed to other nodes are told the same, and requests for its rooms wait. When
//! Redis answers again it takes a lease under a fresh epoch ([`Cluster::retake`]) and restores,
//! from Redis, the rooms no other node took meanwhile (`takeover.rs`).

use super::lease::{EPOCHS, TAKE, lease_ms};
use super::state::{NODES, OWNERS, owned_key};
use super::{Cluster, lease_key};
use crate::game::event::RoomEvent;
use crate::sync::lock;
use redis::aio::ConnectionManager;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// How often the node looks at its lease's time.
const WATCH: Duration = Duration::from_millis(100);

/// Takes `node`'s lease under a fresh epoch: the epoch, and the rooms Redis still gives it.
pub(super) async fn take(
    redis: &mut ConnectionManager,
    node: &str,
) -> Result<(u64, Vec<String>), redis::RedisError> {
    let out: Vec<redis::Value> = redis::cmd("EVAL")
        .arg(TAKE)
        .arg(5)
        .arg(lease_key(node))
        .arg(EPOCHS)
        .arg(NODES)
        .arg(OWNERS)
        .arg(owned_key(node))
        .arg(node)
        .arg(lease_ms())
        .query_async(redis)
        .await?;
    let mut out = out.into_iter();
    let epoch = match out.next() {
        Some(redis::Value::Int(e)) => u64::try_from(e).unwrap_or(0),
        _ => 0,
    };
    let rooms = out
        .filter_map(|v| redis::from_redis_value::<String>(v).ok())
        .collect();
    Ok((epoch, rooms))
}

impl Cluster {
    /// Whether this node serves its rooms now (its lease holds by its own clock).
    pub(crate) fn serving(&self) -> bool {
        self.lease.serving()
    }

    /// A room Redis gives this node: running here, or once restored here (a takeover, or after
    /// a lapse), waited for up to a takeover's time.
    pub(crate) async fn own_room(&self, room: &str) -> Option<crate::cluster::RoomTx> {
        let deadline = Instant::now() + super::TAKEOVER_WAIT;
        loop {
            if let Some(tx) = self.lobby.room(room) {
                return Some(tx);
            }
            if !lock(&self.adopting).contains_key(room) || Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Watches the lease on this node's clock until shutdown: the moment it can no longer be
    /// proved, the node stops serving.
    pub(super) async fn watch_lease(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let mut tick = tokio::time::interval(WATCH);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = crate::shutdown::shutting_down(&mut shutdown) => return,
                _ = tick.tick() => {}
            }
            if self.lease.expired() {
                self.lapse("this node's lease ran out by its own clock")
                    .await;
            }
        }
    }

    /// Stops serving (once per lapse): every room of this node stops here without a word more
    /// — nothing it held back is sent, its clients are closed with 1012 (service restart) so
    /// that they reconnect and resume wherever the room is next — and so do this node's
    /// clients in rooms of other nodes; other nodes' requests for this node's rooms wait until
    /// the node has its lease again (or are dropped if another node took the room).
    pub(super) async fn lapse(&self, why: &str) {
        if !self.lease.lapse() {
            return;
        }
        self.metrics.cluster_lapses.inc();
        let rooms = self.lobby.ids();
        tracing::warn!(
            rooms = rooms.len(),
            "{why}: this node stops serving until it has a lease again"
        );
        {
            let mut adopting = lock(&self.adopting);
            for room in &rooms {
                adopting.entry(room.clone()).or_default();
            }
        }
        self.mirror.mark_lost(rooms.iter().cloned());
        for room in rooms {
            if let Some(tx) = self.lobby.room(&room) {
                // A room busy making a write durable learns it at its next event: not waited
                // for here, so that one slow room does not hold up the others.
                tokio::spawn(async move {
                    let _ = tx.send(RoomEvent::Lost).await;
                });
            }
        }
        let relayed: Vec<_> = lock(&self.local).drain().map(|(_, peer)| peer).collect();
        lock(&self.roles).clear();
        for peer in relayed {
            peer.close(
                CloseCode::Restart,
                "this server lost touch with the cluster; reconnect and resume",
            );
        }
    }

    /// After a lapse: takes a lease under a fresh epoch, and has the rooms Redis still gives
    /// this node restored from Redis. If Redis cannot be reached, or this node is not
    /// subscribed to its channel yet, the next renewal tries again.
    pub(super) async fn retake(self: &Arc<Self>) {
        // Other nodes send requests to a node whose lease lives: it must hear them first
        // (Redis keeps no message for a node that is not subscribed).
        if !*self.listening.borrow() {
            tracing::info!("this node takes a lease again once it hears its channel");
            return;
        }
        let mut redis = self.redis();
        let sent = Instant::now();
        let (epoch, rooms) = match take(&mut redis, &self.node).await {
            Ok(taken) => taken,
            Err(e) => {
                tracing::warn!(error = %e, "cannot take this node's lease again");
                *lock(&self.healthy_since) = None;
                return;
            }
        };
        {
            let mut adopting = lock(&self.adopting);
            // Requests for rooms another node took meanwhile are not this node's to answer:
            // their relays are re-routed there, and ask again.
            adopting.retain(|room, _| rooms.contains(room));
            for room in &rooms {
                adopting.entry(room.clone()).or_default();
            }
        }
        self.lease.taken(epoch, sent);
        *lock(&self.healthy_since) = Some(Instant::now());
        tracing::info!(
            epoch,
            rooms = rooms.len(),
            "this node has a lease again; its rooms come back from Redis"
        );
        lock(&self.readopt).extend(rooms);
        self.readopt_now.notify_one();
    }
}
