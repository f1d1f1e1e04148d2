//! The pairing task: it owns every pool, takes connections in and out of them, and each period
//! runs a wave that makes rooms of the groups [`super::pool::wave`] forms.

use super::levels;
use super::pool::{Rules, Waiter, wave};
use super::{Event, Found, Preset, Seek, scale};
use crate::accounts::Accounts;
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
struct Entry {
    seek: Seek,
    waiter: Waiter,
}

/// Every pool, and where each waiting connection is.
pub(super) struct Pools {
    ctx: RoomContext,
    accounts: Accounts,
    presets: Arc<Vec<Preset>>,
    rules: Rules,
    pools: Vec<Vec<Entry>>,
    of: HashMap<ConnId, usize>,
    rng: Rng,
}

/// Handles events and runs a wave every `period` until the server shuts down.
pub(super) async fn run(mut pools: Pools, mut rx: mpsc::Receiver<Event>, period: Duration) {
    let mut shutdown = pools.ctx.shutdown.clone();
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    tokio::pin!(stop);
    let mut waves = tokio::time::interval(period);
    waves.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            _ = &mut stop => break,
            ev = rx.recv() => match ev {
                Some(ev) => pools.handle(ev),
                None => break,
            },
            _ = waves.tick() => pools.wave(Instant::now()).await,
        }
    }
}

impl Pools {
    /// Empty pools for `presets`.
    pub(super) fn new(
        ctx: RoomContext,
        accounts: Accounts,
        presets: Arc<Vec<Preset>>,
        rules: Rules,
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
        }
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Seek(seek, reply) => {
                let conn = seek.peer.id;
                self.remove(conn);
                let preset = seek.preset.min(self.pools.len().saturating_sub(1));
                let Some(pool) = self.pools.get_mut(preset) else {
                    return;
                };
                let category = category(&self.presets[preset].config);
                let waiter = Waiter {
                    rating: scale(&category, seek.rating),
                    since: Instant::now(),
                    bots: seek.bots,
                };
                pool.push(Entry {
                    seek: *seek,
                    waiter,
                });
                let waiting = pool.len() as u32;
                self.of.insert(conn, preset);
                self.ctx.metrics.pairing_waiting.inc();
                let _ = reply.send(waiting);
            }
            Event::Cancel(conn, reply) => {
                let _ = reply.send(self.remove(conn).map(|e| e.seek.preset));
            }
            Event::Counts(reply) => {
                let _ = reply.send(self.pools.iter().map(|p| p.len() as u32).collect());
            }
        }
    }

    /// Takes `conn` out of its pool, if it waits in one.
    fn remove(&mut self, conn: ConnId) -> Option<Entry> {
        let preset = self.of.remove(&conn)?;
        let pool = self.pools.get_mut(preset)?;
        let at = pool.iter().position(|e| e.seek.peer.id == conn)?;
        self.ctx.metrics.pairing_waiting.dec();
        Some(pool.swap_remove(at))
    }

    /// One wave over every pool: waiters whose connection is gone leave, and every group
    /// formed is seated in a room of its own.
    async fn wave(&mut self, now: Instant) {
        for preset in 0..self.pools.len() {
            let gone: Vec<ConnId> = self.pools[preset]
                .iter()
                .filter(|e| e.seek.peer.is_gone())
                .map(|e| e.seek.peer.id)
                .collect();
            for conn in gone {
                self.remove(conn);
            }
            let waiters: Vec<Waiter> = self.pools[preset].iter().map(|e| e.waiter).collect();
            let players = usize::from(self.presets[preset].rules.players());
            let groups = wave(&waiters, players, now, &self.rules);
            if groups.is_empty() {
                continue;
            }
            // Take the groups' entries out, highest index first so the others stay put.
            let mut index: Vec<usize> = groups.iter().flat_map(|g| g.waiters.clone()).collect();
            index.sort_unstable_by(|a, b| b.cmp(a));
            let mut by_index: HashMap<usize, Entry> = HashMap::new();
            for i in index {
                let entry = self.pools[preset].swap_remove(i);
                self.of.remove(&entry.seek.peer.id);
                self.ctx.metrics.pairing_waiting.dec();
                by_index.insert(i, entry);
            }
            for group in groups {
                let entries: Vec<Entry> = group
                    .waiters
                    .iter()
                    .filter_map(|i| by_index.remove(i))
                    .collect();
                self.seat(preset, entries, group.bots).await;
            }
        }
    }

    /// Makes a room of `entries` and `bots` bots for `preset`, seats in a random order, and
    /// tells everyone where it is; if the room cannot be made, each is told why.
    async fn seat(&mut self, preset: usize, entries: Vec<Entry>, bots: usize) {
        let p = &self.presets[preset];
        let mut config_json = p.config.clone();
        config_json.rated = entries.iter().all(|e| e.seek.account);
        let category = category(&config_json);
        let mut seats: Vec<Seated> = Vec::with_capacity(entries.len() + bots);
        if bots > 0 {
            let mean =
                entries.iter().map(|e| e.waiter.rating).sum::<f64>() / entries.len().max(1) as f64;
            let standings = levels::standings(&self.accounts, &category).await;
            let spec = levels::nearest(&standings, mean);
            seats.extend((0..bots).map(|_| Seated::Bot(spec.clone())));
        }
        let mut found = Vec::with_capacity(entries.len());
        for e in entries {
            found.push((e.seek.peer.clone(), e.seek.found));
            seats.push(Seated::Person {
                peer: e.seek.peer,
                name: e.seek.name,
            });
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
                let tx = opened.spawn();
                self.ctx.metrics.pairing_rooms.inc();
                tracing::info!(room = %room, preset = %preset_name, people = found.len(), bots, "paired");
                for (_, to) in found {
                    let _ = to.send(Found {
                        room: room.clone(),
                        tx: tx.clone(),
                    });
                }
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
