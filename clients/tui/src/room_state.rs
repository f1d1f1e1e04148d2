//! [`RoomState`]: the client's copy of a room, built from `room` snapshots and kept up to date
//! by `moved` events through the shared rules.

use jchomp_protocol::json::{ConfigJson, MoveJson, ResultJson};
use jchomp_protocol::record::{Record, ReplayError};
use jchomp_protocol::rules::{Bits, Cell, Config, ConfigError, Game, GameResult, Position};
use jchomp_protocol::wire::{Moved, RoomStatus, SeatInfo, Snapshot};

/// The client's copy of a room.
#[derive(Clone, Debug)]
pub struct RoomState {
    /// The room id.
    pub room: String,
    /// The configuration as the server sent it (with `move_time_ms`).
    pub config_json: ConfigJson,
    /// The validated configuration.
    pub config: Config,
    /// The game as replayed locally.
    pub game: Game,
    /// The seats; `None` for a free one.
    pub seats: Vec<Option<SeatInfo>>,
    /// Waiting, playing or finished.
    pub status: RoomStatus,
    /// The seat to move, as the server says.
    pub to_move: Option<u8>,
    /// How the game ended.
    pub result: Option<ResultJson>,
    /// The room version last applied.
    pub version: u64,
    /// Once the game is over, the seats that have asked for a rematch.
    pub rematch: Vec<u8>,
    /// The id the room's current game is stored under (the server's word; an older server's
    /// snapshot leaves it empty).
    pub game_id: String,
    /// The eaten cells when the moves could not be replayed (the server's word wins).
    eaten_override: Option<Bits>,
}

/// What applying a `moved` event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The move was applied.
    Ok,
    /// The event was older than the state; nothing changed.
    Stale,
    /// A version was skipped or the move does not fit: ask the server for a `sync`.
    NeedSync,
}

