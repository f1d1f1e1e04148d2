//! Pairing in a cluster: every node keeps its own waiters (with where their room goes) and
//! writes each to the cluster's pools in Redis; the node that holds the pairing lease runs the
//! waves over every node's waiters, claims each group in one step, and makes its room here:
//! its own waiters are seated at once, another node's get a reserved seat and are offered it
//! once the room is in the directory; their node hands the offer to the waiting connection,
//! which takes the seat with its token.

use super::Found;
use super::pool::{Waiter, wave};
use super::task::{Entry, Member, Pools};
use crate::cluster::{Cluster, Offer, PoolEntry, Waiting};
use jchomp_protocol::wire::ServerMessage;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The longest wait a wave counts (far past the widest window and the patience): a waiter's
/// wall-clock start is never turned into an instant before this node's clock can tell.
const LONGEST_WAIT: Duration = Duration::from_secs(3600);

/// How long a waiter claimed by the node that pairs, who asked to stop meanwhile, is kept for
/// the seat on its way.
const OFFER_WAIT: Duration = Duration::from_secs(10);

impl Pools {
    /// A wave over the cluster's pools, if this node holds the pairing lease (taken or kept
    /// for three waves at least).
    pub(super) async fn shared_wave(
        &mut self,
        cluster: &Arc<Cluster>,
        now: Instant,
        period: Duration,
    ) {
        self.claimed.retain(|(_, until)| *until > now);
        self.sweep(cluster, now).await;
        if !cluster.hold_pairing(period * 3).await {
            return;
        }
        let now_ms = crate::clock::now_ms();
        for preset in 0..self.pools.len() {
            let name = self.presets[preset].name;
            let entries = match cluster.pool_read(name).await {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!(error = %e, preset = name, "the cluster's pool cannot be read");
                    return;
                }
            };
            let waiters: Vec<Waiter> = entries
                .iter()
                .map(|(_, e)| {
                    let waited = Duration::from_millis(now_ms.saturating_sub(e.since_ms));
                    Waiter {
                        rating: e.rating,
                        since: now.checked_sub(waited.min(LONGEST_WAIT)).unwrap_or(now),
                        bots: e.bots,
                    }
                })
                .collect();
            let players = usize::from(self.presets[preset].rules.players());
            for group in wave(&waiters, players, now, &self.rules) {
                let group_entries: Vec<&(Waiting, PoolEntry)> = group
                    .waiters
                    .iter()
                    .filter_map(|&i| entries.get(i))
                    .collect();
                let at: Vec<Waiting> = group_entries.iter().map(|(w, _)| w.clone()).collect();
                if !cluster.pool_claim(name, &at).await {
                    continue;
                }
                let members = group_entries
                    .into_iter()
                    .map(|(w, e)| self.member(cluster, w, e))
                    .collect();
                self.seat(preset, members, group.bots).await;
            }
        }
    }

    /// A waiter who asked to stop after the node that pairs had claimed it: kept for the seat
    /// on its way, for [`OFFER_WAIT`].
    pub(super) fn keep_claimed(&mut self, entry: Entry) {
        self.claimed.push((entry, Instant::now() + OFFER_WAIT));
    }

    /// This node's waiters that the pools no longer hold, and to whom no seat was offered for
    /// [`OFFER_WAIT`] (the node that claimed them stopped before it could, or Redis lost the
    /// pools), stop waiting and are told `seek_ended`.
    async fn sweep(&mut self, cluster: &Cluster, now: Instant) {
        for preset in 0..self.pools.len() {
            if self.pools[preset].is_empty() {
                continue;
            }
            let name = self.presets[preset].name;
            let conns: Vec<u64> = self.pools[preset].iter().map(|e| e.seek.peer.id).collect();
            let Ok(held) = cluster.pool_holds(name, &conns).await else {
                continue;
            };
            let mut lost = Vec::new();
            for (e, held) in self.pools[preset].iter_mut().zip(held) {
                if held {
                    e.missing_since = None;
                } else if now.duration_since(*e.missing_since.get_or_insert(now)) >= OFFER_WAIT {
                    lost.push(e.seek.peer.id);
                }
            }
            for conn in lost {
                if let Some(e) = self.remove(conn) {
                    tracing::warn!(
                        preset = name,
                        "a waiter claimed by another node was offered no seat"
                    );
                    let preset = name.to_string();
                    e.seek.peer.send_msg(&ServerMessage::SeekEnded { preset });
                }
            }
        }
    }

    /// A claimed waiter as a member of its group: this node's connection if it still waits
    /// here, else a waiter to offer its seat to.
    fn member(&mut self, cluster: &Cluster, at: &Waiting, entry: &PoolEntry) -> Member {
        if at.node == cluster.node
            && let Some(e) = self.remove(at.conn)
        {
            return Member::Here(e);
        }
        Member::There(at.clone(), entry.clone())
    }

    /// Once the room is in the cluster's directory, offers the waiters of other nodes their
    /// seats in it.
    pub(super) fn offer(
        &self,
        room: &str,
        preset: &str,
        offers: Vec<(Waiting, PoolEntry, String)>,
    ) {
        let Some(cluster) = self.cluster.clone() else {
            return;
        };
        if offers.is_empty() {
            return;
        }
        let lobby = self.ctx.lobby.clone();
        let (room, preset) = (room.to_string(), preset.to_string());
        tokio::spawn(async move {
            lobby.directory_written().await;
            for (at, _, token) in offers {
                if at.node == cluster.node {
                    continue;
                }
                let offer = Offer {
                    conn: at.conn,
                    room: room.clone(),
                    preset: preset.clone(),
                    token,
                };
                cluster.offer(&at.node, offer).await;
            }
        });
    }

    /// Puts claimed waiters of other nodes back in their pool (their room could not be made).
    pub(super) async fn put_back(&self, preset: &str, offers: Vec<(Waiting, PoolEntry, String)>) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        for (at, entry, _) in offers {
            if let Err(e) = cluster.pool_restore(preset, &at, &entry).await {
                tracing::warn!(error = %e, "a claimed waiter could not go back to its pool");
            }
        }
    }

    /// Another node offers one of this node's waiters a seat: it is told `paired`, and its
    /// connection takes the seat.
    pub(super) fn offered(&mut self, offer: Offer) {
        let claimed = self
            .claimed
            .iter()
            .position(|(e, _)| e.seek.peer.id == offer.conn);
        let entry = match claimed {
            Some(i) => Some(self.claimed.swap_remove(i).0),
            // Not a wait for another preset the connection began since.
            None if self.waits_for(offer.conn) == Some(offer.preset.as_str()) => {
                self.remove(offer.conn)
            }
            None => None,
        };
        let Some(entry) = entry else {
            tracing::info!(room = %offer.room, "a seat was offered to a waiter who is gone");
            return;
        };
        entry.seek.peer.send_msg(&ServerMessage::Paired {
            preset: offer.preset,
            room: offer.room,
        });
        let _ = entry
            .seek
            .found
            .send(Found::Elsewhere { token: offer.token });
    }

    /// At shutdown: this node's waiters leave the cluster's pools, and the node stops pairing.
    pub(super) async fn leave_all(&mut self) {
        let Some(cluster) = self.cluster.clone() else {
            return;
        };
        let waiting: Vec<(usize, u64)> = self
            .pools
            .iter()
            .enumerate()
            .flat_map(|(p, pool)| pool.iter().map(move |e| (p, e.seek.peer.id)))
            .collect();
        for (preset, conn) in waiting {
            let _ = cluster.pool_take(self.presets[preset].name, conn).await;
        }
        cluster.release_pairing().await;
    }
}
