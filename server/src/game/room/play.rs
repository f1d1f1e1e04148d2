//! The game inside a room: bot turns, accepted moves (each made durable before it is
//! announced), the end of a game and its record, and the turn timer.

use super::bots;
use super::state::{Occupant, Room, SeatSlot};
use super::{BotOutcome, millis};
use crate::clock::after;
use crate::clock::now_ms;
use crate::store::live::{LiveMove, Write};
use jchomp_engine::Player;
use jchomp_protocol::json::ResultJson;
use jchomp_protocol::record::Record;
use jchomp_protocol::rules::{Game, GameResult, Seat};
use jchomp_protocol::wire::{Moved, RoomStatus, ServerMessage, game_id};
use std::sync::atomic::Ordering;
use tokio::time::Instant;

impl Room {
    /// Plays a bot's answer if it is still the bot's turn (a failed bot plays randomly).
    pub(super) fn bot_moved(
        &mut self,
        seat: Seat,
        (game, ply): (u32, usize),
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
            && self.games_played == game
            && self.game.moves().len() == ply
            && self.game.to_move() == Some(seat);
        if !current {
            // The game moved on (a timeout, an abandonment, a rematch) while the bot thought.
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
    /// The move (or the record of the game it ends) is made durable first: the `moved`, and
    /// the snapshot that ends a game, are held until it is (see `settle`).
    pub(super) fn after_move(&mut self, seat: Seat, row: i64, col: i64) {
        self.ctx.metrics.moves.inc();
        self.version += 1;
        let result = self.game.result();
        if result.is_none() {
            let ply = self.game.moves().len().saturating_sub(1);
            self.pending.push(Write::Move {
                room: self.id.clone(),
                ply: u32::try_from(ply).unwrap_or(u32::MAX),
                mv: LiveMove {
                    row: u8::try_from(row).unwrap_or(u8::MAX),
                    col: u8::try_from(col).unwrap_or(u8::MAX),
                    version: self.version,
                },
            });
        }
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
        match result {
            Some(r) => {
                self.finish(r);
                self.broadcast(&moved);
                let snapshot = ServerMessage::Room(self.snapshot());
                self.broadcast(&snapshot);
            }
            None => {
                self.broadcast(&moved);
                self.arm_turn_timer();
                self.maybe_bot();
            }
        }
    }

    /// Ends the game with a result decided outside the rules; everyone is told once its
    /// record is stored.
    pub(super) fn end_game(&mut self, result: GameResult) {
        self.game.end(result);
        self.version += 1;
        self.finish(result);
        let snapshot = ServerMessage::Room(self.snapshot());
        self.broadcast(&snapshot);
    }

    /// Marks the game finished, counts it and prepares its record.
    pub(super) fn finish(&mut self, result: GameResult) {
        self.status = RoomStatus::Finished;
        self.turn_deadline = None;
        self.close_at = Some(after(self.ctx.settings.finished_linger));
        for slot in self.seats.iter_mut().flatten() {
            match &mut slot.occupant {
                Occupant::Human { grace_until, .. } => *grace_until = None,
                Occupant::Bot { stop, .. } => stop.store(true, Ordering::Relaxed),
            }
        }
        self.ctx.metrics.game_finished(&result);
        let names = self
            .seats
            .iter()
            .map(|s| s.as_ref().map_or_else(String::new, |s| s.name.clone()))
            .collect();
        let mut record = Record::from_game(&self.game, names, self.config_json.move_time_ms);
        record.config.analysis = self.config_json.analysis;
        record.config.rated = self.config_json.rated;
        record.bots = (0..self.seats.len())
            .filter(|&i| self.seats[i].as_ref().is_some_and(|s| s.is_bot()))
            .map(|i| i as u8)
            .collect();
        self.games_played += 1;
        record.id = Some(game_id(&self.id, self.games_played));
        record.started_ms = self.started_ms;
        record.finished_ms = Some(now_ms());
        tracing::info!(room = %self.id, result = ?result, moves = self.game.moves().len(), "game finished");
        self.pending.push(Write::Finished {
            room: self.id.clone(),
            record: Box::new(record),
        });
        self.publish();
    }

    /// Starts a new game in a finished room, with the same configuration and seats.
    pub(super) fn new_game(&mut self) {
        self.game = Game::new(self.config);
        self.status = RoomStatus::Playing;
        self.started_ms = Some(now_ms());
        self.close_at = None;
        self.rematch.iter_mut().for_each(|r| *r = false);
        self.arm_turn_timer();
        let state = self.live_state(Instant::now());
        self.pending.push(Write::Live(Box::new(state)));
        tracing::info!(room = %self.id, game = self.games_played + 1, "rematch started");
        self.changed();
        self.maybe_bot();
    }

    /// Starts the turn timer of the seat to move, if the room has one.
    pub(super) fn arm_turn_timer(&mut self) {
        self.turn_deadline = self.config_json.move_time_ms.map(|ms| after(millis(ms)));
    }

    /// Starts the bot to move thinking, if a bot is to move and not already thinking.
    pub(super) fn maybe_bot(&mut self) {
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
        // A bot is stopped with a fifth of its turn left, and after the server's cap at most.
        let capped = after(self.ctx.settings.bot_think_cap);
        let stop_at = self
            .turn_deadline
            .zip(self.config_json.move_time_ms)
            .map_or(capped, |(d, ms)| capped.min(d - millis(ms / 5)));
        let turn = bots::Turn {
            seat,
            game: self.games_played,
            ply: self.game.moves().len(),
            config: self.config,
            position: *self.game.position(),
            stop_at: Some(stop_at),
        };
        bots::think(
            self.ctx.bot_slots.clone(),
            self.me.clone(),
            turn,
            stop.clone(),
            player,
        );
    }
}
