//! `jchomp-bench`: the load generator for jchomp-server (see `jchomp_bench`).

use clap::Parser;
use jchomp_bench::cli::{Args, main as bench_main};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Args::parse();
    // As an echo server (a child of a load run) this process is a server: it runs the
    // servers' share of the threads, which its parent passes as `--threads`.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.own_threads())
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("jchomp-bench: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(bench_main(args))
}
