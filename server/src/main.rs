//! `jchomp-server`: parses flags into [`Settings`], binds, prints the address and serves until
//! Ctrl-C or SIGTERM.

use clap::Parser;
use jchomp_server::{DEFAULT_ADDR, Settings, run};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;

/// The JChomp WebSocket game server.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = DEFAULT_ADDR)]
    addr: String,
    /// Directory for the game database (default: jchomp-data).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Seconds a dropped seat is held for `resume` (default 60).
    #[arg(long)]
    grace_secs: Option<u64>,
    /// Largest incoming message in bytes (default 65536).
    #[arg(long)]
    max_message_bytes: Option<usize>,
    /// Sustained messages per second per connection (default 1000).
    #[arg(long)]
    rate_limit: Option<u32>,
    /// Burst of messages per connection (default 2000).
    #[arg(long)]
    rate_burst: Option<u32>,
    /// Seconds without any frame from a client before it is closed (default 45).
    #[arg(long)]
    idle_secs: Option<u64>,
    /// Seconds between pings to a quiet client (default 15).
    #[arg(long)]
    ping_secs: Option<u64>,
    /// Most rooms at once (default 1000).
    #[arg(long)]
    max_rooms: Option<usize>,
    /// Most connections at once (default 4096).
    #[arg(long)]
    max_connections: Option<usize>,
    /// Messages queued per client before it is dropped as a slow reader (default 256).
    #[arg(long)]
    queue: Option<usize>,
    /// Longest a server bot thinks about one move, in milliseconds (default 5000).
    #[arg(long)]
    bot_think_ms: Option<u64>,
    /// Test only: echo WebSocket messages on this path (e.g. /echo) for protocol test suites.
    #[arg(long)]
    echo_path: Option<String>,
    /// Seconds a finished room stays listed (default 120).
    #[arg(long)]
    linger_secs: Option<u64>,
    /// Seconds one write to a client may take before it is dropped as stalled (default 10).
    #[arg(long)]
    write_timeout_secs: Option<u64>,
    /// Bot moves computed at the same time (default: the number of CPUs).
    #[arg(long)]
    bot_threads: Option<usize>,
    /// Threads serving connections and rooms (default: the number of CPUs). Where other busy
    /// processes share the CPUs (a load generator on the same machine, say), fewer threads
    /// than CPUs spend less time handing work between them; see docs/PERFORMANCE.md.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
}

impl Args {
    fn settings(&self) -> Settings {
        let mut s = Settings::default();
        let secs = Duration::from_secs;
        if let Some(v) = &self.data_dir {
            s.data_dir = v.clone();
        }
        if let Some(v) = self.grace_secs {
            s.grace = secs(v);
        }
        if let Some(v) = self.max_message_bytes {
            s.max_message_size = v;
        }
        if let Some(v) = self.rate_limit {
            s.rate_limit_per_sec = v;
        }
        if let Some(v) = self.rate_burst {
            s.rate_limit_burst = v;
        }
        if let Some(v) = self.idle_secs {
            s.idle_timeout = secs(v);
        }
        if let Some(v) = self.ping_secs {
            s.ping_interval = secs(v.max(1));
        }
        if let Some(v) = self.max_rooms {
            s.max_rooms = v;
        }
        if let Some(v) = self.max_connections {
            s.max_connections = v;
        }
        if let Some(v) = self.queue {
            s.outgoing_queue = v;
        }
        if let Some(v) = self.bot_think_ms {
            s.bot_think_cap = Duration::from_millis(v.max(1));
        }
        if let Some(v) = &self.echo_path {
            s.echo_path = Some(v.clone());
        }
        if let Some(v) = self.linger_secs {
            s.finished_linger = secs(v);
        }
        if let Some(v) = self.write_timeout_secs {
            s.write_timeout = secs(v.max(1));
        }
        if let Some(v) = self.bot_threads {
            s.bot_threads = v.max(1);
        }
        s
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
    let args = Args::parse();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.threads {
        builder.worker_threads(usize::from(n));
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("jchomp-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(serve(args));
    // Bots still thinking on blocking threads have been told to stop; do not wait for them.
    runtime.shutdown_timeout(Duration::from_millis(300));
    code
}

/// Binds, prints the address and runs the server until a signal.
async fn serve(args: Args) -> ExitCode {
    let listener = match TcpListener::bind(&args.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("jchomp-server: cannot listen on {}: {e}", args.addr);
            return ExitCode::FAILURE;
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("jchomp-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let shutdown = shutdown_signal();
    println!("jchomp-server listening on ws://{addr}/ws");
    let _ = std::io::stdout().flush();
    match run(listener, args.settings(), shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jchomp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
