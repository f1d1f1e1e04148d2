//! [`Shared`]: what every connection task of one server shares, and the [`RoomContext`] it hands
//! each new room. Each task holds an `Arc<Shared>` or a room context; `run` knows every task has
//! ended when the last of them is dropped.

use crate::accounts::Accounts;
use crate::cluster::Cluster;
use crate::game::analysis::Analyst;
use crate::game::lobby::Lobby;
use crate::game::room::{RoomContext, RoomSettings};
use crate::metrics::Metrics;
use crate::net::address_cap::AddressCaps;
use crate::pairing::Pairing;
use crate::settings::Settings;
use crate::store::StoreHandle;
use crate::tournaments::Tournaments;
use jchomp_engine::classic::{Availability, ClassicLibrary};
use std::sync::Arc;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// State shared by every task of one server.
#[derive(Debug)]
pub(crate) struct Shared {
    /// Limits and timers.
    pub settings: Settings,
    /// Rooms and seat tokens.
    pub lobby: Arc<Lobby>,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// The game database.
    pub store: StoreHandle,
    /// Accounts, sessions and bot tokens.
    pub accounts: Accounts,
    /// Quick pairing's pools.
    pub pairing: Pairing,
    /// The tournaments the server runs.
    pub tournaments: Tournaments,
    /// Bounds how many bot moves are computed at once (for the rooms).
    pub bot_slots: Arc<Semaphore>,
    /// The classic Chomp database, read or built the first time a classic game needs it.
    pub classic: Arc<ClassicLibrary>,
    /// Computes the answers to `analyze`.
    pub analyst: Analyst,
    /// Bounds the connections served at once.
    pub conn_slots: Arc<Semaphore>,
    /// This node's part of the cluster, if it is one.
    pub cluster: Option<Arc<Cluster>>,
    /// Bounds the connections each client address holds at once.
    pub address_caps: Arc<AddressCaps>,
    /// Becomes `true` when the server shuts down.
    pub shutdown: watch::Receiver<bool>,
    /// WebSocket limits derived from the settings.
    pub ws_config: WebSocketConfig,
    /// Dropped with the last `Arc<Shared>` and room context, which tells `run` every task is
    /// done.
    pub _done: mpsc::Sender<()>,
}

impl Shared {
    /// Whether the server is shutting down.
    pub(crate) fn shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// Whether the classic database is loaded.
    pub(crate) fn classic_db_ready(&self) -> bool {
        matches!(self.classic.availability(), Availability::Ready(_))
    }

    /// The part of the server a new room sees.
    pub(crate) fn room_context(&self) -> RoomContext {
        RoomContext {
            settings: RoomSettings::from(&self.settings),
            lobby: self.lobby.clone(),
            metrics: self.metrics.clone(),
            bot_slots: self.bot_slots.clone(),
            classic: self.classic.clone(),
            store: self.store.clone(),
            shutdown: self.shutdown.clone(),
            _done: self._done.clone(),
        }
    }
}

/// Bytes tungstenite reads from a socket at once; also the capacity of each connection's read
/// buffer, which is allocated for every connection and zero-filled before every read. Client
/// messages are tens to a few hundred bytes: 1 KiB holds several of them, where 4 KiB cost
/// 3 KiB more per held connection and four times the zeroing, and 16 KiB most of the
/// per-connection memory budget (see docs/PERFORMANCE.md); a larger frame still grows the
/// buffer as it needs.
const READ_BUFFER: usize = 1024;
/// Bytes of queued frames after which tungstenite writes to the socket without waiting for a
/// flush (the writer flushes after each batch anyway); bounds the write buffer's idle capacity.
const WRITE_BUFFER: usize = 4 * 1024;

/// The tungstenite limits for the settings: messages and frames capped at
/// `max_message_size`, small read and write buffers, and a bounded write buffer.
pub(crate) fn ws_config(settings: &Settings) -> WebSocketConfig {
    let max = settings.max_message_size.max(1024);
    WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(WRITE_BUFFER + 4 * max + 1024 * 1024)
        .max_message_size(Some(max))
        .max_frame_size(Some(max))
}
