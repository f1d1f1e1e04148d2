//! Running engines that speak the JChomp engine protocol (docs/ENGINE.md), for any runner
//! (tournaments, and the bridge that seats an engine on a server): [`Launch`] (the program and
//! its arguments), `Process` (the running program: lines both ways, bounded in time and size,
//! its standard error logged, ended without a zombie), [`Engine`] (the handshake and the
//! protocol's requests, each failure an [`EngineError`]) and [`EnginePlayer`] (an engine as a
//! [`Player`](jchomp_engine::player::Player)).

mod engine;
mod launch;
mod player;
mod process;
mod reader;

pub use engine::{Engine, EngineError, EngineInfo, HANDSHAKE_TIME, READY_TIME};
pub use launch::{Launch, LaunchError};
pub use player::{EnginePlayer, EngineSetup};
pub use process::{Io, MAX_BYTES, MAX_LINES, QUIT_GRACE, Stderr};
