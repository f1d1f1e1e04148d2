//! A room in a cluster's takeover: on the node that took the room over, a connection relayed
//! from another node takes its seat back ([`Room::reattach`]); on a node that lost the room to
//! another (its lease ran out while it was paused), the room stops without a word more
//! ([`Room::give_up`]).

use super::state::{Occupant, Room, SeatSlot};
use crate::game::outbox::Peer;
use jchomp_protocol::rules::Seat;
use jchomp_protocol::wire::{ErrorCode, ServerMessage};
use std::sync::atomic::Ordering;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

impl Room {
    /// Gives `seat` to `peer`, a connection that held it on the room's old owner, if no
    /// connection holds it now; everyone gets a snapshot. If another connection took the seat
    /// meanwhile (its player resumed it), `peer` is told and closed, as after a `resume`
    /// elsewhere.
    pub(super) fn reattach(&mut self, peer: Peer, seat: Seat) {
        let i = usize::from(seat);
        if let Some(Some(SeatSlot {
            occupant: Occupant::Human { peer: Some(p), .. },
            ..
        })) = self.seats.get(i)
            && p.id == peer.id
        {
            // Still attached (asked again by a node back from a lapsed lease): nothing to do.
            return;
        }
        if let Some(Some(SeatSlot {
            occupant:
                Occupant::Human {
                    peer: slot @ None,
                    grace_until,
                },
            ..
        })) = self.seats.get_mut(i)
        {
            *grace_until = None;
            *slot = Some(peer.clone());
            self.spectators.retain(|p| p.id != peer.id);
            tracing::info!(room = %self.id, seat = i, "seat taken back after a takeover");
            self.seats_changed();
            return;
        }
        peer.send_msg(&ServerMessage::Error {
            code: ErrorCode::Forbidden,
            message: "another connection resumed this seat".to_string(),
        });
        peer.close(CloseCode::Library(4001), "seat resumed elsewhere");
    }

    /// The room is not this node's to run any more (another node owns it, or this node's lease
    /// could not be proved): nothing held back is sent (it is not this node's to tell), bots
    /// stop, and every connection is closed with 1012 (service restart) so that its client
    /// reconnects and resumes wherever the room runs next. The room closes after, leaving the
    /// directory as it is.
    pub(super) fn give_up(&mut self) {
        tracing::warn!(room = %self.id, "this room is not this node's to run now; stopping it here");
        self.pending.clear();
        self.held.clear();
        self.given_up = true;
        let reason = "this room's server cannot run it now; reconnect and resume";
        for slot in self.seats.iter_mut().flatten() {
            match &mut slot.occupant {
                Occupant::Human { peer, .. } => {
                    if let Some(p) = peer.take() {
                        p.close(CloseCode::Restart, reason);
                    }
                }
                Occupant::Bot { stop, .. } => stop.store(true, Ordering::Relaxed),
            }
        }
        for p in self.spectators.drain(..) {
            p.close(CloseCode::Restart, reason);
        }
        self.empty = true;
    }
}
