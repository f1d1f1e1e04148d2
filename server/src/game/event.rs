//! [`RoomEvent`]: everything a room task reacts to, from connections, the cluster, bot threads
//! and its own timers — the closed set of messages by which the rest of the server talks to a
//! room — and the answers some of them carry.

use crate::game::analysis::Subject;
use crate::game::outbox::{ConnId, Peer};
use crate::game::refusal::Refusal;
use jchomp_engine::Player;
use jchomp_protocol::rules::Seat;
use tokio::sync::oneshot;

/// The answer to a [`RoomEvent::Leave`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
        /// The seat asked for (the lowest free one if `None`).
        seat: Option<Seat>,
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
        /// The seat asked for (the lowest free one if `None`).
        seat: Option<Seat>,
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
