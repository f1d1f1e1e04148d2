//! A room's game in play and the database: its durable state ([`LiveRoom`]) and a room
//! rebuilt from it after a restart — same position, same seat to move, the clock that was
//! left, its people disconnected (each with a grace period to `resume` with their tokens) and
//! its bots rebuilt from their specs.

use super::state::{Occupant, Room, SeatSlot};
use super::{RoomContext, bots, millis, run_room, state};
use crate::clock::after;
use crate::store::live::{LiveRoom, LiveSeat, Stored};
use jchomp_protocol::rules::Game;
use jchomp_protocol::wire::RoomStatus;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Why a stored game in play could not be brought back (it stays in the database).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RestoreError {
    /// The configuration no longer passes the rules.
    #[error("its configuration is invalid: {0}")]
    Config(String),
    /// A stored move is refused by the rules.
    #[error("its move {ply} ({row},{col}) is refused by the rules")]
    Move {
        /// The move's index.
        ply: usize,
        /// Anchor row.
        row: u8,
        /// Anchor column.
        col: u8,
    },
    /// The stored moves end the game (its record should have replaced them).
    #[error("its moves end the game")]
    Over,
    /// The seats do not match the configuration.
    #[error("it has {seats} seats for {players} players")]
    Seats {
        /// Seats stored.
        seats: usize,
        /// Players of the configuration.
        players: usize,
    },
    /// A bot's spec no longer builds.
    #[error("its bot {0:?} cannot be built")]
    Bot(String),
    /// A room with its id is already open.
    #[error("a room with its id is already open")]
    Taken,
}

impl Room {
    /// The game in play as the database keeps it, with the time the seat to move has left at
    /// `now`.
    pub(super) fn live_state(&self, now: Instant) -> LiveRoom {
        let to_move = self.game.to_move().map(usize::from);
        LiveRoom {
            room: self.id.clone(),
            config: self.config_json.clone(),
            seats: self
                .seats
                .iter()
                .flatten()
                .map(|s| LiveSeat {
                    name: s.name.clone(),
                    bot: matches!(s.occupant, Occupant::Bot { .. }).then(|| s.name.clone()),
                    token_hash: s.token_hash.clone(),
                    account_bot: s.account_bot,
                })
                .collect(),
            host: self.host,
            started_ms: self.started_ms,
            version: self.version,
            moves: self.game.moves().len(),
            time_left_ms: self
                .time_left_ms(now)
                .and_then(|left| to_move.and_then(|i| left.get(i).copied())),
            games_played: self.games_played,
        }
    }
}

/// Brings a stored game in play back as a running room (registered under its id, its task
/// started).
pub(crate) fn restore(ctx: RoomContext, stored: Stored) -> Result<(), RestoreError> {
    let (room, rx) = rebuild(ctx, stored)?;
    tokio::spawn(run_room(room, rx));
    Ok(())
}

/// The room of a stored game in play and its channel, registered in the lobby.
pub(super) fn rebuild(
    ctx: RoomContext,
    stored: Stored,
) -> Result<(Room, mpsc::Receiver<super::RoomEvent>), RestoreError> {
    let Stored { room: live, moves } = stored;
    let config = live
        .config
        .validate()
        .map_err(|e| RestoreError::Config(e.to_string()))?;
    let players = usize::from(config.players());
    if live.seats.len() != players {
        return Err(RestoreError::Seats {
            seats: live.seats.len(),
            players,
        });
    }
    let mut game = Game::new(config);
    for (ply, m) in moves.iter().enumerate() {
        if game.to_move().is_none() {
            return Err(RestoreError::Over);
        }
        game.select(m.row.into(), m.col.into())
            .map_err(|_| RestoreError::Move {
                ply,
                row: m.row,
                col: m.col,
            })?;
    }
    if game.result().is_some() {
        return Err(RestoreError::Over);
    }
    let grace = after(ctx.settings.grace);
    let mut seats = Vec::with_capacity(players);
    for seat in &live.seats {
        let occupant = match &seat.bot {
            Some(spec) => {
                let stop = Arc::new(AtomicBool::new(false));
                let (_, player) = bots::build(spec, stop.clone(), &config, &ctx.classic)
                    .map_err(|_| RestoreError::Bot(spec.clone()))?;
                Occupant::Bot {
                    player: Some(player),
                    stop,
                }
            }
            None => Occupant::Human {
                peer: None,
                grace_until: Some(grace),
            },
        };
        seats.push(Some(SeatSlot {
            name: seat.name.clone(),
            token_hash: seat.token_hash.clone(),
            occupant,
            account_bot: seat.account_bot,
        }));
    }
    // The clock: what the seat to move had left when the state was kept, if no move was
    // played since (a graceful shutdown); otherwise a whole turn from its last move on. The
    // time the server was down is charged to nobody.
    let turn_ms = live
        .config
        .move_time_ms
        .map(|whole| match live.time_left_ms {
            Some(left) if live.moves == moves.len() => left.min(whole),
            _ => whole,
        });
    let version = moves
        .last()
        .map_or(live.version, |m| m.version.max(live.version))
        + 1;
    let (tx, rx) = mpsc::channel(ctx.settings.room_queue.max(1));
    let config_json = live.config.clone();
    if !ctx.lobby.register_restored(&live.room, tx.clone(), |id| {
        state::initial_summary(id, &config, &config_json)
    }) {
        return Err(RestoreError::Taken);
    }
    for hash in live.seats.iter().filter_map(|s| s.token_hash.as_deref()) {
        ctx.lobby.add_token(hash, &live.room);
    }
    tracing::info!(room = %live.room, moves = moves.len(), "game in play restored");
    let room = Room {
        id: live.room,
        ctx,
        me: tx,
        game,
        config,
        config_json,
        seats,
        spectators: Vec::new(),
        host: live.host,
        status: RoomStatus::Playing,
        version,
        turn_deadline: turn_ms.map(|ms| after(millis(ms))),
        close_at: None,
        started_ms: live.started_ms,
        pending: Vec::new(),
        held: Vec::new(),
        greetings: Vec::new(),
        empty: false,
        given_up: false,
        games_played: live.games_played,
        rematch: vec![false; players],
    };
    Ok((room, rx))
}
