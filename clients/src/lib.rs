//! The JChomp clients: shared connection code for the `jchomp` CLI and the `jchomp-bench` load
//! generator, and the pieces of the interactive terminal client.

pub mod connection;
pub mod explain;
pub mod hint;
pub mod render_game;
pub mod room_state;
pub mod style;
