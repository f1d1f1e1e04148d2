//! The pairing task: it owns every pool, takes connections in and out of them, and each period
//! runs a wave that makes rooms of the groups [`super::pool::wave`] forms (in a cluster, over
//! the pools every node shares: `shared.rs`).

use super::levels;
use super::pool::{Rules, Waiter, wave};
use super::{Event, Found, Preset, Seek, scale};
use crate::accounts::Accounts;
use crate::cluster::{Cluster, PoolEntry, Waiting, next_offer};
use crate::game::outbox::ConnId;
use crate::game::room::{RoomContext, Seated, open_paired};
use crate::ratings::category;
use jchomp_engine::Rng;
use jchomp_protocol::wire::ServerMessage;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// One connection in a pool.
pub(super) struct Entry {
    pub(super) seek: Seek,
    pub(super) waiter: Waiter,
    /// Since when it waits, by the wall clock (as the cluster's pools keep it).
    pub(super) since_ms: u64,
    /// In a cluster: since when the pools no longer hold it though no seat was offered it.
    pub(super) missing_since: Option<Instant>,
}

impl Entry {
    /// The waiter as the cluster's pools keep it.
    fn pool_entry(&self) -> PoolEntry {
        PoolEntry {
            rating: self.waiter.rating,
            since_ms: self.since_ms,
            bots: self.seek.bots,
            account: self.seek.account,
            bot_account: self.seek.peer.is_bot_account(),
            name: self.seek.name.clone(),
        }
    }
}

/// One member of a group a wave seats.
pub(super) enum Member {
    /// A connection of this node.
    Here(Entry),
    /// A waiter of another node of the cluster (or one of this node's that is gone).
    There(Waiting, PoolEntry),
}

impl Member {
    fn rating(&self) -> f64 {
        match self {
            Member::Here(e) => e.waiter.rating,
            Member::There(_, p) => p.rating,
        }
    }

    fn account(&self) -> bool {
        match self {
            Member::Here(e) => e.seek.account,
            Member::There(_, p) => p.account,
        }
    }
}

/// Every pool, and where each waiting connection is.
pub(super) struct Pools {
    pub(super) ctx: RoomContext,
    accounts: Accounts,
    pub(super) presets: Arc<Vec<Preset>>,
    pub(super) rules: Rules,
    /// This node's waiters, by preset.
    pub(super) pools: Vec<Vec<Entry>>,
    of: HashMap<ConnId, usize>,
    rng: Rng,
    /// In a cluster: the pools are shared by its nodes.
    pub(super) cluster: Option<Arc<Cluster>>,
    /// In a cluster: waiters who asked to stop after another node had claimed them, kept
    /// until their seat is offered, for a while.
    pub(super) claimed: Vec<(Entry, Instant)>,
}

/// Handles events and runs a wave every `period` until the server shuts down.
pub(super) async fn run(mut pools: Pools, mut rx: mpsc::Receiver<Event>, period: Duration) {
    let mut shutdown = pools.ctx.shutdown.clone();
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    tokio::pin!(stop);
    let mut waves = tokio::time::interval(period);
    waves.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut offers = pools.cluster.as_ref().and_then(|c| c.offers());
    loop {
        tokio::select! {
            biased;
            _ = &mut stop => break,
            ev = rx.recv() => match ev {
                Some(ev) => pools.handle(ev).await,
                None => break,
            },
            offer = next_offer(&mut offers) => pools.offered(offer),
            _ = waves.tick() => pools.wave(Instant::now(), period).await,
        }
    }
    // Redis may be away: the node's lease running out takes its waiters out all the same.
    let _ = tokio::time::timeout(Duration::from_secs(1), pools.leave_all()).await;
}

impl Pools {
    /// Empty pools for `presets`.
    pub(super) fn new(
        ctx: RoomContext,
        accounts: Accounts,
        presets: Arc<Vec<Preset>>,
        rules: Rules,
        cluster: Option<Arc<Cluster>>,
    ) -> Pools {
        let pools = presets.iter().map(|_| Vec::new()).collect();
        Pools {
            ctx,
            accounts,
            presets,
            rules,
            pools,
            of: HashMap::new(),
            rng: Rng::new(uuid::Uuid::new_v4().as_u128() as u64),
            cluster,
            claimed: Vec::new(),
        }
    }

