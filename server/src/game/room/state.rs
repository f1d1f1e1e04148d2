//! [`Room`]: one room's state (seats, spectators, game, timers, version), its event dispatch,
//! timers and lifecycle. Only the room task touches it; sending to peers never waits. The
//! handlers live in `requests.rs`, `play.rs`, `seats.rs` and `view.rs`.

use super::{Refusal, RoomContext, RoomEvent};
use crate::game::outbox::{Peer, encode};
use crate::game::token::new_token;
use crate::game::token::token_hash;
use crate::store::live::Write;
use jchomp_engine::Player;
use jchomp_engine::classic::ClassicLibrary;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::{Config, Game, GameResult, Seat};
use jchomp_protocol::wire::ErrorCode;
use jchomp_protocol::wire::{RoomStatus, RoomSummary, SeatInfo, ServerMessage};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// Who sits in a seat.
pub(super) enum Occupant {
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
pub(super) struct SeatSlot {
    pub(super) name: String,
    /// The SHA-256 of the secret for `resume` ([`token_hash`]; bots have none).
    pub(super) token_hash: Option<String>,
    pub(super) occupant: Occupant,
    /// A bot account sits here: the seat is shown as a bot, as server bots are.
    pub(super) account_bot: bool,
}

impl SeatSlot {
    /// A person's seat, held by `peer`, whose token hashes to `token_hash`.
    pub(super) fn person(peer: Peer, name: String, token_hash: String) -> SeatSlot {
        SeatSlot {
            name,
            token_hash: Some(token_hash),
            account_bot: peer.is_bot_account(),
            occupant: Occupant::Human {
                peer: Some(peer),
                grace_until: None,
            },
        }
    }

    /// A person's seat taken with a token (hashing to `token_hash`) by nobody yet: held until
    /// `until` as a dropped seat is.
    pub(super) fn reserved(
        name: String,
        token_hash: String,
        account_bot: bool,
        until: Instant,
    ) -> SeatSlot {
        SeatSlot {
            name,
            token_hash: Some(token_hash),
            account_bot,
            occupant: Occupant::Human {
                peer: None,
                grace_until: Some(until),
            },
        }
    }

    /// A seat for the server bot `spec` names (its canonical spec is the seat's name), or why
    /// the spec is refused.
    pub(super) fn bot(
        spec: &str,
        config: &Config,
        classic: &Arc<ClassicLibrary>,
    ) -> Result<SeatSlot, Refusal> {
        let stop = Arc::new(AtomicBool::new(false));
        let (name, player) = super::bots::build(spec, stop.clone(), config, classic)
            .map_err(|e| Refusal::new(ErrorCode::BadRequest, e.to_string()))?;
        Ok(SeatSlot {
            name,
            token_hash: None,
            account_bot: false,
            occupant: Occupant::Bot {
                player: Some(player),
                stop,
            },
        })
    }

    pub(super) fn peer(&self) -> Option<&Peer> {
        match &self.occupant {
            Occupant::Human { peer, .. } => peer.as_ref(),
            Occupant::Bot { .. } => None,
        }
    }

    /// Whether a bot sits here: a server bot, or a bot account.
    pub(super) fn is_bot(&self) -> bool {
        self.account_bot || matches!(self.occupant, Occupant::Bot { .. })
    }

