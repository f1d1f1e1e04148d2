//! [`Settings`]: every limit and tunable of the server, with the embedded defaults.

use jchomp_engine::classic::{FILE_NAME, MAX_SIDE};
use std::path::PathBuf;
use std::time::Duration;

/// The address the `jchomp-server` binary listens on when `--addr` is not given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7777";

/// Every tunable of the server and the limits clients meet. [`Settings::default`] holds the
/// embedded defaults the binary starts with (tests shorten the timers); the binary's flags are
/// derived from the fields that have one (`#[arg]`), each flag's default read from
/// [`Settings::default`]. Limits inherent to a part of the server (a batch size, a lease) are
/// constants beside the code they bound.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct Settings {
    /// Directory for the game database (`games.redb`) and the journal; created if missing.
    #[arg(long, default_value_os_t = Settings::default().data_dir)]
    pub data_dir: PathBuf,
    /// When a move is acknowledged: `always` once it is on disk (`fdatasync`), so a power cut
    /// loses no acknowledged move; `periodic` once the operating system has it, with the
    /// journal put on disk at least every `--sync-every-ms`, so a power cut may lose the moves
    /// of that last interval. A crash of the server alone (`kill -9`) loses nothing under
    /// either.
    #[arg(long, value_enum, default_value_t = Settings::default().durability)]
    pub durability: Durability,
    /// With `--durability periodic`: the longest the journal goes without `fdatasync` while it
    /// holds writes not on disk.
    #[arg(long = "sync-every-ms", value_name = "MS", value_parser = millis_at_least_one,
          default_value = shown_millis(Settings::default().sync_every))]
    pub sync_every: Duration,
    /// How long a dropped seat is held for `resume` before the game is abandoned (or, in a
    /// waiting room, the seat is freed).
    #[arg(long = "grace-secs", value_name = "SECS", value_parser = secs,
          default_value = shown_secs(Settings::default().grace))]
    pub grace: Duration,
    /// Largest incoming WebSocket message (and frame), in bytes.
    #[arg(long = "max-message-bytes", default_value_t = Settings::default().max_message_size)]
    pub max_message_size: usize,
    /// Sustained messages per second a connection may send (token bucket refill rate).
    #[arg(long = "rate-limit", default_value_t = Settings::default().rate_limit_per_sec)]
    pub rate_limit_per_sec: u32,
    /// Messages a connection may send in a burst (token bucket capacity).
    #[arg(long = "rate-burst", default_value_t = Settings::default().rate_limit_burst)]
    pub rate_limit_burst: u32,
    /// How often the server pings an otherwise quiet connection (at least a second).
    #[arg(long = "ping-secs", value_name = "SECS", value_parser = secs_at_least_one,
          default_value = shown_secs(Settings::default().ping_interval))]
    pub ping_interval: Duration,
    /// A connection from which nothing (not even a pong) arrives for this long is closed.
    #[arg(long = "idle-secs", value_name = "SECS", value_parser = secs,
          default_value = shown_secs(Settings::default().idle_timeout))]
    pub idle_timeout: Duration,
    /// Time a new TCP connection has to send its HTTP request head.
    #[arg(skip = Settings::default().handshake_timeout)]
    pub handshake_timeout: Duration,
    /// Time one write to a client may take before the client is dropped as stalled (at least
    /// a second).
    #[arg(long = "write-timeout-secs", value_name = "SECS", value_parser = secs_at_least_one,
          default_value = shown_secs(Settings::default().write_timeout))]
    pub write_timeout: Duration,
    /// Most rooms held at once (waiting, playing and finished).
    #[arg(long, default_value_t = Settings::default().max_rooms)]
    pub max_rooms: usize,
    /// Most games between server bots alone (`create_room` with `bots`) in play at once.
    #[arg(long, default_value_t = Settings::default().max_bot_games)]
    pub max_bot_games: usize,
    /// Quick pairing: how long a player who allows bots waits before bots take the seats
    /// nobody took (20 s: by then the window of ratings accepted has widened to ±500, so
    /// anyone else waiting nearby would have been met).
    #[arg(long = "pairing-bot-patience-secs", value_name = "SECS", value_parser = secs,
          default_value = shown_secs(Settings::default().pairing_bot_patience))]
    pub pairing_bot_patience: Duration,
    /// Quick pairing: how often the pools are paired (a wave).
    #[arg(long = "pairing-wave-ms", value_name = "MS", value_parser = millis_at_least_one,
          default_value = shown_millis(Settings::default().pairing_wave))]
    pub pairing_wave: Duration,
    /// Most TCP connections served at once (WebSocket and HTTP).
    #[arg(long, default_value_t = Settings::default().max_connections)]
    pub max_connections: usize,
    /// Most TCP connections one client address holds at once (an IPv4 address, or an IPv6
    /// /64 prefix); `0` turns the cap off. Further connections from it get HTTP `429`.
    #[arg(long, env = "JCHOMP_MAX_CONNECTIONS_PER_ADDRESS",
          default_value_t = Settings::default().max_connections_per_address)]
    pub max_connections_per_address: usize,
    /// Messages queued for one client before it is disconnected as a slow reader.
    #[arg(long = "queue", default_value_t = Settings::default().outgoing_queue)]
    pub outgoing_queue: usize,
    /// Events queued for one room before senders wait.
    #[arg(skip = Settings::default().room_queue)]
    pub room_queue: usize,
    /// How long a finished room stays listed (for `sync` and late spectators) before it closes.
    #[arg(long = "linger-secs", value_name = "SECS", value_parser = secs,
          default_value = shown_secs(Settings::default().finished_linger))]
    pub finished_linger: Duration,
    /// Smallest `move_time_ms` a room may be created with.
    #[arg(skip = Settings::default().min_move_time_ms)]
    pub min_move_time_ms: u64,
    /// Largest `move_time_ms` a room may be created with.
    #[arg(skip = Settings::default().max_move_time_ms)]
    pub max_move_time_ms: u64,
    /// Bot moves computed at the same time, each on a blocking thread (by default, the number
    /// of CPUs; at least one).
    #[arg(long, value_parser = at_least_one, default_value_t = Settings::default().bot_threads)]
    pub bot_threads: usize,
    /// Longest a server bot thinks about one move, whatever budget its spec asks for (a bot is
    /// stopped then and plays its best move so far), so that no room holds a bot thread for
    /// long (at least a millisecond).
    #[arg(long = "bot-think-ms", value_name = "MS", value_parser = millis_at_least_one,
          default_value = shown_millis(Settings::default().bot_think_cap))]
    pub bot_think_cap: Duration,
    /// Default number of games `list_games` returns.
    #[arg(skip = Settings::default().list_games_default)]
    pub list_games_default: u32,
    /// Largest number of games `list_games` returns.
    #[arg(skip = Settings::default().list_games_max)]
    pub list_games_max: u32,
    /// Time graceful shutdown may take to close clients and store finished games.
    #[arg(skip = Settings::default().shutdown_timeout)]
    pub shutdown_timeout: Duration,
    /// The classic Chomp database file, read the first time a classic game needs it (a
    /// `level:5` bot, an analysis), or built then on a background thread and written there;
    /// until it is ready, bots and analyses search instead [default: classic-15x15.db in the
    /// data directory].
    #[arg(long)]
    pub classic_db: Option<PathBuf>,
    /// Rows and columns of the box the classic database covers. The default, 15×15, holds every
    /// classic board (155 million positions, one byte each: about 155 MB). A smaller box is for
    /// tests, which must not build 15×15 (far too slow in a debug build): positions outside it
    /// are searched instead, and a file of another box is rebuilt.
    #[arg(skip = Settings::default().classic_box)]
    pub classic_box: (usize, usize),
    /// Longest one analysis may take (at least a millisecond): half to solve the position
    /// exactly, the rest to search each selection in turn; a selection not proven by then is
    /// reported unknown. The classic database answers at once.
    #[arg(long = "analysis-time-ms", value_name = "MS", value_parser = millis_at_least_one,
          default_value = shown_millis(Settings::default().analysis_time))]
    pub analysis_time: Duration,
    /// Analyses computed at the same time, each on a blocking thread of its own (apart from the
    /// bot threads, so that analyses never delay a bot's move); further analyses wait (by
    /// default, half the number of CPUs; at least one).
    #[arg(long, value_parser = at_least_one,
          default_value_t = Settings::default().analysis_threads)]
    pub analysis_threads: usize,
    /// Analyses one connection may have under way at once; another is refused with
    /// `analysis_unavailable` until one is answered.
    #[arg(skip = Settings::default().analyses_per_connection)]
    pub analyses_per_connection: usize,
    /// How long a login session lasts unless revoked (30 days).
    #[arg(long = "session-ttl-secs", value_name = "SECS", value_parser = secs_at_least_one,
          default_value = shown_secs(Settings::default().session_ttl))]
    pub session_ttl: Duration,
    /// Store finished games, accounts, sessions, ratings and the login throttle in PostgreSQL
    /// (postgres://user:password@host:port/database) instead of the embedded database (games
    /// in play stay in the embedded database), so that every node of a cluster shares them.
    #[arg(long, env = "JCHOMP_DATABASE", value_parser = database_url)]
    pub database: Option<String>,
    /// Join a cluster of nodes sharing this Redis (redis://host:port/): rooms, tokens and
    /// players are shared; each room is played on the node it was created on, its game in
    /// play kept in Redis, and taken over by another node if that node dies.
    #[arg(long, env = "JCHOMP_CLUSTER", value_parser = cluster_url)]
    pub cluster: Option<String>,
    /// A web page's origin (`https://host[:port]`) allowed to open a WebSocket here besides
    /// the server's own (the `Host` a request came to): the public address of the web client
    /// when a proxy reaches this server under another host name. Repeat the flag, or separate
    /// origins with commas in the variable. Browsers from any other origin are refused (`403`);
    /// clients that send no `Origin` (bots, the terminal client) are not affected.
    #[arg(long = "allowed-origin", value_name = "URL", env = "JCHOMP_ALLOWED_ORIGINS",
          value_delimiter = ',', value_parser = allowed_origin)]
    pub allowed_origins: Vec<String>,
    /// A JSON file of tournaments the server makes at start (docs/DEPLOY.md): an array of
    /// `create_tournament` specs, each made unless a tournament of the same name made from
    /// the file exists already, so a restart makes none twice. A bad file stops the start.
    #[arg(long, value_name = "FILE", env = "JCHOMP_TOURNAMENTS")]
    pub tournaments: Option<PathBuf>,
    /// Test only: echo WebSocket messages on this path (e.g. /echo) instead of playing them, for
    /// protocol test suites such as Autobahn, through the same connection code and limits as
    /// `/ws`.
    #[arg(long)]
    pub echo_path: Option<String>,
}

