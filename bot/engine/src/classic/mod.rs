//! Classic Chomp, exactly: positions as row lengths ([`Shape`]), their ranks inside a box
//! ([`Ranker`]), and the database of every position's value and plies to the end
//! ([`build`], kept and looked up as a [`ClassicDb`]).
//!
//! The database is held against the test kit's solver of classic Chomp by its definition
//! (`jchomp_testkit::classic`) in `bot/engine/tests/classic_db.rs`.

mod build;
mod db;
mod library;
mod oracle;
mod rank;
mod shape;

pub use build::{Progress, build};
pub use db::{ClassicDb, DbError, MoveValue, Solved, Value};
pub use library::{Availability, ClassicLibrary, FILE_NAME};
pub(crate) use oracle::PerfectPlayer;
pub use oracle::{answers_for, moves_in, shape_of};
pub use rank::Ranker;
pub use shape::{MAX_SIDE, Shape, ShapeError};
