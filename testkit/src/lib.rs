//! JChomp's test kit, used only by tests, benchmarks and fuzz targets: boards from one line of
//! notation ([`board`], [`config_json`], [`timed_config_json`]), the protocol's messages and
//! records on them, each one builder call ([`fixtures`]), the one brute-force model of the rules
//! ([`model`]) and the exact solver played on it ([`brute`]), what each seat can force with any
//! number of seats ([`paranoid`]), classic Chomp solved by its definition ([`classic`]), the
//! example games of the descriptions of classic Chomp ([`seeds`]), the checks the fuzz targets run ([`checks`]), temporary directories ([`temp`]), programs from the
//! OS packages installed when missing ([`system`]), Python environments with PyPI packages made
//! when missing ([`venv`]), with the `engines` feature real database servers started from them
//! ([`engines`]), with the `netns` feature network namespaces a test owns, to cut a server's
//! network silently ([`netns`]), signals to pause or kill a child ([`signals`]) and, with the
//! `server` feature, the real server started in-process on `127.0.0.1:0` with a small test
//! client ([`server`]).
//!
//! Code here may panic on anything unexpected: a panic is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod brute;
pub mod checks;
pub mod classic;
#[cfg(feature = "engines")]
pub mod engines;
pub mod fixtures;
pub mod model;
#[cfg(feature = "netns")]
pub mod netns;
pub mod paranoid;
pub mod seeds;
#[cfg(feature = "server")]
pub mod server;
pub mod side_by_side;
pub mod signals;
pub mod system;
pub mod temp;
pub mod venv;

use jchomp_protocol::json::ConfigJson;
use jchomp_rules::{Config, Setup};

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