    /// The seat as clients see it at `now`.
    pub(super) fn info(&self, now: Instant) -> SeatInfo {
        let (connected, grace_until) = match &self.occupant {
            Occupant::Human { peer, grace_until } => (peer.is_some(), *grace_until),
            Occupant::Bot { .. } => (true, None),
        };
        SeatInfo {
            name: self.name.clone(),
            bot: self.is_bot(),
            connected,
            grace_left_ms: grace_until.map(|t| millis_until(t, now)),
        }
    }
}

/// Whole milliseconds from `now` until `t` (0 once past).
pub(super) fn millis_until(t: Instant, now: Instant) -> u64 {
    u64::try_from(t.saturating_duration_since(now).as_millis()).unwrap_or(u64::MAX)
}

/// One room's state, owned by its task.
pub(crate) struct Room {
    pub(super) id: String,
    pub(super) ctx: RoomContext,
    pub(super) me: mpsc::Sender<RoomEvent>,
    pub(super) config: Config,
    pub(super) config_json: ConfigJson,
    pub(super) seats: Vec<Option<SeatSlot>>,
    pub(super) spectators: Vec<Peer>,
    /// The seat whose connection may add bots.
    pub(super) host: Option<usize>,
    pub(super) game: Game,
    pub(super) status: RoomStatus,
    pub(super) version: u64,
    pub(super) turn_deadline: Option<Instant>,
    pub(super) close_at: Option<Instant>,
    pub(super) started_ms: Option<u64>,
    /// Changes to the game (its start, a move, its record) not yet durable: `settle` commits
    /// them after the event that made them.
    pub(super) pending: Vec<Write>,
    /// Broadcasts made while `pending` is not empty, held back until it is durable (so that a
    /// move or an end a player has seen survives a crash).
    pub(super) held: Vec<Utf8Bytes>,
    /// The tokens of the seats taken when the room was made (its creator's, or every person's
    /// of a paired room), until each is greeted with its own.
    pub(super) greetings: Vec<(usize, String)>,
    /// Set when nobody is left to play or watch.
    pub(super) empty: bool,
    /// Set when the room stops on this node because it is not this node's to run any more (in
    /// a cluster: another node owns it, or this node's lease lapsed): it closes without a
    /// tombstone in the directory, which is not this node's to lay.
    pub(super) given_up: bool,
    /// Games finished in this room (the first game's record has the room's id, the n-th
    /// rematch's `ID-n+1`).
    pub(super) games_played: u32,
    /// Once the game is over: which seats have asked for a rematch.
    pub(super) rematch: Vec<bool>,
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
        ctx: RoomContext,
        me: mpsc::Sender<RoomEvent>,
        config: Config,
        config_json: ConfigJson,
        creator: Peer,
        name: String,
    ) -> Room {
        let mut seats: Vec<Option<SeatSlot>> = (0..config.players()).map(|_| None).collect();
        let token = new_token();
        let hash = token_hash(&token);
        ctx.lobby.add_token(&hash, &id);
        seats[0] = Some(SeatSlot::person(creator, name, hash));
        let mut room = Room::blank(id, ctx, me, config, config_json, seats);
        room.host = Some(0);
        room.greetings = vec![(0, token)];
        room
    }

    /// A room whose every seat is a server bot (`seats`), watched by `watcher`; its game starts
    /// when the room does. Nobody is its host.
    pub(crate) fn exhibition(
        id: String,
        ctx: RoomContext,
        me: mpsc::Sender<RoomEvent>,
        config: Config,
        config_json: ConfigJson,
        seats: Vec<SeatSlot>,
        watcher: Peer,
    ) -> Room {
        let seats = seats.into_iter().map(Some).collect();
        let mut room = Room::blank(id, ctx, me, config, config_json, seats);
        room.spectators.push(watcher);
        room
    }

    /// A room made full from the start by quick pairing: `seats` in order, `greetings` the
    /// tokens of the people among them (each is greeted with its own when the room starts).
    /// Nobody is its host.
    pub(super) fn paired(
        id: String,
        ctx: RoomContext,
        me: mpsc::Sender<RoomEvent>,
        config: Config,
        config_json: ConfigJson,
        seats: Vec<SeatSlot>,
        greetings: Vec<(usize, String)>,
    ) -> Room {
        let seats = seats.into_iter().map(Some).collect();
        let mut room = Room::blank(id, ctx, me, config, config_json, seats);
        room.greetings = greetings;
        room
    }

    /// A waiting room of `seats`, with no host, spectator or greeting yet.
    fn blank(
        id: String,
        ctx: RoomContext,
        me: mpsc::Sender<RoomEvent>,
        config: Config,
        config_json: ConfigJson,
        seats: Vec<Option<SeatSlot>>,
    ) -> Room {
        Room {
            id,
            ctx,
            me,
            game: Game::new(config),
            config,
            config_json,
            seats,
            spectators: Vec::new(),
            host: None,
            status: RoomStatus::Waiting,
            version: 1,
            turn_deadline: None,
            close_at: None,
            started_ms: None,
            pending: Vec::new(),
            held: Vec::new(),
            greetings: Vec::new(),
            empty: false,
            given_up: false,
            games_played: 0,
            rematch: vec![false; usize::from(config.players())],
        }
    }

    /// What the room sees of the server.
    pub(crate) fn ctx(&self) -> &RoomContext {
        &self.ctx
    }

