//! What a room tells its members: snapshots, summaries, `joined`, rejections, and one
//! serialisation per broadcast.

use super::state::{Room, SeatSlot};
use crate::game::outbox::{Peer, encode};
use jchomp_protocol::json::{MoveJson, ResultJson};
use jchomp_protocol::rules::{Cell, Seat};
use jchomp_protocol::wire::{
    RejectReason, RoomStatus, RoomSummary, SeatInfo, ServerMessage, Snapshot, game_id,
};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

impl Room {
    /// The `joined` message for a seat.
    pub(super) fn joined(&self, seat: usize, token: &str) -> ServerMessage {
        ServerMessage::Joined {
            room: self.id.clone(),
            seat: seat as Seat,
            token: token.to_string(),
        }
    }

    /// Sends a `move_rejected` to the sender and counts it.
    pub(super) fn reject(&self, peer: &Peer, reason: RejectReason, message: String) {
        self.ctx.metrics.moves_rejected.inc();
        peer.send_msg(&ServerMessage::MoveRejected { reason, message });
    }

    /// The room's line in `rooms`.
    pub(super) fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.id.clone(),
            config: self.config_json.clone(),
            seats: self.seat_infos(),
            status: self.status,
        }
    }

    /// Every seat as clients see it.
    pub(super) fn seat_infos(&self) -> Vec<Option<SeatInfo>> {
        let now = Instant::now();
        self.seats
            .iter()
            .map(|s| s.as_ref().map(|s| s.info(now)))
            .collect()
    }

    /// Updates the room's summary in the lobby.
    pub(super) fn publish(&self) {
        self.ctx.lobby.publish(self.summary());
    }

    /// The full state of the room.
    pub(super) fn snapshot(&self) -> Snapshot {
        let position = self.game.position();
        Snapshot {
            room: self.id.clone(),
            config: self.config_json.clone(),
            seats: self.seat_infos(),
            status: self.status,
            to_move: if self.status == RoomStatus::Playing {
                self.game.to_move()
            } else {
                None
            },
            eaten: position
                .eaten(&self.config)
                .iter()
                .map(|i| {
                    let c = Cell::from_index(i);
                    [c.row, c.col]
                })
                .collect(),
            moves: self
                .game
                .moves()
                .iter()
                .map(|&m| MoveJson::from(m))
                .collect(),
            result: self.game.result().map(ResultJson::from),
            version: self.version,
            time_left_ms: self.time_left_ms(Instant::now()),
            rematch: (0..self.rematch.len())
                .filter(|&i| self.rematch[i])
                .map(|i| i as Seat)
                .collect(),
            // A finished game has been counted; one waiting or in play is the next.
            game: game_id(
                &self.id,
                match self.status {
                    RoomStatus::Finished => self.games_played,
                    _ => self.games_played + 1,
                },
            ),
        }
    }

    /// With a move timer in a game in play: the time the seat to move has left, and a whole
    /// turn for each other seat.
    pub(super) fn time_left_ms(&self, now: Instant) -> Option<Vec<u64>> {
        let turn = self.config_json.move_time_ms?;
        if self.status != RoomStatus::Playing {
            return None;
        }
        let to_move = self.game.to_move().map(usize::from);
        let left = self.turn_deadline.map_or(turn, |d| {
            d.saturating_duration_since(now).as_millis() as u64
        });
        Some(
            (0..self.seats.len())
                .map(|i| if Some(i) == to_move { left } else { turn })
                .collect(),
        )
    }

    /// Sends one message, serialised once, to every seat and spectator — or, while a change to
    /// the game is not yet durable, once it is.
    pub(super) fn broadcast(&mut self, msg: &ServerMessage) {
        let text = encode(msg);
        if self.pending.is_empty() {
            self.send_all(&text);
        } else {
            self.held.push(text);
        }
    }

    /// Sends one serialised message to every seat and spectator now.
    pub(super) fn send_all(&self, text: &Utf8Bytes) {
        for peer in self.seats.iter().flatten().filter_map(SeatSlot::peer) {
            peer.send(text);
        }
        for peer in &self.spectators {
            peer.send(text);
        }
    }
}