/// When the server acknowledges a move, against a power cut (docs/DEPLOY.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Durability {
    /// Once the move is on disk: a power cut loses nothing acknowledged.
    #[default]
    Always,
    /// Once the operating system has it; on disk within [`Settings::sync_every`].
    Periodic,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data_dir: PathBuf::from("jchomp-data"),
            durability: Durability::Always,
            sync_every: Duration::from_millis(20),
            grace: Duration::from_secs(60),
            max_message_size: 64 * 1024,
            rate_limit_per_sec: 1000,
            rate_limit_burst: 2000,
            ping_interval: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(45),
            handshake_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_rooms: 1000,
            max_bot_games: 16,
            pairing_bot_patience: Duration::from_secs(20),
            pairing_wave: Duration::from_secs(1),
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
            session_ttl: Duration::from_secs(30 * 24 * 60 * 60),
            allowed_origins: Vec::new(),
            echo_path: None,
            database: None,
            cluster: None,
            tournaments: None,
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

/// A flag's default in whole seconds, as `--help` shows it.
fn shown_secs(d: Duration) -> String {
    d.as_secs().to_string()
}

/// A flag's default in whole milliseconds, as `--help` shows it.
fn shown_millis(d: Duration) -> String {
    d.as_millis().to_string()
}

/// A duration given in whole seconds.
fn secs(arg: &str) -> Result<Duration, String> {
    arg.parse()
        .map(Duration::from_secs)
        .map_err(|_| format!("expected whole seconds, got {arg:?}"))
}