    /// Publishes the room and greets a new room's creator (`joined`, then a snapshot); a room
    /// brought back from the database sets its bot to move thinking.
    pub(crate) fn start(&mut self) {
        self.publish();
        let full = self.seats.iter().all(Option::is_some);
        for (seat, token) in std::mem::take(&mut self.greetings) {
            tracing::info!(room = %self.id, players = self.config.players(), "room created");
            if let Some(peer) = self.seats[seat].as_ref().and_then(SeatSlot::peer) {
                peer.send_msg(&self.joined(seat, &token));
                // A room full from the start sends its snapshot as its game starts.
                if !full {
                    peer.send_msg(&ServerMessage::Room(self.snapshot()));
                }
            }
        }
        if self.status == RoomStatus::Waiting && full {
            // Every seat taken from the start: a paired game, or one between bots alone.
            tracing::info!(room = %self.id, players = self.config.players(), "room full from the start");
            self.seats_changed();
            return;
        }
        self.maybe_bot();
    }

    /// Handles one event.
    pub(crate) fn handle(&mut self, ev: RoomEvent) {
        match ev {
            RoomEvent::Join {
                peer,
                name,
                seat,
                reply,
            } => {
                let _ = reply.send(self.join(peer, name, seat));
            }
            RoomEvent::Spectate { peer, reply } => {
                let _ = reply.send(self.spectate(peer));
            }
            RoomEvent::Resume { peer, token, reply } => {
                let _ = reply.send(self.resume(peer, &token));
            }
            RoomEvent::Move { peer, row, col } => self.human_move(&peer, row, col),
            RoomEvent::AddBot { peer, spec, seat } => {
                if let Err(r) = self.add_bot(&peer, spec, seat) {
                    peer.send_msg(&ServerMessage::Error {
                        code: r.code,
                        message: r.message,
                    });
                }
            }
            RoomEvent::Rematch { peer } => {
                if let Err(r) = self.rematch(&peer) {
                    peer.send_msg(&ServerMessage::Error {
                        code: r.code,
                        message: r.message,
                    });
                }
            }
            RoomEvent::Sync { peer } => peer.send_msg(&ServerMessage::Room(self.snapshot())),
            RoomEvent::Analyze { index, reply } => {
                let _ = reply.send(self.analysis_subject(index));
            }
            RoomEvent::Leave {
                conn,
                keep_active_seat,
                reply,
            } => {
                let _ = reply.send(self.leave(conn, keep_active_seat));
            }
            RoomEvent::Disconnected { conn } => self.disconnected(conn),
            RoomEvent::Reattach { peer, seat } => self.reattach(peer, seat),
            // `settle`, right after, asks the store whether the room is lost.
            RoomEvent::Lost => {}
            RoomEvent::BotMoved {
                seat,
                game,
                ply,
                player,
                outcome,
            } => self.bot_moved(seat, (game, ply), player, outcome),
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
            // Graces run only while a game is in play (a waiting seat is freed at once).
            if self.status == RoomStatus::Playing {
                tracing::info!(room = %self.id, seat = i, "grace over; game abandoned");
                self.end_game(GameResult::Abandoned { loser: i as Seat });
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

    /// After an event or a timer: makes the game's changes durable (its start, a move, its
    /// record), then sends what was held back meanwhile, so that whatever a player has seen of
    /// a game survives a crash. Returns whether the room should close.
    pub(crate) async fn settle(&mut self) -> bool {
        let writes = std::mem::take(&mut self.pending);
        self.ctx.store.commit(writes).await;
        if self.ctx.store.lost(&self.id) {
            self.give_up();
            return true;
        }
        for text in std::mem::take(&mut self.held) {
            self.send_all(&text);
        }
        self.should_close()
    }

    /// Before the room closes for a shutdown: keeps a game in play, with the time its seat to
    /// move has left, so that the next server brings it back as it was.
    pub(crate) async fn keep_for_restart(&mut self) {
        if self.status == RoomStatus::Playing {
            let kept = self.live_state(Instant::now());
            self.ctx
                .store
                .commit(vec![Write::Live(Box::new(kept))])
                .await;
        }
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
            .filter_map(|s| s.token_hash.clone())
            .collect();
        if self.given_up || (self.ctx.shutting_down() && self.status == RoomStatus::Playing) {
            // Kept for the next start (or, in a cluster, for whichever node runs it next).
            self.ctx.lobby.forget(&self.id, &tokens);
        } else {
            self.ctx.lobby.remove(&self.id, &tokens);
        }
        for slot in self.seats.iter().flatten() {
            if let Occupant::Bot { stop, .. } = &slot.occupant {
                stop.store(true, Ordering::Relaxed);
            }
        }
        if !self.ctx.shutting_down() && !self.given_up {
            self.send_all(&encode(&ServerMessage::Left {
                room: self.id.clone(),
            }));
        }
        tracing::info!(room = %self.id, status = ?self.status, "room closed");
    }
}
