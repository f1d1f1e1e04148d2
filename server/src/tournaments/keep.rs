//! [`Keep`]: where tournaments' states are kept. A server alone keeps each as one row of its
//! embedded database; a node of a cluster in Redis, written under its lease, so that only the
//! node that runs a tournament writes it and any live node can take it over when that node
//! dies. In Redis a tournament is its state without its games, its line in the list, and its
//! games one by one: a write carries the games that may have changed since the last one (those
//! from the first game then still in play on), not every game played.

use super::event::Line;
use super::state::{Game, Tournament};
use crate::cluster::{Cluster, KeptTournament, TournamentWrite};
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
    /// Writes `t`, whose games before `from` are finished and written already; returns once
    /// it is durable, with the number of leading games finished and written now (the next
    /// write's `from`).
    pub(super) async fn save(&self, t: &mut Tournament, from: usize) -> Result<usize, Unsaved> {
        let settled = from
            + t.games[from.min(t.games.len())..]
                .iter()
                .take_while(|g| g.result.is_some())
                .count();
        let encode = |e: serde_json::Error| Unsaved::Failed(format!("cannot encode: {e}"));
        match self {
            Keep::Local(store) => {
                let json = serde_json::to_string(t).map_err(encode)?;
                store
                    .save(&t.id, json)
                    .await
                    .map_err(|e| Unsaved::Failed(e.to_string()))?;
            }
            Keep::Cluster(cluster) => {
                let line = serde_json::to_string(&Line::of(t)).map_err(encode)?;
                let games = t.games[from.min(t.games.len())..]
                    .iter()
                    .enumerate()
                    .map(|(i, g)| serde_json::to_string(g).map(|json| (from + i, json)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(encode)?;
                // The state without its games, which are written apart.
                let all = std::mem::take(&mut t.games);
                let state = serde_json::to_string(t);
                t.games = all;
                let state = state.map_err(encode)?;
                match cluster.save_tournament(&t.id, &state, &line, &games).await {
                    Ok(()) => {}
                    Err(TournamentWrite::Lost) => return Err(Unsaved::Lost),
                    // Unconfirmed, it may yet land: the task stops rather than announce it,
                    // and is started again from what Redis holds (`Tournaments::keep_running`).
                    Err(TournamentWrite::Redis(e)) => {
                        tracing::warn!(tournament = %t.id, error = %e, "a tournament's write to Redis was not confirmed");
                        return Err(Unsaved::Lost);
                    }
                }
            }
        }
        Ok(settled)
    }

    /// The cluster, on a node of one.
    pub(super) fn cluster(&self) -> Option<&Arc<Cluster>> {
        match self {
            Keep::Local(_) => None,
            Keep::Cluster(c) => Some(c),
        }
    }
}

/// A tournament read back from Redis: its state with its games, in order.
pub(super) fn assemble(kept: KeptTournament) -> Result<Tournament, String> {
    let mut t: Tournament = serde_json::from_str(&kept.state).map_err(|e| e.to_string())?;
    let mut games = kept.games;
    games.sort_by_key(|(i, _)| *i);
    t.games = Vec::with_capacity(games.len());
    for (i, json) in games {
        if i != t.games.len() {
            return Err(format!("game {} is missing", t.games.len()));
        }
        let g: Game = serde_json::from_str(&json).map_err(|e| format!("game {i}: {e}"))?;
        t.games.push(g);
    }
    Ok(t)
}

/// Every tournament's line as Redis keeps them.
pub(super) async fn lines(cluster: &Cluster) -> Option<Vec<Line>> {
    let kept = cluster.tournament_lines().await.ok()?;
    let lines = kept
        .iter()
        .filter_map(|(_, json)| serde_json::from_str::<Line>(json).ok())
        .collect();
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::super::state::test_spec;
    use super::*;
    use jchomp_protocol::wire::TournamentFormat;

    fn played(games: usize) -> Tournament {
        let mut spec = test_spec(TournamentFormat::RoundRobin);
        spec.bots = vec!["a".into(), "b".into()];
        let mut t = Tournament::new("T".into(), spec, Vec::new(), 5);
        t.games = (0..games)
            .map(|i| Game {
                room: format!("r{i}"),
                round: i as u32 + 1,
                seats: vec![0, 1],
                config: 0,
                result: None,
            })
            .collect();
        t
    }

    /// `t` as Redis would keep it: its state without its games, and the games of `written`.
    fn kept(t: &Tournament, written: &[usize]) -> KeptTournament {
        let mut head = t.clone();
        head.games.clear();
        KeptTournament {
            state: serde_json::to_string(&head).unwrap(),
            games: written
                .iter()
                .rev()
                .map(|&i| (i, serde_json::to_string(&t.games[i]).unwrap()))
                .collect(),
            version: 3,
        }
    }

    #[test]
    fn a_tournament_is_read_back_with_its_games_in_order_and_refused_with_a_gap() {
        let t = played(3);
        assert_eq!(assemble(kept(&t, &[0, 1, 2])).unwrap(), t);
        let gap = assemble(kept(&t, &[0, 2])).unwrap_err();
        assert!(gap.contains("game 1 is missing"), "{gap}");
        let mut bad = kept(&t, &[0]);
        bad.games[0].1 = "{".into();
        assert!(assemble(bad).unwrap_err().starts_with("game 0"));
    }
}