/// A duration given in whole seconds; 0 is taken as 1.
fn secs_at_least_one(arg: &str) -> Result<Duration, String> {
    secs(arg).map(|d| d.max(Duration::from_secs(1)))
}

/// A duration given in whole milliseconds; 0 is taken as 1.
fn millis_at_least_one(arg: &str) -> Result<Duration, String> {
    arg.parse()
        .map(|ms: u64| Duration::from_millis(ms.max(1)))
        .map_err(|_| format!("expected whole milliseconds, got {arg:?}"))
}

/// A count; 0 is taken as 1.
fn at_least_one(arg: &str) -> Result<usize, String> {
    arg.parse()
        .map(|n: usize| n.max(1))
        .map_err(|_| format!("expected a whole number, got {arg:?}"))
}

/// A `--database` URL: PostgreSQL's scheme, checked before anything starts.
fn database_url(url: &str) -> Result<String, String> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(url.to_string())
    } else {
        Err("expected a postgres://user:password@host:port/database URL".to_string())
    }
}

/// A `--cluster` URL: Redis's scheme, checked before anything starts.
fn cluster_url(url: &str) -> Result<String, String> {
    if url.starts_with("redis://") {
        Ok(url.to_string())
    } else {
        Err("expected a redis://host:port/ URL".to_string())
    }
}

/// An allowed origin as a browser writes it: `http` or `https`, a host and perhaps a port, in
/// lower case, without a path or a trailing `/`. Refuses anything else in words.
pub(crate) fn allowed_origin(url: &str) -> Result<String, String> {
    let url = url.trim().trim_end_matches('/').to_ascii_lowercase();
    let authority = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| {
            format!("expected an origin such as https://chomp.example.org, got {url:?}")
        })?;
    if authority.is_empty() || authority.contains(['/', '?', '#', '@', ' ']) {
        return Err(format!(
            "an origin is a scheme, a host and perhaps a port, with no path, got {url:?}"
        ));
    }
    Ok(url)
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
