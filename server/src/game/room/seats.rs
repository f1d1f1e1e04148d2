//! Seats and versions: starting the game when the room fills, freeing and detaching seats,
//! finding a connection's seat.

use super::Refusal;
use super::state::{Occupant, Room, SeatSlot};
use crate::clock::now_ms;
use crate::game::outbox::ConnId;
use crate::store::live::Write;
use jchomp_protocol::rules::Seat;
use jchomp_protocol::wire::{ErrorCode, RoomStatus, ServerMessage};
use tokio::time::Instant;

impl Room {
    /// After a join, a bot or a return: a new version, the game started (and made durable) if
    /// every seat is taken, and a snapshot to everyone.
    pub(super) fn seats_changed(&mut self) {
        if self.status == RoomStatus::Waiting && self.seats.iter().all(Option::is_some) {
            self.status = RoomStatus::Playing;
            self.started_ms = Some(now_ms());
            self.arm_turn_timer();
            let state = self.live_state(Instant::now());
            self.pending.push(Write::Live(Box::new(state)));
            tracing::info!(room = %self.id, "game started");
        }
        self.changed();
        self.maybe_bot();
    }

    /// A new version, published and sent to everyone as a snapshot.
    pub(super) fn changed(&mut self) {
        self.version += 1;
        self.publish();
        self.broadcast(&ServerMessage::Room(self.snapshot()));
    }

    /// Empties a seat (its token dies) and passes the host role on if needed.
    pub(super) fn free_seat(&mut self, i: usize) {
        if let Some(slot) = self.seats[i].take()
            && let Some(hash) = slot.token_hash
        {
            self.ctx.lobby.remove_token(&hash);
        }
        if self.host == Some(i) {
            self.host = self.seats.iter().position(|s| {
                matches!(
                    s,
                    Some(SeatSlot {
                        occupant: Occupant::Human { .. },
                        ..
                    })
                )
            });
        }
    }

    /// Drops a seat's connection (the seat stays taken).
    pub(super) fn detach(&mut self, i: usize) {
        if let Some(SeatSlot {
            occupant: Occupant::Human { peer, .. },
            ..
        }) = &mut self.seats[i]
        {
            *peer = None;
        }
    }

    /// The seat a connection holds.
    pub(super) fn seat_of(&self, conn: ConnId) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| {
                s.as_ref()
                    .and_then(SeatSlot::peer)
                    .is_some_and(|p| p.id == conn)
            })
            .map(|i| i as Seat)
    }

    /// The lowest free seat of a waiting room.
    pub(super) fn free_seat_index(&self) -> Option<usize> {
        if self.status != RoomStatus::Waiting {
            return None;
        }
        self.seats.iter().position(Option::is_none)
    }

    /// The seat a join or a bot takes: `asked` if it is a seat of the room and free, else the
    /// lowest free seat when none was asked; or why none.
    pub(super) fn seat_for(&self, asked: Option<Seat>) -> Result<usize, Refusal> {
        let Some(seat) = asked else {
            return self.free_seat_index().ok_or_else(|| self.full());
        };
        let i = usize::from(seat);
        if i >= self.seats.len() {
            return Err(Refusal::new(
                ErrorCode::BadRequest,
                format!(
                    "seat must be 0–{} in room {}, got {seat}",
                    self.seats.len() - 1,
                    self.id
                ),
            ));
        }
        if self.status != RoomStatus::Waiting {
            return Err(self.full());
        }
        if self.seats[i].is_some() {
            return Err(Refusal::new(
                ErrorCode::RoomFull,
                format!("seat {seat} of room {} is taken", self.id),
            ));
        }
        Ok(i)
    }

    /// The refusal for a room with no free seat.
    pub(super) fn full(&self) -> Refusal {
        let message = match self.status {
            RoomStatus::Waiting => format!("room {} is full ({} seats)", self.id, self.seats.len()),
            _ => format!("room {} has started; every seat is taken", self.id),
        };
        Refusal::new(ErrorCode::RoomFull, message)
    }
}
