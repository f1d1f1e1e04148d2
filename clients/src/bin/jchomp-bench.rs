//! `jchomp-bench`: the load generator for jchomp-server (see `jchomp_clients::bench`).

use clap::Parser;
use jchomp_clients::bench::cli::{Args, main as bench_main};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    bench_main(Args::parse()).await
}
