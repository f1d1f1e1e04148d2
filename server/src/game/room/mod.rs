//! One game room: a task that owns the room's state ([`state::Room`]) and loops over a closed
//! set of [`RoomEvent`]s from connections, bot threads and its own timers.

mod analysis;
mod bots;
pub(crate) use bots::{DEFAULT_SPEC, seeded};
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

use crate::game::event::{BotOutcome, LeaveOutcome, RoomEvent};
use crate::game::outbox::Peer;
use crate::game::refusal::Refusal;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Config;
use jchomp_protocol::wire::ErrorCode;
use state::Room;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

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

/// Creates a room whose every seat is a server bot (`specs`, in seat order), watched by
/// `watcher`; its game starts at once. Returns the room id and channel; a spec that does not
/// parse is refused before anything is made.
pub(crate) fn create_exhibition(
    ctx: RoomContext,
    config: Config,
    config_json: ConfigJson,
    watcher: Peer,
    specs: &[String],
) -> Result<(String, mpsc::Sender<RoomEvent>), Refusal> {
    if specs.len() != usize::from(config.players()) {
        return Err(Refusal::new(
            ErrorCode::InvalidConfig,
            format!(
                "bots must name one bot per seat: {} for this game, got {}",
                config.players(),
                specs.len()
            ),
        ));
    }
    let seats = specs
        .iter()
        .map(|spec| state::SeatSlot::bot(spec, &config, &ctx.classic))
        .collect::<Result<Vec<_>, _>>()?;
    let (id, tx, rx) = register(&ctx, &config, &config_json)?;
    let room = Room::exhibition(id, ctx, tx, config, config_json, seats, watcher);
    let opened = (room.id.clone(), room.me.clone());
    tokio::spawn(run_room(room, rx));
    Ok(opened)
}

/// Who takes a seat of a room made by quick pairing.
pub(crate) enum Seated {
    /// A person, on this connection, under this name.
    Person {
        /// The connection.
        peer: Peer,
        /// The seat's name.
        name: String,
    },
    /// A person connected to another node of the cluster: the seat waits for them to take it
    /// with `token` (as a `resume` does), held meanwhile as a dropped seat is, for the grace.
    Reserved {
        /// The seat's name.
        name: String,
        /// The token they take it with.
        token: String,
        /// Whether they are a bot account.
        account_bot: bool,
    },
    /// A server bot, by its spec.
    Bot(String),
}

/// A room made and registered but not yet running: its id is known (to tell its players)
/// before its task starts and greets them.
pub(crate) struct Opened {
    room: Room,
    rx: mpsc::Receiver<RoomEvent>,
}

impl Opened {
    /// The room's id.
    pub(crate) fn id(&self) -> &str {
        &self.room.id
    }

    /// The room's channel, before its task starts (so that its players can be handed it
    /// before the room greets them).
    pub(crate) fn sender(&self) -> mpsc::Sender<RoomEvent> {
        self.room.me.clone()
    }

    /// Starts the room's task; returns its channel.
    pub(crate) fn spawn(self) -> mpsc::Sender<RoomEvent> {
        let tx = self.room.me.clone();
        tokio::spawn(run_room(self.room, self.rx));
        tx
    }
}

/// Makes a room whose every seat is taken from the start by `seats` (in seat order): people
/// paired by the server (here, or reserved for a person on another node) and server bots. Its game starts as soon as it is spawned, and each
/// person is greeted with `joined` for their seat. A bot spec that does not parse, or a full
/// server, is refused before anything is made.
pub(crate) fn open_paired(
    ctx: RoomContext,
    config: Config,
    config_json: ConfigJson,
    seats: Vec<Seated>,
) -> Result<Opened, Refusal> {
    let bots = seats
        .iter()
        .map(|s| match s {
            Seated::Bot(spec) => state::SeatSlot::bot(spec, &config, &ctx.classic).map(Some),
            Seated::Person { .. } | Seated::Reserved { .. } => Ok(None),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (id, tx, rx) = register(&ctx, &config, &config_json)?;
    let mut greetings = Vec::new();
    let slots = seats
        .into_iter()
        .zip(bots)
        .enumerate()
        .filter_map(|(i, (seated, bot))| match seated {
            Seated::Bot(_) => bot,
            Seated::Person { peer, name } => {
                let token = crate::game::token::new_token();
                let hash = crate::game::token::token_hash(&token);
                ctx.lobby.add_token(&hash, &id);
                greetings.push((i, token));
                Some(state::SeatSlot::person(peer, name, hash))
            }
            Seated::Reserved {
                name,
                token,
                account_bot,
            } => {
                let hash = crate::game::token::token_hash(&token);
                ctx.lobby.add_token(&hash, &id);
                let until = Instant::now() + ctx.settings.grace;
                Some(state::SeatSlot::reserved(name, hash, account_bot, until))
            }
        })
        .collect();
    let room = Room::paired(id, ctx, tx, config, config_json, slots, greetings);
    Ok(Opened { room, rx })
}

/// A new room's channel, and its id registered in the lobby under it (counted as created);
/// refused when the server holds its maximum of rooms.
fn register(
    ctx: &RoomContext,
    config: &Config,
    config_json: &ConfigJson,
) -> Result<(String, mpsc::Sender<RoomEvent>, mpsc::Receiver<RoomEvent>), Refusal> {
    let (tx, rx) = mpsc::channel(ctx.settings.room_queue.max(1));
    let max_rooms = ctx.settings.max_rooms;
    let id = ctx
        .lobby
        .register(max_rooms, tx.clone(), |id| {
            state::initial_summary(id, config, config_json)
        })
        .map_err(|_| full_server(max_rooms))?;
    ctx.metrics.rooms_created.inc();
    Ok((id, tx, rx))
}

/// The refusal when the server holds its maximum of rooms.
fn full_server(max_rooms: usize) -> Refusal {
    Refusal::new(
        ErrorCode::ServerFull,
        format!("the server holds its maximum of {max_rooms} rooms; try again later"),
    )
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
    let (id, tx, rx) = register(&ctx, &config, &config_json)?;
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
    // A game between bots alone starts at once: its start is made durable before its first
    // move is asked for.
    if room.settle().await {
        room.close();
        return;
    }
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
