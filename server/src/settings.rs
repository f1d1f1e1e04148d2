//! [`Settings`]: every limit and tunable of the server, with the embedded defaults.

use jchomp_engine::classic::{FILE_NAME, MAX_SIDE};
use std::path::PathBuf;
use std::time::Duration;

/// The address the `jchomp-server` binary listens on when `--addr` is not given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7777";

/// Every limit and tunable of the server. [`Settings::default`] holds the embedded defaults the
/// binary starts with; tests shorten the timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Directory holding the game database (`games.redb`); created if missing.
    pub data_dir: PathBuf,
    /// How long a dropped seat is held for `resume` before the game is abandoned (or, in a
    /// waiting room, the seat is freed).
    pub grace: Duration,
    /// Largest incoming WebSocket message (and frame), in bytes.
    pub max_message_size: usize,
    /// Sustained messages per second a connection may send (token bucket refill rate).
    pub rate_limit_per_sec: u32,
    /// Messages a connection may send in a burst (token bucket capacity).
    pub rate_limit_burst: u32,
    /// How often the server pings an otherwise quiet connection.
    pub ping_interval: Duration,
    /// A connection from which nothing (not even a pong) arrives for this long is closed.
    pub idle_timeout: Duration,
    /// Time a new TCP connection has to send its HTTP request head.
    pub handshake_timeout: Duration,
    /// Time one write to a client may take before the client is dropped as stalled.
    pub write_timeout: Duration,
    /// Most rooms held at once (waiting, playing and finished).
    pub max_rooms: usize,
    /// Most TCP connections served at once (WebSocket and HTTP).
    pub max_connections: usize,
    /// Most TCP connections one client address holds at once (an IPv4 address, or an IPv6
    /// /64 prefix); `0` turns the cap off. Further connections from it get HTTP `429`.
    pub max_connections_per_address: usize,
    /// Messages queued for one client before it is disconnected as a slow reader.
    pub outgoing_queue: usize,
    /// Events queued for one room before senders wait.
    pub room_queue: usize,
    /// How long a finished room stays listed (for `sync` and late spectators) before it closes.
    pub finished_linger: Duration,
    /// Smallest `move_time_ms` a room may be created with.
    pub min_move_time_ms: u64,
    /// Largest `move_time_ms` a room may be created with.
    pub max_move_time_ms: u64,
    /// Bot moves computed at the same time (each on a blocking thread).
    pub bot_threads: usize,
    /// Longest a server bot thinks about one move, whatever budget its spec asks for (a bot is
    /// stopped then and plays its best move so far), so that no room holds a bot thread for
    /// long.
    pub bot_think_cap: Duration,
    /// Default number of games `list_games` returns.
    pub list_games_default: u32,
    /// Largest number of games `list_games` returns.
    pub list_games_max: u32,
    /// Time graceful shutdown may take to close clients and store finished games.
    pub shutdown_timeout: Duration,
    /// The classic Chomp database file; `None` means [`FILE_NAME`] in `data_dir`. It is read the
    /// first time a classic game needs it (a `level:5` bot, an analysis), or built then on a
    /// background thread and written there; until it is ready, bots and analyses search instead.
    pub classic_db: Option<PathBuf>,
    /// Rows and columns of the box the classic database covers. The default, 15×15, holds every
    /// classic board (155 million positions, one byte each: about 155 MB). A smaller box is for
    /// tests, which must not build 15×15 (far too slow in a debug build): positions outside it
    /// are searched instead, and a file of another box is rebuilt.
    pub classic_box: (usize, usize),
    /// Longest the server spends on one `analyze` (searching, and waiting for nothing else):
    /// half to solve the position exactly, the rest to search each selection in turn. A
    /// selection not proven by then is `unknown`. The classic database answers at once.
    pub analysis_time: Duration,
    /// Analyses computed at the same time, each on a blocking thread of its own (apart from the
    /// bot threads, so that analyses never delay a bot's move); further analyses wait.
    pub analysis_threads: usize,
    /// Analyses one connection may have under way at once; another is refused with
    /// `analysis_unavailable` until one is answered.
    pub analyses_per_connection: usize,
    /// Where finished game records go: `None` keeps them in the embedded database (the
    /// default); a `postgres://user:password@host:port/database` URL sends them to PostgreSQL
    /// (games in play stay in the embedded database).
    pub database: Option<String>,
    /// A `redis://host:port/` URL makes this node one of a cluster sharing that Redis (the
    /// room directory and list, seat tokens, node leases, messages between nodes, games in
    /// play for another node to take over); `None`
    /// (the default) is a server on its own.
    pub cluster: Option<String>,
    /// Test only: a path (such as `/echo`) whose WebSocket messages are echoed back instead of
    /// played, for protocol test suites such as Autobahn. It runs through the same connection
    /// code and limits as `/ws`. `None` (the default) serves no echo.
    pub echo_path: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data_dir: PathBuf::from("jchomp-data"),
            grace: Duration::from_secs(60),
            max_message_size: 64 * 1024,
            rate_limit_per_sec: 1000,
            rate_limit_burst: 2000,
            ping_interval: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(45),
            handshake_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_rooms: 1000,
            max_connections: 4096,
            max_connections_per_address: 128,
            outgoing_queue: 256,
            room_queue: 256,
            finished_linger: Duration::from_secs(120),
            min_move_time_ms: 10,
            max_move_time_ms: 24 * 60 * 60 * 1000,
            bot_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            bot_think_cap: Duration::from_secs(5),
            list_games_default: 20,
            list_games_max: 100,
            shutdown_timeout: Duration::from_secs(4),
            classic_db: None,
            classic_box: (MAX_SIDE, MAX_SIDE),
            analysis_time: Duration::from_millis(300),
            analysis_threads: std::thread::available_parallelism()
                .map_or(1, |n| (n.get() / 2).max(1)),
            analyses_per_connection: 4,
            echo_path: None,
            database: None,
            cluster: None,
        }
    }
}

impl Settings {
    /// The classic database file: `classic_db`, or [`FILE_NAME`] in the data directory.
    pub fn classic_db_path(&self) -> PathBuf {
        self.classic_db
            .clone()
            .unwrap_or_else(|| self.data_dir.join(FILE_NAME))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_database_is_in_the_data_directory_unless_named() {
        let mut s = Settings::default();
        assert_eq!(s.classic_db_path(), s.data_dir.join("classic-15x15.db"));
        assert_eq!(s.classic_box, (15, 15));
        s.classic_db = Some(PathBuf::from("/srv/chomp.db"));
        assert_eq!(s.classic_db_path(), PathBuf::from("/srv/chomp.db"));
    }
}
