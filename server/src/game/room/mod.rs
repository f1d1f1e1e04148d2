//! One game room: a task that owns the room's state ([`state::Room`]) and loops over a closed
//! set of [`RoomEvent`]s from connections, bot threads and its own timers.

mod analysis;
mod bots;
mod context;
mod durable;
mod failover;
mod play;
mod requests;
mod seats;
mod state;
mod view;

#[cfg(test)]
mod tests;

pub(crate) use context::{RoomContext, RoomSettings};
pub(crate) use durable::restore;

use crate::game::analysis::Subject;
use crate::game::outbox::{ConnId, Peer};
pub(crate) use crate::game::refusal::Refusal;
use jchomp_engine::Player;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::{Config, Seat};
use jchomp_protocol::wire::ErrorCode;
use state::Room;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// The answer to a [`RoomEvent::Leave`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum LeaveOutcome {
    /// The connection is no longer in the room.
    Left,
    /// Only for `keep_active_seat`: the connection holds this seat in a game that is not over
    /// and stays.
    Stayed(Seat),
}

/// What a bot thread produced (the engine's outcome of one turn).
pub(crate) use jchomp_engine::think::Outcome as BotOutcome;

/// Everything a room task reacts to.
pub(crate) enum RoomEvent {
    /// Take the next free seat.
    Join {
        /// The joining connection.
        peer: Peer,
        /// Its display name.
        name: String,
        /// The seat taken, or why not.
        reply: oneshot::Sender<Result<Seat, Refusal>>,
    },
    /// Watch the room.
    Spectate {
        /// The watching connection.
        peer: Peer,
        /// Done, or why not.
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Take over the seat of `token`.
    Resume {
        /// The connection taking over.
        peer: Peer,
        /// The seat token.
        token: String,
        /// The seat, or why not.
        reply: oneshot::Sender<Result<Seat, Refusal>>,
    },
    /// A move from a connection (the room answers the peer itself).
    Move {
        /// The sender.
        peer: Peer,
        /// Anchor row.
        row: i64,
        /// Anchor column.
        col: i64,
    },
    /// The host asks for a bot in the next free seat (the room answers the peer itself).
    AddBot {
        /// The sender.
        peer: Peer,
        /// The bot spec, if any.
        spec: Option<String>,
    },
    /// The room's position after `index` moves (the current one when `None`), to analyse,
    /// if the room allows it.
    Analyze {
        /// The moves played before the position asked about.
        index: Option<i64>,
        /// The position, or why not.
        reply: oneshot::Sender<Result<Subject, Refusal>>,
    },
    /// A seat of a finished game asks to play again (the room answers the peer itself).
    Rematch {
        /// The sender.
        peer: Peer,
    },
    /// A snapshot for this peer.
    Sync {
        /// The sender.
        peer: Peer,
    },
    /// The connection leaves (a seat in a playing game is abandoned), unless
    /// `keep_active_seat` and it holds a seat in a game not over.
    Leave {
        /// The leaving connection.
        conn: ConnId,
        /// Stay if seated in a waiting or playing room.
        keep_active_seat: bool,
        /// What happened.
        reply: oneshot::Sender<LeaveOutcome>,
    },
    /// The connection is gone.
    Disconnected {
        /// The connection.
        conn: ConnId,
    },
    /// In a cluster, after a takeover: a connection that held `seat` on the room's old owner
    /// takes it back here (the seat must be held by no connection).
    Reattach {
        /// The connection.
        peer: Peer,
        /// The seat.
        seat: Seat,
    },
    /// In a cluster: another node may own the room now; the room stops if it does.
    Lost,
    /// A bot thread finished thinking.
    BotMoved {
        /// The bot's seat.
        seat: Seat,
        /// The games the room had finished when it started thinking.
        game: u32,
        /// The number of moves played when it started thinking.
        ply: usize,
        /// The bot, unless it panicked.
        player: Option<Box<dyn Player>>,
        /// What it chose.
        outcome: BotOutcome,
    },
}

/// Creates a room with `creator` in seat 0 as host, registers it and starts its task.
/// Returns the room id and channel.
pub(crate) fn create(
    ctx: RoomContext,
    config: Config,
    config_json: ConfigJson,
    creator: Peer,
    name: String,
) -> Result<(String, mpsc::Sender<RoomEvent>), Refusal> {
    let (room, rx) = open(ctx, config, config_json, creator, name)?;
    let opened = (room.id.clone(), room.me.clone());
    tokio::spawn(run_room(room, rx));
    Ok(opened)
}

/// Registers a new room and builds its state, with `creator` in seat 0 as host; returns it with
/// its channel's receiving end, for a task (or a test) to drive.
fn open(
    ctx: RoomContext,
    config: Config,
    config_json: ConfigJson,
    creator: Peer,
    name: String,
) -> Result<(Room, mpsc::Receiver<RoomEvent>), Refusal> {
    let (tx, rx) = mpsc::channel(ctx.settings.room_queue.max(1));
    let max_rooms = ctx.settings.max_rooms;
    let id = ctx
        .lobby
        .register(max_rooms, tx.clone(), |id| {
            state::initial_summary(id, &config, &config_json)
        })
        .map_err(|_| {
            Refusal::new(
                ErrorCode::ServerFull,
                format!("the server holds its maximum of {max_rooms} rooms; try again later"),
            )
        })?;
    ctx.metrics.rooms_created.inc();
    let room = Room::new(id, ctx, tx, config, config_json, creator, name);
    Ok((room, rx))
}

/// The room task: handles events and timers until the room closes or the server shuts down.
async fn run_room(mut room: Room, mut rx: mpsc::Receiver<RoomEvent>) {
    let mut shutdown = room.ctx().shutdown.clone();
    // In a cluster the room is announced once the directory has it, so that a player on any
    // node can join it as soon as its creator has its id.
    room.ctx().lobby.directory_written().await;
    room.start();
    // The shutdown waiter and the timer live as long as the loop: registering them afresh for
    // every event cost more than handling a move. The timer is reset only when the room's
    // next deadline changes.
    let stop = crate::shutdown::shutting_down(&mut shutdown);
    let timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(stop, timer);
    let mut armed: Option<Instant> = None;
    loop {
        let deadline = room.next_deadline();
        if deadline != armed {
            if let Some(d) = deadline {
                timer.as_mut().reset(d);
            }
            armed = deadline;
        }
        tokio::select! {
            biased;
            _ = &mut stop => {
                room.keep_for_restart().await;
                break;
            }
            ev = rx.recv() => match ev {
                Some(ev) => room.handle(ev),
                None => break,
            },
            _ = &mut timer, if armed.is_some() => {
                armed = None;
                room.on_timers(Instant::now());
            }
        }
        if room.settle().await {
            break;
        }
    }
    room.close();
}

/// A duration from milliseconds.
pub(crate) fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}
