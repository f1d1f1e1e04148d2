//! JChomp's shared language: the JSON shapes ([`json`]) shared by game records ([`record`]) and
//! the wire messages ([`wire`]) that the server, the bots and the clients all speak; with the
//! `client` feature, the client side of a connection (`connection`); with the `cli` feature, the
//! board flags every command-line tool takes (`board_args`).
//!
//! The rules themselves are the crate `jchomp-rules`, re-exported here as [`rules`] because every
//! message and record is made of them.

#[cfg(feature = "cli")]
pub mod board_args;
#[cfg(feature = "client")]
pub mod connection;
pub mod json;
pub mod record;
#[cfg(feature = "cli")]
pub mod server_url;
pub use jchomp_rules as rules;
pub mod tournament;
pub mod wire;
