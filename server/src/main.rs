//! `jchomp-server`: parses the command line ([`Cli`]), binds, prints the address and serves
//! until Ctrl-C or SIGTERM.

use anyhow::anyhow;
use clap::Parser;
use jchomp_server::{Cli, check_store, check_tournaments, run, signal};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use tokio::net::TcpListener;

/// The server's allocator: many small buffers allocated and freed across threads in bursts
/// (a batch of moves answered at once) cost less here than in the system's malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = cli.threads {
        runtime.worker_threads(usize::from(n));
    }
    let served = runtime
        .enable_all()
        .build()
        .map_err(|e| anyhow!("cannot start the runtime: {e}"))
        .and_then(|runtime| {
            let served = runtime.block_on(serve(cli));
            // Bots still thinking on blocking threads have been told to stop; do not wait.
            runtime.shutdown_timeout(Duration::from_millis(300));
            served
        });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jchomp-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Checks the game database opens and the tournaments file reads, binds, prints the address and runs the server until a
/// signal. Nothing says "listening" unless the server can serve.
async fn serve(cli: Cli) -> anyhow::Result<()> {
    let dir = &cli.settings.data_dir;
    check_store(dir)
        .map_err(|e| anyhow!("cannot open the game database in {}: {e}", dir.display()))?;
    if let Some(path) = &cli.settings.tournaments {
        check_tournaments(path)?;
    }
    let listener = TcpListener::bind(&cli.addr)
        .await
        .map_err(|e| anyhow!("cannot listen on {}: {e}", cli.addr))?;
    let addr = listener.local_addr()?;
    let shutdown = signal();
    println!("jchomp-server listening on ws://{addr}/ws");
    let _ = std::io::stdout().flush();
    run(listener, cli.settings, shutdown).await?;
    Ok(())
}
