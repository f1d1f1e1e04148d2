//! [`Room`]: one room's state (seats, spectators, game, timers, version) and how each
//! [`RoomEvent`] changes it. Only the room task touches it; sending to peers never waits.

use super::bots;
use super::{BotOutcome, LeaveOutcome, Refusal, RoomEvent, millis, now_ms};
use crate::lobby::new_token;
use crate::metrics::inc;
use crate::outbox::{ConnId, Peer, encode};
use crate::settings::after;
use crate::shared::Shared;
use jchomp_bot::Player;
use jchomp_protocol::json::{ConfigJson, MoveJson, ResultJson};
use jchomp_protocol::record::Record;
use jchomp_protocol::rules::{Cell, Config, Game, GameResult, Rejection, Seat};
use jchomp_protocol::wire::{
    ErrorCode, Moved, RejectReason, RoomStatus, RoomSummary, SeatInfo, ServerMessage, Snapshot,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// Who sits in a seat.
enum Occupant {
    /// A person; `peer` is `None` while disconnected, and `grace_until` is set while the seat
    /// is held for a `resume`.
    Human {
        peer: Option<Peer>,
        grace_until: Option<Instant>,
    },
    /// A server-side bot; `player` is `None` while it thinks; raising `stop` makes a
    /// thinking bot answer at once.
    Bot {
        player: Option<Box<dyn Player>>,
        stop: Arc<AtomicBool>,
    },
}

/// A taken seat.
struct SeatSlot {
    name: String,
    /// The secret for `resume` (bots have none).
    token: Option<String>,
    occupant: Occupant,
}

impl SeatSlot {
    fn peer(&self) -> Option<&Peer> {
        match &self.occupant {
            Occupant::Human { peer, .. } => peer.as_ref(),
            Occupant::Bot { .. } => None,
        }
    }

    fn info(&self) -> SeatInfo {
        SeatInfo {
            name: self.name.clone(),
            bot: matches!(self.occupant, Occupant::Bot { .. }),
            connected: match &self.occupant {
                Occupant::Human { peer, .. } => peer.is_some(),
                Occupant::Bot { .. } => true,
            },
        }
    }
}

/// One room's state, owned by its task.
pub(crate) struct Room {
    id: String,
    ctx: Arc<Shared>,
    me: mpsc::Sender<RoomEvent>,
    config: Config,
    config_json: ConfigJson,
    seats: Vec<Option<SeatSlot>>,
    spectators: Vec<Peer>,
    /// The seat whose connection may add bots.
    host: Option<usize>,
    game: Game,
    status: RoomStatus,
    version: u64,
    turn_deadline: Option<Instant>,
    close_at: Option<Instant>,
    started_ms: Option<u64>,
    record: Option<Record>,
    /// Set when nobody is left to play or watch.
    empty: bool,
}

/// The summary of a new room before its task runs.
pub(crate) fn initial_summary(id: &str, config: &Config, config_json: &ConfigJson) -> RoomSummary {
    RoomSummary {
        room: id.to_string(),
        config: config_json.clone(),
        seats: (0..config.players()).map(|_| None).collect(),
        status: RoomStatus::Waiting,
    }
}

impl Room {
    /// A waiting room with `creator` in seat 0 as host.
    pub(crate) fn new(
        id: String,
        ctx: Arc<Shared>,
        me: mpsc::Sender<RoomEvent>,
        config: Config,
        config_json: ConfigJson,
        creator: Peer,
        name: String,
    ) -> Room {
        let mut seats: Vec<Option<SeatSlot>> = (0..config.players()).map(|_| None).collect();
        let token = new_token();
        ctx.lobby.add_token(&token, &id);
        seats[0] = Some(SeatSlot {
            name,
            token: Some(token),
            occupant: Occupant::Human {
                peer: Some(creator),
                grace_until: None,
            },
        });
        Room {
            id,
            ctx,
            me,
            game: Game::new(config),
            config,
            config_json,
            seats,
            spectators: Vec::new(),
            host: Some(0),
            status: RoomStatus::Waiting,
            version: 1,
            turn_deadline: None,
            close_at: None,
            started_ms: None,
            record: None,
            empty: false,
        }
    }

    /// The shared server state.
    pub(crate) fn ctx(&self) -> &Arc<Shared> {
        &self.ctx
    }

    /// Greets the creator: `joined`, then a snapshot.
    pub(crate) fn start(&mut self) {
        tracing::info!(room = %self.id, players = self.config.players(), "room created");
        self.publish();
        if let Some(slot) = &self.seats[0]
            && let (Some(peer), Some(token)) = (slot.peer(), &slot.token)
        {
            peer.send_msg(&self.joined(0, token));
            peer.send_msg(&ServerMessage::Room(self.snapshot()));
        }
    }

    /// Handles one event.
    pub(crate) fn handle(&mut self, ev: RoomEvent) {
        match ev {
            RoomEvent::Join { peer, name, reply } => {
                let _ = reply.send(self.join(peer, name));
            }
            RoomEvent::Spectate { peer, reply } => {
                let _ = reply.send(self.spectate(peer));
            }
            RoomEvent::Resume { peer, token, reply } => {
                let _ = reply.send(self.resume(peer, &token));
            }
            RoomEvent::Move { peer, row, col } => self.human_move(&peer, row, col),
            RoomEvent::AddBot { peer, spec } => {
                if let Err(r) = self.add_bot(&peer, spec) {
                    peer.send_msg(&ServerMessage::Error {
                        code: r.code,
                        message: r.message,
                    });
                }
            }
            RoomEvent::Sync { peer } => peer.send_msg(&ServerMessage::Room(self.snapshot())),
            RoomEvent::Leave {
                conn,
                keep_active_seat,
                reply,
            } => {
                let _ = reply.send(self.leave(conn, keep_active_seat));
            }
            RoomEvent::Disconnected { conn } => self.disconnected(conn),
            RoomEvent::BotMoved {
                seat,
                ply,
                player,
                outcome,
            } => self.bot_moved(seat, ply, player, outcome),
        }
    }

    /// The earliest timer: the turn deadline, a seat's grace, or closing a finished room.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        let graces = self
            .seats
            .iter()
            .flatten()
            .filter_map(|s| match s.occupant {
                Occupant::Human { grace_until, .. } => grace_until,
                Occupant::Bot { .. } => None,
            });
        graces.chain(self.turn_deadline).chain(self.close_at).min()
    }

    /// Fires every timer due at `now`.
    pub(crate) fn on_timers(&mut self, now: Instant) {
        if self.status == RoomStatus::Playing
            && self.turn_deadline.is_some_and(|d| d <= now)
            && let Some(loser) = self.game.to_move()
        {
            tracing::info!(room = %self.id, seat = loser, "turn timer ran out");
            self.end_game(GameResult::Timeout { loser });
        }
        for i in 0..self.seats.len() {
            let due = matches!(
                self.seats[i].as_ref().map(|s| &s.occupant),
                Some(Occupant::Human { peer: None, grace_until: Some(t) }) if *t <= now
            );
            if !due {
                continue;
            }
            match self.status {
                RoomStatus::Waiting => {
                    tracing::info!(room = %self.id, seat = i, "grace over; seat freed");
                    self.free_seat(i);
                    self.changed();
                }
                RoomStatus::Playing => {
                    tracing::info!(room = %self.id, seat = i, "grace over; game abandoned");
                    self.end_game(GameResult::Abandoned { loser: i as Seat });
                }
                RoomStatus::Finished => {}
            }
            if let Some(SeatSlot {
                occupant: Occupant::Human { grace_until, .. },
                ..
            }) = &mut self.seats[i]
            {
                *grace_until = None;
            }
        }
        if self.close_at.is_some_and(|t| t <= now) {
            self.empty = true;
        }
    }

    /// The record of the game that just finished, to be stored.
    pub(crate) fn take_record(&mut self) -> Option<Record> {
        self.record.take()
    }

    /// Whether the room should close: nobody left in a waiting room, nobody connected to a
    /// finished one, or a finished room's linger time over.
    pub(crate) fn should_close(&self) -> bool {
        if self.empty {
            return true;
        }
        match self.status {
            RoomStatus::Waiting => !self
                .seats
                .iter()
                .flatten()
                .any(|s| matches!(s.occupant, Occupant::Human { .. })),
            RoomStatus::Playing => false,
            RoomStatus::Finished => {
                self.spectators.is_empty()
                    && self.seats.iter().flatten().all(|s| s.peer().is_none())
            }
        }
    }

    /// Unregisters the room and tells everyone still in it.
    pub(crate) fn close(&mut self) {
        let tokens: Vec<String> = self
            .seats
            .iter()
            .flatten()
            .filter_map(|s| s.token.clone())
            .collect();
        self.ctx.lobby.remove(&self.id, &tokens);
        for slot in self.seats.iter().flatten() {
            if let Occupant::Bot { stop, .. } = &slot.occupant {
                stop.store(true, Ordering::Relaxed);
            }
        }
        if !self.ctx.shutting_down() {
            self.broadcast(&ServerMessage::Left {
                room: self.id.clone(),
            });
        }
        tracing::info!(room = %self.id, status = ?self.status, "room closed");
    }

    // ---- requests -------------------------------------------------------------------------

    fn join(&mut self, peer: Peer, name: String) -> Result<Seat, Refusal> {
        if let Some(seat) = self.seat_of(peer.id) {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("you already hold seat {seat} in room {}", self.id),
            ));
        }
        let Some(i) = self.free_seat_index() else {
            return Err(self.full());
        };
        self.spectators.retain(|p| p.id != peer.id);
        let token = new_token();
        self.ctx.lobby.add_token(&token, &self.id);
        peer.send_msg(&self.joined(i, &token));
        self.seats[i] = Some(SeatSlot {
            name,
            token: Some(token),
            occupant: Occupant::Human {
                peer: Some(peer),
                grace_until: None,
            },
        });
        if self.host.is_none() {
            self.host = Some(i);
        }
        tracing::info!(room = %self.id, seat = i, "seat taken");
        self.seats_changed();
        Ok(i as Seat)
    }

    fn spectate(&mut self, peer: Peer) -> Result<(), Refusal> {
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

    fn resume(&mut self, peer: Peer, token: &str) -> Result<Seat, Refusal> {
        let Some(i) = self
            .seats
            .iter()
            .position(|s| s.as_ref().and_then(|s| s.token.as_deref()) == Some(token))
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

    fn human_move(&mut self, peer: &Peer, row: i64, col: i64) {
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
        // Anchors off the board are refused here, so that no client number reaches the rules'
        // arithmetic (`row + eat` could overflow for values near `i64::MAX`).
        let on_board = (0..i64::from(self.config.rows())).contains(&row)
            && (0..i64::from(self.config.cols())).contains(&col);
        let selected = if on_board {
            self.game.select(row, col)
        } else {
            Err(Rejection::OutOfRange)
        };
        match selected {
            Ok(_) => self.after_move(seat, row, col),
            Err(r) => {
                let (er, ec) = self.config.eat();
                let (reason, message) = match r {
                    Rejection::OutOfRange => (
                        RejectReason::OutOfRange,
                        format!(
                            "the {er}×{ec} selection at ({row},{col}) reaches outside the {}×{} board",
                            self.config.rows(),
                            self.config.cols()
                        ),
                    ),
                    Rejection::AlreadyEaten => (
                        RejectReason::AlreadyEaten,
                        format!(
                            "part of the {er}×{ec} selection at ({row},{col}) is already eaten"
                        ),
                    ),
                    Rejection::GameOver => (RejectReason::NotPlaying, "the game is over".into()),
                };
                self.reject(peer, reason, message);
            }
        }
    }

    fn add_bot(&mut self, peer: &Peer, spec: Option<String>) -> Result<(), Refusal> {
        let seat = self.seat_of(peer.id);
        if seat.is_none() || seat.map(usize::from) != self.host {
            return Err(Refusal::new(
                ErrorCode::Forbidden,
                format!("only the host of room {} may add bots", self.id),
            ));
        }
        let Some(i) = self.free_seat_index() else {
            return Err(self.full());
        };
        let spec = spec.unwrap_or_else(|| bots::DEFAULT_SPEC.to_string());
        let stop = Arc::new(AtomicBool::new(false));
        let (spec, player) =
            bots::build(&spec, stop.clone()).map_err(|e| Refusal::new(ErrorCode::BadRequest, e))?;
        self.seats[i] = Some(SeatSlot {
            name: spec.clone(),
            token: None,
            occupant: Occupant::Bot {
                player: Some(player),
                stop,
            },
        });
        tracing::info!(room = %self.id, seat = i, bot = %spec, "bot added");
        self.seats_changed();
        Ok(())
    }

    fn leave(&mut self, conn: ConnId, keep_active_seat: bool) -> LeaveOutcome {
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

    fn disconnected(&mut self, conn: ConnId) {
        self.spectators.retain(|p| p.id != conn);
        let Some(seat) = self.seat_of(conn) else {
            return;
        };
        let i = usize::from(seat);
        self.detach(i);
        if self.status != RoomStatus::Finished
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

    // ---- the game -------------------------------------------------------------------------

    fn bot_moved(
        &mut self,
        seat: Seat,
        ply: usize,
        player: Option<Box<dyn Player>>,
        outcome: BotOutcome,
    ) {
        let player = player.unwrap_or_else(|| {
            tracing::warn!(room = %self.id, seat, "bot panicked; a random player takes over");
            bots::fallback()
        });
        let Some(Some(SeatSlot {
            occupant: Occupant::Bot { player: slot, .. },
            ..
        })) = self.seats.get_mut(usize::from(seat))
        else {
            return;
        };
        *slot = Some(player);
        let current = self.status == RoomStatus::Playing
            && self.game.moves().len() == ply
            && self.game.to_move() == Some(seat);
        if !current {
            // The game moved on (a timeout, an abandonment) while the bot thought.
            self.maybe_bot();
            return;
        }
        let position = *self.game.position();
        let cell = match outcome {
            BotOutcome::Chose(c)
                if position
                    .check(&self.config, c.row.into(), c.col.into())
                    .is_ok() =>
            {
                Some(c)
            }
            other => {
                tracing::warn!(room = %self.id, seat, outcome = ?other, "bot gave no valid move; playing a random one");
                bots::fallback().choose(&self.config, &position)
            }
        };
        match cell {
            Some(c) if self.game.select(c.row.into(), c.col.into()).is_ok() => {
                self.after_move(seat, c.row.into(), c.col.into());
            }
            _ => tracing::error!(room = %self.id, seat, "no move for the bot"),
        }
    }

    /// After an accepted move: `moved` to everyone, then the end of the game or the next turn.
    fn after_move(&mut self, seat: Seat, row: i64, col: i64) {
        inc(&self.ctx.metrics.moves);
        self.version += 1;
        let result = self.game.result();
        let moved = ServerMessage::Moved(Moved {
            room: self.id.clone(),
            version: self.version,
            seat,
            row,
            col,
            to_move: self.game.to_move(),
            status: if result.is_some() {
                RoomStatus::Finished
            } else {
                RoomStatus::Playing
            },
            result: result.map(ResultJson::from),
        });
        self.broadcast(&moved);
        match result {
            Some(r) => {
                self.finish(r);
                self.broadcast(&ServerMessage::Room(self.snapshot()));
            }
            None => {
                self.arm_turn_timer();
                self.maybe_bot();
            }
        }
    }

    /// Ends the game with a result decided outside the rules, then tells everyone.
    fn end_game(&mut self, result: GameResult) {
        self.game.end(result);
        self.version += 1;
        self.finish(result);
        self.broadcast(&ServerMessage::Room(self.snapshot()));
    }

    /// Marks the game finished, counts it and prepares its record.
    fn finish(&mut self, result: GameResult) {
        self.status = RoomStatus::Finished;
        self.turn_deadline = None;
        self.close_at = Some(after(self.ctx.settings.finished_linger));
        for slot in self.seats.iter_mut().flatten() {
            match &mut slot.occupant {
                Occupant::Human { grace_until, .. } => *grace_until = None,
                Occupant::Bot { stop, .. } => stop.store(true, Ordering::Relaxed),
            }
        }
        let m = &self.ctx.metrics;
        inc(match result {
            GameResult::Poisoned { .. } => &m.games_poisoned,
            GameResult::Tie => &m.games_tie,
            GameResult::Timeout { .. } => &m.games_timeout,
            GameResult::Abandoned { .. } => &m.games_abandoned,
        });
        let names = self
            .seats
            .iter()
            .map(|s| s.as_ref().map_or_else(String::new, |s| s.name.clone()))
            .collect();
        let mut record = Record::from_game(&self.game, names, self.config_json.move_time_ms);
        record.id = Some(self.id.clone());
        record.started_ms = self.started_ms;
        record.finished_ms = Some(now_ms());
        tracing::info!(room = %self.id, result = ?result, moves = self.game.moves().len(), "game finished");
        self.record = Some(record);
        self.publish();
    }

    fn arm_turn_timer(&mut self) {
        self.turn_deadline = self.config_json.move_time_ms.map(|ms| after(millis(ms)));
    }

    /// Starts the bot to move thinking, if a bot is to move and not already thinking.
    fn maybe_bot(&mut self) {
        if self.status != RoomStatus::Playing {
            return;
        }
        let Some(seat) = self.game.to_move() else {
            return;
        };
        let Some(SeatSlot {
            occupant: Occupant::Bot { player, stop },
            ..
        }) = &mut self.seats[usize::from(seat)]
        else {
            return;
        };
        let Some(player) = player.take() else {
            return;
        };
        // A bot with a time budget is stopped with a fifth of its turn left.
        let stop_at = self
            .turn_deadline
            .zip(self.config_json.move_time_ms)
            .map(|(d, ms)| d - millis(ms / 5));
        let turn = bots::Turn {
            seat,
            ply: self.game.moves().len(),
            config: self.config,
            position: *self.game.position(),
            stop_at,
        };
        bots::think(
            self.ctx.bot_slots.clone(),
            self.me.clone(),
            turn,
            stop.clone(),
            player,
        );
    }

    // ---- seats and versions ---------------------------------------------------------------

    /// After a join, a bot or a return: a new version, the game started if every seat is
    /// taken, and a snapshot to everyone.
    fn seats_changed(&mut self) {
        if self.status == RoomStatus::Waiting && self.seats.iter().all(Option::is_some) {
            self.status = RoomStatus::Playing;
            self.started_ms = Some(now_ms());
            self.arm_turn_timer();
            tracing::info!(room = %self.id, "game started");
        }
        self.changed();
        self.maybe_bot();
    }

    /// A new version, published and sent to everyone as a snapshot.
    fn changed(&mut self) {
        self.version += 1;
        self.publish();
        self.broadcast(&ServerMessage::Room(self.snapshot()));
    }

    fn free_seat(&mut self, i: usize) {
        if let Some(slot) = self.seats[i].take()
            && let Some(token) = slot.token
        {
            self.ctx.lobby.remove_token(&token);
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
    fn detach(&mut self, i: usize) {
        if let Some(SeatSlot {
            occupant: Occupant::Human { peer, .. },
            ..
        }) = &mut self.seats[i]
        {
            *peer = None;
        }
    }

    fn seat_of(&self, conn: ConnId) -> Option<Seat> {
        self.seats
            .iter()
            .position(|s| {
                s.as_ref()
                    .and_then(SeatSlot::peer)
                    .is_some_and(|p| p.id == conn)
            })
            .map(|i| i as Seat)
    }

    fn free_seat_index(&self) -> Option<usize> {
        if self.status != RoomStatus::Waiting {
            return None;
        }
        self.seats.iter().position(Option::is_none)
    }

    fn full(&self) -> Refusal {
        let message = match self.status {
            RoomStatus::Waiting => format!("room {} is full ({} seats)", self.id, self.seats.len()),
            _ => format!("room {} has started; every seat is taken", self.id),
        };
        Refusal::new(ErrorCode::RoomFull, message)
    }

    // ---- messages -------------------------------------------------------------------------

    fn joined(&self, seat: usize, token: &str) -> ServerMessage {
        ServerMessage::Joined {
            room: self.id.clone(),
            seat: seat as Seat,
            token: token.to_string(),
        }
    }

    fn reject(&self, peer: &Peer, reason: RejectReason, message: String) {
        inc(&self.ctx.metrics.moves_rejected);
        peer.send_msg(&ServerMessage::MoveRejected { reason, message });
    }

    fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.id.clone(),
            config: self.config_json.clone(),
            seats: self.seat_infos(),
            status: self.status,
        }
    }

    fn seat_infos(&self) -> Vec<Option<SeatInfo>> {
        self.seats
            .iter()
            .map(|s| s.as_ref().map(SeatSlot::info))
            .collect()
    }

    fn publish(&self) {
        self.ctx.lobby.publish(self.summary());
    }

    /// The full state of the room.
    fn snapshot(&self) -> Snapshot {
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
        }
    }

    /// Sends one message, serialised once, to every seat and spectator.
    fn broadcast(&self, msg: &ServerMessage) {
        let text = encode(msg);
        for peer in self.seats.iter().flatten().filter_map(SeatSlot::peer) {
            peer.send(&text);
        }
        for peer in &self.spectators {
            peer.send(&text);
        }
    }
}

fn bad_token() -> Refusal {
    Refusal::new(ErrorCode::BadToken, "the token matches no seat")
}
