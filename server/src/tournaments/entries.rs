//! Entries across the nodes of a cluster. On the node that runs a tournament, the requests of
//! other nodes' clients (an entry, a withdrawal, a client gone) are served as this node's own
//! clients' are, each client being a [`Link`] whose connection is a stand-in (its frames go to
//! the client's node) and whose seats are handed to the client's node; on a client's node, the
//! seats other nodes hand its entrants reach their connections.

use super::Tournaments;
use super::event::Link;
use crate::cluster::{Ask, Cluster, TournamentAsk};
use crate::game::outbox::ConnId;
use crate::pairing::Found;
use crate::sync::lock;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;

/// Seats waiting to be sent to an entrant's node at most.
const SEATS: usize = 16;

/// An entrant of another node: its link, and the tasks behind it (the stand-in's forwarder and
/// the seats' sender), stopped when the client is gone.
struct Stranger {
    link: Link,
    stops: [AbortHandle; 2],
}

impl Drop for Stranger {
    fn drop(&mut self) {
        for stop in &self.stops {
            stop.abort();
        }
    }
}

/// Both sides of entries across nodes.
#[derive(Clone, Default)]
pub(super) struct Entries {
    /// This node's connections entered in other nodes' tournaments (each one's link), to hand
    /// them the seats those nodes send.
    ours: Arc<Mutex<HashMap<ConnId, Link>>>,
    /// Other nodes' clients in this node's tournaments, by (node, connection).
    theirs: Arc<Mutex<HashMap<(String, u64), Stranger>>>,
}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entries").finish_non_exhaustive()
    }
}

impl Entries {
    /// Notes this node's connection `link`, entering another node's tournament, so that the
    /// seats that node hands it reach it.
    pub(super) fn entering(&self, link: Link) {
        let mut ours = lock(&self.ours);
        ours.retain(|_, l| !l.is_gone());
        ours.insert(link.peer.id, link);
    }

    /// Hands this node's connection `conn` a seat another node sent it.
    fn seat(&self, conn: ConnId, token: String) {
        let link = lock(&self.ours).get(&conn).cloned();
        match link {
            Some(link) if !link.is_gone() => {
                if link.seats.try_send(Found::Elsewhere { token }).is_err() {
                    tracing::warn!(conn, "an entrant's connection could not be handed its seat");
                }
            }
            _ => tracing::info!(conn, "a tournament seat came for a connection that is gone"),
        }
    }

    /// The link of client `conn` of `node` in this node's tournaments: made on its first
    /// request (a stand-in for its connection, and a sender of its seats to its node).
    fn stranger(&self, cluster: &Arc<Cluster>, node: &str, conn: u64) -> Link {
        let mut theirs = lock(&self.theirs);
        theirs.retain(|_, s| !s.link.is_gone());
        let key = (node.to_string(), conn);
        if let Some(s) = theirs.get(&key) {
            return s.link.clone();
        }
        let (peer, forwarding) = cluster.tournament_stand_in(node, conn);
        let (seats, mut rx) = mpsc::channel::<Found>(SEATS);
        let (to, cluster) = (node.to_string(), cluster.clone());
        let sending = tokio::spawn(async move {
            while let Some(found) = rx.recv().await {
                if let Found::Elsewhere { token } = found {
                    cluster.hand_tournament_seat(&to, conn, token).await;
                }
            }
        });
        let link = Link { peer, seats };
        let stops = [forwarding, sending.abort_handle()];
        let stranger = Stranger {
            link: link.clone(),
            stops,
        };
        theirs.insert(key, stranger);
        link
    }

    /// Forgets the clients of nodes that died (a dead node says nothing of its clients): their
    /// links are gone, so that each account may play on from another node.
    pub(super) async fn forget_dead(&self, cluster: &Cluster) {
        let mut nodes: Vec<String> = lock(&self.theirs).keys().map(|(n, _)| n.clone()).collect();
        nodes.sort();
        nodes.dedup();
        let dead = cluster.dead_nodes(nodes).await;
        if !dead.is_empty() {
            lock(&self.theirs).retain(|(node, _), _| !dead.contains(node));
        }
    }

    /// Client `conn` of `node` is gone: its stand-in and seats stop (its link is gone).
    fn gone(&self, node: &str, conn: u64) {
        lock(&self.theirs).remove(&(node.to_string(), conn));
    }
}

impl Tournaments {
    /// On a node of a cluster, until shutdown: serves other nodes' clients' requests for this
    /// node's tournaments, and hands this node's entrants the seats other nodes send them.
    pub(super) fn serve_entries(&self, cluster: &Arc<Cluster>, shutdown: watch::Receiver<bool>) {
        if let Some(mut seats) = cluster.tournament_seats() {
            let entries = self.entries.clone();
            let mut shutdown = shutdown.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = crate::shutdown::shutting_down(&mut shutdown) => return,
                        seat = seats.recv() => match seat {
                            Some((conn, token)) => entries.seat(conn, token),
                            None => return,
                        },
                    }
                }
            });
        }
        if let Some(mut asks) = cluster.tournament_asks() {
            let (tournaments, cluster) = (self.clone(), cluster.clone());
            let mut shutdown = shutdown;
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = crate::shutdown::shutting_down(&mut shutdown) => return,
                        ask = asks.recv() => match ask {
                            // Served one at a time, in order: an entry before its withdrawal.
                            Some(ask) => tournaments.serve(&cluster, ask).await,
                            None => return,
                        },
                    }
                }
            });
        }
    }

    /// Serves one request of another node's client.
    async fn serve(&self, cluster: &Arc<Cluster>, ask: TournamentAsk) {
        let TournamentAsk {
            from,
            conn,
            tournament,
            req,
            ask,
        } = ask;
        let answer = match ask {
            Ask::Left => {
                self.entries.gone(&from, conn);
                return;
            }
            Ask::Join { name, bot } => {
                let link = self.entries.stranger(cluster, &from, conn);
                self.join_here(&tournament, &name, bot, link).await
            }
            Ask::Withdraw { name } => {
                let link = self.entries.stranger(cluster, &from, conn);
                self.withdraw_here(&tournament, &name, link.peer).await
            }
        };
        if req != 0 {
            cluster.answer_tournament(&from, req, answer).await;
        }
    }
}
