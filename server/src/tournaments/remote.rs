//! Watching, from a node of a cluster, a tournament another node runs: one task per such
//! tournament on this node holds its watchers here and reads the tournament from Redis when its
//! count of writes changes (checked every [`POLL`]), pushing each new view to them; it ends
//! when no watcher is left. A tournament's state reaches Redis before its own node tells
//! anyone of it, so nothing is shown here that was not written.

use super::state::Tournament;
use crate::cluster::Cluster;
use crate::game::outbox::{Peer, encode};
use crate::sync::lock;
use jchomp_protocol::tournament::VIEW_GAMES;
use jchomp_protocol::wire::ServerMessage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How often the count of a watched tournament's writes is read.
const POLL: Duration = Duration::from_millis(200);
/// Watchers waiting to be taken by a tournament's task at most.
const QUEUE: usize = 64;

/// A watcher: the connection, and whether its first view lists every game.
type Watcher = (Peer, bool);

/// The tasks showing other nodes' tournaments on this node, by tournament id.
#[derive(Clone, Debug, Default)]
pub(super) struct Remote {
    tasks: Arc<Mutex<HashMap<String, mpsc::Sender<Watcher>>>>,
}

impl Remote {
    /// Has `peer` watch tournament `id` (whose state `first` was just read, at `version`)
    /// from this node.
    pub(super) fn watch(
        &self,
        cluster: &Arc<Cluster>,
        id: &str,
        first: (Tournament, u64),
        peer: Peer,
        all_games: bool,
    ) {
        let mut tasks = lock(&self.tasks);
        if let Some(tx) = tasks.get(id)
            && tx.try_send((peer.clone(), all_games)).is_ok()
        {
            return;
        }
        let (tx, rx) = mpsc::channel(QUEUE);
        let _ = tx.try_send((peer, all_games));
        tasks.insert(id.to_string(), tx);
        let (remote, cluster, id) = (self.clone(), cluster.clone(), id.to_string());
        tokio::spawn(async move { remote.show(cluster, id, first, rx).await });
    }

    /// The task showing tournament `id` to its watchers on this node.
    async fn show(
        self,
        cluster: Arc<Cluster>,
        id: String,
        (mut t, mut version): (Tournament, u64),
        mut rx: mpsc::Receiver<Watcher>,
    ) {
        let mut watchers: Vec<Peer> = Vec::new();
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                w = rx.recv() => {
                    let Some((peer, all_games)) = w else { return };
                    let view = if all_games { t.view() } else { t.view_recent(VIEW_GAMES) };
                    peer.send_msg(&ServerMessage::Tournament(Box::new(view)));
                    watchers.push(peer);
                }
                _ = tick.tick() => {
                    watchers.retain(|p| !p.is_gone());
                    if watchers.is_empty() {
                        let mut tasks = lock(&self.tasks);
                        // A watcher sent meanwhile is still taken before the task ends.
                        if rx.is_empty() {
                            tasks.remove(&id);
                            return;
                        }
                        continue;
                    }
                    match cluster.tournament_version(&id).await {
                        Ok(v) if v != version => {}
                        _ => continue,
                    }
                    let Ok(Some(kept)) = cluster.tournament_state(&id).await else {
                        continue;
                    };
                    let v = kept.version;
                    let Ok(read) = super::keep::assemble(kept) else {
                        continue;
                    };
                    (t, version) = (read, v);
                    let text = encode(&ServerMessage::Tournament(Box::new(t.view_recent(VIEW_GAMES))));
                    for p in &watchers {
                        p.send(&text);
                    }
                }
            }
        }
    }
}
