//! `jchomp-server`: parses flags into [`Settings`], binds, prints the address and serves until
//! Ctrl-C or SIGTERM.

use anyhow::anyhow;
use clap::Parser;
use jchomp_server::{DEFAULT_ADDR, Settings, check_store, run};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;

/// The server's allocator: many small buffers allocated and freed across threads in bursts
/// (a batch of moves answered at once) cost less here than in the system's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The embedded defaults: every flag's default, as `--help` shows it, is read from here.
fn defaults() -> Settings {
    Settings::default()
}

/// A duration in whole milliseconds, for a flag's default.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The JChomp WebSocket game server.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = DEFAULT_ADDR)]
    addr: String,
    /// Directory for the game database.
    #[arg(long, default_value_os_t = defaults().data_dir)]
    data_dir: PathBuf,
    /// Seconds a dropped seat is held for `resume`.
    #[arg(long, default_value_t = defaults().grace.as_secs())]
    grace_secs: u64,
    /// Largest incoming message in bytes.
    #[arg(long, default_value_t = defaults().max_message_size)]
    max_message_bytes: usize,
    /// Sustained messages per second per connection.
    #[arg(long, default_value_t = defaults().rate_limit_per_sec)]
    rate_limit: u32,
    /// Burst of messages per connection.
    #[arg(long, default_value_t = defaults().rate_limit_burst)]
    rate_burst: u32,
    /// Seconds without any frame from a client before it is closed.
    #[arg(long, default_value_t = defaults().idle_timeout.as_secs())]
    idle_secs: u64,
    /// Seconds between pings to a quiet client.
    #[arg(long, default_value_t = defaults().ping_interval.as_secs())]
    ping_secs: u64,
    /// Most rooms at once.
    #[arg(long, default_value_t = defaults().max_rooms)]
    max_rooms: usize,
    /// Most connections at once.
    #[arg(long, default_value_t = defaults().max_connections)]
    max_connections: usize,
    /// Most connections one client address (IPv4 address, IPv6 /64) holds at once; 0: no cap.
    #[arg(long, env = "JCHOMP_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = defaults().max_connections_per_address)]
    max_connections_per_address: usize,
    /// Messages queued per client before it is dropped as a slow reader.
    #[arg(long, default_value_t = defaults().outgoing_queue)]
    queue: usize,
    /// Longest a server bot thinks about one move, in milliseconds.
    #[arg(long, default_value_t = millis(defaults().bot_think_cap))]
    bot_think_ms: u64,
    /// Store finished games in PostgreSQL (postgres://user:password@host:port/database)
    /// instead of the embedded database.
    #[arg(long, env = "JCHOMP_DATABASE", value_parser = database_url)]
    database: Option<String>,
    /// Join a cluster of nodes sharing this Redis (redis://host:port/): rooms, tokens and
    /// players are shared; each room is played on the node it was created on, its game in
    /// play kept in Redis, and taken over by another node if that node dies.
    #[arg(long, env = "JCHOMP_CLUSTER", value_parser = cluster_url)]
    cluster: Option<String>,
    /// Test only: echo WebSocket messages on this path (e.g. /echo) for protocol test suites.
    #[arg(long)]
    echo_path: Option<String>,
    /// Seconds a finished room stays listed.
    #[arg(long, default_value_t = defaults().finished_linger.as_secs())]
    linger_secs: u64,
    /// Seconds one write to a client may take before it is dropped as stalled.
    #[arg(long, default_value_t = defaults().write_timeout.as_secs())]
    write_timeout_secs: u64,
    /// Bot moves computed at the same time (by default, the number of CPUs).
    #[arg(long, default_value_t = defaults().bot_threads)]
    bot_threads: usize,
    /// The classic Chomp database file, read (or built and written) when a classic game first
    /// needs it [default: classic-15x15.db in the data directory].
    #[arg(long)]
    classic_db: Option<PathBuf>,
    /// Longest one analysis may take, in milliseconds; selections not proven by then are
    /// reported unknown.
    #[arg(long, default_value_t = millis(defaults().analysis_time))]
    analysis_time_ms: u64,
    /// Analyses computed at the same time (by default, half the number of CPUs).
    #[arg(long, default_value_t = defaults().analysis_threads)]
    analysis_threads: usize,
    /// Threads serving connections and rooms (default: the number of CPUs). Where other busy
    /// processes share the CPUs (a load generator on the same machine, say), fewer threads
    /// than CPUs spend less time handing work between them; see docs/PERFORMANCE.md.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
}