    async fn handle(&mut self, ev: Event) {
        match ev {
            Event::Seek(seek, reply) => {
                let _ = reply.send(self.add(*seek).await);
            }
            Event::Cancel(conn, reply) => {
                let _ = reply.send(self.cancel(conn).await);
            }
            Event::Counts(reply) => {
                let _ = reply.send(self.counts().await);
            }
        }
    }

    /// Puts a connection in its pool (out of any other) and tells it `seeking` with how many
    /// wait there; false if the cluster's pools cannot be reached. The task says `seeking`
    /// itself, before the waiter is in a pool: no wave can tell it `paired` first.
    async fn add(&mut self, seek: Seek) -> bool {
        let conn = seek.peer.id;
        self.cancel(conn).await;
        let preset = seek.preset.min(self.pools.len().saturating_sub(1));
        let Some(category) = self.presets.get(preset).map(|p| category(&p.config)) else {
            return false;
        };
        let entry = Entry {
            waiter: Waiter {
                rating: scale(&category, seek.rating),
                since: Instant::now(),
                bots: seek.bots,
            },
            since_ms: crate::clock::now_ms(),
            missing_since: None,
            seek,
        };
        let waiting = match &self.cluster {
            // A node that cannot prove its lease takes no waiter in, as it creates no room.
            Some(cluster) if !cluster.serving() => return false,
            Some(cluster) => {
                let name = self.presets[preset].name;
                let shared_entry = entry.pool_entry();
                match cluster.pool_put(name, conn, &shared_entry).await {
                    Ok(n) => n,
                    Err(e) => {
                        tracing::warn!(error = %e, "a waiter could not join the cluster's pool");
                        return false;
                    }
                }
            }
            None => self.pools[preset].len() as u32 + 1,
        };
        entry.seek.peer.send_msg(&ServerMessage::Seeking {
            preset: self.presets[preset].name.to_string(),
            rating: entry.seek.rating.round() as i64,
            waiting,
        });
        self.pools[preset].push(entry);
        self.of.insert(conn, preset);
        self.ctx.metrics.pairing_waiting.inc();
        true
    }

    /// Takes a connection out of its pool: the preset it waited for, or none if it waited
    /// for none, or a wave has seated it already.
    async fn cancel(&mut self, conn: ConnId) -> Option<usize> {
        let preset = *self.of.get(&conn)?;
        if let Some(cluster) = self.cluster.clone() {
            let name = self.presets[preset].name;
            if let Ok(false) = cluster.pool_take(name, conn).await {
                // Claimed by the node that pairs: its seat is on its way.
                let entry = self.remove(conn)?;
                self.keep_claimed(entry);
                return None;
            }
        }
        self.remove(conn).map(|e| e.seek.preset)
    }

    /// How many wait in each pool: across the cluster's nodes in a cluster (this node's alone
    /// if Redis cannot be read).
    async fn counts(&self) -> Vec<u32> {
        if let Some(cluster) = &self.cluster {
            let names: Vec<&str> = self.presets.iter().map(|p| p.name).collect();
            if let Ok(counts) = cluster.pool_counts(&names).await {
                return counts;
            }
        }
        self.pools.iter().map(|p| p.len() as u32).collect()
    }

    /// The preset `conn` waits for on this node, by name.
    pub(super) fn waits_for(&self, conn: ConnId) -> Option<&str> {
        let preset = self.of.get(&conn)?;
        Some(self.presets.get(*preset)?.name)
    }

    /// Takes `conn` out of its pool on this node, if it waits in one.
    pub(super) fn remove(&mut self, conn: ConnId) -> Option<Entry> {
        let preset = self.of.remove(&conn)?;
        let pool = self.pools.get_mut(preset)?;
        let at = pool.iter().position(|e| e.seek.peer.id == conn)?;
        self.ctx.metrics.pairing_waiting.dec();
        Some(pool.swap_remove(at))
    }

