//! [`Keep`]: where tournaments' states are kept. A server alone keeps them in its embedded
//! database; a node of a cluster in Redis, written under its lease, so that only the node that
//! runs a tournament writes it and any live node can take it over when that node dies.

use crate::cluster::{Cluster, TournamentWrite};
use crate::store::TournamentStore;
use std::sync::Arc;

/// Why a tournament's state was not written.
#[derive(Debug)]
pub(super) enum Unsaved {
    /// This node no longer runs the tournament (its lease is gone, another node took the
    /// tournament over, or Redis did not confirm the write): its task must stop without a word
    /// more.
    Lost,
    /// The write failed; the tournament goes on, and whoever takes it up next starts from the
    /// last write that succeeded.
    Failed(String),
}

/// Where tournaments are kept.
#[derive(Clone, Debug)]
pub(super) enum Keep {
    /// The embedded database.
    Local(TournamentStore),
    /// Redis, shared by the cluster's nodes.
    Cluster(Arc<Cluster>),
}

impl Keep {
    /// Writes tournament `id`'s state; returns once it is durable.
    pub(super) async fn save(&self, id: &str, json: String) -> Result<(), Unsaved> {
        match self {
            Keep::Local(store) => store
                .save(id, json)
                .await
                .map_err(|e| Unsaved::Failed(e.to_string())),
            Keep::Cluster(cluster) => match cluster.save_tournament(id, &json).await {
                Ok(()) => Ok(()),
                Err(TournamentWrite::Lost) => Err(Unsaved::Lost),
                // Unconfirmed, it may yet land: the task stops rather than announce it, and
                // is started again from what Redis holds (`Tournaments::keep_running`).
                Err(TournamentWrite::Redis(e)) => {
                    tracing::warn!(tournament = %id, error = %e, "a tournament's write to Redis was not confirmed");
                    Err(Unsaved::Lost)
                }
            },
        }
    }

    /// Every tournament kept, as (id, state).
    pub(super) async fn all(&self) -> Result<Vec<(String, String)>, String> {
        match self {
            Keep::Local(store) => store.all().await.map_err(|e| e.to_string()),
            Keep::Cluster(cluster) => cluster.tournament_states().await.map_err(|e| e.to_string()),
        }
    }

    /// The cluster, on a node of one.
    pub(super) fn cluster(&self) -> Option<&Arc<Cluster>> {
        match self {
            Keep::Local(_) => None,
            Keep::Cluster(c) => Some(c),
        }
    }
}