/// Why a snapshot could not be used.
#[derive(Debug, thiserror::Error)]
#[error("the server sent a room with an invalid configuration: {0}")]
pub struct BadSnapshot(#[from] ConfigError);

impl RoomState {
    /// Builds the state from a full snapshot.
    pub fn from_snapshot(s: Snapshot) -> Result<RoomState, BadSnapshot> {
        let config = s.config.validate()?;
        let mut game = Game::new(config);
        let mut replayed = true;
        for m in &s.moves {
            if game.select(m.row, m.col).is_err() {
                replayed = false;
                break;
            }
        }
        let mut eaten = Bits::EMPTY;
        for [r, c] in &s.eaten {
            if *r < config.rows() && *c < config.cols() {
                eaten |= Bits::single(Bits::index(*r, *c));
            }
        }
        let eaten_override =
            (!replayed || eaten != game.position().eaten(&config)).then_some(eaten);
        let mut state = RoomState {
            room: s.room,
            config_json: s.config,
            config,
            game,
            seats: s.seats,
            status: s.status,
            to_move: s.to_move,
            result: s.result,
            version: s.version,
            rematch: s.rematch,
            game_id: s.game,
            eaten_override,
        };
        state.end_if_decided();
        Ok(state)
    }

    fn end_if_decided(&mut self) {
        if let Some(r) = self.result {
            self.game.end(GameResult::from(r));
        }
    }

    /// Applies an accepted move.
    pub fn apply_moved(&mut self, m: &Moved) -> Applied {
        if m.room != self.room || m.version <= self.version {
            return Applied::Stale;
        }
        if m.version != self.version + 1 || self.eaten_override.is_some() {
            return Applied::NeedSync;
        }
        if self.game.select(m.row, m.col).is_err() {
            return Applied::NeedSync;
        }
        self.version = m.version;
        self.to_move = m.to_move;
        self.status = m.status;
        self.result = m.result;
        self.end_if_decided();
        Applied::Ok
    }

    /// The current position for rendering and local checks. While the room is not playing,
    /// no selection is valid.
    pub fn position(&self) -> Position {
        let mut pos = match self.eaten_override {
            None => *self.game.position(),
            Some(eaten) => Position::from_uneaten(
                &self.config,
                self.config.board().without(eaten),
                self.to_move.unwrap_or(0),
            ),
        };
        if self.status != RoomStatus::Playing {
            pos.end(GameResult::Tie);
        }
        pos
    }

    /// The eaten cells.
    pub fn eaten(&self) -> Bits {
        match self.eaten_override {
            Some(e) => e,
            None => self.game.position().eaten(&self.config),
        }
    }

    /// The last accepted move as `(seat, anchor)`.
    pub fn last_move(&self) -> Option<(u8, Cell)> {
        self.game.moves().last().map(|m| (m.seat, m.cell))
    }

    /// The moves played, as JSON.
    pub fn moves(&self) -> Vec<MoveJson> {
        self.game.moves().iter().map(|&m| m.into()).collect()
    }

    /// The position of a stored game after its first `step` moves (all of them, with the
    /// recorded result, when `step` reaches the end), for stepping through a replay.
    pub fn from_record(record: &Record, step: usize) -> Result<RoomState, ReplayError> {
        let full = record.replay()?;
        let config = *full.config();
        let step = step.min(record.moves.len());
        let mut game = Game::new(config);
        for m in &record.moves[..step] {
            // The whole record replayed, so every prefix does too.
            let _ = game.select(m.row, m.col);
        }
        if step == record.moves.len() {
            game = full;
        }
        let seats = crate::explain::named_seats(&record.seats);
        let result = game.result().map(ResultJson::from);
        Ok(RoomState {
            room: record.id.clone().unwrap_or_else(|| "replay".to_owned()),
            config_json: record.config.clone(),
            config,
            seats,
            status: if result.is_some() {
                RoomStatus::Finished
            } else {
                RoomStatus::Playing
            },
            to_move: game.to_move(),
            result,
            version: step as u64,
            rematch: Vec::new(),
            game_id: record.id.clone().unwrap_or_default(),
            game,
            eaten_override: None,
        })
    }

    /// The move timer, if the room has one.
    pub fn move_time_ms(&self) -> Option<u64> {
        self.config_json.move_time_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_testkit::fixtures::{Fixture, RecordFixture, SnapshotFixture, record};

    /// Room r1 at version 4, after seat 0 ate 3,3 and 3,4.
    fn snapshot() -> Snapshot {
        jchomp_testkit::fixtures::snapshot("r1", "4x5 eat 1x2 poison 0,0")
            .play(&[(3, 3)])
            .version(4)
    }

    /// Seat 1 of room r1 selected (`row`, `col`), making it version `version`.
    fn moved(version: u64, row: i64, col: i64) -> Moved {
        jchomp_testkit::fixtures::moved("r1", version, 1, (row, col))
    }

    #[test]
    fn snapshot_replays_moves_and_moved_extends_them() {
        let mut s = RoomState::from_snapshot(snapshot()).unwrap();
        assert_eq!(s.last_move(), Some((0, Cell::new(3, 3))));
        assert_eq!(s.eaten().count(), 2);
        assert_eq!(s.apply_moved(&moved(5, 0, 3)), Applied::Ok);
        assert_eq!(s.eaten().count(), 4);
        assert_eq!(s.to_move, Some(0));
        assert_eq!(s.last_move(), Some((1, Cell::new(0, 3))));
        assert_eq!(s.apply_moved(&moved(5, 1, 3)), Applied::Stale);
    }

    #[test]
    fn a_gap_or_an_impossible_move_asks_for_sync() {
        let mut s = RoomState::from_snapshot(snapshot()).unwrap();
        assert_eq!(s.apply_moved(&moved(6, 0, 3)), Applied::NeedSync);
        assert_eq!(s.apply_moved(&moved(5, 3, 3)), Applied::NeedSync);
        assert_eq!(s.version, 4);
    }

    #[test]
    fn unreplayable_moves_fall_back_to_the_eaten_cells() {
        let mut snap = snapshot();
        snap.moves.clear();
        let s = RoomState::from_snapshot(snap).unwrap();
        assert_eq!(s.eaten().count(), 2);
        assert!(s.position().check(&s.config, 3, 3).is_err());
        assert!(s.position().check(&s.config, 2, 3).is_ok());
    }

    #[test]
    fn a_record_steps_from_start_to_result() {
        let record = record("4x5 eat 1x2 poison 0,0")
            .seats(["a", "b"])
            .play(&[(3, 3), (0, 0)]);
        let start = RoomState::from_record(&record, 0).unwrap();
        assert_eq!(start.eaten().count(), 0);
        assert_eq!(start.to_move, Some(0));
        let one = RoomState::from_record(&record, 1).unwrap();
        assert_eq!(one.last_move(), Some((0, Cell::new(3, 3))));
        assert_eq!(one.status, RoomStatus::Playing);
        let end = RoomState::from_record(&record, 9).unwrap();
        assert_eq!(end.status, RoomStatus::Finished);
        assert_eq!(end.result, Some(ResultJson::Poisoned { loser: 1 }));
        let mut bad = record.clone();
        bad.moves[1].row = 3;
        assert!(RoomState::from_record(&bad, 0).is_err());
    }

    #[test]
    fn a_finished_room_has_no_valid_selection() {
        let mut snap = snapshot();
        snap.status = RoomStatus::Finished;
        snap.to_move = None;
        snap.result = Some(ResultJson::Timeout { loser: 1 });
        let s = RoomState::from_snapshot(snap).unwrap();
        assert!(s.position().selections().is_empty());
        assert_eq!(s.game.result(), Some(GameResult::Timeout { loser: 1 }));
    }
}