impl Args {
    /// The settings the flags ask for; the rest are the defaults.
    fn settings(&self) -> Settings {
        let secs = Duration::from_secs;
        Settings {
            data_dir: self.data_dir.clone(),
            grace: secs(self.grace_secs),
            max_message_size: self.max_message_bytes,
            rate_limit_per_sec: self.rate_limit,
            rate_limit_burst: self.rate_burst,
            idle_timeout: secs(self.idle_secs),
            ping_interval: secs(self.ping_secs.max(1)),
            max_rooms: self.max_rooms,
            max_connections: self.max_connections,
            max_connections_per_address: self.max_connections_per_address,
            outgoing_queue: self.queue,
            bot_think_cap: Duration::from_millis(self.bot_think_ms.max(1)),
            echo_path: self.echo_path.clone(),
            database: self.database.clone(),
            cluster: self.cluster.clone(),
            finished_linger: secs(self.linger_secs),
            write_timeout: secs(self.write_timeout_secs.max(1)),
            bot_threads: self.bot_threads.max(1),
            classic_db: self.classic_db.clone(),
            analysis_time: Duration::from_millis(self.analysis_time_ms.max(1)),
            analysis_threads: self.analysis_threads.max(1),
            ..defaults()
        }
    }
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

/// A future completing on Ctrl-C or (on Unix) SIGTERM. The handlers are installed right away,
/// before the address is printed, so that a signal sent as soon as the server is up is caught.
fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match start(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jchomp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Starts the runtime and serves on it. Every error carries its cause in its message.
fn start(args: Args) -> anyhow::Result<()> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.threads {
        builder.worker_threads(usize::from(n));
    }
    let runtime = builder
        .enable_all()
        .build()
        .map_err(|e| anyhow!("cannot start the runtime: {e}"))?;
    let served = runtime.block_on(serve(args));
    // Bots still thinking on blocking threads have been told to stop; do not wait for them.
    runtime.shutdown_timeout(Duration::from_millis(300));
    served
}

/// Checks the game database opens, binds, prints the address and runs the server until a
/// signal. Nothing says "listening" unless the server can serve.
async fn serve(args: Args) -> anyhow::Result<()> {
    check_store(&args.data_dir).map_err(|e| {
        anyhow!(
            "cannot open the game database in {}: {e}",
            args.data_dir.display()
        )
    })?;
    let listener = TcpListener::bind(&args.addr)
        .await
        .map_err(|e| anyhow!("cannot listen on {}: {e}", args.addr))?;
    let addr = listener.local_addr()?;
    let shutdown = shutdown_signal();
    println!("jchomp-server listening on ws://{addr}/ws");
    let _ = std::io::stdout().flush();
    run(listener, args.settings(), shutdown).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_flags_are_consistent() {
        Args::command().debug_assert();
    }

    #[test]
    fn no_flags_means_the_default_settings() {
        let args = Args::try_parse_from(["jchomp-server"]).unwrap();
        assert_eq!(args.settings(), Settings::default());
        assert_eq!(args.addr, DEFAULT_ADDR);
        assert_eq!(args.threads, None);
    }

    #[test]
    fn help_shows_the_default_settings() {
        let help = Args::command().render_help().to_string();
        let d = Settings::default();
        for (flag, default) in [
            ("--addr", DEFAULT_ADDR.to_string()),
            ("--data-dir", d.data_dir.display().to_string()),
            ("--grace-secs", d.grace.as_secs().to_string()),
            ("--max-message-bytes", d.max_message_size.to_string()),
            ("--rate-limit", d.rate_limit_per_sec.to_string()),
            ("--rate-burst", d.rate_limit_burst.to_string()),
            ("--idle-secs", d.idle_timeout.as_secs().to_string()),
            ("--ping-secs", d.ping_interval.as_secs().to_string()),
            ("--max-rooms", d.max_rooms.to_string()),
            ("--max-connections", d.max_connections.to_string()),
            (
                "--max-connections-per-address",
                d.max_connections_per_address.to_string(),
            ),
            ("--queue", d.outgoing_queue.to_string()),
            ("--bot-think-ms", d.bot_think_cap.as_millis().to_string()),
            ("--linger-secs", d.finished_linger.as_secs().to_string()),
            (
                "--write-timeout-secs",
                d.write_timeout.as_secs().to_string(),
            ),
            ("--bot-threads", d.bot_threads.to_string()),
            (
                "--analysis-time-ms",
                d.analysis_time.as_millis().to_string(),
            ),
            ("--analysis-threads", d.analysis_threads.to_string()),
            (
                "--classic-db",
                "classic-15x15.db in the data directory".to_string(),
            ),
        ] {
            let line = help
                .lines()
                .skip_while(|l| !l.trim_start().starts_with(&format!("{flag} ")))
                .find(|l| l.contains("[default: "))
                .unwrap_or_else(|| panic!("no default for {flag} in\n{help}"));
            assert!(
                line.contains(&format!("[default: {default}]")),
                "{flag}: {line}"
            );
        }
    }

    #[test]
    fn flags_set_their_settings() {
        let args = Args::try_parse_from([
            "jchomp-server",
            "--grace-secs",
            "5",
            "--ping-secs",
            "0",
            "--bot-think-ms",
            "250",
            "--queue",
            "9",
            "--classic-db",
            "/srv/classic.db",
            "--analysis-time-ms",
            "0",
            "--analysis-threads",
            "3",
        ])
        .unwrap();
        let s = args.settings();
        assert_eq!(s.grace, Duration::from_secs(5));
        assert_eq!(s.ping_interval, Duration::from_secs(1));
        assert_eq!(s.bot_think_cap, Duration::from_millis(250));
        assert_eq!(s.outgoing_queue, 9);
        assert_eq!(s.classic_db_path(), PathBuf::from("/srv/classic.db"));
        assert_eq!(s.analysis_time, Duration::from_millis(1));
        assert_eq!(s.analysis_threads, 3);
        assert_eq!(s.max_rooms, Settings::default().max_rooms);
        assert_eq!(s.database, None);
    }

    #[test]
    fn the_database_is_a_postgres_url() {
        let args = Args::try_parse_from([
            "jchomp-server",
            "--database",
            "postgres://jchomp@127.0.0.1:5432/jchomp",
        ])
        .unwrap();
        assert_eq!(
            args.settings().database.as_deref(),
            Some("postgres://jchomp@127.0.0.1:5432/jchomp")
        );
        let err = Args::try_parse_from(["jchomp-server", "--database", "mysql://x"]).unwrap_err();
        assert!(err.to_string().contains("postgres://"), "{err}");
    }
}
