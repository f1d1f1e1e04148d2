//! The JChomp clients: shared connection code for the `jchomp` CLI and the `jchomp-bench` load
//! generator, and the pieces of the interactive terminal client.

pub mod app;
pub mod bench;
pub mod cli;
pub mod commands;
pub mod connection;
pub mod explain;
pub mod hint;
pub mod input;
pub mod render_game;
pub mod render_lobby;
pub mod room_state;
pub mod run;
pub mod style;
pub mod terminal;
