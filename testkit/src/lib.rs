//! JChomp's test kit, used only by tests, benchmarks and fuzz targets: boards from one line of
//! notation ([`board`], [`config_json`], [`timed_config_json`]) games on them ([`record`]) and their moves ([`moved`]), the one brute-force model of the rules ([`model`]) and
//! the exact solver played on it ([`brute`]), what each seat can force with any number of seats
//! ([`paranoid`]), classic Chomp solved by its definition
//! ([`classic`]), the example games of the descriptions of classic Chomp ([`seeds`]), the
//! checks the fuzz targets run ([`checks`]),
//! temporary directories ([`temp`]), programs from the OS packages installed when missing
//! ([`system`]), with the `engines` feature real database servers started from them
//! ([`engines`]) and, with the `server` feature, the real server started
//! in-process on `127.0.0.1:0` with a small test client ([`server`]).
//!
//! Code here may panic on anything unexpected: a panic is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod brute;
pub mod checks;
pub mod classic;
#[cfg(feature = "engines")]
pub mod engines;
pub mod model;
pub mod paranoid;
pub mod seeds;
#[cfg(feature = "server")]
pub mod server;
pub mod system;
pub mod temp;

use jchomp_protocol::json::{ConfigJson, MoveJson, ResultJson};
use jchomp_protocol::record::Record;
use jchomp_protocol::wire::{Moved, RoomStatus};
use jchomp_rules::{Config, Game, Setup};

/// The configuration a board notation names, e.g. `board("6x7 eat 1x2 poison 0,0")`; panics
/// on a board that does not parse or breaks a rule.
pub fn board(notation: &str) -> Config {
    notation
        .parse()
        .unwrap_or_else(|e| panic!("{notation:?} is not a valid board: {e}"))
}

/// The JSON configuration (no move timer) for a board notation, as a client would send it. The
/// numbers are not checked against the rules, so that a test can send a board the server must
/// refuse, e.g. `config_json("3x4")`; panics on a text that does not parse.
pub fn config_json(notation: &str) -> ConfigJson {
    let setup: Setup = notation
        .parse()
        .unwrap_or_else(|e| panic!("{notation:?} is not a board: {e}"));
    ConfigJson::from_setup(setup, None)
}

/// [`config_json`] with a move timer of `move_time_ms` for each seat.
pub fn timed_config_json(notation: &str, move_time_ms: u64) -> ConfigJson {
    ConfigJson {
        move_time_ms: Some(move_time_ms),
        ..config_json(notation)
    }
}

/// A stored game on a board notation, `seats` named in order, the selections `cells` played in
/// turn through the rules (so the moves' seats and the result are the rules' own); panics on a
/// selection the rules refuse.
pub fn record(notation: &str, seats: &[&str], cells: &[(u8, u8)]) -> Record {
    let mut game = Game::new(board(notation));
    let mut moves = Vec::with_capacity(cells.len());
    for &(row, col) in cells {
        let seat = game.to_move().expect("a move after the end of the game");
        game.select(row.into(), col.into())
            .unwrap_or_else(|e| panic!("{notation}: {row},{col} refused: {e}"));
        moves.push(MoveJson {
            seat: seat.into(),
            row: row.into(),
            col: col.into(),
        });
    }
    Record {
        id: None,
        config: config_json(notation),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        moves,
        result: game.result().map(ResultJson::from),
        started_ms: None,
        finished_ms: None,
    }
}

/// A `moved` of a game in play: `seat` selected `cell` in `room`, making it version `version`,
/// and `to_move` selects next.
pub fn moved(room: &str, version: u64, seat: u8, cell: (i64, i64), to_move: u8) -> Moved {
    Moved {
        room: room.into(),
        version,
        seat,
        row: cell.0,
        col: cell.1,
        to_move: Some(to_move),
        status: RoomStatus::Playing,
        result: None,
    }
}
