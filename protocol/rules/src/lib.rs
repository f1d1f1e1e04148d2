//! The JChomp rules, pure: no I/O, no serialisation, no runtime. Everything else builds on them.
//!
//! A [`Setup`] (unvalidated, any numbers) becomes a [`Config`] only through [`Config::new`]; a
//! configuration plays JChomp (rectangles of an eat size), classic Chomp (a cell and
//! everything below and right of it) or edge breaks (a rectangle broken off a side), its
//! [`Variant`], with [`Options`]: misère or normal [`Play`] and the ban on square bites.
//! A [`Position`] is `Copy`: the uneaten cells as a 256-bit [`Bits`] board, the valid
//! selections (computed bit-parallel on every move) and the [`Status`]. A board is also written
//! on one line (`"6x7 eat 1x2 poison 0,0"`, `"6x7 variant classic poison 0,0"`): see
//! [`notation`].

mod bite;
mod bits;
mod config;
mod game;
pub mod notation;
mod options;
mod perft;
mod position;

pub use bits::{Bits, BitsIter};
pub use config::{
    BOARD_SIZE, CLASSIC_BOARD_SIZE, CLASSIC_MIN_CELLS, Cell, Config, ConfigError, EAT_SIZE, Field,
    MAX_POISON, PLAYERS, Seat, Setup, Variant,
};
pub use game::{Game, Move};
pub use notation::NotationError;
pub use options::{Options, Play};
pub use perft::{divide, perft};
pub use position::{GameResult, Position, Rejection, Status, anchors};
