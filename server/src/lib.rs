//! The JChomp WebSocket game server.
//!
//! [`Server::start`] serves `ws://HOST:PORT/ws` (the JSON protocol of `docs/PROTOCOL.md`), the
//! web client at `/` (its files embedded from `server/web/`), `GET /healthz` and `GET /metrics`
//! on one listener until [`Server::stop`]; [`run`] does both around a shutdown future. What an
//! operator tunes is in [`Settings`], whose fields are also the binary's flags ([`Cli`]). Each
//! room is one task owning its state; each connection has a bounded outgoing queue and is
//! dropped when it cannot keep up; a move is durable before anyone is told of it.

mod accounts;
mod cli;
mod clock;
mod cluster;
mod error;
mod game;
mod metrics;
mod net;
mod pairing;
mod ratings;
mod server;
mod settings;
mod shutdown;
mod store;
mod sync;
mod tournaments;

pub use cli::Cli;
pub use cluster::ClusterError;
pub use error::ServerError;
pub use server::{Server, run};
pub use settings::{DEFAULT_ADDR, Durability, Settings};
pub use shutdown::signal;
pub use store::{DB_FILE, PgError, StoreError};

/// Opens (creating it if needed) the game database in `dir` and closes it again, so that the
/// program can refuse to start, before it says it is listening, when the database cannot be
/// opened.
pub fn check_store(dir: &std::path::Path) -> Result<(), StoreError> {
    store::Store::open(dir).map(drop)
}

/// Reads and checks the tournaments file at `path` (`--tournaments`), so that the program can
/// refuse to start, before it says it is listening, when an entry is refused.
pub fn check_tournaments(path: &std::path::Path) -> Result<(), ServerError> {
    server::tournaments_file(path).map(drop)
}
