//! [`RoomContext`]: the part of the server a room sees — its settings, the lobby, the metrics,
//! the bot threads, the classic database, the store and the shutdown signal — so that a room can be built and driven
//! on its own in tests.

use crate::game::lobby::Lobby;
use crate::metrics::Metrics;
use crate::settings::Settings;
use crate::store::StoreHandle;
use jchomp_engine::classic::ClassicLibrary;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc, watch};

/// The settings a room reads (see [`Settings`] for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoomSettings {
    /// How long a dropped seat of a game in play is held for `resume`.
    pub grace: Duration,
    /// How long a finished room stays open.
    pub finished_linger: Duration,
    /// Longest a server bot thinks about one move.
    pub bot_think_cap: Duration,
    /// Events queued for one room before senders wait.
    pub room_queue: usize,
    /// Most rooms held at once.
    pub max_rooms: usize,
}

impl From<&Settings> for RoomSettings {
    fn from(s: &Settings) -> Self {
        RoomSettings {
            grace: s.grace,
            finished_linger: s.finished_linger,
            bot_think_cap: s.bot_think_cap,
            room_queue: s.room_queue,
            max_rooms: s.max_rooms,
        }
    }
}

/// What a room needs of the server. Each room task holds one; cloning it clones handles.
#[derive(Clone, Debug)]
pub(crate) struct RoomContext {
    /// The room's limits and timers.
    pub settings: RoomSettings,
    /// Rooms and seat tokens.
    pub lobby: Arc<Lobby>,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Bounds how many bot moves are computed at once.
    pub bot_slots: Arc<Semaphore>,
    /// The classic database, for bots that play perfectly from it (`level:5`).
    pub classic: Arc<ClassicLibrary>,
    /// Where finished games are committed.
    pub store: StoreHandle,
    /// Becomes `true` when the server shuts down.
    pub shutdown: watch::Receiver<bool>,
    /// Held as long as the room runs, so that the server knows when every task is done.
    pub _done: mpsc::Sender<()>,
}

impl RoomContext {
    /// Whether the server is shutting down.
    pub(crate) fn shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }
}
