//! Fixtures for the protocol's messages and records, each one builder call with the defaults most
//! tests use: `seat("ann").bot()`, `moved("r1", 5, 0, (3, 4))`,
//! `record("4x4 poison 0,0").id("g1").play(&[(3, 3), (0, 0)])`, `record.summary()`,
//! `game_summary("g9", "4x4 poison 0,0").moves(7)`, `room_summary("r1", "6x7 eat 1x2 poison 0,0")`
//! and `snapshot("r1", "4x5 poison 0,0").play(&[(3, 3)])`.
//!
//! Each constructor returns the protocol's own type; the traits here add the methods that change
//! it, so `use jchomp_testkit::fixtures::*;` brings both. Moves are played through the rules, so
//! the seats, eaten cells and results they lead to are the rules' own.

mod moved;
mod records;
mod rooms;
mod seats;

pub use moved::{MovedFixture, moved};
pub use records::{RecordFixture, SummaryFixture, game_summary, record};
pub use rooms::{RoomFixture, SnapshotFixture, room_summary, snapshot};
pub use seats::{SeatFixture, seat};

use jchomp_protocol::json::{ConfigJson, MoveJson};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{GameSummary, RoomSummary, SeatInfo, Snapshot};
use jchomp_rules::Game;

/// The names of the seats of a record or a game summary until a test names them: `ann` and
/// `bob`, then `cy` and `dee` for a third and a fourth player.
const NAMES: [&str; 4] = ["ann", "bob", "cy", "dee"];

/// What every fixture with a configuration and seats can be given: a move timer and its seats.
pub trait Fixture: Sized {
    /// One seat: a name in a record or a summary, a seat or `None` (free) in a room.
    type Seat;

    /// The configuration, to change.
    fn config_mut(&mut self) -> &mut ConfigJson;

    /// The seats, to change.
    fn seats_mut(&mut self) -> &mut Vec<Self::Seat>;

    /// The same with a move timer of `move_time_ms` for each seat.
    fn timed(mut self, move_time_ms: u64) -> Self {
        self.config_mut().move_time_ms = Some(move_time_ms);
        self
    }

    /// The same with these seats, seat 0 first: `.seats(["a", "b"])` in a record,
    /// `.seats([Some(seat("ann")), None])` in a room.
    fn seats<S: Into<Self::Seat>>(mut self, seats: impl IntoIterator<Item = S>) -> Self {
        *self.seats_mut() = seats.into_iter().map(Into::into).collect();
        self
    }
}

/// [`Fixture`] for a type with a `config` and `seats` field, its seats of type `$seat`.
macro_rules! fixture {
    ($type:ty, $seat:ty) => {
        impl Fixture for $type {
            type Seat = $seat;

            fn config_mut(&mut self) -> &mut ConfigJson {
                &mut self.config
            }

            fn seats_mut(&mut self) -> &mut Vec<$seat> {
                &mut self.seats
            }
        }
    };
}

fixture!(Record, String);
fixture!(GameSummary, String);
fixture!(RoomSummary, Option<SeatInfo>);
fixture!(Snapshot, Option<SeatInfo>);

/// The default seat names for `config`'s players.
fn names(config: &ConfigJson) -> Vec<String> {
    NAMES
        .iter()
        .take(config.players as usize)
        .map(|name| name.to_string())
        .collect()
}

/// The game of `config` after `moves` and then `cells`, played in turn through the rules; panics
/// on a configuration or a selection the rules refuse.
fn game_after(config: &ConfigJson, moves: &[MoveJson], cells: &[(u8, u8)]) -> Game {
    let config = config
        .validate()
        .unwrap_or_else(|e| panic!("{config:?} is not a valid board: {e}"));
    let mut game = Game::new(config);
    let played = moves.iter().map(|m| (m.row, m.col));
    for (row, col) in played.chain(cells.iter().map(|&(r, c)| (r.into(), c.into()))) {
        game.select(row, col)
            .unwrap_or_else(|e| panic!("{row},{col} refused: {e}"));
    }
    game
}

/// The moves of a game as JSON.
fn moves_of(game: &Game) -> Vec<MoveJson> {
    game.moves().iter().map(|&m| m.into()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jchomp_protocol::json::ResultJson;
    use jchomp_protocol::wire::RoomStatus;

    #[test]
    fn played_fixtures_agree_with_the_rules_and_with_each_other() {
        let cells = [(3, 3), (0, 0)];
        let record = record("4x4 poison 0,0").play(&cells[..1]).play(&cells[1..]);
        let game = record.replay().unwrap();
        assert_eq!(game.moves().len(), 2);
        assert_eq!(record.result, Some(ResultJson::Poisoned { loser: 1 }));
        assert_eq!(record.summary().moves, 2);
        let over = snapshot("r1", "4x4 poison 0,0").play(&cells);
        assert_eq!(over.moves, record.moves);
        assert_eq!(over.result, record.result);
        assert_eq!((over.status, over.to_move), (RoomStatus::Finished, None));
        let once = snapshot("r1", "4x4 eat 1x2 poison 0,0").play(&[(3, 2)]);
        assert_eq!(once.eaten, [[3, 2], [3, 3]]);
        assert_eq!((once.status, once.to_move), (RoomStatus::Playing, Some(1)));
        let last = moved("r1", 3, 1, (0, 0)).poisoned();
        assert_eq!(last.result, record.result);
    }
}
