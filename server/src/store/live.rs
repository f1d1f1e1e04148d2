//! The durable form of a game in play ([`LiveRoom`], [`LiveMove`]) and the writes that keep it
//! ([`Write`]): what a restarted server needs to bring the game back — configuration, seats
//! (names, bot specs, token hashes), moves and the clock — and nothing a client could use to
//! take a seat (tokens are kept as hashes).

use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::record::Record;
use serde::{Deserialize, Serialize};

/// A room's game in play, as stored when it starts (and again, with the clock, when the server
/// shuts down). Its moves are stored one by one beside it ([`LiveMove`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LiveRoom {
    /// The room id.
    pub room: String,
    /// The configuration, as the room was created with it.
    pub config: ConfigJson,
    /// Every seat (all are taken once a game is in play).
    pub seats: Vec<LiveSeat>,
    /// The seat whose connection may add bots.
    pub host: Option<usize>,
    /// When the game started (ms since the Unix epoch).
    pub started_ms: Option<u64>,
    /// The room's version when this was written.
    pub version: u64,
    /// The moves played when this was written.
    pub moves: usize,
    /// The time the seat to move had left for its move when this was written (with a move
    /// timer): a graceful shutdown keeps the clock to the millisecond. If moves were played
    /// since, the seat to move starts a whole turn.
    pub time_left_ms: Option<u64>,
    /// Games this room finished before this one (rematches), so that the game in play keeps
    /// its record id (`ID-n+1`) across a restart. Absent in rooms stored before rematches.
    #[serde(default)]
    pub games_played: u32,
}

/// One seat of a game in play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LiveSeat {
    /// The display name (a bot's is its spec).
    pub name: String,
    /// A server bot's spec, which rebuilds it; `None` for a person.
    pub bot: Option<String>,
    /// The SHA-256 of the seat's token, in hex (people only).
    pub token_hash: Option<String>,
    /// Whether a bot account sits here (shown as a bot). Absent in states stored before bot
    /// accounts, and for people.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub account_bot: bool,
}

/// One accepted move of a game in play, with the room's version after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LiveMove {
    /// Anchor row.
    pub row: u8,
    /// Anchor column.
    pub col: u8,
    /// The room's version after the move.
    pub version: u64,
}

/// One change to the database, made durable before the room tells anyone about it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Write {
    /// A game started, or its state is kept as the server shuts down: replaces the room's
    /// stored state (its moves stay).
    Live(Box<LiveRoom>),
    /// The move number `ply` (from 0) of a game in play.
    Move {
        /// The room.
        room: String,
        /// The move's index.
        ply: u32,
        /// The move.
        mv: LiveMove,
    },
    /// A game ended: its record is stored, and the room's game in play (if it was stored) is
    /// removed, in one transaction.
    Finished {
        /// The room it was played in (a rematch's record id is not the room's).
        room: String,
        /// The record.
        record: Box<Record>,
    },
}

impl Write {
    /// The room the write is for.
    pub(crate) fn room(&self) -> &str {
        match self {
            Write::Live(live) => &live.room,
            Write::Move { room, .. } | Write::Finished { room, .. } => room,
        }
    }

    /// Whether this write stores a finished game.
    pub(crate) fn is_finished(&self) -> bool {
        matches!(self, Write::Finished { .. })
    }
}

/// A game in play read back from the database, with its moves in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stored {
    /// The room's state.
    pub room: LiveRoom,
    /// Its moves.
    pub moves: Vec<LiveMove>,
}
