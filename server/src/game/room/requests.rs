//! How a room answers its connections: join, spectate, resume, move, add a bot, leave, and a
//! dropped connection.

use super::bots;
use super::state::{Occupant, Room, SeatSlot};
use super::{LeaveOutcome, Refusal};
use crate::clock::after;
use crate::game::outbox::{ConnId, Peer};
use crate::game::token::new_token;
use crate::game::token::token_hash;
use jchomp_protocol::rules::{GameResult, Rejection, Seat};
use jchomp_protocol::wire::{ErrorCode, RejectReason, RoomStatus, ServerMessage};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

impl Room {
    /// Seats a connection in `seat` (or the lowest free seat) and sends it `joined`.
    pub(super) fn join(
        &mut self,
        peer: Peer,
        name: String,
        seat: Option<Seat>,
    ) -> Result<Seat, Refusal> {
        if let Some(seat) = self.seat_of(peer.id) {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("you already hold seat {seat} in room {}", self.id),
            ));
        }
        let i = self.seat_for(seat)?;
        self.spectators.retain(|p| p.id != peer.id);
        let token = new_token();
        let hash = token_hash(&token);
        self.ctx.lobby.add_token(&hash, &self.id);
        peer.send_msg(&self.joined(i, &token));
        self.seats[i] = Some(SeatSlot::person(peer, name, hash));
        if self.host.is_none() {
            self.host = Some(i);
        }
        tracing::info!(room = %self.id, seat = i, "seat taken");
        self.seats_changed();
        Ok(i as Seat)
    }

    /// Adds a watcher and sends it a snapshot.
    pub(super) fn spectate(&mut self, peer: Peer) -> Result<(), Refusal> {
        if let Some(seat) = self.seat_of(peer.id) {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("you hold seat {seat} in room {}", self.id),
            ));
        }
        peer.send_msg(&ServerMessage::Room(self.snapshot()));
        if !self.spectators.iter().any(|p| p.id == peer.id) {
            self.spectators.push(peer);
        }
        Ok(())
    }

    /// Gives the seat of `token` to this connection, closing an older one.
    pub(super) fn resume(&mut self, peer: Peer, token: &str) -> Result<Seat, Refusal> {
        let hash = token_hash(token);
        let Some(i) = self
            .seats
            .iter()
            .position(|s| s.as_ref().and_then(|s| s.token_hash.as_deref()) == Some(&hash))
        else {
            return Err(bad_token());
        };
        if let Some(other) = self.seat_of(peer.id)
            && other != i as Seat
        {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("you already hold seat {other} in room {}", self.id),
            ));
        }
        self.spectators.retain(|p| p.id != peer.id);
        let joined = self.joined(i, token);
        let Some(SeatSlot {
            occupant:
                Occupant::Human {
                    peer: slot,
                    grace_until,
                },
            ..
        }) = &mut self.seats[i]
        else {
            return Err(bad_token());
        };
        if let Some(old) = slot.take()
            && old.id != peer.id
        {
            old.send_msg(&ServerMessage::Error {
                code: ErrorCode::Forbidden,
                message: "another connection resumed this seat".to_string(),
            });
            old.close(CloseCode::Library(4001), "seat resumed elsewhere");
        }
        *grace_until = None;
        peer.send_msg(&joined);
        *slot = Some(peer);
        tracing::info!(room = %self.id, seat = i, "seat resumed");
        self.seats_changed();
        Ok(i as Seat)
    }

    /// Checks a move in the documented order and plays it, or rejects it to the sender.
    pub(super) fn human_move(&mut self, peer: &Peer, row: i64, col: i64) {
        let Some(seat) = self.seat_of(peer.id) else {
            let message = if self.spectators.iter().any(|p| p.id == peer.id) {
                "spectators cannot move".to_string()
            } else {
                format!("you hold no seat in room {}", self.id)
            };
            return self.reject(peer, RejectReason::NotSeated, message);
        };
        if self.status != RoomStatus::Playing {
            let message = match self.status {
                RoomStatus::Waiting => "the game has not started: seats are still free",
                _ => "the game is over",
            };
            return self.reject(peer, RejectReason::NotPlaying, message.to_string());
        }
        match self.game.to_move() {
            Some(to_move) if to_move != seat => {
                return self.reject(
                    peer,
                    RejectReason::NotYourTurn,
                    format!("seat {to_move} is to move; you hold seat {seat}"),
                );
            }
            _ => {}
        }
        let selected = self.game.select(row, col);
        match selected {
            Ok(_) => self.after_move(seat, row, col),
            Err(r) => {
                let reason = match r {
                    Rejection::OutOfRange => RejectReason::OutOfRange,
                    Rejection::AlreadyEaten => RejectReason::AlreadyEaten,
                    Rejection::NotABreak => RejectReason::NotABreak,
                    Rejection::SquareBite => RejectReason::SquareBite,
                    Rejection::GameOver => RejectReason::NotPlaying,
                };
                let message = r.explain(&self.config, row, col);
                self.reject(peer, reason, message);
            }
        }
    }

    /// Host only: a bot takes `seat` (or the lowest free seat).
    pub(super) fn add_bot(
        &mut self,
        peer: &Peer,
        spec: Option<String>,
        seat: Option<Seat>,
    ) -> Result<(), Refusal> {
        let host = self.seat_of(peer.id);
        if host.is_none() || host.map(usize::from) != self.host {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("only the host of room {} may add bots", self.id),
            ));
        }
        let i = self.seat_for(seat)?;
        let spec = spec.unwrap_or_else(|| bots::DEFAULT_SPEC.to_string());
        let slot = SeatSlot::bot(&spec, &self.config, &self.ctx.classic)?;
        tracing::info!(room = %self.id, seat = i, bot = %slot.name, "bot added");
        self.seats[i] = Some(slot);
        self.seats_changed();
        Ok(())
    }

    /// A seat of a finished game asks for a rematch: once every seat held by a person has
    /// asked (bots always agree), a new game with the same configuration and seats starts in
    /// this room; until then everyone sees who has asked.
    pub(super) fn rematch(&mut self, peer: &Peer) -> Result<(), Refusal> {
        let Some(seat) = self.seat_of(peer.id) else {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("only the seats of room {} may ask for a rematch", self.id),
            ));
        };
        if self.status != RoomStatus::Finished {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("the game in room {} is not over", self.id),
            ));
        }
        self.rematch[usize::from(seat)] = true;
        let everyone = self.seats.iter().enumerate().all(|(i, s)| match s {
            Some(slot) => match slot.occupant {
                Occupant::Bot { .. } => true,
                Occupant::Human { .. } => slot.peer().is_some() && self.rematch[i],
            },
            None => false,
        });
        if everyone {
            self.new_game();
        } else {
            self.changed();
        }
        Ok(())
    }

    /// Takes a connection out of the room (see [`super::RoomEvent::Leave`]).
    pub(super) fn leave(&mut self, conn: ConnId, keep_active_seat: bool) -> LeaveOutcome {
        let before = self.spectators.len();
        self.spectators.retain(|p| p.id != conn);
        if self.spectators.len() != before {
            return LeaveOutcome::Left;
        }
        let Some(seat) = self.seat_of(conn) else {
            return LeaveOutcome::Left;
        };
        let i = usize::from(seat);
        match self.status {
            _ if keep_active_seat && self.status != RoomStatus::Finished => {
                return LeaveOutcome::Stayed(seat);
            }
            RoomStatus::Waiting => {
                tracing::info!(room = %self.id, seat, "seat left");
                self.free_seat(i);
                self.changed();
            }
            RoomStatus::Playing => {
                tracing::info!(room = %self.id, seat, "seat left a game in play");
                self.detach(i);
                self.end_game(GameResult::Abandoned { loser: seat });
            }
            RoomStatus::Finished => {
                self.detach(i);
                self.changed();
            }
        }
        LeaveOutcome::Left
    }

    /// A connection dropped: in a waiting room its seat is freed; in a game in play it shows
    /// disconnected and its grace period starts.
    pub(super) fn disconnected(&mut self, conn: ConnId) {
        self.spectators.retain(|p| p.id != conn);
        let Some(seat) = self.seat_of(conn) else {
            return;
        };
        let i = usize::from(seat);
        if self.status == RoomStatus::Waiting {
            // Nothing is lost: the seat is free to be joined again, by anyone.
            tracing::info!(room = %self.id, seat, "seat disconnected; freed");
            self.free_seat(i);
            self.changed();
            return;
        }
        self.detach(i);
        if self.status == RoomStatus::Playing
            && let Some(SeatSlot {
                occupant: Occupant::Human { grace_until, .. },
                ..
            }) = &mut self.seats[i]
        {
            *grace_until = Some(after(self.ctx.settings.grace));
        }
        tracing::info!(room = %self.id, seat, "seat disconnected");
        self.changed();
    }
}

fn bad_token() -> Refusal {
    Refusal::new(ErrorCode::BadToken, "the token matches no seat")
}