    /// One wave: waiters whose connection is gone leave, and every group formed is seated in
    /// a room of its own (in a cluster, only by the node that holds the pairing lease, over
    /// every node's waiters).
    async fn wave(&mut self, now: Instant, period: Duration) {
        let gone: Vec<ConnId> = self
            .pools
            .iter()
            .flatten()
            .filter(|e| e.seek.peer.is_gone())
            .map(|e| e.seek.peer.id)
            .collect();
        for conn in gone {
            self.cancel(conn).await;
        }
        if let Some(cluster) = self.cluster.clone() {
            return self.shared_wave(&cluster, now, period).await;
        }
        for preset in 0..self.pools.len() {
            let waiters: Vec<Waiter> = self.pools[preset].iter().map(|e| e.waiter).collect();
            let players = usize::from(self.presets[preset].rules.players());
            let groups = wave(&waiters, players, now, &self.rules);
            let conns: Vec<Vec<ConnId>> = groups
                .iter()
                .map(|g| {
                    let pool = &self.pools[preset];
                    g.waiters.iter().map(|&i| pool[i].seek.peer.id).collect()
                })
                .collect();
            for (group, conns) in groups.into_iter().zip(conns) {
                let members = conns
                    .into_iter()
                    .filter_map(|c| self.remove(c))
                    .map(Member::Here)
                    .collect();
                self.seat(preset, members, group.bots).await;
            }
        }
    }

    /// Makes a room of `members` and `bots` bots for `preset`, seats in a random order, and
    /// tells everyone where it is; if the room cannot be made, each is told why (and, in a
    /// cluster, the waiters of other nodes go back to their pool).
    pub(super) async fn seat(&mut self, preset: usize, members: Vec<Member>, bots: usize) {
        let p = &self.presets[preset];
        let mut config_json = p.config.clone();
        config_json.rated = members.iter().all(Member::account);
        let category = category(&config_json);
        let mut seats: Vec<Seated> = Vec::with_capacity(members.len() + bots);
        if bots > 0 {
            let mean =
                members.iter().map(Member::rating).sum::<f64>() / members.len().max(1) as f64;
            let standings = levels::standings(&self.accounts, &category).await;
            let spec = levels::nearest(&standings, mean);
            seats.extend((0..bots).map(|_| Seated::Bot(spec.clone())));
        }
        let people = members.len();
        let mut found = Vec::with_capacity(people);
        let mut offers = Vec::new();
        for m in members {
            match m {
                Member::Here(e) => {
                    found.push((e.seek.peer.clone(), e.seek.found));
                    seats.push(Seated::Person {
                        peer: e.seek.peer,
                        name: e.seek.name,
                    });
                }
                Member::There(at, entry) => {
                    let token = crate::game::token::new_token();
                    seats.push(Seated::Reserved {
                        name: entry.name.clone(),
                        token: token.clone(),
                        account_bot: entry.bot_account,
                    });
                    offers.push((at, entry, token));
                }
            }
        }
        shuffle(&mut seats, &mut self.rng);
        let preset_name = p.name.to_string();
        match open_paired(self.ctx.clone(), p.rules, config_json, seats) {
            Ok(opened) => {
                let room = opened.id().to_string();
                for (peer, _) in &found {
                    peer.send_msg(&ServerMessage::Paired {
                        preset: preset_name.clone(),
                        room: room.clone(),
                    });
                }
                // Each connection is handed its room before the room starts and greets it
                // with `joined`: a message the player sends on reading `joined` then finds the
                // connection already in the room.
                let tx = opened.sender();
                for (_, to) in found {
                    let _ = to.send(Found::Here {
                        room: room.clone(),
                        tx: tx.clone(),
                    });
                }
                opened.spawn();
                self.ctx.metrics.pairing_rooms.inc();
                tracing::info!(room = %room, preset = %preset_name, people, bots, "paired");
                self.offer(&room, &preset_name, offers);
            }
            Err(refusal) => {
                tracing::warn!(preset = %preset_name, error = %refusal.message, "a paired room could not be made");
                for (peer, _) in found {
                    peer.send_msg(&ServerMessage::Error {
                        code: refusal.code,
                        message: format!(
                            "no room could be made for your game: {}",
                            refusal.message
                        ),
                    });
                    peer.send_msg(&ServerMessage::SeekEnded {
                        preset: preset_name.clone(),
                    });
                }
                self.put_back(&preset_name, offers).await;
            }
        }
    }
}

/// Shuffles `seats` (Fisher–Yates), so that nobody keeps the first seat by arriving first.
fn shuffle<T>(seats: &mut [T], rng: &mut Rng) {
    for i in (1..seats.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        seats.swap(i, j);
    }
}
